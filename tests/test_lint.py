"""The gate: ruff (lint and format) and mypy report nothing on the project (``make lint`` runs the same)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.lint


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing():
    out = _run("ruff", "check", "--output-format", "concise", ".")
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]


def test_ruff_format_changes_nothing():
    out = _run("ruff", "format", "--check", ".")
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]


def test_mypy_finds_nothing():
    out = _run("mypy")
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    assert "Success: no issues found" in out.stdout


def test_the_gate_can_fail(tmp_path):
    """ruff and mypy do report a finding when there is one (the gate is not vacuous)."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f(x: int) -> str:\n    return x\n", encoding="utf-8")
    assert _run("ruff", "check", "--no-cache", "--isolated", "--select", "F", str(bad)).returncode != 0
    assert _run("mypy", "--no-incremental", "--config-file", "/dev/null", str(bad)).returncode != 0
