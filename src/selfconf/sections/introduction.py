"""The introduction's one derived number: the range of Brier changes of the local models a false profile hurt.

Everything else on the introduction (and on the abstract) is restated from the page that computes it
(:func:`selfconf.book.glue.restate`); this module holds the only arithmetic the introduction does itself, so that
tests can call it without papermill.

Definition
----------
Result 3's topic-labelled pass glues, per local model ``m``, ``topic_<m>_brier_delta``: its Brier score with the
false profile injected minus with the true one (:mod:`selfconf.sections.manipulation`).  A model's calibration
got *worse* when that change is positive.  Claim C3 quotes the smallest and the largest of the positive changes.

References
----------
Chernets (2026), Introduction (claim C3) and Result 3 (topic-labelled pass).  Brier, G. W. (1950). Verification
of forecasts expressed in terms of probability. Monthly Weather Review 78, 1-3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from selfconf.sections.computed import Builder, Computed

__all__ = ["BRIER_PREFIX", "BRIER_SUFFIX", "compute", "worsened_brier_range"]

#: Glue keys of the per-model Brier changes of Result 3's topic-labelled pass: ``topic_<model>_brier_delta``.
BRIER_PREFIX, BRIER_SUFFIX = "topic_", "_brier_delta"


def worsened_brier_range(values: Mapping[str, Any]) -> tuple[float, float]:
    """Smallest and largest positive Brier change among the ``topic_<model>_brier_delta`` entries of ``values``.

    Parameters
    ----------
    values : mapping
        Glue key to value (other keys are ignored), e.g. ``{k: v["value"] for k, v in glued_values().items()}``.

    Returns
    -------
    (min, max) of the positive changes.

    Raises
    ------
    ValueError
        When no model's Brier score got worse (there is then no range to quote).

    Examples
    --------
    >>> worsened_brier_range({"topic_a_brier_delta": 0.031, "topic_b_brier_delta": -0.01,
    ...                       "topic_c_brier_delta": 0.12, "topic_n_models": 3})
    (0.031, 0.12)
    """
    worse = [v for k, v in values.items() if k.startswith(BRIER_PREFIX) and k.endswith(BRIER_SUFFIX) and v > 0]
    if not worse:
        raise ValueError("no topic_<model>_brier_delta is positive: no local model's calibration got worse")
    return min(worse), max(worse)


def compute(values: Mapping[str, Any]) -> Computed:
    """The values the introduction derives itself (claim ids ``intro_c3_topic_brier_delta_min/max``).

    ``values`` maps glue keys of the executed computing pages to their values (see
    :func:`worsened_brier_range`); the result has one part, ``c3_brier``.

    Examples
    --------
    >>> compute({"topic_a_brier_delta": 0.05, "topic_b_brier_delta": 0.02}).values
    {'intro_c3_topic_brier_delta_min': 0.02, 'intro_c3_topic_brier_delta_max': 0.05}
    """
    lo, hi = worsened_brier_range(values)
    pv = Builder()
    pv.update("c3_brier", {"intro_c3_topic_brier_delta_min": lo, "intro_c3_topic_brier_delta_max": hi})
    return pv.build()
