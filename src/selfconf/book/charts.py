"""Charts more than one page draws, built once (altair; drawn offline by :mod:`selfconf.book.vega`)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

__all__ = ["RELIABILITY_COLUMNS", "reliability_diagrams", "FOREST_COLUMNS", "panel_forest"]

#: Columns :func:`reliability_diagrams` reads: one row per model and occupied bin (``gap`` = mean_conf - acc).
RELIABILITY_COLUMNS = ("model", "lo", "hi", "mean_conf", "acc", "n", "gap")


#: The two colours of a reliability diagram's points, as its legend names them (red, then blue).
RELIABILITY_SIDES = ("overconfident", "not overconfident")


def reliability_diagrams(
    bins: pd.DataFrame,
    *,
    order: Sequence[str],
    title: str,
    size: int = 170,
    columns: int = 3,
    header_font_size: float | None = None,
) -> alt.FacetChart:
    """Small-multiple reliability diagrams: one panel per model, one point per occupied confidence bin.

    A point sits at the bin's mean stated confidence (x) and its accuracy (y), both on the 0-1 scale; its area
    grows with the number of answers in the bin (square-root scale) and it is red when the bin is overconfident
    (``gap = mean_conf - acc > 0``), blue otherwise, with a colour legend (:data:`RELIABILITY_SIDES`). The dashed
    diagonal is perfect calibration. Bin counts are in the point size and the tooltip. Reference: DeGroot & Fienberg
    (1983), the reliability diagram; Guo et al. (2017) for its use with equal-width bins.

    ``bins`` holds :data:`RELIABILITY_COLUMNS` (e.g. from :func:`selfconf.metrics.reliability_bins` per model,
    with ``gap`` added); ``order`` is the panel order.

    Example::

        b = pd.DataFrame(metrics.reliability_bins(conf, correct, n_bins=10)).assign(model="m")
        reliability_diagrams(b.assign(gap=b["mean_conf"] - b["acc"]), order=["m"], title="Reliability")
    """
    missing = [c for c in RELIABILITY_COLUMNS if c not in bins.columns]
    if missing:
        raise ValueError(f"reliability_diagrams: column(s) {missing} missing")
    diag = (
        alt.Chart(pd.DataFrame({"x": [0, 1], "y": [0, 1]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="x:Q", y="y:Q")
    )
    pts = (
        alt.Chart()
        .transform_calculate(side=f"datum.gap > 0 ? '{RELIABILITY_SIDES[0]}' : '{RELIABILITY_SIDES[1]}'")
        .mark_circle(opacity=0.8)
        .encode(
            x=alt.X("mean_conf:Q", title="mean stated confidence in bin", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("acc:Q", title="accuracy in bin", scale=alt.Scale(domain=[0, 1])),
            size=alt.Size(
                "n:Q",
                title="answers in bin",
                scale=alt.Scale(type="sqrt"),
                legend=alt.Legend(symbolFillColor="gray", symbolStrokeColor="gray"),
            ),
            color=alt.Color(
                "side:N",
                title="bin (overconfident: confidence above accuracy)",
                scale=alt.Scale(domain=list(RELIABILITY_SIDES), range=["#c0392b", "#2471a3"]),
                legend=alt.Legend(orient="bottom", direction="vertical", titleLimit=0),
            ),
            tooltip=[
                "model:N",
                alt.Tooltip("lo:Q", format=".1f", title="bin from"),
                alt.Tooltip("hi:Q", format=".1f", title="to"),
                "n:Q",
                alt.Tooltip("mean_conf:Q", format=".3f"),
                alt.Tooltip("acc:Q", format=".3f"),
                alt.Tooltip("gap:Q", format="+.3f"),
            ],
        )
    )
    header = alt.Header(labelFontSize=header_font_size) if header_font_size is not None else alt.Undefined
    facet = alt.Facet("model:N", sort=list(order), title=None, header=header)
    return (
        alt.layer(diag, pts, data=bins)
        .properties(width=size, height=size)
        .facet(facet=facet, columns=columns)
        .properties(title=title)
    )


#: Columns :func:`panel_forest` reads: one row per panel and signal (``low``/``high`` NaN draw no interval).
FOREST_COLUMNS = ("panel", "signal", "auroc", "low", "high")


def panel_forest(
    rows: pd.DataFrame,
    *,
    signal_order: Sequence[str],
    panel_order: Sequence[str],
    domain: tuple[float, float],
    title: str,
    level_label: str,
    point_size: int = 70,
) -> alt.FacetChart:
    """Forest plot of each panel's signals: a point at the AUROC and a rule over its interval, one row per panel.

    The signals are the AUROCs of self-stated confidence and of panel agreement for the correctness of a row
    (the paper's Result 1 comparison); a signal without an interval (``low``/``high`` NaN) is a point only.
    ``level_label`` names the interval in the tooltip (e.g. ``"95%"``). Reference: Chernets (2026), Result 1.

    Example::

        panel_forest(df, signal_order=["self (pooled)", "panel agreement"], panel_order=["CN", "US"],
                     domain=(0.5, 0.9), title="Self-confidence versus panel agreement", level_label="95%")
    """
    missing = [c for c in FOREST_COLUMNS if c not in rows.columns]
    if missing:
        raise ValueError(f"panel_forest: column(s) {missing} missing")
    base = alt.Chart(rows).encode(
        y=alt.Y("signal:N", title=None, sort=list(signal_order)), color=alt.Color("signal:N", legend=None)
    )
    rules = base.mark_rule().encode(
        x=alt.X("low:Q", title="AUROC for the row's correctness", scale=alt.Scale(domain=list(domain))), x2="high:Q"
    )
    points = base.mark_point(filled=True, size=point_size).encode(
        x="auroc:Q",
        tooltip=[
            "panel:N",
            "signal:N",
            alt.Tooltip("auroc:Q", format=".3f"),
            alt.Tooltip("low:Q", format=".3f", title=f"{level_label} CI low"),
            alt.Tooltip("high:Q", format=".3f", title=f"{level_label} CI high"),
        ],
    )
    return (
        (rules + points)
        .properties(width=360, height=90)
        .facet(row=alt.Row("panel:N", sort=list(panel_order), title=None))
        .properties(title=title)
    )


__all__ += ["specification_curve"]


def specification_curve(
    rows: pd.DataFrame, *, dimensions: Sequence[str], title: str, level_label: str, width: int = 560
) -> alt.VConcatChart:
    """Specification curve: every reading's panel - self difference, sorted, with its interval; beneath it, the
    choices that produced each one (one row per option value, a mark where the reading uses it).

    ``rows`` holds one row per reading with ``delta``, ``delta_ci_low``, ``delta_ci_high``, ``canonical``
    (bool), ``member`` ('' unless per member) and one column per name in ``dimensions``.  The canonical reading
    is drawn in its own colour.  Reference: Simonsohn, Simmons & Nelson (2020), specification-curve analysis.

    Example: ``specification_curve(t, dimensions=list(READINGS), title="CN", level_label="95%")``.
    """
    d = rows.sort_values("delta", kind="mergesort").reset_index(drop=True)
    d = d.assign(
        rank=range(1, len(d) + 1),
        reading=["canonical" if c else "other" for c in d["canonical"]],
    )
    top = pd.DataFrame(
        {
            "rank": d["rank"],
            "delta": d["delta"].round(4),
            "low": d["delta_ci_low"].round(4),
            "high": d["delta_ci_high"].round(4),
            "reading": d["reading"],
            "choices": [
                ", ".join(f"{k}={r[k]}" for k in dimensions) + (f", member={r['member']}" if r["member"] else "")
                for _, r in d.iterrows()
            ],
        }
    )
    colour = alt.Color(
        "reading:N",
        scale=alt.Scale(domain=["canonical", "other"], range=["#d62728", "#4c78a8"]),
        legend=alt.Legend(title=None, orient="top"),
    )
    x = alt.X("rank:Q", title=None, axis=alt.Axis(labels=False, ticks=False), scale=alt.Scale(domain=[0, len(d) + 1]))
    base = alt.Chart(top).encode(x=x)
    rules = base.mark_rule(opacity=0.35).encode(y="low:Q", y2="high:Q", color=colour)
    points = base.mark_point(filled=True, size=14).encode(
        y=alt.Y("delta:Q", title=f"panel − self AUROC ({level_label} CI)"),
        color=colour,
        size=alt.condition("datum.reading == 'canonical'", alt.value(90), alt.value(14)),
        tooltip=[
            alt.Tooltip("delta:Q", format="+.3f", title="panel − self"),
            alt.Tooltip("low:Q", format="+.3f", title=f"{level_label} CI low"),
            alt.Tooltip("high:Q", format="+.3f", title=f"{level_label} CI high"),
            alt.Tooltip("choices:N"),
        ],
    )
    zero = alt.Chart(pd.DataFrame({"y": [0.0]})).mark_rule(strokeDash=[4, 3], color="#555").encode(y="y:Q")
    long = []
    order = []
    for k in dimensions:
        for v in dict.fromkeys(rows[k]):  # the input order: canonical option first
            order.append(f"{k}: {v}")
        long += [
            {"rank": r, "choice": f"{k}: {v}", "reading": c}
            for r, v, c in zip(d["rank"], d[k], d["reading"], strict=True)
        ]
    choice_chart = (
        alt.Chart(pd.DataFrame(long))
        .mark_tick(thickness=1, size=8)
        .encode(x=x, y=alt.Y("choice:N", title=None, sort=order), color=colour)
    )
    return alt.vconcat(
        (rules + points + zero).properties(width=width, height=200),
        choice_chart.properties(width=width, height=12 * len(order)),
        spacing=4,
    ).properties(title=title)
