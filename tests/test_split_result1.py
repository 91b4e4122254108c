"""The named steps of ``selfconf.sections.result1.compute``, each against an outside reference.

Oracles: scikit-learn's ``roc_auc_score`` for AUROCs, numpy percentiles and plain Python loops for counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from selfconf.sections import result1
from selfconf.sections.computed import Builder

RNG = np.random.default_rng(20261206)


def _frontier(n_models: int = 4, n: int = 60) -> pd.DataFrame:
    parts = []
    for i in range(n_models):
        conf = RNG.choice([30, 50, 70, 80, 90, 95, 99], size=n, p=[0.05, 0.1, 0.1, 0.15, 0.3, 0.2, 0.1])
        correct = (RNG.random(n) < 0.3 + 0.6 * conf / 100).astype(int)
        refusal = (RNG.random(n) < 0.1 * i).astype(int)
        parts.append(pd.DataFrame({"model": f"m{i}", "confidence": conf, "correct": correct, "refusal": refusal}))
    fr = pd.concat(parts, ignore_index=True)
    fr["conf01"] = fr["confidence"] / 100
    return fr


@pytest.fixture(scope="module")
def fr():
    return _frontier()


@pytest.fixture(scope="module")
def t1(fr):
    return result1.frontier_table1(
        fr, seed=3, n_boot=50, threshold_points=80, coverages_pct=[100, 50, 20], level=0.95, n_bins=10
    )


def test_refusals_step_matches_sklearn_and_a_loop(fr, t1):
    pv = Builder()
    hc = result1.glue_refusals_high_confidence(pv, fr, t1, "m3")
    v = pv.build()
    kept = fr[(fr["model"] == "m3") & (fr["refusal"] == 0)]
    assert v["r1_anthropic_self_auroc_excl_refusals"] == pytest.approx(roc_auc_score(kept["correct"], kept["conf01"]))
    assert v["r1_anthropic_n_excl_refusals"] == len(kept) < (fr["model"] == "m3").sum()
    hi = fr[fr["confidence"] >= 80]
    assert v["r1_highconf_total_n"] == len(hi) and v["r1_highconf_wrong_n"] == int((hi["correct"] == 0).sum())
    assert v["r1_highconf_wrong_pooled_pct"] == pytest.approx(100 * (hi["correct"] == 0).mean())
    assert list(hc.columns) == ["model", "high_conf_n", "high_conf_wrong", "high_conf_error_rate"]


def test_discrimination_roc_area_is_sklearn_auroc(fr, t1):
    pv = Builder()
    roc = result1.glue_discrimination(pv, fr, t1, chance=0.5, auroc_cut=0.7)
    for m, g in roc.groupby("model"):
        sub = fr[fr["model"] == m]
        assert np.trapezoid(g["tpr"], g["fpr"]) == pytest.approx(roc_auc_score(sub["correct"], sub["conf01"]))
    v = pv.build()
    assert v["r1_n_models_below_threshold"] == sum(
        roc_auc_score(g["correct"], g["conf01"]) < 0.7 for _, g in fr.groupby("model")
    )
    assert roc["cutoff_points"].isna().sum() == fr["model"].nunique()


def test_calibration_step_picks_models_by_a_loop(fr, t1):
    refusals = fr.groupby("model")["refusal"].sum()
    pv = Builder()
    cal = result1.glue_calibration(pv, fr, t1, refusals, threshold_points=80, n_bins=10)
    heavy = max(refusals.index, key=lambda m: refusals[m])
    iqr = {m: np.percentile(g["confidence"], 75) - np.percentile(g["confidence"], 25) for m, g in fr.groupby("model")}
    assert cal["refusal_model"] == heavy
    assert iqr[cal["dispersed_model"]] == max(iqr[m] for m in iqr if m != heavy)  # ties: Table 1's order
    v = pv.build()
    assert v["r1_n_models_median_in_band"] == sum(np.median(g["confidence"]) >= 80 for _, g in fr.groupby("model"))
    # the occupied bins per model, counted by a loop over equal-width bins (an interior edge goes up)
    for m, g in fr.groupby("model"):
        occupied = {min(int(c * 10), 9) for c in g["conf01"]}
        assert cal["table"].set_index("model").loc[m, "occupied_bins"] == len(occupied)


def test_table2_step_errors_are_a_sorted_loop(fr, t1):
    pv = Builder()
    t2 = result1.glue_table2(pv, fr, t1, [100, 50, 20], top_k=2)
    v = pv.build().part("table2")
    assert list(t2["top"]["model"]) == list(t1.sort_values("auroc", ascending=False, kind="stable")["model"][:2])
    for m in t2["top"]["model"]:
        g = fr[fr["model"] == m]
        assert v[f"t2_{m}_err_cov100"] == pytest.approx(100 * (1 - g["correct"].mean()))
    assert v["t2_caption_n_models"] == 2


def test_figure1_step_counts_models_above_the_diagonal():
    rows = _frontier(3, 40).assign(tier="frontier", parse_ok=1, item_id=lambda d: d.index % 40)
    rows["model_id"] = rows["model"]
    local = rows.assign(tier="local", model=lambda d: "L" + d["model"], model_id=lambda d: "L" + d["model_id"])
    rows = pd.concat([rows, local], ignore_index=True)
    fr = result1.frontier_rows(rows)
    t1 = result1.frontier_table1(fr, seed=1, n_boot=20, threshold_points=80, coverages_pct=[100], level=0.95, n_bins=10)
    pv = Builder()
    fig = result1.glue_figure1(pv, rows, t1, refusal_model="m0", dispersed_model="m1")
    v = pv.build()
    above = sum(np.median(g["confidence"]) > 100 * g["correct"].mean() for _, g in rows.groupby("model"))
    assert v["fig1_n_above_diagonal"] == above and len(fig) == 6 == v["fig1_n_models"]
    assert v["fig1_n_local_models"] == 3 and v["fig1_n_items"] == 40
    best = max(
        t1["model"], key=lambda m: roc_auc_score(fr[fr["model"] == m]["correct"], fr[fr["model"] == m]["conf01"])
    )
    assert v["fig1_best_model"] == best


def test_panel_decomposition_records_every_key_once():
    r = dict.fromkeys(
        [
            "self_auroc_pooled",
            "within_model_min",
            "within_model_max",
            "within_model_macro",
            "self_auroc_ranknorm",
            "between_model_identity",
            "panel_auroc_labelfree",
            "panel_auroc",
        ],
        0.5,
    )
    pv = Builder()
    result1.glue_panel_decomposition(pv, {"US": r, "CN": {**r, "panel_auroc": 0.9}}, refusal_auroc=0.7)
    v = pv.build()
    assert v["r1_lf_cn_panel_auroc"] == 0.9 and v["r1_lf_us_panel_auroc"] == 0.5
    assert v["r1_anthropic_self_auroc_full"] == 0.7
