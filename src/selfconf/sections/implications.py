"""Implications (page ``07_implications``): a page that computes nothing and restates the sections' numbers.

The page pastes numbers that Result 1 and Result 3 compute (each repeat glued under its own id with the value its
canonical id has in the executed section notebook) and quotes the profile-swap extension, which has no released
rows.  :data:`RESTATED` is its map of repeat id to canonical id, :data:`QUOTED` its quoted facts, and
:func:`compute` resolves the repeats from any mapping of canonical values (the glued values of the executed
sections, or the ``values`` of their ``compute`` results).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from selfconf.sections.computed import Builder, Computed

__all__ = ["QUOTED", "RESTATED", "compute"]

#: ``{repeat id: canonical id}``: what the page restates, and from which section's glue key.
RESTATED = {
    "impl_highconf_wrong_pct": "r1_highconf_wrong_pooled_pct",
    "impl_best_self_auroc": "t1_anthropic_self_auroc",
    "impl_n_models_below_threshold": "r1_n_models_below_threshold",
    "impl_n_api_models": "r1_n_frontier_models",
    "impl_auroc_threshold": "r1_auroc_threshold",
    "impl_median_band_min": "r1_median_band_min",
    "impl_median_band_max": "r1_median_band_max",
    "impl_expl_rung_shuffled_auroc": "expl_rung_shuffled_auroc",
    "impl_cn_delta": "cn_panel_vs_self_delta",
}
#: Quoted facts of the profile-swap extension (no released rows).
QUOTED = ("swap_n_pairs", "swap_n_calls", "swap_max_auroc_shift", "swap_similarity_rank_spearman")


def compute(canonical: Mapping[str, Any]) -> Computed:
    """The page's repeats, each with the value of its canonical id in ``canonical``.

    Definition: ``values[repeat] = canonical[RESTATED[repeat]]`` for every repeat (a paper claim each, part
    ``restated``).  A canonical id missing from ``canonical`` raises ``KeyError`` naming it.

    References: the paper's Implications section; :func:`selfconf.book.glue.restate` glues the same values from
    the executed notebooks.

    Examples
    --------
    >>> vals = {c: 1.0 for c in RESTATED.values()}
    >>> compute(vals)["impl_cn_delta"]
    1.0
    """
    b = Builder()
    for repeat, canon in RESTATED.items():
        if canon not in canonical:
            raise KeyError(f"{repeat}: canonical key {canon!r} is not among the given values")
        b.add("restated", repeat, canonical[canon])
    return b.build()
