# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Beyond the paper: many more models on a different benchmark
#
# :::{admonition} Beyond the paper
# :class: note
# This chapter is **not** part of the paper. It runs the paper's Table 1 analysis, through exactly the code
# path of `selfconf report`, on third-party data: the MMLU-Pro answers of a few dozen models with a verbalised
# 0–100 confidence, published by the [*LLM-Calibration-Study*](https://github.com/Linwei94/LLM-Calibration-Study) repository (Linwei Tao et al., MIT licence, pinned commit
# in `selfconf.data.fetch`). The data are downloaded by `make external` (`selfconf fetch mmlu-pro-calibration`) into
# `data/external/`, never committed. Read it as a replication on *different* ground, not as a check of the
# paper's numbers.
# :::
#
# The question this page asks is narrow: does the paper's pattern — confidence stated high and in a narrow
# band, clearly above accuracy, and only moderately informative about which answers are right — also appear
# when other models answer a different kind of question?

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"
external_dir = "data/external/mmlu-pro-calibration"

# %% tags=["remove-input", "needs-external:mmlu-pro-calibration"]
import altair as alt
import pandas as pd

from selfconf import data
from selfconf.book import glue, page_banner, table, vega
from selfconf.data.fetch import MMLU_PRO_COMMIT, MMLU_PRO_REPO, read_mmlu_pro_calibration
from selfconf.data.paths import resolve
from selfconf.data.sources import resolve_families
from selfconf.report import coverage_key
from selfconf.sections import external

vega.enable()
ext_path = resolve(external_dir)
if not ext_path.is_dir():
    raise FileNotFoundError(
        f"{ext_path} does not exist: this chapter needs the third-party MMLU-Pro calibration data. "
        "Run `make external` (or `selfconf fetch mmlu-pro-calibration`) from the project root, then execute again."
    )
sources = resolve_families(data_dir, ["collection"])  # from data_dir if there, else the reconstruction
page_banner(
    "external",
    note=(
        "One section, *Side by side with the paper's frontier models*, also shows the paper's frontier rows; in "
        "this build they are the book's reconstruction (see {ref}`what a reconstruction cannot tell you "
        "<recon-limits>`)."
        if sources["collection"].source == "reconstruction"
        else "One section also shows the paper's frontier rows, read from the original package."
    ),
    provenance_line=f'external data: {external_dir} · <a href="https://github.com/{MMLU_PRO_REPO}/tree/{MMLU_PRO_COMMIT}">'
    f"github.com/{MMLU_PRO_REPO}</a> @ {MMLU_PRO_COMMIT[:10]} · "
    f"seed: {seed} · bootstrap draws: {n_boot:,} · {sources.text()}",
)

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# ## The data
#
# Each file holds one model's answers, one row per MMLU-Pro test question, in the same order for every model. A row gives
# the subject, the gold option letter (A–J), the letter extracted from the model's reply, and the model's
# verbalised confidence: the prompt asked for "Confidence (0-100)" after step-by-step reasoning, and the
# repository stored it divided by 100. An answer is correct when the extracted letter equals the gold letter;
# no extracted letter counts as wrong (the repository's own rule). Rows whose confidence could not be parsed
# have no confidence: `selfconf report` leaves them out and counts them, here as everywhere.

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
ext = read_mmlu_pro_calibration(ext_path)
paper_rows_all, _ = data.load_collection(sources.path("collection"))
fr = paper_rows_all[paper_rows_all["tier"] == "frontier"]
# the report's computation on both row sets (one call; each table is seeded with this page's seed)
res = external.compute(ext, fr, seed=seed, n_boot=n_boot, ext_source=str(external_dir), paper_source=str(data_dir))


def glue_part(res, part):
    """Glue one part of a section's computed values, each with its origin."""
    for key, val, origin in res.items(part, rows_origin="external-data"):
        glue.value(key, val, origin=origin)


glue_part(res, "data")
n_models = res["ext_n_models"]
HC_POINTS = res["ext_hc_threshold"]  # the report's high-confidence cut, in points
LOW_COVERAGE = external.LOW_COVERAGE  # the smallest risk-coverage level of the report

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# The collection has {glue:text}`ext_n_models` models × {glue:text}`ext_n_items:,.0f` questions
# ({glue:text}`ext_n_rows:,.0f` rows) over {glue:text}`ext_n_categories` subjects. {glue:text}`ext_missing_total:,.0f`
# rows carry no parsed confidence and are excluded (and counted, per model, in the last column of the table below);
# the most affected model is {glue:text}`ext_missing_max_model` with {glue:text}`ext_missing_max` rows, and
# {glue:text}`ext_missing_n_models_over_100` models lose more than {glue:text}`ext_missing_note_min`. {glue:text}`ext_n_used:,.0f` rows remain.
#
# ## Table 1 for every model
#
# The same function, called the same way, as `selfconf report` and the chapter
# [The paper's claims on real answers](26_real_answers.ipynb) (`selfconf.report.from_frame`: every statistic from
# the counts of right and wrong answers at each confidence level, so the order of the rows cannot matter):
# accuracy, mean and median stated confidence, CITL, Brier, 10-bin ECE, self-AUROC with a percentile row-bootstrap
# interval, the error rate among answers stated with confidence ≥ {glue:text}`ext_hc_threshold:.0f`, and the error
# rate when only the {glue:text}`ext_low_coverage_pct:.0f`% most confident answers are kept (where that cut falls
# inside a group of equal confidences, the mean over the orders of that group).
# Accuracy here is over the rows that have a confidence; the column "acc. all rows" counts every row, with
# unparsed answers as they were graded in the source, so that the two can be compared. Sorted by self-AUROC.

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
t_ext = res.tables["t_ext"]
acc_all = res.tables["acc_all"]


def _fmt(values, spec):
    """Format numbers as display text (the Styler would print six decimals)."""
    return [format(v, spec) for v in values]


order = t_ext["auroc"].sort_values(ascending=False, kind="stable").index
t_sorted = t_ext.loc[order]
show = pd.DataFrame(
    {
        "model": t_sorted["model"],
        "n": _fmt(t_sorted["n"], ","),
        "acc. (%)": _fmt(100 * t_sorted["accuracy"], ".1f"),
        "acc. all rows (%)": _fmt(100 * t_sorted["model"].map(acc_all), ".1f"),
        "mean conf.": _fmt(100 * t_sorted["mean_confidence"], ".1f"),
        "median conf.": _fmt(100 * t_sorted["median_confidence"], ".1f"),
        "CITL (pp)": _fmt(100 * t_sorted["citl"], "+.1f"),
        "Brier": _fmt(t_sorted["brier"], ".3f"),
        "ECE": _fmt(t_sorted["ece"], ".3f"),
        "self-AUROC": _fmt(t_sorted["auroc"], ".3f"),
        "95% CI": [
            f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(t_sorted["auroc_ci_low"], t_sorted["auroc_ci_high"], strict=True)
        ],
        f"err. at conf. ≥ {HC_POINTS:.0f} (%)": _fmt(100 * t_sorted["high_conf_error_rate"], ".1f"),
        f"err. at {100 * LOW_COVERAGE:.0f}% coverage (%)": [
            f"{100 * rc[coverage_key(LOW_COVERAGE)]:.1f}" for rc in t_sorted["risk_coverage"]
        ],
        "excluded (no conf.)": _fmt([e["missing_confidence"] for e in t_sorted["excluded"]], ","),
    }
)
_ = table(show, "external_mmlu_pro_table1", caption=f"MMLU-Pro, {n_models} models: the paper's Table 1 columns")

# %% tags=["remove-input", "needs-external:mmlu-pro-calibration"]
glue_part(res, "table1")

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# **Calibration in the large.** Accuracy spans {glue:text}`ext_acc_min:.1f`–{glue:text}`ext_acc_max:.1f`%, while
# the median stated confidence stays between {glue:text}`ext_median_conf_min:.0f` and
# {glue:text}`ext_median_conf_max:.0f` ({glue:text}`ext_n_median_conf_band` of {glue:text}`ext_n_models` models
# have a median of {glue:text}`ext_median_band_low` or more). {glue:text}`ext_n_overconfident` of {glue:text}`ext_n_models` models are
# overconfident in the large: CITL runs from {glue:text}`ext_citl_min:+.1f` pp ({glue:text}`ext_citl_min_model`)
# to {glue:text}`ext_citl_max:+.1f` pp ({glue:text}`ext_citl_max_model`). The less accurate a model, the larger
# its gap (Spearman ρ between accuracy and CITL across models {glue:text}`ext_spearman_acc_citl:+.2f`): the stated
# level barely moves while accuracy does. Pooled over all models, {glue:text}`ext_hc_share_pooled:.1f`% of answers
# are stated at confidence ≥ {glue:text}`ext_hc_threshold:.0f` and {glue:text}`ext_hc_err_pooled:.1f`% of those are wrong (per model
# {glue:text}`ext_hc_err_min:.1f`–{glue:text}`ext_hc_err_max:.1f`%).
#
# **Discrimination.** Self-AUROC ranges from {glue:text}`ext_auroc_min:.3f` ({glue:text}`ext_auroc_min_model`) to
# {glue:text}`ext_auroc_max:.3f` ({glue:text}`ext_auroc_max_model`), median {glue:text}`ext_auroc_median:.3f`.
# With up to {glue:text}`ext_n_items:,.0f` rows per model the intervals are narrow (at most {glue:text}`ext_ci_width_max:.3f`
# wide) and {glue:text}`ext_n_ci_above_chance` of {glue:text}`ext_n_models` exclude chance. More accurate models
# tend to discriminate better (Spearman ρ {glue:text}`ext_spearman_acc_auroc:+.2f` between accuracy and AUROC).
# Answering only the most confident {glue:text}`ext_low_coverage_pct:.0f`% still leaves an error rate of {glue:text}`ext_risk20_min:.1f`–{glue:text}`ext_risk20_max:.1f`%, depending on the model.

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# ## Side by side with the paper's frontier models
#
# The paper's frontier rows go through the same function (here from the rows in `data_dir`, which the banner
# above labels). Each point is a model; the diagonal is perfect calibration in the large, and a point above
# it states more confidence than its accuracy earns.

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
t_paper = res.tables["t_paper"]
glue_part(res, "paper")  # the wording compares the best external self-AUROC with the paper's models

both = pd.concat(
    [
        t_ext.assign(study=f"MMLU-Pro, {n_models} models (external)"),
        t_paper.assign(study=f"SimpleQA, the paper's {len(t_paper)} frontier models"),
    ],
    ignore_index=True,
)
both = both[
    [
        "study",
        "model",
        "n",
        "accuracy",
        "mean_confidence",
        "median_confidence",
        "citl",
        "auroc",
        "auroc_ci_low",
        "auroc_ci_high",
    ]
].copy()
for c in ("accuracy", "mean_confidence", "median_confidence", "citl"):
    both[c] = 100 * both[c]

diag = (
    alt.Chart(pd.DataFrame({"x": [0, 100], "y": [0, 100]}))
    .mark_line(strokeDash=[4, 4], color="gray")
    .encode(x="x:Q", y="y:Q")
)
scatter = (
    alt.Chart(both)
    .mark_point(filled=True, size=70, opacity=0.85)
    .encode(
        x=alt.X("accuracy:Q", title="accuracy (%)", scale=alt.Scale(domain=[0, 100])),
        y=alt.Y("mean_confidence:Q", title="mean stated confidence (0–100)", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("study:N", title=None, legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=0)),
        shape=alt.Shape("study:N", title=None, legend=None),
        tooltip=[
            "study:N",
            "model:N",
            "n:Q",
            alt.Tooltip("accuracy:Q", format=".1f"),
            alt.Tooltip("mean_confidence:Q", format=".1f"),
            alt.Tooltip("median_confidence:Q", format=".1f"),
            alt.Tooltip("citl:Q", format="+.1f", title="CITL (pp)"),
            alt.Tooltip("auroc:Q", format=".3f"),
        ],
    )
    .properties(width=330, height=330, title="Stated confidence against accuracy")
)

order = list(both.sort_values("auroc", ascending=False)["model"])
forest_base = alt.Chart(both).encode(
    y=alt.Y("model:N", sort=order, title=None, axis=alt.Axis(labelFontSize=9)),
    color=alt.Color("study:N", title=None, legend=None),
)
forest = (
    forest_base.mark_rule().encode(
        x=alt.X("auroc_ci_low:Q", title="self-AUROC (95% bootstrap CI)", scale=alt.Scale(domain=[0.4, 0.85])),
        x2="auroc_ci_high:Q",
    )
    + forest_base.mark_point(filled=True).encode(
        x="auroc:Q", tooltip=["study:N", "model:N", alt.Tooltip("auroc:Q", format=".3f")]
    )
    + alt.Chart(pd.DataFrame({"x": [0.5]})).mark_rule(strokeDash=[2, 2], color="gray").encode(x="x:Q")
).properties(width=300, height=560, title="Discrimination per model")
alt.hconcat(scatter, forest).resolve_scale(color="shared")

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# On the paper's SimpleQA rows (the rows in `data_dir`) the {glue:text}`ext_sqa_n_models` frontier models reach {glue:text}`ext_sqa_acc_min:.1f`–{glue:text}`ext_sqa_acc_max:.1f`% accuracy, with CITL {glue:text}`ext_sqa_citl_min:+.1f` to
# {glue:text}`ext_sqa_citl_max:+.1f` pp and self-AUROC {glue:text}`ext_sqa_auroc_min:.3f`–{glue:text}`ext_sqa_auroc_max:.3f`; pooled, {glue:text}`ext_sqa_hc_err_pooled:.1f`% of their answers stated at
# ≥ {glue:text}`ext_hc_threshold:.0f` are wrong. On MMLU-Pro the same analysis finds models that are far more
# often right, so the pooled confident-error rate is much lower ({glue:text}`ext_hc_err_pooled:.1f`%) — yet
# {glue:text}`ext_overconfident_phrase`, and the best self-AUROC, {glue:text}`ext_auroc_max:.3f`, is
# {glue:text}`ext_best_vs_paper_phrase`: still a ranking that mixes many wrong answers in with the right ones.
#
# ## What differs, and why the two are not directly comparable
#
# - **Task.** MMLU-Pro is multiple choice with up to {glue:text}`ext_n_options` options, answered after
#   step-by-step reasoning; the paper asks short open-form factual questions (post-2023 SimpleQA items) with no
#   reasoning. A guessed letter is sometimes right by chance, and reasoning may let a model check itself before it states a number; recall
#   of an obscure fact gives neither help.
# - **Difficulty.** The accuracies here are much higher, and CITL, Brier and the confident-error rate all
#   depend on accuracy. The paper's models are weaker on its questions, which makes the same saturated
#   confidence band look worse.
# - **Elicitation.** Here the confidence comes after a reasoning chain in a free-text "Confidence (0-100)"
#   line, parsed by the source repository's code; the paper asks for a JSON object with an integer confidence
#   and no other text, at temperature 0. Decoding settings of the source are not documented per file.
# - **Refusals.** A multiple-choice prompt leaves little room for refusing; in the paper, refusals are a
#   real answer class that changes both accuracy and AUROC (see Result 1).
# - **Models and time.** Different, mostly older model versions, collected earlier by another team. One API
#   alias, `deepseek-chat`, occurs in both sets, but an alias can point to different weights at different times,
#   so even that pair is not the same model for certain.
# - **Rows without a confidence** are excluded here ({glue:text}`ext_missing_total:,.0f` in all). They are
#   more often wrong ({glue:text}`ext_missing_err_pct:.1f`% wrong, against {glue:text}`ext_answered_err_pct:.1f`%
#   for rows with a confidence), so accuracy over answered rows is higher than over all rows for the models that
#   lose many (compare the two accuracy columns of the table).
# - **Items** have no text or id in the files; row order is the only identity, which is enough here because
#   no analysis on this page pairs items across models.
#
# What carries over is the shape: a confidence channel that sits high and moves little while accuracy moves a
# lot, and that ranks a model's own answers better than chance but far from reliably.
#
# The chapter [The paper's claims on real answers](26_real_answers.ipynb) goes further on the same files: the
# panels, risk–coverage and a scorecard of Result 1's claims with verdict rules declared before computing.
