"""The named steps of the report's HTML page (:mod:`selfconf.report.html`) and of its scatter
(:mod:`selfconf.report.plots`): each step checked on its own, against the tables it renders or against a plain
loop, so that a step that drops a row, a flag or a label fails here and not only on a whole page."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from tests.test_report_figures import NAMES, eleven

from selfconf.report import from_frame, html, plots
from selfconf.report.core import flagged_intervals, interval_rows, recal_rows, table_rows


@pytest.fixture(scope="module")
def tab():
    return from_frame(eleven(n_items=40), n_boot=100)


@pytest.fixture(scope="module")
def tab_by():
    return from_frame(eleven(n_items=60, subjects=True), n_boot=100, by="subject")


def _cells(fragment: str) -> list[list[str]]:
    """Rows of cell texts of an HTML table fragment (plain regex: the fragment is ours and flat)."""
    rows = re.findall(r"<tr>(.*?)</tr>", fragment)
    return [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r)] for r in rows]


# ---- html.build_html's steps --------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["tab", "tab_by"])
def test_interval_columns_are_exactly_the_headline_interval_columns(which, request):
    t = request.getfixturevalue(which)
    head, _ = table_rows(t)
    cols = html._interval_columns(t)
    assert sorted(cols) == [j for j, h in enumerate(head) if h.endswith("95% CI")]
    for j, name in cols.items():  # the metric named is the one left of its interval
        assert head[j - 1].split()[0].lower()[:3] == name[:3]


def test_headline_rows_render_every_row_and_cell_of_table_rows(tab):
    head, body = table_rows(tab)
    thead, tbody = html._headline_rows(tab, tab.to_dict("records"))
    assert _cells(f"<tr>{thead}</tr>") == [[h for h in head]]
    got = _cells(tbody)
    assert len(got) == len(body)
    for r, row in zip(got, body, strict=True):
        assert [c.split(" ⚠")[0] for c in r] == row


def test_headline_rows_carry_each_flag_of_a_headline_interval(tab):
    recs = tab.to_dict("records")
    _, tbody = html._headline_rows(tab, recs)
    cols = set(html._interval_columns(tab).values())
    want = sum(1 for r in recs for m in (r.get("interval_flags") or {}) if m in cols)
    assert tbody.count("data-interval-flag=") == want


def test_a_model_with_excluded_rows_shows_its_warning_beside_accuracy():
    df = eleven(n_items=40)
    df.loc[df.index[:10], "confidence"] = np.nan  # 10 of the first model's 40 rows: 25% excluded
    t = from_frame(df, n_boot=100)
    recs = t.to_dict("records")
    _, tbody = html._headline_rows(t, recs)
    assert tbody.count('class="warn"') == sum(1 for r in recs if r["warning"]) == 1
    assert "25% excluded" in tbody
    excl = html._exclusions_html(t, recs)
    assert "<strong>Rows excluded: 10</strong>" in excl and excl.count("<li>") == 1


def test_interval_table_renders_interval_rows(tab):
    ih, ib = interval_rows(tab)
    got = _cells(html._interval_table(tab, tab.to_dict("records")))
    assert got == [ih, *ib]


def test_flags_list_is_empty_without_flags_and_folded_beyond_eight(tab, tab_by):
    few, many = html._flags_html(tab), html._flags_html(tab_by)
    n_few, n_many = len(flagged_intervals(tab)), len(flagged_intervals(tab_by))
    assert few.count("<li>") == n_few and many.count("<li>") == n_many
    assert n_many > 8 and "<details" in many and " open>" not in many
    assert (" open>" in few) == (0 < n_few <= 8)


def test_recalibration_table_only_when_recalibrated(tab):
    assert html._recal_html(tab) == ""
    t = from_frame(eleven(n_items=40), n_boot=100, recalibrate="histogram")
    rh, rb = recal_rows(t)
    frag = html._recal_html(t)
    assert 'id="recalibrated"' in frag and "histogram" in frag
    assert _cells(frag.split("<table", 1)[1].split("</table>")[0].split(">", 1)[1]) == [rh, *rb]


def test_chart_script_escapes_a_closing_tag_in_a_spec():
    s = html._chart_script({"a": {"title": "x</script><b>"}})
    assert s.count("</script>") == 1 and s.endswith("</script>\n")
    assert "if (avail >= 700) return spec;" in s  # NARROW_PX reaches the code


def test_page_puts_each_section_in_its_place(tab):
    sections = {k: f"<!--{k}-->" for k in ("thead", "tbody", "notes", "intervals", "extra")}
    page = html._page(tab, {"c1": {}, "c2": {}}, sections)
    charts = ['<div class="chart" id="c1">', '<div class="chart" id="c2">', "const specs"]
    marks = [*sections.values(), "<h2>Conventions</h2>", *charts]
    marks.insert(3, "95% intervals")
    at = [page.index(m) for m in marks]
    assert at == sorted(at) and page.startswith("<!DOCTYPE html>") and page.endswith("</body>\n</html>\n")
    assert page.count("<script") == 2 and "<link" not in page  # the inlined bundle and the charts' script


# ---- plots.place_labels' board --------------------------------------------------------------------------------------


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and a[2] > b[0] and a[1] < b[3] and a[3] > b[1]


def test_board_free_agrees_with_a_plain_loop():
    rng = np.random.default_rng(5)
    x, y = rng.uniform(0, 200, 12), rng.uniform(0, 150, 12)
    board = plots._Board.of(x, y, width=200, height=150, radius=5.0, font_size=10, pad=2.0)
    for b in rng.uniform(0, 180, (3, 2)):  # three placed boxes
        board.add(plots.Placement(0, "name", "t", float(b[0]), float(b[1]), 30.0, 16.0))
    c = rng.uniform(-10, 210, (300, 2))
    boxes = np.c_[c - [15, 8], c + [15, 8]]
    got = board.free(boxes)
    obstacles = [tuple(r) for r in board.point_boxes] + [tuple(p[0]) for p in board.placed]
    want = [
        b[0] >= 0 and b[1] >= 0 and b[2] <= 200 and b[3] <= 150 and not any(_overlaps(b, o) for o in obstacles)
        for b in boxes
    ]
    assert got.tolist() == want and 0 < sum(want) < len(want)


def test_board_try_place_takes_the_nearest_free_place_and_records_it():
    board = plots._Board.of([100.0], [50.0], width=300, height=100, radius=5.0, font_size=10, pad=2.0)
    first = board.try_place(0, "alpha")
    assert first is not None and first.leader is None and first.cx > 100  # right of the point, touching it
    board.add(first)
    second = board.try_place(0, "alpha")  # the right is taken now: the next candidate, the left
    assert second is not None and second.cx < 100 and not _overlaps(first.box, second.box)
    assert len(board.placed) == 1


def test_place_labels_numbers_follow_the_key_limit_and_the_given_tags():
    x, y = np.full(60, 100.0) + np.arange(60) % 6, np.full(60, 100.0) + np.arange(60) // 6
    tags = [f"t{i}" for i in range(60)]
    ps = plots.place_labels(x, y, [f"model-{i:02d}" for i in range(60)], width=200, height=200, key_max=3, tags=tags)
    numbered = [p for p in ps if p.kind == "number"]
    assert 0 < len(numbered) <= 3 and all(p.text == tags[p.index] for p in numbered)
    placed = [p for p in ps if p.kind]
    assert not any(_overlaps(a.box, b.box) for a, b in itertools.combinations(placed, 2))


# ---- plots.scatter_chart's steps ----------------------------------------------------------------------------------


def test_label_rows_anchor_at_the_edge_nearest_the_point_and_convert_to_data_units():
    dom, w, h = [50.0, 90.0], 400, 200
    places = [
        plots.Placement(0, "name", "right-of", cx=130.0, cy=40.0, w=40.0, h=16.0),  # box 110-150, point at 100
        plots.Placement(1, "number", "1", cx=80.0, cy=60.0, w=20.0, h=16.0, leader=(100.0, 60.0, 90.0, 60.0)),
        plots.Placement(2, "name", "over", cx=200.0, cy=100.0, w=40.0, h=16.0),  # spans its point
        plots.Placement(3, None, "none"),
    ]
    text, lead, key = plots._label_rows(places, ["a", "b", "c", "d"], [100.0, 100.0, 200.0, 0.0], dom=dom,
                                        width=w, height=h)  # fmt: skip
    assert [r["align"] for r in text] == ["left", "right", "center"]
    to_x = lambda v: 50.0 + v / w * 40.0  # noqa: E731 - the pixel -> data map written out
    to_y = lambda v: 50.0 + (h - v) / h * 40.0  # noqa: E731
    assert [r["lx"] for r in text] == pytest.approx([to_x(110.0), to_x(90.0), to_x(200.0)])
    assert [r["ly"] for r in text] == pytest.approx([to_y(40.0), to_y(60.0), to_y(100.0)])
    assert key == ["1  b"]
    assert lead == [pytest.approx({"x": to_x(100.0), "y": to_y(60.0), "x2": to_x(90.0), "y2": to_y(60.0)})]


def test_text_layers_one_per_alignment_and_a_key_only_with_numbers():
    import altair as alt

    rows = [
        {"lx": 1.0, "ly": 1.0, "text": "a", "name": "a", "kind": "name", "align": "left"},
        {"lx": 2.0, "ly": 2.0, "text": "1", "name": "b", "kind": "number", "align": "right"},
    ]
    with_key = [c.to_dict() for c in plots._text_layers(rows, ["1  b"], scale=alt.Scale(), key_title="k",
                                                        key_label_limit=0)]  # fmt: skip
    assert [c["mark"]["align"] for c in with_key] == ["left", "right"]
    assert with_key[0]["encoding"]["opacity"]["scale"]["domain"] == ["1  b"]
    assert with_key[0]["encoding"]["opacity"]["legend"]["labelLimit"] == 0
    plain = plots._text_layers(rows[:1], [], scale=alt.Scale(), key_title="k", key_label_limit=None)
    assert len(plain) == 1 and "opacity" not in plain[0].to_dict()["encoding"]


def test_scatter_counts_its_unlabelled_points_in_the_subtitle():
    import pandas as pd

    n = 60
    d = pd.DataFrame({"m": [f"model-{i:02d}" for i in range(n)], "a": 70 + np.arange(n) % 6 * 0.01,
                      "c": 80 + np.arange(n) // 6 * 0.01})  # fmt: skip
    spec = plots.scatter_chart(d, x="a", y="c", label="m", x_title="x", y_title="y", title="T").to_dict()
    texts = [ly for ly in spec["layer"] if ly["mark"]["type"] == "text"]
    shown = sum(len(spec["datasets"][ly["data"]["name"]]) for ly in texts)
    m = re.fullmatch(r"(\d+) points unlabelled for lack of room, named in the tooltip", spec["title"]["subtitle"])
    assert m and int(m.group(1)) == n - shown > 0
    assert plots._scatter_title("T", 1).subtitle.startswith("1 point unlabelled")
    assert plots._scatter_title("T", 0) == "T" and len(NAMES) == 11
