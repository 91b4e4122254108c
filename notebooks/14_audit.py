# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Audit: every recomputed number against the paper's print
#
# Every number the paper prints has an id in the claim manifest (`data/paper/claims.yaml`). Each
# section's notebook computes its numbers from rows and glues them under those ids; this page reads
# every glued value back from the executed notebooks and holds it against the printed value, by the
# book's one judging rule (`selfconf.claims.judging`). The box below says what that comparison can and cannot
# show for the rows this build used.
#
# The rules the audit applies are listed in the table below; the table is generated from the code that
# applies them (`selfconf.claims.judging.rules`), so it lists every rule and no other.
#
# On every page, a number that does not print as the paper prints carries a dotted underline and a small
# "≠ paper" mark; hovering or focusing it shows this page's record. The same records are written to
# `_build/audit.json`.

# %% tags=["parameters", "hide-cell"] mystnb={"code_prompt_show": "Parameters of this build", "code_prompt_hide": "Hide the parameters of this build"}
seed = 0  # unused by the audit itself; kept so every notebook takes the same parameters
n_boot = 2000
data_dir = "data/reconstructed"
book_dir = "book"
audit_json = "_build/audit.json"

# %% tags=["remove-input"]
import pandas as pd

from selfconf.book import audit, glue, seedstudy, show_markdown, table
from selfconf.claims import judging
from selfconf.data.paths import resolve

data_path = resolve(data_dir)  # the fidelity files of the reconstruction live here (none in the original data)
res = audit.audit_book(book_dir, data_path, run_study=True)  # the seed study: computed once, then cached
records, notes, why = res.records, res.notes, res.explanations
if res.study is not None:
    seedstudy.write_study(res.study)
path = audit.write_audit_json(
    records, audit_json, explanations=why, notes=notes, data_source=res.data_source, section_sources=res.section_sources
)
summary = audit.summarise(records)
TITLES = {
    "reconstruction": ("What this audit shows with reconstructed rows", "warning"),
    "original": ("A reproduction audit", "note"),
    "mixed": ("Partly a reproduction audit", "warning"),
}
title, klass = TITLES[res.data_source]
show_markdown(
    f":::{{admonition}} {title}\n:class: {klass}\n"
    + audit.WHAT_A_MATCH_SHOWS[res.data_source]
    + ("" if res.data_source == "original" else " See {ref}`what a reconstruction cannot tell you <recon-limits>`.")
    + "\n:::"
)
show_markdown(
    f'<p class="selfconf-provenance">audit of the notebooks in <code>{book_dir}/</code> · data: <code>{data_dir}</code>'
    f" · parameters of this page: seed {seed}, bootstrap draws {n_boot:,} (the audit itself draws nothing)</p>"
)
table(
    pd.DataFrame(judging.rules()),
    "audit_rules",
    caption="Every rule the audit applies (generated from selfconf.claims.judging)",
)
for status, n in summary["by_status"].items():
    glue.value(f"audit_n_{status}", n, origin="build")
glue.value("audit_n_claims", summary["n_claims"], origin="build")
glue.value("audit_n_boot_paper", audit.N_BOOT_PAPER, origin="parameter")
glue.value("audit_n_failing", summary["n_failing"], origin="build")
verdict_counts = {code: sum(e.verdict_code == code for e in why) for code in audit.VERDICTS}
for code, n in verdict_counts.items():
    glue.value(f"audit_why_n_{code}", int(n), origin="build")
glue.value("audit_why_n_rows", len(why), origin="build")
glue.value("audit_n_fidelity_files", len(notes.files), origin="build")
glue.value("audit_n_known_conflicts", len(notes.known_conflicts), origin="build")
_ = glue.value("audit_n_ideal_values", len(notes.ideal_bootstrap), origin="build")

# %% [markdown]
# ## Where each section's numbers came from
#
# Each data family is read whole from one source: the folder the build was pointed at when it holds the
# family, the shipped reconstruction otherwise.

# %% tags=["remove-input"]
src_rows = [
    {"section": sec, "data family": fam, "source": ("original package" if how == "original" else "reconstruction")}
    for sec, fams in res.section_sources.items()
    for fam, how in fams.items()
]
if src_rows:
    table(pd.DataFrame(src_rows), "audit_sources", caption="Source of each data family, per section of the paper")

# %% [markdown]
# ## Summary

# %% tags=["remove-input"]
_ = glue.value("audit_summary", " ".join(audit.summary_sentences(records, why)), origin="build")

# %% [markdown]
# {glue:text}`audit_summary`

# %% tags=["remove-input"]
counts = pd.DataFrame(summary["by_kind"]).fillna(0).astype(int).T
counts.index.name = "kind"
table(counts.reset_index(), "audit_counts", caption="Claims by kind and status")

# %% [markdown]
# ## Why some numbers differ
#
# A number on the list below can miss for different reasons, and each one is read differently.
#
# - **The published numbers contradict each other.** Some printed numbers cannot all come out of one
#   data set under a stated convention (a rounding rule, an interval narrower than the table around it
#   allows). The page says so only when a generator has proved a bound — the value nearest the print that any
#   data consistent with the other published numbers can give — and that bound lies further from the print
#   than the tolerance; the arithmetic is in the *evidence* column.
# - **The reconstruction misses, but a closer data set exists.** When the ideal value is outside the
#   tolerance but a proven bound lies inside it, the published numbers are compatible with each other and
#   the reconstruction, not the paper, falls short; the note says how a closer data set was looked for.
# - **The seed was unlucky.** An interval end point or a bootstrap p-value moves with the random draws.
#   Where a generator recomputed the number from the same rows with far more draws (its *ideal* value)
#   and that value lies inside the tolerance by more than twice the ideal value's own Monte-Carlo error,
#   the rows do give the printed number; this page's draws just landed outside. A derived number (a
#   Holm-adjusted p) takes the ideal values of its inputs through its derivation.
# - **Unexplained.** An unlucky draw is an ordinary draw: the page's value must also sit within
#   {glue:text}`audit_plausible_z` seed SDs of the mean of its own seed distribution (the seed study below).
#   When the ideal value is inside the tolerance but the page's value lies further out, luck does not explain
#   it and the page says *unexplained*.
# - **Undetermined.** When the ideal value lies within twice its own Monte-Carlo error of the tolerance's
#   edge (inside or outside), the notes cannot tell a seed's luck from the rows; the page says so.
# - **The rows themselves miss.** When the ideal value is outside the tolerance too, the reconstructed
#   rows spread differently from the paper's, and no seed would fix that.
# - Anything the generators said nothing about is marked *no reconstruction note*.
#
# Failing numbers today: {glue:text}`audit_why_n_rows`. What the notes say about them:
#
# - conflict among published numbers (a bound excludes the print): {glue:text}`audit_why_n_conflict`;
# - the reconstruction misses, a closer data set exists: {glue:text}`audit_why_n_closer_exists`;
# - unlucky draw (the ideal value is inside the tolerance by more than twice its error): {glue:text}`audit_why_n_unlucky`;
# - undetermined (the ideal value is within twice its error of the tolerance's edge): {glue:text}`audit_why_n_undetermined`;
# - unexplained (the ideal value is inside, but this page's value is implausible under its own seed distribution):
#   {glue:text}`audit_why_n_unexplained`;
# - the ideal value is itself off: {glue:text}`audit_why_n_ideal_off`;
# - no reconstruction note: {glue:text}`audit_why_n_none`.
#
# The notes come from the fidelity files in the data folder (files found:
# {glue:text}`audit_n_fidelity_files`; known conflicts recorded: {glue:text}`audit_n_known_conflicts`;
# ideal values recorded: {glue:text}`audit_n_ideal_values`).
# A repeated printing of a number (`same_as` in the manifest) shares the note of the number it repeats.


# %% tags=["remove-input"]
def _num(v):
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return ""
    return f"{v:.4f}" if isinstance(v, float) else str(v)


def _sig(v):
    return "" if v is None else f"{v:+.2g}"


if not notes.files:
    show_markdown(
        f"No reconstruction notes are available: `{data_dir}` holds no fidelity file. The original paper "
        "data ship none, so a failing number below can only be listed, not explained."
    )
if why:
    why_df = pd.DataFrame(
        [
            {
                "id": e.id,
                "section": e.section,
                "kind": e.kind,
                "status": e.status,
                "printed": e.printed,
                "recomputed": _num(e.recomputed),
                "tolerance": _num(e.tolerance),
                "ideal": _num(e.ideal),
                "ideal's MC error": _sig(e.ideal_mc_error).lstrip("+"),
                "margin to tolerance": _sig(e.ideal_margin),
                "ideal draws": " × ".join(
                    f"{v:,} {n}" for v, n in ((e.ideal_n_boot, "draws"), (e.ideal_seeds, "seeds")) if v
                ),
                "verdict": e.verdict,
                "note under": e.note_id or "",
                "reason": e.reason,
                "evidence": audit.format_evidence(e.evidence),
            }
            for e in why
        ]
    )
    table(why_df, "audit_why", caption="Failing numbers and what the reconstruction's notes say about them")
else:
    show_markdown("No number fails the audit, so there is nothing to explain.")

# %% [markdown]
# ## Monte-Carlo errors, measured
#
# Every bootstrap number's tolerance rests on its Monte-Carlo error, taken from the quantity's definition: a
# two-sided bootstrap p-value has SE sqrt(p(2-p)/B); an interval end point (the q quantile of B draws) has
# sqrt(q(1-q)/B)/f(x_q), with f the bootstrap density at the end point, measured from the pooled draws; a derived
# number (a Holm-adjusted p) takes its inputs' errors through its derivation. Each section function that computes
# a bootstrap number was run again at {glue:text}`audit_seed_k` other seeds (from the book's one seed stream) with
# the page's rows and draws: the table compares the definition with the SD of those values, and places this
# page's value in its own seed distribution (z, and the share of seeds at or below it). Across the
# {glue:text}`audit_seed_n_claims` bootstrap numbers the ratio of the definition's error to the seeds' SD runs
# from {glue:text}`audit_seed_ratio_min` to {glue:text}`audit_seed_ratio_max`; {glue:text}`audit_seed_n_implausible`
# page value(s) lie more than {glue:text}`audit_plausible_z` SDs from their seeds' mean.

# %% tags=["remove-input"]
if res.study is None:
    show_markdown("No seed study is available for this build.")
else:
    sp = sorted(res.study.spreads.values(), key=lambda s: (s.section, s.id))
    ratios = [s.ratio for s in sp if s.ratio is not None]
    glue.value("audit_seed_k", res.study.k, origin="parameter")
    glue.value("audit_seed_n_claims", len(sp), origin="build")
    glue.value("audit_seed_ratio_min", round(min(ratios), 2), origin="build")
    glue.value("audit_seed_ratio_max", round(max(ratios), 2), origin="build")
    glue.value(
        "audit_seed_n_implausible", sum(s.z is not None and abs(s.z) > judging.PLAUSIBLE_Z for s in sp), origin="build"
    )
    table(
        pd.DataFrame(
            [
                {
                    "id": s.id,
                    "section": s.section,
                    "page value": f"{s.page_value:.4f}",
                    "seeds' mean": f"{s.mean:.4f}",
                    "seeds' SD": f"{s.sd:.5f}",
                    "MC error (definition)": "" if s.mc_error is None else f"{s.mc_error:.5f}",
                    "ratio": "" if s.ratio is None else f"{s.ratio:.2f}",
                    "page z": "" if s.z is None else f"{s.z:+.1f}",
                    "page quantile": f"{s.quantile:.3f}",
                    "how the error is computed": s.rule,
                }
                for s in sp
            ]
        ),
        "audit_seed_study",
        caption="Every bootstrap number: its Monte-Carlo error from the definition against the SD over the seeds, "
        "and this page's value in its seed distribution (also in _build/seed_study.json)",
    )
_ = glue.value("audit_plausible_z", judging.PLAUSIBLE_Z, origin="parameter")

# %% [markdown]
# ### Known conflicts between published numbers
#
# Every conflict recorded in the fidelity files, in full, including those whose numbers pass today
# (usually because the book adopts the convention under which they hold; the reason says which). The
# `status` column gives each claim's current audit status.

# %% tags=["remove-input"]
if notes.known_conflicts:
    table(
        pd.DataFrame(audit.conflict_rows(notes, records)),
        "audit_known_conflicts",
        caption="Known conflicts recorded by the reconstruction generators",
    )
else:
    show_markdown(f"No known conflicts are recorded for `{data_dir}`.")

# %% [markdown]
# ## Every claim
#
# `printed` is the token in the paper; `recomputed` is the unrounded value glued by the notebook named in
# `detail`; `why` repeats the verdict of the section above for a failing number.

# %% tags=["remove-input"]
df = pd.DataFrame([r.__dict__ for r in records])
df["recomputed"] = df["recomputed"].map(
    lambda v: "" if v is None else (str(int(v)) if isinstance(v, float) and v.is_integer() else repr(v))
)
df["same_as"] = df["same_as"].map(lambda v: "" if v is None or (isinstance(v, float) and pd.isna(v)) else v)
df["tolerance"] = df["tolerance"].map(lambda v: "" if v is None or pd.isna(v) else f"{v:.4f}")
df["seed z"] = df["seed_z"].map(lambda v: "" if v is None or pd.isna(v) else f"{v:+.1f}")
# a record that crosses its threshold also says, in its tolerance cell, what the tolerance alone would give
# (one column fewer: the records table fits a 1280 px desk)
df["tolerance"] = [
    f"{tol} ({(t or '').replace('_', ' ')} by the tolerance alone)" if s == "crosses_threshold" else tol
    for tol, s, t in zip(df["tolerance"], df["status"], df["tolerance_status"], strict=True)
]
df["why"] = df["id"].map({e.id: e.verdict for e in why}).fillna("")
df["pages"] = df["pages"].map(lambda v: ", ".join(v) if isinstance(v, list) else "")
df["source"] = df["source"].map(lambda v: v or "")
shown_cols = [
    "id",
    "section",
    "kind",
    "printed",
    "recomputed",
    "status",
    "tolerance",
    "seed z",
    "why",
    "source",
    "same_as",
    "pages",
    "detail",
]
table(
    df[shown_cols],
    "audit",
    caption="Audit records (also in _build/audit.json)",
    anchors={(i, "id"): f"claim-{cid}" for i, cid in enumerate(df["id"])},
)
