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
# # Abstract
#
# *This page restates numbers computed in later sections; it computes nothing itself. Each number is
# pasted from the notebook that computed it (follow the section links), and the audit checks that every
# restatement carries its source's value.*

# %% tags=["parameters", "remove-cell"]
seed = 0  # this page draws nothing; kept so every notebook takes the same parameters
n_boot = 2000
data_dir = "data/reconstructed"
book_dir = "book"

# %% tags=["remove-input"]
from selfconf.book import banner, glue
from selfconf.book.glue import ORIGIN_SUFFIX, glued_values, restate
from selfconf.book.glue import value as glue_value
from selfconf.data.sources import FAMILIES

# this page reads no rows: it restates numbers of the pages that do, which resolve every family alike
RESTATED = {
    # repeat id: canonical id (section where it is computed)
    "abs_n_models": "design_n_models",
    "abs_models_per_provider": "design_models_per_provider",
    "abs_n_providers": "design_n_providers",
    "abs_n_local_models": "design_n_local_models",
    "abs_n_graded_total": "design_n_graded_total",
    "abs_conf_scale_min": "design_conf_scale_min",
    "abs_conf_scale_max": "design_conf_scale_max",
    "abs_n_models_overconfident": "design_n_models",
    "abs_median_band_min": "r1_median_band_min",
    "abs_median_band_max": "r1_median_band_max",
    "abs_n_models_in_band": "r1_n_models_median_in_band",
    "abs_n_api_models_band": "r1_n_frontier_models",
    "abs_acc_span_min": "r1_acc_span_min",
    "abs_acc_span_max": "r1_acc_span_max",
    "abs_highconf_wrong_pct": "r1_highconf_wrong_pooled_pct",
    "abs_highconf_threshold": "r1_highconf_threshold",
    "abs_self_auroc_span_min": "r1_self_auroc_span_min",
    "abs_self_auroc_span_max": "r1_self_auroc_span_max",
    "abs_auroc_threshold": "r1_auroc_threshold",
    "abs_n_models_below_threshold": "r1_n_models_below_threshold",
    "abs_n_api_models_below": "r1_n_frontier_models",
    "abs_cn_panel_auroc": "cn_panel_auroc",
    "abs_cn_self_auroc": "cn_self_auroc_pooled",
    "abs_cn_delta": "cn_panel_vs_self_delta",
    "abs_cn_delta_ci_lo": "cn_panel_vs_self_delta_ci_lo",
    "abs_cn_delta_ci_hi": "cn_panel_vs_self_delta_ci_hi",
    "abs_cn_panel_auroc_labelfree": "cn_panel_auroc_labelfree",
    "abs_cn_self_auroc_labelfree_cmp": "cn_self_auroc_pooled",
    "abs_ladder_delta": "ladder_core_vs_placebo_delta",
    "abs_ladder_p_holm": "ladder_p_holm_adj",
    "abs_ladder_n_confirmatory_rungs": "ladder_n_eligible_rungs",
    "abs_expl_rung_shuffled_auroc": "expl_rung_shuffled_auroc",
    "abs_topic_n_models_consumed": "topic_n_models_consumed",
    "abs_topic_n_models": "topic_n_models",
    "abs_n_models_confirmatory": "design_n_models",
    "abs_ladder_n_confirmatory_rungs_2": "ladder_n_eligible_rungs",
}
for repeat, canonical in RESTATED.items():
    restate(repeat, canonical, book_dir=book_dir)
# values the paper prints in its sections rather than its abstract, pasted under their own claim ids
for cid in ("us_self_auroc_pooled", "us_panel_auroc", "topic_n_probes_per_arm"):
    restate(cid, cid, book_dir=book_dir)
# a sentence Result 3 generates from its computed intervals, pasted with the origin it was glued with there
_vals = glued_values(book_dir)
for key in ("topic_ci_zero_phrase",):
    if key not in _vals:
        raise KeyError(f"{key} is not glued by any executed notebook in {book_dir}/ (execute Result 3 first)")
    glue_value(key, _vals[key]["value"], origin=_vals[f"{key}{ORIGIN_SUFFIX}"]["value"])

# the banner states the seed of the pages whose values this page restates (its own draws nothing)
banner(data_dir, seed=glue.restated_seed(book_dir, default=seed), n_boot=n_boot, families=FAMILIES)

# %% [markdown]
# Evaluation pipelines increasingly treat the confidence a model states next to its answer as something
# to act on: a weight for its vote, a trigger for abstaining, a self-reported competence profile. The
# paper tests whether that number has earned the role. Its evidence is a pre-registered collection run
# under a frozen protocol: {glue:text}`abs_n_models` models ({glue:text}`abs_models_per_provider` low-cost
# or mid-tier API model from each of {glue:text}`abs_n_providers` providers plus
# {glue:text}`abs_n_local_models` local open-weights models), {glue:text}`abs_n_graded_total:,.0f` graded
# answers at temperature zero, each with a stated confidence on a
# [{glue:text}`abs_conf_scale_min`]{.quoted}–[{glue:text}`abs_conf_scale_max`]{.quoted} scale.
#
# **1. Overconfidence in every evaluated model.** Overconfidence is consistent across all
# {glue:text}`abs_n_models_overconfident` evaluated models: each states more confidence than its accuracy
# supports. For {glue:text}`abs_n_models_in_band` of the {glue:text}`abs_n_api_models_band` API models the
# typical (median) stated confidence lies between {glue:text}`abs_median_band_min:.0f` and
# {glue:text}`abs_median_band_max:.0f`, while accuracy ranges from {glue:text}`abs_acc_span_min:.1f`% to
# {glue:text}`abs_acc_span_max:.1f`%; of the API answers stated at [{glue:text}`abs_highconf_threshold`]{.quoted}
# or more, {glue:text}`abs_highconf_wrong_pct:.1f`% are wrong.
#
# **2. Weak discrimination.** Used to predict whether the model's own answer is right, stated confidence
# reaches an AUROC between {glue:text}`abs_self_auroc_span_min:.3f` and
# {glue:text}`abs_self_auroc_span_max:.3f`; {glue:text}`abs_n_models_below_threshold` of
# {glue:text}`abs_n_api_models_below` API models fall below [{glue:text}`abs_auroc_threshold`]{.quoted}.
#
# **3. On the headline panel, independent models do better.** On the headline (CN) panel, agreement among
# independent models reaches an AUROC of {glue:text}`abs_cn_panel_auroc:.3f` where the members' own confidence
# gives {glue:text}`abs_cn_self_auroc:.3f` (difference {glue:text}`abs_cn_delta:+.3f`, 95% CI
# {glue:text}`abs_cn_delta_ci_lo:+.3f` to {glue:text}`abs_cn_delta_ci_hi:+.3f`). Recoding agreement without
# consulting any correctness label keeps the panel ahead ({glue:text}`abs_cn_panel_auroc_labelfree:.3f`
# against {glue:text}`abs_cn_self_auroc_labelfree_cmp:.3f`). It is not a rule for every panel: on the US panel
# the pooled comparison appears to reverse (self-confidence {glue:text}`us_self_auroc_pooled:.3f` against the
# panel's {glue:text}`us_panel_auroc:.3f`), which the paper attributes largely to which model answered rather
# than to per-item self-knowledge ([Result 1](04_result1.ipynb)).
#
# **4. Injection does not repair, and can be abused.** Giving a model its own measured per-domain accuracy
# profile did not demonstrably improve discrimination on the {glue:text}`abs_ladder_n_confirmatory_rungs`
# confirmatory rung of a placebo-controlled ladder run on a single vendor's models (ΔAUROC
# {glue:text}`abs_ladder_delta:+.3f`, Holm-adjusted p = {glue:text}`abs_ladder_p_holm:.3f`). The same slot is
# causally manipulable in exploratory runs: a false profile drove an exploratory rung's self-assessment AUROC to
# chance ({glue:text}`abs_expl_rung_shuffled_auroc:.3f`), and once items carried topic labels it worsened
# calibration for {glue:text}`abs_topic_n_models_consumed` of {glue:text}`abs_topic_n_models` local
# models in their point estimates. {glue:text}`topic_ci_zero_phrase` at
# n = {glue:text}`topic_n_probes_per_arm` probes per arm contains zero, so that pass gives a
# direction and a mechanism, not per-model effect sizes.
#
# The paper concludes that self-assessed confidence, as currently elicited (measured here as verbalised integer
# confidence on open-form factual recall), is a target for measurement, not an input to trust: a system that
# consumes self-reported competence inherits an unauthenticated input channel.
#
# The three parts of the title rest on evidence of different strength, labelled throughout: *weakly
# discriminative* is confirmatory across {glue:text}`abs_n_models_confirmatory` models; *not repaired* is
# {glue:text}`abs_ladder_n_confirmatory_rungs_2` confirmatory rung in one vendor family, underpowered for the
# effect seen; *manipulable* is exploratory — the paper shows the causal direction on matched items, but no
# attack on a deployed system was tested. Judge-style evaluation, where one model grades another's answer, is a
# different task and is not studied.
