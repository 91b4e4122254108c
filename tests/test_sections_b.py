"""Section computations of Results 2 and 3, Implications, Limitations, the reconstruction page and the external
replication (``selfconf.sections.result2``, ``result3``, ``implications``, ``limitations``, ``reconstruction``,
``external``), called on the shipped reconstructed rows without papermill.

(a) Every deterministic paper claim a section returns prints as the paper prints it (judged by the manifest's one
rule, :mod:`selfconf.claims.judging`), and a few values the paper does not print equal those the executed pages
glue; (b) a bootstrap value moves with the seed and no deterministic value does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from selfconf import data
from selfconf.book.glue import quoted_value
from selfconf.claims.judging import judge, load_manifest
from selfconf.data import families
from selfconf.data.paths import resolve
from selfconf.data.sources import resolve_families
from selfconf.sections import (
    external,
    implications,
    limitations,
    reconstruction,
    result2,
    result3,
)
from selfconf.sections.computed import Builder, Computed

N_BOOT = 200
SEEDS = (1, 2)


@pytest.fixture(scope="module")
def rows():
    src = resolve_families("data/reconstructed", ["collection", "ladder", "probes", "twostage", "regrade"])
    frames, profiles, _ = families.load_ladder(src.path("ladder"))
    probes, _ = families.load_probes(src.path("probes"))
    twostage, _ = families.load_twostage(src.path("twostage"))
    regrade, _ = families.load_regrade(src.path("regrade"))
    collection, _ = data.load_collection(src.path("collection"))
    return {
        "frames": frames,
        "profiles": profiles,
        "probes": probes,
        "twostage": twostage,
        "regrade": regrade,
        "collection": collection,
        "bound": quoted_value("ladder_degeneracy_bound"),
        "n_rungs": len(frames),  # counted from the rows, as the Result 2 page does
    }


def _result2(r, seed):
    return result2.compute(r["frames"], r["profiles"], bound=r["bound"], n_rungs=r["n_rungs"], seed=seed, n_boot=N_BOOT)


def _result3(r, seed):
    return result3.compute(r["frames"], r["probes"], bound=r["bound"], seed=seed, n_boot=N_BOOT)


def _limitations(r, seed):
    return limitations.compute(
        r["collection"], r["twostage"], r["frames"], r["regrade"], bound=r["bound"], seed=seed, n_boot=N_BOOT
    )


SECTIONS = {"result2": _result2, "result3": _result3, "limitations": _limitations}


@pytest.fixture(scope="module")
def computed(rows):
    return {name: {seed: fn(rows, seed) for seed in SEEDS} for name, fn in SECTIONS.items()}


@pytest.fixture(scope="module")
def manifest():
    return load_manifest()


def _kinds(res: Computed, m) -> dict[str, str]:
    """Manifest kind (deterministic / bootstrap) of every paper claim of a result."""
    return {k: m.effective[m.canonical(k)["id"]] for k, o in res.origins.items() if o == "claim"}


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_every_value_is_a_claim_of_the_manifest_or_has_an_origin(name, computed, manifest):
    res = computed[name][SEEDS[0]]
    claims = [k for k, o in res.origins.items() if o == "claim"]
    assert claims and not [k for k in claims if k not in manifest.by_id]
    assert set(res.origins.values()) <= {"claim", "rows", "parameter"}
    assert sorted(k for keys in res.parts.values() for k in keys) == sorted(res.values)


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_deterministic_claims_print_as_the_paper_prints(name, computed, manifest):
    res = computed[name][SEEDS[0]]
    det = [k for k, kind in _kinds(res, manifest).items() if kind == "deterministic"]
    assert len(det) >= 10
    bad = {k: judge(manifest, k, res[k]).status for k in det if judge(manifest, k, res[k]).status != "match"}
    assert not bad


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_the_seed_moves_bootstrap_values_only(name, computed, manifest):
    a, b = computed[name][SEEDS[0]], computed[name][SEEDS[1]]
    kinds = _kinds(a, manifest)
    assert list(a.values) == list(b.values)
    changed = {k for k in a.values if a[k] != b[k]}
    boot = {k for k, kind in kinds.items() if kind == "bootstrap"}
    assert boot and boot <= changed, f"bootstrap claims unmoved by the seed: {sorted(boot - changed)}"
    assert not {k for k in changed if kinds.get(k) == "deterministic"}
    assert not {k for k in changed if a.origins[k] == "parameter"}


def test_result2_values_the_paper_does_not_print(computed):
    res = computed["result2"][SEEDS[0]]
    assert res["ladder_confirmatory_subject"] == "sonnet5"
    assert (res["ladder_n_trap_items"], res["ladder_n_pairs_placebo"]) == (21, 556)
    assert res["r2_holm_verdict"] == "both are at or above the test level α = 0.05: no confirmatory endpoint passes"
    assert res["r2_ladder_delta"] == res["ladder_core_vs_placebo_delta"]  # a repeat is the canonical value
    assert res.tables["arm_table"].index.tolist() == ["off", "placebo", "core", "shuffled"]
    assert res["ladder_n_boot"] == N_BOOT and res.origins["ladder_n_boot"] == "parameter"


def test_result2_refuses_rows_with_another_design(rows):
    with pytest.raises(ValueError, match="rungs"):
        result2.compute(rows["frames"], rows["profiles"], bound=rows["bound"], n_rungs=5, seed=1, n_boot=N_BOOT)
    with pytest.raises(ValueError, match="eligible"):  # every rung under the bound: four eligible rungs
        result2.compute(rows["frames"], rows["profiles"], bound=1.0, n_rungs=4, seed=1, n_boot=N_BOOT)


def test_result3_values_the_paper_does_not_print(computed, rows):
    res = computed["result3"][SEEDS[0]]
    assert (res["r3_microprobe_top_model"], res["r3_frontier_n_core"]) == ("glm4:9b", 546)
    assert res["topic_ci_zero_phrase"] == "Every per-probe bootstrap interval"
    assert res.tables["frontier"].loc["core", "estimate"] == res["expl_rung_core_auroc"]
    with pytest.raises(ValueError, match="demoted"):
        result3.compute(rows["frames"], rows["probes"], bound=1.0, seed=1, n_boot=N_BOOT)


def test_limitations_values_the_paper_does_not_print(computed):
    res = computed["limitations"][SEEDS[0]]
    assert (res["regrade_n_graded"], res["twostage_n_unresolved"]) == (1498, 26)
    assert res["regrade_selfrows_verdict"] == "It cannot be"


def test_selfrows_reading():
    assert limitations.selfrows_reading(10, 50.0, 40.0, 1) is None
    assert limitations.selfrows_reading(10, 50.0, 30.0, 1).endswith("which prints 40.0%, not 30.0%")
    assert limitations.selfrows_reading(3, 50.0, 40.0, 1) == "no number of correct rows prints 50.0% on them"


def test_reconstruction_counts_and_cn_interval(rows):
    a = reconstruction.compute(rows["collection"], seed=1, n_boot=N_BOOT)
    b = reconstruction.compute(rows["collection"], seed=2, n_boot=N_BOOT)
    assert {k: a[k] for k in ("recon_n_rows", "recon_n_models", "recon_n_items", "recon_google_n")} == {
        "recon_n_rows": 24000,
        "recon_n_models": 16,
        "recon_n_items": 1500,
        "recon_google_n": 1461,
    }
    assert a["recon_off_grid_values"] == "42, 62, 68, 72, 78, 82, 88, 96, 97, 98, 99"
    assert (a["recon_refusal_model"], a["recon_refusal_model_median"]) == ("anthropic", 42.0)
    assert a.values == b.values  # nothing glued here depends on the draws
    ca, cb = a.tables["cn_interval"], b.tables["cn_interval"]
    assert ca["cn_panel_vs_self_delta"] == cb["cn_panel_vs_self_delta"]
    assert ca["cn_panel_vs_self_delta_ci_lo"] != cb["cn_panel_vs_self_delta_ci_lo"]
    assert ca["cn_panel_vs_self_delta_ci_lo"] < ca["cn_panel_vs_self_delta"] < ca["cn_panel_vs_self_delta_ci_hi"]


def test_reconstruction_plausibility_and_fidelity(rows):
    p = reconstruction.plausibility(reconstruction.compute(rows["collection"], seed=1, n_boot=10).tables["graded"])
    assert 0.5 < p["share_on_grid"] < 1
    assert np.allclose(np.diag(p["phi"].to_numpy()), 1.0) and p["phi_order"][0] == "google"
    tabs = reconstruction.fidelity_tables(resolve("data/reconstructed"))
    assert tabs and all(
        set(f.columns) == {"constraint", "kind", "printed", "achieved", "status"} for *_, f, _ in tabs if len(f)
    )
    assert reconstruction.fidelity_records({"records": [{"id": "x"}]}) == [{"id": "x"}]
    assert reconstruction.fidelity_records({"other": 1}) == []


def test_implications_restates_canonical_values():
    vals = {c: float(i) for i, c in enumerate(implications.RESTATED.values())}
    res = implications.compute(vals)
    assert res["impl_cn_delta"] == vals["cn_panel_vs_self_delta"] and len(res.values) == len(implications.RESTATED)
    with pytest.raises(KeyError, match="expl_rung_shuffled_auroc"):
        implications.compute({k: v for k, v in vals.items() if k != "expl_rung_shuffled_auroc"})


@pytest.mark.slow
def test_external_on_a_few_models(rows):
    path = resolve("data/external/mmlu-pro-calibration")
    if not path.is_dir():
        pytest.skip("third-party data not fetched (make external)")
    from selfconf.data.fetch import read_mmlu_pro_calibration

    ext = read_mmlu_pro_calibration(path)
    ext = ext[ext["model"].isin(sorted(ext["model"].unique())[:3])]
    front = rows["collection"][rows["collection"]["tier"] == "frontier"]
    a = external.compute(ext, front, seed=1, n_boot=N_BOOT)
    b = external.compute(ext, front, seed=2, n_boot=N_BOOT)
    assert (a["ext_n_models"], a["ext_n_items"], a["ext_n_options"]) == (3, 12032, 10)
    assert a["ext_sqa_n_models"] == 9 and a["ext_hc_threshold"] == 80.0
    assert set(a.origins.values()) == {"external-data", "parameter"}
    changed = {k for k in a.values if a[k] != b[k]}
    assert changed and changed <= {"ext_ci_width_max", "ext_n_ci_above_chance"}
    assert a.tables["t_ext"]["auroc"].equals(b.tables["t_ext"]["auroc"])  # point estimates ignore the seed


def test_builder_refuses_a_key_twice_and_unwraps_numpy():
    b = Builder()
    b.add("p", "k", np.int64(3))
    with pytest.raises(KeyError):
        b.add("q", "k", 1)
    res = b.build()
    assert type(res["k"]) is int
    with pytest.raises(TypeError):
        Builder().add("p", "x", pd.Series([1]))
