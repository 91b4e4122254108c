"""Locate the project root and resolve data paths.

Notebooks run with papermill from `book/` (or anywhere else); relative paths given as
parameters are resolved against the project root, found by walking up from the current
directory to the folder holding `_toc.yml`.  ``SELFCONF_ROOT`` overrides the search.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

__all__ = ["project_root", "resolve", "book_file", "DEFAULT_DATA_DIR"]

#: The data the project ships (a reconstruction; see data/README.md).
DEFAULT_DATA_DIR = "data/reconstructed"


def project_root(start: str | os.PathLike | None = None) -> Path:
    """Return the project root: ``$SELFCONF_ROOT`` or the nearest ancestor holding ``_toc.yml``.

    Falls back to the source checkout that holds this package (editable install).
    """
    env = os.environ.get("SELFCONF_ROOT")
    if env:
        return Path(env).resolve()
    here = Path(start or os.getcwd()).resolve()
    for cand in (here, *here.parents):
        if (cand / "_toc.yml").is_file():
            return cand
    pkg_root = Path(__file__).resolve().parents[3]
    if (pkg_root / "_toc.yml").is_file():
        return pkg_root
    raise FileNotFoundError(f"cannot find the project root (a folder with _toc.yml) above {here}; set SELFCONF_ROOT")


def resolve(path: str | os.PathLike) -> Path:
    """Resolve ``path``: absolute paths are kept, relative ones are taken from the project root."""
    p = Path(path)
    return p if p.is_absolute() else project_root() / p


def book_file(name: str, root: str | os.PathLike | None = None, *, missing_ok: bool = False) -> dict[str, Any]:
    """The parsed Jupyter Book file ``name`` (``"_toc.yml"`` or ``"_config.yml"``) of the project root.

    Definition: ``yaml.safe_load`` of ``<root>/<name>`` (``root`` defaults to :func:`project_root`); an
    empty file gives ``{}``.  A missing file raises ``FileNotFoundError``, or gives ``{}`` with
    ``missing_ok``.  The one reader of the book's table of contents and configuration (the build, the
    PDF printer and the course edition call it).

    Reference: Jupyter Book 1 documentation, "Structure and organize content" (``_toc.yml``) and
    "Configuration reference" (``_config.yml``).

    >>> book_file("_toc.yml")["root"]
    'book/index'
    """
    p = Path(root or project_root()) / name
    if not p.is_file():
        if missing_ok:
            return {}
        raise FileNotFoundError(f"{p}: not found")
    return yaml.safe_load(p.read_text(encoding="utf-8")) or {}
