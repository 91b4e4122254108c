"""Intervals for a proportion from its counts (the report's accuracy, refusal and high-confidence error rates).

Nothing here imports beyond :mod:`selfconf.stats.normal`; the functions take plain counts.
"""

from __future__ import annotations

import math

from selfconf.stats.normal import Z975, quantile

__all__ = ["wilson_interval"]


def wilson_interval(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Definition: with p = k / n and z the (1 + level) / 2 standard-normal quantile, the interval is
    (p + z^2 / (2n) -+ z sqrt(p (1 - p) / n + z^2 / (4 n^2))) / (1 + z^2 / n).  Unlike a percentile
    bootstrap it does not collapse to a point at p = 0 or p = 1 (20 of 20 gives about [0.839, 1]),
    and it is defined for every n >= 1.  ``trials = 0`` gives (NaN, NaN).

    Parameters
    ----------
    successes, trials : counts, 0 <= successes <= trials
    level : coverage, default 0.95 (z = :data:`selfconf.stats.normal.Z975`)

    Returns
    -------
    (low, high) on the 0-1 scale

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
    JASA 22, 209-212.  Brown, Cai & DasGupta (2001). Interval estimation for a binomial proportion.
    Statistical Science 16, 101-133 (recommended for small n).

    Examples
    --------
    >>> lo, hi = wilson_interval(20, 20)
    >>> round(lo, 4), hi
    (0.8389, 1.0)
    >>> [round(x, 4) for x in wilson_interval(5, 10)]
    [0.2366, 0.7634]
    """
    k, n = int(successes), int(trials)
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"wilson_interval: need 0 <= successes <= trials, got {successes} of {trials}")
    if n == 0:
        return (math.nan, math.nan)
    z = Z975 if level == 0.95 else quantile((1.0 + level) / 2.0)
    p = k / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    den = 1 + z2 / n
    lo = 0.0 if k == 0 else (centre - half) / den
    hi = 1.0 if k == n else (centre + half) / den
    return (lo, hi)
