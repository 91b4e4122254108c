"""Performance of an interval procedure in a simulation study: coverage, its Monte-Carlo error, misses, width.

A simulation study draws R data sets from a process whose true value is known, computes an interval on each and
reports how often the intervals contain the truth.  :func:`interval_coverage` summarises the R intervals;
:func:`coverage_mc_se` is the Monte-Carlo standard error of a coverage.  Nothing here draws data: the study's
process and its intervals are the caller's (the book's chapter *Do the intervals cover?*,
:mod:`selfconf.sections.coverage`).

This module imports nothing from the project (numpy and the standard library only), so it sits at the bottom of
the statistics layer.

References: Morris, T. P., White, I. R. & Crowther, M. J. (2019). Using simulation studies to evaluate statistical
methods. *Statistics in Medicine* 38, 2074-2102.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["coverage_mc_se", "interval_coverage"]


def coverage_mc_se(coverage: Any, n_reps: Any) -> Any:
    """Monte-Carlo standard error of an empirical coverage from ``n_reps`` independent replicates.

    Definition: a replicate's interval covers the truth or not, a Bernoulli trial with probability c; the share
    covered over R independent replicates has SD sqrt(c (1 - c) / R), estimated with the empirical c.
    Vectorised (broadcast) over ``coverage`` and ``n_reps``.  Raises ``ValueError`` for a coverage outside
    [0, 1] or ``n_reps < 1``.

    References
    ----------
    Morris, T. P., White, I. R. & Crowther, M. J. (2019). Using simulation studies to evaluate statistical
    methods. *Statistics in Medicine* 38, 2074-2102, Table 6 (Monte-Carlo SE of coverage).

    Examples
    --------
    >>> round(float(coverage_mc_se(0.95, 200)), 5)
    0.01541
    >>> round(float(coverage_mc_se(0.95, 800)), 5)   # four times the replicates: half the error
    0.00771
    """
    c = np.asarray(coverage, dtype=float)
    r = np.asarray(n_reps, dtype=float)
    if np.any(~np.isfinite(c)) or np.any((c < 0) | (c > 1)):
        raise ValueError("coverage_mc_se: coverage must be a share in [0, 1]")
    if np.any(r < 1):
        raise ValueError("coverage_mc_se: n_reps must be >= 1")
    out = np.sqrt(c * (1.0 - c) / r)
    return float(out) if out.ndim == 0 else out


def interval_coverage(
    truth: float, low: Any, high: Any, estimate: Any | None = None, level: float = 0.95
) -> dict[str, float]:
    """Performance of an interval procedure over R simulated data sets whose true value is ``truth``.

    Definition: replicate r's interval [low_r, high_r] *covers* when low_r <= truth <= high_r; it misses
    *below* when high_r < truth (the whole interval under the truth) and *above* when low_r > truth.  A
    replicate whose interval is undefined (NaN end) counts as not covering and is counted in
    ``n_undefined``, so no replicate is lost.  Returned: ``n_reps`` (R), ``coverage`` (share covered),
    ``mc_se`` (:func:`coverage_mc_se`), ``miss_below`` / ``miss_above`` (shares), ``mean_width`` (over the
    defined intervals), ``nominal`` (``level``), ``z`` = (coverage - nominal) / SE at the nominal value
    sqrt(nominal (1 - nominal) / R), and, with ``estimate``, ``bias`` (mean estimate - truth) and ``emp_se``
    (SD of the estimates, ddof 1).

    References
    ----------
    Morris, T. P., White, I. R. & Crowther, M. J. (2019). Using simulation studies to evaluate statistical
    methods. *Statistics in Medicine* 38, 2074-2102 (coverage, bias, empirical SE and their Monte-Carlo SEs).

    Examples
    --------
    >>> r = interval_coverage(0.5, [0.4, 0.45, 0.55, 0.3], [0.6, 0.49, 0.7, 0.5])
    >>> r["coverage"], r["miss_below"], r["miss_above"], round(r["mean_width"], 4)
    (0.5, 0.25, 0.25, 0.1475)
    """
    lo = np.asarray(low, dtype=float).ravel()
    hi = np.asarray(high, dtype=float).ravel()
    if lo.shape != hi.shape or lo.size == 0:
        raise ValueError(f"interval_coverage: low and high need the same non-zero length, got {lo.size}, {hi.size}")
    if not np.isfinite(truth):
        raise ValueError(f"interval_coverage: truth must be finite, got {truth!r}")
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"interval_coverage: level must be in (0, 1), got {level!r}")
    level = float(level)
    ok = np.isfinite(lo) & np.isfinite(hi)
    if np.any(hi[ok] < lo[ok]):
        raise ValueError("interval_coverage: high < low for at least one replicate")
    n = lo.size
    covered = ok & (lo <= truth) & (hi >= truth)
    c = float(covered.mean())
    out = {
        "n_reps": n,
        "coverage": c,
        "mc_se": float(coverage_mc_se(c, n)),
        "miss_below": float((ok & (hi < truth)).mean()),
        "miss_above": float((ok & (lo > truth)).mean()),
        "n_undefined": int((~ok).sum()),
        "mean_width": float(np.mean(hi[ok] - lo[ok])) if ok.any() else math.nan,
        "nominal": level,
        "z": (c - level) / math.sqrt(level * (1.0 - level) / n),
    }
    if estimate is not None:
        est = np.asarray(estimate, dtype=float).ravel()
        if est.shape != lo.shape:
            raise ValueError(f"interval_coverage: estimate has {est.size} values, the intervals {n}")
        out["bias"] = float(np.nanmean(est) - truth)
        out["emp_se"] = float(np.nanstd(est, ddof=1)) if n > 1 else math.nan
    return out
