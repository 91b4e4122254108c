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
# # Result 2: injecting the measured profile does not confirmably repair discrimination
#
# If stated confidence discriminates poorly, an obvious fix is to tell the model how good it actually
# is: put its own per-domain accuracy, measured on held-out data, into the prompt. This page recomputes
# the paper's test of that fix, a placebo-controlled *ladder*, from its scored rows: the degeneracy
# rule that decides which rungs may carry confirmatory weight, the per-arm table of the one eligible
# rung (Table 3), the pre-registered contrasts with their Holm correction, the power the design had,
# the oracle ceiling the paper uses to argue that the battery could have registered a repair, and the validation of the
# placebo profiles.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"

# %% tags=["remove-input"]
import altair as alt
import pandas as pd

from selfconf.book import banner, glue, show_markdown, table, vega
from selfconf.data import families
from selfconf.data.sources import resolve_families
from selfconf.sections import ladder, result2

vega.enable()
sources = resolve_families(data_dir, ["ladder"])  # from data_dir if there, else the reconstruction
banner(data_dir, seed=seed, n_boot=n_boot, families=sources)
ROWS = glue.rows_origin(sources)  # origin of numbers from these rows that the paper does not print


frames, profiles, ladder_report = families.load_ladder(sources.path("ladder"))
if ladder_report.unmapped_fields or ladder_report.unread_files:
    show_markdown(f"```text\n{ladder_report}\n```")


def glue_part(res, part):
    """Glue one part of a section's computed values: claims by id, other values with their origin."""
    for key, val, origin in res.items(part, rows_origin=ROWS):
        glue.claim(key, val) if origin == "claim" else glue.value(key, val, origin=origin)


# %% [markdown]
# ## The ladder and the degeneracy rule
#
# Each *rung* is one subject model answering the same battery under four blinded arms that fill the same
# calibration slot of an otherwise identical prompt: **OFF** (an empty, profile-shaped slot), **PLACEBO**
# (a profile matched to the model's overall accuracy but carrying no per-domain information), **CORE**
# (the model's own measured per-domain accuracy) and **SHUFFLED** (the true numbers permuted across
# domains, a false profile). The protocol fixed, before any confirmatory data existed, that a rung whose
# OFF-arm accuracy exceeds a bound is too close to the ceiling to test calibration repair and is dropped
# from all confirmatory computation. The rule is applied below to the rows, not to subject names.

# %% tags=["hide-input"]
bound = glue.quoted("ladder_degeneracy_bound")
glue.quoted("ladder_degeneracy_bound", as_id="r2_degeneracy_bound_2")
# the ladder's shape, counted from the rows (the audit holds each count against the paper's print)
all_rows = pd.concat(frames.values(), ignore_index=True)
n_rungs = glue.claim("ladder_n_rungs", len(frames))
for rep in ("r2_ladder_n_rungs_of", "r2_ladder_all_subjects", "r2_oracle_n_subjects"):
    glue.claim(rep, n_rungs)
glue.claim("ladder_n_arms", int(all_rows["arm"].nunique()))
glue.claim("ladder_n_replicates", int(all_rows["replicate"].nunique()))

res = result2.compute(frames, profiles, bound=bound, n_rungs=n_rungs, seed=seed, n_boot=n_boot)
glue_part(res, "rungs")
confirmatory = res["ladder_confirmatory_subject"]

shown = res.tables["status"].copy()
shown["off_accuracy"] = shown["off_accuracy"].map("{:.3f}".format)
shown["off_auroc"] = shown["off_auroc"].map("{:.3f}".format)
_ = table(
    shown.rename(columns={"off_accuracy": "OFF accuracy", "off_auroc": "OFF AUROC (answered)"}),
    "ladder_rungs",
    caption="Rungs, OFF-arm accuracy and the degeneracy rule",
)

# %% [markdown]
# The rule keeps {glue:text}`ladder_n_eligible_rungs` of {glue:text}`r2_ladder_n_rungs_of`
# rungs: {glue:text}`ladder_n_rungs_demoted` subjects have OFF accuracy above the bound of
# [{glue:text}`ladder_degeneracy_bound:.2f`]{.quoted}, at {glue:text}`ladder_demoted_rung1_off_acc:.3f`,
# {glue:text}`ladder_demoted_rung2_off_acc:.3f` and {glue:text}`ladder_demoted_rung3_off_acc:.3f`, while the
# surviving rung sits just under it at {glue:text}`r2_surviving_off_acc:.3f` (against
# [{glue:text}`r2_degeneracy_bound_2:.2f`]{.quoted}). Near the ceiling there is little left to repair: the
# demoted rungs' OFF-arm AUROCs on answered rows are {glue:text}`ladder_demoted_rung1_off_auroc:.3f`,
# {glue:text}`ladder_demoted_rung2_off_auroc:.3f` and {glue:text}`ladder_demoted_rung3_off_auroc:.3f`
# (listed in order of OFF accuracy; the paper does not tie these numbers to subject names, and neither does
# this page's text). All {glue:text}`r2_ladder_all_subjects` subjects come from one vendor family,
# a limit discussed on the [Limitations](08_limitations.ipynb) page.
#
# ## The battery

# %% tags=["hide-input"]
glue_part(res, "battery")
_ = table(
    res.tables["per_bin"],
    "ladder_battery_bins",
    caption="Battery: items per domain bin (every bin holds one trap item)",
)

# %% [markdown]
# The battery has {glue:text}`ladder_n_items_battery` items in {glue:text}`ladder_n_bins` domain bins;
# {glue:text}`ladder_n_trap_items` of them are trap items (questions without a defensible short answer,
# where abstaining is the right move, answered through an explicit abstention token) and
# {glue:text}`ladder_n_nontrap_items` are scored. Item-to-arm assignments were frozen before the
# confirmatory phase, the arm order was randomised per item, and arm names never appeared in the text the
# subject saw.
#
# ## Table 3: the eligible rung
#
# Accuracy is over all scored rows of an arm (a failed or abstained row counts as not correct);
# AUROC, Brier and ECE use only the rows that were answered with a confidence. The paired Δ column
# compares CORE with each arm on the item × replicate cells answered in both arms, with items resampled
# (both replicates and both arms of an item travel together); it is therefore not the difference of the
# AUROC column.

# %% tags=["hide-input"]
t3, contr = res.tables["arm_table"], res.tables["contrasts"]
glue_part(res, "table3")  # the wording compares ECE and Brier at the printed three decimals (lower is better)
ALPHA = result2.ALPHA  # the test level of the design

rows, t3_ids = [], {}
for i, arm in enumerate(ladder.ARMS):
    r = t3.loc[arm]
    c = contr.loc[f"core-{arm}"] if arm != "core" else None
    paired = {"paired Δ vs CORE": "", "CI low": "", "CI high": ""}
    if arm == "core":
        paired["paired Δ vs CORE"] = "(reference)"
    elif arm == "shuffled":
        paired["paired Δ vs CORE"] = "— (exploratory, see Result 3)"
    else:
        paired = {
            "paired Δ vs CORE": f"{c['delta']:+.3f}",
            "CI low": f"{c['ci_low']:+.3f}",
            "CI high": f"{c['ci_high']:+.3f}",
        }
        t3_ids.update(
            {
                (i, "paired Δ vs CORE"): f"ladder_core_vs_{arm}_delta",
                (i, "CI low"): f"ladder_core_vs_{arm}_delta_ci_lo",
                (i, "CI high"): f"ladder_core_vs_{arm}_delta_ci_hi",
            }
        )
    rows.append(
        {
            "Arm": arm.upper(),
            "n": int(r["n_rows"]),
            "Acc. (all items)": f"{r['accuracy']:.3f}",
            "answered": int(r["n_answered"]),
            "AUROC (answered)": f"{r['auroc']:.3f}",
            "Brier": f"{r['brier']:.3f}",
            "ECE": f"{r['ece']:.3f}",
            **paired,
        }
    )
    t3_ids.update(
        {
            (i, "Acc. (all items)"): f"t3_{arm}_acc",
            (i, "AUROC (answered)"): f"t3_{arm}_auroc",
            (i, "Brier"): f"t3_{arm}_brier",
            (i, "ECE"): f"t3_{arm}_ece",
        }
    )
_ = table(
    pd.DataFrame(rows), "table3_ladder", caption="Profile-injection ladder, confirmatory-eligible rung", claims=t3_ids
)

# %% [markdown]
# The paper's caption of Table 3 restates the confirmatory family: CORE − PLACEBO
# {glue:text}`t3cap_core_vs_placebo_delta:+.3f` [{glue:text}`t3cap_core_vs_placebo_ci_lo:+.3f`,
# {glue:text}`t3cap_core_vs_placebo_ci_hi:+.3f`], raw p = {glue:text}`t3cap_core_vs_placebo_p_raw:.3f`, Holm-adjusted
# p = {glue:text}`t3cap_p_holm_adj:.3f`; the ladder has {glue:text}`ladder_n_rungs` rungs and
# {glue:text}`ladder_n_arms` arms.

# %% [markdown]
# Each arm holds {glue:text}`ladder_n_rows_per_arm` scored rows ({glue:text}`ladder_n_nontrap_items`
# items × {glue:text}`ladder_n_replicates` pre-registered fresh-process replicates; the harness
# exposes neither temperature nor seed). CORE's answered-only AUROC is {glue:text}`t3_core_auroc:.3f`
# against {glue:text}`t3_placebo_auroc:.3f` for PLACEBO and {glue:text}`t3_off_auroc:.3f` for OFF, with
# accuracies of {glue:text}`t3_core_acc:.3f`, {glue:text}`t3_placebo_acc:.3f` and {glue:text}`t3_off_acc:.3f`.
# On calibration (lower is better for both scores), CORE's ECE ({glue:text}`t3cap_core_ece:.3f`) is
# {glue:text}`r2_ece_core_vs_placebo` PLACEBO's ({glue:text}`t3cap_placebo_ece:.3f`), and its Brier score
# ({glue:text}`t3_core_brier:.3f`) is {glue:text}`r2_brier_core_vs_placebo` PLACEBO's
# ({glue:text}`t3_placebo_brier:.3f`).
#
# ## The confirmatory test
#
# The pre-registered family has two contrasts, CORE > PLACEBO (primary) and CORE > OFF, each an
# item-clustered paired bootstrap on matched answered cells, with two-sided bootstrap p-values and Holm's
# correction applied to the unrounded p-values.
#
# *Confirmatory.* CORE against PLACEBO: ΔAUROC {glue:text}`r2_ladder_delta:+.3f`, 95% CI
# [{glue:text}`r2_ladder_delta_ci_lo:+.3f`, {glue:text}`r2_ladder_delta_ci_hi:+.3f`], raw
# p = {glue:text}`ladder_core_vs_placebo_p_raw:.3f`. CORE against OFF: {glue:text}`t3cap_core_vs_off_delta:+.3f`,
# CI [{glue:text}`t3cap_core_vs_off_ci_lo:+.3f`, {glue:text}`t3cap_core_vs_off_ci_hi:+.3f`], raw
# p = {glue:text}`ladder_core_vs_off_p_raw:.3f`. After Holm (with two contrasts: the smaller raw p doubled, the
# larger kept, then made monotone) the adjusted p-values are {glue:text}`ladder_p_holm_adj:.3f` for CORE >
# PLACEBO and {glue:text}`ladder_core_vs_off_p_holm:.3f` for CORE > OFF. {glue:text}`r2_holm_equal`, and
# {glue:text}`r2_holm_verdict`. [The paper also reports that the pre-registered item × batch robustness gate
# was not met]{.quoted}: the rows carry no collection-batch field, so the book does not compute that gate. The scope of this null
# is narrow: on {glue:text}`r2_ladder_n_rungs_scope` confirmatory rung, injecting the measured profile did
# not demonstrably repair discrimination. The point estimate is positive; the data fit both no effect and
# a small one.
#
# {glue:text}`r2_core_off_reading` (The paper prints CORE > OFF as [{printed}`ladder_core_vs_off_delta_ci_lo`,
# {printed}`ladder_core_vs_off_delta_ci_hi`] with raw p = {printed}`ladder_core_vs_off_p_raw`.)

# %% tags=["hide-input"]
holm_df = contr.loc[
    ["core-placebo", "core-off"], ["n_pairs", "delta", "ci_low", "ci_high", "p_raw", "p_holm"]
].reset_index()
holm_show = pd.DataFrame(
    {
        "contrast": ["CORE > " + c.split("-", 1)[1].upper() for c in holm_df["contrast"]],
        "matched cells": holm_df["n_pairs"].astype(int),
        "ΔAUROC": [f"{v:+.5f}" for v in holm_df["delta"]],
        "95% CI": [f"[{lo:+.5f}, {hi:+.5f}]" for lo, hi in zip(holm_df["ci_low"], holm_df["ci_high"], strict=True)],
        "raw p": [f"{v:.5f}" for v in holm_df["p_raw"]],
        "Holm-adjusted p": [f"{v:.5f}" for v in holm_df["p_holm"]],
    }
)
_ = table(
    holm_show,
    "ladder_confirmatory_family",
    caption="Confirmatory family with Holm adjustment (unrounded values, five decimals)",
)

# %% [markdown]
# The paper's printed Holm value cannot be recomputed from its own rounded raw p-values; it needs an
# unrounded CORE > OFF p inside a narrow interval (the arithmetic, from the printed numbers alone, is on the
# [consistency page](13_consistency.ipynb)). This page applies Holm to unrounded p-values; here the unrounded
# CORE > OFF value is {glue:text}`ladder_holm_raw_off_unrounded:.5f`. A bootstrap p-value from {glue:text}`ladder_n_boot` draws
# moves in steps of 1/{glue:text}`ladder_n_boot` per tail, so whether the third decimal of the Holm value
# matches depends on the draws; the audit page judges it with the Monte-Carlo tolerance of its inputs.
#
# ## What the design could detect

# %% tags=["hide-input"]
glue_part(res, "power")
# the paper's SE and smallest detectable effect are read off the interval: computed here, judged by the audit
glue.claim("ladder_power_se", res["ladder_power_se_computed"])
glue.claim("ladder_power_min_delta", res["ladder_power_min_delta_computed"])
pct_q = glue.quoted("ladder_power_pct")
power_df = pd.DataFrame(
    {
        "quantity": [
            "SE of ΔAUROC from the CI width",
            f"smallest Δ with {100 * result2.TARGET_POWER:.0f}% power (two-sided α = {ALPHA:.2f})",
            "power at the observed Δ",
        ],
        "recomputed here": [
            f"{res['ladder_power_se_computed']:.4f}",
            f"{res['ladder_power_min_delta_computed']:.4f}",
            f"{res['ladder_power_at_observed_pct']:.0f}%",
        ],
        "paper prints": ["", "", "—"],
    }
)
_ = table(
    power_df,
    "ladder_power",
    caption="Power of the confirmatory contrast: recomputed from the interval, next to the paper's printed figures",
    printed={(0, "paper prints"): "ladder_power_se", (1, "paper prints"): "ladder_power_min_delta"},
)

# %% [markdown]
# The design was sized for moderate effects. Reading the standard error off the confirmatory interval
# (width / 2·1.96) gives {glue:text}`ladder_power_se_computed:.4f` here. The paper's figures, recomputed at
# its decimals (each marked where it prints differently): SE ≈ {glue:text}`ladder_power_se:.3f`, and
# ~[{glue:text}`ladder_power_pct:.0f`%]{.quoted} power only for ΔAUROC ≥ {glue:text}`ladder_power_min_delta:.2f`.
# With the recomputed SE the
# smallest effect detected with {glue:text}`r2_power_target_pct:.0f`% power is {glue:text}`ladder_power_min_delta_computed:.3f`, larger than
# the observed {glue:text}`r2_ladder_delta_observed:+.3f`. A power computed at the observed effect (here
# {glue:text}`ladder_power_at_observed_pct:.0f`%) is a one-to-one function of the observed p-value and adds
# nothing to it (Hoenig & Heisey 2001, "The abuse of power"); the paper does not print one, so it is not read
# as evidence here. The paper reads its power figures off the interval in the
# same way; the 80 % target is the design's choice and stays quoted.
#
# ## The ceiling was not the limit: the oracle
#
# Could any profile have helped on this battery? Give each item, as its only predictor, the accuracy of
# the *other* items in its bin (all rows of the item left out together, so an item never predicts itself),
# and score that predictor against correctness on all parsed scored rows of every arm and replicate.

# %% tags=["hide-input"]
glue_part(res, "oracle")
ba = res.tables["oracle_bin_acc"]
chart = (
    alt.Chart(ba)
    .mark_bar()
    .encode(
        x=alt.X("accuracy:Q", title="bin accuracy (all arms, parsed scored rows)", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("bin:N", sort="-x", title=None),
        tooltip=["bin", alt.Tooltip("accuracy:Q", format=".3f")],
    )
    .properties(width=420, height=360, title="Per-bin accuracy of the confirmatory rung")
)
chart

# %% tags=["hide-input"]
orc = res.tables["oracle"]
_ = table(
    pd.DataFrame(
        {
            "subject": orc["subject"],
            "oracle AUROC": [f"{v:.3f}" for v in orc["auroc"]],
            "rows": orc["n_rows"],
            "bin-accuracy SD": [f"{v:.3f}" for v in orc["bin_acc_sd"]],
        }
    ),
    "ladder_oracle",
    caption="Oracle ceiling per ladder subject",
)

# %% [markdown]
# For the confirmatory subject the oracle reaches {glue:text}`oracle_auroc_confirmatory:.3f` on
# {glue:text}`oracle_n_rows_confirmatory:,.0f` rows, and {glue:text}`oracle_auroc_subjects_min:.3f`–{glue:text}`oracle_auroc_subjects_max:.3f`
# across the {glue:text}`r2_oracle_n_subjects` ladder subjects. Per-bin accuracy has a (sample) SD
# of {glue:text}`oracle_bin_acc_sd:.3f` and runs from {glue:text}`oracle_bin_acc_range_min:.2f` to
# {glue:text}`oracle_bin_acc_range_max:.2f` over the {glue:text}`r2_oracle_n_bins` bins. The paper reads these
# values as bins that really differ, so that a truthful profile carries real information and the null above
# is about the injection channel, not a battery too flat to show a repair. The shipped reconstruction tunes
# the ladder's rows to reproduce these values, so with those rows (see the banner) this page restates that
# argument rather than testing it. Patterns seen only in
# exploratory cuts (for example larger gains where baseline calibration is weakest) generate hypotheses
# and nothing more.
#
# ## Placebo validation
#
# A placebo profile must look like a profile (same overall level) while carrying no domain information.
# The protocol validated each rung by the correlation between its placebo profile and its true profile
# over the {glue:text}`r2_oracle_n_bins` bins; this book uses Spearman's rank correlation (ties at average ranks), which the paper's
# ρ suggests but does not state.

# %% tags=["hide-input"]
rho_bound = glue.quoted("ladder_placebo_rho_bound")
glue_part(res, "placebo")
prow = [
    {
        "subject": r["subject"],
        "Spearman ρ (placebo vs true)": f"{r['rho']:+.4f}",
        "passes |ρ| < bound": abs(r["rho"]) < rho_bound,
        "mean true profile": f"{r['mean_core']:.3f}",
        "mean placebo": f"{r['mean_placebo']:.3f}",
    }
    for _, r in res.tables["placebo"].iterrows()
]
_ = table(pd.DataFrame(prow), "ladder_placebo_validation", caption="Placebo validation per rung")

# %% [markdown]
# Measured in subject order (Haiku 4.5, Sonnet 5, Opus 4.8, Fable 5), the correlations are
# ρ = {glue:text}`ladder_placebo_rho_haiku:+.3f`, {glue:text}`ladder_placebo_rho_sonnet:+.4f`,
# {glue:text}`ladder_placebo_rho_opus:+.3f` and {glue:text}`ladder_placebo_rho_fable:+.3f`, all inside the
# pre-registered |ρ| < [{glue:text}`ladder_placebo_rho_bound:.2f`]{.quoted}, and each placebo keeps the
# true profile's overall level to within a grid step. (The paper lists the four values without saying
# which rung each belongs to; the order above is the reconstruction's assumption.)

# %% [markdown]
# ## The contrasts against zero
#
# The figure puts the two confirmatory contrasts and the exploratory one on one scale. Each line is a
# paired ΔAUROC with its 95% item-clustered bootstrap interval, the point its estimate; the dashed line is no
# difference. The confirmatory contrasts are labelled with their Holm-adjusted p-value and verdict at the test
# level α = {glue:text}`r2_alpha:.2f`; the exploratory contrast carries no test.

# %% tags=["remove-input"]
contrast_rows = []
for key, role in (("core-placebo", "confirmatory"), ("core-off", "confirmatory"), ("core-shuffled", "exploratory")):
    c = contr.loc[key]
    if role == "confirmatory":
        verdict = f"Holm p = {c['p_holm']:.3f}: " + ("passes" if c["p_holm"] < ALPHA else "does not pass")
    else:
        verdict = "exploratory: no test"
    contrast_rows.append(
        {
            "contrast": "CORE − " + key.split("-", 1)[1].upper(),
            "role": role,
            "delta": float(c["delta"]),
            "low": float(c["ci_low"]),
            "high": float(c["ci_high"]),
            "verdict": verdict,
        }
    )
contrast_df = pd.DataFrame(contrast_rows)
c_base = alt.Chart(contrast_df).encode(y=alt.Y("contrast:N", sort=list(contrast_df["contrast"]), title=None))
c_zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(strokeDash=[4, 4], color="gray").encode(x="x:Q")
c_role = alt.Color(
    "role:N",
    scale=alt.Scale(domain=["confirmatory", "exploratory"], range=["#1f77b4", "#8c8c8c"]),
    title=None,
    legend=alt.Legend(orient="bottom"),
)
(
    c_zero
    + c_base.mark_rule(strokeWidth=2).encode(
        x=alt.X("low:Q", title="paired ΔAUROC with 95% bootstrap interval"), x2="high:Q", color=c_role
    )
    + c_base.mark_point(filled=True, size=70).encode(
        x="delta:Q",
        color=c_role,
        tooltip=[
            "contrast",
            "role",
            alt.Tooltip("delta:Q", format="+.3f", title="ΔAUROC"),
            alt.Tooltip("low:Q", format="+.3f", title="CI low"),
            alt.Tooltip("high:Q", format="+.3f", title="CI high"),
            "verdict",
        ],
    )
    + c_base.mark_text(align="left", dx=6, dy=-10, fontSize=11).encode(x="delta:Q", text="verdict:N")
).properties(
    width=420, height=150, title="Result 2: the ladder's contrasts against zero, with the Holm-adjusted verdicts"
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
# What the command prints, on a model that is not a real one: the test stub's *profile-consuming* model, a scripted
# rule whose stated confidence follows whatever percentages the calibration slot holds while its right and wrong
# answers do not depend on the slot at all. The cell below runs `selfconf probe`'s own collection code on it
# in-process (no network) over a simulated battery of {glue:text}`r2sim_n_items` placeholder questions in
# {glue:text}`r2sim_n_domains` domains (one replicate per item and arm: {glue:text}`r2sim_n_calls` calls), then the
# analysis of `--analyse-only`.
# These numbers are a simulation computed on this page, not the paper's data and not the reconstruction's.
#
# Because the scripted model's confidence moves with the slot by the same amount for every question of an arm, the
# slot shifts stated confidence (core - off {glue:text}`r2sim_core_off_shift:+.1f` points,
# [{glue:text}`r2sim_core_off_shift_lo:+.1f`, {glue:text}`r2sim_core_off_shift_hi:+.1f`]) and shows no repair:
# core - placebo AUROC {glue:text}`r2sim_core_placebo:+.3f`
# [{glue:text}`r2sim_core_placebo_lo:+.3f`, {glue:text}`r2sim_core_placebo_hi:+.3f`], Holm p =
# {glue:text}`r2sim_core_placebo_p_holm:.3f`. A model that consumes its profile is not thereby a model the profile
# repairs; the probe separates the two readings.

# %%
from selfconf.cli import probe_sim
from selfconf.sections import probe as probe_analysis

sim = probe_sim.worked_example("probe-consuming", seed=seed, n_boot=n_boot)
sim_res = sim["result"]
sim_by = {(r["contrast"], r["metric"]): r for r in sim_res["contrasts"]}
for key, val in {
    "r2sim_n_items": sim["n_items"],
    "r2sim_n_domains": len(probe_sim.SIM_DOMAINS),
    "r2sim_n_calls": sim["n_calls"],
    "r2sim_core_placebo": sim_by[("core-placebo", "auroc")]["value"],
    "r2sim_core_placebo_lo": sim_by[("core-placebo", "auroc")]["ci_low"],
    "r2sim_core_placebo_hi": sim_by[("core-placebo", "auroc")]["ci_high"],
    "r2sim_core_placebo_p_holm": sim_by[("core-placebo", "auroc")]["p_holm"],
    "r2sim_core_off_shift": sim_by[("core-off", "mean_confidence")]["value"],
    "r2sim_core_off_shift_lo": sim_by[("core-off", "mean_confidence")]["ci_low"],
    "r2sim_core_off_shift_hi": sim_by[("core-off", "mean_confidence")]["ci_high"],
}.items():
    glue.value(key, val, origin="simulation")
print(f"== {sim['model']} (simulation: a scripted model, not the paper's data)")
print(probe_analysis.format_tables(sim_res))
print("\n".join("* " + s for s in probe_analysis.sentences(sim_res)))
