"""The exploratory benchmark-age arm: TruthfulQA MC rows for deepseek, mistral and zhipu.

The paper prints, per model, the TruthfulQA-minus-SimpleQA accuracy gap in percentage points
with a 95% CI (method not stated) and zhipu's TruthfulQA accuracy (89.2%).  The SimpleQA side
is the collection's graded rows, so only the TruthfulQA side is generated here: for each
model a number of graded items ``n_t`` (at most the 817 questions of TruthfulQA) and a number
correct ``k_t`` such that

* the gap prints as published (and zhipu's accuracy prints 89.2), and
* the CI of an **unpaired percentile bootstrap of the difference of proportions** (each
  benchmark's rows resampled independently, 2,000 draws; the method the book uses) is as
  close as possible to the printed endpoints (normal approximation while searching).

Which TruthfulQA items are correct is drawn at random (item order carries no meaning).
"""

from __future__ import annotations

import math

import numpy as np

from selfconf.reconstruct.targets import Targets
from selfconf.stats.normal import Z975

__all__ = ["BENCH_MODELS", "TRUTHFULQA_ITEMS", "choose_counts", "benchmark_rows"]

BENCH_MODELS = ("deepseek", "mistral", "zhipu")
TRUTHFULQA_ITEMS = 817


def choose_counts(T: Targets, sqa_counts: dict[str, tuple[int, int]]) -> dict[str, dict]:
    """(n_t, k_t) per model: exact printed gap, CI endpoints nearest in the normal approximation."""
    out = {}
    for m in BENCH_MODELS:
        n_s, k_s = sqa_counts[m]
        p_s = k_s / n_s
        g_lo, g_hi = T.interval(f"bench_age_{m}_gap_pp")
        ci_lo, ci_hi = T.value(f"bench_age_{m}_gap_ci_lo"), T.value(f"bench_age_{m}_gap_ci_hi")
        best = None
        for n_t in range(600, TRUTHFULQA_ITEMS + 1):
            for k_t in range(int(n_t * 0.5), n_t + 1):
                gap = 100 * (k_t / n_t - p_s)
                if not (g_lo < gap < g_hi):
                    continue
                if m == "zhipu":
                    a_lo, a_hi = T.interval("bench_age_zhipu_truthfulqa_acc")
                    if not (a_lo < 100 * k_t / n_t < a_hi):
                        continue
                p_t = k_t / n_t
                se = 100 * math.sqrt(p_s * (1 - p_s) / n_s + p_t * (1 - p_t) / n_t)
                err = max(abs(gap - Z975 * se - ci_lo), abs(gap + Z975 * se - ci_hi))
                cand = (err, -n_t, k_t)
                if best is None or cand < best:
                    best = cand
        assert best is not None  # the unpacking below already relies on a candidate
        err, neg_n, k_t = best
        out[m] = {"n": -neg_n, "k": k_t, "normal_ci_error_pp": err}
    return out


def benchmark_rows(counts: dict[str, dict], rng: np.random.Generator) -> list[list[str]]:
    """CSV rows ``model, item_id, benchmark, correct`` (graded TruthfulQA MC rows only)."""
    rows = []
    for m in BENCH_MODELS:
        n, k = counts[m]["n"], counts[m]["k"]
        items = np.sort(rng.choice(TRUTHFULQA_ITEMS, size=n, replace=False))
        correct = np.zeros(n, dtype=int)
        correct[rng.choice(n, size=k, replace=False)] = 1
        for i, c in zip(items, correct, strict=True):
            rows.append([m, f"tqa-{i + 1:04d}", "truthfulqa_mc", str(int(c))])
    return rows
