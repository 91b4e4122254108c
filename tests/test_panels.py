"""Panel statistics: definitions checked on hand-made rows and against a brute-force loop."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from selfconf import metrics
from selfconf.panels import PANELS, agreement_signal, panel_analysis, panel_point_estimates, panel_rows, rank_normalise


def frame(rows):
    cols = ["model", "item_id", "parse_ok", "confidence", "correct", "refusal", "answer_class"]
    return pd.DataFrame(rows, columns=cols)


HAND = frame(
    [
        # item 1: a and b correct with different strings (gold vs variant), c wrong
        ("a", "q1", 1, 90, 1, 0, "gold"),
        ("b", "q1", 1, 80, 1, 0, "variant"),
        ("c", "q1", 1, 70, 0, 0, "w1"),
        # item 2: all wrong, a and c share the popular wrong answer
        ("a", "q2", 1, 60, 0, 0, "w2"),
        ("b", "q2", 1, 50, 0, 0, "w3"),
        ("c", "q2", 1, 95, 0, 0, "w2"),
        # item 3: b refuses, a and c correct with the gold string
        ("a", "q3", 1, 85, 1, 0, "gold3"),
        ("b", "q3", 1, 10, 0, 1, "REFUSAL"),
        ("c", "q3", 1, 75, 1, 0, "gold3"),
        # item 4: c failed to parse -> not in the population
        ("a", "q4", 1, 99, 1, 0, "g4"),
        ("b", "q4", 1, 99, 1, 0, "g4"),
        ("c", "q4", 0, None, None, 0, ""),
    ]
)


def test_population_excludes_items_missing_a_member():
    p = panel_rows(HAND, ("a", "b", "c"))
    assert p.items.tolist() == ["q1", "q2", "q3"]


def test_canonical_and_label_free_signals():
    p = panel_rows(HAND, ("a", "b", "c"))
    can = agreement_signal(p, "canonical")
    lf = agreement_signal(p, "label_free")
    # q1: a,b both correct -> concur canonically, not by string
    assert can[0].tolist() == [1, 1, 0] and lf[0].tolist() == [0, 0, 0]
    # q2: shared wrong answer concurs under both codings
    assert can[1].tolist() == [1, 0, 1] and lf[1].tolist() == [1, 0, 1]
    # q3: the refusal concurs with nothing; a and c agree
    assert can[2].tolist() == [1, 0, 1] and lf[2].tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="coding"):
        agreement_signal(p, "majority")


def test_own_record_never_enters_own_signal():
    # every model disagrees with every other one: all signals must be 0 (no self-vote), and
    # a lone correct model gets no credit from its own correctness under canonical coding
    df = frame(
        [
            ("a", "q1", 1, 90, 1, 0, "g"),
            ("b", "q1", 1, 80, 0, 0, "w1"),
            ("c", "q1", 1, 70, 0, 0, "w2"),
            ("a", "q2", 1, 60, 0, 0, "w3"),
            ("b", "q2", 1, 50, 1, 0, "g2"),
            ("c", "q2", 1, 95, 0, 0, "w4"),
        ]
    )
    p = panel_rows(df, ("a", "b", "c"))
    assert (agreement_signal(p, "canonical") == 0).all()
    assert (agreement_signal(p, "label_free") == 0).all()


def _brute_signal(p, coding):
    n_i, n_m = p.correct.shape
    out = np.zeros((n_i, n_m), int)
    for i in range(n_i):
        for j in range(n_m):
            for k in range(n_m):
                if k == j or p.refusal[i, j] or p.refusal[i, k]:
                    continue
                same = p.answer[i, j] == p.answer[i, k]
                if coding == "canonical":
                    same = same or (p.correct[i, j] == 1 and p.correct[i, k] == 1)
                out[i, j] += same
    return out


def random_panel(seed=0, n_items=300):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        ease = rng.normal()
        for m in ("x", "y", "z"):
            ok = rng.random() > 0.05
            cor = int(ease + rng.normal() > 0.3)
            ref = int(not cor and rng.random() < 0.05)
            ans = f"g{i}" if cor and rng.random() > 0.2 else (f"v{i}" if cor else f"w{i}-{rng.integers(3)}")
            rows.append(
                (
                    m,
                    f"q{i}",
                    int(ok),
                    int(rng.integers(0, 21) * 5) if ok else None,
                    cor if ok else None,
                    ref,
                    "REFUSAL" if ref else (ans if ok else ""),
                )
            )
    return frame(rows)


@pytest.mark.parametrize("coding", ["canonical", "label_free"])
def test_signal_matches_brute_force(coding):
    p = panel_rows(random_panel(1), ("x", "y", "z"))
    assert (agreement_signal(p, coding) == _brute_signal(p, coding)).all()


def test_rank_normalise_mid_ranks():
    p = panel_rows(HAND, ("a", "b", "c"))
    r = rank_normalise(p)
    # a's confidences 90, 60, 85 -> ranks 3, 1, 2 of 3 -> (below + 0.5)/3
    assert np.allclose(r[:, 0], [2.5 / 3, 0.5 / 3, 1.5 / 3])
    conf = np.array([[50], [50], [70], [10]])
    from selfconf.panels import PanelRows

    q = PanelRows(("m",), np.arange(4), conf, np.zeros((4, 1), int), np.zeros((4, 1), int), np.zeros((4, 1), int))
    assert np.allclose(rank_normalise(q)[:, 0], [2 / 4, 2 / 4, 3.5 / 4, 0.5 / 4])


def test_point_estimates_definitions():
    df = random_panel(2)
    p = panel_rows(df, ("x", "y", "z"))
    est = panel_point_estimates(p)
    conf, y = p.confidence.ravel().astype(float), p.correct.ravel()
    assert est["self_auroc_pooled"] == pytest.approx(metrics.auroc(conf, y))
    assert est["panel_auroc"] == pytest.approx(metrics.auroc(_brute_signal(p, "canonical").ravel().astype(float), y))
    w = [metrics.auroc(p.confidence[:, j].astype(float), p.correct[:, j]) for j in range(3)]
    assert est["within_model_macro"] == pytest.approx(np.mean(w))
    assert est["delta_panel_minus_self"] == pytest.approx(est["panel_auroc"] - est["self_auroc_pooled"])
    # rank normalisation leaves each model's own AUROC unchanged
    r = rank_normalise(p)
    for j in range(3):
        assert metrics.auroc(r[:, j], p.correct[:, j]) == pytest.approx(w[j])


def test_panel_analysis_ci_contains_estimates_and_is_seeded():
    df = random_panel(3, n_items=400)
    a = panel_analysis(df, ("x", "y", "z"), n_boot=300, rng=7)
    b = panel_analysis(df, ("x", "y", "z"), n_boot=300, rng=7)
    assert a == b
    for key, ci in (
        ("panel_auroc", "panel_ci"),
        ("self_auroc_pooled", "self_ci"),
        ("delta_panel_minus_self", "delta_ci"),
    ):
        assert a[ci][0] <= a[key] <= a[ci][1]


def test_pre_registered_panels():
    assert PANELS["CN"] == ("deepseek", "alibaba", "moonshot")
    assert PANELS["US"] == ("anthropic", "openai", "google")
    assert PANELS["cross_bloc"] == ("anthropic", "deepseek", "mistral")
