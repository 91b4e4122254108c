"""Page 'Every reading of the panel comparison': the section's computation and summary, without papermill."""

from __future__ import annotations

import numpy as np
import pandas as pd

from selfconf import panels
from selfconf.sections import readings
from selfconf.stats import summary


def rows(seed=0, n=60):
    g = np.random.default_rng(seed)
    m = ["a", "b", "c", "d"]
    return pd.DataFrame(
        {
            "model": np.repeat(m, n),
            "item_id": np.tile(np.arange(n), 4),
            "parse_ok": 1,
            "confidence": g.choice([50, 70, 90], 4 * n),
            "correct": g.integers(0, 2, 4 * n),
            "refusal": (g.random(4 * n) < 0.05).astype(int),
            "answer_class": g.choice(["x", "y", "z"], 4 * n),
        }
    )


def test_compute_uses_result1_streams_and_every_reading():
    df = rows()
    mem = {"P": ("a", "b", "c"), "Q": ("b", "c", "d")}
    t = readings.compute(df, mem, seed=5, n_boot=40, dataset="toy")
    assert set(t["dataset"]) == {"toy"} and list(dict.fromkeys(t["panel"])) == ["P", "Q"]
    assert t.groupby("panel")["canonical"].sum().tolist() == [1, 1]
    for name, members in mem.items():
        iv = panels.panel_intervals(df, members, n_boot=40, rng=summary.model_rng(5, f"panel:{name}"))
        c = t[(t["panel"] == name) & t["canonical"]].iloc[0]
        assert (c["delta_ci_low"], c["delta_ci_high"]) == iv["delta_panel_minus_self_ci"]


def test_survival_counts_against_a_hand_table():
    base = dict(panels.CANONICAL_READING)
    recs = [
        {**base, "member": "", "canonical": True, "delta": 0.10, "delta_ci_low": 0.05, "delta_ci_high": 0.15},
        {
            **base,
            "ties": "loss",
            "member": "",
            "canonical": False,
            "delta": -0.1,
            "delta_ci_low": -0.2,
            "delta_ci_high": -0.05,
        },
        {
            **base,
            "ties": "loss",
            "signal": "any",
            "member": "",
            "canonical": False,
            "delta": -0.2,
            "delta_ci_low": -0.3,
            "delta_ci_high": -0.1,
        },
        {
            **base,
            "ties": "win",
            "member": "",
            "canonical": False,
            "delta": 0.01,
            "delta_ci_low": -0.02,
            "delta_ci_high": 0.04,
        },
        {
            **base,
            "coding": "label_free",
            "member": "",
            "canonical": False,
            "delta": 0.2,
            "delta_ci_low": 0.1,
            "delta_ci_high": 0.3,
        },
    ]
    t = pd.DataFrame(recs).assign(panel="CN")
    s = readings.survival(t)["CN"]
    assert (s["n_readings"], s["n_survive"], s["n_inconclusive"], s["n_reversed"]) == (5, 2, 1, 2)
    assert s["common"] == ["ties=loss"] and s["reversing_choices"] == {"ties=loss": 2, "signal=any": 1}
    assert (s["min_delta"], s["max_delta"]) == (-0.2, 0.2)
    text = readings.survival_sentence("CN", s)
    # ties loss / win are bounds: the two reasonable readings keep the direction, the three bounds do not
    assert (s["n_reasonable"], s["n_reasonable_survive"], s["n_bound"], s["n_bound_reversed"]) == (2, 2, 3, 2)
    assert "under 2 of 2 reasonable readings (inconclusive under 0, reversed under 0)" in text
    assert "under 0 of 3 bounds (inconclusive under 1, reversed under 2)" in text
    assert "every reversal uses ties=loss" in text


# ---------------------------------------------------------------------------------------------
# sensitivities (selfconf.sections.sensitivity), on hand-made rows
# ---------------------------------------------------------------------------------------------


def frontier(seed=0, n=80):
    from selfconf.sections import sensitivity  # noqa: F401  (imported by the tests below)

    g = np.random.default_rng(seed)
    recs = []
    for m in ("deepseek", "alibaba", "moonshot", "x"):
        for i in range(n):
            y = int(g.random() < 0.6)
            recs.append(
                {
                    "tier": "frontier",
                    "model": m,
                    "item_id": i,
                    "parse_ok": 1,
                    "confidence": int(g.choice([60, 80, 90, 95])) + 4 * y,
                    "correct": y,
                    "refusal": 0,
                    "answer_class": "g" if y else str(g.choice(["a", "b"])),
                    "graded_by": "llm" if i % 2 else "string",
                    "served_by": "aggregator" if (m == "moonshot" and i < n // 2) else "first_party",
                }
            )
    return pd.DataFrame(recs)


def test_count_claims_distribution_is_a_distribution_of_the_point_count():
    from selfconf import metrics
    from selfconf.sections import sensitivity

    df = frontier()
    cut = 0.6
    point = sum(metrics.auroc(g["confidence"], g["correct"]) < cut for _, g in df.groupby("model"))
    c = sensitivity.count_claims(df, auroc_cut=cut, band=(80, 95), seed=3, n_boot=200)
    assert c["below"]["point"] == point and c["n_models"] == 4
    assert abs(sum(c["below"]["distribution"].values()) - 1) < 1e-12
    assert c["below"]["p_point"] == c["below"]["distribution"].get(point, 0.0)
    assert c["below"]["min"] <= c["below"]["range95"][0] <= c["below"]["range95"][1] <= c["below"]["max"] <= 4


def test_grader_worst_case_and_zero_flips():
    from selfconf import metrics
    from selfconf.sections import sensitivity

    df = frontier()
    g = sensitivity.grader_sensitivity(df, shares=(0.0,), n_draws=5, seed=1, n_boot=50)
    zero = g[g["share"] == "0%"]
    assert (zero["max_abs_change"] == 0).all() and (zero["flipped"] == 0).all()
    worst = g[g["share"] == "worst case"].set_index("model")
    m = df[df["model"] == "x"]
    y = np.where((m["graded_by"] == "llm") & (m["correct"] == 1), 0, m["correct"])
    assert worst.loc["x", "perturbed"] == metrics.auroc(m["confidence"], y)
    assert worst.loc["x", "flipped"] == int(((m["graded_by"] == "llm") & (m["correct"] == 1)).sum())


def test_first_party_split_uses_the_routes_items():
    from selfconf.sections import sensitivity

    df = frontier()
    f = sensitivity.first_party_split(df, seed=2, n_boot=50).set_index("route")
    assert f.loc["aggregator", "items"] == 40 and f.loc["first_party", "items"] == 40
