"""The whole book as one PDF, typeset by LaTeX (Jupyter Book's LaTeX builder, xelatex through latexmk).

Usage::

    python -m selfconf.book.pdf            # the built book -> _build/pdf/selfconf-book.pdf (+ a copy in _build/html/)
    make pdf                               # the same, after building the book and installing TeX Live if missing
    python -m selfconf.book.pdf --browser  # the older browser print of the HTML pages (headless Chromium)

**The LaTeX route (the default, and the PDF that ``make pdf`` writes).**  :func:`typeset_book` runs
``jupyter-book build . --builder latex`` on the executed notebooks (nothing is executed again), so the PDF shows
the same glued values as the pages; the book's own Sphinx extension for paper, :mod:`selfconf.book.latex`, draws
the charts as vector PDF, keeps every link inside the document (web addresses print as text; DOIs stay links),
sets wide tables at 8 pt or on landscape pages, and :mod:`selfconf.book.provenance` gives every number that
differs from the paper's print a footnote with that print and a link to its audit row.  :func:`paper_numbering`
then numbers the chapters as the paper numbers its sections (the Abstract and the book's own pages among them
unnumbered, Introduction 1 ... Conclusion 9; the appendices lettered A, B, and the chapters beyond the paper
after them, C onwards), and latexmk runs xelatex to a fixed point.  TeX comes from Debian's TeX Live packages
(``scripts/install_tex.sh``, which ``make pdf`` runs); without it this command stops with a message saying so.
It needs no network.

**The browser route (``--browser``).**  Each page of ``_build/html`` is served from 127.0.0.1 (no other host is
reachable: requests elsewhere are aborted), loaded in the system Chromium (Debian's ``/usr/bin/chromium``, installed by
``scripts/install_browser.sh``; no browser is downloaded), given time to draw its charts (the SVG that
vega-embed draws is what gets printed: a static rendering of each chart), and printed with the print
stylesheet (chart controls and page chrome left out).  The page PDFs are concatenated with pypdf in the
order of ``_toc.yml``, with one bookmark per page.  The copy in ``_build/html/`` is the file every page's
footer offers for download.

Links: no link of the PDF points at the print server.  Before a page is printed, every id that another page
links to gets a hidden same-page link, so Chromium writes a named destination for it; after concatenation each
link to a page of the book becomes a jump inside the PDF (to the anchor, else to the page's first PDF page),
and a link to any other file of the site (a CSV download, the search page) goes to the published site
(:func:`site_url`).  External links keep their public URL.

Layout for paper: the viewport is the printable width of an A4 page (186 mm = 703 CSS px), so what is
measured is what is printed; a table still wider than the text column is scaled down as a whole
(``zoom``, never below :data:`MIN_TABLE_ZOOM`, then its columns wrap), so every column reaches the page.
The provenance legend is printed once, open, at the front (on the first page); interactive toggles are
left out by the print stylesheet.

Reference: Chrome DevTools Protocol ``Page.printToPDF`` (through Playwright's ``page.pdf``); pypdf
``PdfWriter``.

Example: ``python -m selfconf.book.pdf --html _build/html --out out/book.pdf`` prints a built site elsewhere.
"""

from __future__ import annotations

import argparse
import functools
import html as _html
import http.server
import os
import posixpath
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

from selfconf.data.paths import book_file, project_root

__all__ = [
    "CHROMIUM",
    "TEX_TOOLS",
    "toc_order",
    "site_url",
    "link_targets",
    "print_book",
    "missing_tex",
    "paper_numbering",
    "typeset_book",
    "main",
]

CHROMIUM = os.environ.get("SELFCONF_CHROMIUM", "/usr/bin/chromium")
PDF_NAME = "selfconf-book.pdf"
#: The printable width of an A4 page with 12 mm side margins, in CSS px (186 mm at 96 px per inch).
PRINT_WIDTH_PX = 703
#: A wide table is scaled down at most this far; beyond it its columns wrap (7 pt x 0.6 is about 4 pt).
MIN_TABLE_ZOOM = 0.6
# run in the page before printing: hidden same-page links (named destinations), wide tables fitted, the
# legend opened once on the first page; returns how many tables were scaled
_PREPARE = """([ids, legend, minZoom]) => {
  const box = document.createElement('div');
  box.style.display = 'none';
  box.className = 'selfconf-pdf-dests';
  for (const id of ids) {
    if (!document.getElementById(id)) continue;
    const a = document.createElement('a'); a.href = '#' + id; box.appendChild(a);
  }
  document.body.appendChild(box);
  for (const d of document.querySelectorAll('.selfconf-legend')) d.classList.add('selfconf-legend-page');
  if (legend) {
    const host = document.querySelector('main article') || document.querySelector('main') || document.body;
    const t = document.createElement('template'); t.innerHTML = legend;
    const el = t.content.firstElementChild; el.setAttribute('open', ''); el.classList.add('selfconf-legend-front');
    const h1 = host.querySelector('h1');
    if (h1 && h1.parentElement) h1.parentElement.insertBefore(el, h1.nextSibling); else host.prepend(el);
  }
  let scaled = 0;
  for (const t of document.querySelectorAll('main table')) {
    const host = t.closest('article') || document.querySelector('main');
    const avail = host ? host.clientWidth : window.innerWidth;
    const need = t.scrollWidth;
    if (need > avail + 1) { t.style.zoom = Math.max(minZoom, avail / need).toFixed(3); scaled += 1; }
  }
  return scaled;
}"""
_READY = (
    "() => Array.from(document.querySelectorAll('div.selfconf-vega')).every(d =>\n"
    "  (!d.dataset.fitting && d.querySelector('svg') && d.querySelector('svg g[class*=\"mark-\"] > *'))"
    " || /could not be drawn/.test(d.textContent))"
)


def toc_order(root: Path | None = None) -> list[str]:
    """Pages of ``_toc.yml`` in reading order, as paths relative to the HTML root (``book/04_result1.html``)."""
    root = root or project_root()
    toc = book_file("_toc.yml", root)
    out: list[str] = [f"{toc['root']}.html"]

    def walk(node) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("file"), str):
                out.append(f"{Path(node['file']).with_suffix('')}.html")
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk({k: v for k, v in toc.items() if k != "root"})
    return out


def site_url(root: Path | None = None) -> str:
    """The published site's address, ending in ``/``: where a PDF link to a file of the site goes.

    Definition: ``sphinx.config.html_baseurl`` of ``_config.yml`` when set; otherwise the GitHub Pages address
    of ``repository.url`` (``https://github.com/OWNER/NAME`` -> ``https://OWNER.github.io/NAME/``), the site
    the publishing workflow deploys.

    Reference: GitHub Pages documentation, "About GitHub Pages" (project sites).

    >>> site_url()  # doctest: +SKIP
    'https://selfconf-book.github.io/selfconf-book/'
    """
    cfg = book_file("_config.yml", root or project_root(), missing_ok=True)
    base = ((cfg.get("sphinx") or {}).get("config") or {}).get("html_baseurl")
    if base:
        return base.rstrip("/") + "/"
    m = re.match(r"https?://github\.com/([^/]+)/([^/#?]+)", (cfg.get("repository") or {}).get("url", ""))
    if not m:
        raise SystemExit("_config.yml: repository.url is not a GitHub address; set sphinx.config.html_baseurl")
    return f"https://{m.group(1).lower()}.github.io/{m.group(2).removesuffix('.git')}/"


_HREF = re.compile(r'\bhref="([^"]+)"')


def link_targets(html: Path, pages: list[str]) -> dict[str, set[str]]:
    """``{page: ids}``: the fragments that any page of ``pages`` links to, per target page (relative paths).

    These ids get a named destination in the printed page, so a link from another page can jump to them.

    Example: ``link_targets(Path("_build/html"), ["book/04_result1.html"])["book/14_audit.html"]`` holds
    ``"claim-t1_google_n"``.
    """
    out: dict[str, set[str]] = {}
    for rel in pages:
        text = (html / rel).read_text(encoding="utf-8", errors="replace")
        for href in _HREF.findall(text):
            href = _html.unescape(href)
            u = urlparse(href)
            if u.scheme or u.netloc or not u.fragment:
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(u.path))) if u.path else rel
            out.setdefault(target, set()).add(unquote(u.fragment))
    return out


def _relink(
    writer,
    starts: dict[str, int],
    dests: dict[tuple[str, str], tuple[int, float, float]],
    part_of: list[str],
    base: str,
    site: str,
) -> dict[str, int]:
    """Point every link annotation of ``writer`` inside the PDF or at a public address; return counts."""
    from pypdf.generic import ArrayObject, FloatObject, NameObject, NumberObject

    origin = urlparse(base).netloc
    counts = {"internal": 0, "site": 0, "external": 0, "dropped": 0}

    def goto(annot, page: int, left: float | None, top: float | None) -> None:
        ref = writer.pages[page].indirect_reference
        if top is None:
            dest = ArrayObject([ref, NameObject("/Fit")])
        else:
            dest = ArrayObject([ref, NameObject("/XYZ"), FloatObject(left or 0), FloatObject(top), NumberObject(0)])
        if "/A" in annot:
            del annot["/A"]
        annot[NameObject("/Dest")] = dest
        counts["internal"] += 1

    for i, page in enumerate(writer.pages):
        here = part_of[i]
        annots = page.get("/Annots")
        if not annots:
            continue
        keep = []
        for ref in annots.get_object():
            annot = ref.get_object()
            if annot.get("/Subtype") != "/Link":
                keep.append(ref)
                continue
            named = annot.get("/Dest")
            if isinstance(named, str) or (named is not None and not isinstance(named, (list, ArrayObject))):
                hit = dests.get((here, str(named).lstrip("/")))
                if hit:
                    goto(annot, *hit)
                    keep.append(ref)
                else:
                    counts["dropped"] += 1
                continue
            action = annot.get("/A")
            uri = str(action.get_object().get("/URI", "")) if action is not None else ""
            u = urlparse(uri)
            if not uri or u.netloc != origin:
                if uri:
                    counts["external"] += 1
                keep.append(ref)
                continue
            rel = unquote(u.path).lstrip("/") or "index.html"
            frag = unquote(u.fragment)
            if rel in starts:
                hit = dests.get((rel, frag)) if frag else None
                goto(annot, *(hit or (starts[rel], None, None)))
            else:  # a file of the site that is not a page of the PDF: the published copy
                action.get_object()[NameObject("/URI")] = type(action.get_object()["/URI"])(
                    urljoin(site, rel) + (f"#{u.fragment}" if u.fragment else "")
                )
                counts["site"] += 1
            keep.append(ref)
        page[NameObject("/Annots")] = ArrayObject(keep)
    return counts


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def print_book(html: Path, out: Path, timeout_ms: int = 20_000) -> tuple[Path, int]:
    """Print every page of the built site ``html`` into ``out``; return (path, number of PDF pages).

    Raises ``SystemExit`` with a plain message when the site is not built, a page of the table of
    contents is missing, or Chromium / Playwright are not installed.

    Steps: :func:`_check_printable` and :func:`_playwright` (the plain messages), :func:`_serve` (the site on
    a local port), then per page :func:`_print_page` (Chromium prints it) and :func:`_append_part` (its PDF
    joins the book), and :func:`_relink` (links inside the PDF or to the published site).
    """
    from pypdf import PdfReader, PdfWriter

    pages = toc_order()
    _check_printable(html, pages)
    sync_playwright = _playwright()

    from selfconf.book.provenance import legend_html

    targets = link_targets(html, pages)
    site = site_url()
    server, base = _serve(html)
    writer = PdfWriter()
    starts: dict[str, int] = {}
    dests: dict[tuple[str, str], tuple[int, float, float]] = {}
    part_of: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="selfconf-pdf-") as tmp, sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM,
                headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            try:
                page = _local_page(browser, base)
                for i, rel in enumerate(pages):
                    part = Path(tmp) / f"{i:03d}.pdf"
                    ids = sorted(targets.get(rel, ()))
                    _print_page(page, base + rel, part, ids, legend_html() if i == 0 else "", timeout_ms)
                    _append_part(writer, part, rel, starts, dests, part_of)
                    title = (page.title() or rel).split("—")[0].split(" – ")[0].strip()
                    writer.add_outline_item(title=title, page_number=starts[rel])
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()
    counts = _relink(writer, starts, dests, part_of, base, site)
    if counts["dropped"]:
        print(f"{counts['dropped']} same-page links without a target were left out")
    writer.add_metadata({"/Title": "Self-confidence in LLM evaluation, recomputed", "/Creator": "selfconf.book.pdf"})
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as f:
        writer.write(f)
    return out, len(PdfReader(str(out)).pages)


def _check_printable(html: Path, pages: list[str]) -> None:
    """Raise ``SystemExit`` with a plain message when the site ``html`` lacks a page of ``pages`` (or its
    ``index.html``) or Chromium is not at :data:`CHROMIUM`.

    Example: ``_check_printable(Path("nowhere"), ["index.html"])`` exits with "nowhere: the book is not built
    (missing index.html); run make book".
    """
    missing = [p for p in pages if not (html / p).is_file()]
    if not (html / "index.html").is_file() or missing:
        raise SystemExit(
            f"{html}: the book is not built (missing {', '.join(missing[:3]) or 'index.html'}); run make book"
        )
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        raise SystemExit(
            f"Chromium not found at {CHROMIUM}: run `bash scripts/install_browser.sh` or set SELFCONF_CHROMIUM"
        )


def _playwright():
    """Playwright's ``sync_playwright``, or ``SystemExit`` naming the requirements file when it is missing."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit("the Python package playwright is missing: pip install -r requirements.txt") from None
    return sync_playwright


def _serve(html: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve the folder ``html`` on a free local port from a daemon thread; return the server and its address
    (``http://127.0.0.1:<port>/``).  The caller shuts it down."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(html)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _local_page(browser, base: str):
    """A page of ``browser`` as wide as the printed column that loads only from ``base``'s host (and ``data:`` or
    ``blob:`` addresses): every other request is aborted, so printing never touches the network."""
    page = browser.new_page(viewport={"width": PRINT_WIDTH_PX, "height": 1000})
    origin = urlparse(base).netloc
    page.route(
        "**/*",
        lambda r: (
            r.continue_()
            if urlparse(r.request.url).netloc == origin or r.request.url.startswith(("data:", "blob:"))
            else r.abort("blockedbyclient")
        ),
    )
    return page


def _print_page(page, url: str, part: Path, ids: list[str], legend: str, timeout_ms: int) -> None:
    """Load ``url`` in ``page``, wait up to ``timeout_ms`` for its charts (:data:`_READY`), prepare it for print
    (:data:`_PREPARE`: hidden links to ``ids``, the ``legend`` on the first page, wide tables fitted) and print
    it to ``part`` (A4, backgrounds printed); the page is left in screen media."""
    page.goto(url, wait_until="load")
    try:
        page.wait_for_function(_READY, timeout=timeout_ms)
    except Exception:  # noqa: BLE001 - a chart that never draws still prints its message
        pass
    page.emulate_media(media="print")
    page.evaluate(_PREPARE, [ids, legend, MIN_TABLE_ZOOM])
    page.pdf(
        path=str(part),
        format="A4",
        print_background=True,
        margin={"top": "14mm", "bottom": "14mm", "left": "12mm", "right": "12mm"},
    )
    page.emulate_media(media="screen")


def _append_part(
    writer,
    part: Path,
    rel: str,
    starts: dict[str, int],
    dests: dict[tuple[str, str], tuple[int, float, float]],
    part_of: list[str],
) -> None:
    """Append the printed page ``part`` (site page ``rel``) to ``writer``, recording where it starts
    (``starts[rel]``), each of its named destinations at its page of the book (``dests[(rel, name)]`` =
    (page, left, top)) and the site page of each new PDF page (``part_of``)."""
    from pypdf import PdfReader

    start = len(writer.pages)
    starts[rel] = start
    reader = PdfReader(str(part))
    for name, dest in reader.named_destinations.items():
        n = reader.get_destination_page_number(dest)
        if n is None:
            continue
        left, top = dest.get("/Left"), dest.get("/Top")
        dests[(rel, str(name).lstrip("/"))] = (start + n, float(left or 0), float(top or 0))
    writer.append(reader, import_outline=False)
    part_of.extend([rel] * len(reader.pages))


#: The programs the LaTeX route runs (Debian packages ``latexmk`` and ``texlive-xetex``).
TEX_TOOLS = ("latexmk", "xelatex")
#: LaTeX packages the book needs beyond TeX Live's base (a missing one names the Debian package to install).
TEX_PACKAGES = {"pdflscape.sty": "texlive-latex-extra", "tabulary.sty": "texlive-latex-extra", "FreeSerif.otf": ""}


def missing_tex() -> list[str]:
    """The TeX programs and files the LaTeX route needs that this machine lacks (empty when it can typeset).

    Example: ``missing_tex()`` is ``[]`` after ``scripts/install_tex.sh``; ``["latexmk", "xelatex"]`` without TeX.
    """
    missing = [t for t in TEX_TOOLS if shutil.which(t) is None]
    if missing or shutil.which("kpsewhich") is None:
        return missing or ["kpsewhich"]
    import subprocess

    for f in ("pdflscape.sty", "tabulary.sty", "fncychap.sty", "FreeSerif.otf"):
        r = subprocess.run(["kpsewhich", f], capture_output=True, text=True, check=False)
        if not r.stdout.strip():
            missing.append(f)
    return missing


#: A chapter heading of Sphinx's LaTeX and the label of the document it starts.
_CHAPTER = re.compile(r"^\\chapter\{(?P<title>.*)\}\n\\label\{\\detokenize\{(?P<doc>[^:}]+):", re.M)


_SECTION = re.compile(r"^\\(?P<kind>section|subsection|subsubsection)\{(?P<title>.*)\}$", re.M)


def _unnumbered(m: re.Match) -> str:
    kind, title = m.group("kind"), m.group("title")
    return f"\\{kind}*{{{title}}}\\addcontentsline{{toc}}{{{kind}}}{{{title}}}"


def paper_numbering(tex: str, paper_docs: dict[str, str]) -> str:
    r"""Number the chapters of the book's LaTeX as the paper numbers its sections.

    Definition: in the first part (the paper), a chapter whose document is a paper section of ``paper_docs``
    (``{section: docname}``, in the paper's order) keeps its number, so Introduction is 1 and Conclusion 9; the
    Abstract and any page of the book's own (not a section of the paper) become unnumbered chapters, still in
    the contents.  ``\appendix`` goes before the second part, so the appendices are lettered A, B (their
    titles' own "Appendix A: " prefix is dropped when it names the same letter) and the chapters beyond the paper
    follow as C, D, ...  Raises ``ValueError`` when a paper section's chapter is missing or out of order.

    >>> tex = "\\part{P}\n\\chapter{Abstract}\n\\label{\\detokenize{a:x}}\n"
    >>> tex += "\\chapter{Intro}\n\\label{\\detokenize{i:x}}\n"
    >>> tex += "\\chapter{Extra}\n\\label{\\detokenize{e:x}}\n\\section{S}\n\\part{Q}\n\\chapter{Appendix A: diag}\n"
    >>> tex += "\\label{\\detokenize{d:x}}\n"
    >>> print(paper_numbering(tex, {"abstract": "a", "introduction": "i", "diagnostic-appendix": "d"}))
    \part{P}
    \chapter*{Abstract}\addcontentsline{toc}{chapter}{Abstract}\markboth{Abstract}{Abstract}
    \label{\detokenize{a:x}}
    \chapter{Intro}
    \label{\detokenize{i:x}}
    \chapter*{Extra}\addcontentsline{toc}{chapter}{Extra}\markboth{Extra}{Extra}
    \label{\detokenize{e:x}}
    \section*{S}\addcontentsline{toc}{section}{S}
    \appendix
    \part{Q}
    \chapter{diag}
    \label{\detokenize{d:x}}
    <BLANKLINE>
    """
    parts = [m.start() for m in re.finditer(r"^\\part\{", tex, re.M)]
    if len(parts) < 2:
        raise ValueError("the book's LaTeX has fewer than two parts (the paper, then the appendices)")
    paper_end = parts[1]
    found = [m.group("doc") for m in _CHAPTER.finditer(tex)]
    if missing := [d for d in paper_docs.values() if d not in found]:
        raise ValueError(f"paper sections without a chapter in the book's LaTeX: {missing}")
    order = list(paper_docs.values())
    if [d for d in found if d in order] != order:
        raise ValueError(f"the paper's sections are out of the paper's order in the PDF: {found}")
    numbered = {d for k, d in paper_docs.items() if k != "abstract"}
    letter = [0]

    def chapter(m: re.Match) -> str:
        title, doc = m.group("title"), m.group("doc")
        label = m.group(0)[len(f"\\chapter{{{title}}}") :]
        if m.start() < paper_end:
            if doc in numbered:
                return m.group(0)
            return (
                f"\\chapter*{{{title}}}\\addcontentsline{{toc}}{{chapter}}{{{title}}}\\markboth{{{title}}}{{{title}}}"
                + label
            )
        own = chr(ord("A") + letter[0])
        letter[0] += 1
        title = re.sub(rf"^Appendix {own}:\s*", "", title)
        return f"\\chapter{{{title}}}" + label

    out = _CHAPTER.sub(chapter, tex)
    # the sections of an unnumbered chapter are unnumbered too (else they would continue the chapter before)
    heads = [m.start() for m in re.finditer(r"^\\(chapter\*?|part)\{", out, re.M)] + [len(out)]
    pieces, last = [], 0
    for a, b in zip(heads, heads[1:], strict=False):
        if out.startswith("\\chapter*", a):
            pieces.append(out[last:a])
            pieces.append(_SECTION.sub(_unnumbered, out[a:b]))
            last = b
    out = "".join(pieces) + out[last:]
    cut = [m.start() for m in re.finditer(r"^\\part\{", out, re.M)][1]
    return out[:cut] + "\\appendix\n" + out[cut:]


def typeset_book(root: Path, out: Path) -> tuple[Path, int]:
    """The LaTeX route: Sphinx's LaTeX of the built book, :func:`paper_numbering`, latexmk; return (path, pages).

    Raises ``SystemExit`` with a plain message when TeX is missing (:func:`missing_tex`), the notebooks are not
    executed, or a step fails (the step's last output lines are shown).
    """
    import subprocess

    from pypdf import PdfReader

    from selfconf.book.seedstudy import SECTION_PAGES

    if lacking := missing_tex():
        raise SystemExit(
            "make pdf: TeX is not installed (missing: " + ", ".join(lacking) + "). Install Debian's TeX Live "
            "packages with `bash scripts/install_tex.sh` (what `make pdf` runs), or print the HTML pages "
            "instead with `python -m selfconf.book.pdf --browser`."
        )
    if not (root / "book" / "04_result1.ipynb").is_file():
        raise SystemExit("make pdf: the notebooks are not executed; run `make book` first")
    latex = root / "_build" / "latex"
    jb = Path(sys.executable).with_name("jupyter-book")
    r = subprocess.run([str(jb), "build", ".", "--builder", "latex", "-n"], cwd=root, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"make pdf: jupyter-book's LaTeX build failed:\n{(r.stdout + r.stderr)[-3000:]}")
    tex = latex / "selfconf-book.tex"
    docs = {k: f"book/{v}" for k, v in SECTION_PAGES.items()}
    tex.write_text(paper_numbering(tex.read_text(encoding="utf-8"), docs), encoding="utf-8")
    for ext in (".aux", ".toc", ".out"):  # a stopped run's can be truncated
        (latex / f"selfconf-book{ext}").unlink(missing_ok=True)
    r = subprocess.run(
        ["make", "-C", str(latex), "all-pdf", "LATEXMKOPTS=-silent -interaction=nonstopmode -halt-on-error"],
        capture_output=True,
        text=True,
    )
    pdf = latex / "selfconf-book.pdf"
    if r.returncode != 0 or not pdf.is_file():
        log = latex / "selfconf-book.log"
        errors = (
            [ln for ln in log.read_text(errors="replace").splitlines() if ln.startswith("!")] if log.is_file() else []
        )
        raise SystemExit(
            "make pdf: latexmk failed ("
            + (errors[0] if errors else f"exit {r.returncode}")
            + f"); see {log}\n"
            + (r.stdout + r.stderr)[-2000:]
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pdf, out)
    return out, len(PdfReader(str(out)).pages)


def main(argv: list[str] | None = None) -> int:
    root = project_root()
    ap = argparse.ArgumentParser(prog="python -m selfconf.book.pdf", description=__doc__.split("\n")[0])
    ap.add_argument("--html", default=str(root / "_build" / "html"), help="built site (default: _build/html)")
    ap.add_argument("--out", default=str(root / "_build" / "pdf" / PDF_NAME), help="PDF to write")
    ap.add_argument("--no-copy", action="store_true", help="do not copy the PDF into the site root")
    ap.add_argument("--browser", action="store_true", help="print the HTML pages with Chromium instead of LaTeX")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    html = Path(a.html)
    if a.browser:
        out, n = print_book(html, Path(a.out))
    else:
        out, n = typeset_book(root, Path(a.out))
    if not a.no_copy:
        shutil.copyfile(out, html / PDF_NAME)
    print(f"wrote {out} ({n} pages, {out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
