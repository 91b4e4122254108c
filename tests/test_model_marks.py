"""Charts with one line per model give every model its own (colour, dash) beyond ten models.

Read from the rendered chart, not from the spec: vl-convert's scenegraph (Vega's own renderer) gives the stroke
colour and dash of every drawn line, so a scale that Vega resolves differently from what the spec meant fails.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from selfconf.report import figures, from_frame, plots


def rows(n_models: int, *, subjects: bool = False, seed: int = 0) -> pd.DataFrame:
    """``n_models`` models with 60 answers each (confidence 50-99, correctness at random)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_models):
        d = pd.DataFrame(
            {
                "model": f"model-{i:02d}",
                "item_id": np.arange(60),
                "confidence": rng.integers(50, 100, 60),
                "correct": rng.integers(0, 2, 60),
            }
        )
        if subjects:
            d["subject"] = np.array(["law", "math"])[np.arange(60) % 2]
        out.append(d)
    return pd.concat(out, ignore_index=True)


def drawn_lines(chart) -> list[list[tuple[str, tuple[int, ...]]]]:
    """Per panel (each group holding line marks), the (stroke, dash) of every line Vega draws."""
    import vl_convert as vlc

    sg = vlc.vegalite_to_scenegraph(chart.to_dict(), vl_version=plots.vl_version(), allowed_base_urls=[])
    panels: list[list[tuple[str, tuple[int, ...]]]] = []

    def walk(node, acc):
        if isinstance(node, list):
            for v in node:
                walk(v, acc)
        elif isinstance(node, dict):
            if node.get("marktype") == "line" and node.get("role") == "mark":
                for it in node.get("items", [])[:1]:
                    acc.append((it.get("stroke"), tuple(it.get("strokeDash") or ())))
                return
            if node.get("name", "").endswith("_cell") or node.get("role") == "scope":
                mine: list = []
                for v in node.values():
                    if isinstance(v, dict | list):
                        walk(v, mine)
                if mine:
                    panels.append(mine)
                return
            for v in node.values():
                if isinstance(v, dict | list):
                    walk(v, acc)

    top: list = []
    walk(sg, top)
    return [top, *panels] if top else panels


def test_model_marks_are_distinct_for_forty_models_and_solid_for_the_first_ten():
    marks = plots.model_marks([f"m{i}" for i in range(40)])
    assert len(set(marks.values())) == 40
    assert {d for _, d in list(marks.values())[:10]} == {(1, 0)}
    assert len({c for c, _ in marks.values()}) == 10


@pytest.mark.slow
def test_risk_coverage_gives_eleven_to_twenty_models_distinct_colour_dash_pairs():
    for k in (11, 20):
        tab = from_frame(rows(k), n_boot=20)
        models = [f"model-{i:02d}" for i in range(k)]
        lines = [p for p in drawn_lines(plots.risk_coverage_chart(tab, models, interactive=False)) if p]
        drawn = [pair for p in lines for pair in p]
        assert len(drawn) == k, drawn
        assert len(set(drawn)) == k, f"{k} models drawn with {len(set(drawn))} distinct (colour, dash) pairs"


@pytest.mark.slow
def test_risk_coverage_per_group_keeps_each_model_distinct_in_every_panel():
    tab = from_frame(rows(12, subjects=True), by="subject", n_boot=20)
    lines = [p for p in drawn_lines(figures(tab)["riskcoverage_by"]) if p]
    assert len(lines) == 2, lines
    for p in lines:
        assert len(p) == 12 and len(set(p)) == 12, p
    assert lines[0] == lines[1]  # the same model keeps its mark from panel to panel
