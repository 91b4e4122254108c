"""The named steps of ``selfconf.book.audit.explain_failures``, one per failure kind, with hand-computed cases."""

from __future__ import annotations

import pytest

from selfconf.book import audit
from selfconf.claims import judging


def _record(**kw):
    base = {
        "id": "c",
        "section": "s",
        "kind": "bootstrap",
        "printed": "0.50",
        "recomputed": 0.47,
        "status": "outside_tolerance",
        "tolerance": 0.02,
    }
    return audit.AuditRecord(**{**base, **kw})


def _ex(r, ideal=0.505, err=0.001):
    ex = audit._blank_explanation(r)
    ex.ideal, ex.ideal_n_boot, ex.ideal_seeds, ex.ideal_mc_error = ideal, 2000, 3, err
    return ex


def test_blank_explanation_copies_the_record():
    r = _record()
    ex = audit._blank_explanation(r)
    assert (ex.id, ex.section, ex.kind, ex.status, ex.printed, ex.recomputed, ex.tolerance) == (
        "c",
        "s",
        "bootstrap",
        "outside_tolerance",
        "0.50",
        0.47,
        0.02,
    )
    assert (ex.verdict_code, ex.verdict, ex.ideal) == ("none", audit.VERDICT_NONE, None)


@pytest.mark.parametrize(
    ("z", "code"),
    [
        (None, "unexplained"),
        (0.0, "unlucky"),
        (judging.PLAUSIBLE_Z, "unlucky"),
        (judging.PLAUSIBLE_Z + 0.01, "unexplained"),
        (-5.0, "unexplained"),
    ],
)
def test_inside_verdict_follows_the_seed_z(z, code):
    r = _record(seed_z=z, seed_k=20, seed_quantile=0.5)
    ex = _ex(r)
    audit._explain_by_ideal(ex, r, {"value": 0.5}, [])
    assert ex.verdict_code == code
    # margin 0.02 - 0.005 = 0.015, far more than 2 x 0.001: determined
    assert ex.ideal_margin == pytest.approx(0.015)


def test_margin_within_two_errors_is_undetermined_and_keeps_the_notes():
    r = _record(seed_z=0.0)
    ex = _ex(r, ideal=0.519, err=0.001)  # margin 0.001 <= 2 x 0.001
    audit._explain_by_ideal(ex, r, {"value": 0.5}, [({"reason": "a note"}, {})])
    assert ex.verdict_code == "undetermined" and ex.reason.endswith(" | a note")
    ex = _ex(r, ideal=0.519, err=None)
    audit._explain_by_ideal(ex, r, {"value": 0.5}, [])
    assert ex.verdict_code == "undetermined" and "Monte-Carlo error unknown" in ex.reason


def test_outside_is_closer_exists_with_a_bound_else_ideal_off():
    r = _record()
    note = (
        {"reason": "limit", "evidence": {"x": 1}, "source": "f.yaml"},
        {"closest_attainable": 0.49, "gap_to_print": 0.01, "tolerance": 0.02},
    )
    ex = _ex(r, ideal=0.45)
    audit._explain_by_ideal(ex, r, {"value": 0.5}, [note])
    assert ex.verdict_code == "closer_exists" and ex.verdict == audit.VERDICT_CLOSER.format(diff="-0.0500")
    assert ex.evidence == {"x": 1, "closest_attainable": 0.49, "gap_to_print": 0.01, "tolerance": 0.02}
    ex = _ex(r, ideal=0.45)
    audit._explain_by_ideal(ex, r, {"value": 0.5}, [({"reason": "r"}, {})])
    assert ex.verdict_code == "ideal_off" and ex.reason.endswith("miss the number | r")


def test_without_a_tolerance_the_decimals_judge():
    r = _record(tolerance=None, kind="deterministic", seed_z=None)
    ex = _ex(r, ideal=0.504)
    audit._explain_by_ideal(ex, r, {"value": 0.5, "decimals": 2}, [])
    assert ex.verdict_code == "unexplained" and "shown with 2 decimals" in ex.reason
    ex = _ex(r, ideal=0.506)
    audit._explain_by_ideal(ex, r, {"value": 0.5, "decimals": 2}, [])
    assert ex.verdict_code == "ideal_off"


def test_note_index_follows_same_as_with_its_sign():
    ix = audit._NoteIndex({"b": "a"}, {"b": True}, None, {})
    assert ix.root("b") == ("a", -1) and ix.root("a") == ("a", 1)
    entry = {"claims": ["b"], "closest_attainable": {"b": 0.3}}
    assert ix.by_root([entry]) == {"a": [entry]}
    assert ix.bound_for(entry, "a", "a", 1) == pytest.approx(-0.3)
    assert ix.bound_for(entry, "b", "a", -1) == 0.3
