"""Smooth ECE as relplot defines it: relplot's own ``smECE`` and kernel are the oracle, on five data sets
(lumpy, continuous, small, nearly all correct, calibrated) and through the report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from selfconf import metrics
from selfconf.report import from_frame

relplot = pytest.importorskip("relplot")


def _sets():
    rng = np.random.default_rng(2)
    out = {}
    c = rng.choice([0.8, 0.9, 0.95, 1.0], 3000, p=[0.2, 0.3, 0.3, 0.2])  # lumpy, as stated confidences often are
    out["lumpy"] = (c, (rng.random(c.size) < c - 0.12).astype(float))
    c = rng.beta(4, 1.5, 4000)
    out["continuous"] = (c, (rng.random(c.size) < c**1.4).astype(float))
    c = rng.random(25)
    out["small"] = (c, (rng.random(25) < c).astype(float))
    c = rng.uniform(0.85, 1.0, 2000)
    out["all_correct_ish"] = (c, (rng.random(c.size) < 0.985).astype(float))
    c = rng.choice(np.linspace(0.05, 0.95, 19), 5000)
    out["calibrated"] = (c, (rng.random(c.size) < c).astype(float))
    return out


@pytest.mark.parametrize("name", list(_sets()))
def test_smooth_ece_and_bandwidth_equal_relplot(name):
    c, y = _sets()[name]
    want, width = relplot.smECE(c, y, return_width=True)
    assert metrics.smooth_ece(c, y) == pytest.approx(float(want), abs=1e-4)
    assert metrics.smooth_ece(c, y) == pytest.approx(float(want), abs=1e-12)  # the same computation, in fact
    lv, p, q = metrics.level_counts(c, y)
    assert metrics.smooth_ece_bandwidth(lv, p, q) == width
    for sigma in (0.01, 0.05, 0.3):  # at a fixed bandwidth too
        assert metrics.smooth_ece(c, y, sigma=sigma) == pytest.approx(
            float(relplot.smECE_sigma(c, y, sigma)), abs=1e-12
        )


def test_smooth_kernel_equals_relplots_reflected_gaussian():
    from relplot.kernels import ReflectedGaussianKernel

    grid = np.linspace(0, 1, 200)
    lv = np.array([0.0, 0.05, 0.3, 0.31, 0.7, 0.99, 1.0])
    for sigma in (0.004, 0.01, 0.05, 0.12, 0.4, 1.0):
        k = metrics.smooth_kernel(lv, sigma, grid)
        ref = np.stack([ReflectedGaussianKernel(sigma).apply(np.array([v]), np.array([1.0]), grid) for v in lv], 1)
        assert np.abs(k - ref).max() <= 1e-12 * ref.max(), sigma
    many = np.linspace(0, 1, 3001)  # the many-levels path (through the grid x nodes matrix)
    k = metrics.smooth_kernel(many, 0.05, grid)
    ref = np.stack([ReflectedGaussianKernel(0.05).apply(np.array([v]), np.array([1.0]), grid) for v in many[::300]], 1)
    assert np.abs(k[:, ::300] - ref).max() <= 1e-12 * ref.max()


def test_report_smooth_ece_is_relplots_on_the_same_rows():
    c, y = _sets()["lumpy"]
    df = pd.DataFrame({"model": "m", "item_id": range(c.size), "confidence": c * 100, "correct": y.astype(int)})
    got = from_frame(df, n_boot=100).to_dict("records")[0]
    assert got["smooth_ece"] == pytest.approx(float(relplot.smECE(c, y)), abs=1e-12)
