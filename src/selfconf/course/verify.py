"""What each exercise of the teaching notebooks checks: one function per exercise, called by its otter tests.

The public check a student runs (``grader.check("<exercise>")``) and the hidden, pointed test of the
autograder (``otter assign``'s hidden tests) call the same function here, so the two cannot disagree, and the
source line otter shows under a failure is a call, never an expected value.  Each function recomputes the
expected values from the notebook's own variables with :mod:`selfconf.metrics` (so it holds at any seed or
setting) and compares through :mod:`selfconf.course.answers`: any numeric type, the page's printed precision,
"not written yet" for a blank, and a message that never contains the expected value.

Decimals: each number an exercise asks for is compared to the decimals the teaching page prints that number
(or the same kind of number) with, listed in :data:`PRINTED` with where the page prints it; the tolerance is
half a unit of the last printed digit, so the value the page shows, typed as shown, passes, and the failure
message says how close an answer must be.

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
    "PRINTED",
    "printed_decimals",
    "COMPUTED_DECIMALS",
]

#: Bins of the edge-rule and equal-mass exercises: a count the page's tables do not show, so an answer cannot
#: be copied from them.
EDGE_BINS = 12
MASS_BINS = 20


#: ``{answer: (decimals, where the page prints that number or its kind)}``: ``glue:<key>`` is a value glued
#: into the prose with a ``.<decimals>f`` format, ``table:<name>`` a table printed with ``%.<decimals>f``,
#: ``column:<name>`` a table column formatted ``{:.<decimals>f}``, ``text:<words>`` numbers written in the prose.  Each
#: check compares the answer to these decimals (half a unit of the last one); a test reads the places off the
#: master notebooks, so a page that changes how it prints a number fails until this table follows.
PRINTED: dict[str, tuple[int, str]] = {
    "acc_bin": (3, "table:teaching_mmlu_lab"),
    "ece_hand": (3, "glue:teach_A_ece"),
    "citl_90": (3, "glue:teach_grid_citl_min"),
    "ece_90": (3, "glue:teach_const_ece"),
    "brier_90": (3, "glue:teach_const_brier"),
    "auroc_90": (3, "glue:teach_const_auroc"),
    "ece_after": (3, "glue:teach_grid_ece_min"),
    "auroc_after": (3, "glue:teach_grid_auroc"),
    "coverage_below_10": (2, "text:(0.05, 0.10, …, 1.00)"),
    "ece_upper": (4, "glue:teach_heap_min"),
    "ece_lower": (4, "glue:teach_heap_min"),
    "edge_ratio": (2, "glue:teach_heap_ratio"),
    "rel_b": (4, "glue:teach_dec_A_rel"),
    "res_b": (4, "glue:teach_dec_B_res"),
    "unc_b": (4, "glue:teach_dec_unc"),
    "brier_const": (3, "glue:teach_const_brier"),
    "p_one_minus_p": (4, "glue:teach_dec_unc"),
    "auroc_fit": (4, "glue:teach_iso_auroc_after"),
    "wrong_share_80": (3, "table:teaching_mmlu_lab"),
    "auroc_gpt4o": (3, "table:teaching_mmlu_lab"),
    "ci_seed_1.low": (4, "column:low: mean"),
    "ci_seed_1.high": (4, "column:high: mean"),
    "ci_seed_2.low": (4, "column:low: mean"),
    "ci_seed_2.high": (4, "column:high: mean"),
    "low_shift": (4, "glue:seedvar_max_range"),
}


#: Decimals of the arrays a student computes and never types (``conf_after``, ``conf_rev``): only float noise is
#: forgiven.
COMPUTED_DECIMALS = 6


def printed_decimals(name: str) -> int:
    """The decimals answer ``name`` is compared to: the page's printed precision (:data:`PRINTED`).

    >>> printed_decimals("ece_hand"), printed_decimals("rel_b")
    (3, 4)
    """
    return PRINTED[name][0]


def _num(name: str, got: Any, want: float) -> float:
    return number(name, got, want, decimals=printed_decimals(name))


def _bins10(conf: np.ndarray) -> np.ndarray:
    return metrics.bin_index(conf, 10)


def ece_by_hand(ece_hand: Any, n_bin: Any, acc_bin: Any, conf_a, correct) -> None:
    """The method (answers per bin, accuracy per bin, 0 for an empty bin) and the ten-bin ECE of model A."""
    b = _bins10(conf_a)
    n = np.bincount(b, minlength=10)
    acc = np.bincount(b, weights=np.asarray(correct, dtype=float), minlength=10) / np.maximum(n, 1)
    array("n_bin", n_bin, n)
    array("acc_bin", acc_bin, acc, decimals=printed_decimals("acc_bin"))
    _num("ece_hand", ece_hand, metrics.ece(conf_a, correct))


def constant_90(citl_90: Any, ece_90: Any, brier_90: Any, auroc_90: Any, ex_c, ex_y) -> None:
    """CITL, ECE, Brier score and AUROC of the constant 0.9 model."""
    _num("citl_90", citl_90, metrics.citl(ex_c, ex_y))
    _num("ece_90", ece_90, metrics.ece(ex_c, ex_y))
    _num("brier_90", brier_90, metrics.brier(ex_c, ex_y))
    _num("auroc_90", auroc_90, metrics.auroc(ex_c, ex_y))


def _apply(name: str, fn, x: np.ndarray) -> np.ndarray:
    """``fn(x)`` as a float array of ``x``'s shape, or AssertionError with a sentence about what went wrong."""
    try:
        with np.errstate(all="ignore"):
            raw = fn(x)
    except Exception as e:  # noqa: BLE001 - a student's function may fail in any way; say how, never a traceback
        raise AssertionError(
            f"{name} raised {type(e).__name__} when given a numpy array of confidences: it must take a whole "
            "array at once (numpy functions work element by element; math's functions and `if c < ...` do not)"
        ) from None
    if raw is None:
        raise AssertionError(f"{name} returned None: it should return the transformed values (a return statement)")
    try:
        out = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} did not return numbers") from None
    if out.shape != x.shape:
        raise AssertionError(
            f"{name} returned shape {out.shape} for an array of shape {x.shape}: it should return one value per entry"
        )
    return out


def monotone_auroc(my_transform: Any, conf_after: Any, ece_after: Any, auroc_after: Any, conf_a, correct) -> None:
    """A strictly increasing map of [0, 1] into [0, 1] that is not the identity, applied to model A, and the
    ECE and AUROC computed on the transformed confidences."""
    if my_transform is Ellipsis or not callable(my_transform):
        raise AssertionError("my_transform is not a function yet")
    grid = np.unique(np.round(np.concatenate([np.linspace(0.0, 1.0, 201), np.unique(conf_a)]), 9))
    out = _apply("my_transform", my_transform, grid)
    if not np.all(np.isfinite(out)) or not np.all((out >= 0) & (out <= 1)):
        raise AssertionError("my_transform must map every value of [0, 1], 0 and 1 included, into [0, 1]")
    if not np.all(np.diff(out) > 0):
        raise AssertionError("my_transform is not strictly increasing on [0, 1]")
    moved = _apply("my_transform", my_transform, np.asarray(conf_a, dtype=float))
    if abs(metrics.ece(moved, correct) - metrics.ece(conf_a, correct)) <= 1e-3:
        raise AssertionError("the ECE did not move: is my_transform the identity?")
    array("conf_after", conf_after, moved, decimals=COMPUTED_DECIMALS)
    _num("ece_after", ece_after, metrics.ece(moved, correct))
    _num("auroc_after", auroc_after, metrics.auroc(moved, correct))


def reverse_ranking(conf_rev: Any, conf_a, correct) -> None:
    """1 - c shifted back to model A's mean."""
    rev = 1 - np.asarray(conf_a, dtype=float)
    array("conf_rev", conf_rev, rev - rev.mean() + np.mean(conf_a), decimals=COMPUTED_DECIMALS)


def coverage_below_10(coverage_below_10: Any, score_c, y_rc, coverages) -> None:
    """The largest coverage on the grid with model C's selective risk below 0.10."""
    risk = metrics.risk_coverage(score_c, y_rc, coverages=tuple(coverages))
    _num("coverage_below_10", coverage_below_10, max(cv for cv, rk in risk.items() if rk < 0.10))


def bin_edges(ece_upper: Any, ece_lower: Any, edge_ratio: Any, heap_c, heap_y) -> None:
    """ECE with EDGE_BINS equal-width bins under both edge rules, and larger / smaller."""
    up = metrics.ece(heap_c, heap_y, n_bins=EDGE_BINS, edge="upper")
    lo = metrics.ece(heap_c, heap_y, n_bins=EDGE_BINS, edge="lower")
    _num("ece_upper", ece_upper, up)
    _num("ece_lower", ece_lower, lo)
    _num("edge_ratio", edge_ratio, max(up, lo) / min(up, lo))


def equal_mass_bins(n_mass_bins: Any, heap_c, heap_y) -> None:
    """Occupied bins among MASS_BINS equal-mass bins."""
    bins = metrics.reliability_bins(heap_c, heap_y, n_bins=MASS_BINS, binning="equal_mass")
    whole("n_mass_bins", n_mass_bins, int((bins["n"] > 0).sum()))


def brier_decomposition(rel_b: Any, res_b: Any, unc_b: Any, conf_b, correct) -> None:
    """Murphy's three terms of model B's Brier score."""
    d = metrics.brier_decomposition(conf_b, correct)
    _num("rel_b", rel_b, d["reliability"])
    _num("res_b", res_b, d["resolution"])
    _num("unc_b", unc_b, d["uncertainty"])


def constant_brier(brier_const: Any, p_one_minus_p: Any, zero_terms: Any, conf_const, correct) -> None:
    """The constant predictor's Brier score, p(1 - p), and the Murphy terms that vanish for it."""
    p = float(np.mean(correct))
    _num("brier_const", brier_const, metrics.brier(conf_const, correct))
    _num("p_one_minus_p", p_one_minus_p, p * (1 - p))
    d = metrics.brier_decomposition(conf_const, correct)
    vanish = {k for k in ("reliability", "resolution", "uncertainty") if abs(d[k]) < 1e-12}
    same_set("zero_terms", zero_terms, vanish)


def isotonic_ties(n_levels_fit: Any, auroc_fit: Any, conf_b, correct) -> None:
    """Distinct values and AUROC of isotonic regression fitted to model B (the page shows model A's)."""
    from sklearn.isotonic import IsotonicRegression

    fit = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit_transform(conf_b, correct)
    whole("n_levels_fit", n_levels_fit, int(np.unique(fit).size))
    _num("auroc_fit", auroc_fit, metrics.auroc(fit, correct))


def mmlu_lab(wrong_share_80: Any, auroc_gpt4o: Any, mmlu_graded) -> None:
    """Share wrong among gpt-4o's answers stated at 0.8 or more, and its self-AUROC."""
    g = mmlu_graded[mmlu_graded["model"] == "gpt-4o-2024-08-06"]
    want = metrics.high_conf_error_rate(g["confidence"], g["correct"], threshold=0.8)
    _num("wrong_share_80", wrong_share_80, want)
    _num("auroc_gpt4o", auroc_gpt4o, metrics.auroc(g["confidence"], g["correct"]))


def two_seeds(ci_seed_1: Any, ci_seed_2: Any, low_shift: Any, rows, n_boot: int) -> None:
    """google's interval with rng=1 and rng=2, and how far the lower end moved."""
    from selfconf import bootstrap

    g = rows[rows["model"] == "google"]
    for name, got, s in (("ci_seed_1", ci_seed_1, 1), ("ci_seed_2", ci_seed_2, 2)):
        if got is Ellipsis:
            raise AssertionError(f"{name} is not written yet (replace the ... with your answer)")
        if not (hasattr(got, "low") and hasattr(got, "high")):
            raise AssertionError(
                f"{name} is not an interval yet (what bootstrap.auroc_ci returns, with .low and .high)"
            )
        want = bootstrap.auroc_ci(g["confidence"], g["correct"], n_boot=n_boot, rng=s)
        _num(f"{name}.low", got.low, want.low)
        _num(f"{name}.high", got.high, want.high)
    one = bootstrap.auroc_ci(g["confidence"], g["correct"], n_boot=n_boot, rng=1)
    two = bootstrap.auroc_ci(g["confidence"], g["correct"], n_boot=n_boot, rng=2)
    _num("low_shift", low_shift, two.low - one.low)


def draws_needed(draws_needed: Any, google_low: float, google_high: float) -> None:
    """The smallest number of draws whose predicted SD of the lower end point is at most 0.0005."""
    from selfconf import bootstrap

    whole("draws_needed", draws_needed, bootstrap.draws_for_mc_sd(google_low, google_high, 0.0005))
