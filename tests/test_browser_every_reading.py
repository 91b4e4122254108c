"""Page 28 ("Every reading of the panel comparison") stays light: its HTML and its CSV download are bounded, and it
loads and draws its charts in headless Chromium at a desktop width (1400 px) and a phone width (390 px) well
inside the browser tests' time limit.  Uses the local server and network block of ``test_browser.py``
(``SELFCONF_HTML_DIR=_build/html`` serves an already built site).
"""

from __future__ import annotations

import csv
import time
from urllib.parse import urlparse

import pytest
from test_browser import CHROMIUM, CHROMIUM_FLAGS, JS_CHARTS, JS_CHARTS_READY, _require_browser, site  # noqa: F401

pytestmark = pytest.mark.browser

PAGE = "book/28_every_reading.html"
MAX_HTML_BYTES = 1_600_000  # the page held 2.4 MB of chart data before the curves drew distinct results only
MAX_CSV_ROWS = 5_000  # the distinct results (every comparison, about 40,000, comes from selfconf panel --json)
LOAD_LIMIT_S = 30.0  # the limit a CI run timed out on


def test_page_and_download_are_bounded(site):  # noqa: F811 - the fixture
    _, html = site
    page = html / PAGE
    assert page.is_file(), f"{page}: not built"
    size = page.stat().st_size
    assert size <= MAX_HTML_BYTES, f"{PAGE}: {size:,} bytes > {MAX_HTML_BYTES:,}"
    table = html / "_static" / "tables" / "every_reading.csv"
    with table.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert 0 < len(rows) <= MAX_CSV_ROWS, f"every_reading.csv: {len(rows):,} rows"
    assert {"same_result_as", "n_readings", "delta_ci_low_row", "delta_ci_high_member"} <= set(rows[0])
    assert all(r["same_result_as"] == "" for r in rows)  # one row per distinct result


@pytest.mark.parametrize("width", (1400, 390))
def test_page_loads_and_draws_in_chromium(site, width):  # noqa: F811 - the fixture
    _require_browser()
    from playwright.sync_api import sync_playwright

    base, _ = site
    origin = urlparse(base).netloc
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.route(
                "**/*",
                lambda r: (
                    r.continue_()
                    if urlparse(r.request.url).netloc == origin or r.request.url.startswith(("data:", "blob:"))
                    else r.abort("blockedbyclient")
                ),
            )
            t0 = time.perf_counter()
            page.goto(base + PAGE, wait_until="load", timeout=LOAD_LIMIT_S * 1000)
            page.wait_for_function(JS_CHARTS_READY, timeout=LOAD_LIMIT_S * 1000)
            elapsed = time.perf_counter() - t0
            charts = page.evaluate(JS_CHARTS)
        finally:
            browser.close()
    print(f"{PAGE} at {width} px: loaded and drawn in {elapsed:.1f} s")
    assert charts, f"{PAGE}: no chart"
    undrawn = [c["id"] for c in charts if not (c["canvas"] or c["marks"])]
    assert not undrawn, f"{PAGE} at {width} px: charts not drawn: {undrawn}"
    assert elapsed < LOAD_LIMIT_S, f"{PAGE} at {width} px: {elapsed:.1f} s to load and draw"
