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
# # How the data were reconstructed
#
# The paper's row-level data (graded JSONL per model and item) are in its replication package,
# which this build cannot reach.  Every page of the book therefore computes from a
# **reconstruction**: {glue:text}`recon_n_rows:,.0f` rows ({glue:text}`recon_n_models` models ×
# {glue:text}`recon_n_items:,.0f` SimpleQA items) written by a seeded,
# deterministic program, `python -m selfconf.reconstruct` (`make data`), so that the paper's
# published aggregates hold when the book's own statistics are run on them.  This page says how
# the rows were made, checks every constraint the generator was given, and says what such rows
# cannot tell you.  It is the one analysis page, with the audit, that reads the paper's printed
# numbers as *targets*: it documents the generator.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"
book_dir = "book"  # where the executed Result 1 page is (this page checks its interval against it)

# %% tags=["remove-input"]
import json

import altair as alt
import pandas as pd

from selfconf.book import banner, glue, show_markdown, table, vega
from selfconf.data import load_collection
from selfconf.data.paths import DEFAULT_DATA_DIR, resolve
from selfconf.data.sources import is_reconstruction, resolve_families
from selfconf.sections import reconstruction

vega.enable()
# this page describes the reconstruction: pointed at other data, it still reads the shipped reconstruction
recon_dir = data_dir if is_reconstruction(data_dir) else DEFAULT_DATA_DIR
sources = resolve_families(recon_dir, ["collection"])
banner(recon_dir, seed=seed, n_boot=n_boot, families=sources)
ROWS = "reconstruction-only"  # this page describes the reconstruction itself
if recon_dir != data_dir:
    show_markdown(
        f"This build reads `{data_dir}`; this page describes the reconstruction, so it reads "
        f"`{recon_dir}` whatever the other pages read."
    )
root = resolve(recon_dir)
df, exclusions = load_collection(sources.path("collection"))
# the counts of the written rows, and the CN interval recomputed with this page's parameters (checked below)
res = reconstruction.compute(df, seed=seed, n_boot=n_boot)  # grid: the round numbers the generator uses
rows = res.tables["graded"]
for key, val, origin in res.items("counts", rows_origin=ROWS):
    glue.value(key, val, origin=origin)

# %% [markdown]
# ## The algorithm in plain words
#
# 1. **A table per model.**  For the paper's Table 1, Table 2 and most of Result 1, a model's
#    graded rows matter only through a small table: how many correct and how many incorrect
#    answers were stated at each confidence.  Mean and median confidence, CITL, Brier score,
#    10-bin ECE, the sign of every reliability bin, self-AUROC, the risk–coverage error rates,
#    the high-confidence error counts and the pooled or rank-normalised panel self-AUROCs are all
#    functions of these tables.  The generator searches for tables (simulated annealing over
#    integer counts, moves that keep each model's n and number correct fixed) that print as the
#    paper prints.  Confidences live on multiples of {glue:text}`recon_grid` plus a few off-grid values a
#    model needs (in the written rows: {glue:text}`recon_off_grid_values`; for instance the refusal-heavy
#    model {glue:text}`recon_refusal_model` has its median at {glue:text}`recon_refusal_model_median:.0f`).
#    Each off-grid row carries a small cost, because verbalised confidences heap on round numbers; they are
#    {glue:text}`recon_off_grid_pct:.1f`% of the graded rows.
# 2. **Tie groups on the cut points.**  Table 2's covered sets (the most confident
#    floor(c n) rows at coverage c = 80/60/40/20%) end exactly on a boundary between two
#    confidence values, so no tie-breaking rule decides a printed error rate.
# 3. **Items.**  Every item gets a latent easiness.  A model's correct answers go to the items
#    with the highest *easiness x loading + noise* (exact counts), so correctness is correlated
#    across models; within a model, higher confidences go to easier items.
# 4. **Answers.**  Correct answers carry the item's gold string, or its one accepted variant;
#    wrong answers are either the item's popular wrong answer (shared across models) or a string
#    of their own.  Refusals (anthropic) are graded incorrect and stated with low confidence.
#    The loadings, the rate of popular wrong answers and the variant rate are tuned so that the
#    panels' agreement AUROCs (canonical and label-free) print as published.
# 5. **The benchmark-age arm.**  For deepseek, mistral and zhipu, a TruthfulQA MC size and
#    number correct are chosen so that the gap prints as published and the unpaired bootstrap CI
#    (each benchmark's rows resampled on their own) matches the printed one as closely as the
#    integers allow.
#
# All randomness comes from one seed (the generator's own, in the fidelity file below, not this
# page's `seed`); regenerating gives byte-identical files (`python -m selfconf.reconstruct --check`).

# %% [markdown]
# ## Fidelity: every constraint, its target and what the rows give
#
# For each `fidelity*.json` under the data folder (the collection's, and any other generator's),
# the table lists every constraint, judged by the same code as the audit (`selfconf.claims.judging`: every
# generator writes its fidelity file with it, and this page re-judges each recorded value by today's rule).
# The values were recomputed from the written rows with the book's own functions (`selfconf.metrics`,
# `selfconf.bootstrap`, `selfconf.panels`, `selfconf.sections.ladder`). The rule, as the judging code states it
# (the [audit](14_audit.ipynb) lists every rule):

# %% tags=["remove-input"]
from selfconf.claims import judging

show_markdown("> " + judging.card_rules())
summaries = []
for name, stem, frame, keys in reconstruction.fidelity_tables(root):
    if len(frame):
        counts = frame["status"].value_counts().to_dict()
        summaries.append({"file": name, "constraints": len(frame), **counts})
        _ = table(frame, stem, caption=f"`{name}`: {len(frame)} constraints")
    else:
        show_markdown(f"`{name}`: no constraint list in this file (keys: {', '.join(keys)}).")
if summaries:
    summary_frame = pd.DataFrame(summaries).fillna(0)
    summary_frame[summary_frame.columns[1:]] = summary_frame[summary_frame.columns[1:]].astype(int)
    _ = table(summary_frame, "fidelity_summary", caption="Summary by file and status")

# %% [markdown]
# Misses are not hidden or tuned away in the analysis: a number the rows cannot reproduce shows
# up here and, with the same value, in the [audit](14_audit.ipynb).  The collection's fidelity
# file also keeps table-level diagnostics (for instance the DeLong standard error the search
# aimed at for each Table 1 interval) under `table_terms`.

# %% tags=["remove-input"]
coll = root / "fidelity_collection.json"
if coll.is_file():
    doc = json.loads(coll.read_text(encoding="utf-8"))
    terms = pd.DataFrame(doc.get("table_terms", []))
    if len(terms):
        terms = terms[terms["status"] != "n/a"]
        terms = terms[
            [c for c in ("term", "value", "lo", "hi", "status") if c in terms.columns]
            + [c for c in terms.columns if c not in ("term", "value", "lo", "hi", "status")]
        ]
        for c in ("value", "lo", "hi"):
            if c in terms.columns:
                terms[c] = [f"{v:.5g}" if pd.notna(v) else "" for v in terms[c]]
        _ = table(
            terms,
            "fidelity_table_terms",
            caption="Table-level fitting terms (inside [lo, hi] = hit); the DeLong SE rows are the search's "
            "proxy for the width of each Table 1 bootstrap interval",
        )
    for conflict in doc.get("known_conflicts", []):
        show_markdown(
            ":::{admonition} Known conflict between printed numbers under a stated convention\n:class: note\n"
            f"**{', '.join(conflict['claims'])}**: {conflict['reason']}\n:::"
        )
    for limit in doc.get("reconstruction_limits", []):
        show_markdown(
            ":::{admonition} Where the reconstruction falls short (not a conflict among published numbers)\n"
            f":class: warning\n**{', '.join(limit['claims'])}**: {limit['reason']}\n:::"
        )
    show_markdown(
        f"Generator seed **{doc.get('seed')}**; structure parameters: "
        + ", ".join(f"{k} = {v}" for k, v in doc.get("structure", {}).items() if not isinstance(v, dict))
    )

# %% [markdown]
# ### Table 2 and the size of the covered set
#
# At coverage *c* a model answers its k most confident rows.  The paper does not say how k is
# rounded.  For a model with all {glue:text}`recon_n_items:,.0f` items graded, c n is a whole number at every
# Table 2 coverage and all conventions give the same k; with fewer graded rows they can differ, and for google's
# n = {glue:text}`recon_google_n:,.0f` the first known-conflict note above shows that under *ceil(c n)* two of the
# printed rates cannot be reached by any data.  The book's `metrics.risk_coverage` covers floor(c n) rows, and
# the reconstruction's tie groups end exactly there, so no tie-breaking rule decides a printed rate:

# %% tags=["remove-input"]
if coll.is_file() and "risk_coverage_conventions" in doc:
    conv = pd.DataFrame(doc["risk_coverage_conventions"]).T
    conv = conv.apply(lambda col: [f"{v:.3f}" if isinstance(v, (int, float)) and pd.notna(v) else v for v in col])
    conv.index.name = "claim"
    _ = table(
        conv.reset_index(),
        "risk_coverage_conventions",
        caption="Table 2 error rates (%) from the reconstructed rows under three roundings of c x n",
    )

# %% [markdown]
# ## A bootstrap recomputed on this page
#
# As a check that the intervals come from the rows and this page's parameters (not from a file), the
# headline (CN) panel comparison is recomputed here from the rows, with this page's `seed` and `n_boot` and
# the same random stream as [Result 1](04_result1.ipynb) (`summary.model_rng(seed, "panel:CN")`), so the
# two pages compute one interval, not two.

# %% tags=["remove-input"]
from selfconf.book.glue import glued_values

r1 = glued_values(resolve(book_dir))
same = all(k in r1 and r1[k]["value"] == v for k, v in res.tables["cn_interval"].items())
_ = glue.value(
    "recon_cn_same_as_result1",
    "yes, to the last digit" if same else "no: the Result 1 page was built with other parameters or rows",
    origin="build",
)

# %% [markdown]
# Is the recomputed CN difference and its interval identical to the one Result 1 shows?
# {glue:text}`recon_cn_same_as_result1`.

# %% [markdown]
# ## Plausibility
#
# Fitting aggregates is not enough: the rows should also look like verbalised LLM confidences.
# Stated confidences heap on multiples of 5 (and the local tier piles up at 90–100):

# %% tags=["remove-input"]
plaus = reconstruction.plausibility(rows, grid=5)
heap, share5 = plaus["heap"], plaus["share_on_grid"]
chart = (
    alt.Chart(heap)
    .mark_bar()
    .encode(
        x=alt.X("confidence:Q", title="stated confidence", scale=alt.Scale(domain=[0, 100])),
        y=alt.Y("rows:Q", title="graded rows"),
        color=alt.Color("multiple of 5:N", scale=alt.Scale(domain=["yes", "no"], range=["#4c78a8", "#e45756"])),
        row=alt.Row("tier:N", title=None),
        tooltip=["tier", "confidence", "rows"],
    )
    .properties(width=560, height=150, title="Stated confidence heaps on round numbers")
)
chart

# %% tags=["remove-input"]
show_markdown(
    f"{share5:.1%} of graded rows state a multiple of 5.  Parse failures, excluded from every "
    f"graded statistic, are counted per model: {exclusions.total_parse_failures:,} of "
    f"{exclusions.total_rows:,} rows."
)
_ = table(exclusions.per_model, "reconstruction_exclusions", caption="Rows, parse failures and refusals per model")

# %% [markdown]
# Correctness is correlated across models through item difficulty, which is what gives panel
# agreement its signal (phi coefficient of correctness between two models, frontier tier, items
# both graded):

# %% tags=["remove-input"]
order, corr = plaus["phi_order"], plaus["phi"]
long = corr.reset_index(names="model A").melt(id_vars="model A", var_name="model B", value_name="phi")
heat = (
    alt.Chart(long)
    .mark_rect()
    .encode(
        x=alt.X("model A:N", sort=order, title=None),
        y=alt.Y("model B:N", sort=order, title=None),
        color=alt.Color("phi:Q", scale=alt.Scale(scheme="blues", domain=[0, 1])),
        tooltip=["model A", "model B", alt.Tooltip("phi:Q", format=".2f")],
    )
    .properties(width=300, height=300, title="Correlation of correctness across frontier models")
)
heat

# %% tags=["remove-input"]
show_markdown(
    f"Wrong answers shared by two or more frontier models: {plaus['n_shared_wrong_strings']:,} answer strings "
    f"covering {plaus['n_shared_wrong_rows']:,} of {plaus['n_wrong_rows']:,} "
    "wrong (non-refused) frontier answers.  Correct answers given as a variant string rather than the gold "
    f"string: {plaus['n_variant_correct']:,} rows."
)

# %% [markdown]
# (recon-limits)=
# ## What a reconstruction cannot tell you
#
# * **Per-item answers.**  Which items a model got right, the answer strings (the data carry only
#   tokens such as `i0123-a2`) and which wrong answers models share are invented, constrained only
#   by the aggregates.  Item-level questions (which topics fail, which wrong answers are
#   popular) cannot be answered from these rows.
# * **The real tie structure.**  Real confidences need not put Table 2's cut points on tie-group
#   boundaries; here they do by construction, so the reconstruction cannot say how much the
#   paper's numbers depend on its tie-breaking rule.
# * **Anything not printed.**  The local tier's per-model numbers (only spans are printed), the
#   correlation of confidences across models, the DeLong-versus-bootstrap relation behind each
#   interval: these are choices of the generator, documented in `data/README.md`, not findings.
# * **Bootstrap intervals.**  They are recomputed from the rows, so they agree with the paper only
#   as far as the reconstructed tables have the right shape; a printed interval narrower than any
#   consistent table allows shows up above as *outside tolerance*.
