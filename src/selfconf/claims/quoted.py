"""The paper's quoted facts: printed numbers the book restates and never computes (``data/paper/quoted_facts.yaml``).

A quoted fact is a number the paper takes from elsewhere (a threshold, a count of items, another study's value).
Pages glue it with :func:`selfconf.book.glue.quoted`; analysis code that needs one as a parameter (a declared
threshold) reads it with :func:`quoted_value`. The file is written from ``claims.yaml`` by
``python -m selfconf.audit --write-quoted``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from selfconf.data.paths import resolve

__all__ = ["QUOTED_FACTS", "quoted_value", "load_quoted"]

#: Where the quoted facts live, relative to the project root.
QUOTED_FACTS = "data/paper/quoted_facts.yaml"

_QUOTED_CACHE: dict[tuple[str, float], dict[str, dict]] = {}


def load_quoted(path: str | Path = QUOTED_FACTS) -> dict[str, dict]:
    """``{claim id: fact}`` of the quoted-facts file, parsed once per file version (keyed by path and mtime).

    Example: ``load_quoted()["r1_auroc_threshold"]["value"]`` is the paper's AUROC cut-off, 0.62.
    """
    p = resolve(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: quoted-facts file missing (run `python -m selfconf.book.audit --write-quoted`)")
    key = (str(p), p.stat().st_mtime)
    if key not in _QUOTED_CACHE:  # parsed once per notebook: pages quote dozens of facts
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        facts = yaml.load(p.read_text(encoding="utf-8"), Loader=loader)["facts"]
        _QUOTED_CACHE[key] = {f["id"]: f for f in facts}
    return _QUOTED_CACHE[key]


def quoted_value(claim_id: str, path: str | Path = QUOTED_FACTS) -> Any:
    """The value of a quoted fact, without gluing it (e.g. a quoted threshold used as a parameter).

    Raises ``KeyError`` naming the file when the id is not a quoted fact.

    >>> quoted_value("r1_auroc_threshold")
    0.62
    """
    facts = load_quoted(path)
    if claim_id not in facts:
        raise KeyError(f"{path}: no quoted fact with id {claim_id!r}")
    return facts[claim_id]["value"]
