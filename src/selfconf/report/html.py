"""Self-contained, offline HTML page for ``selfconf report --html``.

The page holds the headline table (in its own scrolling box with a sticky header, so a wide table
never makes the page scroll sideways; a model with more than 5% of its rows excluded carries a
visible warning beside its accuracy), the intervals table, the conventions, and three altair charts:

* **reliability** per model: the smooth-ECE curve (Błasiok & Nakkiran 2023) with its 95%
  bootstrap band and the binned points sized by their counts, as small multiples up to
  :data:`FACET_MAX` models and as one panel with a model selector beyond that;
* **risk–coverage** curves (expected over tie orders), with the same selector rule;
* an **overconfidence scatter** — mean stated confidence (y) against accuracy (x), one point per
  model (Figure 1 orientation of the paper), every point labelled with no two labels overlapping (a label
  that finds no room becomes a number tag named in a key);
* under ``--by``, the same three charts per group as small multiples.

The charts are :mod:`selfconf.report.plots`' (the same functions write ``--figures`` and draw the book's
Figure 1); their names stay importable from here.

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
from typing import Any

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
from selfconf.report.plots import (
    CURVE_POINTS,
    FACET_MAX,
    _no_row_limit,
    curve_points,
    figures,
    overconfidence_chart,
    reliability_chart,
    reliability_frame,
    risk_coverage_chart,
    vl_version,
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

#: Below this window width (CSS px) the charts are redrawn to fit it (one small multiple per row).
NARROW_PX = 700


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


@lru_cache(maxsize=2)
def _js_bundle(vl_version: str) -> str:
    import vl_convert

    # vl_convert's stub marks `snippet` as required; at run time it defaults to None (the whole bundle)
    return vl_convert.javascript_bundle(vl_version=vl_version)  # type: ignore[call-arg]


def _vl_version() -> str:
    return vl_version()


def build_html(tab: pd.DataFrame) -> str:
    """Return the complete HTML document (string) of the report; no timestamp, so the same data
    give the same bytes.

    Definition: the page of :func:`_page` with the tables of :func:`_headline_rows`, :func:`_interval_table`,
    :func:`_flags_html`, :func:`_recal_html` and :func:`_exclusions_html` and the charts of
    :func:`selfconf.report.plots.figures` (drawn by :func:`_chart_script`).

    Example: ``build_html(from_frame(df, n_boot=200))`` starts with ``<!DOCTYPE html>``.
    """
    with _no_row_limit():  # the same chart functions as `--figures` and the book (selfconf.report.plots)
        specs = {k: c.to_dict() for k, c in figures(tab, interactive=True).items()}
    recs = tab.to_dict("records")
    thead, tbody = _headline_rows(tab, recs)
    tie_html = f'<p class="note">{html.escape(TIE_NOTE)}.</p>' if tie_ranges_shown(tab) else ""
    sections = {
        "thead": thead,
        "tbody": tbody,
        "notes": tie_html + _exclusions_html(tab, recs),
        "intervals": _interval_table(tab, recs),
        "extra": _flags_html(tab) + _recal_html(tab),
    }
    return _page(tab, specs, sections)


def _interval_columns(tab: pd.DataFrame) -> dict[int, str]:
    """The headline table's columns that hold an interval, by position: the column after each terminal metric
    whose interval the headline shows (:data:`selfconf.report.core.METRICS`, ``headline_interval``), after the
    model, the ``--by`` group (when there is one) and n columns."""
    ci_cols: dict[int, str] = {}
    j = 1 + (1 if tab.attrs.get("by") else 0) + 1  # model, [group], n
    for m in METRICS:
        if not m.terminal:
            continue
        j += 1
        if m.headline_interval:
            ci_cols[j] = m.name
            j += 1
    return ci_cols


def _headline_rows(tab: pd.DataFrame, recs: list[dict]) -> tuple[str, str]:
    """The headline table's header cells and body rows (HTML), from :func:`selfconf.report.core.table_rows`: a
    model with an exclusion warning shows it beside its accuracy (``data-excluded-warning``), a flagged interval
    carries its reason (:func:`_td`)."""
    esc = html.escape
    head, body = table_rows(tab)
    acc_col = head.index("acc %")
    ci_cols = _interval_columns(tab)
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
    return "".join(f"<th>{esc(h)}</th>" for h in head), "".join(trs)


def _interval_table(tab: pd.DataFrame, recs: list[dict]) -> str:
    """The 95% intervals table (HTML) of :func:`selfconf.report.core.interval_rows`, flagged cells marked."""
    ih, ib = interval_rows(tab)
    return (
        "<table><thead><tr>"
        + "".join(f"<th>{html.escape(h)}</th>" for h in ih)
        + "</tr></thead><tbody>"
        + "".join(
            "<tr>"
            + "".join(_td(c, (r.get("interval_flags") or {}).get(h)) for h, c in zip(ih, cells, strict=False))
            + "</tr>"
            for r, cells in zip(recs, ib, strict=False)
        )
        + "</tbody></table>"
    )


def _flags_html(tab: pd.DataFrame) -> str:
    """The list of flagged intervals (:func:`selfconf.report.core.flagged_intervals`), folded when longer than
    eight (many small ``--by`` cells) so that the charts stay near the top of the page; empty without flags."""
    flagged = flagged_intervals(tab)
    if not flagged:
        return ""
    return (
        f'<details class="note flags"{" open" if len(flagged) <= 8 else ""}><summary><strong>* flagged '
        f"intervals</strong> in {n_flagged_units(tab)} model/group row(s): zero width, fewer than 30 rows, fewer "
        "than 100 draws or the estimate outside the interval; do not read them as 95% intervals (the Wilson "
        "intervals of the proportions are in the JSON)</summary>"
        f"<ul>{''.join(f'<li>{html.escape(x)}</li>' for x in flagged)}</ul></details>"
    )


def _recal_html(tab: pd.DataFrame) -> str:
    """The out-of-sample table after ``--recalibrate`` (:func:`selfconf.report.core.recal_rows`) with its
    notes; empty when the report was not recalibrated."""
    esc = html.escape
    a = tab.attrs
    rh, rb = recal_rows(tab)
    if not rh:
        return ""
    return (
        f"<h2>Out of sample after recalibration ({esc(str(a['recalibrate']))}, {a['folds']}-fold cross-fitting)</h2>"
        '<div class="table-box"><table id="recalibrated"><thead><tr>'
        + "".join(f"<th>{esc(h)}</th>" for h in rh)
        + "</tr></thead><tbody>"
        + "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rb)
        + "</tbody></table></div>"
        + "".join(f'<p class="note">{esc(x)}</p>' for x in recal_notes(tab))
    )


def _exclusions_html(tab: pd.DataFrame, recs: list[dict]) -> str:
    """The rows excluded (total of the per-model rows) and every warning: the table's own and each model's."""
    esc = html.escape
    a = tab.attrs
    warn = [f"<li>{esc(w)}</li>" for w in a.get("warnings", [])] + [
        f"<li><strong>{esc(r['model'])}</strong>: {esc(r['warning'])}</li>"
        for r in recs
        if r["group"] is None and r["warning"]
    ]
    excl_total = sum(sum(r["excluded"].values()) for r in recs if r["group"] is None)
    return (
        f"<p><strong>Rows excluded: {excl_total}</strong> of {a['rows_read']} read "
        "(without a stated confidence, ungraded, refusals without a confidence, or questions the endpoint never "
        "answered in collect; per model in the table).</p>"
        + (f'<ul class="warnings">{"".join(warn)}</ul>' if warn else "")
    )


def _page(tab: pd.DataFrame, specs: dict[str, Any], sections: dict[str, str]) -> str:
    """The document around the pieces: head (stylesheet, the inlined Vega bundle), the inputs line, the
    headline table, its notes, the intervals, the conventions and one box per chart, then :func:`_chart_script`.
    ``sections`` holds the HTML of ``thead``, ``tbody``, ``notes``, ``intervals`` and ``extra``."""
    esc = html.escape
    a = tab.attrs
    inputs = ", ".join(f"<code>{esc(p)}</code>" for p in a["inputs"])
    conv = "".join(f"<li>{esc(c)}</li>" for c in conventions(tab))
    js = _js_bundle(_vl_version()).replace("</script", "<\\/script")
    charts = "".join(f'<div class="chart" id="{k}"></div>' for k in specs)
    thead, tbody = sections["thead"], sections["tbody"]
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
<div class="table-box"><table id="table1"><thead><tr>{thead}</tr></thead><tbody>{tbody}</tbody></table></div>
<p class="note">Accuracy, confidence, error and refusal rates in percent;
CITL (mean confidence − accuracy) in percentage points;
Brier, ECE, smooth ECE, AUROC and AURC on the 0–1 scale. A ⚠ marks a model with more than 5% of its rows excluded.</p>
{sections["notes"]}
<h2>95% intervals</h2>
<div class="table-box">{sections["intervals"]}</div>
{sections["extra"]}
<h2>Conventions</h2>
<ul class="note">{conv}</ul>
<div class="charts">{charts}</div>
{_chart_script(specs)}</body>
</html>
"""


def _chart_script(specs: dict[str, Any]) -> str:
    """The page's script: the chart specs (``</`` escaped, so no spec can close the element) and the code that
    draws each with vega-embed, redrawn to the window's width below :data:`NARROW_PX` px (phones: one small
    multiple per row, titles wrapped, the legend below the plot).

    >>> s = _chart_script({"a": {"title": "</script>"}})
    >>> s.startswith('<script type="text/javascript">') and s.count("</script>") == 1
    True
    """
    spec_json = json.dumps(specs).replace("</", "<\\/")
    NARROW = NARROW_PX
    return f"""<script type="text/javascript">
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
    if (v.title && typeof v.title.subtitle === "string") v.title.subtitle = wrap(v.title.subtitle);
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
