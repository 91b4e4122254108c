"""Tests for selfconf.bootstrap: determinism, oracles for every resampling scheme, p-values, Holm."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from selfconf import bootstrap as bs
from selfconf import metrics as m


def rows(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    pct = rng.choice(np.arange(0, 101, 5), size=n)
    correct = rng.random(n) < 0.15 + 0.006 * pct
    return m.from_percent(pct), correct


# --------------------------------------------------------------------------
# determinism
# --------------------------------------------------------------------------


def test_same_seed_same_result_every_scheme():
    c, y = rows(0)
    items = np.arange(c.size) // 3
    groups = np.arange(c.size) % 4
    calls = [
        lambda r: bs.percentile_ci(m.auroc_batched, c, y, batched=True, n_boot=300, rng=r),
        lambda r: bs.percentile_ci(m.brier, c, y, n_boot=100, rng=r, groups=groups),
        lambda r: bs.auroc_ci(c, y, n_boot=300, rng=r, clusters=items),
        lambda r: bs.paired_auroc_contrast(c, 1 - c, y, y, items, n_boot=300, rng=r),
    ]
    for call in calls:
        a, b = call(123), call(123)
        assert a.as_dict() == b.as_dict()
        np.testing.assert_array_equal(a.draws, b.draws)
        # a Generator seeded the same way gives the same draws as the int seed
        np.testing.assert_array_equal(call(np.random.default_rng(123)).draws, a.draws)
        # and a different seed gives different draws
        assert not np.array_equal(call(124).draws, a.draws)


def test_rng_is_required():
    c, y = rows(0, 50)
    with pytest.raises(ValueError, match="rng is required"):
        bs.percentile_ci(m.brier, c, y, n_boot=10)
    with pytest.raises(TypeError, match="rng must be"):
        bs.percentile_ci(m.brier, c, y, n_boot=10, rng="seed")


def test_chunk_size_does_not_change_result():
    c, y = rows(1)
    a = bs.percentile_ci(m.auroc_batched, c, y, batched=True, n_boot=500, rng=9, chunk_size=500)
    b = bs.percentile_ci(m.auroc_batched, c, y, batched=True, n_boot=500, rng=9, chunk_size=7)
    np.testing.assert_array_equal(a.draws, b.draws)


# --------------------------------------------------------------------------
# row-level and grouped resampling
# --------------------------------------------------------------------------


def test_batched_and_looped_and_sklearn_give_identical_draws():
    c, y = rows(2)
    fast = bs.percentile_ci(m.auroc_batched, c, y, batched=True, n_boot=200, rng=5)
    slow = bs.percentile_ci(m.auroc, c, y, n_boot=200, rng=5)
    idx = bs.resample_indices(c.size, 200, 5)
    oracle = np.array([roc_auc_score(y[i], c[i]) for i in idx])
    np.testing.assert_allclose(fast.draws, oracle, atol=1e-12)
    np.testing.assert_allclose(slow.draws, oracle, atol=1e-12)
    assert (fast.low, fast.high) == pytest.approx(np.quantile(oracle, [0.025, 0.975]), abs=1e-12)
    assert fast.estimate == pytest.approx(roc_auc_score(y, c))
    special = bs.auroc_ci(c, y, n_boot=200, rng=5)
    np.testing.assert_allclose(special.draws, oracle, atol=1e-12)


def test_resample_indices_shapes_and_groups():
    idx = bs.resample_indices(50, 30, 1)
    assert idx.shape == (30, 50) and idx.min() >= 0 and idx.max() < 50
    groups = np.array(["b", "a", "c"] * 20 + ["a"] * 5)
    idx = bs.resample_indices(groups.size, 40, 2, groups=groups)
    # every position is filled from its own group only, so group sizes are preserved
    assert (groups[idx] == groups[None, :]).all()
    # and within a group the draw is really random (not the identity)
    assert not (idx == np.arange(groups.size)).all()


def test_grouped_ci_matches_manual_loop():
    c, y = rows(3, 200)
    groups = np.repeat([0, 1], 100)
    res = bs.percentile_ci(m.auroc_batched, c, y, batched=True, groups=groups, n_boot=150, rng=4)
    assert res.scheme == "groups"
    idx = bs.resample_indices(c.size, 150, 4, groups=groups)
    oracle = [roc_auc_score(y[i], c[i]) for i in idx]
    np.testing.assert_allclose(res.draws, oracle, atol=1e-12)


# --------------------------------------------------------------------------
# item-clustered resampling
# --------------------------------------------------------------------------


def test_cluster_weights_keep_items_together():
    items = np.array([7, 7, 7, 2, 9, 9, 4])  # unequal sizes 3, 1, 2, 1
    w = bs.cluster_weights(items, 500, 3)
    assert w.shape == (500, items.size)
    for label in np.unique(items):
        cols = w[:, items == label]
        assert (cols == cols[:, :1]).all()
    mult = bs.cluster_multiplicities(4, 500, 3)
    np.testing.assert_array_equal(mult.sum(axis=1), 4)
    # labels are numbered in sorted order: 2, 4, 7, 9
    np.testing.assert_array_equal(w[:, [3, 6, 0, 4]], mult)


@pytest.mark.parametrize("g", [1, 4, 37, 5000])
def test_cluster_multiplicities_count_the_stream_s_picks(g):
    """Entry (b, j) = picks of cluster j in draw b, the picks being the stream's first (n_boot, g) integers."""
    n_boot = 30
    picks = np.random.default_rng(11).integers(0, g, size=(n_boot, g), dtype=np.int32)
    expect = np.zeros((n_boot, g), np.int64)
    for b in range(n_boot):  # an independent loop over the picks
        for j in picks[b]:
            expect[b, j] += 1
    got = bs.cluster_multiplicities(g, n_boot, np.random.default_rng(11))
    assert got.dtype == np.int32 and got.shape == (n_boot, g)
    np.testing.assert_array_equal(got, expect)


def test_clustered_ci_matches_explicit_resamples():
    c, y = rows(4, 240)
    rng = np.random.default_rng(0)
    items = rng.integers(0, 90, c.size)  # unequal cluster sizes
    fast = bs.auroc_ci(c, y, clusters=items, n_boot=150, rng=8)
    generic = bs.percentile_ci(m.auroc_weighted, c, y, batched=True, clusters=items, n_boot=150, rng=8)
    looped = bs.percentile_ci(m.auroc, c, y, clusters=items, n_boot=150, rng=8)
    # oracle: build each resample explicitly by concatenating the rows of the drawn items
    labels = np.unique(items)
    gen = np.random.default_rng(8)
    picks = gen.integers(0, labels.size, size=(150, labels.size), dtype=np.int32)
    oracle = []
    for draw in picks:
        take = np.concatenate([np.flatnonzero(items == labels[g]) for g in draw])
        oracle.append(roc_auc_score(y[take], c[take]))
    for res in (fast, generic, looped):
        assert res.scheme == "clusters"
        np.testing.assert_allclose(res.draws, oracle, atol=1e-12)


# --------------------------------------------------------------------------
# interval sanity
# --------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(150, 600))
def test_ci_contains_estimate_on_well_behaved_data(seed, n):
    c, y = rows(seed, n)
    for res in (bs.auroc_ci(c, y, n_boot=300, rng=seed), bs.percentile_ci(m.brier, c, y, n_boot=100, rng=seed)):
        assert res.low <= res.estimate <= res.high
        assert res.low < res.high


def test_level_widens_interval_and_validation():
    c, y = rows(5)
    narrow = bs.auroc_ci(c, y, n_boot=400, rng=1, level=0.5)
    wide = bs.auroc_ci(c, y, n_boot=400, rng=1, level=0.99)
    assert wide.low < narrow.low < narrow.high < wide.high
    with pytest.raises(ValueError, match="level"):
        bs.auroc_ci(c, y, rng=1, level=95)
    with pytest.raises(ValueError, match="n_boot"):
        bs.auroc_ci(c, y, rng=1, n_boot=0)
    with pytest.raises(ValueError, match="arrays\\[1\\] has length 3"):
        bs.percentile_ci(m.brier, c, y[:3], rng=1)
    with pytest.raises(ValueError, match="either groups= or clusters="):
        bs.percentile_ci(m.brier, c, y, rng=1, groups=y, clusters=y)
    with pytest.raises(ValueError, match="clusters: length"):
        bs.auroc_ci(c, y, rng=1, clusters=[1, 2])
    with pytest.raises(ValueError, match="clusters: length 2 does not match the data length"):
        bs.percentile_ci(m.brier, c, y, rng=1, clusters=[1, 2])
    with pytest.raises(ValueError, match="groups: length 2 does not match the data length"):
        bs.percentile_ci(m.brier, c, y, rng=1, groups=[1, 2])


def test_undefined_draws_are_counted_not_hidden():
    c = np.array([0.1, 0.2, 0.3, 0.9, 0.8, 0.4])
    y = np.array([0, 0, 0, 1, 0, 0])  # one correct row: many resamples lack it
    with pytest.raises(ValueError, match=r"\d+ of 300 bootstrap draws gave an undefined AUROC"):
        bs.auroc_ci(c, y, n_boot=300, rng=1)
    res = bs.auroc_ci(c, y, n_boot=300, rng=1, allow_invalid=True)
    assert 0 < res.n_invalid < 300
    assert res.n_invalid == int(np.isnan(res.draws).sum())


# --------------------------------------------------------------------------
# paired contrast
# --------------------------------------------------------------------------


def test_paired_contrast_same_rows():
    rng = np.random.default_rng(6)
    c, y = rows(6, 450)
    items = np.repeat(np.arange(150), 3)
    panel = y * rng.integers(1, 4, y.size) + rng.integers(0, 2, y.size)  # a stronger signal
    res = bs.paired_auroc_contrast(panel, c, y, y, items, n_boot=400, rng=2)
    assert res.estimate == pytest.approx(m.auroc(panel, y) - m.auroc(c, y))
    np.testing.assert_allclose(res.draws, res.auroc_a.draws - res.auroc_b.draws)
    assert res.low <= res.estimate <= res.high
    # p-value definitions, recomputed from the draws
    assert res.p_one_sided == pytest.approx(np.mean(res.draws <= 0))
    assert res.p_one_sided_upper == pytest.approx(np.mean(res.draws >= 0))
    assert res.p_two_sided == pytest.approx(min(1, 2 * min(res.p_one_sided, res.p_one_sided_upper)))
    assert res.p_one_sided == 0.0 and res.p_two_sided == 0.0  # the panel is far better here
    # each arm's draws are the clustered bootstrap of that arm with the same item draws
    arm = bs.auroc_ci(panel, y, clusters=items, n_boot=400, rng=2)
    np.testing.assert_allclose(res.auroc_a.draws, arm.draws, atol=1e-12)


@pytest.mark.slow
def test_paired_contrast_separate_arm_rows_matches_explicit_oracle():
    rng = np.random.default_rng(7)
    n_items = 60
    # arm A: 2 replicates per item; arm B: 1-2 rows per item (abstentions removed)
    items_a = np.repeat(np.arange(n_items), 2)
    items_b = np.concatenate([np.arange(n_items), rng.choice(n_items, 30, replace=False)])
    sa, ya = rng.integers(0, 101, items_a.size), rng.random(items_a.size) < 0.5
    sb, yb = rng.integers(0, 101, items_b.size), rng.random(items_b.size) < 0.5
    res = bs.paired_auroc_contrast(sa, sb, ya, yb, items_a, items_b=items_b, n_boot=100, rng=3)
    assert res.n_items == n_items
    picks = np.random.default_rng(3).integers(0, n_items, size=(100, n_items), dtype=np.int32)
    oracle = []
    for draw in picks:
        ta = np.concatenate([np.flatnonzero(items_a == g) for g in draw])
        tb = np.concatenate([np.flatnonzero(items_b == g) for g in draw])
        oracle.append(roc_auc_score(ya[ta], sa[ta]) - roc_auc_score(yb[tb], sb[tb]))
    np.testing.assert_allclose(res.draws, oracle, atol=1e-12)


def test_paired_contrast_identical_arms_two_sided_is_one():
    c, y = rows(8, 120)
    items = np.arange(c.size)
    res = bs.paired_auroc_contrast(c, c, y, y, items, n_boot=100, rng=1)
    assert res.estimate == 0.0 and (res.draws == 0).all()
    assert res.p_one_sided == 1.0 and res.p_two_sided == 1.0


def test_paired_contrast_validation():
    c, y = rows(9, 30)
    with pytest.raises(ValueError, match="pass items_b"):
        bs.paired_auroc_contrast(c, c[:10], y, y[:10], np.arange(30), rng=1)
    with pytest.raises(ValueError, match="items: expected length 30"):
        bs.paired_auroc_contrast(c, c, y, y, np.arange(29), rng=1)


# --------------------------------------------------------------------------
# Holm
# --------------------------------------------------------------------------


def test_holm_hand_worked():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06
    np.testing.assert_allclose(bs.holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    # two tests as in the paper's ladder family: 2 * 0.042 = 0.084, then max(0.084, 0.064)
    np.testing.assert_allclose(bs.holm([0.064, 0.042]), [0.084, 0.084])
    np.testing.assert_allclose(bs.holm([0.6, 0.7, 0.2]), [1.0, 1.0, 0.6])
    assert bs.holm([]).size == 0
    with pytest.raises(ValueError, match=r"pvalues: 1 value\(s\) not in \[0, 1\]; first at index 1: 1.5"):
        bs.holm([0.1, 1.5])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_holm_properties(p):
    p = np.asarray(p)
    adj = bs.holm(p)
    assert adj.shape == p.shape
    assert (adj >= p - 1e-15).all() and (adj <= 1).all()
    order = np.argsort(p, kind="stable")
    assert (np.diff(adj[order]) >= -1e-15).all()
    # Holm is never more conservative than Bonferroni
    assert (adj <= np.minimum(1, p * p.size) + 1e-15).all()


def test_grouped_and_clustered_wrappers_equal_percentile_ci():
    c, y = rows(10, 120)
    g = np.arange(c.size) % 3
    a = bs.grouped_ci(m.brier, c, y, groups=g, n_boot=50, rng=4)
    b = bs.percentile_ci(m.brier, c, y, groups=g, n_boot=50, rng=4)
    np.testing.assert_array_equal(a.draws, b.draws)
    a = bs.clustered_ci(m.auroc_weighted, c, y, clusters=g, batched=True, n_boot=50, rng=4)
    b = bs.percentile_ci(m.auroc_weighted, c, y, clusters=g, batched=True, n_boot=50, rng=4)
    np.testing.assert_array_equal(a.draws, b.draws)


@pytest.mark.parametrize("seed", range(3))
def test_clustered_draws_matrix_path_equals_row_weight_path(seed, monkeypatch):
    """The BLAS shortcut must give bit-identical AUROC draws to the gather-per-row path."""
    from selfconf import bootstrap as b

    rng = np.random.default_rng(seed)
    n_items, reps = 300, 3
    ccode = np.repeat(np.arange(n_items), reps)
    code = rng.integers(0, 12, size=ccode.size)
    y = (rng.random(ccode.size) < 0.6).astype(np.int64)
    mult = b.cluster_multiplicities(n_items, 600, rng)
    fast = b._clustered_auroc_draws(code, y, 12, ccode, mult)
    monkeypatch.setattr(b, "_MATMUL_MAX_CELLS", 0)
    slow = b._clustered_auroc_draws(code, y, 12, ccode, mult)
    np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("share", [0, 10**9])  # 0: never the sparse product; 10**9: always
def test_clustered_auroc_draws_match_explicit_resamples_on_both_paths(monkeypatch, share):
    """Each draw's AUROC equals scikit-learn's on the resample that repeats every row of each drawn item."""
    from sklearn.metrics import roc_auc_score

    monkeypatch.setattr(bs, "_SPARSE_SHARE", share)
    rng = np.random.default_rng(5)
    n_items = 60
    items = np.repeat(np.arange(n_items), rng.integers(1, 4, n_items))  # 1-3 rows per item
    score = rng.integers(0, 7, items.size) / 6.0
    y = (rng.random(items.size) < 0.3 + 0.5 * score).astype(int)
    pc = bs.paired_auroc_contrast(score, score[::-1].copy(), y, y, items=items, n_boot=40, rng=3)
    mult = bs.cluster_multiplicities(n_items, 40, np.random.default_rng(3))
    for b in range(40):
        w = mult[b, items]
        keep = np.repeat(np.arange(items.size), w)
        if np.unique(y[keep]).size < 2:
            continue
        assert pc.draws[b] == pytest.approx(
            roc_auc_score(y[keep], score[keep]) - roc_auc_score(y[keep], score[::-1][keep]), abs=1e-12
        )
