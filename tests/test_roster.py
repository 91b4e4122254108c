"""The model roster exists once: ``data/paper/models.csv``, read by :mod:`selfconf.roster`; the old names are views
of it, the paper's manifest names the same models, and no module keeps its own copy of the list."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from selfconf import roster

ROOT = Path(__file__).resolve().parents[1]
NINE = ["google", "moonshot", "alibaba", "xai", "deepseek", "zhipu", "openai", "mistral", "anthropic"]


def test_the_package_reads_the_data_table():
    assert roster.ROSTER_FILE.resolve() == (ROOT / "data" / "paper" / "models.csv").resolve()
    assert roster.frontier() == NINE


def test_old_names_are_views_of_the_table():
    from selfconf import panels
    from selfconf.claims import consistency
    from selfconf.reconstruct import fidelity, frontier
    from selfconf.sections import realanswers, reconstruction

    assert frontier.FRONTIER == fidelity.TABLE1 == reconstruction.FRONTIER_ORDER == list(consistency.DEFAULT_MODELS)
    assert frontier.FRONTIER == roster.frontier()
    assert panels.PANELS == roster.panels()
    assert panels.PANELS == {
        "US": ("anthropic", "openai", "google"),
        "CN": ("deepseek", "alibaba", "moonshot"),
        "cross_bloc": ("anthropic", "deepseek", "mistral"),
    }
    assert realanswers.BLOC == roster.blocs()
    assert {m for m in NINE if realanswers.BLOC[m] == "CN"} == {"deepseek", "alibaba", "moonshot", "zhipu"}


def test_the_papers_manifest_names_the_same_models():
    doc = yaml.safe_load((ROOT / "data" / "paper" / "claims.yaml").read_text(encoding="utf-8"))["models"]
    assert doc["table1_row_order"] == roster.frontier()
    table = {m.id: m.model_id for m in roster.models() if m.tier == "frontier"}
    assert {f["provider"]: f["model_id"] for f in doc["frontier"]} == table


def test_no_module_keeps_its_own_copy_of_the_roster():
    """A literal list, tuple or set holding five or more frontier ids is a second roster.  (Dictionaries keyed by
    model, such as the reconstruction's fitted counts per model, hold per-model values, not the roster.)"""
    ids = set(NINE)
    found = []
    for p in sorted((ROOT / "src" / "selfconf").rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.List | ast.Tuple | ast.Set):
                vals = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
                if len(vals & ids) >= 5:
                    found.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"copies of the roster: {found}"


def test_a_bad_table_is_a_clear_error(tmp_path):
    bad = tmp_path / "models.csv"
    bad.write_text("id,label\nx,X\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lacks the column"):
        roster.models(bad)
    bad.write_text(
        "id,label,vendor,model_id,tier,bloc,table1_order,panel_US\nx,X,V,m,frontier,US,one,\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"row 2 \(x\)"):
        roster.models(bad)
