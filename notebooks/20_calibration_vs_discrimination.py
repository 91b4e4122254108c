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
#    Measured by CITL (mean confidence minus accuracy), the expected calibration error (ECE) and, mixed
#    with discrimination, the Brier score.
# 2. **Discrimination** — does a model say higher numbers on the answers it gets right than on the ones
#    it gets wrong? Measured by the AUROC of confidence as a predictor of correctness.
#
# They are different properties, and this page shows it on simulated answers, where we control the truth.

# %% tags=["parameters"]
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"  # not read here: this page simulates its own rows
n_answers = 1500

# %% tags=["remove-input"]
import altair as alt
import numpy as np
import pandas as pd

from selfconf import bootstrap, glue, metrics
from selfconf.book import show_markdown

rng = np.random.default_rng(seed)
show_markdown(
    f'<p class="selfconf-provenance">simulated data (no paper rows; <code>data_dir={data_dir}</code> unused) · '
    f"seed: {seed} · bootstrap draws: {n_boot:,} · answers per model: {n_answers:,}</p>"
)

# %% [markdown]
# ## Two simulated models
#
# Both answer the same number of questions with the same accuracy. Model **A** states a confidence that
# rises with its chance of being right, but it is shifted far too high. Model **B** states confidences
# whose average equals its accuracy, yet they carry almost no information about *which* answers are right.

# %% tags=["remove-input"]
p_true = rng.beta(2, 3, n_answers)  # each answer's true chance of being correct
correct = (rng.random(n_answers) < p_true).astype(int)
conf_a = np.clip(np.round((0.45 + 0.55 * p_true) * 20) / 20, 0, 1)  # informative, shifted up, heaped on 5s
noise = rng.normal(0, 0.08, n_answers)
conf_b = np.clip(np.round((correct.mean() + noise + 0.02 * (p_true - 0.4)) * 20) / 20, 0, 1)

rows = []
for name, conf in (("A: informative but overconfident", conf_a), ("B: calibrated in the large, uninformative", conf_b)):
    ci = bootstrap.percentile_ci(metrics.auroc, conf, correct, n_boot=n_boot, rng=rng)
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
    glue.value(f"teach_{m}_citl", 100 * r["CITL"])
    glue.value(f"teach_{m}_ece", r["ECE"])
    glue.value(f"teach_{m}_auroc", r["AUROC"])
    glue.value(f"teach_{m}_brier", r["Brier"])
summary.style.format({c: "{:.3f}" for c in ["accuracy", "mean confidence", "CITL", "ECE", "Brier", "AUROC"]}).hide(axis="index")

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
(diag + pts).properties(width=360, height=320)
