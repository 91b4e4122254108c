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
# # Limitations
#
# The paper lists what its evidence does not cover. Where a limitation comes with numbers from an arm
# that has row-level data (the two-stage elicitation arm, the cross-family regrade, the ladder), they are
# recomputed here; human checks and audits with no released rows are quoted and marked as such.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"

# %% tags=["remove-input"]
import altair as alt
import numpy as np
import pandas as pd

from selfconf import data
from selfconf.data import families
from selfconf.book import glue, vega
from selfconf.sections import ladder, manipulation
from selfconf.book import banner, show_markdown, table
from selfconf.data.sources import resolve_families

vega.enable()
sources = resolve_families(data_dir, ["collection", "twostage", "ladder", "regrade"])  # each from data_dir if there, else the reconstruction
banner(data_dir, seed=seed, n_boot=n_boot, families=sources)
ROWS = glue.rows_origin(sources)  # origin of numbers from these rows that the paper does not print
twostage_rows, twostage_report = families.load_twostage(sources.path("twostage"))
frames, _profiles, ladder_report = families.load_ladder(sources.path("ladder"))
regrade_rows, regrade_report = families.load_regrade(sources.path("regrade"))
for _rep in (twostage_report, ladder_report, regrade_report):
    if _rep.unmapped_fields or _rep.unread_files:
        show_markdown(f"```text\n{_rep}\n```")



# %% [markdown]
# ## Scope of the headline
#
# One benchmark family carries the headline (open-form factual QA written after 2023), and each provider
# is represented by a single model.

# %% tags=["hide-input"]
rows, _excl = data.load_collection(sources.path("collection"))
frontier = rows[rows["tier"] == "frontier"][["model", "model_id"]].drop_duplicates()
glue.claim("lim_models_per_provider", int(frontier.groupby("model")["model_id"].nunique().max()));

# %% [markdown]
# With {glue:text}`lim_models_per_provider` budget or mid-tier model per provider, nothing here speaks for
# a provider's whole line-up. Stated confidence is also elicited in one prompt format for the headline
# numbers; the next section is the paper's check that the format is not to blame.
#
# ## Elicitation format: the two-stage arm (exploratory, a labelled deviation)
#
# A small arm asked the same questions twice over: once with answer and confidence in one reply
# (*inline*) and once with a stateless follow-up call that asks only for confidence (*post hoc*). Because
# the string-only grader leaves most of these answers unresolvable, the arm uses deterministic labels that
# need no LLM; answers those labels cannot resolve are left out and counted.

# %% tags=["hide-input"]
tsd = twostage_rows
glue.quoted("twostage_n_items")
glue.quoted("twostage_n_models")
glue.quoted("twostage_unresolvable_pct")
glue.value("twostage_n_items_rows", int(tsd["item_id"].nunique()), origin=ROWS)
glue.value("twostage_n_models_rows", int(tsd["model"].nunique()), origin=ROWS)
au = manipulation.twostage_auroc(tsd)
cov = tsd[tsd["format"] == "inline"].groupby("model")["label"].apply(lambda s: int((s != "unresolved").sum()))
glue.value("twostage_n_unresolved", int((tsd["label"] == "unresolved").sum()), origin=ROWS)
tc = manipulation.twostage_contrast(tsd, n_boot=n_boot, seed=seed)
glue.claims({
    "twostage_self_auroc_min": au["auroc"].min(), "twostage_self_auroc_max": au["auroc"].max(),
    "twostage_rows_per_model_min": int(au.groupby("model")["n_labelled"].min().min()),
    "twostage_rows_per_model_max": int(au.groupby("model")["n_labelled"].min().max()),
    "twostage_delta_auroc": tc["estimate"], "twostage_delta_auroc_ci_lo": tc["low"],
    "twostage_delta_auroc_ci_hi": tc["high"], "twostage_n_pairs": tc["n_pairs"],
})
mc = au.pivot_table(index="model", columns="format", values="mean_conf")
glue.value("twostage_mean_conf_inline", float(au.loc[au["format"] == "inline", "mean_conf"].mean()), origin=ROWS)
glue.value("twostage_mean_conf_posthoc", float(au.loc[au["format"] == "posthoc", "mean_conf"].mean()), origin=ROWS)
au_show = pd.DataFrame({
    "model": au["model"], "format": au["format"].map({"inline": "inline", "posthoc": "post hoc"}).fillna(au["format"]),
    "labelled rows": au["n_labelled"].astype(int),
    "accuracy (%)": [f"{100 * v:.1f}" for v in au["accuracy"]],
    "mean confidence (0–100)": [f"{v:.1f}" for v in au["mean_conf"]],
    "self-AUROC": [f"{v:.3f}" for v in au["auroc"]],
})
_ = table(au_show, "limitations_twostage",
          caption="Two-stage arm: labelled rows, accuracy, mean confidence and AUROC per model and format")

# %% tags=["hide-input"]
alt.Chart(au).mark_point(filled=True, size=80).encode(
    x=alt.X("auroc:Q", title="self-AUROC (labelled rows)", scale=alt.Scale(domain=[0.3, 0.7])),
    y=alt.Y("model:N", title=None), color=alt.Color("format:N"),
    tooltip=["model", "format", alt.Tooltip("auroc:Q", format=".3f"), "n_labelled"]).properties(
    width=420, height=180, title="Two-stage arm: discrimination in both formats")

# %% [markdown]
# Across [{glue:text}`twostage_n_items`]{.quoted} items × [{glue:text}`twostage_n_models`]{.quoted} local
# models, the deterministic labels resolve {glue:text}`twostage_rows_per_model_min`–{glue:text}`twostage_rows_per_model_max`
# rows per model (the string-only grader would leave more than
# [{glue:text}`twostage_unresolvable_pct:.0f`%]{.quoted} unresolved). The post-hoc query lowers stated
# confidence (mean {glue:text}`twostage_mean_conf_posthoc:.1f` against {glue:text}`twostage_mean_conf_inline:.1f`
# inline) but not discrimination: self-AUROC spans {glue:text}`twostage_self_auroc_min:.2f`–{glue:text}`twostage_self_auroc_max:.2f`
# over both formats, and the pooled paired-bootstrap difference (post hoc minus inline) is
# {glue:text}`twostage_delta_auroc:+.2f` [{glue:text}`twostage_delta_auroc_ci_lo:+.2f`,
# {glue:text}`twostage_delta_auroc_ci_hi:+.2f`] on n = {glue:text}`twostage_n_pairs` matched pairs. The format
# does not look like the culprit.
#
# ## The injection null is narrow

# %% tags=["hide-input"]
status = ladder.rung_status(frames, bound=glue.quoted_value("ladder_degeneracy_bound"))
anyf = next(iter(frames.values()))
glue.claims({"lim_ladder_n_confirmatory_rungs": int((~status["demoted"]).sum()),
             "lim_ladder_n_items": int(anyf["item_id"].nunique()), "lim_ladder_n_bins": int(anyf["bin"].nunique())})
glue.quoted("ladder_n_rungs", as_id="lim_ladder_n_subjects");

# %% [markdown]
# The null of Result 2 rests on {glue:text}`lim_ladder_n_confirmatory_rungs` confirmatory rung of one
# ladder ({glue:text}`lim_ladder_n_items` items, {glue:text}`lim_ladder_n_bins` bins), with all
# [{glue:text}`lim_ladder_n_subjects`]{.quoted} subjects from one vendor family, and it does not exclude
# better repair designs. The manipulation evidence combines an exploratory frontier rung, a local
# microprobe and a topic-labelled local pass (a disclosed deviation); it is not a confirmatory attack study.
#
# ## Grading
#
# Grading is partly done by an LLM. Its human validation is a spot-check of
# [{glue:text}`lim_spotcheck_n`]{.quoted} items ([{glue:text}`lim_spotcheck_agreement:.0f`%]{.quoted}
# agreement, [{glue:text}`lim_spotcheck_errors`]{.quoted} conservative error). The grader's vendor family
# also fields [{glue:text}`grader_family_cn_panel_members`]{.quoted} member of the CN panel, so its
# independence was measured: a second grader from a family outside every panel, together with the grader
# itself, regraded all [{glue:text}`lim_audit_n`]{.quoted} hardest-quintile consensus verdicts and agreed on
# [{glue:text}`lim_audit_agreed`]{.quoted}/[{glue:text}`lim_audit_agreed_denominator`]{.quoted}. None of these
# checks has released rows, so the numbers are quoted.

# %% tags=["hide-input"]
glue.quoted("grading_spotcheck_n_items", as_id="lim_spotcheck_n")
glue.quoted("grading_spotcheck_agreement_pct", as_id="lim_spotcheck_agreement")
glue.quoted("grading_spotcheck_n_errors", as_id="lim_spotcheck_errors")
glue.quoted("grading_crossfamily_audit_n", as_id="lim_audit_n")
glue.quoted("grading_crossfamily_audit_agreed", as_id="lim_audit_agreed")
glue.quoted("grading_crossfamily_audit_n", as_id="lim_audit_agreed_denominator")
glue.quoted("grader_family_cn_panel_members");

# %% [markdown]
# ### The grader grading itself: the cross-family regrade
#
# The grader (qwen3:8b) is itself one of the local subjects, so some of its own answers were graded by
# itself. The regrade file holds the grader model's whole graded set: the rows settled by string
# equivalence or refusal detection, and the rows it graded itself, each with a second grade from a model
# of another family.

# %% tags=["hide-input"]
rg = manipulation.regrade_summary(regrade_rows)
glue.quoted("regrade_n_rows")
glue.value("regrade_n_rows_computed", rg["n_self_graded"], origin=ROWS)
glue.value("regrade_n_graded", rg["n_graded"], origin=ROWS)
glue.value("regrade_n_other_routes", rg["n_other_routes"], origin=ROWS)
glue.value("regrade_correct_before", rg["correct_before"], origin=ROWS)
glue.value("regrade_correct_after", rg["correct_after"], origin=ROWS)
glue.value("regrade_acc_before_selfrows", rg["acc_before_selfrows_pct"], origin=ROWS)
glue.value("regrade_acc_after_selfrows", rg["acc_after_selfrows_pct"], origin=ROWS)
glue.claims({"regrade_agreement_pct": rg["agreement_pct"], "regrade_down_flips": rg["down_flips"],
             "regrade_up_flips": rg["up_flips"], "regrade_acc_before": rg["acc_before_pct"],
             "regrade_acc_after": rg["acc_after_pct"]})
regrade_show = pd.DataFrame({"quantity": ["graded rows (whole set)", "self-graded rows", "agreement (self-graded rows)",
                           "down-flips / up-flips", "accuracy before → after (whole set)",
                           "accuracy before → after (self-graded rows only)"],
              "value": [f"{rg['n_graded']:,}", f"{rg['n_self_graded']:,}", f"{rg['agreement_pct']:.1f}%",
                        f"{rg['down_flips']} / {rg['up_flips']}",
                        f"{rg['acc_before_pct']:.1f}% → {rg['acc_after_pct']:.1f}%",
                        f"{rg['acc_before_selfrows_pct']:.1f}% → {rg['acc_after_selfrows_pct']:.1f}%"]})
_ = table(regrade_show, "limitations_regrade", caption="Cross-family regrade of the grader model's own answers")

# The note below asks whether the whole-set accuracies, read at one decimal, could instead be over the
# self-graded rows only: find every correct count on those rows that prints the "before" value, apply the
# net down-flips, and see what the "after" value would print.
n_self = rg["n_self_graded"]
before_txt, after_txt = f"{rg['acc_before_pct']:.1f}", f"{rg['acc_after_pct']:.1f}"
net_down = rg["down_flips"] - rg["up_flips"]
k_fit = [k for k in range(n_self + 1) if f"{100 * k / n_self:.1f}" == before_txt]
after_fit = sorted({f"{100 * (k - net_down) / n_self:.1f}" for k in k_fit})
if not k_fit:
    selfrows_reading = f"no number of correct rows prints {before_txt}% on them"
elif after_txt in after_fit:
    selfrows_reading = None
else:
    ks = " or ".join(str(k) for k in k_fit)
    lefts = " or ".join(str(k - net_down) for k in k_fit)
    selfrows_reading = (f"{before_txt}% of them forces {ks} correct, and {net_down} net down-flips leave {lefts}, "
                        f"which prints {' or '.join(a + '%' for a in after_fit)}, not {after_txt}%")
glue.value("regrade_selfrows_reading", selfrows_reading or f"{before_txt}% and {after_txt}% are both reachable there too", origin=ROWS)
_ = glue.value("regrade_selfrows_verdict", "It cannot be" if selfrows_reading else "It could also be", origin=ROWS)

# %% [markdown]
# A cross-family regrade of all [{glue:text}`regrade_n_rows:,.0f`]{.quoted} self-graded rows (the regrade
# file holds {glue:text}`regrade_n_rows_computed:,.0f` of them) agrees with the grader on
# {glue:text}`regrade_agreement_pct:.1f`%, and the disagreements lean towards self-leniency:
# {glue:text}`regrade_down_flips` answers the grader had passed are failed by the other family, against
# {glue:text}`regrade_up_flips` the other way. The grader model's accuracy moves from
# {glue:text}`regrade_acc_before:.1f`% to {glue:text}`regrade_acc_after:.1f`%, which only strengthens the
# overconfidence picture.
#
# :::{note}
# The paper does not say over which rows that accuracy is taken. {glue:text}`regrade_selfrows_verdict` the
# {glue:text}`regrade_n_rows_computed:,.0f` self-graded rows alone: {glue:text}`regrade_selfrows_reading`. Over the grader model's whole graded set of
# {glue:text}`regrade_n_graded:,.0f` rows (the same graded n as its Figure 1 point, including
# {glue:text}`regrade_n_other_routes` rows settled without the LLM) both printed values hold:
# {glue:text}`regrade_correct_before` → {glue:text}`regrade_correct_after` correct. That is the reading used
# here; over the self-graded rows alone the same data give {glue:text}`regrade_acc_before_selfrows:.1f`% →
# {glue:text}`regrade_acc_after_selfrows:.1f`%.
# :::
#
# A fuller re-stratified audit is left for future work. Finally, the panel-versus-self comparisons share
# data with the companion submission; no table is duplicated, and this paper's scope is self-assessment
# only.
