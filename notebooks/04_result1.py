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
# # Result 1: stated confidence is miscalibrated and weakly discriminative
#
# The word *calibration* is often used for two different properties, and this section keeps them apart:
#
# - **calibration in the large** — does the *level* of stated confidence match the level of accuracy?
# - **discrimination** — does a model give its correct answers higher confidence than its wrong ones?
#
# Everything below is computed from the graded rows of the collection described in
# [Experiment design and data](03_design.ipynb).

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"

# %% tags=["remove-input"]
import altair as alt
import numpy as np
import pandas as pd

from selfconf import data, panels
from selfconf.book import as_text, banner, charts, glue, show_markdown, table, vega
from selfconf.data.sources import resolve_families
from selfconf.report.plots import scatter_chart
from selfconf.sections import result1

vega.enable()
sources = resolve_families(data_dir, ["collection"])  # from data_dir if there, else the reconstruction
banner(data_dir, seed=seed, n_boot=n_boot, families=sources)
ROWS = glue.rows_origin(sources)  # origin of numbers from these rows that the paper does not print
rows, exclusions = data.load_collection(sources.path("collection"))


def glue_part(part):
    """Glue one part of the page's computed values: claim ids as claims, the others with this page's origin."""
    for key, v in res.part(part).items():
        if res.origins[key] == "claim":
            glue.claim(key, v)
        else:
            glue.value(key, v, origin=ROWS)


# %% [markdown]
# ## Analysis parameters
#
# The thresholds and settings below are the paper's own choices. They are quoted (not computed) and this page
# uses them only as parameters: the high-confidence cut-off, the chance level and the descriptive AUROC
# cut-off, the number of ECE bins, the interval level, and the Table 2 coverages.

# %% tags=["hide-input"]
HIGH_CONF = glue.quoted("r1_highconf_threshold")  # confidence points; "high confidence" means >= this
CHANCE = glue.quoted("r1_chance_auroc")  # AUROC of a score unrelated to correctness
AUROC_CUT = glue.quoted("r1_auroc_threshold")  # descriptive cut-off for "weak" discrimination
N_BINS = glue.quoted("t1_ece_n_bins")  # equal-width ECE / reliability bins
CI_LEVEL = glue.quoted("ci_level_pct") / 100
LVL = f"{CI_LEVEL:.0%}"  # label, e.g. "95%"
PAPER_DRAWS = glue.quoted("bootstrap_n_draws")
COVERAGES_PCT = [glue.quoted(f"t2_coverage_{c}") for c in (100, 80, 60, 40, 20)]
N_PANELS = glue.quoted("n_panels")
glue.quoted("r1_chance_auroc", as_id="t1_caption_chance_auroc")
glue.quoted("t2_coverage_20", as_id="r1_riskcov_coverage_20")
glue.value("r1_n_boot", n_boot, origin="parameter")
_ = table(
    pd.DataFrame(
        {
            "parameter": [
                "high-confidence threshold (points)",
                "chance AUROC",
                "descriptive AUROC cut-off",
                "ECE bins",
                "interval level",
                "bootstrap draws (paper)",
                "bootstrap draws (this build)",
                "coverages (%)",
            ],
            "value": [
                f"{HIGH_CONF:g}",
                f"{CHANCE:g}",
                f"{AUROC_CUT:g}",
                f"{N_BINS:g}",
                f"{CI_LEVEL:.0%}",
                f"{PAPER_DRAWS:,.0f}",
                f"{n_boot:,}",
                ", ".join(f"{c:g}" for c in COVERAGES_PCT),
            ],
        }
    ),
    "result1_parameters",
    caption="Analysis parameters (quoted from the paper, except this build's draws)",
)

# %% [markdown]
# The paper's intervals use [{glue:text}`bootstrap_n_draws:,.0f`]{.quoted} bootstrap draws (this build:
# {glue:text}`r1_n_boot:,.0f`), and its Table 2 reports coverages of [{glue:text}`t2_coverage_100:.0f`]{.quoted},
# [{glue:text}`t2_coverage_80:.0f`]{.quoted}, [{glue:text}`t2_coverage_60:.0f`]{.quoted},
# [{glue:text}`t2_coverage_40:.0f`]{.quoted} and [{glue:text}`t2_coverage_20:.0f`]{.quoted}%.

# %% [markdown]
# ## Table 1: calibration and discrimination per frontier model
#
# One row per API model, on its full graded set. Accuracy, mean confidence and CITL (mean confidence minus
# accuracy) are in percent / percentage points; Brier, ECE ({glue:text}`t1_ece_n_bins`-bin, proportion scale)
# and self-AUROC (stated confidence as a predictor of the model's own correctness, Mann–Whitney with ties
# counted half) on the 0–1 scale. The interval is a row-level percentile bootstrap within each model
# ({glue:text}`r1_n_boot:,.0f` draws; each model has its own random stream derived from the page seed and its
# name, see `selfconf.stats.summary`). Every value comes from the counts of right and wrong answers at each
# confidence level, by the functions behind `selfconf report` (which prints the same numbers for these rows and
# seed), so none depends on the order of the rows. Rows are ordered by accuracy, as in the paper.

# %% tags=["hide-input"]
# every number of this page, computed from the rows (selfconf.sections.result1); the cells below glue and show them
res = result1.compute(
    rows,
    exclusions,
    seed=seed,
    n_boot=n_boot,
    threshold_points=HIGH_CONF,
    chance=CHANCE,
    auroc_cut=AUROC_CUT,
    n_bins=N_BINS,
    level=CI_LEVEL,
    coverages_pct=COVERAGES_PCT,
)
t1 = res.tables["table1"]
MODELS = res.facts["models"]
by_model = t1.set_index("model")
glue_part("table1")  # Table 1's claims, and how many ECEs print differently under the other bin-edge rule

t1_show = as_text(
    pd.DataFrame(
        {
            "model": t1["model"],
            "n": t1["n"],
            "Acc. (%)": 100 * t1["accuracy"],
            "Mean conf.": 100 * t1["mean_confidence"],
            "Median conf.": t1["median_points"],
            "CITL (pp)": 100 * t1["citl"],
            "Brier": t1["brier"],
            "ECE": t1["ece"],
            "Self-AUROC": t1["auroc"],
            f"{LVL} CI low": t1["auroc_ci_low"],
            f"{LVL} CI high": t1["auroc_ci_high"],
        }
    ),
    {
        "Acc. (%)": "{:.1f}",
        "Mean conf.": "{:.1f}",
        "Median conf.": "{:.0f}",
        "CITL (pp)": "{:+.1f}",
        "Brier": "{:.3f}",
        "ECE": "{:.3f}",
        "Self-AUROC": "{:.3f}",
        f"{LVL} CI low": "{:.3f}",
        f"{LVL} CI high": "{:.3f}",
    },
)
T1_CLAIMS = {
    "n": "n",
    "Acc. (%)": "acc",
    "Mean conf.": "mean_conf",
    "CITL (pp)": "citl",
    "Brier": "brier",
    "ECE": "ece",
    "Self-AUROC": "self_auroc",
    f"{LVL} CI low": "self_auroc_ci_lo",
    f"{LVL} CI high": "self_auroc_ci_hi",
}
t1_ids = {(i, col): f"t1_{m}_{suffix}" for i, m in enumerate(t1["model"]) for col, suffix in T1_CLAIMS.items()}
t1_ids.update({(i, "Median conf."): f"fig1_{m}_median_conf" for i, m in enumerate(t1["model"])})
_ = table(
    t1_show, "table1", caption="Per-model calibration and self-AUROC (frontier tier, full graded set)", claims=t1_ids
)
# the ECE under the other edge rule (a confidence on an interior edge goes to the lower bin, as in scikit-learn
# and Guo et al. 2017): a sensitivity of this build, not a claim of the paper, shown right below Table 1
edge = pd.DataFrame(
    {
        "model": t1["model"],
        "ECE (upper-edge rule, Table 1)": t1_show["ECE"],
        "ECE (lower-edge rule)": [f"{v:.3f}" for v in t1["ece_lower"]],
    }
)
_ = table(
    edge,
    "table1_ece_edge_rule",
    caption="Sensitivity of Table 1's ECE column to the bin-edge rule (this build's check, not in the paper)",
    claims={(i, "ECE (upper-edge rule, Table 1)"): f"t1_{m}_ece" for i, m in enumerate(t1["model"])},
)

# %% [markdown]
# **Which bin an edge value falls in.** The paper does not say where a confidence lying exactly on an interior
# bin edge (80, 90, ...) belongs. This book puts it in the bin that *starts* there (`metrics.ece(...,
# edge="upper")`: 80 counts in [80, 90)); scikit-learn's `calibration_curve` and {cite:t}`guo2017calibration` put it in the
# bin that *ends* there (`edge="lower"`). Stated confidences pile up on exactly these values, so the rule can
# move an ECE: the table right below Table 1 lists each model's ECE under the other rule, and it prints differently
# for {glue:text}`r1_n_ece_edge_differs` of the {glue:text}`r1_n_frontier_models` models. The paper's ECE column
# is recomputed with the upper-edge rule.

# %% [markdown]
# ## Calibration: confidence is saturated and uncoupled from competence
#
# Call a model's stated confidence *saturated* when its median sits at or above the high-confidence
# threshold of [{glue:text}`r1_highconf_threshold`]{.quoted} points. Across the
# {glue:text}`r1_n_frontier_models` API models, {glue:text}`r1_n_models_median_in_band` of
# {glue:text}`r1_n_models_median_in_band_of` are saturated, with medians of
# {glue:text}`r1_median_band_min:.0f`–{glue:text}`r1_median_band_max:.0f`, while their accuracy runs from
# {glue:text}`r1_acc_span_min:.1f`% to {glue:text}`r1_acc_span_max:.1f`%. The other
# {glue:text}`r1_n_models_depart` fall below it: the refusal-heavy model, {glue:text}`r1_refusal_model` (median
# {glue:text}`r1_refusal_model_median_conf:.0f` at {glue:text}`r1_refusal_model_acc:.1f`% accuracy), and a model whose
# confidence is spread out, {glue:text}`r1_dispersed_model` (median {glue:text}`r1_dispersed_model_median_conf:.0f`;
# apart from the refusal-heavy model it has the widest interquartile range of stated confidence,
# {glue:text}`r1_dispersed_model_iqr:.0f` points). The table below lists the medians, spreads and refusal counts.
#
# Every model is overconfident in the large: CITL runs from {glue:text}`r1_citl_range_min:+.1f` to
# {glue:text}`r1_citl_range_max:+.1f` percentage points. The ECE column is almost exactly |CITL|, as it must be when the
# confidence-minus-accuracy gap is positive in every occupied bin for {glue:text}`r1_n_models_all_bins_positive`
# of {glue:text}`r1_n_models_all_bins_positive_of` models, and for the other {glue:text}`r1_n_other_models_bins`
# at most {glue:text}`r1_n_nonpositive_bins_other_models` bin is not positive (table below): binned and global
# miscalibration coincide. Even {glue:text}`r1_refusal_model` keeps {glue:text}`r1_refusal_model_citl:+.1f` pp
# (ECE {glue:text}`r1_refusal_model_ece:.3f`). The paper reads its lower band as refusal behaviour, not
# calibrated self-knowledge; the reconstruction placed that model's refusals at low stated confidence to
# reproduce the reading, so the rows restate it rather than test it.

# %% tags=["hide-input"]
# saturated medians, the refusal-heavy and the dispersed model (widest spread of stated confidence, refusal model
# aside), and the sign of the gap in every occupied reliability bin
glue_part("calibration")
refusal_model, dispersed_model = res.facts["refusal_model"], res.facts["dispersed_model"]
occupied = res.tables["occupied_bins"]  # reliability bins of every frontier model that hold answers
sat = res.tables["saturation"]
_ = table(
    pd.DataFrame(
        {
            "model": sat["model"],
            "median conf.": [f"{v:.0f}" for v in sat["median_points"]],
            "IQR (points)": [f"{v:.0f}" for v in sat["iqr"]],
            f"saturated (median ≥ {HIGH_CONF:g})": ["yes" if v else "no" for v in sat["saturated"]],
            "refusals": sat["refusals"],
            "occupied bins": sat["occupied_bins"],
            "bins with gap ≤ 0": sat["nonpositive_bins"],
            "|CITL| (pp)": [f"{v:.2f}" for v in sat["abs_citl_pp"]],
            "ECE × 100": [f"{v:.2f}" for v in sat["ece_x100"]],
        }
    ),
    "result1_saturation_bins",
    caption="Median and spread of stated confidence, refusals, and the sign of the gap in each occupied "
    f"reliability bin ({N_BINS:g} equal-width bins)",
)

# %% [markdown]
# ### Reliability diagrams
#
# Each panel is one frontier model. A point is an occupied confidence bin: its position is the mean stated
# confidence and the accuracy inside the bin, its size the number of answers in it (hover or tap a point for the
# count). Red points are overconfident bins (below the diagonal), blue points the others.

# %% tags=["remove-input"]
charts.reliability_diagrams(occupied, order=MODELS, title="Reliability diagrams, frontier tier")

# %% [markdown]
# ### The refusal-heavy model, and confident errors
#
# Part of {glue:text}`r1_refusal_model`'s discrimination advantage may also be mechanical: its
# {glue:text}`r1_refusal_model_refusals:,.0f` refusals are graded incorrect and come with low stated
# confidence, which raises the AUROC. Without the refusal rows its self-AUROC is
# {glue:text}`r1_anthropic_self_auroc_excl_refusals:.3f` ($n = ${glue:text}`r1_anthropic_n_excl_refusals:,.0f`),
# so its {glue:text}`r1_anthropic_self_auroc_upper_bound:.3f` is best read as an upper bound on elicited
# self-knowledge, not as a calibration ranking.
#
# Pooled over the {glue:text}`r1_highconf_pooled_n_models` API models, {glue:text}`r1_highconf_wrong_pooled_pct:.1f`%
# of the answers stated with confidence at or above [{glue:text}`r1_highconf_threshold`]{.quoted} are wrong
# ({glue:text}`r1_highconf_wrong_n:,.0f` of {glue:text}`r1_highconf_total_n:,.0f`). Per model the rate runs
# from {glue:text}`r1_highconf_wrong_permodel_min:.1f`% to {glue:text}`r1_highconf_wrong_permodel_max:.1f`%
# (macro average {glue:text}`r1_highconf_wrong_macro_pct:.1f`%). A consumer who trusts high stated
# confidence accepts most of the errors.

# %% tags=["hide-input"]
# the refusal-heavy model's self-AUROC without its refusal rows; wrong answers among the high-confidence ones
glue_part("refusals_high_confidence")
hc = res.tables["high_confidence"]
_ = table(
    pd.DataFrame(
        {
            "model": hc["model"],
            f"answers at confidence ≥ {HIGH_CONF:g}": hc["high_conf_n"].astype(int),
            "of which wrong": hc["high_conf_wrong"].astype(int),
            "error rate (%)": [f"{100 * v:.1f}" for v in hc["high_conf_error_rate"]],
        }
    ),
    "result1_high_confidence_errors",
    caption=f"Wrong answers among those stated with confidence ≥ {HIGH_CONF:g}, per frontier model",
)

# %% [markdown]
# ## Discrimination: better than chance, but weak
#
# As a predictor of the model's own correctness, stated confidence reaches a self-AUROC between
# {glue:text}`r1_self_auroc_span_min:.3f` and {glue:text}`r1_self_auroc_span_max:.3f`, depending on the model.
# The bootstrap intervals of Table 1 exclude the chance level of [{glue:text}`r1_chance_auroc`]{.quoted} for
# {glue:text}`r1_n_ci_exclude_chance` of the {glue:text}`r1_n_frontier_models` models (the paper's caption says
# every interval excludes [{glue:text}`t1_caption_chance_auroc`]{.quoted}), so the signal is not pure noise; but
# for {glue:text}`r1_n_models_below_threshold` of {glue:text}`r1_n_models_below_threshold_of` models it stays
# below [{glue:text}`r1_auroc_threshold`]{.quoted}.

# %% tags=["hide-input"]
# the span of the self-AUROCs, how many stay below the cut-off, how many intervals exclude chance
glue_part("discrimination")
roc = res.tables["roc"]  # ROC points per model (selfconf.sections.result1.roc_points)
chance_line = (
    alt.Chart(pd.DataFrame({"x": [0, 1], "y": [0, 1]}))
    .mark_line(strokeDash=[4, 4], color="gray")
    .encode(x="x:Q", y="y:Q")
)
sel = alt.selection_point(fields=["model"], bind="legend")
curves = (
    alt.Chart(roc)
    .mark_line(point=alt.OverlayMarkDef(size=12))
    .encode(
        x=alt.X("fpr:Q", title="false-positive rate (wrong answers at or above the cut-off)"),
        y=alt.Y("tpr:Q", title="true-positive rate (correct answers at or above the cut-off)"),
        color=alt.Color("model:N", sort=MODELS, title="model (click to highlight)"),
        order="fpr:Q",
        opacity=alt.condition(sel, alt.value(1.0), alt.value(0.12)),
        tooltip=[
            "model:N",
            alt.Tooltip("auroc:Q", format=".3f", title="self-AUROC"),
            alt.Tooltip("cutoff_points:Q", title="confidence cut-off"),
            alt.Tooltip("tpr:Q", format=".3f"),
            alt.Tooltip("fpr:Q", format=".3f"),
        ],
    )
    .add_params(sel)
)
(chance_line + curves).properties(width=420, height=380, title="ROC curves of stated confidence, frontier tier")

# %% [markdown]
# ### Table 2: what a confidence gate buys
#
# The operational consequence: answer only the most confident share of the items and look at the error rate
# among those answered. For the {glue:text}`r1_riskcov_n_models` models with the strongest self-AUROC
# (chosen by ranking Table 1), the error rate at {glue:text}`r1_riskcov_coverage_20`% coverage is still
# {glue:text}`r1_riskcov_anthropic_err20:.1f`%, {glue:text}`r1_riskcov_xai_err20:.1f`% and
# {glue:text}`r1_riskcov_google_err20:.1f`%, against {glue:text}`t2_anthropic_err_cov100:.1f`%,
# {glue:text}`t2_xai_err_cov100:.1f`% and {glue:text}`t2_google_err_cov100:.1f`% when every item is answered:
# in the paper's reading, gating on stated confidence gives a meaningful reduction only for the third of these
# models and is far from a confidence gate for the other two. At coverage $c$ the $\lfloor c\,n\rfloor$ most confident answers are kept
# (the paper does not state its rule; when $c\,n$ is not a whole number, some of its printed rates are only
# attainable with the floor, see `selfconf.stats.summary`; `covered="floor"` in the code). Where a cut falls inside a
# group of answers with equal confidence, the rate is the mean over the orders of that group, as in `selfconf report`,
# so no value depends on the order of the rows (a cut at the end of such a group gives a whole number of errors).
# The second table gives what the ceiling $\lceil c\,n\rceil$ would give, whether the cut falls inside a group of
# tied answers, and how far any order of them could move the {glue:text}`r1_riskcov_coverage_20`% figure.

# %% tags=["hide-input"]
TOP_K = result1.TOP_K  # Table 2 shows this many models (a layout choice)
top = res.tables["table2_top"]
glue_part("table2")  # error rates at each coverage for the top models (Table 1's risk-coverage column)
t2 = pd.DataFrame(
    [
        {
            "model": r.model,
            "self-AUROC": f"{r.auroc:.3f}",
            **{f"error at {c}% coverage": f"{res.values[f't2_{r.model}_err_cov{c}']:.1f}" for c in COVERAGES_PCT},
        }
        for r in top.itertuples()
    ]
)
t2_diag = [
    {
        "model": d.model,
        "n": d.n,
        "rows kept (floor)": d.k_floor,
        "rows kept (ceil)": d.k_ceil,
        "error (%), floor": f"{d.error_floor_pct:.1f}",
        "error (%), ceil(c n) rows": f"{d.error_ceil_pct:.1f}",
        "cut inside a tie": d.cut_in_tie,
        "range over tie orders (%)": f"{d.error_min_pct:.1f}–{d.error_max_pct:.1f}",
    }
    for d in res.tables["table2_diagnostics"].itertuples()
]
t2_ids = {}
for i, r in enumerate(top.itertuples()):
    t2_ids[(i, "self-AUROC")] = f"t2_{r.model}_label_self_auroc"
    t2_ids.update({(i, f"error at {c}% coverage"): f"t2_{r.model}_err_cov{c}" for c in COVERAGES_PCT})
_ = table(
    t2,
    "table2",
    caption="Error rate (%) among the floor(c·n) most confident answers (the rule the paper's print implies), by "
    "coverage c; ties at a cut: mean over their orders",
    claims=t2_ids,
)
_ = table(
    pd.DataFrame(t2_diag),
    "table2_cut_diagnostics",
    caption=f"How the {COVERAGES_PCT[-1]}% figure depends on the rounding of the covered rows and on the order of tied answers",
)

# %% [markdown]
# Table 2 lists the {glue:text}`t2_caption_n_models` models with the highest self-AUROC in Table 1. In the
# second table, the ceil column keeps $\lceil c\,n\rceil$ rows (`covered="ceil"`, ties again averaged over orders);
# where $c\,n$ is a whole number the two rules keep the same rows.

# %% tags=["remove-input"]
rc = res.tables["risk_coverage"]
alt.Chart(rc).mark_line(point=True).encode(
    x=alt.X("coverage:Q", title="coverage (% of items answered, most confident first)", scale=alt.Scale(reverse=True)),
    y=alt.Y("error_rate:Q", title="error rate among answered (%)"),
    color=alt.Color("model:N", sort=MODELS),
    strokeDash=alt.StrokeDash("top:N", title=f"top {TOP_K} self-AUROC", sort="descending"),
    tooltip=["model", "coverage", alt.Tooltip("error_rate:Q", format=".1f")],
).properties(width=420, height=300, title="Risk–coverage, all frontier models")

# %% [markdown]
# ## Panels: counting agreeing models instead of asking the model
#
# An architectural alternative to asking a model how sure it is: count how many *other*, independently
# queried models agree with its answer. The {glue:text}`r1_n_panels_used` pre-specified panels
# ([{glue:text}`n_panels`]{.quoted} in the pre-registration) are US ({glue:text}`r1_panel_members_US`), CN
# ({glue:text}`r1_panel_members_CN`) and cross-bloc ({glue:text}`r1_panel_members_cross_bloc`); CN is the
# headline comparison. Each panel is evaluated on its *population*, the items every member answered in a
# parseable way, and self-assessment is pooled over the members' rows there. Intervals are item-clustered
# percentile bootstraps ({glue:text}`r1_n_boot:,.0f` draws: items are resampled with all their rows), and the
# difference panel minus self is a paired contrast on the same item draws.
#
# On the CN panel the agreement count reaches AUROC {glue:text}`cn_panel_auroc:.3f` ({glue:text}`ci_level_pct`% CI
# [{glue:text}`cn_panel_auroc_ci_lo:.3f`, {glue:text}`cn_panel_auroc_ci_hi:.3f`]) where self-assessment
# manages {glue:text}`cn_self_auroc_pooled:.3f` ([{glue:text}`cn_self_auroc_pooled_ci_lo:.3f`,
# {glue:text}`cn_self_auroc_pooled_ci_hi:.3f`]); the item-clustered difference,
# $\Delta = ${glue:text}`cn_panel_vs_self_delta:+.3f` [{glue:text}`cn_panel_vs_self_delta_ci_lo:+.3f`,
# {glue:text}`cn_panel_vs_self_delta_ci_hi:+.3f`], is far from zero.
#
# On the US panel the pooled comparison seems to turn around: self-assessment pooled over the panel
# population gives {glue:text}`us_self_auroc_pooled:.3f` against {glue:text}`us_panel_auroc:.3f` for the panel,
# $\Delta = ${glue:text}`us_panel_vs_self_delta:+.3f` [{glue:text}`us_panel_vs_self_delta_ci_lo:+.3f`,
# {glue:text}`us_panel_vs_self_delta_ci_hi:+.3f`]. The paper decomposes this value and finds the apparent
# reversal to be mostly *which model answered*, not per-item self-knowledge. The reconstruction was built to
# reproduce that decomposition (its generator fits the pooled and rank-normalised self-AUROCs, see
# [How the data were reconstructed](12_reconstruction.ipynb)), so the numbers below restate the paper's finding
# on rows fitted to it; they check that the decomposition's pieces hold together, and do not demonstrate it.
# The pooled {glue:text}`us_self_auroc_pooled_decomp:.3f` mixes [{glue:text}`us_panel_n_models`]{.quoted} models
# whose own, within-model self-AUROCs on the population are only
# {glue:text}`us_within_model_self_auroc_min:.3f`–{glue:text}`us_within_model_self_auroc_max:.3f` (macro average
# {glue:text}`us_within_model_self_auroc_macro:.3f`; Table 1 uses each model's full graded set instead). Replacing
# every model's confidences by their rank within that model — which removes level differences between models and
# keeps each model's own ordering — gives a pooled value of {glue:text}`us_self_auroc_ranknorm:.3f`: a
# between-model identity contribution of {glue:text}`us_between_model_identity_contribution:+.3f`. For the CN
# panel the paper reports the same check passing ({glue:text}`cn_self_auroc_pooled_decomp2:.3f` pooled against
# {glue:text}`cn_self_auroc_ranknorm:.3f` rank-normalised here) and reads its weak self-assessment
# ({glue:text}`cn_self_auroc_pooled_decomp:.3f`) as a per-item failure; that reading is the paper's, which these
# fitted rows reproduce. What the paper keeps of the reversal is a narrower statement: the refusal-heavy model,
# whose self-confidence discriminates best ({glue:text}`r1_anthropic_self_auroc_full:.3f` on its full graded set),
# does beat this panel's agreement signal — and knowing *which* model that is takes exactly the independent
# measurement that self-reports were supposed to replace. Whether the decomposition holds on answers nobody
# fitted is tested on real third-party answers in [The paper's claims on real answers](26_real_answers.ipynb).
#
# The third panel (cross-bloc) sits in between: panel {glue:text}`xb_panel_auroc:.3f`
# [{glue:text}`xb_panel_auroc_ci_lo:.3f`, {glue:text}`xb_panel_auroc_ci_hi:.3f`] against own
# {glue:text}`xb_self_auroc_pooled:.3f` [{glue:text}`xb_self_auroc_pooled_ci_lo:.3f`,
# {glue:text}`xb_self_auroc_pooled_ci_hi:.3f`], $\Delta = ${glue:text}`xb_panel_vs_self_delta:+.3f`
# [{glue:text}`xb_panel_vs_self_delta_ci_lo:+.3f`, {glue:text}`xb_panel_vs_self_delta_ci_hi:+.3f`].

# %% tags=["hide-input"]
PANELS = panels.PANELS  # pre-registered membership (a design constant of selfconf.panels)
# each panel analysed on its population (selfconf.panels.panel_analysis; one generator per panel, derived like
# the per-model streams of Table 1): agreement and pooled self-AUROC, their difference, the decomposition
panel_res = res.facts["panel_results"]
glue_part("panels")
US_SIZE = glue.quoted("us_panel_n_models")
show_markdown(
    f"Check: {len(PANELS)} panels defined (the paper quotes {N_PANELS}); US panel size "
    f"{len(PANELS['US'])} (quoted {US_SIZE})."
)


def ci(pair, spec=".3f"):
    return f"[{pair[0]:{spec}}, {pair[1]:{spec}}]"


panel_tab = pd.DataFrame(
    [
        {
            "panel": name,
            "items": res["n_items"],
            "rows": res["n_rows"],
            "self (pooled)": f"{res['self_auroc_pooled']:.3f}",
            f"self {LVL} CI": ci(res["self_ci"]),
            "panel (canonical)": f"{res['panel_auroc']:.3f}",
            f"panel {LVL} CI": ci(res["panel_ci"]),
            "panel - self": f"{res['delta_panel_minus_self']:+.3f}",
            f"difference {LVL} CI": ci(res["delta_ci"], "+.3f"),
        }
        for name, res in panel_res.items()
    ]
)
_ = table(panel_tab, "panels", caption="Panel agreement versus pooled self-confidence on each panel's population")
decomp_tab = pd.DataFrame(
    [
        {
            "panel": name,
            "members": ", ".join(PANELS[name]),
            "within-model self-AUROCs": ", ".join(f"{m} {v:.3f}" for m, v in res["within_model_self_auroc"].items()),
            "macro average": f"{res['within_model_macro']:.3f}",
            "self (pooled)": f"{res['self_auroc_pooled']:.3f}",
            "self (rank-normalised)": f"{res['self_auroc_ranknorm']:.3f}",
            "identity contribution": f"{res['between_model_identity']:+.3f}",
            "panel (label-free)": f"{res['panel_auroc_labelfree']:.3f}",
        }
        for name, res in panel_res.items()
    ]
)
_ = table(
    decomp_tab,
    "panels_decomposition",
    caption="Decomposition of the pooled self-AUROC, and the label-free panel signal",
)

# %% tags=["remove-input"]
long = pd.DataFrame(
    [
        {"panel": name, "signal": sig, "auroc": res[key], "low": lo, "high": hi}
        for name, res in panel_res.items()
        for sig, key, (lo, hi) in (
            ("self (pooled)", "self_auroc_pooled", res["self_ci"]),
            ("panel agreement", "panel_auroc", res["panel_ci"]),
        )
    ]
    + [
        {"panel": name, "signal": sig, "auroc": res[key], "low": np.nan, "high": np.nan}
        for name, res in panel_res.items()
        for sig, key in (
            ("self (rank-normalised)", "self_auroc_ranknorm"),
            ("panel (label-free)", "panel_auroc_labelfree"),
        )
    ]
)
charts.panel_forest(
    long,
    signal_order=["self (pooled)", "self (rank-normalised)", "panel agreement", "panel (label-free)"],
    panel_order=list(PANELS),
    domain=(0.5, 0.9),
    title=f"Self-confidence versus panel agreement (item-clustered {LVL} CIs)",
    level_label=LVL,
)

# %% [markdown]
# ### Sensitivity: a label-free panel signal
#
# Under the canonical coding, two answers that were both graded correct count as agreeing, so the panel
# signal partly depends on the primary model's own correctness label. This is a label-mediated dependence,
# not leakage of a self-vote: by construction a model's own record never enters its own panel signal. The
# label-free recoding counts only identical answer strings and consults no correctness flag, neither the
# primary model's nor the panellists'. It lowers the panel AUROC from {glue:text}`r1_lf_cn_panel_auroc:.3f` to
# {glue:text}`cn_panel_auroc_labelfree:.3f` on the panel where self-assessment gives
# {glue:text}`r1_lf_cn_self_auroc:.3f`, and from {glue:text}`r1_lf_us_panel_auroc:.3f` to
# {glue:text}`us_panel_auroc_labelfree:.3f` on the other one. The paper reads this as the panel's headline
# advantage holding under the stricter coding; the reconstructed rows were fitted to its label-free AUROC, so the
# recomputed {glue:text}`r1_lf_cn_panel_auroc_labelfree_cmp:.3f` against {glue:text}`r1_lf_cn_self_auroc_cmp:.3f`
# restates that reading here rather than testing it.

# %% [markdown]
# ## Figure 1: every model
#
# Table 1 gives the per-model view; Figure 1 draws the same uncoupling across all {glue:text}`r1_fig_n_models`
# models: every model lies above the calibration diagonal, and the local tier collapses into a band of
# {glue:text}`r1_local_median_band_min:.0f`–{glue:text}`r1_local_median_band_max:.0f` stated confidence at no more than
# {glue:text}`r1_local_acc_max:.1f`% accuracy.

# %% tags=["hide-input"]
fig = res.tables["figure1"]
loc = fig[fig["tier"] == "local"]
glue_part("figure1")  # every model's accuracy and median confidence; the caption's numbers and wording
fig_show = as_text(
    fig[["tier", "model", "model_id", "n", "accuracy_pct", "median_conf", "mean_conf", "above_diagonal"]],
    {"accuracy_pct": "{:.1f}", "median_conf": "{:.0f}", "mean_conf": "{:.1f}"},
)
fig_show["above_diagonal"] = ["yes" if v else "no" for v in fig["above_diagonal"]]
fig_show = fig_show.rename(
    columns={
        "model_id": "model id",
        "accuracy_pct": "accuracy (%)",
        "median_conf": "median conf.",
        "mean_conf": "mean conf.",
        "above_diagonal": "above the diagonal",
    }
)
_ = table(fig_show, "figure1_data", caption="Data behind Figure 1")

# %% tags=["remove-input"]
local_span = (
    alt.Chart(
        pd.DataFrame(
            [
                {
                    "x": loc["accuracy_pct"].min(),
                    "x2": loc["accuracy_pct"].max(),
                    "y": loc["median_conf"].min(),
                    "y2": loc["median_conf"].max(),
                    "label": "local tier span",
                }
            ]
        )
    )
    .mark_rect(opacity=0.15, color="#f58518", stroke="#f58518")
    .encode(
        x="x:Q",
        x2="x2:Q",
        y="y:Q",
        y2="y2:Q",
        tooltip=[
            alt.Tooltip("label:N", title=" "),
            alt.Tooltip("x:Q", format=".1f", title="accuracy from (%)"),
            alt.Tooltip("x2:Q", format=".1f", title="to"),
            alt.Tooltip("y:Q", title="median confidence from"),
            alt.Tooltip("y2:Q", title="to"),
        ],
    )
)
# the report's scatter (selfconf.report.plots.scatter_chart): frontier models labelled with no two labels
# overlapping, the local tier left to the tier legend
scatter_chart(
    fig,
    x="accuracy_pct",
    y="median_conf",
    label="model",
    x_title="accuracy (%)",
    y_title="median stated confidence (0–100)",
    title="Median stated confidence vs accuracy, all models",
    domain=[0, 100],
    width=440,
    height=400,
    mark="point",
    color=alt.Color("tier:N", title="tier"),
    shape=alt.Shape("tier:N"),
    eligible=(fig["tier"] == "frontier").tolist(),
    below=[local_span],
    tooltip=[
        "model",
        "model_id",
        "tier",
        "n",
        alt.Tooltip("accuracy_pct:Q", format=".1f", title="accuracy (%)"),
        alt.Tooltip("median_conf:Q", title="median confidence"),
        alt.Tooltip("mean_conf:Q", format=".1f", title="mean confidence"),
    ],
).properties(usermeta={"selfconf_label": "fig-figure1"})

# %% [markdown]
# **Figure 1.** Overconfidence is consistent across all {glue:text}`fig1_n_models_words` evaluated models:
# median stated confidence per model (means are in Table 1) against accuracy, for all
# {glue:text}`fig1_n_models` models on the same {glue:text}`fig1_n_items:,.0f` blind SimpleQA items;
# {glue:text}`fig1_n_above_diagonal` of them lie above the calibration diagonal. The shaded box is the local
# tier's span.
# The strongly refusing model ({glue:text}`r1_refusal_model`, median {glue:text}`fig1_refusal_model_median:.0f` at
# {glue:text}`fig1_refusal_model_acc:.1f`% accuracy, CITL {glue:text}`fig1_refusal_model_citl:+.1f` pp)
# {glue:text}`fig1_best_phrase` ({glue:text}`fig1_best_model`, {glue:text}`fig1_best_self_auroc:.3f`) and is still
# overconfident; the smallest calibration gap is {glue:text}`fig1_smallest_gap_model`'s
# ({glue:text}`fig1_smallest_gap:+.1f` pp), {glue:text}`fig1_smallest_gap_note`. Frontier medians in Table 1 order:
# {glue:text}`fig1_google_median_conf:.0f`/{glue:text}`fig1_moonshot_median_conf:.0f`/{glue:text}`fig1_alibaba_median_conf:.0f`/{glue:text}`fig1_xai_median_conf:.0f`/{glue:text}`fig1_deepseek_median_conf:.0f`/{glue:text}`fig1_zhipu_median_conf:.0f`/{glue:text}`fig1_openai_median_conf:.0f`/{glue:text}`fig1_mistral_median_conf:.0f`/{glue:text}`fig1_anthropic_median_conf:.0f`.
# The {glue:text}`fig1_n_local_models`-model local tier spans {glue:text}`fig1_local_acc_min:.1f`–{glue:text}`fig1_local_acc_max:.1f`%
# accuracy at median confidence {glue:text}`fig1_local_median_conf_min:.0f`–{glue:text}`fig1_local_median_conf_max:.0f`
# (graded $n$ per local model {glue:text}`fig1_local_n_min:,.0f`–{glue:text}`fig1_local_n_max:,.0f` after
# parse-failure exclusion); the local tier serves the manipulation probes and this figure, not discrimination
# claims.
