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
# # Result 3: the self-image channel can be manipulated
#
# A harness that feeds a model a profile of its own competence has created an input channel, and inputs
# can be forged. The paper separates three claims of decreasing strength: (i) *causal manipulability*,
# which the paper reports as shown by its controlled runs: a forged profile changes stated confidence and
# degrades calibration;
# (ii) an *integrity vulnerability*, which matters only for harnesses that really inject profiles from a
# source an adversary can touch; (iii) a *practical attack surface* in deployed pipelines, which the paper
# motivates but does not test. Three pieces of evidence back claim (i): an exploratory frontier rung of
# the ladder, a local microprobe and a topic-labelled local pass. **All three are exploratory.**

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"

# %% tags=["remove-input"]
import altair as alt
import numpy as np
import pandas as pd

from selfconf.book import banner, glue, show_markdown, table, vega
from selfconf.data import families
from selfconf.data.sources import resolve_families
from selfconf.sections import ladder, result3

vega.enable()
sources = resolve_families(data_dir, ["ladder", "probes"])  # each from data_dir if there, else the reconstruction
banner(data_dir, seed=seed, n_boot=n_boot, families=sources)
ROWS = glue.rows_origin(sources)  # origin of numbers from these rows that the paper does not print


frames, _profiles, ladder_report = families.load_ladder(sources.path("ladder"))
probe_tables, probes_report = families.load_probes(sources.path("probes"))
for _rep in (ladder_report, probes_report):
    if _rep.unmapped_fields or _rep.unread_files:
        show_markdown(f"```text\n{_rep}\n```")


def glue_part(res, part):
    """Glue one part of a section's computed values: claims by id, other values with their origin."""
    for key, val, origin in res.items(part, rows_origin=ROWS):
        glue.claim(key, val) if origin == "claim" else glue.value(key, val, origin=origin)


# %% [markdown]
# ## A frontier rung: true versus false profile (exploratory)
#
# The ladder's SHUFFLED arm injects the subject's own per-domain numbers permuted across domains. On the
# confirmatory rung that arm had been demoted before any confirmatory data existed, so it carries no
# confirmatory weight anywhere. The paper's clearest contrast comes from one of the rungs the degeneracy
# rule demoted; the paper does not say which. This book takes Claude Opus 4.8 (a recorded decision of the
# reconstruction, `selfconf.sections.ladder.FRONTIER_RUNG`); the code checks that the rows indeed put that rung
# above the degeneracy bound.

# %% tags=["hide-input"]
bound = glue.quoted_value("ladder_degeneracy_bound")
frontier_subject = ladder.FRONTIER_RUNG
res = result3.compute(frames, probe_tables, bound=bound, seed=seed, n_boot=n_boot, frontier_subject=frontier_subject)
glue_part(res, "frontier")
fr = res.tables["frontier"]
_ = table(
    pd.DataFrame(
        [
            {
                "arm": "CORE (true profile)",
                "answered rows": f"{res['r3_frontier_n_core']:,}",
                "AUROC": f"{fr.loc['core', 'estimate']:.3f}",
                "95% CI (items resampled)": f"[{fr.loc['core', 'low']:.3f}, {fr.loc['core', 'high']:.3f}]",
            },
            {
                "arm": "SHUFFLED (false profile)",
                "answered rows": f"{res['r3_frontier_n_shuffled']:,}",
                "AUROC": f"{fr.loc['shuffled', 'estimate']:.3f}",
                "95% CI (items resampled)": f"[{fr.loc['shuffled', 'low']:.3f}, {fr.loc['shuffled', 'high']:.3f}]",
            },
            {
                "arm": "difference (CORE − SHUFFLED)",
                "answered rows": "—",
                "AUROC": f"{fr.loc['delta', 'estimate']:+.3f}",
                "95% CI (items resampled)": f"[{fr.loc['delta', 'low']:+.3f}, {fr.loc['delta', 'high']:+.3f}]",
            },
        ]
    ),
    "result3_frontier_rung",
    caption="Exploratory frontier rung: true vs false profile (answered-only AUROC)",
)

# %% [markdown]
# Swapping the true profile for the shuffled one takes this rung's self-assessment AUROC from
# {glue:text}`expl_rung_core_auroc:.3f` to chance level, {glue:text}`expl_rung_shuffled_auroc:.3f`. With items
# resampled (one draw shared by both arms): {glue:text}`r3_expl_rung_core_auroc_b:.3f`
# [{glue:text}`expl_rung_core_auroc_ci_lo:.3f`, {glue:text}`expl_rung_core_auroc_ci_hi:.3f`] against
# {glue:text}`r3_expl_rung_shuffled_auroc_b:.3f` [{glue:text}`expl_rung_shuffled_auroc_ci_lo:.3f`,
# {glue:text}`expl_rung_shuffled_auroc_ci_hi:.3f`], a difference of
# {glue:text}`expl_rung_core_minus_shuffled_delta:+.3f` [{glue:text}`expl_rung_core_minus_shuffled_delta_ci_lo:+.3f`,
# {glue:text}`expl_rung_core_minus_shuffled_delta_ci_hi:+.3f`]. The difference is taken between the two
# unrounded AUROCs, which is why it can print one unit away from the difference of the rounded ones.
#
# ### The same arms on the confirmatory rung (exploratory contrast)

# %% tags=["hide-input"]
glue_part(res, "confirmatory")
glue.quoted("ladder_shuffled_manipcheck_n_failures")
glue.quoted("ladder_shuffled_manipcheck_judge_1")
glue.quoted("ladder_shuffled_manipcheck_judge_2")
_ = glue.quoted("ladder_shuffled_manipcheck_bound")  # the cell shows nothing

# %% [markdown]
# On the confirmatory rung SHUFFLED lands between PLACEBO and CORE ({glue:text}`r3_shuffled_auroc:.3f`
# against {glue:text}`r3_placebo_auroc:.3f` and {glue:text}`r3_core_auroc:.3f`); the item-clustered paired
# contrast CORE − SHUFFLED on matched cells, exploratory, is {glue:text}`ladder_shuffled_paired_delta:+.3f`
# [{glue:text}`ladder_shuffled_paired_delta_ci_lo:+.3f`, {glue:text}`ladder_shuffled_paired_delta_ci_hi:+.3f`].
# (The paper does not state the direction of this contrast; CORE minus SHUFFLED follows Table 3's
# convention.) By construction this rung is weak evidence about manipulation: the false profile failed the
# pre-registered manipulation check [{glue:text}`ladder_shuffled_manipcheck_n_failures`]{.quoted} times
# (external judge [{glue:text}`ladder_shuffled_manipcheck_judge_1:.2f`]{.quoted} and
# [{glue:text}`ladder_shuffled_manipcheck_judge_2:.2f`]{.quoted} against a bound of at most
# [{glue:text}`ladder_shuffled_manipcheck_bound:.2f`]{.quoted}), so the frozen rule demoted the arm; a
# subject may simply discount a profile that looks implausible. A side finding: a frontier judge spots the
# forgery by plausibility alone.
#
# ## The local microprobe (Table 4, exploratory)
#
# On a zero-cost local bench, one line of the injected profile is changed: the profile claims either
# "0% accuracy" or "95% accuracy" in the domain of an item the model answers *incorrectly*, and the model's
# stated confidence on that same item is recorded (temperature 0).

# %% tags=["hide-input"]
mp = res.tables["microprobe"]
short = result3.SHORT_NAMES
glue_part(res, "microprobe")  # the wording asks whether the largest shift is also the lowest starting point
# the two claimed accuracies the profile line states, read from the rows (the audit holds them against the print)
claimed = probe_tables["microprobe"]["claimed_accuracy_pct"]
low_claim = glue.claim("microprobe_claim_low_pct", int(claimed.min()))
high_claim = glue.claim("microprobe_claim_high_pct", int(claimed.max()))
glue.claim("t4cap_claim_low_pct", low_claim)
glue.claim("t4cap_claim_high_pct", high_claim)
glue.claim("t4_header_claim_high_pct", high_claim)
glue.claim("t4_n_models", int(probe_tables["microprobe"]["model"].nunique()))  # counted from the rows
glue.quoted("microprobe_unlabeled_delta_approx")
glue.quoted("microprobe_ceiling_conf_approx")
t4 = mp.rename(
    columns={"conf_at_0": f'Conf. @ "{low_claim:.0f}%"', "conf_at_95": f'Conf. @ "{high_claim:.0f}%"', "delta": "Δ"}
)
t4["Δ"] = [f"{d:+d}" if d else "0" for d in t4["Δ"]]
t4_ids = {}
for i, r in mp.iterrows():
    sm = short[r["model"]]
    t4_ids.update(
        {
            (i, f'Conf. @ "{low_claim:.0f}%"'): f"t4_{sm}_conf_at_0",
            (i, f'Conf. @ "{high_claim:.0f}%"'): f"t4_{sm}_conf_at_95",
            (i, "Δ"): f"t4_{sm}_delta",
        }
    )
_ = table(
    t4,
    "table4_microprobe",
    caption="Local microprobe: stated confidence on the same incorrectly answered item",
    claims=t4_ids,
)

# %% [markdown]
# In the paper's Table 4 the profile line claims {glue:text}`t4cap_claim_low_pct:.0f`% or
# {glue:text}`t4cap_claim_high_pct:.0f`% accuracy (column headers: {glue:text}`microprobe_claim_low_pct:.0f`%
# and {glue:text}`t4_header_claim_high_pct:.0f`%).

# %% [markdown]
# A single fabricated claim ("{glue:text}`microprobe_claim_high_pct:.0f`% accuracy in this
# domain") lifts {glue:text}`r3_microprobe_top_model`'s confidence on an item it gets wrong from
# {glue:text}`r3_microprobe_conf_before` to {glue:text}`r3_microprobe_conf_after`; with one line of the
# profile changed, stated confidence moves by up to {glue:text}`r3_microprobe_up_to:+d` points across the
# {glue:text}`t4_n_models` models. The largest shift ({glue:text}`r3_microprobe_largest_shift:+d`
# points) belongs to {glue:text}`r3_microprobe_top_phrase`; the ceiling-pinned model
# (confidence [{glue:text}`microprobe_ceiling_conf_approx:.0f`]{.quoted} whatever the claim) has nothing to
# attack. Two boundary conditions frame the effect: the model must be able to map the item to a profile
# bin (on unlabelled items small local models ignore the profile, shifts ≈
# [{glue:text}`microprobe_unlabeled_delta_approx:.0f`]{.quoted}, in line with Result 2's null), and it must
# not already sit at the ceiling.
#
# ## The topic-labelled pass (exploratory, a disclosed deviation)
#
# The first boundary condition can itself be tested: label each probe with its topic, which removes the
# mapping problem. {glue:text}`topic_n_models` local models answer held-out probes twice, once with their true profile (their
# accuracy per bin on separate held-out items) and once with a false one (each bin's number inverted),
# at temperature 0 with a fixed seed.

# %% tags=["hide-input"]
ts = res.tables["topic"]
# the pass's shape, counted from the rows (the audit holds each count against the paper's print)
topic_rows = probe_tables["topic_probes"]
n_topic_models = glue.claim("topic_n_models", int(topic_rows["model"].nunique()))
n_probes_arm = glue.claim("topic_n_probes_per_arm", int(topic_rows.groupby(["model", "arm"]).size().max()))
glue.claim("topic_n_models_of", n_topic_models)
glue.claim("topic_bootstrap_n", n_probes_arm)
glue_part(res, "topic")
tsr = ts.reset_index()
shown = pd.DataFrame(
    {
        "model": tsr["model"],
        "probes per arm": tsr["n_probes"].astype(int),
        "acc. true profile (%)": [f"{v:.1f}" for v in tsr["acc_true_pct"]],
        "acc. false profile (%)": [f"{v:.1f}" for v in tsr["acc_false_pct"]],
        "Brier (true)": [f"{v:.3f}" for v in tsr["brier_true"]],
        "Brier (false)": [f"{v:.3f}" for v in tsr["brier_false"]],
        "Brier change": [f"{v:+.3f}" for v in tsr["brier_delta"]],
        "95% CI": [f"[{lo:+.3f}, {hi:+.3f}]" for lo, hi in zip(tsr["ci_low"], tsr["ci_high"], strict=True)],
        "consumed the false profile": ["yes" if c else "no" for c in tsr["consumed"]],
    }
)
_ = table(shown, "result3_topic_pass", caption="Topic-labelled pass: Brier change (false − true profile) per model")

# %% [markdown]
# Once the items are labelled, the false profile that was inert on unlabelled items is consumed by
# {glue:text}`topic_n_models_consumed` of {glue:text}`topic_n_models_of` models (each answering
# {glue:text}`topic_n_probes_per_arm` held-out probes per arm): Brier worsens by
# {glue:text}`topic_glm4_brier_delta:+.3f` (glm4:9b), {glue:text}`topic_llama32_brier_delta:+.3f`
# (llama3.2:3b, whose accuracy also falls from {glue:text}`topic_llama32_acc_before:.1f`% to
# {glue:text}`topic_llama32_acc_after:.1f`%), {glue:text}`topic_mistral7b_brier_delta:+.3f` (mistral:7b) and
# {glue:text}`topic_phi4mini_brier_delta:+.3f` (phi4-mini). {glue:text}`topic_ci_zero_phrase` at
# n = {glue:text}`topic_bootstrap_n` contains zero, so the paper reads this pass as evidence of
# direction and mechanism, not of per-model effect sizes. The fifth model, qwen3:8b, is at the ceiling on this battery
# ({glue:text}`topic_qwen3_acc:.0f`% accuracy, confidence {glue:text}`topic_qwen3_conf:.0f` in both arms,
# Brier change {glue:text}`topic_qwen3_delta:.0f`): nothing to attack.

# %% tags=["hide-input"]
glue_part(res, "examples")
# what the probe rows of this build are: the paper's live runs, or rows reconstructed to their summaries
glue.value(
    "r3_probe_rows_phrase",
    "The probe rows on this page are a reconstruction, built so that the paper's per-model summaries hold, with "
    "the individual probes invented (see the probes' data card), so the page restates what those runs reported "
    "and does not rerun them."
    if sources["probes"].source == "reconstruction"
    else "The probe rows on this page are the original replication rows, so the page recomputes those runs.",
    origin="build",
)
cells = res.tables["examples"]
base = alt.Chart(cells).encode(
    x=alt.X("claim change:Q", title="false minus true claimed bin accuracy (points)"),
    y=alt.Y("shift:Q", title="change in mean stated confidence (points)"),
    color=alt.Color("model:N", title="model"),
    tooltip=[
        "model",
        "bin",
        alt.Tooltip("heldout_acc_pct:Q", title="held-out acc. %", format=".0f"),
        alt.Tooltip("conf_true:Q", title="conf. (true)", format=".1f"),
        alt.Tooltip("conf_false:Q", title="conf. (false)", format=".1f"),
    ],
)
(
    base.mark_circle(size=70, opacity=0.8)
    + alt.Chart(pd.DataFrame({"y": [0]})).mark_rule(strokeDash=[4, 4]).encode(y="y:Q")
).properties(width=460, height=320, title="Topic-labelled pass: confidence follows the forged claim")

# %% [markdown]
# The mechanism runs both ways. A falsely high claim inflates confidence exactly where the model is weak:
# llama3.2's mean confidence in physics, a bin where it got {glue:text}`topic_llama32_physics_heldout_acc:.0f`%
# of held-out items right, goes from {glue:text}`topic_llama32_physics_conf_before:.0f` to
# {glue:text}`topic_llama32_physics_conf_after:.0f`, and phi4-mini's in logic from
# {glue:text}`topic_phi4mini_logic_conf_before:.0f` to {glue:text}`topic_phi4mini_logic_conf_after:.0f`.
# A falsely low claim deflates confidence on answers that are right: llama3.2 in history (held-out accuracy
# {glue:text}`topic_llama32_history_heldout_acc:.0f`%) drops from {glue:text}`topic_llama32_history_conf_before:.0f`
# to {glue:text}`topic_llama32_history_conf_after:.0f`. Each dot in the chart is one model × bin; points
# fall along the direction of the forged claim. The paper reports both sides of the boundary from its live
# runs: unlabelled items leave the profile inert (the frozen null), labelled items let a forged self-image flow
# into stated confidence and through to calibration. {glue:text}`r3_probe_rows_phrase`

# %% [markdown]
# ## Result 3 in one figure
#
# Top: the exploratory frontier rung's answered-only AUROC with the true profile (CORE) and with the false one
# (SHUFFLED), each with its 95% item-resampled interval; the dashed line is chance (0.5). Bottom: the
# topic-labelled pass, each model's Brier change (false minus true profile; above zero means the forged
# profile made the model's confidence worse) with its 95% per-probe bootstrap interval; the dashed line is no
# change.

# %% tags=["remove-input"]
arm_df = pd.DataFrame(
    [
        {
            "arm": "CORE (true profile)",
            "auroc": fr.loc["core", "estimate"],
            "low": fr.loc["core", "low"],
            "high": fr.loc["core", "high"],
        },
        {
            "arm": "SHUFFLED (false profile)",
            "auroc": fr.loc["shuffled", "estimate"],
            "low": fr.loc["shuffled", "low"],
            "high": fr.loc["shuffled", "high"],
        },
    ]
)
arm_y = alt.Y("arm:N", sort=list(arm_df["arm"]), title=None)
arm_panel = (
    alt.Chart(pd.DataFrame({"x": [0.5]})).mark_rule(strokeDash=[4, 4], color="gray").encode(x="x:Q")
    + alt.Chart(arm_df)
    .mark_rule(strokeWidth=2)
    .encode(
        x=alt.X("low:Q", title="answered-only AUROC with 95% interval", scale=alt.Scale(zero=False)),
        x2="high:Q",
        y=arm_y,
    )
    + alt.Chart(arm_df)
    .mark_point(filled=True, size=70)
    .encode(
        x="auroc:Q",
        y=arm_y,
        tooltip=[
            "arm",
            alt.Tooltip("auroc:Q", format=".3f"),
            alt.Tooltip("low:Q", format=".3f", title="CI low"),
            alt.Tooltip("high:Q", format=".3f", title="CI high"),
        ],
    )
).properties(width=420, height=70, title=f"Frontier rung ({frontier_subject}): true versus false profile")
brier_df = tsr[["model", "brier_delta", "ci_low", "ci_high", "consumed"]].assign(
    consumed=lambda d: np.where(d["consumed"], "consumed the false profile", "did not")
)
brier_y = alt.Y("model:N", sort=list(brier_df["model"]), title=None)
brier_colour = alt.Color(
    "consumed:N",
    title=None,
    legend=alt.Legend(orient="bottom"),
    scale=alt.Scale(domain=["consumed the false profile", "did not"], range=["#d62728", "#8c8c8c"]),
)
brier_panel = (
    alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(strokeDash=[4, 4], color="gray").encode(x="x:Q")
    + alt.Chart(brier_df)
    .mark_rule(strokeWidth=2)
    .encode(
        x=alt.X("ci_low:Q", title="Brier change, false minus true profile (95% interval)"),
        x2="ci_high:Q",
        y=brier_y,
        color=brier_colour,
    )
    + alt.Chart(brier_df)
    .mark_point(filled=True, size=70)
    .encode(
        x="brier_delta:Q",
        y=brier_y,
        color=brier_colour,
        tooltip=[
            "model",
            alt.Tooltip("brier_delta:Q", format="+.3f", title="Brier change"),
            alt.Tooltip("ci_low:Q", format="+.3f", title="CI low"),
            alt.Tooltip("ci_high:Q", format="+.3f", title="CI high"),
        ],
    )
).properties(width=420, height=150, title="Topic-labelled pass: Brier change per model")
alt.vconcat(arm_panel, brier_panel).properties(
    title="Result 3: a forged profile moves discrimination and calibration (exploratory)"
)

# %% [markdown]
# ## Run it on your model
#
# Everything above is computed from rows, so the question can be put to any model behind an OpenAI-compatible
# endpoint. `selfconf probe` measures the model's own per-domain accuracy on one half of a battery (a CSV with
# `question`, `answer` and `domain`), then asks the other half with each profile in the same calibration slot of
# the system prompt: an empty slot, a placebo, the measured profile, a shuffled one and a forged claim. It reports
# the arms and contrasts of this chapter, computed by the same functions, and flags the profile slot as manipulable
# when the forged claim moves stated confidence:
#
# ```bash
# selfconf probe --battery battery.csv --base-url URL --model MODEL --out runs/probe.jsonl --dry-run
# OPENAI_API_KEY=... selfconf probe --battery battery.csv --base-url URL --model MODEL --out runs/probe.jsonl
# selfconf probe --analyse-only data/reconstructed/ladder
# ```
#
# The dry run prints one rendered prompt per arm and the number of calls; the last command recomputes this
# chapter's ladder from the reconstruction's files without any call. The numbers on this page stay the
# reconstruction's.
#
# ### A worked example on a simulated model
#
# The manipulation reading on a model that is not a real one: the test stub's *profile-consuming* model (a scripted
# rule whose stated confidence follows the percentages in the calibration slot; its right and wrong answers do not
# depend on the slot), run in-process through `selfconf probe`'s own collection and analysis over a simulated
# battery of {glue:text}`r3sim_n_items` placeholder questions. These numbers are a simulation computed on this
# page, not the paper's data and not the reconstruction's.
#
# The forged claim moves its stated confidence by {glue:text}`r3sim_forged_off_shift:+.1f` points
# [{glue:text}`r3sim_forged_off_shift_lo:+.1f`, {glue:text}`r3sim_forged_off_shift_hi:+.1f`] over
# {glue:text}`r3sim_forged_off_n_pairs` matched cells, the interval above zero, so the probe's verdict on the slot is
# *{glue:text}`r3sim_manipulable`*; its AUROC moves by {glue:text}`r3sim_forged_off_auroc:+.3f`
# [{glue:text}`r3sim_forged_off_auroc_lo:+.3f`, {glue:text}`r3sim_forged_off_auroc_hi:+.3f`]. A profile-blind
# model (the stub's other scripted rule) gives an interval containing zero and is not flagged; the tests of the
# command check both.

# %%
from selfconf.cli import probe_sim
from selfconf.sections import probe as probe_analysis

sim = probe_sim.worked_example("probe-consuming", seed=seed, n_boot=n_boot)
sim_res = sim["result"]
sim_by = {(r["contrast"], r["metric"]): r for r in sim_res["contrasts"]}
for key, val in {
    "r3sim_n_items": sim["n_items"],
    "r3sim_forged_off_shift": sim_by[("forged-off", "mean_confidence")]["value"],
    "r3sim_forged_off_shift_lo": sim_by[("forged-off", "mean_confidence")]["ci_low"],
    "r3sim_forged_off_shift_hi": sim_by[("forged-off", "mean_confidence")]["ci_high"],
    "r3sim_forged_off_n_pairs": sim_by[("forged-off", "mean_confidence")]["n_pairs"],
    "r3sim_forged_off_auroc": sim_by[("forged-off", "auroc")]["value"],
    "r3sim_forged_off_auroc_lo": sim_by[("forged-off", "auroc")]["ci_low"],
    "r3sim_forged_off_auroc_hi": sim_by[("forged-off", "auroc")]["ci_high"],
    "r3sim_manipulable": "manipulable" if sim_res["checks"]["manipulable"] else "not manipulable",
}.items():
    glue.value(key, val, origin="simulation")
print(f"== {sim['model']} (simulation: a scripted model, not the paper's data)")
print(probe_analysis.format_tables(sim_res))
print("\n".join("* " + s for s in probe_analysis.sentences(sim_res)))
