"""selfconf.book.charts: the reliability small multiples both Result 1 and the real-answers chapter draw."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from selfconf import metrics
from selfconf.book import charts


def _bins(models=("b", "a")) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    out = []
    for m in models:
        c = rng.integers(0, 101, 400) / 100
        y = (rng.random(400) < c).astype(int)
        out.append(pd.DataFrame(metrics.reliability_bins(c, y, n_bins=10)).assign(model=m))
    b = pd.concat(out, ignore_index=True)
    return b.assign(gap=b["mean_conf"] - b["acc"])


def test_one_panel_per_model_in_the_given_order_and_overconfident_points_red():
    spec = charts.reliability_diagrams(_bins(), order=["b", "a"], title="R", size=100, columns=2).to_dict()
    assert spec["facet"]["field"] == "model" and spec["facet"]["sort"] == ["b", "a"] and spec["columns"] == 2
    layer = spec["spec"]["layer"]
    assert layer[0]["mark"]["type"] == "line" and layer[0]["mark"]["strokeDash"] == [4, 4]  # the diagonal
    color = layer[1]["encoding"]["color"]
    assert color["field"] == "side" and color["scale"]["range"][0] == "#c0392b"  # red first: overconfident
    assert color["scale"]["domain"] == list(charts.RELIABILITY_SIDES) and color.get("legend") is not None
    assert layer[1]["transform"] == [
        {
            "calculate": f"datum.gap > 0 ? '{charts.RELIABILITY_SIDES[0]}' : '{charts.RELIABILITY_SIDES[1]}'",
            "as": "side",
        }
    ]
    assert spec["spec"]["width"] == 100 and spec["title"] == "R"


def test_header_font_size_only_when_asked():
    assert "header" not in charts.reliability_diagrams(_bins(), order=["a", "b"], title="R").to_dict()["facet"]
    spec = charts.reliability_diagrams(_bins(), order=["a", "b"], title="R", header_font_size=9).to_dict()
    assert spec["facet"]["header"]["labelFontSize"] == 9


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match=r"\['gap'\] missing"):
        charts.reliability_diagrams(_bins().drop(columns="gap"), order=["a"], title="R")


def _forest() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"panel": "CN", "signal": "self", "auroc": 0.7, "low": 0.68, "high": 0.72},
            {"panel": "CN", "signal": "panel", "auroc": 0.77, "low": float("nan"), "high": float("nan")},
        ]
    )


def test_panel_forest_rows_per_panel_rule_over_the_interval_and_point_at_the_auroc():
    spec = charts.panel_forest(
        _forest(),
        signal_order=["self", "panel"],
        panel_order=["CN"],
        domain=(0.5, 0.9),
        title="F",
        level_label="95%",
        point_size=60,
    ).to_dict()
    assert spec["facet"]["row"]["field"] == "panel" and spec["facet"]["row"]["sort"] == ["CN"]
    rule, point = spec["spec"]["layer"]
    assert rule["mark"]["type"] == "rule" and rule["encoding"]["x2"]["field"] == "high"
    assert rule["encoding"]["x"]["scale"]["domain"] == [0.5, 0.9]
    assert point["mark"]["size"] == 60 and point["encoding"]["x"]["field"] == "auroc"
    assert point["encoding"]["tooltip"][3]["title"] == "95% CI low" and spec["title"] == "F"


def test_panel_forest_missing_columns_are_named():
    with pytest.raises(ValueError, match=r"\['high'\] missing"):
        charts.panel_forest(
            _forest().drop(columns="high"), signal_order=[], panel_order=[], domain=(0, 1), title="F", level_label="95%"
        )
