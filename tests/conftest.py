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
            r = subprocess.run(
                [sys.executable, "-m", "selfconf.book.build", "all"], cwd=ROOT, capture_output=True, text=True
            )
            if r.returncode:
                pytest.fail(f"book build failed (exit {r.returncode}):\n{r.stdout[-6000:]}\n{r.stderr[-6000:]}")
    return html


@pytest.fixture(scope="session")
def built_pdf(built_book) -> Path:
    """Typeset the built book to ``_build/pdf/selfconf-book.pdf`` (and its copy in ``_build/html``) once.

    Needs Debian's TeX Live (``scripts/install_tex.sh``, which ``make test`` runs); skipped, saying so, without it.
    ``SELFCONF_SKIP_BUILD=1`` reuses an existing PDF that is newer than the built index page.
    """
    from selfconf.book.pdf import missing_tex

    if lacking := missing_tex():
        pytest.skip(f"TeX Live is not installed (missing {', '.join(lacking)}): run `make tex` to typeset the PDF")
    pdf = ROOT / "_build" / "pdf" / "selfconf-book.pdf"
    site_copy = built_book / "selfconf-book.pdf"
    fresh = pdf.is_file() and site_copy.is_file() and pdf.stat().st_mtime >= (built_book / "index.html").stat().st_mtime
    if os.environ.get("SELFCONF_SKIP_BUILD") == "1" and fresh:
        return pdf
    r = subprocess.run([sys.executable, "-m", "selfconf.book.pdf"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode:
        pytest.fail(f"make pdf failed (exit {r.returncode}):\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}", pytrace=False)
    return pdf


# ---- the reconstruction's byte-identical regeneration, overlapped with the rest of the suite ---------------------
#: Node id suffix of the test that regenerates every reconstructed file (minutes of one core, tests/test_reconstruct.py)
REGENERATION_TEST = "test_reconstruct.py::test_regeneration_is_byte_identical"


def pytest_collection_finish(session):
    """When the regeneration test is selected, start ``python -m selfconf.reconstruct --check`` now, in the
    background, so its single-core minutes overlap the rest of the suite; the test waits for it and asserts on its
    output exactly as if it had run it then (same command, same working directory)."""
    if any(item.nodeid.endswith(REGENERATION_TEST) for item in session.items):
        session.config._selfconf_regeneration = _start_regeneration()


def _start_regeneration() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "selfconf.reconstruct", "--check"],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def pytest_unconfigure(config):
    proc = getattr(config, "_selfconf_regeneration", None)
    if proc is not None and proc.poll() is None:
        proc.kill()


@pytest.fixture
def regeneration(request):
    """(returncode, output) of the background regeneration started at collection (started here if it was not)."""
    proc = getattr(request.config, "_selfconf_regeneration", None) or _start_regeneration()
    out, _ = proc.communicate(timeout=1800)
    return proc.returncode, out
