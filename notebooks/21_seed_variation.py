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
# Every confidence interval in Table 1 is a percentile bootstrap interval from a finite number of
# resamples. Draw another set of resamples of the same size and the end points move a little, even though the
# rows are the same. This page recomputes the self-AUROC intervals of Table 1 under many seeds and
# measures that Monte-Carlo error: how far the end points wander, and whether the wandering can change the
# printed third decimal.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"
n_seeds = 20

# %% tags=["remove-input"]
import altair as alt
import numpy as np
import pandas as pd

from selfconf import data, glue, metrics, summary, vega
from selfconf.book import banner, show_markdown, table
from selfconf.sources import resolve_families

vega.enable()
sources = resolve_families(data_dir, ["collection"])  # from data_dir if there, else the reconstruction
banner(data_dir, seed=seed, n_boot=n_boot, families=sources)
ROWS = glue.rows_origin(sources)  # origin of numbers from these rows that the paper does not print

rows_all, excluded = data.load_collection(sources.path("collection"))
rows = data.graded(rows_all)
rows = rows.assign(confidence=metrics.from_percent(rows["confidence"].to_numpy()))
seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(n_seeds, dtype=np.uint32)]
glue.value("seedvar_n_seeds", n_seeds, origin="parameter")
glue.value("seedvar_n_boot", n_boot, origin="parameter")
glue.value("seedvar_n_rows", len(rows), origin=ROWS)
glue.value("seedvar_n_excluded", excluded.total_parse_failures, origin=ROWS)
show_markdown(
    f"Rows: {len(rows):,} graded answers of {rows['model'].nunique()} models "
    f"({excluded.total_parse_failures:,} answers without a parsable confidence are excluded, as in Table 1). "
    f"Seeds: {n_seeds}, derived from the page seed {seed} with `numpy.random.SeedSequence`."
)

# %% [markdown]
# ## The same table, under many seeds
#
# For each of the {glue:text}`seedvar_n_seeds` seeds the page runs `selfconf.summary.table1` — the function
# Result 1 uses for Table 1 — with {glue:text}`seedvar_n_boot:,` draws, and keeps each model's AUROC interval.
# The AUROC itself does not depend on the seed; only the interval does.

# %% tags=["remove-input"]
runs = []
for s in seeds:
    t1 = summary.table1(rows, rng=s, n_boot=n_boot)
    runs.append(t1[["model", "n", "auroc", "auroc_ci_low", "auroc_ci_high"]].assign(seed=s))
runs = pd.concat(runs, ignore_index=True)
assert runs.groupby("model")["auroc"].nunique().eq(1).all(), "the AUROC point estimate moved with the seed"

Z975 = 1.959963984540054
PHI_Z975 = float(np.exp(-0.5 * Z975**2) / np.sqrt(2 * np.pi))


def predicted_mc_sd(low: float, high: float, n_draws: int, q: float = 0.025) -> float:
    """Approximate Monte-Carlo SD of a percentile-interval end point.

    The q-quantile of B draws from a distribution with density f has sampling SD
    sqrt(q (1 - q) / B) / f(x_q) (the asymptotic variance of a sample quantile; e.g. Serfling 1980,
    section 2.3.3).  With a normal bootstrap distribution of SD sigma, f(x_q) = phi(z_q) / sigma, and
    sigma is estimated from the interval itself as (high - low) / (2 z_0.975).
    """
    sigma = (high - low) / (2 * Z975)
    return float(sigma * np.sqrt(q * (1 - q) / n_draws) / PHI_Z975)


def n_printed(x: pd.Series, decimals: int = 3) -> int:
    """How many different values the end point shows when printed with `decimals` decimals."""
    return int(pd.Series([format(v, f".{decimals}f") for v in x]).nunique())


per_model = []
for model, g in runs.groupby("model", sort=False):
    lo, hi = g["auroc_ci_low"], g["auroc_ci_high"]
    per_model.append({
        "model": model, "n": int(g["n"].iloc[0]), "AUROC": float(g["auroc"].iloc[0]),
        "low: mean": lo.mean(), "low: SD": lo.std(ddof=1), "low: range": lo.max() - lo.min(),
        "high: mean": hi.mean(), "high: SD": hi.std(ddof=1), "high: range": hi.max() - hi.min(),
        "predicted SD": predicted_mc_sd(lo.mean(), hi.mean(), n_boot),
        "printed lows": n_printed(lo), "printed highs": n_printed(hi),
    })
mc = pd.DataFrame(per_model)
mc["observed / predicted"] = 0.5 * (mc["low: SD"] + mc["high: SD"]) / mc["predicted SD"]
shown = pd.DataFrame({
    "model": mc["model"], "n": mc["n"], "AUROC": mc["AUROC"].map("{:.3f}".format),
    "low: mean": mc["low: mean"].map("{:.4f}".format), "low: SD": mc["low: SD"].map("{:.5f}".format),
    "high: mean": mc["high: mean"].map("{:.4f}".format), "high: SD": mc["high: SD"].map("{:.5f}".format),
    "predicted SD": mc["predicted SD"].map("{:.5f}".format),
    "3-decimal lows": mc["printed lows"], "3-decimal highs": mc["printed highs"],
})
_ = table(shown, "seed_variation_auroc_ci",
          caption=f"Self-AUROC 95% interval end points over {n_seeds} seeds ({n_boot:,} draws each): mean, SD, "
                  "the SD predicted for a sample quantile, and how many different values each end point "
                  "shows when printed with three decimals")

# %% tags=["remove-input"]
sds = pd.concat([mc["low: SD"], mc["high: SD"]])
worst = mc.loc[mc[["low: SD", "high: SD"]].max(axis=1).idxmax()]
BIG = 1000  # "large" models for the summary sentence: at least this many graded answers
big = mc[mc["n"] >= BIG]
glue.value("seedvar_big_threshold", BIG, origin="parameter")
glue.value("seedvar_median_sd", float(sds.median()), origin=ROWS)
glue.value("seedvar_max_sd", float(max(worst["low: SD"], worst["high: SD"])), origin=ROWS)
glue.value("seedvar_max_sd_model", str(worst["model"]), origin=ROWS)
glue.value("seedvar_max_sd_model_n", int(worst["n"]), origin=ROWS)
glue.value("seedvar_max_range", float(max(mc["low: range"].max(), mc["high: range"].max())), origin=ROWS)
glue.value("seedvar_big_max_range", float(max(big["low: range"].max(), big["high: range"].max())), origin=ROWS)
glue.value("seedvar_n_big", len(big), origin=ROWS)
glue.value("seedvar_ratio_median", float(mc["observed / predicted"].median()), origin=ROWS)
glue.value("seedvar_n_models", len(mc), origin=ROWS)
glue.value("seedvar_n_endpoints_move", int((mc["printed lows"] > 1).sum() + (mc["printed highs"] > 1).sum()), origin=ROWS)
glue.value("seedvar_n_endpoints", 2 * len(mc), origin=ROWS)
_ = glue.value("seedvar_sd_rel_error", 100 / np.sqrt(2 * (n_seeds - 1)), origin=ROWS)  # approx. relative SE of an SD from n values

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

# %% tags=["remove-input"]
order = mc.sort_values("AUROC", ascending=False)["model"].tolist()
runs["seed index"] = runs.groupby("model").cumcount()
intervals = alt.Chart(runs).mark_rule(opacity=0.6, strokeWidth=1.5).encode(
    y=alt.Y("model:N", sort=order, title=None),
    yOffset=alt.YOffset("seed index:O"),
    x=alt.X("auroc_ci_low:Q", title="self-AUROC and its 95% interval, one line per seed", scale=alt.Scale(zero=False)),
    x2="auroc_ci_high:Q",
    color=alt.value("#4c78a8"),
    tooltip=["model:N", "seed:Q", alt.Tooltip("auroc_ci_low:Q", format=".4f"), alt.Tooltip("auroc_ci_high:Q", format=".4f")],
)
points = alt.Chart(mc).mark_tick(color="black", thickness=2, size=14).encode(
    y=alt.Y("model:N", sort=order), x="AUROC:Q",
    tooltip=["model:N", alt.Tooltip("AUROC:Q", format=".4f"), "n:Q"],
)
(intervals + points).properties(width=460, height=40 * len(order),
                                title=f"Table 1 self-AUROC intervals under {n_seeds} seeds")

# %% tags=["remove-input"]
sd_long = mc.melt(id_vars=["model", "n", "predicted SD"], value_vars=["low: SD", "high: SD"],
                  var_name="end point", value_name="observed SD")
diag_max = float(max(sd_long["observed SD"].max(), sd_long["predicted SD"].max()) * 1.1)
diag = alt.Chart(pd.DataFrame({"x": [0, diag_max]})).mark_line(strokeDash=[4, 4], color="gray").encode(
    x="x:Q", y="x:Q")
sd_pts = alt.Chart(sd_long).mark_point(filled=True, size=60).encode(
    x=alt.X("predicted SD:Q", title="predicted Monte-Carlo SD (normal approximation)", scale=alt.Scale(domain=[0, diag_max])),
    y=alt.Y("observed SD:Q", title=f"observed SD over {n_seeds} seeds", scale=alt.Scale(domain=[0, diag_max])),
    color=alt.Color("end point:N", title=None),
    tooltip=["model:N", "n:Q", "end point:N", alt.Tooltip("observed SD:Q", format=".5f"),
             alt.Tooltip("predicted SD:Q", format=".5f")],
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
