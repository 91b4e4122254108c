"""The summaries chapters 21 and 26 quote (``sections.seedvar``, ``sections.realanswers_summary``), each
against an independent plain-Python loop or the standard library."""

from __future__ import annotations

import statistics

import numpy as np
import pandas as pd
import pytest

from selfconf.report.core import coverage_key
from selfconf.sections import realanswers_summary as rs
from selfconf.sections import seedvar

RNG = np.random.default_rng(20261206)


def _runs(n_models: int = 4, n_seeds: int = 6) -> pd.DataFrame:
    rows = []
    for m in range(n_models):
        for s in range(n_seeds):
            lo = 0.6 + 0.01 * m + RNG.normal(0, 0.002)
            rows.append(
                {
                    "model": f"m{m}",
                    "n": 500 * (m + 1),
                    "auroc": 0.7 + 0.01 * m,
                    "auroc_ci_low": lo,
                    "auroc_ci_high": lo + 0.2 + RNG.normal(0, 0.002),
                    "seed": s,
                }
            )
    return pd.DataFrame(rows)


def test_endpoint_spread_against_the_statistics_module() -> None:
    runs = _runs()
    mc = seedvar.endpoint_spread(runs, n_boot=2000).set_index("model")
    for model, g in runs.groupby("model"):
        for end, col in (("low", "auroc_ci_low"), ("high", "auroc_ci_high")):
            xs = g[col].tolist()
            assert mc.at[model, f"{end}: mean"] == pytest.approx(statistics.fmean(xs), rel=1e-12)
            assert mc.at[model, f"{end}: SD"] == pytest.approx(statistics.stdev(xs), rel=1e-9)
            assert mc.at[model, f"{end}: range"] == pytest.approx(max(xs) - min(xs), rel=1e-12)
            assert mc.at[model, f"printed {end}s"] == len({f"{x:.3f}" for x in xs})


def test_spread_summary_against_loops() -> None:
    runs = _runs()
    mc = seedvar.endpoint_spread(runs, n_boot=2000)
    t1_lo = {"m0": float(runs.loc[runs["model"] == "m0", "auroc_ci_low"].iloc[2]), "m1": 0.0}
    t1_hi = {"m0": float(runs.loc[runs["model"] == "m0", "auroc_ci_high"].iloc[3]), "m1": 0.8}
    s = seedvar.spread_summary(mc, t1_lo, t1_hi, big=1500)
    sds = list(mc["low: SD"]) + list(mc["high: SD"])
    assert s["median_sd"] == pytest.approx(statistics.median(sds))
    assert s["max_sd"] == pytest.approx(max(sds))
    assert s["n_big"] == sum(n >= 1500 for n in mc["n"])
    assert s["n_t1"] == 2 and s["n_t1_inside"] == 1  # m1's Table 1 low of 0.0 lies outside the seeds' range
    assert s["sd_axis_max"] == pytest.approx(max(sds + list(mc["predicted SD"])))
    assert s["n_endpoints"] == 2 * runs["model"].nunique()


def test_seed_helpers() -> None:
    assert seedvar.page_seeds(5, 4) == [int(x) for x in np.random.SeedSequence(5).generate_state(4, np.uint32)]
    assert seedvar.sd_relative_error(9) == pytest.approx(100 / 4)
    rows, n_out = seedvar.graded_rows(
        pd.DataFrame({"parse_ok": [1, 0, 0, 1], "confidence": [50, None, 3, 100], "correct": [True, 0, 1, False]})
    )
    assert n_out == 2 and rows["confidence"].tolist() == [0.5, 1.0] and rows["correct"].tolist() == [1, 0]


def _t1(n_models: int = 5) -> pd.DataFrame:
    rows = []
    for m in range(n_models):
        acc, conf = RNG.uniform(0.4, 0.8), RNG.uniform(0.7, 0.95)
        rows.append(
            {
                "model": f"m{m}",
                "n": int(RNG.integers(100, 1000)),
                "accuracy": acc,
                "median_confidence": conf,
                "citl": conf - acc,
                "citl_ci_low": conf - acc - 0.05,
                "auroc": RNG.uniform(0.5, 0.8),
                "auroc_ci_low": RNG.uniform(0.45, 0.6),
                "high_conf_n": int(RNG.integers(10, 90)),
                "high_conf_error_rate": RNG.uniform(0.1, 0.5),
                "risk_coverage": {coverage_key(0.2): RNG.uniform(0.05, 0.2), coverage_key(1.0): RNG.uniform(0.3, 0.5)},
            }
        )
    return pd.DataFrame(rows)


def test_table1_ranges_against_loops() -> None:
    t1 = _t1()
    r = rs.table1_ranges(t1, chance=0.5, auroc_cut=0.7)
    recs = t1.to_dict("records")
    assert r["acc_min"] == pytest.approx(100 * min(x["accuracy"] for x in recs))
    assert r["citl_max_model"] == max(recs, key=lambda x: x["citl"])["model"]
    assert r["auroc_min_model"] == min(recs, key=lambda x: x["auroc"])["model"]
    assert r["n_below_cut"] == sum(x["auroc"] < 0.7 for x in recs)
    assert r["hc_wrong"] == sum(round(x["high_conf_error_rate"] * x["high_conf_n"]) for x in recs)
    share = 100 * sum(x["high_conf_n"] for x in recs) / sum(x["n"] for x in recs)
    assert r["hc_share_pct"] == pytest.approx(share)
    assert r["hc_err_macro"] == pytest.approx(100 * statistics.fmean(x["high_conf_error_rate"] for x in recs))
    assert rs.n_above_diagonal(t1) == sum(x["median_confidence"] > x["accuracy"] for x in recs)
    risk = rs.risk_summary(t1, coverage_pct=20)
    assert risk["risk_share_kept_max"] == pytest.approx(
        100 * max(x["risk_coverage"][coverage_key(0.2)] / x["risk_coverage"][coverage_key(1.0)] for x in recs)
    )


def test_bin_summary_against_loops() -> None:
    rel = pd.DataFrame(
        {
            "model": ["a", "a", "a", "b", "b", "c"],
            "lo": [0.0, 0.4, 0.9, 0.2, 0.9, 0.9],
            "hi": [0.1, 0.5, 1.0, 0.3, 1.0, 1.0],
            "n": [3, 4, 20, 0, 10, 5],
            "gap": [-0.1, -0.05, 0.2, -0.3, 0.1, 0.05],
        }
    )
    s = rs.bin_summary(rel, ["a", "b", "c"], high_conf_points=90)
    occupied = [r for r in rel.to_dict("records") if r["n"] > 0]
    nonpos = [r for r in occupied if r["gap"] <= 0]
    per_model = [sum(r["model"] == m for r in nonpos) for m in ("a", "b", "c")]
    assert s["n_models_all_bins_positive"] == per_model.count(0) == 2  # b's only non-positive bin is empty
    assert s["nonpos_bins_median"] == statistics.median(per_model)
    assert s["nonpos_answers_share_pct"] == pytest.approx(
        100 * sum(r["n"] for r in nonpos) / sum(r["n"] for r in occupied)
    )
    assert s["nonpos_share_low_pct"] == 100.0 and s["low_modest_high_over"] is True
    rel.loc[5, "gap"] = -0.01  # a top bin that is not overconfident
    assert rs.bin_summary(rel, ["a", "b", "c"], high_conf_points=90)["low_modest_high_over"] is False


def test_subject_table_and_counts_against_loops() -> None:
    by = pd.DataFrame(
        {
            "group": list("xxxyyz"),
            "n": [5, 6, 7, 8, 9, 10],
            "auroc": [0.6, 0.7, 0.9, 0.5, 0.55, 0.8],
            "citl": [0.1, 0.2, 0.0, -0.1, 0.3, 0.05],
            "auroc_ci_low": [0.45, 0.55, 0.8, 0.4, 0.5, 0.7],
            "citl_ci_low": [0.0, 0.1, -0.1, -0.2, 0.2, 0.01],
            "citl_ci_high": [0.2, 0.3, 0.1, -0.01, 0.4, 0.1],
        }
    )
    t = rs.subject_table(by, chance=0.5)
    assert list(t.index) == ["z", "x", "y"]  # medians 0.8, 0.7, 0.525
    for g, sub in by.groupby("group"):
        assert t.at[g, "answers"] == sum(sub["n"])
        assert t.at[g, "auroc_median"] == pytest.approx(statistics.median(sub["auroc"]))
        assert t.at[g, "n_auroc_ci_above"] == sum(v > 0.5 for v in sub["auroc_ci_low"])
        assert t.at[g, "n_citl_ci_above"] == sum(v > 0 for v in sub["citl_ci_low"])
    assert rs.subject_counts(by, chance=0.5) == {
        "subject_n_cells": 6,
        "subject_n_citl_negative": 1,
        "subject_n_auroc_not_above": 3,
    }


def test_collection_panel_and_verdict_counts() -> None:
    ext = pd.DataFrame(
        {
            "model": ["a", "a", "b", "b", "b"],
            "item_id": [1, 2, 1, 2, 3],
            "category": ["x", "y", "x", "y", "y"],
            "confidence": [0.9, None, None, None, 0.4],
            "answer": ["A", "", "", "C", ""],
            "gold": ["A", "B", "A", "B", "J"],
        }
    )
    c = rs.collection_counts(ext)
    assert (c["n_missing"], c["missing_max"], c["missing_max_model"], c["n_no_letter"]) == (3, 2, "b", 1)
    assert rs.n_options(ext) == 3
    pres = {
        "US": {"n_rows_codings_differ": 1, "delta_labelfree_minus_panel": -0.04, "delta_panel_minus_self_ci": (0, 1)},
        "CN": {"n_rows_codings_differ": 2, "delta_labelfree_minus_panel": 0.01, "delta_panel_minus_self_ci": (1, 2)},
    }
    assert rs.panel_summary(pres) == {
        "n_rows_codings_differ": 3,
        "max_abs_lf_minus_canonical": 0.04,
        "n_panels_beat_self": 1,  # an interval starting at 0 does not lie above 0
        "n_panels": 2,
    }
    recs = [
        {"scope": "paper", "verdict": "holds", "verdict_declared": "holds"},
        {"scope": "paper", "verdict": "does not hold", "verdict_declared": "holds"},
        {"scope": "extension", "verdict": "inconclusive", "verdict_declared": "inconclusive"},
    ]
    assert rs.verdict_counts(recs) == {
        "n_paper_records": 2,
        "n_extension_records": 1,
        "n_paper_holds": 1,
        "n_extension_holds": 0,
        "n_verdict_changed": 1,
    }
