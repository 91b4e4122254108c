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
# # Do the intervals cover?
#
# Every interval in this book is a {glue:text}`ci_level_pct` % percentile {term}`bootstrap` interval. Such an
# interval procedure is meant to contain the true value in {glue:text}`ci_level_pct` % of data sets; whether it does depends on the
# statistic, the sample size and the resampling unit, and a percentile bootstrap of an AUROC or of a difference
# of AUROCs makes no promise at finite size. This page measures it with a simulation study in the sense of
# Morris, White & Crowther {cite:p}`morris2019simulation`: a process whose truth is known, many data sets drawn
# from it, and the share of the book's intervals that contain the truth.
#
# **The process.** The shipped rows are taken as the population. A replicate data set has the paper's size and is
# drawn from it by items, with replacement, every row of a drawn item coming along: the
# {glue:text}`coverage_n_items:,.0f` items of the graded collection (all frontier models' answers to each), and
# the {glue:text}`coverage_n_rung_items:,.0f` scored items of the confirmatory ladder rung
# ({glue:text}`coverage_rung`, the rung whose OFF-arm accuracy is within the pre-registered bound
# [{glue:text}`ladder_degeneracy_bound`]{.quoted}; all arms and replicates of each). The *true value* of each
# quantity is the book's
# statistic on the population itself. On each replicate the book's own functions compute the estimate and the
# interval the book shows:
#
# - **Table 1 self-AUROC** per model: percentile row bootstrap (`selfconf.stats.summary.table1`, as Result 1);
# - **panel − self** per panel: paired item-clustered bootstrap (`selfconf.panels.panel_analysis`, as Result 1);
# - **ladder CORE − arm ΔAUROC** for the confirmatory family: paired item-clustered bootstrap on matched cells
#   (`selfconf.sections.ladder.paired_contrast`, as Result 2).
#
# **What this can and cannot show.** The rows are a reconstruction fitted to the paper's published statistics,
# so the population has the reconstruction's discreteness, item structure and effect sizes. The study says how
# these interval procedures behave on data sets of the paper's size drawn from such a population: a property of
# the procedures, measured on the reconstruction. It does not say how they behave on the paper's own data, whose
# generating process is unknown here, and the true values below are the population's, not the paper's.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"
n_reps = 200  # replicate data sets of the study
study_n_boot = 200  # bootstrap draws of each replicate's intervals

# %% tags=["remove-input"]
import altair as alt
import pandas as pd

from selfconf import data
from selfconf.book import banner, glue, table, vega
from selfconf.data import families
from selfconf.data.sources import resolve_families
from selfconf.sections import coverage

vega.enable()
sources = resolve_families(data_dir, ["collection", "ladder"])  # from data_dir if there, else the reconstruction
banner(data_dir, seed=seed, n_boot=n_boot, families=sources)
ROWS = glue.rows_origin(sources)  # origin of every number computed from these rows (none is a paper claim)
LEVEL = glue.quoted("ci_level_pct") / 100
rows, _excl = data.load_collection(sources.path("collection"))
frames, _profiles, _report = families.load_ladder(sources.path("ladder"))
res = coverage.compute(
    rows,
    frames,
    seed=seed,
    n_boot=n_boot,
    n_reps=n_reps,
    study_n_boot=study_n_boot,
    bound=glue.quoted("ladder_degeneracy_bound"),
    level=LEVEL,
)
for part in res.parts:
    for key, val, origin in res.items(part, rows_origin=ROWS):
        glue.value(key, val, origin=origin)

# %% [markdown]
# ## The true values
#
# The population's value of every quantity, with the interval the book computes on the same rows at the page's
# seed and {glue:text}`coverage_n_boot:,.0f` draws (the interval Result 1 and Result 2 show for these rows).

# %% tags=["hide-input"]
LABEL = {k: v[0] for k, v in coverage.INTERVAL_TYPES.items()}
pop = res.tables["population"]


def interval(lo, hi):
    return f"[{lo:.3f}, {hi:.3f}]".replace("-", "\u2212")


_ = table(
    pd.DataFrame(
        {
            "interval type": pop["type"].map(LABEL),
            "quantity": pop["quantity"],
            "true value (population)": pop["estimate"].map(lambda x: f"{x:.3f}".replace("-", "\u2212")),
            f"book's interval ({n_boot:,} draws)": [
                interval(a, b) for a, b in zip(pop["low"], pop["high"], strict=True)
            ],
            "width": (pop["high"] - pop["low"]).map(lambda x: f"{x:.3f}"),
        }
    ),
    "coverage_population",
    caption="The population's true values and the book's intervals on the shipped rows",
)

# %% [markdown]
# ## Coverage
#
# {glue:text}`coverage_n_reps:,.0f` replicate data sets, each with its own data draw and its own bootstrap seed
# (named streams of the page seed); each replicate's intervals use {glue:text}`coverage_study_n_boot:,.0f` draws.
# Per quantity: the share of intervals containing the true value (*coverage*), its Monte-Carlo standard error
# sqrt(c(1 − c)/R), the shares that miss below (the whole interval under the truth) and above, the mean width,
# the bias of the estimate and its empirical SE over replicates. A coverage more than
# {glue:text}`coverage_z_rule` standard errors (at the nominal level) from nominal is called below or above
# nominal; with {glue:text}`coverage_n_quantities` quantities judged, about {glue:text}`coverage_expected_flags:.1f`
# of them would be flagged by chance alone if every one covered exactly at nominal (normal approximation).

# %% tags=["hide-input"]
per = res.tables["per_quantity"]


def pct(x):
    return f"{100 * x:.1f}"


_ = table(
    pd.DataFrame(
        {
            "interval type": per["type"].map(LABEL),
            "quantity": per["quantity"],
            "true value": per["truth"].map(lambda x: f"{x:.3f}".replace("-", "\u2212")),
            "replicates": per["n_reps"],
            "coverage %": per["coverage"].map(pct),
            "MC SE (pp)": per["mc_se"].map(pct),
            "miss below %": per["miss_below"].map(pct),
            "miss above %": per["miss_above"].map(pct),
            "mean width": per["mean_width"].map(lambda x: f"{x:.3f}"),
            "bias": per["bias"].map(lambda x: f"{x:+.4f}".replace("-", "\u2212")),
            "empirical SE": per["emp_se"].map(lambda x: f"{x:.4f}"),
            "verdict": per["verdict"],
        }
    ),
    "coverage_per_quantity",
    caption=f"Empirical coverage of the book's {LEVEL:.0%} intervals, per quantity ({n_reps:,} replicates, "
    f"{study_n_boot:,} draws each)",
)

# %% tags=["remove-input"]
SHORT = {"table1_auroc": "self-AUROC", "panel_delta": "panel − self", "ladder_contrast": "ladder"}
view = per.assign(
    label=per["type"].map(SHORT) + ": " + per["quantity"],
    pct=100 * per["coverage"],
    lo=100 * (per["coverage"] - 2 * per["mc_se"]),
    hi=100 * (per["coverage"] + 2 * per["mc_se"]).clip(upper=1),
    nominal=100 * LEVEL,
)
base = alt.Chart(view)
alt.layer(
    base.mark_rule(strokeDash=[4, 3], color="gray").encode(x="mean(nominal):Q"),
    base.mark_rule().encode(
        y=alt.Y("label:N", sort=None, title=None),
        x=alt.X("lo:Q", title="coverage (%), ± 2 MC SE", scale=alt.Scale(zero=False)),
        x2="hi:Q",
    ),
    base.mark_point(filled=True, size=60).encode(
        y=alt.Y("label:N", sort=None, title=None),
        x="pct:Q",
        color=alt.Color("verdict:N", title="verdict"),
        tooltip=["label", alt.Tooltip("pct:Q", format=".1f", title="coverage %"), "verdict"],
    ),
).properties(width="container", title=f"Empirical coverage of the {LEVEL:.0%} intervals (dashed: nominal)")

# %% [markdown]
# Per interval type, pooled over its quantities (the Monte-Carlo SE of a pooled share is computed from the
# per-replicate shares, because the quantities of one replicate share its data draw):
#
# - {glue:text}`coverage_table1_auroc_sentence`
# - {glue:text}`coverage_panel_delta_sentence`
# - {glue:text}`coverage_ladder_contrast_sentence`

# %% tags=["hide-input"]
pt = res.tables["per_type"]
_ = table(
    pd.DataFrame(
        {
            "interval type": pt["label"],
            "quantities": pt["n_quantities"],
            "replicates": pt["n_reps"],
            "pooled coverage %": pt["coverage"].map(pct),
            "MC SE (pp)": pt["mc_se"].map(pct),
        }
    ),
    "coverage_per_type",
    caption="Pooled coverage per interval type (replicate-clustered Monte-Carlo SE)",
)

# %% tags=["remove-cell"]
below = per[per["verdict"] == "below nominal"]
if below.empty:
    text = (
        f"No interval of the book falls below nominal coverage by more than {coverage.Z_RULE:g} Monte-Carlo SE in "
        "this study."
    )
else:
    text = (
        f"{len(below)} of {len(per)} quantities fall below nominal coverage by more than {coverage.Z_RULE:g} "
        "Monte-Carlo SE: "
        + "; ".join(
            f"{LABEL[t]} {q} ({100 * c:.1f} %)" for t, q, c in below[["type", "quantity", "coverage"]].to_numpy()
        )
        + ". Where the book shows those intervals, they are to be read as covering less often than their nominal "
        "level on data like these."
    )
_ = glue.value("coverage_summary_sentence", text, origin=ROWS)

# %% [markdown]
# ## What this means for the intervals on the other pages
#
# {glue:text}`coverage_summary_sentence` Coverage ranges from {glue:text}`coverage_min_pct:.1f` % to
# {glue:text}`coverage_max_pct:.1f` % over the quantities; {glue:text}`coverage_n_below` are flagged below and
# {glue:text}`coverage_n_above` above nominal.
#
# Two limits of this build. Each replicate's interval uses {glue:text}`coverage_study_n_boot:,.0f` bootstrap
# draws where the pages use {glue:text}`coverage_n_boot:,.0f`; fewer draws add Monte-Carlo noise to the end
# points, which tends to lower coverage slightly, so a small shortfall here may shrink at the pages' draws. And
# with {glue:text}`coverage_n_reps:,.0f` replicates a coverage at the nominal level is known to about
# ±{glue:text}`coverage_two_se_nominal_pp:.1f` points (two SE): the study can detect a gross failure, not a small
# one. A larger run, for example
#
# ```bash
# .venv/bin/python -m selfconf.book.build execute --only 29_coverage -p n_reps 1000 -p study_n_boot 2000
# ```
#
# narrows both; its cost grows with the product of replicates and draws.
