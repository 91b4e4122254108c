"""`selfconf grade`: normalisation, refusal lexicon, numeric rule, LLM stage 2 through the stub."""

from __future__ import annotations

import json

import pytest
from conftest_stub import api_key, collect_argv, questions_csv, stub  # noqa: F401

from selfconf import cli
from selfconf.cli.collect import ChatClient
from selfconf.cli.grade import grade_rows, grade_stage1, grade_stage2, is_refusal, normalize, parse_verdict


@pytest.mark.parametrize(
    "a, b",
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  Michio   SUGENO ", "Michio Sugeno"),
        ("São Paulo", "Sao Paulo"),
        ("1,000,000", "1000000"),
        ("1 000", "1000"),
        ("Twelve", "12"),
        ("3.50", "3.5"),
        ("12.0", "12"),
        ("50%", "50 percent"),
        ("an apple", "apple"),
        ("Jean-Luc", "jean luc"),
    ],
)
def test_normalize_equates(a, b):
    assert normalize(a) == normalize(b)


@pytest.mark.parametrize("a, b", [("1995", "1996"), ("3.5", "35"), ("Paris", "Paris, Texas"), ("12", "twelve hundred")])
def test_normalize_keeps_differences(a, b):
    assert normalize(a) != normalize(b)


@pytest.mark.parametrize(
    "text",
    [
        "I don't know",
        "I do not know the answer.",
        "Unknown",
        "N/A",
        "not sure",
        "I cannot determine this",
        "I'm unable to answer",
        "There is no information about that.",
        "",
        "?",
        "ABSTAIN",
        "beyond my knowledge cutoff",
    ],
)
def test_refusal_lexicon_catches(text):
    assert is_refusal(text)


@pytest.mark.parametrize("text", ["Na", "Paris", "None of the above was built", "Knowles", "1995", "Notre-Dame", "I"])
def test_refusal_lexicon_spares_answers(text):
    assert not is_refusal(text)


def test_stage1_outcomes():
    assert grade_stage1("the Amazon", "Amazon") == {"correct": 1, "refusal": 0, "graded_by": "normalised_match"}
    assert grade_stage1("The answer is: Paris", "Paris")["correct"] == 1
    assert grade_stage1("I don't know", "Paris") == {"correct": 0, "refusal": 1, "graded_by": "refusal"}
    assert grade_stage1("1,995", "1996") == {"correct": 0, "refusal": 0, "graded_by": "numeric_mismatch"}
    assert grade_stage1("In 1995", "1995")["graded_by"] == "unresolved"
    assert grade_stage1(None, "x") == {"correct": None, "refusal": 0, "graded_by": "no_answer"}
    # a gold answer that happens to look like a refusal word is still matched first
    assert grade_stage1("unknown", "Unknown")["correct"] == 1


@pytest.mark.parametrize(
    "answer,gold,expect",
    [
        ("B", "C", (0, "choice_mismatch")),
        ("(b)", "C", (0, "choice_mismatch")),
        ("The answer is B.", "C", (0, "choice_mismatch")),
        ("c", "C", (1, "normalised_match")),
        ("Paris", "C", (None, "unresolved")),  # not a letter: left to the LLM stage
        ("B", "Paris", (None, "unresolved")),
    ],
)
def test_stage1_single_letter_against_a_different_letter_is_wrong(answer, gold, expect):
    g = grade_stage1(answer, gold)
    assert (g["correct"], g["graded_by"]) == expect


def test_grade_help_documents_choice_mismatch(capsys):
    from selfconf import cli

    with pytest.raises(SystemExit):
        cli.main(["grade", "--help"])
    assert "graded_by=choice_mismatch" in capsys.readouterr().out


def test_grade_rows_requires_gold():
    with pytest.raises(ValueError, match="f.jsonl: row 2: no 'gold'"):
        grade_rows([{"answer": "a", "gold": "a"}, {"answer": "b"}], source="f.jsonl")


@pytest.mark.parametrize(
    "text, v",
    [("EQUIVALENT", 1), ("different", 0), ("Not equivalent.", 0), ("EQUIVALENT or DIFFERENT", None), ("hmm", None)],
)
def test_parse_verdict(text, v):
    assert parse_verdict(text) == v


def test_stage2_resolves_through_the_judge_and_counts_failures(stub):
    rows = [
        {
            "question": "q1",
            "gold": "Michio Sugeno",
            "answer": "It was Michio Sugeno, in Japan",
            "graded_by": "unresolved",
            "correct": None,
        },
        {
            "question": "q2",
            "gold": "Michio Sugeno",
            "answer": "Lotfi Zadeh",
            "graded_by": "unresolved",
            "correct": None,
        },
        {"question": "q3", "gold": "x", "answer": "x", "graded_by": "normalised_match", "correct": 1},
    ]
    out = grade_stage2(rows, ChatClient(stub.base_url, "judge", backoff_base=0.01))
    assert out == {"llm_equivalent": 1, "llm_different": 1}
    assert [r["correct"] for r in rows] == [1, 0, 1]
    assert [r["graded_by"] for r in rows] == ["llm", "llm", "normalised_match"]
    # a grader that cannot be reached leaves the row unresolved and is counted
    dead = [{"question": "q", "gold": "a", "answer": "b c", "graded_by": "unresolved", "correct": None}]
    out = grade_stage2(dead, ChatClient(stub.base_url, "unauthorized", backoff_base=0.01))
    assert out == {"llm_endpoint_failure": 1} and dead[0]["graded_by"] == "unresolved"


def test_grade_cli_end_to_end(stub, questions_csv, api_key, tmp_path, capsys):
    raw = tmp_path / "raw.jsonl"
    assert cli.main(collect_argv(stub, "malformed", questions_csv, raw, "--limit", "20")) == 0
    graded = tmp_path / "graded.jsonl"
    assert cli.main(["grade", str(raw), "--out", str(graded)]) == 0
    err = capsys.readouterr().err
    rows = [json.loads(line) for line in graded.read_text().splitlines()]
    assert len(rows) == 20
    assert all({"correct", "refusal", "graded_by"} <= set(r) for r in rows)
    no_answer = sum(r["graded_by"] == "no_answer" for r in rows)
    assert no_answer > 0 and f"no answer {no_answer}" in err
    assert all(r["correct"] is None for r in rows if r["graded_by"] in ("no_answer", "unresolved"))
    # CSV output + unresolved-as-incorrect
    out_csv = tmp_path / "graded.csv"
    assert cli.main(["grade", str(raw), "--out", str(out_csv), "--unresolved-as-incorrect"]) == 0
    assert "graded_by" in out_csv.read_text().splitlines()[0]


def test_grade_cli_llm_stage_through_stub(stub, questions_csv, api_key, tmp_path, capsys):
    raw = tmp_path / "raw.jsonl"
    assert cli.main(collect_argv(stub, "calibrated", questions_csv, raw, "--limit", "20")) == 0
    graded = tmp_path / "graded.jsonl"
    rc = cli.main(
        [
            "grade",
            str(raw),
            "--out",
            str(graded),
            "--llm-base-url",
            stub.base_url,
            "--llm-model",
            "judge",
            "--llm-backoff-base",
            "0.01",
        ]
    )
    assert rc == 0
    rows = [json.loads(line) for line in graded.read_text().splitlines()]
    assert not [r for r in rows if r["graded_by"] == "unresolved"]
    assert {r["graded_by"] for r in rows} <= {"normalised_match", "llm"}
    assert "stage 2:" in capsys.readouterr().err


def test_grade_cli_errors(tmp_path, capsys):
    assert cli.main(["grade", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "nope.jsonl: file not found" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"answer": "a", "gold": "a"}\n{oops\n')
    assert cli.main(["grade", str(bad), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "bad.jsonl: line 2" in capsys.readouterr().err
