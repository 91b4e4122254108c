"""The built book in a real browser: every page offline, every chart drawn, every link and control live.

Headless Chromium (Debian's ``/usr/bin/chromium``, installed by ``scripts/install_browser.sh``),
driven by Playwright, loads every page of ``_build/html`` from a local HTTP server on 127.0.0.1.
Every request to any other address is aborted and recorded.  Per page the crawl records:

* requests that left 127.0.0.1 (there must be none: the book carries its own Vega and MathJax);
* console errors, uncaught page errors and failed local requests (404s);
* each chart (``div.selfconf-vega``, written by :mod:`selfconf.book.vega`): whether it holds an ``svg``
  with drawn marks;
* each internal link: the target file exists and, for ``#anchor`` links, holds that id;
* each interactive control of each chart (range sliders, radio buttons, selects, checkboxes): whether
  changing it changes the chart's SVG.

The crawl runs once per session; the tests below then assert on its record.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("SELFCONF_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHART_TIMEOUT_MS = 20_000

# JavaScript run in the page ---------------------------------------------------------------

JS_CHARTS = """() => Array.from(document.querySelectorAll('div.selfconf-vega')).map(d => {
  const svg = d.querySelector('svg');
  const marks = svg ? Array.from(svg.querySelectorAll('g[class*="mark-"]'))
      .filter(g => !/mark-group/.test(g.getAttribute('class'))) : [];
  const drawn = marks.reduce((n, g) => n + g.children.length, 0);
  const canvas = d.querySelector('canvas');
  return {id: d.id, svg: !!svg, canvas: !!canvas, mark_groups: marks.length, marks: drawn,
          text: d.textContent.slice(0, 200)};
})"""

JS_CHARTS_READY = """() => Array.from(document.querySelectorAll('div.selfconf-vega')).every(d =>
  d.querySelector('canvas') || (d.querySelector('svg') && d.querySelector('svg g[class*="mark-"] > *'))
  || /could not be drawn/.test(d.textContent))"""

JS_LINKS = """() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"""

JS_CONTROLS = """(id) => {
  const root = document.getElementById(id).closest('.vega-embed') || document.getElementById(id);
  return Array.from(root.querySelectorAll('.vega-bindings input, .vega-bindings select')).map((el, i) => ({
    index: i, tag: el.tagName.toLowerCase(), type: el.type || '', name: el.name || '',
    value: el.value, checked: !!el.checked}));
}"""

JS_SVG = """(id) => { const s = document.querySelector('#' + CSS.escape(id) + ' svg');
  return s ? s.outerHTML : ''; }"""

# Change control number `index` of chart `id` to another state and fire the events Vega listens to.
JS_CHANGE = """([id, index]) => {
  const root = document.getElementById(id).closest('.vega-embed') || document.getElementById(id);
  const el = root.querySelectorAll('.vega-bindings input, .vega-bindings select')[index];
  const fire = () => { el.dispatchEvent(new Event('input', {bubbles: true}));
                       el.dispatchEvent(new Event('change', {bubbles: true})); };
  if (el.type === 'range') {
    const min = Number(el.min), max = Number(el.max), v = Number(el.value);
    el.value = String(v === max ? min : max); fire(); return 'range ' + v + ' -> ' + el.value;
  }
  if (el.type === 'radio' || el.type === 'checkbox') {
    if (el.type === 'radio' && el.checked) return null;   // already selected: nothing to change
    el.click(); return el.type + ' -> ' + el.value;
  }
  if (el.tagName.toLowerCase() === 'select') {
    el.selectedIndex = (el.selectedIndex + 1) % el.options.length; fire(); return 'select -> ' + el.value;
  }
  el.value = el.value + '1'; fire(); return 'input -> ' + el.value;
}"""


@dataclass
class PageRecord:
    path: str
    external_requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    failed_local: list[str] = field(default_factory=list)
    charts: list[dict] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    controls: list[dict] = field(default_factory=list)
    print_hides_controls: bool | None = None  # None: the page has no chart controls


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep pytest output clean
        pass


@pytest.fixture(scope="session")
def site(request):
    """Serve ``_build/html`` on 127.0.0.1 (ephemeral port); yield ``(base_url, html_dir)``.

    ``SELFCONF_HTML_DIR=<dir>`` serves an already built site instead of building the book.
    """
    override = os.environ.get("SELFCONF_HTML_DIR")
    html = Path(override) if override else Path(request.getfixturevalue("built_book"))
    if not override:
        request.getfixturevalue("built_pdf")  # every page's footer links the PDF, which make pdf writes
    if not (html / "index.html").is_file():
        pytest.fail(f"{html}: no index.html (is the book built?)", pytrace=False)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(html)))
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", html
    finally:
        server.shutdown()
        server.server_close()


def local_tab(browser, origin: str, viewport: dict):
    """A new tab of ``browser`` that loads only from ``origin`` (and data:/blob: URLs); every other request is
    aborted as blocked by the client."""
    page = browser.new_page(viewport=viewport)
    page.route(
        "**/*",
        lambda r: (
            r.continue_()
            if urlparse(r.request.url).netloc == origin or r.request.url.startswith(("data:", "blob:"))
            else r.abort("blockedbyclient")
        ),
    )
    return page


def _require_browser():
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: the browser test needs Debian's chromium. "
            "Install it with `bash scripts/install_browser.sh` (apt-get install chromium chromium-driver), "
            "or point SELFCONF_CHROMIUM at a Chromium binary.",
            pytrace=False,
        )
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        pytest.fail(
            "the Python package playwright is missing: pip install -r requirements.txt "
            "(it drives the system Chromium; no browser is downloaded)",
            pytrace=False,
        )


def html_pages(html: Path) -> list[Path]:
    """Every page of the site (not the theme's or Sphinx's static assets, not the source copies)."""
    skip = {"_static", "_sources", "_images", "_downloads"}
    return sorted(p for p in html.rglob("*.html") if not (set(p.relative_to(html).parts) & skip))


def _exercise_controls(page, chart_id: str) -> list[dict]:
    out = []
    for ctl in page.evaluate(JS_CONTROLS, chart_id):
        before = page.evaluate(JS_SVG, chart_id)
        what = page.evaluate(JS_CHANGE, [chart_id, ctl["index"]])
        if what is None:
            continue
        changed = True
        try:
            page.wait_for_function(
                "([id, before]) => { const s = document.querySelector('#' + CSS.escape(id) + ' svg');"
                " return s && s.outerHTML !== before; }",
                arg=[chart_id, before],
                timeout=5_000,
            )
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: the chart did not change
            changed = False
        out.append(
            {
                "chart": chart_id,
                "control": f"{ctl['type'] or ctl['tag']} {ctl['name']}".strip(),
                "change": what,
                "changed": changed,
            }
        )
    return out


@pytest.fixture(scope="session")
def crawl(site, tmp_path_factory) -> dict[str, PageRecord]:
    """Load every page once in headless Chromium with the network closed; return the records."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    base, html = site
    origin = urlparse(base).netloc
    records: dict[str, PageRecord] = {}
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS,
            service_workers="block",
        )
        try:
            current: list[PageRecord] = []

            def route(r):
                url = r.request.url
                if urlparse(url).netloc == origin or url.startswith(("data:", "blob:")):
                    return r.continue_()
                current[-1].external_requests.append(url)
                return r.abort("blockedbyclient")

            ctx.route("**/*", route)
            page = ctx.new_page()
            page.on("console", lambda m: m.type == "error" and current[-1].console_errors.append(m.text))
            page.on("pageerror", lambda e: current[-1].console_errors.append(f"uncaught: {e}"))
            page.on(
                "response",
                lambda r: (
                    r.status >= 400
                    and urlparse(r.url).netloc == origin
                    and current[-1].failed_local.append(f"{r.status} {r.url}")
                ),
            )
            for p in html_pages(html):
                rel = p.relative_to(html).as_posix()
                rec = PageRecord(rel)
                current.append(rec)
                records[rel] = rec
                page.goto(base + rel, wait_until="load")
                try:
                    page.wait_for_function(JS_CHARTS_READY, timeout=CHART_TIMEOUT_MS)
                except Exception:  # noqa: BLE001 - recorded below as undrawn charts
                    pass
                page.wait_for_load_state("networkidle")
                rec.charts = page.evaluate(JS_CHARTS)
                rec.links = page.evaluate(JS_LINKS)
                for ch in rec.charts:
                    if ch["svg"]:
                        rec.controls += _exercise_controls(page, ch["id"])
                if rec.controls:
                    page.emulate_media(media="print")
                    rec.print_hides_controls = page.evaluate(
                        "() => Array.from(document.querySelectorAll('.selfconf-vega .vega-bindings'))"
                        ".every(b => getComputedStyle(b).display === 'none')"
                    )
                    page.emulate_media(media="screen")
        finally:
            ctx.close()
    return records


# -------------------------------------------------------------------------------- the tests


def test_every_page_loaded(crawl, site):
    _, html = site
    assert set(crawl) == {p.relative_to(html).as_posix() for p in html_pages(html)}
    assert "book/index.html" in crawl or "index.html" in crawl


def test_no_request_leaves_the_machine(crawl):
    bad = {p: r.external_requests for p, r in crawl.items() if r.external_requests}
    assert not bad, "pages requested other hosts (blocked):\n" + "\n".join(
        f"  {p}: {', '.join(sorted(set(u)))}" for p, u in bad.items()
    )


def test_no_console_errors_or_missing_files(crawl):
    bad = {p: r.console_errors + r.failed_local for p, r in crawl.items() if r.console_errors or r.failed_local}
    assert not bad, "console errors / failed local requests:\n" + "\n".join(
        f"  {p}: {' | '.join(e)}" for p, e in bad.items()
    )


def test_every_chart_renders(crawl):
    charts = [(p, c) for p, r in crawl.items() for c in r.charts]
    assert charts, "no chart found on any page (div.selfconf-vega): are notebooks calling selfconf.book.vega.enable()?"
    bad = [
        f"  {p} #{c['id']}: svg={c['svg']} canvas={c['canvas']} marks={c['marks']} {c['text']!r}"
        for p, c in charts
        if not (c["canvas"] or (c["svg"] and c["marks"] > 0))
    ]
    assert not bad, "charts without drawn marks:\n" + "\n".join(bad)


_ids_cache: dict[Path, set[str]] = {}


def _ids(path: Path) -> set[str]:
    if path not in _ids_cache:
        text = path.read_text(encoding="utf-8", errors="replace")
        _ids_cache[path] = set(re.findall(r'\b(?:id|name)\s*=\s*"([^"]+)"', text))
    return _ids_cache[path]


def test_internal_links_and_anchors_resolve(crawl, site):
    base, html = site
    origin = urlparse(base).netloc
    broken = []
    n = 0
    for page, rec in crawl.items():
        for href in rec.links:
            u = urlparse(href)
            if u.scheme not in ("http", "https") or u.netloc != origin:
                continue  # external links are not followed (no network); mailto, javascript: skipped
            n += 1
            url, frag = urldefrag(href)
            rel = unquote(urlparse(url).path).lstrip("/")
            target = html / rel
            if rel == "" or target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"  {page}: {href} (no file {target.relative_to(html)})")
            elif frag and unquote(frag) not in _ids(target):
                broken.append(f"  {page}: {href} (no id {unquote(frag)!r} in {target.relative_to(html)})")
    assert n > 0, "no internal links found"
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(sorted(set(broken)))


def test_every_control_changes_its_chart(crawl):
    controls = [(p, c) for p, r in crawl.items() for c in r.controls]
    assert controls, "no interactive control found (the teaching chapter has sliders)"
    dead = [f"  {p} #{c['chart']}: {c['control']} ({c['change']})" for p, c in controls if not c["changed"]]
    assert not dead, "controls that did not change their chart:\n" + "\n".join(dead)


def test_print_view_leaves_out_the_controls(crawl):
    pages = {p: r.print_hides_controls for p, r in crawl.items() if r.print_hides_controls is not None}
    assert pages, "no page with chart controls"
    assert all(pages.values()), (
        f"print view still shows slider/radio controls on: {[p for p, ok in pages.items() if not ok]}"
    )


def test_executed_notebooks_are_downloadable(crawl, site):
    """Every notebook page links its executed .ipynb (download button), and that file is a notebook with outputs."""
    import json

    base, html = site
    n_pages = 0
    for page, rec in crawl.items():
        nbs = {
            h
            for h in rec.links
            if urlparse(h).netloc == urlparse(base).netloc and "/_sources/" in h and urldefrag(h)[0].endswith(".ipynb")
        }
        for href in nbs:
            n_pages += 1
            f = html / unquote(urlparse(href).path).lstrip("/")
            assert f.is_file(), f"{page}: download link {href} has no file"
            nb = json.loads(f.read_text(encoding="utf-8"))
            assert nb.get("nbformat") == 4, f"{f}: not an nbformat-4 notebook"
            assert any(c.get("outputs") for c in nb["cells"] if c.get("cell_type") == "code"), (
                f"{f}: no outputs (not executed?)"
            )
    assert n_pages > 0, "no page offers its .ipynb for download (html.use_download_button in _config.yml)"


def test_provenance_card_shows_the_paper_print_on_hover_and_focus(site):
    """Hover a number that differs from the paper on the abstract page, with the network blocked, and read
    the paper's printed value from the card; then reach the same number with the keyboard."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    base, html = site
    origin = urlparse(base).netloc
    leaks: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})

            def route(r):
                if urlparse(r.request.url).netloc == origin or r.request.url.startswith(("data:", "blob:")):
                    return r.continue_()
                leaks.append(r.request.url)
                return r.abort("blockedbyclient")

            page.route("**/*", route)
            page.goto(base + "book/00_abstract.html", wait_until="load")
            num = page.locator(".selfconf-num.selfconf-differs[data-claim]").first
            printed = num.get_attribute("data-printed")
            assert printed, "no differing claim on the abstract page"
            # the "≠ paper" mark is in the text; shown loud beyond Monte-Carlo noise, else with "Show every mark"
            assert num.locator(".selfconf-mark").count() == 1, "a differing number carries the ≠ paper mark"
            num.scroll_into_view_if_needed()
            num.hover()
            card = page.locator("#selfconf-card")
            card.wait_for(state="visible", timeout=5000)
            text = card.inner_text()
            assert "Paper prints" in text and printed in text
            assert "Computed in" in text and num.get_attribute("data-claim") not in text, "the card speaks words"
            code = card.locator("dd a").first.get_attribute("href")
            assert code and not urlparse(code).scheme and "#selfconf-cell-" in code, "a local link to the cell"
            href = card.locator('a[href*="14_audit"]').get_attribute("href")
            assert href and href.split("#")[0].endswith("14_audit.html") and "#claim-" in href
            page.keyboard.press("Escape")
            assert not card.is_visible()
            num.focus()  # the keyboard path: a pasted number takes focus and shows the same card
            card.wait_for(state="visible", timeout=5000)
            assert printed in card.inner_text()
        finally:
            browser.close()
    assert not leaks, f"requests left the machine: {leaks}"
