"""The first screen is the argument, and the legend tells the truth (headless Chromium at 1400 x 900).

* The landing page's first screen shows the paper's four findings (the first paragraph and the list of findings
  start within the 900 px viewport) on a reader's first visit.
* Every page of the paper (the first part of the table of contents) shows its opening prose on the first screen
  once the reader has seen the legend on an earlier page: the top of the page's first paragraph of prose lies
  within 900 px.
* On every page, each legend sample is drawn with the same marks (underline line and style, the "≠ paper" marker
  shown or not, background) as the page's own numbers of that status or origin, as rendered by default.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from test_browser import CHROMIUM, CHROMIUM_FLAGS, _require_browser, html_pages, site  # noqa: F401

pytestmark = pytest.mark.browser

PAPER_PAGES = [
    "book/00_abstract.html",
    "book/01_introduction.html",
    "book/02_related_work.html",
    "book/03_design.html",
    "book/04_result1.html",
    "book/05_result2.html",
    "book/06_result3.html",
    "book/07_implications.html",
    "book/08_limitations.html",
    "book/09_conclusion.html",
]

#: Top (px, from the top of the page) of the first paragraph of prose, and of the landing page's findings list.
JS_FIRST = """() => {
  const main = document.querySelector('main article') || document.querySelector('main');
  const skip = 'details, .admonition, .selfconf-provenance, .cell_input, .cell_output, nav, header, figure, table';
  let first = null;
  for (const p of main.querySelectorAll('p')) {
    if (p.closest(skip)) continue;
    if (p.textContent.trim().length < 60) continue;
    first = p; break;
  }
  const ol = main.querySelector('ol');
  return {p: first ? first.getBoundingClientRect().top + window.scrollY : null,
          text: first ? first.textContent.trim().slice(0, 60) : '',
          ol: ol ? ol.getBoundingClientRect().top + window.scrollY : null,
          findings: ol ? ol.querySelectorAll(':scope > li').length : 0};
}"""

#: Each legend sample's marks against those of the page's own numbers of the same status / origin.
JS_LEGEND = """() => {
  function sig(el) {
    const cs = getComputedStyle(el);
    let line = cs.textDecorationLine.includes('underline') ? cs.textDecorationStyle : 'none';
    if (line === 'none') {  // a prose span marked quoted draws its mark as a dotted border
      const q = el.closest('.quoted');
      if (q && getComputedStyle(q).borderBottomStyle !== 'none') line = getComputedStyle(q).borderBottomStyle;
    }
    const m = el.querySelector('.selfconf-mark');
    const mark = m ? getComputedStyle(m).display !== 'none' : null;
    return {line, mark, bg: cs.backgroundColor};
  }
  const out = [];
  const legend = document.querySelector('details.selfconf-legend');
  if (!legend) return out;
  for (const s of legend.querySelectorAll('.selfconf-legend-sample')) {
    const st = s.dataset.status, og = s.dataset.origin;
    const sel = st ? `.selfconf-num[data-status="${st}"]:not(.selfconf-legend-sample)`
                   : `.selfconf-num[data-origin="${og}"]:not([data-claim]):not(.selfconf-legend-sample)`;
    const want = sig(s);
    for (const el of document.querySelectorAll(sel)) {
      const got = sig(el);
      for (const k of ['line', 'mark', 'bg']) {
        if (k === 'mark' && (want.mark === null || got.mark === null)) continue;
        if (got[k] !== want[k]) {
          out.push(`${st || og}: legend ${k}=${want[k]}, page ${k}=${got[k]} (${el.textContent.trim().slice(0, 20)})`);
          break;
        }
      }
    }
  }
  return out;
}"""


def _browse(site, paths: list[str], js: str, seen: bool):
    _require_browser()
    from playwright.sync_api import sync_playwright

    base, _ = site
    origin = urlparse(base).netloc
    out = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            ctx = browser.new_context(viewport={"width": 1400, "height": 900})  # one profile: localStorage kept
            ctx.route(
                "**/*",
                lambda r: (
                    r.continue_()
                    if urlparse(r.request.url).netloc == origin or r.request.url.startswith(("data:", "blob:"))
                    else r.abort("blockedbyclient")
                ),
            )
            if seen:  # a returning reader: the legend was shown open on an earlier page
                page = ctx.new_page()
                page.goto(base + "book/00_abstract.html", wait_until="domcontentloaded")
                assert page.evaluate("() => localStorage.getItem('selfconf-legend-seen')") == "1"
                page.close()
            for rel in paths:  # a fresh tab per page: no page waits on the previous one's scripts
                page = ctx.new_page()
                page.goto(base + rel, wait_until="domcontentloaded")
                out[rel] = page.evaluate(js)
                page.close()
        finally:
            browser.close()
    return out


def test_the_landing_page_opens_on_the_four_findings(site):
    got = _browse(site, ["book/index.html"], JS_FIRST, seen=False)["book/index.html"]
    assert got["findings"] == 4, f"the landing page lists {got['findings']} findings"
    assert got["p"] is not None and got["p"] < 900, f"first paragraph at {got['p']} px"
    assert got["ol"] < 700, f"the findings start at {got['ol']} px, below the first screen"


def test_every_paper_page_opens_on_its_prose(site):
    got = _browse(site, PAPER_PAGES, JS_FIRST, seen=True)
    bad = [
        f"  {rel}: first paragraph at {r['p']} px ({r['text']!r})"
        for rel, r in got.items()
        if not r["p"] or r["p"] >= 900
    ]
    assert not bad, "opening prose below the first screen at 1400 x 900:\n" + "\n".join(bad)


def test_the_legend_shows_the_marks_the_page_shows(site):
    _, html = site
    rels = [p.relative_to(html).as_posix() for p in html_pages(html) if p.name != "index.html" or "book" in p.parts]
    got = _browse(site, rels, JS_LEGEND, seen=False)
    bad = [f"  {rel}: {m}" for rel, msgs in got.items() for m in msgs[:3]]
    assert not bad, "legend and page disagree:\n" + "\n".join(bad)


#: Each audit-page table: hidden width in its scroll box, and words of its cells wrapped inside themselves.
JS_AUDIT_TABLES = """() => Array.from(document.querySelectorAll('main table[id^="tab-audit"]')).map(t => {
  let b = getComputedStyle(t).overflowX === 'auto' ? t : t.parentElement;
  while (b && b !== document.body && !['auto', 'scroll'].includes(getComputedStyle(b).overflowX)) b = b.parentElement;
  const over = b && b !== document.body ? b.scrollWidth - b.clientWidth : 0;
  const broken = [];
  if (t.classList.contains('selfconf-stacked')) {
    for (const td of t.querySelectorAll('td')) {
      const w = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      let n;
      while ((n = w.nextNode())) {
        const re = /\\S+/g; let m;
        while ((m = re.exec(n.data))) {
          const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
          const tops = Array.from(r.getClientRects()).map(x => x.top);  // a glyph from a fallback font sits a px off
          if (tops.length && Math.max(...tops) - Math.min(...tops) > 8) broken.push(m[0]);
        }
      }
    }
  }
  return {id: t.id, over, stacked: t.classList.contains('selfconf-stacked'), broken: broken.slice(0, 3)};
})"""


@pytest.mark.parametrize("width", [1400, 1280, 390])
def test_the_audit_tables_fit_without_breaking_words(site, width):
    """No table of the audit page scrolls sideways; in a stacked one, no word wraps inside itself."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    base, _ = site
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(base + "book/14_audit.html", wait_until="domcontentloaded")
            page.wait_for_timeout(300)
            got = page.evaluate(JS_AUDIT_TABLES)
        finally:
            browser.close()
    assert len(got) >= 5 and any(r["stacked"] for r in got)
    bad = [f"  {r['id']}: {r['over']} px hidden" for r in got if r["over"] > 1]
    bad += [f"  {r['id']}: words broken {r['broken']}" for r in got if r["broken"]]
    assert not bad, f"audit tables at {width} px:\n" + "\n".join(bad)
