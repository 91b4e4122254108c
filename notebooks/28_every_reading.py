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
# # Every reading of the panel comparison
#
# Result 1 compares two predictors of whether a model's answer is correct: the model's own stated confidence,
# and the agreement of the other members of a fixed panel of models with that answer. The paper names one way of
# computing this comparison as canonical and says its replication script prints every alternative reading
# beside it, so that the choice of reading can be audited. This page computes every combination of the
# reasonable readings for each of the three pre-specified panels (US, CN, cross-bloc), the difference
# panel − self with its item-clustered interval under each, as a *specification curve*
# (Simonsohn, Simmons & Nelson 2020; a multiverse analysis in the sense of Steegen et al. 2016): sorted
# differences with their intervals, and beneath them the choices that produced each one. It does so on the
# book's reconstructed rows and on the real MMLU-Pro answers of the chapter
# [The paper's claims on real answers](26_real_answers.ipynb).
#
# The computation is `selfconf.panels.panel_readings` (every statistic of every reading recomputed on each
# item draw from per-cell counts); the same readings are available for your own models' answers with
# `selfconf panel FILES --members a,b,c --all-readings`.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"
external_dir = "data/external/mmlu-pro-calibration"

# %% tags=["remove-input"]
import altair as alt
import pandas as pd

from selfconf import data, panels
from selfconf.book import banner, charts, glue, in_book, show_markdown, table, vega
from selfconf.book.pages import TABLE_DIR
from selfconf.data.fetch import read_mmlu_pro_calibration
from selfconf.data.paths import resolve
from selfconf.data.sources import resolve_families
from selfconf.sections import readings, realanswers

vega.enable()
alt.data_transformers.disable_max_rows()
sources = resolve_families(data_dir, ["collection"])
banner(data_dir, seed=seed, n_boot=n_boot, families=sources)
ROWS = glue.rows_origin(sources)  # origin of every number computed from these rows (none is a paper claim)
LEVEL = glue.quoted("ci_level_pct") / 100
LVL = f"{LEVEL:.0%}"
DIMS = list(panels.READINGS)
glue.value("readings_n_boot", n_boot, origin="parameter")
glue.value("readings_n_readings", len(panels.all_readings()), origin="parameter")
ext_path = resolve(external_dir)
if not ext_path.is_dir():
    raise FileNotFoundError(
        f"{ext_path} does not exist: this page needs the third-party MMLU-Pro calibration data. "
        "Run `make external` from the project root, then execute again."
    )
show_markdown(
    "The second half of this page reads **real third-party data** (MMLU-Pro answers of 26 models, downloaded by "
    "`make external`): those numbers are neither the paper's rows nor the reconstruction, and the panels there "
    "are the analogues chosen by chapter 26's declared rule."
)

# %% [markdown]
# ## The readings
#
# A reading fixes one option in each of six dimensions; the first option of each is the canonical reading (the
# paper's, and the default of every function and of `selfconf panel`). {glue:text}`readings_n_readings` combinations
# result; under *per member* each combination gives one comparison per member, so a three-member panel has
# 648 comparisons. *Indeterminate* answers are refusals and members without a graded row on the item (a parse
# failure, in the *any member answered* population).

# %% tags=["hide-input"]
_ = table(
    pd.DataFrame(
        [
            {
                "dimension": dim,
                "option": opt + (" (canonical)" if panels.CANONICAL_READING[dim] == opt else ""),
                "definition": text,
            }
            for dim, opts in panels.READING_DEFINITIONS.items()
            for opt, text in opts.items()
        ]
    ),
    "readings_definitions",
    caption="The reading options of the panel comparison",
)

# %% [markdown]
# The paper's comparison is panel minus self on pooled rows; every reading keeps that shape and changes one way of
# computing it. Under *macro* and *per member* aggregation the self side is aggregated the same way as the panel
# side (macro mean against macro mean, one member's panel AUROC against its own self-AUROC); under *rank-normalised*
# the self side is the pooled AUROC of within-member percentiles, which is the paper's decomposition statistic.
#
# ## On the reconstruction
#
# The canonical row of each panel below is Result 1's computation with Result 1's generator
# (`summary.model_rng(seed, "panel:<name>")`), so its values and intervals are those of
# [Result 1](04_result1.ipynb) at the same seed and number of draws. The column *paper prints* is the paper's
# printed panel − self difference. The rows are the reconstruction: a value that matches the print shows that the
# analysis and the published numbers hold together, not what the paper's own data would give under another
# reading. How each panel fares under every other reading is a property of the reconstruction.

# %% tags=["hide-input"]
rows, _excl = data.load_collection(sources.path("collection"))
rec = readings.compute(rows, dict(panels.PANELS), seed=seed, n_boot=n_boot, level=LEVEL, dataset="reconstruction")
CLAIM_KEY = {"US": "us", "CN": "cn", "cross_bloc": "xb"}
LABEL = readings.PANEL_LABEL


def ci(lo, hi):
    return f"[{lo:+.3f}, {hi:+.3f}]".replace("-", "\u2212")


def canonical_table(t, surv, name):
    recs = []
    for p, g in t.groupby("panel", sort=False):
        c = g[g["canonical"]].iloc[0]
        s = surv[p]
        recs.append(
            {
                "panel": LABEL[p],
                "items": f"{int(c['items']):,}",
                "panel AUROC": f"{c['panel_auroc']:.3f}",
                "self AUROC (pooled)": f"{c['self_auroc_pooled']:.3f}",
                "panel − self": f"{c['delta']:+.3f}".replace("-", "\u2212"),
                f"{LVL} CI": ci(c["delta_ci_low"], c["delta_ci_high"]),
                "paper prints": "",
                "readings kept / inconclusive / reversed": f"{s['n_survive']} / {s['n_inconclusive']} / "
                f"{s['n_reversed']}",
            }
        )
    df = pd.DataFrame(recs)
    df.index = df["panel"]
    printed = {(LABEL[p], "paper prints"): f"{CLAIM_KEY[p]}_panel_vs_self_delta" for p in panels.PANELS}
    table(
        df,
        name,
        caption=f"Canonical panel − self and the fate of its direction under every reading ({LVL} item-clustered "
        "intervals)",
        printed=printed,
    )


def curves(t, prefix):
    return alt.vconcat(
        *[
            charts.specification_curve(
                g, dimensions=DIMS, title=f"{prefix}: {LABEL[p]} panel ({len(g)} comparisons)", level_label=LVL
            )
            for p, g in t.groupby("panel", sort=False)
        ],
        spacing=24,
    )


surv_rec = readings.survival(rec)
canonical_table(rec, surv_rec, "readings_reconstruction")
for p, s in surv_rec.items():
    k = CLAIM_KEY[p]
    glue.value(f"readings_rec_{k}_sentence", readings.survival_sentence(p, s), origin=ROWS)
    glue.value(f"readings_rec_{k}_n_reversed", s["n_reversed"], origin=ROWS)
    glue.value(f"readings_rec_{k}_n_survive", s["n_survive"], origin=ROWS)
    glue.value(f"readings_rec_{k}_delta", s["canonical_delta"], origin=ROWS)
# the canonical row is Result 1's statistic (point values; the intervals share Result 1's draw by construction)
for p, members in panels.PANELS.items():
    est = panels.panel_point_estimates(panels.panel_rows(rows, members))
    c = rec[(rec["panel"] == p) & rec["canonical"]].iloc[0]
    assert (
        abs(c["delta"] - est["delta_panel_minus_self"]) < 1e-12 and abs(c["panel_auroc"] - est["panel_auroc"]) < 1e-12
    )

# %% tags=["remove-input"]
curves(rec, "Reconstruction")

# %% [markdown]
# Each point is one reading's panel − self difference, sorted; the vertical line is its {glue:text}`readings_n_boot:,.0f`-draw
# item-clustered interval; the large red point is the canonical reading. Beneath, a mark in the row of an option
# says that the reading above it used that option.
#
# - {glue:text}`readings_rec_us_sentence`
# - {glue:text}`readings_rec_cn_sentence`
# - {glue:text}`readings_rec_xb_sentence`
#
# ## On real MMLU-Pro answers
#
# The same computation on the panel analogues of [chapter 26](26_real_answers.ipynb) (members chosen by its
# declared rule, population and generator as there), so the canonical rows equal that chapter's panel values.
# The *paper prints* column is the paper's value for its own panel, shown for comparison: these are other models
# and other questions.

# %% tags=["hide-input"]
ext = read_mmlu_pro_calibration(ext_path)
choices = realanswers.select_panels(tuple(dict.fromkeys(ext["model"])))
pf = realanswers.panel_frame(ext)
real = readings.compute(
    pf, {p: choices[p].members for p in panels.PANELS}, seed=seed, n_boot=n_boot, level=LEVEL, dataset="MMLU-Pro"
)
surv_real = readings.survival(real)
canonical_table(real, surv_real, "readings_mmlu_pro")
for p, s in surv_real.items():
    k = CLAIM_KEY[p]
    glue.value(f"readings_real_{k}_sentence", readings.survival_sentence(p, s), origin="external-data")
    glue.value(f"readings_real_{k}_n_reversed", s["n_reversed"], origin="external-data")
    glue.value(f"readings_real_{k}_n_survive", s["n_survive"], origin="external-data")
    glue.value(f"readings_real_{k}_delta", s["canonical_delta"], origin="external-data")
_ = table(
    pd.DataFrame([{"panel": LABEL[p], "members": ", ".join(choices[p].members)} for p in panels.PANELS]),
    "readings_mmlu_pro_members",
    caption="MMLU-Pro panel analogues (chapter 26's declared rule)",
)

# %% tags=["remove-input"]
curves(real, "MMLU-Pro")

# %% [markdown]
# - {glue:text}`readings_real_us_sentence`
# - {glue:text}`readings_real_cn_sentence`
# - {glue:text}`readings_real_xb_sentence`
#
# ## Every comparison as a table
#
# The file below holds every reading of every panel on both data sets: the six options, the member (under
# *per member*), whether the reading is canonical, the panel AUROC, the self AUROC of the same aggregation, the
# pooled self-AUROC and panel − self, each with its interval, the number of items and rows, and the number of
# draws in which a statistic was undefined (left out of its interval).

# %% tags=["remove-input"]
every = pd.concat([rec, real], ignore_index=True)
every["panel"] = every["panel"].map(LABEL)
if in_book():
    out = resolve(TABLE_DIR)
    out.mkdir(parents=True, exist_ok=True)
    every.to_csv(out / "every_reading.csv", index=False, float_format="%.6f", lineterminator="\n")
    show_markdown(
        "{download}`Download every reading as CSV (" + f"{len(every):,}" + " rows) <_static/tables/every_reading.csv>`"
    )
glue.value("readings_n_rows_csv", len(every), origin="parameter")


# %% tags=["remove-input"]
def driver_sentence(surv, where):
    """Which option values take part in the reversals, summed over the three panels (from the table)."""
    tot: dict[str, int] = {}
    for s in surv.values():
        for k, n in s["reversing_choices"].items():
            tot[k] = tot.get(k, 0) + n
    n_rev = sum(s["n_reversed"] for s in surv.values())
    n_all = sum(s["n_readings"] for s in surv.values())
    kept = [LABEL[p] for p, s in surv.items() if s["n_reversed"] == 0 and s["n_inconclusive"] == 0]
    text = f"On {where}, {n_rev} of {n_all} comparisons reverse the canonical direction of their panel"
    if tot:
        top = sorted(tot.items(), key=lambda kv: -kv[1])[:3]
        text += "; the options most often involved are " + ", ".join(f"{k} (in {n})" for k, n in top)
    text += (
        ". The canonical conclusion survives every reading on the "
        + ", ".join(kept)
        + " panel"
        + ("s" if len(kept) > 1 else "")
        + "."
        if kept
        else ". No panel's canonical conclusion survives every reading."
    )
    return text


glue.value("readings_rec_drivers", driver_sentence(surv_rec, "the reconstruction"), origin=ROWS)
_ = glue.value("readings_real_drivers", driver_sentence(surv_real, "the MMLU-Pro answers"), origin="external-data")

# %% [markdown]
# ## What survives
#
# A conclusion *survives* a reading when that reading's interval for panel − self lies on the same side of zero
# as the canonical one; it is *reversed* when the interval lies entirely on the other side.
#
# {glue:text}`readings_rec_drivers`
#
# {glue:text}`readings_real_drivers`
