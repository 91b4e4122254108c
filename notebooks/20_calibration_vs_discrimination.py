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
# # Calibration versus discrimination
#
# Two questions are often folded into the one word *calibration*:
#
# 1. **Calibration in the large** — does the *level* of stated confidence match the level of accuracy?
#    Measured by CITL (mean confidence minus accuracy), the expected calibration error (ECE) {cite:p}`t-guo2017calibration` and, mixed
#    with discrimination, the Brier score {cite:p}`t-brier1950verification`.
# 2. **Discrimination** — does a model say higher numbers on the answers it gets right than on the ones
#    it gets wrong? Measured by the AUROC of confidence as a predictor of correctness {cite:p}`t-hanley1982meaning`.
#
# They are different properties. This chapter separates them on simulated answers, where we control
# the truth, and then looks at one choice hidden inside every ECE: the bins. The figures are
# interactive: move a slider and the chart redraws in your browser, from numbers this notebook
# computed for every slider position.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"  # read only by the binning section (the reconstruction stands in when data_dir lacks the collection)
n_answers = 1500

# %% tags=["remove-input"]
import altair as alt
import numpy as np
import pandas as pd

from selfconf import bootstrap, glue, metrics, vega
from selfconf.book import as_text, page_banner, show_markdown, table
from selfconf.paths import resolve
from selfconf.sources import resolve_families

vega.enable()  # altair charts drawn offline by the book's own Vega bundle
rng = np.random.default_rng(seed)
# only the section on ECE binning reads the collection's rows: from data_dir if there, else the reconstruction
sources = resolve_families(data_dir, ["collection"])
ECE_ORIGIN = glue.rows_origin(sources)
src_word = ("the book's reconstruction (see {ref}`what a reconstruction cannot tell you <recon-limits>`)"
            if sources["collection"].source == "reconstruction" else "the original replication package")
page_banner(
    "simulation",
    note=f"One section, *ECE depends on its bins*, reads the collection's rows, which in this build are {src_word}.",
    provenance_line=f"simulated answers · seed: {seed} · bootstrap draws: {n_boot:,} · answers per simulated model: "
                    f"{n_answers:,} · {sources.text()}",
)

# %% [markdown]
# ## Two simulated models
#
# Both answer the same questions, so they share one accuracy. Model **A** states a confidence that rises
# with its chance of being right, but sits far too high. Model **B** states confidences whose average
# equals its accuracy, yet they carry almost no information about *which* answers are right.

# %% tags=["remove-input"]
p_true = rng.beta(2, 3, n_answers)  # each answer's true chance of being correct
correct = (rng.random(n_answers) < p_true).astype(int)
conf_a = np.clip(np.round((0.45 + 0.55 * p_true) * 20) / 20, 0, 1)  # informative, shifted up, heaped on 5s
noise = rng.normal(0, 0.08, n_answers)
conf_b = np.clip(np.round((correct.mean() + noise + 0.02 * (p_true - 0.4)) * 20) / 20, 0, 1)

rows = []
for name, conf in (("A: informative but overconfident", conf_a), ("B: calibrated in the large, uninformative", conf_b)):
    ci = bootstrap.auroc_ci(conf, correct, n_boot=n_boot, rng=rng)
    rows.append({
        "model": name,
        "accuracy": correct.mean(),
        "mean confidence": conf.mean(),
        "CITL": metrics.citl(conf, correct),
        "ECE": metrics.ece(conf, correct),
        "Brier": metrics.brier(conf, correct),
        "AUROC": metrics.auroc(conf, correct),
        "AUROC 95% CI": f"[{ci.low:.3f}, {ci.high:.3f}]",
    })
summary = pd.DataFrame(rows)
key = {"A": summary.iloc[0], "B": summary.iloc[1]}
for m, r in key.items():
    glue.value(f"teach_{m}_citl", 100 * r["CITL"], origin="simulation")
    glue.value(f"teach_{m}_ece", r["ECE"], origin="simulation")
    glue.value(f"teach_{m}_auroc", r["AUROC"], origin="simulation")
    glue.value(f"teach_{m}_brier", r["Brier"], origin="simulation")
glue.value("teach_accuracy", 100 * correct.mean(), origin="simulation")
table(as_text(summary, {c: "{:.3f}" for c in ["accuracy", "mean confidence", "CITL", "ECE", "Brier", "AUROC"]}),
      "teaching_two_models", caption="Two simulated models (0–1 scale): calibration in the large and discrimination")

# %% [markdown]
# Model A overstates its accuracy by {glue:text}`teach_A_citl:.1f` percentage points (ECE
# {glue:text}`teach_A_ece:.3f`) yet ranks its answers well (AUROC {glue:text}`teach_A_auroc:.3f`). Model B is
# off by only {glue:text}`teach_B_citl:+.1f` points in the large (ECE {glue:text}`teach_B_ece:.3f`), but its
# AUROC of {glue:text}`teach_B_auroc:.3f` says its confidence barely separates right from wrong answers.
# A good calibration score does not imply discrimination, and the converse fails too.

# %% [markdown]
# ## Reliability diagrams
#
# Each point is a bin of stated confidence (ten equal-width bins); its height is the accuracy inside the
# bin and its size the number of answers. Points below the diagonal are overconfident bins.

# %% tags=["remove-input"]
frames = []
for name, conf in (("A", conf_a), ("B", conf_b)):
    b = pd.DataFrame(metrics.reliability_bins(conf, correct, n_bins=10))
    b["model"] = name
    frames.append(b[b["n"] > 0])
bins = pd.concat(frames)
diag = alt.Chart(pd.DataFrame({"x": [0, 1], "y": [0, 1]})).mark_line(strokeDash=[4, 4], color="gray").encode(x="x", y="y")
pts = alt.Chart(bins).mark_circle().encode(
    x=alt.X("mean_conf:Q", title="mean stated confidence in bin", scale=alt.Scale(domain=[0, 1])),
    y=alt.Y("acc:Q", title="accuracy in bin", scale=alt.Scale(domain=[0, 1])),
    size=alt.Size("n:Q", title="answers"),
    color=alt.Color("model:N"),
    tooltip=["model", "lo", "hi", "n", alt.Tooltip("mean_conf:Q", format=".3f"), alt.Tooltip("acc:Q", format=".3f")],
)
(diag + pts).properties(width=360, height=320, title="Reliability diagrams of the simulated models A and B")

# %% [markdown]
# ## Move the confidences, keep the ranking
#
# AUROC looks only at the *order* of the confidences: it is the probability that a randomly chosen
# correct answer received a higher confidence than a randomly chosen wrong one (ties count half). Any
# transformation that keeps the order — and keeps distinct values distinct — leaves it exactly where
# it was, while every calibration statistic moves.
#
# Below, model A's confidences $c$ go through one of three strictly increasing maps, with a strength
# chosen by the slider (position 0 is the identity):
#
# - **shift**: add $\delta$ on the log-odds scale, $c' = \sigma(\operatorname{logit} c + \delta)$;
# - **scale**: divide the log-odds by a temperature $T$, $c' = \sigma(\operatorname{logit} c \,/\, T)$;
# - **warp**: raise to a power, $c' = c^{\gamma}$.
#
# The notebook computed every statistic for each of the {glue:text}`teach_grid_n_settings` settings; the slider
# only chooses which precomputed row to show.

# %% tags=["remove-input"]
STEPS = np.arange(-8, 9)


def transform(c: np.ndarray, family: str, k: int) -> np.ndarray:
    """Strictly increasing map of confidences in (0, 1]; k = 0 is the identity (1.0 stays 1.0)."""
    with np.errstate(divide="ignore"):
        z = np.log(c) - np.log1p(-c)  # logit; +inf at c = 1
    if family == "shift":
        z = z + 0.35 * k
    elif family == "scale":
        z = z / 2.0 ** (k / 4)
    elif family == "warp":
        return c ** (2.0 ** (k / 4))
    else:
        raise ValueError(f"unknown transform family {family!r}")
    return 1.0 / (1.0 + np.exp(-z))


def setting_label(family: str, k: int) -> str:
    return {"shift": f"logit + {0.35 * k:+.2f}", "scale": f"logit / {2.0 ** (k / 4):.2f}",
            "warp": f"c ^ {2.0 ** (k / 4):.2f}"}[family]


def brier_decomposition(confidence: np.ndarray, correct: np.ndarray) -> dict[str, float]:
    """Murphy's (1973) partition of the Brier score over the distinct stated confidences.

    With groups g of rows sharing one stated value f_g, n_g rows, share correct o_g, and overall
    share correct o:  REL = sum n_g (f_g - o_g)^2 / N,  RES = sum n_g (o_g - o)^2 / N,
    UNC = o (1 - o), and Brier = REL - RES + UNC exactly.

    Murphy, A. H. (1973). A new vector partition of the probability score. Journal of Applied
    Meteorology 12(4), 595-600.
    """
    c = np.asarray(confidence, dtype=float)
    y = np.asarray(correct, dtype=float)
    values, group = np.unique(c, return_inverse=True)
    n_g = np.bincount(group)
    o_g = np.bincount(group, weights=y) / n_g
    o = y.mean()
    rel = float(np.sum(n_g * (values - o_g) ** 2) / y.size)
    res = float(np.sum(n_g * (o_g - o) ** 2) / y.size)
    unc = float(o * (1 - o))
    return {"reliability": rel, "resolution": res, "uncertainty": unc, "brier": float(np.mean((c - y) ** 2))}


grid_rows, grid_bins = [], []
for family in ("shift", "scale", "warp"):
    for k in STEPS:
        c = transform(conf_a, family, int(k))
        d = brier_decomposition(c, correct)
        grid_rows.append({
            "family": family, "k": int(k), "setting": setting_label(family, int(k)),
            "AUROC": metrics.auroc(c, correct), "CITL": metrics.citl(c, correct),
            "ECE": metrics.ece(c, correct), "Brier": metrics.brier(c, correct),
            "reliability": d["reliability"], "resolution": d["resolution"],
            "n_levels": int(np.unique(c).size),
        })
        rb = pd.DataFrame(metrics.reliability_bins(c, correct, n_bins=10))
        rb = rb[rb["n"] > 0].assign(family=family, k=int(k))
        grid_bins.append(rb)
grid = pd.DataFrame(grid_rows)
grid_bins = pd.concat(grid_bins, ignore_index=True)
assert (grid["n_levels"] == np.unique(conf_a).size).all(), "a transform merged two confidence levels"

auroc_spread = float(grid["AUROC"].max() - grid["AUROC"].min())
glue.value("teach_grid_n_settings", len(grid), origin="parameter")
glue.value("teach_grid_auroc_spread", auroc_spread, origin="simulation")
glue.value("teach_grid_auroc_spread_text", "exactly 0" if auroc_spread == 0 else f"{auroc_spread:.1e}", origin="simulation")
glue.value("teach_grid_auroc", float(grid["AUROC"].iloc[0]), origin="simulation")
for col, name in (("CITL", "citl"), ("ECE", "ece"), ("Brier", "brier")):
    glue.value(f"teach_grid_{name}_min", float(grid[col].min()), origin="simulation")
    glue.value(f"teach_grid_{name}_max", float(grid[col].max()), origin="simulation")
best = grid.loc[grid["ECE"].idxmin()]
glue.value("teach_grid_best_ece", float(best["ECE"]), origin="simulation")
_ = glue.value("teach_grid_best_setting", f"{best['family']} ({best['setting']})", origin="simulation")

# %% tags=["remove-input"]
family_param = alt.param(name="family", value="shift",
                         bind=alt.binding_radio(options=["shift", "scale", "warp"], name="transform "))
step_param = alt.param(name="step", value=0, bind=alt.binding_range(min=-8, max=8, step=1, name="strength "))
selected = (alt.datum.family == family_param) & (alt.datum.k == step_param)

long = grid.melt(id_vars=["family", "k", "setting"], value_vars=["AUROC", "CITL", "ECE", "Brier"],
                 var_name="statistic", value_name="value")
stat_color = alt.Color("statistic:N", scale=alt.Scale(domain=["AUROC", "CITL", "ECE", "Brier"]), title=None)
traces = alt.Chart(long).transform_filter(alt.datum.family == family_param)
lines = traces.mark_line().encode(
    x=alt.X("k:Q", title="slider position (0 = unchanged)", scale=alt.Scale(domain=[-8, 8])),
    y=alt.Y("value:Q", title="value", scale=alt.Scale(domain=[-0.6, 1])),
    color=stat_color,
)
now = traces.transform_filter(alt.datum.k == step_param)
dots = now.mark_point(filled=True, size=70).encode(
    x="k:Q", y="value:Q", color=stat_color,
    tooltip=["setting:N", "statistic:N", alt.Tooltip("value:Q", format=".3f")],
)
labels = now.mark_text(align="left", dx=8, fontSize=11).encode(
    x="k:Q", y="value:Q", color=stat_color,
    text=alt.Text("label:N"),
).transform_calculate(label="datum.statistic + ' ' + format(datum.value, '.3f')")
stats_panel = (lines + dots + labels).properties(width=250, height=260, title="Statistics along the slider")

rel_now = alt.Chart(grid_bins).transform_filter(selected).mark_circle(color="#4c78a8").encode(
    x=alt.X("mean_conf:Q", title="mean stated confidence in bin", scale=alt.Scale(domain=[0, 1])),
    y=alt.Y("acc:Q", title="accuracy in bin", scale=alt.Scale(domain=[0, 1])),
    size=alt.Size("n:Q", title="answers", scale=alt.Scale(range=[10, 400])),
    tooltip=[alt.Tooltip("lo:Q", format=".1f"), alt.Tooltip("hi:Q", format=".1f"), "n:Q",
             alt.Tooltip("mean_conf:Q", format=".3f"), alt.Tooltip("acc:Q", format=".3f")],
)
reliability_panel = (diag + rel_now).properties(width=230, height=260, title="Reliability diagram (10 bins)")
(alt.hconcat(reliability_panel, stats_panel).add_params(family_param, step_param)
 .resolve_scale(size="independent").configure_legend(orient="bottom", direction="horizontal"))

# %% [markdown]
# Across all {glue:text}`teach_grid_n_settings` settings the AUROC stays at {glue:text}`teach_grid_auroc:.3f`
# (largest minus smallest: {glue:text}`teach_grid_auroc_spread_text`), while CITL ranges from
# {glue:text}`teach_grid_citl_min:+.3f` to {glue:text}`teach_grid_citl_max:+.3f`, ECE from
# {glue:text}`teach_grid_ece_min:.3f` to {glue:text}`teach_grid_ece_max:.3f` and the Brier score from
# {glue:text}`teach_grid_brier_min:.3f` to {glue:text}`teach_grid_brier_max:.3f`. The lowest ECE on the grid,
# {glue:text}`teach_grid_best_ece:.3f`, comes from the setting {glue:text}`teach_grid_best_setting`: recalibrating
# a model (Platt scaling, temperature scaling, isotonic regression) works exactly this way, and for the same
# reason it cannot repair a weak AUROC.

# %% [markdown]
# ## A predictor that knows nothing, calibrated in the large
#
# The cheapest way to be calibrated in the large is to say the same number every time: the accuracy.
# Such a predictor has no way to tell answers apart, so every (correct, wrong) pair is a tie and its AUROC
# is one half.

# %% tags=["remove-input"]
conf_const = np.full(n_answers, correct.mean())
const = {
    "CITL (pp)": 100 * metrics.citl(conf_const, correct),
    "ECE": metrics.ece(conf_const, correct),
    "Brier": metrics.brier(conf_const, correct),
    "AUROC": metrics.auroc(conf_const, correct),
}
glue.value("teach_const_conf", 100 * float(conf_const[0]), origin="simulation")
glue.value("teach_const_citl", const["CITL (pp)"], origin="simulation")
glue.value("teach_const_ece", const["ECE"], origin="simulation")
glue.value("teach_const_brier", const["Brier"], origin="simulation")
glue.value("teach_const_auroc", const["AUROC"], origin="simulation")
table(pd.DataFrame([{"predictor": f"always {conf_const[0]:.3f}", **const}]), "teaching_constant_predictor",
      caption="A constant predictor that always states the accuracy", float_format="%.3f")

# %% [markdown]
# Saying {glue:text}`teach_const_conf:.1f`% on every answer gives CITL {glue:text}`teach_const_citl:.1f` points,
# ECE {glue:text}`teach_const_ece:.3f` and AUROC {glue:text}`teach_const_auroc:.3f`. Its Brier score,
# {glue:text}`teach_const_brier:.3f`, is not small: the Brier score also rewards discrimination, which the
# next section separates out.

# %% [markdown]
# ## What the Brier score is made of
#
# {cite:t}`t-murphy1973partition` split the Brier score of forecasts that take a finite set of values into three parts.
# Group the answers by the confidence stated, let group $g$ hold $n_g$ of the $N$ answers with stated value
# $f_g$ and share correct $\bar o_g$, and let $\bar o$ be the overall share correct. Then
#
# $$
# \text{Brier} \;=\; \underbrace{\frac{1}{N}\sum_g n_g\,(f_g-\bar o_g)^2}_{\text{reliability}}
# \;-\; \underbrace{\frac{1}{N}\sum_g n_g\,(\bar o_g-\bar o)^2}_{\text{resolution}}
# \;+\; \underbrace{\bar o\,(1-\bar o)}_{\text{uncertainty}} .
# $$
#
# *Reliability* (lower is better) is a calibration term: how far each stated value is from the accuracy of
# the answers given that value. *Resolution* (higher is better) is a discrimination term: how much the
# groups' accuracies spread around the overall accuracy. *Uncertainty* depends on the questions alone.
# A strictly increasing transform keeps the groups, so it keeps the resolution; only the reliability
# moves.

# %% tags=["remove-input"]
dec_rows = []
for name, conf in (("A (as stated)", conf_a), ("A, best ECE setting on the grid", transform(conf_a, best["family"], int(best["k"]))),
                   ("B", conf_b), ("constant", conf_const)):
    d = brier_decomposition(conf, correct)
    d["REL - RES + UNC"] = d["reliability"] - d["resolution"] + d["uncertainty"]
    dec_rows.append({"predictor": name, **d})
dec = pd.DataFrame(dec_rows)
identity_gap = float((dec["brier"] - dec["REL - RES + UNC"]).abs().max())
res_spread = float(grid["resolution"].max() - grid["resolution"].min())
glue.value("teach_dec_identity_gap", identity_gap, origin="simulation")
glue.value("teach_dec_res_spread", res_spread, origin="simulation")
glue.value("teach_dec_res_spread_text", "does not change at all" if res_spread == 0 else f"changes by at most {res_spread:.1e}", origin="simulation")
glue.value("teach_dec_A_rel", float(dec.loc[0, "reliability"]), origin="simulation")
glue.value("teach_dec_A_res", float(dec.loc[0, "resolution"]), origin="simulation")
glue.value("teach_dec_unc", float(dec.loc[0, "uncertainty"]), origin="simulation")
glue.value("teach_dec_B_res", float(dec.loc[2, "resolution"]), origin="simulation")
glue.value("teach_dec_best_rel", float(dec.loc[1, "reliability"]), origin="simulation")
table(dec, "teaching_murphy_decomposition", caption="Murphy decomposition of the Brier score", float_format="%.4f")

# %% tags=["remove-input"]
dec_long = grid.melt(id_vars=["family", "k", "setting"], value_vars=["reliability", "resolution"],
                     var_name="component", value_name="value")
dec_long["value"] = np.where(dec_long["component"] == "resolution", -dec_long["value"], dec_long["value"])
dec_long["component"] = dec_long["component"].map({"reliability": "+ reliability", "resolution": "− resolution"})
unc_row = grid[["family", "k", "setting"]].assign(component="+ uncertainty", value=float(dec.loc[0, "uncertainty"]))
dec_long = pd.concat([dec_long, unc_row], ignore_index=True)
dec_family = alt.param(name="dec_family", value="shift",
                       bind=alt.binding_radio(options=["shift", "scale", "warp"], name="transform "))
dec_step = alt.param(name="dec_step", value=0, bind=alt.binding_range(min=-8, max=8, step=1, name="strength "))
dec_chart = alt.Chart(dec_long).transform_filter(
    (alt.datum.family == dec_family) & (alt.datum.k == dec_step)
).mark_bar().encode(
    y=alt.Y("component:N", title=None, sort=["+ reliability", "− resolution", "+ uncertainty"]),
    x=alt.X("value:Q", title="contribution to the Brier score", scale=alt.Scale(domain=[-0.1, 0.35])),
    color=alt.Color("component:N", legend=None),
    tooltip=["setting:N", "component:N", alt.Tooltip("value:Q", format=".4f")],
).properties(width=420, height=120, title="Murphy decomposition of model A's Brier score")
dec_chart.add_params(dec_family, dec_step)

# %% [markdown]
# For model A as stated, reliability is {glue:text}`teach_dec_A_rel:.4f`, resolution
# {glue:text}`teach_dec_A_res:.4f` and uncertainty {glue:text}`teach_dec_unc:.4f`; the identity holds to
# {glue:text}`teach_dec_identity_gap:.1e` for every predictor in the table. Across the whole transform grid
# the resolution {glue:text}`teach_dec_res_spread_text`, while the best setting cuts the
# reliability to {glue:text}`teach_dec_best_rel:.4f`. Model B's resolution is only
# {glue:text}`teach_dec_B_res:.4f`: little to gain, whatever it does to its level.
#
# With many distinct stated values (or binned forecasts) the groups get small and the partition needs
# care: binning the forecasts adds within-bin terms, which is one reason the next section matters.

# %% [markdown]
# ## ECE depends on its bins
#
# ECE averages the gap between confidence and accuracy over bins of confidence. How the bins are cut is a
# choice, and the number changes with it. *Equal-width* bins split the 0–1 scale into intervals of one
# length (the paper's Table 1 uses equal-width bins); *equal-mass* bins sort the answers by confidence and cut them into
# groups of (nearly) equal size, so that no bin is nearly empty {cite:p}`t-nixon2019measuring`. Stated confidences pile up on round
# numbers, so an equal-mass cut often splits a pile of identical values between two bins, in row order.

# %% tags=["remove-input"]
def ece_equal_mass(confidence: np.ndarray, correct: np.ndarray, n_bins: int) -> float:
    """ECE over equal-mass bins: rows sorted by confidence (stable) and cut into n_bins near-equal runs.

    ECE = sum_b (n_b / N) |mean confidence_b - accuracy_b|.  Rows that share a confidence can land in
    two neighbouring bins (the cut follows row order).  Nixon et al. (2019), "Measuring calibration
    in deep learning", CVPR Workshops (adaptive / equal-mass binning).
    """
    c = np.asarray(confidence, dtype=float)
    y = np.asarray(correct, dtype=float)
    order = np.argsort(c, kind="stable")
    total = 0.0
    for idx in np.array_split(order, n_bins):
        if idx.size:
            total += idx.size * abs(c[idx].mean() - y[idx].mean())
    return float(total / c.size)


def ece_variants(confidence: np.ndarray, correct: np.ndarray) -> dict[str, float]:
    return {
        "equal-width, 10 bins": metrics.ece(confidence, correct, n_bins=10),
        "equal-width, 15 bins": metrics.ece(confidence, correct, n_bins=15),
        "equal-mass, 10 bins": ece_equal_mass(confidence, correct, 10),
        "equal-mass, 15 bins": ece_equal_mass(confidence, correct, 15),
    }


from selfconf import data as sdata

coll, excluded = sdata.load_collection(sources.path("collection"))
rows_graded = sdata.graded(coll)
bin_source = f"the collection's graded rows ({sources['collection'].label}, {sources['collection'].shown_path})"
per_model = [(m, metrics.from_percent(g["confidence"].to_numpy()), g["correct"].to_numpy())
             for m, g in rows_graded.groupby("model", sort=False)]
glue.value("teach_ece_rows", len(rows_graded), origin=ECE_ORIGIN)
glue.value("teach_ece_excluded", excluded.total_parse_failures, origin=ECE_ORIGIN)
show_markdown(f"Rows: {len(rows_graded):,} graded answers of {len(per_model)} models; "
              f"{excluded.total_parse_failures:,} answers without a parsable confidence are excluded "
              "(counted per model on the design page).")

ece_rows = [{"model": m, **ece_variants(c, y)} for m, c, y in per_model]
ece_table = pd.DataFrame(ece_rows)
variant_cols = list(ece_table.columns[1:])
ece_table["largest / smallest"] = ece_table[variant_cols].max(axis=1) / ece_table[variant_cols].min(axis=1)
worst = ece_table.loc[ece_table["largest / smallest"].idxmax()]
glue.value("teach_ece_source", bin_source, origin=ECE_ORIGIN)
glue.value("teach_ece_n_models", len(ece_table), origin=ECE_ORIGIN)
glue.value("teach_ece_worst_model", str(worst["model"]), origin=ECE_ORIGIN)
glue.value("teach_ece_worst_ratio", float(worst["largest / smallest"]), origin=ECE_ORIGIN)
glue.value("teach_ece_worst_min", float(worst[variant_cols].min()), origin=ECE_ORIGIN)
glue.value("teach_ece_worst_max", float(worst[variant_cols].max()), origin=ECE_ORIGIN)
table(as_text(ece_table, {c: "{:.3f}" for c in variant_cols + ["largest / smallest"]}), "teaching_ece_binnings",
      caption="ECE of each model of the collection under four binnings")

# %% tags=["remove-input"]
ece_long = ece_table.melt(id_vars=["model"], value_vars=variant_cols, var_name="binning", value_name="ECE")
alt.Chart(ece_long).mark_point(filled=True, size=80).encode(
    y=alt.Y("model:N", title=None, sort=None),
    x=alt.X("ECE:Q", title="expected calibration error"),
    color=alt.Color("binning:N", title="bins"),
    shape=alt.Shape("binning:N", title="bins"),
    tooltip=["model:N", "binning:N", alt.Tooltip("ECE:Q", format=".4f")],
).properties(width=420, title=alt.TitleParams("ECE under four binnings", subtitle=f"rows: {bin_source}"))

# %% [markdown]
# Rows used here: {glue:text}`teach_ece_source`. For {glue:text}`teach_ece_worst_model` the four binnings give
# ECEs from {glue:text}`teach_ece_worst_min:.3f` to {glue:text}`teach_ece_worst_max:.3f`, a factor of
# {glue:text}`teach_ece_worst_ratio:.2f`. An ECE quoted without its binning is not fully specified; comparing two
# papers' ECEs needs the same bins.

# %% [markdown]
# ## Risk, coverage, and what AUROC promises
#
# A model that may abstain answers only when its confidence is high. At *coverage* $c$ it answers the share
# $c$ of questions with the highest confidences; its *selective risk* is the error rate among them. The
# risk–coverage curve traces this for every $c$ {cite:p}`t-geifman2017selective`. At full coverage the risk is
# one minus the accuracy, whatever the confidences.
#
# AUROC summarises the ranking over **all** cut-offs at once. It does not say where along the ranking the
# errors sit. Two simulated models below share the same accuracy and (nearly) the same AUROC: model **C**
# is sure and right on a small share of answers and guesses on the rest; model **D** separates right from
# wrong moderately everywhere.

# %% tags=["remove-input"]
n_rc = n_answers
y_rc = (rng.random(n_rc) < 0.6).astype(int)
def to_confidence(score: np.ndarray) -> np.ndarray:
    """Logistic map of a score to (0, 1]: strictly increasing, so rankings and AUROC are unchanged."""
    return 1.0 / (1.0 + np.exp(-score))


score_d = to_confidence(rng.normal(size=n_rc) + 0.9 * y_rc)
auroc_d = metrics.auroc(score_d, y_rc)
base_noise = rng.normal(size=n_rc)
order_correct = rng.permutation(np.flatnonzero(y_rc))


def model_c(q: float) -> np.ndarray:
    """Scores that put the first share q of the correct answers above everything, the rest at random."""
    s = base_noise.copy()
    s[order_correct[: int(round(q * order_correct.size))]] += 100.0
    return to_confidence(s)


lo_q, hi_q = 0.0, 1.0
for _ in range(40):  # bisection: the share q at which C's AUROC matches D's
    mid = 0.5 * (lo_q + hi_q)
    lo_q, hi_q = (mid, hi_q) if metrics.auroc(model_c(mid), y_rc) < auroc_d else (lo_q, mid)
score_c = model_c(0.5 * (lo_q + hi_q))
auroc_c = metrics.auroc(score_c, y_rc)

coverages = np.round(np.arange(0.05, 1.0001, 0.05), 2)
rc_rows = []
for name, s in (("C: sure on a few", score_c), ("D: moderate everywhere", score_d)):
    risk = metrics.risk_coverage(s, y_rc, coverages=tuple(coverages))
    rc_rows += [{"model": name, "coverage": float(cv), "risk": float(r)} for cv, r in risk.items()]
rc = pd.DataFrame(rc_rows)
r = rc.pivot(index="coverage", columns="model", values="risk")
glue.value("teach_rc_auroc_c", auroc_c, origin="simulation")
glue.value("teach_rc_auroc_d", auroc_d, origin="simulation")
glue.value("teach_rc_acc", 100 * y_rc.mean(), origin="simulation")
for tag, cv in (("lo", 0.2), ("hi", 0.6)):
    glue.value(f"teach_rc_cov_{tag}", 100 * cv, origin="simulation")
    glue.value(f"teach_rc_c_{tag}", 100 * float(r.loc[cv, "C: sure on a few"]), origin="simulation")
    glue.value(f"teach_rc_d_{tag}", 100 * float(r.loc[cv, "D: moderate everywhere"]), origin="simulation")
cross = r.index[(r["C: sure on a few"] > r["D: moderate everywhere"]).to_numpy()]
glue.value("teach_rc_cross", 100 * float(cross.min()) if len(cross) else 100.0, origin="simulation")

cov_param = alt.param(name="coverage_at", value=0.2,
                      bind=alt.binding_range(min=0.05, max=1.0, step=0.05, name="coverage "))
base = alt.Chart(rc)
curves = base.mark_line(point=True).encode(
    x=alt.X("coverage:Q", title="coverage (share of questions answered)", scale=alt.Scale(domain=[0, 1])),
    y=alt.Y("risk:Q", title="selective risk (error rate among answered)", scale=alt.Scale(domain=[0, 0.5])),
    color=alt.Color("model:N", title=None),
    tooltip=["model:N", "coverage:Q", alt.Tooltip("risk:Q", format=".3f")],
)
rule = alt.Chart(pd.DataFrame({"x": [0]})).mark_rule(strokeDash=[3, 3], color="gray").encode(
    x=alt.X("cov:Q")).transform_calculate(cov=cov_param.name)
at = base.transform_filter(alt.expr.abs(alt.datum.coverage - cov_param) < 1e-6)
# the read-out sits in the chart's top-left corner, one line per model, so it never lands on a curve
at_text = [
    at.transform_filter(alt.datum.model == m).mark_text(align="left", baseline="top", fontSize=12).encode(
        x=alt.value(8), y=alt.value(8 + 16 * i), color=alt.Color("model:N", title=None), text=alt.Text("label:N"),
    ).transform_calculate(label=f"'{m.split(':')[0]}: ' + format(datum.risk * 100, '.1f') + '% wrong at this coverage'")
    for i, m in enumerate(sorted(rc["model"].unique()))
]
alt.layer(curves, rule, *at_text).add_params(cov_param).properties(width=420, height=300, title="Risk–coverage").configure_legend(
    orient="bottom")

# %% [markdown]
# The two AUROCs are {glue:text}`teach_rc_auroc_c:.3f` (C) and {glue:text}`teach_rc_auroc_d:.3f` (D), and both
# models answer {glue:text}`teach_rc_acc:.1f`% correctly. Answering only the top {glue:text}`teach_rc_cov_lo:.0f`%,
# model C is wrong on {glue:text}`teach_rc_c_lo:.1f`% and model D on {glue:text}`teach_rc_d_lo:.1f`%; at
# {glue:text}`teach_rc_cov_hi:.0f`% coverage the figures are {glue:text}`teach_rc_c_hi:.1f`% and
# {glue:text}`teach_rc_d_hi:.1f`%; C first becomes the riskier of the
# two at {glue:text}`teach_rc_cross:.0f`% coverage. AUROC promises an average over all thresholds; the risk at the
# threshold you will actually use has to be read off the curve.

# %% [markdown]
# ## Exercises
#
# Every answer below is computed by this page's notebook; open a solution only after trying.

# %% tags=["remove-input"]
# Exercise 1: a model that says 90 on every answer and is right on 72% of 1,000 answers.
ex1_y = np.r_[np.ones(720, dtype=int), np.zeros(280, dtype=int)]
ex1_c = np.full(ex1_y.size, 0.9)
glue.value("teach_ex1_stated", 100 * float(ex1_c[0]), origin="simulation")
glue.value("teach_ex1_n", int(ex1_y.size), origin="simulation")
glue.value("teach_ex1_k", int(ex1_y.sum()), origin="simulation")
glue.value("teach_ex1_citl", 100 * metrics.citl(ex1_c, ex1_y), origin="simulation")
glue.value("teach_ex1_ece", metrics.ece(ex1_c, ex1_y), origin="simulation")
glue.value("teach_ex1_auroc", metrics.auroc(ex1_c, ex1_y), origin="simulation")
glue.value("teach_ex1_brier", metrics.brier(ex1_c, ex1_y), origin="simulation")
# Exercise 2: square model A's confidences.
sq = conf_a ** 2
glue.value("teach_ex2_auroc_before", metrics.auroc(conf_a, correct), origin="simulation")
glue.value("teach_ex2_auroc_after", metrics.auroc(sq, correct), origin="simulation")
glue.value("teach_ex2_ece_before", metrics.ece(conf_a, correct), origin="simulation")
glue.value("teach_ex2_ece_after", metrics.ece(sq, correct), origin="simulation")
glue.value("teach_ex2_citl_after", 100 * metrics.citl(sq, correct), origin="simulation")
# Exercise 3: Brier score of the constant predictor versus p(1 - p).
glue.value("teach_ex3_brier", metrics.brier(conf_const, correct), origin="simulation")
glue.value("teach_ex3_unc", float(correct.mean() * (1 - correct.mean())), origin="simulation")
# Exercise 4: reverse model A's ranking (1 - c) and rescale it to A's mean.
rev = 1 - conf_a
rev = rev - rev.mean() + conf_a.mean()
glue.value("teach_ex4_auroc", metrics.auroc(rev, correct), origin="simulation")
glue.value("teach_ex4_citl", 100 * metrics.citl(rev, correct), origin="simulation")
_ = glue.value("teach_ex4_citl_a", 100 * metrics.citl(conf_a, correct), origin="simulation")

# %% [markdown]
# ```{exercise}
# :label: ex-constant-90
#
# A model states {glue:text}`teach_ex1_stated:.0f` on every one of {glue:text}`teach_ex1_n:,` answers, and
# {glue:text}`teach_ex1_k:,` of them are correct. Compute its CITL (in percentage points), its ten-bin ECE, its
# Brier score and its AUROC before opening the solution.
# ```
#
# ```{solution} ex-constant-90
# :class: dropdown
#
# With stated level $c$ and accuracy $a$, CITL $= c - a$: {glue:text}`teach_ex1_citl:.1f` points. All answers
# fall into one bin, so ECE equals $|c - a|$ = {glue:text}`teach_ex1_ece:.3f`. The Brier score is
# $a\,(1-c)^2 + (1-a)\,c^2$ = {glue:text}`teach_ex1_brier:.3f`. Every (correct, wrong) pair is a tie, so the AUROC is
# {glue:text}`teach_ex1_auroc:.3f`.
# ```
#
# ```{exercise}
# :label: ex-square
#
# Square every confidence of model A. Which of CITL, ECE and AUROC change, and in which direction?
# ```
#
# ```{solution} ex-square
# :class: dropdown
#
# Squaring is strictly increasing on [0, 1], so the ranking and the AUROC stay put:
# {glue:text}`teach_ex2_auroc_before:.3f` before, {glue:text}`teach_ex2_auroc_after:.3f` after. Every confidence
# below 1 gets smaller, so the level drops: ECE goes from {glue:text}`teach_ex2_ece_before:.3f` to
# {glue:text}`teach_ex2_ece_after:.3f` and CITL becomes {glue:text}`teach_ex2_citl_after:+.1f` points.
# ```
#
# ```{exercise}
# :label: ex-constant-brier
#
# Show that a predictor which always states the overall accuracy $p$ has Brier score $p(1-p)$, and check it on
# the constant predictor above. Which of Murphy's three terms are zero for it?
# ```
#
# ```{solution} ex-constant-brier
# :class: dropdown
#
# A share $p$ of answers contributes $(p-1)^2$ and a share $1-p$ contributes $p^2$, so the mean is
# $p(1-p)^2 + (1-p)p^2 = p(1-p)$. On this page: Brier {glue:text}`teach_ex3_brier:.4f`, $p(1-p)$ =
# {glue:text}`teach_ex3_unc:.4f`. There is one group whose stated value equals its accuracy, so reliability
# and resolution are both zero and only the uncertainty term is left.
# ```
#
# ```{exercise}
# :label: ex-reverse
#
# Replace each of model A's confidences $c$ by $1-c$ and then shift them so that their mean is A's mean again.
# What happens to CITL and to the AUROC?
# ```
#
# ```{solution} ex-reverse
# :class: dropdown
#
# The shift restores the mean, so CITL is unchanged: {glue:text}`teach_ex4_citl:+.1f` points against A's
# {glue:text}`teach_ex4_citl_a:+.1f`. The ranking is turned upside down, so the AUROC becomes
# {glue:text}`teach_ex4_auroc:.3f`, one minus A's. Calibration in the large cannot even tell
# whether a model's confidence points the right way.
# ```

# %% [markdown]
# ## References
#
# The works this chapter cites (all works cited anywhere in the book are in the [Bibliography](24_bibliography.md)):
#
# ```{bibliography}
# :filter: docname in docnames
# :keyprefix: t-
# :labelprefix: T
# ```
