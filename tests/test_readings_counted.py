"""The specification curve counted honestly: distinct results, reasonable readings versus bounds, the joint test,
and the two resampling / panel dimensions (bootstrap cluster unit, leave-one-member-out panels).

Every reference here is written without the package's functions: plain loops (the joint test, distinct results),
the oracle of ``test_panel_readings`` (a two-member panel computed from scratch), scipy (uniformity of p-values).
"""

from __future__ import annotations

import itertools
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from test_panel_readings import oracle, random_rows

from selfconf import panels
from selfconf.panels import (
    CANONICAL_READING,
    READING_STATUS,
    READINGS,
    all_readings,
    check_reading,
    joint_test,
    panel_readings,
    reading_status,
)
from selfconf.sections import readings as sec

# ---------------------------------------------------------------------------------------------
# the joint test
# ---------------------------------------------------------------------------------------------


def loop_joint_test(delta, draws, canonical):
    """Simonsohn et al.'s test by plain loops over draws and specifications (no numpy reductions)."""
    delta = [float(x) for x in delta]
    s_n = len(delta)
    c = 1 if delta[canonical] >= 0 else -1

    def sgn(x):
        return (x > 0) - (x < 0)

    share = sum(1 for x in delta if sgn(x) == c) / s_n
    med = statistics.median(delta)
    ge_share = ge_med = 0
    shares = []
    for row in draws:
        null = [float(row[s]) - delta[s] for s in range(s_n)]
        cb = 1 if null[canonical] >= 0 else -1
        sh = sum(1 for x in null if sgn(x) == cb) / s_n
        shares.append(sh)
        ge_share += sh >= share
        ge_med += cb * statistics.median(null) >= c * med
    b = len(draws)
    return {
        "sign": c,
        "share": share,
        "median": med,
        "p_share": (1 + ge_share) / (1 + b),
        "p_median": (1 + ge_med) / (1 + b),
    }


@pytest.mark.parametrize("seed,s_n,canonical", [(0, 7, 0), (1, 12, 5), (2, 4, 3)])
def test_joint_test_equals_plain_loop(seed, s_n, canonical):
    g = np.random.default_rng(seed)
    delta = g.normal(0.02, 0.03, s_n)
    draws = delta + g.normal(0, 0.03, (60, s_n)) + g.normal(0, 0.02, (60, 1))  # correlated specifications
    got = joint_test(delta, draws, canonical=canonical)
    want = loop_joint_test(delta, draws, canonical)
    for k, v in want.items():
        assert got[k] == pytest.approx(v, abs=1e-15), k
    assert got["n_specifications"] == s_n and got["n_draws"] == 60


def test_joint_test_leaves_out_undefined_specifications():
    g = np.random.default_rng(5)
    delta = g.normal(0, 0.02, 6)
    draws = delta + g.normal(0, 0.02, (40, 6))
    draws[3, 2] = np.nan
    got = joint_test(delta, draws, canonical=4)
    keep = [0, 1, 3, 4, 5]
    want = loop_joint_test(delta[keep], draws[:, keep], 3)
    assert got["n_left_out"] == 1 and got["p_median"] == pytest.approx(want["p_median"])
    with pytest.raises(ValueError, match="canonical specification"):
        joint_test(delta, draws, canonical=2)


@pytest.mark.slow
def test_joint_test_p_values_are_uniform_when_no_specification_has_an_effect():
    """Data under the null (every specification's true effect 0, correlated estimates): the p-value of the median
    is uniform (Kolmogorov-Smirnov against scipy's uniform); the share's p-value, of a discrete statistic, is
    conservative (P(p <= a) <= a up to Monte-Carlo error)."""
    g = np.random.default_rng(20261205)
    s_n, b, reps = 15, 199, 400
    a = g.normal(size=(s_n, s_n))
    cov = a @ a.T / s_n + np.eye(s_n)
    chol = np.linalg.cholesky(cov) * 0.02
    p_share, p_med = [], []
    for _ in range(reps):
        est = chol @ g.normal(size=s_n)  # the data set's estimates: true effects 0
        boot = est + g.normal(size=(b, s_n)) @ chol.T  # its bootstrap draws around them
        r = joint_test(est, boot, canonical=0)
        p_share.append(r["p_share"])
        p_med.append(r["p_median"])
    assert stats.kstest(p_med, "uniform").pvalue > 0.01
    se = np.sqrt(0.05 * 0.95 / reps)
    assert np.mean(np.array(p_med) <= 0.05) == pytest.approx(0.05, abs=3 * se)
    for alpha in (0.05, 0.1, 0.5):
        assert np.mean(np.array(p_share) <= alpha) <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps)
    assert np.mean(p_share) > 0.4  # not piled near 0


# ---------------------------------------------------------------------------------------------
# reasonable readings and bounds
# ---------------------------------------------------------------------------------------------


def test_every_option_is_classed_with_a_reason():
    assert set(READING_STATUS) == set(READINGS)
    for dim, opts in READINGS.items():
        assert set(READING_STATUS[dim]) == set(opts), dim
        for v in opts:
            status, why = READING_STATUS[dim][v]
            assert status in ("reasonable", "bound") and len(why) > 10
        assert READING_STATUS[dim][CANONICAL_READING[dim]][0] == "reasonable"
    # the bounds the issue names
    for dim, v in (("ties", "loss"), ("ties", "win"), ("indeterminate", "concurring")):
        assert READING_STATUS[dim][v][0] == "bound"
    # a reading is a bound when any one of its options is
    for r in all_readings()[::37]:
        any_bound = any(READING_STATUS[k][v][0] == "bound" for k, v in r.items())
        assert reading_status(r) == ("bound" if any_bound else "reasonable")


def test_survival_tallies_split_by_status():
    """The split counts add up to the totals, and each equals a count made row by row."""
    members = ("a", "b", "c")
    df = random_rows(11, members, 60)
    t = panel_readings(df, members, n_boot=60, rng=3)
    t.insert(0, "panel", "CN")
    s = sec.survival(t)["CN"]
    for what in ("", "_survive", "_reversed", "_same_sign", "_inconclusive"):
        assert s[f"n_reasonable{what}"] + s[f"n_bound{what}"] == s[f"n{what or '_readings'}"], what
    c = t[t["canonical"]].iloc[0]
    v0 = sec.verdict(c["delta_ci_low"], c["delta_ci_high"])
    n = 0
    for _, r in t.iterrows():
        if reading_status({k: r[k] for k in READINGS}) == "reasonable":
            n += sec.verdict(r["delta_ci_low"], r["delta_ci_high"]) == v0
    assert s["n_reasonable_survive"] == n
    text = sec.survival_sentence("CN", s)
    assert f"{s['n_reasonable_survive']} of {s['n_reasonable']} reasonable readings" in text
    assert f"{s['n_bound_survive']} of {s['n_bound']} bounds" in text or s["canonical_verdict"] == 0


# ---------------------------------------------------------------------------------------------
# distinct results
# ---------------------------------------------------------------------------------------------


def test_distinct_results_against_a_loop():
    members = ("a", "b", "c")
    df = random_rows(12, members, 40)
    reads = [
        check_reading(signal=s, ties=t, cluster=c)
        for s in READINGS["signal"]
        for t in ("half", "loss")
        for c in ("item", "row")
    ]
    t = panel_readings(df, members, readings=reads, n_boot=20, rng=1)
    first: dict[tuple, int] = {}
    for i, r in enumerate(t.to_dict("records")):
        key = tuple(r[c] for c in panels.RESULT_COLUMNS)
        j = first.setdefault(key, i)
        assert (r["same_result_as"] == "") == (j == i)
        assert t["result_id"][i] == t["result_id"][j]
        if j != i:
            assert r["same_result_as"] == panels.reading_label(t.iloc[j])
    assert t["result_id"].nunique() == len(first)
    # the cluster unit never changes a result: every row-bootstrap reading repeats its item-bootstrap twin
    assert (t.loc[t["cluster"] == "row", "same_result_as"] != "").all()
    assert len(first) <= len(reads) // 2


# ---------------------------------------------------------------------------------------------
# the two new dimensions
# ---------------------------------------------------------------------------------------------


def test_canonical_values_unchanged_by_the_new_dimensions():
    """The canonical row (values and intervals) does not depend on whether row / member / leave-out readings are
    computed beside it (their draws come from child generators)."""
    members = ("a", "b", "c")
    df = random_rows(4, members, 80)
    alone = panel_readings(df, members, readings=[{}], n_boot=200, rng=11).iloc[0]
    many = panel_readings(
        df,
        members,
        readings=[{}, {"cluster": "row"}, {"cluster": "member"}, {"leave_out": "each_member"}],
        n_boot=200,
        rng=11,
    )
    can = many[many["canonical"]].iloc[0]
    for c in ("panel_auroc", "delta", "delta_ci_low", "delta_ci_high", "self_auroc_ci_low", "panel_auroc_ci_high"):
        assert can[c] == alone[c], c
    iv = panels.panel_intervals(df, members, n_boot=200, rng=11)
    assert (can["delta_ci_low"], can["delta_ci_high"]) == iv["delta_panel_minus_self_ci"]


def test_leave_one_member_out_is_the_two_member_panel():
    members = ("a", "b", "c")
    df = random_rows(6, members, 50)
    reads = [
        check_reading(leave_out="each_member", signal=s, aggregation=a)
        for s in ("count", "majority")
        for a in ("pooled", "per_member")
    ]
    t = panel_readings(df, members, readings=reads, n_boot=10, rng=2)
    assert (t["leave_out"] == "each_member").all() and not t["canonical"].any()
    assert list(dict.fromkeys(t["left_out"])) == list(members)
    for gone in members:
        rest = tuple(m for m in members if m != gone)
        for r in reads:
            panel, self_, _ = oracle(df, rest, dict(r, leave_out="none"))
            got = t[(t["left_out"] == gone) & (t["signal"] == r["signal"]) & (t["aggregation"] == r["aggregation"])]
            if r["aggregation"] == "per_member":
                assert list(got["member"]) == list(rest)
                for _, row in got.iterrows():
                    assert row["panel_auroc"] == pytest.approx(panel[row["member"]], abs=1e-12)
                    assert row["self_auroc"] == pytest.approx(self_[row["member"]], abs=1e-12)
            else:
                assert len(got) == 1
                assert got["panel_auroc"].iloc[0] == pytest.approx(panel, abs=1e-12)
                assert got["self_auroc"].iloc[0] == pytest.approx(self_, abs=1e-12)
    with pytest.raises(ValueError, match="at least three members"):
        panel_readings(
            random_rows(6, ("a", "b"), 30), ("a", "b"), readings=[{"leave_out": "each_member"}], n_boot=5, rng=0
        )


def test_cluster_units_resample_rows_and_members():
    """Row bootstrap: each draw's multiplicities are over rows (an interval narrower than the item bootstrap's on
    rows whose members agree on each item); member bootstrap: a draw repeats whole members, so with a constant
    item effect its intervals come from at most ten distinct resamples of three members."""
    members = ("a", "b", "c")
    g = np.random.default_rng(9)
    n = 150
    item_easy = g.random(n) < 0.5  # one item effect shared by all members: strong within-item dependence
    rows = []
    for m in members:
        for i in range(n):
            ok = int(item_easy[i] if g.random() < 0.9 else not item_easy[i])
            rows.append((m, i, 1, int(g.choice([50, 70, 90])), ok, 0, "x" if ok else f"w{g.integers(3)}"))
    df = pd.DataFrame(
        rows, columns=["model", "item_id", "parse_ok", "confidence", "correct", "refusal", "answer_class"]
    )
    t = panel_readings(df, members, readings=[{}, {"cluster": "row"}, {"cluster": "member"}], n_boot=400, rng=5)
    w = (t["panel_auroc_ci_high"] - t["panel_auroc_ci_low"]).to_numpy()
    assert w[1] < w[0]  # rows treated as independent: narrower than the item bootstrap
    assert t["panel_auroc"].nunique() == 1  # the unit moves intervals, never the estimate
    _, d = panel_readings(df, members, readings=[{"cluster": "member"}], n_boot=400, rng=5, return_draws=True)
    assert len(np.unique(np.round(d[:, 0], 12))) <= 10


def test_all_readings_counts():
    r = all_readings()
    assert len(r) == int(np.prod([len(v) for v in READINGS.values()])) == 2592
    assert r[0] == CANONICAL_READING
    assert len({tuple(x.values()) for x in r}) == len(r)
    assert {x["cluster"] for x in r} == {"item", "row", "member"} and {x["leave_out"] for x in r} == {
        "none",
        "each_member",
    }
    assert list(itertools.islice((x == CANONICAL_READING for x in r), 1)) == [True]


def test_section_joint_tests_use_the_item_bootstrap_specifications():
    """The page's joint test: item-bootstrap rows of the panel's own table, oriented by its canonical row; the
    shares equal counts made row by row, and the canonical values equal compute()'s (same generator)."""
    members = ("a", "b", "c")
    df = random_rows(21, members, 50)
    t, tests = sec.joint_tests(df, {"CN": members}, seed=3, n_boot=50)
    assert t.equals(sec.compute(df, {"CN": members}, seed=3, n_boot=50))
    item = t[t["cluster"] == "item"]
    c = np.sign(t.loc[t["canonical"], "delta"].iloc[0])
    for which, rows in (("all", item), ("reasonable", item[item["status"] == "reasonable"])):
        r = tests["CN"][which]
        assert r["n_specifications"] + r["n_left_out"] == len(rows)
        ok = rows["delta"].notna()
        assert r["sign"] == c
        if r["n_left_out"] == 0:
            assert r["share"] == pytest.approx(float((np.sign(rows["delta"][ok]) == c).mean()))
            assert r["median"] == pytest.approx(float(rows["delta"].median()))
        assert 1 / 51 <= r["p_share"] <= 1 and 1 / 51 <= r["p_median"] <= 1


# ---------------------------------------------------------------------------------------------
# the fast paths: same definitions, checked against independent references
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("types", [[0, 2, 1, 0, 2, 2, 0], [0, 1, 0, 2, 0, 1, 0, 0, 2, 1, 0, 2, 2, 0]])
def test_type_counts_have_the_distribution_of_clusters_picked_one_by_one(types):
    """The draw per type (by picks with few clusters per type, the first case; by one multinomial otherwise, the
    second) has the distribution of picking clusters one by one: scipy's binomial marginals, and the multinomial
    covariance, also met by the package's per-cluster multiplicities summed per type."""
    from selfconf import bootstrap

    types = np.array(types)
    inc = np.eye(3, dtype=np.int64)[types]
    sizes = np.bincount(types)
    d = panels.multinomial_type_counts(sizes, 20000, 4)
    n, p = types.size, sizes / types.size
    assert (d.sum(axis=1) == n).all()
    for t in range(3):  # each type's count is Binomial(n, p_t): chi-square goodness of fit
        obs = np.bincount(d[:, t], minlength=n + 1)
        exp = stats.binom.pmf(np.arange(n + 1), n, p[t]) * len(d)
        keep = exp > 5
        chi2 = (((obs - exp) ** 2) / exp)[keep].sum()
        assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3, t
    cov = n * (np.diag(p) - np.outer(p, p))
    assert np.allclose(np.cov(d.T), cov, atol=0.1)
    picks = bootstrap.cluster_multiplicities(n, 20000, 5) @ inc
    assert np.allclose(np.cov(picks.T), cov, atol=0.1)


def test_intervals_equal_numpy_quantiles_to_the_bit():
    g = np.random.default_rng(12)
    vecs = []
    for n in range(40):
        v = np.round(g.normal(size=301), int(g.integers(1, 4)))  # ties
        if n % 5 == 1:
            v[g.integers(1, 301, 7)] = np.nan
        if n % 7 == 2:
            v[g.integers(1, 301, 3)] = np.inf
        vecs.append(v)
    vecs.append(np.full(301, np.nan))
    vecs.append(vecs[3])  # the same object twice
    for level in (0.95, 0.9, 0.5):
        got = panels._intervals(vecs, level)
        a = (1 - level) / 2
        for v, (lo, hi, bad) in zip(vecs, got, strict=True):
            d = np.where(np.isfinite(v[1:]), v[1:], np.nan)
            ok = np.isfinite(d)
            assert bad == int((~ok).sum())
            if ok.any():
                q = np.quantile(d[ok], [a, 1 - a])
                assert (lo, hi) == (float(q[0]), float(q[1]))
                if not ok.all():
                    assert (lo, hi) == tuple(float(x) for x in np.nanquantile(d, [a, 1 - a]))
            else:
                assert np.isnan(lo) and np.isnan(hi)


def item_effect_rows(seed, members, n):
    """Rows with a strong item effect (all members right or wrong together, mostly), no refusals, and per row
    its canonical agreement count computed by a plain loop (same answer class, or both correct)."""
    g = np.random.default_rng(seed)
    easy = g.random(n) < 0.5
    recs = []
    for m in members:
        for i in range(n):
            ok = int(easy[i] if g.random() < 0.85 else not easy[i])
            recs.append((m, i, 1, int(g.choice([40, 60, 80, 95])), ok, 0, "x" if ok else f"w{g.integers(3)}"))
    cols = ["model", "item_id", "parse_ok", "confidence", "correct", "refusal", "answer_class"]
    df = pd.DataFrame(recs, columns=cols)
    by = {(r.model, r.item_id): r for r in df.itertuples(index=False)}
    out = []  # (member index, signal, confidence, correct)
    for i in range(n):
        for j, m in enumerate(members):
            a = by[(m, i)]
            s = sum(
                a.answer_class == by[(o, i)].answer_class or bool(a.correct and by[(o, i)].correct)
                for o in members
                if o != m
            )
            out.append((j, s, a.confidence, a.correct))
    return df, np.array(out)


def test_row_bootstrap_has_the_spread_of_rows_drawn_one_by_one():
    """The row-bootstrap draws of panel - self (counted per row type) against rows resampled one by one in a
    plain loop, each resample's AUROCs by the Mann-Whitney rank formula (scipy's mid-ranks): same spread and
    quantiles within Monte-Carlo error; on rows with a strong item effect the item bootstrap's spread is clearly
    different."""

    def roc_auc_score(yy, score):
        ranks = stats.rankdata(score)
        pos = yy == 1
        n1, n0 = int(pos.sum()), int((~pos).sum())
        return (ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)

    members = ("a", "b", "c")
    df, r = item_effect_rows(21, members, 120)
    sig, conf, y = r[:, 1], r[:, 2], r[:, 3]
    g = np.random.default_rng(3)
    loop = []
    for _ in range(1500):
        k = g.integers(0, y.size, y.size)
        loop.append(roc_auc_score(y[k], sig[k]) - roc_auc_score(y[k], conf[k]))
    loop = np.array(loop)
    _, d_row = panel_readings(df, members, readings=[{"cluster": "row"}], n_boot=3000, rng=8, return_draws=True)
    _, d_item = panel_readings(df, members, readings=[{}], n_boot=3000, rng=8, return_draws=True)
    sd_loop, sd_row, sd_item = loop.std(), d_row[:, 0].std(), d_item[:, 0].std()
    assert abs(sd_row / sd_loop - 1) < 0.1
    assert abs(sd_item / sd_loop - 1) > 0.08
    for q in (0.025, 0.975):
        assert abs(np.quantile(d_row[:, 0], q) - np.quantile(loop, q)) < 0.3 * sd_loop


def test_member_bootstrap_draws_equal_a_draw_by_draw_computation():
    """Statistics evaluated once per distinct member draw and spread back equal scikit-learn's weighted AUROCs
    computed draw by draw, each row weighted by its member's multiplicity (the documented member generator)."""
    from sklearn.metrics import roc_auc_score

    from selfconf import bootstrap

    members = ("a", "b", "c")
    df, r = item_effect_rows(22, members, 40)
    mem, sig, conf, y = r[:, 0], r[:, 1], r[:, 2], r[:, 3]
    _, d = panel_readings(df, members, readings=[{"cluster": "member"}], n_boot=80, rng=4, return_draws=True)
    kid = bootstrap.as_generator(4).spawn(4 + 3)[2]  # member bootstrap, all_answered population
    mult = bootstrap.cluster_multiplicities(3, 80, kid)
    checked = 0
    for b in range(80):
        w = mult[b, mem]
        if len(set(y[w > 0])) < 2:
            assert np.isnan(d[b, 0])
            continue
        ref = roc_auc_score(y, sig, sample_weight=w) - roc_auc_score(y, conf, sample_weight=w)
        assert d[b, 0] == pytest.approx(ref, abs=1e-12)
        checked += 1
    assert checked > 40 and len(np.unique(d[:, 0])) <= 10
