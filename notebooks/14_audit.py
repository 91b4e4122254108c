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
# # Reproduction audit
#
# Every number the paper prints has an id in the claim manifest (`data/paper/claims.yaml`). Each
# section's notebook computes its numbers from rows and glues them under those ids; this page reads
# every glued value back from the executed notebooks and holds it against the printed value.
#
# The rules:
#
# - **deterministic** and **derived** numbers must show the printed digits when formatted with the
#   printed number of decimals — the same formatting the reader sees;
# - **bootstrap** numbers (interval endpoints, bootstrap p-values) must fall within half a printed unit
#   plus three Monte-Carlo standard errors of a 2,000-draw bootstrap;
# - **external** numbers have no row-level source anywhere; they are quoted from
#   `data/paper/quoted_facts.yaml`, never computed, and marked *quoted* wherever they appear;
# - a number in a section that has not been built yet is **pending**.
#
# The same records are written to `_build/audit.json`.

# %% tags=["parameters"]
seed = 0  # unused by the audit itself; kept so every notebook takes the same parameters
n_boot = 2000
data_dir = "data/reconstructed"
book_dir = "book"
audit_json = "_build/audit.json"

# %% tags=["remove-input"]
import pandas as pd

from selfconf import audit, glue
from selfconf.book import show_markdown, table

records = audit.run_audit(book_dir)
path = audit.write_audit_json(records, audit_json)
summary = audit.summarise(records)
show_markdown(
    f'<p class="selfconf-provenance">audit of the notebooks in <code>{book_dir}/</code> · data: <code>{data_dir}</code>'
    f" · parameters of this page: seed {seed}, bootstrap draws {n_boot:,} (the audit itself draws nothing)</p>"
)
for status, n in summary["by_status"].items():
    glue.value(f"audit_n_{status}", n)
glue.value("audit_n_claims", summary["n_claims"])
glue.value("audit_n_failing", summary["n_failing"])

# %% [markdown]
# ## Summary
#
# The manifest holds {glue:text}`audit_n_claims` printed numbers; {glue:text}`audit_n_failing` of them
# currently fail (a mismatch, a bootstrap value outside its tolerance, or a claim of a built section that
# no notebook glued).

# %% tags=["remove-input"]
counts = pd.DataFrame(summary["by_kind"]).fillna(0).astype(int).T
counts.index.name = "kind"
table(counts.reset_index(), "audit_counts", caption="Claims by kind and status")

# %% [markdown]
# ## Every claim
#
# `printed` is the token in the paper; `recomputed` is the unrounded value glued by the notebook named in
# `detail`.

# %% tags=["remove-input"]
df = pd.DataFrame([r.__dict__ for r in records])
df["recomputed"] = df["recomputed"].map(lambda v: "" if v is None else repr(v))
df["tolerance"] = df["tolerance"].map(lambda v: "" if v is None or pd.isna(v) else f"{v:.4f}")
table(df[["id", "section", "kind", "printed", "recomputed", "status", "tolerance", "same_as", "detail"]],
      "audit", caption="Audit records (also in _build/audit.json)")
