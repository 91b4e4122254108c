"""The seed study measures what the audit's Monte-Carlo errors claim (``selfconf.book.seedstudy``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from selfconf.book import seedstudy
from selfconf.claims import judging


def test_seeds_come_from_the_one_stream_and_avoid_the_page_seed():
    from selfconf.stats.streams import stream

    s = seedstudy.study_seeds(20261130, 50)
    assert len(set(s)) == 50 and 20261130 not in s
    assert s[:3] == [int(v) for v in stream(20261130, "seed-study").integers(0, 2**32, size=50)][:3]


def test_endpoint_se_matches_the_spread_of_sample_quantiles():
    """Outside reference: the SD over many simulated 2,000-draw quantiles of a skewed distribution."""
    rng = np.random.default_rng(3)
    q, b = 0.025, 2000
    pooled = rng.gamma(2.0, size=400_000)
    se, _, _ = seedstudy.endpoint_se(pooled, q, b)
    sims = np.quantile(rng.gamma(2.0, size=(400, b)), q, axis=1)
    assert se == pytest.approx(sims.std(ddof=1), rel=0.15)


def test_the_study_is_the_sections_function_over_seeds():
    """Outside reference: an independent loop over the same seeds of selfconf.sections.ladder.frontier_rung."""
    from selfconf.data import families
    from selfconf.sections import ladder

    seeds = seedstudy.study_seeds(20261130, 6)
    raw = seedstudy.run_section("result3", "data/reconstructed", 20261130, 200, seeds)
    frames, _, _ = families.load_ladder("data/reconstructed")
    loop = [ladder.frontier_rung(frames[ladder.FRONTIER_RUNG], 200, s)["core"]["low"] for s in seeds]
    assert raw["values"]["expl_rung_core_auroc_ci_lo"] == loop
    assert (
        raw["page"]["expl_rung_core_auroc_ci_lo"]
        == ladder.frontier_rung(frames["opus48"], 200, 20261130)["core"]["low"]
    )
    assert raw["pooled"]["expl_rung_core_auroc_ci_lo"] == 6 * 200


@pytest.mark.book
def test_audit_mc_error_equals_the_seed_sd_for_every_bootstrap_claim(built_book, root):
    """The acceptance check: over K = 200 seeds, every bootstrap claim's error from the definition is within 20 %
    of the SD of its seed distribution (tests the two-sided p formula, the measured end-point density and the
    Holm/linear propagation)."""
    doc = json.loads((root / "_build" / "seed_study.json").read_text(encoding="utf-8"))
    assert doc["k"] == seedstudy.K_SEEDS
    m = judging.load_manifest()
    canon = {c["id"] for c in m.claims if not c.get("same_as") and m.effective[c["id"]] == "bootstrap"}
    audit = json.loads((root / "_build" / "audit.json").read_text(encoding="utf-8"))
    glued = {r["id"] for r in audit["claims"] if r["recomputed"] is not None}
    assert canon & glued <= set(doc["claims"]), sorted((canon & glued) - set(doc["claims"]))
    bad = []
    for cid, s in doc["claims"].items():
        if s["sd"] == 0:
            assert s["mc_error"] == 0, cid  # a count with no Monte-Carlo term (every interval far from 0.5)
            continue
        if not 0.8 <= s["mc_error"] / s["sd"] <= 1.2:
            bad.append((cid, s["mc_error"], s["sd"]))
    assert not bad, bad
    # the audit carries each bootstrap claim's place in its seed distribution
    for r in audit["claims"]:
        if m.canonical(r["id"])["id"] in doc["claims"] and r["recomputed"] is not None:
            assert r["seed_k"] == doc["k"] and r["mc_error"] is not None, r["id"]


@pytest.mark.book
def test_statuses_after_the_measured_errors(built_book, root):
    """The five Holm p's are within tolerance under the two-sided error; the raw CORE-OFF p and the CORE-OFF lower
    end cross their thresholds; the frontier rung's low end is unexplained (z beyond 3)."""
    audit = json.loads((root / "_build" / "audit.json").read_text(encoding="utf-8"))
    st = {r["id"]: r for r in audit["claims"]}
    for cid in (
        "abs_ladder_p_holm",
        "intro_c2_ladder_p_holm",
        "ladder_p_holm_adj",
        "t3cap_p_holm_adj",
        "ladder_core_vs_off_p_holm",
    ):
        assert st[cid]["status"] == "within_tolerance", cid
    for cid in ("ladder_core_vs_off_p_raw", "ladder_core_vs_off_delta_ci_lo", "t3cap_core_vs_off_ci_lo"):
        assert st[cid]["status"] == "crosses_threshold" and st[cid]["tolerance_status"] == "within_tolerance", cid
    why = {e["id"]: e for e in audit["explanations"]}
    assert why["expl_rung_core_auroc_ci_lo"]["verdict_code"] == "unexplained"
    assert abs(st["expl_rung_core_auroc_ci_lo"]["seed_z"]) > judging.PLAUSIBLE_Z


def test_the_shipped_study_matches_the_code_and_data():
    """A fresh clone's cold build reads the shipped study instead of computing it for minutes: every computing
    section's entry at its notebook's default parameters must be in the store under today's key (code, data,
    seeds, draws).  When this fails, run `python -m selfconf.book.seedstudy --ship` (or `make data`) and commit."""
    from selfconf.data.paths import project_root

    store = project_root() / seedstudy.STORE_DIR
    names = seedstudy.shipped_names()
    missing = sorted(n for n in names.values() if not (store / n).is_file())
    assert not missing, f"stale or missing shipped seed study: {missing}"
    assert sorted(p.name for p in store.glob("*.json")) == sorted(names.values())
    for section, name in names.items():
        raw = json.loads((store / name).read_text(encoding="utf-8"))
        assert raw["k"] == seedstudy.K_SEEDS and raw["seed"] == seedstudy.default_parameters(section)["seed"]


@pytest.mark.slow  # ~3 s: runs with the whole suite
def test_parallel_sections_equal_the_serial_run():
    """Running sections side by side (one process each) changes no value: an independent serial loop."""
    seeds = seedstudy.study_seeds(7, 3)
    jobs = [("result2", 7, 100, "data/reconstructed", seeds), ("limitations", 7, 100, "data/reconstructed", seeds)]
    par = seedstudy._run_parallel(jobs)
    ser = [seedstudy.run_section(s, d, seed, b, ss) for s, seed, b, d, ss in jobs]
    assert par == ser
