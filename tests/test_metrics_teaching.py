"""Oracle tests of the statistics the teaching chapter computes with the package's public API:
``metrics.roc_curve`` (scikit-learn's roc_curve), ``metrics.brier_decomposition`` (Murphy's identity and a
plain loop), and ``metrics.ece(binning="equal_mass")`` on heaped confidences (a loop over value groups)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_curve as sk_roc_curve

from selfconf import metrics


def _heaped(rng, n):
    """LLM-like stated confidences: multiples of 0.05 with spikes at 0.80, 0.90 and 0.95."""
    levels = np.round(np.arange(0.5, 1.0001, 0.05), 2)
    w = np.ones(levels.size)
    for spike, extra in ((0.8, 6), (0.9, 10), (0.95, 8)):
        w[np.isclose(levels, spike)] += extra
    c = rng.choice(levels, size=n, p=w / w.sum())
    y = (rng.random(n) < c - 0.2).astype(int)
    return c, y


@pytest.mark.parametrize("seed", range(6))
def test_roc_curve_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = 400
    c, y = _heaped(rng, n) if seed % 2 else (rng.random(n), (rng.random(n) < 0.6).astype(int))
    ours = metrics.roc_curve(c, y)
    fpr, tpr, thr = sk_roc_curve(y, c, drop_intermediate=False)
    np.testing.assert_allclose(ours["fpr"], fpr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours["tpr"], tpr, rtol=0, atol=1e-12)
    assert np.isinf(ours["threshold"][0])
    np.testing.assert_array_equal(ours["threshold"][1:], thr[1:])
    # the trapezoid area is the tie-corrected AUROC
    assert np.trapezoid(ours["tpr"], ours["fpr"]) == pytest.approx(metrics.auroc(c, y), abs=1e-12)


def test_roc_curve_tie_group_is_one_segment():
    r = metrics.roc_curve([0.5, 0.5, 0.5, 0.5], [1, 0, 1, 0])
    assert r["fpr"].tolist() == [0.0, 1.0] and r["tpr"].tolist() == [0.0, 1.0]


def test_roc_curve_bad_input_is_named():
    with pytest.raises(ValueError, match="only one class"):
        metrics.roc_curve([0.2, 0.4], [1, 1])
    with pytest.raises(ValueError, match="different lengths"):
        metrics.roc_curve([0.2, 0.4, 0.5], [1, 0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.booleans()), min_size=1, max_size=80))
def test_murphy_identity_holds(rows):
    c = np.array([k / 20 for k, _ in rows])
    y = np.array([int(b) for _, b in rows])
    d = metrics.brier_decomposition(c, y)
    assert d["brier"] == pytest.approx(metrics.brier(c, y), abs=1e-12)
    assert d["reliability"] - d["resolution"] + d["uncertainty"] == pytest.approx(d["brier"], abs=1e-12)
    assert d["n_groups"] == np.unique(c).size


def test_brier_decomposition_matches_a_loop():
    rng = np.random.default_rng(3)
    c, y = _heaped(rng, 2000)
    d = metrics.brier_decomposition(c, y)
    o = y.mean()
    rel = res = 0.0
    for v in sorted(set(c.tolist())):
        g = y[c == v]
        rel += g.size * (v - g.mean()) ** 2
        res += g.size * (g.mean() - o) ** 2
    assert d["reliability"] == pytest.approx(rel / y.size, abs=1e-12)
    assert d["resolution"] == pytest.approx(res / y.size, abs=1e-12)
    assert d["uncertainty"] == pytest.approx(o * (1 - o), abs=1e-15)


def test_brier_decomposition_of_a_constant_predictor():
    y = np.array([1] * 72 + [0] * 28)
    d = metrics.brier_decomposition(np.full(100, 0.72), y)
    assert d["reliability"] == pytest.approx(0, abs=1e-15) and d["resolution"] == pytest.approx(0, abs=1e-15)
    assert d["uncertainty"] == pytest.approx(0.72 * 0.28)


def test_equal_mass_ece_on_heaped_confidences_matches_a_value_group_loop():
    """Equal-mass bins keep tied confidences together (no row-order cut), so the loop works per value."""
    rng = np.random.default_rng(11)
    c, y = _heaped(rng, 3000)
    n_bins = 10
    cs = np.sort(c)
    inner = np.unique(cs[(np.arange(1, n_bins) * c.size) // n_bins])
    # a value on an edge belongs to the bin that starts there: bin = number of interior edges <= value
    bin_of = {v: int(sum(e <= v for e in inner.tolist())) for v in set(c.tolist())}
    b = np.array([bin_of[v] for v in c.tolist()])
    total = 0.0
    for k in set(b.tolist()):
        inside = b == k
        total += inside.sum() * abs(c[inside].mean() - y[inside].mean())
    assert metrics.ece(c, y, n_bins=n_bins, binning="equal_mass") == pytest.approx(total / c.size, abs=1e-12)
    # and it does not depend on the order of the rows
    p = rng.permutation(c.size)
    assert metrics.ece(c[p], y[p], binning="equal_mass") == pytest.approx(
        metrics.ece(c, y, binning="equal_mass"), abs=1e-12
    )


# ------------------------------------------------------------------ Monte-Carlo SD of a bootstrap end point


def test_endpoint_mc_sd_matches_a_simulation():
    """Oracle: the spread of the 2.5% quantile of B normal draws over many repetitions."""
    from selfconf import bootstrap

    rng = np.random.default_rng(0)
    sigma, b = 0.02, 2000
    q_low = np.quantile(rng.normal(0.75, sigma, size=(3000, b)), 0.025, axis=1)
    low, high = 0.75 - 1.959963984540054 * sigma, 0.75 + 1.959963984540054 * sigma
    predicted = bootstrap.endpoint_mc_sd(low, high, b)
    assert q_low.std(ddof=1) == pytest.approx(predicted, rel=0.06)
    # quadrupling the draws halves it; vectorised over arrays
    np.testing.assert_allclose(
        bootstrap.endpoint_mc_sd([low, low], [high, high], [b, 4 * b]), [predicted, predicted / 2], rtol=1e-12
    )


def test_draws_for_mc_sd_is_the_smallest_such_count():
    from selfconf import bootstrap

    b = bootstrap.draws_for_mc_sd(0.70, 0.78, 0.001)
    assert bootstrap.endpoint_mc_sd(0.70, 0.78, b) <= 0.001 < bootstrap.endpoint_mc_sd(0.70, 0.78, b - 1)
    with pytest.raises(ValueError, match="high < low"):
        bootstrap.endpoint_mc_sd(0.8, 0.7, 100)
    with pytest.raises(ValueError, match="target_sd"):
        bootstrap.draws_for_mc_sd(0.7, 0.8, 0)
