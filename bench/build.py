"""Build benchmark: cold full rebuild, warm rebuild, one-page change, one-section rerun (run by ``make bench``).

Targets: a cold full rebuild (execute every notebook with the cache off, then the HTML) in at most 90 s;
a warm rebuild with nothing changed in at most 10 s; a one-page change that re-renders that page alone;
a one-section rerun in at most 3 s.

Each measurement runs in a throw-away copy of the project (sources, data, configuration; no
``.venv``, no ``_build``, no executed notebooks), so it neither reads nor disturbs the working
tree's build, and "cold" really starts from nothing.  The virtual environment is reused as is:
installing it is not part of a rebuild.

* **cold**: ``python -m selfconf.book.build all --no-cache`` after deleting ``_build/`` and
  ``book/*.ipynb`` (every notebook executed, HTML from scratch).
* **warm**: the same command with the cache on, right after a cold build (every notebook a cache
  hit; Sphinx reads and writes no page).
* **page**: the same command after one prose page changed (``book/09_conclusion.md``); prints how many
  pages Sphinx read again (the target: that one).
* **rerun**: ``python -m selfconf.book.rerun <section> --seed 7 --n-boot 5000`` (the whole command:
  interpreter start, the kernel's start (it boots while jupytext converts the notebook and papermill is
  imported), the notebook, the kernel's stop, the diff).
* **kernel floor**: papermill executing a notebook with one empty cell, to show how much of a
  rerun is kernel start-up rather than computation.

Each is repeated ``--repeat`` times (default 3) and the median is reported with the ratio to its
target.  Usage::

    python bench/build.py [--repeat 3] [--section result1] [--skip-cold] [--toc other_toc.yml] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
TARGETS = {"cold": 90.0, "warm": 10.0, "page": 10.0, "rerun": 3.0}
IGNORE = shutil.ignore_patterns(
    ".venv", "_build", ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".ipynb_checkpoints", "node_modules"
)


def make_copy(dest: Path) -> Path:
    """Copy the project's sources into ``dest`` without build outputs."""
    shutil.copytree(ROOT, dest, ignore=IGNORE, symlinks=True)
    for p in list((dest / "book").glob("*.ipynb")) + list((dest / "notebooks").glob("*.ipynb")):
        p.unlink()
    shutil.rmtree(dest / "book" / "_static" / "tables", ignore_errors=True)
    shutil.rmtree(dest / "book" / "_static" / "vendor", ignore_errors=True)
    return dest


def clean(proj: Path) -> None:
    shutil.rmtree(proj / "_build", ignore_errors=True)
    for p in (proj / "book").glob("*.ipynb"):
        p.unlink()


FAILURES: list[str] = []
LAST_OUTPUT = ""


def _pages_read(log: str) -> int:
    """Pages Sphinx read in a build, from its ``updating environment: A added, C changed, R removed`` line."""
    import re

    m = re.search(r"updating environment: \S*?(\d+) added, (\d+) changed", re.sub(r"\x1b\[[0-9;]*m", "", log))
    return int(m.group(1)) + int(m.group(2)) if m else -1


def timed(cmd: list[str], proj: Path, label: str, must_pass: bool = False) -> float:
    """Wall-clock seconds of ``cmd`` run in ``proj``.

    A build that completes but exits non-zero (e.g. a Sphinx warning, which the book treats as an
    error) is still timed; the failure is recorded and printed at the end.  With ``must_pass`` a
    non-zero exit aborts the benchmark (used for the rerun, whose timing is meaningless otherwise).
    """
    env = {**os.environ, "SELFCONF_ROOT": str(proj)}
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    global LAST_OUTPUT
    LAST_OUTPUT = r.stdout + r.stderr
    if r.returncode:
        tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-6:])
        msg = f"{label}: exit {r.returncode} after {dt:.1f} s ({' '.join(cmd[1:])})\n{tail}"
        if must_pass:
            raise SystemExit(msg)
        if not any(f.startswith(label.rsplit(" ", 1)[0]) for f in FAILURES):
            FAILURES.append(msg)
    return dt


KERNEL_FLOOR_NB = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "c0",
            "metadata": {"tags": ["parameters"]},
            "outputs": [],
            "source": "seed = 0",
        }
    ],
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}


def kernel_floor(tmp: Path) -> float:
    """Seconds for papermill to run a one-cell notebook in-process (kernel start + shutdown)."""
    from selfconf.book.kernels import run_papermill

    src = tmp / "floor.ipynb"
    src.write_text(json.dumps(KERNEL_FLOOR_NB))
    t0 = time.perf_counter()
    run_papermill(src, tmp / "floor.out.ipynb", {"seed": 1})
    return time.perf_counter() - t0


def report(name: str, runs: list[float]) -> dict:
    med = statistics.median(runs)
    target = TARGETS.get(name)
    line = f"{name:12s} median {med:7.2f} s   runs: {', '.join(f'{r:.2f}' for r in runs)}"
    if target:
        line += f"   target {target:.0f} s -> ratio {med / target:.2f} ({'OK' if med <= target else 'MISSED'})"
    print(line, flush=True)
    return {"median_s": med, "runs_s": runs, "target_s": target, "ratio": (med / target) if target else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--section", default=None, help="section to rerun (default: result1 if present, else the teaching chapter)"
    )
    ap.add_argument("--skip-cold", action="store_true", help="build once (cold) but time only warm + rerun")
    ap.add_argument("--json", default=None, help="also write the results to this JSON file")
    ap.add_argument(
        "--toc",
        default=None,
        help="use this _toc.yml in the copy instead of the project's (e.g. to time notebooks not yet listed)",
    )
    a = ap.parse_args(argv)

    sys.path.insert(0, str(ROOT / "src"))
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="selfconf-bench-") as tmpd:
        tmp = Path(tmpd)
        proj = make_copy(tmp / "proj")
        if a.toc:
            shutil.copyfile(a.toc, proj / "_toc.yml")
        print(f"project copy: {proj} ({os.cpu_count()} cores)", flush=True)
        os.environ["SELFCONF_ROOT"] = str(proj)
        from selfconf.book.rerun import section_stems

        stems = section_stems(proj)

        cold_cmd = [PY, "-m", "selfconf.book.build", "all", "--no-cache"]
        warm_cmd = [PY, "-m", "selfconf.book.build", "all"]
        cold = []
        for i in range(1 if a.skip_cold else a.repeat):
            clean(proj)
            cold.append(timed(cold_cmd, proj, f"cold build {i + 1}"))
            print(f"  cold {i + 1}: {cold[-1]:.1f} s", flush=True)
        if not a.skip_cold:
            results["cold"] = report("cold", cold)
        warm = []
        for i in range(a.repeat):
            warm.append(timed(warm_cmd, proj, f"warm build {i + 1}"))
        results["warm"] = report("warm", warm)
        page, reread = [], []
        for i in range(a.repeat):
            conclusion = proj / "book" / "09_conclusion.md"
            conclusion.write_text(conclusion.read_text(encoding="utf-8") + "\n", encoding="utf-8")
            page.append(timed(warm_cmd, proj, f"one-page build {i + 1}"))
            reread.append(_pages_read(LAST_OUTPUT))
        results["page"] = report("page", page)
        results["page"]["pages_read"] = reread
        print(f"  pages Sphinx read again after the one-page change: {reread} (target: 1)", flush=True)
        built = [
            s
            for s in ("result1", "calibration_vs_discrimination")
            if s in stems and (proj / "book" / f"{stems[s]}.ipynb").is_file()
        ]
        section = a.section or (built[0] if built else None)
        if section is None:
            raise SystemExit("no built section to rerun: pass --section")
        rerun = []
        for _ in range(a.repeat):
            rerun.append(
                timed(
                    [PY, "-m", "selfconf.book.rerun", section, "--seed", "7", "--n-boot", "5000"],
                    proj,
                    f"rerun {section}",
                    must_pass=True,
                )
            )
        results["rerun"] = report("rerun", rerun)
        results["rerun"]["section"] = section
        out_nb = proj / "_build" / "reruns" / f"{section}-seed7-n5000" / f"{stems[section]}.ipynb"
        nb = json.loads(out_nb.read_text(encoding="utf-8"))
        cells = sum((c.get("metadata", {}).get("papermill", {}).get("duration") or 0.0) for c in nb["cells"])
        results["rerun"]["cells_s"] = cells
        print(
            f"  last rerun: notebook cells {cells:.2f} s; the rest ({rerun[-1] - cells:.2f} s) is interpreter, "
            "papermill and jupytext (while the kernel boots), the kernel's start and stop, and the diff",
            flush=True,
        )
        floor = [kernel_floor(tmp) for _ in range(a.repeat)]
        results["kernel_floor"] = report("kernel floor", floor)
        share = statistics.median(floor) / results["rerun"]["median_s"]
        print(f"kernel start-up is {100 * share:.0f}% of the rerun ({section})", flush=True)
    if FAILURES:
        print("\nWARNING: builds exited non-zero (timed anyway; the first failure of each kind):", flush=True)
        for f in FAILURES:
            print("  " + f.replace("\n", "\n    "), flush=True)
    results["failures"] = FAILURES
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
