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

from selfconf import bootstrap, metrics, roster

__all__ = [
    "PANELS",
    "HEADLINE_PANEL",
    "PanelRows",
    "panel_rows",
    "agreement_signal",
    "rank_normalise",
    "panel_point_estimates",
    "panel_analysis",
    "PANEL_STATISTICS",
    "panel_intervals",
]

#: Pre-registered panels (members in the order the paper lists them).
PANELS: dict[str, tuple[str, ...]] = roster.panels()  # the roster table's panel columns
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
    present = set(g["model"].unique())  # once, not once per member
    missing = [m for m in members if m not in present]
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
    return np.column_stack(
        [(metrics.average_ranks(p.confidence[:, j]) - 0.5) / n for j in range(p.confidence.shape[1])]
    )


def panel_point_estimates(p: PanelRows) -> dict[str, Any]:
    """Point estimates of every panel statistic (no bootstrap); plain Python numbers."""
    conf = p.confidence.astype(float)
    s_self, y, _, _ = p.long(conf)
    out: dict[str, Any] = {
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
    p = panel_rows(df, members)
    est = panel_point_estimates(p)
    sig, y, item_idx, _ = p.long(agreement_signal(p, "canonical").astype(float))
    conf = p.long(p.confidence.astype(float))[0]
    pc = bootstrap.paired_auroc_contrast(sig, conf, y, y, item_idx, n_boot=n_boot, rng=rng)
    est.update(
        {
            "panel_ci": (float(pc.auroc_a.low), float(pc.auroc_a.high)),
            "self_ci": (float(pc.auroc_b.low), float(pc.auroc_b.high)),
            "delta_ci": (float(pc.low), float(pc.high)),
            "delta_p_two_sided": float(pc.p_two_sided),
        }
    )
    return est


#: The statistics of :func:`panel_intervals`, each with a percentile interval from one item draw.
PANEL_STATISTICS = (
    "self_auroc_pooled",
    "panel_auroc",
    "panel_auroc_labelfree",
    "self_auroc_ranknorm",
    "within_model_min",
    "within_model_max",
    "within_model_span",
    "within_model_macro",
    "delta_panel_minus_self",
    "delta_labelfree_minus_self",
    "delta_panel_minus_ranknorm",
    "between_model_identity",
    "delta_labelfree_minus_panel",
)


def _panel_draw_statistics(conf: np.ndarray, canon: np.ndarray, lf: np.ndarray) -> dict[str, np.ndarray]:
    """Every statistic of :data:`PANEL_STATISTICS` from per-draw cell counts (internal).

    ``conf`` has shape (b, members, confidence levels, 2) and ``canon`` / ``lf`` (b, members, signal
    levels, 2); the last axis is (wrong, correct).  Rank normalisation is re-estimated in every draw: a
    level's percentile is (weight below + half the weight at the level) / the member's total weight.
    """
    auc = metrics._auroc_from_counts
    pooled = conf.sum(axis=1)
    within = auc(conf[..., 1], conf[..., 0])  # (b, members)
    tot = conf.sum(axis=-1)  # (b, members, levels)
    n = tot.sum(axis=-1, keepdims=True)
    pct = (np.cumsum(tot, axis=-1) - tot + 0.5 * tot) / n
    b = conf.shape[0]
    out = {
        "self_auroc_pooled": auc(pooled[..., 1], pooled[..., 0]),
        "panel_auroc": auc(canon.sum(axis=1)[..., 1], canon.sum(axis=1)[..., 0]),
        "panel_auroc_labelfree": auc(lf.sum(axis=1)[..., 1], lf.sum(axis=1)[..., 0]),
        "self_auroc_ranknorm": metrics.auroc_scored_counts(
            pct.reshape(b, -1), conf[..., 1].reshape(b, -1), conf[..., 0].reshape(b, -1)
        ),
        "within_model_min": within.min(axis=1),
        "within_model_max": within.max(axis=1),
        "within_model_macro": within.mean(axis=1),
    }
    out["within_model_span"] = out["within_model_max"] - out["within_model_min"]
    out["delta_panel_minus_self"] = out["panel_auroc"] - out["self_auroc_pooled"]
    out["delta_labelfree_minus_self"] = out["panel_auroc_labelfree"] - out["self_auroc_pooled"]
    out["delta_panel_minus_ranknorm"] = out["panel_auroc"] - out["self_auroc_ranknorm"]
    out["between_model_identity"] = out["self_auroc_pooled"] - out["self_auroc_ranknorm"]
    out["delta_labelfree_minus_panel"] = out["panel_auroc_labelfree"] - out["panel_auroc"]
    return out


def panel_intervals(
    df: pd.DataFrame,
    members,
    *,
    n_boot: int = 2000,
    rng=None,
    level: float = 0.95,
    multiplicities: np.ndarray | None = None,
) -> dict[str, Any]:
    """Every panel statistic with an item-clustered percentile interval, all from one item draw.

    Definition: the point estimates are those of :func:`panel_point_estimates` (pooled self-AUROC,
    canonical and label-free panel AUROC, rank-normalised pooled self-AUROC, within-model self-AUROCs);
    added are the within-model span (max - min) and the differences of :data:`PANEL_STATISTICS`.  For the
    intervals, items are drawn with replacement (:func:`selfconf.bootstrap.cluster_multiplicities`, the
    first call on ``rng``) and every statistic is recomputed on each draw from per-cell counts
    (:func:`selfconf.bootstrap.cell_count_draws`); the rank normalisation is re-estimated within each
    draw.  Because the item draw is the one :func:`panel_analysis` makes from the same ``rng``, the
    self, canonical and difference intervals equal that function's.

    Parameters
    ----------
    df : collection rows (``model``, ``item_id``, ``parse_ok``, ``confidence``, ``correct``, ``refusal``,
        ``answer_class``), as for :func:`panel_rows`
    members : the panel's models
    n_boot, rng, level : bootstrap draws, seed or Generator, interval level
    multiplicities : optional precomputed (n_boot, n_items) item multiplicities (then ``rng`` is unused)

    Returns
    -------
    dict: the point estimates, ``<statistic>_ci`` = (low, high) for every name in
    :data:`PANEL_STATISTICS`, ``n_rows_codings_differ`` (rows whose canonical and label-free signals
    differ), ``members``, ``n_boot`` and ``level``.

    References
    ----------
    Chernets (2026), Result 1 (panels, label-free recoding, rank-normalisation decomposition); Davison &
    Hinkley (1997), Sec. 3.8; Efron & Tibshirani (1993), Ch. 13.

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> n = 40
    >>> rows = pd.DataFrame({
    ...     "model": np.repeat(["a", "b"], n), "item_id": np.tile(np.arange(n), 2), "parse_ok": 1,
    ...     "confidence": g.choice([50, 70, 90], 2 * n), "correct": np.tile(np.arange(n) % 2, 2),
    ...     "refusal": 0, "answer_class": g.choice(["x", "y"], 2 * n)})
    >>> r = panel_intervals(rows, ("a", "b"), n_boot=50, rng=0)
    >>> r["panel_auroc"] == panel_point_estimates(panel_rows(rows, ("a", "b")))["panel_auroc"]
    True
    """
    p = panel_rows(df, members)
    est = panel_point_estimates(p)
    n_i, n_m = p.correct.shape
    if multiplicities is None:
        mult = bootstrap.cluster_multiplicities(n_i, n_boot, bootstrap.as_generator(rng))
    else:
        mult = np.asarray(multiplicities)
        if mult.shape[1] != n_i:
            raise ValueError(f"multiplicities: expected {n_i} items (columns), got shape {mult.shape}")
    lv, code = np.unique(p.confidence, return_inverse=True)
    k = lv.size
    canon = agreement_signal(p, "canonical")
    lf = agreement_signal(p, "label_free")
    y = p.correct
    member = np.broadcast_to(np.arange(n_m), (n_i, n_m))
    item = np.broadcast_to(np.arange(n_i)[:, None], (n_i, n_m))
    off_canon = n_m * k * 2
    off_lf = off_canon + n_m * n_m * 2
    cells = np.concatenate(
        [
            ((member * k + code.reshape(n_i, n_m)) * 2 + y).ravel(),
            off_canon + ((member * n_m + canon) * 2 + y).ravel(),
            off_lf + ((member * n_m + lf) * 2 + y).ravel(),
        ]
    )
    clusters = np.tile(item.ravel(), 3)
    draws: dict[str, list[np.ndarray]] = {s: [] for s in PANEL_STATISTICS}
    for counts in bootstrap.cell_count_draws(mult, clusters, cells, off_lf + n_m * n_m * 2):
        b = counts.shape[0]
        st = _panel_draw_statistics(
            counts[:, :off_canon].reshape(b, n_m, k, 2),
            counts[:, off_canon:off_lf].reshape(b, n_m, n_m, 2),
            counts[:, off_lf:].reshape(b, n_m, n_m, 2),
        )
        for s in PANEL_STATISTICS:
            draws[s].append(st[s])
    out = dict(est)
    out["within_model_span"] = est["within_model_max"] - est["within_model_min"]
    out["delta_labelfree_minus_self"] = est["panel_auroc_labelfree"] - est["self_auroc_pooled"]
    out["delta_panel_minus_ranknorm"] = est["panel_auroc"] - est["self_auroc_ranknorm"]
    out["delta_labelfree_minus_panel"] = est["panel_auroc_labelfree"] - est["panel_auroc"]
    for s in PANEL_STATISTICS:
        d = np.concatenate(draws[s])
        bad = int((~np.isfinite(d)).sum())
        if bad:
            raise ValueError(
                f"panel {', '.join(p.members)}: {bad} of {d.size} item draws left a class empty "
                f"for {s}; the panel population ({n_i} items) is too small for an interval"
            )
        out[f"{s}_ci"] = bootstrap.percentile_interval(d, level)
    out.update(
        members=tuple(p.members),
        n_rows_codings_differ=int((canon != lf).sum()),
        n_boot=int(mult.shape[0]),
        level=float(level),
    )
    return out
