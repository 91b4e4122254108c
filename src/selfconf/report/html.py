"""Self-contained, offline HTML page for ``selfconf report --html``.

The page holds the headline table (in its own scrolling box with a sticky header, so a wide table
never makes the page scroll sideways; a model with more than 5% of its rows excluded carries a
visible warning beside its accuracy), the intervals table, the conventions, and three altair charts:

* **reliability** per model: the smooth-ECE curve (Błasiok & Nakkiran 2023) with its 95%
  bootstrap band and the binned points sized by their counts, as small multiples up to
  :data:`FACET_MAX` models and as one panel with a model selector beyond that;
* **risk–coverage** curves (expected over tie orders), with the same selector rule;
* an **overconfidence scatter** — mean stated confidence (y) against accuracy (x), one point per
  model (Figure 1 orientation of the paper), labelled up to :data:`FACET_MAX` models.

The Vega, Vega-Lite and vega-embed JavaScript is inlined from ``vl_convert.javascript_bundle``
(pip ``vl-convert-python``), matching the Vega-Lite version altair writes, so the file opens with
no network access: it references no external script, stylesheet or font.  The page carries no
timestamp, so the same data give the same bytes.
"""

from __future__ import annotations

import html
import json
from functools import lru_cache
from pathlib import Path

import pandas as pd

from selfconf.report.core import (
    METRICS,
    TIE_NOTE,
    conventions,
    flagged_intervals,
    interval_rows,
    n_flagged_units,
    recal_notes,
    recal_rows,
    table_rows,
    tie_ranges_shown,
)

__all__ = [
    "reliability_frame",
    "reliability_chart",
    "overconfidence_chart",
    "risk_coverage_chart",
    "build_html",
    "write_html",
    "FACET_MAX",
    "CURVE_POINTS",
    "curve_points",
    "PAGE_CSS",
]

#: Up to this many models the reliability diagrams are small multiples; above it, one diagram
#: with a model selector (a tangle of 50 lines reads as nothing).
FACET_MAX = 12
#: Below this window width (CSS px) the charts are redrawn to fit it (one small multiple per row).
NARROW_PX = 700
#: Most points drawn per model on the risk–coverage curve: a longer curve (one point per distinct
#: confidence, e.g. token probabilities) is evaluated at this many evenly spaced coverages.
CURVE_POINTS = 101


#: The page's stylesheet (shared by ``selfconf compare --html``).
PAGE_CSS = """html, body { max-width: 100%; overflow-x: hidden; }
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; box-sizing: border-box; }
@media (max-width: 700px) { body { margin: 1em; } h1 { font-size: 1.4em; } .charts { gap: 1em; } }
.table-box { max-width: 100%; max-height: 70vh; overflow: auto; border: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; }
thead th { position: sticky; top: 0; background: #f4f4f4; z-index: 1; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.6em; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; position: sticky; left: 0; background: #fff; }
thead th:first-child { background: #f4f4f4; z-index: 2; }
td.warn { background: #fff3cd; color: #7a4b00; font-weight: 600; }
td.flag { color: #8a1c1c; }
.charts { display: flex; flex-wrap: wrap; gap: 2em; margin-top: 1.5em; max-width: 100%; }
.chart { max-width: 100%; overflow-x: auto; }
.note { color: #555; font-size: 0.85em; }
"""


def curve_points(coverage, risk, max_points: int = CURVE_POINTS) -> tuple[list[float], list[float]]:
    """A risk–coverage curve with at most ``max_points`` points, exact at each point it keeps.

    Definition: the input points are the ends of the tie groups (:func:`selfconf.metrics.risk_coverage_curve`);
    inside a tie group the expected number of errors is linear in the rows covered, so the expected risk at
    any coverage g is ``E(g) / g`` with ``E`` interpolated linearly between the group ends (and 0 at 0).
    A curve with more points than ``max_points`` is evaluated at ``max_points`` coverages evenly spaced from
    its first point to 1; a shorter one is returned unchanged.

    Reference: Geifman & El-Yaniv (2017), selective risk.

    Examples
    --------
    >>> curve_points([0.5, 1.0], [0.0, 0.5])
    ([0.5, 1.0], [0.0, 0.5])
    >>> cov, rk = curve_points([0.25, 0.5, 0.75, 1.0], [0.0, 0.0, 1 / 3, 0.5], max_points=3)
    >>> [round(x, 4) for x in cov], [round(x, 4) for x in rk]
    ([0.25, 0.625, 1.0], [0.0, 0.2, 0.5])
    """
    import numpy as np

    cov = np.asarray(coverage, float)
    rk = np.asarray(risk, float)
    if cov.size <= max_points:
        return cov.tolist(), rk.tolist()
    errors = np.concatenate([[0.0], cov * rk])  # errors per row of the whole unit, at each group end
    grid = np.linspace(cov[0], 1.0, max_points)
    e = np.interp(grid, np.concatenate([[0.0], cov]), errors)
    return grid.tolist(), (e / grid).tolist()


def _no_row_limit():
    """altair's 5,000-row guard off while a page is built: every chart here is already a bounded summary
    (bins, a 51-point smooth grid, at most :data:`CURVE_POINTS` points per curve, one point per model)."""
    import altair as alt

    return alt.data_transformers.enable("default", max_rows=None)


def reliability_frame(tab: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Long frames (percent units) of the binned reliability points and of the smooth curve with its band."""
    pts, curve = [], []
    for r in tab.to_dict("records"):
        if r["group"] is not None or not r["n"]:
            continue
        rel, sm = r["reliability"], r["smooth_reliability"]
        for lo, hi, n, c, a in zip(rel["lo"], rel["hi"], rel["n"], rel["mean_conf"], rel["acc"], strict=False):
            pts.append(
                {
                    "model": r["model"],
                    "bin": f"{100 * lo:.0f}–{100 * hi:.0f}",
                    "n": n,
                    "mean_conf": 100 * c,
                    "acc": 100 * a,
                }
            )
        for t, a, lo, hi, d in zip(sm["t"], sm["accuracy"], sm["low"], sm["high"], sm["density"], strict=False):
            if d is None or d < 1e-3:  # no data near t: the smoothed accuracy is not informative there
                continue
            curve.append(
                {
                    "model": r["model"],
                    "t": 100 * t,
                    "acc": None if a is None else 100 * a,
                    "low": None if lo is None else 100 * lo,
                    "high": None if hi is None else 100 * hi,
                }
            )
    return pd.DataFrame(pts), pd.DataFrame(curve)


def _diagonal():
    import altair as alt

    return (
        alt.Chart(pd.DataFrame({"x": [0, 100], "y": [0, 100]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="x:Q", y="y:Q")
    )


def _model_selector(models: list[str]):
    import altair as alt

    return alt.param(name="model_pick", value=models[0], bind=alt.binding_select(options=models, name="model "))


def reliability_chart(pts: pd.DataFrame, curve: pd.DataFrame, models: list[str], *, ece_note: str):
    """Per-model reliability: smooth curve with its bootstrap band, bin points sized by count.

    Small multiples up to :data:`FACET_MAX` models, otherwise one panel with a model selector.
    """
    import altair as alt

    scale = alt.Scale(domain=[0, 100])
    x = alt.X("t:Q", scale=scale, title="stated confidence")
    band = (
        alt.Chart(curve)
        .mark_area(opacity=0.25, color="#4c78a8")
        .encode(x=x, y=alt.Y("low:Q", scale=scale, title="accuracy (%)"), y2="high:Q")
    )
    line = alt.Chart(curve).mark_line(color="#4c78a8").encode(x=x, y=alt.Y("acc:Q", scale=scale))
    dots = (
        alt.Chart(pts)
        .mark_circle(color="#e45756", opacity=0.8)
        .encode(
            x=alt.X("mean_conf:Q", scale=scale),
            y=alt.Y("acc:Q", scale=scale),
            size=alt.Size("n:Q", title="answers in bin"),
            tooltip=[
                "model:N",
                "bin:N",
                alt.Tooltip("n:Q", title="answers"),
                alt.Tooltip("mean_conf:Q", format=".1f"),
                alt.Tooltip("acc:Q", format=".1f"),
            ],
        )
    )
    diag = (
        alt.Chart(pd.DataFrame({"t": [0, 100], "acc": [0, 100]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="t:Q", y="acc:Q")
    )
    title = f"Reliability: smooth curve with 95% bootstrap band; dots = {ece_note} (size = answers)"
    if len(models) <= FACET_MAX:
        return _facet(diag, band, line, dots, title)
    pick = _model_selector(models)
    flt = alt.datum.model == pick
    return (
        alt.layer(diag, band.transform_filter(flt), line.transform_filter(flt), dots.transform_filter(flt))
        .add_params(pick)
        .properties(width=420, height=360, title=title)
    )


def _facet(diag, band, line, dots, title):
    """Small multiples via a concatenation per model (layers with different data cannot be faceted)."""
    import altair as alt

    models = sorted(set(band.data["model"]) | set(dots.data["model"]))
    panels = []
    for m in models:
        flt = alt.datum.model == m
        panels.append(
            alt.layer(
                diag, band.transform_filter(flt), line.transform_filter(flt), dots.transform_filter(flt)
            ).properties(width=220, height=190, title=m)
        )
    return alt.concat(*panels, columns=4).properties(title=title)


def risk_coverage_chart(tab: pd.DataFrame, models: list[str]):
    """Risk–coverage curves (expected over tie orders); a selector above :data:`FACET_MAX` models."""
    import altair as alt

    rows = []
    for r in tab.to_dict("records"):
        if r["group"] is not None or not r["n"]:
            continue
        c = r["risk_coverage_curve"]
        rows += [
            {"model": r["model"], "coverage": 100 * cv, "risk": 100 * rk}
            for cv, rk in zip(*curve_points(c["coverage"], c["risk"]), strict=False)
        ]
    base = (
        alt.Chart(pd.DataFrame(rows))
        .mark_line(point=len(rows) < 400)
        .encode(
            x=alt.X("coverage:Q", title="coverage (%)", scale=alt.Scale(domain=[0, 100])),
            y=alt.Y("risk:Q", title="error rate among covered (%)"),
            tooltip=["model:N", alt.Tooltip("coverage:Q", format=".1f"), alt.Tooltip("risk:Q", format=".1f")],
        )
    )
    if len(models) <= FACET_MAX:
        ch = base.encode(color=alt.Color("model:N"))
    else:
        pick = _model_selector(models)
        ch = base.transform_filter(alt.datum.model == pick).add_params(pick)
    return ch.properties(width=420, height=300, title="Risk–coverage (answer only the most confident)")


def overconfidence_chart(tab: pd.DataFrame):
    """Mean stated confidence (y) against accuracy (x), one point per model (labels up to FACET_MAX models)."""
    import altair as alt

    df = tab[(tab["n"] > 0) & tab["group"].isna()][
        ["model", "n", "accuracy", "mean_confidence", "median_confidence", "citl", "auroc"]
    ].copy()
    for c in ("accuracy", "mean_confidence", "median_confidence", "citl"):
        df[c] = 100 * df[c].astype(float)
    scale = alt.Scale(domain=[0, 100])
    pts = (
        alt.Chart(df)
        .mark_circle(size=90)
        .encode(
            x=alt.X("accuracy:Q", scale=scale, title="accuracy (%)"),
            y=alt.Y("mean_confidence:Q", scale=scale, title="mean stated confidence (0–100)"),
            color=alt.Color("model:N", legend=None),
            tooltip=[
                "model:N",
                "n:Q",
                alt.Tooltip("accuracy:Q", format=".1f"),
                alt.Tooltip("mean_confidence:Q", format=".1f"),
                alt.Tooltip("median_confidence:Q", format=".1f"),
                alt.Tooltip("citl:Q", format="+.1f", title="CITL (pp)"),
                alt.Tooltip("auroc:Q", format=".3f"),
            ],
        )
    )
    layers = [_diagonal(), pts]
    if len(df) <= FACET_MAX:
        layers.append(pts.mark_text(align="left", dx=8, fontSize=11).encode(text="model:N"))
    return alt.layer(*layers).properties(
        width=420, height=380, title="Overconfidence: points above the diagonal state more than they know"
    )


@lru_cache(maxsize=2)
def _js_bundle(vl_version: str) -> str:
    import vl_convert

    # vl_convert's stub marks `snippet` as required; at run time it defaults to None (the whole bundle)
    return vl_convert.javascript_bundle(vl_version=vl_version)  # type: ignore[call-arg]


def _vl_version() -> str:
    import altair as alt

    return ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def build_html(tab: pd.DataFrame) -> str:
    """Return the complete HTML document (string) of the report; no timestamp, so the same data
    give the same bytes."""

    a = tab.attrs
    esc = html.escape
    models = [r["model"] for r in tab.to_dict("records") if r["group"] is None and r["n"]]
    pts, curve = reliability_frame(tab)
    ece_note = f"{a['ece_bins']} {a['ece_binning'].replace('_', '-')} bins"
    with _no_row_limit():
        specs = {"overconfidence": overconfidence_chart(tab).to_dict()}
        if models:
            specs["reliability"] = reliability_chart(pts, curve, models, ece_note=ece_note).to_dict()
            specs["riskcoverage"] = risk_coverage_chart(tab, models).to_dict()
    head, body = table_rows(tab)
    recs = tab.to_dict("records")
    acc_col = head.index("acc %")
    # headline columns holding an interval: the column after a metric with headline_interval
    ci_cols: dict[int, str] = {}
    j = 1 + (1 if a.get("by") else 0) + 1  # model, [group], n
    for m in METRICS:
        if not m.terminal:
            continue
        j += 1
        if m.headline_interval:
            ci_cols[j] = m.name
            j += 1
    thead = "".join(f"<th>{esc(h)}</th>" for h in head)
    trs = []
    for r, cells in zip(recs, body, strict=False):
        tds = []
        for j, c in enumerate(cells):
            if j == acc_col and r["warning"]:
                tds.append(
                    f'<td class="warn" data-excluded-warning="{esc(r["warning"])}" title="{esc(r["warning"])}">'
                    f"{esc(c)} ⚠ {100 * r['excluded_share']:.0f}% excluded</td>"
                )
            else:
                tds.append(_td(c, (r.get("interval_flags") or {}).get(ci_cols.get(j, ""))))
        trs.append("<tr>" + "".join(tds) + "</tr>")
    ih, ib = interval_rows(tab)
    itable = (
        "<table><thead><tr>"
        + "".join(f"<th>{esc(h)}</th>" for h in ih)
        + "</tr></thead><tbody>"
        + "".join(
            "<tr>"
            + "".join(_td(c, (r.get("interval_flags") or {}).get(h)) for h, c in zip(ih, cells, strict=False))
            + "</tr>"
            for r, cells in zip(recs, ib, strict=False)
        )
        + "</tbody></table>"
    )
    flagged = flagged_intervals(tab)
    # a long list (many small --by cells) is folded, so that the charts stay near the top of the page
    flag_html = (
        f'<details class="note flags"{" open" if len(flagged) <= 8 else ""}><summary><strong>* flagged '
        f"intervals</strong> in {n_flagged_units(tab)} model/group row(s): zero width, fewer than 30 rows, fewer "
        "than 100 draws or the estimate outside the interval; do not read them as 95% intervals (the Wilson "
        "intervals of the proportions are in the JSON)</summary>"
        f"<ul>{''.join(f'<li>{esc(x)}</li>' for x in flagged)}</ul></details>"
        if flagged
        else ""
    )
    tie_html = f'<p class="note">{esc(TIE_NOTE)}.</p>' if tie_ranges_shown(tab) else ""
    rh, rb = recal_rows(tab)
    recal_html = (
        f"<h2>Out of sample after recalibration ({esc(str(a['recalibrate']))}, {a['folds']}-fold cross-fitting)</h2>"
        '<div class="table-box"><table id="recalibrated"><thead><tr>'
        + "".join(f"<th>{esc(h)}</th>" for h in rh)
        + "</tr></thead><tbody>"
        + "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rb)
        + "</tbody></table></div>"
        + "".join(f'<p class="note">{esc(x)}</p>' for x in recal_notes(tab))
        if rh
        else ""
    )
    warn = [f"<li>{esc(w)}</li>" for w in a.get("warnings", [])] + [
        f"<li><strong>{esc(r['model'])}</strong>: {esc(r['warning'])}</li>"
        for r in recs
        if r["group"] is None and r["warning"]
    ]
    excl_total = sum(sum(r["excluded"].values()) for r in recs if r["group"] is None)
    excl_html = (
        f"<p><strong>Rows excluded: {excl_total}</strong> of {a['rows_read']} read "
        "(without a stated confidence, ungraded, refusals without a confidence, or questions the endpoint never "
        "answered in collect; per model in the table).</p>"
        + (f'<ul class="warnings">{"".join(warn)}</ul>' if warn else "")
    )
    inputs = ", ".join(f"<code>{esc(p)}</code>" for p in a["inputs"])
    conv = "".join(f"<li>{esc(c)}</li>" for c in conventions(tab))
    spec_json = json.dumps(specs).replace("</", "<\\/")
    js = _js_bundle(_vl_version()).replace("</script", "<\\/script")
    charts = "".join(f'<div class="chart" id="{k}"></div>' for k in specs)
    NARROW = NARROW_PX
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>selfconf report</title>
<style>
{PAGE_CSS}</style>
<script type="text/javascript">{js}</script>
</head>
<body>
<h1>Stated-confidence report</h1>
<p class="note">inputs: {inputs} · confidence scale: <strong>{esc(a["confidence_scale"])}</strong>
({esc(a["confidence_scale_reason"])})
· {a["n_boot"]:,} bootstrap draws, seed {a["seed"]} · <code>selfconf report</code></p>
<div class="table-box"><table id="table1"><thead><tr>{thead}</tr></thead><tbody>{"".join(trs)}</tbody></table></div>
<p class="note">Accuracy, confidence, error and refusal rates in percent;
CITL (mean confidence − accuracy) in percentage points;
Brier, ECE, smooth ECE, AUROC and AURC on the 0–1 scale. A ⚠ marks a model with more than 5% of its rows excluded.</p>
{tie_html}{excl_html}
<h2>95% intervals</h2>
<div class="table-box">{itable}</div>
{flag_html}{recal_html}
<h2>Conventions</h2>
<ul class="note">{conv}</ul>
<div class="charts">{charts}</div>
<script type="text/javascript">
const specs = {spec_json};
// narrow screens (phones): every chart is redrawn to the width available, one small multiple per row,
// titles wrapped, the legend below the plot; text keeps Vega's sizes (10 px and up)
function fitToWidth(spec, avail) {{
  if (avail >= {NARROW}) return spec;
  const w = Math.max(180, avail - 80);  // room for the y axis and its title
  const wrap = (t) => {{
    if (typeof t !== "string") return t;
    const max = Math.max(20, Math.floor(w / 7)), lines = [];
    let cur = "";
    for (const word of t.split(" ")) {{
      if (cur && (cur + " " + word).length > max) {{ lines.push(cur); cur = word; }}
      else cur = cur ? cur + " " + word : word;
    }}
    if (cur) lines.push(cur);
    return lines;
  }};
  const fixTitle = (v) => {{
    if (typeof v.title === "string") v.title = wrap(v.title);
    else if (v.title && typeof v.title.text === "string") v.title.text = wrap(v.title.text);
  }};
  const resize = (v) => {{
    if (typeof v.width === "number") {{
      const ratio = (typeof v.height === "number" ? v.height : v.width) / v.width;
      v.height = Math.round(w * Math.min(ratio, 1)); v.width = w;
    }}
    fixTitle(v);
  }};
  fixTitle(spec);
  if (Array.isArray(spec.concat)) {{ spec.columns = 1; spec.concat.forEach(resize); }}
  else resize(spec);
  spec.config = Object.assign({{}}, spec.config, {{legend: {{orient: "bottom", columns: 2, labelLimit: w / 2 - 20}}}});
  return spec;
}}
const avail = Math.min(window.innerWidth, document.documentElement.clientWidth) - 2 * 16;
for (const [id, spec0] of Object.entries(specs)) {{
  const spec = fitToWidth(spec0, avail);
  vegaEmbed("#" + id, spec, {{renderer: "svg", actions: false}}).catch(err => {{
    document.getElementById(id).textContent = "chart failed to render: " + err;
  }});
}}
</script>
</body>
</html>
"""


def _td(text: str, flag: str | None) -> str:
    """A table cell; a flagged interval carries its reason (``data-interval-flag`` and a tooltip)."""
    if not flag:
        return f"<td>{html.escape(text)}</td>"
    f = html.escape(flag)
    return f'<td class="flag" data-interval-flag="{f}" title="{f}">{html.escape(text)}</td>'


def write_html(path: str | Path, tab: pd.DataFrame) -> Path:
    """Write :func:`build_html` to ``path`` (parent folders created); return the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(build_html(tab), encoding="utf-8")
    return p
