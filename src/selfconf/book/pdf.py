"""The whole book as one PDF: headless Chromium prints every built page, in reading order, into one file.

Usage::

    python -m selfconf.book.pdf            # _build/html -> _build/pdf/selfconf-book.pdf (+ a copy in _build/html/)
    make pdf                          # the same, after building the book

Each page of ``_build/html`` is served from 127.0.0.1 (no other host is reachable: requests elsewhere are
aborted), loaded in the system Chromium (Debian's ``/usr/bin/chromium``, installed by
``scripts/install_browser.sh``; no browser is downloaded), given time to draw its charts (the SVG that
vega-embed draws is what gets printed: a static rendering of each chart), and printed with the print
stylesheet (chart controls and page chrome left out).  The page PDFs are concatenated with pypdf in the
order of ``_toc.yml``, with one bookmark per page.  The copy in ``_build/html/`` is the file every page's
footer offers for download.

Reference: Chrome DevTools Protocol ``Page.printToPDF`` (through Playwright's ``page.pdf``); pypdf
``PdfWriter``.

Example: ``python -m selfconf.book.pdf --html _build/html --out out/book.pdf`` prints a built site elsewhere.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

from selfconf.data.paths import book_file, project_root

__all__ = ["CHROMIUM", "toc_order", "print_book", "main"]

CHROMIUM = os.environ.get("SELFCONF_CHROMIUM", "/usr/bin/chromium")
PDF_NAME = "selfconf-book.pdf"
_READY = (
    "() => Array.from(document.querySelectorAll('div.selfconf-vega')).every(d =>\n"
    "  (d.querySelector('svg') && d.querySelector('svg g[class*=\"mark-\"] > *'))"
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


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def print_book(html: Path, out: Path, timeout_ms: int = 20_000) -> tuple[Path, int]:
    """Print every page of the built site ``html`` into ``out``; return (path, number of PDF pages).

    Raises ``SystemExit`` with a plain message when the site is not built, a page of the table of
    contents is missing, or Chromium / Playwright are not installed.
    """
    from pypdf import PdfReader, PdfWriter

    pages = toc_order()
    missing = [p for p in pages if not (html / p).is_file()]
    if not (html / "index.html").is_file() or missing:
        raise SystemExit(
            f"{html}: the book is not built (missing {', '.join(missing[:3]) or 'index.html'}); run make book"
        )
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        raise SystemExit(
            f"Chromium not found at {CHROMIUM}: run `bash scripts/install_browser.sh` or set SELFCONF_CHROMIUM"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit("the Python package playwright is missing: pip install -r requirements.txt") from None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(html)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    writer = PdfWriter()
    try:
        with tempfile.TemporaryDirectory(prefix="selfconf-pdf-") as tmp, sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM,
                headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            try:
                page = browser.new_page(viewport={"width": 1000, "height": 1400})
                origin = urlparse(base).netloc
                page.route(
                    "**/*",
                    lambda r: (
                        r.continue_()
                        if urlparse(r.request.url).netloc == origin or r.request.url.startswith(("data:", "blob:"))
                        else r.abort("blockedbyclient")
                    ),
                )
                for i, rel in enumerate(pages):
                    page.goto(base + rel, wait_until="load")
                    try:
                        page.wait_for_function(_READY, timeout=timeout_ms)
                    except Exception:  # noqa: BLE001 - a chart that never draws still prints its message
                        pass
                    page.emulate_media(media="print")
                    part = Path(tmp) / f"{i:03d}.pdf"
                    page.pdf(
                        path=str(part),
                        format="A4",
                        print_background=True,
                        margin={"top": "14mm", "bottom": "14mm", "left": "12mm", "right": "12mm"},
                    )
                    page.emulate_media(media="screen")
                    start = len(writer.pages)
                    writer.append(str(part))
                    title = (page.title() or rel).split("—")[0].split(" – ")[0].strip()
                    writer.add_outline_item(title=title, page_number=start)
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()
    writer.add_metadata({"/Title": "Self-confidence in LLM evaluation, recomputed", "/Creator": "selfconf.book.pdf"})
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as f:
        writer.write(f)
    return out, len(PdfReader(str(out)).pages)


def main(argv: list[str] | None = None) -> int:
    root = project_root()
    ap = argparse.ArgumentParser(prog="python -m selfconf.book.pdf", description=__doc__.split("\n")[0])
    ap.add_argument("--html", default=str(root / "_build" / "html"), help="built site (default: _build/html)")
    ap.add_argument("--out", default=str(root / "_build" / "pdf" / PDF_NAME), help="PDF to write")
    ap.add_argument("--no-copy", action="store_true", help="do not copy the PDF into the site root")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    html = Path(a.html)
    out, n = print_book(html, Path(a.out))
    if not a.no_copy:
        shutil.copyfile(out, html / PDF_NAME)
    print(f"wrote {out} ({n} pages, {out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
