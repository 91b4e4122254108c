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
# # The paper's internal consistency
#
# The rest of the book recomputes the paper's numbers from rows. This page does something narrower and
# independent of any rows: it takes the numbers exactly as the paper prints them and asks whether they can
# all be true together. A percentage must be a whole number of items out of its n; a difference must be the
# difference of the two printed values once rounding is allowed for; a range must run from the smallest to
# the largest of its parts; an adjusted p-value must follow from the raw ones. Like the
# [audit](14_audit.ipynb), this page belongs to the audit appendix and is therefore allowed to
# read the printed values from the claim manifest (`data/paper/claims.yaml`); it computes nothing from data.
#
# Each check ends in one of three verdicts:
#
# - **pass**: some unrounded values reproduce every printed number involved, under the reading the paper
#   itself states;
# - **fail**: no unrounded values do, under any reading the check considers;
# - **unclear**: the numbers fit only under an assumption the paper does not state (an unprinted
#   denominator, an unnamed interval method), or the check is an approximation that cannot decide either way.
#
# Every row shows its arithmetic, so a reader can redo it by hand.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 0  # this page draws nothing at random; the seed is shown in the provenance line and drives nothing else
n_boot = 2000  # likewise shown only: no bootstrap is run here
data_dir = "data/reconstructed"  # shown in the provenance line; no rows are read
claims_path = "data/paper/claims.yaml"

# %% tags=["remove-input"]

from selfconf.book import glue, page_banner, table
from selfconf.book.audit import load_claims
from selfconf.claims import consistency
from selfconf.data.paths import resolve

claims_file = resolve(claims_path)
claims_doc = load_claims(claims_file)
checks = consistency.run_checks(claims_doc, source=str(claims_path))
frame = consistency.checks_frame(checks)
counts = consistency.summarise(checks)

page_banner(
    "paper-arithmetic",
    provenance_line=f"printed values from {claims_path} · this page reads no rows "
    f"(data_dir {data_dir} is not read) and draws nothing at random, so neither the seed ({seed}) nor the "
    f"number of bootstrap draws ({n_boot:,}) affects it",
)

glue.value("consistency_n_checks", counts["total"], origin="paper-arithmetic")
glue.value("consistency_n_pass", counts["pass"], origin="paper-arithmetic")
glue.value("consistency_n_fail", counts["fail"], origin="paper-arithmetic")
glue.value("consistency_n_unclear", counts["unclear"], origin="paper-arithmetic")
glue.value("consistency_n_groups", int(frame["group"].nunique()), origin="paper-arithmetic")
unclear_keys = frame.loc[frame["status"] == "unclear", "key"].tolist()
failing_keys = frame.loc[frame["status"] == "fail", "key"].tolist()
glue.value("consistency_unclear_list", ", ".join(unclear_keys) or "none", origin="paper-arithmetic")
glue.value("consistency_fail_list", ", ".join(failing_keys) or "none", origin="paper-arithmetic")
glue.value("consistency_hm_band_lo", float(consistency.HM_RATIO_BAND[0]), origin="parameter")
glue.value("consistency_hm_band_hi", float(consistency.HM_RATIO_BAND[1]), origin="parameter")
glue.value("consistency_asymmetry_share", float(consistency.ASYMMETRY_SHARE), origin="parameter")


def show_group(group: str) -> None:
    """Table of one group's checks, offered as CSV."""
    sub = frame.loc[frame["group"] == group, ["status", "key", "check", "arithmetic"]]
    n = sub["status"].value_counts()
    caption = f"{consistency.GROUP_TITLES[group]}: {len(sub)} checks, " + ", ".join(
        f"{int(n.get(s, 0))} {s}" for s in consistency.STATUSES
    )
    table(sub, f"consistency_{group}", caption=caption)


# %% [markdown]
# ## Summary
#
# The page runs {glue:text}`consistency_n_checks` checks in {glue:text}`consistency_n_groups` groups:
# {glue:text}`consistency_n_pass` pass, {glue:text}`consistency_n_fail` fail and
# {glue:text}`consistency_n_unclear` are unclear.
#
# Failing checks: {glue:text}`consistency_fail_list`.
#
# Unclear checks: {glue:text}`consistency_unclear_list`. A check can end unclear in a few ways, each explained
# in its group below: an interval width compared with the Hanley–McNeil approximation, which assumes
# continuous scores; a count that needs a denominator the paper never prints (the demoted ladder rungs, the
# TruthfulQA arm of the benchmark-age comparison); or percentages that fit whole numbers of answers only over
# a denominator the text does not name (the regrade).

# %% tags=["remove-input"]
by_group = (
    frame.pivot_table(index="group", columns="status", values="key", aggfunc="count", fill_value=0)
    .reindex(columns=list(consistency.STATUSES), fill_value=0)
    .reindex([g for g in consistency.GROUP_TITLES if g in set(frame["group"])])
)
by_group.insert(0, "group title", [consistency.GROUP_TITLES[g] for g in by_group.index])
by_group["total"] = by_group[list(consistency.STATUSES)].sum(axis=1)
table(by_group.reset_index(), "consistency_summary", caption="Checks by group and verdict")

# %% [markdown]
# ## How printed numbers are read
#
# A number printed with *d* decimals is taken to stand for any unrounded value within half a unit of its
# last digit, **both ends included**: the paper does not say whether halves are rounded up or to even, and a
# binary floating-point value can sit a hair on either side of a half. All interval arithmetic is done with
# exact fractions, so no verdict depends on float noise. Two further readings are used, both stated by the
# paper: confidences are whole numbers on the elicitation scale (so a mean confidence is a whole-number sum
# divided by n), and CITL is computed from unrounded means. Where a check needs anything beyond that, it says so in its
# arithmetic and its verdict is at best *unclear*.

# %% [markdown]
# ## Repeats
#
# Many numbers appear more than once (abstract, introduction, captions). Each repeat must print the value of
# the place where it is defined; a restatement as a drop instead of a gain must flip the sign.

# %% tags=["remove-input"]
show_group("manifest")

# %% [markdown]
# ## Counts and totals
#
# Sums of the per-model n, the split of the local tier under its printed smallest and largest n, the share of
# wrong high-confidence answers, and whether the count of high-confidence answers fits the per-model median
# confidences (a median at or above the threshold puts at least half of that model's answers above it; a
# median below it leaves at most half).

# %% tags=["remove-input"]
show_group("counts")

# %% [markdown]
# ## Table 1, row by row
#
# For each frontier model:
#
# - **GRIM**: which whole numbers of correct answers out of n print as the given accuracy;
# - **CITL**: because confidences are whole numbers, the mean confidence is a sum *S* over n; the check looks
#   for whole (*k*, *S*) pairs that print as the given accuracy, mean confidence and CITL at once, and shows
#   the range of unrounded CITL they allow. Where the difference of the two displayed values is off by one
#   in the last digit, those pairs show that unrounded means explain it;
# - **ECE ≥ |CITL|**: the binned ECE is a count-weighted sum of absolute gaps, the CITL the same sum without
#   the absolute values, so ECE can never be smaller. ECE and CITL are printed to the same resolution, so a
#   larger printed ECE means a larger unrounded one, and equal unrounded values print the same digits;
# - **Brier bounds**: given accuracy *a* and mean confidence *m* (as proportions), the Brier score cannot be
#   below (*m* − *a*)²/(1 − *a*) when *m* ≥ *a* (all correct answers at confidence 1, all wrong ones at a
#   common value), nor below ECE², nor above *m* + *a* − 2·max(0, *m* + *a* − 1);
# - **self-AUROC interval**: the point lies inside its interval, the two arms are close to equal, and the
#   half-width is compared with the normal-theory half-width from the {cite:t}`hanley1982meaning` standard error,
#   using the correct and wrong counts implied by n and accuracy. A ratio between
#   {glue:text}`consistency_hm_band_lo:.2f` and {glue:text}`consistency_hm_band_hi:.2f` is a pass. Hanley and
#   McNeil's formula assumes a continuous score; stated confidences take few distinct values with many ties,
#   which can make a bootstrap interval much narrower, so a narrower interval is *unclear*, never a failure.
#   The largest standard error any AUROC can have with these counts {cite:p}`birnbaum1957bounds` is shown as an
#   outer limit.

# %% tags=["remove-input"]
show_group("table1")

# %% [markdown]
# ## Result 1: statements about Table 1
#
# Sentences of Result 1 and of the Figure 1 caption that summarise Table 1: spans, counts of models above or
# below a cut-off, which model is the most or least of something. The sentence saying that the
# confidence-accuracy gap is positive in every occupied bin for most models deserves a word. If every occupied confidence bin of a model has a positive gap, its ECE and CITL are the
# same number; a bin with a negative gap makes ECE strictly larger. So the models with all-positive bins must
# be among those whose printed ECE and |CITL| show the same digits, and a model whose printed ECE is larger
# must have a negative bin. The check passes only if exactly the claimed number of models can have equal
# values, which also names the exceptions. (This relies on ECE using each bin's mean confidence, the usual
# definition.)

# %% tags=["remove-input"]
show_group("result1")

# %% [markdown]
# ## Table 2: risk and coverage
#
# At full coverage the error rate is the complement of the accuracy. At lower coverage, the covered set is the most
# confident share of the answers; its size is coverage × n, rounded either way when that is not a whole
# number. The check looks for whole numbers of errors at every coverage that print as the given rates, and
# that nest: shrinking the covered set can only remove errors, and no more errors than rows removed. The
# decreasing-risk rows are descriptive; a rate that rose as coverage shrank would not contradict anything, so
# it would be reported as unclear rather than as a failure.

# %% tags=["remove-input"]
show_group("table2")

# %% [markdown]
# ## Differences and derived values
#
# Where the paper prints a difference next to the two values it is the difference of, the printed difference
# must lie within the range that rounding of the two values allows. When the displayed values give a result
# one unit off in the last digit, the row shows the narrower range the unrounded values must have produced.
# The panel section's claims about pooling (the pooled US self-AUROC exceeds each member; a macro-average of
# members with known extremes fixes the remaining member) and the Table 4 Δ column are here too.
# The paired Δ column of Table 3 is deliberately not compared with differences of the per-arm AUROCs: the
# paper says the two are computed differently.

# %% tags=["remove-input"]
show_group("differences")

# %% [markdown]
# ## Intervals
#
# Every other printed estimate that carries an interval must lie inside it. The arms are compared too: each
# arm is a difference of two rounded numbers, so rounding alone can make them differ a little; a difference
# beyond that, larger than {glue:text}`consistency_asymmetry_share:.0%` of the half-width, is flagged as
# unclear, since percentile bootstrap
# intervals of a bounded statistic may legitimately be skewed.

# %% tags=["remove-input"]
show_group("intervals")

# %% [markdown]
# ## Benchmark-age arm
#
# The benchmark-age gaps are TruthfulQA accuracy minus SimpleQA accuracy for the same model. The paper does
# not say how their intervals were made or how many TruthfulQA questions were used. If the interval were an
# unpaired Wald interval for a difference of two proportions, its width fixes the TruthfulQA n once the
# SimpleQA side (Table 1's n and accuracy) is known; the rows show the n implied by each arm and by the mean
# half-width. This is a reading, not a test, so these rows are unclear by construction; they fail only if a
# gap lies outside its own interval.

# %% tags=["remove-input"]
show_group("benchmark")

# %% [markdown]
# ## Profile-injection ladder
#
# Row counts (non-trap items × replicates; the oracle's rows against rows per arm × arms), accuracies as whole
# numbers of correct rows, the degeneracy rule, the placebo validation, and the statistics of Result 2:
#
# - **Holm**: with a pair of contrasts, both adjusted p-values equal twice the smaller raw p-value whenever
#   that is at least the larger one. Applied to the printed raw p-values this gives a value just below the
#   printed adjusted p, in the last digit. The check searches the rounding intervals of both raw p-values for unrounded values
#   that reproduce the printed adjusted p, and reports the range it needs. It also shows what that means if
#   the raw p-value is a share of the bootstrap draws;
# - **p-value against interval**: a percentile interval excludes zero exactly when a two-sided bootstrap
#   p-value from the same draws is below the level matching the interval's coverage, so the two must point
#   the same way; the normal-approximation
#   p-value from the interval's width is shown for comparison;
# - **power**: the standard error read off the CORE>PLACEBO interval (its width over twice the normal
#   quantile), and the smallest effect that a two-sided test detects with the power the paper names: the sum
#   of the two normal quantiles (for the level and for the power) times that standard error.
#
# The demoted rungs' accuracies are shown as whole numbers of correct rows only under the assumption that
# those rungs also had the confirmatory rung's rows per arm; the paper prints no n for them, so these rows are
# unclear.

# %% tags=["remove-input"]
show_group("ladder")

# %% [markdown]
# ## Local tier, topic pass and two-stage arm

# %% tags=["remove-input"]
show_group("local")

# %% [markdown]
# ## Grading and regrade
#
# The regrade reports agreement, the numbers of down- and up-flips, and the grader model's accuracy before
# and after. The agreement follows from the flips. The accuracies are harder: over the regraded rows alone,
# the "before" percentage fixes the number of correct answers, and removing the net down-flips gives an
# "after" percentage that prints differently from the paper's. The row lists the larger denominators (up to
# the largest local-model n) for which both percentages work, which is what the printed values suggest: the
# accuracy is over all of the grader model's graded answers, only some of which it had graded itself. The
# paper does not say which denominator it used, so the verdict is unclear.

# %% tags=["remove-input"]
show_group("grading")

# %% [markdown]
# ## What these checks can and cannot establish
#
# A **failure** here would be strong evidence of a problem: no unrounded values at all could produce the
# printed numbers, so at least one of them was mistyped, computed from a different set of rows, or rounded
# in an unusual way. A **pass** is much weaker. It says that the printed numbers do not contradict each
# other, not that they are right: a wrong accuracy that is still a whole number of answers out of n, paired
# with a consistently wrong mean confidence, passes every check on this page. Many checks are also loose by
# nature; the Brier bounds, for instance, leave a wide band. And some numbers are tied only to themselves
# (an AUROC without its counts, a per-model rate the paper does not print), so nothing here can test them.
#
# **Unclear** verdicts mark where arithmetic runs out: an approximation that is not valid for heavily tied
# scores, or a denominator that the text leaves open. They are prompts to read the paper's method more
# closely, not accusations.
#
# Finally, nothing on this page uses the reconstructed rows. Whether the published numbers can be reproduced
# from data is the question of the rest of the book and of the [audit](14_audit.ipynb); this
# page only shows that, as printed, they hang together, and where that depends on unstated choices.
