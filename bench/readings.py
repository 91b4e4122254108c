"""Benchmark: the cost of chapter 28 ("Every reading of the panel comparison") against the grid main computes.

Run from the project root:

    .venv/bin/python bench/readings.py                    # compute only: main-equivalent grid vs every reading
    .venv/bin/python bench/readings.py --page REV         # also execute page 28 of commit REV and of this tree
    .venv/bin/python bench/readings.py --n-boot 500       # smaller draws (quicker, for a look)

What it does (see bench/README.md):
1. Compute.  The *main-equivalent* path is what the page computed before the cluster and leave-out dimensions:
   ``panels.panel_readings`` on the readings with ``cluster="item"`` and ``leave_out="none"`` (the 432 readings
   of the older grid), per panel, with the page's generators.  The *new* path is the page's own:
   ``sections.readings.joint_tests`` (every reading, the joint tests) plus ``survival`` and
   ``collapse_patterns``.  Both on the reconstruction and, when ``data/external`` holds it, on the MMLU-Pro
   answers.  Times are process CPU seconds (robust to other jobs on a shared machine) and wall seconds; the
   order alternates (old, new, new, old, ...) over ``--repeats``; medians are printed.  It checks that the
   main-equivalent rows equal the same readings' rows of the full table (exit 1 otherwise).
2. Page (``--page REV``).  Executes notebook 28 of commit REV (``git archive`` into a temporary folder, run with
   that tree's package) and of this tree, alternately, each into a temporary folder, and prints wall seconds
   and the ratio.  Page 28 reads the executed Result 1 page (``book/04_result1.ipynb``): build it first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from selfconf import data, panels
from selfconf.data.fetch import read_mmlu_pro_calibration
from selfconf.data.paths import project_root, resolve
from selfconf.data.sources import resolve_families
from selfconf.sections import readings, realanswers
from selfconf.stats import summary

SEED = 20261130


def data_sets() -> list[tuple[str, object, dict]]:
    """(name, rows, panels) of the reconstruction and, when present, the MMLU-Pro analogues."""
    sources = resolve_families("data/reconstructed", ["collection"])
    rows, _ = data.load_collection(sources.path("collection"))
    out = [("reconstruction", rows, dict(panels.PANELS))]
    ext = resolve("data/external/mmlu-pro-calibration")
    if ext.is_dir():
        frame = read_mmlu_pro_calibration(ext)
        choices = realanswers.select_panels(tuple(dict.fromkeys(frame["model"])))
        out.append(("MMLU-Pro", realanswers.panel_frame(frame), {p: choices[p].members for p in panels.PANELS}))
    return out


OLD_GRID = [r for r in panels.all_readings() if r["cluster"] == "item" and r["leave_out"] == "none"]


def old_path(rows, members: dict, n_boot: int) -> dict:
    """The readings the page computed before the two new dimensions, with the page's generators."""
    return {
        name: panels.panel_readings(
            rows, mem, readings=OLD_GRID, n_boot=n_boot, rng=summary.model_rng(SEED, f"panel:{name}")
        )
        for name, mem in members.items()
    }


def new_path(rows, members: dict, n_boot: int):
    """The page's computation: every reading, the joint tests, survival and the collapse table."""
    table, tests = readings.joint_tests(rows, members, seed=SEED, n_boot=n_boot)
    readings.survival(table)
    readings.collapse_patterns(table[table["cluster"] == "item"])
    return table


def timed(fn, *args):
    c, w = time.process_time(), time.perf_counter()
    out = fn(*args)
    return out, time.process_time() - c, time.perf_counter() - w


def same_rows(old: dict, table) -> bool:
    """The main-equivalent rows equal the full table's rows of the same readings (every value column)."""
    cols = [c for c in panels.READING_COLUMNS if c not in ("status", "result_id", "same_result_as", "left_out")]
    ok = True
    for name, t in old.items():
        g = table[(table["panel"] == name) & (table["cluster"] == "item") & (table["leave_out"] == "none")]
        a, b = t[cols].reset_index(drop=True), g[cols].reset_index(drop=True)
        for c in cols:
            x, y = a[c].to_numpy(), b[c].to_numpy()
            eq = np.array_equal(x, y, equal_nan=True) if x.dtype.kind == "f" else (list(x) == list(y))
            if not eq:
                print(f"  MISMATCH {name} {c}")
                ok = False
    return ok


def page(rev: str, repeats: int) -> None:
    """Execute notebook 28 of ``rev`` and of this tree, alternately; print wall seconds and the ratio."""
    root = project_root()
    prog = (  # wall seconds, then CPU seconds of this process and its children (the kernel)
        "import resource, sys, time; from pathlib import Path; from selfconf.book.build import execute_one; "
        "t = time.perf_counter(); execute_one('28_every_reading', out_dir=sys.argv[2], root=Path(sys.argv[1])); "
        "u = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]; "
        "print(time.perf_counter() - t, sum(x.ru_utime + x.ru_stime for x in u))"
    )
    with tempfile.TemporaryDirectory(prefix="bench-readings-") as tmp:
        old_root = Path(tmp) / "old"
        old_root.mkdir()
        arch = subprocess.run(["git", "archive", rev], cwd=root, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old_root)], input=arch, check=True)
        for rel in ("data/external", "book/04_result1.ipynb"):
            src = root / rel
            if src.is_dir():
                shutil.copytree(src, old_root / rel, dirs_exist_ok=True)
            elif src.exists():
                shutil.copy2(src, old_root / rel)
        times: dict[str, list[float]] = {"old": [], "new": []}
        cpu: dict[str, list[float]] = {"old": [], "new": []}
        for n in range(repeats):
            for which in ("old", "new") if n % 2 == 0 else ("new", "old"):
                tree = old_root if which == "old" else root
                env = dict(os.environ, PYTHONPATH=str(tree / "src"))
                out = subprocess.run(
                    [sys.executable, "-c", prog, str(tree), str(Path(tmp) / f"out-{which}-{n}")],
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                wall_s, cpu_s = (float(x) for x in out.strip().splitlines()[-1].split())
                times[which].append(wall_s)
                cpu[which].append(cpu_s)
                print(f"  page 28, {which}: {wall_s:.1f} s wall, {cpu_s:.1f} s CPU")
        o, w = statistics.median(times["old"]), statistics.median(times["new"])
        co, cw = statistics.median(cpu["old"]), statistics.median(cpu["new"])
        print(
            f"page 28: {rev} {o:.1f} s wall / {co:.1f} s CPU, this tree {w:.1f} s wall / {cw:.1f} s CPU; "
            f"ratio new / old {w / o:.2f} wall, {cw / co:.2f} CPU (target <= 1.3)"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--page", metavar="REV", help="also execute page 28 of commit REV and of this tree")
    args = ap.parse_args(argv)
    ok = True
    cpu: dict[str, list[float]] = {"old": [], "new": []}
    wall: dict[str, list[float]] = {"old": [], "new": []}
    sets = data_sets()
    olds: dict[str, dict] = {}
    news: dict[str, object] = {}
    for n in range(args.repeats):
        c_old = w_old = c_new = w_new = 0.0
        for which in ("old", "new") if n % 2 == 0 else ("new", "old"):
            for name, rows, members in sets:
                if which == "old":
                    old, c, w = timed(old_path, rows, members, args.n_boot)
                    c_old, w_old = c_old + c, w_old + w
                    if n == 0:
                        olds[name] = old
                else:
                    table, c, w = timed(new_path, rows, members, args.n_boot)
                    c_new, w_new = c_new + c, w_new + w
                    if n == 0:
                        news[name] = table
        if n == 0:
            for name in olds:
                ok &= same_rows(olds[name], news[name])
            rows_new = sum(len(t) for t in news.values())
            rows_old = sum(sum(len(t) for t in o.values()) for o in olds.values())
            print(f"rows: main-equivalent {rows_old:,}, every reading {rows_new:,}")
        cpu["old"].append(c_old), cpu["new"].append(c_new), wall["old"].append(w_old), wall["new"].append(w_new)
        print(
            f"  run {n + 1}: main-equivalent {c_old:.1f} s CPU ({w_old:.1f} wall), "
            f"new {c_new:.1f} s CPU ({w_new:.1f} wall)"
        )
    co, cn = statistics.median(cpu["old"]), statistics.median(cpu["new"])
    print(
        f"compute ({', '.join(s[0] for s in sets)}; {args.n_boot:,} draws): main-equivalent {co:.1f} s CPU, "
        f"new {cn:.1f} s CPU; ratio {cn / co:.2f}; same values on the common readings: {ok}"
    )
    if args.page:
        page(args.page, args.repeats)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
