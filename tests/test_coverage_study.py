"""The coverage study: its harness against exact binomial coverage (scipy), its Monte-Carlo SE against the spread of
independent studies, its cluster draw against a loop, and ``selfconf.sections.coverage.compute`` on the shipped rows
at a tiny size (true values checked against scikit-learn and the panel point estimates)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from selfconf import data, panels
from selfconf.data import families
from selfconf.data.sources import resolve_families
from selfconf.metrics import from_percent
from selfconf.sections import coverage
from selfconf.stats.coverage import coverage_mc_se, interval_coverage

Z = stats.norm.ppf(0.975)


def _wald(k: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    ph = k / n
    half = Z * np.sqrt(ph * (1 - ph) / n)
    return ph - half, ph + half


def _exact_wald(p: float, n: int) -> tuple[float, float, float]:
    """Exact coverage and miss shares of the Wald interval by enumerating the binomial (scipy's pmf)."""
    k = np.arange(n + 1)
    lo, hi = _wald(k, n)
    w = stats.binom.pmf(k, n, p)
    return float(w[(lo <= p) & (hi >= p)].sum()), float(w[hi < p].sum()), float(w[lo > p].sum())


@pytest.mark.parametrize(("p", "n"), [(0.3, 50), (0.5, 200), (0.08, 40)])
def test_harness_recovers_the_exact_coverage_of_the_wald_interval(p, n):
    """The textbook oracle: the harness's coverage and miss split of a Wald interval for a Bernoulli mean at known p
    agree with the exact values (binomial enumeration) within 4 Monte-Carlo SE; (0.08, 40) is a case known to
    undercover, so the harness must also see a shortfall, not just return the nominal level."""
    reps = 20_000
    k = np.random.default_rng(7).binomial(n, p, reps)
    lo, hi = _wald(k, n)
    r = interval_coverage(p, lo, hi, k / n)
    exact, below, above = _exact_wald(p, n)
    assert abs(r["coverage"] - exact) < 4 * coverage_mc_se(exact, reps)
    assert abs(r["miss_below"] - below) < 4 * np.sqrt(below * (1 - below) / reps) + 1e-4
    assert abs(r["miss_above"] - above) < 4 * np.sqrt(above * (1 - above) / reps) + 1e-4
    assert abs(r["bias"]) < 4 * np.sqrt(p * (1 - p) / n / reps)
    if (p, n) == (0.08, 40):
        assert exact < 0.93 and r["coverage"] < 0.93 and coverage.verdict(r["z"]) == "below nominal"


def test_mc_se_formula_matches_binomial_sd_and_the_spread_of_independent_studies():
    """sqrt(c(1-c)/R) equals scipy's binomial SD / R, and predicts the SD of the coverage over 400 independent
    studies of R = 300 replicates each within 15 %."""
    assert coverage_mc_se(0.95, 200) == pytest.approx(stats.binom(200, 0.95).std() / 200, rel=1e-12)
    assert np.allclose(coverage_mc_se([0.5, 0.9], [100, 400]), [0.05, 0.015])
    p, n, reps, studies = 0.4, 60, 300, 400
    k = np.random.default_rng(3).binomial(n, p, (studies, reps))
    lo, hi = _wald(k, n)
    covs = np.array([interval_coverage(p, lo[s], hi[s])["coverage"] for s in range(studies)])
    predicted = coverage_mc_se(covs.mean(), reps)
    assert abs(covs.std(ddof=1) / predicted - 1) < 0.15
    with pytest.raises(ValueError, match="coverage"):
        coverage_mc_se(1.2, 10)
    with pytest.raises(ValueError, match="n_reps"):
        coverage_mc_se(0.9, 0)


def test_interval_coverage_counts_every_replicate_and_names_bad_input():
    r = interval_coverage(1.0, [0.0, np.nan, 1.5, 0.2], [2.0, 3.0, 2.0, 0.9], level=0.9)
    assert (r["n_reps"], r["n_undefined"], r["coverage"], r["miss_above"], r["miss_below"]) == (4, 1, 0.25, 0.25, 0.25)
    assert r["mean_width"] == pytest.approx((2.0 + 0.5 + 0.7) / 3)
    assert r["z"] == pytest.approx((0.25 - 0.9) / np.sqrt(0.9 * 0.1 / 4))
    with pytest.raises(ValueError, match="high < low"):
        interval_coverage(0.0, [1.0], [0.0])
    with pytest.raises(ValueError, match="same non-zero length"):
        interval_coverage(0.0, [1.0, 2.0], [3.0])


def test_resample_clusters_matches_a_loop():
    f = pd.DataFrame({"item": list("aabccc"), "v": range(6)})
    draw = [2, 0, 0, 1]
    got = coverage.resample_clusters(f, "item", draw)
    order = pd.unique(f["item"])
    want = pd.concat(
        [f[f["item"] == order[d]].assign(item=k) for k, d in enumerate(draw)], ignore_index=True
    ).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    with pytest.raises(ValueError, match="3 clusters"):
        coverage.resample_clusters(f, "item", [3])


@pytest.fixture(scope="module")
def shipped():
    src = resolve_families("data/reconstructed", ["collection", "ladder"])
    rows = data.load_collection(src.path("collection"))[0]
    frames = families.load_ladder(src.path("ladder"))[0]
    return rows, frames


@pytest.fixture(scope="module")
def small(shipped):
    rows, frames = shipped
    return coverage.compute(rows, frames, seed=11, n_boot=100, n_reps=3, study_n_boot=100)


def _sk_auroc(frame: pd.DataFrame) -> dict[str, float]:
    g = frame[(frame["tier"] == "frontier") & (frame["parse_ok"] == 1)]
    return {
        m: roc_auc_score(x["correct"].astype(int), from_percent(x["confidence"].to_numpy()))
        for m, x in g.groupby("model")
    }


def test_compute_truths_are_the_statistics_of_the_population(shipped, small):
    rows, _ = shipped
    pop = small.tables["population"]
    t1 = pop[pop["type"] == "table1_auroc"].set_index("quantity")["estimate"]
    sk = _sk_auroc(rows)
    assert set(t1.index) == set(sk) and all(abs(t1[m] - sk[m]) < 1e-12 for m in sk)
    pd_ = pop[pop["type"] == "panel_delta"].set_index("quantity")["estimate"]
    for name, mem in panels.PANELS.items():
        est = panels.panel_point_estimates(panels.panel_rows(rows, mem))
        assert pd_[name] == pytest.approx(est["delta_panel_minus_self"], abs=1e-12)
    assert small.values["coverage_rung"] == "sonnet5" and small.values["coverage_n_items"] == 1500
    assert small.tables["per_type"]["n_quantities"].tolist() == [9, 3, 2]
    assert small.values["coverage_two_se_nominal_pp"] == pytest.approx(2 * 100 * stats.binom(3, 0.95).std() / 3)
    assert small.values["coverage_expected_flags"] == pytest.approx(14 * (1 - (stats.norm.cdf(2) - stats.norm.cdf(-2))))


def test_compute_replicates_are_paper_sized_draws_scored_by_the_book_functions(shipped, small):
    """Replicate 1 redrawn here from its named stream: same size as the population, and its Table 1 estimates equal
    scikit-learn's AUROC on the redrawn rows; the coverage table equals a count over the replicate table."""
    rows, _ = shipped
    rng, _ = coverage.replicate_seeds(11, 1)
    pop = rows[rows["tier"] == "frontier"].reset_index(drop=True)
    draw = rng.integers(0, 1500, 1500)
    rep_rows = coverage.resample_clusters(pop, "item_id", draw)
    assert rep_rows["item_id"].nunique() == 1500 and len(rep_rows) == len(pop)  # one row per frontier model and item
    rep = small.tables["replicates"]
    got = rep[(rep["replicate"] == 1) & (rep["type"] == "table1_auroc")].set_index("quantity")["estimate"]
    sk = _sk_auroc(rep_rows)
    assert all(abs(got[m] - sk[m]) < 1e-12 for m in sk)
    per = small.tables["per_quantity"]
    for t in per.itertuples():
        sel = rep[(rep["type"] == t.type) & (rep["quantity"] == t.quantity)]
        n_cov = sum(lo <= t.truth <= hi for lo, hi in zip(sel["low"], sel["high"], strict=True))
        assert t.coverage == n_cov / 3 and t.n_reps == 3


def test_a_replicate_does_not_depend_on_how_many_are_run(shipped, small):
    rows, frames = shipped
    two = coverage.compute(rows, frames, seed=11, n_boot=100, n_reps=2, study_n_boot=100).tables["replicates"]
    three = small.tables["replicates"]
    pd.testing.assert_frame_equal(two, three[three["replicate"] < 2].reset_index(drop=True))
    with pytest.raises(ValueError, match="n_reps"):
        coverage.compute(rows, frames, seed=11, n_boot=100, n_reps=1, study_n_boot=100)


def test_sentences_are_generated_from_the_records(small):
    for kind in coverage.INTERVAL_TYPES:
        s = small.values[f"coverage_{kind}_sentence"]
        assert s.startswith(coverage.INTERVAL_TYPES[kind][0]) and f"{small.values[f'coverage_{kind}_pct']:.1f} %" in s
