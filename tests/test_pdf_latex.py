"""The typeset PDF (``make pdf``: LaTeX): type sizes of the paper's tables, links, chapter order and numbering.

Uses the session's ``built_pdf`` (skipped, saying why, when TeX Live is absent; ``make test`` installs it).  Sizes
are read with pypdf's text visitor (the font size of each text-showing operator times the text matrix's scale),
an outside reader of the PDF, not the code that wrote it; the chapter numbers with poppler's ``pdftotext``.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

#: Smallest type a table of the paper may be set in (the issue's rule: never below 8 pt).
MIN_PT = 8.0


def _page_sizes(page) -> list[tuple[float, str]]:
    """(size in pt, text) of every text-showing operation of a PDF page."""
    out: list[tuple[float, str]] = []

    def visit(text, cm, tm, font, size):
        if not text.strip():
            return
        scale = (abs(tm[0] * tm[3] - tm[1] * tm[2]) * abs(cm[0] * cm[3] - cm[1] * cm[2])) ** 0.5
        out.append((float(size) * scale, text.strip()))

    page.extract_text(visitor_text=visit)
    return out


#: CSV downloads of the appendices' tables (Appendix A's diagnostic, Appendix B's reproducibility sections).
APPENDIX_TABLES = ("diagnostic_", "fidelity_", "reconstruction_", "consistency_", "audit")


def cell_words(root, prefixes) -> set[str]:
    """Words (longer than 3 characters: no footnote mark or script) of the cells of the CSV downloads whose name
    starts with one of ``prefixes``: the text a table of those shows."""
    import csv

    words: set[str] = set()
    for path in sorted((root / "book" / "_static" / "tables").glob("*.csv")):
        if not path.name.startswith(tuple(prefixes)):
            continue
        with open(path, encoding="utf-8") as f:
            for row in csv.reader(f):
                words.update(w for c in row for w in c.split() if len(w) > 3)
    return words


def small_table_text(reader, pages: list[int], words: set[str]) -> list[str]:
    """Table text below :data:`MIN_PT` on the given pages (0-based): a text run holding a table cell's number or id,
    or two of its words."""
    bad = []
    for i in pages:
        for size, text in _page_sizes(reader.pages[i]):
            hits = [w for w in text.split() if len(w) > 3 and w in words]
            # a cell's number or id, or two of its words (a lone word may be a script in a formula: x_{correct})
            if size < MIN_PT - 0.05 and (len(hits) > 1 or any(re.search(r"[\d_]", w) for w in hits)):
                bad.append(f"page {i + 1}: {size:.1f} pt {text[:40]!r}")
    return bad


def _texts(reader, pdf) -> list[str]:
    """Text per page: poppler's pdftotext (pages split at form feeds), else pypdf's extraction."""
    if shutil.which("pdftotext"):
        out = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
        return out.split("\f")[: len(reader.pages)]
    return [p.extract_text() or "" for p in reader.pages]


def chapter_page(reader, title: str) -> int:
    """0-based page of the first outline entry whose title contains ``title``."""

    def walk(items):
        for it in items:
            if isinstance(it, list):
                yield from walk(it)
            else:
                yield it

    for it in walk(reader.outline):
        if title in " ".join(str(it.title).split()):
            return reader.get_destination_page_number(it)
    raise AssertionError(f"no outline entry {title!r} in the PDF")


def table_pages(reader, pdf) -> dict[str, list[int]]:
    """Pages that show Tables 1-4 (their caption "Table N:"), and the pages of the appendices (from Appendix A's
    first page to the first chapter beyond the paper)."""
    texts = _texts(reader, pdf)
    out: dict[str, list[int]] = {}
    for n in range(1, 5):
        out[f"Table {n}"] = [i for i, t in enumerate(texts) if re.search(rf"Table\s*{n}\s*:", t)]
    start = chapter_page(reader, "a practical self-assessment diagnostic")
    end = chapter_page(reader, "Calibration versus discrimination")
    out["appendices"] = list(range(start, end))
    return out


@pytest.mark.book
def test_tables_1_to_4_and_the_appendix_tables_are_at_least_8_pt(built_pdf, root):
    from pypdf import PdfReader

    reader = PdfReader(str(built_pdf))
    pages = table_pages(reader, built_pdf)
    for name, where in pages.items():
        assert where, f"{name}: not found in the PDF"
    paper = cell_words(root, ("table1.", "table2.", "table3_", "table4_"))
    appendix = cell_words(root, APPENDIX_TABLES)
    assert len(paper) > 40 and len(appendix) > 400
    bad = {n: small_table_text(reader, w, appendix if n == "appendices" else paper) for n, w in pages.items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "table text below 8 pt: " + "; ".join(f"{k} ({len(v)}): {v[:4]}" for k, v in bad.items())


@pytest.mark.book
def test_no_link_leaves_the_pdf_but_a_doi(built_pdf):
    """Every link annotation jumps inside the PDF, except links to a DOI (references, the paper itself)."""
    from pypdf import PdfReader

    reader = PdfReader(str(built_pdf))
    internal, outside, dois = 0, [], 0
    for i, page in enumerate(reader.pages):
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A")
            uri = str(action.get_object().get("/URI", "")) if action is not None else ""
            if not uri:
                internal += 1
            elif re.match(r"https?://(dx\.)?doi\.org/", uri):
                dois += 1
            else:
                outside.append(f"page {i + 1}: {uri}")
    assert not outside, f"{len(outside)} links leave the PDF:\n" + "\n".join(outside[:20])
    assert internal > 200, f"only {internal} links jump inside the PDF"
    assert dois >= 1


@pytest.mark.book
def test_the_papers_sections_come_first_in_the_papers_numbering(built_pdf):
    from pypdf import PdfReader

    if shutil.which("pdftotext") is None:
        pytest.skip("poppler's pdftotext is not installed (scripts/install_tex.sh installs it)")
    reader = PdfReader(str(built_pdf))
    flat = []

    def walk(items):
        for it in items:
            if isinstance(it, list):
                walk(it)
            else:
                flat.append(" ".join(str(it.title).split()))

    walk(reader.outline)
    expected = [
        "Abstract",
        "Introduction",
        "Related work",
        "Experiment design and data",
        "Result 1",
        "Result 2",
        "Result 3",
        "Implications",
        "Limitations",
        "Conclusion",
        "a practical self-assessment diagnostic",
        "reproducibility",
        "Calibration versus discrimination",
    ]
    at = [next((i for i, t in enumerate(flat) if t.startswith(e) or e in t), None) for e in expected]
    assert None not in at, dict(zip(expected, at, strict=True))
    assert at == sorted(at), f"chapters out of the paper's order: {list(zip(expected, at, strict=True))}"
    contents = subprocess.run(
        ["pdftotext", "-l", "8", str(built_pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    numbering = {
        "1": "Introduction",
        "4": "Result 1",
        "5": "Result 2",
        "9": "Conclusion",
        "A": "a practical self-assessment diagnostic",
        "B": "reproducibility",
    }
    for num, title in numbering.items():
        assert re.search(rf"^{num}\s+{re.escape(title)}", contents, re.M), f"contents: no '{num} {title}'"
    assert not re.search(r"^\d+\s+Abstract", contents, re.M), "the Abstract is numbered (the paper does not)"


@pytest.mark.book
def test_every_differing_number_has_a_footnote_with_the_papers_print(built_pdf, root):
    """As many footnotes 'The paper prints P; this build computes V' as the pages mark differing numbers."""
    from pypdf import PdfReader

    text = " ".join(" ".join(t.split()) for t in _texts(PdfReader(str(built_pdf)), built_pdf))
    notes = re.findall(r"The paper prints (\S+); this build computes (\S+?):", text)
    assert notes, "no footnote for a differing number"
    assert all(p != v for p, v in notes), [n for n in notes if n[0] == n[1]][:5]
    assert "How to read the numbers" in text


def table_text(root) -> str:
    """The text of every cell and heading of the book's CSV downloads (one per table), joined by newlines."""
    import csv

    cells: list[str] = []
    for path in sorted((root / "book" / "_static" / "tables").glob("*.csv")):
        with open(path, encoding="utf-8") as f:
            cells.extend(c for row in csv.reader(f) for c in row)
    return "\n".join(cells)


def overlapping_cells(pdf, text: str) -> list[str]:
    """Pairs of words on one line of a page (poppler's ``pdftotext -bbox``: same top and bottom) whose boxes overlap
    horizontally by more than 0.5 pt, both of them text of a table (a substring of ``text`` once stripped of the
    hyphen, underscore or punctuation a line break leaves): one cell's content running into the next cell's.
    Words of a chart's axis, a running foot or a formula's accent are not table text and are not judged."""
    import html

    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    word = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>')

    def cellish(w: str) -> bool:
        w = w.strip("-_,.;:()[]")
        return len(w) >= 2 and w in text

    bad = []
    for i, page in enumerate(out.split("<page ")[1:]):
        lines: dict[tuple[float, float], list[tuple[float, float, str]]] = {}
        for x0, y0, x1, y1, w in word.findall(page):
            key = (round(float(y0), 1), round(float(y1), 1))
            lines.setdefault(key, []).append((float(x0), float(x1), html.unescape(w)))
        for words in lines.values():
            words.sort()
            for a, b in zip(words, words[1:], strict=False):
                if b[0] < a[1] - 0.5 and cellish(a[2]) and cellish(b[2]):
                    bad.append(f"page {i + 1}: {a[2]!r} runs {a[1] - b[0]:.1f} pt into {b[2]!r}")
    return bad


@pytest.mark.book
def test_no_table_cell_runs_into_the_next(built_pdf, root):
    """In every table of the PDF (the audit records' 13 columns included), no two words of adjacent cells on one
    line overlap: each column is at least as wide as its longest unbreakable run, or the table is split."""
    if shutil.which("pdftotext") is None:
        pytest.skip("poppler's pdftotext is not installed (scripts/install_tex.sh installs it)")
    text = table_text(root)
    bad = overlapping_cells(built_pdf, text)
    assert not bad, f"{len(bad)} table cells run into the next one:\n" + "\n".join(bad[:20])
    from pypdf import PdfReader

    pages = _texts(PdfReader(str(built_pdf)), built_pdf)
    assert any("Audit records" in p and "recomputed" in p for p in pages), "the audit records table is not in the PDF"
