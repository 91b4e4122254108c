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


def _is_mark(text: str) -> bool:
    """A footnote mark or a sub/superscript: at most three characters (digits, a sign, a letter)."""
    return len(text) <= 3


def small_text_on(reader, pages: list[int]) -> list[str]:
    """Text below :data:`MIN_PT` on the given pages (0-based), footnote marks and scripts left out."""
    bad = []
    for i in pages:
        for size, text in _page_sizes(reader.pages[i]):
            if size < MIN_PT - 0.05 and not _is_mark(text):
                bad.append(f"page {i + 1}: {size:.1f} pt {text[:40]!r}")
    return bad


def _texts(reader) -> list[str]:
    return [p.extract_text() or "" for p in reader.pages]


def table_pages(texts: list[str]) -> dict[str, list[int]]:
    """Pages that show Tables 1-4 (their caption) and the pages of the appendices (Appendix A up to the first
    chapter beyond the paper, found by its title)."""
    out: dict[str, list[int]] = {}
    for n in range(1, 5):
        out[f"Table {n}"] = [i for i, t in enumerate(texts) if re.search(rf"Table {n}\s*:", t)]
    start = next(i for i, t in enumerate(texts) if "a practical self-assessment diagnostic" in t and i > 5)
    end = next(i for i, t in enumerate(texts) if i > start and "Calibration versus discrimination" in t[:400])
    out["appendices"] = list(range(start, end))
    return out


@pytest.mark.book
def test_tables_1_to_4_and_the_appendix_tables_are_at_least_8_pt(built_pdf):
    from pypdf import PdfReader

    reader = PdfReader(str(built_pdf))
    pages = table_pages(_texts(reader))
    for name, where in pages.items():
        assert where, f"{name}: not found in the PDF"
    bad = {name: small_text_on(reader, where) for name, where in pages.items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, "text below 8 pt: " + "; ".join(f"{k}: {v[:5]}" for k, v in bad.items())


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

    text = " ".join(" ".join(t.split()) for t in _texts(PdfReader(str(built_pdf))))
    notes = re.findall(r"The paper prints (\S+); this build computes (\S+?):", text)
    assert notes, "no footnote for a differing number"
    assert all(p != v for p, v in notes), [n for n in notes if n[0] == n[1]][:5]
    assert "How to read the numbers" in text
