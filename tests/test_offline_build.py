"""A fresh clone with no network and no shared folder builds the book: the fetch step names the third-party data
it could not get and goes on, and each page that needs them is executed without those cells, saying so.

"Network blocked" is ``tests/fixtures/offline/sitecustomize.py`` on ``PYTHONPATH`` (every Python process refuses
connections and name lookups off the machine), as in ``tests/test_course.py``. The whole ``make pdf`` on a fresh
clone inside a network namespace (``unshare -n``) is a documented manual run (docs/decisions.md, "The PDF").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

from selfconf.data import external

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = ROOT / "tests" / "fixtures" / "offline"
PAGES = ["20_calibration_vs_discrimination", "22_external_replication", "26_real_answers", "28_every_reading"]


def run_fetch(tmp_path: Path, **env_extra: str) -> subprocess.CompletedProcess:
    """scripts/fetch_external.sh in an empty project folder, network blocked, its local source an empty folder."""
    proj = tmp_path / "project"
    (proj / "scripts").mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "scripts" / "fetch_external.sh", proj / "scripts")
    (tmp_path / "empty").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "PY": sys.executable,
        "PYTHONPATH": os.pathsep.join([str(OFFLINE), str(ROOT / "src")]),
        "SELFCONF_EXTERNAL_FROM": str(tmp_path / "empty"),
        **env_extra,
    }
    return subprocess.run(
        ["bash", str(proj / "scripts" / "fetch_external.sh")],
        cwd=proj,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow  # three Python start-ups per run of the script
def test_fetch_offline_names_the_missing_data_sets_and_goes_on(tmp_path):
    r = run_fetch(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "NOT AVAILABLE: mmlu-pro-calibration simpleqa" in r.stderr
    assert "cannot download (ConnectionError)" in r.stderr  # the download was tried and refused, not skipped
    assert "make external" in r.stderr
    assert not list((tmp_path / "project").rglob("FETCHED.json"))  # nothing looks complete
    assert not external.available("mmlu-pro-calibration", tmp_path / "project")


@pytest.mark.slow  # three Python start-ups per run of the script
def test_fetch_offline_strict_fails(tmp_path):
    r = run_fetch(tmp_path, SELFCONF_EXTERNAL_STRICT="1")
    assert r.returncode == 1
    assert "NOT AVAILABLE: mmlu-pro-calibration simpleqa" in r.stderr


@pytest.mark.slow  # three Python start-ups per run of the script
def test_fetch_keeps_a_complete_copy_it_cannot_refresh(tmp_path):
    done = tmp_path / "project" / "data" / "external" / "mmlu-pro-calibration"
    done.mkdir(parents=True)
    (done / "FETCHED.json").write_text("{}")
    r = run_fetch(tmp_path)
    assert r.returncode == 0
    assert "NOT AVAILABLE: simpleqa (" in r.stderr
    assert "keeping the complete copy in data/external/mmlu-pro-calibration/" in r.stderr


@pytest.mark.parametrize("page", PAGES)
def test_pages_without_their_data_keep_no_cell_that_reads_them(page, tmp_path):
    """Without the data (an empty root) no kept cell reads the data folder or pastes a value glued from it; with
    the data the notebook is returned unchanged."""
    nb = jupytext.read(ROOT / "notebooks" / f"{page}.py")
    assert external.needed(nb) == ["mmlu-pro-calibration"]
    out, missing = external.without_unavailable(nb, tmp_path)
    assert missing == ["mmlu-pro-calibration"]
    notices = [c for c in out.cells if external.NOTICE_TAG in c.metadata.get("tags", [])]
    assert len(notices) == 1 and "make external" in notices[0].source
    kept = "\n".join(c.source for c in out.cells)
    for reads in ("read_mmlu_pro_calibration(", "datasets.load(lab_data)", "ext_path"):
        assert reads not in kept
    glued_left = {
        line.split('"')[1]
        for c in out.cells
        if c.cell_type == "code"
        for line in c.source.splitlines()
        if "glue.value(" in line and '"' in line
    }
    glued_gone = {
        line.split('"')[1]
        for c in nb.cells
        if c.cell_type == "code" and c not in out.cells
        for line in c.source.splitlines()
        if "glue.value(" in line and '"' in line
    } - glued_left
    pasted = "\n".join(c.source for c in out.cells if c.cell_type == "markdown")
    assert not [k for k in glued_gone if f"`{k}" in pasted], "a kept paragraph pastes a value of a left-out cell"
    (tmp_path / "data" / "external" / "mmlu-pro-calibration").mkdir(parents=True)
    (tmp_path / "data" / "external" / "mmlu-pro-calibration" / "FETCHED.json").write_text("{}")
    same, none = external.without_unavailable(nb, tmp_path)
    assert same is nb and none == []


def test_unknown_data_set_tag_is_a_clear_error():
    nb = {"cells": [{"metadata": {"tags": ["needs-external:mmlu"]}}]}
    with pytest.raises(ValueError, match="cell 0: tag needs-external:mmlu names no known data set"):
        external.needed(nb)


@pytest.mark.book
def test_chapter_26_without_data_executes_and_the_parity_says_not_computed(tmp_path, monkeypatch):
    """Executed with the data reported missing: the page has the notice, glues no scorecard, the build writes no
    scorecard.json and the parity check lists the scorecard as not computed (not as checked)."""
    from selfconf.book import build, parity, scorecard

    monkeypatch.setattr(external, "available", lambda name, root: False)
    out = tmp_path / "book"
    nb_path = build.execute_one("26_real_answers", {}, out, ROOT, table_dir=tmp_path / "tables")
    doc = json.loads(nb_path.read_text(encoding="utf-8"))
    assert scorecard.built_without_data(nb_path)
    assert "real_scorecard_json" not in json.dumps(doc)
    sc = tmp_path / "_build" / "scorecard.json"
    sc.parent.mkdir()
    sc.write_text("[]")  # a stale file from an earlier build goes
    assert scorecard.ensure_scorecard(out, sc) is None and not sc.exists()
    (tmp_path / "_build" / "html").mkdir()
    lines = [s.line() for s in parity.check_build(tmp_path / "_build", out)]
    assert any(line.startswith("scorecard") and "not computed" in line for line in lines), lines
    assert any(line.startswith("shared") and "not checked, table not built" in line for line in lines), lines
