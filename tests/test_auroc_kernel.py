"""One AUROC kernel: `metrics.auroc_from_counts` (the tie-aware Mann-Whitney count) and the implementations that
route through it; the reconstruction's pure-Python speed copy (`reconstruct.faststats`) equals it on random tied
data (bench/auroc.py shows why that copy exists)."""

from __future__ import annotations

import numpy as np
import pytest

from selfconf import bootstrap, metrics
from selfconf.reconstruct import arms, faststats, ladder, tables


def _pairs(score: np.ndarray, y: np.ndarray) -> float:
    """P(S1 > S0) + P(S1 = S0) / 2 by counting every correct/wrong pair (the definition, written out)."""
    pos, neg = score[y == 1], score[y == 0]
    return float(((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])).sum() / (pos.size * neg.size))


@pytest.mark.parametrize("seed", range(20))
def test_the_kernel_is_the_pair_count_and_every_wrapper_is_the_kernel(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(5, 300)), int(rng.integers(1, 12))
    s = rng.integers(0, k, n) / max(k - 1, 1)  # heavy ties
    y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(int)
    y[:2] = [0, 1]
    lv, pos, neg = metrics.level_counts(s, y)
    kernel = float(metrics.auroc_from_counts(pos, neg))
    assert kernel == pytest.approx(_pairs(s, y), abs=1e-12)
    # bit for bit: whole counts make every partial sum exact
    assert metrics.auroc(s, y) == kernel
    assert metrics.auroc_batched(s[None, :], y[None, :])[0] == kernel
    assert metrics._rowwise_rank_auroc(s[None, :], y[None, :].astype(float))[0] == kernel
    assert metrics.auroc_weighted(s, y, np.ones(n)) == kernel
    assert metrics.counts_statistics(lv, pos, neg)["auroc"][0] == kernel
    assert metrics.auroc_scored_counts(lv, pos, neg)[0] == kernel
    assert bootstrap.auroc_ci(s, y, n_boot=10, rng=0, allow_invalid=True).estimate == kernel
    assert tables.auroc_table(lv, neg, pos) == kernel
    assert ladder._auc_hist(pos, neg) == kernel
    assert arms._auc(y, s) == kernel
    # the speed copy
    assert faststats.auroc_lists(neg.tolist(), pos.tolist()) == kernel


@pytest.mark.parametrize("seed", range(20))
def test_the_reconstructions_speed_copy_equals_the_kernel_on_random_tied_tables(seed):
    """`faststats` (pure Python, for the annealer's ~25-value tables) gives the kernel's value to the last bit."""
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 40))
    values = np.sort(rng.choice(np.arange(101), size=k, replace=False))
    c0 = rng.integers(0, 60, k) * (rng.random(k) < 0.8)
    c1 = rng.integers(0, 60, k) * (rng.random(k) < 0.8)
    c0[0], c1[-1] = max(c0[0], 1), max(c1[-1], 1)
    kernel = float(metrics.auroc_from_counts(c1, c0))
    assert faststats.auroc_lists(c0.tolist(), c1.tolist()) == kernel
    assert faststats.table_stats(values.tolist(), c0.tolist(), c1.tolist())["auroc"] == kernel
    # pooled over two tables: the same scores on one scale
    other = rng.integers(0, 30, k)
    tabs = [(values.tolist(), c0.tolist(), c1.tolist()), (values.tolist(), other.tolist(), c1.tolist())]
    assert faststats.pooled_auroc_lists(tabs) == float(metrics.auroc_from_counts(2 * c1, c0 + other))


def test_the_kernel_batches_and_marks_undefined_rows():
    out = metrics.auroc_from_counts([[1, 2, 0], [0, 0, 4]], [[0, 1, 1], [2, 0, 0]])
    assert out[0] == pytest.approx((1 * 0 + 2 * 0.5) / (3 * 2)) and out[1] == 1.0
    assert np.isnan(metrics.auroc_from_counts([3, 1], [0, 0]))
