"""The metric registry: every per-model statistic the package reports, declared once.

Each :class:`MetricSpec` says what a metric is (its function, its range, which way is better) and where it
appears: the report's terminal table, JSON keys, HTML columns and intervals (:mod:`selfconf.report`), the
statistics recomputed after recalibration, the book's Table 1 (:func:`selfconf.stats.summary.table1`) and the
per-model statistics of chapter 26 (:func:`selfconf.sections.realanswers.model_draws`).  Those surfaces read
:func:`entries` (or a live view of it, :func:`view`) instead of keeping their own lists, so adding a metric is
one entry here, its function, and its oracle in ``tests/test_common_metrics.py`` (which runs the invariance,
bounds, degenerate-case and oracle tests over every entry, the way scikit-learn's
``sklearn/metrics/tests/test_common.py`` loops over its ``ALL_METRICS``).

A metric's function reads counts, never rows: ``function(levels, pos, neg, options) -> array (B,)`` with
``levels`` the distinct confidences (ascending, 0-1), ``pos``/``neg`` arrays (B, K) of right and wrong answers
at each level (one row per data set or bootstrap draw) and ``options`` a mapping with the ECE options
``n_bins``, ``binning``, ``edge``, ``snap`` (:class:`selfconf.metrics.EceOptions`) and the high-confidence
``threshold``.  A metric of another column (``source="refusal"``: the refusal rate) takes that column's 0/1
values instead.  The metrics :func:`selfconf.metrics.counts_statistics` computes in one pass keep being computed
there in bulk (``batched``); their declared function is that same computation for one metric, and a test checks
the two agree.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# selfconf.metrics is imported in the functions that use it: the report's `--help` reads this registry and
# must answer without loading scipy

__all__ = [
    "MetricSpec",
    "ECE_OPTION_KEYS",
    "entries",
    "find",
    "register",
    "registered",
    "view",
    "evaluate",
    "options_of",
    "values",
]

#: Keys of a metric function's ``options`` that are ECE options (the rest: ``threshold``).
ECE_OPTION_KEYS = ("n_bins", "binning", "edge", "snap")


@dataclass(frozen=True)
class MetricSpec:
    """One registered metric.

    ``name``: the JSON key and DataFrame/CSV column; ``header``: the terminal/HTML column; ``unit``: ``"pct"``
    (a 0-1 share shown in percent), ``"pp"`` (a 0-1 difference shown in signed percentage points) or ``"num"``
    (three decimals); ``help``: one line of ``--help``.  ``bounds``: the closed range every defined value lies
    in; ``higher_is_better``: True, False, or None (a signed gap: nearer zero is better; or no direction, a
    description such as mean confidence).  ``interval``: a percentile bootstrap interval
    (``<name>_ci_low``/``_ci_high``); ``headline_interval``: that interval also in the headline table;
    ``trials``: the JSON key counting the rows it is computed on when it is a proportion (then a Wilson
    interval, ``proportion=True``) or differs from ``n``; ``extra``: JSON keys that follow it.
    ``compute``: the function for a metric :func:`selfconf.metrics.counts_statistics` does not compute (None:
    it does, ``batched``).  ``terminal``: a column of the terminal and HTML tables (else JSON only).
    ``recalibrated``: also reported after recalibration, out of sample, at this place (1, 2, ...) of the
    recalibration table (0: not).  ``table1``: its label in the book's
    Table 1 (None: not a Table 1 column).  ``model_draws``: one of chapter 26's per-model statistics on the
    item-clustered draws.  ``source``: ``"counts"`` (the confidence/correct counts) or ``"refusal"``.
    ``duplicate_invariant``: a function of the empirical distribution only, so unchanged when every row is
    duplicated (False: a finite-sample quantity such as the AURC's mean over k = 1..n, or the debiased ECE's
    variance correction).
    """

    name: str
    header: str
    unit: str
    help: str
    interval: bool = True
    headline_interval: bool = False
    trials: str | None = None
    proportion: bool = False
    extra: tuple[str, ...] = ()
    compute: Any = None
    terminal: bool = True
    bounds: tuple[float, float] = (0.0, 1.0)
    higher_is_better: bool | None = None
    recalibrated: int = 0
    table1: str | None = None
    model_draws: bool = False
    source: str = "counts"
    duplicate_invariant: bool = True

    @property
    def batched(self) -> bool:
        """Computed by :func:`selfconf.metrics.counts_statistics` (no ``compute`` of its own, counts source)."""
        return self.compute is None and self.source == "counts"

    @property
    def function(self) -> Callable[..., Any]:
        """``(levels, pos, neg, options) -> array (B,)`` (a ``"refusal"`` metric: ``(refusal) -> float``)."""
        if self.source == "refusal":
            return _refusal_rate
        if self.compute is not None:
            return self.compute
        return _batched(self.name)


def options_of(options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A metric function's ``options``: the ECE options and ``threshold``, defaults filled in.

    Definition: the defaults are those of :class:`selfconf.metrics.EceOptions` (10 equal-width bins, interior
    edges to the upper bin, snapped) and the paper's high-confidence threshold 0.8.  Reference: Chernets (2026),
    Table 1 conventions.

    >>> options_of({"n_bins": 15})["n_bins"], options_of()["threshold"]
    (15, 0.8)
    """
    out: dict[str, Any] = {"n_bins": 10, "binning": "equal_width", "edge": "upper", "snap": True, "threshold": 0.8}
    out.update(dict(options or {}))
    return out


def _batched(name: str) -> Callable[..., np.ndarray]:
    def fn(levels: Any, pos: Any, neg: Any, options: Mapping[str, Any] | None = None) -> np.ndarray:
        from selfconf import metrics

        o = options_of(options)
        lv = np.asarray(levels, float)
        P, Q = np.atleast_2d(np.asarray(pos, float)), np.atleast_2d(np.asarray(neg, float))
        kw = {k: o[k] for k in ECE_OPTION_KEYS}
        if name == "smooth_ece":  # the bandwidth at its fixed point, per data set (the report: the observed one)
            return np.array([_smooth_ece_one(lv, p, q, kw) for p, q in zip(P, Q, strict=True)])
        st = metrics.counts_statistics(lv, P, Q, **kw, threshold=o["threshold"], coverages=(), statistics=(name,))
        return np.asarray(st[name], float)

    fn.__name__ = f"counts_{name}"
    fn.__doc__ = f"``{name}`` of :func:`selfconf.metrics.counts_statistics`, for one metric."
    return fn


def _smooth_ece_one(lv: np.ndarray, p: np.ndarray, q: np.ndarray, kw: dict[str, Any]) -> float:
    from selfconf import metrics

    sigma = metrics.smooth_ece_bandwidth(lv, p, q)
    st = metrics.counts_statistics(lv, p, q, **kw, smooth_sigma=sigma, coverages=(), statistics=("smooth_ece",))
    return float(st["smooth_ece"][0])


def _refusal_rate(refusal: Any) -> float:
    """Share of rows with refusal = 1 among rows whose refusal is known (NaN: unknown)."""
    r = np.asarray(refusal, float)
    known = ~np.isnan(r)
    return float(r[known].sum() / known.sum()) if known.any() else float("nan")


def _ece_only(options: Mapping[str, Any]) -> dict[str, Any]:
    o = options_of(options)
    return {k: o[k] for k in ECE_OPTION_KEYS}


def _mce(lv: Any, P: Any, Q: Any, options: Mapping[str, Any] | None = None) -> np.ndarray:
    """Maximum calibration error on the ECE bins (:func:`selfconf.stats.calibration.mce_counts`)."""
    from selfconf.stats.calibration import mce_counts

    return mce_counts(lv, P, Q, **_ece_only(options or {}))


def _debiased_ece(lv: Any, P: Any, Q: Any, options: Mapping[str, Any] | None = None) -> np.ndarray:
    """Debiased l2 calibration error on the ECE bins (:func:`selfconf.stats.calibration.debiased_ece_counts`)."""
    from selfconf.stats.calibration import debiased_ece_counts

    return debiased_ece_counts(lv, P, Q, **_ece_only(options or {}))


_DEFAULTS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "accuracy",
        "acc %",
        "pct",
        "share correct",
        headline_interval=True,
        trials="n",
        proportion=True,
        higher_is_better=True,
        table1="Acc %",
        model_draws=True,
    ),
    MetricSpec("mean_confidence", "mean conf", "pct", "mean stated confidence", table1="Mean conf %"),
    MetricSpec(
        "median_confidence",
        "median conf",
        "pct",
        "median stated confidence",
        interval=False,
        table1="Median conf %",
        model_draws=True,
    ),
    MetricSpec(
        "citl",
        "CITL pp",
        "pp",
        "calibration-in-the-large, mean confidence minus accuracy",
        bounds=(-1.0, 1.0),
        table1="CITL pp",
        model_draws=True,
    ),
    MetricSpec(
        "brier",
        "Brier",
        "num",
        "Brier score, mean (confidence - correct)^2",
        higher_is_better=False,
        recalibrated=2,
        table1="Brier",
    ),
    MetricSpec(
        "ece",
        "ECE",
        "num",
        "binned expected calibration error (--ece-bins, --ece-binning, --ece-edge)",
        higher_is_better=False,
        recalibrated=1,
        table1="ECE",
        model_draws=True,
    ),
    MetricSpec(
        "smooth_ece",
        "smECE",
        "num",
        "smooth ECE (Blasiok & Nakkiran 2023), kernel bandwidth at its fixed point",
        extra=("smooth_ece_bandwidth",),
        higher_is_better=False,
    ),
    MetricSpec(
        "auroc",
        "AUROC",
        "num",
        "self-AUROC, confidence separating right from wrong",
        headline_interval=True,
        higher_is_better=True,
        recalibrated=3,
        table1="AUROC",
        model_draws=True,
    ),
    MetricSpec(
        "high_conf_error_rate",
        "err@conf≥{hc} %",
        "pct",
        "share wrong among answers with confidence >= --high-confidence",
        trials="high_conf_n",
        proportion=True,
        extra=("high_conf_n",),
        higher_is_better=False,
        table1="Err@conf≥80 %",
    ),
    MetricSpec(
        "refusal_rate",
        "refusal %",
        "pct",
        "share of rows with refusal = 1 (no bootstrap interval; Wilson interval in JSON)",
        interval=False,
        trials="refusal_n",
        proportion=True,
        source="refusal",
    ),
    MetricSpec(
        "aurc",
        "AURC",
        "num",
        "area under the risk-coverage curve",
        higher_is_better=False,
        duplicate_invariant=False,
    ),
    MetricSpec(
        "mce",
        "MCE",
        "num",
        "maximum calibration error, the largest bin gap on the ECE bins (JSON only)",
        compute=_mce,
        terminal=False,
        higher_is_better=False,
    ),
    MetricSpec(
        "ece_debiased",
        "debiased CE",
        "num",
        "debiased l2 calibration error on the ECE bins (Kumar, Liang & Ma 2019; JSON only)",
        compute=_debiased_ece,
        terminal=False,
        higher_is_better=False,
        duplicate_invariant=False,
    ),
)

_ENTRIES: list[MetricSpec] = list(_DEFAULTS)


def entries() -> tuple[MetricSpec, ...]:
    """The registered metrics, in display order (the report's columns and JSON keys follow it).

    >>> [m.name for m in entries()][:3]
    ['accuracy', 'mean_confidence', 'median_confidence']
    """
    return tuple(_ENTRIES)


def find(name: str) -> MetricSpec:
    """The entry called ``name`` (its JSON key); a ``KeyError`` listing the names otherwise.

    >>> find("auroc").higher_is_better
    True
    """
    for m in _ENTRIES:
        if m.name == name:
            return m
    raise KeyError(f"no registered metric {name!r}; registered: {', '.join(m.name for m in _ENTRIES)}")


def register(spec: MetricSpec) -> None:
    """Append ``spec`` to the registry (a name already registered is an error).

    >>> with registered(MetricSpec("x_share", "x %", "pct", "a test metric", compute=lambda lv, p, q, o: p[:, 0])):
    ...     "x_share" in [m.name for m in entries()]
    True
    """
    if not isinstance(spec, MetricSpec):
        raise TypeError(f"register: expected a MetricSpec, got {type(spec).__name__}")
    if any(m.name == spec.name for m in _ENTRIES):
        raise ValueError(f"register: a metric called {spec.name!r} is already registered")
    if spec.source not in ("counts", "refusal"):
        raise ValueError(f"register: source must be 'counts' or 'refusal', got {spec.source!r}")
    _ENTRIES.append(spec)


@contextlib.contextmanager
def registered(*specs: MetricSpec) -> Iterator[tuple[MetricSpec, ...]]:
    """Register ``specs`` for the duration of a ``with`` block, then restore the registry as it was.

    Example: :func:`register`.
    """
    saved = list(_ENTRIES)
    try:
        for s in specs:
            register(s)
        yield specs
    finally:
        _ENTRIES[:] = saved


class view(Sequence):  # noqa: N801 - used like a function that returns a live tuple
    """A live, read-only sequence computed from the registry on every access (``METRICS``, ``CI_METRICS``...).

    It compares equal to the tuple it currently holds, so ``JSON_MODEL_KEYS == (...)`` keeps working, and
    ``view + tuple`` gives a tuple.

    >>> names = view(lambda: tuple(m.name for m in entries()))
    >>> names[0], "auroc" in names, names == tuple(names)
    ('accuracy', True, True)
    """

    def __init__(self, get: Callable[[], tuple]):
        self._get = get

    def __getitem__(self, i):
        return self._get()[i]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self):
        return iter(self._get())

    def __contains__(self, x: object) -> bool:
        return x in self._get()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (view, tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._get())

    def __add__(self, other: Any) -> tuple:
        return self._get() + tuple(other)

    def __radd__(self, other: Any) -> tuple:
        return tuple(other) + self._get()

    def __repr__(self) -> str:
        return repr(self._get())


def values(
    levels: Any,
    pos: Any,
    neg: Any,
    names: Sequence[str | MetricSpec] | None,
    options: Mapping[str, Any] | None = None,
    **counts_kw: Any,
) -> dict[str, np.ndarray]:
    """The metrics ``names`` (registered names, or entries) on counts, in one pass.

    Rows of ``pos``/``neg`` are data sets or bootstrap draws.  Definition: the ``batched`` metrics come from one
    call of :func:`selfconf.metrics.counts_statistics` (with ``counts_kw``: ``smooth_sigma``, ``smooth_kernel``,
    ``coverages``, ``covered``; its always-computed keys such as ``n`` and ``high_conf_n`` come too;
    ``names=None``: every statistic it computes), every other counts metric from its own function.  ``snap`` is
    passed on only when off, so the default call is the one the statistics layer always had.  Reference:
    :func:`selfconf.metrics.counts_statistics`.

    >>> v = values([0.5, 0.9], [[1, 1]], [[1, 0]], ("accuracy", "mce"))
    >>> round(float(v["accuracy"][0]), 3), sorted(v)[:3]
    (0.667, ['accuracy', 'brier', 'citl'])
    """
    from selfconf import metrics

    o = options_of(options)
    kw = {k: o[k] for k in ("n_bins", "binning", "edge")}
    if not o["snap"]:
        kw["snap"] = False
    specs = [] if names is None else [find(x) if isinstance(x, str) else x for x in names]
    counts_kw.setdefault("coverages", ())
    batch = None if names is None else tuple(m.name for m in specs)
    st = metrics.counts_statistics(levels, pos, neg, **kw, threshold=o["threshold"], statistics=batch, **counts_kw)
    for spec in specs:
        if spec.source == "counts" and spec.compute is not None:
            st[spec.name] = np.asarray(spec.compute(levels, pos, neg, o), dtype=float)
    return st


def evaluate(
    spec: MetricSpec, confidence: Any, correct: Any, *, refusal: Any = None, options: Mapping[str, Any] | None = None
) -> float:
    """A registered metric on rows: the rows reduced to counts per level (:func:`selfconf.metrics.level_counts`),
    then the entry's function (a ``"refusal"`` metric reads ``refusal``).

    Reference: the count reduction of :func:`selfconf.metrics.counts_statistics` (Chernets 2026, Table 1).

    >>> round(evaluate(find("auroc"), [0.9, 0.8, 0.3, 0.6], [1, 1, 0, 0]), 3)
    1.0
    """
    from selfconf import metrics

    if spec.source == "refusal":
        return float(spec.function(refusal))
    lv, pos, neg = metrics.level_counts(np.asarray(confidence, float), np.asarray(correct))
    return float(np.asarray(spec.function(lv, pos[None, :], neg[None, :], options_of(options)), float)[0])
