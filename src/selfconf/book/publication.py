"""Sphinx extension for the book as a publication: the paper's numbering, numbered charts, the PDF link.

Loaded by ``_config.yml`` (``sphinx.extra_extensions: [selfconf.book.publication]``).  It does four things:

* **The paper's numbering.**  Sphinx numbers every captioned table and figure of the book in one
  sequence, in reading order (``numfig``).  The paper numbers only its own objects, and the book puts
  other tables before them (the Design chapter's roster comes before Table 1).  After Sphinx has
  assigned its numbers (``env-get-updated``), :func:`renumber` gives the objects listed in
  :data:`PAPER_NUMBERS` the paper's numbers (Tables 1-4, Figure 1) and every other table and figure
  ``S1``, ``S2``, ... per kind, in reading order (the "S" marks the book's supplementary objects).
  Captions and ``{numref}`` links both read these numbers, so they always agree.
* **Links for every mention.**  Each "Table 1" ... "Table 4" and "Figure 1" in running text, captions
  and table cells becomes a ``numref`` link to the object (:func:`mention_nodes`, on ``doctree-read``).
* **Numbered charts.**  The directive ``selfconf-chart`` wraps one offline altair chart
  (:mod:`selfconf.book.vega` writes it) in a docutils ``figure`` with a caption and a label, so charts are
  numbered and cross-referenced like any figure.
* **Substitutions** ``{{ book_version }}`` (from ``selfconf.__version__``), ``{{ repository_url }}``
  and ``{{ repository_link }}`` (from ``repository.url`` in ``_config.yml``, the one place it is set) for the
  How-to-cite page.
* **The PDF link**: every page's footer links ``selfconf-book.pdf`` at the site root, which
  ``make pdf`` (:mod:`selfconf.book.pdf`) writes next to ``index.html``.

Reference: Sphinx documentation, "Cross-referencing figures by figure number" (``numfig``,
``numref``) and "Sphinx core events" (``env-get-updated``).

Example (in a notebook's Markdown): ``see {numref}`tab-table1``` renders as a link reading "Table 1".
"""

from __future__ import annotations

import re

from docutils import nodes
from docutils.parsers.rst import Directive, directives

from selfconf import __version__

__all__ = [
    "PAPER_NUMBERS",
    "PDF_NAME",
    "MENTION",
    "reading_order",
    "renumber",
    "mention_nodes",
    "ChartDirective",
    "chart_label",
    "setup",
]

#: Labels of the paper's own numbered objects and the numbers the paper gives them.
PAPER_NUMBERS = {
    "table": {"tab-table1": 1, "tab-table2": 2, "tab-table3-ladder": 3, "tab-table4-microprobe": 4},
    "figure": {"fig-figure1": 1},
}
#: File name of the whole-book PDF, at the root of the HTML output.
PDF_NAME = "selfconf-book.pdf"


def chart_label(caption: str) -> str:
    """Default label of a chart: ``fig-`` + its caption in lower case with runs of other characters as ``-``.

    Example: ``chart_label("Risk–coverage, all frontier models") == "fig-risk-coverage-all-frontier-models"``.
    """
    slug = re.sub(r"[^a-z0-9]+", "-", caption.lower()).strip("-")
    return "fig-" + (slug[:60].rstrip("-") or "chart")


def reading_order(env) -> list[str]:
    """Document names in the book's reading order: a depth-first walk of the toctrees from the root."""
    seen: list[str] = []

    def walk(doc: str) -> None:
        if doc in seen:
            return
        seen.append(doc)
        for child in env.toctree_includes.get(doc, []):
            walk(child)

    walk(env.config.root_doc)
    return seen


def renumber(app, env) -> list[str]:
    """Give the paper's objects their paper numbers and every other one ``S<k>`` (per kind, reading order).

    Runs on ``env-get-updated`` after Sphinx's own numbering; returns the documents whose numbers changed.
    Raises when a label of :data:`PAPER_NUMBERS` appears twice or not at all (a renamed table would
    otherwise silently lose its paper number).
    """
    if not env.config.numfig:
        return []
    native = _copy_numbers(env.toc_fignumbers)
    prev_final = getattr(env, "selfconf_final_fignumbers", None)
    if prev_final is not None and not getattr(env, "selfconf_docs_read", True):
        if native == getattr(env, "selfconf_native_fignumbers", None):
            # nothing was read and Sphinx numbered as before: the paper numbers are those of the last build
            env.toc_fignumbers = _copy_numbers(prev_final)
            return []
    std = env.domains["std"]
    counters: dict[str, int] = {}
    found: dict[str, str] = {}
    for doc in reading_order(env):
        numbers = env.toc_fignumbers.get(doc)
        if not numbers:
            continue
        doctree = env.get_doctree(doc)
        for node in doctree.findall(nodes.Element):
            figtype = std.get_enumerable_node_type(node)
            if figtype not in PAPER_NUMBERS or not node.get("ids"):
                continue
            ids = node["ids"]
            if ids[0] not in numbers.get(figtype, {}):
                continue
            paper = next((PAPER_NUMBERS.get(figtype, {})[i] for i in ids if i in PAPER_NUMBERS.get(figtype, {})), None)
            if paper is not None:
                label = next(i for i in ids if i in PAPER_NUMBERS[figtype])
                if label in found:
                    raise RuntimeError(f"paper object {label!r} appears twice: in {found[label]} and {doc}")
                found[label] = doc
                numbers[figtype][ids[0]] = (paper,)
            else:
                counters[figtype] = counters.get(figtype, 0) + 1
                numbers[figtype][ids[0]] = (f"S{counters[figtype]}",)
    final = _copy_numbers(env.toc_fignumbers)
    # changed: the documents whose final numbers differ from the last build's (a first build: every document
    # whose numbers this function set); Sphinx's own numbering is kept for the next build (_restore_native)
    changed = [d for d in final if final[d] != (prev_final or native).get(d)]
    env.selfconf_native_fignumbers = native
    env.selfconf_final_fignumbers = final
    expected = {label for labels in PAPER_NUMBERS.values() for label in labels}
    built = set(env.found_docs)
    if missing := sorted(expected - set(found)):
        # a partial build (a test's tiny project) has none of the paper's pages: nothing to check then
        if any(d.endswith(("04_result1", "05_result2", "06_result3")) for d in built):
            raise RuntimeError(f"paper objects without a numbered table/figure in the book: {missing}")
    return changed


def _copy_numbers(numbers: dict) -> dict:
    return {doc: {kind: dict(ids) for kind, ids in kinds.items()} for doc, kinds in numbers.items()}


def _docs_read(app, env, docnames) -> None:
    """Remember whether this build reads any document (``env-before-read-docs``)."""
    env.selfconf_docs_read = bool(docnames)


def _restore_native(app, env) -> list[str]:
    """Put Sphinx's own figure numbers of the last build back before Sphinx numbers again (``env-get-updated``,
    before its collectors): Sphinx then compares like with like and rewrites only pages whose numbering changed,
    where it would otherwise see the paper numbers :func:`renumber` set and rewrite every numbered page."""
    native = getattr(env, "selfconf_native_fignumbers", None)
    if native is not None:
        env.toc_fignumbers = _copy_numbers(native)
    return []


class ChartDirective(Directive):
    """``selfconf-chart``: one chart (raw HTML content) as a numbered figure with a caption.

    Options: ``:name:`` (the label, default :func:`chart_label` of the caption) and ``:caption:``
    (required: every chart of the book is captioned).
    """

    has_content = True
    option_spec = {"name": directives.unchanged, "caption": directives.unchanged_required}

    def run(self):
        caption = " ".join((self.options.get("caption") or "").split())
        if not caption:
            raise self.error("selfconf-chart: a :caption: is required (every chart is numbered and captioned)")
        label = self.options.get("name") or chart_label(caption)
        fig = nodes.figure(classes=["selfconf-chart"])
        fig += nodes.raw("", "\n".join(self.content), format="html")
        fig += nodes.caption(caption, caption)
        self.options["name"] = label
        self.add_name(fig)  # registers the label (docutils makes the same id from it)
        return [fig]


#: A mention of a numbered paper object in running text: "Table 1", "Figure 1", "Tables 1–4", "Tables 2 and 3".
MENTION = re.compile(r"(?<![\w-])(Tables?|Figures?)\s+(\d+)(?:(\s*(?:–|-|to|and|,)\s*)(\d+))?(?![\w])")
_SKIP = (
    nodes.literal,
    nodes.literal_block,
    nodes.raw,
    nodes.reference,
    nodes.FixedTextElement,
    nodes.comment,
    nodes.target,
)


def _xref(label: str, text: str, docname: str):
    from sphinx import addnodes

    ref = addnodes.pending_xref(
        "", refdomain="std", reftype="numref", reftarget=label, refexplicit=True, refwarn=True, refdoc=docname
    )
    ref += nodes.inline(text, text, classes=["xref", "std", "std-numref"])
    return ref


def mention_nodes(text: str, docname: str = "") -> list | None:
    """Split ``text`` into Text nodes and ``numref`` links for every mention of a paper object.

    Returns ``None`` when ``text`` mentions none.  "Table 3" becomes a link to ``tab-table3-ladder``
    reading "Table 3"; in "Tables 1–4" both numbers link.  Numbers the paper does not give (a "Table 7")
    stay plain text.  Example: ``mention_nodes("see Table 1.")`` gives [Text "see ", link "Table 1", Text "."].
    """
    out, pos, hit = [], 0, False
    for m in MENTION.finditer(text):
        kind = "table" if m.group(1).startswith("Table") else "figure"
        labels = {n: label for label, n in PAPER_NUMBERS[kind].items()}
        first, second = int(m.group(2)), m.group(4)
        if first not in labels:
            continue
        hit = True
        out.append(nodes.Text(text[pos : m.start()]))
        word = m.group(1)
        out.append(_xref(labels[first], word + " {number}", docname))
        if second is not None and int(second) in labels:
            out.append(nodes.Text(m.group(3)))
            out.append(_xref(labels[int(second)], "{number}", docname))
        elif second is not None:
            out.append(nodes.Text(m.group(3) + second))
        pos = m.end()
    if not hit:
        return None
    out.append(nodes.Text(text[pos:]))
    return [n for n in out if not (isinstance(n, nodes.Text) and not n.astext())]


def _link_mentions(app, doctree) -> None:  # doctree-read
    """Turn every running-text mention of the paper's numbered objects into a cross-reference.

    Section headings, code, raw HTML and existing links are left alone (table and figure captions are linked).
    Only in a book that contains the paper's result pages (a small test project has no targets to link to).
    """
    if not any(d.endswith("04_result1") for d in app.env.found_docs):
        return
    for text in list(doctree.findall(nodes.Text)):
        parent = text.parent
        if parent is None or any(isinstance(a, _SKIP) for a in _ancestors(text)):
            continue
        if any(isinstance(a, nodes.title) and isinstance(a.parent, nodes.section) for a in _ancestors(text)):
            continue  # a section heading: its text is reused by the sidebar and the page's table of contents
        new = mention_nodes(text.astext(), app.env.docname)
        if new:
            parent.replace(text, new)


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def _substitutions(app, config) -> None:  # config-inited

    subs = dict(config.myst_substitutions or {}) if hasattr(config, "myst_substitutions") else {}
    url = (config.html_theme_options or {}).get("repository_url") or ""
    subs.setdefault("book_version", __version__)
    subs.setdefault("repository_url", url)
    subs.setdefault("repository_link", f"<{url}>" if url else "the project's repository")
    subs.setdefault("pdf_name", PDF_NAME)
    config.myst_substitutions = subs


def _pdf_footer(app, pagename, templatename, context, doctree) -> None:  # html-page-context
    pathto = context.get("pathto")
    if pathto is None or "theme_extra_footer" not in context:
        return
    href = pathto(PDF_NAME, 1)
    link = f'<a class="selfconf-pdf-link" href="{href}" download>Download the whole book as PDF</a>.'
    if "selfconf-pdf-link" not in (context["theme_extra_footer"] or ""):
        context["theme_extra_footer"] = (context["theme_extra_footer"] or "") + " " + link


def setup(app) -> dict:
    """Sphinx entry point (see the module docstring)."""
    app.add_directive("selfconf-chart", ChartDirective)
    app.connect("config-inited", _substitutions)
    app.connect("env-before-read-docs", _docs_read)
    app.connect("env-get-updated", _restore_native, priority=100)
    app.connect("env-get-updated", renumber, priority=900)
    app.connect("doctree-read", _link_mentions)
    app.connect("html-page-context", _pdf_footer)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
