"""``selfconf report --figures DIR`` and ``selfconf.report.figures``: charts for a paper.

The label test measures the labels where they are drawn, not where the placement code meant them: each label
``<text>`` of the exported SVG is rasterised on its own by vl-convert's SVG renderer (resvg) and its inked box is
taken from the pixels. The axes test reads the rendered points from vl-convert's scenegraph. Rendering costs a few
seconds per chart, so these tests are marked slow; the placement rule itself has fast tests.
"""

from __future__ import annotations

import io
import json
import re
import socket
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from selfconf import cli
from selfconf.report import figures, from_frame, plots

ROOT = Path(__file__).resolve().parents[1]
NAMES = [
    "gpt-4o-2024-08-06",
    "gpt-4o-mini",
    "claude-3-5-sonnet",
    "claude-3-haiku",
    "gemini-1.5-pro",
    "gemini-1.5-flash",
    "llama-3.1-70b-instruct",
    "llama-3.1-8b-instruct",
    "mistral-large-2407",
    "qwen2.5-72b-instruct",
    "deepseek-v3",
]


def eleven(seed: int = 3, n_items: int = 300, subjects: bool = False) -> pd.DataFrame:
    """Eleven models with long names whose points crowd into a 15 x 15 point square (accuracy 63-78 %)."""
    rng = np.random.default_rng(seed)
    out = []
    for i, m in enumerate(NAMES):
        skill = 0.66 + 0.02 * (i % 6) + rng.uniform(-0.01, 0.01)
        conf = np.clip(np.rint(rng.normal(100 * skill + 10, 8, n_items)), 0, 100).astype(int)
        d = pd.DataFrame(
            {
                "model": m,
                "item_id": np.arange(n_items),
                "confidence": conf,
                "correct": (rng.random(n_items) < skill).astype(int),
            }
        )
        if subjects:
            d["subject"] = np.array(["law", "math", "history"])[np.arange(n_items) % 3]
        out.append(d)
    return pd.concat(out, ignore_index=True)


@pytest.fixture(scope="module")
def tab() -> pd.DataFrame:
    return from_frame(eleven(), n_boot=100)


# ---- measuring a rendered SVG (outside the placement code) -------------------------------------------------------

SVG_NS = "{http://www.w3.org/2000/svg}"


def _translate(el) -> tuple[float, float]:
    m = re.search(r"translate\(([-\d.e]+),\s*([-\d.e]+)\)", el.get("transform", ""))
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def svg_text_marks(svg: str) -> list[dict]:
    """Every text *mark* item of a Vega SVG (not axis or legend text) with its absolute anchor position."""
    root = ET.fromstring(svg)
    found: list[dict] = []

    def walk(el, ox: float, oy: float) -> None:
        dx, dy = _translate(el)
        ox, oy = ox + dx, oy + dy
        if el.tag == SVG_NS + "text" and el.get("aria-roledescription") == "text mark" and (el.text or "").strip():
            found.append(
                {
                    "text": el.text,
                    "x": ox,
                    "y": oy,
                    "anchor": el.get("text-anchor", "start"),
                    "font": el.get("font-family", "sans-serif"),
                    "size": el.get("font-size", "10px"),
                }
            )
        for ch in el:
            walk(ch, ox, oy)

    walk(root, 0.0, 0.0)
    return found


def ink_box(mark: dict, width: int, height: int) -> tuple[int, int, int, int]:
    """The inked pixel box (x0, y0, x1, y1) of one text item, rasterised alone by vl-convert's SVG renderer."""
    import vl_convert as vlc
    from PIL import Image

    text = mark["text"].replace("&", "&amp;").replace("<", "&lt;")
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
        f'<rect width="{width}" height="{height}" fill="white"/>'
        f'<text text-anchor="{mark["anchor"]}" transform="translate({mark["x"]},{mark["y"]})" '
        f'font-family="{mark["font"]}" font-size="{mark["size"]}" fill="black">{text}</text></svg>'
    )
    a = np.asarray(Image.open(io.BytesIO(vlc.svg_to_png(svg, scale=1))).convert("L"))
    ys, xs = np.nonzero(a < 250)
    assert xs.size, f"label {mark['text']!r} drew no ink"
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlapping_labels(spec: dict) -> tuple[list[tuple[str, str]], int]:
    """Pairs of text marks whose inked boxes overlap in the rendered SVG, and the number of text marks."""
    import vl_convert as vlc

    svg = vlc.vegalite_to_svg(spec, vl_version=plots.vl_version(), allowed_base_urls=[])
    root = ET.fromstring(svg)
    w, h = int(float(root.get("width"))) + 1, int(float(root.get("height"))) + 1
    marks = svg_text_marks(svg)
    boxes = [ink_box(m, w, h) for m in marks]
    pairs = [
        (marks[i]["text"], marks[j]["text"])
        for i in range(len(marks))
        for j in range(i + 1, len(marks))
        if _overlap(boxes[i], boxes[j])
    ]
    return pairs, len(marks)


def scenegraph_points(spec: dict) -> list[tuple[float, float, float, float]]:
    """(x, y, plot width, plot height) of every symbol (point) item in vl-convert's scenegraph."""
    import vl_convert as vlc

    sg = vlc.vegalite_to_scenegraph(spec, vl_version=plots.vl_version(), allowed_base_urls=[])
    out: list[tuple[float, float, float, float]] = []

    def walk(node, w=None, h=None):
        if isinstance(node, dict):
            if node.get("marktype") == "group":
                for it in node.get("items", []):
                    walk(it, it.get("width", w), it.get("height", h))
                return
            if node.get("marktype") == "symbol" and node.get("role") == "mark":
                out.extend((it["x"], it["y"], w, h) for it in node.get("items", []))
            for v in node.values():
                if isinstance(v, dict | list):
                    walk(v, w, h)
        elif isinstance(node, list):
            for v in node:
                walk(v, w, h)

    walk(sg)
    return out


# ---- the placement rule (fast) -----------------------------------------------------------------------------------


def test_place_labels_boxes_are_disjoint_inside_the_plot_and_off_every_point():
    rng = np.random.default_rng(1)
    x, y = rng.uniform(150, 270, 11), rng.uniform(120, 240, 11)  # eleven points crowded in 120 x 120 px
    ps = plots.place_labels(x, y, NAMES, width=420, height=380, radius=5.35)
    placed = [p for p in ps if p.kind]
    assert len(placed) == 11
    for i, a in enumerate(placed):
        x0, y0, x1, y1 = a.box
        assert x0 >= 0 and y0 >= 0 and x1 <= 420 and y1 <= 380
        assert not any(_overlap(a.box, b.box) for b in placed[i + 1 :])
        assert not any(x0 < px < x1 and y0 < py < y1 for px, py in zip(x, y, strict=True))


def test_labels_without_room_become_numbers_then_unplaced_beyond_the_key():
    x, y = np.full(60, 100.0) + np.arange(60) % 6, np.full(60, 100.0) + np.arange(60) // 6
    ps = plots.place_labels(x, y, [f"model-{i:02d}" for i in range(60)], width=200, height=200, key_max=5)
    kinds = [p.kind for p in ps]
    assert "name" in kinds and kinds.count("number") <= 5 and None in kinds
    numbers = [p.text for p in ps if p.kind == "number"]
    assert numbers == [str(i + 1) for i in range(len(numbers))]


def test_fitted_domain_holds_every_value_and_the_diagonal(tab):
    assert plots.fitted_domain([63.3, 87.0, 74.5]) == [60.0, 90.0]
    spec = figures(tab)["overconfidence"].to_dict()
    diag = spec["layer"][0]
    assert diag["mark"]["strokeDash"] == [4, 4]
    dom = diag["encoding"]["x"]["scale"]["domain"]
    assert dom == diag["encoding"]["y"]["scale"]["domain"]  # one domain for both axes: the diagonal is y = x
    assert next(iter(spec["datasets"].values()))[0]["x"] == dom[0]  # drawn across the whole domain


@pytest.mark.slow
def test_figures_returns_altair_charts_by_name_with_groups_under_by():
    import altair as alt

    t = from_frame(eleven(n_items=60, subjects=True), n_boot=100, by="subject")
    f = figures(t)
    assert set(f) == {
        "overconfidence",
        "reliability",
        "riskcoverage",
        "overconfidence_by",
        "reliability_by",
        "riskcoverage_by",
    }
    assert all(isinstance(c, alt.TopLevelMixin) for c in f.values())
    by = f["overconfidence_by"].to_dict()
    assert [p["title"] if isinstance(p["title"], str) else p["title"]["text"] for p in by["concat"]] == [
        "subject = history",
        "subject = law",
        "subject = math",
    ]
    assert len(f["reliability"].to_dict()["concat"]) == 11  # static figures: every model a small multiple


def test_no_chart_refers_to_a_url(tab):
    text = json.dumps({k: c.to_dict() for k, c in figures(tab).items()})
    assert '"url"' not in text
    assert not re.search(r'"(?:https?|ftp)://(?!vega\.github\.io/schema/)', text), "a chart refers to a remote file"


def test_the_book_figure_1_and_the_report_scatter_are_one_function():
    src = (ROOT / "notebooks" / "04_result1.py").read_text(encoding="utf-8")
    fig1 = src[src.index("## Figure 1: every model") : src.index("**Figure 1.**")]
    assert "scatter_chart(" in fig1 and "mark_text" not in fig1
    assert "scatter_chart(" in Path(plots.__file__).read_text(encoding="utf-8").split("def overconfidence_chart")[1]


def test_figures_to_a_file_is_a_clear_error(tmp_path, capsys):
    rows = tmp_path / "rows.csv"
    eleven(n_items=40).to_csv(rows, index=False)
    (tmp_path / "f.txt").write_text("x")
    assert cli.main(["report", str(rows), "--n-boot", "100", "--figures", str(tmp_path / "f.txt")]) == 2
    err = capsys.readouterr().err
    assert "--figures" in err and "is a file" in err and "Traceback" not in err
    assert cli.main(["report", str(rows), "--n-boot", "100", "--figures", str(tmp_path / "f.txt" / "sub")]) == 2
    assert "--figures" in capsys.readouterr().err


# ---- rendered (slow) ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_no_two_labels_overlap_on_an_eleven_model_figure(tab):
    spec = figures(tab)["overconfidence"].to_dict()
    pairs, n = overlapping_labels(spec)
    assert n >= 11  # every model's label (or its number tag) is drawn
    assert not pairs, pairs


@pytest.mark.slow
def test_no_two_labels_overlap_in_any_group_panel():
    t = from_frame(eleven(n_items=120, subjects=True), n_boot=100, by="subject")
    spec = figures(t)["overconfidence_by"].to_dict()
    for panel in spec["concat"]:  # each panel alone: a label is compared with the labels of its own panel
        one = {**panel, "datasets": spec["datasets"], "$schema": spec["$schema"]}
        pairs, n = overlapping_labels(one)
        assert n >= 8 and not pairs, (panel["title"], pairs)


@pytest.mark.slow
def test_axes_hold_every_point_and_fit_the_data(tab):
    pts = scenegraph_points(figures(tab)["overconfidence"].to_dict())
    assert len(pts) == 11
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    w, h = pts[0][2], pts[0][3]
    assert all(0 <= x <= w for x in xs) and all(0 <= y <= h for y in ys)
    # fitted, not 0-100: the points (accuracy 63-78 %) spread over at least a third of the plot's width
    assert (max(xs) - min(xs)) > w / 3, (min(xs), max(xs), w)


@pytest.mark.slow
def test_report_figures_writes_svg_png_pdf_with_no_network(tmp_path, monkeypatch, capsys):
    def refuse(*a, **k):
        raise OSError("network access attempted while writing figures")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    rows = tmp_path / "rows.csv"
    eleven(n_items=90, subjects=True).to_csv(rows, index=False)
    out = tmp_path / "figs"
    argv = ["report", str(rows), "--n-boot", "100", "--by", "subject", "--figures", str(out)]
    assert cli.main(argv) == 0
    assert "wrote 18 figure files" in capsys.readouterr().err
    for name in ("overconfidence", "reliability", "riskcoverage"):
        for suffix in ("", "_by"):
            assert (out / f"{name}{suffix}.svg").read_text(encoding="utf-8").startswith("<svg")
            assert (out / f"{name}{suffix}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert (out / f"{name}{suffix}.pdf").read_bytes()[:5] == b"%PDF-"


@pytest.mark.slow
def test_the_renderer_refuses_any_url():
    spec = {"data": {"url": "https://example.com/rows.csv"}, "mark": "point"}
    with pytest.raises(ValueError, match="url not allowed"):
        plots.render({**spec, "encoding": {"x": {"field": "a", "type": "quantitative"}}}, "svg")


@pytest.mark.slow
def test_html_page_draws_the_per_group_charts_under_by():
    from selfconf.report.html import build_html

    page = build_html(from_frame(eleven(n_items=60, subjects=True), n_boot=100, by="subject"))
    for name in ("overconfidence", "reliability", "riskcoverage"):
        assert f'id="{name}"' in page and f'id="{name}_by"' in page
