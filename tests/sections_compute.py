"""Each computing section's ``compute()`` called the way its notebook calls it, without papermill.

``computed(section, data_dir, seed, n_boot)`` is :func:`selfconf.book.seedstudy.section_compute` (the one function
that loads the families a section's notebook reads and calls its ``compute``, used by the seed study too),
memoised for the test session, so tests that ask for the same run share it.

Imported by the test modules (``from sections_compute import computed``).
"""

from __future__ import annotations

from functools import cache

from selfconf.book.seedstudy import COMPUTING, section_compute
from selfconf.sections.computed import Computed

__all__ = ["COMPUTING", "DEFAULT_SEED", "computed"]

DEFAULT_SEED = 20261130


@cache
def computed(
    section: str, data_dir: str = "data/reconstructed", seed: int = DEFAULT_SEED, n_boot: int = 200
) -> Computed:
    """``section``'s ``compute()`` on the rows in ``data_dir`` (see the module docstring)."""
    return section_compute(section, data_dir, seed, n_boot)
