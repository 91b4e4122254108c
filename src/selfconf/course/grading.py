"""Graded mode that a submission cannot disarm: its notebook runs in a kernel of its own, the judge in another.

:func:`grade_isolated` grades a folder of submitted notebooks of one teaching notebook in three steps:

1. **Judges first.** For every distinct set of parameters the submissions use (the literal values of their
   ``parameters`` cell), a *judge kernel* executes the reference (instructor) notebook of the autograder zip
   with those parameters, imports the exercise checks (:mod:`selfconf.course.verify`) and everything they use,
   and waits.  All of this happens before any submitted code runs, so nothing a submission later writes to disk
   (a test file, the package, numpy) reaches a judge: its modules are already in memory.
2. **Each submission in its own kernel**, in an empty temporary folder, with a memory limit (``RLIMIT_DATA``,
   set by the kernel's own process before it starts: :mod:`selfconf.course.kernel`) and a time limit per cell
   and per notebook, importing ``selfconf`` from a fresh copy of the package written for it alone (from the
   bytes the grader read before any submission ran), so a submission that rewrites the package it can see
   damages only its own copy, never a later submission's.  Each ``grader.check("<exercise>")`` cell is
   replaced by an *export cell* that writes the exercise's answers as
   plain values (numbers, lists, strings, an interval's two ends, a function's values at the judge's probe
   points) to JSON.  A cell that times out, exhausts memory or kills its kernel is skipped and the notebook is
   rerun from the top in a fresh kernel (at most :data:`MAX_RESTARTS` times), so it costs its own exercise only.
3. **Judging on plain values.** The judge kernel reads the exported JSON (values only: nothing executable) and
   calls each exercise's check with those answers and *its own* inputs (the reference run's ``conf_a``,
   ``rows``, ...): the expected values are recomputed there from the notebook's inputs.  An exercise scores
   the points of its hidden test in the autograder when its check passes and none of its own cells (its answer
   cell and any cell added before its check) raised an error, timed out or ran out of memory; 0 otherwise.

Reference: otter-grader documentation, "Grading Locally" and "Otter Grade" (hidden tests graded outside the
student's environment, one container per submission); nbclient documentation ("Executing notebooks").

Example::

    table = grade_isolated("submissions/", "_build/student/autograder/21_seed_variation-autograder.zip")
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import tempfile
import time
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "EXERCISES",
    "MAX_RESTARTS",
    "Exercise",
    "check_source",
    "check_files",
    "hidden_points",
    "submission_parameters",
    "export_source",
    "is_export_cell",
    "is_feedback_cell",
    "read_submission",
    "decode",
    "grade_isolated",
    "package_snapshot",
    "write_package",
]

#: How many times a submission's notebook is rerun from the top after a cell timed out or exhausted memory.
MAX_RESTARTS = 3
#: Marker of the judge's result line in its output.
_RESULT = "SELFCONF-JUDGE-RESULT "
CHECK_CELL = re.compile(r'^grader\.check\("([^"]+)"\)\s*$')
#: otter's export cell: one ``grader.export(...)`` call, comment lines aside.
EXPORT_CALL = re.compile(r"^grader\.export\([^()]*\)$")
#: The largest notebook read from a submitted zip, uncompressed (bytes).
MAX_NOTEBOOK_BYTES = 200 * 2**20


@dataclass(frozen=True)
class Exercise:
    """One graded exercise: its check in :mod:`selfconf.course.verify`, the variables the student writes
    (exported from the submission), the inputs the check recomputes from (taken from the judge's run) and
    the two messages ``grader.check`` shows (``success``, ``failure``)."""

    check: str
    answers: tuple[str, ...]
    inputs: tuple[str, ...]
    success: str = ""
    failure: str = ""


def _ex(check: str, answers: str, inputs: str, success: str, failure: str) -> Exercise:
    return Exercise(check, tuple(answers.split()), tuple(inputs.split()), success, failure)


#: The graded exercises of each teaching notebook: the one declaration of each check.  The otter test files
#: are rendered from it (:func:`check_files`); ``make student`` fails when ``otter assign`` writes anything
#: else from the master notebook's test cells, and ``tests/test_course_grading.py`` compares it with them.
EXERCISES: dict[str, dict[str, Exercise]] = {
    "20_calibration_vs_discrimination": {
        "ece-by-hand": _ex(
            "ece_by_hand",
            "ece_hand n_bin acc_bin",
            "conf_a correct",
            "Right: your bins and your ECE agree with metrics.ece(conf_a, correct).",
            "Not yet: n_bin counts the answers in each of the ten bins, acc_bin is the share correct in each (0 "
            "when empty), and ece_hand weights each bin's |mean confidence - accuracy| by its share of answers.",
        ),
        "constant-90": _ex(
            "constant_90",
            "citl_90 ece_90 brier_90 auroc_90",
            "ex_c ex_y",
            "Right: all four agree with selfconf.metrics.",
            "Not yet: one answer in one bin gives ECE = |CITL|; the Brier score averages (c - y)^2 over right AND "
            "wrong answers; every pair is a tie.",
        ),
        "monotone-auroc": _ex(
            "monotone_auroc",
            "my_transform conf_after ece_after auroc_after",
            "conf_a correct",
            "Right: the ranking and so the AUROC are unchanged, the ECE is not.",
            "Not yet: the transform must keep every pair of distinct values of [0, 1] in the same order (and "
            "distinct), map 0 and 1 into [0, 1], and change the ECE; ece_after and auroc_after are computed on "
            "conf_after.",
        ),
        "reverse-ranking": _ex(
            "reverse_ranking",
            "conf_rev",
            "conf_a correct",
            "Right: the same CITL as model A, and the AUROC is one minus A's.",
            "Not yet: conf_rev should be 1 - conf_a moved by one constant so that its mean equals conf_a's mean.",
        ),
        "coverage-below-10": _ex(
            "coverage_below_10",
            "coverage_below_10",
            "score_c y_rc coverages",
            "Right: above that coverage model C is wrong on 10 % or more of what it answers.",
            "Not yet: look for the LARGEST coverage on the grid whose risk is below 0.10 (answering more is "
            "better), for model C.",
        ),
        "bin-edges": _ex(
            "bin_edges",
            "ece_upper ece_lower edge_ratio",
            "heap_c heap_y",
            "Right: the same rows, two edge rules, two different ECEs.",
            "Not yet: metrics.ece takes edge='upper' or edge='lower'; the ratio is larger / smaller.",
        ),
        "equal-mass-bins": _ex(
            "equal_mass_bins",
            "n_mass_bins",
            "heap_c heap_y",
            "Right: tied confidences stay in one bin, so a spike swallows several quantiles.",
            "Not yet: count the occupied bins that metrics.reliability_bins returns; quantiles that fall inside one "
            "spike are the same edge.",
        ),
        "brier-decomposition": _ex(
            "brier_decomposition",
            "rel_b res_b unc_b",
            "conf_b correct",
            "Right: your three terms add up to model B's Brier score.",
            "Not yet: reliability compares each stated value with the accuracy of ITS group; resolution compares "
            "the group accuracies with the overall accuracy.",
        ),
        "constant-brier": _ex(
            "constant_brier",
            "brier_const p_one_minus_p zero_terms",
            "conf_const correct",
            "Right: only the uncertainty is left, p(1 - p).",
            "Not yet: with one group whose stated value equals its accuracy, which terms vanish? Uncertainty "
            "depends on the questions only.",
        ),
        "isotonic-ties": _ex(
            "isotonic_ties",
            "n_levels_fit auroc_fit",
            "conf_b correct",
            "Right: fewer levels than model B states, and a different AUROC.",
            "Not yet: count the distinct values AFTER the fit, and score the fitted values, not the stated ones.",
        ),
        "mmlu-lab": _ex(
            "mmlu_lab",
            "wrong_share_80 auroc_gpt4o",
            "mmlu_graded",
            "Right: compare it with 1 - the mean confidence of those answers.",
            "Not yet: keep only the answers with confidence >= 0.8 before taking the share wrong; the AUROC uses "
            "all of the model's answers.",
        ),
    },
    "21_seed_variation": {
        "two-seeds": _ex(
            "two_seeds",
            "ci_seed_1 ci_seed_2 low_shift",
            "rows n_boot",
            "Right: same rows, same estimate, two seeds, two intervals.",
            "Not yet: two calls of bootstrap.auroc_ci on google's rows with the same n_boot, rng=1 and rng=2.",
        ),
        "draws-needed": _ex(
            "draws_needed",
            "draws_needed",
            "google_low google_high",
            "Right: halving the error costs four times the draws.",
            "Not yet: the SD falls like 1 / sqrt(draws); find the smallest whole number of draws with "
            "endpoint_mc_sd(google_low, google_high, draws) <= 0.0005.",
        ),
    },
}


def check_source(stem: str, exercise: str) -> str:
    """The otter-grader test file of one exercise, as ``otter assign`` writes it for the student notebook.

    Definition: one public ``test_case`` (0 points) with the exercise's success and failure messages, whose
    test function takes the exercise's answers then its inputs and calls ``verify.<check>`` with them.  The
    hidden, pointed case lives only in the autograder zip.

    Reference: otter-grader documentation, "Exception-based test files" (``otter.test_files.test_case``).

    Example:

    >>> src = check_source("21_seed_variation", "draws-needed")
    >>> src.splitlines()[4], src.splitlines()[-2].strip()
    ('name = "draws-needed"', 'verify.draws_needed(draws_needed, google_low, google_high)')
    """
    ex = EXERCISES[stem][exercise]
    for text in (ex.success, ex.failure):
        if '"' in text or "\\" in text or "\n" in text:
            raise ValueError(f"{stem}/{exercise}: a check message may not hold a quote, backslash or newline: {text!r}")
    args = ", ".join(ex.answers + ex.inputs)
    return (
        f'from otter.test_files import test_case\n\nOK_FORMAT = False\n\nname = "{exercise}"\npoints = None\n\n'
        f"@test_case(points=0, hidden=False, \n"
        f'    success_message="{ex.success}", \n'
        f'    failure_message="{ex.failure}")\n'
        f"def test_{ex.check}({args}):\n"
        f"    from selfconf.course import verify\n"
        f"    verify.{ex.check}({args})\n\n"
    )


def check_files(stem: str) -> dict[str, str]:
    """``{"<exercise>.py": source}``: every otter test file of a teaching notebook (:func:`check_source`).

    Example:

    >>> sorted(check_files("21_seed_variation"))
    ['draws-needed.py', 'two-seeds.py']
    """
    if stem not in EXERCISES:
        raise KeyError(f"no exercise checks for notebook {stem!r} (known: {', '.join(sorted(EXERCISES))})")
    return {f"{name}.py": check_source(stem, name) for name in sorted(EXERCISES[stem])}


def hidden_points(tests: Mapping[str, str]) -> dict[str, float]:
    """Points of each exercise: the sum of ``points=`` of the hidden ``test_case`` s of its otter test file.

    ``tests`` maps a test file's name (``tests/<exercise>.py`` in the autograder zip) to its text.

    >>> hidden_points({"tests/a.py": "@test_case(points=0, hidden=False)\\n@test_case(points=2, hidden=True)"})
    {'a': 2.0}
    """
    out = {}
    for name, text in tests.items():
        found = re.findall(r"@test_case\(\s*points\s*=\s*([0-9.]+)\s*,\s*hidden\s*=\s*True", text)
        out[Path(name).stem] = float(sum(float(p) for p in found))
    return out


def submission_parameters(nb, path: str | os.PathLike = "") -> dict[str, Any]:
    """The literal values of the cell tagged ``parameters`` of a notebook: ``{name: value}``.

    Only ``name = <Python literal>`` lines count (read with :func:`ast.literal_eval`, never executed); any other
    statement there is a ``ValueError`` naming the file, the cell and the line.

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("n_boot = 300  # draws")])
    >>> nb.cells[0].metadata["tags"] = ["parameters"]
    >>> submission_parameters(nb)
    {'n_boot': 300}
    """
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code" or "parameters" not in c.get("metadata", {}).get("tags", []):
            continue
        out: dict[str, Any] = {}
        tree = ast.parse(c.source)
        for node in tree.body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                raise ValueError(f"{path}: cell {i} (parameters), line {node.lineno}: not `name = literal`")
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                raise ValueError(
                    f"{path}: cell {i} (parameters), line {node.lineno}: {node.targets[0].id} is not a literal"
                ) from None
        return out
    return {}


def is_export_cell(source: str) -> bool:
    """Whether a code cell is the notebook's export cell: one ``grader.export(...)`` call, comments aside.

    Grading skips it (it zips the notebook file for the student to hand in; a graded run has no such file).

    >>> is_export_cell("# Save your notebook first\\ngrader.export(pdf=False)"), is_export_cell("x = 1")
    (True, False)
    """
    lines = [ln.strip() for ln in source.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    return len(lines) == 1 and bool(EXPORT_CALL.match(lines[0]))


#: Cells for the student's own feedback, skipped by grading: otter's ``check_all`` and the progress line.
FEEDBACK_CELL = re.compile(r'^(grader\.check_all\(\)|course\.progress\("[\w-]+", globals\(\)\))$')


def is_feedback_cell(source: str) -> bool:
    """Whether a code cell is only the student's feedback: ``grader.check_all()`` or the progress line
    ``course.progress("<stem>", globals())``, exactly (comments aside).  Grading skips it: it scores nothing,
    and it reads the public checks, which a submission graded earlier on the same machine may have changed.

    >>> is_feedback_cell("grader.check_all()"), is_feedback_cell('course.progress("21_seed_variation", globals())')
    (True, True)
    >>> is_feedback_cell("grader.check_all(); import os")
    False
    """
    lines = [ln.strip() for ln in source.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    return len(lines) == 1 and bool(FEEDBACK_CELL.match(lines[0]))


def _skipped(cell) -> bool:
    """A code cell grading does not run: the export cell or a feedback cell."""
    return cell.cell_type == "code" and (is_export_cell(cell.source) or is_feedback_cell(cell.source))


def read_submission(path: str | os.PathLike):
    """The submitted notebook at ``path``: an ``.ipynb`` file, or the zip the notebook's export cell wrote
    (otter's ``Notebook.export``), which must hold exactly one ``.ipynb`` (checkpoint copies aside).

    Only the notebook is read from a zip (never otter's log or any other file), at most
    :data:`MAX_NOTEBOOK_BYTES` uncompressed; anything else is a ``ValueError`` naming the file.

    >>> import io, zipfile, tempfile, nbformat, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with zipfile.ZipFile(d / "s.zip", "w") as z:
    ...     z.writestr("21_seed_variation.ipynb", nbformat.writes(nbformat.v4.new_notebook()))
    >>> read_submission(d / "s.zip").nbformat
    4
    """
    import nbformat

    p = Path(path)
    if p.suffix.lower() != ".zip":
        return nbformat.read(p, as_version=4)
    try:
        z = zipfile.ZipFile(p)
    except zipfile.BadZipFile:
        raise ValueError(f"{p}: not a zip file") from None
    with z:
        found = [
            i
            for i in z.infolist()
            if i.filename.lower().endswith(".ipynb")
            and not i.is_dir()
            and ".ipynb_checkpoints/" not in i.filename
            and not i.filename.startswith("__MACOSX/")
        ]
        if len(found) != 1:
            names = ", ".join(i.filename for i in found) or "none"
            raise ValueError(f"{p}: a submitted zip must hold exactly one notebook (.ipynb); it holds {names}")
        if found[0].file_size > MAX_NOTEBOOK_BYTES:
            raise ValueError(
                f"{p}: {found[0].filename} is {found[0].file_size / 2**20:.0f} MB uncompressed, over the "
                f"{MAX_NOTEBOOK_BYTES / 2**20:.0f} MB a submitted notebook may have"
            )
        return nbformat.reads(z.read(found[0]).decode("utf-8"), as_version=4)


def export_source(names: tuple[str, ...], probes: list, out: str) -> str:
    """Source of the cell that writes the variables ``names`` of the student's kernel to the JSON file ``out``.

    Each value becomes plain data (:func:`decode` reads it back): ``{"blank": true}`` for ``...``, ``{"value":
    ...}`` for numbers and arrays (``tolist``), ``{"set": [...]}``, ``{"str": ...}``, ``{"interval": [low,
    high]}`` for an object with ``low`` and ``high``, ``{"calls": [f(p) for p in probes]}`` for a function, and
    ``{"missing": true}`` or ``{"unsupported": type}`` otherwise.  It runs in the student's kernel, so it trusts
    nothing there: whatever it writes is only ever read as data.

    >>> "json.dump" in export_source(("x",), [], "x.json")
    True
    """
    return f"""# exported for grading
def _selfconf_export(_names={list(names)!r}, _probes={probes!r}, _out={out!r}):
    import json, numbers
    def plain(v):
        if v is Ellipsis:
            return {{"blank": True}}
        if isinstance(v, str):
            return {{"str": v}}
        if isinstance(v, (set, frozenset)):
            return {{"set": sorted(str(x) for x in v)}}
        if hasattr(v, "low") and hasattr(v, "high"):
            return {{"interval": [float(v.low), float(v.high)]}}
        if callable(v) and not hasattr(v, "tolist"):
            import numpy
            out = []
            for p in _probes:
                try:
                    out.append(numpy.asarray(v(numpy.asarray(p, dtype=float)), dtype=float).tolist())
                except Exception as e:
                    out.append({{"error": type(e).__name__}})
            return {{"calls": out}}
        if isinstance(v, bool) or v is None:
            return {{"unsupported": type(v).__name__}}
        if isinstance(v, numbers.Real):
            return {{"value": float(v)}}
        if hasattr(v, "tolist"):
            return {{"value": v.tolist()}}
        if isinstance(v, (list, tuple)):
            return {{"value": [plain(x).get("value") for x in v]}}
        return {{"unsupported": type(v).__name__}}
    g = globals()
    got = {{}}
    for n in _names:
        try:
            got[n] = plain(g[n]) if n in g else {{"missing": True}}
        except Exception as e:
            got[n] = {{"unsupported": type(e).__name__}}
    with open(_out, "w") as f:
        json.dump(got, f)
_selfconf_export()
del _selfconf_export"""


class _Replay:
    """A student's function replayed from its exported values: called with the k-th probe, it returns the k-th
    exported result; any other argument is an AssertionError."""

    def __init__(self, probes: list, calls: list):
        import numpy as np

        self.probes = [np.asarray(p, dtype=float) for p in probes]
        self.calls = calls

    def __call__(self, x):
        import numpy as np

        x = np.asarray(x, dtype=float)
        for p, c in zip(self.probes, self.calls, strict=False):
            if p.shape == x.shape and np.array_equal(p, x):
                if isinstance(c, dict):
                    raise AssertionError(f"the function raised {c.get('error', 'an error')} on [0, 1]")
                return np.asarray(c, dtype=float)
        raise AssertionError("the function was called on values the grader did not probe")


def decode(obj: Any, probes: list | None = None) -> Any:
    """One exported value (:func:`export_source`) as the check expects it; never runs anything from the data.

    >>> decode({"blank": True}) is Ellipsis, decode({"value": [1, 2]}), decode({"interval": [0.1, 0.2]}).low
    (True, [1, 2], 0.1)
    """
    from types import SimpleNamespace

    if not isinstance(obj, dict):
        return None
    if obj.get("blank"):
        return Ellipsis
    if "value" in obj:
        return obj["value"]
    if "str" in obj:
        return str(obj["str"])
    if "set" in obj:
        return {str(x) for x in obj["set"]}
    if "interval" in obj:
        lo, hi = obj["interval"]
        return SimpleNamespace(low=float(lo), high=float(hi))
    if "calls" in obj:
        return _Replay(probes or [], list(obj["calls"]))
    return None


# ------------------------------------------------------------------------------------------ kernels


def _text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def _error(cell) -> tuple[str, str] | None:
    for o in cell.get("outputs", []):
        if o.get("output_type") == "error":
            return str(o.get("ename", "")), str(o.get("evalue", ""))
    return None


#: Code the judge runs once after the reference notebook: the checks and everything they import, in memory.
_JUDGE_SETUP = """import json as _sj_json
import numpy as _sj_np
import sklearn.isotonic
import selfconf.bootstrap, selfconf.metrics
from selfconf.course import verify as _sj_verify
from selfconf.course import grading as _sj_grading
_sj_probes = []
def _sj_record(x):
    _sj_probes.append(_sj_np.asarray(x, dtype=float).tolist())
    return _sj_np.asarray(x, dtype=float)
try:
    _sj_verify.monotone_auroc(_sj_record, None, None, None, conf_a, correct)
except Exception:
    pass
_sj_globals = dict(globals())
def _sj_judge(exported, table):
    out = {}
    for name, (check, answers, inputs) in table.items():
        got = exported.get(name)
        if got is None:
            out[name] = [False, "no answers exported"]
            continue
        args = [_sj_grading.decode(got.get(a), _sj_probes) for a in answers] + [_sj_globals[i] for i in inputs]
        try:
            getattr(_sj_verify, check)(*args)
            out[name] = [True, ""]
        except AssertionError as e:
            out[name] = [False, str(e)]
        except Exception as e:
            out[name] = [False, f"{type(e).__name__}: {e}"]
    print("__RESULT__" + _sj_json.dumps(out))
print("__RESULT__" + _sj_json.dumps(_sj_probes))
""".replace("__RESULT__", _RESULT)


@dataclass
class _Judge:
    """A kernel that ran the reference notebook with one set of parameters and holds the checks in memory."""

    stem: str
    client: Any
    cm: Any
    probes: list = field(default_factory=list)

    def judge(self, exported: dict) -> dict[str, tuple[bool, str]]:
        import nbformat

        table = {k: (e.check, e.answers, e.inputs) for k, e in EXERCISES[self.stem].items()}
        cell = nbformat.v4.new_code_cell(f"_sj_judge(_sj_json.loads({json.dumps(exported)!r}), {table!r})")
        self.client.nb.cells.append(cell)
        self.client.execute_cell(cell, len(self.client.nb.cells) - 1)
        line = [x for x in _text(cell).splitlines() if x.startswith(_RESULT)]
        if not line:
            raise RuntimeError(f"the judge of {self.stem} gave no result: {_error(cell)}")
        return {k: (bool(v[0]), str(v[1])) for k, v in json.loads(line[-1][len(_RESULT) :]).items()}

    def close(self) -> None:
        self.cm.__exit__(None, None, None)


def _start_judge(stem: str, reference, params: Mapping[str, Any], cwd: Path, timeout: int) -> _Judge:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.from_dict(reference)
    nb.cells = [c for c in nb.cells if not _skipped(c)]
    for c in nb.cells:
        if c.cell_type == "code" and "parameters" in c.get("metadata", {}).get("tags", []):
            c.source += "\n" + "\n".join(f"{k} = {v!r}" for k, v in params.items())
    nb.cells.append(nbformat.v4.new_code_cell(_JUDGE_SETUP))
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    cm = client.setup_kernel(cwd=str(cwd))
    cm.__enter__()
    # the connection file holds the key that signs messages to this kernel: gone once the kernel has read it,
    # so a submission that finds the judge's process cannot send it code
    if client.km is not None:
        Path(client.km.connection_file).unlink(missing_ok=True)
    try:
        for i, c in enumerate(nb.cells):
            if c.cell_type == "code":
                client.execute_cell(c, i)
                err = _error(c)
                if err and i == len(nb.cells) - 1:
                    raise RuntimeError(f"the judge of {stem} could not start: {err[0]}: {err[1]}")
        line = [x for x in _text(nb.cells[-1]).splitlines() if x.startswith(_RESULT)]
        probes = json.loads(line[-1][len(_RESULT) :])
    except BaseException:
        cm.__exit__(None, None, None)
        raise
    return _Judge(stem, client, cm, probes)


def _exercise_of_cells(nb) -> dict[int, str]:
    """{cell index: the exercise it belongs to}: an exercise's answer cell and every cell after it up to its check
    (the cells a student adds inside an exercise), keyed by the check's name."""
    out: dict[int, str] = {}
    pending: list[int] = []
    started = False
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code":
            continue
        m = CHECK_CELL.match(c.source.strip())
        if m:
            for j in pending:
                out[j] = m.group(1)
            out[i] = m.group(1)
            pending = []
            continue
        if "otter_answer_cell" in c.get("metadata", {}).get("tags", []):
            started = True
        if started:
            pending.append(i)
    return out


def package_snapshot() -> dict[str, tuple[bytes, int]]:
    """``{path inside the package: (bytes, mtime in ns)}`` of every file of the ``selfconf`` package this
    process imports, compiled ``__pycache__`` files included (read once, before any submission runs).

    Example:

    >>> snap = package_snapshot()
    >>> "course/grading.py" in snap and "__init__.py" in snap
    True
    """
    import selfconf

    root = Path(selfconf.__file__).parent
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def write_package(snapshot: Mapping[str, tuple[bytes, int]], dest: Path) -> Path:
    """Write ``snapshot`` (:func:`package_snapshot`) as ``dest/selfconf`` with its modification times (so the
    compiled files stay valid and nothing is compiled again); return ``dest``, the folder to put first on
    ``PYTHONPATH``.

    Example:

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     out = write_package({"__init__.py": (b"x = 1", 0)}, Path(d))
    ...     (out / "selfconf" / "__init__.py").read_text()
    'x = 1'
    """
    for rel, (data, mtime) in snapshot.items():
        f = dest / "selfconf" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(data)
        os.utime(f, ns=(mtime, mtime))
    return dest


def _run_submission(
    nb,
    stem: str,
    probes: list,
    work: Path,
    cell_timeout: int,
    time_limit: int,
    memory: int | None,
    package: Mapping[str, tuple[bytes, int]] | None = None,
) -> tuple[dict, dict[str, list[str]], list[str]]:
    """Execute a submission in its own kernel; return (exported answers, errors per exercise, other errors).

    With ``package`` (:func:`package_snapshot`), every kernel started for the submission (one per restart)
    imports ``selfconf`` from a copy of it written afresh beside ``work``."""
    import nbformat
    from jupyter_client.kernelspec import KernelSpec
    from nbclient import NotebookClient

    owner = _exercise_of_cells(nb)
    exports = work / "exported"
    exports.mkdir()
    cells = []
    for i, c in enumerate(nb.cells):
        m = CHECK_CELL.match(c.source.strip()) if c.cell_type == "code" else None
        if m and m.group(1) in EXERCISES[stem]:
            out = str(exports / f"{m.group(1)}.json")
            c = nbformat.v4.new_code_cell(export_source(EXERCISES[stem][m.group(1)].answers, probes, out))
        elif c.cell_type == "code" and not _skipped(c):
            c = nbformat.v4.new_code_cell(c.source)
        else:  # prose, the export cell (it zips a notebook file a graded run does not have), feedback cells
            continue
        cells.append((i, c))
    errors: dict[str, list[str]] = {}
    other: list[str] = []

    def note(i: int, msg: str) -> None:
        ex = owner.get(i)
        if ex:
            errors.setdefault(ex, []).append(msg)
        else:
            other.append(f"cell {i} (not in an exercise): {msg}")

    skip: set[int] = set()
    seen: set[tuple] = set()
    start = time.monotonic()
    mb = f"{memory / 2**30:.1f} GB" if memory else "no limit"
    for attempt in range(MAX_RESTARTS + 1):
        for f in exports.glob("*.json"):
            f.unlink()
        env = {}
        if package is not None:  # the submission's own copy, written again for each kernel it starts
            path = [str(write_package(package, work.parent / f"{work.name}-package-{attempt}"))]
            env["PYTHONPATH"] = os.pathsep.join(path + [p for p in [os.environ.get("PYTHONPATH")] if p])
        run = nbformat.v4.new_notebook(cells=[c for i, c in cells if i not in skip])
        client = NotebookClient(
            run,
            timeout=cell_timeout,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": str(work)}},
        )
        km = client.create_kernel_manager()
        km._kernel_spec = KernelSpec(  # the kernel sets its own memory limit before anything runs in it
            argv=[sys.executable, "-m", "selfconf.course.kernel", str(memory or 0), "-f", "{connection_file}"],
            display_name="Python 3 (grading)",
            language="python",
            env=env,
        )
        try:
            restart = _execute(client, cells, skip, seen, note, start, time_limit, cell_timeout, mb)
        except (RuntimeError, OSError, TimeoutError) as e:  # the kernel itself could not start or answer
            other.append(f"the submission's kernel failed: {type(e).__name__}: {e}"[:300])
            break
        if not restart:
            break
    return _read_exports(exports, stem, errors) + (other,)


def _execute(client, cells, skip, seen, note, start, time_limit, cell_timeout, mb) -> bool:
    """Run ``cells`` (minus ``skip``) in a new kernel of ``client``; return True when the notebook must be rerun
    without a cell that timed out, exhausted memory or killed the kernel (added to ``skip``)."""
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    restart = False
    with client.setup_kernel(cwd=client.resources["metadata"]["path"]):
        for k, (i, c) in enumerate([(i, c) for i, c in cells if i not in skip]):
            left = time_limit - (time.monotonic() - start)
            if left <= 0:
                note(i, f"stopped here: the notebook's time limit of {time_limit} s was reached")
                break
            client.timeout = int(max(1, min(cell_timeout, left)))
            c.outputs = []
            try:
                client.execute_cell(c, k)
            except CellTimeoutError:
                note(i, f"time limit: the cell ran longer than {client.timeout} s and was skipped")
                skip.add(i)
                restart = True
                break
            except DeadKernelError:
                note(i, f"the kernel died (out of memory under {mb}, or a crash) and the cell was skipped")
                skip.add(i)
                restart = True
                break
            err = _error(c)
            if err and err[0] == "MemoryError":
                note(i, f"memory limit: the cell needed more than {mb} and was skipped")
                skip.add(i)
                restart = True
                break
            if err and (i, err[0], err[1]) not in seen:
                seen.add((i, err[0], err[1]))
                note(i, f"{err[0]}: {err[1]}"[:300])
    return restart


def _read_exports(exports: Path, stem: str, errors: dict[str, list[str]]) -> tuple[dict, dict[str, list[str]]]:
    """The exported answers of each exercise (JSON), and ``errors`` with a line for each exercise without them."""
    exported: dict[str, Any] = {}
    for name in EXERCISES[stem]:
        f = exports / f"{name}.json"
        if f.is_file():
            try:
                exported[name] = json.loads(f.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError):
                errors.setdefault(name, []).append("the exported answers are not readable")
        elif name not in errors:
            errors.setdefault(name, []).append("no answers exported: its check cell did not run")
    return exported, errors


def grade_isolated(
    submissions: str | os.PathLike,
    autograder: str | os.PathLike,
    out_csv: str | os.PathLike | None = None,
    *,
    notebook: str | None = None,
    cell_timeout: int = 600,
    time_limit: int = 3600,
    memory: int | None = 4 * 2**30,
):
    """Grade every ``*.ipynb`` and export-cell ``*.zip`` in ``submissions`` against ``autograder`` outside the
    submissions' reach (a zip is read by :func:`read_submission`).

    Definition: see the module's docstring.  One row per submission: ``submission``, ``total``, ``possible``,
    ``percent``, ``error`` (one line per affected exercise, ``<exercise>: <what happened>``, and one per cell
    outside the exercises that failed for time or memory) and one column per exercise with its points.
    ``cell_timeout`` and ``time_limit`` are seconds (per cell, per notebook), ``memory`` the bytes of address
    space each submission's kernel may use (``None``: no limit).

    Example: ``grade_isolated("subs/", autograder_zip("21_seed_variation"), "grades.csv", cell_timeout=60)``.
    """
    import pandas as pd

    folder = Path(submissions)
    paths = sorted([*folder.glob("*.ipynb"), *folder.glob("*.zip")])
    if not paths:
        raise FileNotFoundError(f"{folder}: no submitted notebooks (*.ipynb, or the *.zip of the export cell)")
    zpath = Path(autograder)
    stem, tests, reference = _read_autograder(zpath, notebook)
    points = hidden_points(tests)
    graded = sorted(e for e in EXERCISES[stem] if e in points)
    possible = float(sum(points[e] for e in graded))
    base = dict(submission_parameters(reference, zpath))
    subs = _read_submissions(paths, base)
    package = package_snapshot()  # read before any submission runs: each gets a fresh copy of these bytes
    rows = []
    with tempfile.TemporaryDirectory(prefix="selfconf-grade-") as tmp:
        t = Path(tmp)
        judges: dict[tuple, _Judge] = {}
        try:
            for params in dict.fromkeys(k for _, _, k, _ in subs if k is not None):  # every judge before any submission
                d = t / f"judge-{len(judges)}"
                d.mkdir()
                judges[params] = _start_judge(stem, reference, dict(params), d, max(cell_timeout, 600))
            for n, (p, nb, key, err) in enumerate(subs):
                scores = dict.fromkeys(graded, 0.0)
                lines = [err] if err else []
                if nb is not None and key is not None:
                    work = t / f"submission-{n}"
                    work.mkdir()
                    exported, errors, other = _run_submission(
                        nb, stem, judges[key].probes, work, cell_timeout, time_limit, memory, package
                    )
                    verdicts = judges[key].judge(exported)
                    for ex in graded:  # an exercise whose own cells failed scores 0, whatever they left behind
                        if verdicts.get(ex, (False, ""))[0] and not errors.get(ex):
                            scores[ex] = points[ex]
                    lines += [f"{ex}: {m}" for ex in graded for m in errors.get(ex, []) if not scores[ex]]
                    lines += other
                total = float(sum(scores.values()))
                pct = round(100 * total / possible, 1) if possible else 0.0
                rows.append(
                    {"submission": p.name, "total": total, "possible": possible, "percent": pct}
                    | {"error": "\n".join(lines)}
                    | scores
                )
        finally:
            for j in judges.values():
                j.close()
    table = pd.DataFrame(rows)
    if out_csv is not None:
        table.to_csv(out_csv, index=False)
    return table


def _read_autograder(zpath: Path, notebook: str | None) -> tuple[str, dict[str, str], Any]:
    """``(stem, {test file: source}, reference notebook)`` from an autograder zip, with errors naming the zip."""
    import nbformat

    try:
        z = zipfile.ZipFile(zpath)
    except zipfile.BadZipFile:
        raise ValueError(f"{zpath}: not a zip file; pass the autograder zip `make student` wrote") from None
    with z:
        names = z.namelist()
        tests = {n: z.read(n).decode("utf-8") for n in names if n.startswith("tests/") and n.endswith(".py")}
        refs = [n for n in names if n.startswith("reference/") and n.endswith(".ipynb")]
        if not refs:
            raise FileNotFoundError(f"{zpath}: no reference notebook (reference/*.ipynb); rerun `make student`")
        stem = notebook or Path(refs[0]).stem
        if f"reference/{stem}.ipynb" not in names:
            raise ValueError(
                f"{zpath}: the autograder of {', '.join(Path(r).stem for r in refs)}, not of {stem}: "
                "pass the matching --notebook or --autograder"
            )
        reference = nbformat.reads(z.read(f"reference/{stem}.ipynb").decode("utf-8"), as_version=4)
    if stem not in EXERCISES:
        raise ValueError(f"{zpath}: no graded exercises known for notebook {stem!r}")
    return stem, tests, reference


def _read_submissions(paths: list[Path], base: dict) -> list[tuple[Path, Any, tuple | None, str]]:
    """Each submission read: ``(path, notebook or None, its parameters over ``base`` as a key, error line)``."""
    subs: list[tuple[Path, Any, tuple | None, str]] = []
    for p in paths:
        try:
            nb = read_submission(p)
            params = {k: v for k, v in submission_parameters(nb, p).items() if k in base}
            subs.append((p, nb, tuple(sorted({**base, **params}.items())), ""))
        except Exception as e:  # noqa: BLE001 - a broken file is that submission's error, never the class's
            said = str(e).replace(str(p), p.name)  # our own sentences name the file (a zip, a parameter) first
            msg = said if said.startswith(p.name) else f"{p.name}: not a readable notebook: {type(e).__name__}: {e}"
            subs.append((p, None, None, msg[:300]))
    return subs
