"""Driver of the collection generator: tables -> rows -> files -> fidelity report."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from selfconf.data.collection import load_benchmark_age, load_collection
from selfconf.panels import PANELS
from selfconf.reconstruct.bench_age import BENCH_MODELS, benchmark_rows, choose_counts
from selfconf.reconstruct.bounds import block_tied_table, delong_se_from_table, min_delong_se
from selfconf.reconstruct.collection import (
    build_rows,
    panel_half_widths,
    parse_failures,
    tune_structure,
    write_collection,
    write_csv,
)
from selfconf.reconstruct.fidelity import (
    SECTIONS,
    compute_values,
    fidelity_records,
    mean_over_seeds,
    risk_coverage_conventions,
)
from selfconf.reconstruct.frontier import FRONTIER, FrontierPlan, fit_frontier, frontier_terms
from selfconf.reconstruct.local import fit_local
from selfconf.reconstruct.targets import load_targets
from selfconf.stats.normal import Z975

__all__ = [
    "DEFAULT_SEED",
    "KNOWN_CONFLICTS",
    "RECONSTRUCTION_LIMITS",
    "generate_collection",
    "google_ci_evidence",
    "google_ci_reason",
    "ceil_rule_closest",
    "ideal_bootstrap",
]

#: The reconstruction's seed (the paper's collection was smoke-verified on 2026-07-24).
DEFAULT_SEED = 20260724
#: annealing budget (steps) of the frontier table search
WARM_STEPS = 25000
JOINT_STEPS = 60000
RESTARTS = 3


#: Published numbers that no data can reproduce together under a stated convention.  Every entry has the
#: shape ``{"claims": [...], "reason": str, "evidence": {...}, "closest_attainable": {claim id: value}}``:
#: ``closest_attainable`` is the value nearest the print that any data consistent with the other published
#: numbers can give under that convention; the audit calls a failing number a *conflict* only when that
#: bound excludes the print by more than the tolerance (:func:`selfconf.claims.judging.conflict_excludes`).
KNOWN_CONFLICTS: list[dict[str, Any]] = [
    {
        "claims": ["t2_google_err_cov40", "t2_google_err_cov20", "r1_riskcov_google_err20"],
        "convention": "k = ceil(c n) covered rows",
        "reason": "Convention, not data: google has n = 1,461 graded rows.  Covering k = ceil(c n) rows "
        "(585 at 40%, 293 at 20%) no integer error count prints 18.7% (109/585 = 18.63%, "
        "110/585 = 18.80%) or 15.1% (44/293 = 15.02%, 45/293 = 15.36%).  With k = floor(c n) "
        "(584, 292; the book's rule) the printed rates hold, and the reconstruction's tie groups end "
        "exactly at floor(c n) (see risk_coverage_conventions).",
        "evidence": {
            "n": 1461,
            "ceil_rows": {"40": 585, "20": 293},
            "floor_rows": {"40": 584, "20": 292},
            "printed_pct": {"40": 18.7, "20": 15.1},
        },
    },
]

#: Numbers the reconstruction misses although the published numbers allow a value within tolerance:
#: the same shape as :data:`KNOWN_CONFLICTS` (``closest_attainable`` is the bound that shows a closer data
#: set exists); the evidence of the google interval is computed by :func:`google_ci_evidence`.
RECONSTRUCTION_LIMITS: list[dict[str, Any]] = [
    {
        "claims": ["t1_google_self_auroc_ci_lo", "t1_google_self_auroc_ci_hi"],
        "reason": "",  # written by google_ci_reason from the evidence computed at generation time
        "evidence": {},
    },
]


def ceil_rule_closest(T) -> dict[str, float]:
    """Closest error rate (percent) to google's printed 40% and 20% rates over any integer error count
    when k = ceil(c n) rows are covered (the convention under which the first known conflict holds)."""
    import math

    n = int(T.value("t1_google_n"))
    out = {}
    for cid, cov in (("t2_google_err_cov40", 40), ("t2_google_err_cov20", 20), ("r1_riskcov_google_err20", 20)):
        if cid not in T.by_id:
            continue
        k = math.ceil(round(cov * n / 100, 9))
        target = T.value(cid)
        e = round(target * k / 100)
        out[cid] = min((100 * q / k for q in (e - 1, e, e + 1) if 0 <= q <= k), key=lambda r: abs(r - target))
    return out


def google_ci_reason(ev: dict) -> str:
    """The google interval note, in words, with the numbers of its evidence."""
    lo, hi = ev["expected_ci_at_min_se"]
    plo, phi = ev["printed_ci"]
    return (
        "Table 2 fixes how many rows and errors lie in each of google's five coverage blocks.  Over every order "
        "of correct and incorrect rows inside the blocks with the printed AUROC, the smallest DeLong standard "
        f"error (exact dynamic programme, selfconf.reconstruct.bounds) is {ev['min_delong_se']:.5f} (proven "
        f"lower bound {ev['min_delong_se_lower_bound']:.5f}), above the {ev['printed_implied_se']:.5f} the printed "
        f"interval implies.  At that smallest SE the expected interval is [{lo:.4f}, {hi:.4f}] against the "
        f"printed [{plo:.3f}, {phi:.3f}]: within the Monte-Carlo tolerance at both ends, so the published numbers "
        "are compatible and this is not a conflict among them.  What misses is the reconstruction: its fitted "
        "table must also meet google's other Table 1 values and has a larger SE (table_terms google.delong_se).  "
        "A closer table was looked for: three reworkings of the frontier search's interval target broke between "
        "4 and 13 deterministic claims, and a local search on the fitted table moved the interval by less than "
        "0.001."
    )


#: google's Table 2 coverage blocks (top block first): rows = floor(c n) differences, errors
#: from the printed error rates (Table 2; see risk_coverage_conventions)
GOOGLE_COVERAGES = (20, 40, 60, 80, 100)
#: large-B estimate of the bootstrap claims: seeds x draws (seeds derived from the generator seed)
IDEAL_SEEDS = 5
IDEAL_DRAWS = 4000


def google_ci_evidence(T) -> dict:
    """Evidence for the google interval conflict: blocks, smallest DeLong SE, implied SE."""
    import math

    n = int(T.value("t1_google_n"))
    cum_rows = [math.floor(round(c * n / 100, 9)) for c in GOOGLE_COVERAGES]
    cum_err = [
        round(T.value(f"t2_google_err_cov{c}") * k / 100) for c, k in zip(GOOGLE_COVERAGES, cum_rows, strict=True)
    ]
    sizes = np.diff([0] + cum_rows).tolist()
    errors = np.diff([0] + cum_err).tolist()
    window = T.interval("t1_google_self_auroc")
    res = min_delong_se(sizes, errors, window)
    lo, hi = T.value("t1_google_self_auroc_ci_lo"), T.value("t1_google_self_auroc_ci_hi")
    z = Z975
    a = T.value("t1_google_self_auroc")
    tied_auroc, tied_se = delong_se_from_table(*block_tied_table(sizes, errors))
    return {
        "block_rows": sizes,
        "block_errors": errors,
        "auroc_window": list(window),
        "min_delong_se": res.se,
        "min_delong_se_auroc": res.auroc,
        "min_delong_se_lower_bound": res.lower_bound,
        "max_tie": res.max_tie,
        "block_tied_se": tied_se,
        "block_tied_auroc": tied_auroc,
        "printed_implied_se": (hi - lo) / (2 * z),
        "expected_ci_at_min_se": [a - z * res.se, a + z * res.se],
        "printed_ci": [lo, hi],
    }


def ideal_bootstrap(df, bench, T, seed: int) -> dict:
    """Large-B values of the design / result1 bootstrap claims the generator evaluates.

    :func:`.fidelity.mean_over_seeds` of :func:`.fidelity.compute_values` (the book's own analysis
    functions), :data:`IDEAL_SEEDS` runs of :data:`IDEAL_DRAWS` draws; the seeds come from
    ``SeedSequence([seed, 1])`` (never the book's page seed).
    """
    seeds = np.random.SeedSequence([seed, 1]).generate_state(IDEAL_SEEDS).tolist()
    wanted = [
        c["id"]
        for c in T.raw["claims"]
        if c["section"] in SECTIONS and c["kind"] == "bootstrap" and not c.get("same_as")
    ]
    return mean_over_seeds(
        lambda **kw: compute_values(df, bench, **kw),
        lambda values: [cid for cid in wanted if cid in values],
        seeds,
        IDEAL_DRAWS,
        spread=True,
    )


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    raise TypeError(type(x))


def _panel_width_report(T, rows, codes) -> dict[str, dict[str, dict[str, float]]]:
    """Per panel and interval (self, panel, delta): the analytic half-width (:func:`.collection.panel_half_widths`)
    and, where the paper prints the interval, the printed half-width."""
    widths: dict[str, dict[str, dict[str, float]]] = {}
    for name, members in PANELS.items():
        k = {"US": "us", "CN": "cn", "cross_bloc": "xb"}[name]
        h = panel_half_widths(rows, codes, members)
        widths[name] = {}
        for part, cid in (("self", "self_auroc_pooled"), ("panel", "panel_auroc"), ("delta", "panel_vs_self_delta")):
            entry = {"analytic_half_width": h[part]}
            if f"{k}_{cid}_ci_lo" in T.by_id:
                entry["printed_half_width"] = 0.5 * (T.value(f"{k}_{cid}_ci_hi") - T.value(f"{k}_{cid}_ci_lo"))
            widths[name][part] = entry
    return widths


def _fidelity_report(T, out: Path, seed: int, log=print) -> dict:
    """The fidelity part of ``fidelity_collection.json``, from the rows just written to ``out``: the claims as
    recomputed (:func:`.fidelity.compute_values`), the risk-coverage conventions, the large-B bootstrap values,
    the known conflicts and reconstruction limits with their evidence, and a count of claims by status."""
    report: dict[str, Any] = {}
    df, _ = load_collection(out)
    bench = load_benchmark_age(out)
    recs = fidelity_records(T, compute_values(df, bench, seed=seed))
    report["claims"] = recs
    report["risk_coverage_conventions"] = risk_coverage_conventions(df)
    t_ideal = time.perf_counter()
    report["ideal_bootstrap"] = ideal_bootstrap(df, bench, T, seed)
    log(f"ideal bootstrap values in {time.perf_counter() - t_ideal:.1f} s")
    conflicts = [dict(c, evidence=dict(c["evidence"])) for c in KNOWN_CONFLICTS]
    conflicts[0]["closest_attainable"] = ceil_rule_closest(T)
    report["known_conflicts"] = conflicts
    limits = [dict(c, evidence=dict(c["evidence"])) for c in RECONSTRUCTION_LIMITS]
    t_bound = time.perf_counter()
    ev = google_ci_evidence(T)
    limits[0]["evidence"] = ev
    limits[0]["reason"] = google_ci_reason(ev)
    limits[0]["closest_attainable"] = {
        "t1_google_self_auroc_ci_lo": ev["expected_ci_at_min_se"][0],
        "t1_google_self_auroc_ci_hi": ev["expected_ci_at_min_se"][1],
    }
    log(
        f"google interval bound in {time.perf_counter() - t_bound:.1f} s: min DeLong SE "
        f"{ev['min_delong_se']:.5f} vs printed-implied {ev['printed_implied_se']:.5f}"
    )
    report["reconstruction_limits"] = limits
    summary: dict[str, int] = {}
    for r in recs:
        summary[r["status"]] = summary.get(r["status"], 0) + 1
    report["summary"] = summary
    log("fidelity: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.items())))
    return report


def generate_collection(out_dir: str | Path, seed: int = DEFAULT_SEED, log=print, fidelity: bool = True) -> dict:
    """Write ``collection.csv``, ``benchmark_age.csv`` and ``fidelity_collection.json`` to ``out_dir``."""
    t_start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    T = load_targets()
    ss = np.random.SeedSequence(seed)
    s_fail, s_front, s_local, s_rows, s_bench = ss.spawn(5)
    fails = parse_failures(np.random.default_rng(s_fail))
    plan = FrontierPlan(T, {m: len(fails[m]) for m in FRONTIER})
    log("fitting frontier tables ...")
    tables, objective = fit_frontier(
        plan, np.random.default_rng(s_front), n_steps=JOINT_STEPS, warm_steps=WARM_STEPS, restarts=RESTARTS
    )
    log(f"  objective {objective:.4f}")
    log("fitting local tables ...")
    tables.update(fit_local(np.random.default_rng(s_local)))
    log("tuning cross-model structure ...")
    struct, panel_est = tune_structure(T, tables, plan, fails, s_rows, log=log)
    rows, codes = build_rows(T, tables, plan, fails, struct, s_rows)
    widths = _panel_width_report(T, rows, codes)
    n_rows = write_collection(out / "collection.csv", T, rows, codes)
    sqa = {m: (int(rows[m].parse_ok.sum()), int((rows[m].correct == 1).sum())) for m in BENCH_MODELS}
    counts = choose_counts(T, sqa)
    write_csv(
        out / "benchmark_age.csv",
        ["model", "item_id", "benchmark", "correct"],
        benchmark_rows(counts, np.random.default_rng(s_bench)),
    )
    gen_seconds = time.perf_counter() - t_start
    log(f"wrote {n_rows:,} collection rows in {gen_seconds:.1f} s")
    report = {
        "generator": "selfconf.reconstruct.collection",
        "seed": seed,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "structure": {
            "loading": struct.loading,
            "variant_rate": struct.variant_rate,
            "wrong_sharing": struct.wrong_sharing,
            "conf_loading": struct.conf_loading,
            "conf_loading_by_model": struct.conf_loading_by_model,
            "popular_wrong_beta": [struct.popular_wrong_a, struct.popular_wrong_b],
        },
        "panel_interval_widths": widths,
        "parse_failures": {m: int(len(fails[m])) for m in fails},
        "benchmark_age_counts": counts,
        "table_terms": [
            {
                "term": name,
                "value": float(v),
                "lo": float(lo),
                "hi": float(hi),
                "status": ("n/a" if lo != lo else ("hit" if lo <= v <= hi else "miss")),
            }
            for name, v, lo, hi in frontier_terms(plan, tables)
        ],
    }
    if fidelity:
        report.update(_fidelity_report(T, out, seed, log))
    (out / "fidelity_collection.json").write_text(
        json.dumps(report, indent=1, sort_keys=True, default=_json_default) + "\n", encoding="utf-8"
    )
    return report


def generate(out_dir: str | Path, seed: int | None = None) -> dict:
    """Entry point used by ``python -m selfconf.reconstruct``: :func:`generate_collection` at the default seed.

    Example: ``generate("data/reconstructed")`` rewrites ``collection.csv`` and its fidelity file.
    """
    return generate_collection(out_dir, DEFAULT_SEED if seed is None else seed)
