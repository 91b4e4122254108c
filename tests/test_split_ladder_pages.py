"""The named steps of ``selfconf.sections.result2.compute`` and ``result3.compute``, against outside references.

Oracles: scipy's normal quantiles (power), scipy's correlations (placebo), plain loops over the rows.
"""

from __future__ import annotations

import pytest
from scipy import stats

from selfconf.data import families
from selfconf.sections import ladder, result2, result3
from selfconf.sections.computed import Builder

DATA = "data/reconstructed"


@pytest.fixture(scope="module")
def ladder_rows():
    frames, profiles, _ = families.load_ladder(DATA)
    return frames, profiles


@pytest.fixture(scope="module")
def probes():
    return families.load_probes(DATA)[0]


def test_rungs_step_demotes_by_off_accuracy_and_refuses_a_wrong_design(ladder_rows):
    frames, _ = ladder_rows
    b = Builder()
    confirmatory = result2.glue_rungs(b, frames, bound=0.85, n_rungs=len(frames))
    v = b.build()
    off_acc = {s: ladder.arm_table(f).set_index("arm").loc["off", "accuracy"] for s, f in frames.items()}
    assert [s for s, a in off_acc.items() if a <= 0.85] == [confirmatory]
    demoted = sorted(a for a in off_acc.values() if a > 0.85)
    assert [v[f"ladder_demoted_rung{k + 1}_off_acc"] for k in range(len(demoted))] == demoted
    with pytest.raises(ValueError, match="the design has 5 rungs"):
        result2.glue_rungs(Builder(), frames, bound=0.85, n_rungs=5)
    with pytest.raises(ValueError, match="0 confirmatory-eligible"):
        result2.glue_rungs(Builder(), frames, bound=0.0, n_rungs=len(frames))


def test_battery_step_counts_items_by_a_loop(ladder_rows):
    frames, _ = ladder_rows
    conf = frames["sonnet5"]
    b = Builder()
    result2.glue_battery(b, conf)
    v = b.build()
    traps = {i for i, t in zip(conf["item_id"], conf["is_trap"], strict=True) if t}
    assert v["ladder_n_trap_items"] == len(traps)
    assert v["ladder_n_items_battery"] == len(set(conf["item_id"]))
    assert int(b.tables["per_bin"]["items"].sum()) == len(set(conf["item_id"]))


def test_power_step_uses_normal_quantiles():
    import pandas as pd

    b = Builder()
    result2.glue_power(b, pd.Series({"ci_low": -0.01, "ci_high": 0.07, "delta": 0.03}), n_boot=500)
    v = b.build()
    se = 0.08 / (2 * stats.norm.ppf(0.975))
    assert v["ladder_power_se_computed"] == pytest.approx(se)
    assert v["ladder_power_min_delta_computed"] == pytest.approx((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * se)
    assert v["ladder_power_at_observed_pct"] == pytest.approx(100 * stats.norm.cdf(0.03 / se - stats.norm.ppf(0.975)))
    assert v["ladder_n_boot"] == 500


def test_table3_step_glues_each_repeat_as_its_canonical_value(ladder_rows):
    frames, _ = ladder_rows
    b = Builder()
    pl = result2.glue_table3(b, frames["sonnet5"], seed=3, n_boot=30)
    v = b.build()
    assert v["r2_ladder_delta"] == v["ladder_core_vs_placebo_delta"] == pl["delta"]
    t3 = b.tables["arm_table"]
    for arm in ladder.ARMS:
        sub = frames["sonnet5"][frames["sonnet5"]["arm"] == arm]
        assert v[f"t3_{arm}_acc"] == t3.loc[arm, "accuracy"]
        assert len(sub) >= t3.loc[arm, "n_rows"]


def test_placebo_step_one_key_per_subject(ladder_rows):
    _, profiles = ladder_rows
    b = Builder()
    result2.glue_placebo(b, profiles)
    v = b.build().part("placebo")
    assert len(v) == len(ladder.SUBJECTS) and all(-1 <= r <= 1 for r in v.values())


def test_frontier_step_refuses_a_rung_that_is_not_demoted(ladder_rows):
    frames, _ = ladder_rows
    with pytest.raises(ValueError, match="sonnet5 is not a demoted rung"):
        result3.glue_frontier_rung(Builder(), frames, bound=0.85, seed=1, n_boot=10, frontier_subject="sonnet5")


def test_microprobe_step_top_model_by_a_loop(probes):
    b = Builder()
    result3.glue_microprobe(b, probes["microprobe"])
    v = b.build()
    deltas = {m: v[f"t4_{s}_delta"] for m, s in result3.SHORT_NAMES.items() if f"t4_{s}_delta" in v.values}
    top = max(deltas, key=lambda m: deltas[m])
    assert v["r3_microprobe_top_model"] == top and v["r3_microprobe_largest_shift"] == deltas[top]
    assert v[f"t4_{result3.SHORT_NAMES[top]}_conf_at_95"] - v[f"t4_{result3.SHORT_NAMES[top]}_conf_at_0"] == deltas[top]


def test_pages_compute_is_the_steps_in_order(ladder_rows, probes):
    frames, profiles = ladder_rows
    r2 = result2.compute(frames, profiles, bound=0.85, n_rungs=4, seed=1, n_boot=20)
    assert tuple(r2.parts) == ("rungs", "battery", "table3", "power", "oracle", "placebo")
    r3 = result3.compute(frames, probes, bound=0.85, seed=1, n_boot=20)
    assert tuple(r3.parts) == ("frontier", "confirmatory", "microprobe", "topic", "examples")
