"""Layout of the built book in headless Chromium at a phone width (390 px) and a desktop width (1400 px).

At both widths: no page scrolls sideways, no chart is wider than its container, no table is wider than
its own scrolling box's container, and every table caption wraps inside the visible part of that box.
Also: the announcement banner's text meets WCAG AA contrast (4.5:1), and each page shows one search
control.  Uses the same local server and network block as ``test_browser.py``.
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
WIDTHS = (390, 1400)

JS_LAYOUT = """() => {
  const doc = document.scrollingElement || document.documentElement;
  const wide = [];
  for (const d of document.querySelectorAll('div.selfconf-vega')) {
    const box = d.parentElement.getBoundingClientRect();
    const svg = d.querySelector('svg');
    if (svg) { const r = svg.getBoundingClientRect();
      if (r.width > box.width + 1 || r.right > window.innerWidth + 1)
        wide.push(d.id + ' ' + Math.round(r.width) + '>' + Math.round(box.width)); }
  }
  const overflowing = [];
  for (const el of document.querySelectorAll('main *')) {
    const r = el.getBoundingClientRect();
    if (r.right > window.innerWidth + 1 && getComputedStyle(el).position !== 'fixed') {
      // inside a box that scrolls sideways on its own, an overflow is intended (wide tables)
      let p = el.parentElement, scrolls = false;
      while (p && p !== document.body) { const ox = getComputedStyle(p).overflowX;
        if ((ox === 'auto' || ox === 'scroll') && p.getBoundingClientRect().right <= window.innerWidth + 1) {
          scrolls = true; break; }
        p = p.parentElement; }
      if (!scrolls) overflowing.push(el.tagName.toLowerCase() + '.' +
        (el.className && el.className.baseVal === undefined ? el.className : '') );
    }
  }
  // a table caption must be readable without scrolling: inside the visible part of its scrolling box
  const captions = [];
  let nCaptions = 0;
  for (const c of document.querySelectorAll('main table caption')) {
    nCaptions += 1;
    let p = c.parentElement;
    while (p && p !== document.body && !['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) p = p.parentElement;
    const box = (p && p !== document.body ? p : document.querySelector('main')).getBoundingClientRect();
    const r = c.getBoundingClientRect();
    if (r.right > box.right + 1 || r.left < box.left - 1)
      captions.push(Math.round(r.width) + ' px > ' + Math.round(box.width) + ' px: ' + c.textContent.slice(0, 50));
  }
  const visibleSearch = Array.from(
      document.querySelectorAll('.search-button-field, .search-button, #searchbox, input[type=search]'))
      .filter(e => { const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; }).length;
  return {scrollWidth: doc.scrollWidth, innerWidth: window.innerWidth, wide, overflowing: overflowing.slice(0, 5),
          visibleSearch, captions, nCaptions};
}"""

JS_CONTRAST = """() => {
  const el = document.querySelector('.bd-header-announcement');
  if (!el) return null;
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let bgEl = el, bg = rgb(getComputedStyle(bgEl).backgroundColor);
  while (bg.length === 4 && bg[3] === 0 && bgEl.parentElement) {
    bgEl = bgEl.parentElement; bg = rgb(getComputedStyle(bgEl).backgroundColor); }
  if (bg.length < 3) bg = [255, 255, 255];
  const out = [];
  for (const t of [el, ...el.querySelectorAll('*')]) {
    if (!t.textContent.trim()) continue;
    const fg = rgb(getComputedStyle(t).color);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    out.push((a + 0.05) / (b + 0.05));
  }
  return Math.min(...out);
}"""


@pytest.fixture(scope="session")
def layout(site, tmp_path_factory):
    _require_browser()
    from playwright.sync_api import sync_playwright

    base, html = site
    origin = urlparse(base).netloc
    out: dict[tuple[int, str], dict] = {}
    contrast: dict[str, float] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            for width in WIDTHS:
                for p in html_pages(html):
                    # a fresh tab per page: a page's chart fitting never delays the next page's load event
                    page = local_tab(browser, origin, {"width": width, "height": 900})
                    rel = p.relative_to(html).as_posix()
                    page.goto(base + rel, wait_until="load")
                    try:
                        page.wait_for_function(JS_CHARTS_READY, timeout=CHART_TIMEOUT_MS)
                    except Exception:  # noqa: BLE001 - undrawn charts are test_browser's business
                        pass
                    out[(width, rel)] = page.evaluate(JS_LAYOUT)
                    if width == 1400:
                        c = page.evaluate(JS_CONTRAST)
                        if c is not None:
                            contrast[rel] = c
                    page.close()
        finally:
            browser.close()
    return out, contrast


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways(layout, width):
    rec, _ = layout
    bad = [
        f"  {rel}: page {r['scrollWidth']} px > viewport {r['innerWidth']} px {r['overflowing']}"
        for (w, rel), r in sorted(rec.items())
        if w == width and r["scrollWidth"] > r["innerWidth"] + 1
    ]
    assert not bad, f"pages wider than a {width} px viewport:\n" + "\n".join(bad)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_chart_wider_than_its_container(layout, width):
    rec, _ = layout
    n = sum(1 for (w, _), r in rec.items() if w == width)
    assert n > 10
    bad = [f"  {rel}: {c}" for (w, rel), r in sorted(rec.items()) if w == width for c in r["wide"]]
    assert not bad, f"charts wider than their container at {width} px:\n" + "\n".join(bad)


@pytest.mark.parametrize("width", WIDTHS)
def test_table_captions_wrap_inside_their_scrolling_box(layout, width):
    rec, _ = layout
    assert sum(r["nCaptions"] for (w, _), r in rec.items() if w == width) > 50  # the numbered tables are there
    bad = [f"  {rel}: {c}" for (w, rel), r in sorted(rec.items()) if w == width for c in r["captions"]]
    assert not bad, f"captions running past the visible part of their table's box at {width} px:\n" + "\n".join(bad)


def test_one_search_control_per_page(layout):
    rec, _ = layout
    # search.html has its own form beside the header button; the root index.html only redirects to book/
    bad = [
        f"  {rel} at {w} px: {r['visibleSearch']}"
        for (w, rel), r in sorted(rec.items())
        if rel not in {"search.html", "index.html"} and r["visibleSearch"] != 1
    ]
    assert not bad, "pages without exactly one visible search control:\n" + "\n".join(bad)


def test_banner_contrast_meets_wcag_aa(layout):
    _, contrast = layout
    assert contrast, "no announcement banner found"
    bad = {rel: round(c, 2) for rel, c in contrast.items() if c < 4.5}
    assert not bad, f"banner contrast below 4.5:1: {bad}"
