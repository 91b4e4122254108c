"""`selfconf report --html` on inputs that used to crash it, in headless Chromium with the network
blocked, at 1400 and 390 px.

Three inputs: one model with 6,000 distinct confidences (token probabilities), 2M rows (4 models, confidences
on a 0.001 grid) and 300 models of 200 answers.  Each page is built once; at both widths every chart is drawn
with no console error and no request leaving the machine.  The charts draw bounded summaries (bins, a 51-point
smooth curve, at most ``CURVE_POINTS`` points per risk-coverage curve, one point per model), so the page's
embedded data stay small whatever the input.  At 390 px every chart fits the window, no chart text is smaller
than 10 px, and the overconfidence scatter shows its points on load (the first view is not empty).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from test_browser import CHART_TIMEOUT_MS, CHROMIUM, CHROMIUM_FLAGS, _require_browser

from selfconf import cli
from selfconf.report import from_frame
from selfconf.report.html import CURVE_POINTS, write_html

pytestmark = pytest.mark.browser

JS_READY = """() => Array.from(document.querySelectorAll('div.chart')).every(d =>
  (d.querySelector('svg') && d.querySelector('svg g[class*="mark-"] > *')) || /failed/.test(d.textContent))"""

JS_CHECK = """() => {
  const doc = document.scrollingElement || document.documentElement;
  const charts = Array.from(document.querySelectorAll('div.chart')).map(d => {
    const svg = d.querySelector('svg');
    if (!svg) return {id: d.id, svg: false, text: d.textContent.slice(0, 200)};
    const r = svg.getBoundingClientRect();
    const sizes = Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim())
      .map(t => parseFloat(getComputedStyle(t).fontSize));
    const dots = Array.from(svg.querySelectorAll('g.mark-symbol path')).map(p => p.getBoundingClientRect())
      .filter(b => b.width > 0);
    return {id: d.id, svg: true, left: r.left, right: r.right, width: r.width,
            minFont: sizes.length ? Math.min(...sizes) : null,
            marks: svg.querySelectorAll('g[class*="mark-"] > *').length,
            dotsVisible: dots.filter(b => b.left >= 0 && b.right <= window.innerWidth).length, dots: dots.length};
  });
  return {inner: window.innerWidth, docWidth: doc.scrollWidth, charts};
}"""


def _continuous(n_levels=6000, seed=5):
    rng = np.random.default_rng(seed)
    conf = np.sort(rng.permutation(np.linspace(0.05, 0.999, n_levels)))
    return pd.DataFrame(
        {
            "model": "tok-prob",
            "item_id": np.arange(n_levels),
            "confidence": conf,
            "correct": (rng.random(n_levels) < conf).astype(int),
        }
    )


def _two_million(seed=6):
    rng = np.random.default_rng(seed)
    n = 2_000_000
    conf = np.round(rng.beta(5, 2, n), 3)
    return pd.DataFrame(
        {
            "model": np.repeat([f"m{i}" for i in range(4)], n // 4),
            "item_id": np.tile(np.arange(n // 4), 4),
            "confidence": conf,
            "correct": (rng.random(n) < conf).astype(np.int8),
        }
    )


def _many_models(n_models=300, n_items=200, seed=7):
    rng = np.random.default_rng(seed)
    skill = np.repeat(rng.uniform(0.3, 0.9, n_models), n_items)
    conf = np.clip(np.rint(rng.normal(100 * skill + 8, 14)), 0, 100).astype(int)
    return pd.DataFrame(
        {
            "model": np.repeat([f"model-{m:03d}" for m in range(n_models)], n_items),
            "item_id": np.tile(np.arange(n_items), n_models),
            "confidence": conf,
            "correct": (rng.random(skill.size) < skill).astype(int),
        }
    )


CASES = {"6000-levels": _continuous, "2M-rows": _two_million, "300-models": _many_models}


@pytest.fixture(scope="module", params=list(CASES))
def big_page(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(request.param)
    df = CASES[request.param]()
    out = d / "report.html"
    if request.param == "6000-levels":  # through the command line, as a practitioner would run it
        df.to_csv(d / "rows.csv", index=False)
        assert cli.main(["report", str(d / "rows.csv"), "--n-boot", "100", "--html", str(out)]) == 0
    else:
        write_html(out, from_frame(df, n_boot=100, confidence_scale="unit" if "2M" in request.param else "auto"))
    return request.param, out


def test_big_inputs_embed_bounded_chart_data(big_page):
    name, out = big_page
    page = out.read_text(encoding="utf-8")
    specs = json.loads(re.search(r"const specs = (\{.*?\});\n", page, re.S).group(1).replace("<\\/", "</"))
    for key, spec in specs.items():
        for data in spec.get("datasets", {}).values():
            assert len(data) <= 300 * (CURVE_POINTS + 60), (name, key, len(data))
    rc = next(iter(specs["riskcoverage"]["datasets"].values()))
    per_model = pd.Series([r["model"] for r in rc]).value_counts()
    assert per_model.max() <= CURVE_POINTS, per_model.max()


@pytest.mark.parametrize("width", [1400, 390])
def test_big_inputs_render_at_desktop_and_phone_width(big_page, width):
    _require_browser()
    from playwright.sync_api import sync_playwright

    name, out = big_page
    leaks, errors = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})

            def route(r):
                if r.request.url.startswith(("file:", "data:", "blob:")):
                    return r.continue_()
                leaks.append(r.request.url)
                return r.abort("blockedbyclient")

            page.route("**/*", route)
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(out.as_uri(), wait_until="load")
            page.wait_for_function(JS_READY, timeout=CHART_TIMEOUT_MS)
            got = page.evaluate(JS_CHECK)
        finally:
            browser.close()
    assert not leaks and not errors, (leaks, errors)
    charts = {c["id"]: c for c in got["charts"]}
    assert set(charts) == {"overconfidence", "reliability", "riskcoverage"}
    assert all(c["svg"] and c["marks"] > 0 for c in charts.values()), charts
    assert got["docWidth"] <= got["inner"], got
    if width == 390:
        for c in charts.values():
            assert c["right"] <= width + 1, (name, c)  # the chart fits the phone's window
            assert c["minFont"] is None or c["minFont"] >= 10, (name, c)
        sc = charts["overconfidence"]
        assert sc["dots"] and sc["dotsVisible"] == sc["dots"], sc  # every model's point is on screen at load
