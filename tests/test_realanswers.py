"""The chapter 'The paper's claims on real answers': panel rule, scorecard, new bootstrap pieces, and a plain-loop
recomputation of one panel from the raw CSV files of the third-party data."""

from __future__ import annotations

import csv
import dataclasses
import doctest
import hashlib
import json
import re
from pathlib import Path

import jupytext
import numpy as np
import pandas as pd
import pytest

from selfconf import bootstrap, metrics, panels
from selfconf.book import build, scorecard
from selfconf.data.fetch import MMLU_PRO_MODELS, mmlu_pro_filename, read_mmlu_pro_calibration
from selfconf.sections import realanswers
from selfconf.stats import summary

ROOT = Path(__file__).resolve().parents[1]
EXT = ROOT / "data" / "external" / "mmlu-pro-calibration"
needs_ext = pytest.mark.skipif(not EXT.is_dir(), reason="run `make external` first (third-party MMLU-Pro files)")
CHAPTER = ROOT / "notebooks" / f"{realanswers.NOTEBOOK}.py"

# The declaration, frozen on 2026-12-01: the scorecard cell of the notebook and the rule and claims of the module.
# Changing either is editing a pre-declared scorecard after its results exist: do not update these digests.
DECLARATION_CELL_SHA256 = "26d18a11b9d34578618330af40ba979b943ddad7060abfbaa1fab039bda13144"
DECLARATION_MODULE_SHA256 = "9d18f8b967da4fdd03b831e99d707bae37356a3bb98fec30325d6812ad2f6179"


def _declaration_cell() -> str:
    nb = jupytext.read(CHAPTER)
    cells = [
        c.source
        for c in nb.cells
        if c.cell_type == "markdown" and c.source.startswith("## The scorecard, declared before computing")
    ]
    assert len(cells) == 1, "the chapter must hold exactly one declaration cell"
    return cells[0]


def _declaration_module() -> str:
    return json.dumps(
        {
            "declared": realanswers.DECLARED,
            "rule": realanswers.PANEL_RULE,
            "claims": [dataclasses.asdict(c) for c in realanswers.SCORECARD],
            "provider": realanswers.PROVIDER,
            "bloc": realanswers.BLOC,
            "released": realanswers.RELEASED,
            "reasoning": list(realanswers.REASONING_SERIES),
            "markers": list(realanswers.TIER_MARKERS),
            "constants": [
                realanswers.RESIDUAL_ERROR_FLOOR_PCT,
                realanswers.ECE_TOLERANCE_PP,
                realanswers.BEST_AUROC_CEILING,
                realanswers.TOP_K,
            ],
        },
        sort_keys=True,
    )


def test_declaration_is_frozen():
    cell = _declaration_cell()
    assert "2026-12-01" in cell
    # the cell's one edit since it was declared: the module it names moved to selfconf.sections.realanswers
    # (the sections' layout); the hash is of the declared text, so undo exactly that rename before hashing
    declared = cell.replace("`selfconf.sections.realanswers`", "`selfconf.realanswers`")
    assert hashlib.sha256(declared.encode()).hexdigest() == DECLARATION_CELL_SHA256, (
        "the declared scorecard cell was edited after its results existed"
    )
    assert hashlib.sha256(_declaration_module().encode()).hexdigest() == DECLARATION_MODULE_SHA256, (
        "the declared rule or claims in selfconf.sections.realanswers were edited after their results existed"
    )


# The amendment of 2026-12-02, pinned like the declaration: its cell in the chapter and its data in the
# module.  A further change is a new, dated amendment with its own digest, never an edit of this one.
AMENDMENT_CELL_SHA256 = "84f22a9157b508897dc6ffc2d8969b7ad07159025c533c2106fd9444745fbfa1"
AMENDMENT_MODULE_SHA256 = "b2dfef628d7731c249946088bcd1ac1700f129ab7d35d9fff47a3a52bccde81e"


def _amendment_cell() -> str:
    nb = jupytext.read(CHAPTER)
    cells = [
        c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## Amendment of 2026-12-02")
    ]
    assert len(cells) == 1, "the chapter must hold exactly one cell of the 2026-12-02 amendment"
    return cells[0]


def _amendment_module() -> str:
    return json.dumps(
        {
            "amended": realanswers.AMENDED,
            "changes": [list(c) for c in realanswers.AMENDMENT_CHANGES],
            "amendments": {k: dataclasses.asdict(a) for k, a in realanswers.AMENDMENTS.items()},
            "rule": realanswers._RULE_AMENDED,
        },
        sort_keys=True,
    )


def test_amendment_is_dated_visible_and_frozen():
    """The declaration stays (its digests above are unchanged) and the amendment beside it is pinned too."""
    nb = jupytext.read(CHAPTER)
    heads = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## ")]
    decl = next(i for i, h in enumerate(heads) if h.startswith("## The scorecard, declared before computing"))
    assert heads[decl + 1].startswith("## Amendment of 2026-12-02")  # right after the declaration, visible
    cell = _amendment_cell()
    assert realanswers.AMENDED == "2026-12-02" and realanswers.DECLARED == "2026-12-01"
    for name in ("paper_claim_declared", "verdict_declared", "scope", "paper_value", "not applicable", "tie"):
        assert name in cell, name
    assert hashlib.sha256(cell.encode()).hexdigest() == AMENDMENT_CELL_SHA256, "the amendment cell was edited"
    assert hashlib.sha256(_amendment_module().encode()).hexdigest() == AMENDMENT_MODULE_SHA256, (
        "the amendment in selfconf.sections.realanswers was edited; add a new dated amendment instead"
    )


def test_every_claim_is_amended_with_a_scope_and_manifest_ids():
    from selfconf.claims.judging import load_manifest

    m = load_manifest()
    assert set(realanswers.AMENDMENTS) == {c.id for c in realanswers.SCORECARD}
    for c in realanswers.SCORECARD:
        a = realanswers.AMENDMENTS[c.id]
        assert a.scope in ("paper", "extension"), c.id
        assert a.paper_claim and not re.search(r"\d\.\d|\d\s*%", a.paper_claim), c.id  # numbers: paper_value
        for cid in (*a.paper_value_ids, *([a.paper_of_id] if a.paper_of_id else [])):
            assert cid in m.by_id, (c.id, cid)
        if a.scope == "extension":
            assert not a.paper_value_ids and a.paper_side is None, c.id
        if c.panel == realanswers.ALL_PANEL:
            assert a.scope == "extension"
    # the paper's US panel: pooled self above the panel, explained by model identity
    us = realanswers.AMENDMENTS["panel_US_canonical"]
    assert us.paper_side == "below" and "identity" in us.paper_claim


def test_amended_verdict_rule():
    A, av = realanswers.Amendment, realanswers.amended_verdict
    t = {"ci_low": 0.02, "ci_high": 0.05, "null": 0.0}
    assert av(t, A("paper", "x", "above"), declared_direction=+1) == ("holds", +1)
    assert av(t, A("paper", "x", "below"), declared_direction=+1) == ("does not hold", -1)  # the paper's side wins
    assert av(t, A("extension", "x"), declared_direction=-1) == ("does not hold", -1)  # no print: declared side
    rn = A("paper", "x", "above", applicable_if="reversal")
    assert av(t, rn, declared_direction=+1, reversal=False) == ("not applicable", +1)
    assert av(t, rn, declared_direction=+1, reversal=True) == ("holds", +1)
    tie = A("paper", "x", "above", tie_order=True)

    def tt(lo_min, hi_min, lo_max, hi_max):
        return {
            **t,
            "null": 10.0,
            "tie_min": {"ci_low": lo_min, "ci_high": hi_min},
            "tie_max": {"ci_low": lo_max, "ci_high": hi_max},
        }

    assert av(tt(11, 12, 13, 14), tie, declared_direction=+1)[0] == "holds"
    assert av(tt(1, 2, 16, 20), tie, declared_direction=+1)[0] == "inconclusive"  # the order decides
    assert av(tt(1, 2, 3, 4), tie, declared_direction=+1)[0] == "does not hold"


def test_paper_values_from_the_manifest_and_side_conflicts():
    recs = [
        {
            "id": "panel_US_canonical",
            "paper_value_ids": ["us_panel_vs_self_delta"],
            "paper_of_id": None,
            "test": {"null": 0.0, "direction": "below"},
        },
        {
            "id": "most_below_auroc_cutoff",
            "paper_value_ids": ["r1_n_models_below_threshold"],
            "paper_of_id": "r1_n_models_below_threshold_of",
            "test": {"null": 13.0, "direction": "above"},
        },
        {
            "id": "panel_CN_label_free",
            "paper_value_ids": ["cn_panel_auroc_labelfree", "cn_self_auroc_pooled"],
            "paper_of_id": None,
            "test": {"null": 0.0, "direction": "above"},
        },
        {"id": "ext", "paper_value_ids": [], "paper_of_id": None, "test": {"null": 0.0, "direction": "above"}},
    ]
    out = scorecard.with_paper_values(recs)
    assert [r["paper_value"] for r in out] == [-0.145, 6.0, 0.23, None]
    assert out[1]["paper_null"] == 4.5  # half of the paper's nine API models, not of the models here
    assert "paper_value" not in recs[0]  # the input is left alone
    with pytest.raises(ValueError, match="other side"):
        scorecard.with_paper_values([{**recs[0], "test": {"null": 0.0, "direction": "above"}}])


def _check_no_holds_against_the_paper(records):
    """No record holds with its deciding interval on the other side of the null from the paper's value."""
    for r in records:
        assert {"scope", "paper_value", "paper_claim_declared", "verdict_declared", "amended"} <= set(r), r["id"]
        assert r["scope"] in ("paper", "extension")
        if r["verdict"] != "holds" or r["paper_value"] is None:
            continue
        t, pn = r["test"], r["paper_null"]
        paper_above = r["paper_value"] > pn
        deciding = t if "tie_min" not in t else (t["tie_min"] if paper_above else t["tie_max"])
        assert (deciding["ci_low"] > pn) if paper_above else (deciding["ci_high"] < pn), r["id"]
    assert not scorecard.paper_side_conflicts(records)


@pytest.mark.slow
@needs_ext
def test_amended_scorecard_on_the_real_answers():
    ext = read_mmlu_pro_calibration(EXT)
    res = realanswers.compute(ext, seed=1, n_boot=40)
    records = scorecard.with_paper_values(realanswers.scorecard(res))
    _check_no_holds_against_the_paper(records)
    by_id = {r["id"]: r for r in records}
    # the US analogue's panel beats self: the paper's US reversal is not reproduced, so it does not hold
    assert by_id["panel_US_canonical"]["test"]["direction"] == "below"
    assert by_id["panel_US_canonical"]["verdict"] == "does not hold"
    assert by_id["panel_US_canonical"]["verdict_declared"] == "holds"
    # no reversal on any panel here: every rank-normalised record is not applicable
    assert {by_id[f"panel_{p}_rank_normalised"]["verdict"] for p in (*panels.PANELS, realanswers.ALL_PANEL)} == {
        "not applicable"
    }
    for r in range(1, realanswers.TOP_K + 1):
        t = by_id[f"residual_error_top{r}"]["test"]
        assert t["tie_min"]["value"] <= t["value"] <= t["tie_max"]["value"]
    assert all(by_id[f"panel_{realanswers.ALL_PANEL}_{s}"]["scope"] == "extension" for s in realanswers.SIGNALS)


def test_declaration_comes_before_any_computation_and_names_every_claim():
    nb = jupytext.read(CHAPTER)
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    decl = next(
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "markdown" and c.source.startswith("## The scorecard, declared")
    )
    assert decl < first_code
    assert "parameters" in nb.cells[first_code].metadata.get("tags", [])  # only the parameters precede the code
    text = _declaration_cell()
    for c in realanswers.SCORECARD:
        if c.panel is None and not c.id.startswith("residual_error_top"):
            assert f"`{c.id}`" in text, c.id
    assert "`residual_error_top1`" in text and "`panel_<name>_rank_normalised`" in text


def test_doc_examples_run():
    for mod in (realanswers,):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.failed == 0 and res.attempted > 5
    for fn in (metrics.auroc_scored_counts, bootstrap.cell_count_draws, panels.panel_intervals):
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner()
        for t in finder.find(fn, globs={"np": np, "pd": pd, **vars(__import__(fn.__module__, fromlist=["x"]))}):
            runner.run(t)
        assert runner.failures == 0 and runner.tries > 0, fn.__name__


# ------------------------------------------------------------------------------------------------
# panel rule
# ------------------------------------------------------------------------------------------------


def test_panel_rule_on_the_collection():
    ch = realanswers.select_panels(MMLU_PRO_MODELS)
    assert ch["US"].members == ("claude-3-5-haiku-20241022", "gpt-4.1-mini", "gemini-2.0-flash")
    assert ch["CN"].members == ("deepseek-chat", "Qwen2.5-32B-Instruct", "Qwen3-235B-A22B-fp8-tput")
    assert ch["cross_bloc"].members == ("claude-3-5-haiku-20241022", "deepseek-chat", "Mistral-Small-24B-Instruct-2501")
    assert ch[realanswers.ALL_PANEL].members == tuple(MMLU_PRO_MODELS)
    assert "not in the data" in ch["CN"].reasons[2] and "fewest parameters" in ch["CN"].reasons[1]
    for c in ch.values():  # no reasoning series, every member a file name of the source
        assert not set(c.members[:3]) & set(realanswers.REASONING_SERIES) or c.name == realanswers.ALL_PANEL
        assert set(c.members) <= set(MMLU_PRO_MODELS)


def test_panel_rule_marker_words_and_substitution_order():
    # "gemini" does not carry the marker "mini"; without any flash model the google pick is the smallest chat model
    ch = realanswers.select_panels(
        [
            "gemini-1.5-pro",
            "gemma-3-27b-it",
            "claude-3-haiku-20240307",
            "gpt-4o-2024-08-06",
            "deepseek-chat",
            "Qwen2.5-32B-Instruct",
            "Qwen3-235B-A22B-fp8-tput",
            "Mistral-Small-24B-Instruct-2501",
        ]
    )
    assert ch["US"].members == ("claude-3-haiku-20240307", "gpt-4o-2024-08-06", "gemma-3-27b-it")
    # moonshot missing, every CN provider already in the panel and no CN model left: a clear error
    with pytest.raises(ValueError, match="moonshot"):
        realanswers.select_panels(
            [
                "deepseek-chat",
                "Qwen2.5-32B-Instruct",
                "claude-3-haiku-20240307",
                "gpt-4o-2024-08-06",
                "gemini-2.0-flash",
                "Mistral-Small-24B-Instruct-2501",
            ]
        )
    with pytest.raises(ValueError, match="no provider"):
        realanswers.select_panels(["some-unknown-model"])


# ------------------------------------------------------------------------------------------------
# bootstrap pieces
# ------------------------------------------------------------------------------------------------


def test_auroc_scored_counts_equals_row_auroc_with_ties_across_groups():
    rng = np.random.default_rng(3)
    for _ in range(20):
        k = 12
        score = rng.integers(0, 5, size=k) / 4  # repeated values: ties across groups
        pos = rng.integers(0, 6, size=k)
        neg = rng.integers(0, 6, size=k)
        s = np.repeat(score, pos + neg)
        y = np.concatenate([np.r_[np.ones(p), np.zeros(q)] for p, q in zip(pos, neg, strict=True)])
        if 0 < y.sum() < y.size:
            assert metrics.auroc_scored_counts(score, pos, neg)[0] == pytest.approx(metrics.auroc(s, y), abs=1e-12)
    assert np.isnan(metrics.auroc_scored_counts([[0.1, 0.2]], [[1, 1]], [[0, 0]])[0])
    with pytest.raises(ValueError, match="one shape"):
        metrics.auroc_scored_counts([[0.1]], [[1, 1]], [[0, 0]])


def test_cell_count_draws_matches_a_loop():
    rng = np.random.default_rng(5)
    clusters = rng.integers(0, 7, size=40)
    cells = rng.integers(0, 5, size=40)
    mult = bootstrap.cluster_multiplicities(7, 13, 11)
    got = np.concatenate(list(bootstrap.cell_count_draws(mult, clusters, cells, 5, chunk=4)))
    want = np.zeros((13, 5))
    for b in range(13):
        for g, c in zip(clusters, cells, strict=True):
            want[b, c] += mult[b, g]
    assert np.array_equal(got, want)
    with pytest.raises(ValueError, match="cells"):
        next(bootstrap.cell_count_draws(mult, clusters, cells, 3))


@pytest.mark.parametrize("scale", [1, 2**22])
def test_cell_count_draws_is_exact_in_both_precisions(scale):
    """Small integer counts go through float32 (exact below 2**24), large ones through float64: either way
    each count equals the plain loop's integer sum, to the last unit (with scale 2**22 the counts pass 2**24,
    where float32 would round)."""
    rng = np.random.default_rng(9)
    clusters = rng.integers(0, 50, size=400)
    cells = rng.integers(0, 30, size=400)
    mult = bootstrap.cluster_multiplicities(50, 20, 3).astype(np.int64) * scale + (scale > 1)
    got = np.concatenate(list(bootstrap.cell_count_draws(mult, clusters, cells, 30, chunk=7)))
    want = np.zeros((20, 30), np.int64)
    for b in range(20):
        np.add.at(want[b], cells, mult[b, clusters])
    assert got.dtype == np.float64 and want.max() > (2**24 if scale > 1 else 0)
    assert np.array_equal(got.astype(np.int64), want)


def _toy_rows(seed=0, n_items=60, members=("a", "b", "c")):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_items):
        gold = "g"
        for m in members:
            correct = int(rng.random() < 0.6)
            ans = gold if correct else rng.choice(["w1", "w2", "w3"])
            out.append((m, i, 1, int(rng.choice([50, 70, 80, 90, 95])), correct, 0, f"{i}-{ans}"))
    return pd.DataFrame(
        out, columns=["model", "item_id", "parse_ok", "confidence", "correct", "refusal", "answer_class"]
    )


def test_panel_intervals_draws_are_the_statistics_of_the_resampled_rows():
    rows = _toy_rows()
    p = panels.panel_rows(rows, ("a", "b", "c"))
    mult = bootstrap.cluster_multiplicities(p.items.size, 6, 9)
    res = panels.panel_intervals(rows, ("a", "b", "c"), multiplicities=mult, level=0.5)
    # brute force: rebuild each resample and compute the point estimates on it
    per_draw = []
    for b in range(6):
        idx = np.repeat(np.arange(p.items.size), mult[b])
        q = panels.PanelRows(p.members, p.items[idx], p.confidence[idx], p.correct[idx], p.refusal[idx], p.answer[idx])
        e = panels.panel_point_estimates(q)
        per_draw.append(e)
    for key in (
        "self_auroc_pooled",
        "panel_auroc",
        "panel_auroc_labelfree",
        "self_auroc_ranknorm",
        "within_model_macro",
    ):
        d = np.array([e[key] for e in per_draw])
        assert res[f"{key}_ci"] == pytest.approx(bootstrap.percentile_interval(d, 0.5), abs=1e-12), key
    span = np.array([e["within_model_max"] - e["within_model_min"] for e in per_draw])
    assert res["within_model_span_ci"] == pytest.approx(bootstrap.percentile_interval(span, 0.5), abs=1e-12)
    ident = np.array([e["between_model_identity"] for e in per_draw])
    assert res["between_model_identity_ci"] == pytest.approx(bootstrap.percentile_interval(ident, 0.5), abs=1e-12)


def test_panel_intervals_share_panel_analysis_draw():
    rows = _toy_rows(seed=1, n_items=120)
    a = panels.panel_analysis(rows, ("a", "b", "c"), n_boot=300, rng=summary.model_rng(7, "panel:x"))
    b = panels.panel_intervals(rows, ("a", "b", "c"), n_boot=300, rng=summary.model_rng(7, "panel:x"))
    assert a["panel_ci"] == b["panel_auroc_ci"] and a["self_ci"] == b["self_auroc_pooled_ci"]
    assert a["delta_ci"] == b["delta_panel_minus_self_ci"]
    for k in ("panel_auroc", "self_auroc_pooled", "self_auroc_ranknorm", "panel_auroc_labelfree"):
        assert a[k] == b[k]
        lo, hi = b[f"{k}_ci"]
        assert lo <= hi


def test_panel_frame_mapping_and_errors():
    ext = pd.DataFrame(
        {
            "model": ["gpt-4.1"] * 3,
            "item_id": [0, 1, 2],
            "confidence": [0.9, np.nan, 0.3],
            "correct": [1, 0, 0],
            "answer": ["B", "C", ""],
        }
    )
    f = realanswers.panel_frame(ext)
    assert f["parse_ok"].tolist() == [1, 0, 1] and f["confidence"].tolist() == [90, 0, 30]
    assert f["refusal"].tolist() == [0, 0, 1] and f["answer_class"].tolist() == ["B", "C", ""]
    bad = ext.assign(confidence=[0.9, 0.255, 0.3])
    with pytest.raises(
        ValueError, match=r"mmlu_pro_gpt-4.1_eval_all_None.csv: line 3: field 'verbal_numerical_confidence'"
    ):
        realanswers.panel_frame(bad)


def test_verdict_rule():
    v = realanswers.verdict
    assert v(0.51, 0.6, null=0.5, direction=+1) == "holds"
    assert v(0.40, 0.49, null=0.5, direction=+1) == "does not hold"
    assert v(0.40, 0.50, null=0.5, direction=+1) == "inconclusive"  # touching the null is not excluding it
    assert v(0.70, 0.79, null=0.8, direction=-1) == "holds"
    assert v(0.81, 0.90, null=0.8, direction=-1) == "does not hold"
    with pytest.raises(ValueError):
        v(0.6, 0.5, null=0.5, direction=+1)
    with pytest.raises(ValueError):
        v(0.5, 0.6, null=0.5, direction=0)


def test_model_draws_point_equals_the_report():
    from selfconf import report

    rng = np.random.default_rng(2)
    n = 300
    ext = pd.DataFrame(
        {
            "model": np.repeat(["a", "b"], n),
            "item_id": np.tile(np.arange(n), 2),
            "confidence": rng.choice([0.05, 0.3, 0.5, 0.8, 0.85, 0.9, 1.0], size=2 * n),
            "correct": rng.integers(0, 2, size=2 * n),
        }
    )
    d = realanswers.model_draws(ext, n_boot=50, rng=0)
    r = report.from_frame(ext, confidence_scale="unit", n_boot=20).set_index("model")
    for j, m in enumerate(d.models):
        for k in ("accuracy", "median_confidence", "citl", "ece", "auroc"):
            assert d.point[k][j] == pytest.approx(r.loc[m, k], abs=1e-12), (m, k)
        sub = ext[ext["model"] == m]
        bins = metrics.reliability_bins(sub["confidence"], sub["correct"], n_bins=10)
        occ = bins["n"] > 0
        assert d.point["nonpositive_bins"][j] == int((bins["gap"][occ] <= 0).sum())
        assert d.point["high_conf_wrong"][j] == int(((sub["confidence"] >= 0.8) & (sub["correct"] == 0)).sum())
    assert d.draws["auroc"].shape == (50, 2)


# ------------------------------------------------------------------------------------------------
# the third-party files: a plain loop against the scorecard
# ------------------------------------------------------------------------------------------------


def _plain_auroc(scores, correct):
    """Mann–Whitney AUROC by counting, one level at a time (ties half)."""
    levels = sorted(set(scores))
    pos = {v: 0 for v in levels}
    neg = {v: 0 for v in levels}
    for s, y in zip(scores, correct, strict=True):
        if y:
            pos[s] += 1
        else:
            neg[s] += 1
    below, u = 0, 0.0
    for v in levels:
        u += pos[v] * (below + neg[v] / 2)
        below += neg[v]
    return u / (sum(pos.values()) * sum(neg.values()))


def _plain_panel(members):
    """Pooled self-AUROC and agreement AUROC of a panel, straight from the raw CSV files."""
    files = {}
    for m in members:
        with open(EXT / mmlu_pro_filename(m), newline="", encoding="utf-8") as fh:
            files[m] = list(csv.DictReader(fh))
    n = len(files[members[0]])
    conf_s, agree_s, ys = [], [], []
    for i in range(n):
        rows = {m: files[m][i] for m in members}
        if any(r["verbal_numerical_confidence"].strip() == "" for r in rows.values()):
            continue  # the population: every member stated a confidence
        letters = {m: r["extracted_answer"].strip() for m, r in rows.items()}
        for m, r in rows.items():
            y = int(letters[m] != "" and letters[m] == r["correct_answer"].strip())
            agree = sum(1 for o in members if o != m and letters[m] != "" and letters[o] == letters[m])
            conf_s.append(round(float(r["verbal_numerical_confidence"]) * 100))
            agree_s.append(agree)
            ys.append(y)
    return _plain_auroc(conf_s, ys), _plain_auroc(agree_s, ys), len(ys)


def _check_against_loop(records, panel):
    rec = {r["signal"]: r for r in records if r.get("panel") == panel}
    assert set(rec) == set(realanswers.SIGNALS)
    members = rec["self"]["members"]
    assert members == list(realanswers.select_panels()[panel].members)
    self_auc, agree_auc, n_rows = _plain_panel(members)
    assert rec["self"]["value"] == pytest.approx(self_auc, abs=1e-12)
    assert rec["canonical"]["value"] == pytest.approx(agree_auc, abs=1e-12)
    assert rec["label_free"]["value"] == pytest.approx(agree_auc, abs=1e-12)  # letters: the codings coincide
    assert rec["canonical"]["test"]["value"] == pytest.approx(agree_auc - self_auc, abs=1e-12)
    return n_rows


@pytest.mark.slow
@needs_ext
def test_one_panel_from_the_raw_files_matches_compute():
    ext = read_mmlu_pro_calibration(EXT)
    res = realanswers.compute(ext, seed=1, n_boot=40, panel_names=["CN"])
    records = realanswers.scorecard(res)
    n_rows = _check_against_loop(records, "CN")
    assert n_rows == res.panel_results["CN"]["n_rows"]
    assert res.panel_results["CN"]["n_rows_codings_differ"] == 0
    by_id = {r["id"]: r for r in records}
    assert by_id["panel_CN_label_free"]["verdict"] == "not comparable"
    assert all(r["verdict"] in realanswers.VERDICTS for r in records)


def _check_scorecard_json(records):
    assert isinstance(records, list) and len(records) >= 12
    need = {"id", "paper_claim", "dataset", "statistic", "value", "ci_low", "ci_high", "verdict"}
    for r in records:
        assert need <= set(r), r["id"]
        assert r["verdict"] in realanswers.VERDICTS
        if r["ci_low"] is None:  # amendment of 2026-12-03: no valid interval (a maximum over models), inconclusive
            assert r["ci_high"] is None and r["verdict"] == "inconclusive" and r["interval_note"], r["id"]
            continue
        assert r["ci_low"] <= r["value"] <= r["ci_high"] or r["ci_low"] <= r["ci_high"]
        if "panel" in r:
            assert r["signal"] in realanswers.SIGNALS and set(r["members"]) <= set(MMLU_PRO_MODELS)
    pairs = {(r["panel"], r["signal"]) for r in records if "panel" in r}
    for name in (*panels.PANELS, realanswers.ALL_PANEL):
        for s in realanswers.SIGNALS:
            assert (name, s) in pairs, (name, s)
    assert len({r["id"] for r in records}) == len(records)


@pytest.mark.book
@needs_ext
def test_built_scorecard_json(built_book, root):
    records = json.loads((root / realanswers.SCORECARD_PATH).read_text(encoding="utf-8"))
    _check_scorecard_json(records)
    _check_no_holds_against_the_paper(records)
    _check_against_loop(records, "CN")
    assert records == scorecard.scorecard_from_notebook(root / "book" / f"{realanswers.NOTEBOOK}.ipynb")
    page = (built_book / "book" / f"{realanswers.NOTEBOOK}.html").read_text(encoding="utf-8")
    assert "Real third-party data" in page and "declared before computing" in page


def _fake_executed_chapter(folder: Path, records: list[dict]) -> Path:
    out = {
        "data": {"application/papermill.record/text/plain": repr(json.dumps(records))},
        "metadata": {"scrapbook": {"mime_prefix": "application/papermill.record/", "name": realanswers.SCORECARD_KEY}},
        "output_type": "display_data",
    }
    nb = {
        "cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": [out]}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{realanswers.NOTEBOOK}.ipynb"
    p.write_text(json.dumps(nb), encoding="utf-8")
    return p


def test_ensure_scorecard_from_the_executed_notebook(tmp_path):
    recs = [{"id": "x", "verdict": "holds"}]
    assert scorecard.ensure_scorecard(tmp_path / "nobook", tmp_path / "s.json") is None
    _fake_executed_chapter(tmp_path / "book", recs)
    written = scorecard.ensure_scorecard(tmp_path / "book", tmp_path / "out" / "s.json")
    assert json.loads(written.read_text()) == recs
    with pytest.raises(KeyError, match=realanswers.SCORECARD_KEY):
        (tmp_path / "b2").mkdir()
        (tmp_path / "b2" / f"{realanswers.NOTEBOOK}.ipynb").write_text(json.dumps({"cells": []}))
        scorecard.scorecard_from_notebook(tmp_path / "b2" / f"{realanswers.NOTEBOOK}.ipynb")


def test_cached_build_still_writes_the_scorecard(tmp_path, monkeypatch):
    """A notebook taken from the cache runs no cell: the build itself must write the scorecard afterwards."""
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (root / "_toc.yml").write_text(
        f"format: jb-book\nroot: book/index\nchapters:\n  - file: book/{realanswers.NOTEBOOK}\n"
    )
    (root / "notebooks" / f"{realanswers.NOTEBOOK}.py").write_text("# %%\nx = 1\n")
    recs = [{"id": "cached", "verdict": "inconclusive"}]
    src = _fake_executed_chapter(tmp_path / "cache", recs)

    def fake_run(name, params, root_, key, use_cache, out_dir):
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"{name}.ipynb").write_bytes(src.read_bytes())
        return name, "cached", 0.0

    monkeypatch.setenv("SELFCONF_ROOT", str(root))
    monkeypatch.setattr(build, "_run_cached", fake_run)
    monkeypatch.setattr(build, "ProcessPoolExecutor", _InlineExecutor)
    build.execute()
    assert json.loads((root / realanswers.SCORECARD_PATH).read_text()) == recs


class _InlineExecutor:
    """A stand-in for ProcessPoolExecutor that runs each job at once in this process."""

    def __init__(self, max_workers=None):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def submit(self, fn, *args):
        from concurrent.futures import Future

        f = Future()
        f.set_result(fn(*args))
        return f


# The amendment of 2026-12-03, pinned like the two before it (a later change is a new dated amendment).
AMENDMENT_2_CELL_SHA256 = "63afbe90ff22740df2617ea33845a7f70f484746d64a5ffc5c38d11113cd4d18"
AMENDMENT_2_MODULE_SHA256 = "06470a56135b495ece9fb665f01ccd4b4eb7bfe5306ad6e61efc98e119c3751e"


def _amendment_2_cell() -> str:
    nb = jupytext.read(CHAPTER)
    cells = [
        c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## Amendment of 2026-12-03")
    ]
    assert len(cells) == 1, "the chapter must hold exactly one cell of the 2026-12-03 amendment"
    return cells[0]


def _amendment_2_module() -> str:
    return json.dumps(
        {
            "amended": realanswers.AMENDED_2,
            "changes": [list(c) for c in realanswers.AMENDMENT_2_CHANGES],
            "exploratory": realanswers.EXPLORATORY_THRESHOLDS,
            "no_interval": realanswers.NO_VALID_INTERVAL,
        },
        sort_keys=True,
    )


def test_second_amendment_is_dated_visible_and_frozen():
    nb = jupytext.read(CHAPTER)
    heads = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## ")]
    first = next(i for i, h in enumerate(heads) if h.startswith("## Amendment of 2026-12-02"))
    assert heads[first + 1].startswith("## Amendment of 2026-12-03")  # right after the first amendment, visible
    cell = _amendment_2_cell()
    for name in ("exploratory", "best_self_auroc_moderate", "inconclusive", "no sampling uncertainty", "tests_part"):
        assert name in cell, name
    assert hashlib.sha256(cell.encode()).hexdigest() == AMENDMENT_2_CELL_SHA256, "the 2026-12-03 cell was edited"
    assert hashlib.sha256(_amendment_2_module().encode()).hexdigest() == AMENDMENT_2_MODULE_SHA256


def test_second_amendment_on_the_records():
    """A maximum over models gets no interval and an inconclusive verdict; a zero-width count says it is one; the
    chapter's own thresholds are exploratory; the first amendment's verdict and every key stay."""
    base = {"verdict": "holds", "value": 0.79, "ci_low": 0.78, "ci_high": 0.799, "scope": "paper"}
    r = realanswers.second_amendment(
        {**base, "id": "best_self_auroc_moderate", "test": {"statistic": "max_auroc", "ci_low": 0.78, "ci_high": 0.8}}
    )
    assert (r["verdict"], r["ci_low"], r["ci_high"], r["test"]["ci_low"]) == ("inconclusive", None, None, None)
    assert r["exploratory"] and r["verdict_amended_2026_12_02"] == "holds" and set(base) <= set(r)
    c = realanswers.second_amendment(
        {**base, "id": "saturated_typical_confidence", "value": 26, "ci_low": 26, "ci_high": 26, "test": {}}
    )
    assert c["verdict"] == "holds" and "no sampling uncertainty" in c["interval_note"] and "tests_part" in c
    assert not c["exploratory"]
    assert realanswers.second_amendment({**base, "id": "other", "test": {}}).get("interval_note") is None
