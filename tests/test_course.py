"""The course edition: student notebooks without solutions, checks that say "Not yet" on blanks and on a
plausible wrong answer, reference solutions that pass, the install cell, launch buttons that open files the
publishing step writes, and a downloaded notebook that runs in a fresh environment with only Jupyter.

The student and instructor editions are made by ``selfconf.course.make_student`` (otter assign) into a
temporary folder; each teaching notebook runs once with nbclient at reduced bootstrap settings (the checks
recompute their expected values from the same variables, so they hold at any setting), its checks called on
the blank, a wrong and the reference answer in that one run (``teaching_runs``)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import jupytext
import nbformat
import pytest

from selfconf import course
from selfconf.course import grading

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "external"
FAST = {"20_calibration_vs_discrimination": {"n_boot": 300}, "21_seed_variation": {"n_boot": 300, "n_seeds": 3}}
CHECK_CALL = re.compile(r'^grader\.check\("([^"]+)"\)\s*$')


def _exercises_in_master(stem: str) -> list[str]:
    text = (ROOT / "notebooks" / f"{stem}.py").read_text(encoding="utf-8")
    return re.findall(r"^# # BEGIN QUESTION\n# name: (\S+)", text, flags=re.M)


def _checked_in_master(stem: str) -> list[str]:
    nb = jupytext.read(ROOT / "notebooks" / f"{stem}.py")
    names, current = [], None
    for c in nb.cells:
        src = c.source
        if c.cell_type == "raw" and src.startswith("# BEGIN QUESTION"):
            current = re.search(r"name: (\S+)", src).group(1)
        if c.cell_type == "raw" and src.startswith("# BEGIN TESTS") and current:
            names.append(current)
    return names


def _with_params(nb, params: dict):
    for c in nb.cells:
        if c.cell_type == "code" and "parameters" in c.metadata.get("tags", []):
            lines = []
            for line in c.source.splitlines():
                name = line.split("=")[0].strip()
                lines.append(f"{name} = {params[name]!r}" if name in params else line)
            c.source = "\n".join(lines)
    return nb


def _execute(nb, cwd: Path, timeout: int = 900):
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def _check_results(nb) -> dict[str, str]:
    """{exercise: the text the check printed} for every grader.check cell."""
    out = {}
    for c in nb.cells:
        m = CHECK_CALL.match(c.source.strip()) if c.cell_type == "code" else None
        if m:
            text = "".join(
                o.get("data", {}).get("text/plain", "")
                if o.get("output_type") == "execute_result"
                else o.get("text", "")
                for o in c.outputs
            )
            out[m.group(1)] = text
    return out


def _passed(name: str, text: str) -> bool:
    return text.startswith(f"{name} results: All test cases passed!")


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    """The kernels read MMLU-Pro from ../shared (through SELFCONF_EXTERNAL_FROM) into an empty cache."""
    saved = {k: os.environ.get(k) for k in ("SELFCONF_CACHE", "SELFCONF_EXTERNAL_FROM", "SELFCONF_BOOK")}
    os.environ["SELFCONF_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    if SHARED.is_dir():
        os.environ["SELFCONF_EXTERNAL_FROM"] = str(SHARED)
    os.environ.pop("SELFCONF_BOOK", None)  # a student's kernel is not the book's build
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="module")
def editions(tmp_path_factory, kernel_env):
    """Student and instructor editions of every teaching notebook (fails if the shipped checks are stale); the
    prose's numbers come from executing the masters at the reduced settings."""
    from selfconf.book import glue

    out = tmp_path_factory.mktemp("editions")
    runs = tmp_path_factory.mktemp("masters")

    def values(stem: str) -> dict:  # the masters executed here at FAST settings, as the book's build would
        nb = _execute(_with_params(jupytext.read(ROOT / "notebooks" / f"{stem}.py"), FAST[stem]), ROOT)
        nbformat.write(nb, runs / f"{stem}.ipynb")
        return glue.glued_in_notebook(runs / f"{stem}.ipynb")

    course.make_student(out, values=values)
    return out


# ------------------------------------------------------------------ editions (no execution)


def test_at_least_twelve_exercises_most_of_them_checked():
    names = [n for s in course.TEACHING for n in _exercises_in_master(s)]
    checked = [n for s in course.TEACHING for n in _checked_in_master(s)]
    assert len(names) >= 12 and len(set(names)) == len(names), names
    assert len(checked) >= 12 and len(checked) > len(names) / 2
    for stem in course.TEACHING:  # every checked exercise has its check declared in the package
        assert course.exercises(stem) == sorted(_checked_in_master(stem))


@pytest.mark.slow
def test_student_notebooks_contain_no_solution_text(editions):
    for stem in course.TEACHING:
        student = nbformat.read(editions / f"{stem}.ipynb", as_version=4)
        text = "\n".join(c.source for c in student.cells)
        assert "# SOLUTION" not in text and "BEGIN SOLUTION" not in text and "Reference answer" not in text
        master = (ROOT / "notebooks" / f"{stem}.py").read_text(encoding="utf-8")
        hidden = []
        for line in master.splitlines():
            if line.rstrip().endswith("# SOLUTION"):
                hidden.append(line.rsplit("# SOLUTION", 1)[0].strip())  # the whole line: the student sees `x = ...`
        assert hidden, stem
        lines = {ln.strip() for ln in text.splitlines()}
        leaked = [h for h in hidden if h in lines]
        assert not leaked, f"{stem}: solution text in the student notebook: {leaked}"
        # the written answer's reference text
        for para in re.findall(r"# :::\{dropdown\} Reference answer\n((?:# .*\n)+?)# :::", master):
            first = para.splitlines()[0].lstrip("# ").strip()
            assert first not in text
        # the checks are kept: one grader.check per checked exercise, and the install cell comes first
        assert sorted(_check_results(student)) == sorted(_checked_in_master(stem))
        assert student.cells[0].metadata.get("selfconf") == course.INSTALL_TAG


def test_the_install_cell_pins_the_repository_and_reads_the_wheel_variable():
    src = course.install_cell_source("https://github.com/o/r", "0123abc", "9.9")
    assert 'f"selfconf[course] @ {_src}"' in src and "git+https://github.com/o/r@0123abc" in src
    assert course.WHEEL_ENV in src and "find_spec" in src
    ast.parse(src)
    cell = course.install_cell(ROOT)
    assert course.book_ref(ROOT) in cell.source and "remove-cell" in cell.metadata["tags"]


@pytest.fixture
def offline_kernel(monkeypatch, tmp_path):
    """Kernels started in this test cannot reach the network (tests/fixtures/offline/sitecustomize.py) and see
    no local copy of the external data: the MMLU-Pro lab must run from the sample shipped in the package."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(OFFLINE), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("SELFCONF_EXTERNAL_FROM", "none")
    monkeypatch.setenv("SELFCONF_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.delenv("SELFCONF_BOOK", raising=False)


def _markdown_roles(nb) -> list[str]:
    """MyST roles and directives left in the Markdown a student reads: Markdown cells and Markdown outputs."""
    texts = [c.source for c in nb.cells if c.cell_type == "markdown"]
    for c in nb.cells:
        for o in c.get("outputs", []):
            md = (o.get("data") or {}).get("text/markdown")
            texts.append("".join(md) if isinstance(md, list) else md or "")
    found = []
    for t in texts:
        found += [m.group(0) for m in course.MYST_ROLE.finditer(t)]
        found += re.findall(r"^(?:```|:::)\{[a-z][\w:-]*\}", t, flags=re.M)
    return found


#: Sentences that only make sense on the book's page (toggles, launch buttons, the links above the page).
BOOK_ONLY_PHRASES = (
    "behind a toggle",
    "behind toggles",
    "rocket button",
    "links below",
    "reference answer",
    "paper's printed",
)


def _answer_cells(nb, tagged: bool) -> dict[str, object]:
    """{exercise: the answer cell before its ``grader.check`` cell}: the one cell tagged ``otter_answer_cell``
    since the previous check (student edition; exactly one), or the last code cell before the check (the
    instructor edition, where otter leaves the solution cell untagged)."""
    out, pending, last = {}, [], None
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        m = CHECK_CALL.match(c.source.strip())
        if m:
            if tagged:
                assert len(pending) == 1, f"{m.group(1)}: expected one answer cell, found {len(pending)}"
                out[m.group(1)] = pending[0]
            else:
                out[m.group(1)] = last
            pending = []
        else:
            if "otter_answer_cell" in c.metadata.get("tags", []):
                pending.append(c)
            last = c
    return out


@pytest.fixture(scope="module")
def teaching_runs(editions, kernel_env, tmp_path_factory):
    """Each teaching notebook executed ONCE: the unfilled student edition, top to bottom, with three cells after
    each of its checks that fill the exercise with a plausible wrong answer and check it, with the reference
    solution (the instructor edition's answer cell) and check it, and put the blank answer back (so every
    later cell runs on the blank, as a student's unfilled notebook would).

    The kernels run with the network blocked and no local copy of the external data (as ``offline_kernel``): the
    MMLU-Pro lab runs from the sample shipped in the package.

    Returns ``{stem: {"blank" | "wrong" | "reference": {exercise: the text the check printed}, "executed": the
    executed notebook}}``."""
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    try:
        from course_wrong_answers import WRONG
    finally:
        sys.path.pop(0)
    out = {}
    offline = pytest.MonkeyPatch()
    offline.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(OFFLINE), os.environ.get("PYTHONPATH")])))
    offline.setenv("SELFCONF_EXTERNAL_FROM", "none")
    offline.setenv("SELFCONF_CACHE", str(tmp_path_factory.mktemp("empty-cache")))
    offline.delenv("SELFCONF_BOOK", raising=False)
    for stem in course.TEACHING:
        assert sorted(WRONG[stem]) == sorted(_checked_in_master(stem)), f"{stem}: one wrong answer per checked exercise"
        nb = _with_params(nbformat.read(editions / f"{stem}.ipynb", as_version=4), FAST[stem])
        reference = _answer_cells(nbformat.read(editions / "instructor" / f"{stem}.ipynb", as_version=4), False)
        blank = _answer_cells(nb, True)
        assert sorted(reference) == sorted(blank) == sorted(_checked_in_master(stem)), stem
        cells, kinds = [], {}
        for c in nb.cells:
            cells.append(c)
            m = CHECK_CALL.match(c.source.strip()) if c.cell_type == "code" else None
            if not m:
                continue
            name = m.group(1)
            for kind, src in (("wrong", WRONG[stem][name]), ("reference", reference[name].source)):
                cells.append(nbformat.v4.new_code_cell(src))
                cells.append(nbformat.v4.new_code_cell(f'grader.check("{name}")'))
                kinds[len(cells) - 1] = kind
            cells.append(nbformat.v4.new_code_cell(blank[name].source))
        nb.cells = cells
        home = tmp_path_factory.mktemp(stem)
        nbformat.write(nb, home / f"{stem}.ipynb")  # saved under its own name, as a student's: the export cell zips it
        try:
            _execute(nb, home)
        except BaseException:
            offline.undo()
            raise
        runs: dict = {"blank": {}, "wrong": {}, "reference": {}, "executed": nb}
        for i, c in enumerate(nb.cells):
            m = CHECK_CALL.match(c.source.strip()) if c.cell_type == "code" else None
            if m:
                runs[kinds.get(i, "blank")].update(_check_results(nbformat.v4.new_notebook(cells=[c])))
        out[stem] = runs
    offline.undo()
    return out


@pytest.mark.slow
def test_unfilled_student_notebooks_run_offline_and_every_check_says_not_yet(editions, teaching_runs):
    """Each student notebook, blank, runs top to bottom with the network blocked; its prose has no MyST role or
    book-only sentence, its outputs no remote script (charts inline Vega), and every check says 'Not yet'."""
    for stem in course.TEACHING:
        nb = nbformat.read(editions / f"{stem}.ipynb", as_version=4)
        prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert not _markdown_roles(nb), f"{stem}: MyST left in the student notebook: {_markdown_roles(nb)[:5]}"
        leftover = [p for p in BOOK_ONLY_PHRASES if p in prose]
        assert not leftover, f"{stem}: book-only sentences in the student notebook: {leftover}"
        done = teaching_runs[stem]["executed"]
        errors = [o for c in done.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
        assert not errors, f"{stem}: {errors[:1]}"
        assert not _remote_scripts(done), f"{stem}: remote scripts in the outputs: {_remote_scripts(done)[:5]}"
        assert not _markdown_roles(done), f"{stem}: MyST in the outputs: {_markdown_roles(done)[:5]}"
        charts = [c for c in done.cells for o in c.get("outputs", []) if "vegaEmbed" in str(o.get("data", {}))]
        assert charts, f"{stem}: no chart drawn"
        results = teaching_runs[stem]["blank"]
        assert sorted(results) == sorted(_checked_in_master(stem))
        for name, text in results.items():
            assert not _passed(name, text), f"{stem} {name}: a blank answer passed"
            assert "Not yet" in text, f"{stem} {name}: the check did not say 'Not yet':\n{text}"


@pytest.mark.slow
def test_every_reference_solution_passes_its_checks(teaching_runs):
    for stem in course.TEACHING:
        results = teaching_runs[stem]["reference"]
        assert sorted(results) == sorted(_checked_in_master(stem))
        failed = {n: t for n, t in results.items() if not _passed(n, t)}
        assert not failed, f"{stem}: reference solutions failing their checks:\n{failed}"


@pytest.mark.slow
def test_a_plausible_wrong_answer_fails_each_check(teaching_runs):
    for stem in course.TEACHING:
        results = teaching_runs[stem]["wrong"]
        assert sorted(results) == sorted(_checked_in_master(stem))
        passed = [n for n, t in results.items() if _passed(n, t)]
        assert not passed, f"{stem}: wrong answers accepted by {passed}"
        assert all("Not yet" in t for t in results.values())


def _fill(nb, answers: dict[str, str]):
    """Put ``answers[exercise]`` into the answer cell before each ``grader.check("<exercise>")`` (others stay blank)."""
    pending = []
    for c in nb.cells:
        if c.cell_type == "code" and "otter_answer_cell" in c.metadata.get("tags", []):
            pending.append(c)
        m = CHECK_CALL.match(c.source.strip()) if c.cell_type == "code" else None
        if m:
            if m.group(1) in answers:
                pending[-1].source = answers[m.group(1)]
            pending = []
    return nb


@pytest.mark.slow
def test_graded_mode_scores_three_fake_submissions(editions, offline_kernel, tmp_path):
    """Local grading (``course.grade``, no Docker) with the autograder `make student` writes, hidden tests included:
    all right gets every point, all wrong none, the mixed one the points of its right exercise; no failure
    output shows an expected value."""
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    try:
        from course_wrong_answers import RIGHT_21, WRONG
    finally:
        sys.path.pop(0)
    stem = "21_seed_variation"
    zip_path = course.autograder_zip(stem, editions)
    import zipfile

    names = zipfile.ZipFile(zip_path).namelist()
    hidden_in_zip = [n for n in names if n.startswith("tests/")]
    assert sorted(hidden_in_zip) == sorted(f"tests/{e}.py" for e in _checked_in_master(stem))
    assert "hidden=True" in zipfile.ZipFile(zip_path).read("tests/draws-needed.py").decode()
    student = nbformat.read(editions / f"{stem}.ipynb", as_version=4)
    folder = tmp_path / "submissions"
    folder.mkdir()
    subs = {
        "all-right": RIGHT_21,
        "all-wrong": WRONG[stem],
        "mixed": {"two-seeds": RIGHT_21["two-seeds"], "draws-needed": WRONG[stem]["draws-needed"]},
    }
    for name, answers in subs.items():
        nb = _with_params(_fill(nbformat.from_dict(student), answers), FAST[stem])
        nbformat.write(nb, folder / f"{name}.ipynb")
    table = course.grade(folder, zip_path, tmp_path / "grades.csv").set_index("submission")
    assert (tmp_path / "grades.csv").is_file()
    assert not table["error"].astype(bool).any(), table["error"].tolist()
    possible = table.loc["all-right.ipynb", "possible"]
    assert possible > 0 and (table["possible"] == possible).all()
    assert table.loc["all-right.ipynb", "total"] == possible
    assert table.loc["all-wrong.ipynb", "total"] == 0
    mixed = table.loc["mixed.ipynb"]
    assert mixed["two-seeds"] == table.loc["all-right.ipynb", "two-seeds"] > 0 and mixed["draws-needed"] == 0
    assert 0 < mixed["total"] < possible


#: The exercises of page 20 the mixed submission answers right: 2 + 2 + 2 + 1 + 1 + 1 = 9 of the 16 points.
MIXED_20 = ("ece-by-hand", "constant-90", "monotone-auroc", "reverse-ranking", "coverage-below-10", "bin-edges")


@pytest.mark.slow
def test_graded_mode_scores_the_calibration_chapter(editions, offline_kernel, tmp_path):
    """Page 20 graded: the reference answers get 16 of 16, the plausible wrong answers 0, and a mix of six right
    exercises and five wrong ones the six's points, 9; no error for any of them."""
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    try:
        from course_wrong_answers import WRONG
    finally:
        sys.path.pop(0)
    stem = "20_calibration_vs_discrimination"
    right = {
        k: c.source
        for k, c in _answer_cells(nbformat.read(editions / "instructor" / f"{stem}.ipynb", 4), False).items()
    }
    subs = {
        "all-right": right,
        "all-wrong": WRONG[stem],
        "mixed": {k: (right[k] if k in MIXED_20 else WRONG[stem][k]) for k in right},
    }
    student = nbformat.read(editions / f"{stem}.ipynb", as_version=4)
    folder = tmp_path / "submissions"
    folder.mkdir()
    for name, answers in subs.items():
        nbformat.write(_with_params(_fill(nbformat.from_dict(student), answers), FAST[stem]), folder / f"{name}.ipynb")
    table = course.grade(folder, course.autograder_zip(stem, editions)).set_index("submission")
    assert not table["error"].astype(bool).any(), table["error"].tolist()
    assert table["total"].to_dict() == {"all-right.ipynb": 16, "all-wrong.ipynb": 0, "mixed.ipynb": 9}
    assert (table["possible"] == 16).all()


@pytest.mark.slow
def test_the_export_cell_writes_a_submission_that_grade_grades(editions, offline_kernel, tmp_path):
    """Two students fill page 21 (the reference answers; one right exercise and one plausible wrong one), save the
    notebook under its own name and run it top to bottom: the export cell (otter's ``grader.export``) writes
    ``<page>_<time>.zip`` holding the saved notebook and nothing else the grader reads; ``python -m
    selfconf.course grade`` on a folder of those zips scores them 2 of 2 and 1 of 2, with no error."""
    import shutil
    import zipfile

    import pandas as pd

    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    try:
        from course_wrong_answers import RIGHT_21, WRONG
    finally:
        sys.path.pop(0)
    stem = "21_seed_variation"
    student = nbformat.read(editions / f"{stem}.ipynb", as_version=4)
    folder = tmp_path / "submissions"
    folder.mkdir()
    subs = {
        "right": RIGHT_21,
        "mixed": {"two-seeds": RIGHT_21["two-seeds"], "draws-needed": WRONG[stem]["draws-needed"]},
    }
    for name, answers in subs.items():
        home = tmp_path / name
        home.mkdir()
        nb = _with_params(_fill(nbformat.from_dict(student), answers), FAST[stem])
        nbformat.write(nb, home / f"{stem}.ipynb")  # the student saves, then runs every cell
        _execute(nb, home)
        assert not [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
        made = sorted(home.glob(f"{stem}_*.zip"))
        assert len(made) == 1, sorted(p.name for p in home.iterdir())
        inside = zipfile.ZipFile(made[0]).namelist()
        assert [n for n in inside if n.endswith(".ipynb")] == [f"{stem}.ipynb"], inside
        assert ".OTTER_LOG" not in inside  # otter's pickled log is not handed in
        shutil.copyfile(made[0], folder / f"{name}.zip")
    out = tmp_path / "grades.csv"
    cmd = [sys.executable, "-m", "selfconf.course", "grade", str(folder), "--notebook", stem]
    cmd += ["--autograder", str(course.autograder_zip(stem, editions)), "--out", str(out), "--memory-gb", "3"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    table = pd.read_csv(out, keep_default_na=False).set_index("submission")
    assert table["total"].to_dict() == {"mixed.zip": 1, "right.zip": 2}, table.to_dict()
    assert (table["possible"] == 2).all() and not table["error"].astype(bool).any(), table["error"].tolist()
    assert table.loc["mixed.zip", "two-seeds"] == 1 and table.loc["mixed.zip", "draws-needed"] == 0


#: (attack, the line the error column must hold, or "" when the attack leaves no error)
ATTACK_ERRORS = {
    "noop": "",
    "patch": "",
    "overwrite": "",
    "print": "",
    "loop": "draws-needed: time limit",
    "memory": "two-seeds: memory limit",
}


@pytest.mark.slow
def test_graded_mode_cannot_be_disarmed_by_a_submission(editions, offline_kernel, tmp_path, monkeypatch):
    """Six fake submissions answer every exercise 0 and attack the grader: no-op the checks, patch numpy and the
    statistics, overwrite the test files and the package it imports and make that package unimportable (each
    submission gets its own fresh copy, so the two submissions graded after it are unharmed), print the
    hidden tests, loop forever in an answer cell, allocate memory without bound in another.  Each scores 0, the
    time-out and the memory exhaustion are recorded against their exercise, a crash costs only its exercise, and
    an honest submission graded with them keeps every point."""
    import shutil
    import zipfile

    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    try:
        from course_adversarial import ATTACKS, attacked
        from course_wrong_answers import RIGHT_21
    finally:
        sys.path.pop(0)
    stem = "21_seed_variation"
    zip_path = course.autograder_zip(stem, editions)
    assert f"reference/{stem}.ipynb" in zipfile.ZipFile(zip_path).namelist()
    grader_zip = tmp_path / "grader" / zip_path.name  # where the overwrite attack looks (ATTACK_ROOT)
    grader_zip.parent.mkdir()
    shutil.copyfile(zip_path, grader_zip)
    package = tmp_path / "grader" / "src"  # a copy of the package the attacks may overwrite
    shutil.copytree(ROOT / "src" / "selfconf", package / "selfconf", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(OFFLINE), str(package)]))
    monkeypatch.setenv("ATTACK_ROOT", str(tmp_path / "grader"))
    monkeypatch.setenv("ATTACK_PACKAGE_COPY", "1")
    student = nbformat.read(editions / f"{stem}.ipynb", as_version=4)
    folder = tmp_path / "submissions"
    folder.mkdir()
    for name in ATTACKS:
        nbformat.write(_with_params(attacked(nbformat.from_dict(student), name), FAST[stem]), folder / f"{name}.ipynb")
    crash = {"two-seeds": RIGHT_21["two-seeds"] + "1 / 0\n", "draws-needed": RIGHT_21["draws-needed"]}
    nbformat.write(_with_params(_fill(nbformat.from_dict(student), crash), FAST[stem]), folder / "zcrash.ipynb")
    nbformat.write(_with_params(_fill(nbformat.from_dict(student), RIGHT_21), FAST[stem]), folder / "zright.ipynb")
    table = course.grade(folder, grader_zip, tmp_path / "grades.csv", cell_timeout=30, memory=3 * 2**30)
    table = table.set_index("submission")
    print(table.to_string())
    assert (table["possible"] == 2).all()
    for name, error in ATTACK_ERRORS.items():
        row = table.loc[f"{name}.ipynb"]
        assert row["total"] == 0 and row["two-seeds"] == 0 and row["draws-needed"] == 0, (name, row.to_dict())
        if error:
            assert error in row["error"], (name, row["error"])
    crashed = table.loc["zcrash.ipynb"]
    assert crashed["two-seeds"] == 0 and crashed["draws-needed"] == 1, crashed.to_dict()
    assert "two-seeds: ZeroDivisionError" in crashed["error"]
    assert table.loc["zright.ipynb", "total"] == 2 and not table.loc["zright.ipynb", "error"]
    csv = (tmp_path / "grades.csv").read_text(encoding="utf-8")
    assert "draws-needed: time limit" in csv and "two-seeds: memory limit" in csv


# ------------------------------------------------------------------ launch buttons and published notebooks


@pytest.mark.book
def test_launch_buttons_open_notebooks_the_publishing_step_writes(built_book, tmp_path):
    from bs4 import BeautifulSoup

    tree = course.publish(tmp_path / "notebooks", ROOT)
    branch = course.notebooks_branch(ROOT)
    org_repo = course.repository_url(ROOT).split("github.com/")[-1]
    opened = {}
    for page in sorted((built_book / "book").glob("*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for a in soup.select("a[href]"):
            href = a["href"]
            for prefix in (f"https://colab.research.google.com/github/{org_repo}/blob/{branch}/",):
                if href.startswith(prefix):
                    opened.setdefault(page.stem, []).append(href[len(prefix) :])
            m = re.match(
                rf"https://mybinder\.org/v2/gh/{re.escape(org_repo)}/{branch}\?urlpath=(?:tree|lab/tree)(?:/|%2F)(.+)$",
                href,
            )
            if m:
                from urllib.parse import unquote

                opened.setdefault(page.stem, []).append(unquote(m.group(1)))
    for stem in ("20_calibration_vs_discrimination", "21_seed_variation", "04_result1", "05_result2"):
        assert stem in opened, f"no Colab/Binder button on {stem}"
    missing = sorted({p for paths in opened.values() for p in paths if not (tree / p).is_file()})
    assert not missing, f"launch buttons open files the notebooks branch would not have: {missing}"
    for stem in course.TEACHING:  # the teaching pages also open and offer the student edition
        assert f"student/{stem}.ipynb" in opened[stem]
        assert any((built_book / "_downloads").rglob(f"{stem}.ipynb")), f"{stem}: no student download"
    req = (tree / "binder" / "requirements.txt").read_text(encoding="utf-8")
    assert f"selfconf[course] @ git+{course.repository_url(ROOT)}@" in req
    first = nbformat.read(tree / "book" / "20_calibration_vs_discrimination.ipynb", as_version=4).cells[0]
    assert first.metadata.get("selfconf") == course.INSTALL_TAG


@pytest.mark.book
def test_teaching_pages_show_code_behind_toggles(built_book):
    from bs4 import BeautifulSoup

    for stem in course.TEACHING:
        soup = BeautifulSoup((built_book / "book" / f"{stem}.html").read_text(encoding="utf-8"), "html.parser")
        toggled = soup.select("details.hide.above-input")
        assert len(toggled) >= 8, f"{stem}: only {len(toggled)} code cells behind a toggle"
        code = " ".join(d.get_text() for d in toggled)
        assert "metrics." in code or "bootstrap." in code
        assert "Learning objectives" in soup.get_text()
        assert "BEGIN QUESTION" not in soup.get_text() and "ASSIGNMENT CONFIG" not in soup.get_text()


# ------------------------------------------------------------------ the launch environment (Binder, a fresh venv)

OFFLINE = ROOT / "tests" / "fixtures" / "offline"  # sitecustomize.py that blocks every non-local connection


def _publish_root(tmp: Path, students: Path | None = None) -> Path:
    """A minimal checkout for ``course.publish``: configuration, pins, one executed page, the student notebooks."""
    import shutil

    root = tmp / "checkout"
    (root / "book").mkdir(parents=True)
    (root / "_build" / "student").mkdir(parents=True)
    for name in ("pyproject.toml", "requirements.txt", "_config.yml", "_toc.yml"):
        shutil.copyfile(ROOT / name, root / name)
    nbformat.write(nbformat.v4.new_notebook(), root / "book" / "00_abstract.ipynb")
    for stem in course.TEACHING:
        if students is not None:
            shutil.copyfile(students / f"{stem}.ipynb", root / "_build" / "student" / f"{stem}.ipynb")
        else:
            nbformat.write(nbformat.v4.new_notebook(), root / "_build" / "student" / f"{stem}.ipynb")
    return root


def _repo2docker_pick(tree: Path, monkeypatch):
    """The buildpack repo2docker picks for ``tree`` (its own detection loop, as ``Repo2Docker.find_image``)."""
    from repo2docker.app import Repo2Docker

    app = Repo2Docker()
    monkeypatch.chdir(tree)  # repo2docker's buildpacks read the repository from the working directory
    for bp_class in app.buildpacks:
        bp = bp_class(base_image=app.base_image)
        if bp.detect():
            bp.platform = "linux/amd64"
            return bp
    return app.default_buildpack(base_image=app.base_image)


def test_repo2docker_resolves_python_311_for_the_published_tree(tmp_path, monkeypatch):
    """repo2docker's own buildpack detection (no image is built) reads the published tree: Python 3.11, the
    binder/requirements.txt installed into the kernel's environment; without runtime.txt it would not be 3.11."""
    pytest.importorskip("repo2docker")
    from packaging.specifiers import SpecifierSet

    tree = course.publish(tmp_path / "tree", _publish_root(tmp_path))
    assert (tree / "binder" / "runtime.txt").read_text().strip() == f"python-{course.PYTHON_VERSION}"
    bp = _repo2docker_pick(tree, monkeypatch)
    assert type(bp).__name__ == "PythonBuildPack"
    assert bp.python_version == "3.11" and bp._python_version_source == "runtime"
    import tomllib

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert bp.python_version in SpecifierSet(requires)
    dockerfile = bp.render()
    assert 'pip install --no-cache-dir -r "binder/requirements.txt"' in dockerfile
    assert "environment.py-3.11-" in " ".join(bp.get_build_script_files())
    req = (tree / "binder" / "requirements.txt").read_text()
    assert f"selfconf[course] @ git+{course.repository_url(ROOT)}@" in req
    assert "numpy==" in req and "otter-grader==7.0.0" in req
    readme = (tree / "README.md").read_text()
    assert "Colab" in readme and "3.11" in readme
    (tree / "binder" / "runtime.txt").unlink()  # the tree as it was: repo2docker's default Python, not 3.11
    assert _repo2docker_pick(tree, monkeypatch).python_version != "3.11"


@pytest.mark.slow
def test_published_student_notebook_runs_offline_in_a_fresh_311_venv(tmp_path, editions):
    """A fresh Python 3.11 venv installs the published tree's binder/requirements.txt (the package line
    pointing at a local wheel instead of the repository; the rest resolves from pip's cache), then runs the
    student notebook of page 21 top to bottom with every non-local connection blocked."""
    import shutil
    import zipfile

    tree = course.publish(tmp_path / "tree", _publish_root(tmp_path, editions))
    src = tmp_path / "src-copy"  # build from a copy: setuptools writes build/ and *.egg-info beside the sources
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copyfile(ROOT / name, src / name)
    shutil.copytree(ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    wheels = tmp_path / "wheels"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(src)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    wheel = next(wheels.glob("selfconf-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "selfconf/datasets/collection.csv.gz" in names
    assert "selfconf/course/grading.py" in names  # the exercise checks are rendered from its EXERCISES

    req = (tree / "binder" / "requirements.txt").read_text().splitlines()
    package = [i for i, line in enumerate(req) if line.startswith("selfconf[course] @ git+")]
    assert len(package) == 1
    req[package[0]] = f"selfconf[course] @ {wheel.resolve().as_uri()}"
    local_req = tmp_path / "requirements-local.txt"
    local_req.write_text("\n".join(req) + "\n")

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    version = subprocess.run([str(py), "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
    assert version.stdout.strip() == "(3, 11)"
    env = {k: v for k, v in os.environ.items() if k.startswith(("PIP_", "XDG_")) or k in ("PATH", "HOME")}
    env.update({"PATH": f"{env_dir / 'bin'}:{os.environ['PATH']}", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    r = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "-r", str(local_req)], capture_output=True, text=True, env=env
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]

    offline = {**env, "PYTHONPATH": str(OFFLINE), "HOME": str(tmp_path / "home"), "SELFCONF_CACHE": str(tmp_path / "c")}
    probe = subprocess.run(
        [str(py), "-c", "import urllib.request as u; u.urlopen('https://pypi.org', timeout=5)"],
        capture_output=True,
        text=True,
        env=offline,
    )
    assert probe.returncode != 0 and "network blocked" in probe.stderr, "the offline block does not hold"

    stem = "21_seed_variation"
    work = tmp_path / "student-home"
    work.mkdir()
    nb = _with_params(nbformat.read(tree / "student" / f"{stem}.ipynb", as_version=4), FAST[stem])
    nbformat.write(nb, work / f"{stem}.ipynb")
    runner = (
        "import nbformat, sys; from nbclient import NotebookClient; "
        "nb = nbformat.read(sys.argv[1], as_version=4); "
        "NotebookClient(nb, timeout=1800, kernel_name='python3', resources={'metadata': {'path': sys.argv[2]}})"
        ".execute(); "
        "nbformat.write(nb, sys.argv[1])"
    )
    r = subprocess.run(
        [str(py), "-c", runner, str(work / f"{stem}.ipynb"), str(work)],
        capture_output=True,
        text=True,
        env=offline,
        cwd=work,
        timeout=3600,
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-6000:]
    done = nbformat.read(work / f"{stem}.ipynb", as_version=4)
    assert not [o for c in done.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    results = _check_results(done)
    assert sorted(results) == sorted(_checked_in_master(stem)) and all("Not yet" in t for t in results.values())
    assert not _remote_scripts(done), _remote_scripts(done)


#: A script loaded from another host: an http(s) address of a .js file, or any address on a JavaScript CDN.
REMOTE_SCRIPT = re.compile(
    r"https?://(?:cdn\.jsdelivr\.net|unpkg\.com|cdnjs\.cloudflare\.com)[^\s\"')]*|https?://[^\s\"')]+\.js\b"
)


def _remote_scripts(nb) -> list[str]:
    """Remote script addresses (a CDN's Vega, require.js) in the outputs of an executed notebook."""
    found = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            for v in (o.get("data") or {}).values():
                text = v if isinstance(v, str) else "".join(v) if isinstance(v, list) else ""
                found += re.findall(
                    r"""(?:src=|import\(|paths:\s*\{[^}]*?)["']?(https?://[^"'\s)]+\.js[^"'\s)]*)""", text
                )
                found += re.findall(r"https?://cdn\.jsdelivr\.net[^\s\"')]*", text)
    return sorted(set(found))


@pytest.mark.book
def test_seed_variation_page_shows_the_papers_printed_interval_beside_the_spread(built_book):
    """Each frontier model's Table 1 interval as the paper prints it, visible in its own columns."""
    import re

    import yaml

    page = (built_book / "book" / "21_seed_variation.html").read_text(encoding="utf-8")
    shown = dict(re.findall(r'<span class="selfconf-printed" data-claim="([^"]+)"[^>]*>([^<]*)</span>', page))
    claims = {c["id"]: c for c in yaml.safe_load((ROOT / "data/paper/claims.yaml").read_text())["claims"]}
    expected = {k: c["printed"] for k, c in claims.items() if re.fullmatch(r"t1_[a-z]+_self_auroc_ci_(lo|hi)", k)}
    assert len(expected) == 18 and shown == expected
    assert "paper prints: low" in page and "paper prints: high" in page


def test_repo2docker_resolves_python_311_for_main(tmp_path, monkeypatch):
    """Binder launched on this repository's own branch (not the published tree) also gets Python 3.11: main's
    ``binder/`` carries a ``runtime.txt`` equal to the published tree's, and repo2docker's buildpack detection
    reads it (without it, repo2docker's default Python is older than the package's floor)."""
    pytest.importorskip("repo2docker")
    import shutil

    from packaging.specifiers import SpecifierSet

    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == f"python-{course.PYTHON_VERSION}"
    tree = tmp_path / "main"
    shutil.copytree(ROOT / "binder", tree / "binder")
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    bp = _repo2docker_pick(tree, monkeypatch)
    assert bp.python_version == "3.11" and bp._python_version_source == "runtime"
    import tomllib

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert bp.python_version in SpecifierSet(requires)
    (tree / "binder" / "runtime.txt").unlink()  # main as it was: repo2docker's default Python, not 3.11
    assert _repo2docker_pick(tree, monkeypatch).python_version != "3.11"


@pytest.mark.slow
def test_the_autograder_zip_holds_what_the_instructors_page_says(editions):
    """Every top-level file of the zip `make student` writes is named on page 27, and the zip's environment has the
    Python the page names (the launch environment's)."""
    import zipfile

    page = (ROOT / "book" / "27_for_instructors.md").read_text(encoding="utf-8")
    for stem in course.TEACHING:
        z = zipfile.ZipFile(course.autograder_zip(stem, editions))
        top = {n.split("/")[0] + ("/" if "/" in n else "") for n in z.namelist()}
        missing = sorted(t for t in top if f"`{t}`" not in page)
        assert not missing, f"{stem}: files in the autograder zip the page does not name: {missing}"
        env = z.read("environment.yml").decode()
        assert f"python={course.PYTHON_VERSION}" in env and f"Python {course.PYTHON_VERSION}" in page
        assert "requirements.txt" not in top and "`requirements.txt`" not in page


@pytest.mark.slow
def test_the_student_notebook_has_a_progress_line_and_a_check_all_cell(teaching_runs):
    for stem in course.TEACHING:
        done = teaching_runs[stem]["executed"]
        codes = [c for c in done.cells if c.cell_type == "code"]
        progress = [c for c in codes if c.source.strip().startswith("course.progress(")]
        assert len(progress) == 1, stem
        text = "".join(o.get("text", "") for o in progress[0].outputs)
        n = len(course.exercises(stem))
        assert text.startswith(f"Progress: 0 of {n} checked exercises pass; not yet: "), text
        check_all = [i for i, c in enumerate(codes) if c.source.strip() == "grader.check_all()"]
        assert check_all, f"{stem}: no check_all cell"
        export = [i for i, c in enumerate(codes) if grading.is_export_cell(c.source)]
        assert export == [len(codes) - 1] and check_all[-1] < export[0], f"{stem}: the export cell is not last"
        assert not [o for o in codes[-1].outputs if o.get("output_type") == "error"], codes[-1].outputs
        call = [ln for ln in codes[-1].source.splitlines() if ln.startswith("grader.export(")]
        page = re.sub(r"\s+", " ", (ROOT / "book" / "27_for_instructors.md").read_text(encoding="utf-8"))
        assert f"the export cell `{call[0]}`" in page, f"page 27 does not quote the export cell {call}"
        prose = "\n".join(c.source for c in done.cells if c.cell_type == "markdown")
        assert "QUESTION -->" not in prose and "24_bibliography.md" not in prose


@pytest.mark.book
def test_the_student_only_site_has_no_solution_and_opens_student_notebooks(built_book):
    """``make book EDITION=student``'s site: the teaching pages show no reference solution, no check and no written
    reference answer, keep the prose's numbers, and their launch buttons open the student branch, whose tree
    (``publish --edition student``) holds the student notebooks at those paths."""
    from bs4 import BeautifulSoup

    from selfconf.book import build

    site = build.build_student_site(ROOT)
    branch = course.student_branch(ROOT)
    for stem in course.TEACHING:
        html = (site / "book" / f"{stem}.html").read_text(encoding="utf-8")
        soup = BeautifulSoup(html, "html.parser")
        text = soup.get_text()
        master = (ROOT / "notebooks" / f"{stem}.py").read_text(encoding="utf-8")
        solutions = [
            ln.rsplit("# SOLUTION", 1)[0].strip() for ln in master.splitlines() if ln.rstrip().endswith("# SOLUTION")
        ]
        prose = "\n".join(
            c.source for c in jupytext.read(ROOT / "notebooks" / f"{stem}.py").cells if c.cell_type == "markdown"
        )
        shown = [s for s in solutions if s and s in text and s not in prose]  # a statement may quote a line
        assert not shown, f"{stem}: reference solutions on the student-only site: {shown[:3]}"
        assert "Show the reference solution" not in text and "Reference answer" not in text and "verify." not in text
        instructor = BeautifulSoup((built_book / "book" / f"{stem}.html").read_text(encoding="utf-8"), "html.parser")
        assert "Show the reference solution" in instructor.get_text()  # the instructor edition keeps them
        assert re.search(rf"/blob/{re.escape(branch)}/book/{stem}\.ipynb", html), f"{stem}: launch button"
    assert (
        (built_book / "book" / "20_calibration_vs_discrimination.html")
        .read_text(encoding="utf-8")
        .count(f"/blob/{course.notebooks_branch(ROOT)}/book/")
    )
    tree = course.publish(ROOT / "_build" / "notebooks-student-test", ROOT, edition="student")
    try:
        for stem in course.TEACHING:
            opened = nbformat.read(tree / "book" / f"{stem}.ipynb", as_version=4)
            assert sorted(_check_results(opened)) == sorted(_checked_in_master(stem))  # the student notebook
            assert "# SOLUTION" not in "\n".join(c.source for c in opened.cells)
    finally:
        import shutil

        shutil.rmtree(tree, ignore_errors=True)
