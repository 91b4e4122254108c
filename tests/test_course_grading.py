"""Graded mode outside the submission's reach (``selfconf.course.grading``), the parts that need no kernel: the
exercise table agrees with the master notebooks' checks, the export cell writes plain values that read back as the
values themselves, and nothing read back is executable.  The kernels' part (six attacks, time-out, memory,
crash) is ``test_graded_mode_cannot_be_disarmed_by_a_submission`` in tests/test_course.py."""

from __future__ import annotations

import ast
import json
import re
import types
from pathlib import Path

import nbformat
import numpy as np
import pytest

from selfconf import course
from selfconf.course import grading, verify
from selfconf.course.answers import number

ROOT = Path(__file__).resolve().parents[1]


def _master_checks(stem: str) -> dict[str, dict]:
    """{exercise: its public check as the master notebook writes it}: the test function's arguments, the verify
    function it calls and the two messages of its TEST CONFIG, read from ``notebooks/<stem>.py`` (not from the
    package, which renders its checks from ``grading.EXERCISES``)."""
    import jupytext

    found, current = {}, None
    for c in jupytext.read(ROOT / "notebooks" / f"{stem}.py").cells:
        if c.cell_type == "raw" and c.source.startswith("# BEGIN QUESTION"):
            current = re.search(r"name: (\S+)", c.source).group(1)
        elif c.cell_type == "code" and "BEGIN TEST CONFIG" in c.source and "hidden: true" not in c.source:
            tree = ast.parse(c.source)
            fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
            call = next(n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute))
            config = dict(re.findall(r'^(success_message|failure_message): "(.*)"$', c.source, flags=re.M))
            found[current] = {"args": [a.arg for a in fn.args.args], "check": call.func.attr} | config
    return found


def test_the_exercise_table_is_the_masters_checks():
    """Every checked exercise of a master notebook is declared once in ``grading.EXERCISES`` with the same
    verify function, variables and messages as its test cell; the check files are rendered from that."""
    for stem in course.TEACHING:
        master = _master_checks(stem)
        assert sorted(grading.EXERCISES[stem]) == sorted(master) == course.exercises(stem)
        for name, ex in grading.EXERCISES[stem].items():
            m = master[name]
            assert m["check"] == ex.check and callable(getattr(verify, ex.check))
            assert m["args"] == list(ex.answers + ex.inputs), (stem, name, m["args"])
            assert (m["success_message"], m["failure_message"]) == (ex.success, ex.failure), (stem, name)
            tree = ast.parse(grading.check_source(stem, name))
            fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
            assert [a.arg for a in fn.args.args] == m["args"]


def test_rendered_checks_are_restored_each_time_and_unknown_notebooks_named(tmp_path):
    folder = course.checks_dir("21_seed_variation")
    f = folder / "two-seeds.py"
    f.write_text("tampered", encoding="utf-8")
    (folder / "stray.py").write_text("x = 1", encoding="utf-8")
    assert course.checks_dir("21_seed_variation") == folder
    assert f.read_text(encoding="utf-8") == grading.check_source("21_seed_variation", "two-seeds")
    assert sorted(p.name for p in folder.glob("*.py")) == ["draws-needed.py", "two-seeds.py"]
    assert (course.CHECKS_DIR / "20_calibration_vs_discrimination" / "ece-by-hand.py").is_file()
    with pytest.raises(FileNotFoundError, match="no exercise checks for notebook 'nope'.*21_seed_variation"):
        course.grader("nope")


def _export(values: dict, probes: list) -> dict:
    """Run the export cell's source on ``values`` as a kernel would; return what it wrote, read as JSON."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "x.json"
        env = dict(values)
        exec(grading.export_source(tuple(values), probes, str(out)), env)  # noqa: S102 - the cell under test
        assert "_selfconf_export" not in env  # it cleans up after itself
        return json.loads(out.read_text(encoding="utf-8"))


def test_exported_answers_read_back_as_the_same_values():
    grid = np.linspace(0, 1, 11)
    conf = np.array([0.2, 0.9, 0.9])
    got = _export(
        {
            "x": np.float32(0.25),
            "n": np.int64(7),
            "arr": np.array([0.5, 0.25]),
            "lst": [1, 2.5],
            "blank": ...,
            "names": {"resolution", "reliability"},
            "ci": types.SimpleNamespace(low=0.61, high=0.72),
            "f": lambda c: np.sqrt(c),
            "flag": True,
        },
        [grid.tolist(), conf.tolist()],
    )
    back = {k: grading.decode(v, [grid.tolist(), conf.tolist()]) for k, v in got.items()}
    assert back["x"] == 0.25 and back["n"] == 7 and back["lst"] == [1, 2.5] and back["arr"] == [0.5, 0.25]
    assert back["blank"] is Ellipsis and back["names"] == {"resolution", "reliability"}
    assert (back["ci"].low, back["ci"].high) == (0.61, 0.72)
    np.testing.assert_allclose(back["f"](grid), np.sqrt(grid))  # numpy's own sqrt, the outside reference
    np.testing.assert_allclose(back["f"](conf), np.sqrt(conf))
    with pytest.raises(AssertionError, match="did not probe"):
        back["f"](np.array([0.3]))
    assert back["flag"] is None  # a bool is not a number: the check says "not a number yet"
    # the checks accept the read-back values exactly as they accept the originals
    assert number("x", back["x"], 0.25, decimals=4) == 0.25


def test_a_missing_variable_and_an_unreadable_value_export_as_data():
    class Evil:
        def tolist(self):
            raise RuntimeError("no")

    got = _export({"evil": Evil()}, [])
    assert got["evil"] == {"unsupported": "RuntimeError"}
    assert grading.decode(got["evil"]) is None


def test_decode_never_runs_what_it_reads():
    """Strings that look like code stay strings; an unknown shape is None (the check then says 'not a number')."""
    assert grading.decode({"str": "__import__('os').system('false')"}) == "__import__('os').system('false')"
    assert grading.decode({"code": "1/0"}) is None and grading.decode("1/0") is None
    assert grading.decode({"value": "1/0"}) == "1/0"
    with pytest.raises(AssertionError):
        number("x", grading.decode({"value": "1/0"}), 0.5)


def test_parameters_are_read_as_literals_never_run(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("seed = 3\nn_boot = __import__('os').getpid()")])
    nb.cells[0].metadata["tags"] = ["parameters"]
    with pytest.raises(ValueError, match=r"sub.ipynb: cell 0 \(parameters\), line 2: n_boot is not a literal"):
        grading.submission_parameters(nb, tmp_path / "sub.ipynb")
    nb.cells[0].source = "seed = 3\nimport os"
    with pytest.raises(ValueError, match="line 2: not `name = literal`"):
        grading.submission_parameters(nb, "sub.ipynb")


def test_points_are_the_hidden_tests_points():
    text = "@test_case(points=0, hidden=False)\n@test_case(points=2, hidden=True)\n@test_case(points=1, hidden=True)"
    assert grading.hidden_points({"tests/ece-by-hand.py": text, "tests/x.py": ""}) == {"ece-by-hand": 3.0, "x": 0.0}


def test_the_export_and_feedback_cells_are_recognised_and_nothing_else():
    """otter's export cell (a graded run has no notebook file to zip), ``check_all`` and the progress line (feedback
    only) are skipped by grading; a cell that also does anything else runs and its errors count."""
    assert grading.is_export_cell(
        "# Save your notebook first, then run this cell.\ngrader.export(pdf=False, ignore_log=True)"
    )
    assert grading.is_export_cell("grader.export()")
    assert not grading.is_export_cell("grader.export(pdf=False)\nimport os")
    assert not grading.is_export_cell("x = grader.export(pdf=False)")
    assert not grading.is_export_cell("grader.export(pdf=False); os.remove('tests')")
    assert not grading.is_export_cell("grader.check_all()")
    assert grading.is_feedback_cell("grader.check_all()")
    assert grading.is_feedback_cell('# how far am I?\ncourse.progress("20_calibration_vs_discrimination", globals())')
    assert not grading.is_feedback_cell("grader.check_all()\nx = 1")
    assert not grading.is_feedback_cell('course.progress("21_seed_variation", globals()); open("x", "w")')
    assert not grading.is_feedback_cell("grader.export()")


def _zip(path, members: dict[str, str]):
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return path


def test_a_submitted_zip_gives_its_one_notebook_or_a_sentence(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    text = nbformat.writes(nb)
    ok = _zip(
        tmp_path / "ok.zip",
        {
            "21_seed_variation.ipynb": text,
            ".ipynb_checkpoints/21_seed_variation-checkpoint.ipynb": "{}",
            ".OTTER_LOG": "\x80",
        },
    )
    assert grading.read_submission(ok).cells[0].source == "x = 1"
    (tmp_path / "plain.ipynb").write_text(text, encoding="utf-8")
    assert grading.read_submission(tmp_path / "plain.ipynb").cells[0].source == "x = 1"
    empty = _zip(tmp_path / "empty.zip", {"notes.txt": "hi"})
    with pytest.raises(ValueError, match=r"empty\.zip: a submitted zip must hold exactly one notebook .* none"):
        grading.read_submission(empty)
    two = _zip(tmp_path / "two.zip", {"a.ipynb": text, "b/b.ipynb": text})
    with pytest.raises(ValueError, match=r"two\.zip: .* it holds a\.ipynb, b/b\.ipynb"):
        grading.read_submission(two)
    (tmp_path / "fake.zip").write_text("not a zip", encoding="utf-8")
    with pytest.raises(ValueError, match=r"fake\.zip: not a zip file"):
        grading.read_submission(tmp_path / "fake.zip")
    monkeypatch.setattr(grading, "MAX_NOTEBOOK_BYTES", 100)
    with pytest.raises(ValueError, match=r"ok\.zip: 21_seed_variation\.ipynb is 0 MB uncompressed, over the 0 MB"):
        grading.read_submission(ok)


def test_an_unreadable_submission_is_a_row_with_its_error_and_the_class_is_graded(tmp_path):
    """A zip without a notebook and a file that is not a notebook get 0 and a sentence in ``error``; no kernel is
    started for them and nothing raises."""
    ref = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("n_boot = 300")])
    ref.cells[0].metadata["tags"] = ["parameters"]
    autograder = _zip(
        tmp_path / "ag.zip",
        {
            "reference/21_seed_variation.ipynb": nbformat.writes(ref),
            "tests/two-seeds.py": "@test_case(points=1, hidden=True)",
            "tests/draws-needed.py": "@test_case(points=1, hidden=True)",
        },
    )
    subs = tmp_path / "subs"
    subs.mkdir()
    _zip(subs / "nozip-notebook.zip", {"readme.txt": "x"})
    (subs / "broken.ipynb").write_text("{not json", encoding="utf-8")
    table = grading.grade_isolated(subs, autograder, tmp_path / "g.csv").set_index("submission")
    assert table["total"].to_dict() == {"broken.ipynb": 0.0, "nozip-notebook.zip": 0.0}
    assert (table["possible"] == 2).all()
    assert table.loc["nozip-notebook.zip", "error"].startswith("nozip-notebook.zip: a submitted zip must hold")
    assert table.loc["broken.ipynb", "error"].startswith("broken.ipynb: not a readable notebook")
