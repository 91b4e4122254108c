"""The book typeset by LaTeX: what the HTML pages draw in the browser, set for paper (a Sphinx extension).

Loaded by ``_config.yml`` (``sphinx.extra_extensions: [selfconf.book.latex]``); it acts only when the builder is
Sphinx's LaTeX builder (``jupyter-book build . --builder pdflatex``, run by ``make pdf`` through
:mod:`selfconf.book.pdf`), so the HTML pages are untouched.  On ``doctree-resolved`` it rewrites the book's one
assembled tree:

* **Charts as vector graphics.**  Each ``selfconf-chart`` figure holds the offline embed of
  :mod:`selfconf.book.vega` (raw HTML with the Vega-Lite spec inline).  The spec is read back
  (:func:`chart_spec`) and drawn to PDF by ``vl_convert.vegalite_to_pdf`` (Vega's own renderer, bundled in the
  wheel: no browser, no network), written once per spec under ``selfconf-charts/`` of the LaTeX folder, and
  included at the text width (:func:`chart_latex`).  The figure keeps its caption and number.
* **Links stay in the document.**  A link to a page, section, table, figure or claim is a LaTeX cross-reference
  already; a link to a web address becomes its text followed by the address in print, not a link
  (:func:`offline_links`), except a DOI (``https://doi.org/...``), which is how a reference is cited.
* **Wide tables.**  A table whose columns cannot fit the text column at 9 pt is set on a landscape page
  (:func:`table_layout`); no table is set below 8 pt (``\\footnotesize`` of a 10 pt book).

Differing numbers get their footnote from :mod:`selfconf.book.provenance` (the LaTeX visitor of its node).

Reference: Sphinx documentation, "LaTeX customization"; vl-convert (https://github.com/vega/vl-convert),
``vegalite_to_pdf``; the ``pdflscape`` package (landscape pages).

Example: ``chart_spec(chart_html({"mark": "bar"}))`` returns ``{"mark": "bar"}`` (see :func:`chart_spec`).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from docutils import nodes

from selfconf.book.vega import vl_version

__all__ = [
    "CHART_DIR",
    "PREAMBLE",
    "READING_NOTE",
    "chart_spec",
    "chart_latex",
    "keep_link",
    "offline_links",
    "table_width",
    "table_layout",
    "column_widths",
    "column_groups",
    "split_columns",
    "book_numbers",
    "setup",
]

#: Folder (inside the LaTeX output) of the charts drawn to PDF.
CHART_DIR = "selfconf-charts"
#: Characters of a 10 pt text line that a table may use (about 6.3 in of text at ~2 mm per character of 9 pt).
PORTRAIT_CHARS = 95
#: ... and on a landscape page.
LANDSCAPE_CHARS = 140
#: A heading's letters (bold sans) are about 5/4 as wide as a cell's (serif): a heading word's run is scaled so.
HEADING_WIDTH_NUM, HEADING_WIDTH_DEN = 5, 4
#: LaTeX added to the preamble: landscape pages, tables at 9 pt (8 pt when wide), no table below 8 pt.
PREAMBLE = r"""
% selfconf.book.latex: landscape pages for wide tables; tables at 9 pt
\usepackage{pdflscape}
% the cell wrappers myst-nb writes (sphinx-jupyterbook-latex's class defines them; Sphinx's manual class is used)
\makeatletter
\@ifundefined{sphinxVerbatimOutput}{\newenvironment{sphinxVerbatimOutput}{}{}}{}
\@ifundefined{sphinxVerbatimInput}{\newenvironment{sphinxVerbatimInput}{}{}}{}
\makeatother
\makeatletter
\renewcommand{\sphinxstyletheadfamily}{\sffamily\bfseries}
\makeatother
"""

#: The PDF's front note (after the contents): what a footnote on a number means.  The web pages' legend
#: (:func:`selfconf.book.provenance.legend_html`) describes hover cards, which paper does not have.
READING_NOTE = r"""
\chapter*{How to read the numbers}
\addcontentsline{toc}{chapter}{How to read the numbers}
Every number in this book is computed from rows by the \sphinxcode{selfconf} package inside an executed notebook
and pasted into the text by key; none of the paper's printed values is typed in. A number that does not print as
the paper prints it is shown as computed and carries a footnote: the paper's print, this build's value, in words
why they differ, and the page of the number's row in the audit (Appendix B). A number without a footnote prints as
the paper prints it, or is the book's own (a simulation, a parameter, third-party data), as the text around it
says. Charts are drawn as vector graphics from the same specifications as the web pages' charts. Links lead to
pages, tables, figures and audit rows of this document; web addresses are printed as text, and only DOIs link out.
"""

_SPEC = re.compile(r"^\s*var spec = (\{.*\});\s*$", re.M)


def chart_spec(raw_html: str) -> dict:
    """The Vega-Lite spec inside one chart's offline embed (:func:`selfconf.book.vega.chart_html`).

    Definition: the JSON object of the embed's ``var spec = ...;`` line, with the two escapes that keep it
    inert inside a ``<script>`` element (``<\\/`` and ``<\\!--``) undone.  Raises ``ValueError`` when the HTML
    holds no spec.

    >>> from selfconf.book.vega import chart_html
    >>> chart_spec(chart_html({"mark": "bar", "description": "</script> <!-- x"}))
    {'description': '</script> <!-- x', 'mark': 'bar'}
    """
    m = _SPEC.search(raw_html)
    if not m:
        raise ValueError("a selfconf-chart figure holds no Vega-Lite spec ('var spec = {...};' line)")
    return json.loads(m.group(1).replace("<\\!--", "<!--"))


def chart_latex(spec: dict, outdir: Path) -> str:
    """Draw ``spec`` to ``outdir/CHART_DIR/<digest>.pdf`` (once per spec) and return the LaTeX that includes it.

    Definition: ``vl_convert.vegalite_to_pdf`` at the Vega-Lite version altair writes (vector PDF, fonts
    embedded); the picture is scaled to the text width, and never taller than 60 % of the text height.

    >>> import tempfile
    >>> tex = chart_latex({"mark": "point", "data": {"values": [{"x": 1}]}, "encoding": {"x": {"field": "x"}}},
    ...                   Path(tempfile.mkdtemp()))
    >>> tex.startswith("\\\\includegraphics[width=\\\\linewidth")
    True
    """
    import vl_convert as vlc

    text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    name = hashlib.sha256(text.encode()).hexdigest()[:16] + ".pdf"
    path = outdir / CHART_DIR / name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        ver = "v" + vl_version().replace(".", "_")
        pdf = vlc.vegalite_to_pdf(spec, vl_version=ver)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(pdf)
        tmp.replace(path)
    return "\\includegraphics[width=\\linewidth,height=0.6\\textheight,keepaspectratio]{" + f"{CHART_DIR}/{name}" + "}"


def keep_link(uri: str) -> bool:
    """Whether a web link stays a link in the PDF: only a DOI (``https://doi.org/...``) does.

    >>> keep_link("https://doi.org/10.5281/zenodo.23197651"), keep_link("https://osf.io/4y9dv")
    (True, False)
    """
    return bool(re.match(r"https?://(dx\.)?doi\.org/", uri))


class printed_url(nodes.Inline, nodes.TextElement):  # noqa: N801 - docutils node classes are lower case
    """A web address printed as text (no link) in the PDF."""


def _visit_printed_url(self, node) -> None:
    self.body.append(r"\sphinxnolinkurl{" + self.encode_uri(node["uri"]) + "}")
    raise nodes.SkipNode


def _visit_printed_url_html(self, node) -> None:
    self.body.append(node["uri"])
    raise nodes.SkipNode


def offline_links(doctree) -> int:
    """Turn every link to a web address (except a DOI, :func:`keep_link`) into its text and the address in print.

    Definition: a ``reference`` whose ``refuri`` has a scheme (``https:``, ``mailto:``...) is replaced by its
    children followed by `` (address)``; when its text is the address itself, by the address alone.  Returns how
    many links were replaced.

    >>> from docutils import nodes
    >>> p = nodes.paragraph("", "", nodes.reference("", "OSF", refuri="https://osf.io/4y9dv"))
    >>> offline_links(p), p.astext()
    (1, 'OSF (https://osf.io/4y9dv)')
    """
    n = 0
    for ref in list(doctree.findall(nodes.reference)):
        uri = ref.get("refuri", "")
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", uri) or keep_link(uri):
            continue
        shown = printed_url(uri, uri, uri=uri)
        text = ref.astext().strip()
        bare = uri.removeprefix("mailto:")
        if text in (uri, bare, bare.split("://", 1)[-1]):
            ref.replace_self(shown)
        else:
            ref.replace_self([*ref.children, nodes.Text(" ("), shown, nodes.Text(")")])
        n += 1
    return n


def _column_needs(table) -> tuple[dict[int, int], dict[int, float]]:
    """Per column: the longest unbreakable run in characters (a numeric cell whole, else the longest word, an
    id breaking after each underscore; a heading's word counted 5/4 as long) and the mean cell length."""
    need: dict[int, int] = {}
    lengths: dict[int, list[int]] = {}
    for r in table.findall(nodes.row):
        for j, e in enumerate(c for c in r.children if isinstance(c, nodes.entry)):
            shown = (t.astext() for t in e.findall(nodes.Text) if not isinstance(t.parent, nodes.raw))  # no anchors
            text = " ".join(" ".join(shown).split())
            numeric = (
                bool(text)
                and bool(re.fullmatch(r"[\d\s.,+\-\u2212\u2013\[\]()%≠a-z]*", text))
                and any(ch.isdigit() for ch in text)
                and not re.search(r"[a-z]{4}", text)  # "0.0055 (within tolerance ...)" wraps at its spaces
            )
            run = len(text) if numeric else max((len(w) for w in re.split(r"[\s_]", text)), default=0)
            if isinstance(r.parent, nodes.thead):  # bold sans headings: wider letters than the serif cells
                run = -(-run * HEADING_WIDTH_NUM // HEADING_WIDTH_DEN)
            need[j] = max(need.get(j, 0), run)
            lengths.setdefault(j, []).append(len(text))
    return need, {j: sum(v) / len(v) for j, v in lengths.items()}


def table_width(table) -> int:
    """Characters a table needs on one line: per column, its longest unbreakable run (the longest word of a
    text column, breaking ids after underscores; the whole cell of a numeric one), summed, plus two per column.

    >>> from docutils import nodes
    >>> def row(*cells):
    ...     return nodes.row("", *[nodes.entry("", nodes.paragraph(c, c)) for c in cells])
    >>> t = nodes.table("", nodes.tgroup("", nodes.tbody("", row("google_x", "[0.72, 0.77]"), row("a b", "1"))))
    >>> table_width(t)
    22
    """
    need, _ = _column_needs(table)
    return sum(need.values()) + 2 * len(need)


def _base_widths(need: list[int]) -> list[float]:
    """Each column's longest unbreakable run in characters, 15 % wider (bold headings) plus one."""
    return [n * 1.15 + 1 for n in need]


def _line_chars(line: int, columns: int) -> int:
    """Characters of a line of ``line`` characters left for ``columns`` columns' text (the padding between columns
    takes about 1.5 characters each)."""
    return int(line - 1.5 * columns)


def column_widths(need: list[int], mean: list[float], available: int) -> list[int]:
    """Widths (in characters) of a long table's columns: each first gets its longest unbreakable run (15 % wider,
    for bold headings), then what is left of ``available`` goes to the columns whose cells are longer on average
    (up to 40 characters each), in proportion to that shortfall, and the rest in proportion to the widths.
    When the runs alone exceed ``available`` they are returned as they are; LaTeX takes the widths as relative
    and would scale every column down, so :func:`table_layout` splits such a table by columns first
    (:func:`column_groups`).

    >>> column_widths([10, 5, 20], [12.0, 5.0, 60.0], 60)
    [12, 6, 40]
    >>> column_widths([10, 5, 20], [12.0, 5.0, 60.0], 30)
    [12, 6, 24]
    """
    base = _base_widths(need)
    free = available - sum(base)
    if free > 0:
        want = [max(0.0, min(m, 40) - b) for m, b in zip(mean, base, strict=True)]
        give = min(free, sum(want))
        if give > 0:
            base = [b + give * w / sum(want) for b, w in zip(base, want, strict=True)]
        rest = available - sum(base)
        base = [b + rest * b / sum(base) for b in base]
    return [max(1, int(b)) for b in base]


def column_groups(need: list[int], line: int) -> list[list[int]]:
    """Split a table's columns into groups that each fit a line of ``line`` characters, every group led by the
    first column (the rows' key): the columns in order, a new group whenever the next column's run
    (:func:`column_widths`' first step) would no longer fit beside the key and the columns before it.
    One group (all columns) when they fit.

    >>> column_groups([10, 20, 30, 40], 140)
    [[0, 1, 2, 3]]
    >>> column_groups([10, 20, 30, 40, 30], 140)
    [[0, 1, 2, 3], [0, 4]]
    """
    base = _base_widths(need)
    groups: list[list[int]] = [[0]]
    for j in range(1, len(need)):
        trial = groups[-1] + [j]
        if len(groups[-1]) > 1 and sum(base[k] for k in trial) > _line_chars(line, len(trial)):
            groups.append([0, j])
        else:
            groups[-1] = trial
    return groups


def split_columns(table, groups: list[list[int]]) -> list:
    """The table as one table per column group (:func:`column_groups`): the first keeps the table's title and ids;
    each further one is a copy holding the key column (its anchors left out, so each label is defined once) and
    its group, titled "... (continued)" without a number of its own.  A table with cells spanning columns or
    rows is returned whole.

    >>> from docutils import nodes
    >>> def row(*cells):
    ...     return nodes.row("", *[nodes.entry("", nodes.paragraph(c, c)) for c in cells])
    >>> t = nodes.table("", nodes.tgroup("", *[nodes.colspec(colwidth=1) for _ in range(3)],
    ...                                  nodes.tbody("", row("id", "a", "b"), row("x_1", "1", "2"))))
    >>> [[r.astext().split() for r in p.findall(nodes.row)] for p in split_columns(t, [[0, 1], [0, 2]])]
    [[['id', 'a'], ['x_1', '1']], [['id', 'b'], ['x_1', '2']]]
    """
    if len(groups) < 2 or any(e.get("morecols") or e.get("morerows") for e in table.findall(nodes.entry)):
        return [table]
    parts = [table, *(table.deepcopy() for _ in groups[1:])]  # the original (ids, title) first
    for g, (part, cols) in enumerate(zip(parts, groups, strict=True)):
        for tgroup in part.findall(nodes.tgroup):
            specs = [c for c in tgroup.children if isinstance(c, nodes.colspec)]
            for k, spec in enumerate(specs):
                if k not in cols:
                    tgroup.remove(spec)
            tgroup["cols"] = len(cols)
        for r in part.findall(nodes.row):
            entries = [c for c in r.children if isinstance(c, nodes.entry)]
            for k, e in enumerate(entries):
                if k not in cols:
                    r.remove(e)
                elif g and k == 0:
                    for raw in list(e.findall(nodes.raw)):
                        raw.parent.remove(raw)
        if g:
            part["ids"] = []
            part["names"] = []
            for title in list(part.findall(nodes.title)):
                title.parent.remove(title)
    return parts


#: In a table, an id may break after each underscore (as on the web pages), never inside a word.
_BREAK_IDS = r"\let\selfconfus\_\renewcommand{\_}{\selfconfus\allowbreak}"


def table_layout(doctree) -> dict[str, int]:
    """Set each table for paper: 9 pt; a table wider than the text column 8 pt, a wider one on a landscape page.

    Definition: :func:`table_width` against :data:`PORTRAIT_CHARS` (9 pt fits) and :data:`LANDSCAPE_CHARS`
    (8 pt on a portrait page fits up to ``PORTRAIT_CHARS * 9 / 8``; beyond it the page turns).  Every table gets
    the column widths of :func:`column_widths` for its line, so its text wraps and no column is set narrower than
    its longest unbreakable run (a ``longtable`` does not size its columns by itself, and LaTeX's ``tabulary``
    shrinks a short key column below its longest word to make room for long text).  A table whose unbreakable
    runs do not fit even a landscape line is split by columns (:func:`column_groups`, :func:`split_columns`): each
    part repeats the key column and follows the one before, introduced by a line saying so.  Only the PDF is
    split; the HTML pages are untouched.
    Returns the count of tables per layout (parts counted each) and of tables split.
    """
    out = {"9pt": 0, "8pt": 0, "landscape": 0, "split": 0}
    for whole in list(doctree.findall(nodes.table)):
        need, _ = _column_needs(whole)
        parts = [whole]
        if table_width(whole) > LANDSCAPE_CHARS and need:
            parts = split_columns(whole, column_groups([need[j] for j in range(len(need))], LANDSCAPE_CHARS))
            if len(parts) > 1:
                out["split"] += 1
                first = parts[0]
                at = first.parent.index(first)
                for k, part in enumerate(parts[1:], start=1):
                    note = nodes.paragraph("", "", nodes.emphasis("", _continued(first, part)))
                    first.parent.insert(at + 2 * k - 1, note)
                    first.parent.insert(at + 2 * k, part)
        for t in parts:
            out[_set_table(t)] += 1
    return out


def _continued(first, part) -> str:
    """The line above a continuation of a table split by columns: what it continues and how its rows are keyed."""
    titles = [x.astext() for x in first.children if isinstance(x, nodes.title)]
    head = next(part.findall(nodes.row), None)
    key = head.children[0].astext() if head is not None and head.children else "the first column"
    name = f"{titles[0]}" if titles else "the table above"
    return f"{name}, continued: further columns of the same rows, by {key}."


def _set_table(t) -> str:
    """Wrap one table in its size (and landscape page) and give it its column widths; returns its layout."""
    w = table_width(t)
    if w <= PORTRAIT_CHARS:
        size, layout = r"\small", "9pt"
    elif w <= PORTRAIT_CHARS * 9 // 8:
        size, layout = r"\footnotesize", "8pt"
    else:
        size, layout = r"\footnotesize", "landscape"
    need, mean = _column_needs(t)
    specs = list(t.findall(nodes.colspec))
    if len(specs) == len(need):
        line = {"9pt": PORTRAIT_CHARS, "8pt": PORTRAIT_CHARS * 9 // 8, "landscape": LANDSCAPE_CHARS}[layout]
        cols = range(len(need))
        widths = column_widths([need[j] for j in cols], [mean[j] for j in cols], _line_chars(line, len(need)))
        for spec, width in zip(specs, widths, strict=True):
            spec["colwidth"] = width
        t["classes"] = [c for c in t.get("classes", []) if c != "colwidths-auto"] + ["colwidths-given"]
    before = ("\\begin{landscape}" if layout == "landscape" else "") + "\\begingroup" + size + _BREAK_IDS
    after = "\\endgroup" + ("\\end{landscape}" if layout == "landscape" else "")
    parent = t.parent
    i = parent.index(t)
    parent.insert(i + 1, nodes.raw("", after, format="latex"))
    parent.insert(i, nodes.raw("", before, format="latex"))
    return layout


def book_numbers(doctree, env, docname: str) -> int:
    r"""Give each numbered table and figure the number the web pages show (the paper's Tables 1-4 and Figure 1,
    S1, S2, ... for the book's own: :func:`selfconf.book.publication.renumber`), not LaTeX's count per chapter.

    Definition: before each table or figure whose first id has a number in ``env.toc_fignumbers`` of its
    document, ``\renewcommand{\thetable}{N}`` (``\thefigure``) inside a group that holds only that float, so its
    caption and every ``\ref`` to it read N.  Returns how many were numbered.
    """
    from selfconf.book.provenance import source_doc

    n = 0
    for node in list(doctree.findall(lambda x: isinstance(x, (nodes.table, nodes.figure)))):
        kind = "table" if isinstance(node, nodes.table) else "figure"
        ids = node.get("ids") or []
        doc = source_doc(node, docname)
        number = (env.toc_fignumbers.get(doc, {}).get(kind, {}) or {}).get(ids[0]) if ids else None
        if not number:
            continue
        text = ".".join(str(x) for x in number)
        parent, i = node.parent, node.parent.index(node)
        parent.insert(i + 1, nodes.raw("", "\\endgroup", format="latex"))
        parent.insert(i, nodes.raw("", f"\\begingroup\\renewcommand{{\\the{kind}}}{{{text}}}", format="latex"))
        n += 1
    return n


def _latex_resolved(app, doctree, docname: str) -> None:  # doctree-resolved
    if app.builder.format != "latex":
        return
    outdir = Path(app.outdir)
    for fig in list(doctree.findall(nodes.figure)):
        if "selfconf-chart" not in fig.get("classes", []):
            continue
        for raw in list(fig.findall(nodes.raw)):
            if "html" in raw.get("format", "").split() and "var spec" in raw.astext():
                raw.replace_self(nodes.raw("", chart_latex(chart_spec(raw.astext()), outdir), format="latex"))
    offline_links(doctree)
    book_numbers(doctree, app.env, docname)
    table_layout(doctree)


def _preamble(app, config) -> None:  # config-inited, after sphinx-jupyterbook-latex
    # Sphinx's own book class: the jupyterBook class of sphinx-jupyterbook-latex needs bbm.sty, which only
    # Debian's 1 GB texlive-fonts-extra ships (the book has no blackboard-bold maths)
    config.latex_theme = "manual"
    elements = dict(config.latex_elements or {})
    elements["preamble"] = (elements.get("preamble") or "") + PREAMBLE
    elements["tableofcontents"] = (elements.get("tableofcontents") or r"\sphinxtableofcontents") + READING_NOTE
    config.latex_elements = elements


def setup(app) -> dict:
    """Sphinx entry point (see the module docstring)."""
    app.add_node(
        printed_url,
        latex=(_visit_printed_url, None),
        html=(_visit_printed_url_html, None),
        text=(_visit_printed_url_html, None),
    )
    app.connect("config-inited", _preamble, priority=900)
    app.connect("doctree-resolved", _latex_resolved, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
