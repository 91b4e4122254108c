"""Percentile bootstrap confidence intervals, vectorised over draws.

Three resampling schemes, all driven by an explicit seed:

* **rows** (default): draw n rows with replacement from the n rows.
* **groups** (``groups=``): draw rows with replacement *within* each group,
  independently per group, so every resample keeps each group's size (e.g.
  "row-level resampling within model" when several models are pooled).
* **clusters** (``clusters=``): draw the clusters (items) with replacement and
  keep every row of a drawn item, as many times as the item was drawn.  Cluster
  sizes may differ, so a resample is represented by a weight matrix ``W`` of
  shape (n_boot, n): ``W[b, r]`` = how often row r's item was drawn in draw b.

For rows and groups the draws are an index matrix of shape (n_boot, n)
(:func:`resample_indices`); a *batched* statistic receives the resampled
arrays as 2-D matrices (one resample per row) and returns one value per row.
For clusters a batched statistic receives the original 1-D arrays plus the
keyword ``weights=W`` (see :func:`selfconf.metrics.auroc_weighted`).  A
non-batched statistic is called once per draw on 1-D resampled arrays.

Intervals are percentile intervals: the (1 - level)/2 and (1 + level)/2
quantiles of the bootstrap draws (numpy's default linear interpolation).

Determinism: the same integer seed (or a Generator in the same state) gives
identical draws and identical intervals.  Index matrices are generated in one
call, so the chunk size used to evaluate a statistic never changes the result.

Reference: Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the
Bootstrap*. Chapman & Hall (percentile interval: Ch. 13; bootstrap tests: Ch. 15–16).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

import numpy as np

from selfconf import metrics as _m
from selfconf.stats.normal import Z975, pdf_at_quantile

__all__ = [
    "BootstrapCI",
    "PairedContrast",
    "CiOptions",
    "as_generator",
    "resample_indices",
    "cluster_multiplicities",
    "cluster_weights",
    "percentile_interval",
    "recording_intervals",
    "percentile_ci",
    "grouped_ci",
    "clustered_ci",
    "auroc_ci",
    "paired_auroc_contrast",
    "contrast_p_values",
    "holm",
]

_CHUNK = 250  # draws evaluated together by a batched statistic


# --------------------------------------------------------------------------
# result objects
# --------------------------------------------------------------------------


def _plain(obj: Any, floats: tuple[str, ...], ints: tuple[str, ...]) -> dict[str, Any]:
    """The named attributes of ``obj`` as Python floats, then ints, in the order given (no numpy scalars)."""
    return {k: float(getattr(obj, k)) for k in floats} | {k: int(getattr(obj, k)) for k in ints}


@dataclass(frozen=True)
class BootstrapCI:
    """A point estimate with its percentile bootstrap interval.

    Attributes
    ----------
    estimate : float   statistic on the original data
    low, high : float  interval bounds
    level : float      nominal coverage (e.g. 0.95)
    n_boot : int       number of draws made
    draws : ndarray    the bootstrap replicates, shape (n_boot,)
    n_invalid : int    draws where the statistic was undefined (NaN); they are
                       excluded from the quantiles only if the caller allowed it
    scheme : str       "rows", "groups" or "clusters"
    """

    estimate: float
    low: float
    high: float
    level: float
    n_boot: int
    draws: np.ndarray = field(repr=False)
    n_invalid: int = 0
    scheme: str = "rows"

    @property
    def se(self) -> float:
        """Bootstrap standard error: sample SD (ddof=1) of the valid draws."""
        return float(np.nanstd(self.draws, ddof=1))

    def as_dict(self) -> dict[str, Any]:
        """Plain-Python summary (no numpy scalars), without the draws."""
        return _plain(self, ("estimate", "low", "high", "level"), ("n_boot", "n_invalid")) | {"scheme": self.scheme}


@dataclass(frozen=True)
class PairedContrast:
    """Paired item-clustered bootstrap contrast of two AUROCs (A minus B).

    Attributes
    ----------
    estimate : float          AUROC_A - AUROC_B on the original rows
    low, high : float         percentile interval of the difference
    p_one_sided : float       share of draws with difference <= 0 (H1: A > B)
    p_one_sided_upper : float share of draws with difference >= 0 (H1: A < B)
    p_two_sided : float       min(1, 2 min(p_one_sided, p_one_sided_upper))
    auroc_a, auroc_b : BootstrapCI   each arm with its own interval, from the same draws
    draws : ndarray           bootstrap differences, shape (n_boot,)
    level, n_boot, n_items    settings and the number of distinct items resampled
    """

    estimate: float
    low: float
    high: float
    p_one_sided: float
    p_one_sided_upper: float
    p_two_sided: float
    auroc_a: BootstrapCI
    auroc_b: BootstrapCI
    level: float
    n_boot: int
    n_items: int
    draws: np.ndarray = field(repr=False)

    def as_dict(self) -> dict[str, Any]:
        """Plain-Python summary (no numpy scalars), without the draws."""
        head = _plain(self, ("estimate", "low", "high", "p_one_sided", "p_one_sided_upper", "p_two_sided"), ())
        arms = {"auroc_a": float(self.auroc_a.estimate), "auroc_b": float(self.auroc_b.estimate)}
        return head | arms | _plain(self, ("level",), ("n_boot", "n_items"))


# --------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------


def as_generator(rng: np.random.Generator | int | np.integer | None) -> np.random.Generator:
    """Return a ``numpy.random.Generator``: the one given, or ``default_rng(seed)`` for an int.

    ``None`` is refused: every bootstrap in the project takes an explicit seed so
    results are reproducible.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    if rng is None:
        raise ValueError("rng is required: pass an int seed or a numpy.random.Generator (results must be reproducible)")
    raise TypeError(f"rng must be an int seed or numpy.random.Generator, got {type(rng).__name__}")


def _check_n_boot(n_boot: int) -> int:
    if isinstance(n_boot, bool) or int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    return int(n_boot)


def _check_level(level: float) -> float:
    if not (0.0 < float(level) < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return float(level)


def _labels(x: Any, name: str, n: int) -> np.ndarray:
    """Integer codes 0..G-1 for a label array of length n (group or cluster ids)."""
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name}: length {arr.shape[0]} does not match the data length {n}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        pos = int(np.flatnonzero(np.isnan(arr))[0])
        raise ValueError(f"{name}: {int(np.isnan(arr).sum())} missing label(s); first at index {pos}")
    if arr.dtype == object and any(v is None for v in arr):
        pos = next(i for i, v in enumerate(arr) if v is None)
        raise ValueError(f"{name}: missing label (None) at index {pos}")
    _, code = np.unique(arr, return_inverse=True)
    return code.reshape(-1)


def _index_dtype(n: int) -> type:
    return np.int32 if n < 2**31 - 1 else np.int64


def resample_indices(
    n: int,
    n_boot: int,
    rng: np.random.Generator | int,
    groups: Any = None,
) -> np.ndarray:
    """Index matrix of bootstrap resamples, shape (n_boot, n).

    Definition: without ``groups``, every entry is drawn uniformly from 0..n-1
    (i.i.d. row resampling).  With ``groups`` (a label per row), the positions
    of group g are filled with rows drawn uniformly from group g only, so
    every resample has the same group sizes as the data.  Groups are processed
    in sorted label order, which fixes the random stream for a given seed.

    Parameters
    ----------
    n : int            number of rows
    n_boot : int       number of draws
    rng : Generator or int seed
    groups : array-like of shape (n,), optional

    Returns
    -------
    numpy.ndarray of int32 (int64 for huge n), shape (n_boot, n)

    References
    ----------
    Efron & Tibshirani (1993), Ch. 6 (nonparametric bootstrap); stratified
    resampling: Davison, A. C. & Hinkley, D. V. (1997). *Bootstrap Methods and
    their Application*, Sec. 3.2.
    """
    gen = as_generator(rng)
    n_boot = _check_n_boot(n_boot)
    n = int(n)
    if n < 1:
        raise ValueError("resample_indices: need at least one row")
    dt = _index_dtype(n)
    if groups is None:
        return gen.integers(0, n, size=(n_boot, n), dtype=dt)
    code = _labels(groups, "groups", n)
    idx: np.ndarray = np.empty((n_boot, n), dtype=dt)
    for g in range(int(code.max()) + 1):
        rows: np.ndarray = np.flatnonzero(code == g).astype(dt)
        pick = gen.integers(0, rows.size, size=(n_boot, rows.size), dtype=dt)
        idx[:, rows] = rows[pick]
    return idx


def cluster_multiplicities(n_clusters: int, n_boot: int, rng: np.random.Generator | int) -> np.ndarray:
    """How often each cluster is drawn in each resample, shape (n_boot, n_clusters).

    Definition: each draw picks ``n_clusters`` clusters uniformly with
    replacement; entry (b, g) counts the picks of cluster g in draw b (each row
    sums to ``n_clusters``).

    References
    ----------
    Davison & Hinkley (1997), Sec. 3.8 (resampling clusters); Efron & Tibshirani (1993).
    """
    gen = as_generator(rng)
    n_boot = _check_n_boot(n_boot)
    g = int(n_clusters)
    picks = gen.integers(0, g, size=(n_boot, g), dtype=_index_dtype(g))
    # one bincount per draw: its count array stays in cache (one bincount over all draws into n_boot * g
    # slots was 2-4x slower); the picks, and so the counts, are those of the same stream
    out = np.empty((n_boot, g), np.int32)
    for b in range(n_boot):
        out[b] = np.bincount(picks[b], minlength=g)
    return out


def cluster_weights(clusters: Any, n_boot: int, rng: np.random.Generator | int) -> np.ndarray:
    """Row weights of an item-clustered bootstrap, shape (n_boot, n).

    Definition: ``W[b, r]`` = number of times the cluster of row r was drawn in
    draw b (see :func:`cluster_multiplicities`); clusters are numbered in sorted
    label order.  Weighting a statistic by ``W[b]`` is the same as evaluating it
    on the resample that repeats every row of each drawn cluster.

    Parameters
    ----------
    clusters : array-like of shape (n,)
        Cluster (item) label per row; sizes may differ.
    n_boot : int
    rng : Generator or int seed
    """
    code = _labels(clusters, "clusters", len(np.asarray(clusters)))
    m = cluster_multiplicities(int(code.max()) + 1, n_boot, rng)
    return m[:, code]


#: Open recorders of :func:`recording_intervals` (innermost last); empty outside one.
_RECORDERS: list[list[tuple[float, np.ndarray, float, float]]] = []


@contextmanager
def recording_intervals():
    """Record every percentile interval computed inside the ``with`` block: ``(level, draws, low, high)``.

    The Monte-Carlo seed study (:mod:`selfconf.book.seedstudy`) reads the draws behind each interval end
    point a section computes (to estimate the bootstrap density at the end point).  Recording copies the
    draws and changes no result.

    >>> with recording_intervals() as rec:
    ...     lo, hi = percentile_interval(np.arange(101.0), 0.9)
    >>> len(rec), rec[0][0], rec[0][2:] == (lo, hi)
    (1, 0.9, True)
    """
    rec: list[tuple[float, np.ndarray, float, float]] = []
    _RECORDERS.append(rec)
    try:
        yield rec
    finally:
        _RECORDERS.remove(rec)


def percentile_interval(draws: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap draws: their (1-level)/2 and (1+level)/2 quantiles.

    Uses ``numpy.quantile`` with its default linear interpolation (Hyndman &
    Fan type 7).  Reference: Efron & Tibshirani (1993), Sec. 13.3.
    """
    level = _check_level(level)
    a = (1.0 - level) / 2.0
    d = np.asarray(draws, dtype=float)
    lo, hi = np.quantile(d, [a, 1.0 - a])
    for rec in _RECORDERS:
        rec.append((level, d.astype(np.float32), float(lo), float(hi)))
    return float(lo), float(hi)


def _finish(
    estimate: float, draws: np.ndarray, level: float, scheme: str, allow_invalid: bool, what: str = "statistic"
) -> BootstrapCI:
    draws = np.asarray(draws, dtype=float)
    invalid = ~np.isfinite(draws)
    n_invalid = int(invalid.sum())
    if n_invalid and not allow_invalid:
        raise ValueError(
            f"{n_invalid} of {draws.size} bootstrap draws gave an undefined {what} "
            f"(e.g. a resample holding one class only); pass allow_invalid=True to exclude "
            f"them (the count is kept in n_invalid)"
        )
    if n_invalid == draws.size:
        raise ValueError(f"all {draws.size} bootstrap draws gave an undefined {what}")
    lo, hi = percentile_interval(draws[~invalid], level)
    return BootstrapCI(float(estimate), lo, hi, level, int(draws.size), draws, n_invalid, scheme)


# --------------------------------------------------------------------------
# generic percentile CI
# --------------------------------------------------------------------------


def percentile_ci(
    stat: Callable[..., Any],
    *arrays: Any,
    n_boot: int = 2000,
    rng: np.random.Generator | int | None = None,
    level: float = 0.95,
    batched: bool = False,
    groups: Any = None,
    clusters: Any = None,
    allow_invalid: bool = False,
    chunk_size: int = _CHUNK,
) -> BootstrapCI:
    """Percentile bootstrap confidence interval for any statistic of row-aligned arrays.

    Definition: draw ``n_boot`` resamples (rows, rows within ``groups``, or
    whole ``clusters``; see the module docstring), evaluate ``stat`` on each,
    and report the (1-level)/2 and (1+level)/2 quantiles of the replicates
    around the estimate ``stat(*arrays)``.

    Parameters
    ----------
    stat : callable
        Non-batched (default): ``stat(*arrays_1d) -> float``.
        ``batched=True`` without clusters: ``stat(*matrices) -> (B,)`` where
        each matrix has shape (B, n) and row b is resample b
        (e.g. :func:`selfconf.metrics.auroc_batched`).
        ``batched=True`` with clusters: ``stat(*arrays_1d, weights=W) -> (B,)``
        with ``W`` of shape (B, n) holding row multiplicities
        (e.g. :func:`selfconf.metrics.auroc_weighted`).
    *arrays : array-likes of equal length n
        Row-aligned inputs (1-D).
    n_boot : int, default 2000
    rng : numpy.random.Generator or int seed (required)
    level : float, default 0.95
    batched : bool, default False
    groups : array-like of shape (n,), optional
        Resample rows within each group independently.
    clusters : array-like of shape (n,), optional
        Resample clusters (items) with replacement, keeping all their rows.
        Cannot be combined with ``groups``.
    allow_invalid : bool, default False
        If False, any NaN/inf replicate raises ``ValueError`` (with the count);
        if True such draws are left out of the quantiles and counted in
        ``n_invalid``.
    chunk_size : int
        Draws handed to a batched statistic per call (memory bound only; the
        result does not depend on it).

    Returns
    -------
    BootstrapCI

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap,
    Ch. 13 (percentile interval).
    """
    if groups is not None and clusters is not None:
        raise ValueError("percentile_ci: use either groups= or clusters=, not both")
    arrs = _row_aligned(arrays)
    n = arrs[0].shape[0]
    n_boot = _check_n_boot(n_boot)
    level = _check_level(level)
    gen = as_generator(rng)
    chunk = max(1, int(chunk_size))
    if clusters is not None:
        ccode = _labels(clusters, "clusters", n)
        mult = cluster_multiplicities(int(ccode.max()) + 1, n_boot, gen)
        estimate, draws = _cluster_draws(stat, arrs, ccode, mult, batched, chunk)
        scheme = "clusters"
    else:
        idx = resample_indices(n, n_boot, gen, groups=groups)
        estimate, draws = _index_draws(stat, arrs, idx, batched, chunk)
        scheme = "rows" if groups is None else "groups"
    if draws.size != n_boot:
        raise ValueError(f"stat produced {draws.size} replicates for {n_boot} draws")
    return _finish(float(estimate), draws, level, scheme, allow_invalid)


def _row_aligned(arrays: tuple[Any, ...]) -> list[np.ndarray]:
    """The data arrays of :func:`percentile_ci` as 1-D numpy arrays of one length (else a ValueError naming one).

    >>> [a.tolist() for a in _row_aligned(([1, 2], [0, 1]))]
    [[1, 2], [0, 1]]
    """
    if not arrays:
        raise ValueError("percentile_ci: pass at least one data array")
    arrs = [np.asarray(a) for a in arrays]
    for i, a in enumerate(arrs):
        if a.ndim != 1:
            raise ValueError(f"arrays[{i}]: expected a 1-D array, got shape {a.shape}")
    n = arrs[0].shape[0]
    for i, a in enumerate(arrs[1:], start=1):
        if a.shape[0] != n:
            raise ValueError(f"arrays[{i}] has length {a.shape[0]}, arrays[0] has length {n}")
    return arrs


def _in_chunks(evaluate: Callable[[int, int], Any], total: int, chunk: int, unit: str) -> np.ndarray:
    """Draws of a batched statistic, ``chunk`` at a time: ``evaluate(a, b)`` gives the values of draws a..b-1.

    A chunk that returns another number of values than it was given raises a ValueError naming ``unit``.
    """
    parts = []
    for a0 in range(0, total, chunk):
        want = min(chunk, total - a0)
        part = np.asarray(evaluate(a0, a0 + want), dtype=float).reshape(-1)
        if part.size != want:
            raise ValueError(
                f"batched stat returned {part.size} values for {want} {unit}; it must return one value per row"
                + (" of weights" if unit == "weight rows" else "")
            )
        parts.append(part)
    return np.concatenate(parts) if parts else np.empty(0)


def _cluster_draws(
    stat: Callable[..., Any], arrs: list[np.ndarray], ccode: np.ndarray, mult: np.ndarray, batched: bool, chunk: int
) -> tuple[float, np.ndarray]:
    """Estimate and draws of ``stat`` under the cluster bootstrap: row weights ``mult[b, ccode]`` per draw b
    (a batched statistic gets them as ``weights=``; otherwise each drawn cluster's rows are repeated)."""
    n = arrs[0].shape[0]
    if batched:
        estimate = np.asarray(stat(*arrs, weights=np.ones((1, n)))).reshape(-1)[0]
        draws = _in_chunks(lambda a, b: stat(*arrs, weights=mult[a:b][:, ccode]), mult.shape[0], chunk, "weight rows")
        return estimate, draws
    estimate = stat(*arrs)
    rows = np.arange(n)
    draws = np.empty(mult.shape[0])
    for b in range(mult.shape[0]):
        take = np.repeat(rows, mult[b, ccode])
        draws[b] = stat(*[a[take] for a in arrs])
    return estimate, draws


def _index_draws(
    stat: Callable[..., Any], arrs: list[np.ndarray], idx: np.ndarray, batched: bool, chunk: int
) -> tuple[float, np.ndarray]:
    """Estimate and draws of ``stat`` on the resamples given as row indices ``idx`` (n_boot, n)."""
    if batched:
        estimate = np.asarray(stat(*[a[None, :] for a in arrs])).reshape(-1)[0]
        draws = _in_chunks(lambda a, b: stat(*[x[idx[a:b]] for x in arrs]), idx.shape[0], chunk, "resamples")
        return estimate, draws
    estimate = stat(*arrs)
    return estimate, np.array([stat(*[a[i] for a in arrs]) for i in idx], dtype=float)


class CiOptions(TypedDict, total=False):
    """The keywords :func:`grouped_ci` and :func:`clustered_ci` pass on to :func:`percentile_ci` (its defaults).

    >>> sorted(CiOptions.__annotations__)
    ['allow_invalid', 'batched', 'chunk_size', 'level', 'n_boot', 'rng']
    """

    n_boot: int
    rng: np.random.Generator | int | None
    level: float
    batched: bool
    allow_invalid: bool
    chunk_size: int


def grouped_ci(stat: Callable[..., Any], *arrays: Any, groups: Any, **options: Unpack[CiOptions]) -> BootstrapCI:
    """Percentile CI with rows resampled within each group independently.

    Same as ``percentile_ci(stat, *arrays, groups=groups, ...)``: every draw keeps
    each group's row count and fills it with rows of that group only (e.g.
    row-level resampling within model when models are pooled).  See
    :func:`percentile_ci` for the parameters.

    References
    ----------
    Davison & Hinkley (1997), Sec. 3.2 (stratified resampling); Efron & Tibshirani (1993), Ch. 13.
    """
    return percentile_ci(stat, *arrays, groups=groups, **options)


def clustered_ci(stat: Callable[..., Any], *arrays: Any, clusters: Any, **options: Unpack[CiOptions]) -> BootstrapCI:
    """Percentile CI with items (clusters) resampled with replacement, all their rows kept.

    Same as ``percentile_ci(stat, *arrays, clusters=clusters, ...)``.  Cluster
    sizes may differ; a batched ``stat`` is called as
    ``stat(*arrays, weights=W)`` with ``W`` the (B, n) row multiplicities (e.g.
    :func:`selfconf.metrics.auroc_weighted`), a non-batched one on each
    explicit resample.  See :func:`percentile_ci` for the parameters.

    References
    ----------
    Davison & Hinkley (1997), Sec. 3.8 (resampling clusters); Efron & Tibshirani (1993), Ch. 13.
    """
    return percentile_ci(stat, *arrays, clusters=clusters, **options)


# --------------------------------------------------------------------------
# AUROC specialisations
# --------------------------------------------------------------------------


def _dense_codes(score: np.ndarray) -> tuple[np.ndarray, int]:
    """Order-preserving codes 0..K-1 of the distinct scores (AUROC depends on order only)."""
    levels, code = np.unique(score, return_inverse=True)
    return code.reshape(-1).astype(np.int32), int(levels.size)


def auroc_ci(
    score: Any,
    correct: Any,
    *,
    n_boot: int = 2000,
    rng: np.random.Generator | int | None = None,
    level: float = 0.95,
    groups: Any = None,
    clusters: Any = None,
    allow_invalid: bool = False,
) -> BootstrapCI:
    """Percentile bootstrap CI of the tie-corrected AUROC (fast path).

    Definition and draws are exactly those of
    ``percentile_ci(auroc_batched, score, correct, batched=True, ...)`` (or
    ``auroc_weighted`` with ``clusters=``) for the same ``rng``: the scores are
    first replaced by their dense ranks (which leaves every AUROC unchanged),
    so each resample reduces to one ``bincount`` of (level, class) cells.

    Parameters
    ----------
    score, correct : array-like of shape (n,)
    n_boot, rng, level, groups, clusters, allow_invalid
        As in :func:`percentile_ci`.

    Returns
    -------
    BootstrapCI

    References
    ----------
    Hanley & McNeil (1982) for the AUROC; Efron & Tibshirani (1993) for the
    percentile interval.
    """
    s = _m._as_score(score, "score")
    y = _m._as_correct(correct, "correct")
    _m._same_shape(s, y, "score", "correct")
    n_boot = _check_n_boot(n_boot)
    level = _check_level(level)
    if groups is not None and clusters is not None:
        raise ValueError("auroc_ci: use either groups= or clusters=, not both")
    gen = as_generator(rng)
    estimate = _m.auroc(s, y)
    code, k = _dense_codes(s)
    if clusters is not None:
        ccode = _labels(clusters, "clusters", s.size)
        mult = cluster_multiplicities(int(ccode.max()) + 1, n_boot, gen)
        draws = _clustered_auroc_draws(code, y, k, ccode, mult)
        scheme = "clusters"
    else:
        idx = resample_indices(s.size, n_boot, gen, groups=groups)
        cell = (code * 2 + y).astype(np.int32)
        draws = np.concatenate([_auroc_cells(cell[idx[a : a + _CHUNK]], k) for a in range(0, n_boot, _CHUNK)])
        scheme = "rows" if groups is None else "groups"
    return _finish(estimate, draws, level, scheme, allow_invalid, "AUROC")


def _auroc_cells(cell: np.ndarray, k: int) -> np.ndarray:
    """Counting AUROC for a (B, n) matrix of cells 2*level + class (int32, no validation)."""
    b = cell.shape[0]
    cell = cell + (np.arange(b, dtype=np.int32) * np.int32(2 * k))[:, None]
    counts = np.bincount(cell.ravel(), minlength=b * 2 * k).reshape(b, k, 2)
    return _m.auroc_from_counts(counts[:, :, 1], counts[:, :, 0])


#: Up to this many (level, class) cells the clustered draws use one matrix product per chunk.
_MATMUL_MAX_CELLS = 512
#: The clustered draws use the sparse product when fewer than 1 / this share of the (cluster, cell) pairs are occupied.
_SPARSE_SHARE = 8


def _clustered_auroc_draws(code: np.ndarray, y: np.ndarray, k: int, ccode: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """AUROC per draw when row r carries weight mult[b, ccode[r]].

    With few score levels the per-draw cell counts are ``mult @ M``, where ``M[g, cell]`` counts
    cluster g's rows in each (level, class) cell: one BLAS product instead of gathering a weight
    per row.  The product runs in float32, which is exact here (integer partial sums < 2**24), so
    both paths give identical counts and identical AUROCs.  When few (cluster, cell) pairs are occupied (items with
    a row or two each, as in a paired arm contrast) the same counts come from the sparse product of
    :func:`cell_count_draws`, which does only the occupied pairs' work (about half the time on 5,000 items)."""
    if 2 * k <= _MATMUL_MAX_CELLS:
        cell = code.astype(np.intp) * 2 + y
        occupied = np.unique(ccode.astype(np.int64) * (2 * k) + cell).size
        if occupied * _SPARSE_SHARE < mult.shape[1] * 2 * k:
            out = []
            for counts in cell_count_draws(mult, ccode, cell, 2 * k):
                counts = counts.reshape(-1, k, 2)
                out.append(_m.auroc_from_counts(counts[:, :, 1], counts[:, :, 0]))
            return np.concatenate(out) if out else np.empty(0)
    if 2 * k <= _MATMUL_MAX_CELLS and mult.shape[1] * 2 * k < 2**24:
        cell = code.astype(np.intp) * 2 + y
        M = np.zeros((mult.shape[1], 2 * k), np.float32)
        np.add.at(M, (ccode, cell), 1.0)
        if mult.max(initial=0) * M.sum(axis=0).max(initial=0) < 2**24:
            out = []
            for a in range(0, mult.shape[0], _CHUNK):
                counts = (mult[a : a + _CHUNK].astype(np.float32) @ M).astype(np.float64)
                counts = counts.reshape(-1, k, 2)
                out.append(_m.auroc_from_counts(counts[:, :, 1], counts[:, :, 0]))
            return np.concatenate(out)
    order, starts, cells = _m._cell_layout(code, y)
    item_of_sorted_row = ccode[order]
    out = []
    for a in range(0, mult.shape[0], _CHUNK):
        w_sorted = mult[a : a + _CHUNK][:, item_of_sorted_row]
        out.append(_m._auroc_from_sorted_weights(w_sorted, starts, cells, k))
    return np.concatenate(out)


def paired_auroc_contrast(
    score_a: Any,
    score_b: Any,
    correct_a: Any,
    correct_b: Any,
    items: Any,
    n_boot: int = 2000,
    rng: np.random.Generator | int | None = None,
    level: float = 0.95,
    *,
    items_b: Any = None,
) -> PairedContrast:
    """Paired, item-clustered bootstrap contrast AUROC_A - AUROC_B on the same items.

    Definition: Δ = AUROC(score_a, correct_a) - AUROC(score_b, correct_b).  Each
    bootstrap draw resamples *items* with replacement (from the union of the
    item labels of both arms) and keeps every row of each drawn item in both
    arms, so the two AUROCs of a draw share the same item sample (pairing) and
    rows of one item stay together (clustering; items may have unequal
    numbers of rows, e.g. replicates, pooled models or arms with abstentions
    removed).

    Use ``items_b=None`` when both scores belong to the same rows (e.g. self
    confidence vs. panel agreement on the same answers; then ``correct_b`` is
    normally ``correct_a``).  Use ``items_b`` when arm B has its own rows (e.g.
    two prompt arms answered on the same items).

    p-values (bootstrap, Efron & Tibshirani 1993, Ch. 15–16), from the draws Δ*:
        one-sided  p1 = share of draws with Δ* <= 0   (H1: A discriminates better than B)
        upper      p1u = share of draws with Δ* >= 0  (H1: A worse than B)
        two-sided  p2 = min(1, 2 min(p1, p1u))
    When no draw equals 0 exactly, p1u = 1 - p1 and p2 = min(1, 2 min(p1, 1 - p1)).
    Draws with Δ* = 0 exactly (possible with coarse scores) count on both sides,
    so identical arms give p2 = 1 rather than the 0 that ``1 - p1`` would give.
    A p-value of 0 means "below 1 / n_boot".

    Parameters
    ----------
    score_a, correct_a : array-like of shape (n_a,)
    score_b, correct_b : array-like of shape (n_b,)
    items : array-like of shape (n_a,)
        Item label of each arm-A row (and of arm-B rows when ``items_b`` is None,
        which then requires n_b == n_a).
    items_b : array-like of shape (n_b,), optional
    n_boot : int, default 2000
    rng : Generator or int seed (required)
    level : float, default 0.95

    Returns
    -------
    PairedContrast
        Δ with its percentile interval, the two p-values, and each arm's AUROC
        with its own interval from the same draws.  Raises ``ValueError`` if any
        draw leaves an arm with one class.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
    Chapman & Hall. Hanley & McNeil (1982) for the AUROC.
    """
    sa = _m._as_score(score_a, "score_a")
    sb = _m._as_score(score_b, "score_b")
    ya = _m._as_correct(correct_a, "correct_a")
    yb = _m._as_correct(correct_b, "correct_b")
    _m._same_shape(sa, ya, "score_a", "correct_a")
    _m._same_shape(sb, yb, "score_b", "correct_b")
    ia = np.asarray(items)
    if items_b is None:
        if sb.size != sa.size:
            raise ValueError(f"score_b has length {sb.size} but score_a has {sa.size}; pass items_b for arm B's rows")
        ib = ia
    else:
        ib = np.asarray(items_b)
    if ia.ndim != 1 or ia.shape[0] != sa.size:
        raise ValueError(f"items: expected length {sa.size} (one label per arm-A row), got shape {ia.shape}")
    if ib.ndim != 1 or ib.shape[0] != sb.size:
        raise ValueError(f"items_b: expected length {sb.size} (one label per arm-B row), got shape {ib.shape}")
    n_boot = _check_n_boot(n_boot)
    level = _check_level(level)
    gen = as_generator(rng)

    both = _labels(np.concatenate([ia, ib]), "items", ia.size + ib.size)
    ca, cb = both[: ia.size], both[ia.size :]
    n_items = int(both.max()) + 1
    est_a = _m.auroc(sa, ya)
    est_b = _m.auroc(sb, yb)
    mult = cluster_multiplicities(n_items, n_boot, gen)
    code_a, ka = _dense_codes(sa)
    code_b, kb = _dense_codes(sb)
    draws_a = _clustered_auroc_draws(code_a, ya, ka, ca, mult)
    draws_b = _clustered_auroc_draws(code_b, yb, kb, cb, mult)
    res_a = _finish(est_a, draws_a, level, "clusters", False, "AUROC (arm A)")
    res_b = _finish(est_b, draws_b, level, "clusters", False, "AUROC (arm B)")
    delta = draws_a - draws_b
    lo, hi = percentile_interval(delta, level)
    p1, p1u, p2 = contrast_p_values(delta)
    return PairedContrast(float(est_a - est_b), lo, hi, p1, p1u, p2, res_a, res_b, level, n_boot, n_items, delta)


def contrast_p_values(delta_draws: Any) -> tuple[float, float, float]:
    """Bootstrap p-values of a contrast from its draws Δ*: ``(p1, p1u, p2)``.

    Definition (Efron & Tibshirani 1993, Ch. 15-16): p1 = share of draws with Δ* <= 0, p1u = share with
    Δ* >= 0, p2 = min(1, 2 min(p1, p1u)); draws equal to 0 count on both sides, so identical arms give
    p2 = 1.  The rule of :func:`paired_auroc_contrast`, shared by every paired contrast of the package.

    References: Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap, Ch. 15-16.

    >>> contrast_p_values([0.1, 0.2, -0.1, 0.3])
    (0.25, 0.75, 0.5)
    """
    d = np.asarray(delta_draws, dtype=float)
    p1 = float(np.mean(d <= 0.0))
    p1u = float(np.mean(d >= 0.0))
    return p1, p1u, float(min(1.0, 2.0 * min(p1, p1u)))


# --------------------------------------------------------------------------
# multiplicity
# --------------------------------------------------------------------------


def holm(pvalues: Any) -> np.ndarray:
    """Holm step-down adjusted p-values, returned in the input order.

    Definition: sort the m p-values ascending, p_(1) <= ... <= p_(m); the
    adjusted value of p_(j) is max_{i <= j} min(1, (m - i + 1) p_(i)).  The
    result is monotone in the sorted order and capped at 1; rejecting where the
    adjusted p <= alpha controls the family-wise error rate at alpha.
    Ties keep their input order (stable sort), which does not change any value.
    A 2-D (or higher) array holds one family per row: the adjustment runs along
    the last axis, each family on its own (vectorised, no Python loop).

    Parameters
    ----------
    pvalues : array-like of shape (m,) or (..., m)
        Raw p-values in [0, 1].

    Returns
    -------
    numpy.ndarray of float, the shape of ``pvalues``

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6, 65–70.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> holm([[0.064, 0.042], [0.5, 0.01]]).round(3).tolist()
    [[0.084, 0.084], [0.5, 0.02]]
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim == 0:
        raise ValueError(f"pvalues: expected a 1-D array (or one family per row), got shape {p.shape}")
    if p.size == 0:
        return p.copy()
    bad = ~np.isfinite(p) | (p < 0) | (p > 1)
    if bad.any():
        flat = int(np.flatnonzero(bad.ravel())[0])
        where = flat if p.ndim == 1 else tuple(int(i) for i in np.unravel_index(flat, p.shape))
        raise ValueError(
            f"pvalues: {int(bad.sum())} value(s) not in [0, 1]; first at index {where}: {_m._fmt_val(p.ravel()[flat])}"
        )
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * np.take_along_axis(p, order, axis=-1))
    adj_sorted = np.maximum.accumulate(scaled, axis=-1)
    out = np.empty_like(adj_sorted)
    np.put_along_axis(out, order, adj_sorted, axis=-1)
    return out


# --------------------------------------------------------------------------
# row bootstrap on per-level counts (the practitioner report)
# --------------------------------------------------------------------------

__all__ += ["count_draws", "interval_or_nan"]


def _cell_draws(pos: Any, neg: Any, n_boot: int, rng: Any, max_cells: int, sample: Any, name: str):
    """The chunked draws of :func:`count_draws` and :func:`poisson_count_draws`, which differ only in ``sample``.

    The (level, class) cells are laid out level-major, wrong before right; empty cells are skipped;
    ``sample(gen, counts_of_used_cells, b)`` returns the ``(b, used cells)`` resampled counts of one chunk.
    Yields ``(P, Q)`` as documented there.
    """
    p = np.asarray(pos, dtype=np.int64)
    q = np.asarray(neg, dtype=np.int64)
    n_boot = _check_n_boot(n_boot)
    gen = as_generator(rng)
    k = p.size
    cells = np.stack([q, p], axis=1).ravel()  # level-major, wrong then right
    used = np.flatnonzero(cells > 0)
    if not used.size:
        raise ValueError(f"{name}: no rows to resample")
    counts = cells[used]
    step = max(1, int(max_cells) // max(1, used.size))
    done = 0
    while done < n_boot:
        b = min(step, n_boot - done)
        full: np.ndarray = np.zeros((b, 2 * k), dtype=np.int64)
        full[:, used] = sample(gen, counts, b)
        by_level = full.reshape(b, k, 2)
        yield by_level[:, :, 1], by_level[:, :, 0]
        done += b


def count_draws(pos: Any, neg: Any, *, n_boot: int, rng: np.random.Generator | int, max_cells: int = 4_000_000):
    """Row-bootstrap draws expressed as per-level counts, yielded in chunks.

    Definition: drawing n rows with replacement from n rows gives every row a
    Multinomial(n, 1/n, ..., 1/n) multiplicity; summing the multiplicities of the rows in each
    (level, class) cell gives Multinomial(n, p) cell counts with p = cell count / n.  So for a
    statistic that depends on the rows only through these counts (every statistic of
    :func:`selfconf.metrics.counts_statistics`), drawing the cell counts directly has exactly
    the distribution of the row bootstrap, costs O(n_boot x cells) instead of O(n_boot x n),
    and cannot depend on the order of the rows.  Cells are taken in a fixed order (ascending
    level, wrong before right), empty cells are skipped, so the draws depend only on the counts
    and the generator.

    Parameters
    ----------
    pos, neg : int arrays (K,) of correct / wrong counts per level
    n_boot : int, number of draws
    rng : numpy.random.Generator or int seed
    max_cells : int, bound on draws x levels held in one chunk (memory only; the draws do not
        depend on it)

    Yields
    ------
    (P, Q) : int64 arrays (b, K) of resampled correct / wrong counts, b <= n_boot in total n_boot

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap, Ch. 6 and 13;
    Davison, A. C. & Hinkley, D. V. (1997). Bootstrap Methods and their Application, Sec. 2.3.

    Examples
    --------
    >>> P, Q = next(count_draws([3, 1], [0, 2], n_boot=4, rng=0))
    >>> (P + Q).sum(axis=1).tolist()
    [6, 6, 6, 6]
    """

    def multinomial(gen: np.random.Generator, counts: np.ndarray, b: int) -> np.ndarray:
        n = int(counts.sum())
        return gen.multinomial(n, counts / n, size=b)

    yield from _cell_draws(pos, neg, n_boot, rng, max_cells, multinomial, "count_draws")


def interval_or_nan(draws: Any, level: float = 0.95) -> tuple[float, float, int]:
    """Percentile interval of the finite draws, with the number of undefined (NaN) draws.

    Definition: :func:`percentile_interval` on the finite values; ``(nan, nan, n)`` when none is
    finite (e.g. an AUROC of a model with one class only).

    References
    ----------
    Efron & Tibshirani (1993), Sec. 13.3.

    Examples
    --------
    >>> interval_or_nan([0.1, float("nan"), 0.3], 0.5)
    (0.15, 0.25, 1)
    """
    d = np.asarray(draws, dtype=float)
    ok = np.isfinite(d)
    if not ok.any():
        return float("nan"), float("nan"), int(d.size)
    lo, hi = percentile_interval(d[ok], level)
    return lo, hi, int(d.size - ok.sum())


__all__ += ["cell_count_draws"]


def cell_count_draws(multiplicities: Any, clusters: Any, cells: Any, n_cells: int, *, chunk: int = _CHUNK):
    """Per-cell row counts of item-clustered bootstrap draws, yielded in chunks of draws.

    Definition: row r lies in cluster ``clusters[r]`` and cell ``cells[r]`` (e.g. a model × confidence
    level × correct combination).  In draw b a cluster g drawn ``multiplicities[b, g]`` times contributes
    that many copies of each of its rows, so the count of cell c in draw b is

        N[b, c] = sum over rows r in cell c of multiplicities[b, clusters[r]].

    Every statistic that depends on the rows only through such counts (AUROC, accuracy, CITL, ECE, median,
    high-confidence error, per model or pooled; see :func:`selfconf.metrics.counts_statistics`) can then
    be evaluated on all draws at once, and several statistics computed from the same ``multiplicities``
    share one item draw (a paired comparison).  The product is a sparse (cells x clusters) matrix times
    the dense multiplicities.  Every count is an integer; when the largest possible count (largest
    multiplicity times the number of rows) is below 2**24 the product is taken in float32, where such
    integers and their sums are exact (half the memory traffic of float64, the same counts); otherwise
    (larger counts, or multiplicities that are not integers) in float64.  The counts are yielded as float64 either way.

    Parameters
    ----------
    multiplicities : int array (B, G), from :func:`cluster_multiplicities`
    clusters : int array (n,), cluster code 0..G-1 per row
    cells : int array (n,), cell code 0..n_cells-1 per row
    n_cells : int
    chunk : draws per yielded block (memory only; the counts do not depend on it)

    Yields
    ------
    numpy.ndarray (b, n_cells) of float64 counts, b <= chunk, B rows in total

    References
    ----------
    Davison & Hinkley (1997), Sec. 3.8 (resampling clusters); Efron & Tibshirani (1993).

    Examples
    --------
    >>> mult = np.array([[2, 0], [0, 2]])  # draw 0 picks cluster 0 twice, draw 1 cluster 1 twice
    >>> next(cell_count_draws(mult, [0, 0, 1], [0, 1, 1], 2)).tolist()
    [[2.0, 2.0], [0.0, 2.0]]
    """
    from scipy import sparse

    m = np.asarray(multiplicities)
    g = np.asarray(clusters, dtype=np.int64)
    c = np.asarray(cells, dtype=np.int64)
    if m.ndim != 2:
        raise ValueError(f"multiplicities: expected shape (B, G), got {m.shape}")
    if g.shape != c.shape or g.ndim != 1:
        raise ValueError(f"clusters {g.shape} and cells {c.shape} must be 1-D of one length")
    if g.size and (g.min() < 0 or g.max() >= m.shape[1]):
        raise ValueError(f"clusters: codes must lie in 0..{m.shape[1] - 1}")
    if c.size and (c.min() < 0 or c.max() >= n_cells):
        raise ValueError(f"cells: codes must lie in 0..{n_cells - 1}")
    exact32 = m.dtype.kind in "iub" and (m.size == 0 or max(-int(m.min()), int(m.max())) * max(g.size, 1) < 2**24)
    dt = np.float32 if exact32 else np.float64
    a = sparse.csr_matrix((np.ones(g.size, dt), (c, g)), shape=(int(n_cells), m.shape[1]))
    for lo in range(0, m.shape[0], max(1, int(chunk))):
        block = m[lo : lo + chunk].astype(dt)
        yield np.asarray((a @ block.T).T, dtype=np.float64)


# --------------------------------------------------------------------------
# Monte-Carlo error of a percentile-interval end point (the seed-variation page)
# --------------------------------------------------------------------------

__all__ += ["endpoint_mc_sd", "draws_for_mc_sd"]


def endpoint_mc_sd(low: Any, high: Any, n_draws: Any, q: float = 0.025) -> Any:
    """Predicted Monte-Carlo SD of a percentile-interval end point from ``n_draws`` bootstrap draws.

    Definition: the q-quantile of B draws from a distribution with density f has an asymptotic
    sampling SD of sqrt(q (1 - q) / B) / f(x_q).  Taking the bootstrap distribution as normal with SD
    sigma, f(x_q) = phi(z_q) / sigma, and estimating sigma from the 95% interval itself as
    (high - low) / (2 z_0.975):

        SD = sigma * sqrt(q (1 - q) / B) / phi(z_q).

    Vectorised over arrays of ``low``, ``high`` and ``n_draws`` (broadcast).  ``q`` = 0.025 is the
    lower end point of a 95% interval; the upper one (0.975) has the same SD under normality.

    Raises ``ValueError`` for ``high < low``, ``n_draws < 1`` or ``q`` outside (0, 1).

    References
    ----------
    Serfling, R. J. (1980). Approximation Theorems of Mathematical Statistics, section 2.3.3
    (asymptotic distribution of a sample quantile); Efron, B. & Tibshirani, R. J. (1993). An
    Introduction to the Bootstrap, ch. 19 (how many bootstrap replications).

    Examples
    --------
    >>> round(float(endpoint_mc_sd(0.70, 0.78, 2000)), 5)
    0.00122
    >>> round(float(endpoint_mc_sd(0.70, 0.78, 8000)), 5)   # four times the draws: half the error
    0.00061
    """
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    b = np.asarray(n_draws, dtype=float)
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must be in (0, 1), got {q!r}")
    if np.any(hi < lo):
        raise ValueError("endpoint_mc_sd: high < low for at least one interval")
    if np.any(b < 1):
        raise ValueError("endpoint_mc_sd: n_draws must be >= 1")
    sigma = (hi - lo) / (2.0 * Z975)
    out = sigma * np.sqrt(q * (1.0 - q) / b) / pdf_at_quantile(q)
    return float(out) if out.ndim == 0 else out


def draws_for_mc_sd(low: float, high: float, target_sd: float, q: float = 0.025) -> int:
    """Smallest number of bootstrap draws whose predicted end-point SD (:func:`endpoint_mc_sd`) is <= target_sd.

    Definition: B = ceil(q (1 - q) (sigma / (phi(z_q) target_sd))^2) with sigma as in :func:`endpoint_mc_sd`
    (at least 1).  Reference: as :func:`endpoint_mc_sd`.

    Example
    -------
    >>> draws_for_mc_sd(0.70, 0.78, 0.001)
    2973
    """
    if not target_sd > 0:
        raise ValueError(f"target_sd must be > 0, got {target_sd!r}")
    sigma = (float(high) - float(low)) / (2.0 * Z975)
    b = q * (1.0 - q) * (sigma / (pdf_at_quantile(q) * target_sd)) ** 2
    b_int = max(1, int(math.ceil(b - 1e-9)))
    while endpoint_mc_sd(low, high, b_int, q) > target_sd:  # guard the rounding of ceil
        b_int += 1
    return b_int


# --------------------------------------------------------------------------
# Poisson bootstrap on per-level counts (the practitioner report's --resampling poisson)
# --------------------------------------------------------------------------

__all__ += ["poisson_count_draws"]


def poisson_count_draws(pos: Any, neg: Any, *, n_boot: int, rng: np.random.Generator | int, max_cells: int = 4_000_000):
    """Poisson-bootstrap draws expressed as per-level counts, yielded in chunks.

    Definition: the Poisson bootstrap gives every row an independent Poisson(1) multiplicity
    (instead of the row bootstrap's Multinomial(n; 1/n, ..., 1/n) multiplicities, which must sum
    to n).  Summed over the c rows of a (level, class) cell, the cell's count is Poisson(c), and
    the cells are independent; so a draw is one Poisson(c) variate per non-empty cell.  The
    draw's total n* is Poisson(n) (mean n, sd sqrt(n)) rather than exactly n; for every
    statistic that is a ratio of counts (accuracy, ECE, AUROC, risk, ...) the two schemes agree
    to O(1/n), and the percentile intervals coincide as n grows.  A draw with no rows at all
    (probability exp(-n)) leaves every statistic undefined.  Independent cells make a variate
    half the cost of the multinomial's conditional binomials (:func:`count_draws`, which this
    does not replace: the book uses that one).  Cells are taken in the fixed order ascending
    level, wrong before right, empty cells skipped, so the draws depend only on the counts and
    the generator, never on the order of the rows.  Used by ``selfconf report --resampling poisson``.
    Parameters and the chunks it yields are those of :func:`count_draws`.

    References
    ----------
    Hanley, J. A. & MacGibbon, B. (2006). Creating non-parametric bootstrap samples using Poisson
    frequencies. Computer Methods and Programs in Biomedicine 83(1), 57-62.
    Chamandy, N., Muralidharan, O., Najmi, A. & Naidu, S. (2012). Estimating uncertainty for
    massive data streams. Google technical report.

    Examples
    --------
    >>> P, Q = next(poisson_count_draws([3, 1], [0, 2], n_boot=4, rng=0))
    >>> P.shape, bool((Q[:, 0] == 0).all())  # an empty cell stays empty
    ((4, 2), True)
    """

    def poisson(gen: np.random.Generator, counts: np.ndarray, b: int) -> np.ndarray:
        return gen.poisson(counts.astype(float), size=(b, counts.size))

    yield from _cell_draws(pos, neg, n_boot, rng, max_cells, poisson, "poisson_count_draws")
