"""Beyond the paper (page ``22_external_replication``): Table 1 on third-party MMLU-Pro answers, in one call.

:func:`compute` runs ``selfconf report``'s computation (:func:`selfconf.report.from_frame`, the call chapter 26
makes, with the same arguments) on the external rows and on the paper's frontier rows, and derives every
summary the page glues
(:class:`selfconf.sections.computed.Computed`): ranges over models, pooled high-confidence error rates, the
risk at the lowest coverage and Spearman rank correlations across models.  All values are of origin
``external-data`` or ``parameter``.
"""

from __future__ import annotations

import pandas as pd
from scipy.stats import spearmanr

from selfconf.report import core as report_core
from selfconf.report.core import COVERAGES, HIGH_CONF, coverage_key
from selfconf.sections.computed import Builder, Computed

__all__ = [
    "ECE_BINS",
    "LOW_COVERAGE",
    "MEDIAN_BAND_LOW",
    "MISSING_NOTE_MIN",
    "best_vs_paper_phrase",
    "compute",
    "report_table",
]

EXT = "external-data"
#: Descriptive: a model "loses many" rows without a confidence above this count.
MISSING_NOTE_MIN = 100
#: Descriptive: the lower end of the paper's "typical stated confidence" band (points).
MEDIAN_BAND_LOW = 85
#: The smallest risk-coverage level of the report.
LOW_COVERAGE = min(COVERAGES)
#: ECE bins of the report's tables (chapter 26 passes its declared ``ece_bins``, also 10).
ECE_BINS = 10
#: The input columns the report reads.
REPORT_COLUMNS = ("model", "item_id", "confidence", "correct")


def report_table(rows: pd.DataFrame, *, scale: str, seed: int, n_boot: int, source: str) -> pd.DataFrame:
    """The report's per-model table of ``rows``: :func:`selfconf.report.from_frame`, nothing else.

    Definition: ``from_frame(rows[["model", "item_id", "confidence", "correct"]], confidence_scale=scale,
    seed=seed, n_boot=n_boot, ece_bins=ECE_BINS)``, the call of chapter 26 and of ``selfconf report --json``;
    a model whose every row lacks a confidence is listed with ``n = 0``.  ``source`` names the rows in errors.

    Reference: Chernets (2026), Tables 1-2 (the columns).

    Examples
    --------
    >>> rows = pd.DataFrame({"model": ["m"] * 4, "item_id": [1, 2, 3, 4], "confidence": [0.9, 0.8, 0.6, None],
    ...                      "correct": [1, 1, 0, 0]})
    >>> t = report_table(rows, scale="unit", seed=0, n_boot=50, source="example")
    >>> int(t.loc[0, "n"]), t.loc[0, "excluded"]["missing_confidence"]
    (3, 1)
    """
    frame = report_core.rows_from_frame(rows[list(REPORT_COLUMNS)], confidence_scale=scale, source=source)
    return report_core.compute(frame, seed=seed, n_boot=n_boot, ece_bins=ECE_BINS)


def best_vs_paper_phrase(best_external: float, paper_auroc: pd.Series) -> str:
    """Where the best external self-AUROC falls among the paper's frontier models, in words.

    Definition: the number of paper models whose self-AUROC is strictly below ``best_external``.

    Examples
    --------
    >>> best_vs_paper_phrase(0.7, pd.Series([0.6, 0.65])), best_vs_paper_phrase(0.62, pd.Series([0.6, 0.65]))
    ("above every one of the paper's 2 frontier models", "above 1 of the paper's 2 frontier models")
    """
    n_below = int((paper_auroc < best_external).sum())
    if n_below == len(paper_auroc):
        return f"above every one of the paper's {len(paper_auroc)} frontier models"
    if n_below == 0:
        return f"below every one of the paper's {len(paper_auroc)} frontier models"
    return f"above {n_below} of the paper's {len(paper_auroc)} frontier models"


def _toy_report(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Made-up external rows (two models, 60 questions, some without a confidence) and their report table.

    Definition: from ``numpy.random.default_rng(seed)``, uniform confidences rounded to 0.01 and correctness
    with probability 0.4 (a) and 0.7 (b), 5 confidences per model set to NaN; the table is :func:`report_table`
    with 20 draws.  Used by the examples of this module's steps.

    >>> ext, t = _toy_report()
    >>> len(ext), list(t["n"])
    (120, [55, 55])
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    conf = rng.uniform(0, 1, 120).round(2)
    conf[[0, 1, 2, 3, 4, 60, 61, 62, 63, 64]] = np.nan
    ext = pd.DataFrame(
        {
            "model": np.repeat(["a", "b"], 60),
            "item_id": np.tile(np.arange(60), 2),
            "category": np.tile(["law", "math"], 60),
            "confidence": conf,
            "correct": rng.random(120) < np.repeat([0.4, 0.7], 60),
            "gold": "A",
        }
    )
    return ext, report_table(ext, scale="unit", seed=seed, n_boot=20, source="example")


def glue_data(b: Builder, ext: pd.DataFrame, t_ext: pd.DataFrame) -> None:
    """Record what the external rows hold (part ``data``; table ``missing``).

    Definition: models, questions (every model must have one row per question), rows, rows used by the report
    (``t_ext["n"]``), rows without a confidence per model (sorted by name, so a tie for the most never follows
    row order), categories and answer options, the error rates of the rows with and without a confidence, and
    the page's descriptive thresholds (parameters).

    Raises
    ------
    ValueError
        When the models do not all have the same number of rows.

    References: Tao et al., *LLM-Calibration-Study* (MMLU-Pro verbalised confidence).

    >>> (ext, t), b = _toy_report(), Builder()
    >>> glue_data(b, ext, t)
    >>> b.build()["ext_missing_total"], b.build()["ext_missing_max_model"]
    (10, 'a')
    """
    missing = (
        pd.Series(
            {r["model"]: r["excluded"]["missing_confidence"] for r in t_ext.to_dict("records")}, dtype=int
        ).reindex(sorted(ext["model"].unique()), fill_value=0)  # by name: a tie for the most never follows row order
    )
    per_model = ext.groupby("model").size()
    n_items = int(per_model.iloc[0])
    if not (per_model == n_items).all():
        raise ValueError("every file should have one row per MMLU-Pro question")
    b.add("data", "ext_n_models", ext["model"].nunique(), EXT)
    b.add("data", "ext_n_items", n_items, EXT)
    b.add("data", "ext_n_rows", len(ext), EXT)
    b.add("data", "ext_n_used", int(t_ext["n"].sum()), EXT)
    b.add("data", "ext_missing_total", int(missing.sum()), EXT)
    b.add("data", "ext_missing_max", int(missing.max()), EXT)
    b.add("data", "ext_missing_max_model", str(missing.idxmax()), EXT)
    b.add("data", "ext_missing_note_min", MISSING_NOTE_MIN, "parameter")
    b.add("data", "ext_missing_n_models_over_100", int((missing > MISSING_NOTE_MIN).sum()), EXT)
    b.add("data", "ext_n_categories", ext["category"].nunique(), EXT)
    b.add("data", "ext_n_options", ext["gold"].nunique(), EXT)
    b.add("data", "ext_hc_threshold", 100 * HIGH_CONF, "parameter")
    b.add("data", "ext_low_coverage_pct", 100 * LOW_COVERAGE, "parameter")
    b.add("data", "ext_median_band_low", MEDIAN_BAND_LOW, "parameter")
    was_missing = ext["confidence"].isna()
    b.add("data", "ext_missing_err_pct", 100 * (1 - ext.loc[was_missing, "correct"].mean()), EXT)
    b.add("data", "ext_answered_err_pct", 100 * (1 - ext.loc[~was_missing, "correct"].mean()), EXT)
    b.table("missing", missing)


def glue_table1(b: Builder, ext: pd.DataFrame, t_ext: pd.DataFrame) -> None:
    """Record the summaries of Table 1 over the external models (part ``table1``; tables ``t_ext``, ``acc_all``).

    Definition: over the report's per-model rows ``t_ext``: ranges (with the models at the ends) of accuracy,
    median confidence, calibration-in-the-large and self-AUROC, the median self-AUROC, how many intervals lie
    above chance, the widest interval, the pooled high-confidence error and share, the range of the error at
    the lowest coverage, and Spearman's rank correlation of accuracy with self-AUROC and with CITL.

    References: Chernets (2026), Table 1 (the columns); Spearman (1904), via ``scipy.stats.spearmanr``.

    >>> (ext, t), b = _toy_report(), Builder()
    >>> glue_table1(b, ext, t)
    >>> b.build()["ext_citl_max_model"], b.build()["ext_n_overconfident"], round(b.build()["ext_acc_max"], 1)
    ('a', 1, 70.9)
    """
    high_conf_wrong = (t_ext["high_conf_error_rate"] * t_ext["high_conf_n"]).round()
    b.table("t_ext", t_ext)
    b.table("acc_all", ext.groupby("model", sort=True)["correct"].mean())
    for key, col in (("acc", "accuracy"), ("median_conf", "median_confidence")):
        b.add("table1", f"ext_{key}_min", 100 * t_ext[col].min(), EXT)
        b.add("table1", f"ext_{key}_max", 100 * t_ext[col].max(), EXT)
    b.add(
        "table1", "ext_n_median_conf_band", int((t_ext["median_confidence"] >= MEDIAN_BAND_LOW / 100 - 1e-9).sum()), EXT
    )
    b.add("table1", "ext_citl_min", 100 * t_ext["citl"].min(), EXT)
    b.add("table1", "ext_citl_max", 100 * t_ext["citl"].max(), EXT)
    b.add("table1", "ext_citl_min_model", str(t_ext.loc[t_ext["citl"].idxmin(), "model"]), EXT)
    b.add("table1", "ext_citl_max_model", str(t_ext.loc[t_ext["citl"].idxmax(), "model"]), EXT)
    b.add("table1", "ext_n_overconfident", int((t_ext["citl"] > 0).sum()), EXT)
    b.add("table1", "ext_auroc_min", t_ext["auroc"].min(), EXT)
    b.add("table1", "ext_auroc_max", t_ext["auroc"].max(), EXT)
    b.add("table1", "ext_auroc_median", float(t_ext["auroc"].median()), EXT)
    b.add("table1", "ext_auroc_min_model", str(t_ext.loc[t_ext["auroc"].idxmin(), "model"]), EXT)
    b.add("table1", "ext_auroc_max_model", str(t_ext.loc[t_ext["auroc"].idxmax(), "model"]), EXT)
    b.add("table1", "ext_n_ci_above_chance", int((t_ext["auroc_ci_low"] > 0.5).sum()), EXT)
    b.add("table1", "ext_ci_width_max", float((t_ext["auroc_ci_high"] - t_ext["auroc_ci_low"]).max()), EXT)
    b.add("table1", "ext_hc_err_pooled", 100 * high_conf_wrong.sum() / t_ext["high_conf_n"].sum(), EXT)
    b.add("table1", "ext_hc_share_pooled", 100 * t_ext["high_conf_n"].sum() / t_ext["n"].sum(), EXT)
    b.add("table1", "ext_hc_err_min", 100 * t_ext["high_conf_error_rate"].min(), EXT)
    b.add("table1", "ext_hc_err_max", 100 * t_ext["high_conf_error_rate"].max(), EXT)
    risk_low = pd.Series([rc[coverage_key(LOW_COVERAGE)] for rc in t_ext["risk_coverage"]], index=t_ext["model"])
    b.add("table1", "ext_risk20_min", 100 * risk_low.min(), EXT)
    b.add("table1", "ext_risk20_max", 100 * risk_low.max(), EXT)
    b.add("table1", "ext_spearman_acc_auroc", float(spearmanr(t_ext["accuracy"], t_ext["auroc"]).statistic), EXT)
    b.add("table1", "ext_spearman_acc_citl", float(spearmanr(t_ext["accuracy"], t_ext["citl"]).statistic), EXT)


def glue_paper(b: Builder, t_ext: pd.DataFrame, t_paper: pd.DataFrame) -> None:
    """Record the paper's frontier models through the same report, beside the external ones (part ``paper``).

    Definition: over the report's per-model rows of the paper's frontier tier ``t_paper``: the number of models,
    the ranges of self-AUROC, accuracy and CITL, the pooled high-confidence error; where the best external
    self-AUROC falls among them (:func:`best_vs_paper_phrase`) and how many external models are overconfident
    (CITL > 0), in words.

    References: Chernets (2026), Table 1.

    >>> (_, t), b = _toy_report(), Builder()
    >>> glue_paper(b, t, t)
    >>> b.build()["ext_sqa_n_models"], b.build()["ext_best_vs_paper_phrase"]
    (2, "above 1 of the paper's 2 frontier models")
    """
    paper_hc_wrong = (t_paper["high_conf_error_rate"] * t_paper["high_conf_n"]).round()
    b.table("t_paper", t_paper)
    b.add("paper", "ext_sqa_n_models", len(t_paper), EXT)
    b.add("paper", "ext_sqa_auroc_min", t_paper["auroc"].min(), EXT)
    b.add("paper", "ext_sqa_auroc_max", t_paper["auroc"].max(), EXT)
    for key, col in (("acc", "accuracy"), ("citl", "citl")):
        b.add("paper", f"ext_sqa_{key}_min", 100 * t_paper[col].min(), EXT)
        b.add("paper", f"ext_sqa_{key}_max", 100 * t_paper[col].max(), EXT)
    b.add("paper", "ext_sqa_hc_err_pooled", 100 * paper_hc_wrong.sum() / t_paper["high_conf_n"].sum(), EXT)
    b.add("paper", "ext_best_vs_paper_phrase", best_vs_paper_phrase(t_ext["auroc"].max(), t_paper["auroc"]), EXT)
    n_over = int((t_ext["citl"] > 0).sum())
    b.add(
        "paper",
        "ext_overconfident_phrase",
        "every one of them still states more than it earns"
        if n_over == len(t_ext)
        else f"{n_over} of the {len(t_ext)} still state more than they earn",
        EXT,
    )


def compute(
    ext: pd.DataFrame,
    paper_frontier: pd.DataFrame,
    *,
    seed: int,
    n_boot: int,
    ext_source: str = "external",
    paper_source: str = "collection",
) -> Computed:
    """Every value page 22 glues, from the external rows and the paper's frontier rows.

    Parameters
    ----------
    ext : DataFrame
        The external rows (:func:`selfconf.data.fetch.read_mmlu_pro_calibration`: ``model``, ``item_id``,
        ``category``, ``confidence`` on the 0–1 scale or NaN, ``correct``, ``gold``).
    paper_frontier : DataFrame
        The paper's frontier-tier rows (``model``, ``item_id``, ``confidence`` in percent, ``correct``).
    seed, n_boot : int
        Bootstrap seed and draws of the report (:func:`report_table`; each table seeded alike).
    ext_source, paper_source : str
        Labels of the two row sources (used in validation messages).

    Returns
    -------
    Computed
        Parts ``data``, ``table1``, ``paper``; tables ``t_ext`` and ``t_paper`` (the report's per-model rows,
        :func:`report_table`, sorted by model name; nothing depends on the order of the input rows),
        ``acc_all`` (accuracy over all external rows, per model) and ``missing`` (rows without a confidence,
        per model).

    References: Tao et al., *LLM-Calibration-Study* (MMLU-Pro verbalised confidence); Spearman (1904) for
    the rank correlations.

    Examples
    --------
    On the 26 models of the MMLU-Pro study the page reports 26 models (``ext_n_models``); on two made-up models:

    >>> import numpy as np
    >>> from selfconf import data
    >>> rng = np.random.default_rng(0)
    >>> ext = pd.DataFrame({"model": np.repeat(["a", "b"], 60), "item_id": np.tile(np.arange(60), 2),
    ...                     "category": np.tile(["law", "math"], 60), "confidence": rng.uniform(0, 1, 120).round(2),
    ...                     "correct": rng.integers(0, 2, 120).astype(bool), "gold": "A"})
    >>> rows, _ = data.load_collection("data/reconstructed")
    >>> res = compute(ext, rows[rows["tier"] == "frontier"], seed=1, n_boot=20)
    >>> res["ext_n_models"]
    2
    """
    b = Builder()
    t_ext = report_table(ext, scale="unit", seed=seed, n_boot=n_boot, source=ext_source)
    glue_data(b, ext, t_ext)
    glue_table1(b, ext, t_ext)
    t_paper = report_table(paper_frontier, scale="percent", seed=seed, n_boot=n_boot, source=paper_source)
    glue_paper(b, t_ext, t_paper)
    return b.build()
