"""Per-model summary of stated confidence (the paper's Table 1 and its companions).

:func:`table1` turns graded rows (one answer per row) into one row per model with the
calibration statistics (accuracy, mean and median confidence, calibration-in-the-large, Brier
score, 10-bin ECE), the discrimination statistic (self-AUROC with a row-level percentile
bootstrap interval), the high-confidence error rate and the selective risk at fixed coverages.
Both the book (Result 1) and the ``selfconf report`` command use it, so the definitions live in
one place; each statistic is delegated to :mod:`selfconf.metrics`, whose docstrings hold the
exact formulas.

Reproducible bootstrap draws per model
--------------------------------------
The AUROC interval of a model must not change when another model is added to or removed from
the input, nor when the rows are reordered across models.  :func:`table1` therefore never
shares one random stream between models.  It reduces ``rng`` to one integer *base seed*
(the int itself, or one 63-bit integer drawn from a ``numpy.random.Generator``) and gives each
model its own generator, the book's named stream of the model name
(:func:`selfconf.stats.streams.stream`)::

    selfconf.stats.streams.stream(base_seed, model_name)

(:func:`model_rng`).  Distinct names give distinct streams (the name's UTF-8 bytes, not a 32-bit
checksum, key NumPy's ``SeedSequence``), the streams of different models are statistically
independent, and a model's draws depend only on the base seed, its name, and its own rows (in
their input order).

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
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from selfconf import bootstrap, metrics
from selfconf.stats.streams import stream

__all__ = ["TABLE1_COLUMNS", "COVERED_RULES", "base_seed", "model_rng", "row_bootstrap_auroc", "table1"]

#: Rules for the number of rows kept at a coverage (see the module docstring).
COVERED_RULES = metrics.COVERED_RULES

#: Columns of the frame returned by :func:`table1`, in order.
TABLE1_COLUMNS = [
    "model",
    "n",
    "accuracy",
    "mean_confidence",
    "median_confidence",
    "citl",
    "brier",
    "ece",
    "auroc",
    "auroc_ci_low",
    "auroc_ci_high",
    "high_conf_error_rate",
    "high_conf_n",
    "high_conf_wrong",
    "risk_coverage",
]

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


def row_bootstrap_auroc(
    confidence: Any,
    correct: Any,
    *,
    rng: np.random.Generator | int,
    n_boot: int = 2000,
    level: float = 0.95,
) -> tuple[float, float, int]:
    """Percentile bootstrap interval of the AUROC, resampling rows with replacement.

    A thin wrapper of :func:`selfconf.bootstrap.auroc_ci` (row scheme): each of ``n_boot``
    draws takes ``n`` row indices uniformly with replacement (one index matrix drawn from
    ``rng``) and computes the tie-corrected AUROC of the resampled rows.  A draw holding only
    one class has no AUROC; such draws are left out of the quantiles and counted.  The interval
    is the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles of the remaining draws
    (``numpy.quantile``, linear interpolation).

    Returns
    -------
    (low, high, n_undefined) : (float, float, int)
        ``low``/``high`` are NaN when no draw has both classes (then ``n_undefined == n_boot``).

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, ch. 13
    (percentile interval).
    """
    try:
        ci = bootstrap.auroc_ci(confidence, correct, n_boot=n_boot, rng=rng, level=level, allow_invalid=True)
    except ValueError as exc:
        if "all" in str(exc) and "undefined" in str(exc):
            return float("nan"), float("nan"), int(n_boot)
        raise
    return float(ci.low), float(ci.high), int(ci.n_invalid)


def _risk_coverage(c: np.ndarray, y: np.ndarray, coverages: list[float], covered: str) -> dict[float, float]:
    """{nominal coverage: error rate} with the covered-row rule ``covered`` (:func:`selfconf.metrics.risk_coverage`)."""
    return metrics.risk_coverage(c, y, coverages, covered=covered)


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
        ``model_rng(base_seed, model)``, so they do not depend on which other
        models are present or on their order.  A Generator is advanced by one draw.
    n_boot : int, default 2000
        Bootstrap draws per model (the paper uses 2,000).
    threshold : float, default 0.8
        High-confidence cut-off on the 0–1 scale (rows with confidence >= threshold).
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
        One row per model, in order of first appearance in ``df``, with columns
        :data:`TABLE1_COLUMNS`:

        ``n``                    graded rows;
        ``accuracy``             share correct (0–1);
        ``mean_confidence``      mean stated confidence (0–1);
        ``median_confidence``    median stated confidence (0–1; mean of the two middle values for even n);
        ``citl``                 ``mean_confidence - accuracy`` (0–1; ×100 for percentage points);
        ``brier``                mean squared error of confidence against correctness;
        ``ece``                  ``n_bins``-bin expected calibration error;
        ``auroc``                tie-corrected Mann–Whitney AUROC of confidence for correctness
                                 (NaN when the model has only one class);
        ``auroc_ci_low/high``    row-level percentile bootstrap interval (:func:`row_bootstrap_auroc`);
        ``high_conf_error_rate`` share wrong among rows with confidence >= ``threshold`` (NaN if none);
        ``high_conf_n``, ``high_conf_wrong``  the counts behind it;
        ``risk_coverage``        dict {coverage: error rate among the k = floor(c n) (or ceil) most
                                 confident rows (floor(coverage·n) by default)}, ties broken by
                                 input row order (:func:`selfconf.metrics.risk_coverage`).

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
    models = pd.unique(df["model"])
    conf_all = pd.to_numeric(df["confidence"]).to_numpy(dtype=float)
    corr_all = pd.to_numeric(df["correct"]).to_numpy().astype(np.int8)
    model_col = df["model"].to_numpy()
    rows = []
    undefined = {}
    for m in models:
        sel = model_col == m
        c, y = conf_all[sel], corr_all[sel]
        two_classes = 0 < int(y.sum()) < y.size
        if two_classes:
            a = metrics.auroc(c, y)
            lo, hi, n_undef = row_bootstrap_auroc(c, y, rng=model_rng(seed, m), n_boot=n_boot, level=level)
        else:
            a, lo, hi, n_undef = float("nan"), float("nan"), float("nan"), int(n_boot)
        undefined[m] = n_undef
        n_high, n_wrong = metrics.high_conf_counts(c, y, threshold)
        rows.append(
            {
                "model": m,
                "n": int(y.size),
                "accuracy": float(y.mean()),
                "mean_confidence": float(c.mean()),
                "median_confidence": float(np.median(c)),
                "citl": metrics.citl(c, y),
                "brier": metrics.brier(c, y),
                "ece": metrics.ece(c, y, n_bins=n_bins),
                "auroc": a,
                "auroc_ci_low": lo,
                "auroc_ci_high": hi,
                "high_conf_error_rate": float(n_wrong / n_high) if n_high else float("nan"),
                "high_conf_n": int(n_high),
                "high_conf_wrong": int(n_wrong),
                "risk_coverage": _risk_coverage(c, y, coverages, covered),
            }
        )
    out = pd.DataFrame(rows, columns=TABLE1_COLUMNS)
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
