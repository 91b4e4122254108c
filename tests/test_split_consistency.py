"""The consistency checks are a table (``consistency.CHECKS``), expanded by ``consistency.plan``."""

from __future__ import annotations

import inspect

import pytest

from selfconf.book.audit import load_claims
from selfconf.claims import consistency as cc


def _functions(entries):
    for e in entries:
        yield from (s.fn for s in e.specs) if isinstance(e, cc.CheckBlock) else (e.fn,)


def test_every_check_function_of_the_module_is_in_the_table():
    defined = {n for n, f in inspect.getmembers(cc, inspect.isfunction) if n.startswith("check_")}
    assert defined == {f.__name__ for f in _functions(cc.CHECKS)}


def test_the_plan_follows_the_group_order_and_keys_are_unique():
    keys = [(g, k) for g, k, _ in cc.plan(cc.Printed(load_claims()), cc.DEFAULT_MODELS)]
    assert len(keys) == len(set(keys)) > 100
    groups = list(dict.fromkeys(g for g, _ in keys))
    assert groups == list(cc.GROUP_TITLES)
    # a block interleaves its specs per value: Table 2's three checks of a model come together
    t2 = [k for g, k in keys if g == "table2"][1:4]
    assert [k.split("_")[-1] for k in t2] == [t2[0].split("_")[-1]] * 3


def test_a_row_added_to_the_table_runs(monkeypatch):
    def check_dummy(p, label, key, *, scale):
        return cc.PASS, f"dummy {label}", f"{key} x {scale}"

    extra = cc.CheckSpec(
        "grading", "dummy_{}", check_dummy, (cc.Each("L{}"), cc.Each("k_{}")), over="arms", kwargs=(("scale", 2),)
    )
    monkeypatch.setattr(cc, "CHECKS", (*cc.CHECKS, extra))
    out = [c for c in cc.run_checks(load_claims()) if c.key.startswith("dummy_")]
    assert [(c.key, c.description, c.arithmetic) for c in out][:2] == [
        ("dummy_off", "dummy Loff", "k_off x 2"),
        ("dummy_placebo", "dummy Lplacebo", "k_placebo x 2"),
    ]


def test_a_missing_claim_names_the_check_row():
    doc = load_claims()
    doc = {**doc, "claims": [c for c in doc["claims"] if c["id"] != "t3_core_acc"]}
    with pytest.raises(KeyError, match="consistency check ladder/grim_core"):
        cc.run_checks(doc, only=["ladder/grim_core"])
