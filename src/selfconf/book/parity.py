"""Parity: every surface the book publishes shows the same value for the same thing.

``python -m selfconf.book.parity`` reads what a reader, a script or a student gets from a build and checks it
against the audit (``_build/audit.json``, :mod:`selfconf.book.audit`) and against the other surfaces:

* **pages** (every ``*.html`` of ``_build/html``): every pasted number that carries a claim
  (``<span class="selfconf-num" data-claim=...>``) shows the audit's ``shows`` for that claim (compared at the
  decimals both print), carries the audit's status in ``data-status``, its printed token in ``data-printed``
  and its value in ``data-value`` (the card), and is marked (``≠ paper``) exactly when the audit's status is a
  marked one; a restated claim (``same_as``) shows the value of the claim it restates.  Every other pasted
  value (``data-origin``, ``data-key``: a reconstruction-only number, a count the build generated, the audit
  page's own counts, a generated sentence) shows the value its notebook glued under that key: a number at the
  decimals the page shows, a text (a generated sentence, every number in it included) as glued, and its card's
  ``data-value`` as glued.  Nothing is special-cased by page;
* **CSV downloads** (``_static/tables/<name>.csv``): each equals the table it belongs to on its page
  (``id="tab-<name>"``), cell for cell, at the decimals the page shows (a cell showing the paper's printed token
  included: the build writes that token into the CSV too, :func:`selfconf.book.pages.fill_printed_csv`);
* **shared statistics**: the tables listed in :data:`SHARED` (chapter 22 and chapter 26 on the same models)
  agree column for column for every shared row;
* **scorecard** (``_build/scorecard.json``): every record's value and interval are the ones the chapter-26
  scorecard tables show;
* **PDF** (``_build/pdf/*.pdf``, read with ``pdftotext`` when both exist): every pasted claim of the pages
  appears in its text with the same digits;
* **student notebooks** (``_build/student/*.ipynb`` when they exist): their prose shows numbers as plain text
  (the student edition renders every paste); each paragraph of the executed book notebook that pastes values is
  found in the student notebook (its other text as it is) and every number shown there equals the book's glued
  value as the page formats it.

Surfaces are found by walking the build folder, so a new page, table, CSV or notebook is checked without
listing it here.  One line per surface is printed (``surface: n checked, k mismatches``); the exit status is 1
when any surface has a mismatch.

Example: ``python -m selfconf.book.parity --build _build`` after ``make book``.
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import math
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from selfconf.book.scorecard import built_without_data
from selfconf.claims import judging
from selfconf.data.paths import resolve
from selfconf.sections.realanswers import NOTEBOOK

__all__ = ["SHARED", "Surface", "check_build", "parse_number", "same_number", "main"]

#: Statistics shown by two tables on different pages: ``(left table, left column, right table, right column,
#: part)``, rows matched on the ``model`` column (else the first column); ``part`` is ``"point"`` (the number
#: before any interval) or ``"interval"`` (the ``[lo, hi]`` of the cell).  Table names are CSV stems
#: (``_static/tables/<name>.csv``).
SHARED: list[tuple[str, str, str, str, str]] = [
    ("external_mmlu_pro_table1", "n", "real_table1_level", "n", "point"),
    ("external_mmlu_pro_table1", "acc. (%)", "real_table1_level", "accuracy (%)", "point"),
    ("external_mmlu_pro_table1", "mean conf.", "real_table1_level", "mean conf.", "point"),
    ("external_mmlu_pro_table1", "median conf.", "real_table1_level", "median conf.", "point"),
    ("external_mmlu_pro_table1", "CITL (pp)", "real_table1_level", "CITL (pp)", "point"),
    ("external_mmlu_pro_table1", "excluded (no conf.)", "real_table1_level", "excluded (no conf.)", "point"),
    ("external_mmlu_pro_table1", "Brier", "real_table1_scores", "Brier", "point"),
    ("external_mmlu_pro_table1", "ECE", "real_table1_scores", "ECE", "point"),
    ("external_mmlu_pro_table1", "self-AUROC", "real_table1_scores", "self-AUROC", "point"),
    ("external_mmlu_pro_table1", "95% CI", "real_table1_scores", "self-AUROC", "interval"),
    ("external_mmlu_pro_table1", "err. at conf. ≥ 80 (%)", "real_table1_high_confidence", "of them wrong (%)", "point"),
    ("external_mmlu_pro_table1", "err. at 20% coverage (%)", "real_table2", "error at 20% coverage (%)", "point"),
    ("external_mmlu_pro_table1", "self-AUROC", "real_table2", "self-AUROC", "point"),
    # the canonical reading of chapter 28 is Result 1's panel statistic and chapter 26's (rows matched on ``panel``)
    ("readings_reconstruction", "items", "panels", "items", "point"),
    ("readings_reconstruction", "panel AUROC", "panels", "panel (canonical)", "point"),
    ("readings_reconstruction", "self AUROC (pooled)", "panels", "self (pooled)", "point"),
    ("readings_reconstruction", "panel − self", "panels", "panel - self", "point"),
    ("readings_reconstruction", "95% CI", "panels", "difference 95% CI", "interval"),
    ("readings_mmlu_pro", "items", "real_panels", "items", "point"),
    ("readings_mmlu_pro", "panel AUROC", "real_panels", "panel (canonical)", "point"),
    ("readings_mmlu_pro", "self AUROC (pooled)", "real_panels", "self (pooled)", "point"),
    ("readings_mmlu_pro", "panel − self", "real_panels", "panel − self", "point"),
    ("readings_mmlu_pro", "95% CI", "real_panels", "panel − self", "interval"),
]

_NUM = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


def parse_number(text: str) -> tuple[float, int] | None:
    """``(value, decimals)`` of the first number in ``text`` (thousands commas, ``+``, ``−`` and ``%`` allowed).

    >>> parse_number("+0.041"), parse_number("1,441"), parse_number("−0.002 ≠ paper"), parse_number("n/a")
    ((0.041, 3), (1441.0, 0), (-0.002, 3), None)
    """
    t = str(text).replace("\u2212", "-").replace("\u2013", "-")
    m = _NUM.search(t)
    if not m:
        return None
    s = m.group(0).replace(",", "")
    dec = len(s.split(".")[1]) if "." in s else 0
    return float(s), dec


def same_number(a: str, b: str) -> bool:
    """Do two printed numbers agree at the decimals both show?  Words compare as text (case and spacing aside).

    >>> same_number("0.114", "0.11"), same_number("0.114", "0.115"), same_number("4.2", "4.5")
    (True, False, False)
    >>> same_number("Anthropic, OpenAI", "anthropic, openai"), same_number("yes", "True")
    (True, True)
    """
    na, nb = _norm_text(a), _norm_text(b)
    if na == nb:
        return True
    pa, pb = parse_number(a), parse_number(b)
    if pa is None or pb is None or not _is_numeric(a) or not _is_numeric(b):
        return False
    d = min(pa[1], pb[1])
    return judging.fmt(pa[0], d) == judging.fmt(pb[0], d)


def _is_numeric(text: str) -> bool:
    return bool(re.fullmatch(r"[\s\d.,+\-\u2212%]+", str(text).replace("\u2212", "-"))) and any(
        ch.isdigit() for ch in str(text)
    )


_TYPOGRAPHY = str.maketrans({"\u2212": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _norm_text(text: Any) -> str:
    """Text as compared across surfaces: Sphinx's typographic quotes and minus as ASCII, ``…`` as ``...``,
    spacing and case aside."""
    t = " ".join(str(text).translate(_TYPOGRAPHY).replace("\u2026", "...").casefold().split())
    return {"true": "yes", "false": "no", "nan": "", "none": ""}.get(t, t)


def _interval(text: str) -> list[str] | None:
    m = re.search(r"\[([^,\]]+),\s*([^\]]+)\]", str(text))
    return [m.group(1).strip(), m.group(2).strip()] if m else None


def _point(text: str) -> str:
    return str(text).split("[", 1)[0].strip()


@dataclass
class Surface:
    """One published surface and what the check found on it."""

    kind: str
    name: str
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    note: str = ""

    def line(self) -> str:
        extra = f" ({self.note})" if self.note else ""
        return f"{self.kind:9s} {self.name}: {self.checked} checked, {len(self.problems)} mismatches{extra}"


class _PageParser(HTMLParser):
    """Collect the pasted-number elements and the tables (``id`` -> rows of cell texts) of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.nums: list[dict] = []
        self.tables: dict[str, list[list[str]]] = {}
        self._stack: list[tuple[str, dict]] = []  # open spans: (kind, element)
        self._mark_depth = 0
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: v or "" for k, v in attrs_list}
        cls = attrs.get("class", "")
        if tag == "table" and attrs.get("id", "").startswith("tab-"):
            self._table = attrs["id"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        if tag == "sup" and "selfconf-mark" in cls:
            self._mark_depth += 1
        if tag == "span":
            if "selfconf-num" in cls.split() and "selfconf-legend-sample" not in cls:
                el = {"attrs": attrs, "class": cls, "text": [], "marked": False}
                self.nums.append(el)
                self._stack.append(("num", el))
            else:
                self._stack.append(("other", {}))

    def handle_endtag(self, tag: str) -> None:
        if tag == "sup" and self._mark_depth:
            self._mark_depth -= 1
        elif tag == "span" and self._stack:
            self._stack.pop()
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._mark_depth:
            for kind, el in self._stack:
                if kind == "num":
                    el["marked"] = el["marked"] or "≠" in data
            return
        for kind, el in self._stack:
            if kind == "num":
                el["text"].append(data)
        if self._cell is not None:
            self._cell.append(data)


def _parse_page(path: Path) -> _PageParser:
    p = _PageParser()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def _audit_records(build: Path, book_dir: Path) -> dict[str, dict]:
    doc_path = build / "audit.json"
    if doc_path.is_file():
        doc = json.loads(doc_path.read_text(encoding="utf-8"))
        return {r["id"]: r for r in doc["claims"]}
    from dataclasses import asdict

    from selfconf.book import audit

    return {r.id: asdict(r) for r in audit.audit_book(book_dir).records}


def _expected_text(rec: dict) -> str | None:
    if rec.get("shows") is not None:
        return str(rec["shows"])
    v = rec.get("recomputed")
    if v is None:
        return None
    return str(v)


def _shown_matches(text: str, value: Any) -> bool:
    """Does a pasted element's text show the glued ``value`` (a number at the decimals shown, else the text)?

    >>> _shown_matches("582", 582), _shown_matches("+0.041", 0.0412), _shown_matches("0.05", 0.0412)
    (True, True, False)
    >>> _shown_matches("44%", 0.44), _shown_matches("the CI [−0.002, +0.086]", "the CI [-0.002, +0.086]")
    (True, True)
    >>> _shown_matches("5.6e-17", 5.551115e-17), _shown_matches("5.7e-17", 5.551115e-17)
    (True, False)
    """
    if isinstance(value, bool) or value is None:
        return same_number(text, str(value))
    if isinstance(value, (int, float)):
        e = re.fullmatch(r"([+-]?\d+(?:\.(\d+))?)e([+-]?\d+)", text.strip().replace("\u2212", "-"))
        if e:  # scientific notation: the mantissa's digits
            return float(text.replace("\u2212", "-")) == float(f"{float(value):.{len(e.group(2) or '')}e}")
        got = parse_number(text)
        if got is None or not _is_numeric(text):
            return _norm_text(text) == _norm_text(value)
        d = got[1]
        if judging.fmt(got[0], d) == judging.fmt(float(value), d):
            return True
        return "%" in text and judging.fmt(got[0], d) == judging.fmt(100 * float(value), d)
    return _norm_text(text) == _norm_text(value)


def _glued_by_notebook(book_dir: Path | None, notebook: str, cache: dict) -> dict:
    from selfconf.book.glue import glued_in_notebook

    if notebook not in cache:
        nb = (book_dir / f"{notebook}.ipynb") if book_dir else None
        cache[notebook] = glued_in_notebook(nb) if nb is not None and nb.is_file() else {}
    return cache[notebook]


def _check_pages(
    pages: list[Path], recs: dict[str, dict], html_root: Path, book_dir: Path | None = None
) -> tuple[list[Surface], dict]:
    from selfconf.book.provenance import _more_digits, _value_text

    out, parsed = [], {}
    manifest = judging.load_manifest()
    glued_cache: dict[str, dict] = {}
    values: dict[str, list[tuple[str, float]]] = {}  # claim id -> (page, data-value) for the restatement check
    for page in pages:
        rel = page.relative_to(html_root).as_posix()
        p = _parse_page(page)
        parsed[rel] = p
        s = Surface("page", rel)
        for el in p.nums:
            cid = el["attrs"].get("data-claim")
            key = el["attrs"].get("data-key")
            if not cid and key:  # any other pasted value: the glued value of its notebook, generically
                s.checked += 1
                glued = _glued_by_notebook(book_dir, el["attrs"].get("data-notebook", ""), glued_cache)
                text = " ".join("".join(el["text"]).split())
                if key not in glued:
                    s.problems.append(f"{key}: pasted, but its notebook glued no such value")
                    continue
                if not _shown_matches(text, glued[key]):
                    s.problems.append(f"{key}: shows {text!r}, its notebook glued {glued[key]!r}")
                if el["attrs"].get("data-value") != _value_text(glued[key]):
                    s.problems.append(f"{key}: card value {el['attrs'].get('data-value')!r}, glued {glued[key]!r}")
                continue
            if not cid or el["attrs"].get("data-origin") == "paper-print":
                continue
            s.checked += 1
            rec = recs.get(cid)
            text = " ".join("".join(el["text"]).split())
            if rec is None:
                s.problems.append(f"{cid}: pasted but not a claim of the audit")
                continue
            want = _expected_text(rec)
            if want is not None and not same_number(text, want):
                s.problems.append(f"{cid}: shows {text!r}, the audit shows {want!r}")
            if el["attrs"].get("data-status") != rec["status"]:
                s.problems.append(f"{cid}: data-status {el['attrs'].get('data-status')!r}, audit {rec['status']!r}")
            if el["attrs"].get("data-printed") not in (None, rec.get("printed")):
                s.problems.append(
                    f"{cid}: card prints {el['attrs'].get('data-printed')!r}, paper {rec.get('printed')!r}"
                )
            if el["attrs"].get("data-value") is not None and rec.get("recomputed") is not None:
                if el["attrs"]["data-value"] != _more_digits(rec["recomputed"], rec.get("printed") or ""):
                    s.problems.append(f"{cid}: card value {el['attrs']['data-value']!r}, audit {rec['recomputed']!r}")
            marked = "selfconf-differs" in el["class"] and el["marked"]
            if marked != (rec["status"] in judging.MARKED):
                s.problems.append(f"{cid}: {'marked' if marked else 'not marked'} but its status is {rec['status']}")
            dv = el["attrs"].get("data-value")
            if dv:
                try:
                    values.setdefault(cid, []).append((rel, float(dv)))
                except ValueError:
                    pass
        out.append(s)
    # restatements: a repeat shows the value of the claim it restates, on whichever page each is
    rs = Surface("restated", "same_as pairs across pages")
    for cid, seen in values.items():
        c = manifest.by_id.get(cid)
        if not c or not c.get("same_as"):
            continue
        canon = c["same_as"]
        sign = -1.0 if c.get("transform") == "negate" else 1.0
        for page_r, vr in seen:
            for page_c, vc in values.get(canon, []):
                rs.checked += 1
                if not math.isclose(vr, sign * vc, rel_tol=1e-3, abs_tol=1e-9):
                    rs.problems.append(f"{cid} on {page_r} = {vr}, {canon} on {page_c} = {vc}")
    out.append(rs)
    return out, parsed


def _read_csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return [row for row in csv.reader(f)]


def _cells_agree(shown: str, raw: str) -> bool:
    """A page cell against its CSV cell: the same text, or the same number at the page's decimals."""
    shown = re.sub(r"≠\s*paper", "", shown).strip()
    if _norm_text(shown) == _norm_text(raw):
        return True
    ps, pr = parse_number(shown), parse_number(raw)
    if ps is None or pr is None:
        return False
    try:
        return judging.fmt(float(raw.replace(",", "").replace("\u2212", "-")), ps[1]) == judging.fmt(ps[0], ps[1])
    except ValueError:
        return same_number(shown, raw)


def _check_csvs(csvs: list[Path], parsed: dict[str, _PageParser]) -> list[Surface]:
    tables = {tid: (page, rows) for page, p in parsed.items() for tid, rows in p.tables.items()}
    out = []
    for path in csvs:
        s = Surface("csv", path.name)
        tid = "tab-" + path.stem.replace("_", "-")
        if tid not in tables:
            s.note = "no table of this name on any page"
            out.append(s)
            continue
        page, rows = tables[tid]
        data = _read_csv(path)
        s.note = f"against {page}#{tid}"
        if len(rows) != len(data):
            s.problems.append(f"{len(data)} CSV rows (header included), {len(rows)} on the page")
        for i, (hrow, crow) in enumerate(zip(rows, data, strict=False)):
            if len(hrow) != len(crow):
                s.problems.append(f"row {i}: {len(crow)} CSV cells, {len(hrow)} on the page")
                continue
            for j, (h, c) in enumerate(zip(hrow, crow, strict=True)):
                s.checked += 1
                if not _cells_agree(h, c):
                    s.problems.append(f"row {i}, column {data[0][j]!r}: page {h!r}, CSV {c!r}")
        out.append(s)
    return out


def _check_shared(tables_dir: Path) -> Surface:
    s = Surface("shared", "statistics shown on two pages (SHARED)")
    cache: dict[str, tuple[list[str], dict[str, list[str]]]] = {}

    def load(name: str) -> tuple[list[str], dict[str, list[str]]] | None:
        if name not in cache:
            p = tables_dir / f"{name}.csv"
            if not p.is_file():
                return None
            rows = _read_csv(p)
            head = rows[0]
            key = head.index("model") if "model" in head else 0
            # a row label spelled with "_" on one page and "-" on another (cross_bloc, cross-bloc) is one row
            cache[name] = (head, {r[key].replace("_", "-"): r for r in rows[1:]})
        return cache[name]

    absent: set[str] = set()
    for lt, lc, rt, rc, part in SHARED:
        left, right = load(lt), load(rt)
        if left is None or right is None:  # said in the surface's note, not skipped silently
            absent.update(n for n, t in ((lt, left), (rt, right)) if t is None)
            continue
        (lh, lrows), (rh, rrows) = left, right
        if lc not in lh or rc not in rh:
            s.problems.append(f"{lt}.{lc} or {rt}.{rc}: column missing")
            continue
        for model in sorted(set(lrows) & set(rrows)):
            a, b = lrows[model][lh.index(lc)], rrows[model][rh.index(rc)]
            s.checked += 1
            if part == "interval":
                ia, ib = _interval(a), _interval(b)
                ok = ia is not None and ib is not None and all(same_number(x, y) for x, y in zip(ia, ib, strict=True))
            else:
                ok = same_number(_point(a), _point(b))
            if not ok:
                s.problems.append(f"{model}: {lt} {lc!r} = {a!r}, {rt} {rc!r} = {b!r}")
    if absent:
        s.note = f"not checked, table not built: {', '.join(sorted(absent))}"
    return s


def _check_scorecard(path: Path, tables_dir: Path) -> Surface:
    s = Surface("scorecard", path.name)
    recs = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for p in sorted(tables_dir.glob("real_scorecard*.csv")):
        rows = _read_csv(p)
        for row in rows[1:]:
            cells.extend(row)
    for r in recs:
        if not isinstance(r, dict) or r.get("value") is None:
            continue
        s.checked += 1
        found = False
        if r.get("ci_low") is None or r.get("ci_high") is None:  # a record without a valid interval shows none
            for c in cells:
                pn = parse_number(_point(c))
                if (
                    "no valid interval" in c
                    and pn is not None
                    and judging.fmt(float(r["value"]), pn[1]) == judging.fmt(pn[0], pn[1])
                ):
                    found = True
        for c in [] if found else cells:
            iv = _interval(c)
            if iv is None or parse_number(_point(c)) is None:
                continue
            d = parse_number(_point(c))[1]  # type: ignore[index]
            trip = [r["value"], r.get("ci_low"), r.get("ci_high")]
            if None in trip:
                continue
            shown = [parse_number(_point(c)), parse_number(iv[0]), parse_number(iv[1])]
            if all(x is not None for x in shown) and all(
                judging.fmt(float(v), d) == judging.fmt(x[0], d)  # type: ignore[index]
                for v, x in zip(trip, shown, strict=True)
            ):
                found = True
                break
        if not found and cells:
            s.problems.append(
                f"{r.get('id')}: value {r['value']:.4g} [{r.get('ci_low')}, {r.get('ci_high')}] "
                "not in the scorecard tables"
            )
    return s


def _pdf_text(pdf: Path) -> str | None:
    exe = shutil.which("pdftotext")
    if exe is None:
        return None
    res = subprocess.run([exe, "-layout", str(pdf), "-"], capture_output=True, text=True, check=False)
    return res.stdout if res.returncode == 0 else None


def _check_pdf(pdf: Path, parsed: dict[str, _PageParser]) -> Surface:
    s = Surface("pdf", pdf.name)
    text = _pdf_text(pdf)
    if text is None:
        s.note = "pdftotext not available: not read"
        return s
    flat = " ".join(text.replace("\u2212", "-").split())
    for page, p in parsed.items():
        for el in p.nums:
            if not el["attrs"].get("data-claim"):
                continue
            shown = " ".join("".join(el["text"]).split()).replace("\u2212", "-")
            if not shown or not _is_numeric(shown):
                continue
            s.checked += 1
            if shown not in flat:
                s.problems.append(f"{page}: {el['attrs']['data-claim']} = {shown!r} not in the PDF text")
    return s


def _student_pattern(text: str) -> tuple[re.Pattern, list[tuple[str, str]]]:
    """A regex that a book cell's Markdown, rendered for the student edition, matches in full; its pastes.

    Every glue paste becomes a named group (``g0``, ``g1``, ...) capturing what the student notebook shows there;
    any other MyST role or directive (citations, glossary terms, a bibliography) matches any text, since the
    student edition renders it too; everything else must be there as it is.  Returns the pattern and the
    ``(key, format)`` of each paste in order."""
    from selfconf.course import GLUE_ROLES, MYST_DIRECTIVE, MYST_ROLE

    def literal(t: str) -> str:
        out, pos = [], 0
        for d in MYST_DIRECTIVE.finditer(t):
            out += [re.escape(t[pos : d.start()]), ".*?"]
            pos = d.end()
        return "".join([*out, re.escape(t[pos:])])

    pieces: list[str] = []
    keys: list[tuple[str, str]] = []
    pos = 0
    for m in MYST_ROLE.finditer(text):
        pieces.append(literal(text[pos : m.start()]))
        if m.group(1) in GLUE_ROLES:
            key, _, fmt = m.group(2).partition(":")
            pieces.append(f"(?P<g{len(keys)}>.+?)")
            keys.append((key.strip(), fmt))
        else:
            pieces.append(".*?")
        pos = m.end()
    pieces.append(literal(text[pos:]))
    return re.compile("".join(pieces), re.S), keys


def _check_student(nb_path: Path, book_dir: Path) -> Surface:
    """Every number the student notebook's prose shows where its book page pastes a glued value is that value,
    formatted as the page formats it (``format(value, spec)``), from the book's executed notebook."""
    from selfconf.book.glue import glued_in_notebook

    s = Surface("student", nb_path.name)
    executed = book_dir / nb_path.name
    if not executed.is_file():
        s.problems.append(f"no book/{nb_path.name} to compare with (run the book's build first)")
        return s
    glued = glued_in_notebook(executed)
    student = [
        "".join(c.get("source", ""))
        for c in json.loads(nb_path.read_text(encoding="utf-8")).get("cells", [])
        if c.get("cell_type") == "markdown"
    ]
    for cell in json.loads(executed.read_text(encoding="utf-8")).get("cells", []):
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell.get("cell_type") != "markdown" or tags & {"book-only", "remove-cell"}:
            continue
        pattern, keys = _student_pattern("".join(cell.get("source", "")))
        if not keys:
            continue
        found = next((m for m in map(pattern.fullmatch, student) if m), None)
        if found is None:
            s.problems.append(f"the paragraph that pastes {keys[0][0]!r} is not in the student notebook")
            continue
        for i, (key, fmt) in enumerate(keys):
            s.checked += 1
            shown = found.group(f"g{i}")
            if key not in glued:
                s.problems.append(f"pastes {key!r}, which book/{nb_path.name} does not glue")
            elif shown != format(glued[key], fmt):
                s.problems.append(f"{key}: student notebook {shown!r}, book {format(glued[key], fmt)!r}")
    return s


def check_build(build: str | Path = "_build", book_dir: str | Path = "book") -> list[Surface]:
    """Check every surface found under ``build`` (see the module docstring); one :class:`Surface` per surface."""
    build, book = resolve(build), resolve(book_dir)
    html_root = build / "html"
    if not html_root.is_dir():
        raise FileNotFoundError(f"{html_root}: no built HTML (run `make book` first)")
    recs = _audit_records(build, book)
    pages = sorted(p for p in html_root.rglob("*.html") if not ({"_static", "_sources"} & set(p.parts)))
    surfaces, parsed = _check_pages(pages, recs, html_root, book)
    tables_dir = html_root / "_static" / "tables"
    surfaces += _check_csvs(sorted(tables_dir.glob("*.csv")), parsed)
    surfaces.append(_check_shared(tables_dir))
    sc = build / "scorecard.json"
    if sc.is_file():
        surfaces.append(_check_scorecard(sc, tables_dir))
    elif (book / f"{NOTEBOOK}.ipynb").is_file() and built_without_data(book / f"{NOTEBOOK}.ipynb"):
        # said, not skipped: the chapter's records were not computed (its third-party data were not available)
        surfaces.append(
            Surface("scorecard", sc.name, note="not computed: third-party data not available, `make external`")
        )
    for pdf in sorted((build / "pdf").glob("*.pdf")) if (build / "pdf").is_dir() else []:
        surfaces.append(_check_pdf(pdf, parsed))
    for nb in sorted((build / "student").glob("*.ipynb")) if (build / "student").is_dir() else []:
        surfaces.append(_check_student(nb, book))
    return surfaces


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m selfconf.book.parity", description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="_build", help="the build folder (html/, audit.json, scorecard.json, ...)")
    ap.add_argument("--book-dir", default="book", help="the executed notebooks")
    ap.add_argument("--show", type=int, default=5, help="mismatches listed per surface")
    a = ap.parse_args(argv)
    try:
        surfaces = check_build(a.build, a.book_dir)
    except FileNotFoundError as e:
        print(f"parity: {e}")
        return 2
    bad = 0
    for s in surfaces:
        print(s.line())
        for p in s.problems[: a.show]:
            print(f"    {html.unescape(p)}")
        if len(s.problems) > a.show:
            print(f"    ... {len(s.problems) - a.show} more")
        bad += len(s.problems)
    n = sum(s.checked for s in surfaces)
    print(f"parity: {len(surfaces)} surfaces, {n} values checked, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
