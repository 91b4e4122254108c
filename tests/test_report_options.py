"""The report's options declared once (:class:`selfconf.report.core.ReportOptions`), and the named steps that
``compute_records``, ``_unit_stats`` and ``stats.summary.table1`` were split into, each against an outside
reference (pandas group-bys, numpy quantiles, plain loops)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from selfconf import bootstrap, metrics
from selfconf.report import compare, core
from selfconf.report.compare import compare_rows
from selfconf.stats import registry, summary


def _frame(n: int = 120, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    c = rng.choice(np.arange(10, 101, 10), n)
    return pd.DataFrame(
        {
            "model": rng.choice(["a", "b", "c"], n),
            "item_id": range(n),
            "confidence": np.where(rng.random(n) < 0.08, np.nan, c),
            "correct": (rng.random(n) < c / 110).astype(int),
            "refusal": np.where(rng.random(n) < 0.2, 1, 0),
            "tier": rng.choice(["x", "y"], n),
        }
    )


# ---- options ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"seed": -1}, "--seed must be a non-negative integer, got -1"),
        ({"seed": 1.5}, "--seed must be a non-negative integer, got 1.5"),
        ({"n_boot": 0}, "--n-boot must be a positive integer, got 0"),
        ({"ece_bins": 0}, "--ece-bins must be a positive integer, got 0"),
        ({"ece_bins": True}, "--ece-bins must be a positive integer, got True"),
        ({"ece_binning": "quantile"}, "--ece-binning must be one of equal_width, equal_mass, got 'quantile'"),
        ({"ece_edge": "middle"}, "--ece-edge must be one of upper, lower, got 'middle'"),
        ({"ece_snap": "yes"}, "--ece-snap must be True or False, got 'yes'"),
        ({"resampling": "jackknife"}, "--resampling must be one of rows, poisson, got 'jackknife'"),
        ({"recalibrate": "magic"}, "--recalibrate must be one of"),
        ({"folds": 1}, "--folds must be an integer of at least 2, got 1"),
        ({"level": 1.5}, "level must be a number in (0, 1), got 1.5"),
        ({"high_confidence": 80}, "--high-confidence must be a number in (0, 1]"),
        ({"coverages": (0.5, 0.5)}, "--coverages: a coverage is repeated"),
    ],
)
def test_one_validation_one_wording(keywords, message):
    """Every entry point (the options object, compute_records' keywords, from_frame) gives the same message."""
    with pytest.raises(ValueError) as a:
        core.ReportOptions.from_keywords(**keywords)
    assert message in str(a.value)
    rows = core.rows_from_frame(_frame())
    with pytest.raises(ValueError) as b:
        core.compute_records(rows, **keywords)
    assert str(a.value) == str(b.value)
    if "level" not in keywords:  # from_frame keeps its former keywords (level is compute's)
        with pytest.raises(ValueError) as c:
            core.from_frame(_frame(), **keywords)
        assert str(c.value) == str(a.value)


def test_unknown_keyword_and_both_forms_are_errors():
    rows = core.rows_from_frame(_frame())
    with pytest.raises(TypeError, match="'n_bootstrap'"):
        core.compute_records(rows, n_bootstrap=10)
    with pytest.raises(TypeError, match="not both"):
        core.compute_records(rows, core.ReportOptions(), seed=1)
    with pytest.raises(TypeError, match="EceOptions"):
        core.ReportOptions(ece={"n_bins": 5})


def test_options_object_and_keywords_give_the_same_report():
    rows = core.rows_from_frame(_frame(), by="tier")
    kw = dict(seed=3, n_boot=150, ece_bins=7, ece_edge="lower", ece_snap=False, recalibrate="histogram", folds=3)
    a = core.compute_records(rows, **kw)
    b = core.compute_records(rows, core.ReportOptions.from_keywords(**kw))
    assert a.attrs == b.attrs and a.attrs["ece_bins"] == 7 and a.attrs["ece_snap"] is False
    assert pd.DataFrame(a.to_dict()).to_json() == pd.DataFrame(b.to_dict()).to_json()


def test_compare_takes_options_and_refuses_what_it_would_ignore():
    df = _frame().dropna(subset=["confidence"])
    a = df[df.model == "a"]
    b = a.assign(confidence=np.roll(a.confidence.to_numpy(), 3))
    kw = dict(seed=2, n_boot=120, ece_bins=5, ece_edge="lower")
    r1 = compare(a, b, **kw)
    r2 = compare(a, b, options=core.ReportOptions.from_keywords(**kw))
    assert r1 == r2 and r1["settings"]["ece_bins"] == 5
    with pytest.raises(ValueError, match="--ece-binning must be equal_width for compare"):
        compare(a, b, options=core.ReportOptions.from_keywords(ece_binning="equal_mass"))
    with pytest.raises(TypeError, match="'ece_binning'"):
        compare(a, b, ece_binning="equal_mass")
    with pytest.raises(TypeError, match="'recalibrate'"):
        compare(a, b, recalibrate="platt")
    rows = core.rows_from_frame(a, keep_items=True)
    with pytest.raises(ValueError, match="--n-boot must be a positive integer"):
        compare_rows(rows, rows, n_boot=0)


# ---- the steps of compute_records ------------------------------------------------------------------------------


def test_units_and_tallies_equal_pandas_group_counts():
    df = _frame()
    rows = core.rows_from_frame(df, by="tier")
    reasons, used = core._used_rows(rows)
    units, unit_of_row = core._units(rows)
    pairs = df.groupby(["model", "tier"]).size()
    assert len(units) == 3 + len(pairs)
    t = core._unit_tallies(rows, reasons, used, unit_of_row, len(units))
    names = [(str(rows.models[m]), None if g is None else str(rows.groups[g])) for m, g in units]
    for u, (m, g) in enumerate(names):
        sub = df[df.model == m] if g is None else df[(df.model == m) & (df.tier == g)]
        assert t["rows"][u] == len(sub)
        assert t["reasons"][u].sum() == sub.confidence.isna().sum()  # without a confidence (refused or not)
        assert t["refusal_sum"][u] == sub.refusal.sum() and t["refusal_known"][u] == len(sub)


def test_no_usable_row_is_an_error_counting_reasons():
    df = _frame(10).assign(confidence=np.nan)
    with pytest.raises(ValueError, match=r"no usable rows: .*\(10 without confidence, 0 ungraded"):
        core._used_rows(core.rows_from_frame(df))


def test_exclusions_warn_above_five_percent():
    assert core._exclusions(np.array([5, 0, 0, 0]), 100)["warning"] is None
    w = core._exclusions(np.array([5, 1, 0, 0]), 100)
    assert w["excluded_share"] == 0.06 and w["warning"].startswith("6.0% of its 100 rows excluded (5 without")
    assert core._exclusions(np.zeros(4, int), 0)["excluded_share"] == 0.0


def test_empty_unit_has_every_key_and_nan_statistics():
    rec = core._empty_unit((1.0, 0.5))
    assert (
        rec["n"] == 0
        and math.isnan(rec["auroc"])
        and rec["risk_coverage"] == {core.coverage_key(1.0): None, core.coverage_key(0.5): None}
    )
    assert set(core.json_model_keys()) - {"model", "group", "rows"} <= set(rec)


# ---- the steps of _unit_stats ----------------------------------------------------------------------------------


def test_percentile_intervals_equal_numpy_and_the_undefined_rule():
    rng = np.random.default_rng(0)
    d = {"x": rng.normal(size=500), "y": rng.random(500)}
    got = core._percentile_intervals(d, 0.9)
    for k, v in d.items():
        assert got[k] == pytest.approx(tuple(np.percentile(v, [5, 95])), abs=1e-12)
    d["x"][:10] = np.nan  # undefined draws are left out, as bootstrap.interval_or_nan does
    got = core._percentile_intervals(d, 0.9)
    assert got["x"] == pytest.approx(tuple(np.percentile(d["x"][10:], [5, 95])), abs=1e-12)
    assert got["x"] == pytest.approx(bootstrap.interval_or_nan(d["x"], 0.9)[:2])


def test_point_and_draws_point_is_the_observed_counts():
    lv = np.array([0.2, 0.5, 0.9])
    pos, neg = np.array([2, 5, 9]), np.array([6, 4, 1])
    opts = core.ReportOptions(n_boot=130).metric_options()
    sigma = metrics.smooth_ece_bandwidth(lv, pos, neg)
    point, draws, band = core._point_and_draws(
        lv,
        pos,
        neg,
        opts=opts,
        sigma=sigma,
        rng=np.random.default_rng(1),
        n_boot=130,
        resampling="rows",
        coverages=(1.0, 0.5),
    )
    conf = np.repeat(lv, pos + neg)
    y = np.concatenate([np.r_[np.ones(p), np.zeros(q)] for p, q in zip(pos, neg, strict=True)])
    assert float(point["accuracy"][0]) == pytest.approx(y.mean())
    assert float(point["mean_confidence"][0]) == pytest.approx(conf.mean())
    assert all(v.shape == (130,) for v in draws.values()) and band.shape[0] == 130
    assert set(draws) == set(core.ci_metrics())


# ---- table1's step ---------------------------------------------------------------------------------------------


def test_table1_row_against_plain_computation():
    df = _frame().dropna(subset=["confidence"]).assign(confidence=lambda d: d.confidence / 100)
    t1 = summary.table1(df, rng=0, n_boot=50)
    assert list(t1.columns) == summary.table1_columns() == list(summary.TABLE1_COLUMNS)
    for _, r in t1.iterrows():
        sub = df[df.model == r["model"]]
        hi = sub[sub.confidence >= 0.8]
        assert r["n"] == len(sub) and r["accuracy"] == pytest.approx(sub.correct.mean())
        assert r["brier"] == pytest.approx(((sub.confidence - sub.correct) ** 2).mean())
        assert r["high_conf_n"] == len(hi) and r["high_conf_wrong"] == (1 - hi.correct).sum()
    assert [m.name for m in summary.table1_metrics()] == [m.name for m in registry.entries() if m.table1 is not None]
