"""Pure-Python one-pass statistics of a small confidence table (fast inside the annealer).

For tables of ~25 confidence values, one Python loop is an order of magnitude faster than
a chain of numpy calls on tiny arrays.  Definitions are those of :mod:`.tables` (which the
tests compare against :mod:`selfconf.metrics`).
"""

from __future__ import annotations

import math

__all__ = ["table_stats", "auroc_lists", "pooled_auroc_lists", "ranknorm_auroc_lists"]


def table_stats(values: list[int], c0: list[int], c1: list[int], hi_threshold: int = 80) -> dict:
    """n, k, mean, median, Brier, ECE, bin gaps, AUROC, DeLong SE, high-confidence counts.

    ``values`` ascending integers 0-100; ``c0``/``c1`` incorrect/correct row counts.
    """
    n0 = sum(c0)
    n1 = sum(c1)
    n = n0 + n1
    sconf = 0.0
    brier = 0.0
    bin_cnt = [0] * 10
    bin_conf = [0.0] * 10
    bin_cor = [0] * 10
    H = W = 0
    auc_num = 0.0
    below0 = 0
    for v, a0, a1 in zip(values, c0, c1, strict=True):
        t = a0 + a1
        if not t:
            continue
        p = v / 100.0
        sconf += v * t
        brier += a1 * (1 - p) ** 2 + a0 * p * p
        b = v // 10  # metrics.bin_index(v / 100, 10) on integer percentages (tested equal); a scalar loop here
        if b > 9:
            b = 9
        bin_cnt[b] += t
        bin_conf[b] += p * t
        bin_cor[b] += a1
        if v >= hi_threshold:
            H += t
            W += a0
        auc_num += a1 * (below0 + 0.5 * a0)
        below0 += a0
    auc = auc_num / (n0 * n1) if n0 and n1 else float("nan")
    # DeLong SE with mid-rank placements
    se = float("nan")
    if n0 > 1 and n1 > 1:
        s10 = s01 = 0.0
        below0 = 0
        above1 = n1
        for _v, a0, a1 in zip(values, c0, c1, strict=True):
            above1 -= a1
            if a1:
                x = (below0 + 0.5 * a0) / n0 - auc
                s10 += a1 * x * x
            if a0:
                x = (above1 + 0.5 * a1) / n1 - auc
                s01 += a0 * x * x
            below0 += a0
        se = math.sqrt(s10 / (n1 - 1) / n1 + s01 / (n0 - 1) / n0)
    # median
    lo_pos, hi_pos = (n - 1) // 2, n // 2
    cum = 0
    lo_v: int | None = None
    hi_v: int | None = None
    for v, a0, a1 in zip(values, c0, c1, strict=True):
        cum += a0 + a1
        if lo_v is None and cum > lo_pos:
            lo_v = v
        if cum > hi_pos:
            hi_v = v
            break
    ece = 0.0
    gaps = []
    for b in range(10):
        if bin_cnt[b]:
            d = bin_conf[b] - bin_cor[b]
            ece += abs(d)
            gaps.append(d / bin_cnt[b])
    assert lo_v is not None and hi_v is not None  # the loop above reaches both middle positions when n > 0
    return {
        "n": n,
        "k": n1,
        "mean": sconf / n,
        "median": (lo_v + hi_v) / 2.0,
        "brier": brier / n,
        "ece": ece / n,
        "gaps": gaps,
        "auroc": auc,
        "se": se,
        "H": H,
        "W": W,
    }


def auroc_lists(c0: list[float], c1: list[float]) -> float:
    """Tie-corrected AUROC of counts over ascending score levels."""
    n0 = sum(c0)
    n1 = sum(c1)
    num = 0.0
    below0 = 0.0
    for a0, a1 in zip(c0, c1, strict=True):
        num += a1 * (below0 + 0.5 * a0)
        below0 += a0
    return num / (n0 * n1)


def pooled_auroc_lists(tables: list[tuple[list[int], list[int], list[int]]]) -> float:
    """AUROC of several (values, c0, c1) tables pooled on their raw scores."""
    acc: dict[int, list[float]] = {}
    for v, a0, a1 in tables:
        for x, y0, y1 in zip(v, a0, a1, strict=True):
            if y0 or y1:
                cell = acc.setdefault(x, [0, 0])
                cell[0] += y0
                cell[1] += y1
    keys = sorted(acc)
    return auroc_lists([acc[x][0] for x in keys], [acc[x][1] for x in keys])


def ranknorm_auroc_lists(tables: list[tuple[list[int], list[int], list[int]]]) -> float:
    """Pooled AUROC after mapping each table's scores to within-table mid-rank percentiles."""
    acc: dict[float, list[float]] = {}
    for _v, a0, a1 in tables:
        n = sum(a0) + sum(a1)
        cum = 0
        for y0, y1 in zip(a0, a1, strict=True):
            t = y0 + y1
            if t:
                key = round((cum + 0.5 * t) / n, 12)
                cell = acc.setdefault(key, [0, 0])
                cell[0] += y0
                cell[1] += y1
            cum += t
    keys = sorted(acc)
    return auroc_lists([acc[x][0] for x in keys], [acc[x][1] for x in keys])
