"""The exercise checks keep the teaching pages' promise: an answer typed as the page prints it passes, and a
degenerate answer (None, text, one number for an array, a 2-D array, a function that fails on arrays) gets a
sentence, never a traceback.

The right answers are computed here independently of ``selfconf.metrics`` where an outside reference exists
(scikit-learn's ``roc_auc_score`` and ``IsotonicRegression``, explicit loops for the ECE and Murphy's terms), then
printed with Python's own ``format`` at the decimals :data:`selfconf.course.verify.PRINTED` declares, and those
decimals are read off the master notebooks where the page prints each number."""

from __future__ import annotations

import math
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score

from selfconf import bootstrap
from selfconf.course import verify

ROOT = Path(__file__).resolve().parents[1]
MASTERS = "\n".join(
    (ROOT / "notebooks" / f"{s}.py").read_text(encoding="utf-8")
    for s in ("20_calibration_vs_discrimination", "21_seed_variation")
)


def _typed(name: str, value: float) -> float:
    """``value`` as a student types it after reading it on the page: printed with the page's decimals."""
    return float(format(value, f".{verify.printed_decimals(name)}f"))


def _ece_loop(c, y, n_bins=10, edge="upper"):
    total = 0.0
    for b in range(n_bins):
        lo, hi = b / n_bins, (b + 1) / n_bins
        if edge == "upper":
            inside = [
                (ci, yi)
                for ci, yi in zip(c, y, strict=True)
                if (lo <= ci + 1e-9 < hi) or (b == n_bins - 1 and ci >= lo - 1e-9)
            ]
        else:
            inside = [
                (ci, yi) for ci, yi in zip(c, y, strict=True) if (lo < ci - 1e-9 <= hi) or (b == 0 and ci <= hi + 1e-9)
            ]
        if inside:
            cs, ys = zip(*inside, strict=True)
            total += len(inside) / len(c) * abs(sum(cs) / len(cs) - sum(ys) / len(ys))
    return total


def _data(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = 600
    conf_a = np.round(rng.uniform(0.35, 1.0, n), 2)
    correct = (rng.random(n) < conf_a - 0.15).astype(int)
    conf_b = np.round(np.clip(correct.mean() + rng.normal(0, 0.08, n), 0.05, 0.95) * 20) / 20
    heap_c = rng.choice([0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0], n, p=[0.05, 0.1, 0.25, 0.1, 0.25, 0.2, 0.05])
    heap_y = (rng.random(n) < heap_c - 0.12).astype(int)
    return {"conf_a": conf_a, "correct": correct, "conf_b": conf_b, "heap_c": heap_c, "heap_y": heap_y, "rng": rng}


@pytest.mark.parametrize("seed", range(4))
def test_every_number_typed_as_the_page_prints_it_passes(seed):
    d = _data(seed)
    conf_a, correct, conf_b, heap_c, heap_y = (d[k] for k in ("conf_a", "correct", "conf_b", "heap_c", "heap_y"))
    # ece-by-hand: counts exact, accuracies and ECE as printed
    bins = np.minimum(np.floor(conf_a * 10 + 1e-9).astype(int), 9)
    n_bin = np.array([(bins == b).sum() for b in range(10)])
    acc = np.array([correct[bins == b].mean() if (bins == b).any() else 0.0 for b in range(10)])
    verify.ece_by_hand(
        _typed("ece_hand", _ece_loop(conf_a, correct)), n_bin, [_typed("acc_bin", a) for a in acc], conf_a, correct
    )
    # constant-90
    ex_y = np.r_[np.ones(720, dtype=int), np.zeros(280, dtype=int)]
    ex_c = np.full(1000, 0.9)
    verify.constant_90(
        _typed("citl_90", 0.9 - 0.72),
        _typed("ece_90", 0.18),
        _typed("brier_90", 0.72 * 0.01 + 0.28 * 0.81),
        0.5,
        ex_c,
        ex_y,
    )
    # monotone-auroc: a map that is not one of the slider's
    after = conf_a**2
    verify.monotone_auroc(
        lambda c: c**2,
        after,
        _typed("ece_after", _ece_loop(after, correct)),
        _typed("auroc_after", roc_auc_score(correct, after)),
        conf_a,
        correct,
    )
    # bin-edges
    up, lo = _ece_loop(heap_c, heap_y, 12, "upper"), _ece_loop(heap_c, heap_y, 12, "lower")
    verify.bin_edges(
        _typed("ece_upper", up),
        _typed("ece_lower", lo),
        _typed("edge_ratio", max(up, lo) / min(up, lo)),
        heap_c,
        heap_y,
    )
    # brier-decomposition (Murphy's terms by an explicit loop over the stated values)
    o_bar, rel, res = correct.mean(), 0.0, 0.0
    for f in np.unique(conf_b):
        g = correct[conf_b == f]
        rel += g.size * (f - g.mean()) ** 2 / correct.size
        res += g.size * (g.mean() - o_bar) ** 2 / correct.size
    verify.brier_decomposition(
        _typed("rel_b", rel), _typed("res_b", res), _typed("unc_b", o_bar * (1 - o_bar)), conf_b, correct
    )
    # constant-brier
    const = np.full(correct.size, o_bar)
    verify.constant_brier(
        _typed("brier_const", float(np.mean((const - correct) ** 2))),
        _typed("p_one_minus_p", o_bar * (1 - o_bar)),
        ["reliability", "resolution"],
        const,
        correct,
    )
    # isotonic-ties
    fit = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit_transform(conf_b, correct)
    verify.isotonic_ties(len(set(fit.tolist())), _typed("auroc_fit", roc_auc_score(correct, fit)), conf_b, correct)
    # mmlu-lab
    lab = pd.DataFrame({"model": "gpt-4o-2024-08-06", "confidence": conf_a, "correct": correct})
    sure = correct[conf_a >= 0.8]
    verify.mmlu_lab(
        _typed("wrong_share_80", 1 - sure.mean()), _typed("auroc_gpt4o", roc_auc_score(correct, conf_a)), lab
    )
    # two-seeds: the interval's end points and the shift as the seed-variation page prints them
    rows = lab.assign(model="google")
    one = bootstrap.auroc_ci(conf_a, correct, n_boot=200, rng=1)
    two = bootstrap.auroc_ci(conf_a, correct, n_boot=200, rng=2)
    typed_one = SimpleNamespace(low=_typed("ci_seed_1.low", one.low), high=_typed("ci_seed_1.high", one.high))
    typed_two = SimpleNamespace(low=_typed("ci_seed_2.low", two.low), high=_typed("ci_seed_2.high", two.high))
    verify.two_seeds(typed_one, typed_two, _typed("low_shift", two.low - one.low), rows, 200)


def test_the_declared_decimals_are_those_the_page_prints():
    """Each entry of PRINTED names where the master notebook prints that number; its format there has the same
    decimals, so a page that prints a number differently fails here until the checks follow."""
    for name, (decimals, where) in verify.PRINTED.items():
        kind, _, key = where.partition(":")
        if kind == "glue":
            found = re.findall(rf"\{{glue:text\}}`{re.escape(key)}:\+?\.(\d)f`", MASTERS)
        elif kind == "table":
            m = re.search(rf'"{re.escape(key)}",.{{0,400}}?float_format="%\.(\d)f"', MASTERS, flags=re.S)
            found = [m.group(1)] if m else []
        elif kind == "column":
            found = re.findall(rf'"{re.escape(key)}": [^\n]*?\{{:\.(\d)f\}}', MASTERS)
        else:
            assert key in MASTERS, f"{name}: the page does not write {key!r}"
            found = [str(len(n.split(".")[1])) for n in re.findall(r"\d\.\d+", key)]
        assert found, f"{name}: {where} not found in the master notebooks"
        assert {int(f) for f in found} == {decimals}, (
            f"{name}: the page prints {where} with {found} decimals, not {decimals}"
        )


def test_every_checked_number_has_its_printed_decimals():
    src = (ROOT / "src" / "selfconf" / "course" / "verify.py").read_text(encoding="utf-8")
    named = set(re.findall(r'_num\("([\w.]+)"', src)) | {f"ci_seed_{k}.{e}" for k in (1, 2) for e in ("low", "high")}
    assert named <= set(verify.PRINTED), named - set(verify.PRINTED)
    assert "decimals=3)" not in src and "decimals=4)" not in src and "decimals=5)" not in src


def test_a_failure_message_states_the_precision_it_was_compared_at():
    d = _data(0)
    with pytest.raises(AssertionError) as e:
        verify.ece_by_hand(0.9, np.zeros(10), np.zeros(10), d["conf_a"], d["correct"])
    assert "n_bin" in str(e.value)
    bins = np.minimum(np.floor(d["conf_a"] * 10 + 1e-9).astype(int), 9)
    n_bin = np.bincount(bins, minlength=10)
    acc = np.bincount(bins, weights=d["correct"], minlength=10) / np.maximum(n_bin, 1)
    with pytest.raises(AssertionError) as e:
        verify.ece_by_hand(0.9, n_bin, acc, d["conf_a"], d["correct"])
    assert "within 0.0005" in str(e.value) and "3rd decimal" in str(e.value)


# ------------------------------------------------------------------ degenerate answers


def _message(call) -> str:
    with pytest.raises(AssertionError) as e:
        call()
    return str(e.value)


def test_degenerate_answers_get_a_sentence_not_a_traceback():
    d = _data(1)
    conf_a, correct = d["conf_a"], d["correct"]
    n = conf_a.size
    after = np.sqrt(conf_a)

    def scalar_only(c):  # works on one number, fails on an array
        return math.sqrt(c) * 0.9 + 0.05

    msg = _message(lambda: verify.monotone_auroc(scalar_only, after, 0.1, 0.7, conf_a, correct))
    assert "TypeError" in msg and "array" in msg
    msg = _message(lambda: verify.monotone_auroc(lambda c: None, after, 0.1, 0.7, conf_a, correct))
    assert "returned None" in msg
    msg = _message(lambda: verify.monotone_auroc(lambda c: 0.5, after, 0.1, 0.7, conf_a, correct))
    assert "one value per entry" in msg
    rev = (1 - conf_a) - (1 - conf_a).mean() + conf_a.mean()
    cases = {
        "None": (None, "is None"),
        "one number": (0.5, "one number"),
        "2-D of the right size": (rev.reshape(2, n // 2), "2-dimensional"),
        "text": ("conf_rev", "text"),
        "texts": (["a"] * n, "not an array of numbers"),
        "NaN entries": (np.where(np.arange(n) == 3, np.nan, rev), "missing"),
        "a function": (np.sqrt, "function"),
    }
    for kind, (got, words) in cases.items():
        msg = _message(lambda got=got: verify.reverse_ranking(got, conf_a, correct))
        assert words in msg, f"{kind}: {msg}"
        assert "conf_rev" in msg
    verify.reverse_ranking(rev, conf_a, correct)  # the right array still passes
    for got in (None, "0.27", [0.2, 0.3], np.ones((2, 2))):
        msg = _message(
            lambda got=got: verify.ece_by_hand(
                got, np.bincount(np.zeros(3, int), minlength=10), np.zeros(10), conf_a, correct
            )
        )
        assert "n_bin" in msg or "ece_hand" in msg
    for got in (None, 3, "interval"):
        assert "interval" in _message(lambda got=got: verify.two_seeds(got, got, 0.0, pd.DataFrame({"model": []}), 10))


def test_grade_outside_a_checkout_is_a_clear_error(tmp_path, monkeypatch, capsys):
    """Without ``--autograder`` and with no ``make student`` output, ``grade`` says what to pass (exit 2), no
    traceback; an autograder path that does not exist and an empty submissions folder say so too."""
    from selfconf import course

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SELFCONF_ROOT", str(tmp_path))  # a folder that is no checkout with a built student edition
    (tmp_path / "subs").mkdir()
    assert course.main(["grade", "subs"]) == 2
    err = capsys.readouterr().err
    assert "--autograder" in err and "Traceback" not in err
    assert course.main(["grade", "subs", "--autograder", str(tmp_path / "missing.zip")]) == 2
    assert "no such autograder" in capsys.readouterr().err
    (tmp_path / "a.zip").write_bytes(b"")
    assert course.main(["grade", "subs", "--autograder", str(tmp_path / "a.zip")]) == 2
    assert "no submitted notebooks" in capsys.readouterr().err
    (tmp_path / "subs" / "s.ipynb").write_text("{}", encoding="utf-8")  # a submission, and a zip that is none
    assert course.main(["grade", "subs", "--autograder", str(tmp_path / "a.zip")]) == 2
    err = capsys.readouterr().err
    assert "a.zip: not a zip file" in err and "Traceback" not in err
    import zipfile

    with zipfile.ZipFile(tmp_path / "b.zip", "w") as z:  # the autograder of page 21, graded as page 20's
        z.writestr("reference/21_seed_variation.ipynb", "{}")
    assert course.main(["grade", "subs", "--autograder", str(tmp_path / "b.zip")]) == 2
    assert "the autograder of 21_seed_variation, not of 20_calibration_vs_discrimination" in capsys.readouterr().err
