"""``_build/scorecard.json``: the real-answers scorecard, taken from the executed chapter.

The records are computed by :func:`selfconf.sections.realanswers.scorecard` inside the chapter's notebook and
glued there; this module reads them back from the executed notebook, so the file always matches the page.
"""

from __future__ import annotations

import json
from pathlib import Path

from selfconf.book.glue import glued_in_notebook
from selfconf.data.paths import resolve
from selfconf.sections.realanswers import NOTEBOOK, SCORECARD_KEY, SCORECARD_PATH, write_scorecard

__all__ = ["scorecard_from_notebook", "ensure_scorecard"]


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
    return write_scorecard(scorecard_from_notebook(nb), path)
