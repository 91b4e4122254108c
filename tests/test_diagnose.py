"""`selfconf diagnose`: the battery's integrity, the scoring rules, tiers, and runs against the stub."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from conftest_stub import api_key, stub  # noqa: F401
from selfconf import cli
from selfconf.diagnose import TIERS, WEIGHTS, composite, grade_item, load_battery, score_answers, tier
from selfconf.diagnose.scoring import parse_number

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
        assert parse_number(item["answers"][0], percent_as_fraction=item["numeric"]["percent_as_fraction"]) == pytest.approx(
            item["numeric"]["value"], abs=item["numeric"]["tol"] + 1e-9)


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
    answers = [{"item_id": it["id"], "answer": it["answers"][0] if i % 2 else "wrong", "confidence": 40}
               for i, it in enumerate(ITEMS)]
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
    assert "confidence 150 is outside 0-100" in capsys.readouterr().err


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
    argv = ["diagnose", "--base-url", stub.base_url, "--model", model, "--out", str(out), "--api-key-env",
            "SELFCONF_TEST_KEY", "--backoff-base", "0.01", "--json"]
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tier"] == expect and doc["n_missing"] == 0
    sent = [q for q in stub.requests if q["body"]["model"] == model and "ABSTAIN" in q["body"]["messages"][0]["content"]]
    assert len({q["body"]["messages"][1]["content"] for q in sent}) == len(ITEMS)
    # a second run resumes from the log and asks nothing new
    n = len(stub.requests)
    assert cli.main(argv) == 0
    assert len(stub.requests) == n and json.loads(capsys.readouterr().out)["composite"] == doc["composite"]


def test_diagnose_malformed_replies_are_reported(stub, api_key, tmp_path, capsys):
    argv = ["diagnose", "--base-url", stub.base_url, "--model", "malformed", "--out", str(tmp_path / "m.jsonl"),
            "--backoff-base", "0.01"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    n = int(out.split("replies without a usable confidence ")[1].split(";")[0])
    assert n > 0 and "tier" in out


def test_list_battery(capsys):
    assert cli.main(["diagnose", "--list-battery"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(ITEMS)
    assert cli.main(["diagnose"]) == 2
    assert "give --answers FILE" in capsys.readouterr().err


@pytest.mark.parametrize("model", ["flaky", "dropping"])
def test_diagnose_survives_transport_failures(model, stub, api_key, tmp_path, capsys):
    argv = ["diagnose", "--base-url", stub.base_url, "--model", model, "--out", str(tmp_path / "d.jsonl"),
            "--api-key-env", "SELFCONF_TEST_KEY", "--backoff-base", "0.01", "--json"]
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_missing"] == 0 and doc["tier"] == "well-calibrated"  # these answer like 'calibrated' on retry


def test_diagnose_unauthorized_exits_3(stub, api_key, tmp_path, capsys):
    argv = ["diagnose", "--base-url", stub.base_url, "--model", "unauthorized", "--out", str(tmp_path / "d.jsonl"),
            "--api-key-env", "SELFCONF_TEST_KEY"]
    assert cli.main(argv) == 3
    err = capsys.readouterr().err
    assert "HTTP 401" in err and "sk-test" not in err
