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
# Several questions are often folded into the one word *calibration*. This chapter keeps four of them apart,
# each with its own measure:
#
# 1. **{term}`Calibration in the large`** — does the *average* stated confidence match the accuracy?
#    Measured by {term}`CITL` (mean confidence minus accuracy). It ignores which answers get which confidence.
# 2. **{term}`Calibration per confidence level`** — among the answers stated with about the same confidence, is the
#    share correct about that confidence? Drawn as a {term}`reliability diagram` and summarised by the expected
#    calibration error ({term}`ECE`) {cite:p}`t-guo2017calibration`; the reliability term of the
#    {term}`Brier score` {cite:p}`t-brier1950verification` measures it too.
# 3. **{term}`Discrimination`** — does a model say higher numbers on the answers it gets right than on the ones
#    it gets wrong? Measured by the {term}`AUROC` of confidence as a predictor of correctness {cite:p}`t-hanley1982meaning`.
# 4. **{term}`Selective prediction`** — if the model answers only the questions it is most confident about, how
#    often is it wrong on those? Read off the {term}`risk–coverage curve`.
#
# A model can have any one of these without the others (the first can hold while the second fails; the first two
# can hold while the third fails), and the Brier score mixes the second and the third. This chapter separates them
# on simulated answers, where we control the truth, looks at one choice hidden inside every ECE (the bins), and
# ends with a lab on real answers of 26 models. The figures are interactive: move a slider and the chart redraws in your browser,
# from numbers this notebook computed for every slider position.
#
# **Learning objectives.** After this chapter you can
#
# - compute CITL, ECE, the Brier score and AUROC from rows, by hand and with `selfconf.metrics`;
# - explain why a strictly increasing transform of the confidences leaves AUROC unchanged while every
#   calibration statistic moves, and why isotonic recalibration can change AUROC;
# - split a Brier score into reliability, resolution and uncertainty and say which part a recalibration can fix;
# - show on heaped, LLM-like confidences how the choice of bins moves ECE, and report an ECE with its binning;
# - read a risk–coverage curve and find the coverage at which a model's error rate falls below a target.
#

# %% [markdown] tags=["book-only"]
# **How to use this page.** Every code cell is behind a toggle (*Show code cell source*): the code uses
# only the package's public API (`selfconf.metrics`, `selfconf.datasets`, `selfconf.bootstrap`). The
# rocket button at the top opens this notebook in Colab or Binder, where its first cell installs the
# package. The exercises at the end have checks that answer at once; the student edition leaves the
# answers blank (links below), and this page shows the reference solutions behind toggles.

# %% [markdown] tags=["remove-cell", "student-only"]
# **How to use this notebook.** Run the cells from the top: the first installs the book's package when it is
# missing, and the code uses only its public API (`selfconf.metrics`, `selfconf.datasets`, `selfconf.bootstrap`).
# Tables and charts are computed by this notebook; the numbers quoted in the text are those of the book's page,
# computed by the same code with the same seed. The exercises at the end have an empty answer cell (`...`) and a
# check cell that answers at once. The terms in bold are defined in the book's glossary.

# %% tags=["remove-input", "book-only"]
from selfconf.book import in_book, show_markdown

if in_book():  # the links to the student edition exist on the book's site only
    from selfconf import course

    show_markdown(course.student_links("20_calibration_vs_discrimination"))

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"  # read only by the binning section's comparison with the collection
n_answers = 1500
lab_data = "mmlu-pro"  # student edition: "mmlu-pro-sample"

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
import numpy as np
import pandas as pd

from selfconf import bootstrap, course, datasets, metrics
from selfconf.book import in_book, page_banner, table, vega

if in_book():
    vega.enable()  # the book draws altair charts with its own offline Vega bundle
else:
    course.offline_charts()  # elsewhere too, no network: Vega is inlined in each chart
rng = np.random.default_rng(seed)
# Checks for the exercises (otter-grader): grader.check("name") says at once whether an answer passes
grader = course.grader("20_calibration_vs_discrimination")

# %% tags=["remove-input", "book-only"]
page_banner(
    "simulation",
    note="One subsection, *The collection's rows*, reads the book's reconstruction of the paper's rows (see "
    "{ref}`what a reconstruction cannot tell you <recon-limits>`), and the lab at the end reads real "
    "third-party answers (MMLU-Pro, 26 models).",
    provenance_line=f"simulated answers · seed: {seed} · bootstrap draws: {n_boot:,} · answers per simulated model: "
    f"{n_answers:,}",
)

# %% [markdown]
# ## Two simulated models
#
# Both answer the same questions, so they share one accuracy. Model **A** states a confidence that rises
# with its chance of being right, but sits far too high. Model **B** states confidences whose average
# equals its accuracy, yet they carry almost no information about *which* answers are right.

# %% tags=["hide-input"]
p_true = rng.beta(2, 3, n_answers)  # each answer's true chance of being correct
correct = (rng.random(n_answers) < p_true).astype(int)
conf_a = np.clip(np.round((0.45 + 0.55 * p_true) * 20) / 20, 0, 1)  # informative, shifted up, heaped on 5s
noise = rng.normal(0, 0.08, n_answers)
conf_b = np.clip(np.round((correct.mean() + noise + 0.02 * (p_true - 0.4)) * 20) / 20, 0, 1)

rows = []
for name, conf in (("A: informative but overconfident", conf_a), ("B: calibrated in the large, uninformative", conf_b)):
    ci = bootstrap.auroc_ci(conf, correct, n_boot=n_boot, rng=rng)
    rows.append(
        {
            "model": name,
            "accuracy": correct.mean(),
            "mean confidence": conf.mean(),
            "CITL": metrics.citl(conf, correct),
            "ECE": metrics.ece(conf, correct),
            "Brier": metrics.brier(conf, correct),
            "AUROC": metrics.auroc(conf, correct),
            "AUROC 95% CI": f"[{ci.low:.3f}, {ci.high:.3f}]",
        }
    )
summary = pd.DataFrame(rows)
shown = summary.copy()
for col in ["accuracy", "mean confidence", "CITL", "ECE", "Brier", "AUROC"]:
    shown[col] = shown[col].map("{:.3f}".format)
table(
    shown,
    "teaching_two_models",
    caption="Two simulated models (0–1 scale): calibration in the large and discrimination",
)

# %% tags=["remove-cell", "book-only"]
from selfconf.book import glue

for m, r in (("A", summary.iloc[0]), ("B", summary.iloc[1])):
    glue.value(f"teach_{m}_citl", 100 * r["CITL"], origin="simulation")
    glue.value(f"teach_{m}_ece", r["ECE"], origin="simulation")
    glue.value(f"teach_{m}_auroc", r["AUROC"], origin="simulation")
    glue.value(f"teach_{m}_brier", r["Brier"], origin="simulation")
_ = glue.value("teach_accuracy", 100 * correct.mean(), origin="simulation")

# %% [markdown]
# Model A overstates its accuracy by {glue:text}`teach_A_citl:.1f` percentage points (CITL), and per
# confidence level it is off by about as much (ECE {glue:text}`teach_A_ece:.3f`), yet it ranks its answers well
# (AUROC {glue:text}`teach_A_auroc:.3f`). Model B is calibrated in the large (CITL {glue:text}`teach_B_citl:+.1f`
# points) but not per confidence level: its ECE is {glue:text}`teach_B_ece:.3f`, because the answers it states
# 0.70 for are not right 70 % of the time; and its AUROC of {glue:text}`teach_B_auroc:.3f` says its confidence
# barely separates right from wrong answers. Calibration of either kind does not imply discrimination, and the
# converse fails too.

# %% [markdown]
# ## Reliability diagrams and ROC curves
#
# Left: each point is a bin of stated confidence (ten equal-width bins, `metrics.reliability_bins`); its
# height is the accuracy inside the bin and its size the number of answers. Points below the diagonal are
# overconfident bins. Right: the ROC curve (`metrics.roc_curve`) plots, for every threshold on the
# confidence, the share of right answers above it against the share of wrong answers above it
# {cite:p}`t-fawcett2006introduction`; the AUROC is the area under it, and a tie group of equal confidences
# is one straight segment.

# %% tags=["hide-input"]
frames, curves = [], []
for name, conf in (("A", conf_a), ("B", conf_b)):
    b = pd.DataFrame(metrics.reliability_bins(conf, correct, n_bins=10))
    frames.append(b[b["n"] > 0].assign(model=name))
    curves.append(pd.DataFrame(metrics.roc_curve(conf, correct)).drop(columns="threshold").assign(model=name))
bins = pd.concat(frames)
roc = pd.concat(curves)
diag = (
    alt.Chart(pd.DataFrame({"x": [0, 1], "y": [0, 1]})).mark_line(strokeDash=[4, 4], color="gray").encode(x="x", y="y")
)
pts = (
    alt.Chart(bins)
    .mark_circle()
    .encode(
        x=alt.X("mean_conf:Q", title="mean stated confidence in bin", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("acc:Q", title="accuracy in bin", scale=alt.Scale(domain=[0, 1])),
        size=alt.Size("n:Q", title="answers"),
        color=alt.Color("model:N"),
        tooltip=[
            "model",
            "lo",
            "hi",
            "n",
            alt.Tooltip("mean_conf:Q", format=".3f"),
            alt.Tooltip("acc:Q", format=".3f"),
        ],
    )
)
roc_lines = (
    alt.Chart(roc)
    .mark_line(point=True)
    .encode(
        x=alt.X("fpr:Q", title="share of wrong answers above the threshold"),
        y=alt.Y("tpr:Q", title="share of right answers above the threshold"),
        color=alt.Color("model:N"),
        order="fpr:Q",
        tooltip=["model", alt.Tooltip("fpr:Q", format=".3f"), alt.Tooltip("tpr:Q", format=".3f")],
    )
)
alt.hconcat(
    (diag + pts).properties(width=260, height=260, title="Reliability"),
    (diag + roc_lines).properties(width=260, height=260, title="ROC"),
).properties(title="Reliability diagrams and ROC curves of the simulated models A and B")

# %% [markdown]
# ## Move the confidences, keep the ranking
#
# AUROC looks only at the *order* of the confidences: it is the probability that a randomly chosen
# correct answer received a higher confidence than a randomly chosen wrong one (ties count half). Any
# transformation that keeps the order — and keeps distinct values distinct — leaves it exactly where
# it was, while every calibration statistic moves.
#
# Below, model A's confidences $c$ go through one of three strictly increasing maps, with a strength
# chosen by the slider (position 0 is the identity); the read-out above the charts states the map's actual
# parameter at every position:
#
# - **shift**: add $\delta$ on the log-odds scale, $c' = \sigma(\operatorname{logit} c + \delta)$, with $\delta = 0.35\,k$;
# - **scale**: divide the log-odds by a temperature $T$, $c' = \sigma(\operatorname{logit} c \,/\, T)$, with $T = 2^{k/4}$;
# - **warp**: raise to a power, $c' = c^{\gamma}$, with $\gamma = 2^{k/4}$,
#
# for slider positions $k = -8, \dots, 8$. The notebook computed every statistic for each of the
# {glue:text}`teach_grid_n_settings` settings; the slider only chooses which precomputed row to show.

# %% tags=["hide-input"]
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
    """The map's actual parameter at slider position k, as the read-out shows it."""
    return {
        "shift": f"shift: δ = {0.35 * k:+.2f}",
        "scale": f"scale: T = {2.0 ** (k / 4):.3f}",
        "warp": f"warp: γ = {2.0 ** (k / 4):.3f}",
    }[family]


grid_rows, grid_bins = [], []
for family in ("shift", "scale", "warp"):
    for k in STEPS:
        c = transform(conf_a, family, int(k))
        d = metrics.brier_decomposition(c, correct)
        grid_rows.append(
            {
                "family": family,
                "k": int(k),
                "setting": setting_label(family, int(k)),
                "AUROC": metrics.auroc(c, correct),
                "CITL": metrics.citl(c, correct),
                "ECE": metrics.ece(c, correct),
                "Brier": metrics.brier(c, correct),
                "reliability": d["reliability"],
                "resolution": d["resolution"],
                "n_levels": d["n_groups"],
            }
        )
        rb = pd.DataFrame(metrics.reliability_bins(c, correct, n_bins=10))
        grid_bins.append(rb[rb["n"] > 0].assign(family=family, k=int(k)))
grid = pd.DataFrame(grid_rows)
grid_bins = pd.concat(grid_bins, ignore_index=True)
assert (grid["n_levels"] == np.unique(conf_a).size).all(), "a transform merged two confidence levels"
best = grid.loc[grid["ECE"].idxmin()]

# %% tags=["remove-cell", "book-only"]
auroc_spread = float(grid["AUROC"].max() - grid["AUROC"].min())
glue.value("teach_grid_n_settings", len(grid), origin="parameter")
glue.value("teach_grid_auroc_spread", auroc_spread, origin="simulation")
glue.value(
    "teach_grid_auroc_spread_text", "exactly 0" if auroc_spread == 0 else f"{auroc_spread:.1e}", origin="simulation"
)
glue.value("teach_grid_auroc", float(grid["AUROC"].iloc[0]), origin="simulation")
for col, name in (("CITL", "citl"), ("ECE", "ece"), ("Brier", "brier")):
    glue.value(f"teach_grid_{name}_min", float(grid[col].min()), origin="simulation")
    glue.value(f"teach_grid_{name}_max", float(grid[col].max()), origin="simulation")
glue.value("teach_grid_best_ece", float(best["ECE"]), origin="simulation")
_ = glue.value("teach_grid_best_setting", str(best["setting"]), origin="simulation")

# %% tags=["hide-input"]
family_param = alt.param(
    name="family", value="shift", bind=alt.binding_radio(options=["shift", "scale", "warp"], name="transform ")
)
step_param = alt.param(name="step", value=0, bind=alt.binding_range(min=-8, max=8, step=1, name="slider position k "))
selected = (alt.datum.family == family_param) & (alt.datum.k == step_param)
STATS = ["AUROC", "CITL", "ECE", "Brier"]

long = grid.melt(id_vars=["family", "k", "setting"], value_vars=STATS, var_name="statistic", value_name="value")
stat_color = alt.Color("statistic:N", scale=alt.Scale(domain=STATS), title=None)
lines = (
    alt.Chart(long)
    .transform_filter(alt.datum.family == family_param)
    .mark_line()
    .encode(
        x=alt.X("k:Q", title="slider position k (0 = unchanged)", scale=alt.Scale(domain=[-8, 8])),
        y=alt.Y("value:Q", title="value", scale=alt.Scale(domain=[-0.6, 1])),
        color=stat_color,
    )
)
dots = (
    alt.Chart(long)
    .transform_filter(selected)
    .mark_point(filled=True, size=70)
    .encode(
        x="k:Q",
        y="value:Q",
        color=stat_color,
        tooltip=["setting:N", "statistic:N", alt.Tooltip("value:Q", format=".3f")],
    )
)
stats_panel = (lines + dots).properties(width=250, height=260, title="Statistics along the slider")

# the read-out: one line per item in its own band, so no two labels can overlap at any position
readout_rows = [{"family": r.family, "k": r.k, "line": 0, "text": r.setting} for r in grid.itertuples()]
readout_rows += [
    {"family": r.family, "k": r.k, "line": i + 1, "text": f"{s} = {getattr(r, s):.3f}"}
    for r in grid.itertuples()
    for i, s in enumerate(STATS)
]
readout = (
    alt.Chart(pd.DataFrame(readout_rows))
    .transform_filter(selected)
    .mark_text(align="left", fontSize=12)
    .encode(
        x=alt.value(0),
        y=alt.Y("line:O", axis=None),
        text="text:N",
    )
    .properties(width=480, height=90, title="At this position")
)

rel_now = (
    alt.Chart(grid_bins)
    .transform_filter(selected)
    .mark_circle(color="#4c78a8")
    .encode(
        x=alt.X("mean_conf:Q", title="mean stated confidence in bin", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("acc:Q", title="accuracy in bin", scale=alt.Scale(domain=[0, 1])),
        size=alt.Size("n:Q", title="answers", scale=alt.Scale(range=[10, 400])),
        tooltip=[
            alt.Tooltip("lo:Q", format=".1f"),
            alt.Tooltip("hi:Q", format=".1f"),
            "n:Q",
            alt.Tooltip("mean_conf:Q", format=".3f"),
            alt.Tooltip("acc:Q", format=".3f"),
        ],
    )
)
reliability_panel = (diag + rel_now).properties(width=230, height=260, title="Reliability diagram (10 bins)")
(
    alt.vconcat(readout, alt.hconcat(reliability_panel, stats_panel).resolve_scale(size="independent"))
    .add_params(family_param, step_param)
    .properties(title="Model A under strictly increasing transforms")
    .configure_legend(orient="bottom", direction="horizontal")
    .configure_view(stroke=None)
)

# %% [markdown]
# Across all {glue:text}`teach_grid_n_settings` settings the AUROC stays at {glue:text}`teach_grid_auroc:.3f`
# (largest minus smallest: {glue:text}`teach_grid_auroc_spread_text`), while CITL ranges from
# {glue:text}`teach_grid_citl_min:+.3f` to {glue:text}`teach_grid_citl_max:+.3f`, ECE from
# {glue:text}`teach_grid_ece_min:.3f` to {glue:text}`teach_grid_ece_max:.3f` and the Brier score from
# {glue:text}`teach_grid_brier_min:.3f` to {glue:text}`teach_grid_brier_max:.3f`. The lowest ECE on the grid,
# {glue:text}`teach_grid_best_ece:.3f`, comes from the setting {glue:text}`teach_grid_best_setting`.
# {term}`Platt scaling` {cite:p}`t-platt1999probabilistic` and {term}`temperature scaling` {cite:p}`t-guo2017calibration` are
# maps of exactly this kind (strictly increasing), so they can lower ECE but leave AUROC where it was: they
# cannot repair a weak ranking.

# %% [markdown]
# ### Isotonic regression is different: it creates ties
#
# {term}`Isotonic <Isotonic regression>` {term}`recalibration` {cite:p}`t-zadrozny2002transforming` replaces each stated confidence by a fitted
# accuracy that may only go up with the confidence, never down. It is *non-decreasing*, not strictly
# increasing: where the observed accuracy dips between neighbouring confidence levels, it pools those levels
# into one value. Pooled levels become ties, a tie between a right and a wrong answer counts one half, so
# the AUROC changes. Below, isotonic regression (scikit-learn's `IsotonicRegression`) is fitted to model A's
# own answers.

# %% tags=["hide-input"]
from sklearn.isotonic import IsotonicRegression

iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
conf_iso = iso.fit_transform(conf_a, correct)  # fitted and scored on the same answers: in sample
# cross-fitted: five folds; each answer gets the value of a fit made on the other four folds only
N_FOLDS = 5
fold = np.random.default_rng([seed, 7]).permutation(n_answers) % N_FOLDS
conf_iso_cf = np.empty(n_answers)
for f in range(N_FOLDS):
    held = fold == f
    fitted = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(conf_a[~held], correct[~held])
    conf_iso_cf[held] = fitted.predict(conf_a[held])
pooled = (
    pd.DataFrame({"stated": conf_a, "fitted": conf_iso})
    .groupby("fitted")
    .agg(
        levels=("stated", lambda s: ", ".join(f"{v:.2f}" for v in sorted(set(s)))),
        n_levels=("stated", "nunique"),
        answers=("stated", "size"),
    )
    .reset_index()
)
iso_row = {
    "levels before": np.unique(conf_a).size,
    "levels after": np.unique(conf_iso).size,
    "AUROC before": metrics.auroc(conf_a, correct),
    "AUROC after": metrics.auroc(conf_iso, correct),
    "ECE before": metrics.ece(conf_a, correct),
    "ECE after (in sample)": metrics.ece(conf_iso, correct),
    f"ECE after ({N_FOLDS}-fold cross-fitted)": metrics.ece(conf_iso_cf, correct),
}
ties = pooled[pooled["n_levels"] > 1][["fitted", "levels", "answers"]]
ties_shown = ties.assign(fitted=ties["fitted"].map("{:.3f}".format)).rename(
    columns={"fitted": "fitted value", "levels": "stated levels pooled into it"}
)
table(
    pd.DataFrame([iso_row]),
    "teaching_isotonic",
    caption="Model A before and after isotonic recalibration",
    float_format="%.4f",
)
table(
    ties_shown,
    "teaching_isotonic_ties",
    caption="The ties isotonic regression creates: stated levels pooled into one fitted value",
)

# %% tags=["remove-cell", "book-only"]
glue.value("teach_iso_levels_before", int(iso_row["levels before"]), origin="simulation")
glue.value("teach_iso_levels_after", int(iso_row["levels after"]), origin="simulation")
glue.value("teach_iso_n_pools", len(ties), origin="simulation")
glue.value("teach_iso_auroc_before", float(iso_row["AUROC before"]), origin="simulation")
glue.value("teach_iso_auroc_after", float(iso_row["AUROC after"]), origin="simulation")
glue.value("teach_iso_ece_after", float(iso_row["ECE after (in sample)"]), origin="simulation")
glue.value("teach_iso_ece_cf", float(iso_row[f"ECE after ({N_FOLDS}-fold cross-fitted)"]), origin="simulation")
glue.value("teach_iso_n_folds", N_FOLDS, origin="parameter")
glue.value("teach_iso_ece_before", float(iso_row["ECE before"]), origin="simulation")
d_auc = iso_row["AUROC after"] - iso_row["AUROC before"]
_ = glue.value(
    "teach_iso_auroc_move",
    "leaves it unchanged" if d_auc == 0 else ("raises it" if d_auc > 0 else "lowers it") + f" by {abs(d_auc):.4f}",
    origin="simulation",
)

# %% [markdown]
# Model A's {glue:text}`teach_iso_levels_before` stated levels become {glue:text}`teach_iso_levels_after`
# fitted values: {glue:text}`teach_iso_n_pools` groups of neighbouring levels are pooled into ties. Scored on the
# answers it was fitted to, the ECE drops from {glue:text}`teach_iso_ece_before:.3f` to
# {glue:text}`teach_iso_ece_after:.3f`. **That in-sample number is not a result:** isotonic regression sets each
# fitted value to the accuracy of its own group of answers, so its in-sample ECE is close to zero by construction,
# whatever the model. Cross-fitted ({glue:text}`teach_iso_n_folds` folds: each answer's recalibrated value comes from
# a fit that never saw that answer) the ECE is {glue:text}`teach_iso_ece_cf:.3f`, the number to expect on new
# answers. The AUROC moves from {glue:text}`teach_iso_auroc_before:.4f` to {glue:text}`teach_iso_auroc_after:.4f`
# (the fit {glue:text}`teach_iso_auroc_move`). The same warning holds for it: fitted and scored on the same answers,
# pooling a dip can even raise the AUROC, because the pooled pairs that were ranked the wrong way now count one
# half each; on new answers the ties lose information instead. Either way the ranking is no longer the model's own,
# which is why AUROC should be reported on the confidences as stated.

# %% [markdown]
# ## A predictor that knows nothing, calibrated in the large
#
# The cheapest way to be calibrated in the large is to say the same number every time: the accuracy.
# Such a predictor has no way to tell answers apart, so every (correct, wrong) pair is a tie and its AUROC
# is one half.

# %% tags=["hide-input"]
conf_const = np.full(n_answers, correct.mean())
const = {
    "CITL (pp)": 100 * metrics.citl(conf_const, correct),
    "ECE": metrics.ece(conf_const, correct),
    "Brier": metrics.brier(conf_const, correct),
    "AUROC": metrics.auroc(conf_const, correct),
}
table(
    pd.DataFrame([{"predictor": f"always {conf_const[0]:.3f}", **const}]),
    "teaching_constant_predictor",
    caption="A constant predictor that always states the accuracy",
    float_format="%.3f",
)

# %% tags=["remove-cell", "book-only"]
glue.value("teach_const_conf", 100 * float(conf_const[0]), origin="simulation")
glue.value("teach_const_citl", const["CITL (pp)"], origin="simulation")
glue.value("teach_const_ece", const["ECE"], origin="simulation")
glue.value("teach_const_brier", const["Brier"], origin="simulation")
_ = glue.value("teach_const_auroc", const["AUROC"], origin="simulation")

# %% [markdown]
# Saying {glue:text}`teach_const_conf:.1f`% on every answer gives CITL {glue:text}`teach_const_citl:.1f` points,
# ECE {glue:text}`teach_const_ece:.3f` and AUROC {glue:text}`teach_const_auroc:.3f`. Its Brier score,
# {glue:text}`teach_const_brier:.3f`, is not small: the Brier score also rewards discrimination, which the
# next section separates out.

# %% [markdown]
# ## What the Brier score is made of
#
# {cite:t}`t-murphy1973partition` split the Brier score ({term}`Murphy decomposition`) of forecasts that take a finite set of values into three parts.
# Group the answers by the confidence stated, let group $g$ hold $n_g$ of the $N$ answers with stated value
# $f_g$ and share correct $\bar o_g$, and let $\bar o$ be the overall share correct. Then
#
# $$
# \text{Brier} \;=\; \underbrace{\frac{1}{N}\sum_g n_g\,(f_g-\bar o_g)^2}_{\text{reliability}}
# \;-\; \underbrace{\frac{1}{N}\sum_g n_g\,(\bar o_g-\bar o)^2}_{\text{resolution}}
# \;+\; \underbrace{\bar o\,(1-\bar o)}_{\text{uncertainty}} .
# $$
#
# {term}`Reliability` (lower is better) is the term of calibration per confidence level: how far each stated value
# is from the accuracy of the answers given that value. {term}`Resolution` (higher is better) is a discrimination
# term: how much the groups' accuracies spread around the overall accuracy. {term}`Uncertainty` depends on the
# questions alone.
# A strictly increasing transform keeps the groups, so it keeps the resolution; only the reliability
# moves. `metrics.brier_decomposition` computes the three terms.

# %% tags=["hide-input"]
dec_rows = []
for name, conf in (
    ("A (as stated)", conf_a),
    ("A, best ECE setting on the grid", transform(conf_a, best["family"], int(best["k"]))),
    ("B", conf_b),
    ("constant", conf_const),
):
    d = metrics.brier_decomposition(conf, correct)
    dec_rows.append(
        {
            "predictor": name,
            "reliability": d["reliability"],
            "resolution": d["resolution"],
            "uncertainty": d["uncertainty"],
            "brier": d["brier"],
            "REL - RES + UNC": d["reliability"] - d["resolution"] + d["uncertainty"],
        }
    )
dec = pd.DataFrame(dec_rows)
table(dec, "teaching_murphy_decomposition", caption="Murphy decomposition of the Brier score", float_format="%.4f")

# %% tags=["remove-cell", "book-only"]
identity_gap = float((dec["brier"] - dec["REL - RES + UNC"]).abs().max())
res_spread = float(grid["resolution"].max() - grid["resolution"].min())
glue.value("teach_dec_identity_gap", identity_gap, origin="simulation")
glue.value("teach_dec_res_spread", res_spread, origin="simulation")
glue.value(
    "teach_dec_res_spread_text",
    "does not change at all" if res_spread == 0 else f"changes by at most {res_spread:.1e}",
    origin="simulation",
)
glue.value("teach_dec_A_rel", float(dec.loc[0, "reliability"]), origin="simulation")
glue.value("teach_dec_A_res", float(dec.loc[0, "resolution"]), origin="simulation")
glue.value("teach_dec_unc", float(dec.loc[0, "uncertainty"]), origin="simulation")
glue.value("teach_dec_B_res", float(dec.loc[2, "resolution"]), origin="simulation")
_ = glue.value("teach_dec_best_rel", float(dec.loc[1, "reliability"]), origin="simulation")

# %% tags=["hide-input"]
dec_long = grid.melt(
    id_vars=["family", "k", "setting"],
    value_vars=["reliability", "resolution"],
    var_name="component",
    value_name="value",
)
dec_long["value"] = np.where(dec_long["component"] == "resolution", -dec_long["value"], dec_long["value"])
dec_long["component"] = dec_long["component"].map({"reliability": "+ reliability", "resolution": "− resolution"})
unc_row = grid[["family", "k", "setting"]].assign(component="+ uncertainty", value=float(dec.loc[0, "uncertainty"]))
dec_long = pd.concat([dec_long, unc_row], ignore_index=True)
dec_family = alt.param(
    name="dec_family", value="shift", bind=alt.binding_radio(options=["shift", "scale", "warp"], name="transform ")
)
dec_step = alt.param(name="dec_step", value=0, bind=alt.binding_range(min=-8, max=8, step=1, name="slider position k "))
dec_selected = (alt.datum.family == dec_family) & (alt.datum.k == dec_step)
dec_chart = (
    alt.Chart(dec_long)
    .transform_filter(dec_selected)
    .mark_bar()
    .encode(
        y=alt.Y("component:N", title=None, sort=["+ reliability", "− resolution", "+ uncertainty"]),
        x=alt.X("value:Q", title="contribution to the Brier score", scale=alt.Scale(domain=[-0.1, 0.35])),
        color=alt.Color("component:N", legend=None),
        tooltip=["setting:N", "component:N", alt.Tooltip("value:Q", format=".4f")],
    )
    .properties(width=420, height=120)
)
dec_readout = (
    alt.Chart(grid)
    .transform_filter(dec_selected)
    .mark_text(align="left", fontSize=12)
    .encode(x=alt.value(0), y=alt.value(8), text="setting:N")
    .properties(width=420, height=18)
)
(
    alt.vconcat(dec_readout, dec_chart)
    .add_params(dec_family, dec_step)
    .properties(title="Murphy decomposition of model A's Brier score")
    .configure_view(stroke=None)
)

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
# choice, and the number changes with it. {term}`Equal-width <Equal-width bins>` bins split the 0–1 scale into intervals of one
# length (the paper's Table 1 uses ten equal-width bins); {term}`equal-mass <Equal-mass bins>` bins cut at quantiles of the stated
# confidence so that each bin holds about the same number of answers {cite:p}`t-nixon2019measuring`. A value
# lying exactly on an edge has to go to one side: `edge="upper"` puts 0.8 into $[0.8, 0.9)$, `edge="lower"`
# (scikit-learn's rule) into $(0.7, 0.8]$.
#
# Language models state confidence the way people do: in round numbers, mostly multiples of 5, with spikes
# at 80, 90 and 95 ({term}`heaping <Heaping>`). Those spikes sit exactly on the edges of ten equal-width bins, so the
# {term}`edge rule <Edge rule>` decides
# which neighbours each spike is averaged with; and when the accuracy behind neighbouring round numbers is
# not monotone (here: answers given "85" are right less often than those given "80"), over- and
# underconfident levels cancel inside one bin under one rule and not under the other. The simulated model
# below states confidences this way.

# %% tags=["hide-input"]
heap_levels = np.round(np.arange(0.50, 1.0001, 0.05), 2)
heap_weights = np.array([1, 1, 1, 2, 2, 3, 14, 4, 22, 18, 3], dtype=float)  # spikes at 0.80, 0.90, 0.95
heap_accuracy = np.array([0.45, 0.50, 0.52, 0.55, 0.60, 0.66, 0.86, 0.68, 0.96, 0.78, 0.84])
heap_rng = np.random.default_rng([seed, 5])
heap_c = heap_rng.choice(heap_levels, size=n_answers, p=heap_weights / heap_weights.sum())
heap_y = (heap_rng.random(n_answers) < heap_accuracy[np.searchsorted(heap_levels, heap_c)]).astype(int)

BINNINGS = {
    "equal-width, 10 bins, edge upper": dict(n_bins=10, edge="upper"),
    "equal-width, 10 bins, edge lower": dict(n_bins=10, edge="lower"),
    "equal-width, 15 bins, edge upper": dict(n_bins=15, edge="upper"),
    "equal-width, 15 bins, edge lower": dict(n_bins=15, edge="lower"),
    "equal-mass, 10 bins": dict(n_bins=10, binning="equal_mass"),
    "equal-mass, 15 bins": dict(n_bins=15, binning="equal_mass"),
}
heap_ece = pd.DataFrame(
    [
        {
            "binning": name,
            "ECE": metrics.ece(heap_c, heap_y, **kw),
            "occupied bins": int((metrics.reliability_bins(heap_c, heap_y, **kw)["n"] > 0).sum()),
        }
        for name, kw in BINNINGS.items()
    ]
)
heap_ratio = heap_ece["ECE"].max() / heap_ece["ECE"].min()
levels_table = pd.DataFrame(
    {
        "stated": heap_levels,
        "answers": [int((heap_c == v).sum()) for v in heap_levels],
        "accuracy": [heap_y[heap_c == v].mean() if (heap_c == v).any() else np.nan for v in heap_levels],
    }
)
table(
    heap_ece.assign(ECE=heap_ece["ECE"].map("{:.4f}".format)),
    "teaching_heaped_ece",
    caption=f"ECE of one simulated LLM-like model under six binnings (largest / smallest = {heap_ratio:.2f})",
)

# %% tags=["remove-cell", "book-only"]
glue.value("teach_heap_ratio", float(heap_ratio), origin="simulation")
glue.value("teach_heap_min", float(heap_ece["ECE"].min()), origin="simulation")
glue.value("teach_heap_max", float(heap_ece["ECE"].max()), origin="simulation")
glue.value("teach_heap_min_binning", str(heap_ece.loc[heap_ece["ECE"].idxmin(), "binning"]), origin="simulation")
glue.value("teach_heap_max_binning", str(heap_ece.loc[heap_ece["ECE"].idxmax(), "binning"]), origin="simulation")
glue.value("teach_heap_citl", float(metrics.citl(heap_c, heap_y)), origin="simulation")
glue.value("teach_heap_spike_share", 100 * float(np.isin(heap_c, [0.8, 0.9, 0.95]).mean()), origin="simulation")
_ = glue.value("teach_heap_mass_bins", int(heap_ece.iloc[4]["occupied bins"]), origin="simulation")

# %% tags=["hide-input"]
levels_chart = (
    alt.Chart(levels_table)
    .mark_bar(color="#9ecae1")
    .encode(
        x=alt.X("stated:O", title="stated confidence", axis=alt.Axis(format=".2f")),
        y=alt.Y("answers:Q", title="answers"),
        tooltip=["stated:Q", "answers:Q", alt.Tooltip("accuracy:Q", format=".3f")],
    )
    .properties(width=300, height=200, title="How often each value is stated")
)
acc_chart = (
    alt.Chart(levels_table)
    .mark_point(filled=True, size=60, color="#e45756")
    .encode(
        x=alt.X("stated:Q", title="stated confidence", scale=alt.Scale(domain=[0.45, 1.0])),
        y=alt.Y("accuracy:Q", title="accuracy of the answers given that value", scale=alt.Scale(domain=[0.4, 1.0])),
        tooltip=["stated:Q", "answers:Q", alt.Tooltip("accuracy:Q", format=".3f")],
    )
)
heap_diag = (
    alt.Chart(pd.DataFrame({"x": [0.45, 1.0]})).mark_line(strokeDash=[4, 4], color="gray").encode(x="x:Q", y="x:Q")
)
ece_bars = (
    alt.Chart(heap_ece)
    .mark_bar()
    .encode(
        y=alt.Y("binning:N", title=None, sort=None),
        x=alt.X("ECE:Q", title="expected calibration error"),
        tooltip=["binning:N", alt.Tooltip("ECE:Q", format=".4f"), "occupied bins:Q"],
    )
    .properties(width=300, height=170, title="ECE under six binnings")
)
alt.vconcat(
    alt.hconcat(
        levels_chart, (heap_diag + acc_chart).properties(width=300, height=200, title="Accuracy per stated value")
    ),
    ece_bars,
).properties(title="Heaped, LLM-like confidences: what they look like and what the bins do to ECE")

# %% [markdown]
# The spikes at 80, 90 and 95 hold {glue:text}`teach_heap_spike_share:.0f`% of the answers. The six binnings
# give ECEs from {glue:text}`teach_heap_min:.4f` ({glue:text}`teach_heap_min_binning`) to
# {glue:text}`teach_heap_max:.4f` ({glue:text}`teach_heap_max_binning`): the largest is
# {glue:text}`teach_heap_ratio:.2f` times the smallest, for one model and one set of answers. The
# mean gap (CITL) is {glue:text}`teach_heap_citl:+.4f` whatever the bins. Equal-mass bins do not escape
# the problem: ten requested bins leave only {glue:text}`teach_heap_mass_bins` occupied, because a quantile
# that falls inside a spike cuts nothing. An ECE quoted without its binning (number of bins, equal width or
# equal mass, and the edge rule) is not fully specified, and two papers' ECEs are comparable only with the
# same bins.

# %% [markdown]
# ### The collection's rows
#
# The same six binnings on the rows this book computes the paper's sections from (its reconstruction of
# the paper's collection): here they agree closely for most models, so the ratio column is the number to
# read. How much the bins matter depends on where a model's confidences pile up relative to the edges.

# %% tags=["hide-input"]
if in_book():  # the book's build: the collection from data_dir (the original package where it holds it)
    from selfconf import data
    from selfconf.data.sources import resolve_families

    sources = resolve_families(data_dir, ["collection"])
    collection = data.load_collection(sources.path("collection"))[0]
else:  # on its own (Colab, Binder, Jupyter): the reconstruction shipped inside the package
    collection = datasets.load("collection")
graded = collection[collection["parse_ok"] == 1]
coll_rows = []
for model, g in graded.groupby("model", sort=False):
    c, y = metrics.from_percent(g["confidence"].astype(float).to_numpy()), g["correct"].astype(int).to_numpy()
    coll_rows.append({"model": model, **{name: metrics.ece(c, y, **kw) for name, kw in BINNINGS.items()}})
coll = pd.DataFrame(coll_rows)
coll["largest / smallest"] = coll[list(BINNINGS)].max(axis=1) / coll[list(BINNINGS)].min(axis=1)
table(
    coll,
    "teaching_ece_binnings",
    caption="ECE of each model of the collection under the six binnings",
    float_format="%.3f",
)

# %% tags=["remove-cell", "book-only"]
ECE_ORIGIN = glue.rows_origin(sources) if in_book() else "reconstruction-only"
worst = coll.loc[coll["largest / smallest"].idxmax()]
glue.value("teach_ece_n_models", len(coll), origin=ECE_ORIGIN)
glue.value("teach_ece_median_ratio", float(coll["largest / smallest"].median()), origin=ECE_ORIGIN)
glue.value("teach_ece_worst_model", str(worst["model"]), origin=ECE_ORIGIN)
_ = glue.value("teach_ece_worst_ratio", float(worst["largest / smallest"]), origin=ECE_ORIGIN)

# %% [markdown]
# Over the {glue:text}`teach_ece_n_models` models the median ratio is {glue:text}`teach_ece_median_ratio:.2f`;
# the largest, {glue:text}`teach_ece_worst_ratio:.2f`, is {glue:text}`teach_ece_worst_model`'s.

# %% [markdown]
# ## Risk, coverage, and what AUROC promises
#
# A model that may abstain answers only when its confidence is high. At {term}`coverage` $\phi$ (a share
# between 0 and 1; the letter $c$ stays the confidence) it answers the share $\phi$ of questions with the
# highest confidences; its {term}`selective risk` is the error rate among them. The risk–coverage curve traces
# this for every $\phi$ {cite:p}`t-geifman2017selective`. This is the fourth property of the introduction,
# {term}`selective prediction`: it depends on the ranking (as AUROC does) but looks at one end of it. At full coverage the risk is
# one minus the accuracy, whatever the confidences.
#
# AUROC summarises the ranking over **all** cut-offs at once. It does not say where along the ranking the
# errors sit. Two simulated models below share the same accuracy and (nearly) the same AUROC: model **C**
# is sure and right on a small share of answers and guesses on the rest; model **D** separates right from
# wrong moderately everywhere.

# %% tags=["hide-input"]
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

cov_param = alt.param(
    name="coverage_at", value=0.2, bind=alt.binding_range(min=0.05, max=1.0, step=0.05, name="coverage ")
)
base = alt.Chart(rc)
rc_curves = base.mark_line(point=True).encode(
    x=alt.X("coverage:Q", title="coverage (share of questions answered)", scale=alt.Scale(domain=[0, 1])),
    y=alt.Y("risk:Q", title="selective risk (error rate among answered)", scale=alt.Scale(domain=[0, 0.5])),
    color=alt.Color("model:N", title=None),
    tooltip=["model:N", "coverage:Q", alt.Tooltip("risk:Q", format=".3f")],
)
rule = (
    alt.Chart(pd.DataFrame({"x": [0]}))
    .mark_rule(strokeDash=[3, 3], color="gray")
    .encode(x=alt.X("cov:Q"))
    .transform_calculate(cov=cov_param.name)
)
at = base.transform_filter(alt.expr.abs(alt.datum.coverage - cov_param) < 1e-6)
# the read-out sits in the chart's top-left corner, one line per model, so it never lands on a curve
at_text = [
    at.transform_filter(alt.datum.model == m)
    .mark_text(align="left", baseline="top", fontSize=12)
    .encode(
        x=alt.value(8),
        y=alt.value(8 + 16 * i),
        color=alt.Color("model:N", title=None),
        text=alt.Text("label:N"),
    )
    .transform_calculate(label=f"'{m.split(':')[0]}: ' + format(datum.risk * 100, '.1f') + '% wrong at this coverage'")
    for i, m in enumerate(sorted(rc["model"].unique()))
]
alt.layer(rc_curves, rule, *at_text).add_params(cov_param).properties(
    width=420, height=300, title="Risk–coverage"
).configure_legend(orient="bottom")

# %% tags=["remove-cell", "book-only"]
glue.value("teach_rc_auroc_c", auroc_c, origin="simulation")
glue.value("teach_rc_auroc_d", auroc_d, origin="simulation")
glue.value("teach_rc_acc", 100 * y_rc.mean(), origin="simulation")
for tag, cv in (("lo", 0.2), ("hi", 0.6)):
    glue.value(f"teach_rc_cov_{tag}", 100 * cv, origin="simulation")
    glue.value(f"teach_rc_c_{tag}", 100 * float(r.loc[cv, "C: sure on a few"]), origin="simulation")
    glue.value(f"teach_rc_d_{tag}", 100 * float(r.loc[cv, "D: moderate everywhere"]), origin="simulation")
cross = r.index[(r["C: sure on a few"] > r["D: moderate everywhere"]).to_numpy()]
_ = glue.value("teach_rc_cross", 100 * float(cross.min()) if len(cross) else 100.0, origin="simulation")

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
# Write your answer in the cell under each exercise (replace every `...`), run it, then run the check
# cell after it: `grader.check("<name>")` prints *All test cases passed!* or, for each failed check, a
# message starting with **Not yet** and what to look at. The variables of the page (`conf_a`,
# `conf_b`, `correct`, `heap_c`, `heap_y`, `score_c`, `score_d`, `y_rc`, `coverages`) are defined above;
# run the page's cells first. A number may be typed to the decimals the page prints it with.

# %% [markdown] tags=["book-only"]
# On this page each reference solution is shown behind a toggle and its check below it; try first.

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: ece-by-hand

# %% [markdown]
# ### Exercise 1 (`ece-by-hand`): an ECE by hand
#
# Compute the ten-bin, equal-width ECE of model A from its definition, with numpy — bins $[0, 0.1), \dots,
# [0.9, 1]$, a value on an edge in the upper bin, each bin's $|\text{mean confidence} - \text{accuracy}|$
# weighted by its share of answers. Store the number of answers in each bin in `n_bin` (ten counts), the accuracy
# in each bin in `acc_bin` (ten shares, 0 for an empty bin) and the ECE in `ece_hand`. The check compares all
# three, so it checks your steps and not only the result; compare with `metrics.ece(conf_a, correct)` afterwards.

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
bin_of = np.minimum(np.floor(conf_a * 10 + 1e-9).astype(int), 9)  # SOLUTION
n_bin = np.bincount(bin_of, minlength=10)  # SOLUTION
mean_conf_bin = np.bincount(bin_of, weights=conf_a, minlength=10) / np.maximum(n_bin, 1)  # SOLUTION
acc_bin = np.bincount(bin_of, weights=correct, minlength=10) / np.maximum(n_bin, 1)  # SOLUTION
ece_hand = float(np.sum(n_bin / n_bin.sum() * np.abs(mean_conf_bin - acc_bin)))  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: n_bin counts the answers in each of the ten bins, acc_bin is the share correct in each (0 when empty), and ece_hand weights each bin's |mean confidence - accuracy| by its share of answers."
success_message: "Right: your bins and your ECE agree with metrics.ece(conf_a, correct)."
"""  # END TEST CONFIG


def test_ece_by_hand(ece_hand, n_bin, acc_bin, conf_a, correct):
    from selfconf.course import verify

    verify.ece_by_hand(ece_hand, n_bin, acc_bin, conf_a, correct)


test_ece_by_hand(ece_hand, n_bin, acc_bin, conf_a, correct)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 2
"""  # END TEST CONFIG


def test_ece_by_hand_graded(ece_hand, n_bin, acc_bin, conf_a, correct):
    from selfconf.course import verify

    verify.ece_by_hand(ece_hand, n_bin, acc_bin, conf_a, correct)


test_ece_by_hand_graded(ece_hand, n_bin, acc_bin, conf_a, correct)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: constant-90

# %% [markdown]
# ### Exercise 2 (`constant-90`): a model that always says 90
#
# A model states 0.9 on every one of 1,000 answers, and 720 of them are correct (`ex_c`, `ex_y` below).
# Work out from the definitions, on paper or with one line of arithmetic each, its CITL on the 0–1 scale
# (`citl_90`), its ten-bin ECE (`ece_90`), its Brier score (`brier_90`) and its AUROC (`auroc_90`). The check
# compares the four values only (three decimals are enough), so keep `metrics` for checking yourself
# afterwards.

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
ex_y = np.r_[np.ones(720, dtype=int), np.zeros(280, dtype=int)]
ex_c = np.full(ex_y.size, 0.9)
citl_90 = 0.9 - 0.72  # SOLUTION
ece_90 = abs(0.9 - 0.72)  # SOLUTION
brier_90 = 0.72 * (1 - 0.9) ** 2 + 0.28 * 0.9**2  # SOLUTION
auroc_90 = 0.5  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: one answer in one bin gives ECE = |CITL|; the Brier score averages (c - y)^2 over right AND wrong answers; every pair is a tie."
success_message: "Right: all four agree with selfconf.metrics."
"""  # END TEST CONFIG


def test_constant_90(citl_90, ece_90, brier_90, auroc_90, ex_c, ex_y):
    from selfconf.course import verify

    verify.constant_90(citl_90, ece_90, brier_90, auroc_90, ex_c, ex_y)


test_constant_90(citl_90, ece_90, brier_90, auroc_90, ex_c, ex_y)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 2
"""  # END TEST CONFIG


def test_constant_90_graded(citl_90, ece_90, brier_90, auroc_90, ex_c, ex_y):
    from selfconf.course import verify

    verify.constant_90(citl_90, ece_90, brier_90, auroc_90, ex_c, ex_y)


test_constant_90_graded(citl_90, ece_90, brier_90, auroc_90, ex_c, ex_y)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: monotone-auroc

# %% [markdown]
# ### Exercise 3 (`monotone-auroc`): a transform that keeps the ranking
#
# Write a function `my_transform(c)` that maps confidences in $[0, 1]$ into $[0, 1]$ (0 and 1 included), is
# strictly increasing, and is not the identity (choose your own; not one of the slider's). Apply it to model A
# (`conf_after = my_transform(conf_a)`) and compute, on `conf_after`, the ECE (`ece_after`) and the AUROC
# (`auroc_after`). Compare them with model A's: the AUROC stays, the ECE moves.

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION


# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
def my_transform(c):
    return np.log1p(9 * c) / np.log(10)  # SOLUTION


conf_after = my_transform(conf_a)  # SOLUTION
ece_after = metrics.ece(conf_after, correct)  # SOLUTION
auroc_after = metrics.auroc(conf_after, correct)  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: the transform must keep every pair of distinct values of [0, 1] in the same order (and distinct), map 0 and 1 into [0, 1], and change the ECE; ece_after and auroc_after are computed on conf_after."
success_message: "Right: the ranking and so the AUROC are unchanged, the ECE is not."
"""  # END TEST CONFIG


def test_monotone_auroc(my_transform, conf_after, ece_after, auroc_after, conf_a, correct):
    from selfconf.course import verify

    verify.monotone_auroc(my_transform, conf_after, ece_after, auroc_after, conf_a, correct)


test_monotone_auroc(my_transform, conf_after, ece_after, auroc_after, conf_a, correct)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 2
"""  # END TEST CONFIG


def test_monotone_auroc_graded(my_transform, conf_after, ece_after, auroc_after, conf_a, correct):
    from selfconf.course import verify

    verify.monotone_auroc(my_transform, conf_after, ece_after, auroc_after, conf_a, correct)


test_monotone_auroc_graded(my_transform, conf_after, ece_after, auroc_after, conf_a, correct)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: reverse-ranking

# %% [markdown]
# ### Exercise 4 (`reverse-ranking`): calibration in the large cannot see the direction
#
# Replace each of model A's confidences $c$ by $1 - c$ and then shift them all by one constant so that their
# mean is model A's mean again; call the result `conf_rev`. Compare its CITL and AUROC with model A's.

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
conf_rev = (1 - conf_a) - (1 - conf_a).mean() + conf_a.mean()  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: conf_rev should be 1 - conf_a moved by one constant so that its mean equals conf_a's mean."
success_message: "Right: the same CITL as model A, and the AUROC is one minus A's."
"""  # END TEST CONFIG


def test_reverse_ranking(conf_rev, conf_a, correct):
    from selfconf.course import verify

    verify.reverse_ranking(conf_rev, conf_a, correct)


test_reverse_ranking(conf_rev, conf_a, correct)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 1
"""  # END TEST CONFIG


def test_reverse_ranking_graded(conf_rev, conf_a, correct):
    from selfconf.course import verify

    verify.reverse_ranking(conf_rev, conf_a, correct)


test_reverse_ranking_graded(conf_rev, conf_a, correct)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: coverage-below-10

# %% [markdown]
# ### Exercise 5 (`coverage-below-10`): how much must model C abstain?
#
# On the grid `coverages` (0.05, 0.10, …, 1.00), find the largest coverage at which model C's selective risk
# (`metrics.risk_coverage(score_c, y_rc, ...)`) is below 10 % — going down from full coverage, the point
# where its error rate first drops below 10 % — and store it in `coverage_below_10`.

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
risk_c = metrics.risk_coverage(score_c, y_rc, coverages=tuple(coverages))  # SOLUTION
coverage_below_10 = max(cv for cv, rk in risk_c.items() if rk < 0.10)  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: look for the LARGEST coverage on the grid whose risk is below 0.10 (answering more is better), for model C."
success_message: "Right: above that coverage model C is wrong on 10 % or more of what it answers."
"""  # END TEST CONFIG


def test_coverage_below_10(coverage_below_10, score_c, y_rc, coverages):
    from selfconf.course import verify

    verify.coverage_below_10(coverage_below_10, score_c, y_rc, coverages)


test_coverage_below_10(coverage_below_10, score_c, y_rc, coverages)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 1
"""  # END TEST CONFIG


def test_coverage_below_10_graded(coverage_below_10, score_c, y_rc, coverages):
    from selfconf.course import verify

    verify.coverage_below_10(coverage_below_10, score_c, y_rc, coverages)


test_coverage_below_10_graded(coverage_below_10, score_c, y_rc, coverages)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: bin-edges

# %% [markdown]
# ### Exercise 6 (`bin-edges`): one edge rule against the other
#
# On the heaped confidences `heap_c` (outcomes `heap_y`), compute the twelve-bin equal-width ECE
# (`n_bins=12`; the table above used ten and fifteen) with `edge="upper"` (`ece_upper`) and with `edge="lower"`
# (`ece_lower`), and the ratio of the larger to the smaller (`edge_ratio`).

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
ece_upper = metrics.ece(heap_c, heap_y, n_bins=12, edge="upper")  # SOLUTION
ece_lower = metrics.ece(heap_c, heap_y, n_bins=12, edge="lower")  # SOLUTION
edge_ratio = max(ece_upper, ece_lower) / min(ece_upper, ece_lower)  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: metrics.ece takes edge='upper' or edge='lower'; the ratio is larger / smaller."
success_message: "Right: the same rows, two edge rules, two different ECEs."
"""  # END TEST CONFIG


def test_bin_edges(ece_upper, ece_lower, edge_ratio, heap_c, heap_y):
    from selfconf.course import verify

    verify.bin_edges(ece_upper, ece_lower, edge_ratio, heap_c, heap_y)


test_bin_edges(ece_upper, ece_lower, edge_ratio, heap_c, heap_y)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 1
"""  # END TEST CONFIG


def test_bin_edges_graded(ece_upper, ece_lower, edge_ratio, heap_c, heap_y):
    from selfconf.course import verify

    verify.bin_edges(ece_upper, ece_lower, edge_ratio, heap_c, heap_y)


test_bin_edges_graded(ece_upper, ece_lower, edge_ratio, heap_c, heap_y)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: equal-mass-bins

# %% [markdown]
# ### Exercise 7 (`equal-mass-bins`): how many equal-mass bins survive the spikes?
#
# Ask for twenty equal-mass bins on `heap_c` (`metrics.reliability_bins(..., n_bins=20, binning="equal_mass")`)
# and count the bins that hold at least one answer (`n_mass_bins`). Why is it not twenty?

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
mass_bins = metrics.reliability_bins(heap_c, heap_y, n_bins=20, binning="equal_mass")  # SOLUTION
n_mass_bins = int((mass_bins["n"] > 0).sum())  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: count the occupied bins that metrics.reliability_bins returns; quantiles that fall inside one spike are the same edge."
success_message: "Right: tied confidences stay in one bin, so a spike swallows several quantiles."
"""  # END TEST CONFIG


def test_equal_mass_bins(n_mass_bins, heap_c, heap_y):
    from selfconf.course import verify

    verify.equal_mass_bins(n_mass_bins, heap_c, heap_y)


test_equal_mass_bins(n_mass_bins, heap_c, heap_y)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 1
"""  # END TEST CONFIG


def test_equal_mass_bins_graded(n_mass_bins, heap_c, heap_y):
    from selfconf.course import verify

    verify.equal_mass_bins(n_mass_bins, heap_c, heap_y)


test_equal_mass_bins_graded(n_mass_bins, heap_c, heap_y)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: brier-decomposition

# %% [markdown]
# ### Exercise 8 (`brier-decomposition`): decompose a Brier score
#
# Group model B's answers by their stated confidence and compute Murphy's reliability (`rel_b`),
# resolution (`res_b`) and uncertainty (`unc_b`) yourself, with numpy or pandas, from the formula above. Check
# that `rel_b - res_b + unc_b` equals `metrics.brier(conf_b, correct)`. The check compares your three terms with
# `metrics.brier_decomposition` and cannot see how you computed them: use that function only to check yourself.

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
groups = pd.DataFrame({"f": conf_b, "o": correct}).groupby("f")["o"].agg(["size", "mean"])  # SOLUTION
o_bar = correct.mean()  # SOLUTION
rel_b = float((groups["size"] * (groups.index - groups["mean"]) ** 2).sum() / correct.size)  # SOLUTION
res_b = float((groups["size"] * (groups["mean"] - o_bar) ** 2).sum() / correct.size)  # SOLUTION
unc_b = float(o_bar * (1 - o_bar))  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: reliability compares each stated value with the accuracy of ITS group; resolution compares the group accuracies with the overall accuracy."
success_message: "Right: your three terms add up to model B's Brier score."
"""  # END TEST CONFIG


def test_brier_decomposition(rel_b, res_b, unc_b, conf_b, correct):
    from selfconf.course import verify

    verify.brier_decomposition(rel_b, res_b, unc_b, conf_b, correct)


test_brier_decomposition(rel_b, res_b, unc_b, conf_b, correct)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 2
"""  # END TEST CONFIG


def test_brier_decomposition_graded(rel_b, res_b, unc_b, conf_b, correct):
    from selfconf.course import verify

    verify.brier_decomposition(rel_b, res_b, unc_b, conf_b, correct)


test_brier_decomposition_graded(rel_b, res_b, unc_b, conf_b, correct)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: constant-brier

# %% [markdown]
# ### Exercise 9 (`constant-brier`): the Brier score of knowing nothing
#
# A predictor that always states the overall accuracy $p$ has Brier score $p(1-p)$. Compute the Brier score
# of `conf_const` (`brier_const`) and $p(1-p)$ for these answers (`p_one_minus_p`), and name the Murphy
# terms that are zero for it as a set of strings (`zero_terms`, from `"reliability"`, `"resolution"`,
# `"uncertainty"`).

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
brier_const = metrics.brier(conf_const, correct)  # SOLUTION
p_one_minus_p = float(correct.mean() * (1 - correct.mean()))  # SOLUTION
zero_terms = {"reliability", "resolution"}  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: with one group whose stated value equals its accuracy, which terms vanish? Uncertainty depends on the questions only."
success_message: "Right: only the uncertainty is left, p(1 - p)."
"""  # END TEST CONFIG


def test_constant_brier(brier_const, p_one_minus_p, zero_terms, conf_const, correct):
    from selfconf.course import verify

    verify.constant_brier(brier_const, p_one_minus_p, zero_terms, conf_const, correct)


test_constant_brier(brier_const, p_one_minus_p, zero_terms, conf_const, correct)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 1
"""  # END TEST CONFIG


def test_constant_brier_graded(brier_const, p_one_minus_p, zero_terms, conf_const, correct):
    from selfconf.course import verify

    verify.constant_brier(brier_const, p_one_minus_p, zero_terms, conf_const, correct)


test_constant_brier_graded(brier_const, p_one_minus_p, zero_terms, conf_const, correct)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [raw] tags=["remove-cell"]
# # BEGIN QUESTION
# name: isotonic-ties

# %% [markdown]
# ### Exercise 10 (`isotonic-ties`): the ties of isotonic regression
#
# The page fitted isotonic regression to model A; now fit
# `IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")` to model B (`conf_b` as the input, `correct`
# as the target) and transform model B's confidences with it (`conf_fit`). Count the distinct fitted values
# (`n_levels_fit`) and compute the AUROC of the fitted values (`auroc_fit`). Compare them with model B's levels
# and AUROC as stated.

# %% [raw] tags=["remove-cell"]
# # BEGIN SOLUTION

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
conf_fit = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit_transform(conf_b, correct)  # SOLUTION
n_levels_fit = int(np.unique(conf_fit).size)  # SOLUTION
auroc_fit = metrics.auroc(conf_fit, correct)  # SOLUTION

# %% [raw] tags=["remove-cell"]
# # END SOLUTION

# %% [raw] tags=["remove-cell"]
# # BEGIN TESTS

# %% tags=["hide-input"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: count the distinct values AFTER the fit, and score the fitted values, not the stated ones."
success_message: "Right: fewer levels than model B states, and a different AUROC."
"""  # END TEST CONFIG


def test_isotonic_ties(n_levels_fit, auroc_fit, conf_b, correct):
    from selfconf.course import verify

    verify.isotonic_ties(n_levels_fit, auroc_fit, conf_b, correct)


test_isotonic_ties(n_levels_fit, auroc_fit, conf_b, correct)

# %% tags=["remove-cell"]
""" # BEGIN TEST CONFIG
hidden: true
points: 1
"""  # END TEST CONFIG


def test_isotonic_ties_graded(n_levels_fit, auroc_fit, conf_b, correct):
    from selfconf.course import verify

    verify.isotonic_ties(n_levels_fit, auroc_fit, conf_b, correct)


test_isotonic_ties_graded(n_levels_fit, auroc_fit, conf_b, correct)

# %% [raw] tags=["remove-cell"]
# # END TESTS

# %% [raw] tags=["remove-cell"]
# # END QUESTION

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# ## Lab: real answers of 26 models
#
# `selfconf.datasets.load("mmlu-pro")` returns another group's published MMLU-Pro results: 26 models, each
# answering the same 12,032 ten-option questions with a verbalised confidence {cite:p}`t-wang2024mmlupro`.
# These are real model outputs, not the paper's rows and not a reconstruction; the first call downloads
# them (about 14 MB, checksums verified) and later calls read the cached copy. Confidences are on the 0–1
# scale and missing where the reply had none. `datasets.load("mmlu-pro-sample")` returns the same models'
# answers on a fixed sample of 1,000 of the questions, shipped inside the package, for work with no network.

# %% [markdown] tags=["remove-cell", "student-only", "needs-external:mmlu-pro-calibration"]
# This notebook reads the shipped sample (the parameter `lab_data` at the top is `"mmlu-pro-sample"`), so the lab
# runs with no network; its table therefore differs a little from the book's page, and the numbers quoted in the
# text below are the book's, from all 12,032 questions. Set `lab_data = "mmlu-pro"` and rerun for the full data.

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
mmlu = datasets.load(lab_data)
mmlu_graded = mmlu.dropna(subset=["confidence"])
lab = (
    mmlu_graded.groupby("model")
    .apply(
        lambda g: pd.Series(
            {
                "answers": len(g),
                "accuracy": g["correct"].mean(),
                "mean confidence": g["confidence"].mean(),
                "share of multiples of 0.05": float(
                    np.isclose(g["confidence"] * 20, np.round(g["confidence"] * 20)).mean()
                ),
                "AUROC": metrics.auroc(g["confidence"], g["correct"]),
            }
        ),
        include_groups=False,
    )
    .reset_index()
    .sort_values("accuracy", ascending=False)
)
lab["answers"] = lab["answers"].astype(int)
table(
    lab,
    "teaching_mmlu_lab",
    caption=f"MMLU-Pro, {lab.shape[0]} models, {mmlu['item_id'].nunique():,} questions (real third-party answers): "
    "accuracy, mean stated confidence, how heaped the confidences are, and self-AUROC",
    float_format="%.3f",
)

# %% tags=["remove-cell", "book-only", "needs-external:mmlu-pro-calibration"]
glue.value("teach_lab_n_models", int(lab.shape[0]), origin="external-data")
glue.value("teach_lab_n_unparsed", int(mmlu["confidence"].isna().sum()), origin="external-data")
glue.value("teach_lab_min_heaped", 100 * float(lab["share of multiples of 0.05"].min()), origin="external-data")
_ = glue.value(
    "teach_lab_n_overconfident", int((lab["mean confidence"] > lab["accuracy"]).sum()), origin="external-data"
)

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# {glue:text}`teach_lab_n_overconfident` of the {glue:text}`teach_lab_n_models` models state a mean confidence
# above their accuracy, and for every model at least {glue:text}`teach_lab_min_heaped:.0f`% of the stated
# values are multiples of 0.05: the heaping of the previous section is what real models do.
# {glue:text}`teach_lab_n_unparsed:,` replies carried no confidence and are left out above.

# %% [raw] tags=["remove-cell", "needs-external:mmlu-pro-calibration"]
# # BEGIN QUESTION
# name: mmlu-lab

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# ### Exercise 11 (`mmlu-lab`): how often is a confident answer wrong?
#
# For `gpt-4o-2024-08-06` in `mmlu_graded`, compute the share of its answers stated with confidence
# at least 0.8 that are wrong (`wrong_share_80`), and its self-AUROC (`auroc_gpt4o`).

# %% [raw] tags=["remove-cell", "needs-external:mmlu-pro-calibration"]
# # BEGIN SOLUTION

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"] mystnb={"code_prompt_show": "Show the reference solution", "code_prompt_hide": "Hide the reference solution"}
g4o = mmlu_graded[mmlu_graded["model"] == "gpt-4o-2024-08-06"]
confident = g4o[g4o["confidence"] >= 0.8]  # SOLUTION
wrong_share_80 = float(1 - confident["correct"].mean())  # SOLUTION
auroc_gpt4o = metrics.auroc(g4o["confidence"], g4o["correct"])  # SOLUTION

# %% [raw] tags=["remove-cell", "needs-external:mmlu-pro-calibration"]
# # END SOLUTION

# %% [raw] tags=["remove-cell", "needs-external:mmlu-pro-calibration"]
# # BEGIN TESTS

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"] mystnb={"code_prompt_show": "Show the check", "code_prompt_hide": "Hide the check"}
""" # BEGIN TEST CONFIG
points: 0
failure_message: "Not yet: keep only the answers with confidence >= 0.8 before taking the share wrong; the AUROC uses all of the model's answers."
success_message: "Right: compare it with 1 - the mean confidence of those answers."
"""  # END TEST CONFIG


def test_mmlu_lab(wrong_share_80, auroc_gpt4o, mmlu_graded):
    from selfconf.course import verify

    verify.mmlu_lab(wrong_share_80, auroc_gpt4o, mmlu_graded)


test_mmlu_lab(wrong_share_80, auroc_gpt4o, mmlu_graded)

# %% tags=["remove-cell", "needs-external:mmlu-pro-calibration"]
""" # BEGIN TEST CONFIG
hidden: true
points: 2
"""  # END TEST CONFIG


def test_mmlu_lab_graded(wrong_share_80, auroc_gpt4o, mmlu_graded):
    from selfconf.course import verify

    verify.mmlu_lab(wrong_share_80, auroc_gpt4o, mmlu_graded)


test_mmlu_lab_graded(wrong_share_80, auroc_gpt4o, mmlu_graded)

# %% [raw] tags=["remove-cell", "needs-external:mmlu-pro-calibration"]
# # END TESTS

# %% [raw] tags=["remove-cell", "needs-external:mmlu-pro-calibration"]
# # END QUESTION

# %% [markdown] tags=["remove-cell", "student-only"]
# ## Your progress
#
# Run the cell below at any time: it runs every check of this notebook quietly and prints how many exercises
# pass and which are not done yet. Nothing is recorded or sent anywhere. At the end of the notebook,
# `grader.check_all()` runs every check again with its full messages, and the export cell after it makes
# the file you hand in.

# %% tags=["remove-cell", "student-only"]
course.progress("20_calibration_vs_discrimination", globals())

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
