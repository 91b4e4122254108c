"""How Table 1's bootstrap intervals move with the seed (chapter 21, ``notebooks/21_seed_variation.py``).

The page reruns :func:`selfconf.stats.summary.table1` under many seeds (:func:`seed_runs`), summarises
each model's interval end points over the seeds (:func:`endpoint_spread`) and condenses the spread
into the numbers its prose quotes (:func:`spread_summary`).  The textbook comparison is the
normal-approximation Monte-Carlo SD of a sample quantile,
:func:`selfconf.bootstrap.endpoint_mc_sd`.

Reference: Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 19 (how many
bootstrap replications); Koehler, Brown & Haneuse (2009), "On the assessment of Monte Carlo error
in simulation-based statistical analyses", *The American Statistician* 63(2).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from selfconf import bootstrap, metrics
from selfconf.stats import summary

__all__ = [
    "graded_rows",
    "page_seeds",
    "n_printed",
    "seed_runs",
    "endpoint_spread",
    "spread_summary",
    "sd_relative_error",
]


def graded_rows(rows_all: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Table 1's rows from a collection: ``(rows with a parsed confidence, number left out)``.

    Definition: the rows with ``parse_ok == 1``, with ``confidence`` mapped from 0–100 to 0–1
    (:func:`selfconf.metrics.from_percent`) and ``correct`` as int; the count is the rows with
    ``parse_ok == 0``.  Reference: the paper's Table 1, which scores parsable answers only.

    Example:

    >>> rows, n_out = graded_rows(pd.DataFrame({"parse_ok": [1, 0, 1], "confidence": [90, None, 40],
    ...                                         "correct": [1, 0, 0]}))
    >>> rows["confidence"].tolist(), n_out
    ([0.9, 0.4], 1)
    """
    n_excluded = int((rows_all["parse_ok"] == 0).sum())
    rows = rows_all[rows_all["parse_ok"] == 1].copy()
    rows = rows.assign(
        confidence=metrics.from_percent(rows["confidence"].astype(float).to_numpy()),
        correct=rows["correct"].astype(int),
    )
    return rows, n_excluded


def page_seeds(seed: int, n_seeds: int) -> list[int]:
    """``n_seeds`` seeds derived from a page seed: ``SeedSequence(seed).generate_state(n_seeds, uint32)``.

    Reference: numpy's :class:`numpy.random.SeedSequence` (independent streams from one entropy value).

    Example:

    >>> page_seeds(1, 3) == [int(s) for s in np.random.SeedSequence(1).generate_state(3, dtype=np.uint32)]
    True
    """
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(n_seeds, dtype=np.uint32)]


def n_printed(x: Sequence[float] | pd.Series, decimals: int = 3) -> int:
    """How many different values the numbers show when printed with ``decimals`` decimals.

    Definition: the number of distinct strings ``format(v, f".{decimals}f")``.  Reference: the
    audit's rule that a bootstrap number is judged with a printed-unit tolerance.

    Example:

    >>> n_printed([0.1231, 0.1234, 0.1236])
    2
    """
    return len({format(float(v), f".{decimals}f") for v in x})


def seed_runs(rows: pd.DataFrame, seeds: Sequence[int], *, n_boot: int) -> pd.DataFrame:
    """Table 1's AUROC and interval per model under each seed: one row per (seed, model).

    Definition: for each seed ``s``, :func:`selfconf.stats.summary.table1` ``(rows, rng=s, n_boot=n_boot)``
    with its columns ``model, n, auroc, auroc_ci_low, auroc_ci_high`` and the seed.  Raises
    ``AssertionError`` if a model's AUROC point estimate differs between seeds (it must not depend
    on the bootstrap).  Reference: :func:`selfconf.stats.summary.table1`.

    Example:

    >>> rng = np.random.default_rng(0)
    >>> rows = pd.DataFrame({"model": ["m"] * 60, "confidence": rng.uniform(0, 1, 60),
    ...                      "correct": rng.integers(0, 2, 60)})
    >>> r = seed_runs(rows, [1, 2], n_boot=50)
    >>> len(r), r["auroc"].nunique()
    (2, 1)
    """
    runs = []
    for s in seeds:
        t1 = summary.table1(rows, rng=s, n_boot=n_boot)
        runs.append(t1[["model", "n", "auroc", "auroc_ci_low", "auroc_ci_high"]].assign(seed=s))
    out = pd.concat(runs, ignore_index=True)
    assert out.groupby("model")["auroc"].nunique().eq(1).all(), "the AUROC point estimate moved with the seed"
    return out


def endpoint_spread(runs: pd.DataFrame, *, n_boot: int) -> pd.DataFrame:
    """Per model, the spread of each interval end point over the seeds of :func:`seed_runs`.

    Definition, per model (in order of first appearance) and end point (``low``, ``high``): mean,
    SD (``ddof=1``), range (max − min), min and max over the seeds; the predicted SD
    :func:`selfconf.bootstrap.endpoint_mc_sd` ``(low mean, high mean, n_boot)``; how many
    distinct 3-decimal prints each end point shows (:func:`n_printed`); and
    ``observed / predicted`` = mean of the two SDs / predicted SD.
    Reference: Efron & Tibshirani (1993), ch. 19; the module docstring.

    Example:

    >>> runs = pd.DataFrame({"model": ["m", "m"], "n": [9, 9], "auroc": [0.7, 0.7],
    ...                      "auroc_ci_low": [0.60, 0.62], "auroc_ci_high": [0.80, 0.80], "seed": [1, 2]})
    >>> s = endpoint_spread(runs, n_boot=100).iloc[0]
    >>> round(float(s["low: mean"]), 3), round(float(s["low: range"]), 3)
    (0.61, 0.02)
    >>> int(s["printed lows"]), int(s["printed highs"])
    (2, 1)
    """
    per_model = []
    for model, g in runs.groupby("model", sort=False):
        lo, hi = g["auroc_ci_low"], g["auroc_ci_high"]
        per_model.append(
            {
                "model": model,
                "n": int(g["n"].iloc[0]),
                "AUROC": float(g["auroc"].iloc[0]),
                "low: mean": lo.mean(),
                "low: SD": lo.std(ddof=1),
                "low: range": lo.max() - lo.min(),
                "low: min": lo.min(),
                "low: max": lo.max(),
                "high: mean": hi.mean(),
                "high: SD": hi.std(ddof=1),
                "high: range": hi.max() - hi.min(),
                "high: min": hi.min(),
                "high: max": hi.max(),
                "predicted SD": bootstrap.endpoint_mc_sd(lo.mean(), hi.mean(), n_boot),
                "printed lows": n_printed(lo),
                "printed highs": n_printed(hi),
            }
        )
    mc = pd.DataFrame(per_model)
    mc["observed / predicted"] = 0.5 * (mc["low: SD"] + mc["high: SD"]) / mc["predicted SD"]
    return mc


def spread_summary(
    mc: pd.DataFrame, t1_lo: Mapping[str, float], t1_hi: Mapping[str, float], *, big: int = 1000
) -> dict[str, object]:
    """The numbers the page's prose quotes about the spread of :func:`endpoint_spread`.

    Definition: ``median_sd`` = median of all end-point SDs (low and high pooled); ``max_sd`` and
    its ``max_sd_model`` / ``max_sd_model_n`` = the model whose larger SD is largest;
    ``max_range`` = widest end-point range; ``big_max_range`` and ``n_big`` = the same over the
    models with at least ``big`` rows; ``ratio_median`` = median of ``observed / predicted``;
    ``n_endpoints_move`` = end points with more than one 3-decimal print; ``sd_axis_max`` = the
    largest SD, observed or predicted (the chart's scale); ``n_t1`` = models with
    a Table 1 interval (``t1_lo``/``t1_hi``, by model) and ``n_t1_inside`` = those whose both end
    points lie within the seeds' min–max range.  Reference: the module docstring.

    Example:

    >>> runs = pd.DataFrame({"model": ["m", "m"], "n": [9, 9], "auroc": [0.7, 0.7],
    ...                      "auroc_ci_low": [0.60, 0.62], "auroc_ci_high": [0.80, 0.80], "seed": [1, 2]})
    >>> s = spread_summary(endpoint_spread(runs, n_boot=100), {"m": 0.61}, {"m": 0.80}, big=5)
    >>> s["n_t1_inside"], s["n_big"], s["n_endpoints_move"]
    (1, 1, 1)
    """
    sds = pd.concat([mc["low: SD"], mc["high: SD"]])
    worst = mc.loc[mc[["low: SD", "high: SD"]].max(axis=1).idxmax()]
    big_rows = mc[mc["n"] >= big]
    by_model = mc.set_index("model")
    inside = [m for m in t1_lo if m in by_model.index]
    n_inside = sum(
        by_model.at[m, "low: min"] <= t1_lo[m] <= by_model.at[m, "low: max"]
        and by_model.at[m, "high: min"] <= t1_hi[m] <= by_model.at[m, "high: max"]
        for m in inside
    )
    return {
        "n_t1": len(inside),
        "n_t1_inside": int(n_inside),
        "median_sd": float(sds.median()),
        "max_sd": float(max(worst["low: SD"], worst["high: SD"])),
        "max_sd_model": str(worst["model"]),
        "max_sd_model_n": int(worst["n"]),
        "max_range": float(max(mc["low: range"].max(), mc["high: range"].max())),
        "big_max_range": float(max(big_rows["low: range"].max(), big_rows["high: range"].max())),
        "n_big": len(big_rows),
        "ratio_median": float(mc["observed / predicted"].median()),
        "n_models": len(mc),
        "n_endpoints_move": int((mc["printed lows"] > 1).sum() + (mc["printed highs"] > 1).sum()),
        "n_endpoints": 2 * len(mc),
        "sd_axis_max": float(max(sds.max(), mc["predicted SD"].max())),
    }


def sd_relative_error(n: int) -> float:
    """Approximate relative standard error (percent) of an SD estimated from ``n`` normal values.

    Definition: ``100 / sqrt(2 (n − 1))``.  Reference: the large-sample variance of a sample SD
    under normality, Var(s) ≈ σ² / (2(n − 1)) (e.g. Kendall & Stuart, *The Advanced Theory of
    Statistics*, vol. 1, §10.8).

    Example:

    >>> round(sd_relative_error(51), 1)
    10.0
    """
    return 100 / math.sqrt(2 * (n - 1))
