"""What each exercise of the teaching notebooks checks: one function per exercise, called by its otter tests.

The public check a student runs (``grader.check("<exercise>")``) and the hidden, pointed test of the
autograder (``otter assign``'s hidden tests) call the same function here, so the two cannot disagree, and the
source line otter shows under a failure is a call, never an expected value.  Each function recomputes the
expected values from the notebook's own variables with :mod:`selfconf.metrics` (so it holds at any seed or
setting) and compares through :mod:`selfconf.course.answers`: any numeric type, the page's printed precision,
"not written yet" for a blank, and a message that never contains the expected value.

Decimals: a number is compared to the decimals the page prints that kind of number with (ECE, Brier score and
AUROC: 4; CITL, shares and error rates: 3; ratios: 2).

Reference: otter-grader documentation, "Python test files"; the exercises' statements in
``notebooks/20_calibration_vs_discrimination.py`` and ``notebooks/21_seed_variation.py``.

Example: ``verify.ece_by_hand(ece_hand, n_bin, acc_bin, conf_a, correct)`` raises ``AssertionError`` unless right.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from selfconf import metrics
from selfconf.course.answers import array, number, same_set, whole

__all__ = [
    "ece_by_hand",
    "constant_90",
    "monotone_auroc",
    "reverse_ranking",
    "coverage_below_10",
    "bin_edges",
    "equal_mass_bins",
    "brier_decomposition",
    "constant_brier",
    "isotonic_ties",
    "mmlu_lab",
    "two_seeds",
    "draws_needed",
    "EDGE_BINS",
    "MASS_BINS",
]

#: Bins of the edge-rule and equal-mass exercises: a count the page's tables do not show, so an answer cannot
#: be copied from them.
EDGE_BINS = 12
MASS_BINS = 20


def _bins10(conf: np.ndarray) -> np.ndarray:
    return np.minimum(np.floor(np.asarray(conf, dtype=float) * 10 + 1e-9).astype(int), 9)


def ece_by_hand(ece_hand: Any, n_bin: Any, acc_bin: Any, conf_a, correct) -> None:
    """The method (answers per bin, accuracy per bin, 0 for an empty bin) and the ten-bin ECE of model A."""
    b = _bins10(conf_a)
    n = np.bincount(b, minlength=10)
    acc = np.bincount(b, weights=np.asarray(correct, dtype=float), minlength=10) / np.maximum(n, 1)
    array("n_bin", n_bin, n)
    array("acc_bin", acc_bin, acc, decimals=3)
    number("ece_hand", ece_hand, metrics.ece(conf_a, correct), decimals=4)


def constant_90(citl_90: Any, ece_90: Any, brier_90: Any, auroc_90: Any, ex_c, ex_y) -> None:
    """CITL, ECE, Brier score and AUROC of the constant 0.9 model."""
    number("citl_90", citl_90, metrics.citl(ex_c, ex_y), decimals=3)
    number("ece_90", ece_90, metrics.ece(ex_c, ex_y), decimals=4)
    number("brier_90", brier_90, metrics.brier(ex_c, ex_y), decimals=4)
    number("auroc_90", auroc_90, metrics.auroc(ex_c, ex_y), decimals=4)


def monotone_auroc(my_transform: Any, conf_after: Any, ece_after: Any, auroc_after: Any, conf_a, correct) -> None:
    """A strictly increasing map of [0, 1] into [0, 1] that is not the identity, applied to model A, and the
    ECE and AUROC computed on the transformed confidences."""
    if my_transform is Ellipsis or not callable(my_transform):
        raise AssertionError("my_transform is not a function yet")
    grid = np.unique(np.round(np.concatenate([np.linspace(0.0, 1.0, 201), np.unique(conf_a)]), 9))
    with np.errstate(all="ignore"):
        out = np.asarray(my_transform(grid), dtype=float)
    if out.shape != grid.shape or not np.all(np.isfinite(out)) or not np.all((out >= 0) & (out <= 1)):
        raise AssertionError("my_transform must map every value of [0, 1], 0 and 1 included, into [0, 1]")
    if not np.all(np.diff(out) > 0):
        raise AssertionError("my_transform is not strictly increasing on [0, 1]")
    moved = np.asarray(my_transform(np.asarray(conf_a, dtype=float)), dtype=float)
    if abs(metrics.ece(moved, correct) - metrics.ece(conf_a, correct)) <= 1e-3:
        raise AssertionError("the ECE did not move: is my_transform the identity?")
    array("conf_after", conf_after, moved, decimals=6)
    number("ece_after", ece_after, metrics.ece(moved, correct), decimals=4)
    number("auroc_after", auroc_after, metrics.auroc(moved, correct), decimals=4)


def reverse_ranking(conf_rev: Any, conf_a, correct) -> None:
    """1 - c shifted back to model A's mean."""
    rev = 1 - np.asarray(conf_a, dtype=float)
    array("conf_rev", conf_rev, rev - rev.mean() + np.mean(conf_a), decimals=6)


def coverage_below_10(coverage_below_10: Any, score_c, y_rc, coverages) -> None:
    """The largest coverage on the grid with model C's selective risk below 0.10."""
    risk = metrics.risk_coverage(score_c, y_rc, coverages=tuple(coverages))
    number("coverage_below_10", coverage_below_10, max(cv for cv, rk in risk.items() if rk < 0.10), decimals=2)


def bin_edges(ece_upper: Any, ece_lower: Any, edge_ratio: Any, heap_c, heap_y) -> None:
    """ECE with EDGE_BINS equal-width bins under both edge rules, and larger / smaller."""
    up = metrics.ece(heap_c, heap_y, n_bins=EDGE_BINS, edge="upper")
    lo = metrics.ece(heap_c, heap_y, n_bins=EDGE_BINS, edge="lower")
    number("ece_upper", ece_upper, up, decimals=4)
    number("ece_lower", ece_lower, lo, decimals=4)
    number("edge_ratio", edge_ratio, max(up, lo) / min(up, lo), decimals=2)


def equal_mass_bins(n_mass_bins: Any, heap_c, heap_y) -> None:
    """Occupied bins among MASS_BINS equal-mass bins."""
    bins = metrics.reliability_bins(heap_c, heap_y, n_bins=MASS_BINS, binning="equal_mass")
    whole("n_mass_bins", n_mass_bins, int((bins["n"] > 0).sum()))


def brier_decomposition(rel_b: Any, res_b: Any, unc_b: Any, conf_b, correct) -> None:
    """Murphy's three terms of model B's Brier score."""
    d = metrics.brier_decomposition(conf_b, correct)
    number("rel_b", rel_b, d["reliability"], decimals=4)
    number("res_b", res_b, d["resolution"], decimals=4)
    number("unc_b", unc_b, d["uncertainty"], decimals=4)


def constant_brier(brier_const: Any, p_one_minus_p: Any, zero_terms: Any, conf_const, correct) -> None:
    """The constant predictor's Brier score, p(1 - p), and the Murphy terms that vanish for it."""
    p = float(np.mean(correct))
    number("brier_const", brier_const, metrics.brier(conf_const, correct), decimals=4)
    number("p_one_minus_p", p_one_minus_p, p * (1 - p), decimals=4)
    d = metrics.brier_decomposition(conf_const, correct)
    vanish = {k for k in ("reliability", "resolution", "uncertainty") if abs(d[k]) < 1e-12}
    same_set("zero_terms", zero_terms, vanish)


def isotonic_ties(n_levels_fit: Any, auroc_fit: Any, conf_b, correct) -> None:
    """Distinct values and AUROC of isotonic regression fitted to model B (the page shows model A's)."""
    from sklearn.isotonic import IsotonicRegression

    fit = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit_transform(conf_b, correct)
    whole("n_levels_fit", n_levels_fit, int(np.unique(fit).size))
    number("auroc_fit", auroc_fit, metrics.auroc(fit, correct), decimals=4)


def mmlu_lab(wrong_share_80: Any, auroc_gpt4o: Any, mmlu_graded) -> None:
    """Share wrong among gpt-4o's answers stated at 0.8 or more, and its self-AUROC."""
    g = mmlu_graded[mmlu_graded["model"] == "gpt-4o-2024-08-06"]
    want = metrics.high_conf_error_rate(g["confidence"], g["correct"], threshold=0.8)
    number("wrong_share_80", wrong_share_80, want, decimals=3)
    number("auroc_gpt4o", auroc_gpt4o, metrics.auroc(g["confidence"], g["correct"]), decimals=4)


def two_seeds(ci_seed_1: Any, ci_seed_2: Any, low_shift: Any, rows, n_boot: int) -> None:
    """google's interval with rng=1 and rng=2, and how far the lower end moved."""
    from selfconf import bootstrap

    g = rows[rows["model"] == "google"]
    for name, got, s in (("ci_seed_1", ci_seed_1, 1), ("ci_seed_2", ci_seed_2, 2)):
        if got is Ellipsis:
            raise AssertionError(f"{name} is not written yet (replace the ... with your answer)")
        if not (hasattr(got, "low") and hasattr(got, "high")):
            raise AssertionError(f"{name} is not an interval yet")
        want = bootstrap.auroc_ci(g["confidence"], g["correct"], n_boot=n_boot, rng=s)
        number(f"{name}.low", got.low, want.low, decimals=4)
        number(f"{name}.high", got.high, want.high, decimals=4)
    one = bootstrap.auroc_ci(g["confidence"], g["correct"], n_boot=n_boot, rng=1)
    two = bootstrap.auroc_ci(g["confidence"], g["correct"], n_boot=n_boot, rng=2)
    number("low_shift", low_shift, two.low - one.low, decimals=5)


def draws_needed(draws_needed: Any, google_low: float, google_high: float) -> None:
    """The smallest number of draws whose predicted SD of the lower end point is at most 0.0005."""
    from selfconf import bootstrap

    whole("draws_needed", draws_needed, bootstrap.draws_for_mc_sd(google_low, google_high, 0.0005))
