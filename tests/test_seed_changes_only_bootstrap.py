"""Changing the seed (and the number of draws) moves bootstrap-kind values only.

Each computing section of the built book is rerun with another seed and fewer draws; every
deterministic and derived claim must come back identical (derived claims built on bootstrap inputs,
such as a Holm-adjusted bootstrap p-value, count as bootstrap), and at least one bootstrap value of a
section that has any must move — otherwise the seed would not be reaching the bootstrap at all.
"""

from __future__ import annotations

import pytest

from selfconf.book.audit import SECTION_PAGES
from selfconf.book.rerun import rerun

pytestmark = pytest.mark.book

COMPUTING = ["design", "result1", "result2", "result3", "limitations"]


@pytest.mark.parametrize("section", COMPUTING)
def test_rerun_with_other_seed(built_book, root, section, tmp_path):
    stem = SECTION_PAGES[section]
    if not (root / "book" / f"{stem}.ipynb").is_file():
        pytest.skip(f"{section} is not in the book yet")
    res = rerun(section, seed=7, n_boot=500, out_root=tmp_path)
    moved = [d.key for d in res.violations]
    assert not moved, f"{section}: deterministic values changed with the seed: {moved}"
    boot = [d for d in res.diffs if d.kind == "bootstrap"]
    if boot:
        assert any(d.shift not in (None, 0.0) for d in boot), f"{section}: no bootstrap value moved with the seed"
