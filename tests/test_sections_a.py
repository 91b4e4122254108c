"""Per-section computations of the design page, Result 1 and the introduction, called without papermill.

Each ``compute`` runs on the shipped reconstructed rows with 200 bootstrap draws.  Deterministic values (those no
bootstrap draw enters) must print as the paper prints them (the book's one judging rule) and equal exactly what the
executed notebooks glue (a handful hard-coded from an executed build with seed 20261130); bootstrap values must
move with the seed while nothing else does.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from selfconf.book.glue import quoted_value
from selfconf.claims.judging import judge, load_manifest
from selfconf.data import families
from selfconf.data.sources import resolve_families
from selfconf.sections import design, introduction, manipulation, result1

ROOT = Path(__file__).resolve().parents[1]
DATA = "data/reconstructed"
N_BOOT = 200


@pytest.fixture(scope="module")
def inputs():
    return design.load(DATA)


@pytest.fixture(scope="module")
def params():
    q = quoted_value
    return {
        "threshold_points": q("r1_highconf_threshold"),
        "chance": q("r1_chance_auroc"),
        "auroc_cut": q("r1_auroc_threshold"),
        "n_bins": q("t1_ece_n_bins"),
        "level": q("ci_level_pct") / 100,
        "coverages_pct": [q(f"t2_coverage_{c}") for c in (100, 80, 60, 40, 20)],
    }


@pytest.fixture(scope="module")
def design_runs(inputs, params):
    return {s: design.compute(*inputs, seed=s, n_boot=N_BOOT, level=params["level"]) for s in (20261130, 7)}


@pytest.fixture(scope="module")
def result1_runs(inputs, params):
    rows, excl, _ = inputs
    return {s: result1.compute(rows, excl, seed=s, n_boot=N_BOOT, **params) for s in (20261130, 7)}


def _is_bootstrap(key: str) -> bool:
    """Interval end points, and the one count that is read off them."""
    return key.endswith(("_ci_lo", "_ci_hi")) or key == "r1_n_ci_exclude_chance"


def _judged(res):
    m = load_manifest()
    out = {}
    for k, v in res.values.items():
        if res.origins[k] == "claim":
            assert k in m.by_id, f"{k} is glued as a claim but is not in the manifest"
            out[k] = (m.effective[k], judge(m, k, v).status)
    return out


@pytest.mark.parametrize("section", ["design", "result1"])
def test_deterministic_claims_print_as_the_paper(section, design_runs, result1_runs):
    res = (design_runs if section == "design" else result1_runs)[20261130]
    judged = _judged(res)
    det = {k: st for k, (kind, st) in judged.items() if kind == "deterministic"}
    assert len(det) >= (20 if section == "design" else 150)
    assert {k: st for k, st in det.items() if st != "match"} == {}
    # every bootstrap claim is computed (not NaN); its status depends on the draws
    assert all(st != "not_computed" for kind, st in judged.values())


def test_design_values_equal_the_executed_page(design_runs):
    v = design_runs[20261130].values
    assert v["design_n_models"] == 16
    assert v["design_n_rows"] == 24000
    assert v["design_n_graded_total"] == 22248
    assert v["design_n_parse_failures"] == 1752
    assert v["local_reasoning_model"] == "deepseek-r1:8b"
    assert v["repro_moonshot_firstparty_n"] == 670
    assert v["bench_age_example_model"] == "zhipu"
    assert v["bench_age_zhipu_gap_pp"] == 60.845362009480006
    assert v["prereg_subsample_n"] == v["design_n_items"]


def test_result1_values_equal_the_executed_page(result1_runs):
    v = result1_runs[20261130].values
    assert v["r1_n_ece_edge_differs"] == 4
    assert (v["r1_refusal_model"], v["r1_dispersed_model"]) == ("anthropic", "xai")
    assert v["r1_dispersed_model_iqr"] == 33.0
    assert v["r1_highconf_wrong_pooled_pct"] == 60.12889366272825
    assert v["t1_anthropic_self_auroc"] == 0.7879721789183355
    assert v["cn_panel_auroc"] == 0.8319346464111713
    assert v["us_between_model_identity_contribution"] == 0.16941554625868005
    assert v["fig1_best_phrase"] == "has the best self-AUROC"
    assert v["fig1_n_above_diagonal"] == 16


@pytest.mark.parametrize("section", ["design", "result1"])
def test_seed_moves_only_the_bootstrap_values(section, design_runs, result1_runs):
    runs = design_runs if section == "design" else result1_runs
    a, b = runs[20261130], runs[7]
    assert list(a.values) == list(b.values)
    boot = [k for k in a.values if k.endswith(("_ci_lo", "_ci_hi"))]
    assert len(boot) >= (6 if section == "design" else 30)
    assert [k for k in boot if a.values[k] == b.values[k]] == []
    assert {
        k: (a.values[k], b.values[k]) for k in a.values if not _is_bootstrap(k) and a.values[k] != b.values[k]
    } == {}


@pytest.mark.parametrize("section", ["design", "result1"])
def test_parts_partition_the_values(section, design_runs, result1_runs):
    res = (design_runs if section == "design" else result1_runs)[20261130]
    keys = [k for part in res.parts.values() for k in part]
    assert sorted(keys) == sorted(res.values) and len(keys) == len(set(keys))
    assert set(res.origins.values()) <= {"claim", "rows"}
    if section == "result1":
        assert tuple(res.parts) == result1.PARTS


def test_table1_is_ordered_by_accuracy(result1_runs):
    t1 = result1_runs[20261130].tables["table1"]
    assert t1["accuracy"].is_monotonic_decreasing
    assert list(t1["model"]) == result1_runs[20261130].facts["models"]


def test_roc_points_end_at_one_and_match_metrics_auroc():
    import numpy as np

    from selfconf import metrics

    rng = np.random.default_rng(3)
    conf = rng.integers(0, 11, 300) / 10
    y = (rng.random(300) < conf).astype(int)
    r = result1.roc_points(conf, y)
    assert (r["tpr"].iloc[-1], r["fpr"].iloc[-1]) == (1.0, 1.0)
    assert np.trapezoid(r["tpr"], r["fpr"]) == pytest.approx(metrics.auroc(conf, y), abs=1e-12)


def test_introduction_brier_range_from_the_rows():
    sources = resolve_families(DATA, ["probes"])
    tables, _ = families.load_probes(sources.path("probes"))
    ts = manipulation.topic_summary(tables["topic_probes"], n_boot=N_BOOT, seed=0)
    res = introduction.compute(
        {f"topic_{m}_brier_delta": d for m, d in zip(ts["model"], ts["brier_delta"], strict=True)}
    )
    assert res.values == {
        "intro_c3_topic_brier_delta_min": 0.014181250000000034,
        "intro_c3_topic_brier_delta_max": 0.11312499999999998,
    }
    m = load_manifest()
    assert [judge(m, k, v).status for k, v in res.values.items()] == ["match", "match"]


def test_introduction_ignores_other_keys_and_needs_a_worse_model():
    vals = {"topic_a_brier_delta": 0.2, "topic_b_brier_delta": 0.0, "topic_c_delta": 0.9, "x_brier_delta": 0.5}
    assert introduction.worsened_brier_range(vals) == (0.2, 0.2)
    with pytest.raises(ValueError, match="no local model"):
        introduction.worsened_brier_range({"topic_a_brier_delta": -0.1})


@pytest.mark.parametrize("nb", ["00_abstract", "01_introduction", "03_design", "04_result1"])
def test_notebooks_define_no_statistics(nb):
    tree = ast.parse((ROOT / "notebooks" / f"{nb}.py").read_text(encoding="utf-8"))
    defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert defined <= {"glue_part", "ci"}  # gluing a part of the page, formatting an interval
