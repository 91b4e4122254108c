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
# readings for each of the three pre-specified panels (US, CN, cross-bloc), the difference
# panel − self with its interval under each, as a *specification curve*
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

# %% tags=["remove-input", "needs-external:mmlu-pro-calibration"]
import altair as alt
import pandas as pd

from selfconf import data, panels
from selfconf.book import banner, charts, glue, in_book, show_markdown, table, vega
from selfconf.book.pages import table_folder
from selfconf.data.fetch import read_mmlu_pro_calibration
from selfconf.data.paths import resolve
from selfconf.data.sources import resolve_families
from selfconf.sections import readings, realanswers, sensitivity

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


def n_rows(r, n_members=3):
    """Comparisons one reading gives on a panel of n_members (per member, and per dropped member)."""
    kept = n_members - 1 if r["leave_out"] == "each_member" else n_members
    return (kept if r["aggregation"] == "per_member" else 1) * (n_members if r["leave_out"] == "each_member" else 1)


glue.value("readings_n_comparisons", sum(n_rows(r) for r in panels.all_readings()), origin="parameter")
glue.value(
    "readings_n_comparisons_reasonable",
    sum(n_rows(r) for r in panels.all_readings() if panels.reading_status(r) == "reasonable"),
    origin="parameter",
)
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

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# ## The readings
#
# A reading fixes one option in each dimension below; the first option of each is the canonical reading (the
# paper's, and the default of every function and of `selfconf panel`). {glue:text}`readings_n_readings` combinations
# result; under *per member* each combination gives one comparison per member, so a three-member panel has
# {glue:text}`readings_n_comparisons` comparisons. *Indeterminate* answers are refusals and members without a graded row on the item (a parse
# failure, in the *any member answered* population). The last two dimensions change how the result is resampled
# (the bootstrap's cluster unit, which moves the intervals only) and which panel is read (each member left out in
# turn, leaving a two-member panel).
#
# Each option is classed as a *reasonable* reading or a *bound* (Steegen et al. 2016): a reasonable option is a
# defensible way to compute the paper's comparison; a bound is an option no analyst would pick as the answer,
# kept to show how far the result can be pushed (counting every tie for or against a score, every missing answer
# as agreement, a resampling unit that ignores the dependence of an item's rows or has three clusters, a panel
# that is not the pre-registered one). A reading is a bound when any of its options is. Of the
# {glue:text}`readings_n_comparisons` comparisons, {glue:text}`readings_n_comparisons_reasonable` are reasonable
# readings; the counts below keep the two apart.

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
_ = table(
    pd.DataFrame(
        [
            {
                "dimension": dim,
                "option": opt + (" (canonical)" if panels.CANONICAL_READING[dim] == opt else ""),
                "definition": text,
                "class": f"{panels.READING_STATUS[dim][opt][0]}: {panels.READING_STATUS[dim][opt][1]}",
            }
            for dim, opts in panels.READING_DEFINITIONS.items()
            for opt, text in opts.items()
        ]
    ),
    "readings_definitions",
    caption="The reading options of the panel comparison",
)

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
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

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
rows, _excl = data.load_collection(sources.path("collection"))
rec, joint_rec = readings.joint_tests(
    rows, dict(panels.PANELS), seed=seed, n_boot=n_boot, level=LEVEL, dataset="reconstruction"
)
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


CURVE_DIMS = [d for d in DIMS if d not in ("cluster", "leave_out")]


def curves(t, prefix):
    """One curve per panel: the distinct results of the pre-registered panel with the item bootstrap (a reading
    that repeats an earlier one's result is drawn once, under the first reading that gives it)."""
    out = []
    for p, g in t.groupby("panel", sort=False):
        pre = g[(g["cluster"] == "item") & (g["leave_out"] == "none")]
        d = pre[pre["result_id"].duplicated() == False]  # noqa: E712 - a boolean Series
        title = f"{prefix}: {LABEL[p]} panel ({len(d)} distinct results of its {len(pre)} comparisons)"
        out.append(charts.specification_curve(d, dimensions=CURVE_DIMS, title=title, level_label=LVL))
    return alt.vconcat(*out, spacing=24)


def p_text(p):
    return f"{p:.4f}" if p >= 0.0001 else "< 0.0001"


def tallies_table(t, surv, name):
    """Per panel: comparisons, distinct results, and the fate of the canonical direction per reading status."""
    recs = []
    for p, s in surv.items():
        for st in readings.STATUSES:
            recs.append(
                {
                    "panel": LABEL[p],
                    "readings": {"reasonable": "reasonable", "bound": "bounds"}[st],
                    "comparisons": s[f"n_{st}"],
                    "distinct results": s[f"n_{st}_distinct"],
                    "canonical sign": s[f"n_{st}_same_sign"],
                    "kept": s[f"n_{st}_survive"],
                    "inconclusive": s[f"n_{st}_inconclusive"],
                    "reversed": s[f"n_{st}_reversed"],
                }
            )
    table(
        pd.DataFrame(recs),
        name,
        caption=f"Comparisons, distinct results and the canonical direction ({LVL} intervals), reasonable "
        "readings and bounds apart",
    )


def joint_table(tests, name):
    """Simonsohn et al.'s joint test per panel, over the reasonable specifications and over all of them."""
    recs = []
    for p, tt in tests.items():
        for which in ("reasonable", "all"):
            r = tt[which]
            recs.append(
                {
                    "panel": LABEL[p],
                    "specifications": f"{which} ({r['n_specifications']})",
                    "share with canonical sign": f"{r['share']:.3f}",
                    "null 95th pct": f"{r['null_share_95']:.3f}",
                    "p (share)": p_text(r["p_share"]),
                    "median panel − self": f"{r['median']:+.3f}".replace("-", "\u2212"),
                    "null 95th pct ": f"{r['sign'] * r['null_median_95']:+.3f}".replace("-", "\u2212"),
                    "p (median)": p_text(r["p_median"]),
                }
            )
    table(
        pd.DataFrame(recs),
        name,
        caption="Specification-curve joint test: observed share and median against the null of no effect in any "
        f"specification ({n_boot:,} centred item draws; one-sided in the canonical direction)",
    )


def dimension_table(t, surv_all, name):
    """The two resampling / panel dimensions: comparisons kept / inconclusive / reversed per option, per panel."""
    recs = {}
    for p, g in t.groupby("panel", sort=False):
        v0 = surv_all[p]["canonical_verdict"]
        v = pd.Series(
            [readings.verdict(lo, hi) for lo, hi in zip(g["delta_ci_low"], g["delta_ci_high"], strict=True)],
            index=g.index,
        )
        groups = [(f"cluster = {c}", g["cluster"] == c) for c in panels.READINGS["cluster"]]
        groups.append(("panel as given", g["leave_out"] == "none"))
        left = [m for m in dict.fromkeys(g["left_out"]) if m]
        groups += [(f"listed member {j + 1} left out", g["left_out"] == m) for j, m in enumerate(left)]
        for label, use in groups:
            kept = int((v[use] == v0).sum())
            rev = int(((v[use] == -v0) & (v0 != 0)).sum())
            recs.setdefault(label, {"readings": label})[LABEL[p]] = f"{kept} / {int(use.sum()) - kept - rev} / {rev}"
    table(
        pd.DataFrame(list(recs.values())),
        name,
        caption="The cluster unit and leave-one-member-out panels: comparisons kept / inconclusive / reversed "
        "(reasonable readings and bounds together; members in the order the panel lists them)",
    )


def collapse_table(t, name):
    """How readings collapse onto the same result (item bootstrap; every row or member bootstrap repeats one)."""
    cp = readings.collapse_patterns(t[t["cluster"] == "item"])
    wide = cp.pivot_table(index="pattern", columns="panel", values="duplicates", aggfunc="sum", fill_value=0)
    wide = wide.reindex(columns=[p for p in panels.PANELS if p in wide.columns])
    wide = wide.loc[wide.sum(axis=1).sort_values(ascending=False, kind="mergesort").index]
    wide.columns = [LABEL[c] for c in wide.columns]
    wide.index.name = "a later reading differs from the first reading of its result in"
    table(
        wide.reset_index(),
        name,
        caption="Readings that repeat an earlier reading's result (item bootstrap), by how they differ from it",
    )


surv_rec = readings.survival(rec)
canonical_table(rec, surv_rec, "readings_reconstruction")


def glue_counts(prefix, surv, tests, origin):
    for p, s in surv.items():
        k = CLAIM_KEY[p]
        glue.value(f"{prefix}_{k}_sentence", readings.survival_sentence(p, s), origin=origin)
        glue.value(f"{prefix}_{k}_n_reversed", s["n_reversed"], origin=origin)
        glue.value(f"{prefix}_{k}_n_survive", s["n_survive"], origin=origin)
        glue.value(f"{prefix}_{k}_delta", s["canonical_delta"], origin=origin)
        glue.value(f"{prefix}_{k}_n_distinct", s["n_distinct"], origin=origin)
        glue.value(f"{prefix}_{k}_n_comparisons", s["n_readings"], origin=origin)
        for st in readings.STATUSES:
            for what in ("", "_survive", "_reversed", "_same_sign"):
                glue.value(f"{prefix}_{k}_n_{st}{what}", s[f"n_{st}{what}"], origin=origin)
        for which in ("reasonable", "all"):
            jt = tests[p][which]
            glue.value(f"{prefix}_{k}_joint_{which}_share", jt["share"], origin=origin)
            glue.value(f"{prefix}_{k}_joint_{which}_p_share", jt["p_share"], origin=origin)
            glue.value(f"{prefix}_{k}_joint_{which}_median", jt["median"], origin=origin)
            glue.value(f"{prefix}_{k}_joint_{which}_p_median", jt["p_median"], origin=origin)


glue_counts("readings_rec", surv_rec, joint_rec, ROWS)
# the canonical row is Result 1's statistic (point values; the intervals share Result 1's draw by construction)
for p, members in panels.PANELS.items():
    est = panels.panel_point_estimates(panels.panel_rows(rows, members))
    c = rec[(rec["panel"] == p) & rec["canonical"]].iloc[0]
    assert (
        abs(c["delta"] - est["delta_panel_minus_self"]) < 1e-12 and abs(c["panel_auroc"] - est["panel_auroc"]) < 1e-12
    )

# %% tags=["remove-input", "needs-external:mmlu-pro-calibration"]
curves(rec, "Reconstruction")

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# Each point is one reading's panel − self difference, sorted; the vertical line is its {glue:text}`readings_n_boot:,.0f`-draw
# item-clustered {glue:text}`ci_level_pct` % interval; the large red point is the canonical reading. Beneath, a mark in the row of an option
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

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
ext = read_mmlu_pro_calibration(ext_path)
choices = realanswers.select_panels(tuple(dict.fromkeys(ext["model"])))
pf = realanswers.panel_frame(ext)
real, joint_real = readings.joint_tests(
    pf, {p: choices[p].members for p in panels.PANELS}, seed=seed, n_boot=n_boot, level=LEVEL, dataset="MMLU-Pro"
)
surv_real = readings.survival(real)
canonical_table(real, surv_real, "readings_mmlu_pro")
glue_counts("readings_real", surv_real, joint_real, "external-data")
_ = table(
    pd.DataFrame([{"panel": LABEL[p], "members": ", ".join(choices[p].members)} for p in panels.PANELS]),
    "readings_mmlu_pro_members",
    caption="MMLU-Pro panel analogues (chapter 26's declared rule)",
)

# %% tags=["remove-input", "needs-external:mmlu-pro-calibration"]
curves(real, "MMLU-Pro")

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# - {glue:text}`readings_real_us_sentence`
# - {glue:text}`readings_real_cn_sentence`
# - {glue:text}`readings_real_xb_sentence`
#
# ## Every distinct result as a table
#
# The file below holds one row per distinct result of every panel on both data sets, under the first reading
# that gives it (always an item-bootstrap one): the reading's options, the member (under *per member*) and the
# member left out (under *each member*), whether the reading is canonical, the panel AUROC, the self AUROC of
# the same aggregation, the pooled self-AUROC and panel − self, each with its interval, the number of items
# and rows, the number of draws in which a statistic was undefined (left out of its interval), the reading's
# class (reasonable or bound) and its result's number; then how many comparisons give that result
# (`n_readings`) and the interval of panel − self of the same reading under the row and the member bootstrap.
# The readings that repeat a result are counted by pattern in the tables below; the full grid, one row per
# comparison with the reading each repeat follows (`same_result_as`), is printed by
# `selfconf panel FILES --members a,b,c --all-readings --json`.

# %% tags=["remove-input", "needs-external:mmlu-pro-calibration"]
every = pd.concat([rec, real], ignore_index=True)
distinct = readings.distinct_table(every)
distinct["panel"] = distinct["panel"].map(LABEL)
if in_book():
    distinct.to_csv(table_folder() / "every_reading.csv", index=False, float_format="%.6f", lineterminator="\n")
    show_markdown(
        "{download}`Download every distinct result as CSV ("
        + f"{len(distinct):,} rows for {len(every):,} comparisons"
        + ") <_static/tables/every_reading.csv>`"
    )
glue.value("readings_n_comparisons_all", len(every), origin="parameter")
_ = glue.value("readings_n_rows_csv", len(distinct), origin="parameter")


# %% tags=["remove-input", "needs-external:mmlu-pro-calibration"]
def driver_sentence(surv, where):
    """Which option values reverse the canonical direction most often, over the three panels (from the table)."""
    n_rev = sum(s["n_reversed"] for s in surv.values())
    n_all = sum(s["n_readings"] for s in surv.values())
    share = {}
    for k in next(iter(surv.values()))["reversal_share"]:
        num = sum(s["reversal_share"][k] * s["n_readings"] for s in surv.values())
        share[k] = num / n_all  # every option value is used by the same share of each panel's readings
    kept = [LABEL[p] for p, s in surv.items() if s["n_reversed"] == 0 and s["n_inconclusive"] == 0]
    text = f"On {where}, {n_rev:,} of {n_all:,} comparisons reverse the canonical direction of their panel"
    top = sorted(share.items(), key=lambda kv: -kv[1])[:3]
    if n_rev:
        text += "; the options under which the largest shares of readings reverse are " + ", ".join(
            f"{k} ({v:.0%} of the readings that use it)" for k, v in top
        )
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

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# ## What survives
#
# A conclusion *survives* a reading when that reading's interval for panel − self lies on the same side of zero
# as the canonical one; it is *reversed* when the interval lies entirely on the other side.
#
# {glue:text}`readings_rec_drivers`
#
# {glue:text}`readings_real_drivers`
#
# ## Counted honestly
#
# **Distinct results.** Many readings give exactly the same numbers: a binary signal (*any*, *majority*) gives
# the count's result whenever the count takes only two values on the rows; the cluster unit changes only the
# intervals, so every *row* or *member* bootstrap repeats the point values of the item bootstrap. A
# specification curve that counts each reading counts those numbers several times. Below, two comparisons give
# the same result when their member, panel AUROC, self AUROC, panel − self, items and rows agree to full float
# precision; the CSV names, for every repeat, the reading whose result it repeats (`same_result_as`), and
# `selfconf panel --all-readings --json` carries the same fields. The curves above draw each distinct result of
# the pre-registered panel once.
#
# **Reasonable readings and bounds.** The tallies keep the two classes apart: a bound that reverses the canonical
# direction says how far the result can be pushed, not that a defensible analysis disagrees.

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
tallies_table(rec, surv_rec, "readings_rec_tallies")
collapse_table(rec, "readings_rec_collapse")

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# On the reconstruction, the CN panel's {glue:text}`readings_rec_cn_n_comparisons:,.0f` comparisons give
# {glue:text}`readings_rec_cn_n_distinct:,.0f` distinct results; its conclusion is kept under
# {glue:text}`readings_rec_cn_n_reasonable_survive:,.0f` of {glue:text}`readings_rec_cn_n_reasonable:,.0f`
# reasonable readings and {glue:text}`readings_rec_cn_n_bound_survive:,.0f` of
# {glue:text}`readings_rec_cn_n_bound:,.0f` bounds. These are properties of the reconstructed rows.
#
# **The two resampling and panel dimensions.** The bootstrap's cluster unit (item, the paper's; row; member) and
# each member of the panel left out in turn:

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
dimension_table(rec, surv_rec, "readings_rec_dimensions")

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# **Joint test across specifications** (Simonsohn, Simmons & Nelson 2020). Is the share of specifications with
# the canonical sign, or their median panel − self, larger than it would be if no specification had an effect?
# The null is built from the panel's own item-clustered draws (the {glue:text}`readings_n_boot:,.0f` draws of
# the intervals above): each specification's draws are centred on zero by subtracting its estimate, which keeps
# the dependence between specifications that share items. The test uses the item-bootstrap specifications (the
# other cluster units repeat their estimates), over the reasonable ones and over all of them. The direction is
# the canonical specification's sign; it was not fixed before the data were seen, so every null draw takes it
# again from its own canonical value. p is one-sided in that direction and counts the observed data as one draw,
# so it cannot fall below 1 / (draws + 1).

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
joint_table(joint_rec, "readings_rec_joint")

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# On the CN panel of the reconstruction the share of reasonable specifications with the canonical sign is
# {glue:text}`readings_rec_cn_joint_reasonable_share:.3f` (p = {glue:text}`readings_rec_cn_joint_reasonable_p_share:.4f`)
# and their median panel − self {glue:text}`readings_rec_cn_joint_reasonable_median:+.3f`
# (p = {glue:text}`readings_rec_cn_joint_reasonable_p_median:.4f`). On the MMLU-Pro analogues:

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
tallies_table(real, surv_real, "readings_real_tallies")
dimension_table(real, surv_real, "readings_real_dimensions")
joint_table(joint_real, "readings_real_joint")

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# ## Sensitivities
#
# Three further checks a methods reviewer asks for, all on the reconstructed rows; every number below is a
# property of the reconstruction (nothing here is printed in the paper, except the counts shown beside their
# bootstrap distribution).
#
# **Count statements.** Result 1 states counts over the nine frontier models: how many have a self-AUROC below
# the descriptive cut-off [{glue:text}`r1_auroc_threshold`]{.quoted}, and how many have a median stated
# confidence inside the band of the saturated models. Resampling each model's rows
# ({glue:text}`readings_n_boot:,.0f` draws) gives each count a distribution. The statement that every model's
# interval excludes 0.5 is a count of intervals, whose distribution would need a bootstrap inside each draw; it is
# not resampled here.

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
r1_glued = glue.glued_in_notebook(resolve("book") / "04_result1.ipynb")  # Result 1's band (this build)
band = (float(r1_glued["r1_median_band_min"]), float(r1_glued["r1_median_band_max"]))
cut = glue.quoted("r1_auroc_threshold")
cc = sensitivity.count_claims(rows, auroc_cut=cut, band=band, seed=seed, n_boot=n_boot)
cdf = pd.DataFrame(
    [
        {
            "statement": f"models with self-AUROC below {cut}",
            "on the rows": cc["below"]["point"],
            "paper prints": "",
            "share of draws with that count": f"{cc['below']['p_point']:.1%}",
            "95% range over draws": "{}–{}".format(*cc["below"]["range95"]),
            "min–max": f"{cc['below']['min']}–{cc['below']['max']}",
        },
        {
            "statement": f"models with median confidence in {band[0]:.0f}–{band[1]:.0f}",
            "on the rows": cc["band"]["point"],
            "paper prints": "",
            "share of draws with that count": f"{cc['band']['p_point']:.1%}",
            "95% range over draws": "{}–{}".format(*cc["band"]["range95"]),
            "min–max": f"{cc['band']['min']}–{cc['band']['max']}",
        },
    ]
)
cdf.index = ["below", "band"]
table(
    cdf,
    "readings_count_claims",
    caption=f"Row-bootstrap distribution of Result 1's count statements (of {cc['n_models']} frontier models)",
    printed={
        ("below", "paper prints"): "r1_n_models_below_threshold",
        ("band", "paper prints"): "r1_n_models_median_in_band",
    },
)
for key in ("below", "band"):
    glue.value(f"readings_count_{key}_p", 100 * cc[key]["p_point"], origin=ROWS)
    glue.value(f"readings_count_{key}_lo", cc[key]["range95"][0], origin=ROWS)
    glue.value(f"readings_count_{key}_hi", cc[key]["range95"][1], origin=ROWS)

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# The count below the cut-off comes out as on the rows in {glue:text}`readings_count_below_p:.0f`% of draws
# (95% range {glue:text}`readings_count_below_lo`–{glue:text}`readings_count_below_hi`); the count of medians in
# the band in {glue:text}`readings_count_band_p:.0f`% (range {glue:text}`readings_count_band_lo`–{glue:text}`readings_count_band_hi`).
# A count near a threshold is fragile even when each model's value is estimated well.
#
# **Grader sensitivity.** {glue:text}`readings_grader_n_llm:,.0f` of the {glue:text}`readings_grader_n_rows:,.0f`
# graded frontier rows were graded by the LLM stage. Flipping a share of those verdicts at random
# ({glue:text}`readings_grader_n_draws` draws per share) moves each model's self-AUROC by at most the amounts
# below; the worst case scores every one of the {glue:text}`readings_grader_n_accepted:,.0f` answers the LLM stage
# accepted as wrong.

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
gs = sensitivity.grader_sensitivity(rows, seed=seed, n_draws=200, n_boot=n_boot)
glue.value("readings_grader_n_llm", gs.attrs["n_llm"], origin=ROWS)
glue.value("readings_grader_n_rows", gs.attrs["n_rows"], origin=ROWS)
glue.value("readings_grader_n_draws", gs.attrs["n_draws"], origin="parameter")
glue.value("readings_grader_n_accepted", gs.attrs["n_accepted"], origin=ROWS)
glue.value("readings_grader_max_change_1", float(gs[gs["share"] == "1%"]["max_abs_change"].max()), origin=ROWS)
glue.value("readings_grader_max_change_5", float(gs[gs["share"] == "5%"]["max_abs_change"].max()), origin=ROWS)
worst = gs[gs["share"] == "worst case"].sort_values("max_abs_change").iloc[-1]
glue.value("readings_grader_worst_model", str(worst["model"]), origin=ROWS)
glue.value("readings_grader_worst_from", float(worst["auroc"]), origin=ROWS)
glue.value("readings_grader_worst_to", float(worst["perturbed"]), origin=ROWS)
gview = gs.assign(
    interval=[f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(gs["low"], gs["high"], strict=True)],
)[["model", "share", "flipped", "auroc", "perturbed", "interval", "max_abs_change"]]
_ = table(
    gview.rename(
        columns={
            "share": "LLM verdicts flipped",
            "flipped": "rows changed",
            "auroc": "self-AUROC",
            "perturbed": "perturbed (mean over draws; worst case: value)",
            "interval": "2.5–97.5% over draws (worst case: row bootstrap)",
            "max_abs_change": "largest change",
        }
    ),
    "readings_grader_sensitivity",
    caption="Self-AUROC of each frontier model under perturbed LLM-stage verdicts",
    float_format="%.3f",
)

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# Flipping 1% of the LLM-stage verdicts changes no model's self-AUROC by more than
# {glue:text}`readings_grader_max_change_1:.3f` in any draw, 5% by at most
# {glue:text}`readings_grader_max_change_5:.3f`; in the worst case the largest change is
# {glue:text}`readings_grader_worst_model`'s, from {glue:text}`readings_grader_worst_from:.3f` to
# {glue:text}`readings_grader_worst_to:.3f`.
#
# **The moonshot first-party split.** The paper pre-defined a sensitivity split for the one model served partly
# through an aggregator. Below, moonshot's self-AUROC and the CN panel's panel − self on the items of each route.

# %% tags=["hide-input", "needs-external:mmlu-pro-calibration"]
fp = sensitivity.first_party_split(rows, seed=seed, n_boot=n_boot)
for _, r in fp.iterrows():
    glue.value(f"readings_split_{r['route']}_items", int(r["items"]), origin=ROWS)
    glue.value(f"readings_split_{r['route']}_self", float(r["self_auroc"]), origin=ROWS)
    glue.value(f"readings_split_{r['route']}_delta", float(r["delta"]), origin=ROWS)
_ = table(
    pd.DataFrame(
        {
            "route": fp["route"],
            "items": fp["items"],
            "moonshot self-AUROC": [
                f"{a:.3f} [{lo:.3f}, {hi:.3f}]" for a, lo, hi in fp[["self_auroc", "self_low", "self_high"]].to_numpy()
            ],
            "CN panel − self": [
                f"{a:+.3f} [{lo:+.3f}, {hi:+.3f}]".replace("-", "\u2212")
                for a, lo, hi in fp[["delta", "delta_low", "delta_high"]].to_numpy()
            ],
            "CN panel items": fp["panel_items"],
        }
    ),
    "readings_moonshot_split",
    caption=f"The moonshot first-party split ({LVL} intervals: row bootstrap for self, item-clustered for the panel)",
)

# %% [markdown] tags=["needs-external:mmlu-pro-calibration"]
# On the {glue:text}`readings_split_first_party_items:,.0f` first-party items moonshot's self-AUROC is
# {glue:text}`readings_split_first_party_self:.3f` and the CN panel's advantage {glue:text}`readings_split_first_party_delta:+.3f`;
# on the {glue:text}`readings_split_aggregator_items:,.0f` aggregator items {glue:text}`readings_split_aggregator_self:.3f` and
# {glue:text}`readings_split_aggregator_delta:+.3f`.
