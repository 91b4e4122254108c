"""metrics.bin_index, the one equal-width bin rule, against outside references; its restatements equal it."""

from fractions import Fraction
from math import ceil, floor

import numpy as np
import pytest
from sklearn.calibration import calibration_curve

from selfconf import metrics
from selfconf.course import verify
from selfconf.reconstruct import faststats, tables
from selfconf.reconstruct import ladder as rladder


def _exact_bin(text: str, n_bins: int, edge: str) -> int:
    """The bin of the decimal ``text`` in exact rational arithmetic (an independent loop, no tolerance)."""
    x = Fraction(text) * n_bins
    b = floor(x) if edge == "upper" else ceil(x) - 1
    return min(max(b, 0), n_bins - 1)


@pytest.mark.parametrize("edge", ["upper", "lower"])
@pytest.mark.parametrize("n_bins", [3, 7, 10, 15])
def test_snapped_bins_are_the_exact_decimal_bins(edge, n_bins):
    # confidences written with three decimals: snapping reads them as the decimals they were written as
    texts = [f"{k / 1000:.3f}" for k in range(1001)]
    got = metrics.bin_index(np.array([float(t) for t in texts]), n_bins, edge)
    assert got.tolist() == [_exact_bin(t, n_bins, edge) for t in texts]


def test_lower_unsnapped_bins_group_as_sklearn_calibration_curve():
    rng = np.random.default_rng(11)
    c = rng.random(3000)
    c[:200] = np.linspace(0, 1, 11)[rng.integers(0, 11, 200)]  # values on the edges as stored
    y = (rng.random(3000) < c).astype(int)
    b = metrics.bin_index(c, 10, edge="lower", snap=False)
    n = np.bincount(b, minlength=10)
    occ = n > 0
    acc = np.bincount(b, weights=y, minlength=10)[occ] / n[occ]
    conf = np.bincount(b, weights=c, minlength=10)[occ] / n[occ]
    prob_true, prob_pred = calibration_curve(y, c, n_bins=10, strategy="uniform")
    np.testing.assert_allclose(acc, prob_true, rtol=0, atol=1e-12)
    np.testing.assert_allclose(conf, prob_pred, rtol=0, atol=1e-12)


def test_snapping_reads_rounded_sums_as_written():
    assert metrics.bin_index([0.7 + 0.1]).tolist() == [8]  # 0.7999999999999999
    assert metrics.bin_index([0.7 + 0.1], snap=False).tolist() == [7]


@pytest.mark.parametrize("kw, word", [({"n_bins": 0}, "n_bins"), ({"edge": "mid"}, "edge"), ({"snap": "no"}, "snap")])
def test_bad_options_get_the_one_wording(kw, word):
    with pytest.raises(ValueError, match=f"{word} must be"):
        metrics.bin_index([0.5], **kw)


def test_private_name_is_the_same_function():
    assert metrics._bin_index is metrics.bin_index


PERCENT = np.arange(101)


def test_reconstruction_tables_bin_as_bin_index():
    ones = np.ones(101)
    cnt, _, _ = tables.ece_bins_table(PERCENT, np.zeros(101), ones)
    np.testing.assert_array_equal(cnt, np.bincount(metrics.bin_index(PERCENT / 100), minlength=10))


def test_course_verify_bins_as_bin_index():
    c = np.round(np.random.default_rng(2).random(500), 2)
    np.testing.assert_array_equal(verify._bins10(c), metrics.bin_index(c))


@pytest.mark.parametrize("v", range(100))
def test_scalar_and_ladder_ece_bin_as_metrics_ece(v):
    # one right row at v %, one wrong row at v + 1 %: the ECE tells whether the two share a bin
    want = metrics.ece(np.array([v, v + 1]) / 100, [1, 0])
    got = faststats.table_stats([v, v + 1], [0, 1], [1, 0])["ece"]
    assert got == pytest.approx(want, abs=1e-12)
    assert rladder._ece(np.array([1, 0]), np.array([v, v + 1])) == pytest.approx(want, abs=1e-12)
