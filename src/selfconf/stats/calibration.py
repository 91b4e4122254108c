"""Calibration statistics beyond :func:`selfconf.metrics.counts_statistics`: MCE, the debiased calibration
error of Kumar, Liang & Ma (2019), and recalibration maps fitted out of sample by k-fold cross-fitting.

Every function works on per-level counts (``levels`` ascending, ``pos``/``neg`` correct and wrong rows at
each level; :func:`selfconf.metrics.level_counts`), batched over bootstrap draws where that makes sense, so
the report's one computation path (counts, never row order) carries them.  The bins are those of
:func:`selfconf.metrics.reliability_bins` (``n_bins``, ``binning``, ``edge``, ``snap``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from selfconf import metrics

__all__ = [
    "RECALIBRATIONS",
    "level_bins",
    "mce_counts",
    "mce",
    "debiased_ece_counts",
    "debiased_ece",
    "isotonic_fit",
    "temperature_fit",
    "histogram_fit",
    "recalibration_map",
    "cross_fit",
]

#: Recalibration methods of :func:`cross_fit` (``selfconf report --recalibrate``).
RECALIBRATIONS = ("isotonic", "temperature", "histogram")


def level_bins(
    levels: Any,
    tot: Any,
    *,
    n_bins: int = 10,
    binning: str = "equal_width",
    edge: str = "upper",
    snap: bool = True,
) -> np.ndarray:
    """Bin of every level in every draw, shape (B, K): the bins of :func:`selfconf.metrics.reliability_bins`.

    ``tot`` (K,) or (B, K) are the rows at each level (equal-mass edges depend on them).

    Example: ``level_bins([0.05, 0.8], [1, 1]).tolist()`` -> ``[[0, 8]]``.
    """
    lv = np.asarray(levels, float)
    T = np.atleast_2d(np.asarray(tot, float))
    B, K = T.shape
    if binning == "equal_width":
        return np.broadcast_to(metrics._bin_index(lv, int(n_bins), edge, snap), (B, K))
    cumT = np.cumsum(T, axis=1)
    n = cumT[:, -1] if K else np.zeros(B)
    posn = (np.arange(1, n_bins)[None, :] * n[:, None]) // n_bins
    inner = lv[metrics._count_at_or_below(cumT, posn).clip(0, K - 1)]
    tol = metrics.EDGE_TOL if snap else 0.0
    probe = np.broadcast_to((lv + tol) if edge == "upper" else (lv - tol), (B, K))
    return metrics._count_at_or_below(inner, probe, strict=edge != "upper")


def _bin_sums(levels, pos, neg, opts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per draw and bin: rows, sum of (c - y), correct rows; each (B, n_bins)."""
    lv = np.asarray(levels, float)
    P = np.atleast_2d(np.asarray(pos, float))
    Q = np.atleast_2d(np.asarray(neg, float))
    T = P + Q
    B, K = T.shape
    nb = int(opts.get("n_bins", 10))
    if opts.get("binning", "equal_width") == "equal_width":  # one bin per level for every draw: matrix products
        onehot = np.zeros((K, nb))
        onehot[np.arange(K), metrics._bin_index(lv, nb, opts.get("edge", "upper"), opts.get("snap", True))] = 1.0
        return T @ onehot, (T * lv - P) @ onehot, P @ onehot
    b = level_bins(lv, T, **opts)
    flat = (b + np.arange(B)[:, None] * nb).ravel()

    def agg(w: np.ndarray) -> np.ndarray:
        return np.bincount(flat, weights=w.ravel(), minlength=B * nb).reshape(B, nb)

    return agg(T), agg(T * lv - P), agg(P)


def _opts(n_bins: int, binning: str, edge: str, snap: bool) -> dict[str, Any]:
    return {"n_bins": int(n_bins), "binning": binning, "edge": edge, "snap": bool(snap)}


def mce_counts(
    levels: Any,
    pos: Any,
    neg: Any,
    *,
    n_bins: int = 10,
    binning: str = "equal_width",
    edge: str = "upper",
    snap: bool = True,
) -> np.ndarray:
    """Maximum calibration error from per-level counts, one value per draw (row of ``pos``/``neg``).

    Definition: MCE = max over occupied bins b of |mean confidence_b - accuracy_b| (Naeini et al. 2015;
    Guo et al. 2017, Eq. 5), with the bins of :func:`selfconf.metrics.reliability_bins`.  NaN for a draw
    without rows.

    References
    ----------
    Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining well calibrated probabilities using
    Bayesian binning. AAAI 2015.  Guo, C. et al. (2017). On calibration of modern neural networks. ICML.

    Examples
    --------
    >>> float(mce_counts([0.55, 0.95], [1, 1], [1, 0])[0])  # bins [0.5, 0.6): gap 0.05; [0.9, 1]: 0.05
    0.050000000000000044
    """
    cnt, gap, _ = _bin_sums(levels, pos, neg, _opts(n_bins, binning, edge, snap))
    with np.errstate(invalid="ignore", divide="ignore"):
        per_bin = np.where(cnt > 0, np.abs(gap) / np.where(cnt > 0, cnt, 1.0), -np.inf)
    out = per_bin.max(axis=1) if per_bin.shape[1] else np.full(per_bin.shape[0], -np.inf)
    return np.where(np.isfinite(out), out, np.nan)


def mce(
    confidence: Any,
    correct: Any,
    n_bins: int = 10,
    *,
    edge: str = "upper",
    binning: str = "equal_width",
    snap: bool = True,
) -> float:
    """Maximum calibration error of rows (0-1 confidences, 0/1 correct); definition in :func:`mce_counts`.

    Reference: Naeini, Cooper & Hauskrecht (2015).

    Examples
    --------
    >>> mce([0.9, 0.9, 0.3], [1, 0, 0])  # bin [0.9, 1]: 0.9 vs 0.5; bin [0.3, 0.4): 0.3 vs 0
    0.4
    """
    lv, p, q = metrics.level_counts(confidence, correct)
    return float(mce_counts(lv, p, q, n_bins=n_bins, binning=binning, edge=edge, snap=snap)[0])


def debiased_ece_counts(
    levels: Any,
    pos: Any,
    neg: Any,
    *,
    n_bins: int = 10,
    binning: str = "equal_width",
    edge: str = "upper",
    snap: bool = True,
) -> np.ndarray:
    """Debiased l2 calibration error (Kumar, Liang & Ma 2019) from per-level counts, one value per draw.

    Definition: with n_b rows in bin b, mean confidence c_b and accuracy a_b,
    CE^2 = sum_b (n_b / n) [(c_b - a_b)^2 - a_b (1 - a_b) / (n_b - 1)] over bins with n_b >= 2 (a bin of
    one row adds 0), and the estimate is sqrt(max(CE^2, 0)).  The plug-in (c_b - a_b)^2 overstates the
    squared gap by the variance of a_b; subtracting its unbiased estimate removes that bias, so a perfectly
    calibrated forecaster scores about 0 at any n (the plug-in ECE does not).  It is an l2 error, comparable
    with sqrt of the binned squared gaps, not with the l1 ECE.  The estimator of the ``calibration``
    package (``unbiased_l2_ce``), here on the report's bins.

    References
    ----------
    Kumar, A., Liang, P. & Ma, T. (2019). Verified uncertainty calibration. NeurIPS 2019, Sec. 5.

    Examples
    --------
    >>> float(debiased_ece_counts([0.75], [3], [1])[0])  # one bin: gap 0, variance 0.1875 / 3 -> 0
    0.0
    >>> round(float(debiased_ece_counts([0.95], [2], [2])[0]), 6)  # (0.45^2 - 0.25 / 3) -> sqrt(0.119167)
    0.345205
    """
    cnt, gap, right = _bin_sums(levels, pos, neg, _opts(n_bins, binning, edge, snap))
    n = cnt.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        two = cnt >= 2
        c = np.where(two, cnt, 1.0)
        acc = right / c
        sq = (gap / c) ** 2 - acc * (1.0 - acc) / np.where(two, cnt - 1.0, 1.0)
        ce2 = np.where(two, cnt * sq, 0.0).sum(axis=1) / n
    return np.where(n > 0, np.sqrt(np.maximum(ce2, 0.0)), np.nan)


def debiased_ece(
    confidence: Any,
    correct: Any,
    n_bins: int = 10,
    *,
    edge: str = "upper",
    binning: str = "equal_width",
    snap: bool = True,
) -> float:
    """Debiased l2 calibration error of rows; definition in :func:`debiased_ece_counts`.

    Reference: Kumar, Liang & Ma (2019), Verified uncertainty calibration.

    Examples
    --------
    >>> round(debiased_ece([0.95, 0.95, 0.95, 0.95], [1, 1, 0, 0]), 6)
    0.345205
    """
    lv, p, q = metrics.level_counts(confidence, correct)
    return float(debiased_ece_counts(lv, p, q, n_bins=n_bins, binning=binning, edge=edge, snap=snap)[0])


# --------------------------------------------------------------------------------------------
# recalibration maps (fitted on counts; applied to levels)
# --------------------------------------------------------------------------------------------


def isotonic_fit(levels: Any, pos: Any, tot: Any) -> np.ndarray:
    """Weighted isotonic (non-decreasing) regression of accuracy on confidence: fitted value per level.

    Definition: the non-decreasing f minimising sum_k tot_k (pos_k / tot_k - f_k)^2 over the levels with
    rows (pool-adjacent-violators); equal to a row-level isotonic fit of correct on confidence (tied rows
    share one value).  Levels without rows get NaN.  ``predict`` as scikit-learn's ``IsotonicRegression``
    (``out_of_bounds="clip"``): linear interpolation between fitted levels (:func:`recalibration_map`).

    References
    ----------
    Zadrozny, B. & Elkan, C. (2002). Transforming classifier scores into accurate multiclass probability
    estimates. KDD 2002.  Barlow, R. E. et al. (1972). Statistical inference under order restrictions.

    Examples
    --------
    >>> isotonic_fit([0.2, 0.5, 0.9], [1, 0, 2], [2, 2, 2]).tolist()
    [0.25, 0.25, 1.0]
    """
    lv = np.asarray(levels, float)
    w = np.asarray(tot, float)
    y = np.asarray(pos, float)
    keep = w > 0
    out = np.full(lv.size, np.nan)
    idx = np.flatnonzero(keep)
    # pool adjacent violators on blocks (value, weight, length)
    vals: list[float] = []
    wts: list[float] = []
    lens: list[int] = []
    for k in idx:
        v, wt, ln = y[k] / w[k], w[k], 1
        while vals and vals[-1] >= v:
            pv, pw, pl = vals.pop(), wts.pop(), lens.pop()
            v = (pv * pw + v * wt) / (pw + wt)
            wt += pw
            ln += pl
        vals.append(v)
        wts.append(wt)
        lens.append(ln)
    out[idx] = np.repeat(vals, lens) if vals else np.empty(0)
    return out


def temperature_fit(levels: Any, pos: Any, tot: Any, *, eps: float = 1e-6) -> float:
    """Temperature T of binary temperature scaling: c' = sigmoid(logit(c) / T), fitted by maximum likelihood.

    Definition: a = 1 / T minimises the negative log-likelihood sum_k [pos_k log sigmoid(a z_k) +
    (tot_k - pos_k) log(1 - sigmoid(a z_k))] with z = logit(clip(c, eps, 1 - eps)) (Newton's method on
    this convex function of a, from a = 1).  Returns T = 1 / a (inf when a = 0; a negative T reverses the
    ranking, which the data may ask for).

    References
    ----------
    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of modern neural networks.
    ICML 2017, Sec. 4.2 (temperature scaling); netcal's ``TemperatureScaling`` for one score.

    Examples
    --------
    >>> round(temperature_fit([0.9, 0.1], [7, 3], [10, 10]), 4)  # T = logit(0.9) / logit(0.7)
    2.5932
    """
    lv = np.clip(np.asarray(levels, float), eps, 1 - eps)
    w = np.asarray(tot, float)
    y = np.asarray(pos, float)
    keep = w > 0
    z, w, y = np.log(lv[keep] / (1 - lv[keep])), w[keep], y[keep]
    a = 1.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-a * z))
        g = float(np.sum((w * p - y) * z))
        h = float(np.sum(w * p * (1 - p) * z * z))
        if h <= 0:
            break
        step = g / h
        a_new = a - step
        a = float(np.clip(a_new, -1e3, 1e3))
        if abs(step) < 1e-12 * max(1.0, abs(a)):
            break
    return math.inf if a == 0 else 1.0 / a


def histogram_fit(levels: Any, pos: Any, tot: Any, *, n_bins: int = 10) -> np.ndarray:
    """Histogram binning: accuracy in each of ``n_bins`` equal-width confidence bins (NaN for an empty bin).

    Definition: bin b's value is (correct rows in b) / (rows in b), bins as
    :func:`selfconf.metrics.reliability_bins` (equal width, edge ``upper``); a confidence is mapped to its
    bin's value, and kept unchanged where the fitting rows left its bin empty.

    References
    ----------
    Zadrozny, B. & Elkan, C. (2001). Obtaining calibrated probability estimates from decision trees and
    naive Bayesian classifiers. ICML 2001; netcal's ``HistogramBinning``.

    Examples
    --------
    >>> histogram_fit([0.15, 0.85], [1, 3], [4, 4], n_bins=2).tolist()
    [0.25, 0.75]
    """
    lv = np.asarray(levels, float)
    b = metrics._bin_index(lv, int(n_bins))
    cnt = np.bincount(b, weights=np.asarray(tot, float), minlength=n_bins)
    right = np.bincount(b, weights=np.asarray(pos, float), minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, right / np.where(cnt > 0, cnt, 1.0), np.nan)


def recalibration_map(method: str, levels: Any, pos: Any, tot: Any, *, n_bins: int = 10):
    """Fit ``method`` (:data:`RECALIBRATIONS`) on counts; return a function from confidences to recalibrated ones.

    Example: ``recalibration_map("isotonic", [0.2, 0.9], [0, 1], [1, 1])(np.array([0.5]))`` -> ``[0.4286...]``.
    """
    lv = np.asarray(levels, float)
    if method == "isotonic":
        f = isotonic_fit(lv, pos, tot)
        have = ~np.isnan(f)
        x, fx = lv[have], f[have]
        return lambda c: np.interp(c, x, fx)
    if method == "temperature":
        t = temperature_fit(lv, pos, tot)
        a = 0.0 if math.isinf(t) else 1.0 / t

        def scale(c: np.ndarray) -> np.ndarray:
            cc = np.clip(c, 1e-6, 1 - 1e-6)
            return 1.0 / (1.0 + np.exp(-a * np.log(cc / (1 - cc))))

        return scale
    if method == "histogram":
        hv = histogram_fit(lv, pos, tot, n_bins=n_bins)

        def binned(c: np.ndarray) -> np.ndarray:
            v = hv[metrics._bin_index(np.asarray(c, float), int(n_bins))]
            return np.where(np.isnan(v), c, v)

        return binned
    raise ValueError(f"--recalibrate must be one of {', '.join(RECALIBRATIONS)}, got {method}")


def cross_fit(
    levels: Any,
    pos: Any,
    neg: Any,
    *,
    method: str,
    folds: int = 5,
    rng: np.random.Generator,
    n_bins: int = 10,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Out-of-sample recalibrated confidences by k-fold cross-fitting, as per-level counts.

    Definition: the n rows are split into ``folds`` folds of sizes differing by at most one, at random
    (``rng``) but through the counts only: the rows are laid out by (level, class) and a random permutation
    deals them round-robin, so the split, and everything after it, does not depend on the input's row
    order.  For each fold the map of ``method`` is fitted on the other folds' rows and applied to the
    fold's rows; no row is scored by a map fitted on it.  Returns the distinct recalibrated confidences
    (ascending) with the correct and wrong rows at each, ready for
    :func:`selfconf.metrics.counts_statistics`.

    References
    ----------
    Chernozhukov, V. et al. (2018). Double/debiased machine learning. Econometrics Journal 21, C1-C68
    (cross-fitting); scikit-learn's ``CalibratedClassifierCV`` (k-fold calibration).

    Examples
    --------
    >>> lv, p, q = cross_fit([0.6, 0.9], [30, 45], [30, 5], method="isotonic", rng=np.random.default_rng(0))
    >>> int(p.sum() + q.sum()), bool(np.all(np.diff(lv) > 0))
    (110, True)
    """
    lv = np.asarray(levels, float)
    P = np.asarray(pos, np.int64)
    Q = np.asarray(neg, np.int64)
    k = int(folds)
    K = lv.size
    counts = np.stack([Q, P], axis=1).ravel()  # cell 2j = wrong at level j, 2j + 1 = right
    n = int(counts.sum())
    if k < 2 or n < 2 * k:
        raise ValueError(f"cross-fitting needs at least {2 * k} rows for {k} folds, got {n}")
    cell = np.repeat(np.arange(2 * K), counts)
    fold = np.empty(n, np.int64)
    fold[rng.permutation(n)] = np.arange(n) % k
    per = np.bincount(cell * k + fold, minlength=2 * K * k).reshape(K, 2, k)  # level, class, fold
    out_vals, out_pos, out_neg = [], [], []
    tot_all = per.sum(axis=2)
    for f in range(k):
        train = tot_all - per[:, :, f]
        fmap = recalibration_map(method, lv, train[:, 1], train.sum(axis=1), n_bins=n_bins)
        held = per[:, :, f]
        have = held.sum(axis=1) > 0
        out_vals.append(np.clip(fmap(lv[have]), 0.0, 1.0))
        out_pos.append(held[have, 1])
        out_neg.append(held[have, 0])
    vals = np.concatenate(out_vals)
    uniq, inv = np.unique(vals, return_inverse=True)
    return (
        uniq,
        np.bincount(inv, weights=np.concatenate(out_pos), minlength=uniq.size).astype(np.int64),
        np.bincount(inv, weights=np.concatenate(out_neg), minlength=uniq.size).astype(np.int64),
    )
