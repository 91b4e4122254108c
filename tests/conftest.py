"""Shared fixtures.  The whole book is built once per test session (``built_book``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def built_book() -> Path:
    """Execute every notebook and build the HTML once (``make book`` without the install step).

    Set ``SELFCONF_SKIP_BUILD=1`` to reuse an existing ``_build/html`` while iterating locally.
    """
    import fcntl

    html = ROOT / "_build" / "html"
    (ROOT / "_build").mkdir(exist_ok=True)
    with open(ROOT / "_build" / ".build.lock", "w") as lock:  # one build at a time in a shared tree
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.environ.get("SELFCONF_SKIP_BUILD") != "1" or not (html / "index.html").is_file():
            r = subprocess.run([sys.executable, "-m", "selfconf.build", "all"], cwd=ROOT,
                               capture_output=True, text=True)
            if r.returncode:
                pytest.fail(f"book build failed (exit {r.returncode}):\n{r.stdout[-6000:]}\n{r.stderr[-6000:]}")
    return html
