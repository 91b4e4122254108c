"""A small simulated-annealing search over integer contingency tables.

State: for each model a set of *parts* (disjoint groups of rows: e.g. the rows a panel's
population excludes, or a model's refusals), each a 2 x V integer table of row counts by
(correctness, stated confidence).  Moves keep every part's size and every model's number
of correct rows fixed:

* ``shift``: move one to three rows of one class in one part to a nearby confidence value;
* ``exchange``: swap one row of one part with one row of another part of the same model
  (the model's full table is unchanged; only how its rows split over parts changes).

The objective is a sum of penalties supplied by the caller: zero inside each target's
interval core, quadratic outside.  The search is deterministic given the
:class:`numpy.random.Generator`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import numpy as np

__all__ = ["Part", "ModelTable", "interval_penalty", "exact_penalty", "anneal"]


@dataclass
class Part:
    """Rows of one model that belong together (``counts[y, j]`` rows of class y at value j)."""

    name: str
    counts: np.ndarray
    allowed: np.ndarray  # bool mask over values: confidences this part may use
    fixed_class: int | None = None  # e.g. refusals are always incorrect (class 0)
    group: str = ""  # exchange moves only swap rows between parts of the same group

    @property
    def size(self) -> int:
        return int(self.counts.sum())


@dataclass
class ModelTable:
    """One model's rows as parts over a common grid of stated-confidence ``values``."""

    name: str
    values: np.ndarray
    parts: dict[str, Part] = field(default_factory=dict)

    def table(self, names=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(values, c0, c1) summed over the parts in ``names`` (all parts when None)."""
        sel = self.parts.values() if names is None else [self.parts[n] for n in names]
        c = cast(np.ndarray, sum(p.counts for p in sel))  # parts are non-empty: an array, not sum's 0
        return self.values, c[0].astype(float), c[1].astype(float)

    def copy(self) -> ModelTable:
        return ModelTable(
            self.name,
            self.values.copy(),
            {k: Part(p.name, p.counts.copy(), p.allowed.copy(), p.fixed_class, p.group) for k, p in self.parts.items()},
        )


def interval_penalty(x: float, lo: float, hi: float, core: float = 0.6, weight: float = 1.0) -> float:
    """Zero within the central ``core`` fraction of [lo, hi], quadratic (in half-widths) outside."""
    if not math.isfinite(x):
        return 1e6
    c = 0.5 * (lo + hi)
    h = 0.5 * (hi - lo)
    d = max(0.0, abs(x - c) - core * h) / h
    return weight * d * d


def exact_penalty(x: float, target: float, unit: float = 1.0, weight: float = 1.0) -> float:
    """Quadratic penalty on the distance from an exact target, in ``unit`` steps."""
    d = (x - target) / unit
    return weight * d * d


def _pick_row(counts: np.ndarray, rng: np.random.Generator, cls: int | None = None):
    """A uniformly random row of ``counts`` (2 x V): returns (class, value index)."""
    flat = counts.ravel() if cls is None else counts[cls]
    tot = flat.sum()
    if tot == 0:
        return None
    r = rng.integers(tot)
    idx = int(np.searchsorted(np.cumsum(flat), r, side="right"))
    if cls is None:
        return divmod(idx, counts.shape[1])
    return cls, idx


def anneal(
    models: dict[str, ModelTable],
    model_penalty: Callable[[ModelTable], tuple[float, dict]],
    global_penalty: Callable[[dict[str, ModelTable], dict[str, dict]], float] | None,
    rng: np.random.Generator,
    n_steps: int,
    t0: float = 1.0,
    t1: float = 1e-4,
    exchange_prob: float = 0.15,
    hard: bool = False,
) -> tuple[float, dict[str, dict]]:
    """Minimise ``sum(model_penalty) + global_penalty`` by simulated annealing, in place.

    With ``hard=True`` a model whose info reports ``det == 0`` (every exact target met) never
    accepts a move that breaks one again: the remaining search only improves soft terms.
    Returns the final objective and each model's info dict (from ``model_penalty``).
    """
    names = sorted(models)
    pens, infos = {}, {}
    for n in names:
        pens[n], infos[n] = model_penalty(models[n])
    gpen = global_penalty(models, infos) if global_penalty else 0.0
    total = sum(pens.values()) + gpen
    ratio = (t1 / t0) ** (1.0 / max(n_steps - 1, 1))
    temp = t0
    for _ in range(n_steps):
        temp *= ratio
        m = _pick_model(names, pens, gpen, rng)
        mt = models[m]
        parts = list(mt.parts.values())
        if len(parts) > 1 and rng.random() < exchange_prob:
            undo = _exchange_move(parts, rng)
        else:
            undo = _shift_move(parts, mt.values.size, rng)
        if undo is None:
            continue
        new_pen, new_info = model_penalty(mt)
        old_pen, old_info = pens[m], infos[m]
        if hard and old_info.get("det", 1.0) == 0.0 and new_info.get("det", 0.0) > 0.0:
            _undo(undo)
            continue
        infos[m] = new_info
        new_g = global_penalty(models, infos) if global_penalty else 0.0
        if hard and gpen == 0.0 and new_g > 0.0:
            infos[m] = old_info
            _undo(undo)
            continue
        new_total = total - old_pen + new_pen - gpen + new_g
        delta = new_total - total
        if delta <= 0 or rng.random() < math.exp(-delta / temp):
            pens[m] = new_pen
            gpen = new_g
            total = new_total
        else:
            infos[m] = old_info
            _undo(undo)
    return total, infos


#: One change of a move: add ``d`` rows to ``part.counts[idx]`` to undo it.
_Undo = list[tuple[Part, tuple[int, int], int]]


def _pick_model(names: list[str], pens: dict[str, float], gpen: float, rng: np.random.Generator) -> str:
    """The model the next move changes: drawn with weight its penalty + 0.05 + an equal share of the global
    penalty, so the search focuses on the worst models but never starves one (one ``rng.random()`` draw).

    Example::

        >>> class Fixed:
        ...     def random(self): return 0.5
        >>> _pick_model(["a", "b"], {"a": 0.0, "b": 1.0}, 0.0, Fixed())  # weights 0.05 and 1.05
        'b'
    """
    w = np.array([pens[n] for n in names]) + 0.05 + (gpen / len(names))
    return names[int(np.searchsorted(np.cumsum(w), rng.random() * w.sum(), side="right"))]


def _exchange_move(parts: list[Part], rng: np.random.Generator) -> _Undo | None:
    """Swap one row of a random part with one row of another part of the same group (the model's table is
    unchanged); return how to undo it, or ``None`` (nothing changed) when the part has no mate, a part is empty,
    a row's value is not allowed in the other part or a row's class breaks the other part's fixed class."""
    i = int(rng.integers(len(parts)))
    mates = [x for x in range(len(parts)) if x != i and parts[x].group == parts[i].group]
    if not mates:
        return None
    p, q = parts[i], parts[mates[int(rng.integers(len(mates)))]]
    a = _pick_row(p.counts, rng, p.fixed_class)
    b = _pick_row(q.counts, rng, q.fixed_class)
    if a is None or b is None or not (q.allowed[a[1]] and p.allowed[b[1]]):
        return None
    if (q.fixed_class is not None and a[0] != q.fixed_class) or (p.fixed_class is not None and b[0] != p.fixed_class):
        return None
    p.counts[a] -= 1
    q.counts[a] += 1
    q.counts[b] -= 1
    p.counts[b] += 1
    return [(p, a, +1), (q, a, -1), (q, b, +1), (p, b, -1)]


def _shift_move(parts: list[Part], n_values: int, rng: np.random.Generator) -> _Undo | None:
    """Move one to three rows of one class of a part (drawn by size) by one to three steps of the ``n_values``
    confidence grid; return how to undo it, or ``None`` (nothing changed) when the part is empty or the new
    value is off the grid or not allowed in the part."""
    sizes = np.array([pt.size for pt in parts], dtype=float)
    p = parts[int(np.searchsorted(np.cumsum(sizes), rng.random() * sizes.sum(), side="right"))]
    a = _pick_row(p.counts, rng, p.fixed_class)
    if a is None:
        return None
    y, jv = a
    step = int(rng.choice((-3, -2, -1, 1, 2, 3)))
    jd = jv + step
    if jd < 0 or jd >= n_values or not p.allowed[jd]:
        return None
    r = int(min(p.counts[y, jv], rng.integers(1, 4)))
    p.counts[y, jv] -= r
    p.counts[y, jd] += r
    return [(p, (y, jv), r), (p, (y, jd), -r)]


def _undo(undo: _Undo) -> None:
    """Take a move back: add each recorded count to its cell."""
    for part, idx, d in undo:
        part.counts[idx] += d
