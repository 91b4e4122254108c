"""Result 1: stated confidence is miscalibrated and weakly discriminative, computed from the rows.

This module holds what ``notebooks/04_result1.py`` computes, so that tests can call it without papermill:

* :func:`frontier_table1` - Table 1 (per frontier model: calibration, self-AUROC with its interval, median
  stated confidence), ordered by accuracy;
* :func:`saturation` - which models' stated confidence is saturated, the refusal-heavy and the dispersed model;
* :func:`reliability_gaps` - the occupied reliability bins and the sign of the gap in each;
* :func:`roc_points` - the ROC curve of stated confidence for correctness (the ROC chart);
* :func:`table2` - the risk-coverage rows of the top models and how the smallest coverage depends on the
  rounding and tie rules;
* :func:`figure1` - accuracy and median confidence of every model (Figure 1);
* :func:`compute` - everything the page glues, as a :class:`selfconf.sections.computed.Computed`.

Definitions
-----------
Table 1's statistics are those of :func:`selfconf.stats.summary.table1`, the count-based path of ``selfconf
report`` (formulas in :func:`selfconf.metrics.counts_statistics`; nothing depends on row order);
confidences are on the 0-1 scale there and in points (0-100) for medians and interquartile ranges here.

* **Saturated**: a model whose median stated confidence (points) is at or above the high-confidence threshold.
* **Refusal-heavy model**: the frontier model with the most refusals; **dispersed model**: among the others,
  the one with the widest interquartile range of stated confidence (75th minus 25th percentile, numpy's
  linear interpolation).
* **Gap of a reliability bin**: mean confidence minus accuracy in the bin (:func:`selfconf.metrics.reliability_bins`).
* **Panels**: :func:`selfconf.panels.panel_analysis` on each pre-registered panel (:data:`selfconf.panels.PANELS`).

Random streams: Table 1's interval of each model comes from ``summary.model_rng(seed, model)`` and each panel's
item-clustered bootstrap from ``summary.model_rng(seed, "panel:<name>")``, so no value depends on the order in
which models or panels are processed.  Nothing here reads ``data/paper/claims.yaml``: the paper's thresholds
are parameters (the page passes its quoted facts).

References
----------
Chernets (2026), Result 1, Table 1, Table 2 and Figure 1.  Hanley, J. A. & McNeil, B. J. (1982). The meaning
and use of the area under a ROC curve. Radiology 143, 29-36.  Guo, C. et al. (2017). On calibration of modern
neural networks. ICML.  Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters 27.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from selfconf import metrics, panels
from selfconf.data.collection import ExclusionReport, graded
from selfconf.sections.computed import Builder, Computed
from selfconf.stats import summary

__all__ = [
    "PARTS",
    "TOP_K",
    "compute",
    "figure1",
    "frontier_rows",
    "frontier_table1",
    "reliability_gaps",
    "risk_coverage_long",
    "roc_points",
    "saturation",
    "table2",
]

#: Parts of the page, in the order it glues them (keys of ``Computed.parts``).
PARTS = ("table1", "calibration", "refusals_high_confidence", "discrimination", "table2", "panels", "figure1")
#: How many models Table 2 shows (a layout choice of the page, ranked by Table 1's self-AUROC).
TOP_K = 3


def frontier_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The graded rows of the frontier tier, with ``conf01`` = stated confidence on the 0-1 scale.

    Definition: :func:`selfconf.data.graded` (``parse_ok == 1``), ``conf01`` by
    :func:`selfconf.metrics.from_percent`, then the rows with ``tier == "frontier"``.

    References
    ----------
    Chernets (2026), Result 1 (frontier tier, full graded set).

    Examples
    --------
    >>> rows = pd.DataFrame({"tier": ["frontier", "local"], "model": ["a", "b"], "parse_ok": [1, 1],
    ...                      "confidence": [90, 50], "correct": [1, 0]})
    >>> frontier_rows(rows)[["model", "conf01"]].to_dict("records")
    [{'model': 'a', 'conf01': 0.9}]
    """
    g = graded(rows)
    g["conf01"] = metrics.from_percent(g["confidence"].to_numpy())
    return g[g["tier"] == "frontier"]


def frontier_table1(
    fr: pd.DataFrame,
    *,
    seed: int,
    n_boot: int,
    threshold_points: float,
    coverages_pct: Sequence[float],
    level: float,
    n_bins: int,
) -> pd.DataFrame:
    """Table 1: :func:`selfconf.stats.summary.table1` on the frontier rows, ordered by accuracy (ties by name).

    Definition: the columns of :data:`selfconf.stats.summary.TABLE1_COLUMNS` plus ``median_points`` (median
    stated confidence in points) and ``ece_lower`` (the ECE with the other bin-edge rule, ``edge="lower"``: a
    confidence on an interior edge counts in the bin that ends there, as in scikit-learn).

    Parameters
    ----------
    fr : pandas.DataFrame
        Frontier graded rows with ``conf01`` (:func:`frontier_rows`).
    seed, n_boot : int
        Base seed and draws of the per-model row bootstrap of the self-AUROC.
    threshold_points : float
        High-confidence threshold in points (``>=`` is high confidence).
    coverages_pct : sequence of float
        Coverages (percent) of the risk-coverage column.
    level : float
        Interval level (0-1).
    n_bins : int
        Equal-width ECE bins.

    Returns
    -------
    pandas.DataFrame (``attrs`` as :func:`selfconf.stats.summary.table1`).

    References
    ----------
    Chernets (2026), Table 1; Guo et al. (2017) for the ECE.

    Examples
    --------
    >>> fr = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "confidence": [90, 80, 70, 60] * 2,
    ...                    "correct": [1, 1, 0, 0, 1, 0, 0, 0]})
    >>> fr["conf01"] = fr["confidence"] / 100
    >>> t = frontier_table1(fr, seed=0, n_boot=50, threshold_points=80, coverages_pct=[100, 50], level=0.95,
    ...                     n_bins=10)
    >>> t["model"].tolist(), t["median_points"].tolist()
    (['a', 'b'], [75.0, 75.0])
    """
    t1 = summary.table1(
        fr.assign(confidence=fr["conf01"]),
        rng=seed,
        n_boot=n_boot,
        threshold=threshold_points / 100,
        coverages=[c / 100 for c in coverages_pct],
        level=level,
        n_bins=n_bins,
    )
    t1 = t1.sort_values("accuracy", ascending=False, kind="stable").reset_index(drop=True)
    t1["median_points"] = [float(np.median(fr.loc[fr["model"] == m, "confidence"])) for m in t1["model"]]
    t1["ece_lower"] = [
        metrics.ece(
            fr.loc[fr["model"] == m, "conf01"], fr.loc[fr["model"] == m, "correct"], n_bins=n_bins, edge="lower"
        )
        for m in t1["model"]
    ]
    return t1


def saturation(fr: pd.DataFrame, t1: pd.DataFrame, refusals: pd.Series, threshold_points: float) -> dict[str, Any]:
    """Saturated models, the refusal-heavy model and the dispersed model.

    Definition: see the module docstring.  ``refusals`` is indexed by model (at least Table 1's models).

    Returns
    -------
    dict
        ``saturated`` and ``departing`` (rows of ``t1`` with median at or above / below the threshold),
        ``refusals`` (Series over Table 1's models), ``refusal_model``, ``iqr`` ({model: points}) and
        ``dispersed_model``.

    References
    ----------
    Chernets (2026), Result 1 ("confidence is saturated and uncoupled from competence").

    Examples
    --------
    >>> fr = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...                    "confidence": [90, 90, 95, 95, 10, 90, 90, 90, 50, 70, 90, 95]})
    >>> t1 = pd.DataFrame({"model": ["a", "b", "c"], "median_points": [92.5, 90.0, 80.0]})
    >>> s = saturation(fr, t1, pd.Series({"a": 0, "b": 30, "c": 1}), threshold_points=90)
    >>> s["refusal_model"], s["dispersed_model"], s["saturated"]["model"].tolist()
    ('b', 'c', ['a', 'b'])
    """
    models = list(t1["model"])
    refusals = refusals.loc[models]
    refusal_model = str(refusals.idxmax())
    iqr = {m: float(np.subtract(*np.percentile(fr.loc[fr["model"] == m, "confidence"], [75, 25]))) for m in models}
    others = [m for m in models if m != refusal_model]
    return {
        "saturated": t1[t1["median_points"] >= threshold_points],
        "departing": t1[t1["median_points"] < threshold_points],
        "refusals": refusals,
        "refusal_model": refusal_model,
        "iqr": iqr,
        "dispersed_model": max(others, key=lambda m: iqr[m]),
    }


def reliability_gaps(fr: pd.DataFrame, models: Sequence[str], n_bins: int) -> dict[str, Any]:
    """Occupied reliability bins of every model and how many of them have a gap that is not positive.

    Definition: :func:`selfconf.metrics.reliability_bins` (equal-width, ``n_bins``) per model; a bin is occupied
    when it holds a row; ``nonpositive[m]`` counts the occupied bins of ``m`` with ``gap <= 0``.

    Returns
    -------
    dict
        ``occupied`` (frame: ``model`` then the bin columns), ``nonpositive`` (Series over ``models``),
        ``all_positive`` and ``rest`` (models with no / some non-positive bin).

    References
    ----------
    Guo et al. (2017), section 2 (reliability diagrams, ECE).

    Examples
    --------
    >>> fr = pd.DataFrame({"model": ["a"] * 4, "conf01": [0.95, 0.95, 0.55, 0.55], "correct": [1, 0, 1, 1]})
    >>> r = reliability_gaps(fr, ["a"], n_bins=10)
    >>> len(r["occupied"]), int(r["nonpositive"]["a"])
    (2, 1)
    """
    bins = []
    for m in models:
        sub = fr[fr["model"] == m]
        b = pd.DataFrame(metrics.reliability_bins(sub["conf01"], sub["correct"], n_bins=n_bins))
        b.insert(0, "model", m)
        bins.append(b)
    bins = pd.concat(bins, ignore_index=True)
    occupied = bins[bins["n"] > 0]
    nonpos = occupied.assign(nonpositive=occupied["gap"] <= 0).groupby("model", sort=False)["nonpositive"].sum()
    nonpos = nonpos.reindex(models).astype(int)
    return {
        "occupied": occupied,
        "nonpositive": nonpos,
        "all_positive": [m for m in models if nonpos[m] == 0],
        "rest": [m for m in models if nonpos[m] > 0],
    }


def roc_points(conf: Any, correct: Any) -> pd.DataFrame:
    """ROC curve of confidence for correctness: one point per distinct confidence used as a cut-off.

    Definition: at cut-off t the true-positive rate is P(conf >= t | correct) and the false-positive rate
    P(conf >= t | wrong); the curve runs from (0, 0) (cut-off above every confidence, ``cutoff = inf``) to
    (1, 1).  The same points as :func:`selfconf.metrics.roc_curve`, computed by counting with
    ``searchsorted`` (kept so the page's chart is unchanged to the last bit).

    Parameters
    ----------
    conf : array-like of shape (n,)
    correct : array-like of shape (n,), 0/1 or bool, both classes present

    Returns
    -------
    pandas.DataFrame with columns ``cutoff``, ``tpr``, ``fpr``.

    References
    ----------
    Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters 27, 861-874.

    Examples
    --------
    >>> r = roc_points([0.9, 0.8, 0.8, 0.3], [1, 1, 0, 0])
    >>> r["tpr"].tolist(), r["fpr"].tolist()
    ([0.0, 0.5, 1.0, 1.0], [0.0, 0.0, 0.5, 1.0])
    """
    conf, correct = np.asarray(conf, float), np.asarray(correct, bool)
    cuts = np.unique(conf)[::-1]
    pos, neg = np.sort(conf[correct]), np.sort(conf[~correct])
    tpr = (pos.size - np.searchsorted(pos, cuts, side="left")) / pos.size
    fpr = (neg.size - np.searchsorted(neg, cuts, side="left")) / neg.size
    return pd.DataFrame({"cutoff": np.r_[np.inf, cuts], "tpr": np.r_[0.0, tpr], "fpr": np.r_[0.0, fpr]})


def table2(fr: pd.DataFrame, t1: pd.DataFrame, coverages_pct: Sequence[float], top_k: int = TOP_K) -> dict[str, Any]:
    """Table 2: the ``top_k`` models by self-AUROC, and how the smallest coverage depends on the cut rules.

    Definition: ``top`` is ``t1`` sorted by ``auroc`` (descending, stable), first ``top_k`` rows; their error
    rates at each coverage are Table 1's ``risk_coverage`` (floor rule; a cut inside a tie group takes the
    expectation over tie orders).  For the smallest (last) coverage c,
    ``diagnostics`` gives per model the rows kept under the floor and the ceiling rule, the error under each,
    whether the cut falls inside a tie of confidences and the range of the error over all orders of the tied
    rows (:func:`selfconf.metrics.risk_coverage_table`), in percent.

    References
    ----------
    Chernets (2026), Table 2; El-Yaniv, R. & Wiener, Y. (2010). On the foundations of noise-free selective
    classification. JMLR 11 (risk-coverage).

    Examples
    --------
    >>> fr = pd.DataFrame({"model": ["a"] * 5, "conf01": [0.9, 0.9, 0.8, 0.7, 0.6], "correct": [1, 0, 1, 0, 0]})
    >>> t1 = pd.DataFrame({"model": ["a"], "auroc": [0.75], "risk_coverage": [{0.2: 0.0}]})
    >>> t1.attrs["covered"] = "floor"
    >>> d = table2(fr, t1, [20], top_k=1)["diagnostics"]
    >>> d[["k_floor", "k_ceil", "cut_in_tie", "error_min_pct", "error_max_pct"]].to_dict("records")
    [{'k_floor': 1, 'k_ceil': 1, 'cut_in_tie': True, 'error_min_pct': 0.0, 'error_max_pct': 100.0}]
    """
    top = t1.sort_values("auroc", ascending=False, kind="stable").head(top_k)
    c20 = coverages_pct[-1] / 100
    diag = []
    for r in top.itertuples():
        sub = fr[fr["model"] == r.model]
        ties = metrics.risk_coverage_table(sub["conf01"], sub["correct"], [c20], covered=t1.attrs["covered"])
        # the other whole-row rule, with the same tie rule as Table 1 (expectation over tie orders)
        ceil20 = metrics.risk_coverage(sub["conf01"], sub["correct"], [c20], tie_rule="expected", covered="ceil")[c20]
        diag.append(
            {
                "model": r.model,
                "n": len(sub),
                "k_floor": int(ties["k"][0]),
                "k_ceil": int(
                    metrics.risk_coverage_table(sub["conf01"], sub["correct"], [c20], covered="ceil")["k"][0]
                ),
                "error_floor_pct": 100 * r.risk_coverage[c20],
                "error_ceil_pct": 100 * ceil20,
                "cut_in_tie": bool(ties["cut_in_tie"][0]),
                "error_min_pct": 100 * ties["error_rate_min"][0],
                "error_max_pct": 100 * ties["error_rate_max"][0],
            }
        )
    return {"top": top, "diagnostics": pd.DataFrame(diag)}


def risk_coverage_long(t1: pd.DataFrame, top_models: Sequence[str]) -> pd.DataFrame:
    """Table 1's risk-coverage column in long form (percent), with ``top`` = "yes" for the Table 2 models.

    Definition: one row per (model, coverage) of ``t1["risk_coverage"]``, both scaled by 100.
    Reference: Chernets (2026), Table 2 (risk-coverage).

    >>> t1 = pd.DataFrame({"model": ["a"], "risk_coverage": [{1.0: 0.5, 0.2: 0.25}]})
    >>> risk_coverage_long(t1, ["a"]).to_dict("records")[1]
    {'model': 'a', 'coverage': 20.0, 'error_rate': 25.0, 'top': 'yes'}
    """
    top = set(top_models)
    return pd.DataFrame(
        [
            {"model": r.model, "coverage": 100 * cov, "error_rate": 100 * err, "top": "yes" if r.model in top else "no"}
            for r in t1.itertuples()
            for cov, err in r.risk_coverage.items()
        ]
    )


def figure1(graded_rows: pd.DataFrame) -> pd.DataFrame:
    """Figure 1's data: per model (all tiers), graded n, accuracy, median and mean stated confidence.

    Definition: grouped by ``tier, model, model_id`` in order of appearance; ``accuracy_pct`` = 100 x accuracy;
    ``above_diagonal`` = median confidence (points) > accuracy (percent).

    References
    ----------
    Chernets (2026), Figure 1.

    Examples
    --------
    >>> g = pd.DataFrame({"tier": ["local"] * 2, "model": ["a"] * 2, "model_id": ["a1"] * 2,
    ...                   "correct": [1, 0], "confidence": [90, 70]})
    >>> figure1(g)[["n", "accuracy_pct", "median_conf", "above_diagonal"]].to_dict("records")
    [{'n': 2, 'accuracy_pct': 50.0, 'median_conf': 80.0, 'above_diagonal': True}]
    """
    fig = (
        graded_rows.groupby(["tier", "model", "model_id"], sort=False)
        .agg(
            n=("correct", "size"),
            accuracy=("correct", "mean"),
            median_conf=("confidence", "median"),
            mean_conf=("confidence", "mean"),
        )
        .reset_index()
    )
    fig["accuracy_pct"] = 100 * fig["accuracy"]
    fig["above_diagonal"] = fig["median_conf"] > fig["accuracy_pct"]
    return fig


def glue_table1(pv: Builder, t1: pd.DataFrame) -> None:
    """Record Table 1's glue values (part ``table1``): per model its row, and how many ECEs hinge on the edge rule.

    Definition: for each row of ``t1`` (:func:`frontier_table1`) the keys ``t1_<model>_*`` (accuracy, mean
    confidence and calibration-in-the-large in percent; Brier, ECE and the self-AUROC with its interval as
    computed) and ``fig1_<model>_median_conf``; then ``r1_n_ece_edge_differs``, the number of models whose ECE
    printed to 3 decimals (as Table 1 prints it) differs between ``ece`` and ``ece_lower``.

    References
    ----------
    Chernets (2026), Table 1.

    Examples
    --------
    >>> t1 = pd.DataFrame({"model": ["a"], "n": [4], "accuracy": [0.5], "mean_confidence": [0.75], "citl": [0.25],
    ...                    "brier": [0.3], "ece": [0.25], "ece_lower": [0.26], "auroc": [0.75],
    ...                    "auroc_ci_low": [0.5], "auroc_ci_high": [1.0], "median_points": [75.0]})
    >>> pv = Builder()
    >>> glue_table1(pv, t1)
    >>> res = pv.build()
    >>> res["t1_a_acc"], res["r1_n_ece_edge_differs"], res.origins["r1_n_ece_edge_differs"]
    (50.0, 1, 'rows')
    """
    for r in t1.itertuples():
        pv.update(
            "table1",
            {
                f"t1_{r.model}_n": r.n,
                f"t1_{r.model}_acc": 100 * r.accuracy,
                f"t1_{r.model}_mean_conf": 100 * r.mean_confidence,
                f"t1_{r.model}_citl": 100 * r.citl,
                f"t1_{r.model}_brier": r.brier,
                f"t1_{r.model}_ece": r.ece,
                f"t1_{r.model}_self_auroc": r.auroc,
                f"t1_{r.model}_self_auroc_ci_lo": r.auroc_ci_low,
                f"t1_{r.model}_self_auroc_ci_hi": r.auroc_ci_high,
                f"fig1_{r.model}_median_conf": r.median_points,
            },
        )
    n_edge_differs = int(sum(f"{a:.3f}" != f"{b:.3f}" for a, b in zip(t1["ece"], t1["ece_lower"], strict=True)))
    pv.add("table1", "r1_n_ece_edge_differs", n_edge_differs, "rows")


def saturation_table(
    t1: pd.DataFrame, sat: dict[str, Any], gaps: dict[str, Any], threshold_points: float
) -> pd.DataFrame:
    """The page's saturation table: per Table 1 model, median and IQR of confidence, refusals and binned gaps.

    Definition: one row per model of ``t1`` in its order; ``saturated`` = median (points) at or above
    ``threshold_points``; ``occupied_bins`` and ``nonpositive_bins`` from :func:`reliability_gaps`;
    ``abs_citl_pp`` = 100 x |calibration-in-the-large|; ``ece_x100`` = 100 x ECE.

    References
    ----------
    Chernets (2026), Result 1 (saturation); Guo et al. (2017) for the reliability bins.

    Examples
    --------
    >>> fr = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 2, "confidence": [95, 95, 55, 55, 90, 90],
    ...                    "correct": [1, 0, 1, 1, 1, 1]})
    >>> fr["conf01"] = fr["confidence"] / 100
    >>> t1 = pd.DataFrame({"model": ["a", "b"], "median_points": [75.0, 90.0], "citl": [0.0, -0.1],
    ...                    "ece": [0.25, 0.1]})
    >>> sat = saturation(fr, t1, pd.Series({"a": 2, "b": 0}), threshold_points=80)
    >>> tab = saturation_table(t1, sat, reliability_gaps(fr, ["a", "b"], 10), 80)
    >>> tab[["saturated", "occupied_bins", "nonpositive_bins"]].to_dict("list")
    {'saturated': [False, True], 'occupied_bins': [2, 1], 'nonpositive_bins': [1, 1]}
    """
    models = list(t1["model"])
    by_model = t1.set_index("model")
    return pd.DataFrame(
        {
            "model": models,
            "median_points": [by_model.loc[m, "median_points"] for m in models],
            "iqr": [sat["iqr"][m] for m in models],
            "saturated": [bool(by_model.loc[m, "median_points"] >= threshold_points) for m in models],
            "refusals": [int(sat["refusals"][m]) for m in models],
            "occupied_bins": gaps["occupied"].groupby("model", sort=False).size().reindex(models).to_list(),
            "nonpositive_bins": gaps["nonpositive"].to_list(),
            "abs_citl_pp": (100 * by_model.loc[models, "citl"].abs()).to_list(),
            "ece_x100": (100 * by_model.loc[models, "ece"]).to_list(),
        }
    )


def glue_calibration(
    pv: Builder, fr: pd.DataFrame, t1: pd.DataFrame, refusals: pd.Series, *, threshold_points: float, n_bins: int
) -> dict[str, Any]:
    """Record the calibration paragraph's values (part ``calibration``): saturation and the sign of binned gaps.

    Definition: :func:`saturation` (saturated band of medians, the refusal-heavy and the dispersed model) and
    :func:`reliability_gaps` on the frontier rows; calibration-in-the-large and accuracy in percent.

    Returns
    -------
    dict
        ``refusal_model``, ``dispersed_model``, ``occupied`` (the occupied bins) and ``table``
        (:func:`saturation_table`).

    References
    ----------
    Chernets (2026), Result 1 ("confidence is saturated and uncoupled from competence").

    Examples
    --------
    >>> fr = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "confidence": [95, 95, 85, 85, 50, 90, 60, 99],
    ...                    "correct": [1, 0, 1, 1, 0, 1, 0, 1]})
    >>> fr["conf01"] = fr["confidence"] / 100
    >>> t1 = pd.DataFrame({"model": ["a", "b"], "accuracy": [0.75, 0.5], "median_points": [90.0, 75.0],
    ...                    "citl": [0.15, 0.25], "ece": [0.2, 0.3]})
    >>> pv = Builder()
    >>> cal = glue_calibration(pv, fr, t1, pd.Series({"a": 0, "b": 3}), threshold_points=80, n_bins=10)
    >>> cal["refusal_model"], cal["dispersed_model"], pv.build()["r1_n_models_median_in_band"]
    ('b', 'a', 1)
    """
    models = list(t1["model"])
    by_model = t1.set_index("model")
    n_frontier = len(models)
    sat = saturation(fr, t1, refusals, threshold_points)
    refusal_model, dispersed_model = sat["refusal_model"], sat["dispersed_model"]
    saturated = sat["saturated"]
    pv.update(
        "calibration",
        {
            "r1_n_frontier_models": n_frontier,
            "r1_n_models_median_in_band_of": n_frontier,
            "r1_n_models_median_in_band": len(saturated),
            "r1_median_band_min": saturated["median_points"].min(),
            "r1_median_band_max": saturated["median_points"].max(),
            "r1_acc_span_min": 100 * saturated["accuracy"].min(),
            "r1_acc_span_max": 100 * saturated["accuracy"].max(),
            "r1_n_models_depart": len(sat["departing"]),
            "r1_refusal_model_median_conf": by_model.loc[refusal_model, "median_points"],
            "r1_refusal_model_acc": 100 * by_model.loc[refusal_model, "accuracy"],
            "r1_refusal_model_citl": 100 * by_model.loc[refusal_model, "citl"],
            "r1_refusal_model_ece": by_model.loc[refusal_model, "ece"],
            "r1_citl_range_min": 100 * t1["citl"].min(),
            "r1_citl_range_max": 100 * t1["citl"].max(),
        },
    )
    pv.add("calibration", "r1_refusal_model", refusal_model, "rows")
    pv.add("calibration", "r1_refusal_model_refusals", int(sat["refusals"][refusal_model]), "rows")
    pv.add("calibration", "r1_dispersed_model", dispersed_model, "rows")
    pv.add("calibration", "r1_dispersed_model_iqr", sat["iqr"][dispersed_model], "rows")
    pv.add("calibration", "r1_dispersed_model_median_conf", by_model.loc[dispersed_model, "median_points"])
    gaps = reliability_gaps(fr, models, n_bins)
    rest = gaps["rest"]
    pv.update(
        "calibration",
        {
            "r1_n_models_all_bins_positive": len(gaps["all_positive"]),
            "r1_n_models_all_bins_positive_of": n_frontier,
            "r1_n_other_models_bins": len(rest),
            "r1_n_nonpositive_bins_other_models": int(gaps["nonpositive"][rest].max()) if rest else 0,
        },
    )
    return {
        "refusal_model": refusal_model,
        "dispersed_model": dispersed_model,
        "occupied": gaps["occupied"],
        "table": saturation_table(t1, sat, gaps, threshold_points),
    }


def glue_refusals_high_confidence(pv: Builder, fr: pd.DataFrame, t1: pd.DataFrame, refusal_model: str) -> pd.DataFrame:
    """Record the refusal-heavy model without its refusals and the confident errors (part ``refusals_high_confidence``).

    Definition: the self-AUROC (:func:`selfconf.metrics.auroc`) of ``refusal_model`` on its rows with
    ``refusal == 0``; the high-confidence error rate pooled over models (wrong / high-confidence answers), its
    per-model range and macro mean (percent), from Table 1's ``high_conf_*`` columns.

    Returns
    -------
    pandas.DataFrame
        ``model, high_conf_n, high_conf_wrong, high_conf_error_rate`` (the page's high-confidence table).

    References
    ----------
    Chernets (2026), Result 1; Hanley & McNeil (1982) for the AUROC.

    Examples
    --------
    >>> fr = pd.DataFrame({"model": ["a"] * 4, "refusal": [0, 0, 0, 1], "conf01": [0.9, 0.8, 0.3, 0.0],
    ...                    "correct": [1, 0, 0, 0]})
    >>> t1 = pd.DataFrame({"model": ["a"], "auroc": [0.8], "high_conf_n": [2], "high_conf_wrong": [1],
    ...                    "high_conf_error_rate": [0.5]})
    >>> pv = Builder()
    >>> _ = glue_refusals_high_confidence(pv, fr, t1, "a")
    >>> pv.build()["r1_anthropic_self_auroc_excl_refusals"], pv.build()["r1_highconf_wrong_pooled_pct"]
    (1.0, 50.0)
    """
    ref = fr[(fr["model"] == refusal_model) & (fr["refusal"] == 0)]
    pv.update(
        "refusals_high_confidence",
        {
            "r1_anthropic_self_auroc_excl_refusals": metrics.auroc(ref["conf01"], ref["correct"]),
            "r1_anthropic_n_excl_refusals": len(ref),
            "r1_anthropic_self_auroc_upper_bound": t1.set_index("model").loc[refusal_model, "auroc"],
        },
    )
    hc = t1[["model", "high_conf_n", "high_conf_wrong", "high_conf_error_rate"]]
    pv.update(
        "refusals_high_confidence",
        {
            "r1_highconf_pooled_n_models": len(t1),
            "r1_highconf_wrong_n": int(hc["high_conf_wrong"].sum()),
            "r1_highconf_total_n": int(hc["high_conf_n"].sum()),
            "r1_highconf_wrong_pooled_pct": 100 * hc["high_conf_wrong"].sum() / hc["high_conf_n"].sum(),
            "r1_highconf_wrong_permodel_min": 100 * hc["high_conf_error_rate"].min(),
            "r1_highconf_wrong_permodel_max": 100 * hc["high_conf_error_rate"].max(),
            "r1_highconf_wrong_macro_pct": 100 * hc["high_conf_error_rate"].mean(),
        },
    )
    return hc


def glue_discrimination(
    pv: Builder, fr: pd.DataFrame, t1: pd.DataFrame, *, chance: float, auroc_cut: float
) -> pd.DataFrame:
    """Record the discrimination paragraph (part ``discrimination``) and return the ROC chart's points.

    Definition: the span of Table 1's self-AUROCs, how many are below ``auroc_cut``, and how many intervals
    exclude ``chance`` (a claim: the paper prints that every interval excludes 0.5); the ROC points
    (:func:`roc_points`) of every model with its AUROC and the cut-off in points (NaN for the start point).

    References
    ----------
    Chernets (2026), Result 1; Fawcett (2006) for the ROC curve.

    Examples
    --------
    >>> fr = pd.DataFrame({"model": ["a"] * 4, "conf01": [0.9, 0.8, 0.8, 0.3], "correct": [1, 1, 0, 0]})
    >>> t1 = pd.DataFrame({"model": ["a"], "auroc": [0.875], "auroc_ci_low": [0.6], "auroc_ci_high": [1.0]})
    >>> pv = Builder()
    >>> roc = glue_discrimination(pv, fr, t1, chance=0.5, auroc_cut=0.7)
    >>> pv.build()["r1_n_ci_exclude_chance"], roc["cutoff_points"].tolist()[1:]
    (1, [90.0, 80.0, 30.0])
    """
    pv.update(
        "discrimination",
        {
            "r1_self_auroc_span_min": t1["auroc"].min(),
            "r1_self_auroc_span_max": t1["auroc"].max(),
            "r1_n_models_below_threshold": int((t1["auroc"] < auroc_cut).sum()),
            "r1_n_models_below_threshold_of": len(t1),
        },
    )
    pv.add(
        "discrimination",
        "r1_n_ci_exclude_chance",
        int(((t1["auroc_ci_low"] > chance) | (t1["auroc_ci_high"] < chance)).sum()),
    )
    auroc = t1.set_index("model")["auroc"]
    roc = pd.concat(
        [
            roc_points(fr.loc[fr["model"] == m, "conf01"], fr.loc[fr["model"] == m, "correct"]).assign(
                model=m, auroc=auroc[m]
            )
            for m in t1["model"]
        ],
        ignore_index=True,
    )
    roc["cutoff_points"] = np.where(np.isfinite(roc["cutoff"]), 100 * roc["cutoff"], np.nan)
    return roc


def glue_table2(
    pv: Builder, fr: pd.DataFrame, t1: pd.DataFrame, coverages_pct: Sequence[float], top_k: int = TOP_K
) -> dict[str, Any]:
    """Record Table 2 (part ``table2``): the top models' self-AUROC and error rate at every coverage.

    Definition: :func:`table2`; per top model ``t2_<model>_label_self_auroc``, ``t2_<model>_err_cov<c>`` (percent)
    and ``r1_riskcov_<model>_err20`` (the smallest coverage), then how many models the table shows.

    Returns
    -------
    dict
        :func:`table2`'s ``top`` and ``diagnostics``.

    References
    ----------
    Chernets (2026), Table 2.

    Examples
    --------
    >>> fr = pd.DataFrame({"model": ["a"] * 5, "conf01": [0.9, 0.9, 0.8, 0.7, 0.6], "correct": [1, 0, 1, 0, 0]})
    >>> t1 = pd.DataFrame({"model": ["a"], "auroc": [0.75], "risk_coverage": [{1.0: 0.6, 0.2: 0.5}]})
    >>> t1.attrs["covered"] = "floor"
    >>> pv = Builder()
    >>> _ = glue_table2(pv, fr, t1, [100, 20], top_k=1)
    >>> pv.build().part("table2")["t2_a_err_cov20"]
    50.0
    """
    t2 = table2(fr, t1, coverages_pct, top_k)
    top = t2["top"]
    for r in top.itertuples():
        pv.add("table2", f"t2_{r.model}_label_self_auroc", r.auroc)
        for cov_pct in coverages_pct:
            pv.add("table2", f"t2_{r.model}_err_cov{cov_pct}", 100 * r.risk_coverage[cov_pct / 100])
        pv.add("table2", f"r1_riskcov_{r.model}_err20", 100 * r.risk_coverage[coverages_pct[-1] / 100])
    pv.update("table2", {"r1_riskcov_n_models": len(top), "t2_caption_n_models": len(top)})
    return t2


#: Glue-key prefix of each pre-registered panel.
PANEL_PREFIX = {"US": "us", "CN": "cn", "cross_bloc": "xb"}


def glue_panels(
    pv: Builder, rows: pd.DataFrame, panel_members: dict[str, tuple[str, ...]], *, seed: int, n_boot: int
) -> dict[str, dict[str, Any]]:
    """Analyse every panel and record its AUROCs and intervals (part ``panels``).

    Definition: :func:`selfconf.panels.panel_analysis` per panel, with the generator
    ``summary.model_rng(seed, "panel:<name>")`` (so no value depends on the order of the panels); glued: the
    members, how many panels, per panel (prefix :data:`PANEL_PREFIX`) its panel AUROC, pooled self-AUROC and
    their difference with its interval, and for every panel but US the separate panel and self intervals (the
    paper prints them for CN and cross-bloc).

    Returns
    -------
    dict
        ``{panel: panel_analysis result}``.

    References
    ----------
    Chernets (2026), Result 1 (panels); Efron & Tibshirani (1993) for the bootstrap.

    Examples
    --------
    >>> from selfconf.data import load_collection
    >>> rows, _ = load_collection("data/reconstructed")
    >>> pv = Builder()
    >>> res = glue_panels(pv, rows, {"CN": panels.PANELS["CN"]}, seed=1, n_boot=10)
    >>> sorted(pv.build().part("panels"))[:2]
    ['cn_panel_auroc', 'cn_panel_auroc_ci_hi']
    """
    panel_res = {}
    for name, members in panel_members.items():
        panel_res[name] = panels.panel_analysis(
            rows, members, n_boot=n_boot, rng=summary.model_rng(seed, f"panel:{name}")
        )
        pv.add("panels", f"r1_panel_members_{name}", ", ".join(members))  # claims: the paper prints them
    pv.add("panels", "r1_n_panels_used", len(panel_members))
    for name, res in panel_res.items():
        k = PANEL_PREFIX[name]
        pv.update(
            "panels",
            {
                f"{k}_panel_auroc": res["panel_auroc"],
                f"{k}_self_auroc_pooled": res["self_auroc_pooled"],
                f"{k}_panel_vs_self_delta": res["delta_panel_minus_self"],
                f"{k}_panel_vs_self_delta_ci_lo": res["delta_ci"][0],
                f"{k}_panel_vs_self_delta_ci_hi": res["delta_ci"][1],
            },
        )
        if name != "US":
            pv.update(
                "panels",
                {
                    f"{k}_panel_auroc_ci_lo": res["panel_ci"][0],
                    f"{k}_panel_auroc_ci_hi": res["panel_ci"][1],
                    f"{k}_self_auroc_pooled_ci_lo": res["self_ci"][0],
                    f"{k}_self_auroc_pooled_ci_hi": res["self_ci"][1],
                },
            )
    return panel_res


def glue_panel_decomposition(pv: Builder, panel_res: dict[str, dict[str, Any]], *, refusal_auroc: float) -> None:
    """Record the US and CN decomposition and the label-free recoding (part ``panels``).

    Definition: from the US and CN results of :func:`glue_panels`: the pooled, within-model (min, max, macro)
    and rank-normalised self-AUROCs, the between-model identity contribution, the label-free panel AUROCs,
    and ``r1_anthropic_self_auroc_full`` (``refusal_auroc``, the refusal-heavy model's self-AUROC with its
    refusals, quoted beside the decomposition).  Some values are glued under two keys (two sentences cite them).

    References
    ----------
    Chernets (2026), Result 1 (decomposition of the pooled AUROC, label-free recoding).

    Examples
    --------
    >>> r = {"self_auroc_pooled": 0.6, "within_model_min": 0.5, "within_model_max": 0.7, "within_model_macro": 0.6,
    ...      "self_auroc_ranknorm": 0.55, "between_model_identity": 0.05, "panel_auroc_labelfree": 0.65,
    ...      "panel_auroc": 0.7}
    >>> pv = Builder()
    >>> glue_panel_decomposition(pv, {"US": r, "CN": r}, refusal_auroc=0.8)
    >>> pv.build()["r1_anthropic_self_auroc_full"], len(pv.build().part("panels"))
    (0.8, 17)
    """
    us, cn = panel_res["US"], panel_res["CN"]
    pv.update(
        "panels",
        {
            "us_self_auroc_pooled_decomp": us["self_auroc_pooled"],
            "us_within_model_self_auroc_min": us["within_model_min"],
            "us_within_model_self_auroc_max": us["within_model_max"],
            "us_within_model_self_auroc_macro": us["within_model_macro"],
            "us_self_auroc_ranknorm": us["self_auroc_ranknorm"],
            "us_between_model_identity_contribution": us["between_model_identity"],
            "cn_self_auroc_pooled_decomp": cn["self_auroc_pooled"],
            "cn_self_auroc_pooled_decomp2": cn["self_auroc_pooled"],
            "cn_self_auroc_ranknorm": cn["self_auroc_ranknorm"],
            "r1_anthropic_self_auroc_full": refusal_auroc,
            "cn_panel_auroc_labelfree": cn["panel_auroc_labelfree"],
            "us_panel_auroc_labelfree": us["panel_auroc_labelfree"],
            "r1_lf_cn_panel_auroc": cn["panel_auroc"],
            "r1_lf_cn_self_auroc": cn["self_auroc_pooled"],
            "r1_lf_us_panel_auroc": us["panel_auroc"],
            "r1_lf_cn_panel_auroc_labelfree_cmp": cn["panel_auroc_labelfree"],
            "r1_lf_cn_self_auroc_cmp": cn["self_auroc_pooled"],
        },
    )


def glue_figure1(
    pv: Builder, rows: pd.DataFrame, t1: pd.DataFrame, *, refusal_model: str, dispersed_model: str
) -> pd.DataFrame:
    """Record Figure 1's values (part ``figure1``) and return its data (:func:`figure1` on every graded row).

    Definition: counts of models and items; the refusal-heavy model's median, accuracy and gap; the best
    self-AUROC and the smallest gap of Table 1 with their models; the local tier's ranges of accuracy, median
    confidence and n; how many models lie above the diagonal (a claim: the paper says all); two caption phrases
    chosen from the rows (whether the best model is the refusal-heavy one, whether the smallest gap belongs to
    the dispersed model).

    References
    ----------
    Chernets (2026), Figure 1.

    Examples
    --------
    >>> rows = pd.DataFrame({"tier": ["frontier"] * 2 + ["local"] * 2, "model": ["a", "a", "b", "b"],
    ...                      "model_id": ["a", "a", "b", "b"], "item_id": [1, 2, 1, 2], "parse_ok": [1] * 4,
    ...                      "correct": [1, 0, 0, 1], "confidence": [90, 80, 70, 60]})
    >>> t1 = pd.DataFrame({"model": ["a"], "auroc": [1.0], "citl": [0.35], "accuracy": [0.5],
    ...                    "median_points": [85.0]})
    >>> pv = Builder()
    >>> fig = glue_figure1(pv, rows, t1, refusal_model="a", dispersed_model="a")
    >>> pv.build()["fig1_best_phrase"], pv.build()["fig1_n_above_diagonal"]
    ('has the best self-AUROC', 2)
    """
    by_model = t1.set_index("model")
    fig = figure1(graded(rows))
    loc = fig[fig["tier"] == "local"]
    pv.update(
        "figure1",
        {
            "fig1_n_models_words": len(fig),
            "fig1_n_models": len(fig),
            "r1_fig_n_models": len(fig),
            "fig1_n_items": rows["item_id"].nunique(),
            "fig1_refusal_model_median": by_model.loc[refusal_model, "median_points"],
            "fig1_refusal_model_acc": 100 * by_model.loc[refusal_model, "accuracy"],
            "fig1_refusal_model_citl": 100 * by_model.loc[refusal_model, "citl"],
            "fig1_best_self_auroc": t1["auroc"].max(),
            "fig1_smallest_gap": 100 * t1["citl"].min(),
            "fig1_n_local_models": len(loc),
            "fig1_local_acc_min": loc["accuracy_pct"].min(),
            "fig1_local_acc_max": loc["accuracy_pct"].max(),
            "r1_local_acc_max": loc["accuracy_pct"].max(),
            "fig1_local_median_conf_min": loc["median_conf"].min(),
            "fig1_local_median_conf_max": loc["median_conf"].max(),
            "r1_local_median_band_min": loc["median_conf"].min(),
            "r1_local_median_band_max": loc["median_conf"].max(),
            "fig1_local_n_min": int(loc["n"].min()),
            "fig1_local_n_max": int(loc["n"].max()),
        },
    )
    best_model = str(t1.loc[t1["auroc"].idxmax(), "model"])
    smallest_gap_model = str(t1.loc[t1["citl"].idxmin(), "model"])
    pv.add("figure1", "fig1_n_above_diagonal", int(fig["above_diagonal"].sum()))
    pv.add("figure1", "fig1_best_model", best_model, "rows")
    pv.add("figure1", "fig1_smallest_gap_model", smallest_gap_model, "rows")
    pv.add(
        "figure1",
        "fig1_best_phrase",
        "has the best self-AUROC"
        if best_model == refusal_model
        else f"does not have the best self-AUROC (that is {best_model}, shown next)",
    )
    pv.add(
        "figure1",
        "fig1_smallest_gap_note",
        "the model with dispersed confidence"
        if smallest_gap_model == dispersed_model
        else f"not the model with the most dispersed confidence ({dispersed_model})",
    )
    return fig


def compute(
    rows: pd.DataFrame,
    excl: ExclusionReport,
    *,
    seed: int,
    n_boot: int,
    threshold_points: float,
    chance: float,
    auroc_cut: float,
    n_bins: int,
    level: float,
    coverages_pct: Sequence[float],
    top_k: int = TOP_K,
    panel_members: dict[str, tuple[str, ...]] | None = None,
) -> Computed:
    """Everything Result 1 glues, from the collection rows.

    The steps are named, one a part of the page (:data:`PARTS`): :func:`glue_table1`, :func:`glue_calibration`,
    :func:`glue_refusals_high_confidence`, :func:`glue_discrimination`, :func:`glue_table2`, :func:`glue_panels`
    with :func:`glue_panel_decomposition`, and :func:`glue_figure1` (over 80 lines through this docstring only).

    Parameters
    ----------
    rows : pandas.DataFrame
        The collection rows (:func:`selfconf.data.load_collection`; all tiers, parse failures included).
    excl : selfconf.data.ExclusionReport
        Its exclusion report (refusals per model).
    seed : int
        Page seed (streams: see the module docstring).
    n_boot : int
        Bootstrap draws (Table 1 intervals and panels).
    threshold_points : float
        High-confidence threshold in points (the paper's ``r1_highconf_threshold``).
    chance : float
        Chance AUROC (``r1_chance_auroc``).
    auroc_cut : float
        Descriptive AUROC cut-off for "weak" (``r1_auroc_threshold``).
    n_bins : int
        ECE and reliability bins (``t1_ece_n_bins``).
    level : float
        Interval level, 0-1 (``ci_level_pct`` / 100).
    coverages_pct : sequence of float
        Table 2's coverages in percent, the smallest last (``t2_coverage_*``).
    top_k : int, default :data:`TOP_K`
        Models in Table 2.
    panel_members : dict, optional
        Panels to analyse; default the pre-registered :data:`selfconf.panels.PANELS`.

    Returns
    -------
    Computed
        ``values``/``origins`` of every glue key, grouped in ``parts`` (:data:`PARTS`); ``tables``:
        ``table1``, ``saturation``, ``occupied_bins``, ``high_confidence``, ``table2_top``,
        ``table2_diagnostics``, ``roc``, ``risk_coverage``, ``figure1``; ``facts``: ``models`` (Table 1 order),
        ``refusal_model``, ``dispersed_model``, ``panel_members``, ``panel_results``
        ({panel: :func:`selfconf.panels.panel_analysis` dict}).  Only interval end points (Table 1's
        ``*_self_auroc_ci_*``, the panels' ``*_ci_*``), ``r1_n_ci_exclude_chance`` and the panel differences'
        intervals depend on ``seed`` and ``n_boot``.

    References
    ----------
    Chernets (2026), Result 1.

    Examples
    --------
    >>> from selfconf.data import load_collection
    >>> rows, excl = load_collection("data/reconstructed")
    >>> res = compute(rows, excl, seed=1, n_boot=20, threshold_points=80, chance=0.5, auroc_cut=0.7, n_bins=10,
    ...               level=0.95, coverages_pct=[100, 80, 60, 40, 20])
    >>> res.values["r1_n_frontier_models"]
    9
    """
    pv = Builder()
    panel_members = dict(panels.PANELS if panel_members is None else panel_members)
    fr = frontier_rows(rows)
    t1 = frontier_table1(
        fr,
        seed=seed,
        n_boot=n_boot,
        threshold_points=threshold_points,
        coverages_pct=coverages_pct,
        level=level,
        n_bins=n_bins,
    )
    glue_table1(pv, t1)
    refusals = excl.per_model.set_index("model")["refusals"]
    cal = glue_calibration(pv, fr, t1, refusals, threshold_points=threshold_points, n_bins=n_bins)
    refusal_model, dispersed_model = cal["refusal_model"], cal["dispersed_model"]
    hc = glue_refusals_high_confidence(pv, fr, t1, refusal_model)
    roc = glue_discrimination(pv, fr, t1, chance=chance, auroc_cut=auroc_cut)
    t2 = glue_table2(pv, fr, t1, coverages_pct, top_k)
    panel_res = glue_panels(pv, rows, panel_members, seed=seed, n_boot=n_boot)
    glue_panel_decomposition(pv, panel_res, refusal_auroc=t1.set_index("model").loc[refusal_model, "auroc"])
    fig = glue_figure1(pv, rows, t1, refusal_model=refusal_model, dispersed_model=dispersed_model)
    top = t2["top"]
    tables = {
        "table1": t1,
        "saturation": cal["table"],
        "occupied_bins": cal["occupied"],
        "high_confidence": hc,
        "table2_top": top,
        "table2_diagnostics": t2["diagnostics"],
        "roc": roc,
        "risk_coverage": risk_coverage_long(t1, list(top["model"])),
        "figure1": fig,
    }
    facts = {
        "models": list(t1["model"]),
        "refusal_model": refusal_model,
        "dispersed_model": dispersed_model,
        "panel_members": panel_members,
        "panel_results": panel_res,
    }
    return pv.build(tables, facts)
