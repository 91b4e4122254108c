"""`selfconf report --html` in headless Chromium, with the network blocked, at 3 and at 50 models.

The page is opened from the file system with every request that is not ``file:``, ``data:`` or
``blob:`` aborted and recorded (there must be none: the page carries its own Vega).  At a 1400 px
viewport, for both sizes:

* the page itself never scrolls sideways: no element outside a box that scrolls on its own
  reaches past the viewport, and the document is no wider than the window;
* the headline table sits in its own scrolling box, and its header row stays at the top of that
  box when the box is scrolled down (sticky);
* every model's row shows its excluded share, and the model with more than 5 % excluded carries
  the highlighted warning beside its accuracy;
* reliability: with 3 models one small multiple per model (each titled with its model, each with
  a band, a curve and bin dots); with 50 models one panel and a model selector listing all 50,
  and choosing another model redraws the panel;
* every chart is drawn (an SVG with marks) and the console shows no error.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_browser import CHART_TIMEOUT_MS, CHROMIUM, CHROMIUM_FLAGS, _require_browser

from selfconf import cli
from selfconf.report.html import FACET_MAX

pytestmark = pytest.mark.browser
WIDTH = 1400

JS_LAYOUT = """() => {
  const doc = document.scrollingElement || document.documentElement;
  const bad = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= window.innerWidth + 1) continue;
    let p = el.parentElement, own = false;   // inside a box that scrolls sideways by itself?
    while (p && p !== document.body) {
      const ox = getComputedStyle(p).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && p.getBoundingClientRect().right <= window.innerWidth + 1) {
        own = true; break; }
      p = p.parentElement;
    }
    if (!own) bad.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' right=' + Math.round(r.right));
  }
  const box = document.querySelector('#table1').closest('.table-box');
  const b = box.getBoundingClientRect();
  return {docWidth: doc.scrollWidth, innerWidth: window.innerWidth, bad: bad.slice(0, 8),
          box: {right: b.right, overflowX: getComputedStyle(box).overflowX, overflowY: getComputedStyle(box).overflowY,
                scrollW: box.scrollWidth, clientW: box.clientWidth,
                scrollH: box.scrollHeight, clientH: box.clientHeight}};
}"""

JS_STICKY = """() => {
  const box = document.querySelector('#table1').closest('.table-box');
  const th = box.querySelector('thead th');
  box.scrollTop = Math.min(300, box.scrollHeight - box.clientHeight);
  const scrolled = box.scrollTop;
  return {scrolled, thTop: th.getBoundingClientRect().top, boxTop: box.getBoundingClientRect().top,
          position: getComputedStyle(th).position};
}"""

JS_ROWS = """() => {
  const head = Array.from(document.querySelectorAll('#table1 thead th')).map(t => t.textContent);
  const ex = head.indexOf('excluded'), acc = head.indexOf('acc %');
  return Array.from(document.querySelectorAll('#table1 tbody tr')).map(tr => {
    const td = tr.querySelectorAll('td');
    return {model: td[0].textContent, excluded: td[ex].textContent, acc: td[acc].textContent,
            warn: td[acc].getAttribute('data-excluded-warning'), bg: getComputedStyle(td[acc]).backgroundColor};
  });
}"""

JS_CHARTS = """() => Array.from(document.querySelectorAll('div.chart')).map(d => {
  const svg = d.querySelector('svg');
  const marks = svg ? Array.from(svg.querySelectorAll('g[class*="mark-"]'))
      .filter(g => !/mark-group/.test(g.getAttribute('class'))).reduce((n, g) => n + g.children.length, 0) : 0;
  const select = d.querySelector('.vega-bindings select');
  return {id: d.id, svg: !!svg, marks, text: d.textContent.slice(0, 100),
          titles: svg ? Array.from(svg.querySelectorAll('g.mark-group g.role-title text, .role-title-text'))
                          .map(t => t.textContent) : [],
          areas: svg ? svg.querySelectorAll('g.mark-area path').length : 0,
          lines: svg ? svg.querySelectorAll('g.mark-line path').length : 0,
          dots: svg ? svg.querySelectorAll('g.mark-symbol path').length : 0,
          options: select ? Array.from(select.options).map(o => o.value) : null};
})"""

JS_CHARTS_READY = """() => Array.from(document.querySelectorAll('div.chart')).every(d =>
  (d.querySelector('svg') && d.querySelector('svg g[class*="mark-"] > *')) || /failed/.test(d.textContent))"""


def _rows_file(path, n_models: int, n_items: int = 300, seed: int = 11) -> list[str]:
    """Graded rows of ``n_models`` models; model 1 has 10 % of its rows without a confidence."""
    rng = np.random.default_rng(seed)
    names = [f"model-{m:02d}-{'long-name' if m % 7 == 0 else 'x'}" for m in range(n_models)]
    lines = ["model,item_id,confidence,correct"]
    for m, name in enumerate(names):
        skill = rng.uniform(0.35, 0.9)
        conf = np.clip(np.rint(rng.normal(100 * skill + 8, 14, n_items)), 0, 100).astype(int)
        right = (rng.random(n_items) < skill).astype(int)
        for i in range(n_items):
            c = "" if (m == 1 and i % 10 == 0) else str(conf[i])
            lines.append(f"{name},q{i:04d},{c},{right[i]}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return names


@pytest.fixture(scope="module", params=[3, 50], ids=lambda n: f"{n}-models")
def report_page(request, tmp_path_factory):
    """(html path, model names) of a report written by the command line."""
    n = request.param
    d = tmp_path_factory.mktemp(f"html{n}")
    names = _rows_file(d / "rows.csv", n)
    out = d / "report.html"
    assert cli.main(["report", str(d / "rows.csv"), "--n-boot", "200", "--html", str(out)]) == 0
    return out, names


def _open(pw, html):
    browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    leaks, errors = [], []

    def route(r):
        if r.request.url.startswith(("file:", "data:", "blob:")):
            return r.continue_()
        leaks.append(r.request.url)
        return r.abort("blockedbyclient")

    page.route("**/*", route)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri(), wait_until="load")
    page.wait_for_function(JS_CHARTS_READY, timeout=CHART_TIMEOUT_MS)
    return browser, page, leaks, errors


def test_report_html_reads_well(report_page):
    _require_browser()
    from playwright.sync_api import sync_playwright

    html, names = report_page
    n = len(names)
    with sync_playwright() as pw:
        browser, page, leaks, errors = _open(pw, html)
        try:
            layout = page.evaluate(JS_LAYOUT)
            sticky = page.evaluate(JS_STICKY)
            rows = page.evaluate(JS_ROWS)
            charts = {c["id"]: c for c in page.evaluate(JS_CHARTS)}
            changed = None
            if n > FACET_MAX:
                before = page.evaluate("() => document.querySelector('#reliability svg').outerHTML")
                page.select_option("#reliability .vega-bindings select", names[-1])
                page.wait_for_function(
                    "(b) => document.querySelector('#reliability svg').outerHTML !== b", arg=before, timeout=5_000
                )
                changed = page.evaluate(JS_CHARTS)
        finally:
            browser.close()
    assert not leaks, f"requests left the machine: {leaks}"
    assert not errors, errors

    # no page-wide horizontal scroll at 1400 px; the table scrolls inside its own box
    assert layout["docWidth"] <= layout["innerWidth"], layout
    assert not layout["bad"], f"elements reach past the viewport outside a scrolling box: {layout['bad']}"
    box = layout["box"]
    assert box["right"] <= WIDTH + 1 and box["overflowX"] == "auto" and box["overflowY"] == "auto", box
    assert box["scrollW"] > box["clientW"], "the headline table is wider than 1400 px and must scroll in its box"
    if n == 50:
        assert box["scrollH"] > box["clientH"], "50 rows overflow the box vertically"
        assert sticky["scrolled"] > 0
    assert sticky["position"] == "sticky" and abs(sticky["thTop"] - sticky["boxTop"]) <= 2, sticky

    # the headline per model shows its excluded share; the flagged model has the warning
    assert [r["model"] for r in rows] == sorted(names)
    for r in rows:
        assert re.fullmatch(r"\d+ \(\d+\.\d%\)", r["excluded"]), r
    flagged = [r for r in rows if r["warn"]]
    assert [r["model"] for r in flagged] == [names[1]]
    assert flagged[0]["excluded"] == "30 (10.0%)" and "10% excluded" in flagged[0]["acc"]
    assert flagged[0]["bg"] not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)")
    assert all(not r["warn"] for r in rows if r["model"] != names[1])

    # every chart drawn; reliability as small multiples or one panel with a selector
    assert set(charts) == {"overconfidence", "reliability", "riskcoverage"}
    assert all(c["svg"] and c["marks"] > 0 for c in charts.values()), charts
    rel = charts["reliability"]
    if n <= FACET_MAX:
        assert rel["options"] is None
        assert sorted({t for t in rel["titles"] if t in names}) == sorted(names), rel["titles"]
        assert rel["areas"] >= n and rel["lines"] >= n and rel["dots"] >= 3 * n, rel
    else:
        assert rel["options"] == sorted(names)
        assert rel["areas"] == 1 and rel["lines"] >= 1 and not any(t in names for t in rel["titles"]), rel
        assert charts["riskcoverage"]["options"] == sorted(names)
        assert changed is not None
