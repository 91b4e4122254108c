"""Calibration statistics beyond :func:`selfconf.metrics.counts_statistics`: MCE, the debiased calibration
error of Kumar, Liang & Ma (2019), and recalibration maps fitted out of sample by k-fold cross-fitting.

Every function works on per-level counts (``levels`` ascending, ``pos``/``neg`` correct and wrong rows at
each level; :func:`selfconf.metrics.level_counts`), batched over bootstrap draws where that makes sense, so
the report's one computation path (counts, never row order) carries them.  The bins are those of
:func:`selfconf.metrics.reliability_bins` (``n_bins``, ``binning``, ``edge``, ``snap``).
"""

from __future__ import annotations

import math
from typing import Any, Unpack

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
    "platt_fit",
    "beta_fit",
    "logistic_map_fit",
    "RecalibrationFailed",
    "CLIP_EPS",
    "PARAM_BOUND",
    "histogram_fit",
    "recalibration_map",
    "cross_fit",
]

#: Recalibration methods of :func:`cross_fit` (``selfconf report --recalibrate``).
RECALIBRATIONS = ("isotonic", "temperature", "histogram", "platt", "beta")

#: Confidences are clipped to [CLIP_EPS, 1 - CLIP_EPS] before a logit or a log (temperature, Platt, beta), so
#: that a stated 0 or 1 has a finite log-odds (logit(1 - 1e-6) = 13.8).
CLIP_EPS = 1e-6
#: Every parameter of a logistic-type map (1/T, Platt's slope and intercept, beta's a, b, c) is kept within
#: [-PARAM_BOUND, PARAM_BOUND]; a fit that ends on this bound has no finite optimum inside it (the likelihood
#: keeps improving toward a step or constant map) and is reported as not converged.
PARAM_BOUND = 100.0


class RecalibrationFailed(ValueError):
    """A recalibration map whose fit did not converge; ``reason`` says why (the map is not used)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def level_bins(levels: Any, tot: Any, *, n_bins: int = 10, **rule: Unpack[metrics.BinRule]) -> np.ndarray:
    """Bin of every level in every draw, shape (B, K): the bins of :func:`selfconf.metrics.reliability_bins`.

    ``tot`` (K,) or (B, K) are the rows at each level (equal-mass edges depend on them).

    Example: ``level_bins([0.05, 0.8], [1, 1]).tolist()`` -> ``[[0, 8]]``.
    """
    o = metrics.EceOptions(n_bins, **rule)
    return metrics._level_bins(np.asarray(levels, float), np.atleast_2d(np.asarray(tot, float)), o)


def _bin_sums(levels: Any, pos: Any, neg: Any, o: metrics.EceOptions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per draw and bin: rows, sum of (c - y), correct rows; each (B, n_bins) (:func:`selfconf.metrics._bin_sums`)."""
    lv = np.asarray(levels, float)
    P = np.atleast_2d(np.asarray(pos, float))
    Q = np.atleast_2d(np.asarray(neg, float))
    T = P + Q
    cnt, gap, right = metrics._bin_sums(lv, T, [T, T * lv - P, P], o)
    return cnt, gap, right


def mce_counts(levels: Any, pos: Any, neg: Any, *, n_bins: int = 10, **rule: Unpack[metrics.BinRule]) -> np.ndarray:
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
    cnt, gap, _ = _bin_sums(levels, pos, neg, metrics.EceOptions(n_bins, **rule))
    with np.errstate(invalid="ignore", divide="ignore"):
        per_bin = np.where(cnt > 0, np.abs(gap) / np.where(cnt > 0, cnt, 1.0), -np.inf)
    out = per_bin.max(axis=1) if per_bin.shape[1] else np.full(per_bin.shape[0], -np.inf)
    return np.where(np.isfinite(out), out, np.nan)


def mce(confidence: Any, correct: Any, n_bins: int = 10, **rule: Unpack[metrics.BinRule]) -> float:
    """Maximum calibration error of rows (0-1 confidences, 0/1 correct); definition in :func:`mce_counts`.

    Reference: Naeini, Cooper & Hauskrecht (2015).

    Examples
    --------
    >>> mce([0.9, 0.9, 0.3], [1, 0, 0])  # bin [0.9, 1]: 0.9 vs 0.5; bin [0.3, 0.4): 0.3 vs 0
    0.4
    """
    lv, p, q = metrics.level_counts(confidence, correct)
    return float(mce_counts(lv, p, q, n_bins=n_bins, **rule)[0])


def debiased_ece_counts(
    levels: Any, pos: Any, neg: Any, *, n_bins: int = 10, **rule: Unpack[metrics.BinRule]
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
    cnt, gap, right = _bin_sums(levels, pos, neg, metrics.EceOptions(n_bins, **rule))
    n = cnt.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        two = cnt >= 2
        c = np.where(two, cnt, 1.0)
        acc = right / c
        sq = (gap / c) ** 2 - acc * (1.0 - acc) / np.where(two, cnt - 1.0, 1.0)
        ce2 = np.where(two, cnt * sq, 0.0).sum(axis=1) / n
    return np.where(n > 0, np.sqrt(np.maximum(ce2, 0.0)), np.nan)


def debiased_ece(confidence: Any, correct: Any, n_bins: int = 10, **rule: Unpack[metrics.BinRule]) -> float:
    """Debiased l2 calibration error of rows; definition in :func:`debiased_ece_counts`.

    Reference: Kumar, Liang & Ma (2019), Verified uncertainty calibration.

    Examples
    --------
    >>> round(debiased_ece([0.95, 0.95, 0.95, 0.95], [1, 1, 0, 0]), 6)
    0.345205
    """
    lv, p, q = metrics.level_counts(confidence, correct)
    return float(debiased_ece_counts(lv, p, q, n_bins=n_bins, **rule)[0])


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


def _features(method: str, levels: np.ndarray, eps: float) -> np.ndarray:
    """Design matrix (K, d) of a logistic-type map on the clipped confidences (see :func:`logistic_map_fit`)."""
    c = np.clip(np.asarray(levels, float), eps, 1 - eps)
    if method == "temperature":
        return np.log(c / (1 - c))[:, None]
    if method == "platt":
        return np.stack([np.log(c / (1 - c)), np.ones_like(c)], axis=1)
    if method == "beta":
        return np.stack([np.log(c), -np.log1p(-c), np.ones_like(c)], axis=1)
    raise ValueError(f"no logistic map named {method!r}")


_START = {"temperature": (1.0,), "platt": (1.0, 0.0), "beta": (1.0, 1.0, 0.0)}  # the identity map


def logistic_map_fit(
    method: str,
    levels: Any,
    pos: Any,
    tot: Any,
    *,
    eps: float = CLIP_EPS,
    bound: float = PARAM_BOUND,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> dict[str, Any]:
    """Maximum-likelihood fit of a logistic recalibration map on counts, with a convergence check.

    Definition: with c clipped to [eps, 1 - eps] and features x(c) -- temperature: (logit c); Platt:
    (logit c, 1); beta: (ln c, -ln(1 - c), 1) -- the parameters w minimise the negative log-likelihood
    L(w) = sum_k tot_k softplus(x_k . w) - pos_k (x_k . w), a convex function.  The minimiser is Newton's
    method from the identity map (w = (1), (1, 0), (1, 1, 0)) with a backtracking (Armijo) line search,
    every iterate projected onto the box |w_j| <= ``bound``.  It has converged when the largest gradient
    component is at most ``tol`` x max(1, rows), no parameter is on the bound, and L does not decrease
    further (by more than 1e-9 relative) at w + (w - w_start), the point as far again along the path (on
    separated classes L keeps decreasing toward a step map while its gradient vanishes); otherwise
    ``converged`` is False and ``reason`` says why (no finite optimum, bound reached, or no convergence
    within ``max_iter`` steps).  Temperature: a = w_0 = 1 / T.

    Returns a dict: ``params`` (list), ``converged`` (bool), ``reason`` (str or None), ``iterations``.

    References
    ----------
    Guo, C. et al. (2017). On calibration of modern neural networks. ICML (temperature scaling).
    Platt, J. (1999). Probabilistic outputs for support vector machines. (sigmoid; here plain maximum
    likelihood on logit c, without Platt's smoothed targets.)  Kull, M., Silva Filho, T. & Flach, P. (2017).
    Beta calibration. AISTATS 2017 (here without their refit that drops a negative coefficient).
    Nocedal, J. & Wright, S. (2006). Numerical Optimization, Ch. 3 (backtracking line search).

    Examples
    --------
    >>> r = logistic_map_fit("temperature", [0.9, 0.1], [7, 3], [10, 10])
    >>> round(1 / r["params"][0], 4), r["converged"]  # T = logit(0.9) / logit(0.7)
    (2.5932, True)
    """
    X = _features(method, np.asarray(levels, float), eps)
    w_ = np.asarray(tot, float)
    y = np.asarray(pos, float)
    keep = w_ > 0
    X, w_, y = X[keep], w_[keep], y[keep]
    n = float(w_.sum())

    def loss(w: np.ndarray) -> float:
        s = X @ w
        return float(np.sum(w_ * np.logaddexp(0.0, s) - y * s))

    w = np.array(_START[method], float)
    f = loss(w)
    gtol = tol * max(1.0, n)
    for it in range(1, int(max_iter) + 1):
        s = X @ w
        p = np.exp(-np.logaddexp(0.0, -s))  # sigmoid(s)
        g = X.T @ (w_ * p - y)
        on_bound = np.abs(w) >= bound
        free_g = np.where(on_bound & (np.sign(g) == -np.sign(w)), 0.0, g)  # pushing outward is blocked
        if np.max(np.abs(free_g), initial=0.0) <= gtol:
            if on_bound.any():
                break
            # a stationary point is the optimum only if going as far again along the path does not still
            # improve L (separable data: L decreases toward a step map for ever, with a vanishing gradient)
            d = w - np.array(_START[method], float)
            if loss(w + d) < f - 1e-9 * max(1.0, abs(f)):
                reason = (
                    "no finite optimum: the likelihood still improves beyond the fit, toward a step map "
                    "(the classes are separated by confidence)"
                )
                return {"params": w.tolist(), "converged": False, "reason": reason, "iterations": it - 1}
            return {"params": w.tolist(), "converged": True, "reason": None, "iterations": it - 1}
        H = X.T @ (X * (w_ * p * (1 - p))[:, None])
        try:
            step = np.linalg.solve(H + 1e-12 * np.eye(H.shape[0]), g)
        except np.linalg.LinAlgError:
            step = g
        if not np.all(np.isfinite(step)) or float(g @ step) <= 0:
            step = g  # not a descent direction: steepest descent
        t = 1.0
        while True:
            w_new = np.clip(w - t * step, -bound, bound)
            f_new = loss(w_new)
            # Armijo's sufficient decrease, with room for the rounding of L near its minimum
            if f_new <= f - 1e-4 * float(g @ (w - w_new)) + 1e-13 * abs(f) or t < 1e-12:
                break
            t *= 0.5
        if np.array_equal(w_new, w):
            break
        w, f = w_new, f_new
    on = np.abs(w) >= bound
    reason = (
        f"a parameter reached the bound +-{bound:g} (the likelihood has no optimum inside it: the map tends to a "
        "step or a constant)"
        if on.any()
        else f"did not converge within {max_iter} Newton steps"
    )
    return {"params": w.tolist(), "converged": False, "reason": reason, "iterations": int(max_iter)}


def temperature_fit(levels: Any, pos: Any, tot: Any, *, eps: float = CLIP_EPS) -> float:
    """Temperature T of binary temperature scaling: c' = sigmoid(logit(c) / T), fitted by maximum likelihood.

    Definition: a = 1 / T minimises the negative log-likelihood -sum_k [pos_k log sigmoid(a z_k) +
    (tot_k - pos_k) log(1 - sigmoid(a z_k))] with z = logit(clip(c, eps, 1 - eps)), by the bounded,
    line-searched Newton method of :func:`logistic_map_fit` (|a| <= :data:`PARAM_BOUND`).  Returns
    T = 1 / a (a negative T reverses the ranking, which the data may ask for), or NaN when the fit did not
    converge (:func:`logistic_map_fit` says why).

    References
    ----------
    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of modern neural networks.
    ICML 2017, Sec. 4.2 (temperature scaling); netcal's ``TemperatureScaling`` for one score.

    Examples
    --------
    >>> round(temperature_fit([0.9, 0.1], [7, 3], [10, 10]), 4)  # T = logit(0.9) / logit(0.7)
    2.5932
    """
    r = logistic_map_fit("temperature", levels, pos, tot, eps=eps)
    if not r["converged"]:
        return math.nan
    a = r["params"][0]
    return math.inf if a == 0 else 1.0 / a


def platt_fit(levels: Any, pos: Any, tot: Any, *, eps: float = CLIP_EPS) -> tuple[float, float]:
    """Platt scaling (a, b): c' = sigmoid(a logit(c) + b), fitted by maximum likelihood.

    Definition: :func:`logistic_map_fit` with features (logit c, 1), c clipped to [eps, 1 - eps]; equal to
    an unpenalised logistic regression of correct on logit(c).  (NaN, NaN) when the fit did not converge.

    Reference: Platt, J. (1999). Probabilistic outputs for support vector machines and comparisons to
    regularized likelihood methods (without the smoothed targets of Sec. 2.2).

    Examples
    --------
    >>> a, b = platt_fit([0.9, 0.1], [7, 3], [10, 10])
    >>> round(a, 4), abs(b) < 1e-9  # symmetric data: no shift (b may come out as -0.0)
    (0.3856, True)
    """
    r = logistic_map_fit("platt", levels, pos, tot, eps=eps)
    return (math.nan, math.nan) if not r["converged"] else (float(r["params"][0]), float(r["params"][1]))


def beta_fit(levels: Any, pos: Any, tot: Any, *, eps: float = CLIP_EPS) -> tuple[float, float, float]:
    """Beta calibration (a, b, c): c' = sigmoid(a ln(p) - b ln(1 - p) + c), fitted by maximum likelihood.

    Definition: :func:`logistic_map_fit` with features (ln p, -ln(1 - p), 1), p the confidence clipped to
    [eps, 1 - eps]; an unpenalised logistic regression on those two features.  The coefficients are not
    constrained to be non-negative (Kull et al. refit without a feature whose coefficient is negative).
    NaNs when the fit did not converge.

    Reference: Kull, M., Silva Filho, T. M. & Flach, P. (2017). Beta calibration: a well-founded and easily
    implemented improvement on logistic calibration for binary classifiers. AISTATS 2017.

    Examples
    --------
    >>> [round(v, 3) for v in beta_fit([0.2, 0.5, 0.9], [1, 5, 8], [10, 10, 10])]  # through 0.1, 0.5, 0.8
    [2.407, -0.018, 1.681]
    """
    r = logistic_map_fit("beta", levels, pos, tot, eps=eps)
    if not r["converged"]:
        return (math.nan, math.nan, math.nan)
    a, b, c = r["params"]
    return (float(a), float(b), float(c))


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


def recalibration_map(
    method: str, levels: Any, pos: Any, tot: Any, *, n_bins: int = 10, info: dict[str, Any] | None = None
):
    """Fit ``method`` (:data:`RECALIBRATIONS`) on counts; return a function from confidences to recalibrated ones.

    Temperature, Platt and beta are fitted by :func:`logistic_map_fit`; a fit that did not converge raises
    :class:`RecalibrationFailed` (never a map).  ``info``, when given, receives the fitted ``params``.

    Example: ``recalibration_map("isotonic", [0.2, 0.9], [0, 1], [1, 1])(np.array([0.5]))`` -> ``[0.4286...]``.
    """
    lv = np.asarray(levels, float)
    if method == "isotonic":
        f = isotonic_fit(lv, pos, tot)
        have = ~np.isnan(f)
        x, fx = lv[have], f[have]
        return lambda c: np.interp(c, x, fx)
    if method in _START:
        r = logistic_map_fit(method, lv, pos, tot)
        if info is not None:
            info["params"] = r["params"]
        if not r["converged"]:
            raise RecalibrationFailed(f"{method} fit did not converge: {r['reason']}")
        w = np.asarray(r["params"], float)

        def logistic(c: np.ndarray) -> np.ndarray:
            s = _features(method, np.asarray(c, float), CLIP_EPS) @ w
            return np.exp(-np.logaddexp(0.0, -s))

        return logistic
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
    info: dict[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Out-of-sample recalibrated confidences by k-fold cross-fitting, as per-level counts.

    Definition: the n rows are split into ``folds`` folds of sizes differing by at most one, at random
    (``rng``) but through the counts only: the rows are laid out by (level, class) and a random permutation
    deals them round-robin, so the split, and everything after it, does not depend on the input's row
    order.  For each fold the map of ``method`` is fitted on the other folds' rows and applied to the
    fold's rows; no row is scored by a map fitted on it.  A fold whose map did not converge raises
    :class:`RecalibrationFailed`.  ``info``, when given, receives ``fold_params`` (the fitted parameters of
    each fold's map, for temperature, Platt and beta).  Returns the distinct recalibrated confidences
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
    fold_params = []
    for f in range(k):
        train = tot_all - per[:, :, f]
        got: dict[str, Any] = {}
        fmap = recalibration_map(method, lv, train[:, 1], train.sum(axis=1), n_bins=n_bins, info=got)
        fold_params.append(got.get("params"))
        held = per[:, :, f]
        have = held.sum(axis=1) > 0
        out_vals.append(np.clip(fmap(lv[have]), 0.0, 1.0))
        out_pos.append(held[have, 1])
        out_neg.append(held[have, 0])
    if info is not None and method in _START:
        info["fold_params"] = fold_params
    vals = np.concatenate(out_vals)
    uniq, inv = np.unique(vals, return_inverse=True)
    return (
        uniq,
        np.bincount(inv, weights=np.concatenate(out_pos), minlength=uniq.size).astype(np.int64),
        np.bincount(inv, weights=np.concatenate(out_neg), minlength=uniq.size).astype(np.int64),
    )
