"""Each computing section's ``compute()`` called the way its notebook calls it, without papermill.

``computed(section, data_dir, seed, n_boot)`` loads the families the section's notebook reads from ``data_dir``
(:func:`selfconf.data.sources.resolve_families`: each family from ``data_dir`` when it holds it, else the
reconstruction), takes the quoted parameters the notebook takes, and returns the section's
:class:`selfconf.sections.computed.Computed`.  Results are memoised for the test session, so tests that ask for
the same run (the seed test and the raw-layout test both need the reconstruction at the default seed) share it.

Imported by the test modules (``from sections_compute import computed``).
"""

from __future__ import annotations

from functools import cache

from selfconf import data
from selfconf.book.glue import quoted_value
from selfconf.data import families
from selfconf.data.sources import SECTION_FAMILIES, resolve_families
from selfconf.sections import design, ladder, limitations, result1, result2, result3
from selfconf.sections.computed import Computed

#: The sections whose notebook computes from rows (``selfconf.book.audit.SECTION_PAGES`` names).
COMPUTING = ("design", "result1", "result2", "result3", "limitations")
DEFAULT_SEED = 20261130


@cache
def computed(
    section: str, data_dir: str = "data/reconstructed", seed: int = DEFAULT_SEED, n_boot: int = 200
) -> Computed:
    """``section``'s ``compute()`` on the rows in ``data_dir`` (see the module docstring)."""
    src = resolve_families(data_dir, list(SECTION_FAMILIES[section]))
    level = quoted_value("ci_level_pct") / 100
    if section == "design":
        rows, excl = data.load_collection(src.path("collection"))
        bench = data.load_benchmark_age(src.path("benchmark_age"))
        return design.compute(rows, excl, bench, seed=seed, n_boot=n_boot, level=level)
    if section == "result1":
        rows, excl = data.load_collection(src.path("collection"))
        q = quoted_value
        return result1.compute(
            rows,
            excl,
            seed=seed,
            n_boot=n_boot,
            threshold_points=q("r1_highconf_threshold"),
            chance=q("r1_chance_auroc"),
            auroc_cut=q("r1_auroc_threshold"),
            n_bins=q("t1_ece_n_bins"),
            level=level,
            coverages_pct=[q(f"t2_coverage_{c}") for c in (100, 80, 60, 40, 20)],
        )
    bound = quoted_value("ladder_degeneracy_bound")
    frames, profiles, _ = families.load_ladder(src.path("ladder"))
    if section == "result2":
        n_rungs = len(frames)  # counted from the rows, as Result 2 does
        return result2.compute(frames, profiles, bound=bound, n_rungs=n_rungs, seed=seed, n_boot=n_boot)
    if section == "result3":
        probes, _ = families.load_probes(src.path("probes"))
        return result3.compute(
            frames, probes, bound=bound, seed=seed, n_boot=n_boot, frontier_subject=ladder.FRONTIER_RUNG
        )
    if section == "limitations":
        twostage, _ = families.load_twostage(src.path("twostage"))
        regrade, _ = families.load_regrade(src.path("regrade"))
        rows, _ = data.load_collection(src.path("collection"))
        return limitations.compute(rows, twostage, frames, regrade, bound=bound, seed=seed, n_boot=n_boot)
    raise KeyError(f"not a computing section: {section!r}; known: {', '.join(COMPUTING)}")
