"""``selfconf report``: calibration, discrimination and selective-prediction statistics for graded rows.

Input: one or more CSV, TSV or JSONL files (optionally ``.gz``), one graded answer per row:

==============  ==========================================================================
``model``       model name (non-empty)
``item_id``     question id; ``(model, item_id)`` must be unique across all inputs
``confidence``  stated confidence; scale from ``--confidence-scale`` (below); empty/null means
                *missing* (row excluded and counted)
``correct``     1/0 (also true/false); empty/null means *ungraded* (row excluded and counted)
``refusal``     optional 1/0 (a refusal without a confidence is excluded and counted as such)
``COLUMN``      any category column named by ``--by`` (e.g. subject, benchmark)
==============  ==========================================================================

Reading rules (BOM, gzip, CRLF, decode errors, short rows, empty files) are those of
:mod:`selfconf.data.rows`.  A value that is present but invalid stops the report with an error naming
the file, line and field: nothing is silently dropped or clipped.

Confidence scale (``--confidence-scale``, :func:`resolve_scale`)
    ``percent`` (0–100), ``unit`` (0–1) or ``auto`` (default): a value above 1, or one written
    with a trailing ``%``, means percent; all values within [0, 1] with at least one strictly
    between 0 and 1 means unit; values that are all exactly 0 or 1, with at least one 1, are
    ambiguous (an error asking for the flag; all 0 means the same on either scale); values above 1
    together with fractional values at or below 1 are a mixed file (an error naming the first rows
    of each kind).  ``%`` is refused under ``unit``.  The scale
    used, and why, is printed in every output.

Same answer for the same data
    Every statistic, point estimate and bootstrap draw is a function of the per-model counts of
    correct and wrong answers at each confidence level (:func:`selfconf.metrics.counts_statistics`,
    :func:`selfconf.bootstrap.count_draws`), and models are listed in sorted order, so the output
    is identical under any permutation of the input rows.  Risk at a coverage whose cut falls
    inside a group of tied confidences is the expectation over tie orders (``risk_coverage``),
    with the best and worst tie orders (``risk_coverage_min`` / ``risk_coverage_max``).

Intervals
    Percentile row-bootstrap intervals (within each model, or model x group) for every metric in
    :data:`CI_METRICS`; each model's draws come from ``selfconf.stats.streams.stream(seed, model)``
    (``stream(seed, model, group)`` for ``--by`` rows), so they do not change when other models are
    added.  Draws where a statistic is undefined (an AUROC resample with one class) are left out
    of its quantiles.  The row bootstrap draws each (level, class) cell's count from the
    multinomial (:func:`selfconf.bootstrap.count_draws`): exactly the distribution of resampling
    rows.  ``--resampling poisson`` (``resampling="poisson"``) draws the Poisson bootstrap instead:
    every row gets an independent Poisson(1) weight, so a cell of c rows gets an independent
    Poisson(c) count (:func:`selfconf.bootstrap.poisson_count_draws`; Hanley & MacGibbon 2006).  It
    agrees with the row bootstrap to O(1/n) and its draws cost half as much (about a quarter of
    the report's time at 1M rows); a draw with no rows at all (probability exp(-n)) defines no
    statistic and is left out.  The default stays the row bootstrap, whose numbers the book shows.

Entry points: :func:`from_frame` (pandas) and :func:`run` (the command line, which calls it).
Every per-model statistic of the book comes from this path too (chapters 22 and 26 call :func:`from_frame`'s
parts; Result 1's :func:`selfconf.stats.summary.table1` composes the same count functions).  The former book
path's names :func:`prepare_frame` and :func:`compute_report` are thin aliases of :func:`rows_from_frame` and
:func:`compute`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

# selfconf.metrics, selfconf.bootstrap, selfconf.data.rows and selfconf.stats.summary are imported in the
# functions that use them, so that `selfconf --help` and a bad flag answer without loading scipy and pyarrow
# (no import cycle is involved: tests/test_layers.py checks there is none)
from selfconf.data import validate
from selfconf.data.validate import SCALES, resolve_scale
from selfconf.stats.streams import stream

if TYPE_CHECKING:  # pandas is imported when a report is computed, so `--help` starts fast
    import pandas as pd

__all__ = [
    "JSON_MODEL_KEYS",
    "CI_METRICS",
    "COVERAGES",
    "SCALES",
    "RESAMPLING",
    "Rows",
    "resolve_scale",
    "load_rows",
    "rows_from_frame",
    "compute",
    "compute_records",
    "ReportTable",
    "from_frame",
    "report_json",
    "format_table",
    # former names of the book's path (aliases)
    "LoadedRows",
    "prepare_frame",
    "compute_report",
]

#: Coverages of the risk–coverage columns (the paper's Table 2).
COVERAGES = (1.0, 0.8, 0.6, 0.4, 0.2)
#: High-confidence threshold on the 0–1 scale (the paper's "stated confidence >= 80").
HIGH_CONF = 0.8
#: Share of a model's rows that may be excluded before its headline gets a warning.
EXCLUDED_WARN = 0.05
REQUIRED = ("model", "item_id", "confidence", "correct")
#: Bootstrap schemes of the intervals (``--resampling``): the row bootstrap and the Poisson bootstrap.
RESAMPLING = ("rows", "poisson")
#: Metrics reported with a percentile bootstrap interval (``<metric>_ci_low`` / ``_ci_high``).
CI_METRICS = (
    "accuracy",
    "mean_confidence",
    "citl",
    "brier",
    "ece",
    "smooth_ece",
    "auroc",
    "high_conf_error_rate",
    "aurc",
)
EXCLUSION_REASONS = ("missing_confidence", "missing_correct", "refusal_without_confidence")

#: Keys of every object in the ``models`` (and ``groups``) lists of ``--json``, in order.
JSON_MODEL_KEYS = (
    "model",
    "group",
    "n",
    "rows",
    "accuracy",
    "accuracy_ci_low",
    "accuracy_ci_high",
    "mean_confidence",
    "mean_confidence_ci_low",
    "mean_confidence_ci_high",
    "median_confidence",
    "citl",
    "citl_ci_low",
    "citl_ci_high",
    "brier",
    "brier_ci_low",
    "brier_ci_high",
    "ece",
    "ece_ci_low",
    "ece_ci_high",
    "smooth_ece",
    "smooth_ece_ci_low",
    "smooth_ece_ci_high",
    "smooth_ece_bandwidth",
    "auroc",
    "auroc_ci_low",
    "auroc_ci_high",
    "high_conf_error_rate",
    "high_conf_error_rate_ci_low",
    "high_conf_error_rate_ci_high",
    "high_conf_n",
    "refusal_rate",
    "aurc",
    "aurc_ci_low",
    "aurc_ci_high",
    "risk_coverage",
    "risk_coverage_min",
    "risk_coverage_max",
    "risk_coverage_curve",
    "excluded",
    "excluded_share",
    "warning",
    "reliability",
    "smooth_reliability",
)
_SMOOTH_GRID = np.linspace(0.0, 1.0, 51)


# --------------------------------------------------------------------------------------------
# rows
# --------------------------------------------------------------------------------------------


@dataclass
class Rows:
    """Validated rows as columns (one entry per row read, excluded rows included).

    ``model`` holds codes into ``models`` (sorted names); ``confidence`` is on 0–1 (NaN =
    missing); ``correct`` and ``refusal`` are 0/1 floats (NaN = missing; ``refusal`` is None
    when no input has the column); ``group`` holds codes into ``groups`` for ``--by``.
    """

    models: np.ndarray
    model: np.ndarray
    confidence: np.ndarray
    confidence_raw: np.ndarray
    correct: np.ndarray
    refusal: np.ndarray | None
    scale: str
    scale_reason: str
    inputs: list[str] = field(default_factory=list)
    by: str | None = None
    groups: np.ndarray | None = None
    group: np.ndarray | None = None

    @property
    def rows_read(self) -> int:
        return int(self.model.size)

    def reasons(self) -> np.ndarray:
        """Exclusion reason per row: -1 used, else an index into :data:`EXCLUSION_REASONS`."""
        no_conf = np.isnan(self.confidence)
        ref = np.zeros(no_conf.size, bool) if self.refusal is None else (self.refusal == 1)
        out = np.full(no_conf.size, -1, dtype=np.int8)
        out[~no_conf & np.isnan(self.correct)] = 1
        out[no_conf] = 0
        out[no_conf & ref] = 2
        return out


def _rows_from_columns(cols, *, confidence_scale: str, by: str | None, inputs: list[str]) -> Rows:
    model, models = cols.identifiers("model")
    item = cols.keys("item_id")
    span = int(item.max()) + 1 if item.size else 1
    if span * max(1, models.size) >= 1 << 62:  # sparse integer ids: dense codes keep model x item in range
        item, _ = cols.identifiers("item_id")
        span = int(item.max()) + 1 if item.size else 1
    key = model * span + item
    dup = validate.first_duplicate(key)
    if dup is not None:
        i, j = dup
        item_name = cols.text_at("item_id", i)
        raise ValueError(
            f"{cols.where(i)}: duplicate row for model {models[model[i]]!r}, item_id {item_name!r} "
            f"(first at {cols.where(j)})"
        )
    raw, pct = cols.number("confidence")
    scale, reason = resolve_scale(raw, pct, confidence_scale, cols.where)
    conf = raw / 100.0 if scale == "percent" else raw.copy()
    correct = cols.binary("correct")
    refusal = cols.binary("refusal") if cols.has("refusal") else None
    group = groups = None
    if by:
        if not all(by in rf.columns for rf in cols.files):
            missing = [str(rf.path) for rf in cols.files if by not in rf.columns]
            raise ValueError(f"--by {by}: no column {by!r} in {', '.join(missing)}")
        group, groups = cols.identifiers(by)
    return Rows(models, model, conf, raw, correct, refusal, scale, reason, inputs, by, groups, group)


def load_rows(paths: Sequence[str | Path], *, confidence_scale: str = "auto", by: str | None = None) -> Rows:
    """Read and validate graded rows from files (rules in the module docstring and :mod:`selfconf.data.rows`).

    Reference: column layout of ``selfconf grade`` output.

    Example: ``load_rows(["runs/a.graded.jsonl"]).scale`` -> ``"percent"``.
    """
    from selfconf.data.rows import columns_from, read_file

    if not paths:
        raise ValueError("no input files given")
    want = list(REQUIRED) + ["refusal"] + ([by] if by else [])
    files = [read_file(p, want, REQUIRED) for p in paths]
    return _rows_from_columns(
        columns_from(files), confidence_scale=confidence_scale, by=by, inputs=[str(p) for p in paths]
    )


def rows_from_frame(
    df: pd.DataFrame, *, confidence_scale: str = "auto", by: str | None = None, source: str = "frame"
) -> Rows:
    """Validate an in-memory frame like :func:`load_rows`; errors name ``source`` and the row (0-based).

    Example: ``rows_from_frame(pd.DataFrame({"model": ["a"], "item_id": [1], "confidence": [0.7],
    "correct": [1]})).scale`` -> ``"unit"``.
    """
    import pyarrow as pa

    from selfconf.data.rows import RowFile, columns_from

    validate.require_columns(source, REQUIRED, [str(c) for c in df.columns])
    if df.empty:
        raise ValueError(f"{source}: no rows")
    want = list(REQUIRED) + ["refusal"] + ([by] if by else [])
    data = {}
    for c in want:
        if c not in df.columns:
            continue
        try:
            data[c] = pa.chunked_array([pa.Array.from_pandas(df[c])])
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            data[c] = [None if (v is None or (isinstance(v, float) and math.isnan(v))) else v for v in df[c].tolist()]
        if c in ("model", "item_id", by) and not isinstance(data[c], list) and not pa.types.is_string(data[c].type):
            data[c] = [None if (v is None or (isinstance(v, float) and math.isnan(v))) else v for v in df[c].tolist()]
    rf = RowFile(
        Path(source), "frame", False, [str(c) for c in df.columns], data, len(df), np.arange(len(df), dtype=np.int64)
    )
    return _rows_from_columns(columns_from([rf]), confidence_scale=confidence_scale, by=by, inputs=[source])


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------


def _unit_rng(seed: int, model: str, group: str | None) -> np.random.Generator:
    """The draws of one model (or model x group): :func:`selfconf.stats.streams.stream` of the names."""
    return stream(seed, str(model)) if group is None else stream(seed, str(model), str(group))


def _level_codes(conf: np.ndarray, raw: np.ndarray, scale: str) -> tuple[np.ndarray, np.ndarray]:
    """(levels on 0–1, code per row) for the used rows; integer percents need no sort."""
    code = raw.astype(np.int64) if scale == "percent" and raw.size else None
    if code is not None and np.array_equal(code, raw):  # integral values in [0, 100] (checked on reading)
        present = np.bincount(code, minlength=101) > 0
        remap = np.cumsum(present) - 1
        lv = np.flatnonzero(present) / 100.0
        return lv, remap[code]
    lv, code = np.unique(conf, return_inverse=True)
    return lv, code.reshape(-1).astype(np.int64)


def _cell_counts(
    unit: np.ndarray, code: np.ndarray, y: np.ndarray, n_units: int, k: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per unit: (level indices used, pos counts, neg counts)."""
    cells = unit * (2 * k)  # (unit * k + code) * 2 + y, in one array (10M rows: each temporary costs)
    cells += 2 * code
    cells += y
    if n_units * k * 2 <= 50_000_000:
        c = np.bincount(cells, minlength=n_units * k * 2).reshape(n_units, k, 2)
        out = []
        for u in range(n_units):
            tot = c[u, :, 0] + c[u, :, 1]
            nz = np.flatnonzero(tot)
            out.append((nz, c[u, nz, 1], c[u, nz, 0]))
        return out
    uniq, cnt = np.unique(cells, return_counts=True)
    lvl, cls = (uniq // 2) % k, uniq % 2
    un = uniq // (2 * k)
    out = []
    for u in range(n_units):
        s = un == u
        li, ci, ni = lvl[s], cls[s], cnt[s]
        nz = np.unique(li)
        pos = np.zeros(nz.size, np.int64)
        neg = np.zeros(nz.size, np.int64)
        j = np.searchsorted(nz, li)
        np.add.at(pos, j[ci == 1], ni[ci == 1])
        np.add.at(neg, j[ci == 0], ni[ci == 0])
        out.append((nz, pos, neg))
    return out


def _nan() -> float:
    return float("nan")


def _unit_stats(
    lv: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int,
    level: float,
    ece_bins: int,
    ece_binning: str,
    ece_edge: str,
    resampling: str = "rows",
) -> dict[str, Any]:
    """Point estimates, intervals and curves of one unit (a model, or a model x group).

    The observed counts are evaluated in the same batch as the first chunk of draws (row 0), and
    the smooth-ECE and smooth-reliability kernels are computed once for the unit.
    """
    from selfconf import bootstrap, metrics

    opts: dict[str, Any] = dict(n_bins=ece_bins, binning=ece_binning, edge=ece_edge, threshold=HIGH_CONF)
    sigma = metrics.smooth_ece_bandwidth(lv, pos, neg)
    kern = metrics.smooth_kernel(lv, sigma)
    band_kern = metrics.smooth_kernel(lv, sigma, _SMOOTH_GRID)
    draws: dict[str, list] = {m: [] for m in CI_METRICS}
    curves = []
    point = None
    draw = bootstrap.poisson_count_draws if resampling == "poisson" else bootstrap.count_draws
    for P, Q in draw(pos, neg, n_boot=n_boot, rng=rng):
        rows_drawn = P.sum(axis=1) + Q.sum(axis=1)
        if not rows_drawn.all():  # a Poisson draw without rows (probability exp(-n)) defines no statistic
            P, Q = P[rows_drawn > 0], Q[rows_drawn > 0]
        first = point is None
        # one contiguous float copy of each draw's counts (the observed counts in row 0 of the first
        # batch), which every statistic below then reads without converting again
        P, Q = _as_float_rows(P, pos if first else None), _as_float_rows(Q, neg if first else None)
        # the median and risk at the coverages have no interval: the draws skip them (a third of the
        # statistics' time)
        st = metrics.counts_statistics(
            lv, P, Q, smooth_sigma=sigma, smooth_kernel=kern, **opts, coverages=(), statistics=CI_METRICS
        )
        if first:
            point = {k: v[:1] for k, v in st.items()}
            # row-wise arithmetic only (no products), so the same values as in a batch with the draws
            risk = metrics.counts_statistics(lv, pos[None, :], neg[None, :], **opts, coverages=COVERAGES)
            point.update(
                {k: risk[k] for k in ("median_confidence", "risk_coverage", "risk_coverage_min", "risk_coverage_max")}
            )
            st = {k: v[1:] for k, v in st.items()}
            P, Q = P[1:], Q[1:]
        for m in CI_METRICS:
            draws[m].append(st[m])
        curves.append(metrics.smooth_reliability(lv, P, Q, sigma, _SMOOTH_GRID, kernel=band_kern)["accuracy"])
    assert point is not None, "count_draws yields at least one batch"
    r: dict[str, Any] = {}
    stacked = np.stack([np.concatenate(draws[m]) for m in CI_METRICS])  # (metrics, draws)
    if stacked.shape[1] and np.isfinite(stacked).all():  # the usual case: one quantile call for every interval
        a = (1.0 - level) / 2.0
        bounds = np.quantile(stacked, [a, 1.0 - a], axis=1)
        intervals = {m: (float(bounds[0, i]), float(bounds[1, i])) for i, m in enumerate(CI_METRICS)}
    else:
        intervals = {m: bootstrap.interval_or_nan(stacked[i], level)[:2] for i, m in enumerate(CI_METRICS)}
    for m in CI_METRICS:
        r[m] = float(point[m][0])
        r[f"{m}_ci_low"], r[f"{m}_ci_high"] = intervals[m]
    r["n"] = int(point["n"][0])
    r["median_confidence"] = float(point["median_confidence"][0])
    r["smooth_ece_bandwidth"] = float(sigma)
    r["high_conf_n"] = int(point["high_conf_n"][0])
    key = [coverage_key(c) for c in COVERAGES]
    for name in ("risk_coverage", "risk_coverage_min", "risk_coverage_max"):
        r[name] = {k: float(v) for k, v in zip(key, point[name][0], strict=False)}
    curve = metrics.risk_coverage_curve(lv, pos, neg)
    r["risk_coverage_curve"] = {"coverage": curve["coverage"].tolist(), "risk": curve["risk"].tolist()}
    rel = metrics.reliability_bins(
        np.repeat(lv, pos + neg), _expand_correct(pos, neg), ece_bins, edge=ece_edge, binning=ece_binning
    )
    occ = rel["n"] > 0
    r["reliability"] = {k: [float(x) for x in rel[k][occ]] for k in ("lo", "hi", "mean_conf", "acc")}
    r["reliability"]["n"] = [int(x) for x in rel["n"][occ]]
    sm = metrics.smooth_reliability(lv, pos, neg, sigma, _SMOOTH_GRID, kernel=band_kern)
    band = np.concatenate(curves, axis=0)
    if band.shape[0]:
        undefined = np.isnan(band).any(axis=0)  # far from every level the kernel weights underflow
        lo, hi = np.quantile(np.where(np.isnan(band), 0.0, band), [(1 - level) / 2, (1 + level) / 2], axis=0)
        lo[undefined] = hi[undefined] = np.nan
    else:  # every draw was empty (a unit of one or two rows, say)
        lo = hi = np.full(_SMOOTH_GRID.size, np.nan)
    r["smooth_reliability"] = {
        "t": _SMOOTH_GRID.tolist(),
        "accuracy": [_f(x) for x in sm["accuracy"]],
        "low": [_f(x) for x in lo],
        "high": [_f(x) for x in hi],
        "density": [_f(x) for x in sm["density"]],
    }
    return r


def _as_float_rows(draws: np.ndarray, observed: np.ndarray | None) -> np.ndarray:
    """``draws`` (b, K) as a new C-contiguous float array, with ``observed`` (K,) as an extra first row if given."""
    b, k = draws.shape
    first = 0 if observed is None else 1
    out = np.empty((b + first, k))
    if first:
        out[0] = observed
    out[first:] = draws
    return out


def _workers(n_tasks: int) -> int:
    """Threads for the per-unit work: the cores this process may use, at most 8 and the task count."""
    import os

    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(n_tasks, cores, 8))


def _map_units(fn, n_units: int) -> list:
    """``[fn(u) for u in range(n_units)]``, on a thread pool when there are several units.

    numpy releases the interpreter lock inside the multinomial (or Poisson) draws, matrix products and most
    array operations, so units run in parallel; each unit has its own generator
    (:func:`_unit_rng`) and the results are collected in unit order, so the output does not depend
    on the number of threads or their scheduling.
    """
    workers = _workers(n_units)
    # one BLAS thread per unit: the matrix products here are small, and OpenBLAS's own threads
    # cost more in synchronisation than they gain (measured at 1M rows: one report thread used
    # 15.9 s of CPU with OpenBLAS's default two threads and 8.1 s with one)
    if workers == 1:
        with _blas_single_thread():
            return [fn(u) for u in range(n_units)]
    from concurrent.futures import ThreadPoolExecutor

    with _blas_single_thread(), ThreadPoolExecutor(max_workers=workers, thread_name_prefix="selfconf-report") as ex:
        return list(ex.map(fn, range(n_units)))


def _blas_single_thread():
    """Context limiting BLAS to one thread (threadpoolctl); a no-op context without it."""
    import contextlib

    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _expand_correct(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """0/1 per row, level by level in the order of np.repeat(levels, pos + neg): wrong rows, then right."""
    tot = pos + neg
    out = np.zeros(int(tot.sum()), np.int8)
    ends = np.cumsum(tot)
    starts = ends - tot
    idx = np.repeat(starts + neg, pos) + (np.arange(int(pos.sum())) - np.repeat(np.cumsum(pos) - pos, pos))
    out[idx] = 1
    return out


class ReportTable(list):
    """The report's rows as a list of dicts (keys :data:`JSON_MODEL_KEYS`) with the settings in ``attrs``.

    What :func:`compute` returns before it becomes a DataFrame: it answers the two things
    :func:`report_json`, :func:`format_table` and :func:`selfconf.report.html.build_html` ask of a
    table (``attrs`` and ``to_dict("records")``), so the command line prints JSON and text without
    importing pandas (about half a second of start-up).

    Example: ``compute_records(load_rows(["rows.csv"])).to_dict("records")[0]["auroc"]``.
    """

    def __init__(self, records: Sequence[dict[str, Any]], attrs: dict[str, Any]):
        super().__init__(records)
        self.attrs = dict(attrs)

    def to_dict(self, orient: str = "records") -> list[dict[str, Any]]:
        if orient != "records":
            raise ValueError(f"ReportTable.to_dict supports orient='records' only, got {orient!r}")
        return [dict(r) for r in self]

    def to_frame(self) -> pd.DataFrame:
        """The table as the DataFrame :func:`compute` returns (``attrs`` copied)."""
        import pandas as pd

        tab = pd.DataFrame(list(self), columns=list(JSON_MODEL_KEYS))
        for c in ("model", "group", "warning"):  # keep None as None (pandas would infer a str dtype with NaN)
            tab[c] = pd.Series([r[c] for r in self], dtype=object)
        tab.attrs.update(self.attrs)
        return tab


def compute(
    rows: Rows,
    *,
    seed: int = 0,
    n_boot: int = 2000,
    ece_bins: int = 10,
    ece_binning: str = "equal_width",
    ece_edge: str = "upper",
    level: float = 0.95,
    resampling: str = "rows",
) -> pd.DataFrame:
    """Every report statistic, one row per model (sorted by name), then per (model, group) with ``--by``.

    Columns are :data:`JSON_MODEL_KEYS`; ``attrs`` holds the settings.  A model whose every row
    was excluded appears with ``n = 0`` and NaN statistics.  Definitions: module docstring and
    :func:`selfconf.metrics.counts_statistics`.  The same numbers as :func:`compute_records`, as a
    DataFrame.  ``resampling``: ``"rows"`` (the row bootstrap, default) or ``"poisson"`` (the
    Poisson bootstrap, faster; module docstring).

    Reference: Chernets (2026), Tables 1–2, extended with the intervals of Efron & Tibshirani (1993).

    Example: ``compute(load_rows(["rows.csv"]), n_boot=200)["auroc"]``.
    """
    return compute_records(
        rows,
        seed=seed,
        n_boot=n_boot,
        ece_bins=ece_bins,
        ece_binning=ece_binning,
        ece_edge=ece_edge,
        level=level,
        resampling=resampling,
    ).to_frame()


def compute_records(
    rows: Rows,
    *,
    seed: int = 0,
    n_boot: int = 2000,
    ece_bins: int = 10,
    ece_binning: str = "equal_width",
    ece_edge: str = "upper",
    level: float = 0.95,
    resampling: str = "rows",
) -> ReportTable:
    """:func:`compute` without pandas: the same rows as a :class:`ReportTable` (list of dicts + ``attrs``).

    Definition and reference: :func:`compute` (Chernets 2026, Tables 1–2; Efron & Tibshirani 1993).

    Example: ``compute_records(load_rows(["rows.csv"]), n_boot=200)[0]["accuracy"]``.
    """
    from selfconf import metrics

    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {seed!r}")
    if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"--n-boot must be a positive integer, got {n_boot!r}")
    if isinstance(ece_bins, bool) or int(ece_bins) != ece_bins or ece_bins < 1:
        raise ValueError(f"--ece-bins must be a positive integer, got {ece_bins!r}")
    if ece_binning not in metrics.BINNINGS:
        raise ValueError(f"--ece-binning must be one of {', '.join(metrics.BINNINGS)}, got {ece_binning!r}")
    if resampling not in RESAMPLING:
        raise ValueError(f"--resampling must be one of {', '.join(RESAMPLING)}, got {resampling!r}")
    if ece_edge not in metrics.EDGE_RULES:
        raise ValueError(f"--ece-edge must be one of {', '.join(metrics.EDGE_RULES)}, got {ece_edge!r}")
    reasons = rows.reasons()
    used = reasons < 0
    if not used.any():
        counts = np.bincount(reasons[reasons >= 0], minlength=3)
        raise ValueError(
            "no usable rows: every row lacks a confidence or a grade "
            f"({counts[0]} without confidence, {counts[1]} ungraded, {counts[2]} refusals without confidence)"
        )
    n_models = rows.models.size
    units: list[tuple[int, int | None]] = [(m, None) for m in range(n_models)]
    unit_of_row = [rows.model]
    if rows.by:
        assert rows.groups is not None and rows.group is not None, "rows read with --by carry their groups"
        n_groups = rows.groups.size
        combos = np.unique(rows.model * n_groups + rows.group)
        units += [(int(c // n_groups), int(c % n_groups)) for c in combos]
        combo_index = np.full(n_models * n_groups, -1, np.int64)
        combo_index[combos] = np.arange(combos.size) + n_models
        unit_of_row.append(combo_index[rows.model * n_groups + rows.group])
    all_used = bool(used.all())  # the usual case: no copies of the columns
    pick = (lambda a: a) if all_used else (lambda a: a[used])  # noqa: E731
    lv, code = _level_codes(pick(rows.confidence), pick(rows.confidence_raw), rows.scale)
    y = pick(rows.correct).astype(np.int64)
    per_unit: dict[int, tuple] = {}
    for uo in unit_of_row:
        u_used = pick(uo)
        base = int(u_used.min()) if u_used.size else 0
        n_u = int(u_used.max()) - base + 1 if u_used.size else 0
        for j, c in enumerate(_cell_counts(u_used - base, code, y, n_u, lv.size)):
            per_unit[base + j] = c
    n_reason = len(EXCLUSION_REASONS)
    n_units = len(units)
    # per-unit row counts, exclusion counts and refusal sums, one bincount per unit layer
    n_rows_u = np.zeros(n_units, np.int64)
    reason_u = np.zeros((n_units, n_reason), np.int64)
    ref_known_u = np.zeros(n_units, np.int64)
    ref_sum_u = np.zeros(n_units)
    excluded = ~used
    ref_known = None if rows.refusal is None else ~np.isnan(rows.refusal)
    for uo in unit_of_row:
        n_rows_u += np.bincount(uo, minlength=n_units)
        if not all_used:
            reason_u += np.bincount(uo[excluded] * n_reason + reasons[excluded], minlength=n_units * n_reason).reshape(
                n_units, n_reason
            )
        if ref_known is not None:
            ref_known_u += np.bincount(uo[ref_known], minlength=n_units)
            assert rows.refusal is not None, "refusals are known where ref_known is set"
            ref_sum_u += np.bincount(uo[ref_known], weights=rows.refusal[ref_known], minlength=n_units)

    def unit_record(u: int) -> dict[str, Any]:
        m, g = units[u]
        rc = reason_u[u]
        n_rows = int(n_rows_u[u])
        name = str(rows.models[m])
        gname = None if g is None or rows.groups is None else str(rows.groups[g])
        rec: dict[str, Any] = {"model": name, "group": gname, "rows": n_rows}
        cnt = per_unit.get(u)
        if cnt is not None and cnt[0].size:
            idx, pos, neg = cnt
            rec.update(
                _unit_stats(
                    lv[idx],
                    pos,
                    neg,
                    rng=_unit_rng(seed, name, gname),
                    n_boot=n_boot,
                    level=level,
                    ece_bins=ece_bins,
                    ece_binning=ece_binning,
                    ece_edge=ece_edge,
                    resampling=resampling,
                )
            )
        else:
            rec.update({k: _nan() for k in JSON_MODEL_KEYS if k not in ("model", "group", "rows")})
            rec.update(
                n=0,
                high_conf_n=0,
                reliability=None,
                smooth_reliability=None,
                risk_coverage_curve=None,
                **{
                    k: {coverage_key(c): None for c in COVERAGES}
                    for k in ("risk_coverage", "risk_coverage_min", "risk_coverage_max")
                },
            )
        rec["refusal_rate"] = (
            float(ref_sum_u[u] / ref_known_u[u]) if rows.refusal is not None and ref_known_u[u] else _nan()
        )
        rec["excluded"] = {r: int(v) for r, v in zip(EXCLUSION_REASONS, rc, strict=False)}
        share = float(rc.sum() / n_rows) if n_rows else 0.0
        rec["excluded_share"] = share
        rec["warning"] = None
        if share > EXCLUDED_WARN:
            parts = ", ".join(f"{v} {_REASON_TEXT[r]}" for r, v in zip(EXCLUSION_REASONS, rc, strict=False) if v)
            rec["warning"] = (
                f"{100 * share:.1f}% of its {n_rows} rows excluded ({parts}); the statistics describe "
                "only the remaining rows and may be biased"
            )
        return rec

    out = _map_units(unit_record, n_units)
    attrs = dict(
        seed=int(seed),
        n_boot=int(n_boot),
        resampling=resampling,
        level=float(level),
        ece_bins=int(ece_bins),
        ece_binning=ece_binning,
        ece_edge=ece_edge,
        confidence_scale=rows.scale,
        confidence_scale_reason=rows.scale_reason,
        by=rows.by,
        rows_read=rows.rows_read,
        rows_used=int(used.sum()),
        inputs=list(rows.inputs),
    )
    return ReportTable([{k: r[k] for k in JSON_MODEL_KEYS} for r in out], attrs)


_REASON_TEXT = {
    "missing_confidence": "without a confidence",
    "missing_correct": "ungraded",
    "refusal_without_confidence": "refusals without a confidence",
}


def from_frame(
    df: pd.DataFrame,
    *,
    confidence_scale: str = "auto",
    seed: int = 0,
    n_boot: int = 2000,
    by: str | None = None,
    ece_bins: int = 10,
    ece_binning: str = "equal_width",
    ece_edge: str = "upper",
    resampling: str = "rows",
) -> pd.DataFrame:
    """The report of ``selfconf report`` for an in-memory frame: one row per model (and group).

    Definition: validates ``df`` (columns ``model``, ``item_id``, ``confidence``, ``correct``,
    optional ``refusal`` and the ``by`` column) with the command line's rules and defaults, then
    computes every statistic of :func:`compute`; the columns are the JSON keys
    (:data:`JSON_MODEL_KEYS`), proportions on 0–1.  The command line calls this function's parts
    (:func:`load_rows`, :func:`compute`) with the same defaults.

    Parameters
    ----------
    df : pandas.DataFrame
    confidence_scale : {"auto", "percent", "unit"}
    seed, n_boot : bootstrap seed and draws
    by : optional category column (rows per model x value follow the per-model rows)
    ece_bins, ece_binning, ece_edge : ECE options (see :func:`selfconf.metrics.ece`)
    resampling : {"rows", "poisson"}, the row bootstrap (default) or the Poisson bootstrap

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    Chernets (2026), Tables 1–2; Efron & Tibshirani (1993), Ch. 13 (percentile intervals).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model": ["m"] * 4, "item_id": [1, 2, 3, 4],
    ...                    "confidence": [90, 80, 60, 30], "correct": [1, 1, 0, 0]})
    >>> r = from_frame(df, n_boot=200)
    >>> float(r.loc[0, "accuracy"]), float(r.loc[0, "auroc"]), r.attrs["confidence_scale"]
    (0.5, 1.0, 'percent')
    """
    rows = rows_from_frame(df, confidence_scale=confidence_scale, by=by)
    return compute(
        rows,
        seed=seed,
        n_boot=n_boot,
        ece_bins=ece_bins,
        ece_binning=ece_binning,
        ece_edge=ece_edge,
        resampling=resampling,
    )


# --------------------------------------------------------------------------------------------
# outputs
# --------------------------------------------------------------------------------------------


def _f(x: Any) -> float | None:
    """JSON-safe float: NaN -> None."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def coverage_key(c: float) -> str:
    """JSON key of a coverage: ``"1.0"``, ``"0.8"``, ... (0–1 scale)."""
    return repr(float(c))


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return _f(v)
    return v


def conventions(tab: pd.DataFrame) -> list[str]:
    """One line per convention the numbers depend on (printed in every output)."""
    a = tab.attrs
    edge = (
        (
            "upper: a confidence exactly on a bin edge goes to the bin above it (the book's rule); "
            "--ece-edge lower is scikit-learn's and Guo et al.'s rule"
        )
        if a["ece_edge"] == "upper"
        else (
            "lower: a confidence exactly on a bin edge goes to the bin below it (scikit-learn's and Guo et al.'s "
            "rule); "
            "--ece-edge upper is the book's rule"
        )
    )
    return [
        f"confidence scale: {a['confidence_scale']} ({a['confidence_scale_reason']}); all proportions below on 0-1 "
        "in JSON",
        f"ECE: {a['ece_bins']} {a['ece_binning'].replace('_', '-')} bins, edge {edge}",
        "smooth ECE: Blasiok & Nakkiran (2023) reflected-Gaussian kernel, bandwidth at the fixed point sigma = "
        "smECE(sigma)",
        (
            f"intervals: {100 * a['level']:g}% percentile row bootstrap within each model, {a['n_boot']} draws, "
            f"seed {a['seed']}"
        )
        if a.get("resampling", "rows") == "rows"
        else (
            f"intervals: {100 * a['level']:g}% percentile Poisson bootstrap (an independent Poisson(1) weight per row) "
            f"within each model, {a['n_boot']} draws, seed {a['seed']}"
        ),
        "risk@c: error rate among the floor(c*n) most confident answers, expected over the orders of tied "
        "confidences (min/max over tie orders in JSON); AURC: mean risk over k = 1..n, same tie rule",
        f"high-confidence error: share wrong among answers with confidence >= {HIGH_CONF:g} (0-1 scale)",
        "refusal rate: share of the model's rows with refusal = 1, among rows where the refusal flag is given",
    ]


def report_json(tab: pd.DataFrame) -> dict:
    """The ``--json`` document: settings, conventions, exclusions, ``models`` (and ``groups``)."""
    a = tab.attrs
    recs = [{k: _jsonable(r[k]) for k in JSON_MODEL_KEYS} for r in tab.to_dict("records")]
    models = [r for r in recs if r["group"] is None]
    groups = [r for r in recs if r["group"] is not None]
    excl = {
        reason: {r["model"]: r["excluded"][reason] for r in models if r["excluded"][reason]}
        for reason in EXCLUSION_REASONS
    }
    doc = {
        "inputs": a["inputs"],
        "confidence_scale": a["confidence_scale"],
        "confidence_scale_reason": a["confidence_scale_reason"],
        "seed": a["seed"],
        "n_boot": a["n_boot"],
        "resampling": a.get("resampling", "rows"),
        "interval_level": a["level"],
        "ece_bins": a["ece_bins"],
        "ece_binning": a["ece_binning"],
        "ece_edge": a["ece_edge"],
        "high_confidence_threshold": HIGH_CONF,
        "coverages": [coverage_key(c) for c in COVERAGES],
        "by": a["by"],
        "rows_read": a["rows_read"],
        "rows_used": a["rows_used"],
        "excluded": {"total": int(sum(sum(d.values()) for d in excl.values())), **excl},
        "warnings": [f"{r['model']}: {r['warning']}" for r in models if r["warning"]],
        "conventions": conventions(tab),
        "models": models,
    }
    if a["by"]:
        doc["groups"] = groups
    return doc


def _pct(x: Any, d: int = 1) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * float(x):.{d}f}"


def _num(x: Any, d: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):.{d}f}"


def _ci(r: dict, m: str, pct: bool) -> str:
    lo, hi = r[f"{m}_ci_low"], r[f"{m}_ci_high"]
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return "—"
    return f"[{_pct(lo)}, {_pct(hi)}]" if pct else f"[{_num(lo)}, {_num(hi)}]"


def table_rows(tab: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Header and string cells of the main terminal/HTML table, in display units."""
    head = (
        ["model"]
        + (["group"] if tab.attrs.get("by") else [])
        + [
            "n",
            "acc %",
            "acc 95% CI",
            "mean conf",
            "median conf",
            "CITL pp",
            "Brier",
            "ECE",
            "smECE",
            "AUROC",
            "AUROC 95% CI",
            "err@conf≥80 %",
            "refusal %",
            "AURC",
        ]
        + [f"risk@{int(c * 100)}%" for c in COVERAGES]
        + ["excluded"]
    )
    body = []
    for r in tab.to_dict("records"):
        citl = r["citl"]
        exc = sum(r["excluded"].values())
        cells = [str(r["model"])] + (
            [str(r["group"]) if r["group"] is not None else "(all)"] if tab.attrs.get("by") else []
        )
        cells += [
            str(int(r["n"])),
            _pct(r["accuracy"]),
            _ci(r, "accuracy", True),
            _pct(r["mean_confidence"]),
            _pct(r["median_confidence"]),
            ("—" if math.isnan(citl) else f"{100 * citl:+.1f}"),
            _num(r["brier"]),
            _num(r["ece"]),
            _num(r["smooth_ece"]),
            _num(r["auroc"]),
            _ci(r, "auroc", False),
            _pct(r["high_conf_error_rate"]) + (f" (n={int(r['high_conf_n'])})" if r["n"] else ""),
            _pct(r["refusal_rate"]),
            _num(r["aurc"]),
        ]
        cells += [_pct(r["risk_coverage"].get(coverage_key(c))) for c in COVERAGES]
        cells.append(f"{exc} ({100 * r['excluded_share']:.1f}%)")
        body.append(cells)
    return head, body


def interval_rows(tab: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the intervals table (every metric of :data:`CI_METRICS`)."""
    pct = {"accuracy", "mean_confidence", "citl", "high_conf_error_rate"}
    head = ["model"] + (["group"] if tab.attrs.get("by") else []) + [m for m in CI_METRICS]
    body = []
    for r in tab.to_dict("records"):
        cells = [str(r["model"])] + (
            [str(r["group"]) if r["group"] is not None else "(all)"] if tab.attrs.get("by") else []
        )
        body.append(cells + [_ci(r, m, m in pct) for m in CI_METRICS])
    return head, body


def _text_table(head: list[str], body: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))
        )

    return [line(head), line(["-" * w for w in widths])] + [line(b) for b in body]


def format_table(tab: pd.DataFrame) -> str:
    """Plain-text report for the terminal: table, intervals, exclusions and warnings, conventions."""
    a = tab.attrs
    out = _text_table(*table_rows(tab))
    out += ["", "95% intervals (percent for acc/conf/CITL/err, 0-1 otherwise):"] + _text_table(*interval_rows(tab))
    out.append("")
    models = [r for r in tab.to_dict("records") if r["group"] is None]
    tot = {k: sum(r["excluded"][k] for r in models) for k in EXCLUSION_REASONS}
    out.append(
        f"rows read {a['rows_read']}, used {a['rows_used']}, excluded {sum(tot.values())} ("
        + ", ".join(f"{v} {_REASON_TEXT[k]}" for k, v in tot.items())
        + ")"
    )
    for r in models:
        for k in EXCLUSION_REASONS:
            if r["excluded"][k]:
                out.append(f"  excluded {_REASON_TEXT[k]}: {r['model']}: {r['excluded'][k]}")
    for r in models:
        if r["warning"]:
            out.append(f"WARNING {r['model']}: {r['warning']}")
    out.append(
        "units: acc/conf/err/refusal in percent, CITL in percentage points; Brier, ECE, smECE, AUROC, AURC on 0-1"
    )
    out += conventions(tab)
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# former names of the book's path (thin aliases of the one path above)
# --------------------------------------------------------------------------------------------

#: Former name of the validated rows of :func:`prepare_frame`: now the report's :class:`Rows`.
LoadedRows = Rows


def prepare_frame(df: pd.DataFrame, *, scale: str = "unit", source: str = "frame") -> Rows:
    """Validate an in-memory frame: :func:`rows_from_frame` with ``confidence_scale=scale`` (kept name).

    Definition and reference: :func:`rows_from_frame` (the command line's reading rules).

    Example: ``compute_report(prepare_frame(df, scale="percent"), seed=1)`` is ``compute(rows_from_frame(df,
    confidence_scale="percent"), seed=1)``.
    """
    return rows_from_frame(df, confidence_scale=scale, source=source)


def compute_report(rows: Rows, *, seed: int = 0, n_boot: int = 2000) -> pd.DataFrame:
    """The report's table of validated rows: :func:`compute` (kept name; no logic of its own).

    Definition and reference: :func:`compute` (Chernets 2026, Tables 1-2).

    Example: ``compute_report(prepare_frame(df), seed=1, n_boot=200)["auroc"]``.
    """
    return compute(rows, seed=seed, n_boot=n_boot)
