"""The summaries chapter 26 quotes in its prose, computed from its tables (``notebooks/26_real_answers.py``).

:mod:`selfconf.sections.realanswers` computes the chapter's statistics (Table 1 per model through
:func:`selfconf.report.from_frame`, the panels, the scorecard).  The prose then quotes summaries
over models, bins, subjects and scorecard rows: ranges, counts, medians and shares.  Those
summaries are computed here, one function per part of the page, each returning plain Python
values keyed by the suffix of the glue key the page pastes (``real_<key>``).

Reference: Chernets (2026), Result 1 (the statistics summarised); Linwei Tao et al.,
*LLM-Calibration-Study*, MMLU-Pro answers (the data the chapter reads).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from selfconf.report import core as report

__all__ = [
    "collection_counts",
    "table1_ranges",
    "n_above_diagonal",
    "reliability_rows",
    "bin_summary",
    "risk_summary",
    "panel_summary",
    "n_options",
    "subject_table",
    "subject_counts",
    "verdict_counts",
]

_EPS = 1e-9  # bin edges are floats: a bin whose edge equals a threshold is on the threshold's side


def collection_counts(ext: pd.DataFrame) -> dict[str, Any]:
    """Counts of the MMLU-Pro collection: questions, subjects, missing confidences, answers with no letter.

    Definition: ``n_items`` / ``n_subjects`` = distinct ``item_id`` / ``category``;
    ``n_missing`` = rows whose ``confidence`` is missing, ``missing_max`` and ``missing_max_model``
    = the most for one model (the first such model in row order); ``n_no_letter`` = rows with a
    confidence but an empty extracted ``answer``.
    Reference: :func:`selfconf.data.fetch.read_mmlu_pro_calibration` (the columns).

    Example:

    >>> ext = pd.DataFrame({"model": ["a", "a", "b"], "item_id": [1, 2, 1], "category": ["x", "y", "x"],
    ...                     "confidence": [0.9, None, 0.5], "answer": ["A", "B", ""]})
    >>> collection_counts(ext)
    {'n_items': 2, 'n_subjects': 2, 'n_missing': 1, 'missing_max': 1, 'missing_max_model': 'a', 'n_no_letter': 1}
    """
    missing = ext["confidence"].isna().groupby(ext["model"], sort=False).sum().astype(int)
    return {
        "n_items": int(ext["item_id"].nunique()),
        "n_subjects": int(ext["category"].nunique()),
        "n_missing": int(missing.sum()),
        "missing_max": int(missing.max()),
        "missing_max_model": str(missing.idxmax()),
        "n_no_letter": int((ext["confidence"].notna() & (ext["answer"] == "")).sum()),
    }


def table1_ranges(t1: pd.DataFrame, *, chance: float, auroc_cut: float) -> dict[str, Any]:
    """Ranges and counts over the models of a Table 1 frame (:func:`selfconf.report.from_frame`).

    Definition (percent for accuracy, median confidence, CITL and high-confidence error rate):
    ``acc_min/max``, ``median_min/max``, ``citl_min/max`` (with the models at the ends),
    ``n_citl_ci_above_zero`` = models whose CITL interval's lower end is above 0;
    ``auroc_min/max`` (with their models), ``n_auroc_ci_above_chance`` = models whose AUROC
    interval's lower end is above ``chance``, ``n_below_cut`` = AUROC below ``auroc_cut``;
    ``hc_n`` = answers at high confidence over all models, ``hc_wrong`` = the wrong ones (each
    model's rate × count, rounded), ``hc_share_pct`` = their share of all answers (percent),
    ``hc_err_min/max/macro`` = the per-model error rate's minimum, maximum and mean (percent).
    Reference: Chernets (2026), Result 1 (the statistics); the module docstring.

    Example:

    >>> t1 = pd.DataFrame({"model": ["a", "b"], "n": [10, 30], "accuracy": [0.5, 0.7],
    ...     "median_confidence": [0.9, 0.8], "citl": [0.3, 0.1], "citl_ci_low": [0.1, -0.1],
    ...     "auroc": [0.6, 0.8], "auroc_ci_low": [0.45, 0.7], "high_conf_n": [4, 6],
    ...     "high_conf_error_rate": [0.5, 0.5]})
    >>> r = table1_ranges(t1, chance=0.5, auroc_cut=0.7)
    >>> r["citl_max_model"], r["n_auroc_ci_above_chance"], r["hc_wrong"], r["hc_share_pct"]
    ('a', 1, 5, 25.0)
    """
    pct = 100 * t1.set_index("model")[["accuracy", "median_confidence", "citl", "high_conf_error_rate"]]
    hc_wrong = (t1["high_conf_error_rate"] * t1["high_conf_n"]).round().astype(int)
    return {
        "acc_min": float(pct["accuracy"].min()),
        "acc_max": float(pct["accuracy"].max()),
        "median_min": float(pct["median_confidence"].min()),
        "median_max": float(pct["median_confidence"].max()),
        "citl_min": float(pct["citl"].min()),
        "citl_min_model": str(pct["citl"].idxmin()),
        "citl_max": float(pct["citl"].max()),
        "citl_max_model": str(pct["citl"].idxmax()),
        "n_citl_ci_above_zero": int((t1["citl_ci_low"] > 0).sum()),
        "auroc_min": float(t1["auroc"].min()),
        "auroc_min_model": str(t1.loc[t1["auroc"].idxmin(), "model"]),
        "auroc_max": float(t1["auroc"].max()),
        "auroc_max_model": str(t1.loc[t1["auroc"].idxmax(), "model"]),
        "n_auroc_ci_above_chance": int((t1["auroc_ci_low"] > chance).sum()),
        "n_below_cut": int((t1["auroc"] < auroc_cut).sum()),
        "hc_n": int(t1["high_conf_n"].sum()),
        "hc_wrong": int(hc_wrong.sum()),
        "hc_share_pct": float(100 * t1["high_conf_n"].sum() / t1["n"].sum()),
        "hc_err_min": float(pct["high_conf_error_rate"].min()),
        "hc_err_max": float(pct["high_conf_error_rate"].max()),
        "hc_err_macro": float(pct["high_conf_error_rate"].mean()),
    }


def n_above_diagonal(t1: pd.DataFrame) -> int:
    """Models whose median stated confidence is above their accuracy (both in percent).

    Definition: the number of rows with ``100 × median_confidence > 100 × accuracy``.
    Reference: the paper's Figure 1 (confidence against accuracy, the diagonal).

    Example:

    >>> n_above_diagonal(pd.DataFrame({"median_confidence": [0.9, 0.4], "accuracy": [0.5, 0.6]}))
    1
    """
    return int((100 * t1["median_confidence"] > 100 * t1["accuracy"]).sum())


def reliability_rows(t1: pd.DataFrame) -> pd.DataFrame:
    """The reliability bins of every model in one long frame: model, lo, hi, mean_conf, acc, n, gap.

    Definition: one row per model and bin of the ``reliability`` column of a Table 1 frame, in
    model then bin order, with ``gap = mean_conf − acc`` (positive: overconfident).
    Reference: :func:`selfconf.report.from_frame` (the bins); Guo et al. (2017) (reliability diagrams).

    Example:

    >>> t1 = pd.DataFrame({"model": ["a"], "reliability": [{"lo": [0.0, 0.5], "hi": [0.5, 1.0],
    ...     "mean_conf": [0.3, 0.8], "acc": [0.5, 0.6], "n": [2, 3]}]})
    >>> [round(g, 2) for g in reliability_rows(t1)["gap"]]
    [-0.2, 0.2]
    """
    return pd.DataFrame(
        [
            {"model": r.model, "lo": lo, "hi": hi, "mean_conf": mc, "acc": a, "n": n, "gap": mc - a}
            for r in t1.itertuples()
            for lo, hi, mc, a, n in zip(
                r.reliability["lo"],
                r.reliability["hi"],
                r.reliability["mean_conf"],
                r.reliability["acc"],
                r.reliability["n"],
                strict=True,
            )
        ]
    )


def bin_summary(rel: pd.DataFrame, models: Sequence[str], *, high_conf_points: float) -> dict[str, Any]:
    """Where the reliability bins that are *not* overconfident lie (occupied bins with ``gap <= 0``).

    Definition: over the occupied bins (``n > 0``) of :func:`reliability_rows`:
    ``n_models_all_bins_positive`` = models (of ``models``) with no such bin; ``nonpos_bins_median`` =
    median over models of their number; ``nonpos_share_low_pct`` = share (percent) of such bins whose
    upper edge is at most 0.5 (0 when there are none); ``nonpos_answers_share_pct`` = share (percent)
    of the answers in occupied bins that fall in them; ``low_modest_high_over`` = every occupied bin
    whose lower edge is at or above ``high_conf_points``/100 is overconfident, such bins exist, and
    more than half of them lie at or below 0.5.
    Reference: Guo et al. (2017), "On calibration of modern neural networks" (reliability bins).

    Example:

    >>> rel = pd.DataFrame({"model": ["a", "a", "b"], "lo": [0.0, 0.9, 0.9], "hi": [0.1, 1.0, 1.0],
    ...     "n": [2, 8, 10], "gap": [-0.1, 0.2, 0.1]})
    >>> s = bin_summary(rel, ["a", "b"], high_conf_points=90)
    >>> s["n_models_all_bins_positive"], s["nonpos_answers_share_pct"], s["low_modest_high_over"]
    (1, 10.0, True)
    """
    occ = rel[rel["n"] > 0]
    nonpos = occ[occ["gap"] <= 0]
    per_model = nonpos.groupby("model").size().reindex(list(models), fill_value=0)
    top_all_positive = bool((occ.loc[occ["lo"] >= high_conf_points / 100 - _EPS, "gap"] > 0).all())
    low_share = float((nonpos["hi"] <= 0.5 + _EPS).mean()) if len(nonpos) else 0.0
    return {
        "n_models_all_bins_positive": int((per_model == 0).sum()),
        "nonpos_bins_median": float(per_model.median()),
        "nonpos_share_low_pct": 100 * low_share,
        "nonpos_answers_share_pct": 100 * float(nonpos["n"].sum() / occ["n"].sum()),
        "low_modest_high_over": bool(top_all_positive and len(nonpos) and low_share > 0.5),
    }


def risk_summary(t1: pd.DataFrame, *, coverage_pct: float) -> dict[str, float]:
    """Error among the most confident answers at one coverage, over models (percent).

    Definition: with ``risk(c)`` each model's error rate at coverage ``c`` (its ``risk_coverage``
    entry, :func:`selfconf.report.core.coverage_key`): ``risk20_min`` / ``risk20_max`` = the minimum
    / maximum over models of ``100 × risk(coverage_pct / 100)`` and ``risk_share_kept_max`` = the
    maximum of ``100 × risk(coverage) / risk(1)`` (how much of the full error rate remains).
    Reference: El-Yaniv & Wiener (2010), "On the foundations of noise-free selective
    classification" (risk–coverage).

    Example:

    >>> from selfconf.report.core import coverage_key
    >>> t1 = pd.DataFrame({"risk_coverage": [{coverage_key(0.2): 0.1, coverage_key(1.0): 0.4},
    ...                                      {coverage_key(0.2): 0.2, coverage_key(1.0): 0.5}]})
    >>> {k: round(v, 1) for k, v in risk_summary(t1, coverage_pct=20).items()}
    {'risk20_min': 10.0, 'risk20_max': 20.0, 'risk_share_kept_max': 40.0}
    """
    lo = np.array([rc[report.coverage_key(coverage_pct / 100)] for rc in t1["risk_coverage"]])
    full = np.array([rc[report.coverage_key(1.0)] for rc in t1["risk_coverage"]])
    return {
        "risk20_min": float(100 * lo.min()),
        "risk20_max": float(100 * lo.max()),
        "risk_share_kept_max": float(100 * (lo / full).max()),
    }


def panel_summary(pres: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Counts over the chapter's panels (:attr:`selfconf.sections.realanswers.Results.panel_results`).

    Definition: ``n_rows_codings_differ`` = rows where the label-free and the canonical coding
    differ, summed over panels; ``max_abs_lf_minus_canonical`` = the largest
    ``|delta_labelfree_minus_panel|``; ``n_panels_beat_self`` = panels whose interval of panel minus
    self AUROC lies above 0; ``n_panels`` = panels.
    Reference: Chernets (2026), Result 1 (panel against self-confidence).

    Example:

    >>> pres = {"US": {"n_rows_codings_differ": 0, "delta_labelfree_minus_panel": -0.01,
    ...                "delta_panel_minus_self_ci": (0.02, 0.05)},
    ...         "CN": {"n_rows_codings_differ": 2, "delta_labelfree_minus_panel": 0.03,
    ...                "delta_panel_minus_self_ci": (-0.01, 0.04)}}
    >>> panel_summary(pres)
    {'n_rows_codings_differ': 2, 'max_abs_lf_minus_canonical': 0.03, 'n_panels_beat_self': 1, 'n_panels': 2}
    """
    rs = list(pres.values())
    return {
        "n_rows_codings_differ": sum(r["n_rows_codings_differ"] for r in rs),
        "max_abs_lf_minus_canonical": max(abs(r["delta_labelfree_minus_panel"]) for r in rs),
        "n_panels_beat_self": int(sum(r["delta_panel_minus_self_ci"][0] > 0 for r in rs)),
        "n_panels": len(rs),
    }


def n_options(ext: pd.DataFrame) -> int:
    """Answer options of the multiple-choice questions: distinct gold letters in the collection.

    Definition: the number of distinct ``gold`` values.  Reference: Wang et al. (2024), MMLU-Pro
    (ten options per question).

    Example:

    >>> n_options(pd.DataFrame({"gold": ["A", "C", "A", "J"]}))
    3
    """
    return int(ext["gold"].nunique())


def subject_table(by: pd.DataFrame, *, chance: float) -> pd.DataFrame:
    """Per subject, summaries over models of a by-subject Table 1 (``from_frame(..., by="category")``).

    Definition, per ``group`` (subject): ``answers`` = total ``n``; ``auroc_median/min/max`` and
    ``citl_median/min/max`` over the models; ``n_auroc_ci_above`` = models whose AUROC interval's
    lower end is above ``chance``; ``n_citl_ci_above`` = models whose CITL interval's lower end is
    above 0.  Sorted by the median AUROC, best first.
    Reference: Chernets (2026), Result 1 (the statistics); the module docstring.

    Example:

    >>> by = pd.DataFrame({"group": ["x", "x", "y"], "n": [5, 7, 4], "auroc": [0.6, 0.8, 0.9],
    ...     "citl": [0.1, 0.2, 0.0], "auroc_ci_low": [0.4, 0.6, 0.7], "citl_ci_low": [0.0, 0.1, -0.1]})
    >>> t = subject_table(by, chance=0.5)
    >>> list(t.index), t["answers"].tolist(), t["auroc_median"].round(2).tolist(), t["n_auroc_ci_above"].tolist()
    (['y', 'x'], [4, 12], [0.9, 0.7], [1, 1])
    """
    return (
        by.groupby("group")
        .agg(
            answers=("n", "sum"),
            auroc_median=("auroc", "median"),
            auroc_min=("auroc", "min"),
            auroc_max=("auroc", "max"),
            citl_median=("citl", "median"),
            citl_min=("citl", "min"),
            citl_max=("citl", "max"),
            n_auroc_ci_above=("auroc_ci_low", lambda s: int((s > chance).sum())),
            n_citl_ci_above=("citl_ci_low", lambda s: int((s > 0).sum())),
        )
        .sort_values("auroc_median", ascending=False)
    )


def subject_counts(by: pd.DataFrame, *, chance: float) -> dict[str, int]:
    """Counts over the (model, subject) cells of a by-subject Table 1.

    Definition: ``subject_n_cells`` = cells; ``subject_n_citl_negative`` = cells whose CITL
    interval lies below 0; ``subject_n_auroc_not_above`` = cells whose AUROC interval's lower end is
    at or below ``chance``.  Reference: the module docstring.

    Example:

    >>> by = pd.DataFrame({"citl_ci_high": [-0.1, 0.2], "auroc_ci_low": [0.5, 0.7]})
    >>> subject_counts(by, chance=0.5)
    {'subject_n_cells': 2, 'subject_n_citl_negative': 1, 'subject_n_auroc_not_above': 1}
    """
    return {
        "subject_n_cells": len(by),
        "subject_n_citl_negative": int((by["citl_ci_high"] < 0).sum()),
        "subject_n_auroc_not_above": int((by["auroc_ci_low"] <= chance).sum()),
    }


def verdict_counts(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """How many scorecard records of each scope hold, and how many verdicts an amendment changed.

    Definition: ``n_paper_records`` / ``n_extension_records`` = records of scope ``paper`` /
    ``extension``; ``n_paper_holds`` / ``n_extension_holds`` = those whose ``verdict`` is
    ``holds``; ``n_verdict_changed`` = records whose ``verdict`` differs from ``verdict_declared``.
    Reference: :func:`selfconf.sections.realanswers.scorecard` (the records).

    Example:

    >>> verdict_counts([{"scope": "paper", "verdict": "holds", "verdict_declared": "holds"},
    ...                 {"scope": "extension", "verdict": "holds", "verdict_declared": "inconclusive"}])
    {'n_paper_records': 1, 'n_extension_records': 1, 'n_paper_holds': 1, 'n_extension_holds': 1, 'n_verdict_changed': 1}
    """
    recs = list(records)
    paper = [r for r in recs if r["scope"] == "paper"]
    ext = [r for r in recs if r["scope"] == "extension"]
    return {
        "n_paper_records": len(paper),
        "n_extension_records": len(ext),
        "n_paper_holds": sum(r["verdict"] == "holds" for r in paper),
        "n_extension_holds": sum(r["verdict"] == "holds" for r in ext),
        "n_verdict_changed": sum(r["verdict"] != r["verdict_declared"] for r in recs),
    }
