"""The report's charts, built once for every surface: the HTML page, ``selfconf report --figures DIR`` and the book.

* :func:`scatter_chart` - one point per model, the calibration diagonal, labels placed so that no two overlap
  (:func:`place_labels`); the report's overconfidence scatter and the book's Figure 1 are both drawn by it;
* :func:`overconfidence_chart`, :func:`reliability_chart`, :func:`risk_coverage_chart` - the report's three charts
  (per group as small multiples under ``--by``: :func:`figures`);
* :func:`figures` - every chart of a report table, by name (altair charts);
* :func:`write_figures` - each of them as SVG, PNG and PDF with vl-convert (altair's static exporter), no browser
  and no network (``allowed_base_urls=[]``: the renderer may fetch nothing; every dataset is inline).

altair is imported inside the functions, so that ``selfconf report --json`` never loads it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:  # pandas and altair are imported inside the functions: `selfconf report --json` loads neither
    import pandas as pd

__all__ = [
    "FACET_MAX",
    "CURVE_POINTS",
    "FIGURE_FORMATS",
    "KEY_MAX",
    "LABEL_FONT_SIZE",
    "curve_points",
    "text_width",
    "Placement",
    "place_labels",
    "fitted_domain",
    "scatter_chart",
    "reliability_frame",
    "reliability_chart",
    "risk_coverage_chart",
    "model_marks",
    "overconfidence_chart",
    "figures",
    "write_figures",
    "render",
    "vl_version",
]

#: Up to this many models the reliability diagrams are small multiples on the HTML page; above it, one diagram
#: with a model selector (a tangle of 50 lines reads as nothing). Static figures are always small multiples.
FACET_MAX = 12
#: Most points drawn per model on the risk–coverage curve: a longer curve (one point per distinct
#: confidence, e.g. token probabilities) is evaluated at this many evenly spaced coverages.
CURVE_POINTS = 101
#: The formats :func:`write_figures` writes, each by vl-convert.
FIGURE_FORMATS = ("svg", "png", "pdf")
#: At most this many points get a number tag and an entry in the key; the rest of the unlabelled points are
#: named in the tooltip only (the chart's subtitle counts them).
KEY_MAX = 40
#: Font size (px) of a point's label; number tags use the same size.
LABEL_FONT_SIZE = 10
#: A model's line on a chart with one line per model: ten colours (Vega's ``tableau10``, its default for a nominal
#: field) and, for each further block of ten models, the next stroke dash (solid, dashed, dotted, dash-dot), so
#: that up to 40 models have distinct (colour, dash) pairs; the default scheme alone repeats from the 11th.
MODEL_COLOURS = (
    "#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac",
)  # fmt: skip
MODEL_DASHES: tuple[tuple[int, ...], ...] = ((1, 0), (6, 3), (2, 2), (8, 3, 2, 3))

# Advance widths (1/1000 em) of the printable ASCII characters, space to tilde: per character the larger of
# Helvetica's (Adobe AFM; Arial and Liberation Sans, which vl-convert renders with, share these metrics) and
# DejaVu Sans's (the sans-serif of many Linux browsers), so that a label measured here is never narrower than it
# is drawn by either. Any other character counts one em.
_WIDTHS = [
    int(w)
    for w in (
        "318 401 460 838 636 950 780 275 390 390 500 838 318 361 318 337 636 636 636 636 636 636 636 636 636 636 "
        "337 337 838 838 838 556 1015 684 686 722 770 667 611 778 752 295 500 667 557 863 748 787 667 787 722 667 "
        "611 732 684 989 685 667 685 390 337 390 838 556 500 613 635 550 635 615 352 635 634 278 278 579 278 974 "
        "634 612 635 635 411 521 392 634 592 818 592 592 525 636 337 636 838"
    ).split()
]


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
    cov = np.asarray(coverage, float)
    rk = np.asarray(risk, float)
    if cov.size <= max_points:
        return cov.tolist(), rk.tolist()
    errors = np.concatenate([[0.0], cov * rk])  # errors per row of the whole unit, at each group end
    grid = np.linspace(cov[0], 1.0, max_points)
    e = np.interp(grid, np.concatenate([[0.0], cov]), errors)
    return grid.tolist(), (e / grid).tolist()


def text_width(text: str, font_size: float) -> float:
    """Width in px of ``text`` at ``font_size`` px: the sum of its characters' advance widths (the larger of
    Helvetica's and DejaVu Sans's per character; one em for any other character).

    Reference: Adobe's Helvetica font metrics (AFM) and DejaVu Sans 2.37's ``hmtx`` table.

    >>> text_width("WW", 10)
    19.78
    >>> text_width("", 10)
    0.0
    """
    return round(sum(_WIDTHS[o - 32] if 32 <= (o := ord(ch)) < 127 else 1000 for ch in text) * font_size / 1000, 4)


@dataclass(frozen=True)
class Placement:
    """Where :func:`place_labels` put one point's label: ``kind`` is ``"name"`` (the label itself), ``"number"``
    (a number tag, named in the key) or ``None`` (not placed); ``cx``/``cy`` the box's centre and ``w``/``h`` its
    size in px; ``leader`` the segment (px) from the point's edge to the box when the box is not next to its point.
    """

    index: int
    kind: str | None
    text: str
    cx: float = math.nan
    cy: float = math.nan
    w: float = 0.0
    h: float = 0.0
    leader: tuple[float, float, float, float] | None = None

    @property
    def box(self) -> tuple[float, float, float, float]:
        """The box as (x0, y0, x1, y1) in px."""
        return (self.cx - self.w / 2, self.cy - self.h / 2, self.cx + self.w / 2, self.cy + self.h / 2)


def _candidates(px: float, py: float, r: float, w: float, h: float, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Candidate box centres around a point, nearest first: the eight places touching the point (no leader),
    then rings 12, 24, 36 and 52 px further out at 16 angles (with a leader line). Returns (centres, ringed)."""
    d = r + gap
    diag = d / math.sqrt(2)
    near = [
        (px + d + w / 2, py),  # right
        (px - d - w / 2, py),  # left
        (px, py - d - h / 2),  # above
        (px, py + d + h / 2),  # below
        (px + diag + w / 2, py - diag - h / 2),
        (px - diag - w / 2, py - diag - h / 2),
        (px + diag + w / 2, py + diag + h / 2),
        (px - diag - w / 2, py + diag + h / 2),
    ]
    far = []
    for extra in (12.0, 24.0, 36.0, 52.0):
        for k in range(16):
            a = 2 * math.pi * k / 16
            ca, sa = math.cos(a), math.sin(a)
            far.append((px + ca * (d + extra + w / 2), py - sa * (d + extra + h / 2)))
    c = np.array(near + far)
    return c, np.r_[np.zeros(len(near), bool), np.ones(len(far), bool)]


def _leader(
    px: float, py: float, r: float, box: tuple[float, float, float, float]
) -> tuple[float, float, float, float]:
    """Segment from the point's edge towards the nearest point of ``box``."""
    x0, y0, x1, y1 = box
    qx, qy = min(max(px, x0), x1), min(max(py, y0), y1)
    dx, dy = qx - px, qy - py
    dist = math.hypot(dx, dy) or 1.0
    return (px + dx / dist * r, py + dy / dist * r, qx, qy)


def _segment_hits(seg: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """For each segment (rows of x0, y0, x1, y1) whether it crosses any of ``boxes`` (sampled at 16 points)."""
    if len(boxes) == 0 or len(seg) == 0:
        return np.zeros(len(seg), bool)
    t = np.linspace(0.05, 0.95, 16)
    xs = seg[:, [0]] + (seg[:, [2]] - seg[:, [0]]) * t  # (S, 16)
    ys = seg[:, [1]] + (seg[:, [3]] - seg[:, [1]]) * t
    inside = (
        (xs[:, :, None] > boxes[None, None, :, 0])
        & (xs[:, :, None] < boxes[None, None, :, 2])
        & (ys[:, :, None] > boxes[None, None, :, 1])
        & (ys[:, :, None] < boxes[None, None, :, 3])
    )
    return inside.any(axis=(1, 2))


def place_labels(
    x: Sequence[float],
    y: Sequence[float],
    labels: Sequence[str],
    *,
    width: float,
    height: float,
    radius: float = 5.0,
    font_size: float = LABEL_FONT_SIZE,
    eligible: Sequence[bool] | None = None,
    key_max: int = KEY_MAX,
    pad: float = 2.0,
    tags: Sequence[str] | None = None,
) -> list[Placement]:
    """Place a label beside each point (pixel coordinates, y down) so that no two label boxes overlap, no box
    covers a point and every box lies inside the ``width`` x ``height`` plot.

    Definition (greedy, in the order given): for each eligible point the label's box (:func:`text_width` wide,
    1.2 font sizes tall, ``pad`` px around) is tried at the eight places touching the point, then on four rings
    further out with a leader line; the first place that overlaps no placed box, no point, no placed leader line
    and whose leader crosses no placed box is taken. A point whose label finds no place gets a number tag
    (``1``, ``2``, ... in the order given, or ``tags[i]``) placed by the same rule, up to ``key_max`` tags; the
    caller lists the numbers in a key (the legend for the rest). Points not ``eligible`` get no label but are
    still avoided.

    Reference: the point-feature label placement problem (Christensen, Marks & Shieber 1995), here solved
    greedily with a fixed candidate set.

    >>> p = place_labels([50, 52], [50, 50], ["alpha", "beta"], width=200, height=100)
    >>> [q.kind for q in p]
    ['name', 'name']
    >>> a, b = p[0].box, p[1].box
    >>> a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    True
    """
    board = _Board.of(x, y, width=width, height=height, radius=radius, font_size=font_size, pad=pad)
    n = len(board.px)
    elig = np.ones(n, bool) if eligible is None else np.asarray(eligible, bool)
    todo = [i for i in range(n) if elig[i] and board.ok[i]]
    out: dict[int, Placement] = {}
    for i in todo:  # first pass: every label by name, in the order given
        p = board.try_place(i, str(labels[i]))
        if p is not None:
            out[i] = board.add(p)
    number = 0
    for i in (i for i in todo if i not in out):  # second pass: a number tag for each label without room
        p = None if number >= key_max else board.try_place(i, str(number + 1) if tags is None else str(tags[i]))
        if p is None:
            out[i] = Placement(i, None, str(labels[i]))
            continue
        number += 1
        out[i] = board.add(Placement(i, "number", p.text, p.cx, p.cy, p.w, p.h, p.leader))
    return [out.get(i, Placement(i, None, str(labels[i]))) for i in range(n)]


@dataclass
class _Board:
    """The plot as :func:`place_labels` fills it: the points (px, y down), the label geometry, and the boxes and
    leader lines placed so far (``placed``, ``leaders``), which every later label avoids.

    >>> b = _Board.of([10.0], [10.0], width=100, height=50, radius=5.0, font_size=10, pad=2.0)
    >>> (b.h, b.r, b.point_boxes.tolist())
    (16.0, 6.0, [[4.0, 4.0, 16.0, 16.0]])
    """

    px: np.ndarray
    py: np.ndarray
    ok: np.ndarray  # the point has finite coordinates
    width: float
    height: float
    radius: float
    font_size: float
    pad: float
    h: float  # a label box's height
    r: float  # a point's half-size as an obstacle (radius + 1 px)
    point_boxes: np.ndarray
    placed: list[np.ndarray]
    leaders: list[tuple[float, float, float, float]]

    @classmethod
    def of(cls, x, y, *, width, height, radius, font_size, pad) -> _Board:
        """An empty board for the points (``x``, ``y``); a point with a non-finite coordinate is no obstacle."""
        px = np.asarray(x, float)
        py = np.asarray(y, float)
        ok = np.isfinite(px) & np.isfinite(py)
        h = 1.2 * font_size + 2 * pad
        r = radius + 1.0
        point_boxes = np.c_[px - r, py - r, px + r, py + r][ok]
        return cls(px, py, ok, width, height, radius, font_size, pad, h, r, point_boxes, [], [])

    def add(self, p: Placement) -> Placement:
        """Record a placed label (its box and leader become obstacles); return it."""
        self.placed.append(np.array([p.box]))
        if p.leader:
            self.leaders.append(p.leader)
        return p

    def free(self, boxes: np.ndarray) -> np.ndarray:
        """Which candidate ``boxes`` (rows of x0, y0, x1, y1) lie inside the plot, overlap no point and no placed
        box, and are crossed by no placed leader line.

        >>> b = _Board.of([10.0], [10.0], width=100, height=50, radius=5.0, font_size=10, pad=2.0)
        >>> b.free(np.array([[20.0, 2.0, 40.0, 18.0], [0.0, 0.0, 12.0, 12.0], [90.0, 40.0, 110.0, 56.0]])).tolist()
        [True, False, False]
        """
        good = (boxes[:, 0] >= 0) & (boxes[:, 1] >= 0) & (boxes[:, 2] <= self.width) & (boxes[:, 3] <= self.height)
        obstacles = np.vstack([self.point_boxes, *self.placed]) if self.placed else self.point_boxes
        hit = (
            (boxes[:, None, 0] < obstacles[None, :, 2])
            & (boxes[:, None, 2] > obstacles[None, :, 0])
            & (boxes[:, None, 1] < obstacles[None, :, 3])
            & (boxes[:, None, 3] > obstacles[None, :, 1])
        ).any(axis=1)
        good &= ~hit
        if self.leaders:
            segs = np.array(self.leaders)
            good &= ~np.array(
                [_segment_hits(segs, b[None, :])[0] if g else True for b, g in zip(boxes, good, strict=True)]
            )
        return good

    def try_place(self, i: int, text: str) -> Placement | None:
        """The first free place (:func:`_candidates`, nearest first; :meth:`free`) for ``text`` beside point
        ``i`` whose leader line, if it needs one, crosses no placed box and no other point; ``None`` if none."""
        px, py, r = self.px, self.py, self.r
        w = text_width(text, self.font_size) + 2 * self.pad
        h = self.h
        c, ringed = _candidates(px[i], py[i], self.radius, w, h, gap=2.0)
        boxes = np.c_[c[:, 0] - w / 2, c[:, 1] - h / 2, c[:, 0] + w / 2, c[:, 1] + h / 2]
        for j in np.flatnonzero(self.free(boxes)):
            box = tuple(float(v) for v in boxes[j])
            lead = _leader(px[i], py[i], r, box) if ringed[j] else None  # type: ignore[arg-type]
            if lead is not None:
                others = np.vstack(self.placed) if self.placed else np.empty((0, 4))
                # the leader may cross neither a placed label nor another point
                own = (self.point_boxes[:, 0] == px[i] - r) & (self.point_boxes[:, 1] == py[i] - r)
                if _segment_hits(np.array([lead]), np.vstack([others, self.point_boxes[~own]]))[0]:
                    continue
            return Placement(i, "name", text, float(c[j, 0]), float(c[j, 1]), w, h, lead)
        return None


def fitted_domain(values: Sequence[float], *, step: float = 5.0, lo: float = 0.0, hi: float = 100.0) -> list[float]:
    """A common axis domain for both axes of a chart with a diagonal: from the smallest to the largest value,
    widened by 5 % of the range (at least 2 units) and rounded outwards to ``step``, within [``lo``, ``hi``].

    Both axes get the same domain so that the calibration diagonal stays the line y = x through the plot.

    >>> fitted_domain([66.2, 71.0, 88.4])
    [60.0, 95.0]
    >>> fitted_domain([0.5, 99.0])
    [0.0, 100.0]
    """
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], float)
    if v.size == 0:
        return [lo, hi]
    a, b = float(v.min()), float(v.max())
    m = max(2.0, 0.05 * (b - a))
    return [max(lo, math.floor((a - m) / step) * step), min(hi, math.ceil((b + m) / step) * step)]


def scatter_chart(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    label: str,
    x_title: str,
    y_title: str,
    title: str,
    domain: Sequence[float] | None = None,
    width: int = 420,
    height: int = 380,
    size: int = 90,
    color: Any = None,
    shape: Any = None,
    tooltip: list | None = None,
    eligible: Sequence[bool] | None = None,
    below: Sequence[Any] = (),
    key_title: str = "numbered points",
    mark: str = "circle",
    numbers: dict[str, int] | None = None,
    key_label_limit: int | None = None,
):
    """One point per row at (``x``, ``y``) with the dashed diagonal y = x and a label per point placed by
    :func:`place_labels` (no two labels overlap; a label that finds no room becomes a number tag named in a
    key, the legend for the rest). The report's overconfidence scatter and the book's Figure 1 are this chart.

    ``domain`` is both axes' domain (default :func:`fitted_domain` of every x and y value; the diagonal is drawn
    across it); ``eligible`` marks the rows that get labels (default all; others are left to the colour
    legend); ``color``/``shape`` are altair encodings (default one colour); ``below`` are layers drawn under the
    points (e.g. a shaded span). Label positions are computed for ``width`` x ``height`` px and stored in data
    units, anchored at the edge nearest their point, so they hold at that size and a page that redraws the chart
    narrower keeps each label beside its point (labels may then come closer to each other).
    ``numbers`` (label -> number) fixes each point's tag and puts every numbered label in the key, so that the
    panels of a concatenation share one key. ``key_label_limit`` is the key's label width in px (0: no limit, for
    static figures; default Vega's 160 px, so that a page redrawn for a phone keeps the key inside the window).

    Reference: Chernets (2026), Figure 1 (accuracy against stated confidence, one point per model).

    >>> import pandas as pd
    >>> d = pd.DataFrame({"m": ["a", "b"], "acc": [60.0, 70.0], "conf": [80.0, 85.0]})
    >>> spec = scatter_chart(d, x="acc", y="conf", label="m", x_title="x", y_title="y", title="t").to_dict()
    >>> spec["layer"][0]["encoding"]["x"]["scale"]["domain"]
    [55.0, 90.0]
    """
    import altair as alt

    df = df.reset_index(drop=True)
    dom = [float(v) for v in (domain if domain is not None else fitted_domain([*df[x], *df[y]]))]
    span = dom[1] - dom[0]
    to_px_x = (df[x].astype(float) - dom[0]) / span * width
    to_px_y = height - (df[y].astype(float) - dom[0]) / span * height
    places = place_labels(
        to_px_x.tolist(), to_px_y.tolist(), df[label].astype(str).tolist(), width=width, height=height,
        radius=math.sqrt(size / math.pi), eligible=eligible,
        tags=None if numbers is None else [str(numbers[str(v)]) for v in df[label]],
    )  # fmt: skip
    names = [str(v) for v in df[label]]
    text_rows, lead_rows, key = _label_rows(places, names, to_px_x.tolist(), dom=dom, width=width, height=height)
    scale = alt.Scale(domain=dom, nice=False, zero=False)
    layers = _point_layers(df, x=x, y=y, x_title=x_title, y_title=y_title, dom=dom, scale=scale, size=size,
                           mark=mark, color=color, shape=shape, tooltip=tooltip, below=below)  # fmt: skip
    if lead_rows:
        import pandas as pd

        layers.append(
            alt.Chart(pd.DataFrame(lead_rows))
            .mark_rule(color="#777", strokeWidth=0.8)
            .encode(x=alt.X("x:Q", scale=scale), y=alt.Y("y:Q", scale=scale), x2="x2:Q", y2="y2:Q")
        )
    if text_rows:
        if numbers is not None and key:
            key = [f"{k}  {m}" for m, k in sorted(numbers.items(), key=lambda kv: kv[1])]
        layers += _text_layers(text_rows, key, scale=scale, key_title=key_title, key_label_limit=key_label_limit)
    unplaced = [p for p in places if p.kind is None and (eligible is None or bool(list(eligible)[p.index]))]
    return alt.layer(*layers).properties(width=width, height=height, title=_scatter_title(title, len(unplaced)))


def _label_rows(
    places: Sequence[Placement],
    names: Sequence[str],
    px_x: Sequence[float],
    *,
    dom: Sequence[float],
    width: float,
    height: float,
) -> tuple[list[dict], list[dict], list[str]]:
    """The placed labels in data units: (text rows, leader rows, key entries ``"<tag>  <name>"`` of the number
    tags).  A text row is anchored at its box's edge nearest its point (``align`` left/right, or center when the
    box spans the point), so that a chart redrawn narrower keeps the text off the point.

    >>> p = Placement(0, "name", "a", cx=60.0, cy=50.0, w=20.0, h=10.0)
    >>> _label_rows([p], ["a"], [45.0], dom=[0.0, 100.0], width=100, height=100)[0]
    [{'lx': 50.0, 'ly': 50.0, 'text': 'a', 'name': 'a', 'kind': 'name', 'align': 'left'}]
    """
    span = dom[1] - dom[0]

    def data_x(v: float) -> float:
        return dom[0] + v / width * span

    def data_y(v: float) -> float:
        return dom[0] + (height - v) / height * span

    text_rows, lead_rows, key = [], [], []
    for p in places:
        if p.kind is None:
            continue
        name = names[p.index]
        x = float(px_x[p.index])
        side = "left" if p.cx - p.w / 2 >= x else "right" if p.cx + p.w / 2 <= x else "center"
        ax = p.cx - p.w / 2 if side == "left" else p.cx + p.w / 2 if side == "right" else p.cx
        text_rows.append(
            {"lx": data_x(ax), "ly": data_y(p.cy), "text": p.text, "name": name, "kind": p.kind, "align": side}
        )
        if p.kind == "number":
            key.append(f"{p.text}  {name}")
        if p.leader:
            x0, y0, x1, y1 = p.leader
            lead_rows.append({"x": data_x(x0), "y": data_y(y0), "x2": data_x(x1), "y2": data_y(y1)})
    return text_rows, lead_rows, key


def _point_layers(
    df: pd.DataFrame, *, x, y, x_title, y_title, dom, scale, size, mark, color, shape, tooltip, below
) -> list[Any]:
    """The layers under the labels: the dashed diagonal across ``dom`` (carrying the axis titles), the ``below``
    layers, then the points (``mark`` "circle", or "point" for filled shapes), encoded by ``color``, ``shape``
    and ``tooltip`` when given.

    >>> import altair as alt, pandas as pd
    >>> d = pd.DataFrame({"a": [1.0], "b": [2.0]})
    >>> ls = _point_layers(d, x="a", y="b", x_title="X", y_title="Y", dom=[0.0, 5.0], scale=alt.Scale(),
    ...                    size=90, mark="circle", color=None, shape=None, tooltip=None, below=())
    >>> [layer.to_dict()["mark"]["type"] for layer in ls]
    ['line', 'circle']
    """
    import altair as alt
    import pandas as pd

    diag = (
        alt.Chart(pd.DataFrame({"x": dom, "y": dom}))
        .mark_line(strokeDash=[4, 4], color="gray", clip=True)
        .encode(x=alt.X("x:Q", scale=scale, title=x_title), y=alt.Y("y:Q", scale=scale, title=y_title))
    )
    enc: dict[str, Any] = {"x": alt.X(f"{x}:Q", scale=scale), "y": alt.Y(f"{y}:Q", scale=scale)}
    if color is not None:
        enc["color"] = color
    if shape is not None:
        enc["shape"] = shape
    if tooltip is not None:
        enc["tooltip"] = tooltip
    base = alt.Chart(df)
    if mark == "point":
        pts = base.mark_point(filled=True, size=size).encode(**enc)
    else:
        pts = base.mark_circle(size=size, opacity=0.9, color=alt.Undefined if color is not None else "#4c78a8")
        pts = pts.encode(**enc)
    return [diag, *below, pts]


def _text_layers(
    text_rows: list[dict], key: list[str], *, scale: Any, key_title: str, key_label_limit: int | None
) -> list[Any]:
    """The label layers, one per alignment (a mark's align is not a channel); with number tags, the key as a
    legend (an opacity legend whose entries are the ``key`` strings, every one drawn at opacity 1).

    >>> import altair as alt
    >>> rows = [{"lx": 1.0, "ly": 2.0, "text": "1", "name": "m", "kind": "number", "align": "left"}]
    >>> ls = _text_layers(rows, ["1  m"], scale=alt.Scale(), key_title="k", key_label_limit=None)
    >>> ls[0].to_dict()["encoding"]["opacity"]["legend"]["title"]
    'k'
    """
    import altair as alt
    import pandas as pd

    tx = pd.DataFrame(text_rows)
    text_enc: dict[str, Any] = {
        "x": alt.X("lx:Q", scale=scale),
        "y": alt.Y("ly:Q", scale=scale),
        "text": "text:N",
        "tooltip": [alt.Tooltip("name:N", title="model")],
    }
    if key:
        order = list(key)
        tx["key"] = [
            f"{t}  {m}" if k == "number" else None for t, m, k in zip(tx["text"], tx["name"], tx["kind"], strict=True)
        ]
        text_enc["opacity"] = alt.Opacity(
            "key:N",
            scale=alt.Scale(domain=order, range=[1.0] * len(order)),
            legend=alt.Legend(
                title=key_title,
                symbolOpacity=0,
                symbolSize=0,
                labelLimit=alt.Undefined if key_label_limit is None else key_label_limit,
            ),
        )
    layers = []
    sides: tuple[Literal["left", "center", "right"], ...] = ("left", "center", "right")
    for side in sides:
        part = tx[tx["align"] == side]
        if len(part):
            layers.append(
                alt.Chart(part.drop(columns="align"))
                .mark_text(align=side, baseline="middle", fontSize=LABEL_FONT_SIZE, color="#222")
                .encode(**text_enc)
            )
    return layers


def _scatter_title(title: str, n_unplaced: int) -> Any:
    """The chart's title; with unlabelled points, a subtitle that counts them (they are named in the tooltip).

    >>> _scatter_title("t", 0)
    't'
    >>> _scatter_title("t", 2).subtitle
    '2 points unlabelled for lack of room, named in the tooltip'
    """
    import altair as alt

    if not n_unplaced:
        return title
    return alt.Title(
        title,
        subtitle=f"{n_unplaced} point{'s' if n_unplaced > 1 else ''} unlabelled for lack of room, named in the tooltip",
    )


def reliability_frame(tab: pd.DataFrame, *, groups: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Long frames (percent units) of the binned reliability points and of the smooth curve with its band, one
    row per model (``groups=True``: per model and group, with a ``group`` column) and bin or grid point."""
    import pandas as pd

    pts, curve = [], []
    for r in tab.to_dict("records"):
        if (r["group"] is not None) != groups or not r["n"]:
            continue
        extra = {"group": r["group"]} if groups else {}
        rel, sm = r["reliability"], r["smooth_reliability"]
        for lo, hi, n, c, a in zip(rel["lo"], rel["hi"], rel["n"], rel["mean_conf"], rel["acc"], strict=False):
            pts.append(
                {
                    "model": r["model"],
                    **extra,
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
                    **extra,
                    "t": 100 * t,
                    "acc": None if a is None else 100 * a,
                    "low": None if lo is None else 100 * lo,
                    "high": None if hi is None else 100 * hi,
                }
            )
    return pd.DataFrame(pts), pd.DataFrame(curve)


def _reliability_domain(pts: pd.DataFrame, curve: pd.DataFrame) -> list[float]:
    vals: list[float] = []
    for f, cols in ((pts, ("mean_conf", "acc")), (curve, ("t", "acc", "low", "high"))):
        for c in cols:
            if c in f:
                vals += [float(v) for v in f[c] if v is not None and np.isfinite(v)]
    return fitted_domain(vals)


def _model_selector(models: list[str]):
    import altair as alt

    return alt.param(name="model_pick", value=models[0], bind=alt.binding_select(options=models, name="model "))


def reliability_chart(
    pts: pd.DataFrame, curve: pd.DataFrame, models: list[str], *, ece_note: str, interactive: bool = True
):
    """Per-model reliability: smooth curve with its bootstrap band, bin points sized by count, the diagonal.

    Both axes share one domain fitted to every drawn value (:func:`fitted_domain`), so the diagonal is kept.
    Small multiples up to :data:`FACET_MAX` models (always when ``interactive`` is false, as in a static
    figure), otherwise one panel with a model selector. Reference: DeGroot & Fienberg (1983); Błasiok & Nakkiran
    (2023) for the smooth curve.

    >>> import pandas as pd
    >>> p = pd.DataFrame({"model": ["a"], "bin": ["60–70"], "n": [5], "mean_conf": [65.0], "acc": [50.0]})
    >>> c = pd.DataFrame({"model": ["a"], "t": [64.0], "acc": [52.0], "low": [40.0], "high": [60.0]})
    >>> reliability_chart(p, c, ["a"], ece_note="10 bins").to_dict()["concat"][0]["title"]
    'a'
    """
    import altair as alt
    import pandas as pd

    dom = _reliability_domain(pts, curve)
    scale = alt.Scale(domain=dom, nice=False, zero=False)
    x = alt.X("t:Q", scale=scale, title="stated confidence")
    band = (
        alt.Chart(curve)
        .mark_area(opacity=0.25, color="#4c78a8", clip=True)
        .encode(x=x, y=alt.Y("low:Q", scale=scale, title="accuracy (%)"), y2="high:Q")
    )
    line = alt.Chart(curve).mark_line(color="#4c78a8", clip=True).encode(x=x, y=alt.Y("acc:Q", scale=scale))
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
        alt.Chart(pd.DataFrame({"t": dom, "acc": dom}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x=alt.X("t:Q", scale=scale), y=alt.Y("acc:Q", scale=scale))
    )
    title = f"Reliability: smooth curve with 95% bootstrap band; dots = {ece_note} (size = answers)"
    if len(models) <= FACET_MAX or not interactive:
        return _facet(diag, band, line, dots, title, key="model")
    pick = _model_selector(models)
    flt = alt.datum.model == pick
    return (
        alt.layer(diag, band.transform_filter(flt), line.transform_filter(flt), dots.transform_filter(flt))
        .add_params(pick)
        .properties(width=420, height=360, title=title)
    )


def _facet(diag, band, line, dots, title, *, key: str):
    """Small multiples via a concatenation per value of ``key`` (layers with different data cannot be faceted)."""
    import altair as alt

    values = sorted(set(band.data[key]) | set(dots.data[key])) if len(band.data) or len(dots.data) else []
    panels = []
    for v in values:
        flt = alt.datum[key] == v
        panels.append(
            alt.layer(
                diag, band.transform_filter(flt), line.transform_filter(flt), dots.transform_filter(flt)
            ).properties(width=220, height=190, title=str(v))
        )
    return alt.concat(*panels, columns=4).properties(title=title)


def _curve_rows(tab: pd.DataFrame, *, groups: bool = False) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for r in tab.to_dict("records"):
        if (r["group"] is not None) != groups or not r["n"]:
            continue
        c = r["risk_coverage_curve"]
        extra = {"group": r["group"]} if groups else {}
        rows += [
            {"model": r["model"], **extra, "coverage": 100 * cv, "risk": 100 * rk}
            for cv, rk in zip(*curve_points(c["coverage"], c["risk"]), strict=False)
        ]
    return pd.DataFrame(rows)


def model_marks(models: Sequence[str]) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The (colour, stroke dash) of each model's line: model ``i`` (in the order given) gets colour
    ``MODEL_COLOURS[i % 10]`` and dash ``MODEL_DASHES[i // 10]``; distinct for up to 40 models, cycling after.

    Definition: a categorical encoding by two channels, so that no two of the first 40 models share a mark
    (Vega's ten-colour default repeats from the 11th). Reference: Munzner (2014), *Visualization Analysis and
    Design*, ch. 10 (a colour channel distinguishes about ten categories; a second channel extends it).

    >>> m = model_marks([f"m{i}" for i in range(12)])
    >>> m["m0"], m["m10"][0] == m["m0"][0], m["m10"][1]
    (('#4c78a8', (1, 0)), True, (6, 3))
    """
    k = len(MODEL_COLOURS)
    return {m: (MODEL_COLOURS[i % k], MODEL_DASHES[(i // k) % len(MODEL_DASHES)]) for i, m in enumerate(models)}


def _model_line_encoding(models: Sequence[str]) -> dict[str, Any]:
    """``color`` and ``strokeDash`` of a line per model from :func:`model_marks` (one merged legend)."""
    import altair as alt

    marks = model_marks(models)
    dom = list(marks)
    return {
        "color": alt.Color("model:N", scale=alt.Scale(domain=dom, range=[c for c, _ in marks.values()])),
        "strokeDash": alt.StrokeDash(
            "model:N", scale=alt.Scale(domain=dom, range=[list(d) for _, d in marks.values()])
        ),
    }


def risk_coverage_chart(tab: pd.DataFrame, models: list[str], *, interactive: bool = True):
    """Risk–coverage curves (expected over tie orders), one (colour, dash) per model (:func:`model_marks`, in the
    order of ``models``); on the HTML page a model selector above :data:`FACET_MAX` models. Reference: Geifman &
    El-Yaniv (2017).

    Example: ``risk_coverage_chart(from_frame(df, n_boot=100), ["a", "b"])``.
    """
    import altair as alt

    rows = _curve_rows(tab)
    base = (
        alt.Chart(rows)
        .mark_line(point=len(rows) < 400)
        .encode(
            x=alt.X("coverage:Q", title="coverage (%)", scale=alt.Scale(domain=[0, 100])),
            y=alt.Y("risk:Q", title="error rate among covered (%)"),
            tooltip=["model:N", alt.Tooltip("coverage:Q", format=".1f"), alt.Tooltip("risk:Q", format=".1f")],
        )
    )
    if len(models) <= FACET_MAX or not interactive:
        ch = base.encode(**_model_line_encoding(models))
    else:
        pick = _model_selector(models)
        ch = base.transform_filter(alt.datum.model == pick).add_params(pick)
    return ch.properties(width=420, height=300, title="Risk–coverage (answer only the most confident)")


def _scatter_frame(tab: pd.DataFrame, *, groups: bool = False) -> pd.DataFrame:
    keep = tab["group"].notna() if groups else tab["group"].isna()
    cols = ["model", *(["group"] if groups else []), "n", "accuracy", "mean_confidence", "median_confidence"]
    df = tab[(tab["n"] > 0) & keep][[*cols, "citl", "auroc"]].copy()
    for c in ("accuracy", "mean_confidence", "median_confidence", "citl"):
        df[c] = 100 * df[c].astype(float)
    return df.reset_index(drop=True)


def overconfidence_chart(
    tab: pd.DataFrame, *, width: int = 420, height: int = 380, title: str | None = None, static: bool = False
):
    """Mean stated confidence (y) against accuracy (x), one point per model, every point labelled without
    overlap (:func:`scatter_chart`; the report's rows with ``group`` None); ``static``: the key's names are never
    cut (a figure file, not a page). Reference: Chernets (2026), Figure 1.

    Example: ``overconfidence_chart(from_frame(df, n_boot=100))``.
    """
    import altair as alt

    df = _scatter_frame(tab)
    return scatter_chart(
        df,
        x="accuracy",
        y="mean_confidence",
        label="model",
        x_title="accuracy (%)",
        y_title="mean stated confidence (0–100)",
        title=title or "Overconfidence: points above the diagonal state more than they know",
        width=width,
        height=height,
        key_label_limit=0 if static else None,
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


def _by_group_scatter(tab: pd.DataFrame, by: str, *, static: bool = True):
    import altair as alt

    df = _scatter_frame(tab, groups=True)
    dom = fitted_domain([*df["accuracy"], *df["mean_confidence"]])
    numbers = {str(m): i + 1 for i, m in enumerate(sorted(df["model"].unique(), key=str))}
    panels = []
    for g in sorted(df["group"].unique(), key=str):
        sub = df[df["group"] == g]
        ch = scatter_chart(
            sub,
            x="accuracy",
            y="mean_confidence",
            label="model",
            x_title="accuracy (%)",
            y_title="mean stated confidence (0–100)",
            title=f"{by} = {g}",
            domain=dom,
            numbers=numbers,
            key_label_limit=0 if static else None,
            width=260,
            height=240,
            size=60,
            tooltip=["model:N", "group:N", "n:Q", alt.Tooltip("accuracy:Q", format=".1f"),
                     alt.Tooltip("mean_confidence:Q", format=".1f")],
        )  # fmt: skip
        panels.append(ch)
    return alt.concat(*panels, columns=3).properties(title=f"Overconfidence per {by} (one panel per {by})")


def _by_group_reliability(tab: pd.DataFrame, by: str):
    import altair as alt
    import pandas as pd

    pts, curve = reliability_frame(tab, groups=True)
    dom = _reliability_domain(pts, curve)
    scale = alt.Scale(domain=dom, nice=False, zero=False)
    diag = (
        alt.Chart(pd.DataFrame({"t": dom, "acc": dom}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(
            x=alt.X("t:Q", scale=scale, title="stated confidence"), y=alt.Y("acc:Q", scale=scale, title="accuracy (%)")
        )
    )
    line = (
        alt.Chart(curve)
        .mark_line(clip=True)
        .encode(
            x=alt.X("t:Q", scale=scale),
            y=alt.Y("acc:Q", scale=scale),
            color=alt.Color("model:N"),
            tooltip=["model:N", "group:N", alt.Tooltip("t:Q", format=".0f"), alt.Tooltip("acc:Q", format=".1f")],
        )
    )
    panels = [
        alt.layer(diag, line.transform_filter(alt.datum.group == g))
        .properties(width=220, height=190, title=f"{by} = {g}")
        for g in sorted(curve["group"].unique(), key=str)
    ] if len(curve) else []  # fmt: skip
    return alt.concat(*panels, columns=4).properties(title=f"Reliability per {by}: smooth curve per model")


def _report_order(tab: pd.DataFrame, rows: pd.DataFrame) -> list[str]:
    """The models of ``rows`` in the order of the report's overall rows (as :func:`figures` passes them), so that
    a model keeps its mark from chart to chart; a model with no overall row follows, by name."""
    drawn = set(rows["model"]) if len(rows) else set()
    overall = [m for m in tab.loc[tab["group"].isna(), "model"] if m in drawn]
    return list(dict.fromkeys(overall)) + sorted(drawn - set(overall), key=str)


def _by_group_risk(tab: pd.DataFrame, by: str):
    import altair as alt

    rows = _curve_rows(tab, groups=True)
    base = (
        alt.Chart(rows)
        .mark_line()
        .encode(
            x=alt.X("coverage:Q", title="coverage (%)", scale=alt.Scale(domain=[0, 100])),
            y=alt.Y("risk:Q", title="error rate among covered (%)"),
            **_model_line_encoding(_report_order(tab, rows)),
            tooltip=[
                "model:N",
                "group:N",
                alt.Tooltip("coverage:Q", format=".1f"),
                alt.Tooltip("risk:Q", format=".1f"),
            ],
        )
    )
    panels = [
        base.transform_filter(alt.datum.group == g).properties(width=220, height=170, title=f"{by} = {g}")
        for g in sorted(rows["group"].unique(), key=str)
    ] if len(rows) else []  # fmt: skip
    return alt.concat(*panels, columns=4).properties(title=f"Risk–coverage per {by}")


def _table(tab) -> pd.DataFrame:
    return tab.to_frame() if hasattr(tab, "to_frame") else tab


def figures(tab, *, interactive: bool = False) -> dict[str, Any]:
    """Every chart of a report table, as altair charts by name: ``overconfidence`` (the scatter),
    ``reliability`` (small multiples per model), ``riskcoverage``; with ``--by`` rows (``tab.attrs["by"]``) also
    ``overconfidence_by``, ``reliability_by`` and ``riskcoverage_by`` (one panel per group). ``interactive``:
    the HTML page's variants (a model selector above :data:`FACET_MAX` models) instead of static small multiples.

    ``tab`` is :func:`selfconf.report.from_frame`'s DataFrame (or ``compute``'s table).

    Example: ``figures(from_frame(df, by="subject"))["overconfidence_by"].save("by.svg")``.
    """
    tab = _table(tab)
    a = tab.attrs
    models = [r["model"] for r in tab.to_dict("records") if r["group"] is None and r["n"]]
    ece_note = f"{a.get('ece_bins', 10)} {str(a.get('ece_binning', 'equal_width')).replace('_', '-')} bins"
    out: dict[str, Any] = {"overconfidence": overconfidence_chart(tab, static=not interactive)}
    if models:
        pts, curve = reliability_frame(tab)
        out["reliability"] = reliability_chart(pts, curve, models, ece_note=ece_note, interactive=interactive)
        out["riskcoverage"] = risk_coverage_chart(tab, models, interactive=interactive)
    by = a.get("by")
    if by and (tab["group"].notna() & (tab["n"] > 0)).any():
        out["overconfidence_by"] = _by_group_scatter(tab, by, static=not interactive)
        out["reliability_by"] = _by_group_reliability(tab, by)
        out["riskcoverage_by"] = _by_group_risk(tab, by)
    return out


def _no_row_limit():
    """altair's 5,000-row guard off while charts are built: every chart here is a bounded summary
    (bins, a 51-point smooth grid, at most :data:`CURVE_POINTS` points per curve, one point per model)."""
    import altair as alt

    return alt.data_transformers.enable("default", max_rows=None)


def vl_version() -> str:
    """The Vega-Lite version altair writes, as vl-convert names it (``"6.4"``)."""
    import altair as alt

    return ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def write_figures(
    tab, directory: str | Path, *, formats: Sequence[str] = FIGURE_FORMATS, scale: float = 2.0
) -> list[Path]:
    """Write every chart of :func:`figures` into ``directory`` as ``<name>.svg``, ``<name>.png`` (``scale`` x
    the chart's pixel size) and ``<name>.pdf`` with vl-convert; return the paths written.

    Nothing is fetched: every dataset is inline in the spec and vl-convert is called with
    ``allowed_base_urls=[]``, so a spec that referred to any URL would fail instead of reaching the network.
    Fonts are vl-convert's own (Liberation Sans for sans-serif). Reference: vl-convert-python's
    ``vegalite_to_svg`` / ``_png`` / ``_pdf``.

    Example: ``write_figures(from_frame(df, n_boot=100), "figs")`` writes figs/overconfidence.svg, ... .
    """
    bad = [f for f in formats if f not in FIGURE_FORMATS]
    if bad:
        raise ValueError(f"figure format(s) {bad} not supported; choose from {list(FIGURE_FORMATS)}")
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise ValueError(f"--figures {d}: is a file; give a directory (it is created if missing)")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a parent that is a file, no permission, ...: one readable line, no traceback
        raise ValueError(f"--figures {d}: cannot create the directory ({exc.strerror or exc})") from exc
    written = []
    with _no_row_limit():
        specs = {k: c.to_dict() for k, c in figures(tab).items()}
    for name, spec in specs.items():
        for fmt in formats:
            p = d / f"{name}.{fmt}"
            out = render(spec, fmt, scale=scale)
            if isinstance(out, str):
                p.write_text(out, encoding="utf-8")
            else:
                p.write_bytes(out)
            written.append(p)
    return written


def render(spec: dict, fmt: str, *, scale: float = 2.0) -> str | bytes:
    """One Vega-Lite spec as SVG text, PNG bytes or PDF bytes by vl-convert, with every external fetch refused
    (``allowed_base_urls=[]``: a spec naming a data URL is a ``ValueError``, never a network request).

    Reference: vl-convert-python's ``vegalite_to_svg`` / ``_png`` / ``_pdf``.

    Example (not run as a doctest: a render takes seconds; ``tests/test_report_figures.py`` runs it)::

        spec = {"data": {"values": [{"a": 1}]}, "mark": "point"}
        render({**spec, "encoding": {"x": {"field": "a", "type": "quantitative"}}}, "svg")[:4]  # '<svg'

    """
    import vl_convert as vlc

    ver = vl_version()
    if fmt == "svg":
        return vlc.vegalite_to_svg(spec, vl_version=ver, allowed_base_urls=[])
    if fmt == "png":
        return vlc.vegalite_to_png(spec, vl_version=ver, scale=scale, allowed_base_urls=[])
    if fmt == "pdf":
        return vlc.vegalite_to_pdf(spec, vl_version=ver, allowed_base_urls=[])
    raise ValueError(f"figure format {fmt!r} not supported; choose from {list(FIGURE_FORMATS)}")
