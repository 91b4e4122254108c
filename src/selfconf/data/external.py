"""Third-party data sets in ``data/external/<name>/`` and the notebook cells that need them.

``make external`` (``scripts/fetch_external.sh``) puts each data set of :data:`DATASETS` into
``data/external/<name>/`` and writes ``FETCHED.json`` there last, so a data set is *available* when that file
exists (a download cut off half-way leaves none). A notebook cell that reads a data set carries the tag
``needs-external:<name>``; when the data set is not available the book executes the notebook without those cells
(:func:`without_unavailable`), with a notice in place of each run of them that names the data set, says that its
tables, charts and numbers are left out (never replaced) and how to get it. With every data set available the
notebook is unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["DATASETS", "TAG_PREFIX", "NOTICE_TAG", "available", "needed", "notice", "without_unavailable"]

#: name -> what it is (the notice names it so)
DATASETS = {
    "mmlu-pro-calibration": "the MMLU-Pro answers with verbalised confidence of 26 models (LLM-Calibration-Study)",
    "simpleqa": "SimpleQA (OpenAI's short-answer factuality benchmark)",
}
#: the tag of a cell that needs a data set: ``needs-external:<name>``
TAG_PREFIX = "needs-external:"
#: the tag of the notice cell put in place of the left-out cells (tests and the parity check look for it)
NOTICE_TAG = "external-data-unavailable"


def _folder(root: Path, name: str) -> Path:
    return Path(root) / "data" / "external" / name


def available(name: str, root: str | Path) -> bool:
    """True when data set ``name`` is in ``<root>/data/external/<name>/`` complete (its ``FETCHED.json``, written
    last by ``selfconf fetch``, exists).

    Definition: availability is the fetch's completion mark, not the folder (a failed download leaves a folder).
    Reference: ``selfconf fetch --help``; ``scripts/fetch_external.sh``.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "data" / "external" / "simpleqa").mkdir(parents=True)
    >>> available("simpleqa", d)
    False
    >>> _ = (d / "data" / "external" / "simpleqa" / "FETCHED.json").write_text("{}")
    >>> available("simpleqa", d)
    True
    """
    if name not in DATASETS:
        raise ValueError(f"unknown third-party data set {name!r}; known: {', '.join(DATASETS)}")
    return (_folder(Path(root), name) / "FETCHED.json").is_file()


def _needs(cell: Any) -> list[str]:
    tags = cell.get("metadata", {}).get("tags", [])
    return [t[len(TAG_PREFIX) :] for t in tags if isinstance(t, str) and t.startswith(TAG_PREFIX)]


def needed(nb: Any) -> list[str]:
    """The data sets the cells of notebook ``nb`` (an ``nbformat`` notebook or its dict) need, in first-use order.

    Raises ``ValueError`` naming the cell for a tag naming no known data set.

    >>> needed({"cells": [{"metadata": {"tags": ["hide-input", "needs-external:simpleqa"]}}, {"metadata": {}}]})
    ['simpleqa']
    """
    out: list[str] = []
    for i, c in enumerate(nb["cells"]):
        for n in _needs(c):
            if n not in DATASETS:
                raise ValueError(f"cell {i}: tag {TAG_PREFIX}{n} names no known data set ({', '.join(DATASETS)})")
            if n not in out:
                out.append(n)
    return out


def notice(names: list[str], *, myst: bool = True) -> str:
    """The text put in place of cells whose data sets ``names`` are not available: a MyST admonition for the
    book's page, or (``myst=False``, the student edition, whose notebooks render no directive) a block quote.

    >>> "make external" in notice(["simpleqa"]), notice(["simpleqa"], myst=False).startswith("> **Third-party")
    (True, True)
    """
    what = "; ".join(f"{DATASETS[n]} (`data/external/{n}/`)" for n in names)
    title = "Third-party data not available in this build"
    body = (
        f"This part needs {what}, which could not be fetched when this book was built (no network and no local "
        "copy). Its tables, charts and numbers are left out, not replaced by other values. To include them, run "
        "`make external` with a network connection (or `SELFCONF_EXTERNAL_FROM=DIR make external` to copy a "
        "local folder holding them), then build the book again."
    )
    if not myst:
        return f"> **{title}.** {body}"
    return f":::{{admonition}} {title}\n:class: warning\n{body}\n:::"


def without_unavailable(nb: Any, root: str | Path, *, myst: bool = True) -> tuple[Any, list[str]]:
    """Notebook ``nb`` without the cells that need a data set that is not available under ``root``, each run of
    left-out cells replaced by one markdown cell (tag :data:`NOTICE_TAG`) saying so (:func:`notice`, with
    ``myst``); and the names of the missing data sets. With every needed data set available, ``nb`` itself and
    ``[]``.

    Definition: a cell is left out when any of its ``needs-external:<name>`` tags names a data set that is not
    :func:`available`; consecutive left-out cells form one run. Reference: this module's docstring.

    >>> import nbformat, tempfile
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title"),
    ...     nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["needs-external:simpleqa"]}),
    ...     nbformat.v4.new_markdown_cell("x is {glue:text}`x`", metadata={"tags": ["needs-external:simpleqa"]})])
    >>> out, missing = without_unavailable(nb, tempfile.mkdtemp())
    >>> missing, len(out.cells), out.cells[1].metadata["tags"]
    (['simpleqa'], 2, ['external-data-unavailable'])
    """
    import copy

    import nbformat

    missing = [n for n in needed(nb) if not available(n, root)]
    if not missing:
        return nb, []
    out = copy.deepcopy(nb)
    cells: list[Any] = []
    run: list[str] = []

    def close_run() -> None:
        # a fixed cell id, so that the same build writes the same notebook
        cell = nbformat.v4.new_markdown_cell(notice(run, myst=myst), metadata={"tags": [NOTICE_TAG]})
        cell["id"] = f"external-data-unavailable-{len(cells)}"
        cells.append(cell)
        run.clear()

    for c in out["cells"]:
        lack = [n for n in _needs(c) if n in missing]
        if lack:
            run.extend(n for n in lack if n not in run)
            continue
        if run:
            close_run()
        cells.append(c)
    if run:
        close_run()
    out["cells"] = cells
    return out, missing
