"""Tests of selfconf.sections.manipulation on hand-made rows and on the shipped probe/arm files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from selfconf.data.paths import resolve
from selfconf.sections import manipulation as man


def test_microprobe_table_delta():
    mp = pd.DataFrame(
        {
            "model": ["m", "m"],
            "item_id": ["x", "x"],
            "domain": ["d", "d"],
            "claimed_accuracy_pct": [0, 95],
            "correct": [0, 0],
            "confidence": [40, 85],
        }
    )
    t = man.microprobe_table(mp)
    assert t.loc[0, "delta"] == 45


def test_microprobe_rejects_correct_item():
    mp = pd.DataFrame(
        {
            "model": ["m", "m"],
            "item_id": ["x", "x"],
            "domain": ["d", "d"],
            "claimed_accuracy_pct": [0, 95],
            "correct": [1, 0],
            "confidence": [40, 85],
        }
    )
    with pytest.raises(ValueError, match="answered correctly"):
        man.microprobe_table(mp)


def _topic_rows():
    rows = []
    for j in range(4):
        # true arm: right at 100 on even probes, wrong at 0 on odd ones (Brier 0); false arm: inverted confidence
        y = int(j % 2 == 0)
        rows.append(
            {
                "model": "m",
                "probe_id": f"p{j}",
                "bin": "b",
                "arm": "true",
                "claimed_pct": 50,
                "correct": y,
                "confidence": 100 if y else 0,
            }
        )
        rows.append(
            {
                "model": "m",
                "probe_id": f"p{j}",
                "bin": "b",
                "arm": "false",
                "claimed_pct": 50,
                "correct": y,
                "confidence": 0 if y else 100,
            }
        )
    return pd.DataFrame(rows)


def test_topic_summary_brier_by_hand():
    s = man.topic_summary(_topic_rows(), n_boot=200, seed=0).set_index("model").loc["m"]
    assert s["brier_true"] == 0 and s["brier_false"] == 1 and s["brier_delta"] == 1
    assert s["consumed"] and s["ci_low"] == 1 and s["ci_high"] == 1 and not s["ci_includes_zero"]


def test_regrade_summary_by_hand():
    rg = pd.DataFrame(
        {
            "model": "q",
            "item_id": [f"i{k}" for k in range(6)],
            "grade_route": ["string", "refusal", "llm_self", "llm_self", "llm_self", "llm_self"],
            "canonical_correct": [1, 0, 1, 1, 0, 0],
            "cross_family_correct": [np.nan, np.nan, 0, 1, 1, 0],
        }
    )
    s = man.regrade_summary(rg)
    assert s["down_flips"] == 1 and s["up_flips"] == 1 and s["agreement_pct"] == 50.0
    assert s["correct_before"] == 3 and s["correct_after"] == 3 and s["n_self_graded"] == 4


def test_loader_names_file_row_field(tmp_path):
    d = tmp_path / "probes"
    d.mkdir()
    (d / "microprobe.csv").write_text(
        "model,item_id,domain,claimed_accuracy_pct,correct,confidence\nm,x,d,0,0,40\nm,x,d,95,0,140\n"
    )
    with pytest.raises(ValueError, match=r"microprobe.csv: row 3, field 'confidence': confidence 140"):
        man.load_csv(tmp_path, "probes/microprobe.csv")


DATA = "data/reconstructed"


@pytest.mark.skipif(not (resolve(DATA) / "arms" / "regrade.csv").is_file(), reason="arms not generated")
def test_shipped_arms_and_seed_only_moves_bootstrap():
    a = man.recompute_all(DATA, seed=1, n_boot=400)
    b = man.recompute_all(DATA, seed=2, n_boot=400)
    boot = {"twostage_delta_auroc_ci_lo", "twostage_delta_auroc_ci_hi"}
    for k in a:
        if k not in boot:
            assert a[k] == b[k], k
    assert any(a[k] != b[k] for k in boot)
    assert a["topic_n_models_consumed"] == 4
    assert a["regrade_down_flips"] == 24 and a["regrade_up_flips"] == 1
    ts = man.topic_summary(man.load_csv(DATA, "probes/topic_probes.csv"), n_boot=2000, seed=3)
    assert ts["ci_includes_zero"].all()
