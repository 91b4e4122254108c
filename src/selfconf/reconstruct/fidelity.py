"""Fidelity of the reconstructed collection: every claim of *Design* and *Result 1* recomputed
from the written rows with the book's own statistics, against the printed number.

This module belongs to the generator (it reads claim targets); the analysis notebooks compute
the same quantities independently and never see the targets.

Statuses come from the book's one judging rule, :mod:`selfconf.claims.judging` (the audit's): ``match``,
``mismatch``, ``within_tolerance``, ``outside_tolerance``; ``external`` for protocol constants and
quoted facts (not recomputed).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from selfconf import bootstrap, metrics, roster
from selfconf.claims.judging import fidelity_record
from selfconf.data.collection import graded
from selfconf.panels import PANELS, panel_analysis
from selfconf.reconstruct.bench_age import BENCH_MODELS
from selfconf.reconstruct.targets import Targets

__all__ = ["SECTIONS", "compute_values", "fidelity_records", "mean_over_seeds"]

SECTIONS = ("design", "result1")
EXTRA_CLAIMS = ("repro_moonshot_firstparty_n",)
#: Table 1's models in row order (the roster table, :func:`selfconf.roster.frontier`).
TABLE1 = roster.frontier()
N_BOOT = 2000


def _model_stats(g: pd.DataFrame, m: str, rng: np.random.Generator, n_boot: int) -> dict[str, Any]:
    r = g[g["model"] == m]
    c = metrics.from_percent(r["confidence"].to_numpy())
    y = r["correct"].to_numpy()
    ci = bootstrap.auroc_ci(c, y, n_boot=n_boot, rng=rng)
    rel = metrics.reliability_bins(c, y)
    occ = rel["n"] > 0
    rc = metrics.risk_coverage(c, y, coverages=(1.0, 0.8, 0.6, 0.4, 0.2))
    h, w = metrics.high_conf_counts(c, y, 0.8)
    return {
        "n": int(len(r)),
        "acc": 100 * float(y.mean()),
        "mean_conf": float(r["confidence"].mean()),
        "median_conf": float(np.median(r["confidence"].to_numpy())),
        "citl": 100 * metrics.citl(c, y),
        "brier": metrics.brier(c, y),
        "ece": metrics.ece(c, y),
        "auroc": metrics.auroc(c, y),
        "ci": (ci.low, ci.high),
        "n_nonpositive_bins": int((rel["gap"][occ] <= 0).sum()),
        "risk": {int(round(100 * k)): 100 * v for k, v in rc.items()},
        "high_n": int(h),
        "high_wrong": int(w),
    }


def mean_over_seeds(recompute_fn, select, seeds, n_boot: int, *, spread: bool = False) -> dict[str, dict]:
    """Large-B ("ideal") values of bootstrap claims: ``{id: {"value", "n_boot", "seeds"}}``.

    ``select(values)`` names the claims to keep, given the first run's values (a generator may not
    compute every claim it knows).  ``value`` is the mean over ``seeds`` of
    ``recompute_fn(seed=s, n_boot=n_boot)[id]``; with ``spread``
    the entry also holds ``sd_between_seeds``.  A percentile endpoint or bootstrap p-value from B draws
    scatters around the value an infinite bootstrap would give; averaging ``len(seeds) * n_boot`` draws'
    worth of runs estimates it to a fraction of the book's Monte-Carlo tolerance (Efron & Tibshirani
    1993, ch. 19).  Used by every generator's fidelity file, so the audit can tell a seed's luck from a
    limit of the data.
    """
    runs = [recompute_fn(seed=int(s), n_boot=n_boot) for s in seeds]
    out = {}
    for cid in select(runs[0]):
        vals = [r[cid] for r in runs]
        out[cid] = {"value": float(np.mean(vals)), "n_boot": n_boot, "seeds": len(seeds)}
        if spread:
            out[cid]["sd_between_seeds"] = float(np.std(vals, ddof=1))
    return out


def compute_values(df: pd.DataFrame, bench: pd.DataFrame, *, seed: int = 0, n_boot: int = N_BOOT) -> dict[str, float]:
    """Every design / result1 quantity the reconstruction must reproduce, from rows.

    In steps, each a function of its own: design counts, Table 1 and Table 2 per model, the calibration prose,
    the local tier (Figure 1), the panels, the benchmark-age arm.  The generators of Table 1, the panels and the
    benchmark-age arm are spawned from ``SeedSequence(seed)`` in that order.
    """
    ss = np.random.SeedSequence(seed)
    g = graded(df)
    front = g[g["tier"] == "frontier"]
    v: dict[str, float] = _design_counts(df, g)
    rngs = dict(zip(TABLE1, (np.random.default_rng(s) for s in ss.spawn(len(TABLE1))), strict=False))
    st = {m: _model_stats(g, m, rngs[m], n_boot) for m in TABLE1}
    v.update(_table_values(st))
    v.update(_result1_prose(front, st, int(v["r1_n_frontier_models"])))
    v.update(_local_tier(g[g["tier"] == "local"]))
    prng = dict(zip(PANELS, (np.random.default_rng(s) for s in ss.spawn(len(PANELS))), strict=False))
    v.update(_panel_values(df, prng, n_boot))
    brng = dict(zip(BENCH_MODELS, (np.random.default_rng(s) for s in ss.spawn(len(BENCH_MODELS))), strict=False))
    v.update(_bench_age_values(bench, g, brng, n_boot))
    ms = df[(df["model"] == "moonshot")]
    v["repro_moonshot_firstparty_n"] = int((ms["served_by"] == "first_party").sum())
    return {k: (float(x) if not isinstance(x, int) else x) for k, x in v.items()}


def _design_counts(df: pd.DataFrame, g: pd.DataFrame) -> dict[str, Any]:
    """Models, providers, items and graded rows by tier (the design section's counts)."""
    models = df.drop_duplicates("model")[["tier", "model"]]
    n_front = int((models["tier"] == "frontier").sum())
    return {
        "design_n_models": len(models),
        "design_n_providers": n_front,
        "design_n_local_models": int((models["tier"] == "local").sum()),
        "design_models_per_provider": 1,
        "design_n_items": df["item_id"].nunique(),
        "design_n_graded_total": len(g),
        "design_n_graded_frontier": int((g["tier"] == "frontier").sum()),
        "design_n_graded_local": int((g["tier"] == "local").sum()),
        "r1_n_frontier_models": n_front,
    }


def _table_values(st: dict[str, dict]) -> dict[str, Any]:
    """Table 1 (and Figure 1's medians) per model, Table 2's error rates at each coverage for three models."""
    v: dict[str, Any] = {}
    for m, s in st.items():
        v[f"t1_{m}_n"] = s["n"]
        v[f"t1_{m}_acc"] = s["acc"]
        v[f"t1_{m}_mean_conf"] = s["mean_conf"]
        v[f"t1_{m}_citl"] = s["citl"]
        v[f"t1_{m}_brier"] = s["brier"]
        v[f"t1_{m}_ece"] = s["ece"]
        v[f"t1_{m}_self_auroc"] = s["auroc"]
        v[f"t1_{m}_self_auroc_ci_lo"], v[f"t1_{m}_self_auroc_ci_hi"] = s["ci"]
        v[f"fig1_{m}_median_conf"] = s["median_conf"]
    for m in ("anthropic", "xai", "google"):
        for cov in (100, 80, 60, 40, 20):
            v[f"t2_{m}_err_cov{cov}"] = st[m]["risk"][cov]
    return v


def _result1_prose(front: pd.DataFrame, st: dict[str, dict], n_front: int) -> dict[str, Any]:
    """The calibration and discrimination prose of Result 1: median band, CITL range, bins, high-confidence
    errors, the AUROC span (from the per-model statistics ``st``) and Anthropic's AUROC without refusals."""
    v: dict[str, Any] = {}
    in_band = [m for m in TABLE1 if 85 <= st[m]["median_conf"] <= 95]
    v["r1_n_models_median_in_band"] = len(in_band)
    v["r1_n_models_depart"] = n_front - len(in_band)
    v["r1_median_band_min"] = min(st[m]["median_conf"] for m in in_band)
    v["r1_median_band_max"] = max(st[m]["median_conf"] for m in in_band)
    v["r1_acc_span_min"] = min(st[m]["acc"] for m in in_band)
    v["r1_acc_span_max"] = max(st[m]["acc"] for m in in_band)
    v["r1_citl_range_min"] = min(s["citl"] for s in st.values())
    v["r1_citl_range_max"] = max(s["citl"] for s in st.values())
    allpos = [m for m in TABLE1 if st[m]["n_nonpositive_bins"] == 0]
    others = [m for m in TABLE1 if m not in allpos]
    v["r1_n_models_all_bins_positive"] = len(allpos)
    v["r1_n_other_models_bins"] = len(others)
    nn = sorted({st[m]["n_nonpositive_bins"] for m in others})
    v["r1_n_nonpositive_bins_other_models"] = nn[0] if len(nn) == 1 else float("nan")
    a = front[front["model"] == "anthropic"]
    a_ans = a[a["refusal"] == 0]
    v["r1_anthropic_n_excl_refusals"] = len(a_ans)
    v["r1_anthropic_self_auroc_excl_refusals"] = metrics.auroc(
        a_ans["confidence"].to_numpy(float), a_ans["correct"].to_numpy()
    )
    H = sum(s["high_n"] for s in st.values())
    W = sum(s["high_wrong"] for s in st.values())
    v["r1_highconf_total_n"], v["r1_highconf_wrong_n"] = H, W
    v["r1_highconf_wrong_pooled_pct"] = 100 * W / H
    rates = [100 * s["high_wrong"] / s["high_n"] for s in st.values()]
    v["r1_highconf_wrong_permodel_min"], v["r1_highconf_wrong_permodel_max"] = min(rates), max(rates)
    v["r1_highconf_wrong_macro_pct"] = float(np.mean(rates))
    au = {m: st[m]["auroc"] for m in TABLE1}
    v["r1_self_auroc_span_min"], v["r1_self_auroc_span_max"] = min(au.values()), max(au.values())
    v["r1_n_models_below_threshold"] = sum(x < 0.62 for x in au.values())
    v["r1_riskcov_n_models"] = 3
    return v


def _local_tier(local: pd.DataFrame) -> dict[str, Any]:
    """Figure 1's local tier: ranges of accuracy (%) and median confidence, fewest and most gradable rows."""
    loc = {m: (len(r), 100 * r["correct"].mean(), float(np.median(r["confidence"]))) for m, r in local.groupby("model")}
    return {
        "fig1_local_acc_min": min(x[1] for x in loc.values()),
        "fig1_local_acc_max": max(x[1] for x in loc.values()),
        "fig1_local_median_conf_min": min(x[2] for x in loc.values()),
        "fig1_local_median_conf_max": max(x[2] for x in loc.values()),
        "local_reasoning_model_n_gradable": min(x[0] for x in loc.values()),
        "fig1_local_n_max": max(x[0] for x in loc.values()),
    }


def _panel_values(df: pd.DataFrame, prng: dict[str, np.random.Generator], n_boot: int) -> dict[str, Any]:
    """Each panel's pooled self-AUROC, panel AUROC, their difference with intervals, and the US decomposition."""
    v: dict[str, Any] = {}
    key = {"US": "us", "CN": "cn", "cross_bloc": "xb"}
    for name, members in PANELS.items():
        k = key[name]
        pa = panel_analysis(df, members, n_boot=n_boot, rng=prng[name])
        v[f"{k}_self_auroc_pooled"] = pa["self_auroc_pooled"]
        v[f"{k}_panel_auroc"] = pa["panel_auroc"]
        v[f"{k}_panel_vs_self_delta"] = pa["delta_panel_minus_self"]
        v[f"{k}_self_auroc_pooled_ci_lo"], v[f"{k}_self_auroc_pooled_ci_hi"] = pa["self_ci"]
        v[f"{k}_panel_auroc_ci_lo"], v[f"{k}_panel_auroc_ci_hi"] = pa["panel_ci"]
        v[f"{k}_panel_vs_self_delta_ci_lo"], v[f"{k}_panel_vs_self_delta_ci_hi"] = pa["delta_ci"]
        v[f"{k}_self_auroc_ranknorm"] = pa["self_auroc_ranknorm"]
        v[f"{k}_panel_auroc_labelfree"] = pa["panel_auroc_labelfree"]
        if name == "US":
            v["us_within_model_self_auroc_min"] = pa["within_model_min"]
            v["us_within_model_self_auroc_max"] = pa["within_model_max"]
            v["us_within_model_self_auroc_macro"] = pa["within_model_macro"]
            v["us_between_model_identity_contribution"] = pa["between_model_identity"]
    return v


def _accuracy_gap_pp(yy: np.ndarray, gg: np.ndarray) -> np.ndarray:
    """Accuracy (%) of group 1 minus group 0, one value per row of the (B, n) resamples (batched).

    >>> _accuracy_gap_pp(np.array([1.0, 1.0, 0.0, 1.0]), np.array([1, 1, 0, 0])).tolist()
    [50.0]
    """
    yy = np.atleast_2d(yy)
    gg = np.atleast_2d(gg)
    return 100 * ((yy * (gg == 1)).sum(1) / (gg == 1).sum(1) - (yy * (gg == 0)).sum(1) / (gg == 0).sum(1))


def _bench_age_values(
    bench: pd.DataFrame, g: pd.DataFrame, brng: dict[str, np.random.Generator], n_boot: int
) -> dict[str, Any]:
    """Benchmark-age arm: accuracy on the older benchmark minus on SimpleQA (pp) per model, by an unpaired
    percentile bootstrap in which each benchmark is resampled on its own (``groups=``)."""
    v: dict[str, Any] = {}
    gaps = {}
    for m in BENCH_MODELS:
        t = bench[(bench["model"] == m)]["correct"].to_numpy()
        s_ = g[g["model"] == m]["correct"].to_numpy()
        y = np.concatenate([t, s_]).astype(float)
        grp = np.concatenate([np.ones(t.size, int), np.zeros(s_.size, int)])
        ci = bootstrap.percentile_ci(_accuracy_gap_pp, y, grp, n_boot=n_boot, rng=brng[m], batched=True, groups=grp)
        gaps[m] = ci.estimate
        v[f"bench_age_{m}_gap_pp"] = ci.estimate
        v[f"bench_age_{m}_gap_ci_lo"], v[f"bench_age_{m}_gap_ci_hi"] = ci.low, ci.high
        if m == "zhipu":
            v["bench_age_zhipu_truthfulqa_acc"] = 100 * t.mean()
    v["bench_age_gap_range_min"] = min(gaps.values())
    v["bench_age_gap_range_max"] = max(gaps.values())
    return v


def fidelity_records(T: Targets, values: dict[str, float]) -> list[dict]:
    """One record per design/result1 claim (plus the moonshot first-party count), in the schema of
    :func:`selfconf.claims.judging.fidelity_record`; a repeat is judged with its canonical claim's value."""
    m = T.manifest
    assert m is not None  # Targets builds its manifest in __post_init__
    recs = []
    for c in T.raw["claims"]:
        if c["section"] not in SECTIONS and c["id"] not in EXTRA_CLAIMS:
            continue
        src = m.canonical(c["id"])
        x = values.get(src["id"])
        if c.get("transform") == "negate" and x is not None:
            x = -x
        recs.append(fidelity_record(m, c["id"], x))
    return recs


def risk_coverage_conventions(
    df: pd.DataFrame, models=("anthropic", "xai", "google"), coverages=(80, 60, 40, 20)
) -> dict[str, dict[str, float]]:
    """Table 2 error rates (percent) under three covered-set sizes: ceil, round and floor of c x n.

    Rows are taken in descending confidence; the reconstruction's tie groups end at
    floor(c x n) (the book's rule), so that rule never splits a tie group.  Reported so the
    fidelity table can show which convention the printed numbers need (google, n = 1,461: ceil
    gives 585 and 293 covered rows, for which 18.7% and 15.1% are unreachable by any data).
    """
    g = graded(df)
    out = {}
    for m in models:
        r = g[g["model"] == m]
        conf = r["confidence"].to_numpy()
        wrong = 1 - r["correct"].to_numpy()
        order = np.argsort(-conf, kind="stable")
        cum = np.concatenate([[0], np.cumsum(wrong[order])])
        n = conf.size
        for cov in coverages:
            x = cov * n / 100
            ks = {
                "ceil": math.ceil(round(x, 9)),
                "round": int(math.floor(x + 0.5)),
                "floor": int(math.floor(round(x, 9))),
            }
            out[f"t2_{m}_err_cov{cov}"] = {name: 100 * float(cum[k]) / k for name, k in ks.items()}
    return out
