"""Judging a generator's recomputed values, and their large-B bootstrap values, for the ladder and arms fidelity files.

The ladder and arms generators (:mod:`selfconf.reconstruct.ladder`, :mod:`selfconf.reconstruct.arms`) record in
their fidelity files every claim recomputed from the written rows by the book's own functions, judged by the
book's one rule, and each bootstrap claim's mean over many seeds (so a page's seed luck can be told apart from a
limit of the rows).
"""

from __future__ import annotations

from selfconf.claims.judging import fidelity_records, load_manifest
from selfconf.reconstruct.fidelity import mean_over_seeds

__all__ = ["IDEAL_SEEDS", "IDEAL_N_BOOT", "ideal_bootstrap", "judge"]


#: Bootstrap seeds and draws behind the ``ideal_bootstrap`` values of the fidelity files: many draws
#: over seeds other than the book's, so a reader can tell a seed's luck from a limit of the data.
IDEAL_SEEDS = tuple(range(1, 11))
IDEAL_N_BOOT = 4000


def ideal_bootstrap(recompute_fn, judged: dict[str, dict]) -> dict[str, dict]:
    """Large-B value of every bootstrap-kind claim in ``judged``: :func:`mean_over_seeds`
    of ``recompute_fn`` over :data:`IDEAL_SEEDS` with :data:`IDEAL_N_BOOT` draws each."""
    ids = sorted(k for k, r in judged.items() if r["kind"] in ("bootstrap", "bootstrap-derived"))
    return mean_over_seeds(recompute_fn, lambda values: ids, IDEAL_SEEDS, IDEAL_N_BOOT)


def judge(values: dict[str, float], claims_path: str = "data/paper/claims.yaml") -> dict[str, dict]:
    """Judge recomputed values against the manifest by the book's one rule
    (:func:`selfconf.claims.judging.fidelity_records`, the audit's rule)."""
    return fidelity_records(load_manifest(claims_path), values)
