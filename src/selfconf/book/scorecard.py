"""``_build/scorecard.json``: the real-answers scorecard, taken from the executed chapter.

The records are computed by :func:`selfconf.sections.realanswers.scorecard` inside the chapter's notebook and
glued there; this module reads them back from the executed notebook, so the file always matches the page.

:func:`with_paper_values` fills each record's ``paper_value`` (amendment of 2026-12-02) from the paper's claim
manifest.  That is the only place the scorecard touches ``data/paper/claims.yaml``: the analysis module names the
claims (:data:`selfconf.sections.realanswers.AMENDMENTS`) but never reads their values, as for the audit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selfconf.book.glue import glued_in_notebook
from selfconf.claims.judging import CLAIMS, load_manifest
from selfconf.data.external import NOTICE_TAG
from selfconf.data.paths import resolve
from selfconf.sections.realanswers import NOTEBOOK, SCORECARD_KEY, SCORECARD_PATH, write_scorecard

__all__ = [
    "scorecard_from_notebook",
    "ensure_scorecard",
    "built_without_data",
    "with_paper_values",
    "paper_side_conflicts",
]


def scorecard_from_notebook(nb_path: str | Path) -> list[dict]:
    """The scorecard records the executed chapter glued (key ``real_scorecard_json``).

    Raises ``FileNotFoundError`` / ``KeyError`` with the notebook's name when it is missing or glued none.

    Example: ``scorecard_from_notebook("book/26_real_answers.ipynb")[0]["id"]``.
    """
    p = Path(nb_path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: the executed chapter is missing (execute {NOTEBOOK} first)")
    vals = glued_in_notebook(p)
    if SCORECARD_KEY not in vals:
        raise KeyError(f"{p.name}: no glued {SCORECARD_KEY!r} (the chapter did not finish)")
    return json.loads(vals[SCORECARD_KEY])


def ensure_scorecard(book_dir: str | Path = "book", path: str | Path = SCORECARD_PATH) -> Path | None:
    """Write ``_build/scorecard.json`` from the executed chapter in ``book_dir``; ``None`` when it was not built.

    Called by :mod:`selfconf.book.build` after the notebooks ran (or were taken from the cache, which runs no
    cell), so the file always matches the executed page.

    Example: ``ensure_scorecard()`` after ``python -m selfconf.book.build execute``.
    """
    nb = resolve(book_dir) / f"{NOTEBOOK}.ipynb"
    if not nb.is_file():
        return None
    if built_without_data(nb):  # no record was computed: no file (an older one would be stale)
        resolve(path).unlink(missing_ok=True)
        return None
    return write_scorecard(scorecard_from_notebook(nb), path)


def built_without_data(nb_path: str | Path) -> bool:
    """True when the executed notebook was built without some of its third-party data (it holds the notice cell
    of :func:`selfconf.data.external.without_unavailable`).

    Example: ``built_without_data("book/26_real_answers.ipynb")`` is False after ``make external`` and a build.
    """
    doc = json.loads(Path(nb_path).read_text(encoding="utf-8"))
    return any(NOTICE_TAG in c.get("metadata", {}).get("tags", []) for c in doc.get("cells", []))


def with_paper_values(records: list[dict], claims_path: str | Path = CLAIMS) -> list[dict]:
    """The records with ``paper_value`` and ``paper_null`` filled from the paper's claim manifest.

    Definition: ``paper_value`` is the printed value of the one claim in ``paper_value_ids``, or the first minus
    the second when two are named (a difference of two printed values, rounded to their decimals); ``None`` when
    none is named.  ``paper_null`` is the null in the paper's own terms: half the paper's number of models
    (``paper_of_id``) for a null of half the models, else the record's null.  A record whose ``paper_value``
    lies on the other side of ``paper_null`` than its claimed side raises: the amendment's side must be the
    paper's.  Returns new dicts; the input is not changed.

    Reference: Chernets (2026), Result 1; the scorecard amendment of 2026-12-02 (chapter "The paper's claims on
    real answers").

    Example: ``with_paper_values(realanswers.scorecard(res))[0]["paper_value"]`` (the paper's smallest CITL).
    """
    m = load_manifest(claims_path)
    out = []
    for rec in records:
        r: dict[str, Any] = {**rec, "test": dict(rec.get("test", {}))}
        ids = list(rec.get("paper_value_ids") or [])
        if len(ids) > 2:
            raise ValueError(f"scorecard record {rec['id']!r}: at most two paper_value_ids, got {ids}")
        for cid in ids:
            if cid not in m.by_id:
                raise KeyError(f"scorecard record {rec['id']!r}: claim {cid!r} is not in {claims_path}")
        vals = [float(m.by_id[c]["value"]) for c in ids]
        dec = max((int(m.by_id[c].get("decimals", 3)) for c in ids), default=3)
        r["paper_value"] = None if not vals else (vals[0] if len(vals) == 1 else round(vals[0] - vals[1], dec))
        of = rec.get("paper_of_id")
        null = r["test"].get("null")
        r["paper_null"] = float(m.by_id[of]["value"]) / 2 if of else null
        out.append(r)
    bad = paper_side_conflicts(out)
    if bad:
        raise ValueError(f"scorecard: the paper's value lies on the other side of the null than claimed for {bad}")
    return out


def paper_side_conflicts(records: list[dict]) -> list[str]:
    """Ids of records whose ``paper_value`` is not on the claimed side of ``paper_null`` (empty when all agree).

    >>> paper_side_conflicts([{"id": "a", "paper_value": -0.1, "paper_null": 0.0, "test": {"direction": "above"}}])
    ['a']
    """
    bad = []
    for r in records:
        pv, pn = r.get("paper_value"), r.get("paper_null")
        if pv is None or pn is None:
            continue
        side = r["test"]["direction"]
        if (side == "above" and not pv > pn) or (side == "below" and not pv < pn):
            bad.append(r["id"])
    return bad
