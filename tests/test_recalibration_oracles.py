"""Recalibration maps against outside oracles on the same cross-fitting folds: scipy's bounded minimiser and
minimize (temperature, Platt), scikit-learn's LogisticRegression without penalty (Platt, beta) and
IsotonicRegression (isotonic); a data set with 20 % of its confidences at exactly 0 and 1; a fit without an
optimum is reported, never used; the recalibrated intervals go through the main table's flag rule."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from selfconf import cli, metrics
from selfconf.report import core, from_frame
from selfconf.stats import calibration as cal

optimize = pytest.importorskip("scipy.optimize")


def _zero_one_heavy(seed=30, n=5000):
    """Overconfident confidences in 0.01-0.99, and 20 % of the rows stated at exactly 0 or 1 (many wrong)."""
    rng = np.random.default_rng(seed)
    c = np.clip(rng.beta(5, 2, n), 0.01, 0.99)
    y = (rng.random(n) < 0.5 + 0.6 * (c - 0.5)).astype(int)
    k = rng.random(n) < 0.2
    ones = rng.random(n) < 0.85
    c[k] = np.where(ones[k], 1.0, 0.0)
    y[k] = np.where(ones[k], rng.random(k.sum()) < 0.8, rng.random(k.sum()) < 0.35)
    return np.round(c, 2), y


def _rows_and_folds(lv, p, q, k, seed):
    """Rows (confidence, correct) laid out by (level, class) and their folds, as cross_fit documents its split."""
    counts = np.stack([q, p], axis=1).ravel()
    n = int(counts.sum())
    cell = np.repeat(np.arange(2 * lv.size), counts)
    fold = np.empty(n, np.int64)
    fold[np.random.default_rng(seed).permutation(n)] = np.arange(n) % k
    return lv[cell // 2], cell % 2, fold


def _logit(c):
    c = np.clip(c, cal.CLIP_EPS, 1 - cal.CLIP_EPS)
    return np.log(c / (1 - c))


def _scipy_temperature_a(conf, y):
    z = _logit(conf)
    r = optimize.minimize_scalar(
        lambda a: np.sum(np.logaddexp(0, a * z) - y * a * z),
        bounds=(-cal.PARAM_BOUND, cal.PARAM_BOUND),
        method="bounded",
        options={"xatol": 1e-12},
    )
    return float(r.x)


def _same_outputs(got, conf, y, pred):
    """cross_fit's (levels, pos, neg) equal the oracle's out-of-sample predictions row by row (as counts)."""
    lv, p, q = got
    idx = np.abs(lv[None, :] - pred[:, None]).argmin(axis=1)  # the nearest recalibrated value
    assert np.allclose(lv[idx], pred, rtol=0, atol=1e-6)
    assert np.array_equal(np.bincount(idx, weights=y, minlength=lv.size), p)
    assert np.array_equal(np.bincount(idx, weights=1 - y, minlength=lv.size), q)


def test_temperature_on_zero_one_heavy_data_equals_scipy_on_the_same_folds():
    conf, y = _zero_one_heavy()
    assert np.mean((conf == 0) | (conf == 1)) == pytest.approx(0.2, abs=0.02)
    lv, p, q = metrics.level_counts(conf, y)
    # whole data: the old Newton iteration from a = 1 gave T = 0.001 here (a step map)
    t_scipy = 1 / _scipy_temperature_a(conf, y)
    assert t_scipy > 2
    assert cal.temperature_fit(lv, p, p + q) == pytest.approx(t_scipy, rel=1e-6)
    info: dict = {}
    got = cal.cross_fit(lv, p, q, method="temperature", folds=5, rng=np.random.default_rng(3), info=info)
    rc, ry, fold = _rows_and_folds(lv, p, q, 5, 3)
    pred = np.empty(rc.size)
    for f in range(5):
        a = _scipy_temperature_a(rc[fold != f], ry[fold != f])
        assert info["fold_params"][f][0] == pytest.approx(a, rel=1e-6)
        pred[fold == f] = 1 / (1 + np.exp(-a * _logit(rc[fold == f])))
    _same_outputs(got, rc, ry, pred)


def test_platt_equals_scipy_minimize_and_unpenalised_logistic_regression():
    lm = pytest.importorskip("sklearn.linear_model")
    conf, y = _zero_one_heavy(seed=31, n=3000)
    lv, p, q = metrics.level_counts(conf, y)
    z = _logit(conf)
    sk = lm.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(z[:, None], y)
    r = optimize.minimize(
        lambda w: np.sum(np.logaddexp(0, w[0] * z + w[1]) - y * (w[0] * z + w[1])),
        x0=[1.0, 0.0],
        method="BFGS",
        options={"gtol": 1e-10},
    )
    a, b = cal.platt_fit(lv, p, p + q)
    assert (a, b) == pytest.approx((sk.coef_[0, 0], sk.intercept_[0]), abs=1e-6)
    assert (a, b) == pytest.approx(tuple(r.x), abs=1e-6)
    info: dict = {}
    got = cal.cross_fit(lv, p, q, method="platt", folds=4, rng=np.random.default_rng(5), info=info)
    rc, ry, fold = _rows_and_folds(lv, p, q, 4, 5)
    pred = np.empty(rc.size)
    for f in range(4):
        m = lm.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(
            _logit(rc[fold != f])[:, None], ry[fold != f]
        )
        assert info["fold_params"][f] == pytest.approx([m.coef_[0, 0], m.intercept_[0]], abs=1e-6)
        pred[fold == f] = m.predict_proba(_logit(rc[fold == f])[:, None])[:, 1]
    _same_outputs(got, rc, ry, pred)


def test_beta_calibration_equals_logistic_regression_on_its_two_features():
    lm = pytest.importorskip("sklearn.linear_model")
    conf, y = _zero_one_heavy(seed=32, n=3000)
    lv, p, q = metrics.level_counts(conf, y)
    c = np.clip(conf, cal.CLIP_EPS, 1 - cal.CLIP_EPS)
    X = np.stack([np.log(c), -np.log(1 - c)], axis=1)
    sk = lm.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(X, y)
    assert cal.beta_fit(lv, p, p + q) == pytest.approx((*sk.coef_[0], sk.intercept_[0]), abs=1e-6)
    f = cal.recalibration_map("beta", lv, p, p + q)
    grid = np.linspace(0, 1, 51)
    cg = np.clip(grid, cal.CLIP_EPS, 1 - cal.CLIP_EPS)
    assert np.allclose(f(grid), sk.predict_proba(np.stack([np.log(cg), -np.log(1 - cg)], 1))[:, 1], atol=1e-6)


def test_isotonic_cross_fit_equals_scikit_learn_on_the_same_folds_and_the_named_difference():
    iso = pytest.importorskip("sklearn.isotonic")
    conf, y = _zero_one_heavy(seed=33, n=2000)
    lv, p, q = metrics.level_counts(conf, y)
    got = cal.cross_fit(lv, p, q, method="isotonic", folds=5, rng=np.random.default_rng(7))
    rc, ry, fold = _rows_and_folds(lv, p, q, 5, 7)
    pred = np.empty(rc.size)
    for f in range(5):  # tied confidences pooled (sklearn averages y over equal x), increasing, clipped outside
        m = iso.IsotonicRegression(out_of_bounds="clip", increasing=True).fit(rc[fold != f], ry[fold != f])
        pred[fold == f] = m.predict(rc[fold == f])
    _same_outputs(got, rc, ry, pred)
    # the named difference: scikit-learn's default out_of_bounds="nan" leaves a confidence outside the
    # training range without a value; the project's map clips it to the end value (CalibratedClassifierCV's choice)
    train_c, train_y = np.array([0.3, 0.5, 0.7, 0.9]), np.array([0, 1, 0, 1])
    lvt, pt, qt = metrics.level_counts(train_c, train_y)
    ours = cal.recalibration_map("isotonic", lvt, pt, pt + qt)(np.array([0.1, 0.95]))
    default = iso.IsotonicRegression().fit(train_c, train_y).predict([0.1, 0.95])
    assert np.all(np.isnan(default)) and ours.tolist() == [0.0, 1.0]


def test_a_fit_without_an_optimum_is_reported_and_not_used(capsys, tmp_path):
    # every stated-high answer right, every stated-low one wrong: the likelihood grows toward a step map
    conf = np.repeat([0.2, 0.9], 100)
    y = np.repeat([0, 1], 100)
    lv, p, q = metrics.level_counts(conf, y)
    r = cal.logistic_map_fit("temperature", lv, p, p + q)
    assert not r["converged"] and "no finite optimum" in r["reason"]
    assert np.isnan(cal.temperature_fit(lv, p, p + q))
    with pytest.raises(cal.RecalibrationFailed):
        cal.recalibration_map("platt", lv, p, p + q)
    df = pd.DataFrame({"model": "m", "item_id": range(conf.size), "confidence": conf, "correct": y})
    rc = from_frame(df, n_boot=100, recalibrate="temperature")["recalibrated"][0]
    assert rc["converged"] is False and rc["ece"] is None and rc["auroc"] is None
    assert "did not converge" in rc["note"] and rc["clip_eps"] == cal.CLIP_EPS
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    assert cli.main(["report", str(path), "--n-boot", "100", "--recalibrate", "temperature"]) == 0
    out = capsys.readouterr().out
    assert "m: not recalibrated: temperature fit did not converge" in out


def test_recalibrated_intervals_obey_the_flag_rule_of_the_main_table(capsys, tmp_path):
    rng = np.random.default_rng(8)
    conf = rng.choice(np.linspace(0.05, 0.95, 19), 3000)
    y = (rng.random(conf.size) < conf).astype(int)  # calibrated: recalibrated ECE near 0
    df = pd.DataFrame({"model": "m", "item_id": range(conf.size), "confidence": conf, "correct": y})
    for method in cal.RECALIBRATIONS:
        rec = from_frame(df, n_boot=100, recalibrate=method).to_dict("records")[0]
        rc = rec["recalibrated"]
        for m in core.RECAL_METRICS:
            # an independent statement of the rule: >= 30 rows, nonzero width, >= 100 draws, estimate inside
            lo, hi, v = rc[f"{m}_ci_low"], rc[f"{m}_ci_high"], rc[m]
            bad = hi == lo or not lo <= v <= hi
            assert (m in rc["interval_flags"]) == bad, (method, m, lo, v, hi)
            assert (f"recalibrated {m}" in rec["interval_flags"]) == bad
    # the ECE of a calibrated model's recalibration sits below its own interval here: flagged and starred
    rec = from_frame(df, n_boot=200, recalibrate="platt").to_dict("records")[0]
    assert "ece" in rec["recalibrated"]["interval_flags"]
    assert "does not contain the estimate" in rec["recalibrated"]["interval_flags"]["ece"]
    # fewer than 100 draws: every recalibrated interval is flagged with the main table's words
    few = from_frame(df, n_boot=50, recalibrate="histogram").to_dict("records")[0]
    assert set(few["recalibrated"]["interval_flags"]) == set(core.RECAL_METRICS)
    assert few["recalibrated"]["interval_flags"]["brier"] == few["interval_flags"]["brier"]
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    assert cli.main(["report", str(path), "--n-boot", "200", "--recalibrate", "platt", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "ece" in doc["models"][0]["recalibrated"]["interval_flags"]
    assert cli.main(["report", str(path), "--n-boot", "200", "--recalibrate", "platt"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("out of sample after --recalibrate") :]
    assert "]*" in table.splitlines()[3]
