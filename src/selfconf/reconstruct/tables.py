"""Confidence-by-correctness tables and their summary statistics.

A model's graded rows, as far as every Table-1 statistic is concerned, reduce to a 2 x V
contingency table: ``c0[j]`` incorrect and ``c1[j]`` correct rows stated at confidence
``values[j]`` (integers 0-100).  Mean, median, Brier score, 10-bin ECE, tie-corrected
AUROC, risk-coverage error rates and high-confidence error counts are all functions of
that table, so the generator first searches for tables (this module) and only then hands
the rows to items (:mod:`selfconf.reconstruct.collection`).

These fast table formulas are used *only* while fitting; the fidelity report recomputes
everything from the written rows with the book's own statistics.
"""

from __future__ import annotations

import numpy as np

from selfconf.metrics import auroc_from_counts, bin_index

__all__ = [
    "auroc_table",
    "delong_se_table",
    "median_table",
    "ece_bins_table",
    "table_summary",
    "top_counts",
    "pooled_auroc",
    "ranknorm_pooled_auroc",
]


def auroc_table(values: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> float:
    """Tie-corrected Mann-Whitney AUROC of a table (ties count one half).

    ``values`` must be sorted ascending.  AUROC = P(score_correct > score_incorrect)
    + 0.5 P(tie) (Hanley & McNeil 1982).
    """
    return float(auroc_from_counts(c1, c0))  # the kernel


def delong_se_table(values: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> float:
    """DeLong et al. (1988) standard error of the AUROC, with mid-rank placements for ties.

    Used as a cheap proxy for the width of a row-level bootstrap CI while fitting.
    """
    n0, n1 = c0.sum(), c1.sum()
    if n0 < 2 or n1 < 2:
        return float("nan")
    below0 = np.cumsum(c0) - c0
    above1 = c1.sum() - np.cumsum(c1)
    v10 = (below0 + 0.5 * c0) / n0  # placement of a correct row at each value
    v01 = (above1 + 0.5 * c1) / n1  # placement of an incorrect row at each value
    a = (c1 * v10).sum() / n1
    s10 = (c1 * (v10 - a) ** 2).sum() / (n1 - 1)
    s01 = (c0 * (v01 - a) ** 2).sum() / (n0 - 1)
    return float(np.sqrt(s10 / n1 + s01 / n0))


def median_table(values: np.ndarray, tot: np.ndarray) -> float:
    """Median of the integer confidences (mean of the two middle rows when n is even)."""
    n = int(tot.sum())
    cum = np.cumsum(tot)
    lo = values[np.searchsorted(cum, (n - 1) // 2, side="right")]
    hi = values[np.searchsorted(cum, n // 2, side="right")]
    return (float(lo) + float(hi)) / 2.0


def ece_bins_table(values: np.ndarray, c0: np.ndarray, c1: np.ndarray):
    """Per-bin count, confidence sum, correct count: the ten bins of :func:`selfconf.metrics.bin_index`."""
    b = bin_index(values / 100.0, 10)
    tot = c0 + c1
    cnt = np.bincount(b, weights=tot, minlength=10)
    conf = np.bincount(b, weights=tot * values / 100.0, minlength=10)
    cor = np.bincount(b, weights=c1, minlength=10)
    return cnt, conf, cor


def top_counts(values: np.ndarray, c0: np.ndarray, c1: np.ndarray):
    """Rows and errors at confidence >= each value: (T, E) arrays aligned with ``values``."""
    tot = c0 + c1
    T = np.cumsum(tot[::-1])[::-1]
    E = np.cumsum(c0[::-1])[::-1]
    return T, E


def table_summary(values: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> dict:
    """All Table-1 style statistics of one table (proportions on 0-1, confidences on 0-100)."""
    tot = c0 + c1
    n = float(tot.sum())
    k = float(c1.sum())
    p = values / 100.0
    cnt, conf, cor = ece_bins_table(values, c0, c1)
    occ = cnt > 0
    gaps = (conf[occ] - cor[occ]) / cnt[occ]
    return {
        "n": int(n),
        "k": int(k),
        "acc": k / n,
        "mean_conf": float((values * tot).sum() / n),
        "median_conf": median_table(values, tot),
        "brier": float(((c1 * (1 - p) ** 2) + c0 * p**2).sum() / n),
        "ece": float(np.abs(conf - cor).sum() / n),
        "n_nonpositive_bins": int((gaps <= 0).sum()),
        "min_bin_gap": float(gaps.min()),
        "auroc": auroc_table(values, c0, c1),
        "delong_se": delong_se_table(values, c0, c1),
    }


def pooled_auroc(tables: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> float:
    """AUROC of several tables pooled into one (scores compared across tables)."""
    allv = np.unique(np.concatenate([t[0] for t in tables]))
    c0 = np.zeros(allv.size)
    c1 = np.zeros(allv.size)
    for v, a0, a1 in tables:
        idx = np.searchsorted(allv, v)
        np.add.at(c0, idx, a0)
        np.add.at(c1, idx, a1)
    return auroc_table(allv, c0, c1)


def ranknorm_pooled_auroc(tables: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> float:
    """Pooled AUROC after replacing each table's scores by within-table mid-rank percentiles.

    Percentile of a row = (number of the model's rows below + half the rows tied) / n.
    """
    scores, a0s, a1s = [], [], []
    for _v, a0, a1 in tables:
        tot = a0 + a1
        n = tot.sum()
        pct = (np.cumsum(tot) - tot + 0.5 * tot) / n
        scores.append(pct)
        a0s.append(a0)
        a1s.append(a1)
    s = np.concatenate(scores)
    a0 = np.concatenate(a0s)
    a1 = np.concatenate(a1s)
    # merge exactly equal percentiles (they tie)
    key = np.round(s, 12)
    uniq, inv = np.unique(key, return_inverse=True)
    c0 = np.bincount(inv, weights=a0, minlength=uniq.size)
    c1 = np.bincount(inv, weights=a1, minlength=uniq.size)
    return auroc_table(uniq, c0, c1)
