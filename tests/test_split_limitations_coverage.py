"""The named steps of ``selfconf.sections.limitations.compute`` and ``coverage.compute``, against loops."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from selfconf.data import families, load_collection
from selfconf.sections import coverage, limitations
from selfconf.sections.computed import Builder

DATA = "data/reconstructed"


def test_twostage_step_counts_by_a_loop():
    tsd, _ = families.load_twostage(DATA)
    b = Builder()
    limitations.glue_twostage(b, tsd, seed=2, n_boot=20)
    v = b.build()
    assert v["twostage_n_unresolved"] == sum(lab == "unresolved" for lab in tsd["label"])
    assert v["twostage_n_items_rows"] == len(set(tsd["item_id"]))
    au = b.tables["twostage_auroc"]
    inline = [c for c, f in zip(au["mean_conf"], au["format"], strict=True) if f == "inline"]
    assert v["twostage_mean_conf_inline"] == pytest.approx(sum(inline) / len(inline))


def test_regrade_step_verdict_agrees_with_the_reading():
    regrade, _ = families.load_regrade(DATA)
    b = Builder()
    limitations.glue_regrade(b, regrade)
    v = b.build()
    cannot = v["regrade_selfrows_verdict"] == "It cannot be"
    assert cannot == (not v["regrade_selfrows_reading"].endswith("both reachable there too"))
    assert v["regrade_n_rows_computed"] >= v["regrade_down_flips"] + v["regrade_up_flips"]


def test_population_step_keeps_frontier_rows_and_refuses_two_rungs():
    rows, _ = load_collection(DATA)
    frames = families.load_ladder(DATA)[0]
    pop, rung, subject = coverage.population(rows, frames, bound=0.85)
    assert len(pop) == int((rows["tier"] == "frontier").sum())
    assert not rung["is_trap"].any() and subject in frames
    with pytest.raises(ValueError, match="confirmatory-eligible rungs; the study expects exactly one"):
        coverage.population(rows, frames, bound=1.0)


def test_coverage_tables_step_against_a_loop():
    rng = np.random.default_rng(5)
    truth = pd.DataFrame({"type": ["panel_delta"] * 2, "quantity": ["US", "CN"], "estimate": [0.0, 0.1]})
    recs = []
    for r in range(40):
        for q, t in (("US", 0.0), ("CN", 0.1)):
            e = t + rng.normal(0, 0.05)
            recs.append(
                {"replicate": r, "type": "panel_delta", "quantity": q, "estimate": e, "low": e - 0.08, "high": e + 0.08}
            )
    rep = pd.DataFrame(recs)
    per_q, rep2, pooled = coverage.coverage_tables(truth, rep)
    for q, t in (("US", 0.0), ("CN", 0.1)):
        hits = [lo <= t <= hi for qq, lo, hi in zip(rep["quantity"], rep["low"], rep["high"], strict=True) if qq == q]
        assert per_q.set_index("quantity").loc[q, "coverage"] == pytest.approx(sum(hits) / len(hits))
    share = [
        np.mean([lo <= (0.0 if q == "US" else 0.1) <= hi for q, lo, hi in g[["quantity", "low", "high"]].to_numpy()])
        for _, g in rep.groupby("replicate")
    ]
    assert pooled["panel_delta"]["coverage"] == pytest.approx(np.mean(share))
    assert pooled["panel_delta"]["mc_se"] == pytest.approx(np.std(share, ddof=1) / np.sqrt(40))
    assert list(pooled) == ["panel_delta"]
