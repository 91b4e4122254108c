"""The layer table in README.md and CONTRIBUTING.md is the rendering of pyproject.toml's import contracts."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def lt():
    spec = importlib.util.spec_from_file_location("layer_table", ROOT / "scripts" / "layer_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_and_contributing_show_the_rendered_table(lt):
    table = lt.render()
    for name, block in lt.blocks().items():
        assert block == table, f"{name}: layer table is stale; run python scripts/layer_table.py --write"


def test_every_contract_layer_module_is_in_the_table(lt):
    table = lt.render()
    for c in lt.contracts():
        if c["type"] == "layers":
            for layer in c["layers"]:
                for m in layer.replace(":", "|").split("|"):
                    assert f"`{m.strip()}`" in table


def test_a_changed_contract_makes_the_check_fail(lt, tmp_path):
    # a copy of the project files with one layer renamed: the rendering changes, the blocks no longer match
    for name in ("pyproject.toml", *lt.FILES):
        shutil.copy(ROOT / name, tmp_path / name)
    for f in (ROOT / "src" / "selfconf").rglob("*.py"):  # the docstrings the table quotes
        dest = tmp_path / f.relative_to(ROOT)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, dest)
    assert set(lt.blocks(tmp_path).values()) == {lt.render(tmp_path)}
    py = tmp_path / "pyproject.toml"
    py.write_text(py.read_text().replace('  "selfconf.roster",\n', '  "selfconf.roster | selfconf.stats.readings",\n'))
    assert lt.render(tmp_path) != lt.render(ROOT)
    assert all(block != lt.render(tmp_path) for block in lt.blocks(tmp_path).values())
    lt.write(tmp_path)
    assert set(lt.blocks(tmp_path).values()) == {lt.render(tmp_path)}


def test_no_other_file_restates_the_table():
    for path in (ROOT / "docs" / "decisions.md", ROOT / "src" / "selfconf" / "__init__.py"):
        text = path.read_text()
        assert "| layer |" not in text and "=====" not in text, path
