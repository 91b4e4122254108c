"""The named steps of ``selfconf.sections.external.compute`` against outside references (scipy, loops)."""

from __future__ import annotations

import pytest
from scipy import stats

from selfconf.sections import external
from selfconf.sections.computed import Builder


@pytest.fixture(scope="module")
def toy():
    return external._toy_report(seed=4)


def test_data_step_counts_missing_confidences_by_a_loop(toy):
    ext, t = toy
    b = Builder()
    external.glue_data(b, ext, t)
    v = b.build()
    missing = {m: sum(c != c for c in g["confidence"]) for m, g in ext.groupby("model")}
    assert v["ext_missing_total"] == sum(missing.values())
    assert v["ext_missing_max_model"] == min(m for m in missing if missing[m] == max(missing.values()))
    answered = [ok for c, ok in zip(ext["confidence"], ext["correct"], strict=True) if c == c]
    assert v["ext_answered_err_pct"] == pytest.approx(100 * (1 - sum(answered) / len(answered)))
    with pytest.raises(ValueError, match="one row per MMLU-Pro question"):
        external.glue_data(Builder(), ext.iloc[1:], t)


def test_table1_step_correlations_are_scipy(toy):
    ext, t = toy
    b = Builder()
    external.glue_table1(b, ext, t)
    v = b.build()
    assert v["ext_spearman_acc_citl"] == pytest.approx(stats.spearmanr(t["accuracy"], t["citl"]).statistic)
    assert v["ext_n_overconfident"] == sum(c > 0 for c in t["citl"])
    assert v["ext_auroc_max_model"] == t.loc[t["auroc"].idxmax(), "model"]


def test_paper_step_words_follow_the_counts(toy):
    _, t = toy
    b = Builder()
    external.glue_paper(b, t, t.assign(auroc=0.0))
    v = b.build()
    assert v["ext_best_vs_paper_phrase"] == "above every one of the paper's 2 frontier models"
    n_over = sum(c > 0 for c in t["citl"])
    assert v["ext_overconfident_phrase"].startswith("every one" if n_over == 2 else f"{n_over} of the 2")
