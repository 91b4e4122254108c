"""Inline provenance: every pasted number on a page says what it is (a Sphinx extension).

Loaded by ``_config.yml`` (``sphinx.extra_extensions: [selfconf.book.provenance]``, after myst-nb).

* The ``{glue:text}`` role of myst-nb is replaced by a subclass that wraps each pasted value in one
  element carrying its glue key.  When the page is resolved the element gets, from one audit of the
  executed notebooks (:func:`selfconf.book.audit.audit_book`):

  - for a paper claim: ``data-claim``, ``data-status`` (the audit status), ``data-kind``
    (deterministic / derived / bootstrap / quoted), ``data-printed``, ``data-value`` (this build's value
    with more digits than printed), ``data-why``, ``data-notebook`` / ``data-cell`` (where it was
    computed) and ``data-audit`` (a link to the claim's row on the audit page);
  - for any other value: ``data-origin`` (a key of :data:`selfconf.book.glue.ORIGINS`, glued beside the value
    by :func:`selfconf.book.glue.value`), ``data-key`` (its glue key: parity compares the shown text with the
    glued value), ``data-value`` and the notebook.

  A claim that does not print as the paper prints it (:data:`selfconf.claims.judging.MARKED`) is marked in the
  text itself (class ``selfconf-differs`` and a small "≠ paper" marker).  A pasted value with neither a
  claim id nor an origin is a build warning, hence an error under ``-W``.
* Table cells written with the ``{num}`text <claim id>``` role (:func:`selfconf.book.claim_role`, used by
  :func:`selfconf.book.table`) become the same element; raw HTML spans ``<span class="selfconf-num"
  data-claim="...">`` get the same attributes too.  ``{anchor}`id``` writes a link target with an exact id
  (the audit page's ``claim-<id>`` rows).
* A CSV download whose table shows the paper's printed token in some cells (``{printed}``, listed by
  :func:`selfconf.book.table` in ``_static/tables/.printed/``) gets the same tokens written into those cells when the
  build starts (:func:`fill_printed_csv`), so the download and the page show the same thing.
* Every page that pastes numbers gets a short legend; ``_static/provenance.js`` shows a small card on
  hover or keyboard focus, with no network.

Reference: the showyourwork project's idea that every number links to the code that made it (Luger et
al. 2021, arXiv:2110.06271).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from docutils import nodes

from selfconf.book.audit import audit_book
from selfconf.book.glue import ORIGIN_SUFFIX, ORIGINS, glued_in_notebook, glued_values, paste_key
from selfconf.book.pages import fill_printed_csv  # defined beside the tables; still importable from here
from selfconf.claims.judging import STATUSES
from selfconf.data.paths import DEFAULT_DATA_DIR

__all__ = [
    "pasted_number",
    "printed_number",
    "printed_attributes",
    "attributes_for",
    "legend_html",
    "fill_printed_csv",
    "setup",
    "AUDIT_DOC",
    "KIND_LABEL",
]

#: The audit page (docname) that holds one row per claim, anchored ``claim-<id>``.
AUDIT_DOC = "book/14_audit"
#: How a claim's kind is named to a reader (an external claim is quoted, never computed).
KIND_LABEL = {"deterministic": "deterministic", "derived": "derived", "bootstrap": "bootstrap", "external": "quoted"}
ASSETS = Path(__file__).with_name("assets")


class pasted_number(nodes.inline):  # noqa: N801 - docutils node classes are lower case
    """A value pasted from a glue key; ``key`` names it, ``attrs`` holds its data attributes."""


class printed_number(nodes.inline):  # noqa: N801 - docutils node classes are lower case
    """The paper's printed token of claim ``key``, filled in from the audit when the page is resolved."""


def printed_attributes(key: str, records: dict[str, Any], audit_href: str) -> tuple[str, dict[str, str]] | None:
    """``(printed token, data attributes)`` of the ``{printed}`` role for claim ``key``; ``None`` if not a claim.

    The token is the claim's ``printed`` field of the manifest, exactly as the paper prints it; the element
    says so (``data-origin="paper-print"``) and links the claim's row on the audit page.

    Example: ``printed_attributes("t1_google_self_auroc_ci_lo", records, "14_audit.html")[0] == "0.720"``.
    """
    rec = records.get(key)
    if rec is None:
        return None
    return rec.printed, {
        "data-claim": key,
        "data-origin": "paper-print",
        "data-printed": rec.printed,
        "data-kind": KIND_LABEL.get(rec.kind, rec.kind),
        "data-why": "as the paper prints it (not computed by this build)",
        "data-audit": f"{audit_href}#claim-{key}",
    }


def _value_text(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:.6g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.3e}"
    return str(v)


def _more_digits(v: Any, printed: str) -> str:
    """This build's value with three more decimals than the paper prints."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return _value_text(v)
    m = re.search(r"\.(\d+)", printed or "")
    d = len(m.group(1)) if m else 0
    if d == 0 and float(v).is_integer():  # a count prints as a count (1461, not 1461.000)
        return f"{int(v):d}"
    sign = "+" if (printed or "").lstrip().startswith("+") else ""
    return format(float(v), f"{sign}.{d + 3}f")


def attributes_for(
    key: str,
    records: dict[str, Any],
    why: dict[str, Any],
    origins: dict[str, str],
    values: dict[str, Any],
    audit_href: str,
    notebook: str | None,
    claims: dict[str, dict] | None = None,
    code_url: str = "",
) -> dict[str, str] | None:
    """The data attributes of one pasted value, or ``None`` when it has neither a claim id nor an origin.

    ``claims`` (the manifest by id) gives ``data-text``, the claim in words (its ``text`` field, else where the
    paper prints it); ``code_url`` (a format string taking the notebook's stem) gives ``data-code``.  The book
    passes none: its pages link the rendered cell instead (``data-code`` set when the page is resolved).
    """
    rec = records.get(key)
    if rec is not None:
        return _claim_attributes(key, rec, why.get(key), audit_href, claims, code_url)
    origin = origins.get(key)
    if origin is None:
        return None
    out = {
        "data-origin": origin,
        "data-key": key,
        "data-value": _value_text(values.get(key, "")),
        "data-why": ORIGINS.get(origin, origin),
        "data-notebook": notebook or "",
    }
    if code_url and notebook:
        out["data-code"] = code_url.format(notebook)
    return out


def _claim_reason(rec: Any, ex: Any) -> str:
    """The card's ``data-why`` for a claim of the audit: the audit's verdict and the first sentence of its note
    when the audit explains the claim (``ex``), else the status in words, which for a Monte-Carlo value names
    its distance from the paper's value and its tolerance.

    Example::

        >>> from types import SimpleNamespace as NS
        >>> _claim_reason(NS(status="match"), NS(verdict="holds", reason="Same print. More words."))
        'holds (Same print); the audit page has the full note'
        >>> _claim_reason(NS(status="within_tolerance", tolerance=0.01, difference=-0.002), None)[-45:]
        "paper's value, within the tolerance of 0.0100"
    """
    reason = STATUSES.get(rec.status, rec.status)
    if ex is not None:  # the verdict and its arithmetic; the generator's full note is on the audit page
        first = ex.reason.split(". ", 1)[0].rstrip(".") if ex.reason else ""
        reason = ex.verdict + (f" ({first})" if first else "")
        if ex.reason and first != ex.reason.rstrip("."):
            reason += "; the audit page has the full note"
    elif rec.tolerance is not None and rec.difference is not None:
        reason = (
            f"Monte-Carlo value (it moves with the bootstrap seed): {rec.difference:+.4f} from the "
            f"paper's value, within the tolerance of {rec.tolerance:.4f}"
        )
    return reason


def _tolerance_attributes(rec: Any) -> dict[str, str]:
    """``data-tolerance`` (and ``data-tolerance-value``) of a claim: how far a Monte-Carlo number may differ from
    the paper's print, or that a deterministic or derived number must print exactly; nothing for a quoted one.

    Example::

        >>> from types import SimpleNamespace as NS
        >>> _tolerance_attributes(NS(tolerance=0.01234, kind="bootstrap"))["data-tolerance-value"]
        '0.0123'
        >>> _tolerance_attributes(NS(tolerance=None, kind="external"))
        {}
    """
    if rec.tolerance is not None:
        return {
            "data-tolerance-value": f"{rec.tolerance:.4f}",
            "data-tolerance": (
                f"a Monte-Carlo number: it may differ from the paper's value by up to {rec.tolerance:.4f} "
                "(the tolerance comes from the bootstrap's noise in the inputs that determine it; the rule is on "
                "the audit page)"
            ),
        }
    if rec.kind in ("deterministic", "derived"):
        return {"data-tolerance": "none: computed without randomness, it must print exactly as the paper prints"}
    return {}


#: How ``data-source`` names where a claim's inputs came from (the audit record's ``source``).
_SOURCE_WORDS = {
    "original": "original package",
    "reconstruction": "reconstruction",
    "mixed": "original package and reconstruction",
}


def _claim_attributes(
    key: str, rec: Any, ex: Any, audit_href: str, claims: dict[str, dict] | None, code_url: str
) -> dict[str, str]:
    """The data attributes of a pasted value that is claim ``key`` of the audit (record ``rec``, explanation
    ``ex`` or ``None``); the claim branch of :func:`attributes_for`, in the order the card reads them.

    The reason is :func:`_claim_reason`, the tolerance :func:`_tolerance_attributes`; a claim that crosses a
    threshold gets ``data-threshold`` and a reason that starts with the crossing.
    """
    status = rec.status
    attrs = {
        "data-claim": key,
        "data-status": status,
        "data-kind": KIND_LABEL.get(rec.kind, rec.kind),
        "data-printed": rec.printed,
        "data-value": _more_digits(rec.recomputed, rec.printed),
        "data-why": _claim_reason(rec, ex),
        "data-notebook": rec.computed_in or rec.notebook or "",
        "data-cell": "" if rec.computed_cell is None else str(rec.computed_cell),
        "data-audit": f"{audit_href}#claim-{key}",
    }
    meta = (claims or {}).get(key) or {}
    words = meta.get("text") or meta.get("where")
    if words:
        attrs["data-text"] = str(words)
    attrs.update(_tolerance_attributes(rec))
    nb = rec.computed_in or rec.notebook
    if code_url and nb:
        attrs["data-code"] = code_url.format(nb)
    if rec.source:
        attrs["data-source"] = _SOURCE_WORDS.get(rec.source, rec.source)
    if rec.marked:
        attrs["data-differs"] = "true"
    if status == "crosses_threshold" and rec.threshold is not None:
        attrs["data-threshold"] = format(rec.threshold, "g")
        attrs["data-why"] = (
            f"crosses {rec.threshold:g}: the paper prints {rec.printed}, this build's value lies on the other "
            f"side ({(rec.tolerance_status or '').replace('_', ' ')} by the tolerance alone). " + attrs["data-why"]
        )
    return attrs


def legend_html(open_: bool = True) -> str:
    """The short legend each page with pasted numbers carries (what the marks and origins mean).

    Its summary is one line.  It is rendered open (``open_``, every page but the landing page) and
    ``provenance.js`` closes it on every visit after the first (remembered in ``localStorage``).  Every sample
    is styled by the same CSS rules as the numbers it describes, so the legend shows the marks a page shows by
    default (``tests/test_browser_first_screen.py`` compares them).
    """
    shown = ["reconstruction-only", "original-data", "parameter", "simulation", "external-data"]
    items = "".join(
        f'<li><span class="selfconf-num selfconf-legend-sample" data-origin="{o}">n</span> '
        f"{html.escape(ORIGINS[o])}</li>"
        for o in shown
    )
    return (
        f'<details class="selfconf-legend"{" open" if open_ else ""}><summary>How to read the numbers on this '
        "page (what each mark and colour means); hover over or tap any number for its card</summary><ul>"
        '<li><span class="selfconf-num selfconf-legend-sample" data-status="match">0.746</span> a number the paper '
        "prints, recomputed here and printing exactly as the paper prints it</li>"
        '<li><span class="selfconf-num selfconf-legend-sample selfconf-differs" data-status="within_tolerance">0.090'
        '<sup class="selfconf-mark">≠&#8239;paper</sup></span> (thin dotted underline) recomputed here and printing '
        "differently from the paper, by no more than its Monte-Carlo tolerance (the bootstrap's noise)</li>"
        '<li><span class="selfconf-num selfconf-legend-sample selfconf-differs" data-status="outside_tolerance">0.090'
        '<sup class="selfconf-mark">≠&#8239;paper</sup></span> (red underline and mark) this build and the paper '
        "disagree beyond that noise; the audit page says why</li>"
        '<li><span class="selfconf-num selfconf-legend-sample selfconf-differs" data-status="crosses_threshold">'
        '-0.002<sup class="selfconf-mark">≠&#8239;paper · crosses 0</sup></span> (double red underline, '
        "boxed) this build's number lies on the other side of a threshold the paper's reading rests on (0 for a "
        "difference, 0.5 for an AUROC, alpha for a p-value) than the paper's print, whatever its tolerance</li>"
        '<li><span class="selfconf-num selfconf-legend-sample" data-status="quoted">10</span>'
        " (dotted underline) quoted from the paper, never computed: a threshold, a design constant or a "
        "third party's number</li>"
        f"{items}"
        "<li>Hover over a number, tap it, or move to it with the Tab key (in a table: Tab to the table, then the "
        "arrow keys) to see the paper's print, this build's value, its kind and status, and the code that "
        "computed it.</li></ul>"
        '<label class="selfconf-legend-switch"><input type="checkbox" class="selfconf-all-marks-switch"> '
        "Show every mark (the words \u201c(quoted)\u201d and \u201c\u2260\u202fpaper\u201d on every "
        "quoted and within-tolerance number)</label></details>"
    )


_SPAN_RE = re.compile(r'<span class="selfconf-num" data-claim="([^"]+)">')
_THRESHOLD_RE = re.compile(r'data-threshold="([^"]*)"')


def _attr_string(attrs: dict[str, str]) -> str:
    return " ".join(f'{k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())


class _Data:
    """One audit of the executed notebooks, read once per build."""

    def __init__(self, srcdir: Path):
        book = srcdir / "book"
        data_dir = DEFAULT_DATA_DIR
        audit_nb = book / "14_audit.ipynb"
        if audit_nb.is_file():  # the data folder the build used (a papermill parameter of every notebook)
            meta = json.loads(audit_nb.read_text(encoding="utf-8")).get("metadata", {})
            data_dir = (meta.get("papermill") or {}).get("parameters", {}).get("data_dir", data_dir)
        res = audit_book(
            book,
            srcdir / data_dir if not Path(data_dir).is_absolute() else data_dir,
            srcdir / "data" / "paper" / "claims.yaml",
        )
        self.records = {r.id: r for r in res.records}
        from selfconf.claims.judging import load_manifest

        self.claims = load_manifest(srcdir / "data" / "paper" / "claims.yaml").by_id
        self.glued = glued_values(book)
        self.why = {e.id: e for e in res.explanations}
        self._book = book
        self._pages: dict[str, tuple[dict[str, str], dict[str, Any]]] = {}
        self._cells: dict[str, list[int]] = {}

    def cells(self, notebook: str) -> list[int]:
        """The rendered code cells of executed notebook ``notebook`` (a stem), read once."""
        if notebook not in self._cells:
            nb = self._book / f"{notebook}.ipynb"
            self._cells[notebook] = rendered_cells(json.loads(nb.read_text(encoding="utf-8"))) if nb.is_file() else []
        return self._cells[notebook]

    def page(self, docname: str) -> tuple[dict[str, str], dict[str, Any]]:
        """``(origins, values)`` glued by the executed notebook of ``docname``."""
        if docname not in self._pages:
            nb = self._book.parent / f"{docname}.ipynb"
            vals = glued_in_notebook(nb) if nb.is_file() else {}
            origins = {k[: -len(ORIGIN_SUFFIX)]: v for k, v in vals.items() if k.endswith(ORIGIN_SUFFIX)}
            self._pages[docname] = (origins, vals)
        return self._pages[docname]


#: Prefix of the id each rendered code cell of a notebook page gets (``selfconf-cell-<index in the notebook>``).
CELL_ID = "selfconf-cell-"


def rendered_cells(nb: dict) -> list[int]:
    """Indices of the code cells of an executed notebook that its page renders (not removed whole).

    A cell tagged ``remove-cell`` is dropped by Jupyter Book, and myst-nb drops a code cell whose input and
    output are both removed (tags ``remove-input``/``remove_input`` and ``remove-output``/``remove_output``);
    every other code cell becomes one container, which :func:`_cell_ids` gives the id ``selfconf-cell-<index>``.

    Example::

        >>> rendered_cells({"cells": [{"cell_type": "markdown"}, {"cell_type": "code", "metadata": {}},
        ...     {"cell_type": "code", "metadata": {"tags": ["remove-input", "remove-output"]}},
        ...     {"cell_type": "code", "metadata": {"tags": ["remove-cell"]}}]})
        [1]
    """
    out = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        tags = set((cell.get("metadata") or {}).get("tags") or [])
        if tags & {"remove-cell", "remove_cell"}:
            continue
        if tags & {"remove-input", "remove_input"} and tags & {"remove-output", "remove_output"}:
            continue
        out.append(i)
    return out


def cell_anchor(cells: list[int], cell: int | None) -> str:
    """The anchor of the rendered cell that shows ``cell``'s work: itself, else the nearest rendered cell before it.

    ``""`` when no rendered code cell precedes it (the link then opens the page at its top).

    Example: ``cell_anchor([3, 7, 12], 9) == "selfconf-cell-7"``; ``cell_anchor([3], 1) == ""``.

        >>> cell_anchor([3, 7, 12], 9), cell_anchor([3, 7, 12], 12), cell_anchor([3], 1), cell_anchor([3], None)
        ('selfconf-cell-7', 'selfconf-cell-12', '', '')
    """
    if cell is None:
        return ""
    before = [c for c in cells if c <= cell]
    return f"{CELL_ID}{before[-1]}" if before else ""


def _cell_ids(app, doctree, docname: str) -> None:
    """Give each rendered code cell of a notebook page the id ``selfconf-cell-<index>`` (the cards link it)."""
    for node in doctree.findall(nodes.container):
        if node.get("nb_element") == "cell_code" and node.get("cell_index") is not None:
            ident = f"{CELL_ID}{node['cell_index']}"
            if ident not in node["ids"]:
                node["ids"].append(ident)


def _data(app) -> _Data:
    if getattr(app, "_selfconf_provenance", None) is None:
        app._selfconf_provenance = _Data(Path(app.srcdir))
    return app._selfconf_provenance


def _resolve(app, doctree, docname: str) -> None:
    """Give every pasted value of the page its attributes; add the legend; enrich table-cell spans.

    Steps: the ``{printed}`` tokens (:func:`_resolve_printed`), each pasted number (:func:`_resolve_number`),
    each raw HTML block with claim spans (:func:`_resolve_raw`), then the legend (:func:`_insert_legend`).
    """
    from sphinx.util import logging

    log = logging.getLogger(__name__)
    numbers = list(doctree.findall(pasted_number))
    printed = list(doctree.findall(printed_number))
    raws = [r for r in doctree.findall(nodes.raw) if "selfconf-num" in r.astext()]
    if not numbers and not raws and not printed:
        return
    data = _data(app)
    href = app.builder.get_relative_uri(docname, AUDIT_DOC) if app.builder.format == "html" else ""
    for pn in printed:
        _resolve_printed(app, pn, data, href, log)
    for n in numbers:
        _resolve_number(app, n, data, docname, href, log)
    for r in raws:
        _resolve_raw(app, r, data, docname, href, log)
    if app.builder.format == "html":
        _insert_legend(doctree, docname)


def _resolve_printed(app, pn: printed_number, data: _Data, href: str, log) -> None:
    """Replace one ``{printed}`` node by the paper's token: a ``selfconf-printed`` span with its attributes
    (:func:`printed_attributes`) in HTML, the bare token elsewhere, nothing (and a warning) for an unknown claim.
    """
    got = printed_attributes(pn["key"], data.records, href)
    if got is None:
        log.warning(f"{{printed}} role: {pn['key']!r} is not a claim of the manifest", location=pn)
        pn.replace_self(nodes.Text(""))
        return
    token, pattrs = got
    if app.builder.format == "html":
        pn.replace_self(
            nodes.raw(
                "",
                f'<span class="selfconf-printed" {_attr_string(pattrs)}>{html.escape(token)}</span>',
                format="html",
            )
        )
    else:
        pn.replace_self(nodes.Text(token))


def _local_code(app, data: _Data, docname: str, key: str, attrs: dict[str, str]) -> None:
    """``data-code``: the rendered cell of this build's page that computed the value (a local link).

    Set in HTML only, when the value's notebook is a page of this build: its cell is ``data-cell``, else the
    cell the value was glued from; the link opens the nearest rendered cell (:func:`cell_anchor`), and
    ``data-code-title`` names the page.
    """
    nb = attrs.get("data-notebook")
    if not nb or app.builder.format != "html" or f"book/{nb}" not in app.env.all_docs:
        return
    cell = attrs.get("data-cell")
    glued = data.glued.get(key) or {}
    if not cell and Path(str(glued.get("notebook", ""))).stem == nb:
        cell = str(glued.get("cell", ""))
    anchor = cell_anchor(data.cells(nb), int(cell) if cell else None)
    attrs["data-code"] = app.builder.get_relative_uri(docname, f"book/{nb}") + (f"#{anchor}" if anchor else "")
    title = app.env.titles.get(f"book/{nb}")
    if title is not None:
        attrs["data-code-title"] = title.astext()


def _resolve_number(app, n: pasted_number, data: _Data, docname: str, href: str, log) -> None:
    """Store on one pasted number its attributes (:func:`attributes_for` and :func:`_local_code`) and whether it
    sits in a table; a value with neither a claim id nor an origin gets none and a warning."""
    doc = source_doc(n, docname)
    origins, values = data.page(doc)
    attrs = attributes_for(n["key"], data.records, data.why, origins, values, href, Path(doc).name, data.claims)
    if attrs is None:
        log.warning(
            f"pasted value {n['key']!r} has neither a claim id nor an origin "
            "(glue it with glue.claim or glue.value(..., origin=...))",
            location=n,
        )
        attrs = {}
    _local_code(app, data, docname, n["key"], attrs)
    n["attrs"] = attrs
    n["in_table"] = _in_table(n)


def _resolve_raw(app, r: nodes.raw, data: _Data, docname: str, href: str, log) -> None:
    """Rewrite each claim span of one raw HTML block with the claim's attributes (a table cell's span is reached
    with the arrow keys, ``tabindex="-1"``, any other with Tab), then mark the differing ones
    (:func:`_mark_differing`)."""
    stop = "-1" if _in_table(r) or "<td" in r.astext() else "0"
    doc = source_doc(r, docname)

    def repl(m: re.Match) -> str:
        key = m.group(1)
        origins, values = data.page(doc)
        attrs = attributes_for(key, data.records, data.why, origins, values, href, Path(doc).name, data.claims)
        if attrs is None:
            log.warning(f"table cell for {key!r} is not a claim of the manifest", location=r)
            return m.group(0)
        _local_code(app, data, docname, key, attrs)
        cls = "selfconf-num selfconf-differs" if attrs.get("data-differs") else "selfconf-num"
        return f'<span class="{cls}" {_attr_string(attrs)} tabindex="{stop}">'

    r.replace_self(nodes.raw("", _mark_differing(_SPAN_RE.sub(repl, r.astext())), format="html"))


def _mark_differing(text: str) -> str:
    """``text`` with the "≠ paper" marker (:func:`mark_html`) after the value of each differing claim span.

    Example::

        >>> span = '<span class="selfconf-num selfconf-differs" data-differs="true" data-threshold="0">'
        >>> _mark_differing(span + "-0.01</span>") == span + "-0.01" + mark_html({"data-threshold": "0"}) + "</span>"
        True
        >>> _mark_differing('<span class="selfconf-num">0.5</span>')
        '<span class="selfconf-num">0.5</span>'
    """
    if "data-differs" not in text:
        return text
    return re.sub(
        r'(<span class="selfconf-num selfconf-differs"[^>]*>)([^<]*)</span>',
        lambda mm: (
            mm.group(1)
            + mm.group(2)
            + mark_html({"data-threshold": t.group(1)} if (t := _THRESHOLD_RE.search(mm.group(1))) else {})
            + "</span>"
        ),
        text,
    )


def _insert_legend(doctree, docname: str) -> None:
    """Put the legend (:func:`legend_html`, open on every page but the landing page) after the page's title."""
    section = next(iter(doctree.findall(nodes.section)), None)
    legend = nodes.raw("", legend_html(open_=docname != "book/index"), format="html")
    if section is not None and section.children and isinstance(section.children[0], nodes.title):
        section.insert(1, legend)
    elif section is not None:
        section.insert(0, legend)


def source_doc(node, docname: str) -> str:
    """The document ``node`` was read from: ``docname``, or, in a tree that a builder assembled from many
    documents (the LaTeX builder's one book), the ``docname`` that Sphinx wrote on the nearest enclosing section
    when it inlined that document (``sphinx.util.nodes.inline_all_toctrees``).

    Example: in the LaTeX builder's tree of ``book/index``, a number of Result 1 gives ``"book/04_result1"``.
    """
    p = node.parent
    while p is not None:
        if isinstance(p, nodes.section) and p.get("docname"):
            return p["docname"]
        p = p.parent
    return docname


def _in_table(node) -> bool:
    """Whether ``node`` sits in a table (its numbers are reached through the table's one tab stop)."""
    p = node.parent
    while p is not None:
        if isinstance(p, nodes.table):
            return True
        p = p.parent
    return False


def _visit_html(self, node: pasted_number) -> None:
    attrs = node.get("attrs") or {}
    cls = "selfconf-num selfconf-differs" if attrs.get("data-differs") else "selfconf-num"
    stop = "-1" if node.get("in_table") else "0"
    self.body.append(f'<span class="{cls}" {_attr_string(attrs)} tabindex="{stop}">')


def mark_html(attrs: dict[str, str]) -> str:
    """The marker after a differing number: "≠ paper", and "· crosses <t>" when it crosses its threshold."""
    cross = f" · crosses {attrs['data-threshold']}" if attrs.get("data-threshold") else ""
    return f'<sup class="selfconf-mark" aria-hidden="true">≠&#8239;paper{html.escape(cross)}</sup>'


def _depart_html(self, node: pasted_number) -> None:
    attrs = node.get("attrs") or {}
    if attrs.get("data-differs"):
        self.body.append(mark_html(attrs))
    self.body.append("</span>")


def mark_latex_text(attrs: dict[str, str], shown: str) -> str:
    """The words of a differing number's footnote in the typeset PDF: the paper's print, this build's and why.

    Definition: "The paper prints P; this build computes V: <status in words>." with the threshold it crosses
    when there is one (:data:`selfconf.claims.judging.STATUSES`).  The footnote adds a link to the claim's
    audit row (see :func:`_depart_latex`).

    >>> mark_latex_text({"data-printed": "0.720", "data-status": "within_tolerance"}, "0.722")[:52]
    'The paper prints 0.720; this build computes 0.722: a'
    """
    status = STATUSES.get(attrs.get("data-status", ""), attrs.get("data-status", ""))
    cross = f" (it crosses {attrs['data-threshold']})" if attrs.get("data-threshold") else ""
    return f"The paper prints {attrs.get('data-printed', '')}; this build computes {shown}: {status}{cross}."


def claim_label(claim_id: str) -> str:
    r"""The LaTeX label of a claim's audit row: ``claim-<id>``, written literally (``\detokenize``).

    >>> claim_label("t1_google_n")
    '\\detokenize{claim-t1_google_n}'
    """
    return "\\detokenize{claim-" + claim_id + "}"


def _visit_latex(self, node: pasted_number) -> None:
    pass


def _depart_latex(self, node: pasted_number) -> None:
    """A differing number gets a footnote (the paper's print and this build's) linking its audit row; in a
    heading or caption, where a footnote cannot go, a superscript "≠ paper P" instead."""
    attrs = node.get("attrs") or {}
    if not attrs.get("data-differs"):
        return
    if getattr(self, "in_title", 0) or getattr(self, "in_caption", 0):
        self.body.append("\\textsuperscript{" + self.encode(f"≠ paper {attrs.get('data-printed', '')}") + "}")
        return
    words = self.encode(mark_latex_text(attrs, node.astext()))
    label = claim_label(attrs.get("data-claim", ""))
    self.body.append("\\footnote{" + words + " Audit row: \\hyperref[" + label + "]{p.~\\pageref*{" + label + "}}.}")


def _visit_plain(self, node) -> None:
    pass


def _depart_plain(self, node) -> None:
    pass


def _make_role():
    from myst_nb.ext.glue.roles import PasteTextRole

    class ProvenanceTextRole(PasteTextRole):
        """``{glue:text}`` that keeps the glue key on the pasted element."""

        def run(self):
            out, msgs = super().run()
            key = paste_key(self.text)
            wrapped = []
            for n in out:
                # a paste from this page's notebook is its text already; one from another page
                # (``path::key``) is a pending reference that a post-transform fills in inside the wrapper
                pending = type(n).__name__ == "PendingGlueReference"
                if pending or (isinstance(n, nodes.inline) and "pasted-text" in n.get("classes", [])):
                    w = pasted_number(n.rawsource, "", *([n] if pending else n.children), key=key)
                    w.source, w.line = n.source, n.line
                    wrapped.append(w)
                else:
                    wrapped.append(n)
            return wrapped, msgs

    return ProvenanceTextRole()


_NUM_RE = re.compile(r"^(?P<text>.*?)\s*<(?P<key>[^<>]+)>$", re.S)


def num_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{num}`shown text <claim id>```: inline text that carries a paper claim (table cells of the book)."""
    m = _NUM_RE.match(text)
    if not m:
        msg = inliner.reporter.error(f"num role: expected 'text <claim id>', got {text!r}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    node = pasted_number(rawtext, m.group("text"), key=m.group("key").strip())
    node.line = lineno
    return [node], []


def printed_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{printed}`claim id```: the paper's printed token of that claim, visibly labelled as the paper's.

    The value comes from the manifest through the audit (never from a notebook), so a page can show the
    paper's number beside this build's without its code reading the paper's targets.
    """
    node = printed_number(rawtext, "", key=text.strip())
    node.line = lineno
    return [node], []


def anchor_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{anchor}`id```: an empty HTML element with exactly this id (a link target such as ``claim-t1_google_n``)."""
    ident = html.escape(text.strip(), quote=True)
    label = "\\phantomsection\\label{\\detokenize{" + text.strip() + "}}"
    return [nodes.raw("", f'<span id="{ident}"></span>', format="html"), nodes.raw("", label, format="latex")], []


def _fill_printed(app) -> None:
    """At ``builder-inited``: the paper's tokens into every CSV download whose page shows them (see the module)."""
    from selfconf.book.pages import PRINTED_DIR, TABLE_DIR
    from selfconf.claims.judging import load_manifest

    tables = Path(app.srcdir) / TABLE_DIR
    sidecars = sorted((tables / PRINTED_DIR).glob("*.json"))
    if not sidecars:
        return
    claims = load_manifest(Path(app.srcdir) / "data" / "paper" / "claims.yaml").by_id

    def token(key: str) -> str:
        if key not in claims:
            raise ValueError(f"{{printed}} cell of a CSV download: {key!r} is not a claim of the manifest")
        return str(claims[key]["printed"])

    for side in sidecars:
        spec = json.loads(side.read_text(encoding="utf-8"))
        csv_path = tables / spec["csv"]
        if csv_path.is_file():
            fill_printed_csv(csv_path, spec["cells"], token)


def _static(app) -> None:
    if app.builder.format == "html":
        app.config.html_static_path.append(str(ASSETS))


def setup(app) -> dict:
    """Sphinx entry point (after myst-nb): the provenance role, node, legend and card assets."""
    app.setup_extension("myst_nb")
    app.add_node(
        pasted_number,
        html=(_visit_html, _depart_html),
        latex=(_visit_latex, _depart_latex),
        text=(_visit_plain, _depart_plain),
        man=(_visit_plain, _depart_plain),
        texinfo=(_visit_plain, _depart_plain),
    )
    app.add_role_to_domain("glue", "text", _make_role(), override=True)
    app.add_role("num", num_role)
    app.add_role("anchor", anchor_role)
    app.add_role("printed", printed_role)
    app.connect("builder-inited", _static)
    app.connect("builder-inited", _fill_printed)
    app.connect("doctree-resolved", _cell_ids)
    app.connect("doctree-resolved", _resolve)
    app.add_css_file("provenance.css")
    app.add_js_file("provenance.js", loading_method="defer")
    app.add_js_file("selfconf-layout.js", loading_method="defer")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
