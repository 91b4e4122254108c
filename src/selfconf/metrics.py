"""Calibration and discrimination statistics for stated confidence.

Every function takes row-level arrays: a *confidence* (or, for AUROC, any real
*score*) per answer and a binary *correct* flag per answer, and returns a plain
statistic.  Confidences are on the 0–1 scale; the paper's 0–100 integers are
converted with :func:`from_percent`.

Conventions shared by all functions
-----------------------------------
* Inputs are 1-D array-likes of equal length (lists, numpy arrays, pandas
  Series).  ``correct`` must be boolean or hold only the values 0 and 1.
  Confidences must be finite and inside [0, 1].  Violations raise
  ``ValueError`` (``TypeError`` for non-numeric data) with a message naming the
  argument, how many values are bad, and the first bad index and value.
* Bin edges and thresholds are compared with a tolerance of
  :data:`EDGE_TOL` (1e-9) so that a confidence such as ``0.7 + 0.1``
  (= 0.7999999999999999 in binary floating point) is treated as 0.8.  A value
  within 1e-9 *below* an edge is counted on the upper side of the edge.
* Statistics that are undefined for the data (AUROC with one class) raise; the
  batched AUROC returns NaN for an undefined row so a bootstrap can count such
  draws instead of failing half-way.

References are given per function.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

__all__ = [
    "EDGE_TOL",
    "EDGE_RULES",
    "BINNINGS",
    "from_percent",
    "average_ranks",
    "spearman_rho",
    "auroc",
    "auroc_from_counts",
    "auroc_batched",
    "auroc_weighted",
    "brier",
    "ece",
    "EceOptions",
    "reliability_bins",
    "citl",
    "high_conf_counts",
    "high_conf_error_rate",
    "risk_coverage",
    "risk_coverage_table",
]

#: Tolerance used when a confidence is compared with a bin edge or threshold.
EDGE_TOL = 1e-9

# Largest number of (draw x level x class) cells the counting AUROC path may
# allocate before the batched AUROC falls back to per-row sorting.
_MAX_COUNT_CELLS = 20_000_000


# --------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------


def _fmt_pos(flat_pos: int, shape: tuple[int, ...]) -> str:
    if len(shape) == 1:
        return f"index {flat_pos}"
    return f"index {tuple(int(i) for i in np.unravel_index(flat_pos, shape))}"


def _fmt_val(v: Any) -> str:
    """Plain repr of a (numpy) scalar for error messages: 1.2, nan, 3."""
    return repr(v.item()) if isinstance(v, np.generic) else repr(v)


def _numeric(x: Any, name: str, ndim: int = 1) -> np.ndarray:
    """Convert ``x`` to a numeric ndarray with ``ndim`` dimensions or raise naming ``name``."""
    arr = np.asarray(x)
    if arr.dtype == object:
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError) as exc:
            flat = arr.ravel()
            missing = [i for i, v in enumerate(flat) if v is None or type(v).__name__ == "NAType"]
            if missing:
                raise ValueError(
                    f"{name}: {len(missing)} missing value(s) (None/NA); first at {_fmt_pos(missing[0], arr.shape)}"
                ) from None
            raise TypeError(f"{name}: values must be numeric; could not convert ({exc})") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: values must be numeric or boolean, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name}: expected a {ndim}-D array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: is empty")
    return arr


def _check_finite(arr: np.ndarray, name: str) -> None:
    if arr.dtype.kind != "f":
        return
    bad = ~np.isfinite(arr)
    if bad.any():
        pos = int(np.flatnonzero(bad.ravel())[0])
        raise ValueError(
            f"{name}: {int(bad.sum())} non-finite value(s) (NaN or inf); "
            f"first at {_fmt_pos(pos, arr.shape)}: {_fmt_val(arr.ravel()[pos])}"
        )


def _as_score(x: Any, name: str = "score", ndim: int = 1) -> np.ndarray:
    arr = _numeric(x, name, ndim)
    _check_finite(arr, name)
    return arr


def _as_confidence(x: Any, name: str = "confidence", ndim: int = 1) -> np.ndarray:
    arr = _numeric(x, name, ndim).astype(float, copy=False)
    _check_finite(arr, name)
    bad = (arr < 0.0) | (arr > 1.0)
    if bad.any():
        pos = int(np.flatnonzero(bad.ravel())[0])
        hint = " (0-100 values? convert with from_percent)" if np.nanmax(arr) > 1.0 else ""
        raise ValueError(
            f"{name}: {int(bad.sum())} value(s) outside [0, 1]{hint}; "
            f"first at {_fmt_pos(pos, arr.shape)}: {_fmt_val(arr.ravel()[pos])}"
        )
    return arr


def _as_correct(x: Any, name: str = "correct", ndim: int = 1) -> np.ndarray:
    """Return ``x`` as an int8 array of 0/1 or raise naming the first non-binary value."""
    arr = _numeric(x, name, ndim)
    if arr.dtype == bool:
        return arr.astype(np.int8)
    bad = (arr != 0) & (arr != 1)  # NaN compares unequal to both, so it is caught here
    if bad.any():
        pos = int(np.flatnonzero(bad.ravel())[0])
        raise ValueError(
            f"{name}: {int(bad.sum())} value(s) not in {{0, 1}} (correctness must be binary or bool); "
            f"first at {_fmt_pos(pos, arr.shape)}: {_fmt_val(arr.ravel()[pos])}"
        )
    return arr.astype(np.int8)


def _same_shape(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    if a.shape != b.shape:
        what = "lengths" if a.ndim == 1 and b.ndim == 1 else "shapes"
        sa = a.shape[0] if a.ndim == 1 else a.shape
        sb = b.shape[0] if b.ndim == 1 else b.shape
        raise ValueError(f"{name_a} and {name_b} have different {what} ({sa} vs {sb})")


def _conf_and_correct(confidence: Any, correct: Any) -> tuple[np.ndarray, np.ndarray]:
    c = _as_confidence(confidence, "confidence")
    y = _as_correct(correct, "correct")
    _same_shape(c, y, "confidence", "correct")
    return c, y


# --------------------------------------------------------------------------
# conversion
# --------------------------------------------------------------------------


def from_percent(x: Any, name: str = "confidence") -> float | np.ndarray:
    """Convert confidences stated on the paper's 0–100 scale to the 0–1 scale.

    Definition: ``x / 100`` as float64.  Each value must be a finite number in
    [0, 100]; integers are typical but not required.

    Parameters
    ----------
    x : array-like of shape (n,)
        Stated confidences in points (0–100).
    name : str
        Name used in error messages.

    Returns
    -------
    numpy.ndarray of float, shape (n,) (a plain float for a scalar input)
        Confidences in [0, 1].  ``from_percent(80)`` is exactly the double
        ``0.8`` (the correctly rounded quotient 80/100).

    Raises
    ------
    ValueError
        Non-finite values or values outside [0, 100] (the message gives the
        count and the first offending index and value).

    References
    ----------
    Elicitation scale as in Chernets (2026), Section 2: an integer confidence
    0–100 stated with each answer.
    """
    arr = np.asarray(x)
    scalar = arr.ndim == 0
    arr = _numeric(np.atleast_1d(arr), name, 1).astype(float)
    _check_finite(arr, name)
    bad = (arr < 0) | (arr > 100)
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name}: {int(bad.sum())} value(s) outside the 0-100 scale; first at index {pos}: {_fmt_val(arr[pos])}"
        )
    out = arr / 100.0
    return float(out[0]) if scalar else out


# --------------------------------------------------------------------------
# AUROC
# --------------------------------------------------------------------------


def average_ranks(x: Any) -> np.ndarray:
    """1-based ranks of ``x`` with ties given the mean of the ranks they span ("average" ranks).

    Definition: sort the values; a run of t equal values occupying sorted positions p+1, ..., p+t
    all receive rank p + (t + 1) / 2.  Same result as ``scipy.stats.rankdata(x, method="average")``
    (tested), in numpy alone: importing ``scipy.stats`` costs about a second, which a one-section
    rerun would pay on every run.

    Reference: Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika 33, 239-251.
    """
    a = np.asarray(x).ravel()
    order = np.argsort(a, kind="mergesort")
    srt = a[order]
    new_run = np.empty(a.size, bool)
    new_run[:1] = True
    np.not_equal(srt[1:], srt[:-1], out=new_run[1:])
    starts = np.flatnonzero(new_run)
    ends = np.append(starts[1:], a.size)
    ranks = np.empty(a.size, float)
    ranks[order] = ((starts + ends + 1) / 2.0)[np.cumsum(new_run) - 1]
    return ranks


def spearman_rho(x: Any, y: Any) -> float:
    """Spearman's rank correlation of two paired samples, ties given average ranks.

    Definition: rho = Pearson correlation of :func:`average_ranks` (x) and :func:`average_ranks` (y),
    i.e. cov(rx, ry) / (sd(rx) sd(ry)) (``numpy.corrcoef`` of the two rank columns).
    Undefined (``nan``) when either sample is constant.  Same value as ``scipy.stats.spearmanr(x, y).statistic``
    (tested to 1e-12), in numpy alone: the placebo check would otherwise import ``scipy.stats`` (about a second)
    for one correlation.

    Raises ``ValueError`` when the lengths differ or fewer than two pairs are given.

    Reference: Spearman, C. (1904). The proof and measurement of association between two things.
    American Journal of Psychology 15, 72-101; Kendall (1945) for ties.

    >>> spearman_rho([1, 2, 3, 4], [10, 20, 30, 40])
    1.0
    >>> round(spearman_rho([1, 2, 2, 4], [4, 1, 3, 2]), 4)
    -0.6325
    """
    a = np.asarray(x, dtype=float).ravel()
    b = np.asarray(y, dtype=float).ravel()
    if a.size != b.size:
        raise ValueError(f"spearman_rho: x has {a.size} values but y has {b.size}")
    if a.size < 2:
        raise ValueError(f"spearman_rho: need at least two pairs, got {a.size}")
    if np.all(a == a[0]) or np.all(b == b[0]):
        return math.nan
    # numpy's correlation of the two rank columns: the arithmetic scipy's spearmanr does, so equal bit for bit
    return float(np.corrcoef(np.column_stack([average_ranks(a), average_ranks(b)]), rowvar=False)[1, 0])


def auroc(score: Any, correct: Any) -> float:
    """Area under the ROC curve of ``score`` as a predictor of ``correct``, ties counted half.

    Definition (Mann–Whitney form): with ``n1`` correct and ``n0`` incorrect
    rows and ``R1`` the sum of the average ranks of the correct rows among all
    scores (tied scores share the mean of the ranks they span),

        AUROC = (R1 - n1 (n1 + 1) / 2) / (n1 n0),

    which equals P(S1 > S0) + 0.5 P(S1 = S0) for a random correct/incorrect
    pair.  Computed by counting: the rows' correct and wrong counts per distinct
    score go to the kernel :func:`auroc_from_counts`.  The score may be any finite real (stated confidence, a panel
    agreement count, ...); only its order matters.

    Parameters
    ----------
    score : array-like of shape (n,)
        Higher means "more likely correct".
    correct : array-like of shape (n,)
        1/True for a correct answer, 0/False otherwise.

    Returns
    -------
    float
        AUROC in [0, 1]; 0.5 is chance.

    Raises
    ------
    ValueError
        Unequal lengths, non-finite scores, non-binary ``correct``, or only one
        class present (AUROC is undefined then).

    References
    ----------
    Mann, H. B. & Whitney, D. R. (1947). On a test of whether one of two random
    variables is stochastically larger than the other. Ann. Math. Stat. 18, 50–60.
    Hanley, J. A. & McNeil, B. J. (1982). The meaning and use of the area under a
    receiver operating characteristic (ROC) curve. Radiology 143, 29–36.
    """
    s = _as_score(score, "score")
    y = _as_correct(correct, "correct")
    _same_shape(s, y, "score", "correct")
    n1 = int(y.sum())
    n0 = y.size - n1
    if n1 == 0 or n0 == 0:
        only = "correct" if n0 == 0 else "incorrect"
        raise ValueError(f"auroc: only one class present in correct (all {y.size} rows {only}); AUROC is undefined")
    _, pos, neg = _score_counts(s, y)
    return float(auroc_from_counts(pos, neg))


#: Weight of a tied (correct, wrong) pair in the AUROC, by tie reading (``ties=``): "half" is the
#: Mann-Whitney / Hanley-McNeil convention every default uses; "loss" counts a tie as a wrong ordering
#: (a lower bound, P(S1 > S0)); "win" as a right one (an upper bound, P(S1 >= S0)).
TIE_WEIGHTS = {"half": 0.5, "loss": 0.0, "win": 1.0}


def tie_weight(ties: str) -> float:
    """The weight of a tied pair under the tie reading ``ties`` (a key of :data:`TIE_WEIGHTS`).

    Definition: AUROC = P(S1 > S0) + w P(S1 = S0) for a random (correct, wrong) pair, w = 1/2 ("half",
    the default everywhere), 0 ("loss") or 1 ("win").

    Reference: Hanley & McNeil (1982) (ties counted half); Fawcett (2006), Sec. 5 (ties and the
    optimistic / pessimistic ROC segments).

    >>> [tie_weight(t) for t in ("half", "loss", "win")]
    [0.5, 0.0, 1.0]
    """
    try:
        return TIE_WEIGHTS[ties]
    except KeyError:
        raise ValueError(f"ties must be one of {tuple(TIE_WEIGHTS)}, got {ties!r}") from None


def auroc_from_counts(pos: Any, neg: Any, ties: str = "half") -> np.ndarray:
    """The AUROC kernel: the tie-aware Mann–Whitney count on per-level class counts.

    Definition: with levels in ascending score order on the last axis, ``pos[..., k]`` correct and
    ``neg[..., k]`` wrong answers at level k (counts, or non-negative weights),

        U = sum_k pos_k (neg strictly below level k + w neg_k),   AUROC = U / (n1 n0),

    with n1 = sum pos and n0 = sum neg and w = :func:`tie_weight` (``ties``; 1/2, the default everywhere):
    P(S1 > S0) + w P(S1 = S0) for a random correct/wrong pair.
    Every AUROC of the package (:func:`auroc`, :func:`auroc_batched`, :func:`auroc_weighted`,
    :func:`auroc_scored_counts`, :func:`counts_statistics`, the bootstraps of :mod:`selfconf.bootstrap` and the
    reconstruction's generators) reduces its rows to such counts and calls this function.  With whole counts
    every partial sum is a multiple of 1/2, exact in floating point, so the result does not depend on how the
    counts were formed.  Levels with no rows contribute nothing, so the levels need not be distinct scores as long
    as equal scores share one level.

    Parameters
    ----------
    pos, neg : array-like of shape (..., K)
        Counts per level, levels ascending on the last axis.
    ties : {"half", "loss", "win"}
        The tie reading (:data:`TIE_WEIGHTS`); "half" is the canonical one.

    Returns
    -------
    numpy.ndarray of shape (...): NaN where a class has no rows (the AUROC is undefined).

    References
    ----------
    Mann, H. B. & Whitney, D. R. (1947). Ann. Math. Stat. 18, 50–60; Hanley, J. A. & McNeil, B. J. (1982).
    Radiology 143, 29–36.

    Examples
    --------
    >>> float(auroc_from_counts([0, 1, 1], [1, 1, 0]))  # wrong at 0.2, 0.5; right at 0.5, 0.9
    0.875
    >>> auroc_from_counts([[0, 2], [3, 0]], [[1, 0], [0, 0]]).tolist()
    [1.0, nan]
    """
    pos = np.asarray(pos, dtype=float)
    neg = np.asarray(neg, dtype=float)
    below = np.cumsum(neg, axis=-1) - (1.0 - tie_weight(ties)) * neg
    u = np.einsum("...k,...k->...", pos, below)
    denom = pos.sum(axis=-1) * neg.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, u / np.where(denom > 0, denom, 1.0), np.nan)


#: Former private name of :func:`auroc_from_counts`.
_auroc_from_counts = auroc_from_counts


def _score_counts(s: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct scores ascending, correct count, wrong count per score) of validated 1-D rows."""
    levels, code = np.unique(s, return_inverse=True)
    k = levels.size
    cells = np.bincount(code.reshape(-1) * 2 + y.astype(np.intp), minlength=2 * k).reshape(k, 2)
    return levels, cells[:, 1].astype(np.int64), cells[:, 0].astype(np.int64)


def _tie_group_counts(ss: np.ndarray, ps: np.ndarray, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows sorted by score along the last axis -> per-position counts with each tie group's totals at its last
    position and zeros elsewhere (the layout :func:`auroc_from_counts` reads; empty positions add nothing)."""
    last = np.ones(ss.shape, dtype=bool)
    last[..., :-1] = ss[..., 1:] != ss[..., :-1]
    cp, cq = np.cumsum(ps, axis=-1), np.cumsum(qs, axis=-1)
    gp = np.where(last, cp, 0.0)
    gq = np.where(last, cq, 0.0)
    # subtract the running total at the previous group's end
    prev_p = np.maximum.accumulate(np.where(last, cp, 0.0), axis=-1)
    prev_q = np.maximum.accumulate(np.where(last, cq, 0.0), axis=-1)
    before_p = np.zeros_like(cp)
    before_q = np.zeros_like(cq)
    before_p[..., 1:] = prev_p[..., :-1]
    before_q[..., 1:] = prev_q[..., :-1]
    return np.where(last, gp - before_p, 0.0), np.where(last, gq - before_q, 0.0)


def _integer_levels(s: np.ndarray, max_levels: int) -> tuple[np.ndarray, int] | None:
    """Order-preserving integer codes 0..K-1 for ``s`` without sorting, if cheaply possible.

    Works when the values are integers, or exactly representable as k/100 (the
    project's percent confidences divided by 100), within a range of at most
    ``max_levels`` codes.  The map value -> code is strictly increasing, so codes
    carry exactly the order and ties of the values.  Returns None otherwise.
    """
    if s.dtype.kind in "iub":
        lo, hi = int(s.min()), int(s.max())
        if hi - lo + 1 <= max_levels:
            return (s - lo).astype(np.intp), hi - lo + 1
        return None
    # 0-1 confidences are usually k/100: try that scale first; integer-valued scores otherwise
    scales = (100.0, 1.0) if s.size and -1.0 <= s.min() and s.max() <= 1.0 else (1.0, 100.0)
    for scale in scales:
        scaled = np.rint(s * scale) if scale != 1.0 else np.rint(s)
        # exactness check: the code maps back to precisely the stored value
        back = scaled / scale if scale != 1.0 else scaled
        if np.array_equal(back, s):
            lo, hi = scaled.min(), scaled.max()
            if hi - lo + 1 <= max_levels:
                return (scaled - lo).astype(np.intp), int(hi - lo) + 1
            return None
    return None


def _rowwise_rank_auroc(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Batched AUROC by sorting every row, pooling each tie group's counts and calling the kernel (no row loop)."""
    order = np.argsort(s, axis=1, kind="stable")
    ss = np.take_along_axis(s, order, axis=1)
    ys = np.take_along_axis(y, order, axis=1).astype(float)
    gp, gq = _tie_group_counts(ss, ys, 1.0 - ys)
    return auroc_from_counts(gp, gq)


def auroc_batched(score_matrix: Any, correct_matrix: Any) -> np.ndarray:
    """AUROC of every row of a 2-D score matrix against the matching row of a correctness matrix.

    Definition: row ``b`` of the result is ``auroc(score_matrix[b], correct_matrix[b])``
    (tie-corrected Mann–Whitney AUROC, ties counted half), computed for all rows
    at once without a Python loop over rows.  Typical use: each row is one
    bootstrap resample.

    Method: when the scores take few distinct levels (integers, or exact
    multiples of 1/100 such as ``from_percent`` output, or few unique floats) the
    rows are reduced to per-level class counts with one ``numpy.bincount`` and
    U = sum_k pos_k (neg_below_k + neg_k / 2).  Otherwise every row is sorted
    and average ranks over ties are formed with running max/min scans.  Both
    paths give the same AUROC as :func:`auroc` up to floating-point rounding.

    Parameters
    ----------
    score_matrix : array-like of shape (B, n)
        Finite real scores.
    correct_matrix : array-like of shape (B, n)
        Binary correctness (0/1 or bool).

    Returns
    -------
    numpy.ndarray of float, shape (B,)
        AUROC per row; NaN for a row holding only one class (undefined).

    References
    ----------
    Mann & Whitney (1947); Hanley & McNeil (1982) (see :func:`auroc`).
    """
    s = _as_score(score_matrix, "score_matrix", ndim=2)
    y = _as_correct(correct_matrix, "correct_matrix", ndim=2)
    _same_shape(s, y, "score_matrix", "correct_matrix")
    b, n = s.shape
    max_levels = max(1, _MAX_COUNT_CELLS // (2 * b))
    coded = _integer_levels(s, max_levels)
    if coded is None and s.dtype.kind == "f":
        levels, inv = np.unique(s, return_inverse=True)
        if 2 * b * levels.size <= _MAX_COUNT_CELLS:
            coded = inv.reshape(s.shape), levels.size
    if coded is None:
        return _rowwise_rank_auroc(s, y)
    codes, k = coded
    return _auroc_batched_codes(codes, y, k)


def _auroc_batched_codes(codes: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """Counting AUROC for integer level codes in [0, k) (no validation; internal fast path)."""
    b = codes.shape[0]
    cell = codes * 2 + y
    cell += (np.arange(b, dtype=cell.dtype) * (2 * k))[:, None]
    counts = np.bincount(cell.ravel(), minlength=b * 2 * k).reshape(b, k, 2)
    return auroc_from_counts(counts[:, :, 1], counts[:, :, 0])


def auroc_weighted(score: Any, correct: Any, weights: Any) -> float | np.ndarray:
    """AUROC with non-negative row weights, for one weight vector or a batch of them.

    Definition: with weights ``w``, U = sum over (correct i, incorrect j) of
    w_i w_j ([s_i > s_j] + 0.5 [s_i = s_j]) and AUROC = U / (W1 W0), where W1
    and W0 are the total weights of correct and incorrect rows.  With integer
    weights this is exactly the AUROC of the data set in which row i appears
    w_i times, which is how the item-clustered bootstrap uses it (weights =
    how often the row's item was drawn).

    Parameters
    ----------
    score, correct : array-like of shape (n,)
        As in :func:`auroc`.
    weights : array-like of shape (n,) or (B, n)
        Non-negative finite weights; one row per weighting.

    Returns
    -------
    float or numpy.ndarray of shape (B,)
        A float for 1-D weights (raises if a class has zero weight), an array
        for 2-D weights (NaN where a class has zero total weight).

    References
    ----------
    Mann & Whitney (1947); Hanley & McNeil (1982) (see :func:`auroc`).
    """
    s = _as_score(score, "score")
    y = _as_correct(correct, "correct")
    _same_shape(s, y, "score", "correct")
    w = np.asarray(weights)
    if w.ndim not in (1, 2) or w.shape[-1] != s.size:
        raise ValueError(f"weights: expected shape ({s.size},) or (B, {s.size}), got {w.shape}")
    w = _numeric(w, "weights", w.ndim)
    _check_finite(w, "weights")
    if (w < 0).any():
        pos = int(np.flatnonzero((w < 0).ravel())[0])
        raise ValueError(f"weights: negative weight at {_fmt_pos(pos, w.shape)}: {_fmt_val(w.ravel()[pos])}")
    levels, code = np.unique(s, return_inverse=True)
    out = _auroc_weighted_codes(code, y, levels.size, np.atleast_2d(w))
    if w.ndim == 1:
        if np.isnan(out[0]):
            raise ValueError("auroc_weighted: one class has zero total weight; AUROC is undefined")
        return float(out[0])
    return out


def _cell_layout(code: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows grouped by (level, class) cell: (row order, start of each run, cell id of each run)."""
    cell = code.astype(np.intp) * 2 + y
    order = np.argsort(cell, kind="stable")
    sorted_cell = cell[order]
    starts = np.flatnonzero(np.r_[True, sorted_cell[1:] != sorted_cell[:-1]])
    return order, starts, sorted_cell[starts]


def _auroc_from_sorted_weights(w_sorted: np.ndarray, starts: np.ndarray, cells: np.ndarray, k: int) -> np.ndarray:
    """Weighted counting AUROC from weights already in cell order (see :func:`_cell_layout`)."""
    sums = np.add.reduceat(w_sorted, starts, axis=1)
    counts = np.zeros((w_sorted.shape[0], 2 * k), dtype=float)
    counts[:, cells] = sums
    by_cell = counts.reshape(w_sorted.shape[0], k, 2)
    return auroc_from_counts(by_cell[:, :, 1], by_cell[:, :, 0])


def _auroc_weighted_codes(code: np.ndarray, y: np.ndarray, k: int, w: np.ndarray) -> np.ndarray:
    """Weighted counting AUROC (internal): code in [0, k), y in {0,1}, w of shape (B, n)."""
    order, starts, cells = _cell_layout(code, y)
    return _auroc_from_sorted_weights(w[:, order], starts, cells, k)


# --------------------------------------------------------------------------
# calibration
# --------------------------------------------------------------------------


def brier(confidence: Any, correct: Any) -> float:
    """Brier score: mean squared difference between confidence and the 0/1 outcome.

    Definition: BS = (1/n) sum_i (c_i - y_i)^2 with c_i in [0, 1] and y_i in
    {0, 1}.  0 is perfect; always answering 0.5 gives 0.25.

    Parameters
    ----------
    confidence : array-like of shape (n,)
        Stated confidence on the 0–1 scale.
    correct : array-like of shape (n,)
        Binary correctness.

    Returns
    -------
    float

    References
    ----------
    Brier, G. W. (1950). Verification of forecasts expressed in terms of
    probability. Monthly Weather Review 78, 1–3.
    """
    c, y = _conf_and_correct(confidence, correct)
    return float(np.mean((c - y) ** 2))


EDGE_RULES = ("upper", "lower")
BINNINGS = ("equal_width", "equal_mass")


def _check_edge(edge: str) -> str:
    if edge not in EDGE_RULES:
        raise ValueError(f"edge must be one of {EDGE_RULES}, got {edge!r}")
    return edge


def _bin_index(c: np.ndarray, n_bins: int, edge: str = "upper", snap: bool = True) -> np.ndarray:
    """Equal-width bin of each confidence.

    ``edge="upper"``: floor(c * B + EDGE_TOL), a value on an interior edge goes to the bin that
    starts there; ``edge="lower"``: ceil(c * B - EDGE_TOL) - 1, it goes to the bin that ends there.
    0.0 is always in the first bin and 1.0 in the last.  ``snap=False``: no tolerance; the value is
    compared with the edges ``numpy.linspace(0, 1, B + 1)`` as stored, by ``searchsorted`` (side
    ``"left"`` for ``lower``: scikit-learn's ``calibration_curve`` exactly; ``"right"`` for ``upper``).
    """
    if not snap:
        inner = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
        return np.searchsorted(inner, c, side="left" if edge == "lower" else "right").astype(np.intp)
    if edge == "upper":
        idx = np.floor(c * n_bins + EDGE_TOL).astype(np.intp)
    else:
        idx = np.ceil(c * n_bins - EDGE_TOL).astype(np.intp) - 1
    return np.clip(idx, 0, n_bins - 1)


def _equal_mass_edges(c: np.ndarray, n_bins: int) -> np.ndarray:
    """Interior edges of equal-mass bins: the confidences at sorted positions floor(b n / B), b = 1..B-1.

    Duplicated edges (heaped confidences) are dropped, so fewer than B bins may remain.
    """
    cs = np.sort(c)
    pos = (np.arange(1, n_bins) * cs.size) // n_bins
    return np.unique(cs[pos]) if cs.size else np.empty(0)


def _check_n_bins(n_bins: int) -> int:
    if isinstance(n_bins, bool) or int(n_bins) != n_bins or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    return int(n_bins)


@dataclass(frozen=True)
class EceOptions:
    """The four options of a binned calibration error, declared and validated in one place.

    Definition: ``n_bins`` (B, a positive integer) bins; ``binning`` ``"equal_width"`` (edges k / B) or
    ``"equal_mass"`` (about n / B rows a bin); ``edge`` ``"upper"`` (a value on an interior edge goes
    to the bin that starts there) or ``"lower"`` (to the bin that ends there); ``snap`` compares with
    the edges up to ``EDGE_TOL`` so that 0.7 stored as 0.69999... lands where it is read.  Every
    function that bins confidences takes these four keywords; ``as_kwargs()`` gives them in that form,
    and ``EceOptions(**kw)`` is the single validation of them (one error wording for every surface).

    Reference: Guo et al. 2017, "On Calibration of Modern Neural Networks" (ICML), Section 2 (ECE);
    Nixon et al. 2019, "Measuring Calibration in Deep Learning" (equal-mass bins).

    Examples
    --------
    >>> EceOptions().as_kwargs()
    {'n_bins': 10, 'binning': 'equal_width', 'edge': 'upper', 'snap': True}
    >>> EceOptions(n_bins=15, binning="equal_mass").n_bins
    15
    >>> EceOptions(n_bins=0)
    Traceback (most recent call last):
    ...
    ValueError: n_bins must be a positive integer, got 0
    """

    n_bins: int = 10
    binning: str = "equal_width"
    edge: str = "upper"
    snap: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_bins", _check_n_bins(self.n_bins))
        _check_edge(self.edge)
        if self.binning not in BINNINGS:
            raise ValueError(f"binning must be one of {BINNINGS}, got {self.binning!r}")
        if not isinstance(self.snap, (bool, np.bool_)):
            raise ValueError(f"snap must be True or False, got {self.snap!r}")
        object.__setattr__(self, "snap", bool(self.snap))

    def as_kwargs(self) -> dict[str, Any]:
        """The options as the keyword arguments of ``ece``, ``reliability_bins`` and the count kernels.

        >>> sorted(EceOptions(edge="lower").as_kwargs())
        ['binning', 'edge', 'n_bins', 'snap']
        """
        return {"n_bins": self.n_bins, "binning": self.binning, "edge": self.edge, "snap": self.snap}


def reliability_bins(
    confidence: Any,
    correct: Any,
    n_bins: int = 10,
    *,
    edge: str = "upper",
    binning: str = "equal_width",
    snap: bool = True,
) -> dict[str, np.ndarray]:
    """Per-bin summary for a reliability diagram.

    Bin rule (``binning="equal_width"``, the default): bins are [0, 1/B), [1/B, 2/B), ...,
    [(B-1)/B, 1] for B = ``n_bins``.  ``edge`` decides where a value lying exactly on an
    interior edge goes:

    * ``edge="upper"`` (default, this book's rule): to the bin that *starts* there
      (0.8 -> [0.8, 0.9)); the bin of c is ``min(floor(c * B + 1e-9), B - 1)``.
    * ``edge="lower"`` (scikit-learn's ``calibration_curve`` and Guo et al. 2017): to the bin
      that *ends* there (0.8 -> (0.7, 0.8]); the bin of c is ``max(ceil(c * B - 1e-9) - 1, 0)``.

    0.0 is in the first bin and 1.0 in the last under both rules.  The 1e-9
    (:data:`EDGE_TOL`) absorbs binary rounding so that e.g. ``0.7 + 0.1`` is treated as 0.8
    (*snapping*).  ``snap=False`` turns it off: the stored value is compared with the edges
    ``numpy.linspace(0, 1, B + 1)`` (equal width) or the stored edge values (equal mass), so
    ``0.5000000000000001`` lies above 0.5; with ``edge="lower"`` the equal-width bins are then exactly
    those of scikit-learn's ``calibration_curve(strategy="uniform")``.

    ``binning="equal_mass"``: the interior edges are the confidences at sorted positions
    floor(b n / B), b = 1, ..., B-1 (duplicates dropped), so each bin holds about n / B rows;
    rows are assigned by value with the same ``edge`` rule, so tied confidences always share a
    bin and the result does not depend on row order.  With heaped confidences fewer than B bins
    can remain.

    Parameters
    ----------
    confidence : array-like of shape (n,)
        0–1 confidences.
    correct : array-like of shape (n,)
        Binary correctness.
    n_bins : int, default 10
    edge : {"upper", "lower"}, default "upper"
    binning : {"equal_width", "equal_mass"}, default "equal_width"

    Returns
    -------
    dict of numpy arrays, one entry per bin (``pandas.DataFrame(result)`` works):
        ``lo``, ``hi``  bin edges;
        ``n``           rows in the bin (int);
        ``mean_conf``   mean confidence in the bin (NaN if empty);
        ``acc``         share correct in the bin (NaN if empty);
        ``gap``         ``mean_conf - acc`` (positive = overconfident; NaN if empty).

    References
    ----------
    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of
    modern neural networks. ICML 2017 (reliability diagrams, Section 2).
    Nixon, J. et al. (2019). Measuring calibration in deep learning. CVPR Workshops
    (equal-mass, "adaptive" bins).

    Examples
    --------
    >>> rb = reliability_bins([0.8, 0.8, 1.0], [1, 0, 1])
    >>> rb["n"].tolist()
    [0, 0, 0, 0, 0, 0, 0, 0, 2, 1]
    >>> reliability_bins([0.8, 0.8, 1.0], [1, 0, 1], edge="lower")["n"].tolist()
    [0, 0, 0, 0, 0, 0, 0, 2, 0, 1]
    >>> reliability_bins([0.5000000000000001], [1], edge="lower", snap=False)["n"].tolist()  # above 0.5
    [0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
    """
    n_bins = _check_n_bins(n_bins)
    _check_edge(edge)
    if binning not in BINNINGS:
        raise ValueError(f"binning must be one of {BINNINGS}, got {binning!r}")
    c, y = _conf_and_correct(confidence, correct)
    if binning == "equal_width":
        b = _bin_index(c, n_bins, edge, snap)
        edges = np.arange(n_bins + 1) / n_bins
    else:
        inner = _equal_mass_edges(c, n_bins)
        side: Literal["left", "right"] = "right" if edge == "upper" else "left"
        # upper: a value equal to an edge goes above it; the EDGE_TOL guard as for equal width
        tol = EDGE_TOL if snap else 0.0
        shifted = c + tol if edge == "upper" else c - tol
        b = np.searchsorted(inner, shifted, side=side).astype(np.intp)
        edges = np.concatenate([[0.0], inner, [1.0]])
        n_bins = edges.size - 1
    n = np.bincount(b, minlength=n_bins)
    conf_sum = np.bincount(b, weights=c, minlength=n_bins)
    corr_sum = np.bincount(b, weights=y.astype(float), minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.where(n > 0, conf_sum / np.maximum(n, 1), np.nan)
        acc = np.where(n > 0, corr_sum / np.maximum(n, 1), np.nan)
    return {
        "lo": edges[:-1],
        "hi": edges[1:],
        "n": n.astype(np.int64),
        "mean_conf": mean_conf,
        "acc": acc,
        "gap": mean_conf - acc,
    }


def ece(
    confidence: Any,
    correct: Any,
    n_bins: int = 10,
    *,
    edge: str = "upper",
    binning: str = "equal_width",
    snap: bool = True,
) -> float:
    """Expected calibration error over confidence bins.

    Definition: ECE = sum_b (n_b / n) |mean confidence_b - accuracy_b| over the
    occupied bins b, using the bins of :func:`reliability_bins` (default: ten equal-width
    bins [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0]; ``edge="upper"`` puts a value on an interior
    edge into the upper bin, ``edge="lower"``, scikit-learn's and Guo et al.'s rule, into the
    lower one; ``binning="equal_mass"`` uses bins of about n / B rows each; ``snap=False`` compares
    the stored values with the edges without the 1e-9 tolerance, see :func:`reliability_bins`).  By the triangle
    inequality ECE >= |CITL|, with equality iff every occupied bin's gap has the same sign.

    Parameters
    ----------
    confidence : array-like of shape (n,)
        0–1 confidences.
    correct : array-like of shape (n,)
        Binary correctness.
    n_bins : int, default 10
    edge : {"upper", "lower"}, default "upper"
    binning : {"equal_width", "equal_mass"}, default "equal_width"

    Returns
    -------
    float in [0, 1]

    References
    ----------
    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of
    modern neural networks. ICML 2017, Eq. (3).
    Nixon, J. et al. (2019). Measuring calibration in deep learning. CVPR Workshops.

    Examples
    --------
    >>> round(ece([0.8, 0.8, 1.0], [1, 0, 1]), 4)   # bin [0.8, 0.9): gap 0.3 on 2 of 3 rows
    0.2
    >>> round(ece([0.9, 0.9, 1.0], [1, 1, 0], edge="lower"), 4)  # 0.9 now shares no bin with 1.0
    0.4
    """
    rb = reliability_bins(confidence, correct, n_bins, edge=edge, binning=binning, snap=snap)
    occ = rb["n"] > 0
    total = rb["n"].sum()
    return float(np.sum(rb["n"][occ] / total * np.abs(rb["gap"][occ])))


def citl(confidence: Any, correct: Any) -> float:
    """Calibration-in-the-large: mean confidence minus accuracy (0–1 scale).

    Definition: CITL = (1/n) sum_i c_i - (1/n) sum_i y_i.  Positive values mean
    overconfidence.  Multiply by 100 for percentage points.

    Parameters
    ----------
    confidence : array-like of shape (n,)
    correct : array-like of shape (n,)

    Returns
    -------
    float in [-1, 1]

    References
    ----------
    Van Calster, B. et al. (2016). A calibration hierarchy for risk models was
    defined: from utopia to empirical data. J. Clin. Epidemiol. 74, 167–176
    ("calibration-in-the-large").
    """
    c, y = _conf_and_correct(confidence, correct)
    return float(np.mean(c) - np.mean(y))


def high_conf_counts(confidence: Any, correct: Any, threshold: float = 0.8) -> tuple[int, int]:
    """Count rows stated with confidence >= ``threshold`` and how many of them are wrong.

    A row counts as high-confidence when ``c >= threshold - 1e-9``
    (:data:`EDGE_TOL`, so 0.8 computed as 0.7 + 0.1 still counts at threshold 0.8).

    Parameters
    ----------
    confidence : array-like of shape (n,)
        0–1 confidences.
    correct : array-like of shape (n,)
    threshold : float in [0, 1], default 0.8

    Returns
    -------
    (n_high, n_wrong) : tuple of int

    References
    ----------
    Chernets (2026), Section 4: share of answers stated at confidence >= 80
    that are wrong.
    """
    if not (0.0 <= float(threshold) <= 1.0):
        raise ValueError(f"threshold must be in [0, 1] (0-1 scale), got {threshold!r}")
    c, y = _conf_and_correct(confidence, correct)
    high = c >= float(threshold) - EDGE_TOL
    n_high = int(high.sum())
    n_wrong = int(n_high - y[high].sum())
    return n_high, n_wrong


def high_conf_error_rate(confidence: Any, correct: Any, threshold: float = 0.8) -> float:
    """Error rate among rows stated with confidence >= ``threshold``.

    Definition: n_wrong / n_high from :func:`high_conf_counts`.  Returns NaN
    when no row reaches the threshold (use :func:`high_conf_counts` to show the
    zero count).

    Parameters
    ----------
    confidence, correct : array-like of shape (n,)
    threshold : float, default 0.8

    Returns
    -------
    float in [0, 1], or NaN

    References
    ----------
    Chernets (2026), Section 4 ("confident error" rate at stated confidence >= 80).
    """
    n_high, n_wrong = high_conf_counts(confidence, correct, threshold)
    return float(n_wrong / n_high) if n_high else float("nan")


# --------------------------------------------------------------------------
# selective prediction
# --------------------------------------------------------------------------

COVERED_RULES = ("floor", "ceil")


def _covered_size(coverage: float, n: int, covered: str = "floor") -> int:
    """k = max(1, floor(coverage * n)) (default) or ceil(coverage * n).

    The product is rounded to 9 decimals first (float guard: 0.6 * 1500 -> 900).
    """
    c = float(coverage)
    if not (0.0 < c <= 1.0):
        raise ValueError(f"coverages: each coverage must be in (0, 1], got {coverage!r}")
    if covered not in COVERED_RULES:
        raise ValueError(f"covered must be one of {COVERED_RULES}, got {covered!r}")
    x = round(c * n, 9)
    return max(1, int(math.floor(x))) if covered == "floor" else max(1, int(math.ceil(x)))


def risk_coverage_table(
    confidence: Any,
    correct: Any,
    coverages: Sequence[float] = (1.0, 0.8, 0.6, 0.4, 0.2),
    covered: str = "floor",
) -> dict[str, np.ndarray]:
    """Selective risk at fixed coverages, with the tie information at every cut.

    Definition: sort rows by confidence, highest first; at coverage c the
    covered set is the first k = max(1, floor(c n)) rows (``covered="ceil"``:
    ceil(c n)); the product c n is rounded to 9 decimals first to absorb float
    error, e.g. 0.6 * 1500 -> 900.  The selective risk is the error rate among
    those k rows.  Floor is the default because it is the rule the paper's
    Table 2 implies: for google (n = 1,461) the printed 18.7% and 15.1% at 40%
    and 20% coverage are reachable as 109/584 and 44/292 but by no integer
    count over ceil's 585 and 293 rows.  Rows with equal confidence are ordered by
    their original position (stable sort) — an arbitrary but deterministic
    choice that matters only when the cut falls inside a tie group, which is
    common with heaped integer confidences.  The table therefore also reports,
    for each cut, the tie group that straddles it and the range of error rates
    any tie-breaking order could give.

    Parameters
    ----------
    confidence : array-like of shape (n,)
        0–1 confidences.
    correct : array-like of shape (n,)
    coverages : sequence of float in (0, 1]
    covered : {"floor", "ceil"}
        How c n is turned into a whole number of rows (see Definition).

    Returns
    -------
    dict of numpy arrays, one entry per coverage:
        ``coverage``; ``k`` (rows covered); ``n_errors`` and ``error_rate``
        (row-order tie rule); ``cut_conf`` (confidence of the k-th row);
        ``cut_in_tie`` (True when the k-th and (k+1)-th rows share a
        confidence, i.e. the covered set depends on tie-breaking);
        ``tie_size`` (rows with confidence ``cut_conf``); ``tie_inside`` (how
        many of them are covered); ``error_rate_min`` / ``error_rate_max``
        (best and worst error rate over all orders of the tie group);
        ``error_rate_expected`` (mean over uniformly random tie orders).

    References
    ----------
    Geifman, Y. & El-Yaniv, R. (2017). Selective classification for deep neural
    networks. NeurIPS 2017 (risk–coverage curve).
    """
    c, y = _conf_and_correct(confidence, correct)
    n = c.size
    order = np.argsort(-c, kind="stable")
    cs = c[order]
    wrong_sorted = 1 - y[order].astype(np.int64)
    cum_wrong = np.concatenate([[0], np.cumsum(wrong_sorted)])
    # tie groups in the sorted order
    starts = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1]])
    ends = np.r_[starts[1:], n]  # exclusive
    group_of = np.repeat(np.arange(starts.size), ends - starts)

    rows = []
    for cov in coverages:
        k = _covered_size(cov, n, covered)
        g = group_of[k - 1]
        g_start, g_end = int(starts[g]), int(ends[g])
        t = g_end - g_start
        inside = k - g_start
        e_tie = int(cum_wrong[g_end] - cum_wrong[g_start])
        e_above = int(cum_wrong[g_start])
        e_row = int(cum_wrong[k])
        e_min = e_above + max(0, inside - (t - e_tie))
        e_max = e_above + min(inside, e_tie)
        e_exp = e_above + inside * e_tie / t
        rows.append(
            (float(cov), k, e_row, e_row / k, float(cs[k - 1]), k < g_end, t, inside, e_min / k, e_max / k, e_exp / k)
        )
    names = [
        "coverage",
        "k",
        "n_errors",
        "error_rate",
        "cut_conf",
        "cut_in_tie",
        "tie_size",
        "tie_inside",
        "error_rate_min",
        "error_rate_max",
        "error_rate_expected",
    ]
    cols: list[Any] = list(zip(*rows, strict=True)) if rows else [[] for _ in names]
    return {name: np.asarray(col) for name, col in zip(names, cols, strict=True)}


def risk_coverage(
    confidence: Any,
    correct: Any,
    coverages: Sequence[float] = (1.0, 0.8, 0.6, 0.4, 0.2),
    tie_rule: str = "row_order",
    covered: str = "floor",
) -> dict[float, float]:
    """Selective risk (error rate among the most confident rows) at each coverage.

    Definition: at coverage c, answer only the k = max(1, floor(c n)) rows with the
    highest confidence and report the share of them that is wrong (see
    :func:`risk_coverage_table` for the exact cut and for tie diagnostics).

    Parameters
    ----------
    confidence, correct : array-like of shape (n,)
    coverages : sequence of float in (0, 1]
    tie_rule : {"row_order", "expected"}
        ``"row_order"`` (default): rows of equal confidence are taken in their
        original order (stable sort), giving an integer number of errors.
        ``"expected"``: the mean error rate over uniformly random orders of the
        tie group that straddles the cut.
    covered : {"floor", "ceil"}
        Whole-row rule for k (default floor; see :func:`risk_coverage_table`).

    Returns
    -------
    dict {coverage: error_rate} (plain floats, 0–1 scale)

    References
    ----------
    Geifman, Y. & El-Yaniv, R. (2017). Selective classification for deep neural
    networks. NeurIPS 2017.
    """
    key = {"row_order": "error_rate", "expected": "error_rate_expected"}
    if tie_rule not in key:
        raise ValueError(f"tie_rule must be 'row_order' or 'expected', got {tie_rule!r}")
    tab = risk_coverage_table(confidence, correct, coverages, covered)
    return {float(cov): float(v) for cov, v in zip(tab["coverage"], tab[key[tie_rule]], strict=True)}


# --------------------------------------------------------------------------
# statistics from per-level counts (the practitioner report's engine)
# --------------------------------------------------------------------------
#
# Every statistic of the report depends on the rows only through the number of correct and
# wrong answers at each distinct confidence level.  The functions below take those counts,
# batched over a leading axis (one bootstrap draw per row), so a report on millions of rows
# costs O(draws x levels) instead of O(draws x rows), and no result can depend on row order.

__all__ += [
    "level_counts",
    "counts_statistics",
    "aurc",
    "smooth_ece",
    "smooth_ece_bandwidth",
    "smooth_kernel",
    "smooth_ece_kernel",
    "smooth_reliability",
    "risk_coverage_curve",
]


def level_counts(confidence: Any, correct: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct confidence levels with the number of correct and wrong rows at each.

    Definition: ``levels`` are the sorted distinct values of ``confidence``; ``pos[k]`` counts
    rows with confidence ``levels[k]`` and ``correct == 1``, ``neg[k]`` those with
    ``correct == 0``.  The triple is a sufficient summary of the rows for every statistic of
    :func:`counts_statistics`.

    Parameters
    ----------
    confidence : array-like of shape (n,), 0–1 confidences
    correct : array-like of shape (n,), binary

    Returns
    -------
    (levels, pos, neg) : float array (K,), int64 arrays (K,)

    References
    ----------
    Hanley, J. A. & McNeil, B. J. (1982). The meaning and use of the area under a ROC curve.
    Radiology 143(1) (the AUROC as a function of per-level counts).

    Examples
    --------
    >>> lv, p, q = level_counts([0.9, 0.5, 0.9], [1, 0, 0])
    >>> lv.tolist(), p.tolist(), q.tolist()
    ([0.5, 0.9], [0, 1], [1, 1])
    """
    c, y = _conf_and_correct(confidence, correct)
    levels, code = np.unique(c, return_inverse=True)
    k = levels.size
    cells = np.bincount(code.reshape(-1) * 2 + y.astype(np.intp), minlength=2 * k).reshape(k, 2)
    return levels, cells[:, 1].astype(np.int64), cells[:, 0].astype(np.int64)


def _count_at_or_below(cum: np.ndarray, x: np.ndarray, *, strict: bool = False) -> np.ndarray:
    """Per row b of ``cum`` (B, K), non-decreasing along K: how many entries are <= x[b, m]
    (``strict``: < x[b, m]), for x of shape (B, M).

    One ``searchsorted`` over the rows laid end to end (each row shifted above the previous
    one), so the cost is O(B M log(B K)) instead of the O(B K M) of a broadcast comparison.
    Exact while the shifted values stay below 2**53 (counts and positions are integers).
    """
    B, K = cum.shape
    if B == 0 or K == 0:
        return np.zeros(x.shape, dtype=np.int64)
    lo = float(min(cum.min(), x.min()))
    span = float(max(cum.max(), x.max())) - lo + 1.0
    shift = (np.arange(B, dtype=float) * span)[:, None]
    flat = (cum - lo + shift).ravel()
    idx = np.searchsorted(flat, (x - lo + shift).ravel(), side="left" if strict else "right")
    return idx.reshape(x.shape) - (np.arange(B) * K)[:, None]


def _harmonic(m: np.ndarray) -> np.ndarray:
    """Harmonic numbers H(m) = digamma(m + 1) + Euler's gamma, for real m >= 0.

    For m >= 20 the asymptotic series ln m + gamma + 1/(2m) - 1/(12m^2) + 1/(120m^4)
    - 1/(252m^6) + 1/(240m^8) (error below 1e-15); smaller integers are summed directly and
    smaller non-integers shifted up with H(m) = H(m + 20) - sum_{j=1..20} 1/(m + j).  (No scipy:
    it is slow to import.)
    """
    m = np.asarray(m, dtype=float)
    if m.size > 64 and float(m.min()) >= 0 and float(m.max()) <= _HARMONIC_TABLE_MAX and np.all(m == np.floor(m)):
        return _harmonic_series(np.arange(int(m.max()) + 1, dtype=float))[m.astype(np.int64)]
    return _harmonic_series(m)


#: Integer arguments up to this size are looked up in a table of H(0..max) (one series
#: evaluation per distinct integer instead of one per element).
_HARMONIC_TABLE_MAX = 1 << 22


def _harmonic_series(m: np.ndarray) -> np.ndarray:
    """:func:`_harmonic` evaluated elementwise (asymptotic series with an upward shift)."""
    m = np.asarray(m, dtype=float)
    small = m < 20.0
    x = np.where(small, m + 20.0, m)
    x = np.where(x > 0, x, 1.0)
    inv2 = 1.0 / (x * x)
    h = np.log(x) + np.euler_gamma + 0.5 / x - inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 / 240)))
    if small.any():
        ms = m[small]
        h[small] -= (1.0 / (ms[:, None] + np.arange(1.0, 21.0)[None, :])).sum(axis=1)
        # small integers directly: H(1) = 1 and H(2) = 1.5 exactly, as digamma gives them
        whole = small & (m == np.floor(m))
        h[whole] = _SMALL_HARMONIC[m[whole].astype(np.int64)]
    return h


_SMALL_HARMONIC = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1.0, 20.0))])  # H(0..19)


#: Kernel entries (grid points x levels) above which the smooth ECE is evaluated through relplot's fine nodes
#: (:func:`_smooth_ece_blocks`, about 128 MB a block of grid points) when no kernel is passed in; so is it for
#: as many levels as half the nodes or more.
_KERNEL_BLOCK = 1 << 24
#: The largest kernel :func:`smooth_ece_kernel` returns as one matrix (1 GB): a bootstrap applies it to every
#: batch of draws, so building it once is worth the memory up to this size; above it each batch builds it in
#: blocks (bounded memory, more time).
_KERNEL_WHOLE = 1 << 27
#: relplot adds this to the smoothed density at every grid point (``BaseKernelMixin.smooth``), so the smooth
#: ECE's denominator is the sum over the grid of (density + 1e-4).
SMOOTH_DENSITY_EPS = 1e-4


def _fine_nodes(sigma: float) -> int:
    """Nodes of relplot's fine grid at bandwidth sigma: max(2000, round(20 / sigma)) // 2 + 1."""
    return max(2000, round(20 / sigma)) // 2 + 1


def _padded_kernel(sigma: float, n: int) -> np.ndarray:
    """relplot's sampled Gaussian (N values at m / (N - 1) - 1/2) inside zeros: weight of offset d is at
    d + N // 2 + 2N (offsets of the three images lie within [-(2N - 2), 2N - 2])."""
    ker = np.linspace(0.0, 1.0, n)
    ker = np.exp(-(ker - 0.5) * (ker - 0.5) / (2 * sigma * sigma)) / (math.sqrt(2 * math.pi) * sigma)
    kp = np.zeros(5 * n)
    kp[2 * n : 3 * n] = ker
    return kp


def _node_pairs(grid: np.ndarray, levels: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Where the smooth-ECE kernel looks up relplot's sampled Gaussian, and with what weight: (idx, coef), each
    (12, T, K), so that K[t, k] = sum over the first axis of coef * padded[idx] (:func:`_padded_kernel`).

    Level l is split between fine nodes b = floor(l (N - 1)) (clipped to N - 2) and b + 1 in proportions
    1 - f and f (relplot's ``smooth_round_to_grid``); grid point t is interpolated between nodes i0 and i0 + 1
    with weights 1 - r and r (relplot's ``interpolate``); a weight on node j reaches node i directly (offset
    i - j), through its mirror image about node 0 (offset i + j, j > 0) and about node N - 1 (offset
    i - (2N - 2 - j), j < N - 1): 2 x 2 x 3 terms.  Independent of sigma for a given N."""
    t = np.asarray(grid, float)
    bucket = 1 / (n - 1)
    i0 = (t * (n - 1)).astype(np.int64).clip(0, n - 2)
    r = (t - i0 * bucket) / bucket
    b = (levels * (n - 1)).astype(np.int64).clip(0, n - 2)
    f = levels * (n - 1) - b
    base = n // 2 + 2 * n
    T, K = t.size, b.size
    diff = np.subtract.outer(i0, b)  # i0 - b
    summ = np.add.outer(i0, b)  # i0 + b
    idx = np.empty((12, T, K), np.int64)
    coef = np.empty((12, T, K))
    m = 0
    for di, wi in ((0, 1 - r), (1, r)):
        for dj, wj in ((0, 1 - f), (1, f)):
            np.add(diff, base + di - dj, out=idx[m])
            np.add(summ, base + di + dj, out=idx[m + 1])
            np.add(summ, base + di + dj - (2 * n - 2), out=idx[m + 2])
            np.multiply.outer(wi, wj, out=coef[m])
            np.multiply(coef[m], (b + dj > 0)[None, :], out=coef[m + 1])
            np.multiply(coef[m], (b + dj < n - 1)[None, :], out=coef[m + 2])
            m += 3
    return idx, coef


def _fine_smoother(grid: np.ndarray, sigma: float) -> tuple[Any, np.ndarray, np.ndarray, int]:
    """relplot's smoothing on its fine grid of N nodes (spacing h = 1 / (N - 1)), as (S, inds, r, N).

    ``ReflectedGaussianKernel.apply``: node weights are extended by one mirror image at each end (about node 0
    and node N - 1), convolved with the Gaussian density of scale sigma sampled at the N points
    m / (N - 1) - 1/2, m = 0..N-1 (so truncated at half the unit interval), and the smoothed node values are
    interpolated linearly at the grid points: grid point t lies between nodes inds[t] and inds[t] + 1 with
    weights 1 - r[t] and r[t].  S(i, j) is the smoothed value at node i of a unit weight at node j."""
    n = _fine_nodes(sigma)
    kp = _padded_kernel(sigma, n)
    base = n // 2 + 2 * n

    def S(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return kp[i - j + base] + (j > 0) * kp[i + j + base] + (j < n - 1) * kp[i - (2 * n - 2 - j) + base]

    t = np.asarray(grid, float)
    bucket = 1 / (n - 1)
    inds = (t * (n - 1)).astype(int).clip(0, n - 2)
    return S, inds, (t - inds * bucket) / bucket, n


#: Entries (12 x grid points x levels) up to which the kernel is built from :func:`_node_pairs`.
_PAIRS_MAX = 1 << 22


def _reflected_kernel(grid: np.ndarray, levels: np.ndarray, sigma: float, fine: Any = None) -> np.ndarray:
    """Smooth-ECE kernel K[t, k]: relplot's reflected Gaussian smoothing of a unit weight at level k, at grid t.

    Few levels: summed from :func:`_node_pairs`; many: through the grid x nodes matrix of
    :func:`_fine_smoother` (``fine``, when already built), gathered at each level's two nodes.
    """
    grid = np.asarray(grid, dtype=float)
    levels = np.asarray(levels, dtype=float)
    if not grid.size or not levels.size:
        return np.zeros((grid.size, levels.size))
    n = _fine_nodes(float(sigma))
    if fine is None and 2 * levels.size < n and 12 * grid.size * levels.size <= _PAIRS_MAX:
        idx, coef = _node_pairs(grid, levels, n)
        return np.einsum("mtk,mtk->tk", coef, _padded_kernel(float(sigma), n)[idx])
    S, inds, r, n = _fine_smoother(grid, float(sigma)) if fine is None else fine
    b = (levels * (n - 1)).astype(int).clip(0, n - 2)
    f = levels * (n - 1) - b
    i0, r_ = inds[:, None], r[:, None]
    nodes = np.arange(n)[None, :]
    A = (1 - r_) * S(i0, nodes) + r_ * S(i0 + 1, nodes)  # grid x nodes
    return A[:, b] * (1 - f)[None, :] + A[:, b + 1] * f[None, :]


def _smooth_grid(sigma: float) -> np.ndarray:
    return np.linspace(0.0, 1.0, max(200, int(round(10.0 / sigma))))


def _smooth_ece_at(
    levels: np.ndarray, pos: np.ndarray, tot: np.ndarray, sigma: float, kern: np.ndarray | None = None
) -> np.ndarray:
    """smECE at bandwidth sigma for count rows pos/tot of shape (B, K).

    ``kern`` is the kernel on :func:`_smooth_grid` (computed when not given, so callers
    evaluating many draws at one sigma compute it once).
    """
    grid = _smooth_grid(sigma)
    if kern is None and (grid.size * levels.size > _KERNEL_BLOCK or 2 * levels.size >= _fine_nodes(sigma)):
        num, den = _smooth_ece_blocks(levels, pos, tot, sigma, grid)  # many levels: through the fine nodes
    else:
        if kern is None:
            kern = _reflected_kernel(grid, levels, sigma)  # (T, K)
        resid = tot * levels[None, :] - pos  # sum over rows of (c - y) at each level
        num = np.abs(resid @ kern.T).sum(axis=1)
        den = tot @ kern.sum(axis=0)  # = sum over the grid of the smoothed density
    den = den + SMOOTH_DENSITY_EPS * grid.size
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot.sum(axis=1) > 0, num / den, np.nan)


def _smooth_ece_blocks(
    levels: np.ndarray, pos: np.ndarray, tot: np.ndarray, sigma: float, grid: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The numerator and denominator (without the density epsilon) of :func:`_smooth_ece_at` without a grid x
    levels kernel: the counts are first split onto relplot's N fine nodes (as relplot does with its rows), then
    smoothed by the grid x nodes matrix of :func:`_fine_smoother`, built a block of grid points at a time
    (about 128 MB); cost and memory grow with the nodes, not with the levels (continuous confidences).  Only
    the sums' order differs from the one-matrix evaluation."""
    S, inds, r, n = _fine_smoother(grid, sigma)
    B = pos.shape[0]
    b = (levels * (n - 1)).astype(np.int64).clip(0, n - 2)
    f = levels * (n - 1) - b
    flat = (np.arange(B)[:, None] * n + b[None, :]).ravel()

    def on_nodes(w: np.ndarray) -> np.ndarray:  # (B, K) weights at levels -> (B, N) at nodes
        lo = np.bincount(flat, weights=(w * (1 - f)[None, :]).ravel(), minlength=B * n)
        hi = np.bincount(flat + 1, weights=(w * f[None, :]).ravel(), minlength=B * n)
        return (lo + hi).reshape(B, n)

    V = on_nodes(tot * levels[None, :] - pos)
    D = on_nodes(tot)
    num = np.zeros(B)
    den = np.zeros(B)
    nodes = np.arange(n)[None, :]
    step = max(1, _KERNEL_BLOCK // n)
    for s in range(0, grid.size, step):
        i0, r_ = inds[s : s + step, None], r[s : s + step, None]
        A = (1 - r_) * S(i0, nodes) + r_ * S(i0 + 1, nodes)  # grid points of the block x nodes
        num += np.abs(V @ A.T).sum(axis=1)
        den += D @ A.sum(axis=0)
    return num, den


def smooth_ece_bandwidth(levels: Any, pos: Any, neg: Any, *, refine: int = 10) -> float:
    """Bandwidth of the smooth ECE: the fixed point sigma* = smECE_sigma*(data).

    Definition (Błasiok & Nakkiran 2023, Sec. 5): smECE_sigma decreases in sigma, so there is
    one sigma* with smECE_sigma* = sigma*.  It is located by bisection on [0, 1] (``refine``
    halvings, resolution 2**-refine; 10 as in ``relplot.smECE``) keeping the smallest tested sigma
    with sigma >= smECE_sigma (and sigma >= 1e-3), the rule of the ``relplot`` package.  Counts as
    from :func:`level_counts`.

    References
    ----------
    Błasiok, J. & Nakkiran, P. (2023). Smooth ECE: principled reliability diagrams via kernel
    smoothing. arXiv:2309.12236; ``relplot.metrics.search_param``.

    Examples
    --------
    >>> s = smooth_ece_bandwidth([0.2, 0.8], [1, 3], [3, 1])
    >>> 0 < s <= 1
    True
    """
    lv = np.asarray(levels, float)
    p = np.asarray(pos, float)[None, :]
    t = p + np.asarray(neg, float)[None, :]

    plans: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}  # (grid size, nodes) -> _node_pairs

    def at(sigma: float) -> float:
        grid, n = _smooth_grid(sigma), _fine_nodes(sigma)
        if 2 * lv.size < n and 12 * grid.size * lv.size <= _PAIRS_MAX:
            if (grid.size, n) not in plans:
                plans[grid.size, n] = _node_pairs(grid, lv, n)
            idx, coef = plans[grid.size, n]
            kern = np.einsum("mtk,mtk->tk", coef, _padded_kernel(sigma, n)[idx])
            return float(_smooth_ece_at(lv, p, t, sigma, kern)[0])
        return float(_smooth_ece_at(lv, p, t, sigma)[0])

    if not lv.size:
        return 1.0
    hi, lo = 1.0, 0.0  # hi: sigma >= smECE(sigma); lo: sigma < smECE(sigma)
    for _ in range(int(refine)):
        mid = (hi + lo) / 2
        if mid < 1e-3 or mid < at(mid):
            lo = mid
        else:
            hi = mid
    return hi


def smooth_ece(confidence: Any, correct: Any, *, sigma: float | None = None) -> float:
    """Smooth ECE: calibration error of the kernel-smoothed reliability curve.

    Definition: ``relplot.smECE``'s.  With the Gaussian kernel K_sigma reflected at 0 and 1 of
    :func:`smooth_kernel` (relplot's discretisation), the smoothed residual is
    R(t) = sum_i K_sigma(t, c_i) (c_i - y_i) and the smoothed density D(t) = sum_i K_sigma(t, c_i);
    smECE_sigma = sum_t |R(t)| / sum_t (D(t) + 1e-4) over an even grid of max(200, round(10 / sigma))
    points of [0, 1].  With ``sigma=None`` the bandwidth is the fixed point of
    :func:`smooth_ece_bandwidth` (10 bisection steps, as relplot).  Unlike binned ECE it has no bin edges, so it
    does not jump when a confidence crosses an edge.

    Parameters
    ----------
    confidence, correct : array-like of shape (n,)
    sigma : float in (0, 1], optional

    Returns
    -------
    float in [0, 1]

    References
    ----------
    Błasiok, J. & Nakkiran, P. (2023). Smooth ECE: principled reliability diagrams via kernel
    smoothing. arXiv:2309.12236 (the ``relplot`` package is the reference implementation).

    Examples
    --------
    >>> round(smooth_ece([0.9] * 10, [1] * 9 + [0]), 3)  # stated 90 %, right 90 %
    0.0
    """
    lv, p, q = level_counts(confidence, correct)
    if sigma is None:
        sigma = smooth_ece_bandwidth(lv, p, q)
    if not (0 < float(sigma) <= 1):
        raise ValueError(f"sigma must be in (0, 1], got {sigma!r}")
    return float(_smooth_ece_at(lv, p[None, :].astype(float), (p + q)[None, :].astype(float), float(sigma))[0])


def smooth_ece_kernel(levels: Any, sigma: float) -> np.ndarray | None:
    """The smooth-ECE kernel of ``levels`` at ``sigma`` to pass to :func:`counts_statistics`, or None when big.

    Definition: :func:`smooth_kernel` on the smooth-ECE grid when it has at most 2**27 entries (grid points x
    levels, 1 GB); None above that, and :func:`counts_statistics` then evaluates the smooth ECE a block of
    levels at a time, in bounded memory (continuous confidences give one level per row: a one-matrix kernel of
    a million-row model would need tens of gigabytes).

    References
    ----------
    Błasiok, J. & Nakkiran, P. (2023), arXiv:2309.12236.

    Examples
    --------
    >>> smooth_ece_kernel([0.2, 0.8], 0.1).shape
    (200, 2)
    >>> smooth_ece_kernel(np.linspace(0, 1, 200_000), 0.001) is None
    True
    """
    lv = np.asarray(levels, float)
    if _smooth_grid(float(sigma)).size * lv.size > _KERNEL_WHOLE:
        return None
    return smooth_kernel(lv, sigma)


def smooth_kernel(levels: Any, sigma: float, grid: Any = None) -> np.ndarray:
    """Reflected Gaussian kernel matrix K[t, k] of bandwidth ``sigma`` between grid points and levels.

    Definition: relplot's discretised reflected Gaussian (``ReflectedGaussianKernel``): level l = levels[k] is
    split linearly between the two nearest of N = max(2000, round(20 / sigma)) // 2 + 1 even nodes of [0, 1],
    the node weights are mirrored once about 0 and once about 1, convolved with the normal density of scale
    sigma sampled on the node spacing out to 1/2 either side, and interpolated linearly at ``grid[t]``; so
    K[t, k] is about phi_sigma(t - l) + phi_sigma(t + l) + phi_sigma(t - (2 - l)).
    ``grid`` defaults to the smooth-ECE grid of max(200, round(10 / sigma)) points.  Computing it
    once and passing it to :func:`counts_statistics` (``smooth_kernel``) or
    :func:`smooth_reliability` (``kernel``) saves recomputing it for every batch of draws.

    References
    ----------
    Błasiok, J. & Nakkiran, P. (2023), arXiv:2309.12236 (reflected kernel smoothing).

    Examples
    --------
    >>> smooth_kernel([0.5], 0.1, grid=[0.5]).shape
    (1, 1)
    """
    lv = np.asarray(levels, float)
    g = _smooth_grid(float(sigma)) if grid is None else np.asarray(grid, float)
    return _reflected_kernel(g, lv, float(sigma))


def smooth_reliability(
    levels: Any, pos: Any, neg: Any, sigma: float, grid: Any = None, *, kernel: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Kernel-smoothed reliability curve: smoothed accuracy and density on a grid.

    Definition: acc(t) = sum_k K_sigma(t, l_k) pos_k / sum_k K_sigma(t, l_k) (pos_k + neg_k) with
    the reflected Gaussian kernel of :func:`smooth_ece`; density(t) is the denominator divided by
    n.  ``pos``/``neg`` may be 2-D (draws, levels) for a bootstrap band; ``kernel`` is
    :func:`smooth_kernel` of the same levels, sigma and grid when already computed.

    References
    ----------
    Błasiok, J. & Nakkiran, P. (2023), arXiv:2309.12236 (smooth reliability diagrams).

    Examples
    --------
    >>> r = smooth_reliability([0.5], [1], [1], 0.1, grid=[0.5])
    >>> float(r["accuracy"][0])
    0.5
    """
    lv = np.asarray(levels, float)
    t = np.linspace(0, 1, 51) if grid is None else np.asarray(grid, float)
    kern = _reflected_kernel(t, lv, float(sigma)) if kernel is None else kernel
    p = np.atleast_2d(np.asarray(pos, float))
    tot = p + np.atleast_2d(np.asarray(neg, float))
    num, den = p @ kern.T, tot @ kern.T
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = num / den
    n = tot.sum(axis=1, keepdims=True)
    squeeze = np.asarray(pos).ndim == 1
    return {"t": t, "accuracy": acc[0] if squeeze else acc, "density": (den / n)[0] if squeeze else den / n}


def risk_coverage_curve(levels: Any, pos: Any, neg: Any) -> dict[str, np.ndarray]:
    """Risk–coverage curve at the end of each tie group, most confident level first.

    Definition: levels sorted from highest to lowest; after covering every row of the first
    j levels, coverage = rows covered / n and risk = errors among them / rows covered.  Inside a
    tie group the expected risk over random tie orders is linear in the number of errors, so
    these points determine the expected curve.

    References
    ----------
    Geifman, Y. & El-Yaniv, R. (2017). Selective classification for deep neural networks.
    NeurIPS 2017.

    Examples
    --------
    >>> r = risk_coverage_curve([0.5, 0.9], [1, 1], [1, 0])
    >>> r["coverage"].tolist(), r["risk"].tolist()
    ([0.3333333333333333, 1.0], [0.0, 0.3333333333333333])
    """
    p = np.asarray(pos, float)[::-1]
    q = np.asarray(neg, float)[::-1]
    keep = (p + q) > 0
    covered = np.cumsum(p + q)[keep]
    errors = np.cumsum(q)[keep]
    n = covered[-1] if covered.size else 0.0
    return {"level": np.asarray(levels, float)[::-1][keep], "coverage": covered / n, "risk": errors / covered}


def counts_statistics(
    levels: Any,
    pos: Any,
    neg: Any,
    *,
    n_bins: int = 10,
    binning: str = "equal_width",
    edge: str = "upper",
    threshold: float = 0.8,
    coverages: Sequence[float] = (1.0, 0.8, 0.6, 0.4, 0.2),
    covered: str = "floor",
    smooth_sigma: float | None = None,
    smooth_kernel: np.ndarray | None = None,
    statistics: Collection[str] | None = None,
    snap: bool = True,
) -> dict[str, np.ndarray]:
    """Every report statistic from per-level counts, batched over draws.

    Definitions (n = total rows, c = confidence level, y = correct; the same formulas as the
    row-level functions of this module, which the tests use as oracles):

    * ``accuracy`` = sum pos / n; ``mean_confidence`` = sum (pos + neg) c / n;
      ``median_confidence`` = mean of the sorted values at positions floor((n-1)/2) and floor(n/2);
      ``citl`` = mean_confidence - accuracy; ``brier`` = mean (c - y)^2;
    * ``ece`` as :func:`ece` with ``n_bins``, ``binning`` and ``edge``;
    * ``auroc``: tie-corrected Mann–Whitney AUROC (NaN without both classes);
    * ``high_conf_error_rate``: share wrong among rows with c >= threshold - EDGE_TOL
      (NaN if none), ``high_conf_n`` their number;
    * ``risk_coverage`` (shape (B, len(coverages))): error rate among the
      k = max(1, floor(cov n)) most confident rows (``covered="ceil"``: ceil), taking the
      expectation over uniformly random orders of the tie group that straddles the cut, with
      ``risk_coverage_min``/``risk_coverage_max`` the best and worst tie orders;
    * ``aurc``: area under the risk–coverage curve, (1/n) sum_{k=1..n} E[errors among the top k]/k,
      the expectation again over tie orders, which inside a tie group is linear in k, so the sum
      has the closed form (A - s r)(H(s + t) - H(s)) + e per group of t rows with e errors,
      s rows and A errors above it, r = e / t, H the harmonic numbers;
    * ``smooth_ece`` at bandwidth ``smooth_sigma`` (:func:`smooth_ece`; omitted when None).

    Parameters
    ----------
    levels : array (K,), ascending distinct 0–1 confidences
    pos, neg : arrays (K,) or (B, K) of counts (bootstrap draws on the first axis)
    n_bins, binning, edge, snap : ECE options (see :func:`reliability_bins`)
    threshold : high-confidence cut-off (0–1)
    coverages, covered : risk–coverage cuts (see :func:`risk_coverage_table`)
    smooth_sigma : bandwidth for ``smooth_ece``
    smooth_kernel : optional precomputed kernel of ``smooth_sigma`` on the smooth-ECE grid
        (``_reflected_kernel(_smooth_grid(sigma), levels, sigma)``), reused across calls
    statistics : optional collection of the keys to compute (default: all); ``n``, ``accuracy``,
        ``mean_confidence``, ``citl``, ``brier`` and ``high_conf_n`` always come (they cost one pass),
        the others only when named (bootstrap draws skip ``median_confidence`` and the risk–coverage
        columns, which have no interval).  The values do not depend on the selection.

    Returns
    -------
    dict of float arrays of shape (B,) (or (B, len(coverages)) for the risk–coverage entries)

    References
    ----------
    Guo et al. (2017) (ECE); Hanley & McNeil (1982) (AUROC); Geifman & El-Yaniv (2017)
    (risk–coverage, AURC); Błasiok & Nakkiran (2023) (smooth ECE).

    Examples
    --------
    >>> s = counts_statistics([0.5, 0.9], [1, 1], [1, 0])
    >>> float(s["accuracy"][0]), round(float(s["auroc"][0]), 3)
    (0.6666666666666666, 0.75)
    """
    lv = np.asarray(levels, dtype=float)
    P = np.atleast_2d(np.asarray(pos, dtype=float))  # no copy when already float (bootstrap draws)
    Q = np.atleast_2d(np.asarray(neg, dtype=float))

    def want(key: str) -> bool:
        return statistics is None or key in statistics

    if P.shape != Q.shape or P.shape[-1] != lv.size:
        raise ValueError(f"counts_statistics: pos {P.shape}, neg {Q.shape} and levels {lv.shape} do not match")
    if lv.size and np.any(np.diff(lv) <= 0):
        raise ValueError("counts_statistics: levels must be strictly increasing")
    n_bins = _check_n_bins(n_bins)
    _check_edge(edge)
    if binning not in BINNINGS:
        raise ValueError(f"binning must be one of {BINNINGS}, got {binning!r}")
    T = P + Q
    B, K = T.shape
    # Two cumulative sums serve every statistic (ascending level order): rows and errors at or
    # below each level; "above" quantities are totals minus these.
    cumT = np.cumsum(T, axis=1)
    cumQ = np.cumsum(Q, axis=1)
    n = cumT[:, -1].copy() if K else np.zeros(B)
    nQ = cumQ[:, -1].copy() if K else np.zeros(B)
    out: dict[str, np.ndarray] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = (n - nQ) / n
        mconf = T @ lv / n
        out["n"] = n
        out["accuracy"] = acc
        out["mean_confidence"] = mconf
        if want("median_confidence"):
            mid = np.stack([(n - 1) // 2, n // 2], axis=1)  # (B, 2)
            li = _count_at_or_below(cumT, mid).clip(0, K - 1)
            out["median_confidence"] = lv[li].mean(axis=1)
        out["citl"] = mconf - acc
        out["brier"] = (P @ (lv - 1.0) ** 2 + Q @ lv**2) / n
        # ECE: |sum over the bin of (c - y)| summed over bins, / n
        if want("ece"):
            resid = T * lv - P
            if binning == "equal_width":
                onehot = np.zeros((K, n_bins))
                onehot[np.arange(K), _bin_index(lv, n_bins, edge, snap)] = 1.0
                gap = resid @ onehot
            else:
                posn = (np.arange(1, n_bins)[None, :] * n[:, None]) // n_bins  # (B, n_bins-1)
                inner_idx = _count_at_or_below(cumT, posn).clip(0, K - 1)
                inner = lv[inner_idx]  # (B, n_bins-1), non-decreasing
                # bin of level k = number of inner edges at or below it (upper) / strictly below (lower)
                tol = EDGE_TOL if snap else 0.0
                probe = np.broadcast_to((lv + tol) if edge == "upper" else (lv - tol), (B, K))
                b = _count_at_or_below(inner, probe, strict=edge != "upper")
                flat = (b + np.arange(B)[:, None] * n_bins).ravel()
                gap = np.bincount(flat, weights=resid.ravel(), minlength=B * n_bins).reshape(B, n_bins)
            out["ece"] = np.abs(gap).sum(axis=1) / n
        if want("auroc"):
            out["auroc"] = auroc_from_counts(P, Q)  # the kernel
        high = lv >= float(threshold) - EDGE_TOL
        hn = T[:, high].sum(axis=1)
        out["high_conf_n"] = hn
        out["high_conf_error_rate"] = np.where(hn > 0, Q[:, high].sum(axis=1) / np.where(hn > 0, hn, 1), np.nan)
        # selective risk, most confident first: at level k, s = rows strictly above it, a = errors
        # strictly above it, t = T_k rows and e = Q_k errors in its tie group
        above = n[:, None] - cumT
        err_above = nQ[:, None] - cumQ
        rc, rmin, rmax = [], [], []
        n_int = n.astype(np.int64)
        # bootstrap draws share one n: skip the sort of np.unique then
        uniq = n_int[:1] if B and (n_int == n_int[0]).all() else np.unique(n_int)
        where_n = np.searchsorted(uniq, n_int)
        ks = (
            np.stack(
                [
                    np.array([_covered_size(cov, int(m), covered) if m > 0 else 1 for m in uniq], dtype=float)[where_n]
                    for cov in coverages
                ],
                axis=1,
            )
            if len(coverages)
            else np.zeros((B, 0))
        )
        # the group holding the k-th most confident row: the highest level with rows at or above
        # it >= k, i.e. rows strictly below it <= n - k (one lookup for every coverage)
        # (cumT - T: rows strictly below level k, non-decreasing in k)
        gs = (_count_at_or_below(cumT - T, n[:, None] - ks) - 1).clip(0, K - 1) if len(coverages) else ks
        r = np.arange(B)
        for j in range(len(coverages)):
            k, g = ks[:, j], gs[:, j]
            s_, t_, e_, a_ = above[r, g], T[r, g], Q[r, g], err_above[r, g]
            inside = k - s_
            rc.append((a_ + inside * np.where(t_ > 0, e_ / np.where(t_ > 0, t_, 1), 0)) / k)
            rmin.append((a_ + np.maximum(0, inside - (t_ - e_))) / k)
            rmax.append((a_ + np.minimum(inside, e_)) / k)
        out["risk_coverage"] = np.stack(rc, axis=1) if rc else np.empty((B, 0))
        out["risk_coverage_min"] = np.stack(rmin, axis=1) if rmin else np.empty((B, 0))
        out["risk_coverage_max"] = np.stack(rmax, axis=1) if rmax else np.empty((B, 0))
        if want("aurc"):
            # AURC: per tie group (a - s r)(H(s + t) - H(s)) + e; H(s + t) at level k is H(s) at k - 1.
            # An empty level (T = 0, so Q = 0) has rate 0 / 1 and adds nothing (masked: the two harmonic
            # numbers may come from different evaluations, table or series, and differ in the last bit)
            nonempty = T > 0
            rate = Q / np.where(nonempty, T, 1.0)
            h_s = _harmonic(above)
            h_st = np.empty_like(h_s)
            if K:
                h_st[:, 1:] = h_s[:, :-1]
                h_st[:, 0] = _harmonic(n)
            per_group = (err_above - above * rate) * (h_st - h_s) + Q
            out["aurc"] = np.where(nonempty, per_group, 0.0).sum(axis=1) / n
        if smooth_sigma is not None and want("smooth_ece"):
            out["smooth_ece"] = _smooth_ece_at(lv, P, T, float(smooth_sigma), smooth_kernel)
    return out


def aurc(confidence: Any, correct: Any) -> float:
    """Area under the risk–coverage curve (lower is better).

    Definition: AURC = (1/n) sum_{k=1..n} risk(k), where risk(k) is the error rate among the k
    most confident rows, averaged over uniformly random orders of tied confidences (so the value
    never depends on row order); see :func:`counts_statistics` for the closed form.

    References
    ----------
    Geifman, Y., Uziel, G. & El-Yaniv, R. (2019). Bias-reduced uncertainty estimation for deep
    neural classifiers. ICLR 2019 (AURC); Fadeeva et al. (2023), LM-Polygraph, EMNLP demos.

    Examples
    --------
    >>> aurc([0.9, 0.1], [1, 0])  # right first: risk 0 at k=1, 1/2 at k=2
    0.25
    """
    lv, p, q = level_counts(confidence, correct)
    return float(counts_statistics(lv, p, q, coverages=())["aurc"][0])


__all__ += ["auroc_scored_counts", "TIE_WEIGHTS", "tie_weight"]


def auroc_scored_counts(score: Any, pos: Any, neg: Any, ties: str = "half") -> np.ndarray:
    """AUROC of weighted score groups whose scores differ from one draw to the next, batched over draws.

    Definition: row ``b`` holds K groups; group k has score ``score[b, k]`` and ``pos[b, k]`` correct and
    ``neg[b, k]`` wrong answers (counts or non-negative weights).  With W1 = sum pos and W0 = sum neg,

        AUROC_b = sum_k pos_k (neg of the groups scored strictly lower + neg of the groups scored
                  equally x w) / (W1 W0),  w = 1/2 (``ties="half"``, default), 0 ("loss") or 1 ("win"),

    i.e. the tie-corrected Mann–Whitney AUROC of the data set in which every group's answers carry the
    group's score.  Groups with equal scores (in the same row) are pooled as ties, whichever column they
    sit in.  Unlike :func:`counts_statistics`, the order of the groups may differ between rows: this is
    what a bootstrap of a *re-estimated* score needs (within-model rank normalisation recomputes every
    percentile in every draw, see :func:`selfconf.panels.panel_intervals`).

    Parameters
    ----------
    score : array-like (B, K) or (K,), finite
    pos, neg : array-like of the same shape, non-negative

    Returns
    -------
    numpy.ndarray (B,): NaN in a row without both classes.

    References
    ----------
    Mann & Whitney (1947); Hanley & McNeil (1982) (see :func:`auroc`).

    Examples
    --------
    >>> auroc_scored_counts([[0.2, 0.9, 0.9]], [[0, 1, 1]], [[1, 0, 1]]).round(4).tolist()
    [0.75]
    >>> auroc_scored_counts([[0.2, 0.9, 0.9]], [[0, 1, 1]], [[1, 0, 1]], ties="loss").round(4).tolist()
    [0.5]
    """
    s = np.atleast_2d(np.asarray(score, dtype=float))
    p = np.atleast_2d(np.asarray(pos, dtype=float))
    q = np.atleast_2d(np.asarray(neg, dtype=float))
    if not (s.shape == p.shape == q.shape):
        raise ValueError(f"auroc_scored_counts: score {s.shape}, pos {p.shape} and neg {q.shape} must have one shape")
    _check_finite(s, "score")
    if (p < 0).any() or (q < 0).any():
        raise ValueError("auroc_scored_counts: pos and neg must be non-negative")
    order = np.argsort(s, axis=1, kind="stable")
    ss = np.take_along_axis(s, order, axis=1)
    gp, gq = _tie_group_counts(ss, np.take_along_axis(p, order, axis=1), np.take_along_axis(q, order, axis=1))
    return auroc_from_counts(gp, gq, ties)


# --------------------------------------------------------------------------
# curves and decompositions used by the teaching chapter
# --------------------------------------------------------------------------

__all__ += ["roc_curve", "brier_decomposition"]


def roc_curve(score: Any, correct: Any) -> dict[str, np.ndarray]:
    """Points of the ROC curve of ``score`` as a predictor of ``correct``, one per distinct score.

    Definition: for each threshold t, taken from +inf and then every distinct score in decreasing
    order, the rows with ``score >= t`` are called "predicted correct";
    ``tpr(t)`` is the share of correct rows among them, ``fpr(t)`` the share of wrong rows.  The
    first point is (0, 0) at t = +inf and the last (1, 1) at the smallest score.  Tied scores
    enter together, so a tie group is one straight segment, and the trapezoid area under the
    points equals :func:`auroc` with ties counted half.

    Parameters
    ----------
    score : array-like of shape (n,)
        Any finite real; higher means "more likely correct".
    correct : array-like of shape (n,)
        Binary correctness; both classes must be present.

    Returns
    -------
    dict of numpy arrays of equal length (``pandas.DataFrame(result)`` works):
        ``threshold`` (first entry ``inf``), ``fpr``, ``tpr``.

    Raises
    ------
    ValueError
        As for :func:`auroc` (unequal lengths, non-finite scores, non-binary ``correct``,
        one class only).

    References
    ----------
    Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters 27,
    861-874 (Algorithm 1; ties as one segment).  Same points as
    ``sklearn.metrics.roc_curve(correct, score, drop_intermediate=False)`` (tested).

    Examples
    --------
    >>> r = roc_curve([0.9, 0.8, 0.8, 0.3], [1, 1, 0, 0])
    >>> r["tpr"].tolist(), r["fpr"].tolist()
    ([0.0, 0.5, 1.0, 1.0], [0.0, 0.0, 0.5, 1.0])
    >>> float(np.trapezoid(r["tpr"], r["fpr"])) == auroc([0.9, 0.8, 0.8, 0.3], [1, 1, 0, 0])
    True
    """
    s = _as_score(score, "score").astype(float, copy=False)
    y = _as_correct(correct, "correct")
    _same_shape(s, y, "score", "correct")
    n1 = int(y.sum())
    n0 = y.size - n1
    if n1 == 0 or n0 == 0:
        only = "correct" if n0 == 0 else "incorrect"
        raise ValueError(
            f"roc_curve: only one class present in correct (all {y.size} rows {only}); the ROC curve is undefined"
        )
    levels, inverse = np.unique(s, return_inverse=True)  # ascending
    pos = np.bincount(inverse, weights=y, minlength=levels.size)[::-1]
    neg = np.bincount(inverse, weights=1 - y, minlength=levels.size)[::-1]
    tpr = np.concatenate([[0.0], np.cumsum(pos) / n1])
    fpr = np.concatenate([[0.0], np.cumsum(neg) / n0])
    return {"threshold": np.concatenate([[np.inf], levels[::-1]]), "fpr": fpr, "tpr": tpr}


def brier_decomposition(confidence: Any, correct: Any) -> dict[str, float]:
    """Murphy's partition of the Brier score into reliability, resolution and uncertainty.

    Definition: group the rows by their stated confidence; group g holds n_g of the N rows,
    states f_g and has share correct o_g; o is the overall share correct.  Then

        reliability = (1/N) sum_g n_g (f_g - o_g)^2     (calibration; lower is better)
        resolution  = (1/N) sum_g n_g (o_g - o)^2       (discrimination; higher is better)
        uncertainty = o (1 - o)                         (set by the accuracy alone)

    and ``brier == reliability - resolution + uncertainty`` exactly (up to float rounding),
    because the groups are the distinct stated values.  With many distinct values each group
    is small and the resolution term overstates what would generalise; binning the forecasts
    first adds within-bin terms that this function does not report.

    Parameters
    ----------
    confidence : array-like of shape (n,)
        0–1 confidences.
    correct : array-like of shape (n,)
        Binary correctness.

    Returns
    -------
    dict with float entries ``reliability``, ``resolution``, ``uncertainty``, ``brier``
    (the score itself, as :func:`brier`) and ``n_groups`` (int: distinct stated values).

    References
    ----------
    Murphy, A. H. (1973). A new vector partition of the probability score. Journal of Applied
    Meteorology 12(4), 595-600.

    Examples
    --------
    >>> d = brier_decomposition([0.9, 0.9, 0.6, 0.6], [1, 0, 1, 1])
    >>> round(d["reliability"], 4), round(d["resolution"], 4), round(d["uncertainty"], 4)
    (0.16, 0.0625, 0.1875)
    >>> round(d["reliability"] - d["resolution"] + d["uncertainty"], 4) == round(d["brier"], 4)
    True
    """
    c, y = _conf_and_correct(confidence, correct)
    yf = y.astype(float)
    values, group = np.unique(c, return_inverse=True)
    n_g = np.bincount(group)
    o_g = np.bincount(group, weights=yf) / n_g
    o = float(yf.mean())
    n = yf.size
    return {
        "reliability": float(np.sum(n_g * (values - o_g) ** 2) / n),
        "resolution": float(np.sum(n_g * (o_g - o) ** 2) / n),
        "uncertainty": o * (1.0 - o),
        "brier": float(np.mean((c - yf) ** 2)),
        "n_groups": int(values.size),
    }
