"""Benchmark: why the reconstruction keeps a pure-Python copy of the AUROC kernel.

Run from the project root:

    .venv/bin/python bench/auroc.py                # a 25-value table, 20,000 calls per side
    .venv/bin/python bench/auroc.py --levels 101   # a table with every integer confidence

The annealer of ``selfconf.reconstruct.frontier`` evaluates the AUROC of small confidence tables (about 25
distinct values) hundreds of thousands of times.  This script times, side by side in one run and on the same
table, the kernel ``selfconf.metrics.auroc_from_counts`` (numpy) and the speed copy
``selfconf.reconstruct.faststats.auroc_lists`` (one Python loop), checks that they return the same value to the
last bit, and prints one line with both times and their ratio.  Exit status 1 if the values differ.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from selfconf.metrics import auroc_from_counts
from selfconf.reconstruct.faststats import auroc_lists


def _time(fn, calls: int, repeats: int) -> float:
    """Median over ``repeats`` of the time per call (seconds), ``calls`` calls per repeat."""
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - t) / calls)
    return statistics.median(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, default=25, help="distinct confidence values in the table (default 25)")
    ap.add_argument("--calls", type=int, default=20_000, help="calls per timing repeat (default 20,000)")
    ap.add_argument("--repeats", type=int, default=5, help="timing repeats, median reported (default 5)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    c0 = rng.integers(0, 80, a.levels)
    c1 = rng.integers(0, 80, a.levels)
    l0, l1 = c0.tolist(), c1.tolist()  # the annealer keeps its tables as lists
    kernel = float(auroc_from_counts(c1, c0))
    copy = auroc_lists(l0, l1)
    if kernel != copy:
        print(f"MISMATCH: kernel {kernel!r} vs speed copy {copy!r}")
        return 1
    # alternate the two sides so a change in machine load hits both
    t_kernel, t_copy = [], []
    for _ in range(a.repeats):
        t_kernel.append(_time(lambda: auroc_from_counts(l1, l0), a.calls, 1))
        t_copy.append(_time(lambda: auroc_lists(l0, l1), a.calls, 1))
    k, c = statistics.median(t_kernel), statistics.median(t_copy)
    print(
        f"AUROC of a {a.levels}-value table (lists, as the annealer holds them): kernel "
        f"metrics.auroc_from_counts {1e6 * k:.1f} us/call, speed copy faststats.auroc_lists {1e6 * c:.1f} us/call: "
        f"the copy is {k / c:.1f}x faster; values identical ({kernel!r})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
