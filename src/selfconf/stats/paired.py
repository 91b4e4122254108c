"""Paired comparisons of two arms answered on the same items: DeLong's test for an AUROC difference and
item-clustered paired bootstrap counts (``selfconf compare``, :func:`selfconf.report.compare`).

An *arm* is one model's (or one run's) answers, one row per item: a confidence in [0, 1] and a 0/1
correctness.  Both functions take the two arms aligned on the shared items (row i of arm A and row i of
arm B answer the same item).  Correctness may differ between the arms item by item (two models get
different items right), which the classical paired DeLong test, written for two scores of one set of
cases, does not cover; :func:`delong_paired` states how it extends.
"""

from __future__ import annotations

from statistics import NormalDist
from typing import Any

import numpy as np

from selfconf import metrics
from selfconf.stats import bootstrap

__all__ = ["delong_paired", "placement_terms", "paired_item_counts"]


def placement_terms(score: Any, correct: Any) -> tuple[float, np.ndarray]:
    """AUROC and each row's standardised placement deviation (DeLong et al. 1988, fast form of Sun & Xu 2014).

    Definition: with m correct rows (positives) and n wrong rows (negatives), the placement value of a
    positive i is V10_i = (1/n) sum_j psi(x_i, y_j) and that of a negative j is V01_j = (1/m) sum_i
    psi(x_i, y_j), psi = 1 if the positive's score is higher, 1/2 on a tie, 0 otherwise; AUROC = mean V10 =
    mean V01.  Sun & Xu's midrank identity gives them without the m x n comparison: V10_i = (R_i - R+_i) / n
    and V01_j = 1 - (R_j - R-_j) / m, with R the midrank among all rows and R+ / R- the midrank within the
    row's own class.  The returned term of a row is (V10_i - AUROC) / sqrt(m (m - 1)) for a positive and
    (V01_j - AUROC) / sqrt(n (n - 1)) for a negative, so that the sum of squared terms is DeLong's variance
    S10 / m + S01 / n (sample variances with ddof 1).

    Parameters
    ----------
    score, correct : array-like of shape (N,), with at least two rows of each class

    Returns
    -------
    (auroc, terms) : float and float array (N,)

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two or more
    correlated receiver operating characteristic curves. Biometrics 44, 837-845. Sun, X. & Xu, W. (2014).
    Fast implementation of DeLong's algorithm. IEEE Signal Processing Letters 21(11), 1389-1393.

    Examples
    --------
    >>> auc, t = placement_terms([0.9, 0.8, 0.4, 0.3], [1, 0, 1, 0])
    >>> auc, round(float((t**2).sum()), 6)
    (0.75, 0.125)
    """
    s = metrics._as_score(score, "score")
    y = metrics._as_correct(correct, "correct")
    metrics._same_shape(s, y, "score", "correct")
    pos = y == 1
    m, n = int(pos.sum()), int((~pos).sum())
    if m < 2 or n < 2:
        raise ValueError(f"DeLong's variance needs at least 2 right and 2 wrong answers, got {m} and {n}")
    r_all = metrics.average_ranks(s)
    r_own = np.empty(s.size)
    r_own[pos] = metrics.average_ranks(s[pos])
    r_own[~pos] = metrics.average_ranks(s[~pos])
    v = np.where(pos, (r_all - r_own) / n, 1.0 - (r_all - r_own) / m)
    auc = float(v[pos].mean())
    terms = np.where(pos, (v - auc) / np.sqrt(m * (m - 1.0)), (v - auc) / np.sqrt(n * (n - 1.0)))
    return auc, terms


def delong_paired(score_a: Any, correct_a: Any, score_b: Any, correct_b: Any) -> dict[str, float]:
    """DeLong's test of AUROC_A - AUROC_B on the same items (rows aligned: row i of both arms is item i).

    Definition: with each arm's standardised placement terms t_A, t_B (:func:`placement_terms`),
    Var(AUROC_A) = sum t_A^2 and Cov(AUROC_A, AUROC_B) = sum_i t_A(i) t_B(i), so
    Var(difference) = sum_i (t_A(i) - t_B(i))^2, z = difference / sqrt(Var) and the two-sided p-value is
    2 (1 - Phi(|z|)).  When both arms have the same correct/wrong labels this is exactly DeLong et al.'s
    paired test (the covariance S10_AB / m + S01_AB / n).  When the labels differ item by item (two models
    answer the same questions), the covariance is the same sum of products of the two arms' terms over the
    shared items: an extension that treats each arm's class sizes as fixed, stated here and beside the
    item-clustered bootstrap, which needs no such assumption.

    Returns
    -------
    dict with ``auroc_a``, ``auroc_b``, ``difference``, ``variance``, ``se``, ``z``, ``p_two_sided``,
    ``same_labels`` (1.0 when the arms' labels agree on every item, else 0.0)

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44, 837-845; Sun & Xu (2014), IEEE SPL 21(11).

    Examples
    --------
    >>> r = delong_paired([0.9, 0.8, 0.4, 0.3], [1, 0, 1, 0], [0.9, 0.2, 0.8, 0.3], [1, 0, 1, 0])
    >>> r["auroc_a"], r["auroc_b"], round(r["variance"], 6)
    (0.75, 1.0, 0.125)
    """
    ya = metrics._as_correct(correct_a, "correct_a")
    yb = metrics._as_correct(correct_b, "correct_b")
    if ya.size != yb.size:
        raise ValueError(f"the arms are not aligned: {ya.size} rows in arm A, {yb.size} in arm B")
    auc_a, ta = placement_terms(score_a, ya)
    auc_b, tb = placement_terms(score_b, yb)
    diff = auc_a - auc_b
    var = float(np.sum((ta - tb) ** 2))
    se = float(np.sqrt(var))
    if se > 0:
        z = diff / se
        p = float(min(1.0, 2.0 * (1.0 - NormalDist().cdf(abs(z)))))
    else:
        z = 0.0 if diff == 0 else float(np.copysign(np.inf, diff))
        p = 1.0 if diff == 0 else 0.0
    return {
        "auroc_a": auc_a,
        "auroc_b": auc_b,
        "difference": float(diff),
        "variance": var,
        "se": se,
        "z": float(z),
        "p_two_sided": p,
        "same_labels": float(np.array_equal(ya, yb)),
    }


def paired_item_counts(
    conf_a: Any, correct_a: Any, conf_b: Any, correct_b: Any, *, n_boot: int, rng: np.random.Generator | int
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """Per-level counts of both arms in every draw of one item-clustered, paired bootstrap.

    Definition: one set of item multiplicities ``mult`` (shape (n_boot, N), from
    :func:`selfconf.bootstrap.cluster_multiplicities`: each draw picks N of the N shared items with
    replacement) weights both arms' rows, so the two arms of a draw hold the same items (paired) and an
    item drawn k times counts k times in both (clustered on items).  For each arm, ``P[b, k]`` (``Q[b, k]``)
    is the weight of its right (wrong) rows at its confidence level k in draw b.  Every statistic of
    :func:`selfconf.metrics.counts_statistics` of a draw is then that of the resample.

    Returns
    -------
    ((levels_a, P_a, Q_a), (levels_b, P_b, Q_b), mult)

    Reference: Davison & Hinkley (1997), Sec. 3.8 (resampling clusters).

    Examples
    --------
    >>> (la, pa, qa), (lb, pb, qb), mult = paired_item_counts([0.9, 0.5], [1, 0], [0.6, 0.6], [0, 1], n_boot=3, rng=0)
    >>> bool(((pa + qa).sum(axis=1) == 2).all()), bool(((pb + qb).sum(axis=1) == 2).all())
    (True, True)
    """
    ya = metrics._as_correct(correct_a, "correct_a")
    yb = metrics._as_correct(correct_b, "correct_b")
    ca = metrics._as_confidence(conf_a, "conf_a")
    cb = metrics._as_confidence(conf_b, "conf_b")
    if not (ca.size == cb.size == ya.size == yb.size):
        raise ValueError("the arms are not aligned: confidences and correctness of both arms need one row per item")
    mult = bootstrap.cluster_multiplicities(ca.size, n_boot, rng)
    return _arm_counts(ca, ya, mult), _arm_counts(cb, yb, mult), mult


def _arm_counts(c: np.ndarray, y: np.ndarray, mult: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(levels, P, Q) of one arm under the item weights ``mult``: a sum over each (level, class) cell's items."""
    levels, code = np.unique(c, return_inverse=True)
    k = levels.size
    cell = code.reshape(-1) * 2 + y.astype(np.intp)
    order = np.argsort(cell, kind="stable")
    srt = cell[order]
    starts = np.flatnonzero(np.r_[True, srt[1:] != srt[:-1]])
    out = np.zeros((mult.shape[0], 2 * k))
    for a in range(0, mult.shape[0], 250):  # chunks of draws keep the (draws x items) copy small
        out[a : a + 250, srt[starts]] = np.add.reduceat(mult[a : a + 250][:, order], starts, axis=1)
    cells3 = out.reshape(-1, k, 2)
    return levels, cells3[:, :, 1], cells3[:, :, 0]
