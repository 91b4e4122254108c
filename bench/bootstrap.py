"""Benchmark: vectorised bootstrap AUROC CI vs. a scikit-learn loop on the same draws.

Run from the project root:

    .venv/bin/python bench/bootstrap.py            # defaults: n=1500, 2000 draws
    .venv/bin/python bench/bootstrap.py --repeats 7

What it does (see bench/README.md):
1. Builds n synthetic rows: integer confidences 0-100 heaped on multiples of 5,
   correctness that rises with confidence (AUROC about 0.6-0.7), converted to
   0-1 with ``selfconf.metrics.from_percent`` as the book does.
2. Times the percentile CI of the AUROC from 2,000 row-level draws three ways on
   the SAME index matrix (same seed):
     a. ``percentile_ci(auroc_batched, ..., batched=True)``  (generic vectorised path)
     b. ``auroc_ci(...)``                                    (AUROC fast path)
     c. a Python loop calling ``sklearn.metrics.roc_auc_score`` once per draw
   and checks that all three give the same draws and the same CI.
3. Times the nine Table-1-sized CIs (one per frontier model, n about 1,500 each).

Times for a and b include drawing the index matrix; the loop time (c) does not
(its draws are made once beforehand), which favours the loop.  The exit status
is 1 if the CIs disagree (or a rerun with the same seed changes the draws).
Half of the vectorised timing repeats run before the loop and half after it.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np
import sklearn
from sklearn.metrics import roc_auc_score

from selfconf import bootstrap as bs
from selfconf import metrics as m

# Table 1 row counts (frontier models, fully graded set) and round accuracies for synthetic rows.
TABLE1_N = [1461, 1500, 1497, 1500, 1500, 1493, 1500, 1495, 1500]
TABLE1_ACC = [0.66, 0.52, 0.47, 0.38, 0.36, 0.28, 0.17, 0.17, 0.10]


def synthetic_rows(n: int, accuracy: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Heaped integer confidences (percent) and correctness loosely tied to them."""
    rng = np.random.default_rng(seed)
    levels = np.arange(0, 101, 5)
    weights = np.ones(levels.size)
    weights[levels >= 80] = [5, 8, 10, 14, 6]  # 80, 85, 90, 95, 100
    pct = rng.choice(levels, size=n, p=weights / weights.sum())
    stray = rng.random(n) < 0.08  # a few values off the multiples of 5
    pct[stray] = rng.integers(0, 101, int(stray.sum()))
    logit = np.log(accuracy / (1 - accuracy)) + 0.04 * (pct - pct.mean())
    correct = rng.random(n) < 1.0 / (1.0 + np.exp(-logit))
    return pct, correct


def timed(fn, repeats: int):
    """Run fn `repeats` times; return (last result, list of wall times in s)."""
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1500, help="rows (default 1500)")
    ap.add_argument("--n-boot", type=int, default=2000, help="bootstrap draws (default 2000)")
    ap.add_argument("--seed", type=int, default=20260, help="seed for data and draws")
    ap.add_argument("--repeats", type=int, default=5, help="timing repeats for the vectorised paths")
    ap.add_argument("--loop-repeats", type=int, default=1, help="timing repeats for the sklearn loop")
    args = ap.parse_args(argv)

    print("selfconf bootstrap benchmark")
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
        f"cpus {os.cpu_count()}, OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}"
    )
    pct, correct = synthetic_rows(args.n, 0.45, args.seed)
    conf = m.from_percent(pct)
    print(
        f"data: n={args.n}, {np.unique(pct).size} distinct confidence levels, "
        f"{np.mean(pct % 5 == 0):.0%} on multiples of 5, accuracy {correct.mean():.3f}, "
        f"AUROC {m.auroc(conf, correct):.4f}; draws: {args.n_boot}"
    )

    # warm-up (imports, allocator) so the first timed call is not penalised
    bs.auroc_ci(conf, correct, n_boot=50, rng=0)
    bs.percentile_ci(m.auroc_batched, conf, correct, batched=True, n_boot=50, rng=0)

    def run_vec():
        return bs.percentile_ci(m.auroc_batched, conf, correct, batched=True, n_boot=args.n_boot, rng=args.seed)

    def run_fast():
        return bs.auroc_ci(conf, correct, n_boot=args.n_boot, rng=args.seed)

    idx = bs.resample_indices(args.n, args.n_boot, args.seed)  # the same draws as the two paths above

    def sklearn_loop():
        draws = np.array([roc_auc_score(correct[i], conf[i]) for i in idx])
        return draws, bs.percentile_interval(draws, 0.95)

    # half of the vectorised repeats before the loop and half after, so a change in machine load
    # during the run affects both sides of the ratio alike
    first = (args.repeats + 1) // 2
    vec, t_vec = timed(run_vec, first)
    fast, t_fast = timed(run_fast, first)
    (loop_draws, loop_ci), t_loop = timed(sklearn_loop, args.loop_repeats)
    vec2, t_more = timed(run_vec, args.repeats - first)
    t_vec += t_more
    fast2, t_more = timed(run_fast, args.repeats - first)
    t_fast += t_more

    repeat_identical = all(r is None or np.array_equal(r.draws, ref.draws) for r, ref in ((vec2, vec), (fast2, fast)))
    max_diff = max(float(np.max(np.abs(vec.draws - loop_draws))), float(np.max(np.abs(fast.draws - loop_draws))))
    same_ci = (
        abs(vec.low - loop_ci[0]) <= 1e-12
        and abs(vec.high - loop_ci[1]) <= 1e-12
        and abs(fast.low - loop_ci[0]) <= 1e-12
        and abs(fast.high - loop_ci[1]) <= 1e-12
    )
    print()
    print(f"CI generic vectorised : {vec.estimate:.6f} [{vec.low:.6f}, {vec.high:.6f}]")
    print(f"CI auroc_ci fast path : {fast.estimate:.6f} [{fast.low:.6f}, {fast.high:.6f}]")
    print(f"CI sklearn loop       : {m.auroc(conf, correct):.6f} [{loop_ci[0]:.6f}, {loop_ci[1]:.6f}]")
    print(
        f"max |draw difference| = {max_diff:.2e}; same CI: {'YES' if same_ci else 'NO'}; "
        f"repeated runs identical: {'YES' if repeat_identical else 'NO'}"
    )

    med_vec, med_fast, med_loop = (statistics.median(t) for t in (t_vec, t_fast, t_loop))
    print()
    print(f"time sklearn loop ({args.n_boot} x roc_auc_score, draws pre-made): {med_loop:8.3f} s")
    print(
        f"time percentile_ci(auroc_batched, batched=True) (median of {args.repeats}): "
        f"{med_vec * 1e3:8.1f} ms (min {min(t_vec) * 1e3:.1f})"
    )
    print(
        f"time auroc_ci (median of {args.repeats}):                              "
        f"{med_fast * 1e3:8.1f} ms (min {min(t_fast) * 1e3:.1f})"
    )
    print(f"RATIO sklearn loop / generic vectorised : {med_loop / med_vec:7.1f}x  (target >= 50x)")
    print(f"RATIO sklearn loop / auroc_ci fast path : {med_loop / med_fast:7.1f}x")

    # nine Table-1-sized CIs
    data = [synthetic_rows(n, acc, args.seed + k) for k, (n, acc) in enumerate(zip(TABLE1_N, TABLE1_ACC, strict=True))]
    data = [(m.from_percent(p), y) for p, y in data]

    def nine(fn):
        return [fn(c, y, args.seed + k) for k, (c, y) in enumerate(data)]

    _, t9_fast = timed(lambda: nine(lambda c, y, s: bs.auroc_ci(c, y, n_boot=args.n_boot, rng=s)), args.repeats)
    _, t9_vec = timed(
        lambda: nine(lambda c, y, s: bs.percentile_ci(m.auroc_batched, c, y, batched=True, n_boot=args.n_boot, rng=s)),
        args.repeats,
    )
    print()
    print(f"nine Table-1 CIs (n = {min(TABLE1_N)}-{max(TABLE1_N)}, {args.n_boot} draws each):")
    print(f"  auroc_ci             : {statistics.median(t9_fast) * 1e3:8.1f} ms total (median of {args.repeats})")
    print(f"  percentile_ci generic: {statistics.median(t9_vec) * 1e3:8.1f} ms total (median of {args.repeats})")
    print(
        f"  sklearn loop (est.)  : {med_loop * sum(TABLE1_N) / args.n:8.1f} s total "
        "(the measured single loop scaled to the nine row counts)"
    )
    if not (same_ci and repeat_identical):
        print("FAIL: the vectorised and sklearn CIs differ, or a rerun changed the draws", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
