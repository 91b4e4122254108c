"""Glue claim-id values into an executing notebook, as plain Python numbers.

Every number the book prints is glued under the id the paper's claim manifest gives it
(``data/paper/claims.yaml``) and pasted into prose with ``{glue:text}`id:fmt```.  Values are
glued in the claim's own unit (percent claims as 0–100, AUROC/Brier/ECE as 0–1, confidence
points as 0–100) and unrounded: rounding happens only when a page formats the value, and the
audit (:mod:`selfconf.book.audit`) applies the same format to compare with the printed token.

numpy 2 scalars repr as ``np.float64(0.5)``, which breaks formatted glue, so :func:`plain`
converts them first.
"""

from __future__ import annotations

import json
import math
import os
import re
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import numpy as np

from selfconf.claims.quoted import QUOTED_FACTS, quoted_value
from selfconf.data.paths import resolve

__all__ = [
    "plain",
    "claim",
    "claims",
    "value",
    "quoted",
    "quoted_value",
    "restate",
    "page_seed",
    "restated_seed",
    "glued_in_notebook",
    "glued_values",
    "pasted_keys",
    "paste_key",
    "rows_origin",
    "ORIGINS",
    "ORIGIN_SUFFIX",
    "QUOTED_FACTS",
]

#: The one labelled source of quoted (external) facts: numbers with no row-level source.


def plain(x: Any) -> Any:
    """Return ``x`` as a plain Python ``int``/``float``/``bool``/``str`` (numpy scalars unwrapped).

    Raises ``TypeError`` for arrays and other containers, and ``ValueError`` for NaN/inf,
    which must never reach a page silently.
    """
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, Integral):
        return int(x)
    if isinstance(x, Real):
        f = float(x)
        if not math.isfinite(f):
            raise ValueError(f"refusing to glue a non-finite number: {x!r}")
        return f
    if isinstance(x, str):
        return x
    raise TypeError(f"glue plain numbers or strings, not {type(x).__name__}")


def _myst_glue(key: str, val: Any) -> None:
    """Record ``val`` under ``key`` for myst-nb's ``{glue}`` roles.

    Glued values are read only by the book's Sphinx build, which needs myst-nb; a notebook run
    outside the book (a downloaded or student notebook in Jupyter, Colab or Binder) may not have it,
    and there is then nothing to paste into, so the value is only returned to the caller."""
    try:
        from myst_nb import glue as _glue  # imported lazily: the CLI must not need myst-nb
    except ImportError:
        if os.environ.get("SELFCONF_BOOK") == "1":  # the book build must never lose a glued value
            raise
        return
    _glue(key, val, display=False)


def claim(claim_id: str, x: Any) -> Any:
    """Glue ``x`` (converted by :func:`plain`) under ``claim_id``; return the plain value."""
    val = plain(x)
    _myst_glue(claim_id, val)
    return val


def claims(mapping: dict[str, Any]) -> dict[str, Any]:
    """Glue every ``claim_id: value`` pair of ``mapping``; return the plain values."""
    return {k: claim(k, v) for k, v in mapping.items()}


#: Where a pasted number that is not one of the paper's claims comes from; the pages style and explain
#: each one (the legend), and the build refuses a pasted value that has neither a claim id nor an origin.
ORIGINS = {
    "reconstruction-only": "computed from the reconstructed rows and not printed in the paper: a property of "
    "the reconstruction, not a finding",
    "original-data": "computed from the original replication rows; the paper does not print it",
    "parameter": "a setting of this build (seed, bootstrap draws, a threshold used as a setting)",
    "simulation": "computed from data simulated on this page for teaching",
    "external-data": "computed from third-party real data, not from the paper's rows",
    "paper-arithmetic": "arithmetic on the paper's printed numbers (the consistency checks)",
    "build": "a fact about this build itself (audit counts)",
}

#: Suffix of the glue key that records a value's origin.
ORIGIN_SUFFIX = "__origin"


def rows_origin(source: Any) -> str:
    """The origin of a number computed from rows of the given source but not printed in the paper.

    ``source`` is ``"reconstruction"`` (the shipped rows) or ``"original"`` (the replication package), or a
    page's resolved families (:class:`selfconf.data.sources.Sources`, a mapping of family to an object with a
    ``source``): then the page's numbers are ``reconstruction-only`` as soon as any family it reads comes from
    the reconstruction (a number the paper does not print may mix them).

    >>> rows_origin("reconstruction"), rows_origin("original")
    ('reconstruction-only', 'original-data')
    """
    if not isinstance(source, str):
        kinds = {getattr(v, "source", v) for v in dict(source).values()}
        source = "reconstruction" if "reconstruction" in kinds or not kinds else "original"
    if source not in ("reconstruction", "original"):
        raise ValueError(f"source must be 'reconstruction' or 'original', got {source!r}")
    return "reconstruction-only" if source == "reconstruction" else "original-data"


def value(key: str, x: Any, *, origin: str) -> Any:
    """Glue a value that is not a paper claim (a count shown on a page, a parameter), with its origin.

    ``origin`` is a key of :data:`ORIGINS`; it is glued beside the value as ``<key>__origin`` so that the
    page can say what the number is.  Returns the plain value.
    """
    if origin not in ORIGINS:
        raise ValueError(f"{key}: origin must be one of {sorted(ORIGINS)}, got {origin!r}")
    val = claim(key, x)
    _myst_glue(f"{key}{ORIGIN_SUFFIX}", origin)
    return val


def quoted(claim_id: str, path: str | Path = QUOTED_FACTS, *, as_id: str | None = None) -> Any:
    """Glue an external (quoted, never computed) fact from :data:`QUOTED_FACTS`.

    ``as_id`` glues it under another claim id (a restatement of the quoted fact on the same page).
    Also glues ``<id>__quoted = True`` so that pages and the audit can mark it as quoted.
    """
    key = as_id or claim_id
    val = claim(key, quoted_value(claim_id, path))
    _myst_glue(f"{key}__quoted", True)
    return val


def _glued_cells(nb_path: Path) -> dict[str, tuple[Any, int]]:
    """``{key: (value, cell index)}`` for one executed notebook (see :func:`glued_in_notebook`)."""
    import ast

    out: dict[str, tuple[Any, int]] = {}
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb.get("cells", [])):
        for o in cell.get("outputs", []) or []:
            meta = (o.get("metadata") or {}).get("scrapbook") or {}
            key = meta.get("name")
            if not key:
                continue
            prefix = meta.get("mime_prefix", "") or ""
            data = o.get("data", {})
            text = data.get(prefix + "text/plain", data.get("text/plain"))
            if isinstance(text, list):
                text = "".join(text)
            try:
                v = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                v = text
            if key in out and out[key][0] != v:
                raise ValueError(f"glue key {key!r} has two values in {nb_path.name}: {out[key][0]!r} and {v!r}")
            out.setdefault(key, (v, i))
    return out


def glued_in_notebook(nb_path: str | Path) -> dict[str, Any]:
    """Read the glued keys of one executed notebook: ``{key: value}``.

    ``value`` is the ``text/plain`` of the glue output (myst-nb stores it under
    ``"<mime_prefix>text/plain"``) parsed back with :func:`ast.literal_eval`, or the text itself when
    it is not a literal.  A key glued twice with different values raises ``ValueError``.
    """
    return {k: v for k, (v, _) in _glued_cells(Path(nb_path)).items()}


_NOTEBOOK_CACHE: dict[tuple[str, int, int], dict[str, tuple[Any, int]]] = {}


def glued_values(book_dir: str | Path = "book", exclude: tuple[str, ...] = ()) -> dict[str, dict]:
    """Read every glued key of the executed notebooks in ``book_dir``.

    Returns ``{key: {"value": v, "notebook": name, "cell": index}}`` (values as
    :func:`glued_in_notebook` reads them; ``cell`` is the index of the cell that glued the key in the
    executed notebook).  A key glued by two notebooks with different values raises ``ValueError``.
    """
    out: dict[str, dict] = {}
    for nb_path in sorted(resolve(book_dir).glob("*.ipynb")):
        if nb_path.name in exclude:
            continue
        st = nb_path.stat()
        stamp = (str(nb_path), st.st_mtime_ns, st.st_size)
        if stamp not in _NOTEBOOK_CACHE:  # a restating page calls this once per repeat: parse each file once
            _NOTEBOOK_CACHE[stamp] = _glued_cells(nb_path)
        for key, (v, cell) in _NOTEBOOK_CACHE[stamp].items():
            prev = out.get(key)
            if prev is not None and prev["value"] != v:
                raise ValueError(
                    f"glue key {key!r} has two values: {prev['value']!r} in {prev['notebook']} "
                    f"and {v!r} in {nb_path.name}"
                )
            if prev is None:
                out[key] = {"value": v, "notebook": nb_path.name, "cell": cell}
    return out


#: A glue paste in MyST: ``{glue}`key```, ``{glue:text}`key:fmt```, ``{glue:md}`key```, ...
PASTE_ROLE = re.compile(r"\{glue(?::[a-z]+)?\}`([^`]+)`")


def paste_key(role_text: str) -> str:
    """The glue key of a paste role's content: ``"t1_google_n:,.0f"`` -> ``"t1_google_n"``."""
    key = role_text.split("::", 1)[-1]
    return key.rsplit(":", 1)[0] if ":" in key else key


def pasted_keys(book_dir: str | Path = "book") -> dict[str, list[str]]:
    """``{glue key: [page stems that paste it]}`` from the markdown of the executed notebooks and the
    markdown pages in ``book_dir`` (what the reader sees; a key glued but never pasted is absent)."""
    found: dict[str, set[str]] = {}
    root = resolve(book_dir)
    for path in sorted(root.glob("*.ipynb")) + sorted(root.glob("*.md")):
        if path.suffix == ".ipynb":
            nb = json.loads(path.read_text(encoding="utf-8"))
            text = "\n".join(
                "".join(c.get("source", "")) for c in nb.get("cells", []) if c.get("cell_type") == "markdown"
            )
        else:
            text = path.read_text(encoding="utf-8")
        for m in PASTE_ROLE.finditer(text):
            found.setdefault(paste_key(m.group(1)), set()).add(path.stem)
    return {k: sorted(v) for k, v in sorted(found.items())}


#: ``{repeat id: executed notebook that computed its canonical value}``, filled by :func:`restate` (this kernel).
_RESTATED_FROM: dict[str, Path] = {}


def page_parameters(nb_path: str | Path) -> dict[str, Any]:
    """The literal parameters an executed notebook ran with: its injected parameters (papermill's
    ``injected-parameters`` cell) over its ``parameters`` cell, ``{name: value}`` (non-literal ones left out)."""
    import ast

    nb = json.loads(Path(nb_path).read_text(encoding="utf-8"))
    out: dict[str, Any] = {}
    for tag in ("parameters", "injected-parameters"):
        for cell in nb.get("cells", []):
            if cell.get("cell_type") != "code" or tag not in (cell.get("metadata", {}).get("tags") or []):
                continue
            try:
                tree = ast.parse("".join(cell.get("source", "")))
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.Assign):
                    for t in node.targets:
                        name = getattr(t, "id", None)
                        if name is None:
                            continue
                        try:
                            out[name] = ast.literal_eval(node.value)
                        except ValueError:
                            out.pop(name, None)
    return out


def page_seed(nb_path: str | Path) -> int | None:
    """The ``seed`` an executed notebook ran with (:func:`page_parameters`); ``None`` when neither its
    injected parameters nor its ``parameters`` cell assigns a literal integer ``seed``."""
    seed = page_parameters(nb_path).get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def restated_seed(book_dir: str | Path = "book", default: Any = None) -> Any:
    """What a restating page's banner says for ``seed``: the seed(s) of the pages its restated values were
    computed on (recorded by :func:`restate` in this kernel), e.g. ``"20261130 (the seed of 03_design,
    04_result1, the pages these numbers were computed on)"``; ``default`` (the page's own ``seed``) when the page
    restated nothing computed."""
    by_seed: dict[Any, list[str]] = {}
    for nb in sorted(set(_RESTATED_FROM.values())):
        by_seed.setdefault(page_seed(nb), []).append(nb.stem)
    if not by_seed:
        return default
    parts = [f"{'not stated' if s is None else s} ({', '.join(pages)})" for s, pages in by_seed.items()]
    if len(parts) == 1:
        ((s, pages),) = by_seed.items()
        return f"{s} (the seed of {', '.join(pages)}, the pages these numbers were computed on)"
    return "; ".join(parts) + " (the seeds of the pages these numbers were computed on)"


def restate(repeat_id: str, canonical_id: str, *, negate: bool = False, book_dir: str | Path = "book") -> Any:
    """Glue ``repeat_id`` with the value a computing notebook glued under ``canonical_id``.

    Pages that restate numbers (abstract, introduction, ...) compute nothing: they paste.  The
    audit then holds the repeat's value against the number the paper prints for ``repeat_id``.
    ``negate`` flips the sign (a 'drop of -0.237' restating a '+0.237' difference).
    """
    vals = glued_values(book_dir)
    if canonical_id not in vals:
        raise KeyError(
            f"{repeat_id}: canonical key {canonical_id!r} is not glued by any executed notebook in {book_dir}/ "
            "(execute the section that computes it first)"
        )
    v = vals[canonical_id]["value"]
    if not vals.get(f"{canonical_id}__quoted", {}).get("value"):  # a quoted fact has no seed
        _RESTATED_FROM[repeat_id] = resolve(book_dir) / vals[canonical_id]["notebook"]
    if vals.get(f"{canonical_id}__quoted", {}).get("value"):
        _myst_glue(f"{repeat_id}__quoted", True)
    return claim(repeat_id, -v if negate else v)
