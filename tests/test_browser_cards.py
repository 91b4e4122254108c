"""Every kind of number opens its card: hover at 1400 px, tap on a 390 px phone, on every page.

For each page and each kind of pasted number on it (a claim's audit status, or the origin of a number that is
not the paper's), the first visible number of that kind is hovered (desk) or tapped (phone, a touch context):
the card must appear with a heading and this number's shown value; Escape (desk) or a second tap (phone)
must close it.  Any uncaught page error (``pageerror``) fails the test, so a card script that throws (an
undefined name, say) fails here even when some cards open.  Same local server and network block as
``test_browser.py``.  The links of the cards are checked offline: each "Computed in" link is a local page of
the site whose anchor exists.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from test_browser import CHROMIUM, CHROMIUM_FLAGS, _require_browser, html_pages, site  # noqa: F401

pytestmark = pytest.mark.browser

#: One of each kind of number on the page: the first visible element per status / origin.
JS_KINDS = """() => {
  const seen = {};
  const all = document.querySelectorAll(
    '.selfconf-num[data-claim]:not(.selfconf-legend-sample), .selfconf-num[data-origin]:not(.selfconf-legend-sample)');
  all.forEach((el, i) => {
    const kind = el.dataset.claim ? 'status:' + el.dataset.status : 'origin:' + el.dataset.origin;
    const r = el.getBoundingClientRect();
    if (kind in seen || r.width === 0 || r.height === 0) return;
    seen[kind] = i;
  });
  return seen;
}"""
SELECTOR = (
    ".selfconf-num[data-claim]:not(.selfconf-legend-sample), .selfconf-num[data-origin]:not(.selfconf-legend-sample)"
)
JS_CARD = """() => {
  const c = document.getElementById('selfconf-card');
  if (!c || c.hidden) return null;
  const head = c.querySelector('.selfconf-card-head');
  return {head: head ? head.textContent : '', text: c.innerText};
}"""
JS_SHOWN = """el => { const c = el.cloneNode(true); c.querySelectorAll('.selfconf-mark').forEach(m => m.remove());
  return c.textContent.trim(); }"""


def _exercise(page, how: str) -> tuple[list[str], int]:
    """Open and close the card of one number of each kind on the loaded page; return (problems, kinds tried)."""
    bad: list[str] = []
    kinds = page.evaluate(JS_KINDS)
    nums = page.locator(SELECTOR)
    for kind, i in sorted(kinds.items()):
        el = nums.nth(i)
        el.scroll_into_view_if_needed()
        if how == "hover":
            el.hover()
        else:
            el.tap()
        try:
            page.wait_for_function(JS_CARD, timeout=3000)
        except Exception:  # noqa: BLE001 - reported below
            bad.append(f"{kind}: no card after {how}")
            continue
        card = page.evaluate(JS_CARD)
        shown = el.evaluate(JS_SHOWN)
        if not card["head"].strip():
            bad.append(f"{kind}: card without a heading")
        if shown and shown not in card["text"]:
            bad.append(f"{kind}: card does not show the number {shown!r}")
        if kind == "status:quoted" and "Computed in" in card["text"]:
            bad.append(f"{kind}: a value quoted from the paper, never computed, has a 'Computed in' row")
        if re.search(r"\b[a-z0-9]+(?:_[a-z0-9]+){2,}\b", card["text"]):
            bad.append(f"{kind}: card speaks machine (a snake_case identifier): {card['text'][:120]!r}")
        if how == "hover":
            page.keyboard.press("Escape")
        else:
            el.tap()  # a second tap on the same number closes its card
        if page.evaluate(JS_CARD) is not None:
            bad.append(f"{kind}: card still open after {'Escape' if how == 'hover' else 'a second tap'}")
    return bad, len(kinds)


@pytest.mark.parametrize(("width", "how"), [(1400, "hover"), (390, "tap")])
def test_every_kind_of_number_opens_its_card(site, width, how):
    _require_browser()
    from playwright.sync_api import sync_playwright

    base, html = site
    origin = urlparse(base).netloc
    problems: list[str] = []
    tried = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            ctx = browser.new_context(
                viewport={"width": width, "height": 900 if width > 800 else 844},
                has_touch=how == "tap",
                is_mobile=how == "tap",
            )
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.route(
                "**/*",
                lambda r: (
                    r.continue_()
                    if urlparse(r.request.url).netloc == origin or r.request.url.startswith(("data:", "blob:"))
                    else r.abort("blockedbyclient")
                ),
            )
            for p in html_pages(html):
                rel = p.relative_to(html).as_posix()
                if 'http-equiv="Refresh"' in p.read_text(encoding="utf-8")[:2000].replace("refresh", "Refresh"):
                    continue  # the site's root only redirects to the first page
                errors.clear()
                page.goto(base + rel, wait_until="domcontentloaded")
                bad, n = _exercise(page, how)
                tried += n
                problems += [f"  {rel}: {b}" for b in bad] + [f"  {rel}: page error: {e}" for e in errors]
        finally:
            browser.close()
    assert tried > 20, f"only {tried} kinds of number found on the site"
    assert not problems, f"cards at {width} px ({how}):\n" + "\n".join(problems)


def test_card_links_are_local_and_their_anchors_exist(site):
    """Every ``data-code`` (the card's "Computed in") is a page of this site, and its ``#anchor`` is on that page."""
    _, html = site
    ids: dict[str, set[str]] = {}
    bad: list[str] = []
    n = 0
    for p in html_pages(html):
        text = p.read_text(encoding="utf-8")
        for href in set(re.findall(r'data-code="([^"]*)"', text)):
            n += 1
            if urlparse(href).scheme or href.startswith("//"):
                bad.append(f"{p.relative_to(html)}: {href} leaves the site")
                continue
            page, _, anchor = href.partition("#")
            target = (p.parent / page).resolve() if page else p
            if not target.is_file():
                bad.append(f"{p.relative_to(html)}: {href}: no such page")
                continue
            if anchor:
                if target not in ids:
                    ids[target] = set(re.findall(r'\bid="([^"]+)"', target.read_text(encoding="utf-8")))
                if anchor not in ids[target]:
                    bad.append(f"{p.relative_to(html)}: {href}: no element with id {anchor!r}")
    assert n > 20, "no card links found"
    assert not bad, "\n".join(bad[:20])
