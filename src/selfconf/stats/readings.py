"""The readings of the panel comparison: options, definitions, the canonical reading (no numpy, no pandas).

The computation is :func:`selfconf.panels.panel_readings` (which re-exports these names); they live here so that
``selfconf panel --help`` defines every reading without loading the statistics.

References: Chernets (2026), Result 1 and its replication script (every non-canonical reading printed beside the
canonical one); Steegen, Tuerlinckx, Gelman & Vanpaemel (2016), multiverse analysis; Simonsohn, Simmons & Nelson
(2020), specification-curve analysis.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

__all__ = [
    "READINGS",
    "CANONICAL_READING",
    "READING_DEFINITIONS",
    "READING_STATUS",
    "check_reading",
    "all_readings",
    "reading_status",
    "reading_label",
]

#: The reading options, per dimension; the FIRST value of each is the canonical reading (the paper's, and
#: every default of this module).  Definitions: :data:`READING_DEFINITIONS`.
READINGS: dict[str, tuple[str, ...]] = {
    "signal": ("count", "any", "majority"),
    "coding": ("canonical", "label_free"),
    "indeterminate": ("not_concurring", "concurring", "dropped"),
    "ties": ("half", "loss", "win"),
    "aggregation": ("pooled", "macro", "rank_normalised", "per_member"),
    "population": ("all_answered", "any_answered"),
    "cluster": ("item", "row", "member"),
    "leave_out": ("none", "each_member"),
}
#: The canonical reading (Result 1's and chapter 26's numbers): the first option of every dimension.
CANONICAL_READING: dict[str, str] = {k: v[0] for k, v in READINGS.items()}

#: One sentence per option (the ``selfconf panel --help`` text and the chapter's table are built from it).
READING_DEFINITIONS: dict[str, dict[str, str]] = {
    "signal": {
        "count": "the number of other members whose answer concurs with the row's",
        "any": "1 if at least one other member concurs, else 0 (binary)",
        "majority": "1 if a strict majority of the other members concurs (with 3 members: both), else 0",
    },
    "coding": {
        "canonical": "two answers concur when both are graded correct or have the same answer class",
        "label_free": "two answers concur only when they have the same answer class; correctness is never used",
    },
    "indeterminate": {
        "not_concurring": "an indeterminate answer (a refusal, a member without a graded row on the item: "
        "parse failure, no confidence, unresolved equivalence) concurs with nothing",
        "concurring": "every pair with an indeterminate answer counts as concurring (the generous bound)",
        "dropped": "items on which any member's answer is indeterminate are removed (for self and panel alike)",
    },
    "ties": {
        "half": "a tied (correct, wrong) pair counts one half in the AUROC (Mann-Whitney)",
        "loss": "a tied pair counts as a wrong ordering: AUROC = P(S1 > S0)",
        "win": "a tied pair counts as a right ordering: AUROC = P(S1 >= S0)",
    },
    "aggregation": {
        "pooled": "one AUROC over all members' rows pooled, for the panel signal and for stated confidence",
        "macro": "the mean over members of each member's own AUROC (panel and self alike)",
        "rank_normalised": "self: pooled AUROC of each member's confidences replaced by their within-member "
        "mid-rank percentile; panel: the pooled AUROC (the count is already on one scale for every member)",
        "per_member": "one comparison per member: its panel-signal AUROC against its own self-AUROC",
    },
    "population": {
        "all_answered": "the items on which every member has a graded row",
        "any_answered": "the items on which at least one member has a graded row; an absent member is an "
        "indeterminate answer",
    },
    "cluster": {
        "item": "the bootstrap resamples items, each with all its rows (every member's answer to it)",
        "row": "the bootstrap resamples rows one by one, as if a member's answers to one item were independent",
        "member": "the bootstrap resamples the panel's members, each with all its rows",
    },
    "leave_out": {
        "none": "the panel as given",
        "each_member": "each member dropped in turn: one comparison per dropped member on the remaining members' "
        "panel (its own population; needs at least three members)",
    },
}

#: Each option is a *reasonable* reading (a defensible way to compute the paper's comparison) or a *bound* (an
#: option that no analyst would choose as the answer, kept to show how far the result can be pushed), in the
#: sense of Steegen, Tuerlinckx, Gelman & Vanpaemel (2016); a reading is a bound when any of its options is one
#: (:func:`reading_status`).  Value: (status, one-line reason).
READING_STATUS: dict[str, dict[str, tuple[str, str]]] = {
    "signal": {
        "count": ("reasonable", "the paper's signal"),
        "any": ("reasonable", "a binary summary of the same agreement"),
        "majority": ("reasonable", "a binary summary of the same agreement"),
    },
    "coding": {
        "canonical": ("reasonable", "the paper's equivalence coding"),
        "label_free": ("reasonable", "the paper's own stricter recoding, without correctness flags"),
    },
    "indeterminate": {
        "not_concurring": ("reasonable", "the paper's coding: no answer agrees with nothing"),
        "concurring": ("bound", "counts every missing answer as agreement: the most generous coding possible"),
        "dropped": ("reasonable", "complete-case analysis of the items with every answer determinate"),
    },
    "ties": {
        "half": ("reasonable", "the Mann-Whitney AUROC every table of the paper uses"),
        "loss": ("bound", "every tie counted against the score: the lowest AUROC the ordering allows"),
        "win": ("bound", "every tie counted for the score: the highest AUROC the ordering allows"),
    },
    "aggregation": {
        "pooled": ("reasonable", "the paper's aggregation"),
        "macro": ("reasonable", "each member weighted equally"),
        "rank_normalised": ("reasonable", "the paper's decomposition: between-member confidence levels removed"),
        "per_member": ("reasonable", "the comparison within one member, as the paper's per-model tables"),
    },
    "population": {
        "all_answered": ("reasonable", "the paper's population"),
        "any_answered": ("reasonable", "keeps the items some member failed to answer"),
    },
    "cluster": {
        "item": ("reasonable", "the paper's resampling unit: the rows of one item are dependent"),
        "row": ("bound", "ignores the dependence of the rows of one item: intervals too narrow"),
        "member": ("bound", "three clusters: an interval from at most ten distinct resamples"),
    },
    "leave_out": {
        "none": ("reasonable", "the pre-registered panel"),
        "each_member": (
            "bound",
            "a two-member panel is not the pre-registered one; shows how far one member carries the result",
        ),
    },
}


def check_reading(reading: dict[str, str] | None = None, **options: str) -> dict[str, str]:
    """A complete reading: the canonical one with ``reading`` / ``options`` overriding dimensions.

    Definition: a reading fixes one option of each dimension of :data:`READINGS` (signal, coding,
    indeterminate, ties, aggregation, population); unnamed dimensions take the canonical option.  An unknown
    dimension or option raises ``ValueError`` naming the allowed values.

    Reference: Steegen, Tuerlinckx, Gelman & Vanpaemel (2016), multiverse analysis.

    >>> check_reading(ties="loss")["ties"], check_reading(ties="loss")["signal"]
    ('loss', 'count')
    >>> check_reading() == CANONICAL_READING
    True
    """
    out = dict(CANONICAL_READING)
    for k, v in {**(reading or {}), **options}.items():
        if k not in READINGS:
            raise ValueError(f"unknown reading {k!r}; readings are {', '.join(READINGS)}")
        if v not in READINGS[k]:
            raise ValueError(f"reading {k}={v!r}: must be one of {', '.join(READINGS[k])}")
        out[k] = v
    return out


def reading_status(reading: dict[str, str]) -> str:
    """``"reasonable"`` when every option of the reading is reasonable in :data:`READING_STATUS`, else ``"bound"``.

    Reference: Steegen, Tuerlinckx, Gelman & Vanpaemel (2016), multiverse analysis (reasonable choices versus
    bounds).

    >>> reading_status(CANONICAL_READING), reading_status(check_reading(ties="loss", signal="any"))
    ('reasonable', 'bound')
    """
    r = check_reading(reading)
    return "bound" if any(READING_STATUS[k][v][0] == "bound" for k, v in r.items()) else "reasonable"


def all_readings() -> list[dict[str, str]]:
    """Every combination of the options of :data:`READINGS`, the canonical reading first.

    >>> r = all_readings()
    >>> len(r), r[0] == CANONICAL_READING
    (2592, True)
    """
    keys = list(READINGS)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*READINGS.values())]


def reading_label(row: Mapping[str, Any]) -> str:
    """A reading's non-canonical options as ``name=value`` joined by ", " (``canonical`` when there are none),
    with the dropped member (``left_out``) and the member (``member``) when the row names them.

    Keys of ``row`` that are not dimensions are ignored, and a missing dimension counts as canonical.

    >>> reading_label(dict(CANONICAL_READING, ties="loss", member="", left_out=""))
    'ties=loss'
    >>> reading_label(dict(CANONICAL_READING, leave_out="each_member", left_out="b", member=""))
    'leave_out=each_member (without b)'
    """
    parts = [f"{k}={row[k]}" for k in READINGS if k in row and row[k] != CANONICAL_READING[k]]
    text = ", ".join(parts) or "canonical"
    if row.get("left_out"):
        text += f" (without {row['left_out']})"
    if row.get("member"):
        text += f", member={row['member']}"
    return text
