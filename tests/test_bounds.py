"""Analytic AUROC standard errors of the generator (selfconf.reconstruct.bounds)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from selfconf import bootstrap, metrics
from selfconf.reconstruct.bounds import (
    block_tied_table,
    clustered_auroc_influence,
    clustered_auroc_se,
    delong_se_from_table,
    min_delong_se,
)
from selfconf.reconstruct.tables import delong_se_table

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "data" / "reconstructed" / "fidelity_collection.json"
GOOGLE_ROWS = [292, 292, 292, 292, 293]
GOOGLE_ERRORS = [44, 65, 66, 111, 203]


def _rows(c0, c1):
    lv = np.arange(len(c0), dtype=float)
    score = np.concatenate([np.repeat(lv, c0), np.repeat(lv, c1)])
    y = np.concatenate([np.zeros(int(np.sum(c0)), int), np.ones(int(np.sum(c1)), int)])
    return score, y


def test_influence_auroc_and_singleton_clusters_match_delong():
    rng = np.random.default_rng(3)
    score = rng.integers(0, 10, 400).astype(float)
    y = (rng.random(400) < 0.3 + 0.05 * score).astype(int)
    a, s = clustered_auroc_influence(score, y, np.arange(400))
    assert a == pytest.approx(metrics.auroc(score, y))
    assert s.sum() == pytest.approx(0.0, abs=1e-12)
    c0 = np.bincount(score[y == 0].astype(int), minlength=10)
    c1 = np.bincount(score[y == 1].astype(int), minlength=10)
    se_dl = delong_se_table(np.arange(10), c0, c1)
    # singleton clusters: the DeLong variance with n in place of n - 1
    assert clustered_auroc_se(score, y, np.arange(400)) == pytest.approx(se_dl, rel=0.01)


def test_clustered_se_tracks_item_bootstrap():
    rng = np.random.default_rng(11)
    n_items, per = 300, 3
    e = rng.standard_normal(n_items)
    item = np.repeat(np.arange(n_items), per)
    score = np.round(10 * (0.7 * e[item] + 0.7 * rng.standard_normal(item.size)))
    y = (e[item] + rng.standard_normal(item.size) > 0).astype(int)
    se = clustered_auroc_se(score, y, item)
    pc = bootstrap.paired_auroc_contrast(score, score, y, y, item, n_boot=4000, rng=np.random.default_rng(5))
    boot_sd = float(np.std(pc.auroc_a.draws))
    assert se == pytest.approx(boot_sd, rel=0.08)
    # ignoring the clusters understates the SE when rows of an item move together
    assert clustered_auroc_se(score, y, np.arange(item.size)) < 0.95 * se


@pytest.mark.slow
def test_min_delong_se_search_beats_block_tied_table_and_is_consistent():
    c0, c1 = block_tied_table(GOOGLE_ROWS, GOOGLE_ERRORS)
    tied_auroc, tied_se = delong_se_from_table(c0, c1)
    window = (tied_auroc - 0.0005, tied_auroc + 0.0005)
    res = min_delong_se(GOOGLE_ROWS, GOOGLE_ERRORS, window, max_tie=1)
    assert window[0] <= res.auroc <= window[1]
    assert res.se <= tied_se + 1e-12
    assert res.lower_bound <= res.se + 1e-12
    # the returned ordering really has that AUROC, SE and the blocks' error counts
    score, y = _rows(res.c0, res.c1)
    assert metrics.auroc(score, y) == pytest.approx(res.auroc)
    assert delong_se_table(np.arange(len(res.c0)), np.array(res.c0), np.array(res.c1)) == pytest.approx(res.se)
    order = np.argsort(-score, kind="stable")
    cuts = np.cumsum(GOOGLE_ROWS)
    wrong = 1 - y[order]
    assert [int(wrong[a:b].sum()) for a, b in zip(np.r_[0, cuts[:-1]], cuts, strict=True)] == GOOGLE_ERRORS
    assert all(score[order][k - 1] != score[order][k] for k in cuts[:-1])  # no tie straddles a block


def test_min_delong_se_rejects_bad_blocks():
    with pytest.raises(ValueError):
        min_delong_se([10, 10], [11, 2], (0.5, 0.6))


@pytest.mark.skipif(not SHIPPED.is_file(), reason="reconstruction not generated")
def test_recorded_google_bound_exceeds_printed_implied_se():
    rep = json.loads(SHIPPED.read_text())
    for c in rep["known_conflicts"] + rep["reconstruction_limits"]:
        assert set(c) >= {"claims", "reason", "evidence", "closest_attainable"}
    limit = next(c for c in rep["reconstruction_limits"] if "t1_google_self_auroc_ci_hi" in c["claims"])
    ev = limit["evidence"]
    assert ev["block_rows"] == GOOGLE_ROWS and ev["block_errors"] == GOOGLE_ERRORS
    assert ev["min_delong_se"] > ev["printed_implied_se"]
    assert ev["min_delong_se_lower_bound"] > ev["printed_implied_se"]
    assert ev["min_delong_se"] <= ev["block_tied_se"]
    # the bound is recorded as the closest attainable interval, and the reason quotes its numbers
    assert limit["closest_attainable"]["t1_google_self_auroc_ci_hi"] == ev["expected_ci_at_min_se"][1]
    assert f"{ev['expected_ci_at_min_se'][1]:.4f}" in limit["reason"]
    assert not any("t1_google_self_auroc_ci_hi" in c["claims"] for c in rep["known_conflicts"])
