"""Every notebook has one `parameters` cell with seed, n_boot and data_dir, and uses every parameter.

papermill injects parameters as a new cell after the tagged one; a parameter the notebook never reads
would be silently ignored, so an unused name fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


def _code(cell) -> str:
    # drop IPython magics / shell escapes so ast can parse the rest
    return "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))


def parameters_of(path: Path):
    nb = jupytext.read(path)
    tagged = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    return nb, tagged


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks/NN_*.py found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_parameters_cell(path):
    nb, tagged = parameters_of(path)
    assert len(tagged) == 1, f"{path.name}: expected exactly one cell tagged 'parameters', found {len(tagged)}"
    tree = ast.parse(_code(tagged[0]))
    assigned = {}
    for node in tree.body:
        assert isinstance(node, (ast.Assign, ast.AnnAssign, ast.Expr)), (
            f"{path.name}: the parameters cell may only assign constants (found {type(node).__name__})"
        )
        if isinstance(node, ast.Assign):
            for t in node.targets:
                assigned[t.id] = ast.literal_eval(node.value)
        elif isinstance(node, ast.AnnAssign):
            assigned[node.target.id] = ast.literal_eval(node.value)
    for name, typ in (("seed", int), ("n_boot", int), ("data_dir", str)):
        assert name in assigned, f"{path.name}: parameters cell lacks `{name}`"
        assert isinstance(assigned[name], typ), f"{path.name}: `{name}` should be {typ.__name__}"
    assert assigned["n_boot"] == 2000, f"{path.name}: n_boot default must be 2000 (the paper's draws)"

    used = set()
    for c in nb.cells:
        if c.cell_type != "code" or c is tagged[0]:
            continue
        for node in ast.walk(ast.parse(_code(c))):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                used.add(node.id)
    unused = sorted(set(assigned) - used)
    assert not unused, f"{path.name}: parameter(s) {unused} are never used, so papermill would ignore them silently"
