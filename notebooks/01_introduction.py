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
# # Introduction
#
# *Numbers here are restated from the sections that compute them; the two Brier bounds of claim C3 are
# the smallest and largest of the four Brier changes computed in Result 3.*

# %% tags=["parameters", "remove-cell"]
seed = 0  # this page draws nothing; kept so every notebook takes the same parameters
n_boot = 2000
data_dir = "data/reconstructed"
book_dir = "book"

# %% tags=["remove-input"]
from selfconf.book import banner, glue
from selfconf.book.glue import glued_values, restate
from selfconf.data.sources import FAMILIES
from selfconf.sections import introduction

# this page reads no rows: it restates numbers of the pages that do, which resolve every family alike
RESTATED = {
    "intro_n_models": "design_n_models",
    "intro_models_per_provider": "design_models_per_provider",
    "intro_n_providers": "design_n_providers",
    "intro_n_local_models": "design_n_local_models",
    "intro_n_items": "design_n_items",
    "intro_conf_scale_min": "design_conf_scale_min",
    "intro_conf_scale_max": "design_conf_scale_max",
    "intro_n_graded_total": "design_n_graded_total",
    "intro_c1_median_band_min": "r1_median_band_min",
    "intro_c1_median_band_max": "r1_median_band_max",
    "intro_c1_n_models_in_band": "r1_n_models_median_in_band",
    "intro_c1_n_api_models": "r1_n_frontier_models",
    "intro_c1_acc_span_min": "r1_acc_span_min",
    "intro_c1_acc_span_max": "r1_acc_span_max",
    "intro_c1_highconf_wrong_pct": "r1_highconf_wrong_pooled_pct",
    "intro_c1_highconf_threshold": "r1_highconf_threshold",
    "intro_c1_self_auroc_span_min": "r1_self_auroc_span_min",
    "intro_c1_self_auroc_span_max": "r1_self_auroc_span_max",
    "intro_c1_n_models_below_threshold": "r1_n_models_below_threshold",
    "intro_c1_n_models_below_of": "r1_n_frontier_models",
    "intro_c1_auroc_threshold": "r1_auroc_threshold",
    "intro_c1_cn_panel_auroc": "cn_panel_auroc",
    "intro_c1_cn_self_auroc": "cn_self_auroc_pooled",
    "intro_c2_ladder_delta": "ladder_core_vs_placebo_delta",
    "intro_c2_ladder_p_raw": "ladder_core_vs_placebo_p_raw",
    "intro_c2_ladder_p_holm": "ladder_p_holm_adj",
    "intro_c2_ladder_n_confirmatory_rungs": "ladder_n_eligible_rungs",
    "intro_c3_expl_rung_shuffled_auroc": "expl_rung_shuffled_auroc",
    "intro_c3_expl_rung_core_auroc": "expl_rung_core_auroc",
    "intro_c3_fabricated_claim_pct": "microprobe_claim_high_pct",
    "intro_c3_microprobe_conf_before": "t4_glm4_conf_at_0",
    "intro_c3_microprobe_conf_after": "t4_glm4_conf_at_95",
    "intro_c3_topic_n_models_consumed": "topic_n_models_consumed",
    "intro_c3_topic_n_models": "topic_n_models",
}
for repeat, canonical in RESTATED.items():
    restate(repeat, canonical, book_dir=book_dir)
# A "drop" restates the core-minus-shuffled difference with its sign flipped (the CI ends swap).
restate("intro_c3_expl_rung_drop", "expl_rung_core_minus_shuffled_delta", negate=True, book_dir=book_dir)
restate("intro_c3_expl_rung_drop_ci_lo", "expl_rung_core_minus_shuffled_delta_ci_hi", negate=True, book_dir=book_dir)
restate("intro_c3_expl_rung_drop_ci_hi", "expl_rung_core_minus_shuffled_delta_ci_lo", negate=True, book_dir=book_dir)

# Derived here: the range of Brier changes over the local models whose calibration got worse
# (selfconf.sections.introduction, from the values Result 3 glued).
derived = introduction.compute({k: v["value"] for k, v in glued_values(book_dir).items()})
_ = glue.claims(derived.values)

# the banner states the seed of the pages whose values this page restates (its own draws nothing)
banner(data_dir, seed=glue.restated_seed(book_dir, default=seed), n_boot=n_boot, families=FAMILIES)

# %% [markdown]
# Evaluation practice has quietly started to use a model's stated confidence as a measuring instrument.
# LLM judges attach certainty scores to verdicts, agent frameworks route work by self-assessed
# competence, abstention policies fire on verbalised uncertainty, and calibration benchmarks take the
# self-report channel to be at least honest. The appeal is obvious — the number is free, always there and
# produced with the answer — and it is almost never audited where it is consumed. The paper asks three
# earlier questions: how well does the self-assessment signal discriminate, can it be repaired by showing
# the model its own measured profile, and can it be manipulated?
#
# The answer rests on a pre-registered, frozen, blind collection: {glue:text}`intro_n_models` models
# ({glue:text}`intro_models_per_provider` budget or mid-tier API model from each of
# {glue:text}`intro_n_providers` providers plus {glue:text}`intro_n_local_models` local open-weights models),
# each answering the same {glue:text}`intro_n_items:,.0f` post-2023 factual questions at temperature zero
# with a stated confidence from [{glue:text}`intro_conf_scale_min`]{.quoted} to
# [{glue:text}`intro_conf_scale_max`]{.quoted}: {glue:text}`intro_n_graded_total:,.0f` graded answers, every
# analysis a deterministic function of the raw rows. Against that yardstick the self-report channel fails
# three tests, each more lenient than the last.
#
# **C1 — weakly discriminative.** Stated confidence is saturated and detached from competence: medians sit
# between {glue:text}`intro_c1_median_band_min:.0f` and {glue:text}`intro_c1_median_band_max:.0f` for
# {glue:text}`intro_c1_n_models_in_band` of {glue:text}`intro_c1_n_api_models` API models while accuracy runs
# from {glue:text}`intro_c1_acc_span_min:.1f`% to {glue:text}`intro_c1_acc_span_max:.1f`%, and
# {glue:text}`intro_c1_highconf_wrong_pct:.1f`% of API answers stated at
# [{glue:text}`intro_c1_highconf_threshold`]{.quoted} or above are wrong. As a predictor of the model's own
# per-item correctness, self-confidence reaches an AUROC of only {glue:text}`intro_c1_self_auroc_span_min:.3f`
# to {glue:text}`intro_c1_self_auroc_span_max:.3f`. Every bootstrap interval excludes chance, yet
# {glue:text}`intro_c1_n_models_below_threshold` of {glue:text}`intro_c1_n_models_below_of` models stay below
# [{glue:text}`intro_c1_auroc_threshold`]{.quoted}. A panel of independent models reaches
# {glue:text}`intro_c1_cn_panel_auroc:.3f` where self-assessment gives {glue:text}`intro_c1_cn_self_auroc:.3f`;
# the apparent counterexample on another panel the paper's decomposition attributes mostly to model identity,
# not to per-item self-knowledge ([Result 1](04_result1.ipynb)).
#
# **C2 — no confirmatory repair.** Handing the model its own measured per-domain accuracy profile at answer
# time did not beat a placebo profile on the {glue:text}`intro_c2_ladder_n_confirmatory_rungs` confirmatory
# rung of a frozen ladder (ΔAUROC {glue:text}`intro_c2_ladder_delta:+.3f`, raw p =
# {glue:text}`intro_c2_ladder_p_raw:.3f`, Holm-adjusted {glue:text}`intro_c2_ladder_p_holm:.3f`). The paper
# reports this as a null, not a trend ([Result 2](05_result2.ipynb)).
#
# **C3 — manipulable.** The channel such a repair would use accepts forgeries. A shuffled, false profile took
# an exploratory rung's self-assessment AUROC to chance ({glue:text}`intro_c3_expl_rung_shuffled_auroc:.3f`
# against {glue:text}`intro_c3_expl_rung_core_auroc:.3f` with the true profile; a change of
# {glue:text}`intro_c3_expl_rung_drop:+.3f`, CI {glue:text}`intro_c3_expl_rung_drop_ci_lo:+.3f` to
# {glue:text}`intro_c3_expl_rung_drop_ci_hi:+.3f`); one fabricated
# "{glue:text}`intro_c3_fabricated_claim_pct`% accuracy" line moved a local model's confidence from
# {glue:text}`intro_c3_microprobe_conf_before:.0f` to {glue:text}`intro_c3_microprobe_conf_after:.0f` on an item it
# gets wrong; and with topic-labelled items, {glue:text}`intro_c3_topic_n_models_consumed` of
# {glue:text}`intro_c3_topic_n_models` local models took in a false profile to their cost (Brier up
# by {glue:text}`intro_c3_topic_brier_delta_min:+.3f` to {glue:text}`intro_c3_topic_brier_delta_max:+.3f`;
# [Result 3](06_result3.ipynb)).
#
# Together these argue for a change of role: self-assessed confidence should be a measured *target* of
# evaluation, not an unaudited *input* to it. [Implications](07_implications.ipynb) spells out what that
# means for judge pipelines, agent routing and harness design. A companion paper by the same author studies
# how the panel-based alternative fails; it is cited, not restated.
