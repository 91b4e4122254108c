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
# # Appendix A: a practical self-assessment diagnostic
#
# The paper closes with a by-product of the study: a compact diagnostic that asks a model a fixed set of short
# questions with deterministic answers, plus *trap* questions that have no answer, and scores how well the
# model's stated confidence — on the paper's [{glue:text}`diag_conf_scale_min`]{.quoted} to
# [{glue:text}`diag_conf_scale_max`]{.quoted} scale — matches what it actually gets right. The paper releases it as a **tool, not a
# result**: it uses paraphrased probes rather than the frozen battery, and its discrimination score is a proxy,
# not the AUROC end point of the ladder.
#
# The paper's own probes are not public, so this book ships **its own battery**, written for `selfconf`, and the
# command `selfconf diagnose`. This page documents the battery, the scoring, and the tiers, and works one example
# through by hand. Nothing here is a paper number.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 20261130
n_boot = 2000
data_dir = "data/reconstructed"  # not read here: the diagnostic scores its own battery, not the paper's rows
book_dir = "book"  # where the executed sections live (the confidence scale is restated from Design)

# %% tags=["remove-input"]
import math

import altair as alt
import pandas as pd

from selfconf.book import as_text, glue, show_markdown, table, vega
from selfconf.cli.diagnose import DIAGNOSE_SYSTEM_PROMPT, TIERS, WEIGHTS, load_battery
from selfconf.cli.diagnose.example import STYLES, battery_counts, worked_example
from selfconf.cli.diagnose.scoring import BOTTOM_NOT_OVERCONFIDENT, goodness

vega.enable()
from selfconf.book import page_banner

page_banner(
    "simulation",
    note="The respondents are simulated on the tool's own battery; the few numbers quoted from "
    "the paper are marked as quoted.",
    provenance_line=f"simulated respondents on the selfconf battery (no paper rows; data_dir {data_dir} "
    f"is not read) · seed: {seed} · bootstrap draws: {n_boot:,}",
)
battery = load_battery()
items = pd.DataFrame(battery["items"])
# the paper's two numbers in this appendix restate the Design section's confidence scale
glue.restate("diag_conf_scale_min", "design_conf_scale_min", book_dir=book_dir)
_ = glue.restate("diag_conf_scale_max", "design_conf_scale_max", book_dir=book_dir)

# %% [markdown]
# ## The battery
#
# Every item is a short question whose answer a string comparison can check: arithmetic, a year, a symbol, a
# unit conversion, the output of a one-line program. Each *probe* lists its accepted answers (normalised before
# comparison: case, accents, punctuation, articles and number formats do not matter) and, for numeric answers,
# a tolerance. Each *trap* rests on a false premise ("Einstein's second Nobel Prize") or asks for something that
# cannot be known; its only right response is the abstention token `ABSTAIN`.

# %% tags=["hide-input"]
counts = battery_counts(battery)
n_probes = glue.value("diagtool_n_probes", counts["n_probes"], origin="parameter")
n_traps = glue.value("diagtool_n_traps", counts["n_traps"], origin="parameter")
glue.value("diagtool_n_items", counts["n_items"], origin="parameter")
probes = items[items["kind"] == "probe"]
glue.value("diagtool_n_domains", counts["n_domains"], origin="parameter")
glue.value("diagtool_n_numeric", counts["n_numeric"], origin="parameter")
per_domain = (
    probes.groupby("domain", sort=False).agg(probes=("id", "size"), example=("question", "first")).reset_index()
)
_ = table(per_domain, "diagnostic_battery_domains", caption="Probes per domain bin, with the first probe of each")

# %% [markdown]
# The battery holds {glue:text}`diagtool_n_items` items: {glue:text}`diagtool_n_probes` probes over
# {glue:text}`diagtool_n_domains` domain bins ({glue:text}`diagtool_n_numeric` of them graded numerically) and
# {glue:text}`diagtool_n_traps` traps. The full list, with accepted answers, is `selfconf diagnose --list-battery`
# (and `src/selfconf/diagnose/battery.json`). The traps:

# %% tags=["hide-input"]
table(
    items.loc[items["kind"] == "trap", ["id", "question"]],
    "diagnostic_trap_items",
    caption="The trap items (the only right response is ABSTAIN)",
)

# %% [markdown]
# ## Asking a model
#
# `selfconf diagnose --base-url URL --model NAME` sends every item to an OpenAI-compatible endpoint at
# temperature 0, with the paper's answer format extended by the abstention instruction (system prompt below),
# logs each reply to a JSONL file (an interrupted run resumes where it stopped) and prints the result.
# `selfconf diagnose --answers FILE` scores replies collected any other way (columns `item_id`, `answer`,
# `confidence`).

# %% tags=["remove-input"]
show_markdown("```text\n" + DIAGNOSE_SYSTEM_PROMPT + "\n```")

# %% [markdown]
# ## Scoring
#
# A probe is right when the normalised answer equals an accepted answer, or (numeric probes) when the first number
# in it is within tolerance; an abstention on a probe is wrong. A trap is right when the model abstains: the
# token, or a refusal such as "I don't know" stated with a low confidence (the same prose stated with a high
# confidence claims to be the answer, and is graded as one). With confidence $c_i$ on the 0–1 scale and $y_i\in\{0,1\}$ over the
# $n$ probes that carry a parsed confidence, the four components are
#
# - **Brier score** $\frac1n\sum_i (c_i-y_i)^2$ — squared distance between stated confidence and outcome;
# - **overconfidence gap** $\bar c-\bar y$ — mean confidence minus accuracy (positive: says more than it knows);
# - **discrimination proxy** $\bar c_{\text{correct}}-\bar c_{\text{incorrect}}$ — how much higher the model
#   rates its right answers than its wrong ones. The paper's end point is AUROC; this difference of means is a
#   cheaper stand-in that small batteries can estimate;
# - **trap abstention rate** — the share of traps answered with an abstention.
#
# Each is turned into a 0–1 *goodness* and the goodness values are averaged with fixed weights:

# %% tags=["hide-input"]
goodness_rule = {
    "brier": "1 − min(1, Brier / 0.25)   (0.25 = always stating 50)",
    "gap": "1 − min(1, |gap| / 0.5)",
    "discrimination": "clip(proxy / 0.5, 0, 1)",
    "trap_abstention": "abstention rate itself",
}
for k, w in WEIGHTS.items():
    glue.value(f"diagtool_weight_{k}", w, origin="parameter")
pd.DataFrame(
    {
        "component": list(WEIGHTS),
        "goodness": [goodness_rule[k] for k in WEIGHTS],
        "weight": list(WEIGHTS.values()),
    }
).pipe(as_text, {"weight": "{:.2f}"}).pipe(
    table, "diagnostic_components", caption="Components, their goodness and their weights"
)

# %% [markdown]
# The composite is $100\times$ the weighted mean of the goodness values, times the share of probes the model
# answered rather than abstained on. Without that factor abstention would pay: abstaining on every item at zero
# confidence has a perfect Brier score, no gap and every trap right, yet answers nothing; with it, that respondent
# scores zero. A component that is undefined (for example the discrimination proxy of a model that gets every
# probe right) is left out and the other weights are rescaled; the output says so. A run in which more than a
# tenth of the items got no reply is reported as incomplete, with no composite and no tier. The composite maps to a tier. The bottom tier is named by the direction of the
# failure: a model that is not overconfident (gap ≤ 0) but scores that low fails by saying little, and is called
# uninformative rather than confidently blind.

# %% tags=["hide-input"]
tiers = pd.DataFrame(
    {
        "tier": [
            name if math.isfinite(lo) else f"{name} (gap > 0) / {BOTTOM_NOT_OVERCONFIDENT} (gap ≤ 0)"
            for lo, name in TIERS
        ],
        "composite at least": [("—" if not math.isfinite(lo) else f"{lo:g}") for lo, _ in TIERS],
    }
)
for lo, name in TIERS:
    if math.isfinite(lo):
        glue.value("diagtool_tier_" + name.replace(" ", "_").replace("-", "_"), lo, origin="parameter")
table(tiers, "diagnostic_tiers", caption="Tiers of the composite (0–100)")

# %% [markdown]
# The weights and cut-offs are conventions of this tool, chosen so that a model stating a near-maximal confidence
# on everything while getting most answers wrong lands at the bottom and a model whose confidence tracks its
# correctness lands at the top.
# They are not estimated from data; read the four components, not just the tier.
#
# ## A worked example
#
# Three simulated respondents answer the battery (random draws from the page seed; no model is involved):
#
# - **tracking** knows a probe with a domain-dependent chance, states a high confidence when it knows and a low
#   one when it guesses, and usually abstains on traps;
# - **saturated** is right about as often but states a uniformly high confidence and rarely abstains;
# - **hedging** is right about as often, states a middling confidence whatever happens, and abstains on some traps.
#
# (The simulation's settings are in `selfconf.cli.diagnose.example`.)

# %% tags=["hide-input"]
# the simulation and the item bootstrap of the composite: selfconf.cli.diagnose.example
replies, results, intervals = worked_example(battery, seed=seed, n_boot=n_boot)

rows = []
for s in STYLES:
    r = results[s]
    lo, hi = intervals[s]
    rows.append(
        {
            "respondent": s,
            "accuracy (%)": 100 * r.accuracy,
            "mean conf.": 100 * r.mean_confidence,
            "Brier": r.brier,
            "gap (pp)": 100 * r.gap,
            "discrimination (pp)": 100 * r.discrimination,
            "trap abstention (%)": 100 * r.trap_abstention,
            "composite": r.composite,
            "95% interval": f"[{lo:.1f}, {hi:.1f}]",
            "tier": r.tier,
        }
    )
    glue.value(f"diagtool_{s}_acc", 100 * r.accuracy, origin="simulation")
    glue.value(f"diagtool_{s}_mean_conf", 100 * r.mean_confidence, origin="simulation")
    glue.value(f"diagtool_{s}_brier", r.brier, origin="simulation")
    glue.value(f"diagtool_{s}_gap", 100 * r.gap, origin="simulation")
    glue.value(f"diagtool_{s}_disc", 100 * r.discrimination, origin="simulation")
    glue.value(f"diagtool_{s}_trap", 100 * r.trap_abstention, origin="simulation")
    glue.value(f"diagtool_{s}_composite", r.composite, origin="simulation")
    glue.value(f"diagtool_{s}_composite_lo", lo, origin="simulation")
    glue.value(f"diagtool_{s}_composite_hi", hi, origin="simulation")
    glue.value(f"diagtool_{s}_tier", r.tier, origin="simulation")
summary = pd.DataFrame(rows)
table(
    as_text(
        summary,
        {
            c: "{:.1f}"
            for c in [
                "accuracy (%)",
                "mean conf.",
                "gap (pp)",
                "discrimination (pp)",
                "trap abstention (%)",
                "composite",
            ]
        }
        | {"Brier": "{:.3f}"},
    ),
    "diagnostic_respondents",
    caption="Three simulated respondents on the battery: components, composite with a 95% item-bootstrap interval, tier",
)

# %% [markdown]
# ### By hand, for the *saturated* respondent
#
# It gets {glue:text}`diagtool_saturated_acc:.1f`% of the probes right at a mean stated confidence of
# {glue:text}`diagtool_saturated_mean_conf:.1f`, so its gap is {glue:text}`diagtool_saturated_gap:+.1f` pp and its
# Brier score {glue:text}`diagtool_saturated_brier:.3f`. Because it states nearly the same number whatever it does,
# its right answers are rated only {glue:text}`diagtool_saturated_disc:+.1f` pp above its wrong ones, and it
# abstains on {glue:text}`diagtool_saturated_trap:.1f`% of the traps. The table below turns these into goodness
# values and the weighted mean:

# %% tags=["hide-input", "teaching"]
sat = results["saturated"]
comp = {
    "brier": sat.brier,
    "gap": sat.gap,
    "discrimination": sat.discrimination,
    "trap_abstention": sat.trap_abstention,
}
good = goodness(comp)
steps = pd.DataFrame(
    {
        "component": list(WEIGHTS),
        "raw value": [comp[k] for k in WEIGHTS],
        "goodness": [good[k] for k in WEIGHTS],
        "weight": list(WEIGHTS.values()),
        "weight × goodness": [WEIGHTS[k] * good[k] for k in WEIGHTS],
    }
)
by_hand = 100 * sat.probe_answer_rate * steps["weight × goodness"].sum() / steps["weight"].sum()
glue.value("diagtool_saturated_answer_rate", sat.probe_answer_rate, origin="simulation")
assert abs(by_hand - sat.composite) < 1e-9, "the by-hand composite must equal the tool's"
glue.value("diagtool_saturated_by_hand", by_hand, origin="simulation")
table(
    as_text(steps, {"raw value": "{:+.3f}", "goodness": "{:.3f}", "weight": "{:.2f}", "weight × goodness": "{:.3f}"}),
    "diagnostic_saturated_steps",
    caption="The saturated respondent's composite, step by step",
)

# %% [markdown]
# The weighted sum times its probe answer rate ({glue:text}`diagtool_saturated_answer_rate:.2f`) and 100 is
# {glue:text}`diagtool_saturated_by_hand:.1f`, the composite the tool reports, which
# falls in the tier *{glue:text}`diagtool_saturated_tier`*. The *tracking* respondent
# ({glue:text}`diagtool_tracking_acc:.1f`% right) scores
# {glue:text}`diagtool_tracking_composite:.1f` (*{glue:text}`diagtool_tracking_tier`*), and the *hedging* one
# {glue:text}`diagtool_hedging_composite:.1f` (*{glue:text}`diagtool_hedging_tier`*): its level is roughly right
# (gap {glue:text}`diagtool_hedging_gap:+.1f` pp) but its confidence says almost nothing about which answers are right
# (discrimination {glue:text}`diagtool_hedging_disc:+.1f` pp).
#
# With only {glue:text}`diagtool_n_probes` probes and {glue:text}`diagtool_n_traps` traps the composite is noisy:
# resampling the items gives an interval of
# {glue:text}`diagtool_tracking_composite_lo:.1f`–{glue:text}`diagtool_tracking_composite_hi:.1f` for the tracking respondent and
# {glue:text}`diagtool_hedging_composite_lo:.1f`–{glue:text}`diagtool_hedging_composite_hi:.1f` for the hedging one.
# A model close to a tier boundary should not be read as belonging to either side.

# %% tags=["hide-input"]
bands = pd.DataFrame(
    {
        "tier": [name for _, name in TIERS],
        "lo": [max(0.0, lo) if math.isfinite(lo) else 0.0 for lo, _ in TIERS],
        "hi": [100.0] + [lo for lo, _ in TIERS[:-1]],
    }
)
ci = pd.DataFrame(
    {
        "respondent": STYLES,
        "composite": [results[s].composite for s in STYLES],
        "lo": [float(r["95% interval"].strip("[]").split(",")[0]) for r in rows],
        "hi": [float(r["95% interval"].strip("[]").split(",")[1]) for r in rows],
    }
)
band_chart = (
    alt.Chart(bands)
    .mark_rect(opacity=0.18)
    .encode(
        x=alt.X("lo:Q", title="composite (0–100)", scale=alt.Scale(domain=[0, 100])),
        x2="hi:Q",
        color=alt.Color("tier:N", sort=[n for _, n in TIERS], title="tier"),
    )
)
rules = alt.Chart(ci).mark_rule(strokeWidth=2).encode(x="lo:Q", x2="hi:Q", y=alt.Y("respondent:N", title=None))
pts = (
    alt.Chart(ci)
    .mark_point(filled=True, size=90, color="black")
    .encode(x="composite:Q", y="respondent:N", tooltip=["respondent", alt.Tooltip("composite:Q", format=".1f")])
)
(band_chart + rules + pts).properties(width=520, height=150, title="Composite with a 95% item-bootstrap interval")

# %% [markdown]
# ## What the diagnostic is and is not
#
# It is a quick, cheap screen that a practitioner can run on any endpoint in a few minutes and that makes the
# paper's point operational: calibration is something to *measure* about a model, not something to read off its
# self-reports. It is not a replication of the paper's results: the battery is new and small, most of its probes
# are easy, so for a strong model the scores rest on the few items it gets wrong and on the traps; the
# discrimination proxy is not AUROC; and the tier thresholds are conventions.
