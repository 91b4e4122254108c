"""The one row-validation module (selfconf.data.validate) and its three users: the book's loaders, report, collect."""

from __future__ import annotations

import numpy as np
import pytest

from selfconf.data import validate
from selfconf.data.validate import DataError, FieldError


@pytest.mark.parametrize("val, want", [("1", 1), (" 0 ", 0), ("TRUE", 1), ("false", 0), (True, 1), (0, 0)])
def test_binary_accepts_the_contract_words(val, want):
    assert validate.binary(val) == want


@pytest.mark.parametrize(
    "val, words",
    [
        ("2", "expected 0 or 1, got '2'"),
        ("yes", "expected 0 or 1"),
        ("", "missing value (expected 0 or 1)"),
        (None, "missing value"),
    ],
)
def test_binary_refuses_anything_else(val, words):
    with pytest.raises(FieldError, match=words.replace("(", r"\(").replace(")", r"\)")):
        validate.binary(val)
    if val in ("", None):
        assert validate.binary(val, allow_empty=True) is None


@pytest.mark.parametrize("val, want", [("85", 85), (0, 0), ("100", 100), (42.0, 42)])
def test_percent_integer(val, want):
    assert validate.percent_integer(val) == want


@pytest.mark.parametrize(
    "val, words",
    [
        ("85.5", "integer"),
        ("101", "out of range"),
        ("-5", "out of range"),
        (True, "integer"),
        ("x", "integer"),
        ("", "missing confidence"),
    ],
)
def test_percent_integer_errors(val, words):
    with pytest.raises(FieldError, match=words):
        validate.percent_integer(val)


@pytest.mark.parametrize("val, want", [("85%", 85), (" 70 percent ", 70), (12.5, 12.5), ("0", 0)])
def test_stated_confidence_reads_replies(val, want):
    got = validate.stated_confidence(val)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize(
    "val, words",
    [
        (150, "outside 0-100"),
        ("high", "not a number"),
        (None, "not a number"),
        ([1], "has type list"),
        (float("nan"), "outside 0-100"),
    ],
)
def test_stated_confidence_errors(val, words):
    with pytest.raises(FieldError, match=words):
        validate.stated_confidence(val)


def test_at_names_file_line_and_field():
    assert validate.at("a.csv", 2, "correct", validate.binary, "1") == 1
    with pytest.raises(DataError) as e:
        validate.at("a.csv", 7, "correct", validate.binary, "2")
    assert str(e.value) == "a.csv, line 7, field 'correct': expected 0 or 1, got '2'"
    assert (e.value.path, e.value.line, e.value.field) == ("a.csv", 7, "correct")


def test_seen_keys_reports_the_first_line():
    s = validate.SeenKeys()
    assert s.add(("m", "1"), 2) is None and s.add(("m", "2"), 3) is None
    assert s.add(("m", "1"), 9) == 2 and s.add(("m", "1"), 11) == 2
    assert ("m", "2") in s and s[("m", "2")] == 3


def test_duplicates_of_integer_keys():
    key = np.array([5, 1, 7, 1, 5, 9])
    assert validate.duplicated(key).tolist() == [False, False, False, True, True, False]
    assert validate.first_duplicate(key) == (3, 1)
    assert validate.first_duplicate(np.array([3, 2, 1])) is None
    big = np.array([10**12, 3, 10**12])  # sparse keys: the sorting path
    assert validate.first_duplicate(big) == (2, 0)


def test_require_columns_message():
    validate.require_columns("rows.csv", ["model"], ["model", "x"])
    with pytest.raises(ValueError, match=r"^rows.csv: missing column\(s\) correct \(has: model\) hint$"):
        validate.require_columns("rows.csv", ["model", "correct"], ["model"], hint=" hint")
    with pytest.raises(ValueError, match=r"^f: missing column\(s\) model$"):
        validate.require_columns("f", ["model"], [], show_present=False)


def test_check_binary_names_the_first_bad_row():
    validate.check_binary(np.zeros(3, bool), "row {}".format, "correct", lambda i: i)
    with pytest.raises(ValueError, match=r"^row 2: field 'correct' must be 0/1 \(or true/false\), got 'x'$"):
        validate.check_binary(
            np.array([False, False, True, True]), "row {}".format, "correct", ["0", "1", "x", "y"].__getitem__
        )


def test_the_three_users_share_the_module():
    from selfconf.cli import collect
    from selfconf.data import collection, families, rows
    from selfconf.report import core

    assert collection.DataError is validate.DataError is families.DataError
    assert rows.NULL_WORDS is validate.NULL_WORDS and rows.TRUE_WORDS is validate.TRUE_WORDS
    assert core.resolve_scale is validate.resolve_scale
    # collect reads a reply's confidence with the shared rule and keeps its (value, why) form
    assert collect._confidence("85%") == (85, None)
    assert collect._confidence(150) == (None, "confidence 150 is outside 0-100")
    # the book's loader: the same rule and message, with file, line and field added
    with pytest.raises(DataError, match=r"^x.csv, line 4, field 'confidence': confidence '101' out of range 0-100$"):
        collection._confidence("101", "x.csv", 4)


def _reference_scale(raw, percent_sign, scale, where):
    """The scale rule written with one mask per condition (the rule before its fast path), as an oracle."""
    present = ~np.isnan(raw)
    if not np.isfinite(raw[present]).all():
        i = int(np.flatnonzero(present & ~np.isfinite(raw))[0])
        raise ValueError(f"{where(i)}: field 'confidence' must be finite, got {float(raw[i])}")
    neg = present & (raw < 0)
    if neg.any():
        i = int(np.flatnonzero(neg)[0])
        raise ValueError(f"{where(i)}: field 'confidence' = {raw[i]:g} is negative")
    if scale == "unit" and percent_sign.any():
        raise ValueError(
            f"{where(int(np.flatnonzero(percent_sign)[0]))}: confidence written with '%' "
            "but --confidence-scale unit was given (use percent or auto)"
        )
    first = lambda m: "; ".join(where(int(i)) for i in np.flatnonzero(m)[:3])  # noqa: E731
    if scale == "auto":
        above = present & ((raw > 1) | percent_sign)
        frac = present & ~percent_sign & (raw <= 1) & (raw != np.floor(raw))
        if above.any() and frac.any():
            raise ValueError(
                "confidences mix scales: values above 1 (or written with %) at "
                f"{first(above)}, and fractional values at or below 1 at {first(frac)}; "
                "fix the file, or pass --confidence-scale percent or unit to state the scale"
            )
        if above.any():
            scale, reason = "percent", "auto-detected: values above 1 (or written with %)"
        elif frac.any():
            scale, reason = "unit", "auto-detected: all values within [0, 1], some strictly between"
        elif present.any() and not (raw[present] == 0).all():
            raise ValueError(
                "every confidence is exactly 0 or 1, which fits both the 0-1 and the 0-100 scale; "
                "pass --confidence-scale unit or --confidence-scale percent"
            )
        elif present.any():
            scale, reason = "unit", "auto-detected: every value is 0, which means the same on either scale"
        else:
            scale, reason = "unit", "no confidences present"
    else:
        reason = "given by --confidence-scale"
    hi = 100.0 if scale == "percent" else 1.0
    over = present & (raw > hi)
    if over.any():
        i = int(np.flatnonzero(over)[0])
        hint = " (0-100 values? use --confidence-scale percent or auto)" if scale == "unit" and raw[i] <= 100 else ""
        raise ValueError(f"{where(i)}: field 'confidence' = {raw[i]:g} is outside the {scale} scale [0, {hi:g}]{hint}")
    return scale, reason


def test_resolve_scale_equals_the_mask_per_condition_rule():
    rng = np.random.default_rng(0)
    pools = [
        [0, 1],
        [0.0],
        [0.5, 0.2, 1, 0],
        list(range(101)),
        [0.3, 80, 1],
        [-1, 5, 50],
        [150, 20],
        [np.inf, 3],
        [1.5, 0.99, 100.5],
        [2.0],
    ]
    outcomes = set()
    for trial in range(3000):
        n = int(rng.integers(0, 8))
        raw = rng.choice(np.array(pools[trial % len(pools)], dtype=float), n)
        raw[rng.random(n) < 0.2] = np.nan
        pct = (rng.random(n) < (0.15 if trial % 3 == 0 else 0)) & ~np.isnan(raw)
        for scale in validate.SCALES:
            got = []
            for rule in (validate.resolve_scale, _reference_scale):
                try:
                    got.append(("ok",) + rule(raw.copy(), pct.copy(), scale, "row {}".format))
                except ValueError as exc:
                    got.append(("error", str(exc)))
            assert got[0] == got[1], (raw, pct, scale)
            outcomes.add(got[0][0] if got[0][0] == "error" else got[0][1:])
    assert {"error", ("percent", "given by --confidence-scale")} <= outcomes and len(outcomes) >= 6
