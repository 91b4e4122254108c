"""Tests of selfconf.sections.ladder on small hand-made data and on the shipped ladder bundle."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from selfconf.data.paths import resolve
from selfconf.sections import ladder


def _rows(spec):
    """spec: list of (item, bin, arm, rep, is_trap, status, abstained, conf, correct)."""
    cols = ["item_id", "bin", "arm", "replicate", "is_trap", "status", "abstained", "confidence", "correct"]
    df = pd.DataFrame(spec, columns=cols)
    df["confidence"] = df["confidence"].astype(float)
    return df


def toy_three_bins():
    """3 bins x 2 items, one arm, one replicate per item; correctness chosen so LOO is easy by hand."""
    spec = []
    truth = {
        ("a1", "A"): [1, 1],
        ("a2", "A"): [1, 0],
        ("b1", "B"): [0, 0],
        ("b2", "B"): [1, 0],
        ("c1", "C"): [1, 1],
        ("c2", "C"): [1, 1],
    }
    for (item, b), ys in truth.items():
        for rep, y in enumerate(ys, 1):
            spec.append((item, b, "off", rep, False, "ok", False, 80.0, bool(y)))
    return _rows(spec)


def test_loo_bin_accuracy_by_hand():
    r = ladder.loo_bin_accuracy(toy_three_bins())
    loo = r.drop_duplicates("item_id").set_index("item_id")["loo_acc"]
    # a1's predictor is a2's accuracy (1/2); a2's is a1's (2/2); b1 <- b2 (1/2); b2 <- b1 (0/2); c's <- 1
    assert loo.to_dict() == {"a1": 0.5, "a2": 1.0, "b1": 0.5, "b2": 0.0, "c1": 1.0, "c2": 1.0}


def test_oracle_auroc_by_hand():
    out = ladder.oracle_ceiling(toy_three_bins())
    # positives (y=1) and their predictors: a1 .5 x2, a2 1, b2 0, c1 1 x2, c2 1 x2 -> 8 positives
    # negatives: a2 1, b1 .5 x2, b2 0 -> 4 negatives.  Count P(x_pos > x_neg) + 0.5 ties by hand:
    pos = [0.5, 0.5, 1, 0, 1, 1, 1, 1]
    neg = [1, 0.5, 0.5, 0]
    exp = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
    assert out["auroc"] == pytest.approx(exp)
    assert out["n_rows"] == 12
    acc = out["bin_acc"]
    assert acc["A"] == pytest.approx(0.75) and acc["B"] == pytest.approx(0.25) and acc["C"] == 1.0
    assert out["bin_acc_sd"] == pytest.approx(np.std([0.75, 0.25, 1.0], ddof=1))


def test_loo_single_item_bin_raises():
    df = _rows(
        [
            ("x1", "X", "off", 1, False, "ok", False, 50.0, True),
            ("y1", "Y", "off", 1, False, "ok", False, 50.0, False),
            ("y2", "Y", "off", 1, False, "ok", False, 50.0, True),
        ]
    )
    with pytest.raises(ValueError, match="only item"):
        ladder.loo_bin_accuracy(df)


def test_oracle_excludes_failed_and_traps_keeps_abstentions():
    df = toy_three_bins()
    extra = _rows(
        [
            ("a1", "A", "off", 3, False, "parse_error", False, np.nan, False),
            ("t1", "A", "off", 1, True, "ok", True, np.nan, True),
            ("b1", "B", "off", 3, False, "ok", True, np.nan, False),
        ]
    )
    out = ladder.oracle_ceiling(pd.concat([df, extra], ignore_index=True))
    assert out["n_rows"] == 13  # the abstention stays (as incorrect); failure and trap leave


def test_arm_table_definitions():
    df = _rows(
        [
            ("i1", "A", "off", 1, False, "ok", False, 90.0, True),
            ("i2", "A", "off", 1, False, "ok", False, 60.0, False),
            ("i3", "A", "off", 1, False, "ok", True, np.nan, False),
            ("i4", "A", "off", 1, False, "parse_error", False, np.nan, False),
            ("t1", "A", "off", 1, True, "ok", False, 99.0, False),
        ]
    )
    t = ladder.arm_table(df).set_index("arm").loc["off"]
    assert t["n_rows"] == 4 and t["n_correct"] == 1 and t["accuracy"] == 0.25
    assert t["n_answered"] == 2 and t["auroc"] == 1.0
    assert t["brier"] == pytest.approx(((0.9 - 1) ** 2 + 0.6**2) / 2)


def test_degeneracy_rule_is_strict():
    assert ladder.is_degenerate(0.851) and not ladder.is_degenerate(0.85) and not ladder.is_degenerate(0.847)


def test_matched_cells_and_paired_point_estimate():
    spec = []
    for i in range(40):
        y = i % 2 == 0
        spec.append((f"i{i:02d}", "A", "core", 1, False, "ok", False, 90.0 if y else 40.0, y))
        spec.append((f"i{i:02d}", "A", "placebo", 1, False, "ok", i == 39, np.nan if i == 39 else 70.0, y))
    df = _rows(spec)
    a, b = ladder.matched_cells(df, "core", "placebo")
    assert list(a["item_id"]) == list(b["item_id"]) == [f"i{i:02d}" for i in range(39)]
    pc = ladder.paired_contrast(df, "placebo", n_boot=200, seed=1)
    assert pc.estimate == pytest.approx(1.0 - 0.5)


def test_placebo_spearman_with_ties():
    prof = pd.DataFrame({"core": [0.1, 0.2, 0.2, 0.9], "placebo": [0.5, 0.5, 0.6, 0.4]})
    from scipy.stats import spearmanr

    assert ladder.placebo_correlation(prof) == pytest.approx(spearmanr(prof["placebo"], prof["core"]).statistic)


def test_power_from_ci_matches_paper_arithmetic():
    pw = ladder.power_from_ci(-0.002, 0.086, observed=0.041)
    assert pw["se"] == pytest.approx(0.088 / (2 * 1.959964), rel=1e-5)
    assert pw["min_delta"] == pytest.approx((1.959964 + 0.841621) * pw["se"], rel=1e-5)
    assert 0.40 < pw["power_at_observed"] < 0.50


def test_loader_errors_name_file_line_field(tmp_path, monkeypatch):
    d = tmp_path / "ladder"
    d.mkdir()
    good = {
        "item_id": "x",
        "bin": "A",
        "arm": "off",
        "replicate": 1,
        "is_trap": False,
        "status": "ok",
        "abstained": False,
        "confidence": 50,
        "correct": True,
    }
    bad = dict(good, confidence=140)
    (d / "scored-arms-s.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ValueError, match=r"scored-arms-s.jsonl:2: field 'confidence' = 140"):
        ladder.load_scored_arms(tmp_path, "s")
    (d / "scored-arms-s.jsonl").write_text(json.dumps(dict(good, arm="sideways")) + "\n")
    with pytest.raises(ValueError, match=r":1: field 'arm'"):
        ladder.load_scored_arms(tmp_path, "s")
    with pytest.raises(FileNotFoundError):
        ladder.load_scored_arms(tmp_path, "missing")


# ------------------------------------------------------------------ on the shipped bundle
DATA = "data/reconstructed"


def _have_bundle():
    return (resolve(DATA) / "ladder" / "scored-arms-sonnet5.jsonl").is_file()


@pytest.mark.skipif(not _have_bundle(), reason="ladder bundle not generated")
def test_bundle_shape_and_rule():
    frames = {s: ladder.load_scored_arms(DATA, s) for s in ladder.SUBJECTS}
    for df in frames.values():
        assert len(df) == 315 * 4 * 2
        assert df["item_id"].nunique() == 315 and df["bin"].nunique() == 21
        assert ladder.scored_rows(df)["item_id"].nunique() == 294
    st = ladder.rung_status(frames)
    assert int((~st["demoted"]).sum()) == 1
    assert (st.loc[st["demoted"], "off_accuracy"] > 0.85).all()


@pytest.mark.skipif(not _have_bundle(), reason="ladder bundle not generated")
def test_seed_changes_only_bootstrap_values():
    df = ladder.load_scored_arms(DATA, "sonnet5")
    a = ladder.confirmatory_contrasts(df, n_boot=300, seed=1).set_index("contrast")
    b = ladder.confirmatory_contrasts(df, n_boot=300, seed=2).set_index("contrast")
    assert (a["delta"] == b["delta"]).all() and (a["n_pairs"] == b["n_pairs"]).all()
    assert (a["ci_low"] != b["ci_low"]).any()
    c = ladder.confirmatory_contrasts(df, n_boot=300, seed=1).set_index("contrast")
    pd.testing.assert_frame_equal(a, c)
    assert ladder.arm_table(df).equals(ladder.arm_table(df))
