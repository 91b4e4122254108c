"""No statistics computed in the notebooks of chapters 10, 21 and 26: they live in the package, tested there.

A notebook keeps prose, tables, charts, glue and the teaching code a reader is meant to see. A code cell
that computes a statistic for the page (a numpy/pandas reduction or a random draw) must call a package
function instead, unless the cell is tagged ``teaching`` (``# %% tags=[..., "teaching"]``): a worked example
or an exercise whose code is the lesson. The scan parses each code cell with :mod:`ast` and reports every
call of a reduction method or function (:data:`REDUCTIONS`) and every use of ``np.random``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("10_diagnostic", "21_seed_variation", "26_real_answers")
#: The tag that lets a code cell compute in the open (a worked example or an exercise).
TEACHING_TAG = "teaching"
#: Reductions that compute a statistic: as a method (``s.mean()``) or a numpy function (``np.mean(x)``).
REDUCTIONS = frozenset(
    {
        "mean",
        "nanmean",
        "sum",
        "nansum",
        "std",
        "nanstd",
        "var",
        "nanvar",
        "median",
        "nanmedian",
        "quantile",
        "nanquantile",
        "percentile",
        "nanpercentile",
        "corrcoef",
        "corr",
        "cov",
        "average",
        "min",
        "max",
        "nanmin",
        "nanmax",
        "idxmin",
        "idxmax",
        "nunique",
        "cumsum",
    }
)


def findings(source: str) -> list[str]:
    """Reductions and random draws in one cell's code: ``["line 3: .mean()", "line 5: np.random"]``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell with IPython magics: drop them and parse the rest
        lines = source.splitlines()
        tree = ast.parse("\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in lines))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in REDUCTIONS:
            found.append(f"line {node.lineno}: .{node.func.attr}()")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"sum", "min", "max"}
            and len(node.args) == 1
        ):
            # the builtins over an iterable are reductions too; max(a, b) of two values is a clamp, not scanned
            found.append(f"line {node.lineno}: {node.func.id}()")
        elif isinstance(node, ast.Attribute) and node.attr == "random" and isinstance(node.value, ast.Name):
            if node.value.id in {"np", "numpy"}:
                found.append(f"line {node.lineno}: np.random")
    return sorted(set(found))


def notebook_findings(path: Path) -> list[str]:
    """Every finding in the code cells of a jupytext notebook that are not tagged ``teaching``."""
    nb = jupytext.read(path)
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or TEACHING_TAG in cell.metadata.get("tags", []):
            continue
        out += [f"{path.name} cell {i}: {f}" for f in findings(cell.source)]
    return out


@pytest.mark.parametrize("stem", SCANNED)
def test_no_statistics_outside_teaching_cells(stem: str) -> None:
    found = notebook_findings(ROOT / "notebooks" / f"{stem}.py")
    assert not found, (
        f"{stem}: statistics computed in the notebook; move them into the package (with a docstring and a "
        f"test) or tag the cell {TEACHING_TAG!r} if the code is the lesson:\n  " + "\n  ".join(found)
    )


def test_the_scan_sees_what_it_must(tmp_path: Path) -> None:
    """The scanner itself: each kind of finding is caught, a teaching cell is skipped, a plain cell is clean."""
    assert findings("x = df['a'].mean()") == ["line 1: .mean()"]
    assert findings("import numpy as np\nr = np.random.default_rng(1)") == ["line 2: np.random"]
    assert findings("q = np.nanquantile(d, [0.1])\nm = max(a)\nk = max(0.0, lo)") == [
        "line 1: .nanquantile()",
        "line 2: max()",
    ]
    assert findings("%matplotlib inline\ns = x.sum()") == ["line 2: .sum()"]
    assert findings("glue.value('k', f(x), origin='rows')\nn = len(rows)") == []
    text = '# %%\nx = 1\n\n# %% tags=["teaching"]\ny = z.std()\n\n# %%\nw = v.median()\n'
    nb_file = tmp_path / "probe.py"
    nb_file.write_text(text, encoding="utf-8")
    assert notebook_findings(nb_file) == ["probe.py cell 2: line 1: .median()"]
