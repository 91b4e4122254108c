"""`selfconf collect` and `selfconf fetch`: parsing, retries, resumable JSONL, the stub matrix."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest_stub import API_KEY, QUESTIONS, api_key, collect_argv, questions_csv, stub  # noqa: F401

from selfconf import cli
from selfconf.cli.collect import SYSTEM_PROMPT, ChatClient, EndpointError, JsonlLog, parse_reply

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "external"


def read_jsonl(p: Path) -> list[dict]:
    return [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


# --------------------------------------------------------------------------- prompt & parsing


def test_system_prompt_is_the_papers_verbatim_prompt():
    manifest = yaml.safe_load((ROOT / "data" / "paper" / "claims.yaml").read_text(encoding="utf-8"))
    assert SYSTEM_PROMPT == manifest["elicitation_prompt"]["system"]


@pytest.mark.parametrize(
    "text, answer, conf, ok",
    [
        ('{"answer": "Paris", "confidence": 85}', "Paris", 85, True),
        ('```json\n{"answer": "Paris", "confidence": 70}\n```', "Paris", 70, True),
        ('Sure! {"answer": "Paris", "confidence": "85%"} Hope that helps.', "Paris", 85, True),
        ('{"answer": 1995, "confidence": "90"}', "1995", 90, True),
        ('{"Answer": "x", "Confidence": 0}', "x", 0, True),
        ("{'answer': 'Paris', 'confidence': 60,}", "Paris", 60, True),
        ('{"note": 1} then {"answer": "y", "confidence": 100}', "y", 100, True),
        ('{"answer": "Paris", "confidence": 150}', "Paris", None, False),
        ('{"answer": "Paris", "confidence": -3}', "Paris", None, False),
        ('{"answer": "Paris", "confidence": "high"}', "Paris", None, False),
        ('{"answer": "Paris", "confidence": true}', "Paris", None, False),
        ('{"answer": "Paris"}', "Paris", None, False),
        ('{"answer": null, "confidence": 50}', None, 50, False),
        ("The answer is Paris.", None, None, False),
        ("", None, None, False),
        (None, None, None, False),
        ('{"answer": "Paris", "confidence": 8', None, None, False),
    ],
)
def test_parse_reply(text, answer, conf, ok):
    r = parse_reply(text)
    assert r.ok is ok
    assert r.answer == answer
    assert r.confidence == conf
    if not ok:
        assert r.error


# --------------------------------------------------------------------------- JSONL log


def test_jsonl_log_drops_a_torn_last_line_and_keeps_the_rest(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_text(
        '{"model": "m", "item_id": "1"}\n{"model": "m", "item_id": "2"}\n{"model": "m", "ite', encoding="utf-8"
    )
    log = JsonlLog(p, key=lambda r: r["item_id"])
    assert log.done_keys() == {"1", "2"} and log.dropped_partial == 1
    log.append({"model": "m", "item_id": "3"})
    log.close()
    assert [r["item_id"] for r in read_jsonl(p)] == ["1", "2", "3"]


def test_jsonl_log_keeps_a_complete_record_missing_its_newline(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_text('{"model": "m", "item_id": "1"}\n{"model": "m", "item_id": "2"}', encoding="utf-8")
    with JsonlLog(p, key=lambda r: r["item_id"]) as log:
        assert log.done_keys() == {"1", "2"} and log.dropped_partial == 0
        log.append({"model": "m", "item_id": "3"})
    assert [r["item_id"] for r in read_jsonl(p)] == ["1", "2", "3"]


def test_jsonl_log_refuses_a_corrupt_middle_line(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_text('{"item_id": "1"}\nnot json\n{"item_id": "2"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"log.jsonl: line 2"):
        JsonlLog(p, key=lambda r: r["item_id"])


@pytest.mark.parametrize(
    ("text", "kept", "torn"),
    [
        ('{"item_id": "1"}\n{"item_id": "2"}\n{"item_', ["1", "2"], 1),  # a write cut short by a kill
        ('{"item_id": "1"}\n\n{"item_id": "2"}\n{"item_id": \n\n', ["1", "2"], 1),  # torn, then blank lines
        ('{"item_id": "1"}\n{"item_id": "2"}\n  \n', ["1", "2"], 0),  # a trailing blank line
        ('{"item_id": "1"}\n{"item_id": "2"}', ["1", "2"], 0),  # complete, only its newline missing
        ('{"item_id": "1"}\n[2]\n', ["1"], 1),  # a last line that is JSON but not an object
        ('{"item_id": "\u00e9"}\n{"item_id": "\u00e9', ["\u00e9"], 1),  # cut inside a UTF-8 character (below)
    ],
)
def test_one_jsonl_reader_for_collect_and_probe(tmp_path, text, kept, torn):
    """``collect``'s log and ``probe --analyse-only`` read a log through one parser: the same records, the same
    torn-line count; the log also cuts the torn line off, so the file reopens clean and appends stay whole."""
    from selfconf.cli.probe import read_log

    p = tmp_path / "log.jsonl"
    data = text.encode("utf-8")
    p.write_bytes(data[:-1] if text.endswith("\u00e9") else data)
    records, n_torn = read_log(p)
    assert [r["item_id"] for r in records] == kept and n_torn == torn
    with JsonlLog(p, key=lambda r: r["item_id"]) as log:
        assert [r["item_id"] for r in log.records] == kept and log.dropped_partial == torn
        log.append({"item_id": "new"})
    with JsonlLog(p, key=lambda r: r["item_id"]) as log:
        assert [r["item_id"] for r in log.records] == [*kept, "new"] and log.dropped_partial == 0
    assert read_log(p) == (log.records, 0)


def test_one_jsonl_reader_names_the_file_and_line_of_a_bad_middle_line(tmp_path):
    from selfconf.cli.probe import read_log

    p = tmp_path / "log.jsonl"
    p.write_text('{"item_id": "1"}\n\n[1, 2]\n{"item_id": "2"}\n', encoding="utf-8")
    for reader in (read_log, lambda q: JsonlLog(q, key=lambda r: r["item_id"])):
        with pytest.raises(ValueError, match=r"log\.jsonl: line 3 is not a JSON record \(not a JSON object\)"):
            reader(p)


# --------------------------------------------------------------------------- stub matrix

BEHAVIOURS = ["calibrated", "overconfident", "refusing", "malformed", "slow", "flaky", "ratelimited", "dropping"]


@pytest.mark.slow
@pytest.mark.parametrize("model", BEHAVIOURS)
def test_collect_against_stub_writes_every_item_once(model, stub, questions_csv, api_key, tmp_path, capsys):
    out = tmp_path / f"{model}.jsonl"
    rc = cli.main(collect_argv(stub, model, questions_csv, out, "--limit", "12"))
    assert rc == 0
    recs = read_jsonl(out)
    ids = [r["item_id"] for r in recs]
    assert sorted(ids, key=int) == [str(i) for i in range(12)]  # each once, none lost
    assert all(r["model"] == model and r["raw"] for r in recs)
    # protocol: verbatim system prompt, bare question, temperature 0, key only in the header
    sent = [q for q in stub.requests if q["body"]["model"] == model]
    assert sent and all(q["body"]["temperature"] == 0 for q in sent)
    assert all(q["body"]["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT} for q in sent)
    asked = {q["body"]["messages"][1]["content"] for q in sent}
    assert asked == {p for _, p, _ in QUESTIONS[:12]}
    assert all(q["authorization"] == f"Bearer {API_KEY}" for q in sent)
    err = capsys.readouterr().err
    assert API_KEY not in out.read_text() and API_KEY not in err
    if model == "malformed":
        bad = [r for r in recs if r["parse_error"]]
        assert bad and all(r["confidence"] is None and r["raw"] for r in bad)
        assert any(r["parse_error"] is None for r in recs)
    else:
        assert all(r["parse_error"] is None for r in recs)
    if model in ("slow", "flaky", "ratelimited", "dropping"):
        assert all(r["attempts"] == 2 for r in recs), "first attempt fails by script, the retry succeeds"


def test_collect_resume_skips_done_items(stub, questions_csv, api_key, tmp_path):
    out = tmp_path / "resume.jsonl"
    assert cli.main(collect_argv(stub, "calibrated", questions_csv, out, "--limit", "5")) == 0
    before = len([q for q in stub.requests if q["body"]["model"] == "calibrated"])
    assert cli.main(collect_argv(stub, "calibrated", questions_csv, out, "--limit", "8")) == 0
    after = len([q for q in stub.requests if q["body"]["model"] == "calibrated"])
    assert after - before == 3  # only the three new items were asked
    ids = [r["item_id"] for r in read_jsonl(out)]
    assert len(ids) == len(set(ids)) == 8


def test_collect_failed_items_are_recorded_with_an_error_and_retried_next_run(
    stub, questions_csv, api_key, tmp_path, capsys
):
    out = tmp_path / "flaky0.jsonl"
    # the first attempt of every question to 'flaky' is a 500; with no retries nothing succeeds
    fresh = tmp_path / "q.csv"
    with open(fresh, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["problem", "answer"])
        w.writerows([[f"flaky-only question {i}", "x"] for i in range(4)])
    rc = cli.main(collect_argv(stub, "flaky", fresh, out, "--max-retries", "0"))
    assert rc == 3
    assert "4 endpoint failures" in capsys.readouterr().err
    failed = read_jsonl(out)  # one row per question, with the reason: grade and report count them
    assert sorted(r["item_id"] for r in failed) == ["0", "1", "2", "3"]
    assert all(r["error"] and "HTTP 500" in r["error"] and r["confidence"] is None for r in failed)
    graded = tmp_path / "flaky0.graded.jsonl"
    assert cli.main(["grade", str(out), "--out", str(graded)]) == 0
    assert {r["graded_by"] for r in read_jsonl(graded)} == {"collection_error"}
    capsys.readouterr()
    assert cli.main(["report", str(graded), "--json", "--n-boot", "100"]) == 2  # every row excluded
    assert "collection errors" in capsys.readouterr().err
    rc = cli.main(collect_argv(stub, "flaky", fresh, out, "--max-retries", "0"))
    assert rc == 0  # second attempts succeed and replace the error rows: nothing lost, nothing twice
    rows = read_jsonl(out)
    assert sorted(r["item_id"] for r in rows) == ["0", "1", "2", "3"]
    assert not any(r.get("error") for r in rows)


def test_collect_unauthorized_is_a_clear_error_without_the_key(stub, questions_csv, api_key, tmp_path, capsys):
    rc = cli.main(collect_argv(stub, "unauthorized", questions_csv, tmp_path / "u.jsonl", "--limit", "3"))
    err = capsys.readouterr().err
    assert rc == 3
    assert "HTTP 401" in err and API_KEY not in err


def test_client_gives_up_on_a_dead_port():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    c = ChatClient(f"http://127.0.0.1:{port}/v1", "m", timeout=0.2, max_retries=2, backoff_base=0.001)
    with pytest.raises(EndpointError, match="gave up after 3 attempts"):
        c.chat([{"role": "user", "content": "hi"}])


def test_collect_bad_question_file_errors(tmp_path, capsys):
    p = tmp_path / "q.csv"
    p.write_text("question,answer\nhi,there\n")
    rc = cli.main(
        [
            "collect",
            "--questions",
            str(p),
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--out",
            str(tmp_path / "o.jsonl"),
        ]
    )
    assert rc == 2 and "no 'problem' column" in capsys.readouterr().err
    rc = cli.main(
        [
            "collect",
            "--questions",
            str(tmp_path / "missing.csv"),
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--out",
            "x",
        ]
    )
    assert rc == 2 and "missing.csv" in capsys.readouterr().err


@pytest.mark.slow
def test_killed_collect_resumes_without_lost_or_duplicated_rows(stub, questions_csv, tmp_path):
    """SIGKILL a collect mid-run (twice), tear its last line, resume: every item exactly once."""
    out = tmp_path / "killed.jsonl"
    env = {**os.environ, "SELFCONF_TEST_KEY": API_KEY}
    argv = [
        sys.executable,
        "-m",
        "selfconf.cli",
        *collect_argv(stub, "paced", questions_csv, out, "--concurrency", "2"),
    ]
    for stop_at in (6, 16):
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if out.exists() and out.read_bytes().count(b"\n") >= stop_at:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        n = out.read_bytes().count(b"\n")
        assert stop_at <= n < len(QUESTIONS), "the kill must land mid-run"
    with open(out, "ab") as fh:  # simulate a write torn by the kill
        fh.write(b'{"model": "paced", "item_id": "9')
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "truncated last line" in done.stderr
    ids = [r["item_id"] for r in read_jsonl(out)]
    assert len(ids) == len(set(ids)), "duplicated rows"
    assert set(ids) == {q[0] for q in QUESTIONS}, "lost rows"


# --------------------------------------------------------------------------- fetch


@pytest.mark.skipif(not (SHARED / "simpleqa").is_dir(), reason="../shared/external/simpleqa not present")
def test_fetch_simpleqa_from_local_copy_writes_a_seeded_subsample(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        assert cli.main(["fetch", "simpleqa", "--from", str(SHARED / "simpleqa"), "--dest", str(d)]) == 0
    sample = a / "simpleqa_sample_1500_seed0.csv"
    rows = list(csv.DictReader(open(sample, encoding="utf-8")))
    assert len(rows) == 1500
    ids = [int(r["item_id"]) for r in rows]
    assert ids == sorted(set(ids)) and 0 <= ids[0] and ids[-1] < 4326
    assert sample.read_bytes() == (b / sample.name).read_bytes()  # same seed, same file
    manifest = json.loads((a / "FETCHED.json").read_text())
    assert manifest["sha256"] == "feee3f7e7db3617e94e8fcf1977b756ec420ef8568f4e0fcbbe0e92e9d5fc032"
    full = list(csv.DictReader(open(a / "simple_qa_test_set.csv", encoding="utf-8")))
    assert rows[0]["problem"] == full[ids[0]]["problem"]  # item_id is the original row index
    assert (
        cli.main(["fetch", "simpleqa", "--from", str(SHARED / "simpleqa"), "--dest", str(a), "--sample-seed", "1"]) == 0
    )
    other = [r["item_id"] for r in csv.DictReader(open(a / "simpleqa_sample_1500_seed1.csv", encoding="utf-8"))]
    assert other != [r["item_id"] for r in rows]


@pytest.mark.skipif(
    not (SHARED / "mmlu-pro-calibration").is_dir(), reason="../shared/external/mmlu-pro-calibration not present"
)
def test_fetch_mmlu_pro_from_local_copy(tmp_path):
    from selfconf.data.fetch import MMLU_PRO_MODELS, read_mmlu_pro_calibration

    d = tmp_path / "mmlu"
    assert (
        cli.main(["fetch", "mmlu-pro-calibration", "--from", str(SHARED / "mmlu-pro-calibration"), "--dest", str(d)])
        == 0
    )
    assert len(list(d.glob("mmlu_pro_*.csv"))) == len(MMLU_PRO_MODELS) == 26
    df = read_mmlu_pro_calibration(d)
    assert df["model"].nunique() == 26 and len(df) == 26 * 12032
    assert df["confidence"].dropna().between(0, 1).all()


def test_fetch_errors_are_clear(tmp_path, capsys):
    assert (
        cli.main(["fetch", "mmlu-pro-calibration", "--from", str(tmp_path / "nope"), "--dest", str(tmp_path / "d")])
        == 2
    )
    assert "nope" in capsys.readouterr().err
    (tmp_path / "partial").mkdir()
    assert (
        cli.main(["fetch", "mmlu-pro-calibration", "--from", str(tmp_path / "partial"), "--dest", str(tmp_path / "d")])
        == 2
    )
    assert "mmlu_pro_gpt-4.1_eval_all_None.csv" in capsys.readouterr().err
    from selfconf.data.fetch import read_mmlu_pro_calibration

    with pytest.raises(FileNotFoundError, match="make external"):
        read_mmlu_pro_calibration(tmp_path / "absent")


# --------------------------------------------------------------------------- CLI structure


@pytest.mark.parametrize("cmd", ["report", "collect", "grade", "diagnose", "fetch"])
def test_every_subcommand_has_help(cmd, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main([cmd, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert f"usage: selfconf {cmd}" in out and len(out) > 400


def test_rerun_is_registered_only_when_its_module_exists():
    import importlib.util

    names = [n for n, _, _ in cli.SUBCOMMANDS]
    assert "rerun" in names
    _, modules = cli.build_parser()
    assert ("rerun" in modules) == (importlib.util.find_spec("selfconf.book.rerun") is not None)


def test_console_script_runs():
    exe = Path(sys.executable).with_name("selfconf")
    r = subprocess.run([str(exe) if exe.exists() else "selfconf", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "collect" in r.stdout and "report" in r.stdout


@pytest.mark.skipif(not (SHARED / "simpleqa").is_dir(), reason="../shared/external/simpleqa not present")
def test_fetch_simpleqa_download_path_over_local_http(tmp_path):
    """The download code path (streamed to a .part file, then renamed), served from 127.0.0.1."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    handler = functools.partial(Quiet, directory=str(SHARED / "simpleqa"))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/simple_qa_test_set.csv"
        d = tmp_path / "dl"
        assert cli.main(["fetch", "simpleqa", "--url", url, "--dest", str(d), "--n-items", "100"]) == 0
        assert json.loads((d / "FETCHED.json").read_text())["sha256"].startswith("feee3f7e")
        assert not list(d.glob("*.part"))
        assert cli.main(["fetch", "simpleqa", "--url", url.replace(".csv", "-missing.csv"), "--dest", str(d)]) == 2
    finally:
        httpd.shutdown()
        httpd.server_close()
