"""What a section computes, in one object: the values it glues (with their kind) and the tables it shows.

A section module's ``compute(...)`` returns a :class:`Computed`.  Its ``values`` are keyed exactly by the glue
keys of the section's notebook; ``origins`` says, per key, whether the value is one of the paper's claims
(``"claim"``), a number computed from the page's rows that the paper does not print (``"rows"``; the notebook
maps it to the origin of its rows, :func:`selfconf.book.glue.rows_origin`) or a value of another origin (a key of
:data:`selfconf.book.glue.ORIGINS`, e.g. ``"parameter"``).  ``parts`` groups the keys by the notebook cell that
glues them, so a page glues each number where it did before; ``tables`` holds the named DataFrames a page renders.

This module is presentation-free: it neither glues nor formats.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Builder", "Computed", "plain"]


def plain(x: Any) -> Any:
    """``x`` as a plain Python ``bool``/``int``/``float``/``str`` (numpy scalars unwrapped, values unchanged).

    Definition: ``bool`` and ``numpy.bool_`` → ``bool``; integers → ``int``; other reals → ``float``; strings
    are kept.  The conversion is exact (``float(np.float64(x)) == x``), so a glued value does not change.

    References: the same conversion as :func:`selfconf.book.glue.plain`, which refuses non-finite numbers at glue
    time (this one keeps them, so a test can see them).

    Examples
    --------
    >>> plain(np.float64(0.5)), plain(np.int64(3)), plain(np.bool_(True)), plain("x")
    (0.5, 3, True, 'x')
    """
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, Integral):
        return int(x)
    if isinstance(x, Real):
        return float(x)
    if isinstance(x, str):
        return x
    raise TypeError(f"a section value must be a plain number or string, not {type(x).__name__}")


@dataclass(frozen=True)
class Computed:
    """The glue values and tables of one section.

    Attributes
    ----------
    values : dict
        ``{glue key: plain value}``, every key the section's notebook glues from this computation.
    origins : dict
        ``{glue key: "claim" | "rows" | origin}`` (see the module docstring).
    parts : dict
        ``{part name: tuple of keys}``, in glue order; every key is in exactly one part.
    tables : dict
        ``{name: pandas.DataFrame}``, unformatted.
    facts : dict
        any other computed object the page prints (lists of models, panel results, ...).

    References: the book's design rule that computations live in the package, testable without papermill.

    Examples
    --------
    >>> b = Builder()
    >>> b.add("counts", "n_rows", 3)
    >>> b.add("counts", "n_models", 2, origin="rows")
    >>> res = b.build()
    >>> res.values, list(res.items("counts", rows_origin="reconstruction-only"))[1]
    ({'n_rows': 3, 'n_models': 2}, ('n_models', 2, 'reconstruction-only'))
    """

    values: dict[str, Any]
    origins: dict[str, str]
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)

    def part(self, name: str) -> dict[str, Any]:
        """``{key: value}`` of one part, in glue order.

        >>> Computed({"a": 1, "b": 2}, {"a": "claim", "b": "claim"}, {"p": ("b",)}).part("p")
        {'b': 2}
        """
        return {k: self.values[k] for k in self.parts[name]}

    def items(self, part: str, *, rows_origin: str) -> Iterator[tuple[str, Any, str]]:
        """``(key, value, origin)`` of one part, in glue order; ``"rows"`` is replaced by ``rows_origin``.

        The origin of a paper claim is ``"claim"`` (glue it by claim id, without an origin).
        """
        for key in self.parts[part]:
            origin = self.origins[key]
            yield key, self.values[key], rows_origin if origin == "rows" else origin

    def __getitem__(self, key: str) -> Any:
        return self.values[key]


class Builder:
    """Collect the values of a :class:`Computed`, part by part.

    Examples
    --------
    >>> b = Builder()
    >>> b.add("p", "k", np.float64(0.25))
    >>> b.build().values
    {'k': 0.25}
    """

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.origins: dict[str, str] = {}
        self.parts: dict[str, list[str]] = {}
        self.tables: dict[str, pd.DataFrame] = {}

    def add(self, part: str, key: str, value: Any, origin: str = "claim") -> None:
        """Record ``value`` under glue ``key`` in ``part``; a key may be recorded once."""
        if key in self.values:
            raise KeyError(f"glue key {key!r} recorded twice")
        self.values[key] = plain(value)
        self.origins[key] = origin
        self.parts.setdefault(part, []).append(key)

    def update(self, part: str, mapping: dict[str, Any], origin: str = "claim") -> None:
        """:meth:`add` every ``key: value`` of ``mapping``."""
        for key, value in mapping.items():
            self.add(part, key, value, origin)

    def table(self, name: str, frame: pd.DataFrame) -> None:
        """Record a named table."""
        self.tables[name] = frame

    def build(self, tables: dict[str, pd.DataFrame] | None = None, facts: dict[str, Any] | None = None) -> Computed:
        """The frozen :class:`Computed`; ``tables`` are added to those recorded with :meth:`table`."""
        return Computed(
            dict(self.values),
            dict(self.origins),
            {k: tuple(v) for k, v in self.parts.items()},
            {**self.tables, **(tables or {})},
            dict(facts or {}),
        )
