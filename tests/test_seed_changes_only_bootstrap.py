"""Changing the seed (and the number of draws) moves bootstrap-kind values only.

Each computing section's ``compute()`` (what its notebook glues, :mod:`sections_compute`) runs at the book's
seed and at another seed with fewer draws; every deterministic and derived claim must come back identical
(derived claims built on bootstrap inputs, such as a Holm-adjusted bootstrap p-value, count as bootstrap:
:func:`selfconf.book.rerun.claim_kinds`), and at least one bootstrap value of a section that has any must
move, otherwise the seed would not be reaching the bootstrap at all.  The comparison is the one
``selfconf rerun`` makes (:func:`selfconf.book.rerun.compare`); that the notebook glues exactly ``compute()``'s
values is checked on the built book (``tests/test_book.py``).
"""

from __future__ import annotations

import pytest
from sections_compute import COMPUTING, DEFAULT_SEED, computed

from selfconf.book.rerun import claim_kinds, compare


@pytest.mark.parametrize("section", COMPUTING)
def test_rerun_with_other_seed(section):
    base = computed(section, seed=DEFAULT_SEED, n_boot=200).values
    other = computed(section, seed=7, n_boot=100).values
    diffs = compare(base, other, claim_kinds())
    assert not [d.key for d in diffs if d.missing], f"{section}: a value is missing from one run"
    moved = [d.key for d in diffs if d.violation]
    assert not moved, f"{section}: deterministic values changed with the seed: {moved}"
    boot = [d for d in diffs if d.kind == "bootstrap"]
    if boot:
        assert any(d.shift not in (None, 0.0) for d in boot), f"{section}: no bootstrap value moved with the seed"
