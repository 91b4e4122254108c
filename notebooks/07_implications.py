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
# # Implications for evaluation practice
#
# *The paper's recommendations, paraphrased. Its own numbers are restated from the sections that compute
# them; the profile-swap extension has no released rows, so its figures are quoted.*

# %% tags=["parameters", "remove-cell"]
seed = 0  # this page draws nothing; kept so every notebook takes the same parameters
n_boot = 2000
data_dir = "data/reconstructed"
book_dir = "book"

# %% tags=["remove-input"]
from selfconf.book import banner, glue
from selfconf.book.glue import quoted, restate
from selfconf.data.sources import FAMILIES
from selfconf.sections import implications

# this page reads no rows: it restates numbers of the pages that do, which resolve every family alike
for repeat, canonical in implications.RESTATED.items():
    restate(repeat, canonical, book_dir=book_dir)
for fact in implications.QUOTED:
    quoted(fact)

# the banner states the seed of the pages whose values this page restates (its own draws nothing)
banner(data_dir, seed=glue.restated_seed(book_dir, default=seed), n_boot=n_boot, families=FAMILIES)

# %% [markdown]
# The results come from one task family (open-form factual questions written after 2023) and one way of
# asking for confidence; what follows extrapolates from those measurements.
#
# **1. Swap the role of stated confidence.** Treat self-reported confidence as something evaluation
# *measures*, not something it *consumes*, at least as it is elicited today. In this collection
# {glue:text}`impl_highconf_wrong_pct:.1f`% of the API models' high-confidence answers are wrong, and the best
# self-AUROC ({glue:text}`impl_best_self_auroc:.3f`) belongs to the model that an accuracy ranking would put
# last: no leaderboard tells you whose self-reports discriminate.
#
# **2. Judge pipelines inherit weak weights.** A judge or ensemble that weights votes by self-certainty
# imports, for {glue:text}`impl_n_models_below_threshold` of {glue:text}`impl_n_api_models` models here, a
# signal with AUROC under [{glue:text}`impl_auroc_threshold`]{.quoted} — and does so quietly, for a log
# full of {glue:text}`impl_median_band_min:.0f`–{glue:text}`impl_median_band_max:.0f` confidences looks reassuring. If
# votes are weighted by certainty, the weights should come from each model's measured calibration.
#
# **3. Authenticate the profile slot.** The threat model has three levels: causal manipulability, which the
# paper reports as demonstrated by its exploratory runs; an integrity vulnerability exists only where a harness injects profiles from a source an
# adversary can influence; a practical attack on deployed pipelines remains a hypothesis. For harnesses in
# the middle class, the repair channel is the exposure: the same slot that should fix calibration accepts
# forgeries that push discrimination to chance ({glue:text}`impl_expl_rung_shuffled_auroc:.3f`) and worsen
# Brier scores once items can be matched to a profile bin. Such harnesses need an integrity gate — signed
# profiles, provenance checks, or at least a separation between who measures a profile and who supplies it
# at inference time.
#
# **4. External measurement is the alternative, with its own audit.** Independent panel agreement beats
# self-assessment where self-assessment fails worst (ΔAUROC {glue:text}`impl_cn_delta:+.3f`), but panels have
# measured failure regimes of their own (the companion paper). An exploratory, pre-registered extension
# adds a third angle: across [{glue:text}`swap_n_pairs`]{.quoted} directed profile-swap pairs
# ([{glue:text}`swap_n_calls:,.0f`]{.quoted} calls), substituting another model's measured profile moved
# AUROC by at most [{glue:text}`swap_max_auroc_shift:.2f`]{.quoted}, sometimes helping, while a
# similarity-rank prediction of transfer loss failed (Spearman ρ =
# [{glue:text}`swap_similarity_rank_spearman:.4f`]{.quoted}). Measured profiles behave like portable
# instruments, not like privileged self-access. [Appendix A](10_diagnostic.ipynb) turns the measurement
# into a practical diagnostic.
