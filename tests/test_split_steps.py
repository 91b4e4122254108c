"""The named steps the long statistics and reconstruction functions were split into, each against an
independent computation (plain loops, brute force, exact arithmetic) or the contract it must keep."""

from __future__ import annotations

import importlib
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from selfconf import metrics
from selfconf.reconstruct import arms, fidelity
from selfconf.reconstruct import collection as rc
from selfconf.sections import probe as probe_an
from selfconf.stats import bootstrap as bs

# ------------------------------------------------------------------ metrics.counts_statistics steps


def _rows(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 11, n) / 10  # heavy ties
    y = (rng.random(n) < c).astype(int)
    return c, y


def _tie_groups(c, y):
    """(level, rows, errors) from the most confident down, by a plain loop."""
    groups: dict[float, list[int]] = {}
    for ci, yi in zip(c.tolist(), y.tolist(), strict=True):
        g = groups.setdefault(ci, [0, 0])
        g[0] += 1
        g[1] += 1 - yi
    return [(lv, *groups[lv]) for lv in sorted(groups, reverse=True)]


def _expected_errors_top(c, y, k):
    """Expected, least and most errors among the k most confident rows over all orders of the tied rows."""
    above_rows = above_err = 0
    for _lv, t, e in _tie_groups(c, y):
        if above_rows + t >= k:
            inside = k - above_rows
            return above_err + inside * e / t, above_err + max(0, inside - (t - e)), above_err + min(inside, e)
        above_rows += t
        above_err += e
    raise AssertionError("k beyond n")


@pytest.mark.parametrize("seed", range(5))
def test_counts_risk_coverage_step_equals_a_plain_loop(seed):
    c, y = _rows(seed)
    lv, p, q = metrics.level_counts(c, y)
    P, Q = np.atleast_2d(p.astype(float)), np.atleast_2d(q.astype(float))
    cum = metrics._Cumulative.of(P, Q)
    covs = (1.0, 0.8, 0.6, 0.4, 0.2, 0.05)
    with np.errstate(invalid="ignore", divide="ignore"):
        got = metrics._counts_risk_coverage(Q, cum, covs, "floor")
    for j, cov in enumerate(covs):
        k = max(1, math.floor(round(cov * c.size, 9)))
        mean, lo, hi = _expected_errors_top(c, y, k)
        assert got["risk_coverage"][0, j] == pytest.approx(mean / k, abs=1e-12)
        assert got["risk_coverage_min"][0, j] == pytest.approx(lo / k, abs=1e-12)
        assert got["risk_coverage_max"][0, j] == pytest.approx(hi / k, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_counts_aurc_step_equals_the_sum_over_every_cut(seed):
    c, y = _rows(seed, 120)
    lv, p, q = metrics.level_counts(c, y)
    P, Q = np.atleast_2d(p.astype(float)), np.atleast_2d(q.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        got = metrics._counts_aurc(Q, metrics._Cumulative.of(P, Q))[0]
    want = sum(_expected_errors_top(c, y, k)[0] / k for k in range(1, c.size + 1)) / c.size
    assert got == pytest.approx(want, abs=1e-12)


def test_counts_moments_step_equals_row_formulas():
    c, y = _rows(9, 201)
    lv, p, q = metrics.level_counts(c, y)
    P, Q = np.atleast_2d(p.astype(float)), np.atleast_2d(q.astype(float))
    got = metrics._counts_moments(lv, P, Q, metrics._Cumulative.of(P, Q), median=True)
    assert got["accuracy"][0] == pytest.approx(y.mean())
    assert got["mean_confidence"][0] == pytest.approx(c.mean())
    assert got["median_confidence"][0] == pytest.approx(np.median(c))
    assert got["brier"][0] == pytest.approx(np.mean((c - y) ** 2))
    assert got["citl"][0] == pytest.approx(c.mean() - y.mean())


@pytest.mark.parametrize("binning", ["equal_width", "equal_mass"])
@pytest.mark.parametrize("edge", ["upper", "lower"])
def test_level_bins_are_the_bins_reliability_bins_uses(binning, edge):
    c, y = _rows(4, 500)
    lv, p, q = metrics.level_counts(c, y)
    o = metrics.EceOptions(n_bins=7, binning=binning, edge=edge)
    b = metrics._level_bins(lv, np.atleast_2d((p + q).astype(float)), o)[0]
    n_per_bin = np.bincount(b, weights=p + q)
    rb = metrics.reliability_bins(c, y, **o.as_kwargs())
    np.testing.assert_array_equal(n_per_bin[n_per_bin > 0], rb["n"][rb["n"] > 0])


# ------------------------------------------------------------------ bootstrap.percentile_ci steps


def test_row_aligned_names_the_bad_array():
    with pytest.raises(ValueError, match=r"arrays\[1\] has length 2"):
        bs._row_aligned(([1, 2, 3], [1, 2]))
    with pytest.raises(ValueError, match=r"arrays\[0\]: expected a 1-D array"):
        bs._row_aligned((np.zeros((2, 2)),))


def test_in_chunks_refuses_a_statistic_with_the_wrong_count():
    with pytest.raises(ValueError, match="returned 1 values for 3 resamples"):
        bs._in_chunks(lambda a, b: [0.0], 3, 5, "resamples")
    got = bs._in_chunks(lambda a, b: np.arange(a, b), 10, 3, "resamples")
    assert got.tolist() == list(range(10))  # the chunking never changes the draws


def test_cluster_draws_batched_equal_explicit_resamples():
    rng = np.random.default_rng(5)
    s = rng.integers(0, 6, 90).astype(float)
    y = rng.integers(0, 2, 90)
    items = np.repeat(np.arange(30), 3)
    mult = bs.cluster_multiplicities(30, 40, np.random.default_rng(1))
    e1, d1 = bs._cluster_draws(metrics.auroc_weighted, [s, y], items, mult, True, 7)
    e2, d2 = bs._cluster_draws(metrics.auroc, [s, y], items, mult, False, 7)
    assert e1 == pytest.approx(e2)
    np.testing.assert_allclose(d1, d2, rtol=0, atol=1e-12)


# ------------------------------------------------------------------ reconstruct.collection.tune_structure steps


def test_scan_refine_finds_the_grid_minimum_by_brute_force():
    def loss(x):
        return abs(math.sin(7 * x)) + 0.1 * x

    coarse = [round(float(x), 4) for x in np.linspace(0.0, 0.99, 34)]
    x0 = min(coarse, key=lambda x: (loss(x), x))
    fine = [round(float(x), 4) for x in np.linspace(max(0.0, x0 - 0.03), min(0.99, x0 + 0.03), 13)]
    want = min(coarse + fine, key=lambda x: (loss(x), x))
    assert rc._scan_refine(loss) == want


def test_target_interval_narrows_the_panel_auroc_by_the_printed_difference():
    ivs = {
        "cn_panel_auroc": (0.60, 0.70),
        "cn_panel_vs_self_delta": (0.02, 0.05),
        "cn_panel_auroc_labelfree": (0.5, 0.6),
    }
    T = SimpleNamespace(interval=ivs.__getitem__)
    assert rc._target_interval(T, "CN", "panel_auroc", 0.62) == pytest.approx((0.64, 0.67))
    assert rc._target_interval(T, "CN", "panel_auroc", 0.70) == (0.60, 0.70)  # no overlap: the claim's own
    assert rc._target_interval(T, "CN", "panel_auroc_labelfree", 0.62) == (0.5, 0.6)


def test_fill_unpaneled_gives_the_mean_and_keeps_fitted_values():
    s = rc.Structure()
    s.loading.update({rc.FRONTIER[0]: 0.2, rc.FRONTIER[1]: 0.6})
    s.variant_rate.update({rc.FRONTIER[0]: 0.1})
    rc._fill_unpaneled(s)
    assert s.loading[rc.FRONTIER[0]] == 0.2
    assert s.loading[rc.LOCAL[0]] == pytest.approx(0.4)
    assert set(s.loading) == set(rc.FRONTIER + rc.LOCAL)
    assert s.variant_rate[rc.LOCAL[-1]] == pytest.approx(0.1)


def test_set_group_sets_every_member():
    s = rc.Structure()
    rc._set_group(s, "wrong_sharing", "US", 1.3)
    assert {s.wrong_sharing[m] for m in rc.PANEL_GROUPS["US"]} == {1.3}


# ------------------------------------------------------------------ reconstruct.fidelity.compute_values steps


def test_accuracy_gap_equals_a_plain_difference_of_means():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, (6, 50)).astype(float)
    g = np.tile(np.r_[np.ones(20, int), np.zeros(30, int)], (6, 1))
    want = [100 * (row[:20].mean() - row[20:].mean()) for row in y]
    np.testing.assert_allclose(fidelity._accuracy_gap_pp(y, g), want)


def test_design_and_local_steps_count_a_small_frame():
    df = pd.DataFrame(
        {
            "tier": ["frontier"] * 3 + ["local"] * 4,
            "model": ["a", "a", "b", "x", "x", "y", "y"],
            "item_id": ["i1", "i2", "i1", "i1", "i2", "i1", "i3"],
            "correct": [1, 0, 1, 1, 1, 0, 1],
            "confidence": [90, 80, 70, 60, 50, 40, 100],
        }
    )
    d = fidelity._design_counts(df, df)
    assert (d["design_n_models"], d["design_n_providers"], d["design_n_local_models"], d["design_n_items"]) == (
        4,
        2,
        2,
        3,
    )
    assert (d["design_n_graded_frontier"], d["design_n_graded_local"]) == (3, 4)
    loc = fidelity._local_tier(df[df["tier"] == "local"])
    assert (loc["fig1_local_acc_min"], loc["fig1_local_acc_max"]) == (50.0, 100.0)
    assert (loc["fig1_local_median_conf_min"], loc["fig1_local_median_conf_max"]) == (55.0, 70.0)


# ------------------------------------------------------------------ reconstruct.arms._topic steps


def test_topic_rows_pair_the_arms_of_each_probe():
    yt, ct = np.arange(16) % 2, np.full(16, 80)
    yf, cf = 1 - yt, np.full(16, 30)
    rows = arms._topic_rows("m", np.repeat(np.arange(8), 2), np.full(16, 40.0), (yt, ct), (yf, cf))
    assert len(rows) == 32
    for j in range(16):
        t, f = rows[2 * j], rows[2 * j + 1]
        assert (t["arm"], f["arm"]) == ("true", "false") and t["probe_id"] == f["probe_id"]
        assert t["claimed_pct"] + f["claimed_pct"] == 100
        assert (t["correct"], f["correct"], t["confidence"], f["confidence"]) == (yt[j], yf[j], 80, 30)


def test_tune_topic_brier_meets_its_stopping_rule():
    rng = np.random.default_rng(0)
    bins = np.repeat(np.arange(len(arms.TOPIC_BINS)), 2)
    true_pct = np.linspace(20, 90, 16)
    yt, yf, ct, cf, fixed = arms._topic_answers("glm4:9b", rng, bins, true_pct, 9, 7)
    before = (ct.copy(), cf.copy())
    arms._tune_topic_brier("glm4:9b", rng, ct, yt, cf, yf, fixed, 0.02)
    d = (cf / 100 - yf) ** 2 - (ct / 100 - yt) ** 2
    assert abs(d.mean() - 0.02) < 0.0004
    idx = np.random.default_rng(7).integers(0, 16, size=(4000, 16))
    lo, hi = np.quantile(d[idx].mean(axis=1), [0.025, 0.975])
    assert lo < -0.01 < 0.01 < hi
    assert np.all(ct[fixed] == before[0][fixed]) and np.all(cf[fixed] == before[1][fixed])
    assert np.all(ct % 5 == 0) and np.all((0 <= cf) & (cf <= 100))


# ------------------------------------------------------------------ book.provenance: attributes_for and _resolve

pv = importlib.import_module("selfconf.book.provenance")  # selfconf.book.provenance is also a function's name


def _claim_record(**kw):
    base = {"status": "match", "kind": "bootstrap", "printed": "0.720", "recomputed": 0.72049}
    base |= {"computed_in": "04_result1", "notebook": "04_result1", "computed_cell": 7, "source": "mixed"}
    base |= {"tolerance": 0.01, "difference": 0.0005, "marked": False, "threshold": None, "tolerance_status": None}
    return SimpleNamespace(**(base | kw))


def test_claim_attributes_keep_the_card_order_and_the_crossing_note():
    rec = _claim_record(status="crosses_threshold", marked=True, threshold=0.5, tolerance_status="within_tolerance")
    got = pv.attributes_for("c", {"c": rec}, {}, {}, {}, "a.html", None, {"c": {"where": "Table 1"}}, "u/{}.py")
    assert list(got) == [
        "data-claim",
        "data-status",
        "data-kind",
        "data-printed",
        "data-value",
        "data-why",
        "data-notebook",
        "data-cell",
        "data-audit",
        "data-text",
        "data-tolerance-value",
        "data-tolerance",
        "data-code",
        "data-source",
        "data-differs",
        "data-threshold",
    ]
    assert got["data-value"] == "0.720490" and got["data-cell"] == "7" and got["data-audit"] == "a.html#claim-c"
    assert got["data-why"].startswith("crosses 0.5: the paper prints 0.720, this build's value lies on the other side")
    assert "(within tolerance by the tolerance alone). Monte-Carlo value" in got["data-why"]
    assert (got["data-source"], got["data-code"], got["data-text"]) == (
        "original package and reconstruction",
        "u/04_result1.py",
        "Table 1",
    )


def test_claim_reason_prefers_the_audit_explanation():
    rec = _claim_record(status="outside_tolerance")
    one = SimpleNamespace(verdict="known gap", reason="The rows differ.")
    two = SimpleNamespace(verdict="known gap", reason="The rows differ. Details follow.")
    assert pv._claim_reason(rec, one) == "known gap (The rows differ)"
    assert pv._claim_reason(rec, two) == "known gap (The rows differ); the audit page has the full note"
    assert pv._claim_reason(_claim_record(tolerance=None), None) == pv.STATUSES["match"]


def test_tolerance_attributes_by_kind():
    assert pv._tolerance_attributes(_claim_record(tolerance=0.00456))["data-tolerance-value"] == "0.0046"
    exact = pv._tolerance_attributes(_claim_record(tolerance=None, kind="derived"))
    assert list(exact) == ["data-tolerance"] and exact["data-tolerance"].startswith("none:")
    assert pv._tolerance_attributes(_claim_record(tolerance=None, kind="external")) == {}


def test_mark_differing_marks_only_differing_spans():
    text = (
        '<span class="selfconf-num" data-differs="">1</span>'
        '<span class="selfconf-num selfconf-differs" data-differs="true">0.1</span>'
        '<span class="selfconf-num selfconf-differs" data-differs="true" data-threshold="0.5">0.49</span>'
    )
    got = pv._mark_differing(text)
    assert got.count('<sup class="selfconf-mark"') == 2
    assert got.startswith('<span class="selfconf-num" data-differs="">1</span>')
    assert got.endswith("0.49" + pv.mark_html({"data-threshold": "0.5"}) + "</span>")
    assert "crosses 0.5" in pv.mark_html({"data-threshold": "0.5"})


def test_insert_legend_goes_after_the_title_and_is_closed_on_the_landing_page():
    from docutils import nodes

    for doc, is_open in (("book/04_result1", True), ("book/index", False)):
        section = nodes.section("", nodes.title("", "T"), nodes.paragraph("", "p"))
        tree = nodes.document(None, None)
        tree += section
        pv._insert_legend(tree, doc)
        legend = section.children[1]
        assert isinstance(legend, nodes.raw) and "selfconf-legend" in legend.astext()
        assert ('<details class="selfconf-legend" open>' in legend.astext()) is is_open
        assert isinstance(section.children[2], nodes.paragraph)


# ------------------------------------------------------------------ book.pdf.print_book steps


def test_check_printable_names_the_missing_pages(tmp_path):
    from selfconf.book import pdf

    (tmp_path / "index.html").write_text("x")
    (tmp_path / "a.html").write_text("x")
    with pytest.raises(SystemExit, match=r"the book is not built \(missing b.html, c.html\); run make book"):
        pdf._check_printable(tmp_path, ["index.html", "a.html", "b.html", "c.html"])
    with pytest.raises(SystemExit, match=r"missing index.html\)"):
        pdf._check_printable(tmp_path / "none", [])


def test_append_part_records_starts_destinations_and_pages(tmp_path):
    from pypdf import PdfWriter

    from selfconf.book import pdf

    def part(name, n_pages, named):
        w = PdfWriter()
        for _ in range(n_pages):
            w.add_blank_page(200, 300)
        for title, page in named:
            w.add_named_destination(title, page)
        w.write(tmp_path / name)
        return tmp_path / name

    writer, starts, dests, part_of = PdfWriter(), {}, {}, []
    pdf._append_part(writer, part("0.pdf", 2, [("top", 0)]), "a.html", starts, dests, part_of)
    pdf._append_part(writer, part("1.pdf", 3, [("x", 2), ("y", 1)]), "b.html", starts, dests, part_of)
    assert starts == {"a.html": 0, "b.html": 2} and len(writer.pages) == 5
    assert part_of == ["a.html"] * 2 + ["b.html"] * 3
    assert {k: v[0] for k, v in dests.items()} == {("a.html", "top"): 0, ("b.html", "x"): 4, ("b.html", "y"): 3}
    assert dests[("b.html", "x")][2] == 300.0  # the top of the page


def test_print_page_prints_in_print_media_even_when_a_chart_never_draws(tmp_path):
    from selfconf.book import pdf

    calls = []

    class Page:
        def __getattr__(self, name):
            def call(*args, **kw):
                calls.append((name, args, kw))
                if name == "wait_for_function":
                    raise TimeoutError

            return call

    pdf._print_page(Page(), "http://h/p.html", tmp_path / "p.pdf", ["i"], "", 5)
    assert [c[0] for c in calls] == ["goto", "wait_for_function", "emulate_media", "evaluate", "pdf", "emulate_media"]
    assert calls[2][2] == {"media": "print"} and calls[5][2] == {"media": "screen"}
    assert calls[3][1] == (pdf._PREPARE, [["i"], "", pdf.MIN_TABLE_ZOOM])
    assert calls[4][2]["path"] == str(tmp_path / "p.pdf") and calls[4][2]["format"] == "A4"


def test_serve_serves_the_site_folder(tmp_path):
    from urllib.request import urlopen

    from selfconf.book import pdf

    (tmp_path / "index.html").write_text("hello")
    server, base = pdf._serve(tmp_path)
    try:
        assert base.startswith("http://127.0.0.1:")
        with urlopen(base + "index.html", timeout=10) as r:
            assert r.read() == b"hello"
    finally:
        server.shutdown()
        server.server_close()


# ------------------------------------------------------------------ cli.probe.probe_html steps


def _probe_rows():
    conf = [95, 91, 15, 55, 52, 58, 40, 99]
    return pd.DataFrame(
        {
            "arm": ["core"] * 5 + ["off"] * 3,
            "is_trap": [False, False, False, True, False, False, False, False],
            "status": ["ok", "ok", "ok", "ok", "ok", "ok", "failed", "ok"],
            "abstained": [False, False, False, False, True, False, False, False],
            "confidence": conf,
            "correct": [1, 0, 1, 1, 1, 1, 0, 1],
        }
    )


def test_reliability_points_bin_the_answered_rows_of_each_arm():
    from selfconf.cli import probe

    pts = probe._reliability_points(_probe_rows(), ["core", "off", "forged"])
    got = [(p["model"], p["bin"], p["n"], round(p["mean_conf"], 6), round(p["acc"], 6)) for p in pts]
    # core: rows 95, 91 (one right) and 15 answered; off: 58 and 99 (40 failed); forged has no rows
    assert got == [("core", "10-20", 1, 15.0, 100.0), ("core", "90-100", 2, 93.0, 50.0)] + [
        ("off", "50-60", 1, 58.0, 100.0),
        ("off", "90-100", 1, 99.0, 100.0),
    ]


def test_probe_section_and_page_escape_what_they_show(monkeypatch):
    from selfconf.cli import probe

    monkeypatch.setattr(probe_an, "sentences", lambda r: ["a < b"])
    monkeypatch.setattr(probe_an, "format_tables", lambda r: "x & y")
    sec = probe._probe_section("m<1>", {"arms": []}, ["rel0", "shift0"])
    assert sec == (
        '<h2>m&lt;1&gt;</h2><pre>x &amp; y</pre><ul><li>a &lt; b</li></ul><div class="charts">'
        '<div class="chart" id="rel0"></div><div class="chart" id="shift0"></div></div>'
    )
    page = probe._probe_page("log</b>.jsonl", [sec], {"rel0": {"title": "</script>"}})
    assert "source: log&lt;/b&gt;.jsonl" in page and sec in page
    assert 'const specs = {"rel0": {"title": "<\\/script>"}};' in page


# ------------------------------------------------------------------ sections.realanswers.compute steps


def test_model_summary_tests_are_the_per_draw_extremes_and_counts():
    from selfconf.sections import realanswers as ra

    point = {
        "citl": np.array([0.1, -0.2, 0.05]),
        "median_confidence": np.array([0.99, 0.5, 0.95]),
        "high_conf_wrong": np.array([3, 0, 1]),
        "high_conf_n": np.array([10, 0, 10]),
        "ece": np.array([0.15, 0.25, 0.1]),
        "nonpositive_bins": np.array([0, 2, 0]),
        "auroc": np.array([0.6, 0.8, 0.55]),
    }
    draws = {k: np.tile(v, (5, 1)) for k, v in point.items()}
    th = {"high_conf_points": 95.0, "auroc_cutoff": 0.58}
    d = ra.ModelDraws(("a", "b", "c"), point, draws, 10, 0.95, 10)
    got = ra._model_summary_tests(d, th, 0.95)
    assert list(got) == [
        "min_citl_pp",
        "n_saturated",
        "pooled_high_conf_wrong_pct",
        "max_ece_minus_abs_citl_pp",
        "n_all_bins_positive",
        "min_auroc",
        "max_auroc",
        "n_below_cutoff",
    ]
    want = {
        "min_citl_pp": -20.0,
        "n_saturated": 2,
        "pooled_high_conf_wrong_pct": 20.0,
        "max_ece_minus_abs_citl_pp": 5.0,
        "n_all_bins_positive": 2,
        "min_auroc": 0.55,
        "max_auroc": 0.8,
        "n_below_cutoff": 1,
    }
    for k, v in want.items():  # constant draws: the interval is the point itself
        assert got[k] == pytest.approx((v, v, v)), k


def test_residual_error_tests_take_the_best_auroc_models_and_a_plain_error_rate():
    from selfconf.sections import realanswers as ra

    rng = np.random.default_rng(3)
    rows = []
    for m in ("m1", "m2", "m3", "m4"):
        conf = rng.permutation(np.arange(1, 101)) / 101  # no ties
        for i, c in enumerate(conf):
            rows.append({"model": m, "item_id": f"i{i}", "confidence": c, "correct": int(rng.random() < c)})
    ext = pd.DataFrame(rows)
    table1 = pd.DataFrame({"model": ["m1", "m2", "m3", "m4"], "auroc": [0.7, np.nan, 0.9, 0.8]})
    th = {"coverage_pct": 20.0}
    tests: dict = {}
    top, detail = ra._residual_error_tests(ext, table1, th, tests, seed=1, n_boot=30, level=0.9)
    assert top == ["m3", "m4", "m1"][: ra.TOP_K]
    for r, m in enumerate(top, start=1):
        sub = ext[ext["model"] == m].sort_values("confidence", ascending=False)
        plain = 100 * (1 - sub["correct"].head(20).mean())
        val, lo, hi = tests[f"residual_error_top{r}_pct"]
        assert val == pytest.approx(plain) and lo <= hi
        assert tests[f"residual_error_top{r}_pct:tie_min"][0] == pytest.approx(plain)  # no ties: one order
        assert detail[m] == {"rank": r, "error_at_full_coverage_pct": pytest.approx(100 * (1 - sub["correct"].mean()))}


# ------------------------------------------------------------------ reconstruct.anneal.anneal steps


def _anneal_parts(seed):
    from selfconf.reconstruct.anneal import Part

    rng = np.random.default_rng(seed)
    allowed = np.ones(7, bool)
    allowed[5] = False
    parts = []
    for name, fixed, group in (("a", None, "g"), ("b", 0, "g"), ("c", None, "h")):
        counts = rng.integers(0, 4, size=(2, 7))
        counts[:, 5] = 0
        if fixed == 0:
            counts[1] = 0
        parts.append(Part(name, counts, allowed.copy(), fixed, group))
    return parts


@pytest.mark.parametrize("seed", range(20))
def test_anneal_moves_keep_sizes_and_classes_and_undo_exactly(seed):
    from selfconf.reconstruct import anneal as an

    parts = _anneal_parts(seed)
    before = [p.counts.copy() for p in parts]
    rng = np.random.default_rng(seed)
    for move in (lambda: an._shift_move(parts, 7, rng), lambda: an._exchange_move(parts, rng)):
        undo = move()
        if undo is None:  # nothing changed
            assert all(np.array_equal(p.counts, b) for p, b in zip(parts, before, strict=True))
            continue
        assert [p.size for p in parts] == [int(b.sum()) for b in before]
        assert sum(p.counts for p in parts)[1].sum() == sum(before)[1].sum()  # the model's correct rows
        assert all(p.counts.min() >= 0 and p.counts[:, 5].sum() == 0 for p in parts)
        assert parts[1].counts[1].sum() == 0  # the fixed-class part stays incorrect
        an._undo(undo)
        assert all(np.array_equal(p.counts, b) for p, b in zip(parts, before, strict=True))


def test_exchange_move_keeps_the_model_table_and_needs_a_mate():
    from selfconf.reconstruct import anneal as an

    parts = _anneal_parts(0)
    total = sum(p.counts for p in parts).copy()
    moved = 0
    rng = np.random.default_rng(1)
    for _ in range(200):
        if an._exchange_move(parts, rng) is not None:
            moved += 1
            assert np.array_equal(sum(p.counts for p in parts), total)
    assert moved > 0
    alone = parts[2:]  # one part, no mate in its group
    assert an._exchange_move(alone, np.random.default_rng(0)) is None


def test_pick_model_draws_by_penalty_weight():
    from selfconf.reconstruct import anneal as an

    names, pens = ["a", "b", "c"], {"a": 0.95, "b": 0.0, "c": 2.95}  # weights 1, 0.05, 3 (sum 4.05)
    rng = np.random.default_rng(0)
    picks = [an._pick_model(names, pens, 0.0, rng) for _ in range(4000)]
    share = {n: picks.count(n) / len(picks) for n in names}
    assert share["a"] == pytest.approx(1 / 4.05, abs=0.03) and share["c"] == pytest.approx(3 / 4.05, abs=0.03)
    assert 0 < share["b"] < 0.03


# ------------------------------------------------------------------ reconstruct.ladder.build_subject steps


def test_subject_design_oracle_per_subject_and_a_fresh_copy():
    from selfconf.reconstruct import ladder as lad

    T = {
        "oracle_auroc_confirmatory": 0.71,
        "oracle_bin_acc_sd": 0.195,
        "oracle_auroc_subjects_min": 0.6,
        "oracle_auroc_subjects_max": 0.9,
    }
    got = {n: lad._subject_design(n, T) for n in lad.SUBJECTS}
    assert {n: o for n, (_, o) in got.items()} == {"haiku45": 0.6, "sonnet5": 0.71, "opus48": 0.745, "fable5": 0.9}
    assert got["sonnet5"][0]["bin_sd"] == 0.195 and "bin_sd" not in lad._SUBJECT_DESIGN["sonnet5"]
    got["opus48"][0]["attempts"] = 0
    assert lad._SUBJECT_DESIGN["opus48"]["attempts"] == 25


def test_attempt_miss_is_the_largest_endpoint_or_quarter_p_miss():
    from selfconf.reconstruct import ladder as lad

    got = {"a": (0.10, 0.30, 0.04), "b": (0.0, 0.5, 0.5)}
    bt = {"a": (0.11, 0.33), "b": (0.0, 0.5)}
    assert lad._attempt_miss(got, bt, {}) == pytest.approx(0.03)
    assert lad._attempt_miss(got, bt, {"b": 0.3}) == pytest.approx(0.05)  # 0.25 x 0.2 beats 0.03
    assert lad._attempt_miss(got, bt, {"a": 0.05}) == pytest.approx(0.03)


def test_adapt_design_moves_each_knob_toward_the_printed_width():
    from selfconf.reconstruct import ladder as lad

    design = {"anti": {"shuffled": 0.5}, "copy": {"off": 0.9}, "abstain_per_arm": {"core": 30}}
    adapt = {
        "x": ("anti", "shuffled", -0.6, 0.0, 0.95),  # interval 25 % too wide -> anti 0.5 - 0.15
        "y": ("copy", "off", 0.8, 0.0, 0.995),  # 50 % too wide -> clipped at 0.995
        "z": ("abstain", "core", -30, 20, 56),  # exact width -> unchanged, no new draw of abstentions
    }
    bt = {"x": (0.0, 0.04), "y": (0.0, 0.1), "z": (0.2, 0.3)}
    last = {"x": (0.0, 0.05, 0.0), "y": (0.1, 0.25, 0.0), "z": (0.3, 0.4, 0.0)}
    S = SimpleNamespace(abstained=np.ones(3, bool))
    lad._adapt_design(None, S, design, adapt, bt, last)
    assert design["anti"]["shuffled"] == pytest.approx(0.35)
    assert design["copy"]["off"] == 0.995
    assert design["abstain_per_arm"] == {"core": 30} and S.abstained.all()
