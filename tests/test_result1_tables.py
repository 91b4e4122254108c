"""The Design and Result 1 notebooks glue every claim of their sections, in the claim's unit.

Reads the notebooks ``03_design`` and ``04_result1`` as the session's book build executed them (the shared
``built_book`` fixture; no second execution) and runs the audit on them.  Whether the values *match* the paper
is the audit's business (and depends on the reconstruction); this test checks what the notebooks own: no claim
of the two sections is left unglued, external claims are glued as quoted, and every glued number is on the scale
its unit prescribes (percent 0-100, AUROC/Brier/ECE 0-1, confidence points 0-100, counts as integers).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from selfconf.book import audit
from selfconf.book.glue import glued_in_notebook

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ("03_design", "04_result1")

pytestmark = pytest.mark.book  # reads the book build
SECTIONS = {"design", "result1"}


@pytest.fixture(scope="module")
def executed(built_book, tmp_path_factory) -> Path:
    """A folder holding only the two executed notebooks of the shared build."""
    book = tmp_path_factory.mktemp("book")
    for name in NOTEBOOKS:
        shutil.copyfile(ROOT / "book" / f"{name}.ipynb", book / f"{name}.ipynb")
    return book


def test_every_claim_of_the_sections_is_glued(executed):
    recs = [r for r in audit.run_audit(executed) if r.section in SECTIONS]
    assert recs, "no claims found for design/result1"
    bad = [(r.id, r.status) for r in recs if r.status in ("unglued", "not_quoted", "pending")]
    assert not bad, f"claims not glued properly: {bad}"


def test_glued_values_are_in_their_units(executed):
    glued = {}
    for name in NOTEBOOKS:
        glued.update(glued_in_notebook(executed / f"{name}.ipynb"))
    claims = audit.load_claims()["claims"]
    problems = []
    for c in claims:
        if c["section"] not in SECTIONS or c["id"] not in glued:
            continue
        v = glued[c["id"]]
        if c.get("unit") == "text":  # a printed word or list (a panel's members), judged as text
            if not isinstance(v, str) or not v.strip():
                problems.append((c["id"], v, "text claim glued as a non-text value"))
            continue
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            problems.append((c["id"], v, "not a number"))
            continue
        unit = c.get("unit")
        if unit == "count" and not isinstance(v, int):
            problems.append((c["id"], v, "count glued as non-integer"))
        elif unit in ("auroc", "brier", "ece") and not -1 <= v <= 1:
            problems.append((c["id"], v, f"{unit} outside the 0-1 scale"))
        elif unit in ("percent", "confidence_points") and not 0 <= v <= 100:
            problems.append((c["id"], v, f"{unit} outside 0-100"))
        elif unit == "pp" and not -100 <= v <= 100:
            problems.append((c["id"], v, "pp outside -100..100"))
        # a 0-1 proportion glued where 0-100 points are due: the printed number is well above 1, the glue below
        if unit in ("percent", "pp", "confidence_points") and abs(float(c["value"])) >= 5 and abs(v) < 1:
            problems.append((c["id"], v, f"{unit} looks like a 0-1 proportion"))
    assert not problems, problems


def test_repeats_carry_the_canonical_value(executed):
    glued = {}
    for name in NOTEBOOKS:
        glued.update(glued_in_notebook(executed / f"{name}.ipynb"))
    claims = audit.load_claims()["claims"]
    wrong = []
    for c in claims:
        can = c.get("same_as")
        if c["section"] in SECTIONS and can and can in glued and c["id"] in glued:
            want = -glued[can] if c.get("transform") == "negate" else glued[can]
            if glued[c["id"]] != want:
                wrong.append((c["id"], glued[c["id"]], can, glued[can]))
    assert not wrong, wrong
