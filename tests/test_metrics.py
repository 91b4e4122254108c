"""Tests for selfconf.metrics against independent oracles (sklearn, scipy, plain loops)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import mannwhitneyu
from sklearn.metrics import brier_score_loss, roc_auc_score

from selfconf import metrics as m

# --------------------------------------------------------------------------
# data helpers
# --------------------------------------------------------------------------


def heaped_rows(seed: int, n: int = 400, acc_slope: float = 0.006):
    """Integer 0-100 confidences heaped on multiples of 5 (plus some stray values), correlated correctness."""
    rng = np.random.default_rng(seed)
    pct = rng.choice(np.arange(0, 101, 5), size=n, p=_heap_probs())
    stray = rng.random(n) < 0.1
    pct[stray] = rng.integers(0, 101, stray.sum())
    correct = rng.random(n) < np.clip(0.1 + acc_slope * pct, 0, 1)
    return pct, correct


def _heap_probs():
    w = np.ones(21)
    w[[17, 18, 19, 20]] = [6, 8, 12, 6]  # 85, 90, 95, 100 heavily used
    return w / w.sum()


def loop_ece(conf, correct, n_bins=10):
    """Plain-loop ECE oracle: assign each value to its bin by walking the edges."""
    conf = [float(c) for c in conf]
    correct = [int(v) for v in correct]
    n = len(conf)
    members = [[] for _ in range(n_bins)]
    for c, y in zip(conf, correct, strict=True):
        # bin j covers [j/B, (j+1)/B); the last bin also holds 1.0
        placed = False
        for j in range(n_bins):
            lo = j / n_bins
            hi = (j + 1) / n_bins
            if (lo - 1e-9 <= c < hi - 1e-9) or (j == n_bins - 1 and c >= lo - 1e-9):
                members[j].append((c, y))
                placed = True
                break
        assert placed
    total = 0.0
    for rows in members:
        if rows:
            mc = sum(c for c, _ in rows) / len(rows)
            acc = sum(y for _, y in rows) / len(rows)
            total += len(rows) / n * abs(mc - acc)
    return total


# --------------------------------------------------------------------------
# AUROC
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_auroc_matches_sklearn_and_mann_whitney_with_heavy_ties(seed):
    pct, y = heaped_rows(seed)
    got = m.auroc(pct, y)
    assert got == pytest.approx(roc_auc_score(y, pct), abs=1e-12)
    u = mannwhitneyu(pct[y], pct[~y], alternative="two-sided").statistic
    assert got == pytest.approx(u / (y.sum() * (~y).sum()), abs=1e-12)
    # the 0-1 scale gives the same value
    assert m.auroc(m.from_percent(pct), y) == pytest.approx(got, abs=1e-15)


def test_auroc_hand_case_with_ties():
    # positives 3, 2 ; negatives 2, 1 -> pairs: (3>2)=1, (3>1)=1, (2=2)=0.5, (2>1)=1 -> 3.5/4
    assert m.auroc([3, 2, 2, 1], [1, 1, 0, 0]) == pytest.approx(0.875)
    assert m.auroc([5, 5, 5, 5], [1, 0, 1, 0]) == pytest.approx(0.5)


def test_auroc_one_class_raises():
    with pytest.raises(ValueError, match="only one class"):
        m.auroc([0.1, 0.5, 0.9], [1, 1, 1])
    with pytest.raises(ValueError, match="only one class"):
        m.auroc([0.1, 0.5, 0.9], [False, False, False])


@settings(max_examples=60, deadline=None)
@given(
    pct=st.lists(st.integers(0, 100), min_size=2, max_size=60),
    flips=st.lists(st.booleans(), min_size=2, max_size=60),
    kind=st.sampled_from(["affine", "exp", "cube", "log1p"]),
)
def test_auroc_invariant_under_strictly_increasing_transform(pct, flips, kind):
    n = min(len(pct), len(flips))
    s = np.asarray(pct[:n], dtype=float)
    y = np.asarray(flips[:n])
    if y.all() or not y.any():
        return
    f = {
        "affine": lambda x: 3.0 * x - 7.0,
        "exp": lambda x: np.exp(x / 25.0),
        "cube": lambda x: (x - 50.0) ** 3,
        "log1p": np.log1p,
    }[kind]
    assert m.auroc(f(s), y) == pytest.approx(m.auroc(s, y), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    s=st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=50),
    y=st.lists(st.booleans(), min_size=2, max_size=50),
)
def test_auroc_label_flip_complements(s, y):
    n = min(len(s), len(y))
    s, y = np.asarray(s[:n]), np.asarray(y[:n])
    if y.all() or not y.any():
        return
    assert m.auroc(s, ~y) == pytest.approx(1.0 - m.auroc(s, y), abs=1e-12)


# --------------------------------------------------------------------------
# batched and weighted AUROC
# --------------------------------------------------------------------------


def _loop(S, Y):
    return np.array([roc_auc_score(Y[i], S[i]) for i in range(S.shape[0])])


@pytest.mark.parametrize("form", ["int", "percent_float", "odd_float", "float_many_levels"])
def test_auroc_batched_equals_sklearn_loop(form):
    rng = np.random.default_rng(11)
    pct, y = heaped_rows(3, n=300)
    idx = rng.integers(0, pct.size, size=(40, pct.size))
    S = {
        "int": pct[idx],
        "percent_float": m.from_percent(pct)[idx],
        "odd_float": (pct * np.sqrt(2.0) + 0.1)[idx],
        "float_many_levels": (pct + rng.random(pct.size))[idx],
    }[form]
    Y = y[idx]
    np.testing.assert_allclose(m.auroc_batched(S, Y), _loop(S, Y), rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    rows=st.integers(1, 6),
    n=st.integers(2, 40),
    levels=st.sampled_from([2, 5, 101, 10_000]),
)
def test_auroc_batched_equals_loop_property(seed, rows, n, levels):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, levels, size=(rows, n)).astype(float) / 7.0
    Y = rng.random((rows, n)) < 0.5
    got = m.auroc_batched(S, Y)
    for b in range(rows):
        if Y[b].all() or not Y[b].any():
            assert math.isnan(got[b])
        else:
            assert got[b] == pytest.approx(m.auroc(S[b], Y[b]), abs=1e-12)


def test_auroc_batched_sort_fallback_matches(monkeypatch):
    # force the per-row sorting path (as used when there are too many distinct levels)
    monkeypatch.setattr(m, "_MAX_COUNT_CELLS", 1)
    rng = np.random.default_rng(5)
    S = rng.integers(0, 30, size=(25, 80)).astype(float) + 0.5
    Y = rng.random((25, 80)) < 0.4
    np.testing.assert_allclose(m.auroc_batched(S, Y), _loop(S, Y), atol=1e-12)
    np.testing.assert_allclose(m._rowwise_rank_auroc(S, Y.astype(np.int8)), _loop(S, Y), atol=1e-12)


def test_auroc_batched_single_class_row_is_nan():
    S = np.array([[1, 2, 3], [1, 2, 3]])
    Y = np.array([[1, 0, 1], [1, 1, 1]])
    out = m.auroc_batched(S, Y)
    assert out[0] == pytest.approx(0.5) and math.isnan(out[1])


def test_auroc_weighted_equals_repeated_rows():
    rng = np.random.default_rng(2)
    pct, y = heaped_rows(7, n=120)
    W = rng.integers(0, 4, size=(10, pct.size))
    got = m.auroc_weighted(pct, y, W)
    for b in range(10):
        rep = np.repeat(np.arange(pct.size), W[b])
        assert got[b] == pytest.approx(roc_auc_score(y[rep], pct[rep]), abs=1e-12)
    assert m.auroc_weighted(pct, y, np.ones(pct.size)) == pytest.approx(m.auroc(pct, y), abs=1e-12)


# --------------------------------------------------------------------------
# calibration
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_brier_matches_sklearn(seed):
    pct, y = heaped_rows(seed)
    c = m.from_percent(pct)
    assert m.brier(c, y) == pytest.approx(brier_score_loss(y, c), abs=1e-14)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_bins", [10, 15, 7])
def test_ece_matches_loop_oracle(seed, n_bins):
    pct, y = heaped_rows(seed)
    c = m.from_percent(pct)
    assert m.ece(c, y, n_bins=n_bins) == pytest.approx(loop_ece(c, y, n_bins), abs=1e-12)


def test_ece_edge_rule():
    # 0.0 -> first bin, 0.8 (as 80/100 and as 0.7 + 0.1) -> [0.8, 0.9), 1.0 -> last bin
    conf = np.array([0.0, 80 / 100, 0.7 + 0.1, 1.0, 0.1, 0.9])
    assert 0.7 + 0.1 < 0.8  # the float trap the rule must absorb
    rb = m.reliability_bins(conf, [0, 1, 1, 1, 0, 0])
    assert rb["n"].tolist() == [1, 1, 0, 0, 0, 0, 0, 0, 2, 2]
    # 0.7999 (a genuine value below the edge) stays in [0.7, 0.8)
    assert m.reliability_bins([0.7999], [1])["n"][7] == 1
    np.testing.assert_allclose(rb["lo"], np.arange(10) / 10)
    np.testing.assert_allclose(rb["hi"], np.arange(1, 11) / 10)
    # every exact percent k/100 lands in bin floor(k/10) (k = 100 in bin 9)
    pct = np.arange(101)
    rb = m.reliability_bins(m.from_percent(pct), np.ones(101))
    expected = np.bincount(np.minimum(pct // 10, 9), minlength=10)
    assert rb["n"].tolist() == expected.tolist()


def test_ece_hand_case():
    # bin [0.8,0.9): conf 0.8, 0.8, acc 0.5 -> gap 0.3 ; bin [0.9,1]: conf 1.0, acc 1 -> gap 0
    assert m.ece([0.8, 0.8, 1.0], [1, 0, 1]) == pytest.approx(2 / 3 * 0.3)


def test_reliability_bins_fields():
    pct, y = heaped_rows(1)
    c = m.from_percent(pct)
    rb = m.reliability_bins(c, y)
    assert set(rb) == {"lo", "hi", "n", "mean_conf", "acc", "gap"}
    assert rb["n"].sum() == c.size
    occ = rb["n"] > 0
    np.testing.assert_allclose(rb["gap"][occ], rb["mean_conf"][occ] - rb["acc"][occ])
    assert np.isnan(rb["gap"][~occ]).all()
    # the ECE is the n-weighted mean of |gap|
    assert m.ece(c, y) == pytest.approx(np.sum(rb["n"][occ] * np.abs(rb["gap"][occ])) / c.size)
    # ECE >= |CITL| (triangle inequality)
    assert m.ece(c, y) >= abs(m.citl(c, y)) - 1e-15


def test_citl_and_high_conf():
    pct, y = heaped_rows(4)
    c = m.from_percent(pct)
    assert m.citl(c, y) == pytest.approx(c.mean() - y.mean(), abs=1e-15)
    high = [i for i in range(c.size) if pct[i] >= 80]
    wrong = [i for i in high if not y[i]]
    assert m.high_conf_counts(c, y) == (len(high), len(wrong))
    assert m.high_conf_error_rate(c, y) == pytest.approx(len(wrong) / len(high))
    # threshold edge: exactly 0.8, also when 0.8 is computed as 0.7 + 0.1
    assert m.high_conf_counts([0.8, 0.7 + 0.1, 0.79], [0, 1, 0]) == (2, 1)
    assert math.isnan(m.high_conf_error_rate([0.1, 0.2], [0, 1]))
    with pytest.raises(ValueError, match="threshold"):
        m.high_conf_counts([0.5], [1], threshold=80)


# --------------------------------------------------------------------------
# risk-coverage
# --------------------------------------------------------------------------


def loop_risk(conf, correct, cov, rule="floor"):
    n = len(conf)
    order = sorted(range(n), key=lambda i: (-conf[i], i))
    k = max(1, (math.floor if rule == "floor" else math.ceil)(round(cov * n, 9)))
    return sum(1 - int(correct[i]) for i in order[:k]) / k


@pytest.mark.parametrize("seed", range(5))
def test_risk_coverage_matches_loop(seed):
    pct, y = heaped_rows(seed, n=333)
    c = m.from_percent(pct)
    covs = (1.0, 0.8, 0.6, 0.4, 0.2, 0.05)
    got = m.risk_coverage(c, y, covs)
    assert list(got) == list(covs)
    got_ceil = m.risk_coverage(c, y, covs, covered="ceil")
    for cov in covs:
        assert got[cov] == pytest.approx(loop_risk(list(c), list(y), cov), abs=1e-15)
        assert got_ceil[cov] == pytest.approx(loop_risk(list(c), list(y), cov, "ceil"), abs=1e-15)
    assert got[1.0] == pytest.approx(1 - y.mean())


def test_risk_coverage_tie_information():
    # sorted: 0.9(wrong) | 0.5 x4 (right, wrong, wrong, right) | 0.1
    conf = [0.5, 0.9, 0.5, 0.1, 0.5, 0.5]
    corr = [1, 0, 0, 1, 0, 1]
    tab = m.risk_coverage_table(conf, corr, coverages=(0.5, 1.0))  # 0.5 * 6 = 3 rows either way
    # coverage 0.5: k = 3 -> 0.9 row + first two 0.5 rows in row order (rows 0 and 2)
    assert tab["k"].tolist() == [3, 6]
    assert tab["n_errors"][0] == 2  # row 1 wrong, row 0 right, row 2 wrong
    assert bool(tab["cut_in_tie"][0]) and not bool(tab["cut_in_tie"][1])
    assert tab["tie_size"][0] == 4 and tab["tie_inside"][0] == 2
    # tie group has 2 errors among 4: taking 2 of them gives 0..2 errors, expected 1
    assert tab["error_rate_min"][0] == pytest.approx(1 / 3)
    assert tab["error_rate_max"][0] == pytest.approx(3 / 3)
    assert tab["error_rate_expected"][0] == pytest.approx(2 / 3)
    assert m.risk_coverage(conf, corr, (0.5,), tie_rule="expected")[0.5] == pytest.approx(2 / 3)
    # the default k rule is a floor (the paper's Table 2 rule): 0.5 of 5 rows covers 2; ceil covers 3
    assert m.risk_coverage_table([0.9, 0.8, 0.7, 0.6, 0.5], [1] * 5, (0.5,))["k"].tolist() == [2]
    assert m.risk_coverage_table([0.9, 0.8, 0.7, 0.6, 0.5], [1] * 5, (0.5,), covered="ceil")["k"].tolist() == [3]
    assert m.risk_coverage_table([0.9], [1], (0.2,))["k"].tolist() == [1]  # never an empty covered set
    # float guard: 0.6 * 1500 must give exactly 900
    assert m.risk_coverage_table(np.linspace(0, 1, 1500), np.ones(1500), (0.6, 0.2))["k"].tolist() == [900, 300]


# --------------------------------------------------------------------------
# conversion and validation
# --------------------------------------------------------------------------


def test_from_percent():
    assert m.from_percent(80) == 0.8
    np.testing.assert_array_equal(m.from_percent([0, 50, 100]), [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match=r"outside the 0-100 scale; first at index 1: 101"):
        m.from_percent([50, 101, -1])
    with pytest.raises(ValueError, match="non-finite"):
        m.from_percent([50, np.nan])


@pytest.mark.parametrize(
    "call, pattern",
    [
        (lambda: m.brier([0.1, 0.2], [1, 0, 1]), r"confidence and correct have different lengths \(2 vs 3\)"),
        (
            lambda: m.brier([0.1, np.nan, 0.3, np.nan], [1, 0, 1, 0]),
            r"confidence: 2 non-finite value\(s\).*first at index 1: nan",
        ),
        (lambda: m.ece([0.1, 1.2, 0.3], [1, 0, 1]), r"confidence: 1 value\(s\) outside \[0, 1\].*index 1: 1.2"),
        (lambda: m.citl([10, 90, 95], [1, 0, 1]), r"from_percent"),
        (lambda: m.brier([0.1, 0.2, 0.3], [1, 2, 0.5]), r"correct: 2 value\(s\) not in \{0, 1\}.*index 1: 2"),
        (lambda: m.auroc([[0.1, 0.2]], [[1, 0]]), r"score: expected a 1-D array, got shape \(1, 2\)"),
        (lambda: m.auroc(["a", "b"], [1, 0]), r"score: values must be numeric"),
        (lambda: m.auroc([0.1, np.inf], [1, 0]), r"score: 1 non-finite"),
        (
            lambda: m.auroc_batched([[0.1, 0.2]], [[1, 3]]),
            r"correct_matrix: 1 value\(s\) not in \{0, 1\}.*index \(0, 1\): 3",
        ),
        (lambda: m.auroc_batched([[0.1, 0.2]], [[1, 0, 1]]), r"different shapes"),
        (lambda: m.ece([0.1], [1], n_bins=0), r"n_bins must be a positive integer"),
        (lambda: m.risk_coverage([0.1], [1], (0.0,)), r"coverage must be in \(0, 1\]"),
        (lambda: m.risk_coverage([0.1], [1], tie_rule="random"), r"tie_rule"),
        (lambda: m.auroc_weighted([1, 2], [1, 0], [1, -1]), r"weights: negative weight at index 1"),
        (lambda: m.brier([], []), r"confidence: is empty"),
    ],
)
def test_validation_messages_name_the_problem(call, pattern):
    with pytest.raises((ValueError, TypeError), match=pattern):
        call()


def test_accepts_bool_lists_and_pandas():
    pd = pytest.importorskip("pandas")
    c = pd.Series([0.2, 0.9, 0.6])
    y = pd.Series([False, True, True])
    assert m.brier(c, y) == pytest.approx(((0.2 - 0) ** 2 + (0.9 - 1) ** 2 + (0.6 - 1) ** 2) / 3)
    assert m.auroc(c.tolist(), y.tolist()) == 1.0


def test_missing_values_are_named():
    pd = pytest.importorskip("pandas")
    with pytest.raises(ValueError, match=r"correct: 1 missing value\(s\) \(None/NA\); first at index 1"):
        m.brier([0.1, 0.2, 0.3], pd.array([True, None, False], dtype="boolean"))
    with pytest.raises(ValueError, match=r"confidence: 1 non-finite value\(s\).*index 1"):
        m.brier(pd.array([0.1, None, 0.3], dtype="Float64"), [1, 0, 1])


@pytest.mark.parametrize("seed", range(5))
def test_average_ranks_equal_scipy_rankdata(seed):
    from scipy.stats import rankdata

    rng = np.random.default_rng(seed)
    x = rng.integers(0, 7, size=200).astype(float)  # heavy ties
    x[::17] = rng.normal(size=x[::17].size)  # and some unique values
    np.testing.assert_array_equal(m.average_ranks(x), rankdata(x, method="average"))
    assert m.average_ranks(np.array([])).size == 0


@pytest.mark.parametrize("seed", range(5))
def test_spearman_rho_equals_scipy_spearmanr(seed):
    from scipy.stats import spearmanr

    rng = np.random.default_rng(seed)
    for n in (2, 3, 5, 21, 200):
        x = rng.integers(0, 4, size=n).astype(float)  # heavy ties
        y = np.round(rng.uniform(0, 1, size=n), 2)
        if np.all(x == x[0]) or np.all(y == y[0]):
            assert np.isnan(m.spearman_rho(x, y))
            continue
        ref = float(spearmanr(x, y).statistic)
        assert abs(m.spearman_rho(x, y) - ref) <= 1e-12
    assert np.isnan(m.spearman_rho([0.5, 0.5, 0.5], [0.1, 0.2, 0.3]))  # constant: undefined, as scipy says
    with pytest.raises(ValueError, match="x has 3 values but y has 2"):
        m.spearman_rho([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least two pairs"):
        m.spearman_rho([1], [1])


def test_auroc_does_not_import_scipy_stats():
    """A one-section rerun must not pay scipy.stats' import (about a second) for an AUROC."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np; from selfconf import metrics; "
        "metrics.auroc(np.array([0.1, 0.4, 0.4, 0.9]), np.array([0, 1, 0, 1])); "
        "print('scipy.stats' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# --------------------------------------------------------------------------
# ECE edge rule and equal-mass bins
# --------------------------------------------------------------------------


def loop_ece_lower(conf, correct, n_bins=10):
    """Plain-loop ECE with the lower-edge rule: bin j covers (j/B, (j+1)/B], the first also holds 0."""
    members = [[] for _ in range(n_bins)]
    for c, y in zip(map(float, conf), map(int, correct), strict=True):
        for j in range(n_bins):
            lo, hi = j / n_bins, (j + 1) / n_bins
            if (lo + 1e-9 < c <= hi + 1e-9) or (j == 0 and c <= hi + 1e-9):
                members[j].append((c, y))
                break
        else:  # pragma: no cover - every value in [0, 1] has a bin
            raise AssertionError(c)
    n = len(conf)
    return sum(len(r) / n * abs(sum(c for c, _ in r) / len(r) - sum(y for _, y in r) / len(r)) for r in members if r)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_bins", [10, 15, 7])
def test_ece_lower_edge_matches_loop_oracle(seed, n_bins):
    pct, y = heaped_rows(seed)
    c = m.from_percent(pct)
    assert m.ece(c, y, n_bins=n_bins, edge="lower") == pytest.approx(loop_ece_lower(c, y, n_bins), abs=1e-12)
    assert m.ece(c, y, n_bins=n_bins, edge="upper") == pytest.approx(loop_ece(c, y, n_bins), abs=1e-12)


def test_ece_lower_edge_matches_sklearn_calibration_curve_bins():
    from sklearn.calibration import calibration_curve

    pct, y = heaped_rows(3)
    c = m.from_percent(pct)
    rb = m.reliability_bins(c, y, edge="lower")
    occ = rb["n"] > 0
    prob_true, prob_pred = calibration_curve(y, c, n_bins=10, strategy="uniform")
    # sklearn's uniform bins put a value on an interior edge into the lower bin, like edge="lower"
    np.testing.assert_allclose(rb["acc"][occ], prob_true, atol=1e-12)
    np.testing.assert_allclose(rb["mean_conf"][occ], prob_pred, atol=1e-12)


def test_edge_rules_differ_on_interior_edges_only():
    conf = np.array([0.0, 0.8, 0.7 + 0.1, 0.85, 1.0])
    up = m.reliability_bins(conf, [1, 1, 1, 1, 1])["n"].tolist()
    lo = m.reliability_bins(conf, [1, 1, 1, 1, 1], edge="lower")["n"].tolist()
    assert up == [1, 0, 0, 0, 0, 0, 0, 0, 3, 1]
    assert lo == [1, 0, 0, 0, 0, 0, 0, 2, 1, 1]
    with pytest.raises(ValueError, match="edge must be one of"):
        m.ece(conf, [1] * 5, edge="middle")
    with pytest.raises(ValueError, match="binning must be one of"):
        m.ece(conf, [1] * 5, binning="quantile")


def test_equal_mass_bins_by_value_and_order_invariant():
    rng = np.random.default_rng(5)
    c = rng.uniform(size=1000)
    y = rng.uniform(size=1000) < c
    rb = m.reliability_bins(c, y, n_bins=10, binning="equal_mass")
    assert rb["n"].tolist() == [100] * 10  # distinct values: exactly n / B per bin
    # plain-loop oracle: sort, split into ten consecutive chunks of 100
    order = np.argsort(c)
    chunks = np.array_split(order, 10)
    oracle = sum(len(ix) / 1000 * abs(c[ix].mean() - y[ix].mean()) for ix in chunks)
    assert m.ece(c, y, binning="equal_mass") == pytest.approx(oracle, abs=1e-12)
    perm = rng.permutation(1000)
    # same bins whatever the order (sums differ only in float summation order)
    assert m.ece(c[perm], y[perm], binning="equal_mass") == pytest.approx(m.ece(c, y, binning="equal_mass"), abs=1e-15)
    # heaped values: ties share a bin, so fewer bins remain and the count still adds up
    pct, yy = heaped_rows(0)
    rbh = m.reliability_bins(m.from_percent(pct), yy, binning="equal_mass")
    assert rbh["n"].sum() == len(pct) and len(rbh["n"]) <= 10
    assert np.all(np.diff(rbh["lo"]) > 0)


def test_smooth_ece_in_blocks_equals_the_one_matrix_evaluation(monkeypatch):
    """A kernel too big for one matrix is built and applied a block of levels at a time: the bandwidth, the
    smooth ECE of the observed counts and of bootstrap-like count rows agree with the one-matrix values."""
    from selfconf import metrics

    rng = np.random.default_rng(5)
    conf = rng.uniform(0, 1, 3000).round(6)
    y = (rng.uniform(0, 1, conf.size) < conf**1.3).astype(int)
    lv, pos, neg = metrics.level_counts(conf, y)
    draws = rng.poisson(1.0, (7, lv.size))
    P, T = (draws * pos).astype(float), (draws * (pos + neg)).astype(float)

    def evaluate():
        sigma = metrics.smooth_ece_bandwidth(lv, pos, neg)
        kern = metrics.smooth_ece_kernel(lv, sigma)
        return sigma, kern, metrics._smooth_ece_at(lv, P, T, sigma, kern)

    sigma, kern, whole = evaluate()
    one_matrix = metrics.smooth_ece(conf, y)
    assert kern is not None
    monkeypatch.setattr(metrics, "_KERNEL_BLOCK", 200_000)  # blocks of some 70 levels
    monkeypatch.setattr(metrics, "_KERNEL_WHOLE", 5000)
    sigma_b, kern_b, blocks = evaluate()
    assert kern_b is None and sigma_b == sigma
    np.testing.assert_allclose(blocks, whole, rtol=1e-12)
    assert metrics.smooth_ece(conf, y) == pytest.approx(one_matrix, rel=1e-12)
