"""`selfconf diagnose`: the battery's integrity, the scoring rules, tiers, and runs against the stub."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from conftest_stub import api_key, stub  # noqa: F401

from selfconf import cli
from selfconf.cli.diagnose import TIERS, WEIGHTS, composite, grade_item, load_battery, score_answers, tier
from selfconf.cli.diagnose.scoring import parse_number

BATTERY = load_battery()
ITEMS = BATTERY["items"]
PROBES = [it for it in ITEMS if it["kind"] == "probe"]
TRAPS = [it for it in ITEMS if it["kind"] == "trap"]


def test_battery_shape():
    assert len(PROBES) >= 100
    assert len(TRAPS) >= 10
    domains = Counter(it["domain"] for it in PROBES)
    assert len(domains) >= 9 and min(domains.values()) >= 8
    for d in ("numerical", "logic", "physics", "history", "code", "probability", "geography", "chemistry", "units"):
        assert d in domains
    ids = [it["id"] for it in ITEMS]
    assert len(ids) == len(set(ids))
    assert len({it["question"] for it in ITEMS}) == len(ITEMS)
    assert all(it["answers"] == ["ABSTAIN"] for it in TRAPS)


@pytest.mark.parametrize("item", PROBES, ids=lambda it: it["id"])
def test_every_accepted_answer_grades_correct_and_a_wrong_one_does_not(item):
    for a in item["answers"]:
        assert grade_item(item, a) == (1, False), a
    assert grade_item(item, "ABSTAIN") == (0, True)
    assert grade_item(item, "zebra 98765")[0] == 0
    if "numeric" in item:
        assert parse_number(
            item["answers"][0], percent_as_fraction=item["numeric"]["percent_as_fraction"]
        ) == pytest.approx(item["numeric"]["value"], abs=item["numeric"]["tol"] + 1e-9)


def test_numeric_forms():
    prob = next(it for it in PROBES if it["id"] == "prob-06")  # 3 heads in 3 tosses: 0.375
    for a in ("0.375", "3/8", "37.5%", "0.375 (3 out of 8)"):
        assert grade_item(prob, a)[0] == 1, a
    big = next(it for it in PROBES if it["id"] == "nume-06")  # 5050
    assert grade_item(big, "5,050")[0] == 1
    assert grade_item(big, "5,051")[0] == 0


def test_trap_grading():
    trap = TRAPS[0]
    assert grade_item(trap, "ABSTAIN") == (1, True)
    assert grade_item(trap, "abstain.") == (1, True)
    assert grade_item(trap, "I don't know") == (1, True)
    assert grade_item(trap, "1921") == (0, False)
    assert grade_item(trap, None) == (0, False)


def perfect_answers(conf=100):
    return [{"item_id": it["id"], "answer": it["answers"][0], "confidence": conf} for it in ITEMS]


def test_perfect_respondent_scores_100_with_discrimination_left_out():
    res = score_answers(perfect_answers())
    assert res.accuracy == 1.0 and res.brier == 0.0 and res.gap == 0.0 and res.trap_abstention == 1.0
    assert math.isnan(res.discrimination) and res.left_out == ["discrimination"]
    assert res.composite == pytest.approx(100.0) and res.tier == "well-calibrated"


def test_confidently_blind_respondent():
    answers = []
    for i, it in enumerate(ITEMS):
        right = it["kind"] == "probe" and i % 10 < 3
        answers.append({"item_id": it["id"], "answer": it["answers"][0] if right else "Paris", "confidence": 95})
    res = score_answers(answers)
    assert res.trap_abstention == 0.0
    assert res.gap > 0.5 and res.discrimination == pytest.approx(0.0)
    assert res.composite == pytest.approx(0.0) and res.tier == "confidently blind"


def test_composite_formula_and_tiers():
    comp = {"brier": 0.125, "gap": 0.25, "discrimination": 0.25, "trap_abstention": 0.5}
    score, left = composite(comp)
    # goodness 0.5 on every component -> 50
    assert score == pytest.approx(50.0) and left == []
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)
    assert tier(80.0) == "well-calibrated" and tier(79.99) == "roughly calibrated"
    assert tier(50.0) == "poorly calibrated" and tier(49.9) == "very poorly calibrated"
    assert tier(34.9) == "confidently blind" and tier(34.9, gap=0.2) == "confidently blind"
    assert tier(34.9, gap=-0.05) == "uninformative" and tier(90.0, gap=-0.3) == "well-calibrated"
    assert tier(float("nan")) == "undetermined"
    assert [t for _, t in TIERS][0] == "well-calibrated" and [t for _, t in TIERS][-1] == "confidently blind"


def test_hedger_is_uninformative_not_confidently_blind():
    answers = [
        {"item_id": it["id"], "answer": it["answers"][0] if i % 2 else "wrong", "confidence": 40}
        for i, it in enumerate(ITEMS)
    ]
    res = score_answers(answers)
    assert res.gap < 0 and res.composite < 35 and res.tier == "uninformative"


def test_missing_and_unparsed_replies_are_counted():
    answers = perfect_answers(90)
    del answers[0]
    answers[1]["confidence"] = None
    res = score_answers(answers)
    assert res.n_missing == 1 and res.n_no_confidence == 1
    assert res.n_probes_scored == len(PROBES) - 2


def test_answers_file_errors(tmp_path, capsys):
    p = tmp_path / "a.jsonl"
    p.write_text(json.dumps({"item_id": "nope-01", "answer": "x", "confidence": 50}) + "\n")
    assert cli.main(["diagnose", "--answers", str(p)]) == 2
    assert "'nope-01' is not in the battery" in capsys.readouterr().err
    p.write_text(json.dumps({"item_id": ITEMS[0]["id"], "answer": "x", "confidence": 150}) + "\n")
    assert cli.main(["diagnose", "--answers", str(p)]) == 2
    assert (
        "record 1 (item nume-01): field 'confidence' = 150 is outside the percent scale [0, 100]"
        in capsys.readouterr().err
    )


def test_answers_file_cli_json(tmp_path, capsys):
    p = tmp_path / "a.csv"
    lines = ["item_id,answer,confidence"] + [f"{it['id']},{it['answers'][0]},80" for it in ITEMS]
    p.write_text("\n".join(lines) + "\n")
    assert cli.main(["diagnose", "--answers", str(p), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["accuracy"] == 1.0 and doc["gap"] == pytest.approx(-0.2) and doc["tier"] == "well-calibrated"
    assert doc["composite"] == pytest.approx(100 * (0.30 * (1 - 0.04 / 0.25) + 0.25 * (1 - 0.2 / 0.5) + 0.20) / 0.75)


@pytest.mark.parametrize("model, expect", [("calibrated", "well-calibrated"), ("overconfident", "confidently blind")])
def test_diagnose_against_stub(model, expect, stub, api_key, tmp_path, capsys):
    out = tmp_path / f"diag-{model}.jsonl"
    argv = [
        "diagnose",
        "--base-url",
        stub.base_url,
        "--model",
        model,
        "--out",
        str(out),
        "--api-key-env",
        "SELFCONF_TEST_KEY",
        "--backoff-base",
        "0.01",
        "--json",
    ]
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tier"] == expect and doc["n_missing"] == 0
    sent = [
        q for q in stub.requests if q["body"]["model"] == model and "ABSTAIN" in q["body"]["messages"][0]["content"]
    ]
    assert len({q["body"]["messages"][1]["content"] for q in sent}) == len(ITEMS)
    # a second run resumes from the log and asks nothing new
    n = len(stub.requests)
    assert cli.main(argv) == 0
    assert len(stub.requests) == n and json.loads(capsys.readouterr().out)["composite"] == doc["composite"]


def test_diagnose_malformed_replies_are_reported(stub, api_key, tmp_path, capsys):
    argv = [
        "diagnose",
        "--base-url",
        stub.base_url,
        "--model",
        "malformed",
        "--out",
        str(tmp_path / "m.jsonl"),
        "--backoff-base",
        "0.01",
    ]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    n = int(out.split("replies without a usable confidence ")[1].split(";")[0])
    assert n > 0 and "tier" in out


def test_list_battery(capsys):
    assert cli.main(["diagnose", "--list-battery"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(ITEMS)
    assert cli.main(["diagnose"]) == 2
    assert "give --answers FILE" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("model", ["flaky", "dropping"])
def test_diagnose_survives_transport_failures(model, stub, api_key, tmp_path, capsys):
    argv = [
        "diagnose",
        "--base-url",
        stub.base_url,
        "--model",
        model,
        "--out",
        str(tmp_path / "d.jsonl"),
        "--api-key-env",
        "SELFCONF_TEST_KEY",
        "--backoff-base",
        "0.01",
        "--json",
    ]
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_missing"] == 0 and doc["tier"] == "well-calibrated"  # these answer like 'calibrated' on retry


def test_diagnose_unauthorized_exits_3(stub, api_key, tmp_path, capsys):
    argv = [
        "diagnose",
        "--base-url",
        stub.base_url,
        "--model",
        "unauthorized",
        "--out",
        str(tmp_path / "d.jsonl"),
        "--api-key-env",
        "SELFCONF_TEST_KEY",
    ]
    assert cli.main(argv) == 3
    err = capsys.readouterr().err
    assert "HTTP 401" in err and "sk-test" not in err


# --------------------------------------------------------------------------------------------
# validity
# --------------------------------------------------------------------------------------------


def test_abstaining_on_everything_at_zero_confidence_is_not_well_calibrated():
    # the gameable case: ABSTAIN to every item at confidence 0 is "calibrated" by Brier and gap
    res = score_answers([{"item_id": it["id"], "answer": "ABSTAIN", "confidence": 0} for it in ITEMS])
    assert res.brier == 0.0 and res.gap == 0.0 and res.trap_abstention == 1.0
    assert res.accuracy == 0.0 and res.probe_abstention == 1.0 and res.probe_answer_rate == 0.0
    assert res.composite == 0.0
    assert res.tier != "well-calibrated" and res.tier == "uninformative"


def test_probe_abstentions_scale_the_composite():
    answers = perfect_answers(100)
    probe_ids = [it["id"] for it in PROBES]
    k = len(PROBES) // 4
    for a in answers:
        if a["item_id"] in probe_ids[:k]:
            a.update(answer="ABSTAIN", confidence=0)
    res = score_answers(answers)
    rate = 1 - k / len(PROBES)
    assert res.probe_answer_rate == pytest.approx(rate)
    assert res.accuracy == pytest.approx(rate)  # an abstention on an answerable probe is a wrong answer
    raw, _ = composite(
        {
            "brier": res.brier,
            "gap": res.gap,
            "discrimination": res.discrimination,
            "trap_abstention": res.trap_abstention,
        }
    )
    assert res.composite == pytest.approx(rate * raw) and res.composite < raw


def test_59_of_134_missing_gives_incomplete_and_no_tier():
    assert len(ITEMS) == 134
    keep = [it for i, it in enumerate(ITEMS) if i % 134 >= 59]  # 75 replies
    res = score_answers([{"item_id": it["id"], "answer": it["answers"][0], "confidence": 90} for it in keep])
    assert res.n_missing == 59 and not res.complete
    assert res.tier == "incomplete (75 of 134 answered)" and math.isnan(res.composite)
    assert not any(res.tier == name for _, name in TIERS)
    doc = res.to_dict()
    assert doc["composite"] is None and doc["tier"].startswith("incomplete")


def test_missing_share_boundary():
    n_ok = int(0.10 * len(ITEMS))  # 13 missing of 134 is within 10 %, 14 is not
    for n_missing, complete in ((n_ok, True), (n_ok + 1, False)):
        res = score_answers(perfect_answers(90)[n_missing:])
        assert res.n_missing == n_missing and res.complete is complete
        assert (res.tier == "well-calibrated") is complete


def test_empty_answers_count_as_missing_not_as_abstentions():
    answers = perfect_answers(90)
    trap_ids = {it["id"] for it in TRAPS}
    for a in answers:
        if a["item_id"] in trap_ids:
            a["answer"] = ""  # an empty reply on a trap used to read as a refusal
    res = score_answers(answers)
    assert res.n_missing == len(TRAPS) and math.isnan(res.trap_abstention)


def test_unknown_at_high_confidence_is_not_an_abstention():
    trap, probe = TRAPS[0], PROBES[0]
    assert grade_item(trap, "unknown", 0.95) == (0, False)
    assert grade_item(trap, "I don't know", 0.9) == (0, False)
    assert grade_item(trap, "unknown", 0.2) == (1, True)
    assert grade_item(trap, "unknown") == (1, True)  # no confidence stated
    assert grade_item(trap, "ABSTAIN", 0.95) == (1, True)  # the token is an abstention at any confidence
    assert grade_item(probe, "unknown", 0.95) == (0, False)
    assert grade_item(probe, "unknown", 0.1) == (0, True)
    # through score_answers: "unknown" at 95 on every trap earns no trap credit
    answers = perfect_answers(90)
    for a in answers:
        if a["item_id"].startswith("trap-"):
            a.update(answer="unknown", confidence=95)
    assert score_answers(answers).trap_abstention == 0.0
    for a in answers:
        if a["item_id"].startswith("trap-"):
            a.update(confidence=10)
    assert score_answers(answers).trap_abstention == 1.0


@pytest.mark.parametrize(
    "values, scale, expect_conf",
    [
        ([80] * 134, "auto", 0.8),
        ([0.8] * 134, "auto", 0.8),
        (["80%"] * 134, "auto", 0.8),
        ([1] * 134, "percent", 0.01),
        ([1] * 134, "unit", 1.0),
    ],
)
def test_confidences_use_the_report_scale_rule(values, scale, expect_conf):
    answers = [
        {"item_id": it["id"], "answer": it["answers"][0], "confidence": v} for it, v in zip(ITEMS, values, strict=True)
    ]
    res = score_answers(answers, confidence_scale=scale)
    assert res.mean_confidence == pytest.approx(expect_conf)
    assert res.confidence_scale == (
        "percent" if scale == "auto" and values[0] != 0.8 else "unit" if scale == "auto" else scale
    )


def test_scale_errors_come_from_the_report_rule():
    from selfconf import report

    base = [{"item_id": it["id"], "answer": it["answers"][0]} for it in ITEMS]
    mixed = [dict(a, confidence=(80 if i < 5 else 0.7)) for i, a in enumerate(base)]
    with pytest.raises(
        ValueError, match=r"confidences mix scales: values above 1 .* at answers: record 1 \(item nume-01\)"
    ):
        score_answers(mixed)
    ambiguous = [dict(a, confidence=(i % 2)) for i, a in enumerate(base)]
    with pytest.raises(ValueError, match="every confidence is exactly 0 or 1"):
        score_answers(ambiguous)
    with pytest.raises(ValueError, match="written with '%' but --confidence-scale unit"):
        score_answers([dict(a, confidence="80%") for a in base], confidence_scale="unit")
    with pytest.raises(ValueError, match=r"record 3 \(item nume-03\): confidence 'high' is not a number"):
        score_answers([dict(a, confidence=("high" if i == 2 else 50)) for i, a in enumerate(base)])
    # one detection function, shared: diagnose does not carry a copy of the rule
    import selfconf.cli.diagnose.scoring as scoring

    # the diagnostic uses the one scale rule itself, not a copy of it
    assert scoring.resolve_scale is report.resolve_scale and report.resolve_scale.__module__ == "selfconf.data.validate"


def test_cli_confidence_scale_flag(tmp_path, capsys):
    p = tmp_path / "a.csv"
    p.write_text(
        "item_id,answer,confidence\n"
        + "".join(f"{it['id']},{it['answers'][0]},{i % 2}\n" for i, it in enumerate(ITEMS))
    )
    assert cli.main(["diagnose", "--answers", str(p)]) == 2
    assert "pass --confidence-scale" in capsys.readouterr().err
    assert cli.main(["diagnose", "--answers", str(p), "--confidence-scale", "unit", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["confidence_scale"] == "unit" and doc["confidence_scale_reason"] == "given by --confidence-scale"
    assert cli.main(["diagnose", "--answers", str(p), "--confidence-scale", "percent"]) == 0
    assert "confidence scale: percent (given by --confidence-scale)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "suffix, content",
    [
        (".csv", "id,reply,conf\nnume-01,42,90\n"),
        (".csv", "item_id,answer\nnume-01,42\n"),
        (".jsonl", json.dumps({"item_id": "nume-01", "text": "42", "confidence": 90}) + "\n"),
    ],
)
def test_wrong_columns_are_an_error_naming_them(tmp_path, capsys, suffix, content):
    p = tmp_path / f"a{suffix}"
    p.write_text(content)
    assert cli.main(["diagnose", "--answers", str(p)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(p) in err
    assert "needs columns item_id, answer, confidence" in err
    if suffix == ".csv":
        assert "missing column(s)" in err and "(has: " in err
        if content.startswith("id,"):
            assert "item_id, answer, confidence (has: id, reply, conf)" in err
        else:
            assert "missing column(s) confidence (has: item_id, answer)" in err
    else:
        assert "'answer'" in err


def test_records_without_a_field_are_an_error():
    with pytest.raises(ValueError, match=r"record 1: missing field\(s\) answer"):
        score_answers([{"item_id": "nume-01", "confidence": 50}])


def test_several_models_need_model(tmp_path, capsys):
    p = tmp_path / "a.jsonl"
    recs = [
        {"model": m, "item_id": it["id"], "answer": it["answers"][0], "confidence": 90}
        for m in ("m1", "m2")
        for it in ITEMS
    ]
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert cli.main(["diagnose", "--answers", str(p)]) == 2
    assert "rows of 2 models (m1, m2); choose one with --model" in capsys.readouterr().err
    assert cli.main(["diagnose", "--answers", str(p), "--model", "m2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_missing"] == 0 and doc["tier"] == "well-calibrated" and doc["source"].startswith("m2")
    assert cli.main(["diagnose", "--answers", str(p), "--model", "m3"]) == 2
    assert "no rows for --model 'm3'" in capsys.readouterr().err


def test_help_names_prompt_ids_and_columns(capsys):
    with pytest.raises(SystemExit):
        cli.main(["diagnose", "--help"])
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    assert "--confidence-scale" in out and "columns item_id, answer, confidence" in flat
    assert "diagnose-v1" in out and "--list-battery" in out
    assert (
        f"probes {PROBES[0]['id']} ... {PROBES[-1]['id']}" in flat
        and f"traps {TRAPS[0]['id']} ... {TRAPS[-1]['id']}" in flat
    )
    from selfconf.cli.diagnose import DIAGNOSE_SYSTEM_PROMPT

    assert " ".join(DIAGNOSE_SYSTEM_PROMPT.split()) in flat
    assert "incomplete (k of n answered)" in flat and "abstaining on everything scores 0" in flat
