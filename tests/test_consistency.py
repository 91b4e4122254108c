"""Consistency checks of the paper's printed numbers: each check on hand-made claims that pass, fail and are unclear."""

from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np
import pytest

from selfconf.book.audit import load_claims
from selfconf.claims import consistency as cc


def _doc(**claims) -> dict:
    """A claims document from ``id=(value, decimals)`` or ``id=(value, decimals, extra_dict)``."""
    out = []
    for cid, spec in claims.items():
        value, decimals, *extra = spec
        c = {"id": cid, "value": value, "decimals": decimals, "printed": str(value)}
        if extra:
            c.update(extra[0])
        out.append(c)
    return {"claims": out}


def _p(**claims) -> cc.Printed:
    return cc.Printed(_doc(**claims))


@pytest.fixture(scope="module")
def real_doc() -> dict:
    return load_claims()


@pytest.fixture(scope="module")
def real_checks(real_doc):
    return {f"{c.group}/{c.key}": c for c in cc.run_checks(real_doc)}


def _set(doc: dict, cid: str, value) -> dict:
    doc = copy.deepcopy(doc)
    for c in doc["claims"]:
        if c["id"] == cid:
            c["value"] = value
            return doc
    raise KeyError(cid)


# --- reading printed values ------------------------------------------------------------------------


def test_interval_is_exact_and_closed():
    p = _p(a=(0.77, 3), b=(66.5, 1), n=(1500, 0))
    assert p.interval("a") == (Fraction(7695, 10000), Fraction(7705, 10000))
    assert p.interval("b") == (Fraction(6645, 100), Fraction(6655, 100))
    assert p.interval("n") == (Fraction(2999, 2), Fraction(3001, 2))


def test_missing_claim_names_it():
    with pytest.raises(KeyError, match="t1_google_n"):
        _p(x=(1, 0)).exact("t1_google_n")


def test_malformed_documents_are_rejected():
    with pytest.raises(ValueError, match="'claims' list"):
        cc.Printed({"nope": []})
    with pytest.raises(ValueError, match="lacks the field 'decimals'"):
        cc.Printed({"claims": [{"id": "a", "value": 1}]})
    with pytest.raises(ValueError, match="appears twice"):
        cc.Printed({"claims": [{"id": "a", "value": 1, "decimals": 0}, {"id": "a", "value": 2, "decimals": 0}]})
    with pytest.raises(ValueError, match="non-numeric"):
        _p(a=("x", 0)).exact("a")


def test_run_checks_names_the_check_and_the_missing_claim(real_doc):
    doc = copy.deepcopy(real_doc)
    doc["claims"] = [c for c in doc["claims"] if c["id"] != "ladder_n_replicates"]
    with pytest.raises(KeyError, match=r"ladder/rows_per_arm.*ladder_n_replicates"):
        cc.run_checks(doc)


def test_only_rejects_unknown_names(real_doc):
    with pytest.raises(KeyError, match="no consistency check named"):
        cc.run_checks(real_doc, only=["ladder/nonexistent"])


def test_check_rejects_unknown_status():
    with pytest.raises(ValueError, match="not one of"):
        cc.Check("g", "k", "ok", "d", "a")


# --- helpers ---------------------------------------------------------------------------------------


def test_reachable_counts_grim():
    p = _p(acc=(66.5, 1))
    assert cc.reachable_counts(1461, p.interval("acc")) == [971, 972]
    # 16 probes move in steps of 6.25 points: 40.0% is unreachable, 37.5% is 6/16
    assert cc.reachable_counts(16, _p(a=(40.0, 1)).interval("a")) == []
    assert cc.reachable_counts(16, _p(a=(37.5, 1)).interval("a")) == [6]
    # proportions (scale 1)
    assert cc.reachable_counts(588, _p(a=(0.847, 3)).interval("a"), scale=1) == [498]


def test_holm_matches_hand_computation():
    np.testing.assert_allclose(cc.holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(cc.holm([0.042, 0.064]), [0.084, 0.084])
    np.testing.assert_allclose(cc.holm([0.3, 0.9]), [0.6, 0.9])
    np.testing.assert_allclose(cc.holm([[0.042, 0.064], [0.5, 0.6]]), [[0.084, 0.084], [1.0, 1.0]])


def test_hanley_mcneil_at_chance_equals_null_variance():
    # at A = 0.5, HM reduces to the exact null variance of the Mann-Whitney AUROC, (m + n + 1) / (12 m n)
    for m, n in ((10, 10), (155, 1345), (536, 964)):
        assert cc.hanley_mcneil_se(0.5, m, n) == pytest.approx(math.sqrt((m + n + 1) / (12 * m * n)))
    assert cc.hanley_mcneil_se(0.9, 50, 50) < cc.hanley_mcneil_se(0.7, 50, 50)


def test_brier_bounds_are_attained_by_extreme_configurations():
    # accuracy 0.4, mean confidence 0.7: correct answers at 1, wrong ones at 0.5 -> Brier 0.6 * 0.25 = 0.15
    lo, hi = cc.brier_bounds(np.array([0.4]), np.array([0.7]))
    assert lo[0] == pytest.approx(0.15)
    # upper: confidences 0/1 put to maximise error: all wrong answers confident -> m + a - 2 max(0, m + a - 1)
    assert hi[0] == pytest.approx(0.7 + 0.4 - 2 * 0.1)


def test_implied_second_n_inverts_the_wald_interval():
    p1, n1, p2, n2 = 0.8, 800, 0.3, 1500
    h = cc.Z975 * math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    assert cc.implied_second_n(p2, n2, p1, h) == pytest.approx(n1)
    assert cc.implied_second_n(p2, n2, p1, 0.001) == math.inf


# --- Table 1 checks: pass, fail, unclear ---------------------------------------------------------

GOOGLE = dict(
    t1_google_n=(1461, 0),
    t1_google_acc=(66.5, 1),
    t1_google_mean_conf=(92.8, 1),
    t1_google_citl=(26.3, 1),
    t1_google_ece=(0.263, 3),
    t1_google_brier=(0.271, 3),
    t1_google_self_auroc=(0.746, 3),
    t1_google_self_auroc_ci_lo=(0.722, 3),
    t1_google_self_auroc_ci_hi=(0.770, 3),
)


def _google(**over):
    spec = dict(GOOGLE)
    spec.update(over)
    return _p(**spec)


def test_grim_pass_and_fail():
    assert cc.check_grim_accuracy(_google(), "google")[0] == "pass"
    p = _p(t1_x_n=(16, 0), t1_x_acc=(40.0, 1))
    status, _, arith = cc.check_grim_accuracy(p, "x")
    assert status == "fail" and "none" in arith


def test_citl_pass_fail_unclear():
    status, _, arith = cc.check_citl(_google(), "google")
    assert status == "pass" and "971, 972" in arith
    assert cc.check_citl(_google(t1_google_citl=(30.0, 1)), "google")[0] == "fail"
    # n = 4 and k = 2: a mean confidence printing 50.1 needs S/4 in [50.05, 50.15], and no whole S gives that;
    # with fractional confidences CITL would be ~0.1, so the check cannot decide
    p = _p(t1_x_n=(4, 0), t1_x_acc=(50.0, 1), t1_x_mean_conf=(50.1, 1), t1_x_citl=(0.1, 1))
    assert cc.check_citl(p, "x")[0] == "unclear"


def test_ece_at_least_citl():
    assert cc.check_ece_ge_citl(_google(), "google")[0] == "pass"
    status, _, arith = cc.check_ece_ge_citl(_google(t1_google_ece=(0.262, 3)), "google")
    assert status == "fail"
    assert cc.check_ece_ge_citl(_google(t1_google_ece=(0.300, 3)), "google")[0] == "pass"


def test_brier_bounds_pass_and_fail():
    assert cc.check_brier_bounds(_google(), "google")[0] == "pass"
    # accuracy 66.5% with mean confidence 92.8: Brier can never go below ~0.206
    assert cc.check_brier_bounds(_google(t1_google_brier=(0.150, 3)), "google")[0] == "fail"
    # ... nor above m + a - 2(m + a - 1) ~ 0.408
    assert cc.check_brier_bounds(_google(t1_google_brier=(0.500, 3)), "google")[0] == "fail"


def test_auroc_ci_pass_fail_unclear():
    assert cc.check_auroc_ci(_google(), "google", [971, 972])[0] == "pass"
    # point outside its own interval
    assert cc.check_auroc_ci(_google(t1_google_self_auroc=(0.780, 3)), "google", [971])[0] == "fail"
    # an interval a third as wide as Hanley-McNeil predicts: not decisive (ties), so unclear
    p = _google(t1_google_self_auroc_ci_lo=(0.738, 3), t1_google_self_auroc_ci_hi=(0.754, 3))
    status, _, arith = cc.check_auroc_ci(p, "google", [971])
    assert status == "unclear" and "Outside the 0.75-1.33 band" in arith
    # lopsided arms
    p = _google(t1_google_self_auroc_ci_lo=(0.710, 3), t1_google_self_auroc_ci_hi=(0.760, 3))
    assert cc.check_auroc_ci(p, "google", [971])[0] == "unclear"


# --- whole-document checks, on the paper and on perturbed copies -----------------------------------


def test_every_status_is_valid_and_the_paper_has_no_failure(real_checks):
    assert real_checks, "no checks ran"
    assert {c.status for c in real_checks.values()} <= set(cc.STATUSES)
    fails = [k for k, c in real_checks.items() if c.status == "fail"]
    assert fails == []
    for c in real_checks.values():
        assert c.description and c.arithmetic


def test_known_verdicts_on_the_paper(real_checks):
    c = real_checks["result1/all_bins_positive"]
    assert c.status == "pass" and "deepseek, openai" in c.arithmetic
    assert real_checks["grading/regrade_accuracy"].status == "unclear"
    assert "62/1441 = 4.303%" in real_checks["grading/regrade_accuracy"].arithmetic
    holm = real_checks["ladder/holm"]
    assert holm.status == "pass" and "0.04225" in holm.arithmetic
    assert real_checks["table1/auroc_ci_anthropic"].status == "unclear"
    assert real_checks["table1/auroc_ci_google"].status == "pass"
    assert real_checks["ladder/grim_off"].status == "pass" and "498/588" in real_checks["ladder/grim_off"].arithmetic
    assert real_checks["table2/covered_counts_anthropic"].status == "pass"
    assert "226/300" in real_checks["table2/covered_counts_anthropic"].arithmetic


def _status(doc, key):
    (check,) = cc.run_checks(doc, only=[key])
    return check.status


@pytest.mark.parametrize(
    "cid, value, key",
    [
        ("design_n_graded_frontier", 13447, "counts/frontier_total"),
        ("design_n_graded_total", 22249, "counts/grand_total"),
        ("r1_highconf_wrong_pooled_pct", 60.3, "counts/highconf_share"),
        ("t1_mistral_citl", 73.9, "table1/citl_mistral"),
        ("r1_n_models_all_bins_positive", 8, "result1/all_bins_positive"),
        ("r1_citl_range_max", 64.2, "result1/citl_range"),
        ("r1_n_models_below_threshold", 5, "result1/six_below"),
        ("t2_xai_err_cov100", 61.9, "table2/cov100_xai"),
        ("t2_anthropic_err_cov80", 50.0, "table2/covered_counts_anthropic"),
        ("us_between_model_identity_contribution", 0.167, "differences/us_identity"),
        ("t4_llama32_delta", 14, "differences/t4_llama32"),
        ("ladder_p_holm_adj", 0.095, "ladder/holm"),
        ("ladder_power_min_delta", 0.04, "ladder/power"),
        ("t3_core_acc", 0.858, "ladder/grim_core"),
        ("regrade_agreement_pct", 98.1, "grading/regrade_agreement"),
        ("regrade_acc_after", 1.0, "grading/regrade_accuracy"),
        ("topic_llama32_acc_after", 30.0, "local/topic_grim"),
        ("xb_panel_auroc_ci_hi", 0.720, "intervals/ci_xb_panel_auroc"),
        ("bench_age_gap_range_max", 62, "benchmark/range"),
        ("oracle_bin_acc_sd", 0.100, "ladder/bin_sd"),
    ],
)
def test_a_perturbed_number_fails_its_check(real_doc, cid, value, key):
    assert _status(real_doc, key) != "fail"
    assert _status(_set(real_doc, cid, value), key) == "fail"


def test_all_bins_positive_unclear_when_the_exceptions_are_not_identified(real_doc):
    # make every model's ECE print the same digits as its |CITL|: nine could then be all-positive
    doc = _set(_set(real_doc, "t1_deepseek_ece", 0.534), "t1_openai_ece", 0.609)
    assert _status(doc, "result1/all_bins_positive") == "unclear"


def test_regrade_passes_when_the_regraded_rows_are_the_denominator(real_doc):
    # 85/1441 = 5.9% and (85 - 23)/1441 = 4.3%: with 4.3 printed, the 1,441 rows would be the denominator
    assert _status(_set(real_doc, "regrade_acc_after", 4.3), "grading/regrade_accuracy") == "pass"


def test_repeats_must_agree(real_doc):
    assert _status(real_doc, "manifest/repeats") == "pass"
    doc = _set(real_doc, "intro_c3_expl_rung_drop", 0.237)  # a negated restatement printed without its sign flip
    assert _status(doc, "manifest/repeats") == "fail"


def test_interval_check_flags_lopsided_arms():
    p = _p(x=(0.5, 3), x_ci_lo=(0.400, 3), x_ci_hi=(0.520, 3))
    assert cc.check_interval(p, "x")[0] == "unclear"
    p = _p(x=(0.5, 3), x_ci_lo=(0.480, 3), x_ci_hi=(0.521, 3))
    assert cc.check_interval(p, "x")[0] == "pass"
    p = _p(x=(0.5, 3), x_ci_lo=(0.510, 3), x_ci_hi=(0.530, 3))
    assert cc.check_interval(p, "x")[0] == "fail"


def test_summary_counts_every_status(real_doc):
    checks = cc.run_checks(real_doc)
    s = cc.summarise(checks)
    assert s["total"] == len(checks) == s["pass"] + s["fail"] + s["unclear"]
    df = cc.checks_frame(checks)
    assert list(df.columns) == ["group", "key", "status", "check", "arithmetic"]
    assert set(df["group"]) <= set(cc.GROUP_TITLES)
