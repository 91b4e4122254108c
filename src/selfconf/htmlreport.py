"""Self-contained, offline HTML page for ``selfconf report --html``.

The page holds the Table 1-style table, the exclusion counts, and two altair charts:

* a **reliability diagram** — per model and 10-bin confidence bin
  (:func:`selfconf.metrics.reliability_bins`), accuracy against mean stated confidence, with the
  diagonal of perfect calibration (Guo et al. 2017, Section 2);
* an **overconfidence scatter** — per model, mean stated confidence (y) against accuracy (x), as
  in the paper's Figure 1 orientation: points above the diagonal state more than they know (the
  paper's figure plots the median; the mean is shown here because CITL is defined on it, and the
  median is in the tooltip).

The Vega, Vega-Lite and vega-embed JavaScript is inlined from ``vl_convert.javascript_bundle``
(pip ``vl-convert-python``), matching the Vega-Lite version altair writes, so the file opens with
no network access: it references no external script, stylesheet or font.
"""

from __future__ import annotations

import html
import json
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from . import metrics

__all__ = ["reliability_frame", "reliability_chart", "overconfidence_chart", "build_html", "write_html"]


def reliability_frame(rows, n_bins: int = 10) -> pd.DataFrame:
    """Long frame of reliability bins per model (percent units) from validated rows."""
    parts = []
    for m, g in rows.frame.groupby("model", sort=False):
        rb = pd.DataFrame(metrics.reliability_bins(g["confidence"].to_numpy(float), g["correct"].to_numpy(), n_bins))
        rb = rb[rb["n"] > 0].copy()
        rb.insert(0, "model", m)
        parts.append(rb)
    df = pd.concat(parts, ignore_index=True)
    for c in ("lo", "hi", "mean_conf", "acc", "gap"):
        df[c] = 100 * df[c]
    df["bin"] = [f"{lo:.0f}–{hi:.0f}" for lo, hi in zip(df["lo"], df["hi"])]
    return df


def _diagonal():
    import altair as alt

    return (
        alt.Chart(pd.DataFrame({"x": [0, 100], "y": [0, 100]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="x:Q", y="y:Q")
    )


def reliability_chart(rel: pd.DataFrame):
    """Altair reliability diagram (accuracy vs mean confidence per bin, one line per model)."""
    import altair as alt

    scale = alt.Scale(domain=[0, 100])
    base = alt.Chart(rel).encode(
        x=alt.X("mean_conf:Q", scale=scale, title="mean stated confidence in bin"),
        y=alt.Y("acc:Q", scale=scale, title="accuracy in bin (%)"),
        color=alt.Color("model:N", title="model"),
        tooltip=["model:N", "bin:N", alt.Tooltip("n:Q", title="answers"),
                 alt.Tooltip("mean_conf:Q", format=".1f"), alt.Tooltip("acc:Q", format=".1f"),
                 alt.Tooltip("gap:Q", format="+.1f", title="gap (pp)")],
    )
    lines = base.mark_line(opacity=0.6)
    pts = base.mark_circle().encode(size=alt.Size("n:Q", title="answers in bin"))
    return (_diagonal() + lines + pts).properties(
        width=420, height=380, title="Reliability diagram (10 equal-width bins)"
    )


def overconfidence_chart(tab: pd.DataFrame):
    """Altair scatter of mean stated confidence (y) against accuracy (x), one point per model."""
    import altair as alt

    df = tab[tab["n"] > 0][["model", "n", "accuracy", "mean_confidence", "median_confidence", "citl", "auroc"]].copy()
    for c in ("accuracy", "mean_confidence", "median_confidence", "citl"):
        df[c] = 100 * df[c]
    scale = alt.Scale(domain=[0, 100])
    pts = (
        alt.Chart(df)
        .mark_circle(size=120)
        .encode(
            x=alt.X("accuracy:Q", scale=scale, title="accuracy (%)"),
            y=alt.Y("mean_confidence:Q", scale=scale, title="mean stated confidence (0–100)"),
            color=alt.Color("model:N", legend=None),
            tooltip=["model:N", "n:Q", alt.Tooltip("accuracy:Q", format=".1f"),
                     alt.Tooltip("mean_confidence:Q", format=".1f"), alt.Tooltip("median_confidence:Q", format=".1f"),
                     alt.Tooltip("citl:Q", format="+.1f", title="CITL (pp)"), alt.Tooltip("auroc:Q", format=".3f")],
        )
    )
    labels = pts.mark_text(align="left", dx=8, fontSize=11).encode(text="model:N")
    return (_diagonal() + pts + labels).properties(
        width=420, height=380, title="Overconfidence: points above the diagonal state more than they know"
    )


@lru_cache(maxsize=2)
def _js_bundle(vl_version: str) -> str:
    import vl_convert

    return vl_convert.javascript_bundle(vl_version=vl_version)


def _vl_version() -> str:
    import altair as alt

    return ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def build_html(tab: pd.DataFrame, rows, *, seed: int, n_boot: int) -> str:
    """Return the complete HTML document (string) of the report."""
    from .report import table_rows

    head, body = table_rows(tab)
    rel = reliability_frame(rows)
    specs = {
        "reliability": reliability_chart(rel).to_dict(),
        "overconfidence": overconfidence_chart(tab).to_dict(),
    }
    esc = html.escape
    thead = "".join(f"<th>{esc(h)}</th>" for h in head)
    tbody = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in body)
    excl = [
        f"<li>{esc(m)}: {v} without a stated confidence</li>" for m, v in rows.missing_confidence.items()
    ] + [f"<li>{esc(m)}: {v} ungraded (no correct/incorrect label)</li>" for m, v in rows.missing_correct.items()]
    excl_html = (
        f"<p><strong>Rows excluded: {rows.n_excluded}</strong> of {rows.rows_read} read.</p>"
        + (f"<ul>{''.join(excl)}</ul>" if excl else "")
    )
    inputs = ", ".join(f"<code>{esc(p)}</code>" for p in rows.inputs)
    # "</" inside a <script> would end it early; JSON allows the escaped form.
    spec_json = json.dumps(specs).replace("</", "<\\/")
    js = _js_bundle(_vl_version()).replace("</script", "<\\/script")
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>selfconf report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-size: 0.9em; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 0.3em 0.6em; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
.charts {{ display: flex; flex-wrap: wrap; gap: 2em; margin-top: 1.5em; }}
.note {{ color: #555; font-size: 0.85em; }}
</style>
<script type="text/javascript">{js}</script>
</head>
<body>
<h1>Stated-confidence report</h1>
<p class="note">inputs: {inputs} · confidence scale: {esc(rows.scale)} · AUROC CI: row-level percentile bootstrap,
{n_boot:,} draws, seed {seed} · generated {stamp} by <code>selfconf report</code></p>
<table id="table1"><thead><tr>{thead}</tr></thead><tbody>{tbody}</tbody></table>
<p class="note">Accuracy, confidence and error rates in percent; CITL (mean confidence − accuracy) in percentage points;
Brier, 10-bin ECE and AUROC on the 0–1 scale. err@conf≥80: share wrong among answers stated at ≥ 80.
risk@c: error rate among the c most confident answers (ties broken by input order).</p>
{excl_html}
<div class="charts"><div id="reliability"></div><div id="overconfidence"></div></div>
<script type="text/javascript">
const specs = {spec_json};
for (const [id, spec] of Object.entries(specs)) {{
  vegaEmbed("#" + id, spec, {{renderer: "svg", actions: false}}).catch(err => {{
    document.getElementById(id).textContent = "chart failed to render: " + err;
  }});
}}
</script>
</body>
</html>
"""


def write_html(path: str | Path, tab: pd.DataFrame, rows, *, seed: int, n_boot: int) -> Path:
    """Write :func:`build_html` to ``path`` (parent folders created); return the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(build_html(tab, rows, seed=seed, n_boot=n_boot), encoding="utf-8")
    return p
