"""Faults against the stub (mid-response drop, trickled body, concurrent runs) and grading fixes."""

from __future__ import annotations

import json
import threading
import time

import pytest
from conftest_stub import api_key, collect_argv, questions_csv, stub  # noqa: F401

from selfconf import cli
from selfconf.cli.collect import OutputLock
from selfconf.cli.grade import grade_stage1, normalize


def n_lines(p) -> int:
    return sum(1 for line in open(p, encoding="utf-8") if line.strip())


def test_connection_dropped_mid_response_is_retried(stub, questions_csv, api_key, tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    assert cli.main(collect_argv(stub, "midbody", questions_csv, out, "--limit", "6")) == 0
    assert n_lines(out) == 6
    assert all(json.loads(line)["attempts"] == 2 for line in open(out))
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_timeout_bounds_a_trickled_body(stub, questions_csv, api_key, tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    t0 = time.monotonic()
    # the stub trickles its ~100-byte body at 0.5 s per byte on the first attempt; --timeout 1 must cut it
    argv = collect_argv(stub, "trickle", questions_csv, out, "--limit", "4")
    argv[argv.index("--timeout") + 1] = "1"
    assert cli.main(argv) == 0
    assert time.monotonic() - t0 < 8
    assert n_lines(out) == 4


def test_a_second_collect_on_the_same_out_is_refused(stub, questions_csv, api_key, tmp_path, capsys):
    out = tmp_path / "c.jsonl"
    with OutputLock(out):
        assert cli.main(collect_argv(stub, "calibrated", questions_csv, out, "--limit", "3")) == 2
    err = capsys.readouterr().err
    assert "another selfconf run is writing this file" in err and "Traceback" not in err
    assert not out.exists() or n_lines(out) == 0
    # concurrent runs: one wins, the other is refused, no row is written twice
    codes = []
    ts = [
        threading.Thread(
            target=lambda: codes.append(cli.main(collect_argv(stub, "paced", questions_csv, out, "--limit", "20")))
        )
        for _ in range(2)
    ]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert sorted(codes) in ([0, 2], [0, 0])  # [0, 0] only if the first finished before the second started
    ids = [json.loads(line)["item_id"] for line in open(out)]
    assert len(ids) == len(set(ids)) == 20
    assert not (tmp_path / "c.jsonl.lock").exists()


def test_single_letter_answers_are_not_articles():
    assert normalize("A") == "a" and normalize("a house") == "house"
    assert grade_stage1("A", "A")["correct"] == 1
    assert grade_stage1("(A)", "A")["correct"] == 1
    assert grade_stage1("B", "A")["correct"] is None or grade_stage1("B", "A")["correct"] == 0


def test_refusal_prose_without_answer_is_a_refusal():
    g = grade_stage1(None, "Paris", raw="I'm sorry, but I don't know the answer to that.")
    assert g == {"correct": 0, "refusal": 1, "graded_by": "refusal_prose"}
    assert grade_stage1(None, "Paris", raw="Paris, I think")["graded_by"] == "no_answer"


def _collected(tmp_path, rows):
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


def test_grade_reuses_llm_verdicts_and_fails_when_every_call_fails(stub, tmp_path, capsys):
    rows = [
        {
            "model": "m",
            "item_id": str(i),
            "question": f"q{i}",
            "gold": "Answer 1",
            "answer": f"answer one {i}",
            "confidence": 50,
            "raw": "",
        }
        for i in range(3)
    ]
    src = _collected(tmp_path, rows)
    out = tmp_path / "out.jsonl"
    dead = [
        "--llm-base-url",
        "http://127.0.0.1:9/v1",
        "--llm-model",
        "judge",
        "--llm-max-retries",
        "0",
        "--llm-timeout",
        "0.5",
        "--llm-api-key-env",
        "",
    ]
    assert cli.main(["grade", str(src), "--out", str(out), *dead]) == 3
    assert "every one of the 3 grader calls failed" in capsys.readouterr().err
    # a working grader, then a re-run against a dead one: earlier verdicts are kept, nothing is asked
    ok = ["--llm-base-url", stub.base_url, "--llm-model", "judge", "--llm-api-key-env", ""]
    assert cli.main(["grade", str(src), "--out", str(out), *ok]) == 0
    first = [json.loads(line) for line in open(out)]
    assert all(r["graded_by"] == "llm" for r in first)
    assert cli.main(["grade", str(src), "--out", str(out), *dead]) == 0
    assert "reused 3 earlier LLM verdicts" in capsys.readouterr().err
    assert [json.loads(line)["correct"] for line in open(out)] == [r["correct"] for r in first]


def test_grade_needs_an_answer_column(tmp_path, capsys):
    p = tmp_path / "in.csv"
    p.write_text("model,item_id,gold\nm,1,x\n", encoding="utf-8")
    assert cli.main(["grade", str(p), "--out", str(tmp_path / "o.csv")]) == 2
    assert "missing column(s) answer" in capsys.readouterr().err
