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
# # Experiment design and data
#
# This page describes the collection every later section analyses: which models answered, how many
# answers were graded, what was excluded and why, and the small benchmark-age comparison that motivated
# using a post-2023 benchmark. Every count below is computed from the rows; design facts that have no
# row-level source (the elicitation scale, the human spot-check, the pilot) are quoted and marked as such.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"

# %% tags=["remove-input"]
import altair as alt

from selfconf import data
from selfconf.book import as_text, banner, glue, show_markdown, table, vega
from selfconf.data.sources import resolve_families
from selfconf.sections import design

vega.enable()
sources = resolve_families(
    data_dir, ["collection", "benchmark_age"]
)  # each from data_dir if there, else the reconstruction
banner(data_dir, seed=seed, n_boot=n_boot, families=sources)
ROWS = glue.rows_origin(sources)  # origin of numbers from these rows that the paper does not print
rows, exclusions = data.load_collection(sources.path("collection"))
graded = data.graded(rows)
bench = data.load_benchmark_age(sources.path("benchmark_age"))
# every number of this page, computed from the rows (selfconf.sections.design); the cells below glue and show them
res = design.compute(rows, exclusions, bench, seed=seed, n_boot=n_boot, level=glue.quoted_value("ci_level_pct") / 100)


def glue_part(part):
    """Glue one part of the page's computed values: claim ids as claims, the others with this page's origin."""
    for key, v in res.part(part).items():
        if res.origins[key] == "claim":
            glue.claim(key, v)
        else:
            glue.value(key, v, origin=ROWS)


# %% [markdown]
# ## Who answered: the roster
#
# The roster is read from the rows (one `model_id` per model). The *frontier* tier holds one API model
# per provider; the *local* tier holds open-weights models served on a local machine.

# %% tags=["hide-input"]
# the roster counts, their restatements later in the section, and the row and exclusion totals
glue_part("roster")
per_model = res.tables["per_model"]
ids_per_provider = res.facts["ids_per_provider"]
_ = table(res.tables["tier_counts"], "design_tier_counts", caption="Rows and graded answers per tier")
_ = table(
    per_model,
    "design_roster",
    caption="Roster and exclusions per model (rows = items asked; graded = rows whose answer parsed)",
)
show_markdown(
    f"Every model was asked the same {res.facts['n_items']:,} items: **{'yes' if res.facts['same_items'] else 'NO'}** "
    f"(each model's item set compared with the union of all item ids). "
    f"Model ids per frontier provider: {', '.join(f'{m} {k}' for m, k in ids_per_provider.items())}."
)

# %% [markdown]
# {glue:text}`design_n_models` models took part: {glue:text}`design_models_per_provider` budget or mid-tier
# API model from each of {glue:text}`design_n_providers` providers, and {glue:text}`design_n_local_models`
# local open-weights models. All of them answered the same {glue:text}`design_n_items:,.0f` post-2023 factual
# questions (a SimpleQA subsample) at temperature zero, each answer accompanied by a stated confidence on an
# integer scale from [{glue:text}`design_conf_scale_min`]{.quoted} to [{glue:text}`design_conf_scale_max`]{.quoted}.
# Of the {glue:text}`design_n_rows:,.0f` answers, {glue:text}`design_n_graded_total:,.0f` were graded:
# {glue:text}`design_n_graded_frontier:,.0f` from the frontier tier and {glue:text}`design_n_graded_local:,.0f`
# from the local tier.

# %% tags=["remove-input"]
scale_min = glue.quoted("design_conf_scale_min")
scale_max = glue.quoted("design_conf_scale_max")
glue.quoted("design_conf_scale_min", as_id="design_models_conf_scale_min")
glue.quoted("design_conf_scale_max", as_id="design_models_conf_scale_max")
conf = graded["confidence"]
show_markdown(
    f"Check against the rows: every graded confidence lies in [{scale_min}, {scale_max}] — "
    f"**{'yes' if conf.between(scale_min, scale_max).all() else 'NO'}** "
    f"(observed range {int(conf.min())}–{int(conf.max())})."
)

# %% [markdown]
# ## Pre-registration and freeze
#
# The collection protocol was frozen in a public registry before any confirmatory data existed. It fixes
# the benchmark and its random subsample ({glue:text}`prereg_subsample_n:,.0f` items, fixed seed, the
# subsample file's SHA-256 recorded), the model roster, the elicitation format, the grading procedure, the
# analysis plan (including the panel-agreement versus own-confidence AUROC comparison of Result 1) and a rule
# against choosing metrics after the fact. A small exploratory pilot (about
# [{glue:text}`pilot_n_items`]{.quoted} TruthfulQA items on [{glue:text}`pilot_n_local_models`]{.quoted} local
# models) ran before the freeze to test the pipeline; its data are never mixed with the confirmatory rows.
#
# ## Models and elicitation
#
# {glue:text}`design_models_n_providers` frontier providers are reached through their APIs, with
# {glue:text}`design_models_models_per_provider` budget or mid-tier model each, so a provider name below
# labels a single model rather than a product line; {glue:text}`design_models_n_local` open-weights models run
# locally. Each model answers each item on its own, at temperature zero, and states an integer confidence from
# [{glue:text}`design_models_conf_scale_min`]{.quoted} to [{glue:text}`design_models_conf_scale_max`]{.quoted}
# for that same answer. Panels (Result 1) are combinations formed at analysis time: no model ever sees
# another model's output.

# %% tags=["remove-input"]
for fact in (
    "pilot_n_items",
    "pilot_n_local_models",
    "grading_spotcheck_n_items",
    "grading_spotcheck_agreement_pct",
    "grading_spotcheck_n_errors",
    "truthfulqa_mc1_local_arm_n_items",
):
    glue.quoted(fact)
glue.quoted("grading_crossfamily_audit_n")
glue.quoted("grading_crossfamily_audit_n", as_id="grading_crossfamily_audit_agreed_denominator")
_ = glue.quoted("grading_crossfamily_audit_agreed")

# %% [markdown]
# ## Grading and exclusions
#
# Answers are first matched against the gold answer after string normalisation, with refusal detection
# before anything else; open cases that string matching cannot settle go to a local open-weights LLM grader
# that is asked only whether the answer is equivalent to the gold one. The paper reports a
# [{glue:text}`grading_spotcheck_n_items`]{.quoted}-item human spot-check with
# [{glue:text}`grading_spotcheck_agreement_pct`]{.quoted}% agreement
# ([{glue:text}`grading_spotcheck_n_errors`]{.quoted} conservative error), and a cross-family audit of the
# [{glue:text}`grading_crossfamily_audit_n`]{.quoted} hardest consensus verdicts that agreed in
# [{glue:text}`grading_crossfamily_audit_agreed`]{.quoted} of
# [{glue:text}`grading_crossfamily_audit_agreed_denominator`]{.quoted} cases; neither check has row-level data
# here, so both are quoted.
#
# The only exclusions are answers that could not be parsed into an answer and a confidence
# ({glue:text}`design_n_parse_failures:,.0f` rows in all, listed per model in the roster table above and
# charted below). Refusals are kept and graded as incorrect. The parse failures pile up in one local
# reasoning model, {glue:text}`local_reasoning_model` (the local model with the most failures), which keeps
# only {glue:text}`local_reasoning_model_n_gradable:,.0f` gradable answers of
# {glue:text}`local_reasoning_model_n_items:,.0f`; this is why every local-tier statement carries its
# per-model $n$.

# %% tags=["hide-input"]
glue_part("exclusions")  # the local model with the most parse failures, and its counts

excl = res.tables["exclusions"]
alt.Chart(excl).mark_bar().encode(
    x=alt.X("parse_failures:Q", title="parse failures (rows excluded from grading)"),
    y=alt.Y("model:N", sort=list(excl["model"]), title=None),
    color=alt.Color("tier:N", title="tier"),
    tooltip=[
        "model",
        "model_id",
        "tier",
        "rows",
        "parse_failures",
        "graded",
        alt.Tooltip("share:Q", format=".1%", title="share excluded"),
    ],
).properties(width=420, height=300, title="Exclusions per model")

# %% [markdown]
# ## Routing of the API calls
#
# Each call records the route that served it. One provider was reached partly through its own account and
# partly through an aggregator; the reproducibility appendix restates the first-party count computed here.

# %% tags=["hide-input"]
_ = table(res.tables["routes"], "design_routes", caption="Calls per model and route")
glue_part("routes")  # moonshot's first-party and total calls

# %% [markdown]
# moonshot: {glue:text}`repro_moonshot_firstparty_n:,.0f` of its {glue:text}`repro_moonshot_rows:,.0f` items went
# through the first-party account.
#
# ## Why a post-2023 benchmark: the benchmark-age comparison
#
# An exploratory side arm asked {glue:text}`design_bench_n_models` of the frontier models the older TruthfulQA multiple-choice items. The
# comparison is between each model's TruthfulQA MC accuracy and its accuracy on the graded SimpleQA rows of
# the main collection. The two benchmarks are different item sets, so the interval for the gap comes from an
# **unpaired** percentile bootstrap: in every draw the TruthfulQA rows and the SimpleQA rows of a model are
# resampled independently (stratified by benchmark), and the gap is recomputed
# ({glue:text}`design_bench_n_boot:,.0f` draws, seed derived from the page seed and the model name).

# %% tags=["hide-input"]
glue.value("design_bench_n_boot", n_boot, origin="parameter")
CI_LEVEL = glue.quoted("ci_level_pct") / 100
# per model: accuracies, the gap and its unpaired bootstrap interval (selfconf.sections.design.benchmark_age);
# the range of the gaps and the paper's worked example, the model with the widest gap
age = res.tables["benchmark_age"]
glue_part("benchmark_age")
age_show = as_text(age, {"acc_older_pct": "{:.1f}", "acc_simpleqa_pct": "{:.1f}", "gap_pp": "{:+.1f}"})
age_show["CI"] = [f"[{lo:+.1f}, {hi:+.1f}]" for lo, hi in zip(age["gap_ci_low"], age["gap_ci_high"], strict=True)]
age_show = age_show[["model", "n_older", "acc_older_pct", "n_simpleqa", "acc_simpleqa_pct", "gap_pp", "CI"]]
age_show.columns = [
    "model",
    "n TruthfulQA MC",
    "TruthfulQA MC acc. (%)",
    "n SimpleQA",
    "SimpleQA acc. (%)",
    "gap (pp)",
    f"{CI_LEVEL:.0%} CI",
]
_ = table(
    age_show,
    "design_benchmark_age",
    caption="Benchmark-age arm: accuracy on TruthfulQA MC and on SimpleQA, gap in percentage points "
    f"with a {CI_LEVEL:.0%} unpaired bootstrap interval",
)

# %% tags=["remove-input"]
base = alt.Chart(age).encode(y=alt.Y("model:N", title=None, sort=list(age["model"])))
(
    base.mark_rule().encode(
        x=alt.X("gap_ci_low:Q", title="TruthfulQA MC minus SimpleQA accuracy (pp)", scale=alt.Scale(zero=False)),
        x2="gap_ci_high:Q",
    )
    + base.mark_point(filled=True, size=80).encode(
        x="gap_pp:Q",
        tooltip=[
            "model",
            alt.Tooltip("acc_older_pct:Q", format=".1f", title="TruthfulQA MC acc. (%)"),
            alt.Tooltip("acc_simpleqa_pct:Q", format=".1f", title="SimpleQA acc. (%)"),
            alt.Tooltip("gap_pp:Q", format="+.1f", title="gap (pp)"),
            alt.Tooltip("gap_ci_low:Q", format="+.1f", title=f"{CI_LEVEL:.0%} CI low"),
            alt.Tooltip("gap_ci_high:Q", format="+.1f", title=f"{CI_LEVEL:.0%} CI high"),
        ],
    )
).properties(width=420, height=120, title=f"Benchmark-age gap with {CI_LEVEL:.0%} bootstrap intervals")

# %% [markdown]
# The same models scored between {glue:text}`bench_age_gap_range_min:+.0f` and
# {glue:text}`bench_age_gap_range_max:+.0f` percentage points higher on the 2021 TruthfulQA MC items than on the
# post-2023 SimpleQA items: deepseek {glue:text}`bench_age_deepseek_gap_pp:+.1f` pp ({glue:text}`ci_level_pct`% CI
# [{glue:text}`bench_age_deepseek_gap_ci_lo:+.1f`, {glue:text}`bench_age_deepseek_gap_ci_hi:+.1f`]), mistral
# {glue:text}`bench_age_mistral_gap_pp:+.1f` [{glue:text}`bench_age_mistral_gap_ci_lo:+.1f`,
# {glue:text}`bench_age_mistral_gap_ci_hi:+.1f`] and zhipu {glue:text}`bench_age_zhipu_gap_pp:+.1f`
# [{glue:text}`bench_age_zhipu_gap_ci_lo:+.1f`, {glue:text}`bench_age_zhipu_gap_ci_hi:+.1f`]. For the widest
# gap ({glue:text}`bench_age_example_model`) that is {glue:text}`bench_age_zhipu_truthfulqa_acc:.1f`% against
# {glue:text}`bench_age_zhipu_simpleqa_acc:.1f`%. A gap of this size fits benchmark age and exposure, but this
# design cannot tell contamination apart from differences in difficulty and construction. No headline number
# rests on the older benchmark; the [{glue:text}`truthfulqa_mc1_local_arm_n_items`]{.quoted}-item TruthfulQA
# MC1 arm on the local tier is used only where it is labelled as such.
#
# ## What is pre-registered and what is exploratory
#
# Pre-registered and confirmatory: the collection described here and the panel-versus-own-confidence AUROC
# comparison of Result 1. Exploratory, and labelled so wherever used: the benchmark-age arm above, the
# frontier profile-injection rung and the local microprobe of Result 3. The profile-injection ladder of
# Result 2 is a separate frozen, placebo-controlled protocol.
