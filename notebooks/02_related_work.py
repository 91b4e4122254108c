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
# # Related work
#
# *A summary, in our words, of how the paper positions itself. Figures from other studies are quoted, not
# computed; this study's own numbers are restated from the sections that compute them.*

# %% tags=["parameters", "remove-cell"]
seed = 0  # this page draws nothing; kept so every notebook takes the same parameters
n_boot = 2000
data_dir = "data/reconstructed"
book_dir = "book"

# %% tags=["remove-input"]
from selfconf.book import banner, glue
from selfconf.book.glue import quoted, restate
from selfconf.data.sources import FAMILIES

# this page reads no rows: it restates numbers of the pages that do, which resolve every family alike
quoted("rw_azaria_probe_truthfulness_min")
quoted("rw_azaria_probe_truthfulness_max")
for repeat, canonical in {
    "rw_n_models": "design_n_models",
    "rw_n_models_below_threshold": "r1_n_models_below_threshold",
    "rw_n_api_models": "r1_n_frontier_models",
    "rw_auroc_threshold": "r1_auroc_threshold",
}.items():
    restate(repeat, canonical, book_dir=book_dir)

# the banner states the seed of the pages whose values this page restates (its own draws nothing)
banner(data_dir, seed=glue.restated_seed(book_dir, default=seed), n_boot=n_boot, families=FAMILIES)

# %% [markdown]
# **Stated confidence and calibration.** Modern neural networks are known to be miscalibrated {cite:p}`guo2017calibration`, and question-answering language models were shown to be poorly calibrated well before the current
# generation {cite:p}`jiang2021know`. Models can be trained to put their uncertainty into words {cite:p}`lin2022teaching`, and larger models partly "know what they know" when probed for self-evaluation {cite:p}`kadavath2022know`, though they largely fail to recognise what they do not know {cite:p}`yin2023know`. Audits of elicited
# confidence find persistent overconfidence across elicitation formats {cite:p}`xiong2024express`; verbalised
# scores are sometimes better calibrated than token probabilities, but still inflated {cite:p}`tian2023just`.
# Probes of hidden states tell a different story: simple classifiers on activations recover truthfulness
# [{glue:text}`rw_azaria_probe_truthfulness_min`–{glue:text}`rw_azaria_probe_truthfulness_max`%]{.quoted} of
# the time {cite:p}`azaria2023lying`, which places the failure in the verbal output channel rather than
# necessarily in the representation. The paper adds scale and design — a pre-registered, frozen,
# {glue:text}`rw_n_models`-model blind collection scored both against ground truth and against agreement of
# independent panels on the same items — and two questions this literature seldom asks: can the signal be
# repaired with the model's own measured profile, and can that repair channel be attacked?
#
# **Downstream consumers of self-reports.** LLM-as-judge pipelines inherit the judges' biases and
# reliability limits {cite:p}`zheng2023judging`; agreement-based confidence signals are themselves under audit
# {cite:p}`ding2026agree`; semantic-entropy detectors avoid self-reports by measuring the spread of sampled answers
# instead {cite:p}`farquhar2024semantic`. Frameworks for third-party evaluation argue the governance case for
# independent measurement {cite:p}`raji2022outsider`. The paper supplies a quantitative floor: for
# {glue:text}`rw_n_models_below_threshold` of the {glue:text}`rw_n_api_models` API models, the self-report a
# pipeline would consume has an AUROC below [{glue:text}`rw_auroc_threshold`]{.quoted}.
#
# **Untrusted inputs.** Indirect prompt injection shows that any text channel a model reads is an attack
# surface {cite:p}`greshake2023injection`. [Result 3](06_result3.ipynb) names one specific instance: the
# self-competence profile slot that calibration repairs would use is an unauthenticated input.
#
# **Panels and their failures.** Panels of diverse models are becoming a standard evaluation instrument
# {cite:p}`verga2024juries`. The panel signal used here as a comparator has failure regimes of its own,
# measured in the companion paper {cite:p}`chernets2026verification` on the same raw collection; this book, like the paper, covers the
# self-assessment side only.
#
# **Benchmarks.** Answers were elicited on a post-2023 SimpleQA subset {cite:p}`wei2024simpleqa` because of the
# benchmark-age gap the paper measures against the 2021 TruthfulQA {cite:p}`lin2022truthfulqa`; see
# [Design and data](03_design.ipynb).
