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
from selfconf.stats import registry
from selfconf.stats.calibration import CLIP_EPS, RECALIBRATIONS
from selfconf.stats.registry import MetricSpec
from selfconf.stats.streams import stream

if TYPE_CHECKING:  # pandas is imported when a report is computed, so `--help` starts fast
    import pandas as pd

__all__ = [
    "JSON_MODEL_KEYS",
    "METRICS",
    "Metric",
    "ci_metrics",
    "json_model_keys",
    "MIN_N_BOOT",
    "check_n_boot",
    "SMALL_N",
    "RECALIBRATIONS",
    "check_high_confidence",
    "check_coverages",
    "parse_coverages",
    "warnings_of",
    "flagged_intervals",
    "interval_flag",
    "CLIP_EPS",
    "recal_notes",
    "n_flagged_units",
    "CI_METRICS",
    "COVERAGES",
    "HIGH_CONF",
    "coverage_key",
    "SCALES",
    "RESAMPLING",
    "Rows",
    "resolve_scale",
    "load_rows",
    "rows_from_frame",
    "compute",
    "compute_records",
    "ReportTable",
    "ReportOptions",
    "ECE_KEYWORDS",
    "recal_metrics",
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
EXCLUSION_REASONS = ("missing_confidence", "missing_correct", "refusal_without_confidence", "collection_error")
#: Below this many bootstrap draws the command line refuses to run (``--n-boot``); the Python API
#: accepts fewer and flags every interval.
MIN_N_BOOT = 100


def check_n_boot(n_boot: int) -> int:
    """The command line's rule for ``--n-boot``: at least :data:`MIN_N_BOOT` draws (``report`` and ``panel``).

    Definition: a percentile interval from fewer than :data:`MIN_N_BOOT` draws is mostly Monte-Carlo noise, so
    the commands refuse it; the Python API accepts fewer and flags every interval (:func:`interval_flags`).
    Reference: Efron & Tibshirani (1993), ch. 19 (the number of draws a percentile interval needs).

    >>> check_n_boot(2000)
    2000
    >>> check_n_boot(5)
    Traceback (most recent call last):
    ...
    ValueError: --n-boot must be at least 100 (fewer draws give percentile intervals that are mostly noise), got 5
    """
    if n_boot < MIN_N_BOOT:
        raise ValueError(
            f"--n-boot must be at least {MIN_N_BOOT} (fewer draws give percentile intervals that are mostly "
            f"noise), got {n_boot}"
        )
    return n_boot


#: An interval computed on fewer rows than this is flagged (``interval_flags``).
SMALL_N = 30
#: Best and worst tie orders of a risk@c cut further apart than this (0-1 scale) are shown next to
#: the expectation in the terminal and the HTML.
TIE_RANGE_SHOWN = 0.01


#: One reported metric: the registry entry (:class:`selfconf.stats.registry.MetricSpec`) that every output of
#: the report is derived from (the former name of the class).
Metric = MetricSpec

#: The report's metrics, in display order: the terminal table, the JSON keys, the HTML columns, the
#: intervals and the ``--help`` text are all derived from this one list, a live view of the metric registry
#: :mod:`selfconf.stats.registry` (add a metric there, with its function and its oracle, and it appears
#: everywhere).
METRICS: Sequence[Metric] = registry.view(registry.entries)


def ci_metrics() -> tuple[str, ...]:
    """Names of the metrics with a bootstrap interval, from :data:`METRICS`.

    Example: ``ci_metrics()[:2]`` -> ``("accuracy", "mean_confidence")``.
    """
    return tuple(m.name for m in METRICS if m.interval)


def json_model_keys() -> tuple[str, ...]:
    """Keys of every object in the ``models`` (and ``groups``) lists of ``--json``, from :data:`METRICS`.

    The keys that existed before the registry keep their order; the added ones follow them.

    Example: ``json_model_keys()[:5]`` -> ``("model", "group", "n", "rows", "accuracy")``.
    """
    keys = ["model", "group", "n", "rows"]
    for m in METRICS:
        keys.append(m.name)
        if m.interval:
            keys += [f"{m.name}_ci_low", f"{m.name}_ci_high"]
        keys += list(m.extra)
    keys += [
        "risk_coverage",
        "risk_coverage_min",
        "risk_coverage_max",
        "risk_coverage_curve",
        "excluded",
        "excluded_share",
        "warning",
        "reliability",
        "smooth_reliability",
    ]
    for m in METRICS:
        if m.proportion:
            keys += [f"{m.name}_wilson_low", f"{m.name}_wilson_high"]
        if m.trials and m.trials not in keys:
            keys.append(m.trials)
    keys += ["interval_flags", "recalibrated"]
    return tuple(keys)


#: Metrics reported with a percentile bootstrap interval (``<metric>_ci_low`` / ``_ci_high``; a live view).
CI_METRICS: Sequence[str] = registry.view(ci_metrics)
#: Keys of every object in the ``models`` (and ``groups``) lists of ``--json``, in order (a live view).
JSON_MODEL_KEYS: Sequence[str] = registry.view(json_model_keys)
_SMOOTH_GRID = np.linspace(0.0, 1.0, 51)
#: The risk at the coverages: expectation over tie orders, best and worst order (no bootstrap interval).
_RISK_KEYS = ["risk_coverage", "risk_coverage_min", "risk_coverage_max"]


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
    #: warnings about the input as a whole (e.g. ``--confidence-scale percent`` on data within [0, 1])
    warnings: list[str] = field(default_factory=list)
    #: the item id of every row as trimmed text (only when read with ``keep_items=True``: ``selfconf compare``)
    items: np.ndarray | None = None
    #: how the input was read, for stderr (e.g. a delimiter detected by ``--sep auto``)
    notes: list[str] = field(default_factory=list)
    #: rows ``selfconf collect`` recorded with an ``error`` (no reply); None when no input has the column
    error: np.ndarray | None = None

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
        if self.error is not None:
            out[self.error] = 3  # a question the endpoint never answered, whatever else the row lacks
        return out


def _rows_from_columns(
    cols, *, confidence_scale: str, by: str | None, inputs: list[str], keep_items: bool = False, runs: bool = False
) -> Rows:
    model, models = cols.identifiers("model")
    item = cols.keys("item_id")
    span = int(item.max()) + 1 if item.size else 1
    if span * max(1, models.size) >= 1 << 62:  # sparse integer ids: dense codes keep model x item in range
        item, _ = cols.identifiers("item_id")
        span = int(item.max()) + 1 if item.size else 1
    key = model * span + item
    if runs and by and cols.has(by):  # compare --by RUN: an item is answered once per model and run
        run_code, run_names = cols.identifiers(by)
        key = (model * max(1, run_names.size) + run_code) * span + item
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
    warnings = []
    given = raw[~np.isnan(raw)]
    if confidence_scale == "percent" and given.size and float(given.max()) <= 1.0 and not bool(pct.any()):
        warnings.append(
            f"--confidence-scale percent, but every confidence is within [0, 1] (largest {_plain(given.max())}): "
            "read as percent they are all at most 1%; if they are probabilities, use --confidence-scale unit or auto"
        )
    error = None
    if cols.has("error"):
        # a message is text: empty cells, null/boolean words and numbers (an `error` column of another meaning,
        # such as 1 - correct) never mark a row as a collection error
        import pyarrow as pa
        import pyarrow.compute as pc

        text = pc.utf8_lower(pc.utf8_trim_whitespace(cols._arrow("error", text=True)))
        words = pa.array(list(validate.NULL_WORDS + validate.TRUE_WORDS + validate.FALSE_WORDS))
        number = pc.match_substring_regex(text, r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
        message = pc.and_(pc.invert(pc.is_in(text, value_set=words)), pc.invert(number))
        error = np.asarray(pc.fill_null(message, False).to_numpy(zero_copy_only=False), dtype=bool)
    items = None
    if keep_items:
        codes, names = cols.identifiers("item_id")
        items = names[codes]
    notes = [
        f"{rf.path}: delimiter {_DELIMITER_NAMES.get(rf.delimiter, repr(rf.delimiter))} detected "
        f"(not the .{rf.kind} default); set it with --sep"
        for rf in cols.files
        if getattr(rf, "detected", False)
    ]
    return Rows(
        models,
        model,
        conf,
        raw,
        correct,
        refusal,
        scale,
        reason,
        inputs,
        by,
        groups,
        group,
        warnings,
        items,
        notes,
        error,
    )


_DELIMITER_NAMES = {",": "',' (comma)", "\t": "tab", ";": "';' (semicolon)", "|": "'|' (pipe)"}


def _plain(x: Any) -> str:
    """A number as a person would type it: ``2`` not ``2.0``, ``inf`` not ``np.float64(inf)``."""
    v = float(x)
    return str(int(v)) if v.is_integer() else repr(v)


def load_rows(
    paths: Sequence[str | Path],
    *,
    confidence_scale: str = "auto",
    by: str | None = None,
    layout: Any = None,
    keep_items: bool = False,
    runs: bool = False,
) -> Rows:
    """Read and validate graded rows from files (rules in the module docstring and :mod:`selfconf.data.rows`).

    ``layout`` (:class:`selfconf.data.layout.Layout`) maps the report's columns to the files' and sets the
    delimiter (``--columns``, ``--sep``); ``keep_items`` keeps every row's item id (:attr:`Rows.items`);
    ``runs`` lets an item appear once per value of ``by`` (``selfconf compare --by RUN``).

    Reference: column layout of ``selfconf grade`` output.

    Example: ``load_rows(["runs/a.graded.jsonl"]).scale`` -> ``"percent"``.
    """
    from selfconf.data.rows import columns_from, read_file

    if not paths:
        raise ValueError("no input files given")
    want = list(REQUIRED) + ["refusal", "error"] + ([by] if by else [])
    files = [read_file(p, want, REQUIRED, layout) for p in paths]
    return _rows_from_columns(
        columns_from(files),
        confidence_scale=confidence_scale,
        by=by,
        inputs=[str(p) for p in paths],
        keep_items=keep_items,
        runs=runs,
    )


def rows_from_frame(
    df: pd.DataFrame,
    *,
    confidence_scale: str = "auto",
    by: str | None = None,
    source: str = "frame",
    keep_items: bool = False,
    runs: bool = False,
) -> Rows:
    """Validate an in-memory frame like :func:`load_rows`; errors name ``source`` and the row (1-based: row 1 is
    the frame's first row, as line numbers in files are).

    Example: ``rows_from_frame(pd.DataFrame({"model": ["a"], "item_id": [1], "confidence": [0.7],
    "correct": [1]})).scale`` -> ``"unit"``.
    """
    import pyarrow as pa

    from selfconf.data.rows import RowFile, columns_from

    validate.require_columns(source, REQUIRED, [str(c) for c in df.columns])
    if df.empty:
        raise ValueError(f"{source}: no rows")
    want = list(REQUIRED) + ["refusal", "error"] + ([by] if by else [])
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
    return _rows_from_columns(
        columns_from([rf]), confidence_scale=confidence_scale, by=by, inputs=[source], keep_items=keep_items, runs=runs
    )


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------


def _unit_rng(seed: int, model: str, group: str | None, *purpose: str) -> np.random.Generator:
    """The draws of one model (or model x group): :func:`selfconf.stats.streams.stream` of the names.

    ``purpose`` names a separate stream (``"recalibrate"``: the folds and draws of the recalibration), so
    that turning an option on leaves every other draw unchanged.
    """
    names = (str(model),) if group is None else (str(model), str(group))
    return stream(seed, *names, *purpose)


def recal_metrics() -> tuple[str, ...]:
    """Names of the metrics reported after recalibration, out of sample (``recalibrated`` in the registry).

    Example: ``recal_metrics()`` -> ``("ece", "brier", "auroc")`` (the order of their ``recalibrated`` places).
    """
    return tuple(m.name for m in sorted((m for m in METRICS if m.recalibrated), key=lambda m: m.recalibrated))


#: Statistics reported after recalibration, out of sample (a live view of :func:`recal_metrics`).
RECAL_METRICS: Sequence[str] = registry.view(recal_metrics)


def _recalibrated(
    lv: np.ndarray, pos: np.ndarray, neg: np.ndarray, *, rng: np.random.Generator, opts: ReportOptions
) -> dict[str, Any]:
    """ECE, Brier and AUROC of the cross-fitted recalibrated confidences, with percentile intervals.

    The fold split and the fitted maps are held fixed; the interval resamples the rows of the
    out-of-sample (recalibrated confidence, correct) pairs, so it does not include the variation of
    refitting (stated in the conventions).  A unit with fewer than 2 x folds rows gets no recalibration.
    """
    from selfconf import bootstrap
    from selfconf.stats.calibration import CLIP_EPS, RecalibrationFailed, cross_fit

    assert opts.recalibrate is not None, "called only with a recalibration method"
    method, folds, n_boot, level, resampling = (
        opts.recalibrate,
        int(opts.folds),
        opts.n_boot,
        opts.level,
        opts.resampling,
    )
    ece_opts = opts.metric_options()
    n = int(pos.sum() + neg.sum())
    out: dict[str, Any] = {"method": method, "folds": folds, "converged": None}
    if method in ("temperature", "platt", "beta"):
        out["clip_eps"] = CLIP_EPS
    missing = {k: None for m in RECAL_METRICS for k in (m, f"{m}_ci_low", f"{m}_ci_high")}
    if n < 2 * folds:
        out.update(missing)
        out["note"] = f"not recalibrated: {n} rows, fewer than 2 x {folds} folds"
        return out
    info: dict[str, Any] = {}
    try:
        rl, rp, rq = cross_fit(
            lv, pos, neg, method=method, folds=folds, rng=rng, n_bins=int(ece_opts["n_bins"]), info=info
        )
    except RecalibrationFailed as e:
        out.update(missing, converged=False, note=f"not recalibrated: {e.reason}")
        return out
    out["converged"] = True
    if "fold_params" in info:
        out["fold_params"] = info["fold_params"]
    names = [m for m in METRICS if m.name in recal_metrics()]
    point = registry.values(rl, rp, rq, names, ece_opts)
    draw = bootstrap.poisson_count_draws if resampling == "poisson" else bootstrap.count_draws
    got: dict[str, list] = {m: [] for m in RECAL_METRICS}
    for P, Q in draw(rp, rq, n_boot=n_boot, rng=rng):
        keep = (P.sum(axis=1) + Q.sum(axis=1)) > 0
        st = registry.values(rl, P[keep].astype(float), Q[keep].astype(float), names, ece_opts)
        for m in RECAL_METRICS:
            got[m].append(st[m])
    for m in RECAL_METRICS:
        lo, hi = bootstrap.interval_or_nan(np.concatenate(got[m]), level)[:2]
        out[m], out[f"{m}_ci_low"], out[f"{m}_ci_high"] = _f(point[m][0]), _f(lo), _f(hi)
    return out


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
    lv: np.ndarray, pos: np.ndarray, neg: np.ndarray, *, rng: np.random.Generator, opts: ReportOptions
) -> dict[str, Any]:
    """Point estimates, intervals and curves of one unit (a model, or a model x group).

    Steps: :func:`_point_and_draws` (every registered metric on the observed counts and the bootstrap draws),
    :func:`_percentile_intervals`, :func:`_point_record` (the JSON keys of the estimates) and
    :func:`_unit_curves` (reliability bins, smooth reliability band, risk-coverage curve).
    """
    from selfconf import metrics

    mopts = opts.metric_options()
    sigma = metrics.smooth_ece_bandwidth(lv, pos, neg)
    point, draws, band = _point_and_draws(
        lv,
        pos,
        neg,
        opts=mopts,
        sigma=sigma,
        rng=rng,
        n_boot=opts.n_boot,
        resampling=opts.resampling,
        coverages=opts.coverages,
    )
    intervals = _percentile_intervals(draws, opts.level)
    r = _point_record(lv, pos, neg, point, intervals, opts=mopts, coverages=opts.coverages)
    r["smooth_ece_bandwidth"] = float(sigma)
    r.update(_unit_curves(lv, pos, neg, band, opts=mopts, sigma=sigma, level=opts.level))
    return r


def _point_and_draws(
    lv: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    *,
    opts: dict[str, Any],
    sigma: float,
    rng: np.random.Generator,
    n_boot: int,
    resampling: str,
    coverages: Sequence[float],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray]:
    """(point, draws, band): the interval metrics on the observed counts (``point``, arrays of length 1, with the
    median and risk at the coverages added) and on each bootstrap draw (``draws``: name -> (n_draws,)), and the
    smooth-reliability curve of every draw (``band``: (n_draws, grid)).

    The observed counts are evaluated in the same batch as the first chunk of draws (row 0), and the smooth-ECE
    and smooth-reliability kernels are computed once for the unit.  The metrics are those of the registry
    (:func:`selfconf.stats.registry.values`).
    """
    from selfconf import bootstrap, metrics

    ci = [m for m in METRICS if m.interval]
    kern = metrics.smooth_ece_kernel(lv, sigma)  # None for a big one: evaluated in blocks of levels
    band_kern = metrics.smooth_kernel(lv, sigma, _SMOOTH_GRID)
    draws: dict[str, list] = {m.name: [] for m in ci}
    curves = []
    point = None
    draw = bootstrap.poisson_count_draws if resampling == "poisson" else bootstrap.count_draws
    # a kernel built in blocks is built again for every batch of draws: bigger batches build it fewer times
    # (the draws do not depend on the batch size)
    batch = {} if kern is not None else {"max_cells": 1 << 24}
    for P, Q in draw(pos, neg, n_boot=n_boot, rng=rng, **batch):
        rows_drawn = P.sum(axis=1) + Q.sum(axis=1)
        if not rows_drawn.all():  # a Poisson draw without rows (probability exp(-n)) defines no statistic
            P, Q = P[rows_drawn > 0], Q[rows_drawn > 0]
        first = point is None
        # one contiguous float copy of each draw's counts (the observed counts in row 0 of the first
        # batch), which every statistic below then reads without converting again
        P, Q = _as_float_rows(P, pos if first else None), _as_float_rows(Q, neg if first else None)
        # the median and risk at the coverages have no interval: the draws skip them (a third of the
        # statistics' time)
        st = registry.values(lv, P, Q, ci, opts, smooth_sigma=sigma, smooth_kernel=kern)
        if first:
            point = {k: v[:1] for k, v in st.items()}
            # row-wise arithmetic only (no products), so the same values as in a batch with the draws
            risk = registry.values(lv, pos[None, :], neg[None, :], None, opts, coverages=tuple(coverages))
            keys = [m.name for m in METRICS if m.batched and not m.interval] + _RISK_KEYS  # no interval: no draws
            point.update({k: risk[k] for k in keys})
            st = {k: v[1:] for k, v in st.items()}
            P, Q = P[1:], Q[1:]
        for m in ci:
            draws[m.name].append(st[m.name])
        curves.append(metrics.smooth_reliability(lv, P, Q, sigma, _SMOOTH_GRID, kernel=band_kern)["accuracy"])
    assert point is not None, "count_draws yields at least one batch"
    return point, {k: np.concatenate(v) for k, v in draws.items()}, np.concatenate(curves, axis=0)


def _percentile_intervals(draws: dict[str, np.ndarray], level: float) -> dict[str, tuple[float, float]]:
    """Percentile interval of each metric's draws (:func:`selfconf.bootstrap.interval_or_nan` when a draw is
    undefined; one quantile call for every metric in the usual case, the same numbers)."""
    from selfconf import bootstrap

    names = list(draws)
    stacked = np.stack([draws[m] for m in names]) if names else np.zeros((0, 0))  # (metrics, draws)
    if stacked.shape[1] and np.isfinite(stacked).all():  # the usual case: one quantile call for every interval
        a = (1.0 - level) / 2.0
        bounds = np.quantile(stacked, [a, 1.0 - a], axis=1)
        return {m: (float(bounds[0, i]), float(bounds[1, i])) for i, m in enumerate(names)}
    return {m: bootstrap.interval_or_nan(stacked[i], level)[:2] for i, m in enumerate(names)}


def _point_record(
    lv: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    point: dict[str, np.ndarray],
    intervals: dict[str, tuple[float, float]],
    *,
    opts: dict[str, Any],
    coverages: Sequence[float],
) -> dict[str, Any]:
    """The JSON keys of one unit's estimates: every interval metric with its bounds, the registered metrics
    without an interval (computed on the observed counts), ``n``, ``high_conf_n`` and the risk at the coverages."""
    r: dict[str, Any] = {}
    for name, (lo, hi) in intervals.items():
        r[name] = float(point[name][0])
        r[f"{name}_ci_low"], r[f"{name}_ci_high"] = lo, hi
    no_interval = [m for m in METRICS if not m.interval and m.source == "counts" and m.compute is not None]
    if no_interval:
        own = registry.values(lv, pos[None, :].astype(float), neg[None, :].astype(float), no_interval, opts)
        r.update({m.name: float(own[m.name][0]) for m in no_interval})
    r.update({m.name: float(point[m.name][0]) for m in METRICS if m.batched and not m.interval})  # the median
    r["n"] = int(point["n"][0])
    r["high_conf_n"] = int(point["high_conf_n"][0])
    key = [coverage_key(c) for c in coverages]
    for name in _RISK_KEYS:
        r[name] = {k: float(v) for k, v in zip(key, point[name][0], strict=False)}
    return r


def _unit_curves(
    lv: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    band: np.ndarray,
    *,
    opts: dict[str, Any],
    sigma: float,
    level: float,
) -> dict[str, Any]:
    """The curves of one unit: ``risk_coverage_curve``, ``reliability`` (occupied ECE bins) and
    ``smooth_reliability`` with its percentile band over the draws' curves (``band``)."""
    from selfconf import metrics

    r: dict[str, Any] = {}
    curve = metrics.risk_coverage_curve(lv, pos, neg)
    r["risk_coverage_curve"] = {"coverage": curve["coverage"].tolist(), "risk": curve["risk"].tolist()}
    rel = metrics.reliability_bins(
        np.repeat(lv, pos + neg),
        _expand_correct(pos, neg),
        opts["n_bins"],
        edge=opts["edge"],
        binning=opts["binning"],
        **({} if opts["snap"] else {"snap": False}),
    )
    occ = rel["n"] > 0
    r["reliability"] = {k: [float(x) for x in rel[k][occ]] for k in ("lo", "hi", "mean_conf", "acc")}
    r["reliability"]["n"] = [int(x) for x in rel["n"][occ]]
    sm = metrics.smooth_reliability(
        lv, pos, neg, sigma, _SMOOTH_GRID, kernel=metrics.smooth_kernel(lv, sigma, _SMOOTH_GRID)
    )
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


#: The keyword names of the ECE options in the report's API (``from_frame(df, ece_bins=15)``), and the field of
#: :class:`selfconf.metrics.EceOptions` each one sets.
ECE_KEYWORDS = {"ece_bins": "n_bins", "ece_binning": "binning", "ece_edge": "edge", "ece_snap": "snap"}


def _is_int(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, np.integer, float, np.floating)) and int(x) == x


#: Declared constraints of the report's options: field -> (command-line flag, test, what it must be).  The one
#: rule of their error messages: ``"<flag> must be <what>, got <value>"`` (:meth:`ReportOptions.__post_init__`).
_CONSTRAINTS: dict[str, tuple[str, Any, str]] = {
    "seed": ("--seed", lambda v: _is_int(v) and v >= 0, "a non-negative integer"),
    "n_boot": ("--n-boot", lambda v: _is_int(v) and v >= 1, "a positive integer"),
    "n_bins": ("--ece-bins", lambda v: _is_int(v) and v >= 1, "a positive integer"),
    "binning": ("--ece-binning", lambda v: v in ("equal_width", "equal_mass"), "one of equal_width, equal_mass"),
    "edge": ("--ece-edge", lambda v: v in ("upper", "lower"), "one of upper, lower"),
    "snap": ("--ece-snap", lambda v: isinstance(v, (bool, np.bool_)), "True or False"),
    "resampling": ("--resampling", lambda v: v in RESAMPLING, "one of " + ", ".join(RESAMPLING)),
    "recalibrate": ("--recalibrate", lambda v: v is None or v in RECALIBRATIONS, "one of " + ", ".join(RECALIBRATIONS)),
    "folds": ("--folds", lambda v: _is_int(v) and v >= 2, "an integer of at least 2"),
    "level": ("level", lambda v: _is_number(v) and 0.0 < float(v) < 1.0, "a number in (0, 1)"),
}


def _is_number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float, np.integer, np.floating))


def _check(field_name: str, value: Any) -> None:
    flag, ok, what = _CONSTRAINTS[field_name]
    if not ok(value):
        raise ValueError(f"{flag} must be {what}, got {value!r}")


@dataclass(frozen=True)
class ReportOptions:
    """Every option of a report (and of ``selfconf compare``), declared and validated in one place.

    Definition: ``ece`` the binned-ECE options (:class:`selfconf.metrics.EceOptions`: bins, binning, edge, snap);
    ``seed`` and ``n_boot`` the bootstrap's seed and draws; ``level`` the intervals' coverage; ``resampling``
    ``"rows"`` or ``"poisson"``; ``high_confidence`` the threshold of ``high_conf_error_rate`` (0-1);
    ``coverages`` the risk@c cuts (0-1); ``recalibrate`` None or a method of
    :data:`selfconf.stats.calibration.RECALIBRATIONS`, cross-fitted with ``folds`` folds.  Each field is checked
    against its declared constraint (:data:`_CONSTRAINTS`), with one wording for every error:
    ``"<flag> must be <what>, got <value>"``.  The functions of the report take one of these
    (``options=``) or the former keywords (``ece_bins=...``, ``seed=...``), from which :meth:`from_keywords`
    builds one.

    Reference: scikit-learn's ``sklearn/utils/_param_validation.py`` (constraints declared once).

    >>> ReportOptions.from_keywords(ece_bins=15, n_boot=200).ece.n_bins
    15
    >>> ReportOptions(n_boot=0)
    Traceback (most recent call last):
    ...
    ValueError: --n-boot must be a positive integer, got 0
    """

    ece: Any = None
    seed: int = 0
    n_boot: int = 2000
    level: float = 0.95
    resampling: str = "rows"
    high_confidence: float = HIGH_CONF
    coverages: tuple[float, ...] = COVERAGES
    recalibrate: str | None = None
    folds: int = 5

    def __post_init__(self) -> None:
        from selfconf.metrics import EceOptions

        ece = EceOptions() if self.ece is None else self.ece
        if not isinstance(ece, EceOptions):
            raise TypeError(f"ece: expected a selfconf.metrics.EceOptions, got {type(ece).__name__}")
        for name in ("seed", "n_boot", "resampling", "recalibrate", "folds", "level"):
            _check(name, getattr(self, name))
        object.__setattr__(self, "ece", ece)
        object.__setattr__(self, "high_confidence", check_high_confidence(self.high_confidence))
        object.__setattr__(self, "coverages", check_coverages(self.coverages))

    @classmethod
    def from_keywords(cls, **keywords: Any) -> ReportOptions:
        """The options from the report's keywords (``ece_bins``, ``ece_binning``, ``ece_edge``, ``ece_snap`` and
        the fields); an unknown keyword is a ``TypeError`` naming it, a bad value the declared message.

        >>> ReportOptions.from_keywords(ece_edge="lower", ece_snap=False).ece.as_kwargs()["edge"]
        'lower'
        >>> ReportOptions.from_keywords(ece_bins=0)
        Traceback (most recent call last):
        ...
        ValueError: --ece-bins must be a positive integer, got 0
        """
        from selfconf.metrics import EceOptions

        fields = set(cls.__dataclass_fields__) - {"ece"}
        unknown = sorted(set(keywords) - fields - set(ECE_KEYWORDS))
        if unknown:
            raise TypeError(f"unexpected keyword argument(s) {', '.join(map(repr, unknown))}")
        ece_kw = {ECE_KEYWORDS[k]: v for k, v in keywords.items() if k in ECE_KEYWORDS}
        for name, value in ece_kw.items():
            _check(name, value)
        rest = {k: v for k, v in keywords.items() if k in fields}
        return cls(ece=EceOptions(**ece_kw), **rest)

    @classmethod
    def resolve(cls, options: ReportOptions | None, keywords: dict[str, Any]) -> ReportOptions:
        """``options`` as given, or built from ``keywords``; both at once is an error (which would win?).

        >>> ReportOptions.resolve(None, {"seed": 3}).seed
        3
        """
        if options is None:
            return cls.from_keywords(**keywords)
        if keywords:
            raise TypeError(f"give options= or the keywords {', '.join(sorted(keywords))}, not both")
        if not isinstance(options, cls):
            raise TypeError(f"options: expected a ReportOptions, got {type(options).__name__}")
        return options

    def keywords(self) -> dict[str, Any]:
        """The options as the former keyword API spells them (the inverse of :meth:`from_keywords`); on
        ``ReportOptions()``, the keyword API's defaults.

        >>> kw = ReportOptions().keywords()
        >>> kw["ece_bins"], ReportOptions.from_keywords(**kw) == ReportOptions()
        (10, True)
        """
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "ece"}
        out.update({kw: getattr(self.ece, field) for kw, field in ECE_KEYWORDS.items()})
        return out

    def metric_options(self) -> dict[str, Any]:
        """The ``options`` mapping of the registry's metric functions (:func:`selfconf.stats.registry.options_of`).

        >>> ReportOptions().metric_options()["threshold"]
        0.8
        """
        return {**self.ece.as_kwargs(), "threshold": self.high_confidence}

    def settings(self) -> dict[str, Any]:
        """The options under the report's ``attrs``/JSON setting names (``ece_bins``...).

        >>> ReportOptions().settings()["ece_bins"]
        10
        """
        e = self.ece
        return dict(
            seed=int(self.seed),
            n_boot=int(self.n_boot),
            resampling=self.resampling,
            level=float(self.level),
            ece_bins=int(e.n_bins),
            ece_binning=e.binning,
            ece_edge=e.edge,
            ece_snap=bool(e.snap),
            high_confidence=self.high_confidence,
            coverages=tuple(self.coverages),
            recalibrate=self.recalibrate,
            folds=int(self.folds),
        )


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

        tab = pd.DataFrame(list(self), columns=list(json_model_keys()))
        for c in ("model", "group", "warning"):  # keep None as None (pandas would infer a str dtype with NaN)
            tab[c] = pd.Series([r[c] for r in self], dtype=object)
        tab.attrs.update(self.attrs)
        return tab


def compute(rows: Rows, options: ReportOptions | None = None, **keywords: Any) -> pd.DataFrame:
    """Every report statistic, one row per model (sorted by name), then per (model, group) with ``--by``.

    Columns are :data:`JSON_MODEL_KEYS`; ``attrs`` holds the settings.  A model whose every row
    was excluded appears with ``n = 0`` and NaN statistics.  Definitions: module docstring and
    :func:`selfconf.metrics.counts_statistics`.  The same numbers as :func:`compute_records`, as a
    DataFrame.  Options: a :class:`ReportOptions` (``options=``) or its keywords (``seed``, ``n_boot``,
    ``ece_bins``, ``ece_binning``, ``ece_edge``, ``ece_snap``, ``level``, ``resampling`` (``"rows"``, the row
    bootstrap, default; ``"poisson"``, faster; module docstring), ``high_confidence``, ``coverages``,
    ``recalibrate``, ``folds``).

    Reference: Chernets (2026), Tables 1–2, extended with the intervals of Efron & Tibshirani (1993).

    Example: ``compute(load_rows(["rows.csv"]), n_boot=200)["auroc"]``.
    """
    return compute_records(rows, ReportOptions.resolve(options, keywords)).to_frame()


def compute_records(rows: Rows, options: ReportOptions | None = None, **keywords: Any) -> ReportTable:
    """:func:`compute` without pandas: the same rows as a :class:`ReportTable` (list of dicts + ``attrs``).

    Steps: the options (:meth:`ReportOptions.resolve`), the rows used (:func:`_used_rows`), the units and their
    counts (:func:`_units`, :func:`_unit_cells`, :func:`_unit_tallies`), one record per unit by metric family
    (:func:`_unit_record`), the settings (:func:`_report_attrs`).

    Definition and reference: :func:`compute` (Chernets 2026, Tables 1–2; Efron & Tibshirani 1993).

    Example: ``compute_records(load_rows(["rows.csv"]), n_boot=200)[0]["accuracy"]``.
    """
    opts = ReportOptions.resolve(options, keywords)
    reasons, used = _used_rows(rows)
    units, unit_of_row = _units(rows)
    all_used = bool(used.all())  # the usual case: no copies of the columns
    pick = (lambda a: a) if all_used else (lambda a: a[used])  # noqa: E731
    lv, code = _level_codes(pick(rows.confidence), pick(rows.confidence_raw), rows.scale)
    per_unit = _unit_cells(unit_of_row, pick, code, pick(rows.correct).astype(np.int64), lv.size)
    tallies = _unit_tallies(rows, reasons, used, unit_of_row, len(units))

    def record(u: int) -> dict[str, Any]:
        return _unit_record(rows, units[u], per_unit.get(u), lv, tallies, u, opts)

    out = _map_units(record, len(units))
    keys = json_model_keys()
    return ReportTable([{k: r[k] for k in keys} for r in out], _report_attrs(rows, opts, used))


def _used_rows(rows: Rows) -> tuple[np.ndarray, np.ndarray]:
    """(exclusion reason per row, rows used); no usable row at all is an error counting the reasons."""
    reasons = rows.reasons()
    used = reasons < 0
    if not used.any():
        counts = np.bincount(reasons[reasons >= 0], minlength=len(EXCLUSION_REASONS))
        errors = f", {counts[3]} collection errors" if counts[3] else ""
        raise ValueError(
            "no usable rows: every row lacks a confidence or a grade "
            f"({counts[0]} without confidence, {counts[1]} ungraded, {counts[2]} refusals without confidence{errors})"
        )
    return reasons, used


def _units(rows: Rows) -> tuple[list[tuple[int, int | None]], list[np.ndarray]]:
    """The report's units, (model code, None) for each model then (model, group) for each pair present with
    ``--by``, and per unit layer the unit of every row."""
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
    return units, unit_of_row


def _unit_cells(unit_of_row: list[np.ndarray], pick: Any, code: np.ndarray, y: np.ndarray, k: int) -> dict[int, tuple]:
    """Per unit: (level indices used, right counts, wrong counts) of its used rows (:func:`_cell_counts`)."""
    per_unit: dict[int, tuple] = {}
    for uo in unit_of_row:
        u_used = pick(uo)
        base = int(u_used.min()) if u_used.size else 0
        n_u = int(u_used.max()) - base + 1 if u_used.size else 0
        for j, c in enumerate(_cell_counts(u_used - base, code, y, n_u, k)):
            per_unit[base + j] = c
    return per_unit


def _unit_tallies(
    rows: Rows, reasons: np.ndarray, used: np.ndarray, unit_of_row: list[np.ndarray], n_units: int
) -> dict[str, np.ndarray]:
    """Per unit: rows read (``rows``), exclusions per reason (``reasons``), rows with a known refusal
    (``refusal_known``) and their refusal sum (``refusal_sum``), one bincount per unit layer."""
    n_reason = len(EXCLUSION_REASONS)
    out = {
        "rows": np.zeros(n_units, np.int64),
        "reasons": np.zeros((n_units, n_reason), np.int64),
        "refusal_known": np.zeros(n_units, np.int64),
        "refusal_sum": np.zeros(n_units),
    }
    excluded = ~used
    all_used = bool(used.all())
    ref_known = None if rows.refusal is None else ~np.isnan(rows.refusal)
    for uo in unit_of_row:
        out["rows"] += np.bincount(uo, minlength=n_units)
        if not all_used:
            cells = uo[excluded] * n_reason + reasons[excluded]
            out["reasons"] += np.bincount(cells, minlength=n_units * n_reason).reshape(n_units, n_reason)
        if ref_known is not None:
            assert rows.refusal is not None, "refusals are known where ref_known is set"
            out["refusal_known"] += np.bincount(uo[ref_known], minlength=n_units)
            out["refusal_sum"] += np.bincount(uo[ref_known], weights=rows.refusal[ref_known], minlength=n_units)
    return out


def _unit_record(
    rows: Rows,
    unit: tuple[int, int | None],
    cells: tuple | None,
    lv: np.ndarray,
    tallies: dict[str, np.ndarray],
    u: int,
    opts: ReportOptions,
) -> dict[str, Any]:
    """One unit's record, family by family: the confidence metrics with intervals and curves
    (:func:`_unit_stats`, or :func:`_empty_unit` without a used row), the recalibration (:func:`_recalibrated`),
    the refusal rate (from the ``refusal`` column), the Wilson intervals and flags, the exclusions."""
    m, g = unit
    name = str(rows.models[m])
    gname = None if g is None or rows.groups is None else str(rows.groups[g])
    n_rows = int(tallies["rows"][u])
    rec: dict[str, Any] = {"model": name, "group": gname, "rows": n_rows}
    if cells is not None and cells[0].size:
        idx, pos, neg = cells
        rec.update(_unit_stats(lv[idx], pos, neg, rng=_unit_rng(opts.seed, name, gname), opts=opts))
        if opts.recalibrate:
            rng = _unit_rng(opts.seed, name, gname, "recalibrate")
            rec["recalibrated"] = _recalibrated(lv[idx], pos, neg, rng=rng, opts=opts)
    else:
        rec.update(_empty_unit(opts.coverages))
    known = int(tallies["refusal_known"][u])
    has_refusal = rows.refusal is not None
    rec["refusal_rate"] = float(tallies["refusal_sum"][u] / known) if has_refusal and known else _nan()
    rec["refusal_n"] = known if has_refusal else 0
    rec.setdefault("recalibrated", None)
    _add_wilson_and_flags(rec, level=opts.level, n_boot=opts.n_boot)
    rec.update(_exclusions(tallies["reasons"][u], n_rows))
    return rec


def _empty_unit(coverages: Sequence[float]) -> dict[str, Any]:
    """The statistics of a unit without a used row: NaN, zero counts, no curves."""
    rec: dict[str, Any] = {k: _nan() for k in json_model_keys() if k not in ("model", "group", "rows")}
    rec.update(n=0, high_conf_n=0, reliability=None, smooth_reliability=None, risk_coverage_curve=None)
    for k in _RISK_KEYS:
        rec[k] = {coverage_key(c): None for c in coverages}
    return rec


def _exclusions(rc: np.ndarray, n_rows: int) -> dict[str, Any]:
    """``excluded`` (rows per reason), ``excluded_share`` and the ``warning`` above :data:`EXCLUDED_WARN`.

    >>> _exclusions(np.array([6, 0, 0, 0]), 100)["warning"][:38]
    '6.0% of its 100 rows excluded (6 witho'
    """
    share = float(rc.sum() / n_rows) if n_rows else 0.0
    out: dict[str, Any] = {
        "excluded": {r: int(v) for r, v in zip(EXCLUSION_REASONS, rc, strict=False)},
        "excluded_share": share,
        "warning": None,
    }
    if share > EXCLUDED_WARN:
        parts = ", ".join(f"{v} {_REASON_TEXT[r]}" for r, v in zip(EXCLUSION_REASONS, rc, strict=False) if v)
        out["warning"] = (
            f"{100 * share:.1f}% of its {n_rows} rows excluded ({parts}); the statistics describe "
            "only the remaining rows and may be biased"
        )
    return out


def _report_attrs(rows: Rows, opts: ReportOptions, used: np.ndarray) -> dict[str, Any]:
    """The table's ``attrs``: the settings (:meth:`ReportOptions.settings`) and what was read."""
    s = opts.settings()
    return dict(
        **{k: s[k] for k in ("seed", "n_boot", "resampling", "level", "ece_bins", "ece_binning", "ece_edge")},
        **{k: s[k] for k in ("ece_snap", "high_confidence", "coverages")},
        warnings=list(getattr(rows, "warnings", [])),
        recalibrate=s["recalibrate"],
        folds=s["folds"],
        confidence_scale=rows.scale,
        confidence_scale_reason=rows.scale_reason,
        by=rows.by,
        rows_read=rows.rows_read,
        rows_used=int(used.sum()),
        inputs=list(rows.inputs),
    )


def check_high_confidence(x: Any) -> float:
    """The ``--high-confidence`` threshold on 0-1, validated (a value in (0, 1]); the message quotes the value given.

    Example: ``check_high_confidence("0.9")`` -> ``0.9``; ``check_high_confidence("80")`` raises ValueError.
    """
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"--high-confidence must be a number in (0, 1], got {x!s}") from None
    if not (0.0 < v <= 1.0) or isinstance(x, bool):
        raise ValueError(f"--high-confidence must be a number in (0, 1] (0-1 scale, e.g. 0.8), got {x!s}")
    return v


def check_coverages(cs: Any) -> tuple[float, ...]:
    """The risk@c coverages on 0-1, validated: each in (0, 1], no repeats, in the order given.

    Example: ``check_coverages("100,50")`` -> ``(1.0, 0.5)``; ``check_coverages([0.5, 0.5])`` raises ValueError.
    """
    if isinstance(cs, str):
        cs = parse_coverages(cs)
    out = []
    for c in cs:
        v = float(c)
        if not (0.0 < v <= 1.0):
            raise ValueError(f"--coverages: each coverage must be in (0, 100] percent, got {100 * v:g}")
        out.append(v)
    if not out:
        raise ValueError("--coverages: give at least one coverage, e.g. 100,80,60,40,20")
    if len(set(out)) != len(out):
        raise ValueError(f"--coverages: a coverage is repeated in {', '.join(f'{100 * v:g}' for v in out)}")
    return tuple(out)


def parse_coverages(text: str) -> tuple[float, ...]:
    """``"100,80,60,40,20"`` (percent, as on the command line) -> ``(1.0, 0.8, 0.6, 0.4, 0.2)``.

    Example: ``parse_coverages("100,50")`` -> ``(1.0, 0.5)``.
    """
    out = []
    for part in str(text).split(","):
        p = part.strip().rstrip("%").strip()
        try:
            v = float(p)
        except ValueError:
            raise ValueError(f"--coverages: {part.strip()!s} is not a number (percent, e.g. 100,80,60,40,20)") from None
        if not (0.0 < v <= 100.0):
            raise ValueError(f"--coverages: each coverage must be in (0, 100] percent, got {part.strip()!s}")
        out.append(v / 100.0)
    return tuple(out)


def _interval_rows_of(rec: dict[str, Any], m: Metric) -> int:
    """The rows a metric's interval is computed on: its ``trials`` key (``high_conf_n``...) or ``n``."""
    key = m.trials if m.trials and m.trials in rec else "n"
    v = rec.get(key)
    return 0 if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)


def _add_wilson_and_flags(rec: dict[str, Any], *, level: float, n_boot: int) -> None:
    """Add the Wilson intervals of the proportions and the ``interval_flags`` of one record (in place).

    A percentile bootstrap interval is flagged when it has zero width, when it is computed on fewer
    than :data:`SMALL_N` rows, when fewer than :data:`MIN_N_BOOT` draws were made, or when it does not
    contain its own point estimate (the draws are shifted away from it: an error measure near 0, such
    as an ECE of a well calibrated model, is larger on almost every resample); the flag is the reason
    in words.
    """
    from selfconf.stats.proportions import wilson_interval

    for m in METRICS:
        if m.proportion:
            trials = _interval_rows_of(rec, m)
            v = rec.get(m.name)
            if trials > 0 and v is not None and not math.isnan(float(v)):
                rec[f"{m.name}_wilson_low"], rec[f"{m.name}_wilson_high"] = wilson_interval(
                    round(float(v) * trials), trials, level
                )
            else:
                rec[f"{m.name}_wilson_low"], rec[f"{m.name}_wilson_high"] = _nan(), _nan()
    flags: dict[str, str] = {}
    for m in METRICS:
        if not m.interval:
            continue
        why = interval_flag(
            rec.get(m.name),
            rec.get(f"{m.name}_ci_low"),
            rec.get(f"{m.name}_ci_high"),
            _interval_rows_of(rec, m),
            n_boot,
        )
        if why:
            flags[m.name] = why
    rc = rec.get("recalibrated")
    if isinstance(rc, dict) and rc:  # the recalibrated metrics go through the same rule, on the unit's rows
        rc["interval_flags"] = {}
        for name in RECAL_METRICS:
            why = interval_flag(
                rc.get(name), rc.get(f"{name}_ci_low"), rc.get(f"{name}_ci_high"), int(rec.get("n") or 0), n_boot
            )
            if why:
                rc["interval_flags"][name] = why
                flags[f"recalibrated {name}"] = why
    rec["interval_flags"] = flags


def interval_flag(value: Any, low: Any, high: Any, rows: int, n_boot: int, unit: str = "rows") -> str | None:
    """The reason a percentile bootstrap interval is flagged, or None: the one rule of ``interval_flags``.

    Definition: flagged when it is computed on fewer than :data:`SMALL_N` rows (``unit``: what was resampled), has
    zero width, rests on fewer than :data:`MIN_N_BOOT` draws, or does not contain its own estimate; the reasons
    joined by "; ".  No interval
    (None or NaN bounds) is not flagged (it is shown as a dash).

    Reference: Efron & Tibshirani (1993), Ch. 13 (percentile intervals).

    Examples
    --------
    >>> interval_flag(0.0017, 0.0035, 0.0149, 5000, 2000)
    'does not contain the estimate (the bootstrap draws are shifted away from it)'
    >>> interval_flag(0.1, 0.05, 0.2, 5000, 2000) is None
    True
    """
    if low is None or high is None or math.isnan(float(low)):
        return None
    why = []
    if rows < SMALL_N:
        why.append(f"computed on {rows} {unit} (fewer than {SMALL_N})")
    if high == low:
        why.append("zero width (every bootstrap draw gave the same value)")
    if n_boot < MIN_N_BOOT:
        why.append(f"only {n_boot} bootstrap draws (fewer than {MIN_N_BOOT})")
    if value is not None and not math.isnan(float(value)) and not float(low) <= float(value) <= float(high):
        why.append("does not contain the estimate (the bootstrap draws are shifted away from it)")
    return "; ".join(why) or None


_REASON_TEXT = {
    "missing_confidence": "without a confidence",
    "missing_correct": "ungraded",
    "refusal_without_confidence": "refusals without a confidence",
    "collection_error": "collection errors (no reply from the endpoint)",
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
    ece_snap: bool = True,
    high_confidence: float = HIGH_CONF,
    coverages: Sequence[float] = COVERAGES,
    recalibrate: str | None = None,
    folds: int = 5,
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
    ece_snap : snap confidences within 1e-9 of a bin edge onto it (default; ``False``: scikit-learn's bins)
    high_confidence : threshold (0-1) of ``high_conf_error_rate``
    coverages : 0-1 coverages of ``risk_coverage`` (keys :func:`coverage_key`)
    recalibrate : None (default), "isotonic", "temperature", "histogram", "platt" or "beta": ECE, Brier and AUROC after
        recalibration, cross-fitted with ``folds`` folds (column ``recalibrated``)

    The keywords become one :class:`ReportOptions` (validated there); with an options object already built, call
    ``compute(rows_from_frame(df), options)``.  Errors name the row 1-based (row 1 is the frame's first row).

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
    opts = ReportOptions.from_keywords(  # the keyword entry point: its signature is relied on (defaults shown)
        seed=seed,
        n_boot=n_boot,
        ece_bins=ece_bins,
        ece_binning=ece_binning,
        ece_edge=ece_edge,
        resampling=resampling,
        ece_snap=ece_snap,
        high_confidence=high_confidence,
        coverages=coverages,
        recalibrate=recalibrate,
        folds=folds,
    )
    return compute(rows_from_frame(df, confidence_scale=confidence_scale, by=by), opts)


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
    if not a.get("ece_snap", True):
        edge += (
            "; no snapping: a confidence is compared with the edges as stored (0.5000000000000001 is above "
            "0.5), as scikit-learn's calibration_curve does"
        )
    lines = [
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
        f"high-confidence error: share wrong among answers with confidence >= {_hc(a):g} (0-1 scale)",
        "refusal rate: share of the model's rows with refusal = 1, among rows where the refusal flag is given",
    ]
    if tuple(_covs(a)) != COVERAGES:
        lines.append("risk@c coverages (--coverages): " + ", ".join(f"{100 * c:g}%" for c in _covs(a)))
    return lines + _recal_conventions(a)


def _recal_conventions(a: dict) -> list[str]:
    if not a.get("recalibrate"):
        return []
    return [
        f"recalibration (--recalibrate {a['recalibrate']}): fitted by {a['folds']}-fold cross-fitting within each "
        "model (rows dealt to folds at random through their counts), every row scored by a map fitted without it; "
        "ECE, Brier and AUROC of the recalibrated confidences with percentile bootstrap intervals over the rows, "
        "split and maps held fixed (refitting variation not included), flagged by the rule of the main table; "
        f"temperature, Platt and beta fit logit/log of confidences clipped to [{CLIP_EPS:g}, 1 - {CLIP_EPS:g}] by "
        "maximum likelihood (Newton with a line search, parameters within +-100); a fit that does not converge is "
        "not used and its metrics are missing with the reason"
    ]


def recal_notes(tab: pd.DataFrame) -> list[str]:
    """One line per unit whose recalibration was not done or not used (``recalibrated.note``), e.g. a map that
    did not converge: ``model[ / group]: reason``.

    Example: a model of 8 rows under 5 folds gives ``"m: not recalibrated: 8 rows, fewer than 2 x 5 folds"``.
    """
    out = []
    for r in tab.to_dict("records"):
        rc = r.get("recalibrated") or {}
        if rc.get("note"):
            out.append(str(r["model"]) + ("" if r["group"] is None else f" / {r['group']}") + f": {rc['note']}")
    return out


def recal_rows(tab: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the out-of-sample recalibration table (empty without ``--recalibrate``)."""
    a = tab.attrs
    if not a.get("recalibrate"):
        return [], []
    head = ["model"] + (["group"] if a.get("by") else [])
    for m in RECAL_METRICS:
        head += [f"{m} after", f"{m} 95% CI", f"{m} before"]
    body = []
    for r in tab.to_dict("records"):
        rc = r.get("recalibrated") or {}
        cells = [str(r["model"])] + ([str(r["group"]) if r["group"] is not None else "(all)"] if a.get("by") else [])
        for m in RECAL_METRICS:
            v = rc.get(m)
            mark = FLAG_MARK if m in (rc.get("interval_flags") or {}) else ""
            cells += [
                _num(v) if v is not None or not rc.get("note") else "— (see note)",
                "—"
                if rc.get(f"{m}_ci_low") is None
                else f"[{_num(rc[f'{m}_ci_low'])}, {_num(rc[f'{m}_ci_high'])}]{mark}",
                _num(r[m]),
            ]
        body.append(cells)
    return head, body


def _hc(attrs: dict) -> float:
    return float(attrs.get("high_confidence", HIGH_CONF))


def _covs(attrs: dict) -> tuple[float, ...]:
    return tuple(attrs.get("coverages", COVERAGES))


def warnings_of(tab: pd.DataFrame) -> list[str]:
    """Every warning of a report, one line each: input warnings, then one per model with one."""
    recs = tab.to_dict("records")
    return list(tab.attrs.get("warnings", [])) + [
        f"{r['model']}: {r['warning']}" for r in recs if r["group"] is None and r["warning"]
    ]


def flagged_intervals(tab: pd.DataFrame) -> list[str]:
    """One line per unit and reason of a flagged interval: ``model[ / group]: metrics: reason`` (the metrics with
    the same reason on one line, so a unit can have several lines; :func:`n_flagged_units` counts the units).

    Example: a model whose accuracy interval has zero width gives ``"m: accuracy: zero width (...)"``.
    """
    out = []
    for r in tab.to_dict("records"):
        flags = r.get("interval_flags") or {}
        by_reason: dict[str, list[str]] = {}
        for m, why in flags.items():
            by_reason.setdefault(why, []).append(m)
        unit = str(r["model"]) + ("" if r["group"] is None else f" / {r['group']}")
        out += [f"{unit}: {', '.join(ms)}: {why}" for why, ms in by_reason.items()]
    return out


def n_flagged_units(tab: pd.DataFrame) -> int:
    """How many units (models, and model x group rows) have at least one flagged interval (``interval_flags``).

    Definition: the number of rows of ``tab`` whose ``interval_flags`` is not empty; the lines of
    :func:`flagged_intervals` are per unit and reason, so they can outnumber the units.

    Reference: the interval rules of ``selfconf report --help``.

    Example: ``n_flagged_units(pd.DataFrame({"interval_flags": [{}, {"ece": "why", "mce": "other"}]}))`` is 1.
    """
    return sum(1 for r in tab.to_dict("records") if r.get("interval_flags"))


def report_json(tab: pd.DataFrame) -> dict:
    """The ``--json`` document: settings, conventions, exclusions, ``models`` (and ``groups``)."""
    a = tab.attrs
    recs = [{k: _jsonable(r[k]) for k in json_model_keys()} for r in tab.to_dict("records")]
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
        "high_confidence_threshold": _hc(a),
        "coverages": [coverage_key(c) for c in _covs(a)],
        "by": a["by"],
        "rows_read": a["rows_read"],
        "rows_used": a["rows_used"],
        "excluded": {"total": int(sum(sum(d.values()) for d in excl.values())), **excl},
        "warnings": warnings_of(tab),
        "conventions": conventions(tab),
        "models": models,
    }
    doc["ece_snap"] = bool(a.get("ece_snap", True))
    doc["recalibrate"] = a.get("recalibrate")
    doc["folds"] = a.get("folds", 5)
    doc["interval_flag_rules"] = (
        f"a bootstrap interval is flagged (interval_flags, per model) when it has zero width, is computed on fewer "
        f"than {SMALL_N} rows, rests on fewer than {MIN_N_BOOT} draws, or does not contain its estimate; "
        "accuracy, refusal_rate and "
        "high_conf_error_rate also carry a Wilson score interval (<metric>_wilson_low/_high)"
    )
    if a["by"]:
        doc["groups"] = groups
    return doc


def _pct(x: Any, d: int = 1) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * float(x):.{d}f}"


def _num(x: Any, d: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):.{d}f}"


#: Marks an interval cell whose interval is flagged (``interval_flags``); the reasons follow the table.
FLAG_MARK = "*"


def _ci(r: dict, m: str, pct: bool) -> str:
    lo, hi = r[f"{m}_ci_low"], r[f"{m}_ci_high"]
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return "—"
    mark = FLAG_MARK if m in (r.get("interval_flags") or {}) else ""
    return (f"[{_pct(lo)}, {_pct(hi)}]" if pct else f"[{_num(lo)}, {_num(hi)}]") + mark


def _cell(r: dict, m: Metric) -> str:
    """A metric's value in display units (:attr:`Metric.unit`)."""
    x = r[m.name]
    if m.unit == "pp":
        return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * float(x):+.1f}"
    s = _pct(x) if m.unit == "pct" else _num(x)
    if m.trials and m.trials in m.extra and r["n"]:  # its own count of rows follows it (err@conf: high_conf_n)
        s += f" (n={int(r[m.trials])})"
    return s


def _risk_cell(r: dict, key: str) -> str:
    """risk@c in percent; the best-worst tie-order range beside it when wider than :data:`TIE_RANGE_SHOWN`."""
    v = r["risk_coverage"].get(key)
    lo, hi = (r.get("risk_coverage_min") or {}).get(key), (r.get("risk_coverage_max") or {}).get(key)
    s = _pct(v)
    if lo is not None and hi is not None and not (math.isnan(lo) or math.isnan(hi)) and hi - lo > TIE_RANGE_SHOWN:
        s += f" ({_pct(lo)}–{_pct(hi)})"
    return s


TIE_NOTE = (
    "risk@c x (lo–hi): x is the expectation over the orders of tied confidences, lo–hi the best and worst "
    "tie orders, shown when more than 1 pp apart"
)


def tie_ranges_shown(tab: pd.DataFrame) -> bool:
    """Whether any risk@c cell of the table shows a tie-order range."""
    return any(
        " (" in _risk_cell(r, coverage_key(c))
        for r in tab.to_dict("records")
        for c in _covs(tab.attrs)
        if r["risk_coverage"]
    )


def _shown() -> list[Metric]:
    """The metrics of the terminal and HTML tables (:attr:`Metric.terminal`)."""
    return [m for m in METRICS if m.terminal]


def _header(m: Metric, attrs: dict) -> str:
    return m.header.format(hc=f"{100 * _hc(attrs):g}")


def table_rows(tab: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Header and string cells of the main terminal/HTML table, in display units."""
    a = tab.attrs
    head = ["model"] + (["group"] if a.get("by") else []) + ["n"]
    for m in _shown():
        head.append(_header(m, a))
        if m.headline_interval:
            head.append(f"{_header(m, a).removesuffix(' %')} {100 * a.get('level', 0.95):g}% CI")
    head += [f"risk@{100 * c:g}%" for c in _covs(a)] + ["excluded"]
    body = []
    for r in tab.to_dict("records"):
        exc = sum(r["excluded"].values())
        cells = [str(r["model"])] + ([str(r["group"]) if r["group"] is not None else "(all)"] if a.get("by") else [])
        cells.append(str(int(r["n"])))
        for m in _shown():
            cells.append(_cell(r, m))
            if m.headline_interval:
                cells.append(_ci(r, m.name, m.unit != "num"))
        cells += [_risk_cell(r, coverage_key(c)) for c in _covs(a)]
        cells.append(f"{exc} ({100 * r['excluded_share']:.1f}%)")
        body.append(cells)
    return head, body


def interval_rows(tab: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the intervals table (every metric of :data:`METRICS` with an interval)."""
    ms = [m for m in _shown() if m.interval]
    head = ["model"] + (["group"] if tab.attrs.get("by") else []) + [m.name for m in ms]
    body = []
    for r in tab.to_dict("records"):
        cells = [str(r["model"])] + (
            [str(r["group"]) if r["group"] is not None else "(all)"] if tab.attrs.get("by") else []
        )
        body.append(cells + [_ci(r, m.name, m.unit != "num") for m in ms])
    return head, body


def _text_table(head: list[str], body: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))
        )

    return [line(head), line(["-" * w for w in widths])] + [line(b) for b in body]


#: Width (characters) the terminal report fits by default; ``selfconf report --wide`` prints one wide table.
TERMINAL_WIDTH = 120


def _text_blocks(head: list[str], body: list[list[str]], keys: int, width: int | None) -> list[str]:
    """:func:`_text_table` split into blocks of columns that each fit ``width`` characters, the first ``keys``
    columns (model, group) repeated in every block; ``width=None``: one table."""
    if width is None:
        return _text_table(head, body)
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
    key_w = sum(widths[:keys]) + 2 * keys
    blocks: list[list[int]] = [[]]
    used = key_w
    for j in range(keys, len(head)):
        if blocks[-1] and used + widths[j] > width:
            blocks.append([])
            used = key_w
        blocks[-1].append(j)
        used += widths[j] + 2
    out: list[str] = []
    for n, cols in enumerate(blocks):
        idx = list(range(keys)) + cols
        out += ([""] if n else []) + _text_table([head[i] for i in idx], [[b[i] for i in idx] for b in body])
    return out


def ece_convention_line(attrs: dict) -> str:
    """The first line of the terminal report: which ECE convention the numbers use and how to get the other.

    Example: ``ece_convention_line({"ece_edge": "upper", "ece_snap": True})`` names the book's rule.
    """
    if attrs.get("ece_edge") == "lower" and not attrs.get("ece_snap", True):
        return (
            "ECE convention: scikit-learn's (calibration_curve's bins: edge lower, no snapping); the book's: defaults"
        )
    mine = f"edge {attrs.get('ece_edge', 'upper')}, " + ("snapping" if attrs.get("ece_snap", True) else "no snapping")
    if attrs.get("ece_edge", "upper") == "upper" and attrs.get("ece_snap", True):
        mine = f"the book's ({mine})"
    return f"ECE convention: {mine}; scikit-learn's: --ece-sklearn (= --ece-edge lower --no-ece-snap)"


def format_table(tab: pd.DataFrame, *, width: int | None = TERMINAL_WIDTH) -> str:
    """Plain-text report for the terminal: the ECE convention, table, intervals, exclusions and warnings,
    conventions.  The tables are split into blocks of columns that fit ``width`` characters (model and group
    repeated); ``width=None`` prints each as one wide table (``--wide``)."""
    a = tab.attrs
    keys = 2 if a.get("by") else 1
    out = [ece_convention_line(a), ""] + _text_blocks(*table_rows(tab), keys, width)
    out += ["", "95% intervals (percent for acc/conf/CITL/err, 0-1 otherwise):"] + _text_blocks(
        *interval_rows(tab), keys, width
    )
    flagged = flagged_intervals(tab)
    if flagged:
        out.append(f"{FLAG_MARK} flagged intervals (do not read them as 95% intervals):")
        out += [f"  {line}" for line in flagged]
    rh, rb = recal_rows(tab)
    if rh:
        out += ["", f"out of sample after --recalibrate {a['recalibrate']} ({a['folds']}-fold cross-fitting; 0-1):"]
        out += _text_blocks(rh, rb, keys, width)
        out += [f"  {line}" for line in recal_notes(tab)]
    out.append("")
    models = [r for r in tab.to_dict("records") if r["group"] is None]
    tot = {k: sum(r["excluded"][k] for r in models) for k in EXCLUSION_REASONS}
    out.append(
        f"rows read {a['rows_read']}, used {a['rows_used']}, excluded {sum(tot.values())} ("
        + ", ".join(f"{v} {_REASON_TEXT[k]}" for k, v in tot.items() if v or k != "collection_error")
        + ")"
    )
    for r in models:
        for k in EXCLUSION_REASONS:
            if r["excluded"][k]:
                out.append(f"  excluded {_REASON_TEXT[k]}: {r['model']}: {r['excluded'][k]}")
    for w in a.get("warnings", []):
        out.append(f"WARNING {w}")
    for r in models:
        if r["warning"]:
            out.append(f"WARNING {r['model']}: {r['warning']}")
    out.append(
        "units: acc/conf/err/refusal in percent, CITL in percentage points; Brier, ECE, smECE, AUROC, AURC on 0-1"
    )
    if tie_ranges_shown(tab):
        out.append(TIE_NOTE)
    out += conventions(tab)
    if width is not None:  # prose lines wrap at the same width (tables were split above)
        import textwrap

        out = [
            "\n".join(textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False))
            if len(line) > width
            else line
            for line in out
        ]
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
