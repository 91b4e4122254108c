"""Panel agreement versus self-confidence: the paper's three pre-specified panels.

Definitions (Chernets 2026, Result 1 and its pre-registration):

* **Panel** - a fixed set of three frontier models (:data:`PANELS`; members are a design
  constant of the pre-registration, not a fitted quantity).
* **Panel population** - the items on which *every* member has a graded row
  (``parse_ok == 1``).  All panel statistics use the members' rows on these items only,
  which is why a member's self-AUROC here can differ slightly from Table 1.
* **Pooled self-AUROC** - tie-corrected AUROC of stated confidence against correctness over
  all members' rows of the population pooled together (scores compared across models).
* **Concurrence** - two members' answers to the same item concur under *canonical
  equivalence coding* when both were graded correct, or otherwise when they have the same
  ``answer_class`` (same normalised string).  Under the *label-free* recoding they concur only
  when the ``answer_class`` is the same; correctness flags are never consulted.  A refusal
  is not an answer and concurs with nothing.
* **Agreement signal** of a row (model m, item i) - the number of *other* members whose
  answer to i concurs with m's.  A model's own record never enters its own signal.
* **Panel AUROC** - AUROC of the agreement signal against the row's own correctness,
  pooled over members' rows.
* **Within-model rank normalisation** - each member's confidences are replaced by their
  mid-rank percentile among that member's population rows ((rows below + half the ties) / n);
  the pooled AUROC of these percentiles removes between-model differences in confidence
  level while keeping each model's own ordering.
* **Within-model self-AUROC** - each member's AUROC on its own population rows.

Confidence intervals are item-clustered percentile bootstraps (items resampled with all
their rows) from :mod:`selfconf.bootstrap`; the panel-minus-self difference is the paired
contrast on the same item draws (:func:`selfconf.bootstrap.paired_auroc_contrast`).

AUROC: Hanley & McNeil (1982), ties counted one half (:func:`selfconf.metrics.auroc`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from . import metrics

__all__ = ["PANELS", "HEADLINE_PANEL", "PanelRows", "panel_rows", "agreement_signal",
           "rank_normalise", "panel_point_estimates", "panel_analysis"]

#: Pre-registered panels (members in the order the paper lists them).
PANELS: dict[str, tuple[str, ...]] = {
    "US": ("anthropic", "openai", "google"),
    "CN": ("deepseek", "alibaba", "moonshot"),
    "cross_bloc": ("anthropic", "deepseek", "mistral"),
}
#: The headline comparison of the pre-registration.
HEADLINE_PANEL = "CN"

CODINGS = ("canonical", "label_free")


@dataclass
class PanelRows:
    """Members' graded rows on a panel's population, as item x member matrices.

    ``items`` (n_items,), ``members`` (n_members,); ``confidence``, ``correct``, ``refusal`` and
    ``answer`` (integer codes of answer_class) have shape (n_items, n_members).
    """

    members: tuple[str, ...]
    items: np.ndarray
    confidence: np.ndarray
    correct: np.ndarray
    refusal: np.ndarray
    answer: np.ndarray

    def long(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Flatten an (n_items, n_members) score to row vectors: score, correct, item index, member index."""
        n_i, n_m = self.correct.shape
        item_idx = np.repeat(np.arange(n_i), n_m)
        member_idx = np.tile(np.arange(n_m), n_i)
        return score.ravel(), self.correct.ravel(), item_idx, member_idx


def panel_rows(df: pd.DataFrame, members: tuple[str, ...] | list[str]) -> PanelRows:
    """Build :class:`PanelRows` from collection rows (all rows; parse failures are dropped here).

    Raises ``ValueError`` if a member has no rows at all.
    """
    members = tuple(members)
    g = df[(df["parse_ok"] == 1) & df["model"].isin(members)]
    missing = [m for m in members if m not in set(g["model"])]
    if missing:
        raise ValueError(f"panel members without graded rows: {', '.join(missing)}")
    counts = g.groupby("item_id")["model"].nunique()
    items = np.array(sorted(counts.index[counts == len(members)]))
    g = g[g["item_id"].isin(items)]
    codes, _ = pd.factorize(g["answer_class"].astype(str))
    g = g.assign(_code=codes)
    shape = (items.size, len(members))
    pos_item = pd.Index(items).get_indexer(g["item_id"])
    pos_member = pd.Index(members).get_indexer(g["model"])
    out = {}
    for col, dtype in (("confidence", np.int64), ("correct", np.int64), ("refusal", np.int64), ("_code", np.int64)):
        mat = np.zeros(shape, dtype=dtype)
        mat[pos_item, pos_member] = g[col].to_numpy(dtype=dtype)
        out[col] = mat
    return PanelRows(members, items, out["confidence"], out["correct"], out["refusal"], out["_code"])


def agreement_signal(p: PanelRows, coding: str = "canonical") -> np.ndarray:
    """Number of other members concurring with each row, shape (n_items, n_members).

    ``canonical``: concur if both graded correct, or same answer class; ``label_free``: same
    answer class only.  Refusals never concur.  The diagonal (a model with itself) is excluded.
    """
    if coding not in CODINGS:
        raise ValueError(f"coding must be one of {CODINGS}, got {coding!r}")
    a = p.answer
    answered = p.refusal == 0
    same = a[:, :, None] == a[:, None, :]
    if coding == "canonical":
        both_correct = (p.correct[:, :, None] == 1) & (p.correct[:, None, :] == 1)
        same = same | both_correct
    concur = same & answered[:, :, None] & answered[:, None, :]
    n_m = a.shape[1]
    concur &= ~np.eye(n_m, dtype=bool)[None, :, :]
    return concur.sum(axis=2)


def rank_normalise(p: PanelRows) -> np.ndarray:
    """Each member's confidences as mid-rank percentiles within that member (0-1)."""
    n = p.confidence.shape[0]
    # mid-rank percentile: (rows below + half the ties) / n = (average rank - 1/2) / n
    return np.column_stack([(metrics.average_ranks(p.confidence[:, j]) - 0.5) / n for j in range(p.confidence.shape[1])])


def panel_point_estimates(p: PanelRows) -> dict[str, Any]:
    """Point estimates of every panel statistic (no bootstrap); plain Python numbers."""
    conf = p.confidence.astype(float)
    s_self, y, _, _ = p.long(conf)
    out = {
        "n_items": int(p.items.size),
        "n_rows": int(y.size),
        "self_auroc_pooled": metrics.auroc(s_self, y),
        "self_auroc_ranknorm": metrics.auroc(p.long(rank_normalise(p))[0], y),
        "panel_auroc": metrics.auroc(p.long(agreement_signal(p, "canonical").astype(float))[0], y),
        "panel_auroc_labelfree": metrics.auroc(p.long(agreement_signal(p, "label_free").astype(float))[0], y),
        "within_model_self_auroc": {m: metrics.auroc(conf[:, j], p.correct[:, j]) for j, m in enumerate(p.members)},
    }
    w = list(out["within_model_self_auroc"].values())
    out["within_model_min"] = float(min(w))
    out["within_model_max"] = float(max(w))
    out["within_model_macro"] = float(np.mean(w))
    out["between_model_identity"] = out["self_auroc_pooled"] - out["self_auroc_ranknorm"]
    out["delta_panel_minus_self"] = out["panel_auroc"] - out["self_auroc_pooled"]
    return {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in out.items()}


def panel_analysis(df: pd.DataFrame, members, *, n_boot: int = 2000, rng=None) -> dict[str, Any]:
    """Point estimates plus item-clustered CIs of self, panel (canonical) and their paired difference.

    One paired item-clustered bootstrap (``selfconf.bootstrap.paired_auroc_contrast``, arm A =
    canonical panel signal, arm B = stated confidence, same rows) gives the panel CI, the self
    CI and the CI of Δ = panel - self from the same item draws.
    """
    from . import bootstrap

    p = panel_rows(df, members)
    est = panel_point_estimates(p)
    sig, y, item_idx, _ = p.long(agreement_signal(p, "canonical").astype(float))
    conf = p.long(p.confidence.astype(float))[0]
    pc = bootstrap.paired_auroc_contrast(sig, conf, y, y, item_idx, n_boot=n_boot, rng=rng)
    est.update({
        "panel_ci": (float(pc.auroc_a.low), float(pc.auroc_a.high)),
        "self_ci": (float(pc.auroc_b.low), float(pc.auroc_b.high)),
        "delta_ci": (float(pc.low), float(pc.high)),
        "delta_p_two_sided": float(pc.p_two_sided),
    })
    return est
