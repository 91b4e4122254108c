"""The notebook cache's key sees every kind of input, and a miss names the inputs that changed (no notebook runs)."""

from __future__ import annotations

import json

from selfconf.book import build
from selfconf.data import families


def test_a_lazily_imported_module_is_in_the_key(root):
    # ``from selfconf.data import graded`` runs selfconf.data.collection through importlib (PEP 562)
    assert "selfconf.data.collection" in build.used_modules("00_abstract", root)
    assert "src/selfconf/data/collection.py" in build.key_inputs("00_abstract", {}, root, {}, {})["code"]


def test_every_kind_of_input_changes_the_key(root):
    shared = build.build_inputs(root)
    up = {"r1_median_band_min": "0"}
    base = build.cache_key("00_abstract", {}, root, shared, up)
    assert build.cache_key("00_abstract", {}, root, shared, up) == base
    claims = {**shared["data"], "data/paper/claims.yaml": "changed"}
    assert build.cache_key("00_abstract", {"seed": 7}, root, shared, up) != base
    assert build.cache_key("00_abstract", {}, root, {**shared, "data": claims}, up) != base
    assert build.cache_key("00_abstract", {}, root, shared, {"r1_median_band_min": "1"}) != base
    fewer = {k: v for k, v in shared["data"].items() if k != "data/reconstructed/collection.csv"}
    assert build.cache_key("00_abstract", {}, root, {**shared, "data": fewer}, up) != base
    fam = {**shared["families"], "collection": "original (raw, data/raw)"}
    assert build.cache_key("00_abstract", {}, root, {**shared, "families": fam}, up) != base


def test_a_family_appearing_in_data_dir_is_seen(root, tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    before = build.build_inputs(root, str(raw))
    assert before["families"]["collection"].startswith("reconstruction")
    families.export_raw(root / "data" / "reconstructed", raw, ["collection"])
    after = build.build_inputs(root, str(raw))
    assert after["families"]["collection"].startswith("original")
    assert set(after["data"]) - set(before["data"]) == {
        str(raw / "frontier_graded.jsonl"),
        str(raw / "local_graded.jsonl"),
    }


def test_explain_names_what_changed(root, tmp_path, monkeypatch):
    monkeypatch.setattr(build, "_entries", lambda r, name: [tmp_path])
    old = {"parameters": {}, "data": {"data/a.csv": "1", "data/raw/x.jsonl": "2"}, "code": {"m.py": "1"}}
    (tmp_path / build.ENTRY_KEY).write_text(json.dumps(old))
    new = {"parameters": {"seed": "7"}, "data": {"data/a.csv": "3"}, "code": {"m.py": "1"}}
    why = build.explain_miss("03_design", new, root)
    assert why == "data: data/raw/x.jsonl removed; data/a.csv changed | parameters: seed added", why
    monkeypatch.setattr(build, "_entries", lambda r, name: [])
    assert build.explain_miss("03_design", new, root) == "no cached execution"
