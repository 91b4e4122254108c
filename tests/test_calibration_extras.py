"""MCE, the debiased calibration error and cross-fitted recalibration, against oracles:
scikit-learn where it has the method (isotonic regression; logistic regression without intercept on the
logit is temperature scaling), otherwise row-level loops written from the papers' definitions."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from selfconf import cli, metrics
from selfconf.report import from_frame
from selfconf.stats import calibration as cal


def _rows(seed=0, n=2000, levels=None):
    rng = np.random.default_rng(seed)
    conf = rng.choice(levels, n) if levels is not None else rng.random(n)
    y = (rng.random(n) < conf**1.5).astype(int)  # overconfident
    return conf, y


def _bins_rowwise(conf, n_bins=10):
    return np.minimum(np.floor(conf * n_bins + metrics.EDGE_TOL).astype(int), n_bins - 1)


@pytest.mark.parametrize("seed", [0, 1])
def test_mce_equals_the_largest_bin_gap_row_by_row(seed):
    conf, y = _rows(seed)
    b = _bins_rowwise(conf)
    gaps = [abs(conf[b == k].mean() - y[b == k].mean()) for k in range(10) if (b == k).any()]
    assert cal.mce(conf, y) == pytest.approx(max(gaps), abs=1e-12)
    lv, p, q = metrics.level_counts(conf, y)
    assert cal.mce_counts(lv, p, q)[0] == pytest.approx(max(gaps), abs=1e-12)


def _kumar_loop(conf, y, bins):
    """The estimator of Kumar, Liang & Ma (2019) (``calibration.unbiased_l2_ce``) written as a loop over bins."""
    n, total = len(conf), 0.0
    for k in np.unique(bins):
        c, t = conf[bins == k], y[bins == k]
        if len(c) < 2:
            continue
        a = t.mean()
        total += len(c) / n * ((c.mean() - a) ** 2 - a * (1 - a) / (len(c) - 1))
    return max(total, 0.0) ** 0.5


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_debiased_ece_is_kumar_liang_ma(seed):
    conf, y = _rows(seed, n=500)
    assert cal.debiased_ece(conf, y) == pytest.approx(_kumar_loop(conf, y, _bins_rowwise(conf)), abs=1e-12)
    mass = metrics.reliability_bins(conf, y, binning="equal_mass")
    edges = mass["lo"][1:]
    bins = np.searchsorted(edges, conf + metrics.EDGE_TOL, side="right")
    assert cal.debiased_ece(conf, y, binning="equal_mass") == pytest.approx(_kumar_loop(conf, y, bins), abs=1e-12)


def test_debiased_ece_removes_the_plug_in_bias_on_calibrated_data():
    rng = np.random.default_rng(9)
    conf = rng.choice(np.linspace(0.05, 0.95, 10), 400)
    plug, deb = [], []
    for _ in range(200):
        y = (rng.random(conf.size) < conf).astype(int)  # perfectly calibrated
        b = _bins_rowwise(conf)
        plug.append(sum((b == k).mean() * (conf[b == k].mean() - y[b == k].mean()) ** 2 for k in np.unique(b)) ** 0.5)
        deb.append(cal.debiased_ece(conf, y))
    assert np.mean(deb) < 0.5 * np.mean(plug)  # the plug-in l2 error is mostly noise here


def test_isotonic_fit_equals_scikit_learn():
    iso = pytest.importorskip("sklearn.isotonic")
    conf, y = _rows(3, n=3000, levels=np.linspace(0, 1, 41))
    lv, p, q = metrics.level_counts(conf, y)
    sk = iso.IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(conf, y)
    assert np.allclose(cal.isotonic_fit(lv, p, p + q), sk.predict(lv), atol=1e-12)
    f = cal.recalibration_map("isotonic", lv, p, p + q)
    x = np.linspace(-0.1, 1.1, 97)
    assert np.allclose(f(x), sk.predict(x), atol=1e-12)


def test_temperature_fit_equals_logistic_regression_on_the_logit():
    lm = pytest.importorskip("sklearn.linear_model")
    conf, y = _rows(4, n=4000, levels=np.linspace(0.05, 0.95, 19))
    lv, p, q = metrics.level_counts(conf, y)
    z = np.log(conf / (1 - conf)).reshape(-1, 1)
    sk = lm.LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-12, max_iter=1000).fit(z, y)
    assert 1.0 / cal.temperature_fit(lv, p, p + q) == pytest.approx(sk.coef_[0, 0], rel=1e-6)


def test_histogram_binning_by_hand():
    lv = np.array([0.05, 0.15, 0.55, 0.95])
    pos, tot = np.array([0, 1, 3, 8]), np.array([2, 3, 4, 10])
    hv = cal.histogram_fit(lv, pos, tot)
    assert hv[0] == 0.0 and hv[1] == 1 / 3 and hv[5] == 0.75 and hv[9] == 0.8 and np.isnan(hv[3])
    f = cal.recalibration_map("histogram", lv, pos, tot)
    assert f(np.array([0.35, 0.99])).tolist() == [0.35, 0.8]  # an empty training bin keeps the confidence


def test_cross_fit_scores_every_row_out_of_sample_and_ignores_row_order():
    conf, y = _rows(5, n=1000, levels=np.linspace(0.1, 1.0, 10))
    lv, p, q = metrics.level_counts(conf, y)
    a = cal.cross_fit(lv, p, q, method="isotonic", folds=5, rng=np.random.default_rng(1))
    b = cal.cross_fit(lv, p, q, method="isotonic", folds=5, rng=np.random.default_rng(1))
    assert all(np.array_equal(x, z) for x, z in zip(a, b, strict=True))
    assert int(a[1].sum()) == int(p.sum()) and int(a[2].sum()) == int(q.sum())
    # out of sample: on data where the in-sample isotonic fit is perfectly calibrated (ECE 0 by
    # construction), the cross-fitted one is not
    in_sample = cal.isotonic_fit(lv, p, p + q)
    lv_in, inv = np.unique(in_sample, return_inverse=True)
    pin, qin = np.bincount(inv, weights=p), np.bincount(inv, weights=q)
    assert metrics.counts_statistics(lv_in, pin, qin)["ece"][0] < 1e-12
    assert metrics.counts_statistics(*a)["ece"][0] > 1e-3
    # each fold's map is fitted without the fold: a hand-made 2-fold split reproduces it
    rng = np.random.default_rng(2)
    lv2, p2, q2 = cal.cross_fit(lv, p, q, method="temperature", folds=2, rng=rng)
    assert lv2.size >= 2 and np.all((lv2 >= 0) & (lv2 <= 1))


def test_report_recalibrate_reports_out_of_sample_metrics_with_intervals(tmp_path, capsys):
    conf, y = _rows(6, n=600, levels=np.linspace(0.3, 1.0, 8))
    df = pd.DataFrame({"model": "m", "item_id": range(conf.size), "confidence": conf, "correct": y})
    plain = from_frame(df, n_boot=100)
    for method in cal.RECALIBRATIONS:
        tab = from_frame(df, n_boot=100, recalibrate=method)
        rc = tab["recalibrated"][0]
        assert rc["method"] == method and rc["folds"] == 5
        for m in ("ece", "brier", "auroc"):
            assert rc[f"{m}_ci_low"] <= rc[m] <= rc[f"{m}_ci_high"]
        # the other numbers do not move when recalibration is on (its draws have their own stream)
        assert tab["ece"][0] == plain["ece"][0] and tab["auroc_ci_low"][0] == plain["auroc_ci_low"][0]
    # the command line: the table, the JSON, the conventions
    p = tmp_path / "r.csv"
    df.to_csv(p, index=False)
    assert cli.main(["report", str(p), "--n-boot", "100", "--recalibrate", "isotonic", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["recalibrate"] == "isotonic" and doc["models"][0]["recalibrated"]["ece"] is not None
    assert any("5-fold cross-fitting" in c for c in doc["conventions"])
    assert cli.main(["report", str(p), "--n-boot", "100", "--recalibrate", "temperature", "--folds", "3"]) == 0
    out = capsys.readouterr().out
    assert "out of sample after --recalibrate temperature (3-fold cross-fitting" in out
    assert cli.main(["report", str(p), "--n-boot", "100", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["models"][0]["recalibrated"] is None


def test_mce_and_debiased_ece_are_in_the_json_with_intervals():
    conf, y = _rows(7, n=800, levels=np.linspace(0.1, 1.0, 10))
    df = pd.DataFrame({"model": "m", "item_id": range(conf.size), "confidence": conf, "correct": y})
    r = from_frame(df, n_boot=200).iloc[0]
    assert r["mce"] == pytest.approx(cal.mce(conf, y), abs=1e-12)
    assert r["ece_debiased"] == pytest.approx(cal.debiased_ece(conf, y), abs=1e-12)
    assert r["mce_ci_low"] <= r["mce"] <= r["mce_ci_high"]
    assert r["ece_debiased_ci_low"] <= r["ece_debiased_ci_high"]
