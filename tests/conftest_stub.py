"""Fixtures for the end-to-end CLI tests: a scripted chat-completions stub and a question file.

Imported by the test modules (``from conftest_stub import ...``) rather than from ``conftest.py``
(owned by the lead), so pytest sees the fixtures in those modules only.  Network use is limited
to the stub on 127.0.0.1.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from stub_server import StubServer

#: Synthetic SimpleQA-layout questions (id, problem, gold): short, with numbers and names.
QUESTIONS = [(str(i), f"Stub question {i}: what is the code word number {i}?", f"Answer {i}") for i in range(40)]
API_KEY = "sk-test-never-log-this-7f3a"


def battery_gold() -> dict[str, str]:
    from selfconf.cli.diagnose import load_battery

    return {it["question"]: it["answers"][0] for it in load_battery()["items"]}


@pytest.fixture(scope="session")
def questions_csv(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("questions") / "questions.csv"
    with open(p, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["item_id", "problem", "answer"])
        w.writerows(QUESTIONS)
    return p


@pytest.fixture(scope="session")
def stub():
    gold = {q: a for _, q, a in QUESTIONS}
    gold.update(battery_gold())
    server = StubServer(gold, slow_seconds=2.0, pace_seconds=0.05)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def api_key(monkeypatch) -> str:
    monkeypatch.setenv("SELFCONF_TEST_KEY", API_KEY)
    return API_KEY


def collect_argv(stub: StubServer, model: str, questions: Path, out: Path, *extra: str) -> list[str]:
    """argv for ``selfconf collect`` against the stub with fast retries."""
    return [
        "collect",
        "--questions",
        str(questions),
        "--base-url",
        stub.base_url,
        "--model",
        model,
        "--out",
        str(out),
        "--api-key-env",
        "SELFCONF_TEST_KEY",
        "--timeout",
        "0.8",  # under the stub's 2 s slow reply, with room for a loaded machine (0.3 s timed out retries)
        "--backoff-base",
        "0.01",
        "--concurrency",
        "4",
        *extra,
    ]
