"""Graded mode outside the submission's reach (``selfconf.course.grading``), the parts that need no kernel: the
exercise table agrees with the shipped checks, the export cell writes plain values that read back as the
values themselves, and nothing read back is executable.  The kernels' part (six attacks, time-out, memory,
crash) is ``test_graded_mode_cannot_be_disarmed_by_a_submission`` in tests/test_course.py."""

from __future__ import annotations

import ast
import json
import types

import nbformat
import numpy as np
import pytest

from selfconf import course
from selfconf.course import grading, verify
from selfconf.course.answers import number


def _check_signature(stem: str, exercise: str) -> tuple[list[str], str]:
    """(the arguments of the otter test function, the verify function it calls) of a shipped check file."""
    tree = ast.parse((course.CHECKS_DIR / stem / f"{exercise}.py").read_text(encoding="utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    call = next(n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute))
    return [a.arg for a in fn.args.args], call.func.attr


def test_the_exercise_table_is_the_shipped_checks():
    """Every checked exercise is graded, with the same verify function and the same variables as its check."""
    for stem in course.TEACHING:
        assert sorted(grading.EXERCISES[stem]) == course.exercises(stem)
        for name, ex in grading.EXERCISES[stem].items():
            args, check = _check_signature(stem, name)
            assert check == ex.check and callable(getattr(verify, ex.check))
            assert args == list(ex.answers + ex.inputs), (stem, name, args)


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
