"""selfconf.stats.summary.table1: hand-computed small cases, determinism, independence of other models."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from selfconf.bootstrap import count_draws, resample_indices
from selfconf.metrics import auroc, level_counts
from selfconf.stats import summary
from selfconf.stats.summary import TABLE1_COLUMNS, model_rng, row_bootstrap_auroc, table1


def _frame(spec: dict[str, tuple[list[float], list[int]]]) -> pd.DataFrame:
    parts = [pd.DataFrame({"model": m, "confidence": c, "correct": y}) for m, (c, y) in spec.items()]
    return pd.concat(parts, ignore_index=True)


# model "a": 5 rows, worked by hand below
A_CONF = [0.9, 0.8, 0.8, 0.3, 0.6]
A_CORR = [1, 0, 1, 0, 0]


def test_hand_computed_statistics():
    t = table1(_frame({"a": (A_CONF, A_CORR)}), rng=0, n_boot=50)
    assert list(t.columns) == TABLE1_COLUMNS
    r = t.iloc[0]
    assert r["model"] == "a" and r["n"] == 5
    assert r["accuracy"] == pytest.approx(2 / 5)
    assert r["mean_confidence"] == pytest.approx(3.4 / 5)  # 0.68
    assert r["median_confidence"] == pytest.approx(0.8)
    assert r["citl"] == pytest.approx(0.68 - 0.40)
    # Brier: (0.1^2 + 0.8^2 + 0.2^2 + 0.3^2 + 0.6^2) / 5 = (0.01+0.64+0.04+0.09+0.36)/5
    assert r["brier"] == pytest.approx(1.14 / 5)
    # ECE, 10 bins: [0.3,0.4): conf .3 acc 0 -> gap .3 (1 row); [0.6,0.7): .6 vs 0 (1 row);
    # [0.8,0.9): conf .8 acc .5 -> .3 (2 rows); [0.9,1]: .9 vs 1 -> .1 (1 row)
    assert r["ece"] == pytest.approx((0.3 + 0.6 + 2 * 0.3 + 0.1) / 5)
    # AUROC: correct scores {0.9, 0.8}, wrong {0.8, 0.3, 0.6}: pairs won 3 + (0.5 + 2) = 5.5 of 6
    assert r["auroc"] == pytest.approx(5.5 / 6)
    # >= 0.8: rows 0.9(1), 0.8(0), 0.8(1) -> 3 high, 1 wrong
    assert r["high_conf_n"] == 3 and r["high_conf_wrong"] == 1
    assert r["high_conf_error_rate"] == pytest.approx(1 / 3)
    # risk at 100%: 3/5 wrong; at 20%: top row (0.9, correct) -> 0; at 40%: 0.9 and one of the two 0.8 rows
    # (one right, one wrong): 1/4 expected over the two tie orders, 0 at best, 1/2 at worst
    rc = r["risk_coverage"]
    assert rc[1.0] == pytest.approx(0.6) and rc[0.2] == pytest.approx(0.0) and rc[0.4] == pytest.approx(0.25)
    assert r["risk_coverage_min"][0.4] == 0.0 and r["risk_coverage_max"][0.4] == pytest.approx(0.5)
    assert r["auroc_ci_low"] <= r["auroc_ci_high"]


def test_threshold_and_coverages_are_used():
    t = table1(_frame({"a": (A_CONF, A_CORR)}), rng=0, n_boot=20, threshold=0.6, coverages=(0.6,))
    r = t.iloc[0]
    assert (r["high_conf_n"], r["high_conf_wrong"]) == (4, 2)
    assert list(r["risk_coverage"]) == [0.6]
    assert r["risk_coverage"][0.6] == pytest.approx(1 / 3)  # 0.9(1), 0.8(0), 0.8(1)


def test_perfect_discrimination_gives_degenerate_interval():
    # every correct row outranks every wrong row: each resample with both classes has AUROC 1
    t = table1(_frame({"p": ([0.9, 0.8, 0.7, 0.2, 0.1, 0.05], [1, 1, 1, 0, 0, 0])}), rng=3, n_boot=200)
    r = t.iloc[0]
    assert r["auroc"] == 1.0 and r["auroc_ci_low"] == 1.0 and r["auroc_ci_high"] == 1.0


def test_bootstrap_matches_an_explicit_loop():
    rng = np.random.default_rng(11)
    c = rng.integers(0, 101, 300) / 100
    y = (rng.random(300) < c).astype(int)
    lo, hi, n_undef = row_bootstrap_auroc(c, y, rng=np.random.default_rng(5), n_boot=300)
    lv, pos, neg = level_counts(c, y)
    # the same draws made explicit: each draw's cell counts expanded back into rows, scored row by row
    draws = np.array(
        [
            auroc(
                np.repeat(np.r_[lv, lv], np.r_[p, q]),
                np.repeat(np.r_[np.ones_like(lv), np.zeros_like(lv)], np.r_[p, q]),
            )
            for P, Q in count_draws(pos, neg, n_boot=300, rng=np.random.default_rng(5))
            for p, q in zip(P, Q, strict=True)
        ]
    )
    assert n_undef == 0 and draws.size == 300
    assert (lo, hi) == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])), abs=1e-12)
    assert lo < auroc(c, y) < hi


def test_the_bootstrap_draws_cell_counts_like_resampling_rows():
    """Multinomial cell counts are the row bootstrap's distribution: the mean count of each cell is its count."""
    c = np.array([0.9, 0.9, 0.5, 0.5, 0.5, 0.2])
    y = np.array([1, 0, 1, 0, 0, 0])
    _, pos, neg = level_counts(c, y)
    P = np.concatenate([p for p, _ in count_draws(pos, neg, n_boot=20_000, rng=0)])
    assert np.allclose(P.mean(axis=0), pos, atol=0.05)
    idx = resample_indices(6, 20_000, np.random.default_rng(0))
    assert np.allclose(
        np.bincount(np.searchsorted([0.2, 0.5, 0.9], c[idx][y[idx] == 1]), minlength=3) / 20_000, pos, atol=0.05
    )


def test_table1_interval_uses_the_model_generator():
    df = _frame({"x": ([0.9, 0.2, 0.8, 0.4, 0.7, 0.1, 0.6, 0.3] * 5, [1, 0, 0, 1, 1, 0, 1, 0] * 5)})
    t = table1(df, rng=31, n_boot=400).iloc[0]
    lo, hi, _ = row_bootstrap_auroc(df["confidence"], df["correct"], rng=model_rng(31, "x"), n_boot=400)
    assert (t["auroc_ci_low"], t["auroc_ci_high"]) == (lo, hi)


def _random_models(seed: int, names=("m1", "m2", "m3"), n=400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    spec = {}
    for k, name in enumerate(names):
        c = rng.integers(0, 101, n) / 100
        y = (rng.random(n) < 0.3 + 0.4 * c * (k + 1) / len(names)).astype(int)
        spec[name] = (list(c), list(y))
    return _frame(spec)


def test_deterministic_for_int_and_generator_seeds():
    df = _random_models(1)
    t1 = table1(df, rng=123, n_boot=300)
    t2 = table1(df, rng=123, n_boot=300)
    pd.testing.assert_frame_equal(t1, t2)
    g1 = table1(df, rng=np.random.default_rng(9), n_boot=300)
    g2 = table1(df, rng=np.random.default_rng(9), n_boot=300)
    pd.testing.assert_frame_equal(g1, g2)
    t3 = table1(df, rng=124, n_boot=300)
    assert not np.allclose(t1["auroc_ci_low"], t3["auroc_ci_low"])  # the seed matters


def test_model_order_and_presence_do_not_change_a_models_interval():
    df = _random_models(2)
    full = table1(df, rng=77, n_boot=300).set_index("model")
    only_m2 = table1(df[df["model"] == "m2"], rng=77, n_boot=300).set_index("model")
    reordered = pd.concat([df[df["model"] == m] for m in ("m3", "m1", "m2")], ignore_index=True)
    rev = table1(reordered, rng=77, n_boot=300)
    assert list(rev["model"]) == ["m1", "m2", "m3"]  # sorted by name, whatever the input order
    rev = rev.set_index("model")
    cols = ["auroc_ci_low", "auroc_ci_high"]
    assert only_m2.loc["m2", cols].tolist() == full.loc["m2", cols].tolist()
    pd.testing.assert_frame_equal(rev.loc[full.index, cols], full[cols])


def test_model_rng_is_the_documented_derivation():
    a = model_rng(42, "moonshot").integers(0, 10**9, 5)
    key = (1, len(b"moonshot"), *b"moonshot")
    b = np.random.default_rng(np.random.SeedSequence(42, spawn_key=key)).integers(0, 10**9, 5)
    assert (a == b).all()
    assert not (model_rng(42, "openai").integers(0, 10**9, 5) == a).all()


def test_generator_advanced_by_one_draw_only():
    g = np.random.default_rng(4)
    table1(_random_models(3), rng=g, n_boot=50)
    ref = np.random.default_rng(4)
    ref.integers(0, 2**63)
    assert g.integers(0, 10**9) == ref.integers(0, 10**9)


def test_single_class_model_gets_nan_auroc_not_an_error():
    t = table1(_frame({"all_right": ([0.9, 0.7, 0.8], [1, 1, 1]), "a": (A_CONF, A_CORR)}), rng=0, n_boot=30)
    r = t.set_index("model").loc["all_right"]
    assert np.isnan(r["auroc"]) and np.isnan(r["auroc_ci_low"])
    assert t.attrs["auroc_undefined_draws"]["all_right"] == 30
    assert r["accuracy"] == 1.0


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.drop(columns="correct"), "lacks column"),
        (lambda d: d.assign(confidence=d["confidence"] * 100), "from_percent"),
        (lambda d: d.assign(confidence=d["confidence"].where(d.index != 2)), "row 2"),
        (lambda d: d.assign(correct=d["correct"].replace(0, 2)), "'correct' must be 0/1"),
    ],
)
def test_bad_input_names_the_problem(mutate, message):
    with pytest.raises(ValueError, match=message):
        table1(mutate(_frame({"a": (A_CONF, A_CORR)})), rng=0, n_boot=10)


def test_rng_type_checked():
    with pytest.raises(TypeError):
        summary.base_seed(0.5)
    with pytest.raises(ValueError):
        summary.base_seed(-1)


def test_covered_rows_floor_and_ceil():
    from selfconf.metrics import risk_coverage_table

    def k(cov, n, covered="floor"):
        return int(risk_coverage_table(np.linspace(0, 1, n), np.ones(n), [cov], covered=covered)["k"][0])

    assert k(0.2, 1461) == 292 and k(0.2, 1461, "ceil") == 293
    assert k(0.4, 1461) == 584 and k(0.4, 1461, "ceil") == 585
    assert k(0.6, 1500) == 900 == k(0.6, 1500, "ceil")  # 0.6*1500 is 900.0000000000001
    assert k(0.2, 3) == 1  # never zero rows
    with pytest.raises(ValueError):
        k(0.2, 10, "round")
    with pytest.raises(ValueError):
        k(0.0, 10)


def test_google_ceil_and_floor_differ_at_20_percent(root):
    """The Result 1 page's ceil column must show the ceil rule's value: on the shipped rows google's error at
    20% coverage is 15.1% over floor(c n) = 292 rows and 15.0% over ceil(c n) = 293 rows."""
    from selfconf import data, metrics

    rows, _ = data.load_collection(root / "data/reconstructed")
    g = data.graded(rows)
    g = g[g["model"] == "google"]
    c, y = metrics.from_percent(g["confidence"].to_numpy()), g["correct"].to_numpy()
    floor = metrics.risk_coverage(c, y, [0.2], covered="floor")[0.2]
    ceil = metrics.risk_coverage(c, y, [0.2], covered="ceil")[0.2]
    assert f"{100 * floor:.1f}" == "15.1" and f"{100 * ceil:.1f}" == "15.0"


def test_table1_risk_coverage_respects_the_covered_rule():
    # 7 rows sorted by confidence: correct, wrong, ...; at 20% floor keeps 1 row (error 0), ceil keeps 2 (1/2)
    conf = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    corr = [1, 0, 1, 0, 1, 0, 0]
    df = _frame({"a": (conf, corr)})
    floor = table1(df, rng=0, n_boot=20, coverages=(0.2, 1.0)).iloc[0]["risk_coverage"]
    ceil = table1(df, rng=0, n_boot=20, coverages=(0.2, 1.0), covered="ceil").iloc[0]["risk_coverage"]
    assert floor == {0.2: 0.0, 1.0: pytest.approx(4 / 7)}
    assert ceil[0.2] == pytest.approx(0.5) and ceil[1.0] == pytest.approx(4 / 7)
    with pytest.raises(ValueError, match="covered"):
        table1(df, rng=0, n_boot=20, covered="nearest")


def test_row_order_changes_nothing():
    """Shuffling the rows (within and across models) gives the same table, cell for cell."""
    df = _random_models(5)
    df["confidence"] = (df["confidence"] * 10).round() / 10  # heavy ties, so cuts fall inside tie groups
    a = table1(df, rng=8, n_boot=200)
    for seed in (1, 2):
        b = table1(df.sample(frac=1, random_state=seed).reset_index(drop=True), rng=8, n_boot=200)
        pd.testing.assert_frame_equal(a, b)
        assert a.attrs == b.attrs


def test_table1_equals_the_report_on_random_tied_rows():
    """One path: every shared column of table1 is the report's value for the same rows and seed."""
    from selfconf import report

    df = _random_models(6, names=("b", "a", "c"), n=500)
    df["confidence"] = (df["confidence"] * 20).round() / 20
    t = table1(df, rng=13, n_boot=300)
    r = report.from_frame(
        df.assign(item_id=df.groupby("model").cumcount()), confidence_scale="unit", seed=13, n_boot=300
    )
    assert list(t["model"]) == list(r["model"])
    exact = [
        "n",
        "accuracy",
        "median_confidence",
        "auroc",
        "auroc_ci_low",
        "auroc_ci_high",
        "high_conf_error_rate",
        "high_conf_n",
    ]
    for col in exact:
        assert t[col].astype(float).tolist() == r[col].astype(float).tolist(), col
    # the report evaluates these with the bootstrap draws in one matrix product: equal to the last bits
    for col in ("mean_confidence", "citl", "brier", "ece"):
        assert t[col].to_numpy() == pytest.approx(r[col].to_numpy(), rel=1e-13, abs=1e-15), col
    for name in ("risk_coverage", "risk_coverage_min", "risk_coverage_max"):
        mine = [{report.coverage_key(k): v for k, v in d.items()} for d in t[name]]
        assert mine == list(r[name]), name
