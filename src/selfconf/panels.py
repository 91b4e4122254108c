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

from selfconf import metrics, roster
from selfconf.stats import bootstrap
from selfconf.stats.readings import (
    CANONICAL_READING,
    READING_DEFINITIONS,
    READING_STATUS,
    READINGS,
    all_readings,
    check_reading,
    reading_label,
    reading_status,
)

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
    "READINGS",
    "CANONICAL_READING",
    "READING_DEFINITIONS",
    "READING_STATUS",
    "reading_status",
    "READING_COLUMNS",
    "RESULT_COLUMNS",
    "reading_label",
    "distinct_results",
    "joint_test",
    "multinomial_type_counts",
    "check_reading",
    "all_readings",
    "concurrence_signal",
    "panel_readings",
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
    #: (n_items, n_members) True where the member has a graded row; ``None`` = every cell (the canonical
    #: population); only ``panel_rows(..., population="any_answered")`` leaves cells without a row.
    present: np.ndarray | None = None

    def has_row(self) -> np.ndarray:
        """(n_items, n_members) boolean: the member has a graded row on the item."""
        return np.ones(self.correct.shape, dtype=bool) if self.present is None else self.present

    def long(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Flatten an (n_items, n_members) score to row vectors: score, correct, item index, member index."""
        n_i, n_m = self.correct.shape
        item_idx = np.repeat(np.arange(n_i), n_m)
        member_idx = np.tile(np.arange(n_m), n_i)
        return score.ravel(), self.correct.ravel(), item_idx, member_idx


def panel_rows(df: pd.DataFrame, members: tuple[str, ...] | list[str], population: str = "all_answered") -> PanelRows:
    """Build :class:`PanelRows` from collection rows (all rows; parse failures are dropped here).

    ``population`` (a reading, :data:`READINGS`): ``all_answered`` (canonical) keeps the items on which
    every member has a graded row; ``any_answered`` keeps the items on which at least one member has one,
    and marks the members without a row in :attr:`PanelRows.present`.  Raises ``ValueError`` if a member
    has no rows at all.
    """
    members = tuple(members)
    if population not in READINGS["population"]:
        raise ValueError(f"population must be one of {READINGS['population']}, got {population!r}")
    g = df[(df["parse_ok"] == 1) & df["model"].isin(members)]
    present = set(g["model"].unique())  # once, not once per member
    missing = [m for m in members if m not in present]
    if missing:
        raise ValueError(f"panel members without graded rows: {', '.join(missing)}")
    counts = g.groupby("item_id")["model"].nunique()
    keep = counts == len(members) if population == "all_answered" else counts >= 1
    items = np.array(sorted(counts.index[keep]))
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
    has_row: np.ndarray | None = None
    if population != "all_answered":
        has_row = np.zeros(shape, dtype=bool)
        has_row[pos_item, pos_member] = True
    return PanelRows(members, items, out["confidence"], out["correct"], out["refusal"], out["_code"], has_row)


def agreement_signal(p: PanelRows, coding: str = "canonical") -> np.ndarray:
    """Number of other members concurring with each row, shape (n_items, n_members).

    ``canonical``: concur if both graded correct, or same answer class; ``label_free``: same
    answer class only.  Refusals never concur.  The diagonal (a model with itself) is excluded.
    """
    if coding not in CODINGS:
        raise ValueError(f"coding must be one of {CODINGS}, got {coding!r}")
    a = p.answer
    answered = p.refusal == 0
    if p.present is not None:  # a member without a row has no answer (population "any_answered")
        answered &= p.present
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


def _panel_draws(p: PanelRows, mult: np.ndarray, canon: np.ndarray, lf: np.ndarray) -> dict[str, list[np.ndarray]]:
    """Every statistic of :data:`PANEL_STATISTICS` on every item draw of ``mult``, from per-cell counts.

    Definition: three count blocks laid end to end (self: member, confidence level, correctness; canonical and
    label-free signal: member, signal, correctness), one cluster per item, counted per draw by
    :func:`selfconf.bootstrap.cell_count_draws` and turned into statistics by :func:`_panel_draw_statistics`
    (rank normalisation re-estimated within each draw).  Returns ``{statistic: [chunks of draws]}``.
    """
    n_i, n_m = p.correct.shape
    lv, code = np.unique(p.confidence, return_inverse=True)
    k = lv.size
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
    return draws


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
    self, canonical and difference intervals equal that function's.  (Over 80 lines through this docstring;
    the draws are :func:`_panel_draws`.)

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
    canon = agreement_signal(p, "canonical")
    lf = agreement_signal(p, "label_free")
    draws = _panel_draws(p, mult, canon, lf)
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


# --------------------------------------------------------------------------------------------
# readings: every reasonable reading of the panel comparison, the canonical one first
# --------------------------------------------------------------------------------------------

# READINGS, CANONICAL_READING, READING_DEFINITIONS, check_reading and all_readings live in
# selfconf.stats.readings (no numpy, no pandas: the command line's --help reads them) and are re-exported here.


def concurrence_signal(p: PanelRows, coding: str = "canonical", indeterminate: str = "not_concurring") -> np.ndarray:
    """Number of other members concurring with each row under a coding reading, shape (n_items, n_members).

    Definition: :func:`agreement_signal` (``coding`` canonical or label-free), where a pair in which either
    answer is indeterminate (a refusal, or a member without a graded row) concurs with nothing
    (``indeterminate="not_concurring"``, canonical) or counts as concurring (``"concurring"``).  The
    reading ``"dropped"`` removes items, not pairs (:func:`panel_readings`); here it equals
    ``"not_concurring"``.

    Reference: Chernets (2026), Result 1 (canonical equivalence coding, label-free recoding).

    >>> rows = pd.DataFrame({"model": ["a", "b", "c"], "item_id": 1, "parse_ok": 1, "confidence": 50,
    ...                      "correct": [1, 1, 0], "refusal": [0, 0, 1], "answer_class": ["x", "y", "R"]})
    >>> p = panel_rows(rows, ("a", "b", "c"))
    >>> concurrence_signal(p).tolist(), concurrence_signal(p, indeterminate="concurring").tolist()
    ([[1, 1, 0]], [[2, 2, 2]])
    """
    if indeterminate not in READINGS["indeterminate"]:
        raise ValueError(f"indeterminate must be one of {READINGS['indeterminate']}, got {indeterminate!r}")
    sig = agreement_signal(p, coding)
    if indeterminate == "concurring":
        det = (p.refusal == 0) & p.has_row()
        undecided = ~(det[:, :, None] & det[:, None, :]) & ~np.eye(det.shape[1], dtype=bool)[None]
        sig = sig + undecided.sum(axis=2)
    return sig


def _signal_levels(n_members: int, signal: str) -> np.ndarray:
    """(n_members, L) 0/1 matrix mapping agreement counts 0..n_members-1 to the levels of ``signal``."""
    n = n_members
    if signal == "count":
        return np.eye(n)
    if signal == "any":
        cut = 1
    elif signal == "majority":
        cut = (n - 1) // 2 + 1  # strictly more than half of the n - 1 other members
    else:
        raise ValueError(f"signal must be one of {READINGS['signal']}, got {signal!r}")
    m = np.zeros((n, 2))
    m[np.arange(n), (np.arange(n) >= cut).astype(int)] = 1.0
    return m


def _row_percentiles(tot: np.ndarray) -> np.ndarray:
    """Within-member mid-rank percentile of each level from weights (..., levels); 0 where no weight."""
    n = tot.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        pct = (np.cumsum(tot, axis=-1) - tot + 0.5 * tot) / n
    return np.where(n > 0, pct, 0.0)


def _self_values(self_c: np.ndarray, ties: str, aggregation: str) -> dict[str, np.ndarray]:
    """Self side of a reading from confidence cell counts ``self_c`` (b, members, levels, 2) (internal).

    Returns {"self": (b,) or (b, members), "self_pooled": (b,)}; last axis of ``self_c`` is (wrong, correct).
    """
    auc = metrics._auroc_from_counts
    pooled_self = self_c.sum(axis=1)
    self_pooled = auc(pooled_self[..., 1], pooled_self[..., 0], ties)
    if aggregation == "pooled":
        return {"self": self_pooled, "self_pooled": self_pooled}
    if aggregation == "rank_normalised":
        b = self_c.shape[0]
        pct = _row_percentiles(self_c.sum(axis=-1))
        rn = metrics.auroc_scored_counts(
            pct.reshape(b, -1), self_c[..., 1].reshape(b, -1), self_c[..., 0].reshape(b, -1), ties=ties
        )
        return {"self": rn, "self_pooled": self_pooled}
    within_self = auc(self_c[..., 1], self_c[..., 0], ties)
    if aggregation == "macro":
        return {"self": within_self.mean(axis=1), "self_pooled": self_pooled}
    if aggregation == "per_member":
        return {"self": within_self, "self_pooled": self_pooled}
    raise ValueError(f"aggregation must be one of {READINGS['aggregation']}, got {aggregation!r}")


def _panel_values(sig_c: np.ndarray, signal: str, ties: str, aggregation: str) -> np.ndarray:
    """Panel side of a reading from agreement-count cell counts ``sig_c`` (b, members, members, 2) (internal)."""
    auc = metrics._auroc_from_counts
    sc = np.einsum("bmlc,lj->bmjc", sig_c, _signal_levels(sig_c.shape[1], signal))
    if aggregation in ("pooled", "rank_normalised"):  # rank_normalised changes the self side only
        pooled_sig = sc.sum(axis=1)
        return auc(pooled_sig[..., 1], pooled_sig[..., 0], ties)
    within_sig = auc(sc[..., 1], sc[..., 0], ties)
    if aggregation == "macro":
        return within_sig.mean(axis=1)
    if aggregation == "per_member":
        return within_sig
    raise ValueError(f"aggregation must be one of {READINGS['aggregation']}, got {aggregation!r}")


def _intervals(draws: list[np.ndarray], level: float) -> list[tuple[float, float, int]]:
    """:func:`selfconf.bootstrap.interval_or_nan` of each vector's draws ``v[1:]`` (``v[0]`` is the point value).

    A vector object passed several times is computed once.  The quantiles are numpy's linear rule (the rule of
    :func:`selfconf.bootstrap.percentile_interval`) read off each row sorted once: the two order statistics
    around the rule's position are interpolated by ``numpy.quantile`` itself on that pair, which gives its
    value to the last bit (tested against ``numpy.quantile`` / ``numpy.nanquantile``).
    """
    pos: dict[int, int] = {}
    uniq: list[np.ndarray] = []
    where = []
    for v in draws:
        if id(v) not in pos:
            pos[id(v)] = len(uniq)
            uniq.append(v)
        where.append(pos[id(v)])
    if not uniq:
        return []
    m = np.empty((len(uniq), uniq[0].shape[0] - 1))
    for n, v in enumerate(uniq):
        m[n] = v[1:]
    m[~np.isfinite(m)] = np.nan
    m.sort(axis=1)  # NaN last
    n_ok = m.shape[1] - np.isnan(m).sum(axis=1)
    a = (1.0 - level) / 2.0
    q = np.array([a, 1.0 - a])
    res = np.full((len(uniq), 2), np.nan)
    for n in np.unique(n_ok[n_ok > 0]):
        rows = np.flatnonzero(n_ok == n)
        virtual = (n - 1) * q  # numpy's "linear" position, as numpy computes it
        prev = np.floor(virtual).astype(np.intp)
        nxt = np.minimum(prev + 1, n - 1)
        for j in range(2):
            pair = np.column_stack([m[rows, prev[j]], m[rows, nxt[j]]])
            res[rows, j] = np.quantile(pair, virtual[j] - prev[j], axis=1)
    bad = m.shape[1] - n_ok
    per = [(float(res[i, 0]), float(res[i, 1]), int(bad[i])) for i in range(len(uniq))]
    return [per[i] for i in where]


#: Columns of :func:`panel_readings` (one row per reading, and per member under ``per_member``).
READING_COLUMNS = (
    *READINGS,
    "member",
    "canonical",
    "panel_auroc",
    "panel_auroc_ci_low",
    "panel_auroc_ci_high",
    "self_auroc",
    "self_auroc_ci_low",
    "self_auroc_ci_high",
    "self_auroc_pooled",
    "self_auroc_pooled_ci_low",
    "self_auroc_pooled_ci_high",
    "delta",
    "delta_ci_low",
    "delta_ci_high",
    "items",
    "rows",
    "undefined_draws",
    "left_out",
    "status",
    "result_id",
    "same_result_as",
)
#: The columns that make a result: two readings with equal values in all of them (floats compared exactly, a
#: missing value equal to a missing value) give the same result (:func:`distinct_results`).
RESULT_COLUMNS = ("member", "panel_auroc", "self_auroc", "delta", "items", "rows")


def distinct_results(table: pd.DataFrame) -> pd.DataFrame:
    """Number the distinct results of one panel's readings and name, for each duplicate, the reading it repeats.

    Definition: two rows of a :func:`panel_readings` table give the same result when they agree exactly (full
    float precision; a missing value equals a missing value) in every column of :data:`RESULT_COLUMNS` (the
    member, panel AUROC, self AUROC, delta, items and rows).  ``result_id`` numbers the results 0, 1, ... in the
    order of their first row; ``same_result_as`` is empty on that first row and :func:`reading_label` of it on
    every later row of the same result.  Readings that differ only in the bootstrap's cluster unit always give the
    same result (the unit changes the intervals only).  Reference: Simonsohn, Simmons & Nelson (2020) count
    specifications; counting results avoids counting one number several times.

    >>> t = pd.DataFrame([dict(CANONICAL_READING, member="", left_out="", panel_auroc=0.7, self_auroc=0.6,
    ...                        delta=0.1, items=5, rows=15),
    ...                   dict(CANONICAL_READING, ties="loss", member="", left_out="", panel_auroc=0.7,
    ...                        self_auroc=0.6, delta=0.1, items=5, rows=15)])
    >>> distinct_results(t)[["result_id", "same_result_as"]].values.tolist()
    [[0, ''], [0, 'canonical']]
    """
    out = table.copy()
    if out.empty:
        out["result_id"], out["same_result_as"] = pd.Series(dtype=int), pd.Series(dtype=str)
        return out
    codes = []
    for c in RESULT_COLUMNS:
        col = out[c]
        if col.dtype.kind == "f":  # exact equality: the bits of the value, -0.0 as 0.0 and one NaN
            v = col.to_numpy(dtype=np.float64) + 0.0
            v[np.isnan(v)] = np.nan
            codes.append(pd.factorize(v.view(np.int64))[0])
        else:
            codes.append(pd.factorize(col.astype(object).where(col.notna(), "nan"))[0])
    _, first, ids = np.unique(np.column_stack(codes), axis=0, return_index=True, return_inverse=True)
    ids = ids.ravel()
    order = np.argsort(np.argsort(first))  # renumber in order of first appearance
    out["result_id"] = order[ids]
    records = out.iloc[first].to_dict("records") if len(first) else []
    labels = {int(i): reading_label(r) for i, r in zip(first, records, strict=True)}
    first_row = first[ids]
    out["same_result_as"] = ["" if f == i else labels[int(f)] for i, f in enumerate(first_row)]
    return out


def _leave_out_records(
    df: pd.DataFrame,
    members: tuple[str, ...],
    left: list[dict[str, str]],
    n_draws: int,
    kids: list[np.random.Generator],
) -> list[list[tuple[dict[str, Any], list[np.ndarray]]]]:
    """The leave-one-member-out readings: per reading of ``left``, its records on every panel without one member.

    Definition: member j is dropped in turn and ``left`` (given with ``leave_out="none"``) is computed by
    :func:`_reading_records` on the others' panel, with ``kids[4 + j]`` and its six children (row, row, member,
    member, item all_answered, item any_answered), item draws counted per item type; each record is marked
    ``leave_out="each_member"``, ``left_out`` = the dropped member, not canonical.
    """
    got: list[list[tuple[dict[str, Any], list[np.ndarray]]]] = [[] for _ in left]
    for j, gone in enumerate(members):
        rest = tuple(m for m in members if m != gone)
        sub_kids = kids[4 + j].spawn(6)
        sub, _ = _reading_records(df, rest, left, n_draws, kids[4 + j], sub_kids, None, item_types=True)
        for n, recs in enumerate(sub):
            for rec, d in recs:
                rec.update(leave_out="each_member", left_out=gone, canonical=False)
                got[n].append((rec, d))
    return got


def _attach_intervals(records: list[dict[str, Any]], draws: list[np.ndarray], level: float) -> None:
    """Add to every record its four percentile intervals, its undefined draws and its status (in place).

    Definition: ``draws`` holds four vectors per record (panel, self, pooled self, delta; point value first);
    :func:`_intervals` gives each ``(low, high, undefined draws)``; ``undefined_draws`` is the largest of the
    four; ``status`` is :func:`reading_status` of the record's options (computed once per distinct options).
    """
    names = ("panel_auroc", "self_auroc", "self_auroc_pooled", "delta")
    iv = iter(_intervals(draws, bootstrap._check_level(level)) if draws else [])
    status_of: dict[tuple[str, ...], str] = {}
    for rec in records:
        undefined = 0
        for name in names:
            lo, hi, bad = next(iv)
            rec[f"{name}_ci_low"], rec[f"{name}_ci_high"] = lo, hi
            undefined = max(undefined, bad)
        rec["undefined_draws"] = undefined
        opts = tuple(rec[k] for k in READINGS)
        if opts not in status_of:
            status_of[opts] = reading_status(dict(zip(READINGS, opts, strict=True)))
        rec["status"] = status_of[opts]


def panel_readings(
    df: pd.DataFrame,
    members,
    *,
    readings: list[dict[str, str]] | None = None,
    n_boot: int = 2000,
    rng=None,
    level: float = 0.95,
    multiplicities: np.ndarray | None = None,
    return_draws: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:
    """The panel-versus-self comparison under each reading, with item-clustered percentile intervals.

    Definition: for a reading (:func:`check_reading`; the options are :data:`READINGS`, defined in
    :data:`READING_DEFINITIONS`) the panel signal of a row is the count of other members concurring with it
    (coding and indeterminate answers as the reading says), optionally made binary (``signal`` any /
    majority); its AUROC against the row's correctness and the AUROC of stated confidence are taken with
    the reading's tie weight (:func:`selfconf.metrics.tie_weight`) and aggregated over members as the reading
    says (pooled, macro mean, rank-normalised self, or one row per member).  ``delta`` = panel AUROC -
    self AUROC of the same aggregation (under ``pooled``, the canonical aggregation, that is the pooled
    self-AUROC); ``self_auroc_pooled`` is always the pooled self-AUROC of the reading's items and ties.

    Intervals: items are drawn with replacement, all their rows with them; every statistic of every reading
    is recomputed on each draw from per-cell counts (:func:`selfconf.bootstrap.cell_count_draws`).  The draw
    of the ``all_answered`` population is the first call on ``rng`` (so the canonical row's intervals equal
    :func:`panel_intervals`' and :func:`panel_analysis`' with the same ``rng``); the ``any_answered``
    population's draw is the second; the ``dropped`` reading keeps the draw of its population and gives the
    dropped items no weight.  ``undefined_draws`` counts draws in which a statistic was undefined (a class
    missing; under macro / per member a member without both classes); they are left out of the quantiles.
    Under ``cluster="row"`` rows are drawn one by one, under ``cluster="member"`` members with all their rows;
    those draws come from children of ``rng`` (``Generator.spawn``: row all_answered, row any_answered, member
    all_answered, member any_answered, then one per left-out member), so they never change the item draws.
    A row draw is counted per row *type* (rows in the same cell of every statistic) and drawn as one multinomial
    per draw (:func:`multinomial_type_counts`: the distribution of resampling rows one by
    one, at a fraction of the random numbers).  Under ``leave_out="each_member"`` each member is dropped in turn
    and the reading is computed on the others' panel (its own population and item draw, from that member's child
    generator's children: row, row, member, member as above, then item all_answered and item any_answered,
    each item draw counted per item type the same way); ``left_out`` names the dropped member.  With
    ``readings=None`` a panel of two members gets no leave-out readings; asking for one raises.
    ``status`` is :func:`reading_status` and ``result_id`` / ``same_result_as`` are :func:`distinct_results`.
    (Longer than 80 lines through this docstring only; the body is named steps: :func:`_reading_records`,
    :func:`_leave_out_records`, :func:`_attach_intervals`.)

    Parameters
    ----------
    df : collection rows, as for :func:`panel_rows`
    members : the panel's models
    readings : the readings to compute (dicts for :func:`check_reading`); default every one
        (:func:`all_readings`)
    n_boot, rng, level : bootstrap draws, seed or Generator, interval level
    multiplicities : optional (n_boot, n_items) item multiplicities of the ``all_answered`` population
    return_draws : also return the draws of ``delta`` (shape (draws, rows of the table), in the table's order;
        NaN where undefined), for :func:`joint_test`

    Returns
    -------
    pandas.DataFrame with :data:`READING_COLUMNS`, one row per reading (per member under ``per_member``,
    whose ``member`` names it, and per dropped member under ``leave_out="each_member"``), in the order of
    ``readings``; ``canonical`` is True on the canonical reading's row only.  With ``return_draws``, the pair
    (table, delta draws).

    References
    ----------
    Chernets (2026), Result 1 and the replication script's alternative readings; Steegen et al. (2016),
    multiverse analysis; Simonsohn, Simmons & Nelson (2020), specification-curve analysis; Davison & Hinkley
    (1997), Sec. 3.8.

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> n = 40
    >>> rows = pd.DataFrame({
    ...     "model": np.repeat(["a", "b", "c"], n), "item_id": np.tile(np.arange(n), 3), "parse_ok": 1,
    ...     "confidence": g.choice([50, 70, 90], 3 * n), "correct": g.integers(0, 2, 3 * n),
    ...     "refusal": 0, "answer_class": g.choice(["x", "y"], 3 * n)})
    >>> t = panel_readings(rows, ("a", "b", "c"), readings=[{}, {"ties": "loss"}], n_boot=50, rng=0)
    >>> t["canonical"].tolist()
    [True, False]
    >>> iv = panel_intervals(rows, ("a", "b", "c"), n_boot=50, rng=0)
    >>> bool(np.isclose(t["panel_auroc"][0], iv["panel_auroc"]))
    True
    >>> (t["delta_ci_low"][0], t["delta_ci_high"][0]) == iv["delta_panel_minus_self_ci"]
    True
    """
    members = tuple(members)
    wanted = [check_reading(r) for r in (all_readings() if readings is None else readings)]
    if readings is None and len(members) < 3:  # a panel of one has no agreement signal (documented above)
        wanted = [r for r in wanted if r["leave_out"] == "none"]
    base = [r for r in wanted if r["leave_out"] == "none"]
    left = [dict(r, leave_out="none") for r in wanted if r["leave_out"] != "none"]
    if left and len(members) < 3:
        raise ValueError(
            f"panel {', '.join(members)}: leave_out=each_member needs at least three members "
            "(dropping one of two leaves no panel)"
        )
    need_any = any(r["population"] == "any_answered" for r in wanted)
    need_kids = bool(left) or any(r["cluster"] != "item" for r in wanted)
    gen = bootstrap.as_generator(rng if multiplicities is None or need_any or need_kids else 0)  # 0: never drawn
    kids = gen.spawn(4 + len(members)) if need_kids else []
    got_base, n_draws = _reading_records(df, members, base, n_boot, gen, kids[:4], multiplicities)
    base_index = [n for n, r in enumerate(wanted) if r["leave_out"] == "none"]
    got = dict(zip(base_index, got_base, strict=True))
    if left:
        lo_index = [n for n, r in enumerate(wanted) if r["leave_out"] != "none"]
        got.update(zip(lo_index, _leave_out_records(df, members, left, n_draws, kids), strict=True))
    records = [rec for n in range(len(wanted)) for rec, _ in got[n]]
    draws = [v for n in range(len(wanted)) for _, d in got[n] for v in d]
    _attach_intervals(records, draws, level)
    out = pd.DataFrame.from_records(records, columns=list(READING_COLUMNS))
    out = distinct_results(out)
    if return_draws:
        delta_draws = np.column_stack([d[1:] for d in draws[3::4]]) if draws else np.empty((n_draws, 0))
        return out, delta_draws
    return out


def multinomial_type_counts(sizes: Any, n_boot: int, rng: np.random.Generator | int) -> np.ndarray:
    """Draws of a cluster bootstrap counted per *type* of cluster, drawn directly, shape (n_boot, n_types).

    Definition: a resample picks ``n = sum(sizes)`` clusters uniformly with replacement from clusters of which
    ``sizes[t]`` are of type t; the number of picks of each type is then Multinomial(n, sizes / n).  Clusters of
    one type (rows, or items, in the same cell of every statistic) contribute identically to every count
    statistic, so this is all such a statistic needs: the distribution of
    :func:`selfconf.bootstrap.cluster_multiplicities` summed per type.  It is drawn the cheaper of two exact
    ways: with at least four clusters per type, one ``Generator.multinomial`` call (``n_boot * n_types``
    binomials); otherwise ``n`` uniform picks a draw, counted per type (``n_boot * n`` integers).  Either is a
    different use of the generator than :func:`selfconf.bootstrap.cluster_multiplicities` (other values).

    References
    ----------
    Davison & Hinkley (1997), Sec. 3.8; Johnson, Kotz & Balakrishnan (1997), Discrete Multivariate
    Distributions, ch. 35 (a multinomial by conditional binomials).

    >>> d = multinomial_type_counts([3, 1], 4, 0)
    >>> d.shape, d.sum(axis=1).tolist()
    ((4, 2), [4, 4, 4, 4])
    """
    gen = bootstrap.as_generator(rng)
    size = np.asarray(sizes, dtype=np.int64)
    if size.ndim != 1 or size.size == 0 or (size < 0).any() or size.sum() == 0:
        raise ValueError(f"sizes: expected a non-empty 1-D array of non-negative counts, got {size!r}")
    if int(n_boot) < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    n, b = int(size.sum()), int(n_boot)
    if n >= 4 * size.size:
        return gen.multinomial(n, size / n, size=b).astype(np.int32)
    type_of = np.repeat(np.arange(size.size, dtype=np.int64), size)
    picks = type_of[gen.integers(0, n, size=(b, n))] + (np.arange(b, dtype=np.int64) * size.size)[:, None]
    return np.bincount(picks.ravel(), minlength=b * size.size).reshape(b, size.size).astype(np.int32)


def _row_types(pattern: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct rows of an integer matrix: (type of each row, index of each type's first row).

    Types are numbered in order of first appearance (column by column, each step one factorisation of a
    1-D key), the same partition as ``numpy.unique(pattern, axis=0)`` without sorting rows as records.

    >>> _row_types(np.array([[1, 2], [0, 5], [1, 2]]))[0].tolist()
    [0, 1, 0]
    """
    key = np.zeros(pattern.shape[0], dtype=np.int64)
    for col in pattern.T:
        c, _ = pd.factorize(col)
        key, _ = pd.factorize(key * (int(c.max()) + 1 if c.size else 1) + c)
    first = np.full(int(key.max()) + 1 if key.size else 0, -1, dtype=np.int64)
    order = np.arange(key.size)[::-1]
    first[key[order]] = order  # the last write is the smallest index
    return key.astype(np.intp), first


#: Which child generator of :func:`panel_readings` draws each (cluster, population).
_KID_OF = {
    ("row", "all_answered"): 0,
    ("row", "any_answered"): 1,
    ("member", "all_answered"): 2,
    ("member", "any_answered"): 3,
    ("item", "all_answered"): 4,
    ("item", "any_answered"): 5,
}


@dataclass
class _ReadingPanel:
    """One panel's rows coded for every reading (internal to :func:`_reading_records`).

    ``p`` the any_answered panel rows, ``has`` which member has a graded row per item, ``conf_code`` each row's
    confidence level (``k`` levels), ``decided`` items where every member answered without refusing,
    ``signals`` the concurrence signal of every (coding, indeterminate) variant, ``populations`` the item
    indices and item multiplicities of each population, ``n_draws`` the number of draws, ``kids`` the child
    generators (:data:`_KID_OF`), ``item_types`` whether item draws are counted per item type.
    """

    p: PanelRows
    members: tuple[str, ...]
    has: np.ndarray
    conf_code: np.ndarray
    k: int
    decided: np.ndarray
    signals: dict[tuple[str, str], np.ndarray]
    populations: dict[str, tuple[np.ndarray, np.ndarray]]
    n_draws: int
    kids: list[np.random.Generator]
    item_types: bool

    @property
    def n_m(self) -> int:
        """Number of members."""
        return len(self.members)

    @property
    def variants(self) -> list[tuple[str, str]]:
        """Every (coding, indeterminate) variant of the signal."""
        return list(self.signals)


def _reading_panel(df: pd.DataFrame, members: tuple[str, ...], kids: list, item_types: bool) -> _ReadingPanel:
    """Code one panel's rows for :func:`_reading_records` (its populations are drawn by :func:`_draw_populations`).

    Definition: the any_answered panel rows (:func:`panel_rows`), each row's confidence level among the panel's
    distinct confidences, the items where every member answered without refusing, and the signals of
    :func:`concurrence_signal` for every coding and both treatments of indeterminate answers.
    """
    p = panel_rows(df, members, population="any_answered")
    has = p.has_row()
    lv, code = np.unique(p.confidence[has], return_inverse=True)
    conf_code = np.zeros(p.confidence.shape, dtype=np.int64)
    conf_code[has] = code.ravel()
    variants = [(c, i) for c in READINGS["coding"] for i in ("not_concurring", "concurring")]
    return _ReadingPanel(
        p=p,
        members=members,
        has=has,
        conf_code=conf_code,
        k=max(int(lv.size), 1),
        decided=has.all(axis=1) & (p.refusal == 0).all(axis=1),
        signals={v: concurrence_signal(p, *v) for v in variants},
        populations={},
        n_draws=0,
        kids=kids,
        item_types=item_types,
    )


def _draw_populations(
    rp: _ReadingPanel, need_any: bool, n_boot: int, gen: np.random.Generator, multiplicities: np.ndarray | None
) -> None:
    """Set the item indices and item multiplicities of each population of ``rp`` (in place), and its draws.

    Definition: the all_answered population is the items on which every member has a graded row, its
    multiplicities the first draw on ``gen`` (or ``multiplicities``; none when items are drawn per type); the
    any_answered population is every item (the second draw on ``gen``), drawn only when ``need_any``.
    """
    idx_all = np.flatnonzero(rp.has.all(axis=1))
    if idx_all.size == 0:
        raise ValueError(f"panel {', '.join(rp.members)}: no item on which every member has a graded row")
    if rp.item_types:
        mult_all = np.empty((n_boot, 0), dtype=np.int32)  # drawn per item type (_cluster_weights)
    elif multiplicities is None:
        mult_all = bootstrap.cluster_multiplicities(idx_all.size, n_boot, gen)
    else:
        mult_all = np.asarray(multiplicities)
        if mult_all.ndim != 2 or mult_all.shape[1] != idx_all.size:
            raise ValueError(f"multiplicities: expected {idx_all.size} items (columns), got shape {mult_all.shape}")
    rp.n_draws = mult_all.shape[0]
    rp.populations = {"all_answered": (idx_all, mult_all)}
    if need_any:
        idx_any = np.arange(rp.p.items.size)
        drawn = mult_all[:, :0] if rp.item_types else bootstrap.cluster_multiplicities(idx_any.size, rp.n_draws, gen)
        rp.populations["any_answered"] = (idx_any, drawn)


def _cell_blocks(rp: _ReadingPanel, idx: np.ndarray) -> tuple[list, list, list, int, dict[str, np.ndarray]]:
    """The cell of every row of population ``idx`` in every count block, with and without indeterminate items.

    Definition: per treatment (all rows; only ``decided`` items, the 'dropped' readings) one self block (member,
    confidence level, correctness) and one signal block per variant (member, signal, correctness), laid end to
    end.  Returns the blocks, the row selection of each, the layout ``(drop, {part: (offset, width)}, items,
    rows)`` per treatment, the total width, and the rows' ``item``/``member`` indices.
    """
    n_m, k = rp.n_m, rp.k
    h = rp.has[idx]
    item = np.broadcast_to(np.arange(idx.size)[:, None], h.shape)[h]
    member = np.broadcast_to(np.arange(n_m), h.shape)[h]
    y = rp.p.correct[idx][h]
    kept = np.broadcast_to(rp.decided[idx][:, None], h.shape)[h]
    if not kept.any():
        raise ValueError(f"panel {', '.join(rp.members)}: no item is left when indeterminate answers are dropped")
    n_self, n_sig = n_m * k * 2, n_m * n_m * 2
    drop_variants = [v for v in rp.variants if v[1] == "not_concurring"]  # nothing indeterminate is left to code
    blocks, sels, layout = [], [], []
    off = 0
    for drop in (False, True):
        sel = kept if drop else np.ones(item.size, dtype=bool)
        blocks.append(off + ((member * k + rp.conf_code[idx][h]) * 2 + y))
        sels.append(sel)
        parts: dict[Any, tuple[int, int]] = {"self": (off, n_self)}
        off += n_self
        for v in drop_variants if drop else rp.variants:
            blocks.append(off + ((member * n_m + rp.signals[v][idx][h]) * 2 + y))
            sels.append(sel)
            parts[v] = (off, n_sig)
            off += n_sig
        layout.append((drop, parts, int(rp.decided[idx].sum()) if drop else idx.size, int(sel.sum())))
    return blocks, sels, layout, off, {"item": item, "member": member}


def _cluster_weights(
    rp: _ReadingPanel, population: str, cluster: str, blocks: list, sels: list, rows: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, list, list, np.ndarray | None]:
    """The resampled units of one cluster rule and their multiplicities (point estimate first, then the draws).

    Definition: under the item bootstrap (items drawn by :func:`_reading_panel`) the units are items; under the
    row bootstrap (and the item bootstrap of a leave-out panel), rows (items) that fall in the same cells of every
    block are one *type* and the draws count picks per type (:func:`multinomial_type_counts`, child generator of
    :data:`_KID_OF`); under the member bootstrap a draw is one of few distinct multiplicity vectors, computed
    once each, and ``expand`` maps every draw to its vector.  Returns ``(multiplicities, unit of each row,
    blocks, selections, expand)``, blocks and selections reduced to one representative per type.
    """
    idx, mult = rp.populations[population]
    item, member = rows["item"], rows["member"]
    expand = None
    if cluster == "item" and not rp.item_types:
        return np.vstack([np.ones((1, mult.shape[1]), dtype=mult.dtype), mult]), item, blocks, sels, None
    if cluster in ("item", "row"):
        # clusters with equal cells in every block are one type (a row outside a block: cell -1; an item:
        # its rows' cells, member by member, -2 for a member without a row); picks are counted per type
        pattern = np.column_stack([np.where(s, b, -1) for b, s in zip(blocks, sels, strict=True)])
        if cluster == "item":
            per_item = np.full((idx.size, rp.n_m, pattern.shape[1]), -2, dtype=pattern.dtype)
            per_item[item, member] = pattern
            pattern, of_row = per_item.reshape(idx.size, -1), item
        else:
            of_row = np.arange(item.size)
        types, first = _row_types(pattern)
        sizes = np.bincount(types, minlength=first.size)
        draws = multinomial_type_counts(sizes, rp.n_draws, rp.kids[_KID_OF[(cluster, population)]])
        m = np.vstack([sizes[None, :].astype(draws.dtype), draws])
        rep = np.zeros(pattern.shape[0], dtype=bool)
        rep[first] = True
        keep = rep[of_row]  # the rows of one cluster per type, counted once per pick of the type
        return m, types[of_row][keep], [b[keep] for b in blocks], [s[keep] for s in sels], None
    mult = bootstrap.cluster_multiplicities(rp.n_m, rp.n_draws, rp.kids[_KID_OF[(cluster, population)]])
    full_m = np.vstack([np.ones((1, rp.n_m), dtype=mult.dtype), mult])
    m, expand = np.unique(full_m, axis=0, return_inverse=True)
    return m, member, blocks, sels, expand.ravel()


def _reading_cells(rp: _ReadingPanel, population: str, cluster: str) -> dict[bool, tuple]:
    """Cell counts (point estimate first, then the draws) of a population and of its 'dropped' subset.

    Definition: one product of the cell matrix (:func:`_cell_blocks`) with the cluster multiplicities
    (:func:`_cluster_weights`) through :func:`selfconf.bootstrap.cell_count_draws`; per treatment ``drop``
    the self counts (draws, members, levels, 2), the signal counts per variant (draws, members, members, 2),
    the items and rows it holds, and ``expand`` (member bootstrap) or ``None``.
    """
    blocks, sels, layout, width, rows = _cell_blocks(rp, rp.populations[population][0])
    m, unit, blocks, sels, expand = _cluster_weights(rp, population, cluster, blocks, sels, rows)
    cells_ = np.concatenate([b[s] for b, s in zip(blocks, sels, strict=True)])
    units_ = np.concatenate([unit[s] for s in sels])
    cnt = np.concatenate(list(bootstrap.cell_count_draws(m, units_, cells_, width)))
    bb, n_m, k = cnt.shape[0], rp.n_m, rp.k
    out = {}
    for drop, parts, n_items, n_rows in layout:
        o, w = parts["self"]
        sc = cnt[:, o : o + w].reshape(bb, n_m, k, 2)
        sg = {v: cnt[:, o2 : o2 + w2].reshape(bb, n_m, n_m, 2) for v, (o2, w2) in parts.items() if v != "self"}
        out[drop] = (sc, sg, n_items, n_rows, expand)
    return out


def _expanded(v: np.ndarray, expand: np.ndarray | None) -> np.ndarray:
    """``v`` with its draws mapped to every draw of a member bootstrap (unchanged otherwise)."""
    return v if expand is None else v[expand]


def _reading_records(
    df: pd.DataFrame,
    members: tuple[str, ...],
    wanted: list[dict[str, str]],
    n_boot: int,
    gen: np.random.Generator,
    kids: list[np.random.Generator],
    multiplicities: np.ndarray | None,
    item_types: bool = False,
) -> tuple[list[list[tuple[dict[str, Any], list[np.ndarray]]]], int]:
    """Point values and draws of ``wanted`` (all with ``leave_out="none"``) on one panel (internal).

    Returns, per reading in order, its records (one, or one per member under per_member), each with its four
    draw vectors (panel, self, pooled self, delta; each with the point value first), and the number of draws.
    Item draws: ``gen`` (the all_answered population first, then any_answered), or with ``item_types`` the
    picks per item type (:func:`multinomial_type_counts`) from ``kids[4]`` (all_answered)
    and ``kids[5]`` (any_answered); row draws: picks per row type, multinomial, from ``kids[0]`` / ``kids[1]``;
    member draws: ``kids[2]`` / ``kids[3]``.  Equal inputs are computed once: the cell counts per (population,
    cluster), the self side per (population, cluster, treatment, ties, aggregation), the panel side per its
    signal levels.
    """
    if not wanted:
        return [], (n_boot if multiplicities is None else int(np.asarray(multiplicities).shape[0]))
    rp = _reading_panel(df, members, kids, item_types)
    _draw_populations(rp, any(r["population"] == "any_answered" for r in wanted), n_boot, gen, multiplicities)
    n_m = rp.n_m
    cache: dict[tuple[str, str], dict[bool, tuple]] = {}
    out: list[list[tuple[dict[str, Any], list[np.ndarray]]]] = []
    self_memo: dict[tuple, dict[str, Any]] = {}
    panel_memo: dict[tuple, np.ndarray] = {}
    for r in wanted:
        drop = r["indeterminate"] == "dropped"
        if (r["population"], r["cluster"]) not in cache:
            cache[(r["population"], r["cluster"])] = _reading_cells(rp, r["population"], r["cluster"])
        self_c, sig, n_items, n_rows, expand = cache[(r["population"], r["cluster"])][drop]
        ind = "not_concurring" if drop else r["indeterminate"]
        per = r["aggregation"] == "per_member"
        key = (r["population"], r["cluster"], drop, r["ties"], r["aggregation"])
        if key not in self_memo:
            sv: dict[str, Any] = {
                name: _expanded(v, expand) for name, v in _self_values(self_c, r["ties"], r["aggregation"]).items()
            }
            # one array object per member's column, so that its interval is computed once (_intervals)
            sv["columns"] = [sv["self"][:, j] for j in range(n_m)] if per else [sv["self"]]
            self_memo[key] = sv
        sv = self_memo[key]
        # the panel side depends on the signal only through its levels (one other member: any = majority =
        # count) and ignores rank normalisation (a self-side statistic): equal inputs, one computation
        levels = _signal_levels(n_m, r["signal"])
        side = "pooled" if r["aggregation"] == "rank_normalised" else r["aggregation"]
        pkey = (r["population"], r["cluster"], drop, r["coding"], ind, levels.shape, levels.tobytes(), r["ties"], side)
        if pkey not in panel_memo:
            panel_memo[pkey] = _expanded(_panel_values(sig[(r["coding"], ind)], r["signal"], r["ties"], side), expand)
        out.append(_records_of(r, members, panel_memo[pkey], sv, per, n_items, n_rows))
    return out, rp.n_draws


def _records_of(
    r: dict[str, str],
    members: tuple[str, ...],
    pv: np.ndarray,
    sv: dict[str, Any],
    per: bool,
    n_items: int,
    n_rows: int,
) -> list[tuple[dict[str, Any], list[np.ndarray]]]:
    """The records of one reading: one, or one per member under ``per_member``, each with its four draw vectors.

    Definition: panel AUROC, self AUROC (the member's column under per_member), pooled self-AUROC and their
    difference ``delta`` = panel - self; each vector holds the point value first (the record's value), then the
    draws (read by :func:`_intervals`).
    """
    recs = []
    for j in range(len(members)) if per else [None]:
        panel = pv[:, j] if per else pv
        self_ = sv["columns"][j] if per else sv["columns"][0]
        stats = {"panel_auroc": panel, "self_auroc": self_, "self_auroc_pooled": sv["self_pooled"]}
        stats["delta"] = panel - self_
        rec: dict[str, Any] = dict(r)
        rec["member"] = members[j] if j is not None else ""
        rec["left_out"] = ""
        rec["canonical"] = r == CANONICAL_READING
        d = []
        for name, v in stats.items():
            rec[name] = float(v[0])
            d.append(v)
        rec.update(items=n_items, rows=n_rows)
        recs.append((rec, d))
    return recs


def joint_test(delta: np.ndarray, draws: np.ndarray, *, canonical: int = 0) -> dict[str, Any]:
    """Specification-curve joint test: the share of specifications with the canonical sign and the median effect
    in the canonical direction, each against its distribution under the null of no effect in any specification.

    Definition: ``delta`` (S,) holds the specifications' point estimates and ``draws`` (B, S) their bootstrap
    draws, all specifications on the same resample in a row (the paper's item-clustered draw), so their
    dependence is kept.  The null is imposed by centring: ``null[b, s] = draws[b, s] - delta[s]`` approximates
    the sampling error of every specification at once, i.e. their joint distribution when every true effect is
    zero (Hall & Wilson 1991: a bootstrap test resamples the centred statistic).  The direction is the sign ``c``
    of the canonical specification (index ``canonical``); it was not fixed before the data were seen, so each
    null draw takes it again from its own canonical value.  Statistics: ``share`` = fraction of specifications
    whose estimate has sign ``c`` (strictly), ``median`` = the median estimate, tested as ``c * median``.
    One-sided p-values counting the observed data as one draw: ``p = (1 + #{b: T_b >= T_obs}) / (1 + B)``.
    Specifications with a non-finite estimate or any non-finite draw are left out (``n_left_out``; the canonical
    one must be finite).

    References
    ----------
    Simonsohn, Simmons & Nelson (2020), Nature Human Behaviour 4, 1208-1214 (specification-curve inference);
    Hall & Wilson (1991), Biometrics 47, 757-762.

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> d = np.linspace(0.08, 0.12, 20)
    >>> r = joint_test(d, d + g.normal(0, 0.02, (999, 20)))
    >>> r["sign"], r["share"], r["p_share"], r["p_median"]
    (1, 1.0, 0.001, 0.001)
    """
    delta = np.asarray(delta, dtype=float)
    draws = np.asarray(draws, dtype=float)
    if draws.ndim != 2 or draws.shape[1] != delta.size:
        raise ValueError(f"draws: expected shape (B, {delta.size}), got {draws.shape}")
    if not 0 <= canonical < delta.size:
        raise ValueError(f"canonical: index {canonical} outside the {delta.size} specifications")
    ok = np.isfinite(delta) & np.isfinite(draws).all(axis=0)
    if not ok[canonical]:
        raise ValueError("joint_test: the canonical specification has a non-finite estimate or draw")
    c_pos = int(ok[:canonical].sum())
    d, null = delta[ok], draws[:, ok] - delta[ok]
    sign = 1 if d[c_pos] >= 0 else -1
    null_sign = np.where(null[:, c_pos] >= 0, 1, -1)
    share = float(np.mean(np.sign(d) == sign))
    median = float(np.median(d))
    share_null = np.mean(np.sign(null) == null_sign[:, None], axis=1)
    median_null = null_sign * np.median(null, axis=1)
    b = null.shape[0]
    return {
        "n_specifications": int(d.size),
        "n_left_out": int((~ok).sum()),
        "n_draws": int(b),
        "sign": int(sign),
        "share": share,
        "median": median,
        "p_share": float((1 + np.sum(share_null >= share)) / (1 + b)),
        "p_median": float((1 + np.sum(median_null >= sign * median)) / (1 + b)),
        "null_share_95": float(np.quantile(share_null, 0.95)),
        "null_median_95": float(np.quantile(median_null, 0.95)),
    }
