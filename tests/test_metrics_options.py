"""EceOptions: one declaration and one validation of the binned-calibration options."""

import numpy as np
import pytest
from sklearn.calibration import calibration_curve

from selfconf.metrics import EceOptions, ece, reliability_bins


def test_defaults_are_the_functions_defaults():
    rng = np.random.default_rng(3)
    c = rng.integers(0, 11, 500) / 10
    y = rng.random(500) < c
    assert ece(c, y, **EceOptions().as_kwargs()) == ece(c, y)


@pytest.mark.parametrize(
    "kw, word",
    [
        ({"n_bins": 0}, "n_bins"),
        ({"n_bins": 2.5}, "n_bins"),
        ({"n_bins": True}, "n_bins"),
        ({"binning": "quantile"}, "binning"),
        ({"edge": "middle"}, "edge"),
        ({"snap": "yes"}, "snap"),
    ],
)
def test_bad_option_is_named(kw, word):
    with pytest.raises(ValueError, match=word):
        EceOptions(**kw)


def test_lower_edge_unsnapped_is_sklearn_calibration_curve():
    # outside reference: scikit-learn's uniform calibration_curve bins with searchsorted(side="left") on
    # linspace edges as stored, i.e. edge="lower", snap=False
    rng = np.random.default_rng(7)
    c = np.round(rng.random(2000), 2)
    y = (rng.random(2000) < c).astype(int)
    opts = EceOptions(n_bins=10, edge="lower", snap=False)
    rb = reliability_bins(c, y, **opts.as_kwargs())
    occupied = rb["n"] > 0
    prob_true, prob_pred = calibration_curve(y, c, n_bins=10, strategy="uniform")
    np.testing.assert_allclose(np.asarray(rb["acc"])[occupied], prob_true, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(rb["mean_conf"])[occupied], prob_pred, rtol=0, atol=1e-12)


def test_frozen():
    with pytest.raises(AttributeError):
        EceOptions().n_bins = 5  # type: ignore[misc]
