"""Reconstruct the profile-injection ladder bundle (Result 2, Result 3's frontier rung).

What is written (under ``<out_dir>/ladder/``)
---------------------------------------------
* ``scored-arms-<subject>.jsonl`` for the four subjects ``haiku45``, ``sonnet5``, ``opus48``,
  ``fable5``: one row per item x arm x replicate (315 x 4 x 2 = 2,520 rows), fields
  ``subject, item_id, bin, arm, replicate, is_trap, status, abstained, confidence, correct``.
* ``profiles-<subject>.json``: the three injected per-bin accuracy profiles (core, placebo,
  shuffled) over the 21 bins.
* ``fidelity_ladder.json``: every targeted published number, the value recomputed from the
  written files by the book's own analysis code (:mod:`selfconf.sections.ladder`), and whether it holds.

:func:`generate` also runs :func:`selfconf.reconstruct.arms.generate` (probes and limitation arms).

Algorithm (all randomness from one ``numpy.random.Generator`` seeded with :data:`SEED`)
---------------------------------------------------------------------------------------
1. **Battery.**  21 named domain bins of unequal size (:data:`BIN_SCORED`: 8-21 scored items each,
   294 in all) plus one trap item per bin (21), 315 items.  Unequal bins are a reconstruction
   choice: with 14 scored items per bin the printed per-bin spread (SD 0.195, range 0.15-1.00)
   forces an oracle AUROC near 0.80, not 0.758.
2. **Who is right where (per subject).**  The published per-arm correct counts fix the total
   correct rows (Table 3 via GRIM: OFF 498, PLACEBO 504, CORE 504, SHUFFLED 495 of 588 for the
   confirmatory subject; OFF 503/522/529 for the demoted rungs; their other arms are free and set
   near OFF).  A fixed number of non-trap rows fail to parse (16 for the confirmatory subject, so
   the oracle population is 2,352 - 16 = 2,336).  Correct rows are spread over bins following a
   per-bin accuracy ladder (for the confirmatory subject :data:`_SONNET_BIN_ACC`, nudged one row at
   a time until the sample SD prints 0.195), then over whole item x replicate *cells* of the bin
   (a cell is right or wrong in all four arms alike; item propensities are Beta draws), and the
   few leftover rows and the arm totals are settled by single-slot moves.
3. **Oracle tuning.**  The leave-one-item-out bin-accuracy AUROC (the oracle ceiling) is moved
   onto its printed value by swapping the correctness of two whole cells (same bin, or across
   bins when the per-bin SD, minimum and maximum still print as published).  Arm totals never move.
4. **Abstentions.**  A fixed number of incorrect, parsed rows per arm become explicit abstentions
   (no confidence).  Trap rows abstain with a subject-specific probability and are scored
   correct exactly when they abstain.
5. **Confidences.**  Answered rows get integer confidences on a 5-point grid from a latent model
   (mean + arm-specific weight x correctness + item effect + shared and own noise); in the
   injected arms a share of cells copies CORE's confidence for the same item x replicate (the
   share sets how tightly a paired contrast is estimated); on the exploratory rung a share of
   SHUFFLED cells mirrors CORE around its mean (a false profile inverts the ranking).  A greedy
   local search of one-step moves (single cells, or one cell in every arm that still equals CORE)
   runs until every deterministic target (per-arm AUROC, Brier, ECE; paired CORE-minus-arm AUROC on
   matched answered cells; demoted-rung OFF AUROC; the exploratory rung's CORE and SHUFFLED AUROC)
   rounds to its printed value with a 10% margin inside the rounding interval.
6. **Bootstrap widths.**  For the confirmatory and the exploratory rung, step 5 is repeated a few
   times, each time adjusting the copy / mirror shares (or the abstention counts) by the relative
   miss of the previous attempt's interval widths, measured with a 4,000-draw item-clustered
   bootstrap (:func:`_boot_check`); the closest attempt is kept and then *polished* by single-step
   confidence moves that keep every deterministic target.  For the confirmatory subject the polish
   aims each paired contrast's item-clustered standard error (:func:`_paired_clustered_se`, a
   smooth function of the rows) at the SE its printed interval implies, so the fit cannot lean on
   the noise of particular bootstrap draws.  For the exploratory rung, whose intervals are skewed,
   it still aims the percentile intervals of a fixed 8,000-draw bootstrap (:class:`_BootState`).
7. **Profiles.**  CORE = the subject's held-out per-bin accuracy (ladder OFF accuracy per bin
   plus noise, on a 1/20 grid); SHUFFLED = a permutation of CORE across bins; PLACEBO = values
   with the same mean as CORE whose Spearman correlation with CORE (average ranks for ties,
   21 bins) is moved onto the printed validation value by swapping placebo values between bins or
   moving one grid step from one bin to another (the mean is kept).

Bootstrap-kind numbers are aimed at through large fixed bootstraps only; the book recomputes them
with its own seed and 2,000 draws, so they land within Monte-Carlo error of the printed values, not
on them.  ``fidelity_ladder.json`` reports both.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from selfconf.metrics import auroc_from_counts, bin_index
from selfconf.reconstruct import arms
from selfconf.reconstruct.judged import ideal_bootstrap, judge
from selfconf.reconstruct.targets import printed_values
from selfconf.sections import ladder as lad
from selfconf.stats.normal import Z975

__all__ = ["SEED", "SUBJECTS", "BINS", "ARMS", "generate", "build_subject", "write_bundle"]

SEED = 20260731
SUBJECTS = ("haiku45", "sonnet5", "opus48", "fable5")
SUBJECT_NAMES = {
    "haiku45": "Claude Haiku 4.5 (claude-haiku-4-5-20251001)",
    "sonnet5": "Claude Sonnet 5 (claude-sonnet-5)",
    "opus48": "Claude Opus 4.8 (claude-opus-4-8)",
    "fable5": "Claude Fable 5 (claude-fable-5)",
}
BINS = (
    "numerical",
    "logic",
    "physics",
    "history",
    "code",
    "probability",
    "chemistry",
    "biology",
    "geography",
    "law",
    "medicine",
    "economics",
    "literature",
    "music",
    "sports",
    "linguistics",
    "astronomy",
    "geology",
    "mythology",
    "film",
    "recent-events",
)
ARMS = ("off", "placebo", "core", "shuffled")
N_BINS = len(BINS)
#: Scored (non-trap) items per bin, in :data:`BINS` order; every bin also holds one trap item.
#: Bin sizes are a reconstruction choice (the paper gives only 315 items over 21 bins); unequal
#: sizes are what lets a 0.15-1.00 accuracy ladder with SD 0.195 coexist with an oracle of 0.758.
BIN_SCORED = np.array([13, 11, 13, 15, 12, 12, 8, 18, 17, 21, 13, 16, 10, 11, 12, 17, 18, 18, 12, 18, 9])
N_SCORED = int(BIN_SCORED.sum())
N_ITEMS = N_SCORED + N_BINS
N_REPS = 2
GRID = np.arange(0, 101, 5)

# ---------------------------------------------------------------------------------------------
# Per-subject design.  Numbers marked "printed" are read from the claim manifest when it is
# available (claims.yaml); everything else is a reconstruction choice, documented here.
# ---------------------------------------------------------------------------------------------
#: Which demoted rung carries each printed demoted-rung number (the paper lists the three values
#: without naming subjects; we assign them in the paper's subject order Haiku, Opus, Fable).
DEMOTED_ORDER = ("haiku45", "opus48", "fable5")
#: The exploratory frontier rung of Result 3 (not named in the paper): our choice.
EXPLORATORY_RUNG = "opus48"
CONFIRMATORY = "sonnet5"


def _demoted_rung(
    correct: tuple[int, int, int, int],
    n_fail: int,
    abstain_per_arm: int,
    trap_abstain: float,
    bin_spread: float,
    conf_mean: float,
) -> dict[str, Any]:
    """Design of a ceiling-demoted rung (Haiku, Fable): correct answers per arm (off, placebo, core, shuffled),
    parse failures, abstentions per arm, trap abstention, bin spread, mean confidence; then the copy shares
    both use (0.35 off, 0.45 placebo, 0.35 shuffled; a fresh dict each call) and no oracle target."""
    return dict(
        correct=dict(zip(("off", "placebo", "core", "shuffled"), correct, strict=True)),
        n_fail=n_fail,
        abstain_per_arm=abstain_per_arm,
        trap_abstain=trap_abstain,
        bin_spread=bin_spread,
        conf_mean=conf_mean,
        copy={"off": 0.35, "placebo": 0.45, "shuffled": 0.35},
        oracle_target=None,
    )


_SUBJECT_DESIGN: dict[str, dict[str, Any]] = {
    "haiku45": _demoted_rung((503, 505, 508, 500), 10, 8, 0.6, 0.16, 88.0),
    "sonnet5": dict(
        correct={"off": 498, "placebo": 504, "core": 504, "shuffled": 495},
        n_fail=16,
        abstain_per_arm=15,
        trap_abstain=0.7,
        bin_spread=None,
        conf_mean=97.0,
        noise_sd=7.0,
        disc={"off": 0.8, "placebo": 1.2, "core": 2.5, "shuffled": 1.5},
        shared=0.9,
        copy={"off": 0.38, "placebo": 0.96, "shuffled": 0.96},
        oracle_target=None,
        joint_share=0.5,
        accept_worse=0.0005,
        attempts=16,
        boot_tol=0.0025,
        polish_boot=8000,
        adapt={
            "paired_core_placebo": ("copy", "placebo", 0.8, 0.0, 0.995),
            "paired_core_off": ("copy", "off", 0.8, 0.0, 0.995),
            "paired_core_shuffled": ("copy", "shuffled", 0.8, 0.0, 0.995),
        },
        item_beta=(50, 50),
    ),
    "opus48": dict(
        correct={"off": 522, "placebo": 521, "core": 524, "shuffled": 519},
        n_fail=8,
        abstain_per_arm={"off": 40, "placebo": 38, "core": 43, "shuffled": 40},
        trap_abstain=0.8,
        bin_spread=0.15,
        conf_mean=93.0,
        copy={"off": 0.35, "placebo": 0.45, "shuffled": 0.0},
        anti={"shuffled": 0.6},
        oracle_target=0.745,
        attempts=25,
        boot_tol=0.006,
        polish_boot=8000,
        adapt={
            "auroc_core": ("abstain", "core", -30, 20, 56),
            "auroc_shuffled": ("abstain", "shuffled", -30, 20, 56),
            "unpaired_core_shuffled": ("anti", "shuffled", -0.6, 0.0, 0.95),
        },
    ),
    "fable5": _demoted_rung((529, 528, 531, 527), 6, 10, 0.85, 0.20, 95.0),
}

#: Confirmatory subject's per-bin accuracy ladder (pooled over arms and replicates, parsed rows),
#: as target proportions for the 21 bins in :data:`BINS` order.  Chosen so that the realised
#: sample SD prints 0.195 and the range 0.15-1.00 (see fidelity file).
_SONNET_BIN_ACC = (
    1.00,
    0.93,
    0.98,
    0.85,
    0.94,
    0.84,
    0.92,
    0.74,
    0.92,
    0.98,
    0.93,
    0.91,
    0.95,
    0.88,
    0.74,
    0.50,
    0.88,
    0.92,
    0.84,
    0.99,
    0.15,
)


# ------------------------------------------------------------------------------------------ io
def _claims_targets() -> dict[str, float]:
    """Printed target values from the claim manifest (the generator may read them; analysis never)."""
    return printed_values()


# ------------------------------------------------------------------------------- fast statistics
# Private, vectorised versions used only while searching; the fidelity check at the end recomputes
# every number with the book's analysis code (selfconf.sections.ladder -> selfconf.metrics/bootstrap).
def _auc_hist(pos: np.ndarray, neg: np.ndarray) -> float:
    """Mann-Whitney AUROC (ties 1/2) from histograms of positive and negative scores: the kernel."""
    return float(auroc_from_counts(pos, neg))


def _auc(y: np.ndarray, s: np.ndarray) -> float:
    s = s.astype(int)
    return _auc_hist(
        np.bincount(s[y == 1], minlength=101).astype(float), np.bincount(s[y == 0], minlength=101).astype(float)
    )


def _brier(y: np.ndarray, s: np.ndarray) -> float:
    return float(np.mean((s / 100.0 - y) ** 2))


def _ece(y: np.ndarray, s: np.ndarray) -> float:
    """ECE over the ten equal-width bins of :func:`selfconf.metrics.ece` ([0,10), ..., [90,100])."""
    b = bin_index(s.astype(int) / 100.0, 10)
    cs = np.bincount(b, weights=s / 100.0, minlength=10)
    ys = np.bincount(b, weights=y.astype(float), minlength=10)
    return float(np.abs(cs - ys).sum() / len(y))


def _oracle_auc_items(bin_of: np.ndarray, c: np.ndarray, m: np.ndarray) -> float:
    """Oracle AUROC from item totals: c = correct parsed rows, m = parsed rows per item."""
    kb = np.bincount(bin_of, weights=c, minlength=N_BINS)
    nb = np.bincount(bin_of, weights=m, minlength=N_BINS)
    x = (kb[bin_of] - c) / np.maximum(nb[bin_of] - m, 1)
    levels, code = np.unique(x, return_inverse=True)  # items with equal oracle scores tie
    pos = np.bincount(code.reshape(-1), weights=c, minlength=levels.size)
    neg = np.bincount(code.reshape(-1), weights=m - c, minlength=levels.size)
    return float(auroc_from_counts(pos, neg))


def _boot_weights(rng: np.random.Generator, n_items: int, n_boot: int) -> np.ndarray:
    idx = rng.integers(0, n_items, size=(n_boot, n_items))
    w = np.zeros((n_boot, n_items))
    np.add.at(w, (np.repeat(np.arange(n_boot), n_items), idx.ravel()), 1.0)
    return w


def _item_hists(y: np.ndarray, s: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-item histograms (items x 101) of positive / negative scores over the rows in mask.

    ``y, s, mask`` have shape (items, reps)."""
    n_items = y.shape[0]
    pos = np.zeros((n_items, 101))
    neg = np.zeros((n_items, 101))
    ii, rr = np.nonzero(mask)
    sc = s[ii, rr].astype(int)
    yy = y[ii, rr]
    np.add.at(pos, (ii[yy == 1], sc[yy == 1]), 1.0)
    np.add.at(neg, (ii[yy == 0], sc[yy == 0]), 1.0)
    return pos, neg


def _boot_auc(w: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """AUROC per item-weighted draw (the kernel; a draw without one class gives NaN)."""
    return auroc_from_counts(w @ pos, w @ neg)


# --------------------------------------------------------------------------------- construction
class _Subject:
    """Mutable arrays for one subject; shapes (arms, scored items, reps) unless noted."""

    # set by the generator's search and polish passes (declared here for the type checker only)
    attempt_log: list[Any]
    knobs: dict[str, Any]
    boot_attempt: int
    boot_miss_before_polish: Any
    polish_miss: Any
    boot_miss: Any

    def __init__(self, name: str):
        self.name = name
        A, n_it, R = len(ARMS), N_SCORED, N_REPS
        self.bin_of = np.repeat(np.arange(N_BINS), BIN_SCORED)
        self.ok = np.ones((A, n_it, R), bool)
        self.correct = np.zeros((A, n_it, R), np.int8)
        self.abstained = np.zeros((A, n_it, R), bool)
        self.conf = np.full((A, n_it, R), -1, np.int16)
        # trap items: (arms, bins, reps)
        self.trap_abstained = np.zeros((A, N_BINS, R), bool)
        self.trap_conf = np.full((A, N_BINS, R), -1, np.int16)

    def answered(self) -> np.ndarray:
        return self.ok & ~self.abstained


def _bin_targets(
    rng: np.random.Generator, name: str, design: dict, n_ok_bin: np.ndarray, total: int, sd_target: float | None = None
):
    if name == CONFIRMATORY:
        acc = np.array(_SONNET_BIN_ACC)
    else:
        base = total / n_ok_bin.sum()
        z = rng.normal(size=N_BINS)
        acc = np.clip(base + design["bin_spread"] * (z - z.mean()), 0.2, 1.0)
    k = np.minimum(np.round(acc * n_ok_bin).astype(int), n_ok_bin)
    # fix the total by moving single rows in the bins farthest from their target, never past 0/cap
    while k.sum() != total:
        diff = k.sum() - total
        room = (k > 0) if diff > 0 else (k < n_ok_bin)
        if name == CONFIRMATORY:  # keep the extreme bins (0.15 and 1.00) exactly where they are
            room &= (acc > 0.2) & (acc < 1.0)
        err = (k / n_ok_bin - acc) * np.sign(diff)
        j = int(np.argmax(np.where(room, err, -np.inf)))
        k[j] -= int(np.sign(diff))
    if sd_target is not None:  # move single rows between mid bins until the sample SD prints right
        mid = (acc > 0.2) & (acc < 1.0)
        for _ in range(500):
            a_ = k / n_ok_bin
            sd = a_.std(ddof=1)
            if abs(sd - sd_target) < 0.0003:
                break
            m = a_.mean()
            widen = sd < sd_target
            lo = np.nonzero(mid & (a_ < m) & (k > 0))[0]
            hi = np.nonzero(mid & (a_ > m) & (k < n_ok_bin))[0]
            j_lo = int(rng.choice(lo))
            j_hi = int(rng.choice(hi))
            step = 1 if widen else -1
            if not widen and (k[j_hi] == 0 or k[j_lo] >= n_ok_bin[j_lo]):
                continue
            k[j_lo] -= step
            k[j_hi] += step
        else:
            raise RuntimeError("per-bin accuracy SD could not be matched")
    return k


def _assign_correctness(rng: np.random.Generator, S: _Subject, design: dict, oracle_target: float | None):
    A, n_it, R = S.correct.shape
    # parse failures: uniformly over non-trap rows
    flat = rng.choice(A * n_it * R, size=design["n_fail"], replace=False)
    S.ok.reshape(-1)[flat] = False
    ok_item = S.ok.sum(axis=(0, 2))  # parsed rows per item
    n_ok_bin = np.bincount(S.bin_of, weights=ok_item, minlength=N_BINS).astype(int)
    total = sum(design["correct"].values())
    k_bin = _bin_targets(rng, S.name, design, n_ok_bin, total, design.get("bin_sd"))
    # within a bin: whole item x replicate cells are right (in all four arms) or wrong; cells are
    # drawn with Beta-distributed item propensities; the k_b mod 4 leftover rows (and any rows a
    # parse failure blocked) go to single slots of not-yet-correct cells
    for b in range(N_BINS):
        items = np.nonzero(S.bin_of == b)[0]
        beta_a, beta_b = design.get("item_beta", (0.6, 0.6))
        p_item = rng.beta(beta_a, beta_b, size=len(items)) + 0.05
        cells = [(i, r) for i in items for r in range(R)]
        w = np.array([p_item[list(items).index(i)] for i, _ in cells])
        n_full = int(k_bin[b]) // A
        pick = rng.choice(len(cells), size=min(n_full, len(cells)), replace=False, p=w / w.sum())
        for j in pick:
            i, r = cells[j]
            S.correct[:, i, r] = S.ok[:, i, r]
        left = int(k_bin[b]) - int(S.correct[:, items, :].sum())
        free = np.argwhere(S.ok[:, items, :] & (S.correct[:, items, :] == 0))
        order = rng.permutation(len(free))
        # prefer slots in cells that are already partly right, so partial cells stay few
        part = [(S.correct[:, items[f[1]], f[2]].sum() > 0) for f in free[order]]
        order = order[np.argsort(~np.array(part, bool), kind="stable")] if len(order) else order
        for j in order[:left]:
            a_, ii, r_ = free[j]
            S.correct[a_, items[ii], r_] = 1
    want = np.array([design["correct"][a] for a in ARMS])
    for _ in range(100000):
        have = S.correct.sum(axis=(1, 2))
        over, under = np.nonzero(have > want)[0], np.nonzero(have < want)[0]
        if len(over) == 0:
            break
        a_hi, a_lo = int(rng.choice(over)), int(rng.choice(under))
        cand = np.nonzero((S.correct[a_hi].sum(1) > 0) & ((S.ok[a_lo] & (S.correct[a_lo] == 0)).sum(1) > 0))[0]
        i = int(rng.choice(cand))
        r_hi = int(rng.choice(np.nonzero(S.correct[a_hi, i] == 1)[0]))
        r_lo = int(rng.choice(np.nonzero(S.ok[a_lo, i] & (S.correct[a_lo, i] == 0))[0]))
        S.correct[a_hi, i, r_hi] = 0
        S.correct[a_lo, i, r_lo] = 1
    assert (S.correct.sum(axis=(1, 2)) == want).all()
    if oracle_target is not None:
        keep = None
        if design.get("bin_sd") is not None:  # keep the printed per-bin SD, minimum and maximum
            sd_t, lo_t, hi_t = design["bin_sd"], float(np.min(_SONNET_BIN_ACC)), float(np.max(_SONNET_BIN_ACC))

            def keep(S_):
                acc = _bin_acc(S_)
                return (
                    abs(acc.std(ddof=1) - sd_t) < 0.00045
                    and f"{acc.min():.2f}" == f"{lo_t:.2f}"
                    and f"{acc.max():.2f}" == f"{hi_t:.2f}"
                )

        _tune_oracle(rng, S, oracle_target, cross_bin=True, keep=keep)


def _oracle_now(S: _Subject) -> float:
    c = (S.correct * S.ok).sum(axis=(0, 2)).astype(float)
    m = S.ok.sum(axis=(0, 2)).astype(float)
    return _oracle_auc_items(S.bin_of, c, m)


def _bin_acc(S: _Subject) -> np.ndarray:
    """Per-bin accuracy over parsed non-trap rows of all arms and replicates."""
    c = (S.correct * S.ok).sum(axis=(0, 2)).astype(float)
    m = S.ok.sum(axis=(0, 2)).astype(float)
    return np.bincount(S.bin_of, weights=c, minlength=N_BINS) / np.bincount(S.bin_of, weights=m, minlength=N_BINS)


def _tune_oracle(
    rng: np.random.Generator,
    S: _Subject,
    target: float,
    cross_bin: bool,
    tol: float = 0.00035,
    max_iter: int = 30000,
    keep=None,
):
    """Greedy swaps of two whole item x replicate cells (their correctness in all four arms, when
    both cells parsed in the same arms) within a bin (or across bins when ``cross_bin``) until the
    oracle AUROC is within ``tol`` of ``target``.  Arm totals never change."""
    cur = _oracle_now(S)
    n_cells = N_SCORED * N_REPS
    for _ in range(max_iter):
        if abs(cur - target) < tol:
            return
        c1 = int(rng.integers(n_cells))
        i1, r1 = divmod(c1, N_REPS)
        if cross_bin and rng.random() < 0.5:
            c2 = int(rng.integers(n_cells))
        else:
            items = np.nonzero(S.bin_of == S.bin_of[i1])[0]
            c2 = int(items[rng.integers(len(items))]) * N_REPS + int(rng.integers(N_REPS))
        i2, r2 = divmod(c2, N_REPS)
        if i1 == i2 or not (S.ok[:, i1, r1] == S.ok[:, i2, r2]).all():
            continue
        v1, v2 = S.correct[:, i1, r1].copy(), S.correct[:, i2, r2].copy()
        if (v1 == v2).all():
            continue
        S.correct[:, i1, r1], S.correct[:, i2, r2] = v2, v1
        new = _oracle_now(S)
        if abs(new - target) < abs(cur - target) and (keep is None or keep(S)):
            cur = new
        else:
            S.correct[:, i1, r1], S.correct[:, i2, r2] = v1, v2
    raise RuntimeError(f"{S.name}: oracle AUROC stuck at {cur:.4f} (target {target})")


def _assign_abstentions(rng: np.random.Generator, S: _Subject, design: dict):
    for a in range(len(ARMS)):
        cand = np.argwhere(S.ok[a] & (S.correct[a] == 0))
        k = design["abstain_per_arm"]
        k = k.get(ARMS[a], 0) if isinstance(k, dict) else k
        pick = rng.choice(len(cand), size=min(k, len(cand)), replace=False)
        for i, r in cand[pick]:
            S.abstained[a, i, r] = True
    S.trap_abstained[:] = rng.random(S.trap_abstained.shape) < design["trap_abstain"]


def _snap(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x / 5.0) * 5, 0, 100).astype(np.int16)


def _initial_confidences(rng: np.random.Generator, S: _Subject, design: dict):
    """Latent-model confidences; injected arms copy part of the CORE cells (see module docstring).

    conf = mean + disc[arm] * (correct - 0.85) + item effect + cell noise, snapped to the 5-point
    grid; for a non-CORE arm a cell answered alike in both arms copies the CORE confidence with
    probability ``copy[arm]``."""
    A, n_it, R = S.correct.shape
    item_eff = rng.normal(0, design.get("item_sd", 4.0), size=n_it)
    core = ARMS.index("core")
    mu = design["conf_mean"]
    disc = design.get("disc", {})
    noise = rng.normal(0, design.get("noise_sd", 6.0), size=(n_it, R))
    for a in [core] + [k for k in range(A) if k != core]:
        own = rng.normal(0, design.get("noise_sd", 6.0), size=(n_it, R))
        sh = design.get("shared", 0.5)
        lat = (
            mu
            + disc.get(ARMS[a], 6.0) * (S.correct[a] - 0.85)
            + item_eff[:, None]
            + sh * noise
            + math.sqrt(1 - sh * sh) * own
        )
        S.conf[a] = np.where(S.answered()[a], _snap(lat), -1)
        if a != core:
            share = design["copy"].get(ARMS[a], 0.0)
            both = S.answered()[a] & S.answered()[core] & (S.correct[a] == S.correct[core])
            u = rng.random((n_it, R))
            copy = both & (u < share)
            S.conf[a] = np.where(copy, S.conf[core], S.conf[a])
            anti = design.get("anti", {}).get(ARMS[a], 0.0)
            if anti:  # mirror CORE around its mean on a share of cells (a false profile inverts the ranking)
                m_c = S.conf[core][S.answered()[core]].mean()
                flip = S.answered()[a] & S.answered()[core] & (u >= 1 - anti)
                S.conf[a] = np.where(flip, _snap(2 * m_c - S.conf[core]), S.conf[a])
    S.trap_conf[:] = np.where(S.trap_abstained, -1, _snap(mu - 25 + rng.normal(0, 10, size=S.trap_conf.shape)))


# ------------------------------------------------------------------------------ confidence search
def _arm_stats(S: _Subject, a: int) -> dict[str, float]:
    m = S.answered()[a]
    y, s = S.correct[a][m].astype(float), S.conf[a][m].astype(float)
    return {"auroc": _auc(y, s), "brier": _brier(y, s), "ece": _ece(y, s)}


def _paired(S: _Subject, a: int) -> float:
    core = ARMS.index("core")
    m = S.answered()[a] & S.answered()[core]
    return _auc(S.correct[core][m], S.conf[core][m]) - _auc(S.correct[a][m], S.conf[a][m])


def _current(S: _Subject, targets: dict[tuple, float]) -> dict[tuple, float]:
    out: dict[tuple, float] = {}
    arms_needed = {k[1] for k in targets if k[0] == "arm"}
    cache = {a: _arm_stats(S, a) for a in arms_needed}
    for k in targets:
        if k[0] == "arm":
            out[k] = cache[k[1]][k[2]]
        elif k[0] == "diff":  # difference of two arms' answered-only AUROCs (unrounded)
            out[k] = _arm_stats(S, k[1])["auroc"] - _arm_stats(S, k[2])["auroc"]
        else:
            out[k] = _paired(S, k[1])
    return out


def _loss(cur: dict, targets: dict, decimals: dict) -> float:
    """Squared misses in units of half a printed digit (every target on the same scale)."""
    return float(sum(((cur[k] - t) / (0.5 * 10.0 ** (-decimals[k]))) ** 2 for k, t in targets.items()))


def _all_round(cur: dict, targets: dict, decimals: dict, margin: float = 0.1) -> bool:
    for k, t in targets.items():
        half = 0.5 * 10.0 ** (-decimals[k])
        if abs(cur[k] - t) > half * (1 - margin):
            return False
    return True


def _update(S: _Subject, targets: dict, cur: dict, a: int) -> dict:
    """Recompute only the targets that depend on arm ``a``."""
    core = ARMS.index("core")
    new = dict(cur)
    stats = None
    for k in targets:
        if k[0] == "arm" and k[1] == a:
            stats = stats or _arm_stats(S, a)
            new[k] = stats[k[2]]
        elif k[0] == "paired" and (k[1] == a or a == core):
            new[k] = _paired(S, k[1])
        elif k[0] == "diff" and a in (k[1], k[2]):
            new[k] = _arm_stats(S, k[1])["auroc"] - _arm_stats(S, k[2])["auroc"]
    return new


def _search_confidences(
    rng: np.random.Generator,
    S: _Subject,
    targets: dict,
    decimals: dict,
    max_iter: int = 200000,
    joint_share: float = 0.0,
    accept_worse: float = 0.002,
    strict: bool = True,
) -> bool:
    """Greedy one-grid-step moves of single answered confidences until every target rounds to its
    printed value (with a 10% safety margin inside the rounding interval)."""
    core = ARMS.index("core")
    arms_touched = sorted(
        {k[1] for k in targets}
        | {k[2] for k in targets if k[0] == "diff"}
        | ({core} if any(k[0] == "paired" for k in targets) else set())
    )
    cur = _current(S, targets)
    loss = _loss(cur, targets, decimals)
    cells = {a: np.argwhere(S.answered()[a]) for a in arms_touched}
    ans_all = S.answered()[arms_touched].all(axis=0)
    joint_cells = np.argwhere(ans_all)
    for it in range(max_iter):
        if _all_round(cur, targets, decimals):
            return True
        step = int(rng.choice((-10, -5, 5, 10)))
        if joint_cells.size and rng.random() < joint_share:
            # joint move: the same cell shifted in every arm whose confidence equals CORE's there,
            # so the between-arm agreement that sets the paired-contrast spread survives the search
            i, r = joint_cells[rng.integers(len(joint_cells))]
            ref = int(S.conf[core, i, r])
            arms = [a for a in arms_touched if int(S.conf[a, i, r]) == ref]
            if ref + step < 0 or ref + step > 100:
                continue
            old = {a: int(S.conf[a, i, r]) for a in arms}
            for a in arms:
                S.conf[a, i, r] = ref + step
            c2 = cur
            for a in arms:
                c2 = _update(S, targets, c2, a)
        else:
            a = arms_touched[int(rng.integers(len(arms_touched)))]
            i, r = cells[a][rng.integers(len(cells[a]))]
            old = {a: int(S.conf[a, i, r])}
            new = old[a] + step
            if new < 0 or new > 100:
                continue
            S.conf[a, i, r] = new
            c2 = _update(S, targets, cur, a)
        l2 = _loss(c2, targets, decimals)
        if l2 < loss or (it < 0.8 * max_iter and rng.random() < accept_worse):
            cur, loss = c2, l2
        else:
            for a, v in old.items():
                S.conf[a, i, r] = v
    if not strict:
        return False
    raise RuntimeError(
        f"{S.name}: confidence search did not converge: "
        + ", ".join(f"{k}={cur[k]:.4f} (target {targets[k]})" for k in targets)
    )


# --------------------------------------------------------------------------------------- profiles
def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(x, y).statistic)


def _profiles(rng: np.random.Generator, S: _Subject, rho_target: float, rho_decimals: int) -> dict:
    off = ARMS.index("off")
    ok = S.ok[off]
    acc_bin = np.array([S.correct[off][(S.bin_of == b)[:, None] & ok].mean() for b in range(N_BINS)])
    core = np.round(np.clip(np.round((acc_bin + rng.normal(0, 0.05, N_BINS)) * 20) / 20, 0.05, 1.0), 2)
    shuffled = core[rng.permutation(N_BINS)]
    level = core.mean()
    placebo = np.round(np.clip(np.round((level + rng.normal(0, 0.08, N_BINS)) * 20) / 20, 0.05, 1.0), 2)
    # match the overall level exactly-ish by shifting single bins by one grid step
    for _ in range(200):
        d = placebo.mean() - level
        if abs(d) < 0.05 / N_BINS / 2 + 1e-12:
            break
        j = int(rng.integers(N_BINS))
        placebo[j] = round(float(np.clip(placebo[j] - 0.05 * np.sign(d), 0.05, 1.0)), 2)
    half = 0.5 * 10.0 ** (-rho_decimals)
    cur = _spearman(placebo, core)
    for _ in range(200000):
        if abs(cur - rho_target) < half * 0.8:
            break
        i, j = rng.choice(N_BINS, size=2, replace=False)
        old_i, old_j = placebo[i], placebo[j]
        if rng.random() < 0.5:  # swap two bins' placebo values
            placebo[i], placebo[j] = old_j, old_i
        else:  # move one grid step from bin j to bin i (the mean, i.e. the level, is unchanged)
            if old_i + 0.05 > 1.0 + 1e-9 or old_j - 0.05 < 0.05 - 1e-9:
                continue
            placebo[i], placebo[j] = round(old_i + 0.05, 2), round(old_j - 0.05, 2)
        new = _spearman(placebo, core)
        if abs(new - rho_target) <= abs(cur - rho_target) or rng.random() < 0.02:
            cur = new
        else:
            placebo[i], placebo[j] = old_i, old_j
    else:
        raise RuntimeError(f"{S.name}: placebo Spearman stuck at {cur:.5f} (target {rho_target})")
    r2 = lambda v: [round(float(x), 2) for x in v]  # noqa: E731
    return {
        "subject": S.name,
        "model": SUBJECT_NAMES[S.name],
        "bins": list(BINS),
        "core": r2(core),
        "placebo": r2(placebo),
        "shuffled": r2(shuffled),
        "note": "Per-bin accuracy profiles injected into the calibration slot (reconstruction).",
    }


# ------------------------------------------------------------------------------------- per subject
def _targets_for(name: str, T: dict[str, float]) -> tuple[dict, dict]:
    """Deterministic confidence targets (key -> value) and their printed decimals."""
    tg: dict[tuple, float] = {}
    dec: dict[tuple, int] = {}
    if name == CONFIRMATORY:
        for arm in ARMS:
            for stat in ("auroc", "brier", "ece"):
                tg[("arm", ARMS.index(arm), stat)] = T[f"t3_{arm}_{stat}"]
                dec[("arm", ARMS.index(arm), stat)] = 3
        tg[("paired", ARMS.index("placebo"))] = T["ladder_core_vs_placebo_delta"]
        tg[("paired", ARMS.index("off"))] = T["ladder_core_vs_off_delta"]
        tg[("paired", ARMS.index("shuffled"))] = T["ladder_shuffled_paired_delta"]
        for k in list(tg):
            dec.setdefault(k, 3)
    else:
        rung = DEMOTED_ORDER.index(name) + 1
        tg[("arm", ARMS.index("off"), "auroc")] = T[f"ladder_demoted_rung{rung}_off_auroc"]
        dec[("arm", ARMS.index("off"), "auroc")] = 3
        if name == EXPLORATORY_RUNG:
            tg[("arm", ARMS.index("core"), "auroc")] = T["expl_rung_core_auroc"]
            tg[("arm", ARMS.index("shuffled"), "auroc")] = T["expl_rung_shuffled_auroc"]
            dec[("arm", ARMS.index("core"), "auroc")] = 3
            dec[("arm", ARMS.index("shuffled"), "auroc")] = 3
            key = ("diff", ARMS.index("core"), ARMS.index("shuffled"))
            tg[key] = T["expl_rung_core_minus_shuffled_delta"]
            dec[key] = 3
    return tg, dec


class _BootState:
    """Item-clustered bootstrap draws kept up to date under single-confidence moves.

    One fixed weight matrix ``W`` (draws x items) from its own seed; each *view* is an arm restricted
    to a fixed cell mask, holding the weighted per-level counts of right and wrong answers
    (``P = W @ pos``, ``N = W @ neg``), so a move costs two column updates per view it touches."""

    def __init__(self, S: _Subject, views: dict[str, tuple[int, np.ndarray]], n_boot: int, seed: int):
        self.S = S
        self.W = _boot_weights(np.random.default_rng(seed), N_SCORED, n_boot)
        self.views = {}
        for name, (a, mask) in views.items():
            pos, neg = _item_hists(S.correct[a], S.conf[a], mask)
            self.views[name] = {"arm": a, "mask": mask, "P": self.W @ pos, "N": self.W @ neg}

    def auc(self, name: str) -> np.ndarray:
        v = self.views[name]
        P, N = v["P"], v["N"]
        below = np.cumsum(N, axis=1) - N
        return (P * (below + 0.5 * N)).sum(axis=1) / (P.sum(axis=1) * N.sum(axis=1))

    def move(self, a: int, i: int, r: int, k_old: int, k_new: int) -> None:
        y = self.S.correct[a, i, r]
        w = self.W[:, i]
        for v in self.views.values():
            if v["arm"] == a and v["mask"][i, r]:
                M = v["P"] if y == 1 else v["N"]
                M[:, k_old] -= w
                M[:, k_new] += w


def _try_move(
    rng: np.random.Generator,
    S: _Subject,
    arms: list[int],
    cells: dict[int, np.ndarray],
    targets: dict,
    decimals: dict,
    cur_det: dict,
):
    """Propose one confidence step (±5 or ±10 points) on a random answered cell and apply it when
    every deterministic target still rounds to its printed value.  Returns ``(arm, item, rep, old,
    new, targets after)`` or ``None`` (nothing changed)."""
    a = arms[int(rng.integers(len(arms)))]
    i, r = cells[a][rng.integers(len(cells[a]))]
    old = int(S.conf[a, i, r])
    new = old + int(rng.choice((-10, -5, 5, 10)))
    if new < 0 or new > 100:
        return None
    S.conf[a, i, r] = new
    det = _update(S, targets, cur_det, a)
    if not _all_round(det, targets, decimals):
        S.conf[a, i, r] = old
        return None
    return a, i, r, old, new, det


def _polish_bootstrap(
    rng: np.random.Generator,
    S: _Subject,
    name: str,
    targets: dict,
    decimals: dict,
    bt: dict[str, tuple[float, float]],
    n_boot: int = 3000,
    max_iter: int = 12000,
) -> float:
    """Greedy single-confidence moves that bring the large-B percentile intervals onto the printed
    ones while every deterministic target keeps rounding to its printed value.  Returns the final
    largest endpoint miss (computed with this state's fixed draws)."""
    core = ARMS.index("core")
    ans = S.answered()
    views: dict[str, tuple[int, np.ndarray]] = {}
    if name == CONFIRMATORY:
        for arm in ("placebo", "off", "shuffled"):
            a = ARMS.index(arm)
            m = ans[a] & ans[core]
            views[f"c|{arm}"] = (core, m)
            views[f"x|{arm}"] = (a, m)
    else:
        views["core"] = (core, ans[core])
        views["shuffled"] = (ARMS.index("shuffled"), ans[ARMS.index("shuffled")])
    st = _BootState(S, views, n_boot, seed=97)
    aucs = {v: st.auc(v) for v in views}

    def intervals(au) -> dict[str, tuple[float, float]]:
        if name == CONFIRMATORY:
            out = {}
            for arm in ("placebo", "off", "shuffled"):
                d = au[f"c|{arm}"] - au[f"x|{arm}"]
                out[f"paired_core_{arm}"] = tuple(np.quantile(d, [0.025, 0.975]))
            return out
        c, sh = au["core"], au["shuffled"]
        return {
            "auroc_core": tuple(np.quantile(c, [0.025, 0.975])),
            "auroc_shuffled": tuple(np.quantile(sh, [0.025, 0.975])),
            "unpaired_core_shuffled": tuple(np.quantile(c - sh, [0.025, 0.975])),
        }

    def loss(iv):
        return sum((iv[k][j] - v[j]) ** 2 for k, v in bt.items() for j in (0, 1))

    arms = sorted({a for a, _ in views.values()})
    touched = {a: [v for v, (arm_v, _) in views.items() if arm_v == a] for a in arms}
    cells = {a: np.argwhere(ans[a]) for a in arms}
    cur_det = _current(S, targets)
    iv = intervals(aucs)
    cur = loss(iv)
    for _ in range(max_iter):
        if max(abs(iv[k][j] - v[j]) for k, v in bt.items() for j in (0, 1)) < 0.0008:
            break
        move = _try_move(rng, S, arms, cells, targets, decimals, cur_det)
        if move is None:
            continue
        a, i, r, old, new, det = move
        st.move(a, i, r, old, new)
        au2 = dict(aucs)
        for v in touched[a]:
            if views[v][1][i, r]:
                au2[v] = st.auc(v)
        iv2 = intervals(au2)
        l2 = loss(iv2)
        if l2 < cur:
            cur, iv, cur_det, aucs = l2, iv2, det, au2
        else:
            st.move(a, i, r, new, old)
            S.conf[a, i, r] = old
    return float(max(abs(iv[k][j] - v[j]) for k, v in bt.items() for j in (0, 1)))


def _item_influence(y: np.ndarray, s: np.ndarray, mask: np.ndarray) -> tuple[float, np.ndarray]:
    """AUROC of the rows in ``mask`` and each item's summed influence on it.

    A row's influence is its DeLong structural component minus the AUROC, divided by its class
    size: for a right answer ``(V10 - A) / n1`` with ``V10`` the share of wrong answers scored
    below it (ties 1/2), for a wrong one ``(V01 - A) / n0`` with ``V01`` the share of right answers
    scored above it.  Summing over an item's rows gives the item-cluster term of the clustered
    (Obuchowski 1997) variance.  ``y, s, mask`` have shape (items, reps).

    References: DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44:837; Obuchowski (1997),
    Biometrics 53:567."""
    ii, rr = np.nonzero(mask)
    sc = s[ii, rr].astype(int)
    yy = y[ii, rr] == 1
    pos = np.bincount(sc[yy], minlength=101).astype(float)
    neg = np.bincount(sc[~yy], minlength=101).astype(float)
    n1, n0 = pos.sum(), neg.sum()
    below = np.cumsum(neg) - neg
    above = n1 - np.cumsum(pos)
    A = float((pos * (below + 0.5 * neg)).sum() / (n1 * n0))
    phi = np.where(yy, ((below + 0.5 * neg)[sc] / n0 - A) / n1, ((above + 0.5 * pos)[sc] / n1 - A) / n0)
    return A, np.bincount(ii, weights=phi, minlength=y.shape[0])


def _paired_clustered_se(S: _Subject, a: int) -> tuple[float, float]:
    """CORE minus arm ``a`` on matched answered cells: the estimate and its item-clustered SE.

    ``SE^2 = C / (C - 1) * sum_c (t_core,c - t_arm,c)^2`` over the C items with a matched cell,
    where ``t`` are the item influences of :func:`_item_influence`: the large-sample variance the
    book's item-resampling bootstrap (:func:`selfconf.bootstrap.paired_auroc_contrast`) estimates."""
    core = ARMS.index("core")
    ans = S.answered()
    m = ans[a] & ans[core]
    a_c, t_c = _item_influence(S.correct[core], S.conf[core], m)
    a_x, t_x = _item_influence(S.correct[a], S.conf[a], m)
    C = int(m.any(axis=1).sum())
    d = t_c - t_x
    return a_c - a_x, float(np.sqrt(C / (C - 1) * (d @ d)))


def _polish_clustered_se(
    rng: np.random.Generator,
    S: _Subject,
    targets: dict,
    decimals: dict,
    bt: dict[str, tuple[float, float]],
    max_iter: int = 20000,
    tol: float = 0.005,
) -> float:
    """Confirmatory subject: single-confidence moves that bring each paired contrast's item-clustered
    SE onto the SE its printed interval implies, ``(hi - lo) / (2 z_0.975)``, while every
    deterministic target keeps rounding to its printed value.

    The SE is a smooth function of the rows, so unlike percentiles of a fixed set of bootstrap draws
    it cannot be fitted to the noise of particular draws; the book's bootstrap, with any seed, then
    lands within Monte-Carlo error of the printed interval.  Returns the largest relative SE miss."""
    z = Z975
    arm_of = {k: ARMS.index(k.removeprefix("paired_core_")) for k in bt}
    want = {k: (hi - lo) / (2 * z) for k, (lo, hi) in bt.items()}
    ses = {k: _paired_clustered_se(S, a)[1] for k, a in arm_of.items()}

    def loss(se: dict) -> float:
        return sum(((se[k] - want[k]) / want[k]) ** 2 for k in want)

    def worst(se: dict) -> float:
        return max(abs(se[k] - want[k]) / want[k] for k in want)

    core = ARMS.index("core")
    ans = S.answered()
    arms = sorted({core, *arm_of.values()})
    cells = {a: np.argwhere(ans[a]) for a in arms}
    cur_det = _current(S, targets)
    cur = loss(ses)
    for _ in range(max_iter):
        if worst(ses) < tol:
            break
        move = _try_move(rng, S, arms, cells, targets, decimals, cur_det)
        if move is None:
            continue
        a, i, r, old, new, det = move
        se2 = {k: (_paired_clustered_se(S, b)[1] if a in (core, b) else ses[k]) for k, b in arm_of.items()}
        l2 = loss(se2)
        if l2 < cur:
            cur, ses, cur_det = l2, se2, det
        else:
            S.conf[a, i, r] = old
    return float(worst(ses))


def _boot_targets_for(name: str, T: dict[str, float]) -> dict[str, tuple[float, float]]:
    """Printed bootstrap intervals the generator aims its large-B check (:func:`_boot_check`) at."""
    if name == CONFIRMATORY:
        return {
            "paired_core_placebo": (T["ladder_core_vs_placebo_delta_ci_lo"], T["ladder_core_vs_placebo_delta_ci_hi"]),
            "paired_core_off": (T["ladder_core_vs_off_delta_ci_lo"], T["ladder_core_vs_off_delta_ci_hi"]),
            "paired_core_shuffled": (T["ladder_shuffled_paired_delta_ci_lo"], T["ladder_shuffled_paired_delta_ci_hi"]),
        }
    if name == EXPLORATORY_RUNG:
        return {
            "auroc_core": (T["expl_rung_core_auroc_ci_lo"], T["expl_rung_core_auroc_ci_hi"]),
            "auroc_shuffled": (T["expl_rung_shuffled_auroc_ci_lo"], T["expl_rung_shuffled_auroc_ci_hi"]),
            "unpaired_core_shuffled": (
                T["expl_rung_core_minus_shuffled_delta_ci_lo"],
                T["expl_rung_core_minus_shuffled_delta_ci_hi"],
            ),
        }
    return {}


def _boot_p_targets_for(name: str, T: dict[str, float]) -> dict[str, float]:
    """Printed two-sided bootstrap p-values of the confirmatory contrasts (attempt selection only)."""
    if name == CONFIRMATORY:
        return {
            "paired_core_placebo": T["ladder_core_vs_placebo_p_raw"],
            "paired_core_off": T["ladder_core_vs_off_p_raw"],
        }
    return {}


def build_subject(name: str, rng: np.random.Generator, T: dict[str, float]) -> tuple[_Subject, dict]:
    """Build one subject's rows and profiles (steps 2-6 of the module docstring).

    Steps: :func:`_subject_design`; correctness and abstentions; then up to ``attempts`` searches for the
    confidences, each after :func:`_adapt_design` (feedback from the last attempt's intervals) and scored by
    :func:`_attempt_miss`; :func:`_keep_best` restores and polishes the best attempt; :func:`_profiles` last.
    Every step draws from ``rng`` in this order.
    """
    design, oracle = _subject_design(name, T)
    S = _Subject(name)
    _assign_correctness(rng, S, design, oracle)
    _assign_abstentions(rng, S, design)
    tg, dec = _targets_for(name, T)
    bt = _boot_targets_for(name, T)
    best = None
    S.attempt_log = []
    adapt = design.get("adapt", {}) if bt else {}
    last = None
    for attempt in range(design.get("attempts", 1) if bt else 1):
        if last is not None and adapt:
            _adapt_design(rng, S, design, adapt, bt, last)
        _initial_confidences(rng, S, design)
        ok = _search_confidences(
            rng,
            S,
            tg,
            dec,
            joint_share=design.get("joint_share", 0.0),
            accept_worse=design.get("accept_worse", 0.002),
            strict=not bt,
            max_iter=100000 if bt else 200000,
        )
        if not bt:
            break
        if not ok:  # this attempt missed a deterministic target: discard it
            S.attempt_log.append(None)
            continue
        got = _boot_check(S)
        last = got
        miss = _attempt_miss(got, bt, _boot_p_targets_for(name, T))
        S.attempt_log.append(round(float(miss), 4))
        if best is None or miss < best[0]:
            best = (miss, S.conf.copy(), attempt, S.abstained.copy(), S.trap_abstained.copy(), S.trap_conf.copy())
            S.knobs = {k: design[k] for k in ("copy", "anti", "abstain_per_arm") if k in design}
        if miss <= design.get("boot_tol", 0.0015):
            break
    if bt:
        _keep_best(rng, S, best, tg, dec, bt, n_boot=design.get("polish_boot", 3000))
    rho_id = (
        f"ladder_placebo_rho_{ {'haiku45': 'haiku', 'sonnet5': 'sonnet', 'opus48': 'opus', 'fable5': 'fable'}[name] }"
    )
    rho_dec = 4 if name == "sonnet5" else 3
    prof = _profiles(rng, S, T[rho_id], rho_dec)
    return S, prof


def _subject_design(name: str, T: dict[str, float]) -> tuple[dict[str, Any], float]:
    """A copy of subject ``name``'s design and the oracle AUROC its correctness aims at: the printed oracle of the
    confirmatory subject (whose bin-accuracy SD is the printed one too), the printed minimum for haiku45 and
    maximum for fable5, the design's own target for any other."""
    design = dict(_SUBJECT_DESIGN[name])
    if name == CONFIRMATORY:
        oracle = T["oracle_auroc_confirmatory"]
        design["bin_sd"] = T["oracle_bin_acc_sd"]
    elif name == "haiku45":
        oracle = T["oracle_auroc_subjects_min"]
    elif name == "fable5":
        oracle = T["oracle_auroc_subjects_max"]
    else:
        oracle = design["oracle_target"]
    return design, oracle


def _adapt_design(
    rng: np.random.Generator,
    S: _Subject,
    design: dict[str, Any],
    adapt: dict[str, tuple],
    bt: dict[str, tuple[float, float]],
    last: dict[str, tuple[float, float, float]],
) -> None:
    """Feedback on the structural knobs: move each knob of ``adapt`` (``key: (kind, arm, gain, lo, hi)``) by
    ``gain`` times the relative excess width of the last attempt's interval ``key`` over its printed width,
    clipped to [lo, hi]; an abstention count is rounded, and when one changed the abstentions are drawn again.

    Example: a printed width 0.04 and a last width 0.05 give an error of 0.25; with gain -8 an abstention
    count of 20 becomes 18.
    """
    redo_abst = False
    for key, (kind, arm, gain, lo, hi) in adapt.items():
        w_t = bt[key][1] - bt[key][0]
        err = ((last[key][1] - last[key][0]) - w_t) / w_t
        if kind == "abstain":
            d = dict(design["abstain_per_arm"])
            d[arm] = int(np.clip(round(d[arm] + gain * err), lo, hi))
            redo_abst |= d[arm] != design["abstain_per_arm"][arm]
            design["abstain_per_arm"] = d
        else:
            d = dict(design[kind])
            d[arm] = float(np.clip(d.get(arm, 0.0) + gain * err, lo, hi))
            design[kind] = d
    if redo_abst:
        S.abstained[:] = False
        _assign_abstentions(rng, S, design)


def _attempt_miss(
    got: dict[str, tuple[float, float, float]], bt: dict[str, tuple[float, float]], p_targets: dict[str, float]
) -> float:
    """How far an attempt's bootstrap check ``got`` lies from the printed intervals ``bt``: the largest endpoint
    miss, or a quarter of the largest miss of a printed p-value of ``p_targets`` when that is larger.

    Example::

        >>> _attempt_miss({"a": (0.1, 0.3, 0.04)}, {"a": (0.12, 0.3)}, {"a": 0.2})
        0.04
        >>> round(_attempt_miss({"a": (0.1, 0.3, 0.04)}, {"a": (0.12, 0.3)}, {}), 6)
        0.02
    """
    miss = max(abs(got[k][j] - v[j]) for k, v in bt.items() for j in (0, 1))
    for k, p_t in p_targets.items():  # tail mass at zero, weighted 1/4
        miss = max(miss, 0.25 * abs(got[k][2] - p_t))
    return miss


def _keep_best(
    rng: np.random.Generator,
    S: _Subject,
    best: tuple | None,
    tg: dict,
    dec: dict,
    bt: dict[str, tuple[float, float]],
    *,
    n_boot: int,
) -> None:
    """Put the best attempt ``best`` (miss, confidences, attempt, abstentions, trap abstentions, trap confidences)
    back into ``S``, polish it (:func:`_polish_clustered_se` for the confirmatory subject, else
    :func:`_polish_bootstrap` on ``n_boot`` draws) and record the misses before and after; an error when no
    attempt met every deterministic target."""
    if best is None:
        raise RuntimeError(f"{S.name}: no attempt met every deterministic target")
    S.conf[:] = best[1]
    S.abstained[:] = best[3]
    S.trap_abstained[:] = best[4]
    S.trap_conf[:] = best[5]
    S.boot_attempt = best[2]
    S.boot_miss_before_polish = best[0]
    if S.name == CONFIRMATORY:
        S.polish_miss = _polish_clustered_se(rng, S, tg, dec, bt)
    else:
        S.polish_miss = _polish_bootstrap(rng, S, S.name, tg, dec, bt, n_boot=n_boot)
    got = _boot_check(S)
    S.boot_miss = float(max(abs(got[k][j] - v[j]) for k, v in bt.items() for j in (0, 1)))


# ------------------------------------------------------------------------------------------ output
def _item_ids() -> list[tuple[str, int, bool]]:
    """(item_id, bin index, is_trap) for the 315 battery items; the trap is each bin's last item."""
    out = []
    for b, name in enumerate(BINS):
        n = int(BIN_SCORED[b]) + 1
        for k in range(n):
            out.append((f"{name}-{k + 1:02d}", b, k == n - 1))
    return out


def _rows(S: _Subject) -> list[dict]:
    rows = []
    scored = 0
    for item_id, bin_idx, is_trap in _item_ids():
        bin_name = BINS[bin_idx]
        for a, arm in enumerate(ARMS):
            for r in range(N_REPS):
                if is_trap:
                    ab = bool(S.trap_abstained[a, bin_idx, r])
                    conf = None if ab else int(S.trap_conf[a, bin_idx, r])
                    row = dict(status="ok", abstained=ab, confidence=conf, correct=ab)
                else:
                    i = scored
                    ok = bool(S.ok[a, i, r])
                    ab = bool(S.abstained[a, i, r])
                    conf = int(S.conf[a, i, r]) if ok and not ab else None
                    row = dict(
                        status="ok" if ok else "parse_error",
                        abstained=ab,
                        confidence=conf,
                        correct=bool(S.correct[a, i, r]) if ok else False,
                    )
                rows.append(
                    {
                        "subject": S.name,
                        "item_id": item_id,
                        "bin": bin_name,
                        "arm": arm,
                        "replicate": r + 1,
                        "is_trap": is_trap,
                        **row,
                    }
                )
        if not is_trap:
            scored += 1
    return rows


def write_bundle(out_dir: Path, subjects: dict[str, tuple[_Subject, dict]]) -> list[Path]:
    """Write the JSONL rows and profile JSON of every subject into ``out_dir`` (byte-stable)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, (S, prof) in subjects.items():
        p = out_dir / f"scored-arms-{name}.jsonl"
        with p.open("w", encoding="utf-8", newline="\n") as fh:
            for row in _rows(S):
                fh.write(json.dumps(row, separators=(",", ":")) + "\n")
        q = out_dir / f"profiles-{name}.json"
        q.write_text(json.dumps(prof, indent=1) + "\n", encoding="utf-8", newline="\n")
        paths += [p, q]
    return paths


#: Seed and draws of the book-side bootstrap used for the fidelity check (the notebooks' defaults).
FIDELITY_SEED = 20261130
FIDELITY_N_BOOT = 2000


def recompute(data_dir: Path, seed: int = FIDELITY_SEED, n_boot: int = FIDELITY_N_BOOT) -> dict[str, float]:
    """Every ladder claim recomputed from the written files with the book's analysis code."""
    frames = {s_: lad.load_scored_arms(data_dir, s_) for s_ in SUBJECTS}
    out: dict[str, float] = {}
    st = lad.rung_status(frames).set_index("subject")
    eligible = [s_ for s_ in SUBJECTS if not st.loc[s_, "demoted"]]
    demoted = [s_ for s_ in SUBJECTS if st.loc[s_, "demoted"]]
    out["ladder_n_rungs_demoted"] = len(demoted)
    out["ladder_n_eligible_rungs"] = len(eligible)
    conf = frames[CONFIRMATORY]
    tab = lad.arm_table(conf).set_index("arm")
    for arm in ARMS:
        for stat, col in (("acc", "accuracy"), ("auroc", "auroc"), ("brier", "brier"), ("ece", "ece")):
            out[f"t3_{arm}_{stat}"] = float(tab.loc[arm, col])
    out["ladder_n_rows_per_arm"] = int(tab.loc["off", "n_rows"])
    sc = lad.scored_rows(conf)
    out["ladder_n_nontrap_items"] = int(sc["item_id"].nunique())
    out["ladder_n_items_battery"] = int(conf["item_id"].nunique())
    out["ladder_n_bins"] = int(conf["bin"].nunique())
    cc = lad.confirmatory_contrasts(conf, n_boot, seed).set_index("contrast")
    for arm, key in (
        ("placebo", "ladder_core_vs_placebo"),
        ("off", "ladder_core_vs_off"),
        ("shuffled", "ladder_shuffled_paired"),
    ):
        r = cc.loc[f"core-{arm}"]
        out[f"{key}_delta"] = float(r["delta"])
        out[f"{key}_delta_ci_lo"] = float(r["ci_low"])
        out[f"{key}_delta_ci_hi"] = float(r["ci_high"])
        if arm != "shuffled":
            out[f"{key}_p_raw"] = float(r["p_raw"])
    out["ladder_p_holm_adj"] = float(cc.loc["core-placebo", "p_holm"])
    orc = {s_: lad.oracle_ceiling(frames[s_]) for s_ in SUBJECTS}
    out["oracle_auroc_confirmatory"] = orc[CONFIRMATORY]["auroc"]
    out["oracle_auroc_subjects_min"] = min(o["auroc"] for o in orc.values())
    out["oracle_auroc_subjects_max"] = max(o["auroc"] for o in orc.values())
    out["oracle_bin_acc_sd"] = orc[CONFIRMATORY]["bin_acc_sd"]
    out["oracle_bin_acc_range_min"] = orc[CONFIRMATORY]["bin_acc_min"]
    out["oracle_bin_acc_range_max"] = orc[CONFIRMATORY]["bin_acc_max"]
    out["oracle_n_rows_confirmatory"] = orc[CONFIRMATORY]["n_rows"]
    short = {"haiku45": "haiku", "sonnet5": "sonnet", "opus48": "opus", "fable5": "fable"}
    for s_ in SUBJECTS:
        out[f"ladder_placebo_rho_{short[s_]}"] = lad.placebo_correlation(lad.load_profiles(data_dir, s_))
    for k, s_ in enumerate(DEMOTED_ORDER, 1):
        out[f"ladder_demoted_rung{k}_off_acc"] = float(st.loc[s_, "off_accuracy"])
        out[f"ladder_demoted_rung{k}_off_auroc"] = float(st.loc[s_, "off_auroc"])
    fr = lad.frontier_rung(frames[EXPLORATORY_RUNG], n_boot, seed)
    out["expl_rung_core_auroc"] = fr["core"]["estimate"]
    out["expl_rung_core_auroc_ci_lo"] = fr["core"]["low"]
    out["expl_rung_core_auroc_ci_hi"] = fr["core"]["high"]
    out["expl_rung_shuffled_auroc"] = fr["shuffled"]["estimate"]
    out["expl_rung_shuffled_auroc_ci_lo"] = fr["shuffled"]["low"]
    out["expl_rung_shuffled_auroc_ci_hi"] = fr["shuffled"]["high"]
    out["expl_rung_core_minus_shuffled_delta"] = fr["delta"]["estimate"]
    out["expl_rung_core_minus_shuffled_delta_ci_lo"] = fr["delta"]["low"]
    out["expl_rung_core_minus_shuffled_delta_ci_hi"] = fr["delta"]["high"]
    return out


def generate(
    out_dir: Path, claims: Any = None, *, seed: int = SEED, check: bool = True, with_arms: bool = True
) -> dict:
    """Write the ladder bundle under ``out_dir / 'ladder'`` and return the fidelity dict.

    With ``with_arms`` (default) the probe and limitation-arm files are generated as well
    (:func:`selfconf.reconstruct.arms.generate`, its own seed), so the reconstruction driver,
    which knows only this module, regenerates every file of Results 2-3 and the Limitations.

    ``out_dir`` is the reconstructed-data root (``data/reconstructed``).  ``claims`` is accepted
    for the reconstruction driver's calling convention and ignored: targets come from the claim
    manifest via :func:`_claims_targets`.  With ``check`` the written files are re-read by the
    book's analysis code and every targeted claim is judged; the result is also written to
    ``ladder/fidelity_ladder.json``.
    """
    out_dir = Path(out_dir)
    T = _claims_targets()
    rng = np.random.default_rng(seed)
    subjects = {name: build_subject(name, rng, T) for name in SUBJECTS}
    ladder_dir = out_dir / "ladder"
    write_bundle(ladder_dir, subjects)
    fidelity: dict = {
        "generator": "selfconf.reconstruct.ladder",
        "seed": seed,
        "choices": {
            "confirmatory_subject": CONFIRMATORY,
            "exploratory_rung": EXPLORATORY_RUNG,
            "demoted_rung_order": list(DEMOTED_ORDER),
            "placebo_correlation": "Spearman (average ranks), placebo vs CORE profile over 21 bins",
            "bin_acc_sd": "sample SD (ddof=1) over 21 bins",
        },
        "generator_bootstrap_check": {
            name: {
                "n_boot": 4000,
                "attempt": getattr(S, "boot_attempt", None),
                "attempt_misses": getattr(S, "attempt_log", None),
                "knobs": getattr(S, "knobs", None),
                "max_endpoint_miss": getattr(S, "boot_miss", None),
                "intervals": {
                    k: [round(v[0], 4), round(v[1], 4)]
                    for k, v in _boot_check(S).items()
                    if k in _boot_targets_for(name, T)
                },
            }
            for name, (S, _) in subjects.items()
            if _boot_targets_for(name, T)
        },
    }
    if check:
        vals = recompute(out_dir)
        fidelity["book_bootstrap"] = {"seed": FIDELITY_SEED, "n_boot": FIDELITY_N_BOOT}
        fidelity["claims"] = judge(vals)
        fidelity["ideal_bootstrap"] = ideal_bootstrap(lambda **kw: recompute(out_dir, **kw), fidelity["claims"])
        st = [r["status"] for r in fidelity["claims"].values()]
        fidelity["summary"] = {k: st.count(k) for k in sorted(set(st))}
    (ladder_dir / "fidelity_ladder.json").write_text(
        json.dumps(fidelity, indent=1, sort_keys=True) + "\n", encoding="utf-8", newline="\n"
    )
    if with_arms:
        fidelity["arms"] = arms.generate(out_dir, check=check)
    return fidelity


# ------------------------------------------------------------------------ bootstrap (tuning aid)
def _boot_check(S: _Subject, n_boot: int = 4000, seed: int = 1) -> dict[str, tuple[float, float, float]]:
    """Large item-clustered bootstrap of the reconstruction: percentile 95% CIs of the paired
    CORE-minus-arm contrasts and of the single-arm AUROCs, plus two-sided bootstrap p-values.

    Used while designing the generator constants and reported in the fidelity file; the book's
    own numbers come from :mod:`selfconf.bootstrap`."""
    rng = np.random.default_rng(seed)
    w = _boot_weights(rng, N_SCORED, n_boot)
    core = ARMS.index("core")
    ans = S.answered()
    out: dict[str, tuple[float, float, float]] = {}
    for a, arm in enumerate(ARMS):
        pos, neg = _item_hists(S.correct[a], S.conf[a], ans[a])
        d = _boot_auc(w, pos, neg)
        out[f"auroc_{arm}"] = (float(np.quantile(d, 0.025)), float(np.quantile(d, 0.975)), float("nan"))
        if a == core:
            continue
        m = ans[a] & ans[core]
        pc, nc = _item_hists(S.correct[core], S.conf[core], m)
        px, nx = _item_hists(S.correct[a], S.conf[a], m)
        dd = _boot_auc(w, pc, nc) - _boot_auc(w, px, nx)
        p = 2 * min(np.mean(dd <= 0), np.mean(dd >= 0))
        out[f"paired_core_{arm}"] = (float(np.quantile(dd, 0.025)), float(np.quantile(dd, 0.975)), float(min(p, 1.0)))
    s_ = ARMS.index("shuffled")
    pc, nc = _item_hists(S.correct[core], S.conf[core], ans[core])
    ps, ns = _item_hists(S.correct[s_], S.conf[s_], ans[s_])
    dd = _boot_auc(w, pc, nc) - _boot_auc(w, ps, ns)
    out["unpaired_core_shuffled"] = (float(np.quantile(dd, 0.025)), float(np.quantile(dd, 0.975)), float("nan"))
    return out
