"""Page furniture for the executed notebooks: reconstruction banner, provenance line, CSV tables.

Output is emitted as ``text/markdown`` display data, which myst-nb renders as MyST, so roles such
as ``{download}`` work inside it.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
import subprocess
from pathlib import Path
from typing import Any

from selfconf.data.paths import DEFAULT_DATA_DIR, project_root, resolve
from selfconf.data.sources import FamilySource, Sources, is_reconstruction, resolve_families

__all__ = [
    "in_book",
    "BOOK_ENV",
    "data_source",
    "provenance",
    "banner",
    "banner_text",
    "RECONSTRUCTION_NOTICE",
    "page_banner",
    "PAGE_KINDS",
    "table",
    "table_folder",
    "table_markdown",
    "table_label",
    "is_numeric_text",
    "claim_role",
    "printed_role",
    "show_markdown",
    "as_text",
    "fill_printed_csv",
]

TABLE_DIR = "book/_static/tables"
#: Set by :func:`selfconf.book.build.execute_one` for every notebook the build runs: its tables go to its cache
#: entry (the build installs them into ``book/_static/tables``) or, for a rerun, to ``<out_dir>/_static/tables``,
#: never over the book's CSV downloads.
TABLE_DIR_ENV = "SELFCONF_TABLE_DIR"
#: Beside the CSVs, ``.printed/<name>.json`` lists the cells of ``<name>.csv`` that show the paper's printed token
#: (``{"cells": [{"row": data row, "column": header, "claim": id}]}``); the provenance extension writes the tokens
#: into the CSV when the book is built and the build installs a table (:func:`fill_printed_csv`).
PRINTED_DIR = ".printed"
#: Set to ``"1"`` by the book's build (:func:`selfconf.book.build.execute_one`) for the notebooks it executes.
BOOK_ENV = "SELFCONF_BOOK"


def in_book() -> bool:
    """Whether this notebook is being executed by the book's build (``$SELFCONF_BOOK == "1"``).

    Teaching notebooks also run on their own (Jupyter, Colab, Binder, a student copy): there
    :func:`table` shows a plain DataFrame and charts keep altair's own renderer.
    Example: ``if in_book(): selfconf.book.vega.enable()``."""
    return os.environ.get(BOOK_ENV) == "1"


def table_folder() -> Path:
    """The folder a notebook writes its CSV tables to: ``$SELFCONF_TABLE_DIR`` (:data:`TABLE_DIR_ENV`, set by the
    build for each notebook it runs) or else ``book/_static/tables`` (:data:`TABLE_DIR`), created if missing.

    >>> import os, tempfile
    >>> os.environ[TABLE_DIR_ENV] = d = tempfile.mkdtemp()
    >>> str(table_folder()) == d
    True
    >>> del os.environ[TABLE_DIR_ENV]
    """
    out = resolve(os.environ.get(TABLE_DIR_ENV) or TABLE_DIR)
    out.mkdir(parents=True, exist_ok=True)
    return out


def show_markdown(text: str) -> None:
    """Display ``text`` as Markdown (rendered as MyST by myst-nb)."""
    from IPython.display import Markdown, display

    display(Markdown(text))


def data_source(data_dir: str | os.PathLike) -> str:
    """``"reconstruction"`` for reconstructed rows, ``"original"`` otherwise (one label for a whole folder).

    The rule is :func:`selfconf.data.sources.is_reconstruction`.  Pages that read rows label each family
    separately (:func:`banner` with ``families``).  Example: ``data_source("data/raw") == "original"``."""

    return "reconstruction" if is_reconstruction(data_dir) else "original"


def _commit() -> str:
    env = os.environ.get("SELFCONF_COMMIT")
    if env:
        return env
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short=10", "HEAD"], cwd=project_root(), capture_output=True, text=True, timeout=5
        )
        sha = out.stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=project_root(),
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        return (sha + ("+dirty" if dirty else "")) if sha else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _as_sources(data_dir, families):
    """``families`` as a :class:`selfconf.data.sources.Sources` (resolved here when given as family names)."""

    if families is None or isinstance(families, Sources):
        return families
    if isinstance(families, str):
        families = [families]
    if isinstance(families, dict):  # {family: source} given by the caller: shown as stated
        d = resolve(data_dir)
        src = Sources(data_dir=str(data_dir), data_is_reconstruction=is_reconstruction(d))
        for fam, kind in families.items():
            if kind not in ("original", "reconstruction"):
                raise ValueError(f"family {fam!r}: source {kind!r} is neither 'original' nor 'reconstruction'")
            fallback = kind == "reconstruction" and not src.data_is_reconstruction
            shown = DEFAULT_DATA_DIR if fallback else str(data_dir)
            src.families[fam] = FamilySource(fam, kind, resolve(shown), "", fallback, shown)
        return src
    return resolve_families(data_dir, list(families))


def provenance(
    data_dir: str | os.PathLike, seed: int | str | None = None, n_boot: int | None = None, families=None
) -> str:
    """One plain-text line naming the data source(s), seed, bootstrap draws, commit and build date.

    Without ``families`` the line names one source for ``data_dir``
    (``data: reconstruction (data/reconstructed)``); with ``families`` (a :class:`selfconf.data.sources.Sources`,
    a list of family names to resolve, or ``{family: "original" | "reconstruction"}``) it names each
    family's source: ``data: collection: original package (data/raw); ladder: reconstruction
    (data/reconstructed)``.  Example: ``provenance("data/reconstructed", seed=7, n_boot=2000)``."""
    src = _as_sources(data_dir, families)
    if src is None:
        parts = [f"data: {data_source(data_dir)} ({data_dir})"]
    elif not src:
        parts = [f"data: none read ({data_dir} given)"]
    else:
        parts = [f"data: {src.text()}"]
    if seed is not None:
        parts.append(f"seed: {seed}")
    if n_boot is not None:
        parts.append(f"bootstrap draws: {n_boot:,}")
    parts.append(f"commit: {_commit()}")
    parts.append(f"built: {_dt.datetime.now(_dt.UTC).date().isoformat()}")
    return " · ".join(parts)


#: The banner of a page computed from the shipped reconstruction: one line (a collapsed admonition whose title
#: says it all; its body, opened by a click, says what a reconstruction is and how to use the real rows).
RECONSTRUCTION_NOTICE = (
    ":::{admonition} Computed from reconstructed rows, not the paper's raw answers\n:class: warning dropdown\n"
    "The paper's raw answers live in its replication package, which this build could not reach. "
    "Every number on this page is computed from a **reconstruction**: row-level data generated by a "
    "documented, seeded program so that the paper's published statistics hold "
    "(see [How the data were reconstructed](12_reconstruction.ipynb) and "
    "{ref}`what a reconstruction cannot tell you <recon-limits>`). "
    "Drop the original package into `data/raw/` and rerun to compute from the real rows.\n:::\n\n"
)


def _names(fams: list[str]) -> str:
    return ", ".join(fams)


def banner_text(
    data_dir: str | os.PathLike, seed: int | str | None = None, n_boot: int | None = None, families=None
) -> str:
    """The MyST text :func:`banner` shows (an admonition, then the provenance paragraph).

    * every family from the shipped reconstruction (or no ``families`` and a reconstructed ``data_dir``):
      the reconstruction notice :data:`RECONSTRUCTION_NOTICE`;
    * ``data_dir`` holds none of the page's families: a notice naming them and saying that the
      reconstruction stood in for all of them;
    * some families from each source: a notice naming the families of each source;
    * every family from the original package: a note saying so.

    The provenance paragraph carries ``data-sources="family=source;..."`` for tools that read the page.
    Example: ``banner_text("data/raw", families=["collection"])``."""
    src = _as_sources(data_dir, families)
    text = ""
    if src is None:
        if data_source(data_dir) == "reconstruction":
            text += RECONSTRUCTION_NOTICE
    elif src:
        orig, recon = src.of_source("original"), src.of_source("reconstruction")
        shown = src.data_dir
        if not orig and src.data_is_reconstruction:
            text += RECONSTRUCTION_NOTICE
        elif not orig:
            text += (
                ":::{admonition} Computed from reconstructed rows: the data folder holds none of this page's data\n"
                ":class: warning\n"
                f"This build was pointed at `{shown}`, which holds none of the data this page reads "
                f"({_names(recon)}). Every number on this page is therefore computed from the shipped "
                "**reconstruction**: row-level data generated by a documented, seeded program so that the paper's "
                "published statistics hold (see [How the data were reconstructed](12_reconstruction.ipynb) and "
                "{ref}`what a reconstruction cannot tell you <recon-limits>`). "
                f"Put the original files of these families into `{shown}/` (layout: `data/raw/README.md`) "
                "to compute from the real rows.\n:::\n\n"
            )
        elif recon:
            text += (
                ":::{admonition} Computed partly from reconstructed rows\n:class: warning\n"
                f"Read from the original package in `{shown}`: **{_names(orig)}**. Not found there and read from "
                f"the shipped **reconstruction** instead: **{_names(recon)}** (row-level data generated so that the "
                "paper's published statistics hold; see [How the data were reconstructed](12_reconstruction.ipynb) and "
                "{ref}`what a reconstruction cannot tell you <recon-limits>`). "
                "Each family comes whole from one source; numbers computed from the reconstructed families are "
                "not the paper's data.\n:::\n\n"
            )
        else:
            text += (
                ":::{admonition} Computed from the original replication package\n:class: note\n"
                f"Every number on this page is computed from the original rows in `{shown}` "
                f"(data read: {_names(orig)}).\n:::\n\n"
            )
    attr = ""
    if src:
        attr = f' data-sources="{html.escape(";".join(f"{f}={k}" for f, k in src.as_dict().items()))}"'
    line = html.escape(provenance(data_dir, seed, n_boot, src), quote=False)
    return text + f'<p class="selfconf-provenance"{attr}>{line}</p>\n'


def banner(
    data_dir: str | os.PathLike, seed: int | str | None = None, n_boot: int | None = None, families=None
) -> None:
    """Show the data-source notice and the provenance line (:func:`banner_text`) at the top of a page.

    ``families``: the data families the page reads, as a :class:`selfconf.data.sources.Sources` from
    :func:`selfconf.data.sources.resolve_families` (the page then loads each family from ``families.path(f)``),
    a list of family names (resolved here), or ``{family: "original" | "reconstruction"}``.  Without it the
    page is labelled by ``data_dir`` alone.  Example::

        src = resolve_families(data_dir, ["collection"])
        banner(data_dir, seed=seed, n_boot=n_boot, families=src)
    """
    show_markdown(banner_text(data_dir, seed, n_boot, families))


#: Banners of pages whose numbers do not come from the paper's rows (:func:`page_banner`).
PAGE_KINDS = {
    "simulation": (
        "Simulated data, not the paper's results",
        "The numbers on this page come from data simulated on the page itself, for teaching; they are not the "
        "paper's results.{extra}",
    ),
    "external": (
        "Real third-party data, not the paper's rows",
        "The numbers on this page are computed from another group's published answers (real model outputs, "
        "downloaded by `make external`); they are neither the paper's rows nor the book's reconstruction.{extra}",
    ),
    "paper-arithmetic": (
        "No rows on this page: the paper's printed numbers checked against each other",
        "This page computes nothing from rows: it checks the paper's printed numbers against each other.{extra}",
    ),
}


def page_banner(kind: str, note: str = "", provenance_line: str | None = None) -> None:
    """The banner of a page whose numbers are not computed from the paper's rows: ``kind`` is a key of
    :data:`PAGE_KINDS` (simulated teaching data, real third-party data, arithmetic on printed numbers);
    ``note`` adds a sentence (e.g. naming the one section that reads the reconstructed rows, with a link to
    what a reconstruction cannot tell you)."""
    if kind not in PAGE_KINDS:
        raise ValueError(f"kind must be one of {sorted(PAGE_KINDS)}, got {kind!r}")
    title, body = PAGE_KINDS[kind]
    text = (
        f":::{{admonition}} {title}\n:class: note dropdown\n{body.format(extra=(' ' + note) if note else '')}\n:::\n\n"
    )
    if provenance_line:
        text += f'<p class="selfconf-provenance">{provenance_line}</p>\n'
    show_markdown(text)


def as_text(df, formats: dict[str, str]):
    """Copy of ``df`` with the listed columns formatted for display, e.g. ``{"gap_pp": "{:+.1f}"}``.

    Missing values become empty strings.  :func:`table` then shows and offers for download the same
    text the reader sees (a pandas Styler alone would print six decimals)."""
    import pandas as pd

    out = df.copy()
    for col, f in formats.items():
        out[col] = [f.format(v) if pd.notna(v) else "" for v in out[col]]
    return out


def printed_role(claim_id: str) -> str:
    """MyST for the paper's printed token of ``claim_id`` (the ``{printed}`` role of :mod:`selfconf.book.provenance`).

    The provenance extension fills it in from the manifest at build time, marked as the paper's print, so
    notebook code never reads the paper's numbers.

    >>> printed_role("t1_google_self_auroc_ci_lo")
    '{printed}`t1_google_self_auroc_ci_lo`'
    """
    return "{printed}`" + claim_id + "`"


def claim_role(text: str, claim_id: str) -> str:
    """MyST for a table cell (or any inline text) that shows ``text`` and carries the paper claim ``claim_id``.

    The ``{num}`` role is defined by the provenance extension (:mod:`selfconf.book.provenance`), which gives the
    element its status, the paper's print and the hover card, exactly as for a number pasted from glue.

    >>> claim_role("0.746", "t1_google_self_auroc")
    '{num}`0.746 <t1_google_self_auroc>`'
    """
    return "{num}`" + str(text).replace("`", "'").replace("<", "‹") + f" <{claim_id}>`"


_NUMERIC_CHARS = set("0123456789.,+-\u2212\u2013[]()% ")


def _cell_text(v, float_format: str | None, decimals: int | None) -> str:
    """Display text of one cell: booleans as yes/no, missing values empty, floats at a fixed precision."""
    import numpy as np
    import pandas as pd

    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if v is None or (not isinstance(v, (str, bytes, list, tuple, dict)) and pd.isna(v)):
        return ""
    if isinstance(v, (float, np.floating)):
        if float_format:
            return float_format % v
        return f"{float(v):.{decimals if decimals is not None else 6}f}"
    return str(v)


def _column_decimals(values) -> int:
    """Fewest decimals (at most 6) that show every float of a column as it prints at 6 decimals."""
    import numpy as np

    x = np.asarray([float(v) for v in values if isinstance(v, (float, np.floating)) and np.isfinite(v)])
    for d in range(7):
        if x.size == 0 or np.all(np.abs(np.round(x, d) - np.round(x, 6)) < 1e-9):
            return d
    return 6


def is_numeric_text(texts) -> bool:
    """True when every non-empty cell text of a column is a number, signed number, percentage or interval.

    Such columns are right-aligned (with tabular figures, see ``selfconf-publication.css``) so that digits
    line up.  Example: ``is_numeric_text(["0.271", "[0.25, 0.29]", ""])`` is True; ``["openai"]`` is False.
    """
    texts = [t.strip() for t in texts if t.strip()]
    return bool(texts) and all(set(t) <= _NUMERIC_CHARS and any(c.isdigit() for c in t) for t in texts)


def _md_escape(text: str) -> str:
    """Escape a cell's text for a MyST pipe table: every Markdown-active character becomes literal."""
    out = []
    for ch in text.replace("\r", " ").replace("\n", " "):
        out.append("\\" + ch if ch in "\\`*_{}[]<>()#+!|$~&:" else ch)
    return "".join(out)


def table_label(name: str) -> str:
    """Cross-reference label of the table written by :func:`table`: ``tab-`` + ``name`` with ``_`` as ``-``.

    Example: ``table_label("table3_ladder") == "tab-table3-ladder"``; cite it as ``{numref}`tab-table3-ladder```.
    """
    import re

    return "tab-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def table_markdown(
    df,
    name: str,
    caption: str,
    index: bool = False,
    float_format: str | None = None,
    claims: dict | None = None,
    anchors: dict | None = None,
    printed: dict | None = None,
) -> str:
    """MyST source of a numbered, captioned table (``{table}`` directive around a pipe table).

    Definition: one header row from the column names (a MultiIndex is joined with " / "), one row per
    data row; booleans read yes/no, missing values are empty, floats print with the fewest decimals
    (at most six) that show every value of their column, or with ``float_format`` (``"%.3f"``).
    Columns whose every cell is numeric text are right-aligned.  The table gets the label
    :func:`table_label` ``(name)``, so any page can link it with ``{numref}``; the paper's Tables 1-4
    keep the paper's numbers (``selfconf.book.publication.PAPER_NUMBERS``), every other table is numbered
    S1, S2, ... in reading order.  ``claims`` (``{(row label, column): claim id}``) makes those cells carry
    their paper claim (:func:`claim_role`); ``anchors`` (``{(row label, column): id}``) puts an HTML anchor
    with that exact id before the cell's text (the ``{anchor}`` role of :mod:`selfconf.book.provenance`);
    ``printed`` (``{(row label, column): claim id}``) replaces the cell by the paper's printed token of that
    claim (:func:`printed_role`), filled in at build time and labelled as the paper's.

    Reference: MyST-Parser, "Tables" (the ``table`` directive, CommonMark pipe tables).

    Example::

        >>> import pandas as pd
        >>> print(table_markdown(pd.DataFrame({"model": ["a"], "ok": [True], "auroc": [0.5]}), "t", "A caption"))
        :::{table} A caption
        :name: tab-t
        :class: selfconf-table
        :widths: auto
        <BLANKLINE>
        | model | ok | auroc |
        | :-- | :-- | --: |
        | a | yes | 0.5 |
        :::
    """
    if not caption or not str(caption).strip():
        raise ValueError(f"table {name!r}: a caption is required (every table of the book is numbered and captioned)")
    frame = df.reset_index() if index else df
    cols = [" / ".join(str(c) for c in col if str(c)) if isinstance(col, tuple) else str(col) for col in frame.columns]
    body = []
    for j in range(frame.shape[1]):
        col = frame.iloc[:, j]
        dec = _column_decimals(col.tolist()) if float_format is None else None
        body.append([_cell_text(v, float_format, dec) for v in col.tolist()])
    align = ["--:" if is_numeric_text(c) else ":--" for c in body]
    lines = [
        f":::{{table}} {' '.join(str(caption).split())}",
        f":name: {table_label(name)}",
        ":class: selfconf-table",
        ":widths: auto",
        "",
        "| " + " | ".join(_md_escape(c) for c in cols) + " |",
        "| " + " | ".join(align) + " |",
    ]
    claims, anchors, printed = claims or {}, anchors or {}, printed or {}
    labels = list(frame.index)

    def cell(i: int, j: int) -> str:
        key = (labels[i], frame.columns[j])
        text = body[j][i]
        if printed.get(key):
            md = printed_role(printed[key])
        else:
            md = claim_role(text, claims[key]) if claims.get(key) else _md_escape(text)
        return ("{anchor}`" + anchors[key] + "`" + md) if anchors.get(key) else md

    for i in range(frame.shape[0]):
        lines.append("| " + " | ".join(cell(i, j) for j in range(len(cols))) + " |")
    lines.append(":::")
    return "\n".join(lines)


def _printed_sidecar(out, name: str, frame, printed: dict) -> None:
    """Write (or remove) ``<out>/.printed/<name>.json``: the CSV cells that show the paper's printed token.

    ``frame`` is the table as written to the CSV (the index reset when it is written), so data row ``i`` and
    column ``frame.columns[j]`` are the CSV's row ``i + 1`` and its column named ``str(frame.columns[j])``."""
    import json

    side = out / PRINTED_DIR / f"{name}.json"
    labels = list(frame.index)
    cells = [
        {"row": i, "column": str(col), "claim": printed[(labels[i], col)]}
        for i in range(len(labels))
        for col in frame.columns
        if printed.get((labels[i], col))
    ]
    if not cells:
        side.unlink(missing_ok=True)
        return
    if getattr(frame.columns, "nlevels", 1) != 1:
        raise ValueError(f"table {name!r}: printed cells need one header row (its columns are a MultiIndex)")
    side.parent.mkdir(parents=True, exist_ok=True)
    side.write_text(json.dumps({"csv": f"{name}.csv", "cells": cells}, indent=1) + "\n", encoding="utf-8")


def table(
    df,
    name: str,
    caption: str | None = None,
    index: bool = False,
    float_format: str | None = None,
    claims: dict | None = None,
    anchors: dict | None = None,
    printed: dict | None = None,
) -> None:
    """Show ``df`` as a numbered, captioned table and offer it as a CSV download.

    The CSV (``book/_static/tables/<name>.csv``; a rerun's own folder when :data:`TABLE_DIR_ENV` is set) holds the
    frame's own values, and the cells of ``printed`` are listed beside it (:data:`PRINTED_DIR`) so that the book's
    build writes the paper's tokens into them, as on the page; the page shows the text
    of :func:`table_markdown` (booleans as yes/no, numbers right-aligned).  ``caption`` is required;
    ``claims``, ``anchors`` and ``printed`` are passed to :func:`table_markdown`.

    Returns nothing, so a call that ends a cell leaves no stray ``repr`` on the page.

    Example: ``table(df, "table1", caption="Per-model calibration")`` shows Table 1 (label ``tab-table1``).
    """
    if not in_book():  # a notebook run on its own: no book folder to write the CSV into, no MyST renderer
        from IPython.display import display

        show_markdown(f"**{caption or name}**")
        display(df.style.hide(axis="index") if not index else df)
        return
    md = table_markdown(
        df, name, caption or "", index=index, float_format=float_format, claims=claims, anchors=anchors, printed=printed
    )
    out = table_folder()
    path = out / f"{name}.csv"
    df.to_csv(path, index=index, float_format=float_format, lineterminator="\n")
    _printed_sidecar(out, name, df.reset_index() if index else df, printed or {})
    show_markdown(md + f"\n\n{{download}}`Download this table as CSV <_static/tables/{name}.csv>`")


def fill_printed_csv(csv_path: str | Path, cells: list[dict], token: Any) -> bool:
    r"""Write the paper's printed token ``token(claim id)`` into the listed cells of ``csv_path``; True if it changed.

    ``cells`` are ``{"row": data row (0 = first row under the header), "column": header, "claim": id}`` (the
    ``.printed`` sidecar of :func:`selfconf.book.table`).  Every other cell is written back as read; the file is
    rewritten only when its text changes, so an unchanged download does not make Sphinx read its page again.

    Example::

        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
        >>> _ = p.write_text("panel,paper prints\nUS,\n", encoding="utf-8")
        >>> fill_printed_csv(p, [{"row": 0, "column": "paper prints", "claim": "c"}], {"c": "−0.148"}.get)
        True
        >>> p.read_text(encoding="utf-8")
        'panel,paper prints\nUS,−0.148\n'
    """
    import csv
    import io

    path = Path(csv_path)
    text = path.read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = rows[0] if rows else []
    for c in cells:
        if c["column"] not in header or not 0 <= int(c["row"]) < len(rows) - 1:
            raise ValueError(f"{path}: no cell at row {c['row']}, column {c['column']!r} for claim {c['claim']!r}")
        rows[int(c["row"]) + 1][header.index(c["column"])] = str(token(c["claim"]))
    buf = io.StringIO(newline="")
    csv.writer(buf, lineterminator="\n").writerows(rows)
    if buf.getvalue() == text:
        return False
    path.write_text(buf.getvalue(), encoding="utf-8")
    return True
