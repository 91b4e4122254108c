"""Parity across surfaces (selfconf.book.parity): every published surface shows the audit's value for a claim,
a table equals its CSV download, and a statistic shown on two pages is the same on both."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from selfconf.book import parity


def _page(claim: str, text: str, status: str = "match", differs: bool = False) -> str:
    cls = "selfconf-num selfconf-differs" if differs else "selfconf-num"
    mark = '<sup class="selfconf-mark" aria-hidden="true">≠&#8239;paper</sup>' if differs else ""
    return f'<span class="{cls}" data-claim="{claim}" data-status="{status}" data-value="{text}">{text}{mark}</span>'


@pytest.fixture
def tiny_build(tmp_path):
    """A build folder with one page (two pasted claims and a table), its CSV and an audit file."""
    b = tmp_path / "_build"
    (b / "html" / "book").mkdir(parents=True)
    (b / "html" / "_static" / "tables").mkdir(parents=True)
    table = (
        '<table class="selfconf-table" id="tab-demo"><tr><th>model</th><th>auroc</th></tr>'
        "<tr><td>a</td><td>0.746</td></tr><tr><td>b</td><td>yes</td></tr></table>"
    )
    body = (
        "<p>"
        + _page("t1_google_self_auroc", "0.746")
        + " and "
        + _page("ladder_p_holm_adj", "0.114", "outside_tolerance", differs=True)
        + "</p>"
        + table
    )
    (b / "html" / "book" / "04_result1.html").write_text(body, encoding="utf-8")
    (b / "html" / "_static" / "tables" / "demo.csv").write_text("model,auroc\na,0.74612\nb,True\n", encoding="utf-8")
    (b / "audit.json").write_text(
        json.dumps(
            {
                "claims": [
                    {"id": "t1_google_self_auroc", "status": "match", "shows": "0.746", "recomputed": 0.74612},
                    {"id": "ladder_p_holm_adj", "status": "outside_tolerance", "shows": "0.114", "recomputed": 0.114},
                ]
            }
        ),
        encoding="utf-8",
    )
    return b


def _problems(build):
    return {s.name: s.problems for s in parity.check_build(build, build / "book") if s.problems}


def test_tiny_build_is_at_parity(tiny_build, capsys):
    assert _problems(tiny_build) == {}
    assert parity.main(["--build", str(tiny_build), "--book-dir", str(tiny_build / "book")]) == 0
    out = capsys.readouterr().out
    assert "page      book/04_result1.html: 2 checked, 0 mismatches" in out
    assert "csv       demo.csv: 6 checked, 0 mismatches" in out


@pytest.mark.parametrize(
    "old, new, where",
    [
        (">0.746<", ">0.747<", "book/04_result1.html"),  # a pasted number differs from the audit's
        ('data-status="outside_tolerance"', 'data-status="match"', "book/04_result1.html"),  # wrong status
        ("<sup", "<sub", "book/04_result1.html"),  # a failing number lost its mark
        ("<td>yes</td>", "<td>no</td>", "demo.csv"),  # the table differs from its CSV
    ],
)
def test_an_altered_surface_fails(tiny_build, old, new, where):
    page = tiny_build / "html" / "book" / "04_result1.html"
    text = page.read_text(encoding="utf-8")
    assert old in text
    page.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert where in _problems(tiny_build)
    assert parity.main(["--build", str(tiny_build), "--book-dir", str(tiny_build / "book")]) == 1


def test_shared_statistics_must_agree(tiny_build):
    t = tiny_build / "html" / "_static" / "tables"
    (t / "external_mmlu_pro_table1.csv").write_text('model,self-AUROC,95% CI\nm,0.712,"[0.703, 0.723]"\n')
    (t / "real_table1_scores.csv").write_text('model,self-AUROC\nm,"0.712 [0.702, 0.722]"\n')
    probs = _problems(tiny_build)["statistics shown on two pages (SHARED)"]
    values = [p for p in probs if "column missing" not in p]
    assert len(values) == 1 and "95% CI" in values[0]
    assert any("Brier" in p for p in probs)  # a column of SHARED that a table lost is reported too


def test_numbers_compare_at_the_decimals_both_show():
    assert parity.same_number("+0.041", "0.041") and parity.same_number("1,441", "1441")
    assert parity.same_number("9.3", "9.27") and not parity.same_number("9.3", "10.4")
    assert not parity.same_number("four", "4")


@pytest.mark.book
def test_parity_holds_on_the_built_book(built_book, root, capsys):
    """The acceptance check: every surface of the built book agrees with the audit and with each other."""
    code = parity.main(["--build", str(root / "_build"), "--book-dir", str(root / "book"), "--show", "20"])
    out = capsys.readouterr().out
    assert re.search(r"^page +book/04_result1\.html: \d+ checked", out, re.M)
    assert code == 0, out


@pytest.mark.book
def test_parity_fails_on_a_deliberately_altered_built_page(built_book, root, tmp_path):
    """Copy the built book, change one pasted claim on one page: parity names that page and exits 1."""
    b = tmp_path / "_build"
    shutil.copytree(root / "_build" / "html", b / "html")
    for f in ("audit.json", "scorecard.json"):
        if (root / "_build" / f).is_file():
            shutil.copy(root / "_build" / f, b / f)
    page = b / "html" / "book" / "05_result2.html"
    text = page.read_text(encoding="utf-8")
    m = re.search(r'(data-claim="ladder_core_vs_placebo_delta"[^>]*>)([^<]+)<', text)
    assert m, "Result 2 pastes ladder_core_vs_placebo_delta"
    text = text[: m.start(2)] + "+0.999" + text[m.end(2) :]
    page.write_text(text, encoding="utf-8")
    surfaces = {s.name: s for s in parity.check_build(b, root / "book")}
    assert any("ladder_core_vs_placebo_delta" in p for p in surfaces["book/05_result2.html"].problems)
    assert parity.main(["--build", str(b), "--book-dir", str(root / "book")]) == 1


def _nb(path, *cells):
    """A notebook of markdown cells (text, or (text, tags)); the executed one also glues a=0.71234, n=1461."""
    md = []
    for c in cells:
        text, tags = (c, []) if isinstance(c, str) else c
        md.append({"cell_type": "markdown", "metadata": {"tags": tags}, "source": text})
    path.write_text(json.dumps({"cells": md, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")


def test_student_notebook_numbers_are_the_book_values(tmp_path, monkeypatch):
    """The student check pairs each book paragraph that pastes numbers with its rendered student paragraph
    and compares every pasted number with the book's glued value as the page formats it."""
    book, student = tmp_path / "book", tmp_path / "student"
    book.mkdir()
    student.mkdir()
    monkeypatch.setattr("selfconf.book.glue.glued_in_notebook", lambda p: {"a": 0.71234, "n": 1461})
    _nb(
        book / "20_x.ipynb",
        "AUROC {glue:text}`a:.3f` on {glue:text}`n:,` items ({term}`AUROC`), {cite:p}`guo2017`.",
        ("Only in the book: {glue:text}`a:.2f`.", ["book-only"]),
        "No numbers here.",
    )
    good = "AUROC 0.712 on 1,461 items (AUROC), (Guo et al., 2017)."
    _nb(student / "20_x.ipynb", "Intro.", good)
    s = parity._check_student(student / "20_x.ipynb", book)
    assert (s.checked, s.problems) == (2, [])
    _nb(student / "20_x.ipynb", good.replace("0.712", "0.713"))  # a stale edition
    assert parity._check_student(student / "20_x.ipynb", book).problems == ["a: student notebook '0.713', book '0.712'"]
    _nb(student / "20_x.ipynb", "AUROC 0.712 in other words.")  # the paragraph is gone or rewritten
    assert "is not in the student notebook" in parity._check_student(student / "20_x.ipynb", book).problems[0]


# --- seeded mutations, one per surface kind: every one must fail parity ------------------------------------------

_SPAN = r'<span class="selfconf-num[^"]*" ([^>]*)>([^<]+)<'


def _bump(text: str) -> str:
    """The same text with its last digit changed (so a number moves by one unit of its last printed digit)."""
    i = max(i for i, ch in enumerate(text) if ch.isdigit())
    return text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1 :]


def _mutate_span(page: Path, attr_pattern: str, *, attr: str | None = None, in_table: bool | None = None) -> str:
    """Change the text (or the attribute ``attr``) of the first pasted element whose attributes match."""
    text = page.read_text(encoding="utf-8")
    for m in re.finditer(_SPAN, text):
        attrs, shown = m.group(1), m.group(2)
        if not re.search(attr_pattern, attrs) or not any(ch.isdigit() for ch in shown):
            continue
        if in_table is not None and ('tabindex="-1"' in attrs) != in_table:
            continue
        if attr is None:
            new = text[: m.start(2)] + _bump(shown) + text[m.end(2) :]
        else:
            am = re.search(rf'{attr}="([^"]*\d[^"]*)"', attrs)
            if am is None:
                continue
            s0 = m.start(1) + am.start(1)
            new = text[:s0] + _bump(am.group(1)) + text[m.start(1) + am.end(1) :]
        page.write_text(new, encoding="utf-8")
        return m.group(0)
    pytest.skip(f"{page.name}: no pasted element matching {attr_pattern}")


def _mutate_status(b: Path) -> str:
    page = b / "html" / "book" / "04_result1.html"
    text = page.read_text(encoding="utf-8")
    new = re.sub(r'(data-claim="[^"]+" data-status=")match"', r'\1within_tolerance"', text, count=1)
    assert new != text
    page.write_text(new, encoding="utf-8")
    return "data-status"


def _mutate_csv(b: Path) -> str:
    for p in sorted((b / "html" / "_static" / "tables").glob("*.csv")):
        lines = p.read_text(encoding="utf-8").splitlines()
        for i, ln in enumerate(lines[1:], 1):
            cells = ln.split(",")
            for j, c in enumerate(cells):
                if re.fullmatch(r"-?\d+\.\d+", c):
                    cells[j] = str(round(float(c) + 0.5, 4))
                    lines[i] = ",".join(cells)
                    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
                    return p.name
    pytest.skip("no numeric CSV cell")


def _mutate_json(path: Path, edit) -> str:
    doc = json.loads(path.read_text(encoding="utf-8"))
    what = edit(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return what


def _audit_edit(doc):
    r = next(r for r in doc["claims"] if r["id"] == "t1_google_n")
    r["shows"] = _bump(str(r["shows"]))
    return r["id"]


def _scorecard_edit(doc):
    r = next(r for r in doc if isinstance(r.get("value"), (int, float)) and r.get("ci_low") is not None)
    r["value"] = float(r["value"]) + 0.5
    return r["id"]


def _mutate_student(b: Path) -> str:
    for nb in sorted((b / "student").glob("*.ipynb")):
        doc = json.loads(nb.read_text(encoding="utf-8"))
        for cell in doc["cells"]:
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            m = re.search(r"\b\d+\.\d{2,}\b", src) if cell["cell_type"] == "markdown" else None
            if m:
                cell["source"] = src[: m.start()] + _bump(m.group(0)) + src[m.end() :]
                nb.write_text(json.dumps(doc), encoding="utf-8")
                return nb.name
    pytest.skip("no student notebook with a pasted number")


MUTATIONS = {
    "page prose (a claim)": lambda b: _mutate_span(b / "html/book/05_result2.html", r'data-claim="', in_table=False),
    "table cell": lambda b: _mutate_span(b / "html/book/04_result1.html", r'data-claim="t1_', in_table=True),
    "CSV download": _mutate_csv,
    "audit.json": lambda b: _mutate_json(b / "audit.json", _audit_edit),
    "scorecard.json": lambda b: _mutate_json(b / "scorecard.json", _scorecard_edit),
    "student notebook": _mutate_student,
    "generated sentence": lambda b: _mutate_span(
        b / "html/book/08_limitations.html", r'data-key="regrade_selfrows_reading"', in_table=False
    ),
    "reconstruction-only number": lambda b: _mutate_span(
        b / "html/book/08_limitations.html", r'data-origin="reconstruction-only"', in_table=False
    ),
    "audit page text": lambda b: _mutate_span(b / "html/book/14_audit.html", r'data-key="audit_summary"'),
    "card attribute": lambda b: _mutate_span(
        b / "html/book/04_result1.html", r'data-claim="t1_google_self_auroc"', attr="data-value"
    ),
    "status attribute": _mutate_status,
    "spec-curve page count": lambda b: _mutate_span(b / "html/book/28_every_reading.html", r'data-key="'),
}


@pytest.mark.book
@pytest.mark.parametrize("kind", list(MUTATIONS))
def test_every_kind_of_mutation_fails_parity(built_book, root, tmp_path, kind):
    """A copy of the built book with one seeded change on one surface kind: parity finds it (12 kinds)."""
    b = tmp_path / "_build"
    shutil.copytree(root / "_build" / "html", b / "html")
    for d in ("student", "pdf"):
        if (root / "_build" / d).is_dir():
            shutil.copytree(root / "_build" / d, b / d)
    for f in ("audit.json", "scorecard.json"):
        shutil.copy(root / "_build" / f, b / f)
    assert not [s.line() for s in parity.check_build(b, root / "book") if s.problems], "the copy is not at parity"
    what = MUTATIONS[kind](b)
    bad = [p for s in parity.check_build(b, root / "book") for p in s.problems]
    assert bad, f"{kind}: the seeded change ({what}) passed parity"
