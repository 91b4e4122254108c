"""The result of a section's ``compute``: the values a page glues, grouped by the part of the page that shows them.

A section page glues two kinds of computed number: paper claims (ids of the claim manifest, glued with
``glue.claim``) and numbers computed from the rows that the paper does not print (glued with ``glue.value``
and the page's rows origin).  :class:`PageResult` keeps both in one ordered mapping, ``values``, with the kind
of each key in ``origins`` and the keys of each part of the page in ``parts``, so that a page glues each part
in the cell that shows it (the provenance of a number points at that cell).

Examples
--------
>>> pv = PageValues()
>>> pv.add("counts", "n_models", 16)
>>> pv.add("counts", "n_rows", 16000, origin="rows")
>>> res = pv.result(tables={})
>>> res.part("counts"), res.origins["n_rows"]
({'n_models': 16, 'n_rows': 16000}, 'rows')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ORIGIN_KINDS", "PageResult", "PageValues"]

#: Kinds of glued value: a claim id of the paper, or a number from the rows the paper does not print.
ORIGIN_KINDS = ("claim", "rows")


@dataclass(frozen=True)
class PageResult:
    """What a section page glues and shows.

    ``values`` maps every glue key the page computes to its value (plain Python ``int``/``float``/``str``/
    ``bool``), in the order the page glues them; ``origins`` maps each key to ``"claim"`` or ``"rows"``
    (:data:`ORIGIN_KINDS`); ``parts`` lists the keys of each part of the page; ``tables`` holds the frames the
    page renders and ``facts`` any other computed object it prints (lists of models, panel results, ...).
    """

    values: dict[str, Any]
    origins: dict[str, str]
    parts: dict[str, tuple[str, ...]]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)

    def part(self, name: str) -> dict[str, Any]:
        """``{key: value}`` of one part of the page, in glue order.

        >>> PageResult({"a": 1, "b": 2}, {"a": "claim", "b": "claim"}, {"p": ("b",)}).part("p")
        {'b': 2}
        """
        return {k: self.values[k] for k in self.parts[name]}


def _plain(x: Any) -> Any:
    """A numpy scalar as the equal Python scalar; anything else unchanged."""
    return x.item() if isinstance(x, np.generic) else x


class PageValues:
    """Collects glue keys part by part with their origin kind, then freezes them into a :class:`PageResult`.

    A key added twice raises ``ValueError`` (a page must not glue one key with two values).

    >>> pv = PageValues()
    >>> pv.add("p", "x", np.float64(0.5))
    >>> type(pv.values["x"]).__name__
    'float'
    """

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.origins: dict[str, str] = {}
        self.parts: dict[str, list[str]] = {}

    def add(self, part: str, key: str, value: Any, origin: str = "claim") -> None:
        """Record ``value`` under ``key`` in ``part`` (``origin`` one of :data:`ORIGIN_KINDS`)."""
        if origin not in ORIGIN_KINDS:
            raise ValueError(f"{key}: origin must be one of {ORIGIN_KINDS}, got {origin!r}")
        if key in self.values:
            raise ValueError(f"glue key {key!r} computed twice")
        self.values[key] = _plain(value)
        self.origins[key] = origin
        self.parts.setdefault(part, []).append(key)

    def update(self, part: str, mapping: dict[str, Any], origin: str = "claim") -> None:
        """:meth:`add` every ``key: value`` of ``mapping``, in order."""
        for k, v in mapping.items():
            self.add(part, k, v, origin)

    def result(self, tables: dict[str, pd.DataFrame], facts: dict[str, Any] | None = None) -> PageResult:
        """The collected values as a frozen :class:`PageResult`."""
        return PageResult(dict(self.values), dict(self.origins), {p: tuple(k) for p, k in self.parts.items()},
                          tables, dict(facts or {}))
