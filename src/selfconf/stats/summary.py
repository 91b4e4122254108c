"""Per-model summary of stated confidence (the paper's Table 1 and its companions).

:func:`table1` turns graded rows (one answer per row) into one row per model with the
calibration statistics (accuracy, mean and median confidence, calibration-in-the-large, Brier
score, 10-bin ECE), the discrimination statistic (self-AUROC with a percentile row-bootstrap
interval), the high-confidence error rate and the selective risk at fixed coverages.

One computation path
--------------------
:func:`table1` is a thin composition of the count-based function family behind ``selfconf report``:
each model's rows are reduced to the number of right and wrong answers at each confidence level
(:func:`selfconf.metrics.level_counts`), every statistic comes from those counts
(:func:`selfconf.metrics.counts_statistics`) and the interval from multinomial draws of them
(:func:`selfconf.bootstrap.count_draws`, :func:`count_auroc_interval`).  So no value depends on the
order of the rows, and for the same rows, seed and settings every value equals the report's
(:func:`selfconf.report.compute`; tested cell for cell).  Models are listed sorted by name.

Reproducible bootstrap draws per model
--------------------------------------
The AUROC interval of a model must not change when another model is added to or removed from
the input, nor when the rows are reordered.  :func:`table1` therefore never
shares one random stream between models.  It reduces ``rng`` to one integer *base seed*
(the int itself, or one 63-bit integer drawn from a ``numpy.random.Generator``) and gives each
model its own generator, the book's named stream of the model name
(:func:`selfconf.stats.streams.stream`)::

    selfconf.stats.streams.stream(base_seed, model_name)

(:func:`model_rng`), the stream the report uses too.  Distinct names give distinct streams (the name's
UTF-8 bytes, not a 32-bit checksum, key NumPy's ``SeedSequence``), the streams of different models are
statistically independent, and a model's draws depend only on the base seed, its name, and its counts.

How many rows a coverage keeps
------------------------------
At coverage c of n rows, :func:`table1` keeps ``k = max(1, floor(c n))`` rows by default
(``covered="floor"``, the default of :func:`selfconf.metrics.risk_coverage` too); ``covered="ceil"``
keeps ``ceil(c n)``.  The two differ only when c n is not an integer.  The paper does not state its rule, but
its Table 2 fixes it by simple integer arithmetic (a GRIM-style check; Brown & Heathers 2017): for the model with
n = 1,461 graded
rows it prints 18.7% at 40% and 15.1% at 20% coverage.  Over floor(c n) = 584 and 292 rows,
109/584 = 18.66% and 44/292 = 15.07% print that way; over ceil(c n) = 585 and 293 rows no
error count can (109/585 = 18.63%, 110/585 = 18.80%; 44/293 = 15.02%, 45/293 = 15.36%).  So
floor is the rule the printed table implies.

Ties at a cut: a coverage whose cut falls inside a group of tied confidences has no single covered set; the
value is the expectation over uniformly random orders of that group, with the best and worst orders in
``risk_coverage_min`` / ``risk_coverage_max`` (:func:`selfconf.metrics.counts_statistics`).  When the cut falls
at the end of a tie group (as for every cut of the paper's Table 2 in the reconstruction) the three are equal
and the error count is a whole number.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from selfconf import metrics
from selfconf.stats import bootstrap, registry
from selfconf.stats.streams import stream

__all__ = [
    "TABLE1_COLUMNS",
    "COVERED_RULES",
    "table1_columns",
    "table1_metrics",
    "base_seed",
    "count_auroc_interval",
    "model_rng",
    "row_bootstrap_auroc",
    "table1",
]

#: Rules for the number of rows kept at a coverage (see the module docstring).
COVERED_RULES = metrics.COVERED_RULES


def table1_metrics() -> tuple[registry.MetricSpec, ...]:
    """The registered metrics with a Table 1 label (:mod:`selfconf.stats.registry`), in registry order.

    >>> [m.name for m in table1_metrics()][:3]
    ['accuracy', 'mean_confidence', 'median_confidence']
    """
    return tuple(m for m in registry.entries() if m.table1 is not None)


def table1_columns() -> list[str]:
    """Columns of the frame returned by :func:`table1`, in order, from the registry.

    Definition: ``model``, ``n``, then every metric with a Table 1 label; the paper's Table 1 has one interval,
    the AUROC's (``auroc_ci_low``/``_ci_high`` follow it); a metric's ``extra`` keys follow it (the
    high-confidence error rate: ``high_conf_n``, and ``high_conf_wrong``, the count behind it); then the
    risk at the coverages.  Reference: Chernets (2026), Table 1.  The columns of the registry's metrics today:

    ``n``                    graded rows;
    ``accuracy``             share correct (0–1);
    ``mean_confidence``      mean stated confidence (0–1);
    ``median_confidence``    median stated confidence (0–1; mean of the two middle values for even n);
    ``citl``                 ``mean_confidence - accuracy`` (0–1; ×100 for percentage points);
    ``brier``                mean squared error of confidence against correctness;
    ``ece``                  ``n_bins``-bin expected calibration error;
    ``auroc``                tie-corrected Mann–Whitney AUROC of confidence for correctness
                             (NaN when the model has only one class);
    ``auroc_ci_low/high``    percentile row-bootstrap interval (:func:`count_auroc_interval`);
    ``high_conf_error_rate`` share wrong among rows with confidence >= ``threshold`` (NaN if none);
    ``high_conf_n``, ``high_conf_wrong``  the counts behind it;
    ``risk_coverage``        dict {coverage: error rate among the k = floor(c n) (or ceil) most
                             confident rows}, a cut inside a tie group taking the expectation
                             over tie orders (module docstring);
    ``risk_coverage_min/max``  the same with the best / worst tie order.

    >>> table1_columns()[:3], table1_columns()[-1]
    (['model', 'n', 'accuracy'], 'risk_coverage_max')
    """
    cols = ["model", "n"]
    for m in table1_metrics():
        cols.append(m.name)
        if m.name == "auroc":
            cols += ["auroc_ci_low", "auroc_ci_high"]
        cols += [k for k in m.extra if k == "high_conf_n"]
        if m.name == "high_conf_error_rate":
            cols.append("high_conf_wrong")
    return cols + ["risk_coverage", "risk_coverage_min", "risk_coverage_max"]


#: Columns of the frame returned by :func:`table1`, in order (a live view of :func:`table1_columns`).
TABLE1_COLUMNS: Sequence[str] = registry.view(lambda: tuple(table1_columns()))

_REQUIRED = ("model", "confidence", "correct")


def base_seed(rng: np.random.Generator | int) -> int:
    """Reduce ``rng`` to the integer from which every per-model generator is derived.

    An ``int`` (>= 0) is used as is.  A ``numpy.random.Generator`` is advanced by exactly one
    draw, ``rng.integers(0, 2**63)``, whatever the number of models, so the caller's stream
    moves by the same amount on every call.
    """
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**63))
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, Integral):
        raise TypeError(f"rng: expected a numpy.random.Generator or a non-negative int, got {type(rng).__name__}")
    if int(rng) < 0:
        raise ValueError(f"rng: seed must be non-negative, got {rng}")
    return int(rng)


def model_rng(seed: int, model: str) -> np.random.Generator:
    """The bootstrap generator of one model (or any named quantity): ``stream(seed, str(model))``.

    Definition: :func:`selfconf.stats.streams.stream`, i.e. NumPy's ``SeedSequence(seed)`` keyed by the
    UTF-8 bytes of the name; platform-independent (no salted ``hash``), so the same seed and name
    always give the same stream, and distinct names never share one.

    Reference: NumPy, ``numpy.random.SeedSequence``.

    >>> bool((model_rng(42, "moonshot").random(3) == model_rng(42, "moonshot").random(3)).all())
    True
    """
    return stream(seed, str(model))


def count_auroc_interval(
    pos: Any,
    neg: Any,
    *,
    rng: np.random.Generator | int,
    n_boot: int = 2000,
    level: float = 0.95,
) -> tuple[float, float, int]:
    """Percentile row-bootstrap interval of the AUROC from per-level counts (the report's draws).

    Definition: :func:`selfconf.bootstrap.count_draws` draws each (level, class) cell's count from the
    multinomial, which is exactly the distribution of resampling the rows with replacement; each draw's
    tie-corrected AUROC comes from :func:`selfconf.metrics.counts_statistics`.  A draw holding one class has no
    AUROC and is left out of the quantiles and counted; the interval is the ``(1 - level)/2`` and
    ``(1 + level)/2`` quantiles of the others (:func:`selfconf.bootstrap.interval_or_nan`).  With the same
    generator these are the draws of ``selfconf report`` (:func:`selfconf.report.compute`), so the interval is
    its ``auroc_ci_low`` / ``auroc_ci_high``.  The counts are all it reads: row order cannot matter.

    Parameters
    ----------
    pos, neg : int arrays (K,)
        Correct and wrong rows per confidence level, levels ascending (:func:`selfconf.metrics.level_counts`).
    rng : numpy.random.Generator or int
    n_boot : int
    level : float

    Returns
    -------
    (low, high, n_undefined) : (float, float, int)
        ``low``/``high`` are NaN when no draw has both classes.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, ch. 13 (percentile interval).

    Examples
    --------
    >>> lo, hi, bad = count_auroc_interval([0, 3, 5], [4, 2, 1], rng=0, n_boot=200)
    >>> bool(lo < hi), bad
    (True, 0)
    """
    pos = np.asarray(pos, dtype=np.int64)
    neg = np.asarray(neg, dtype=np.int64)
    levels = np.arange(pos.size, dtype=float)  # the AUROC reads only the order of the levels
    draws = [
        metrics.counts_statistics(levels, P, Q, coverages=(), statistics=("auroc",))["auroc"]
        for P, Q in bootstrap.count_draws(pos, neg, n_boot=n_boot, rng=rng)
    ]
    lo, hi, n_undef = bootstrap.interval_or_nan(np.concatenate(draws), level)
    return float(lo), float(hi), int(n_undef)


def row_bootstrap_auroc(
    confidence: Any,
    correct: Any,
    *,
    rng: np.random.Generator | int,
    n_boot: int = 2000,
    level: float = 0.95,
) -> tuple[float, float, int]:
    """Percentile row-bootstrap interval of the AUROC of row-level data (thin wrapper).

    Definition: :func:`count_auroc_interval` on :func:`selfconf.metrics.level_counts` of the rows: resampling
    rows with replacement, drawn as multinomial cell counts, so the interval does not depend on row order.

    Returns
    -------
    (low, high, n_undefined) : (float, float, int)

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, ch. 13 (percentile interval).

    Examples
    --------
    >>> lo, hi, _ = row_bootstrap_auroc([0.9, 0.8, 0.8, 0.3, 0.6] * 4, [1, 0, 1, 0, 0] * 4, rng=1, n_boot=200)
    >>> bool(lo <= hi)
    True
    """
    _, pos, neg = metrics.level_counts(confidence, correct)
    return count_auroc_interval(pos, neg, rng=rng, n_boot=n_boot, level=level)


def _validate(df: pd.DataFrame) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"table1: expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing:
        raise ValueError(f"table1: input lacks column(s) {missing}; it has {list(df.columns)}")
    if df.empty:
        raise ValueError("table1: input has no rows")
    if df["model"].isna().any():
        pos = int(np.flatnonzero(df["model"].isna().to_numpy())[0])
        raise ValueError(f"table1: column 'model' is empty in row {df.index[pos]!r}")
    conf = pd.to_numeric(df["confidence"], errors="coerce")
    bad = conf.isna() | ~np.isfinite(conf) | (conf < 0) | (conf > 1)
    if bad.any():
        pos = int(np.flatnonzero(bad.to_numpy())[0])
        hint = " (0-100 points? convert with selfconf.metrics.from_percent)" if (conf > 1).any() else ""
        raise ValueError(
            f"table1: column 'confidence' must be a number in [0, 1] for graded rows; {int(bad.sum())} bad "
            f"value(s), first in row {df.index[pos]!r} (model {df['model'].iloc[pos]!r}): "
            f"{df['confidence'].iloc[pos]!r}{hint}"
        )
    corr = pd.to_numeric(df["correct"], errors="coerce")
    bad = ~corr.isin([0, 1])
    if bad.any():
        pos = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(
            f"table1: column 'correct' must be 0/1; {int(bad.sum())} bad value(s), first in row "
            f"{df.index[pos]!r} (model {df['model'].iloc[pos]!r}): {df['correct'].iloc[pos]!r}"
        )


def table1(
    df: pd.DataFrame,
    *,
    rng: np.random.Generator | int,
    n_boot: int = 2000,
    threshold: float = 0.8,
    coverages: Sequence[float] = (1.0, 0.8, 0.6, 0.4, 0.2),
    level: float = 0.95,
    n_bins: int = 10,
    covered: str = "floor",
) -> pd.DataFrame:
    """Calibration and discrimination of stated confidence, one row per model.

    Parameters
    ----------
    df : pandas.DataFrame
        Graded rows only (parse failures already removed), with columns ``model`` (name),
        ``confidence`` (stated confidence on the **0–1** scale; convert the 0–100 integers with
        :func:`selfconf.metrics.from_percent`) and ``correct`` (0/1 or bool).  Other columns
        are ignored.  A missing column, an empty model name, a confidence outside [0, 1] (or
        missing) or a non-binary ``correct`` raises ``ValueError`` naming the row.
    rng : numpy.random.Generator or int
        Source of the bootstrap seed (see the module docstring): each model's draws come from
        ``model_rng(base_seed, model)``, so they do not depend on which other models are present or on their
        order.  A Generator is advanced by one draw.
    n_boot : int, default 2000
        Bootstrap draws per model (the paper uses 2,000).
    threshold : float, default 0.8, the high-confidence cut-off on the 0–1 scale (rows with confidence >= it)
    coverages : sequence of float in (0, 1]
        Coverages for the selective risk (``risk_coverage`` column).
    level : float, default 0.95
        Confidence level of the AUROC interval.
    n_bins : int, default 10
        Equal-width bins of the ECE.
    covered : {"floor", "ceil"}, default "floor"
        Rows kept at a coverage: ``max(1, floor(c n))`` or ``ceil(c n)`` (module docstring).

    Returns
    -------
    pandas.DataFrame
        One row per model, sorted by name, with the columns of :func:`table1_columns` (each described there).
        ``attrs`` records ``seed`` (the base seed), ``n_boot``, ``level``, ``threshold``, ``covered`` and
        ``auroc_undefined_draws`` ({model: bootstrap draws left out because one class was missing}).

    References
    ----------
    Chernets (2026), Table 1 (per-model calibration, self-AUROC with 2,000-draw row-level bootstrap
    CIs) and Table 2 (risk–coverage).  Formulas: :mod:`selfconf.metrics`.
    """
    _validate(df)
    if covered not in COVERED_RULES:
        raise ValueError(f"covered must be one of {COVERED_RULES}, got {covered!r}")
    coverages = [float(c) for c in coverages]
    seed = base_seed(rng)
    conf_all = pd.to_numeric(df["confidence"]).to_numpy(dtype=float)
    corr_all = pd.to_numeric(df["correct"]).to_numpy().astype(np.int8)
    model_col = df["model"].to_numpy()
    models = sorted(pd.unique(model_col), key=str)  # sorted by name, as the report lists them
    opts = registry.options_of({"n_bins": n_bins, "threshold": threshold})
    rows = []
    undefined = {}
    for m in models:
        sel = model_col == m
        lv, pos, neg = metrics.level_counts(conf_all[sel], corr_all[sel])
        row, undefined[m] = _table1_row(
            m, lv, pos, neg, opts=opts, coverages=coverages, covered=covered, seed=seed, n_boot=n_boot, level=level
        )
        rows.append(row)
    out = pd.DataFrame(rows, columns=table1_columns())
    out.attrs.update(
        {
            "seed": seed,
            "n_boot": int(n_boot),
            "level": float(level),
            "threshold": float(threshold),
            "covered": covered,
            "auroc_undefined_draws": undefined,
        }
    )
    return out


def _table1_row(
    model: Any,
    lv: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    *,
    opts: dict[str, Any],
    coverages: list[float],
    covered: str,
    seed: int,
    n_boot: int,
    level: float,
) -> tuple[dict[str, Any], int]:
    """One model's row of :func:`table1` and its number of AUROC draws left out (one class).

    Definition: every metric of :func:`table1_metrics` on the model's counts
    (:func:`selfconf.stats.registry.values`), the AUROC interval (:func:`count_auroc_interval`, on the model's
    own stream :func:`model_rng`), the high-confidence counts and the risk at the coverages.

    >>> row, bad = _table1_row("m", np.array([0.2, 0.9]), np.array([1, 3]), np.array([2, 1]),
    ...     opts=registry.options_of(), coverages=[1.0], covered="floor", seed=0, n_boot=50, level=0.95)
    >>> row["n"], row["accuracy"], row["high_conf_wrong"], row["risk_coverage"]
    (7, 0.5714285714285714, 1, {1.0: 0.42857142857142855})
    """
    specs = table1_metrics()
    st = registry.values(lv, pos, neg, specs, opts, coverages=coverages, covered=covered)
    one = {k: v[0] for k, v in st.items()}
    if pos.sum() and neg.sum():
        lo, hi, n_undef = count_auroc_interval(pos, neg, rng=model_rng(seed, model), n_boot=n_boot, level=level)
    else:
        lo, hi, n_undef = float("nan"), float("nan"), int(n_boot)
    n_high = int(one["high_conf_n"])
    row: dict[str, Any] = {"model": model, "n": int(one["n"])}
    row.update({m.name: float(one[m.name]) for m in specs})
    row.update(auroc_ci_low=lo, auroc_ci_high=hi, high_conf_n=n_high)
    row["high_conf_wrong"] = int(round(float(one["high_conf_error_rate"]) * n_high)) if n_high else 0
    for key in ("risk_coverage", "risk_coverage_min", "risk_coverage_max"):
        row[key] = {c: float(v) for c, v in zip(coverages, one[key], strict=True)}
    return row, int(n_undef)
