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
# # How much do the intervals move?
#
# Every confidence interval in Table 1 is a {term}`percentile <Percentile interval>` {term}`bootstrap` interval
# from a finite number of resamples. Draw another set of resamples of the same size and the end points move a little, even though the
# rows are the same. This page recomputes the {term}`self-AUROC <AUROC>` intervals of Table 1 (AUROC measures
# {term}`discrimination`, not calibration) under many seeds and
# measures that {term}`Monte-Carlo error`: how far the end points wander, and whether the wandering can change the
# printed third decimal. Beside the spread it shows Table 1's own interval.
#
# **Learning objectives.** After this page you can
#
# - say which part of a bootstrap interval is sampling uncertainty and which part is Monte-Carlo error
#   (the finite number of resamples), and rerun an interval with another seed to see the second;
# - predict the Monte-Carlo SD of a percentile end point from the interval and the number of draws
#   (`selfconf.bootstrap.endpoint_mc_sd`), and choose the draws needed for a target precision;
# - decide whether a difference in the third decimal between two reports of "the same" interval means anything.
#

# %% [markdown] tags=["book-only"]
# The code is behind the toggles and uses the package's public API; the two exercises at the end have checks,
# and the student edition (links below) leaves their answers blank.

# %% [markdown] tags=["remove-cell", "student-only"]
# Run the cells from the top: the first installs the book's package when it is missing, and the code uses only its
# public API. Tables and charts are computed by this notebook from the reconstruction shipped with the package;
# the numbers quoted in the text are those of the book's page. The exercises at the end have an empty answer cell
# (`...`) and a check cell that answers at once.

# %% tags=["remove-input", "book-only"]
from selfconf.book import in_book, show_markdown

if in_book():  # the links to the student edition exist on the book's site only
    from selfconf import course

    show_markdown(course.student_links("21_seed_variation"))

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"
book_dir = "book"  # where Result 1's executed notebook is (Table 1's intervals are restated from it)
n_seeds = 20

# %% [raw] tags=["remove-cell"]
# # ASSIGNMENT CONFIG
# init_cell: false
# check_all_cell: true
# export_cell:
#     pdf: false
#     run_tests: false
#     ignore_log: true
#     instructions: "It writes a zip file beside this notebook, named after it and the date and time,
#         holding the notebook as last saved: hand in that zip (or the saved `.ipynb` itself). On Colab
#         this cell cannot run: download the notebook (File > Download > Download .ipynb) and hand that in."
# run_tests: false
# solutions_pdf: false
# generate: true
# tests:
#     files: true
#     ok_format: false

# %% tags=["hide-input"]
import altair as alt
import numpy as np  # noqa: F401 - the exercises are written with numpy (np) at hand, as before
import pandas as pd

from selfconf import bootstrap, course, datasets, metrics  # noqa: F401 - metrics stays at hand for the exercises
from selfconf.book import banner, glue, in_book, show_markdown, table, vega
from selfconf.sections import seedvar
from selfconf.stats import summary

if in_book():  # the book's build: rows from data_dir (the original package where it holds the collection)
    from selfconf import data
    from selfconf.data.sources import resolve_families

    vega.enable()  # the book's offline Vega bundle
    sources = resolve_families(data_dir, ["collection"])  # from data_dir if there, else the reconstruction
    banner(data_dir, seed=seed, n_boot=n_boot, families=sources)
    rows_all = data.load_collection(sources.path("collection"))[0]
    ROWS = glue.rows_origin(sources)  # origin of numbers from these rows that the paper does not print
else:  # on its own (Colab, Binder, Jupyter): the reconstruction shipped inside the package
    course.offline_charts()  # charts with no network: Vega is inlined in each chart
    rows_all = datasets.load("collection")
    ROWS = "reconstruction-only"
# Table 1's rows: answers with a parsed confidence, confidence on 0-1, correct as 0/1
rows, n_excluded = seedvar.graded_rows(rows_all)
seeds = seedvar.page_seeds(seed, n_seeds)
# Checks for the exercises (otter-grader): grader.check("name") says at once whether an answer passes
grader = course.grader("21_seed_variation")
show_markdown(
    f"Rows: {len(rows):,} graded answers of {len(dict.fromkeys(rows['model']))} models "
    f"({n_excluded:,} answers without a parsable confidence are excluded, as in Table 1). "
    f"Seeds: {n_seeds}, derived from the page seed {seed} with `numpy.random.SeedSequence`."
)

# %% tags=["remove-cell", "book-only"]
glue.value("seedvar_n_seeds", n_seeds, origin="parameter")
glue.value("seedvar_n_boot", n_boot, origin="parameter")
glue.value("seedvar_n_rows", len(rows), origin=ROWS)
_ = glue.value("seedvar_n_excluded", n_excluded, origin=ROWS)

# %% [markdown]
# ## The same table, under many seeds
#
# For each of the {glue:text}`seedvar_n_seeds` seeds the page runs `selfconf.stats.summary.table1` — the function
# Result 1 uses for Table 1 — with {glue:text}`seedvar_n_boot:,` draws, and keeps each model's AUROC interval.
# The AUROC itself does not depend on the seed; only the interval does.

# %% tags=["hide-input"]
runs = seedvar.seed_runs(rows, seeds, n_boot=n_boot)
# per model and end point: mean, SD, range over the seeds, and the normal-approximation SD of a sample quantile of
# n_boot draws (selfconf.bootstrap.endpoint_mc_sd)
mc = seedvar.endpoint_spread(runs, n_boot=n_boot)

# Table 1's interval at the paper's seed, beside the spread: in the book restated from Result 1's executed
# notebook (each cell carries its claim, so it shows the paper's print when it prints as the paper does, and
# is marked when it does not); on its own, recomputed here with Table 1's call at the page seed
if in_book():
    glued = glue.glued_values(book_dir)
    t1_lo = {m: glued[k]["value"] for m in mc["model"] if (k := f"t1_{m}_self_auroc_ci_lo") in glued}
    t1_hi = {m: glued[k]["value"] for m in mc["model"] if (k := f"t1_{m}_self_auroc_ci_hi") in glued}
else:
    at_seed = summary.table1(rows[rows["tier"] == "frontier"], rng=seed, n_boot=n_boot).set_index("model")
    t1_lo, t1_hi = at_seed["auroc_ci_low"].to_dict(), at_seed["auroc_ci_high"].to_dict()
shown = pd.DataFrame(
    {
        "model": mc["model"],
        "n": mc["n"],
        "AUROC": mc["AUROC"].map("{:.3f}".format),
        "paper prints: low": "",
        "paper prints: high": "",  # filled in by the book from the manifest (never read here)
        "Table 1 low": [f"{t1_lo[m]:.3f}" if m in t1_lo else "" for m in mc["model"]],
        "Table 1 high": [f"{t1_hi[m]:.3f}" if m in t1_hi else "" for m in mc["model"]],
        "low: mean": mc["low: mean"].map("{:.4f}".format),
        "low: SD": mc["low: SD"].map("{:.5f}".format),
        "low: range": [f"[{a:.4f}, {b:.4f}]" for a, b in zip(mc["low: min"], mc["low: max"], strict=True)],
        "high: mean": mc["high: mean"].map("{:.4f}".format),
        "high: SD": mc["high: SD"].map("{:.5f}".format),
        "high: range": [f"[{a:.4f}, {b:.4f}]" for a, b in zip(mc["high: min"], mc["high: max"], strict=True)],
        "predicted SD": mc["predicted SD"].map("{:.5f}".format),
        "3-decimal lows": mc["printed lows"],
        "3-decimal highs": mc["printed highs"],
    }
)
claims, printed = {}, {}
if in_book():
    for i, m in enumerate(mc["model"]):
        if m in t1_lo:
            for end, col in (("lo", "low"), ("hi", "high")):
                claims[(i, f"Table 1 {col}")] = f"t1_{m}_self_auroc_ci_{end}"
                printed[(i, f"paper prints: {col}")] = f"t1_{m}_self_auroc_ci_{end}"
if not printed:  # outside the book there is no manifest to show: no empty columns
    shown = shown.drop(columns=["paper prints: low", "paper prints: high"])
table(
    shown,
    "seed_variation_auroc_ci",
    claims=claims,
    printed=printed,
    caption="Self-AUROC 95% interval end points: "
    + ("the paper's printed Table 1 interval, this build's Table 1 interval" if printed else "Table 1's interval")
    + f" (frontier models only), and their spread over {n_seeds} other seeds "
    f"({n_boot:,} draws each): mean, SD, range, the SD "
    "predicted for a sample quantile, and how many different values each end point shows when printed "
    "with three decimals",
)

# %% tags=["hide-input"]
BIG = 1000  # "large" models for the summary sentence: at least this many graded answers
spread = seedvar.spread_summary(mc, t1_lo, t1_hi, big=BIG)

# %% tags=["remove-cell", "book-only"]
glue.value("seedvar_big_threshold", BIG, origin="parameter")
for key in [
    "n_t1",
    "n_t1_inside",
    "median_sd",
    "max_sd",
    "max_sd_model",
    "max_sd_model_n",
    "max_range",
    "big_max_range",
    "n_big",
    "ratio_median",
    "n_models",
    "n_endpoints_move",
    "n_endpoints",
]:
    glue.value(f"seedvar_{key}", spread[key], origin=ROWS)
# approx. relative SE of an SD from n values
_ = glue.value("seedvar_sd_rel_error", seedvar.sd_relative_error(n_seeds), origin=ROWS)

# %% [markdown]
# ## What moves, and by how much
#
# Across models, the median standard deviation of an interval end point over the seeds is
# {glue:text}`seedvar_median_sd:.4f` AUROC units. The largest is {glue:text}`seedvar_max_sd:.4f`, for
# {glue:text}`seedvar_max_sd_model` ({glue:text}`seedvar_max_sd_model_n:,` graded answers: fewer rows give a wider
# bootstrap distribution and a noisier quantile). For the {glue:text}`seedvar_n_big` models with at least
# {glue:text}`seedvar_big_threshold:,` graded answers, no end point ranges over more than {glue:text}`seedvar_big_max_range:.4f` across the
# {glue:text}`seedvar_n_seeds` seeds; over all models the widest range is {glue:text}`seedvar_max_range:.4f`.
#
# The spread follows the textbook formula for a sample quantile: the observed SD is, at the median model,
# {glue:text}`seedvar_ratio_median:.2f` times the normal-approximation prediction in the table's
# "predicted SD" column. Printed with three decimals, {glue:text}`seedvar_n_endpoints_move` of the
# {glue:text}`seedvar_n_endpoints` end points take more than one value across the seeds, so the third
# decimal of a {glue:text}`seedvar_n_boot:,`-draw interval is partly luck. This is why the audit compares bootstrap numbers with a
# tolerance (half a printed unit plus three Monte-Carlo standard errors) and deterministic numbers exactly.

# %% [markdown] tags=["book-only"]
# The *paper prints* columns hold Table 1's interval as the paper prints it for each frontier model; the
# *Table 1* columns hold this build's Table 1 interval (the paper's seed is not published: this build uses its own
# page seed, and a cell that does not print as the paper prints it is marked "≠ paper"). For {glue:text}`seedvar_n_t1_inside` of the {glue:text}`seedvar_n_t1`
# frontier models both of Table 1's end points lie inside the range the {glue:text}`seedvar_n_seeds` other seeds
# give: Table 1's interval is one draw from the same spread, not a more exact one.

# %% [markdown] tags=["remove-cell", "student-only"]
# The *Table 1* columns hold Table 1's interval for each frontier model, computed here with Table 1's call at the
# page seed. Compare them with the range columns: Table 1's interval is one draw from the same spread as the other
# seeds', not a more exact one.

# %% tags=["hide-input"]
order = mc.sort_values("AUROC", ascending=False)["model"].tolist()
runs["seed index"] = runs.groupby("model").cumcount()
intervals = (
    alt.Chart(runs)
    .mark_rule(opacity=0.6, strokeWidth=1.5)
    .encode(
        y=alt.Y("model:N", sort=order, title=None),
        yOffset=alt.YOffset("seed index:O"),
        x=alt.X(
            "auroc_ci_low:Q", title="self-AUROC and its 95% interval, one line per seed", scale=alt.Scale(zero=False)
        ),
        x2="auroc_ci_high:Q",
        color=alt.value("#4c78a8"),
        tooltip=[
            "model:N",
            "seed:Q",
            alt.Tooltip("auroc_ci_low:Q", format=".4f"),
            alt.Tooltip("auroc_ci_high:Q", format=".4f"),
        ],
    )
)
points = (
    alt.Chart(mc)
    .mark_tick(color="black", thickness=2, size=14)
    .encode(
        y=alt.Y("model:N", sort=order),
        x="AUROC:Q",
        tooltip=["model:N", alt.Tooltip("AUROC:Q", format=".4f"), "n:Q"],
    )
)
(intervals + points).properties(
    width=460, height=40 * len(order), title=f"Table 1 self-AUROC intervals under {n_seeds} seeds"
)

# %% tags=["hide-input"]
sd_long = mc.melt(
    id_vars=["model", "n", "predicted SD"],
    value_vars=["low: SD", "high: SD"],
    var_name="end point",
    value_name="observed SD",
)
diag_max = spread["sd_axis_max"] * 1.1
diag = alt.Chart(pd.DataFrame({"x": [0, diag_max]})).mark_line(strokeDash=[4, 4], color="gray").encode(x="x:Q", y="x:Q")
sd_pts = (
    alt.Chart(sd_long)
    .mark_point(filled=True, size=60)
    .encode(
        x=alt.X(
            "predicted SD:Q",
            title="predicted Monte-Carlo SD (normal approximation)",
            scale=alt.Scale(domain=[0, diag_max]),
        ),
        y=alt.Y("observed SD:Q", title=f"observed SD over {n_seeds} seeds", scale=alt.Scale(domain=[0, diag_max])),
        color=alt.Color("end point:N", title=None),
        tooltip=[
            "model:N",
            "n:Q",
            "end point:N",
            alt.Tooltip("observed SD:Q", format=".5f"),
            alt.Tooltip("predicted SD:Q", format=".5f"),
        ],
    )
)
(diag + sd_pts).properties(width=340, height=300, title="Observed versus predicted Monte-Carlo error")

# %% [markdown]
# With only {glue:text}`seedvar_n_seeds` seeds the observed SDs are themselves noisy (an SD estimated from
# {glue:text}`seedvar_n_seeds` values has a relative standard error of about {glue:text}`seedvar_sd_rel_error:.0f`%, from
# $1/\sqrt{2(n-1)}$ for normal data), so points scatter around the diagonal rather than on it.
# To halve the Monte-Carlo error, quadruple the draws: `selfconf rerun seed_variation --n-boot B` reruns this
# page with B draws, and `selfconf rerun result1 --seed S` shows how the paper's own intervals move.
#
# References: {cite:t}`efron1993bootstrap`, ch. 13 and 19 (percentile intervals and the number of bootstrap
# replications); {cite:t}`serfling1980approximation`, §2.3.3.

# %% [markdown]
# ## Exercises
#
# Write your answer in the cell under each exercise (replace every `...`), run it, then run the check cell
# after it: `grader.check("<name>")` prints *All test cases passed!* or, for each failed check, a message
# starting with **Not yet**. The page's variables (`rows`, `mc`, `n_boot`) are defined above; run the page's
# cells first.

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: two-seeds

# %% [markdown]
# ### Exercise 1 (`two-seeds`): one interval, two seeds
#
# Bootstrap google's self-AUROC interval twice with `bootstrap.auroc_ci`, `n_boot` draws each, once with
# `rng=1` (`ci_seed_1`) and once with `rng=2` (`ci_seed_2`), and store how far the lower end point moved
# (`low_shift = ci_seed_2.low - ci_seed_1.low`).

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
google = rows[rows["model"] == "google"]
ci_seed_1 = bootstrap.auroc_ci(google["confidence"], google["correct"], n_boot=n_boot, rng=1)  # SOLUTION
ci_seed_2 = bootstrap.auroc_ci(google["confidence"], google["correct"], n_boot=n_boot, rng=2)  # SOLUTION
low_shift = ci_seed_2.low - ci_seed_1.low  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: two calls of bootstrap.auroc_ci on google's rows with the same n_boot, rng=1 and rng=2."
success_message: "Right: same rows, same estimate, two seeds, two intervals."
"""  # END TEST CONFIG


def test_two_seeds(ci_seed_1, ci_seed_2, low_shift, rows, n_boot):
    from selfconf.course import verify

    verify.two_seeds(ci_seed_1, ci_seed_2, low_shift, rows, n_boot)


test_two_seeds(ci_seed_1, ci_seed_2, low_shift, rows, n_boot)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 1
"""  # END TEST CONFIG


def test_two_seeds_graded(ci_seed_1, ci_seed_2, low_shift, rows, n_boot):
    from selfconf.course import verify

    verify.two_seeds(ci_seed_1, ci_seed_2, low_shift, rows, n_boot)


test_two_seeds_graded(ci_seed_1, ci_seed_2, low_shift, rows, n_boot)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: explain-seeds
# manual: true

# %% [markdown]
# ### Exercise 2 (`explain-seeds`): what the difference means (written)
#
# In two or three sentences: why do the two intervals of Exercise 1 differ although the rows are the same,
# is the difference large compared with the interval's width, and would the two intervals support different
# conclusions about google's self-AUROC? (No automatic check: a written answer is read by a person.)

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% [markdown]
# :::{dropdown} Reference answer
# The estimate is the same; only the resamples differ, so the end points move by Monte-Carlo error, which
# shrinks like $1/\sqrt{B}$ with the number of draws. The shift is a few ten-thousandths of an AUROC unit,
# against an interval roughly 0.05 wide: it can change the third printed decimal, never the conclusion
# (both intervals lie far above 0.5 and overlap almost entirely). Sampling uncertainty, which the width
# measures, is what matters; the seed only adds a small, reducible error on top.
# :::

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: draws-needed

# %% [markdown]
# ### Exercise 3 (`draws-needed`): how many draws for a stable third decimal?
#
# Using google's mean interval over the seeds (`google_low`, `google_high` below) and
# `bootstrap.endpoint_mc_sd`, find the smallest number of draws whose predicted SD of the lower end point is
# at most 0.0005 (`draws_needed`): search over the number of draws yourself, for example with a loop or
# on an array of candidate counts.

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
google_low = float(mc.loc[mc["model"] == "google", "low: mean"].iloc[0])
google_high = float(mc.loc[mc["model"] == "google", "high: mean"].iloc[0])
draws_needed = bootstrap.draws_for_mc_sd(google_low, google_high, 0.0005)  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: the SD falls like 1 / sqrt(draws); find the smallest whole number of draws with endpoint_mc_sd(google_low, google_high, draws) <= 0.0005."
success_message: "Right: halving the error costs four times the draws."
"""  # END TEST CONFIG


def test_draws_needed(draws_needed, google_low, google_high):
    from selfconf.course import verify

    verify.draws_needed(draws_needed, google_low, google_high)


test_draws_needed(draws_needed, google_low, google_high)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 1
"""  # END TEST CONFIG


def test_draws_needed_graded(draws_needed, google_low, google_high):
    from selfconf.course import verify

    verify.draws_needed(draws_needed, google_low, google_high)


test_draws_needed_graded(draws_needed, google_low, google_high)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [markdown] tags=["remove-cell", "student-only"]
# ## Your progress
#
# Run the cell below at any time: it runs every check of this notebook quietly and prints how many exercises
# pass and which are not done yet. Nothing is recorded or sent anywhere. At the end of the notebook,
# `grader.check_all()` runs every check again with its full messages, and the export cell after it makes
# the file you hand in.

# %% tags=["remove-cell", "student-only"]
course.progress("21_seed_variation", globals())
