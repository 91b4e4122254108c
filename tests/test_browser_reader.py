"""The book as a reader meets it, in headless Chromium at 1400 x 900, 1280 x 800 and 390 x 844.

At every width: no page scrolls sideways; every chart's smallest rendered text is at least 10 CSS px (the
font size times the SVG's scale on screen); every page that marks numbers shows its legend, open on the reader's
first visit and one closed line after.  At the two desk widths: Tables 1-4 and the audit table show every
column (no sideways scroll in their own box).  At most one tab stop per table.  Same local server and network
block as ``test_browser.py``.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from test_browser import (
    CHART_TIMEOUT_MS,
    CHROMIUM,
    CHROMIUM_FLAGS,
    JS_CHARTS_READY,
    _require_browser,
    html_pages,
    local_tab,
    site,  # noqa: F401 - a pytest fixture
)

pytestmark = pytest.mark.browser
VIEWPORTS = ((1400, 900), (1280, 800), (390, 844))
DESK = (1400, 1280)
#: the paper's tables and the audit table: (page, table id)
WHOLE = {
    "book/04_result1.html": ("tab-table1", "tab-table2"),
    "book/05_result2.html": ("tab-table3-ladder",),
    "book/06_result3.html": ("tab-table4-microprobe",),
    "book/14_audit.html": ("tab-audit",),
}
MIN_TEXT_PX = 10

JS_READER = """([whole, minPx]) => {
  const doc = document.scrollingElement || document.documentElement;
  const clipped = {};
  for (const id of whole) {
    const t = document.getElementById(id);
    if (!t) { clipped[id] = 'missing'; continue; }
    let b = t;
    while (b && b !== document.body && !['auto', 'scroll'].includes(getComputedStyle(b).overflowX)) b = b.parentElement;
    const r = t.getBoundingClientRect();
    const over = b && b !== document.body ? b.scrollWidth - b.clientWidth : 0;
    if (over > 1 || r.right > window.innerWidth + 1) clipped[id] = Math.round(r.width) + ' px, ' + over + ' px hidden';
  }
  const small = [];
  for (const svg of document.querySelectorAll('div.selfconf-vega svg')) {
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const box = t.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      const m = t.getScreenCTM();
      const px = parseFloat(getComputedStyle(t).fontSize) * (m ? Math.hypot(m.a, m.b) : 1);
      if (px < minPx - 0.05)
        small.push(svg.closest('div.selfconf-vega').id + ': ' + px.toFixed(1) + ' px ' + t.textContent.slice(0, 24));
    }
  }
  const marks = document.querySelectorAll('main .selfconf-num:not(.selfconf-legend-sample)').length;
  const legend = document.querySelector('main details.selfconf-legend');
  const legendOpen = !!(legend && legend.open && legend.querySelector('ul').getBoundingClientRect().height > 0);
  const legendLines = legend ? Math.round(legend.querySelector('summary').getBoundingClientRect().height /
    parseFloat(getComputedStyle(legend.querySelector('summary')).lineHeight || '20')) : 0;
  const tableStops = Array.from(document.querySelectorAll('main table')).map(t =>
    t.querySelectorAll('.selfconf-num[tabindex="0"]').length + (t.getAttribute('tabindex') === '0' ? 1 : 0));
  return {scrollWidth: doc.scrollWidth, innerWidth: window.innerWidth, clipped, small: small.slice(0, 6),
          nSmall: small.length, marks, legend: !!legend, legendOpen, legendLines,
          maxTableStops: Math.max(0, ...tableStops)};
}"""


@pytest.fixture(scope="session")
def reader(site):
    _require_browser()
    from playwright.sync_api import sync_playwright

    base, html = site
    origin = urlparse(base).netloc
    out: dict[tuple[int, str], dict] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            for width, height in VIEWPORTS:
                for p in html_pages(html):
                    # a fresh tab per page: a page's chart fitting never delays the next page's load event
                    page = local_tab(browser, origin, {"width": width, "height": height})
                    rel = p.relative_to(html).as_posix()
                    page.goto(base + rel, wait_until="load")
                    try:
                        page.wait_for_function(JS_CHARTS_READY, timeout=CHART_TIMEOUT_MS)
                        page.wait_for_function(
                            "() => !document.querySelector('div.selfconf-vega[data-fitting]')", timeout=CHART_TIMEOUT_MS
                        )
                    except Exception:  # noqa: BLE001 - undrawn charts are test_browser's business
                        pass
                    out[(width, rel)] = page.evaluate(JS_READER, [list(WHOLE.get(rel, ())), MIN_TEXT_PX])
                    page.close()
        finally:
            browser.close()
    return out


def _bad(rec, width, f):
    return [f"  {rel}: {msg}" for (w, rel), r in sorted(rec.items()) if w == width for msg in f(r)]


@pytest.mark.parametrize("width", [w for w, _ in VIEWPORTS])
def test_no_page_scrolls_sideways(reader, width):
    bad = _bad(reader, width, lambda r: [f"{r['scrollWidth']} px"] if r["scrollWidth"] > r["innerWidth"] + 1 else [])
    assert not bad, f"pages wider than the {width} px viewport:\n" + "\n".join(bad)


@pytest.mark.parametrize("width", DESK)
def test_tables_1_to_4_and_the_audit_table_show_every_column(reader, width):
    seen = {rel for (w, rel) in reader if w == width}
    assert set(WHOLE) <= seen
    bad = _bad(reader, width, lambda r: [f"{k}: {v}" for k, v in r["clipped"].items()])
    assert not bad, f"tables cut at {width} px:\n" + "\n".join(bad)


@pytest.mark.parametrize("width", [w for w, _ in VIEWPORTS])
def test_chart_text_is_at_least_10_px(reader, width):
    bad = _bad(reader, width, lambda r: r["small"] + ([f"... {r['nSmall']} texts"] if r["nSmall"] > 6 else []))
    assert not bad, f"chart text below {MIN_TEXT_PX} px at {width} px:\n" + "\n".join(bad)


@pytest.mark.parametrize("width", [w for w, _ in VIEWPORTS])
def test_the_legend_is_open_on_the_first_visit_and_one_line_after(reader, width):
    """Every page with marks carries the legend; pages are visited in order in one browser profile, so the first
    page with an open legend is the reader's first visit and every later page shows it closed, on one line."""
    pages = sorted(rel for (w, rel), r in reader.items() if w == width and r["marks"] and rel != "book/index.html")
    assert len(pages) > 10
    missing = _bad(reader, width, lambda r: ["legend missing"] if r["marks"] and not r["legend"] else [])
    assert not missing, "\n".join(missing)
    assert reader[(width, pages[0])]["legendOpen"], f"{pages[0]}: the legend is closed on the first visit"
    bad = [f"  {rel}: open" for rel in pages[1:] if reader[(width, rel)]["legendOpen"]]
    bad += [
        f"  {rel}: summary on {reader[(width, rel)]['legendLines']} lines"
        for rel in pages[1:]
        if reader[(width, rel)]["legendLines"] > 1
    ]
    assert not bad, "the legend after the first visit:\n" + "\n".join(bad)


def test_a_table_is_one_tab_stop(reader):
    bad = _bad(
        reader, 1400, lambda r: [f"{r['maxTableStops']} tab stops in one table"] if r["maxTableStops"] > 1 else []
    )
    assert not bad, "\n".join(bad)


def test_a_citation_previews_its_reference_on_hover_and_focus(site):
    _require_browser()
    from playwright.sync_api import sync_playwright

    base, _ = site
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(base + "book/02_related_work.html", wait_until="load")
            cite = page.locator("a.selfconf-cite").first
            ref = cite.get_attribute("data-cite")
            assert ref and len(ref) > 30, "citations carry their reference"
            cite.scroll_into_view_if_needed()
            cite.hover()
            card = page.locator("#selfconf-cite-card")
            card.wait_for(state="visible", timeout=5000)
            assert card.inner_text() == ref
            page.keyboard.press("Escape")
            assert not card.is_visible()
            cite.focus()
            card.wait_for(state="visible", timeout=5000)
        finally:
            browser.close()
