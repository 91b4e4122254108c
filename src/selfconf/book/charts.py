"""Charts more than one page draws, built once (altair; drawn offline by :mod:`selfconf.book.vega`)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

__all__ = ["RELIABILITY_COLUMNS", "reliability_diagrams", "FOREST_COLUMNS", "panel_forest"]

#: Columns :func:`reliability_diagrams` reads: one row per model and occupied bin (``gap`` = mean_conf - acc).
RELIABILITY_COLUMNS = ("model", "lo", "hi", "mean_conf", "acc", "n", "gap")


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
    (``gap = mean_conf - acc > 0``), blue otherwise. The dashed diagonal is perfect calibration. Bin counts are
    in the point size and the tooltip (printed beside the points they collided). Reference: DeGroot & Fienberg
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
            color=alt.condition("datum.gap > 0", alt.value("#c0392b"), alt.value("#2471a3")),
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
