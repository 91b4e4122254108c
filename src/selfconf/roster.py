"""The model roster: the one table of the paper's models, read from ``data/paper/models.csv``.

Every layer may import this module (it is the lowest layer of the import contracts in ``pyproject.toml`` and
imports nothing from ``selfconf``).  The table has one row per model id: ``label`` and ``vendor`` (display
names), ``model_id`` (the API model the paper queried), ``tier`` (``frontier`` for the paper's Table 1 models;
``other`` for a vendor the book knows the bloc of without it being in the paper's roster), ``bloc`` (``US``,
``CN``, ``EU``), ``table1_order`` (the row order of the paper's Table 1) and one ``panel_<name>`` column per
pre-registered panel holding the member's position in the panel (empty: not a member; the columns' order is
the panels' order).  The package carries the table as ``selfconf/models.csv`` (a link to the data file in the
checkout, copied into a built wheel).  ``data/paper/claims.yaml`` keeps the paper's own ``models:`` manifest;
``tests/test_roster.py`` checks that it names the same models in the same order.

Read with the standard library only (the ``selfconf report --json`` start-up does not import pandas).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = ["ROSTER_FILE", "Model", "models", "frontier", "panels", "blocs", "label"]

#: The table (a link to ``data/paper/models.csv`` in the checkout).
ROSTER_FILE = Path(__file__).with_name("models.csv")

_COLUMNS = ("id", "label", "vendor", "model_id", "tier", "bloc", "table1_order")


@dataclass(frozen=True)
class Model:
    """One row of the roster table."""

    id: str
    label: str
    vendor: str
    model_id: str
    tier: str
    bloc: str
    table1_order: int | None
    panels: tuple[tuple[str, int], ...]


@cache
def _read(path: str) -> tuple[tuple[str, ...], tuple[Model, ...]]:
    p = Path(path)
    with p.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        fields = tuple(reader.fieldnames or ())
        missing = [c for c in _COLUMNS if c not in fields]
        if missing:
            raise ValueError(f"{p}: the roster table lacks the column(s) {', '.join(missing)}")
        panel_cols = tuple(c for c in fields if c.startswith("panel_"))
        rows = []
        for i, r in enumerate(reader, start=2):
            try:
                order = int(r["table1_order"]) if r["table1_order"] else None
                member = tuple((c[len("panel_") :], int(r[c])) for c in panel_cols if r[c])
            except ValueError as e:
                raise ValueError(f"{p}, row {i} ({r.get('id')}): {e}") from None
            rows.append(
                Model(
                    id=r["id"],
                    label=r["label"],
                    vendor=r["vendor"],
                    model_id=r["model_id"],
                    tier=r["tier"],
                    bloc=r["bloc"],
                    table1_order=order,
                    panels=member,
                )
            )
    ids = [m.id for m in rows]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{p}: a model id appears twice")
    return tuple(c[len("panel_") :] for c in panel_cols), tuple(rows)


def models(path: str | Path = ROSTER_FILE) -> tuple[Model, ...]:
    """Every row of the roster table, in file order.

    >>> [m.id for m in models()][:3]
    ['google', 'moonshot', 'alibaba']
    """
    return _read(str(path))[1]


def frontier(path: str | Path = ROSTER_FILE) -> list[str]:
    """The frontier models' ids in the paper's Table 1 row order.

    >>> frontier()
    ['google', 'moonshot', 'alibaba', 'xai', 'deepseek', 'zhipu', 'openai', 'mistral', 'anthropic']
    """
    rows = [m for m in models(path) if m.tier == "frontier"]
    return [m.id for m in sorted(rows, key=lambda m: (m.table1_order is None, m.table1_order or 0))]


def panels(path: str | Path = ROSTER_FILE) -> dict[str, tuple[str, ...]]:
    """``{panel: member ids in panel order}`` for every ``panel_<name>`` column, in column order.

    >>> panels()["CN"]
    ('deepseek', 'alibaba', 'moonshot')
    """
    names, rows = _read(str(path))
    return {
        name: tuple(
            m.id for m in sorted((m for m in rows if dict(m.panels).get(name)), key=lambda m: dict(m.panels)[name])
        )
        for name in names
    }


def blocs(path: str | Path = ROSTER_FILE) -> dict[str, str]:
    """``{id: bloc}`` of every row with a bloc.

    >>> blocs()["mistral"], blocs()["meta"]
    ('EU', 'US')
    """
    return {m.id: m.bloc for m in models(path) if m.bloc}


def label(model: str, path: str | Path = ROSTER_FILE) -> str:
    """The display label of ``model`` (the id itself when the roster does not list it).

    >>> label("xai"), label("somebody")
    ('xAI', 'somebody')
    """
    return next((m.label for m in models(path) if m.id == model), model)
