"""Time ``selfconf probe --analyse-only`` beside ``selfconf report`` on the same rows.

Usage (from the repository root)::

    PYTHONPATH=src python bench/probe.py                      # 4 arms x 5,000 items x 2 replicates
    PYTHONPATH=src python bench/probe.py --items 1000 --repeat 1

Synthetic, seeded rows: per item a latent difficulty; each arm x replicate answers right with that
probability and states an integer confidence 0-100 that rises with it (the ``forged`` arm is not used: the
book's four ladder arms).  The same rows are written twice: as a probe log (JSONL, one ``arm`` record per item x
arm x replicate plus the injected profiles) and as a report CSV (``model`` = arm, ``item_id`` = item and
replicate).  Both commands run as fresh interpreters with ``--json`` and 2,000 bootstrap draws; the medians
of ``--repeat`` runs are printed with their ratio (probe / report), wall-clock and CPU (user + system of the
child, all its threads).  The target: the probe's analysis costs no more than the report on the same rows
(ratio <= 1).  On a shared machine only the side-by-side ratio means anything.  ``--baseline-src DIR`` also
times the probe with ``PYTHONPATH=DIR`` (another checkout's ``src``, e.g. the code before a change) in the same
alternation, so a before/after comparison shares the machine's load.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ARMS = ("off", "placebo", "core", "shuffled")
DOMAINS = [f"d{k:02d}" for k in range(20)]


def make_files(d: Path, n_items: int, n_rep: int, seed: int = 0) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.2, 0.95, n_items)
    log, rep_csv = d / "probe.jsonl", d / "report.csv"
    with open(log, "w", encoding="utf-8") as fl, open(rep_csv, "w", newline="", encoding="utf-8") as fc:
        w = csv.writer(fc)
        w.writerow(["model", "item_id", "confidence", "correct"])
        core = rng.uniform(0.3, 0.9, len(DOMAINS))
        prof = {"stage": "profiles", "item_id": "", "arm": None, "replicate": 0, "bin": DOMAINS}
        prof.update({"core": core.tolist(), "placebo": rng.permutation(core).tolist(), "shuffled": core[::-1].tolist()})
        fl.write(json.dumps(prof) + "\n")
        for arm in ARMS:
            for r in range(1, n_rep + 1):
                y = rng.random(n_items) < skill
                c = np.clip(np.rint(rng.normal(100 * skill + 5, 15)), 0, 100).astype(int)
                for i in range(n_items):
                    rec = {
                        "stage": "arm",
                        "item_id": f"i{i}",
                        "domain": DOMAINS[i % len(DOMAINS)],
                        "arm": arm,
                        "replicate": r,
                        "status": "ok",
                        "abstained": False,
                        "confidence": int(c[i]),
                        "correct": bool(y[i]),
                    }
                    fl.write(json.dumps(rec) + "\n")
                    w.writerow([arm, f"i{i}-r{r}", int(c[i]), int(y[i])])
    return log, rep_csv


def timed(argv: list[str], src: str | None = None) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system, all threads) of ``python -m selfconf.cli ARGV`` in a fresh
    interpreter (``PYTHONPATH=src`` when given)."""
    env = dict(os.environ, **({"PYTHONPATH": src} if src else {}))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "selfconf.cli", *argv], capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:2])} failed: {done.stderr.strip()[-500:]}")
    return dt, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=5000)
    ap.add_argument("--replicates", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline-src", metavar="DIR", help="also time the probe with PYTHONPATH=DIR (before/after)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log, rep = make_files(Path(tmp), a.items, a.replicates)
        n = a.items * a.replicates * len(ARMS)
        probe = ["probe", "--analyse-only", str(log), "--json", "--n-boot", "2000"]
        tp, tr, tb = [], [], []
        for _ in range(a.repeat):  # alternate, so a change in machine load hits every command
            if a.baseline_src:
                tb.append(timed(probe, a.baseline_src))
            tp.append(timed(probe))
            tr.append(timed(["report", str(rep), "--json", "--n-boot", "2000"]))

    def med(t: list[tuple[float, float]], k: int) -> float:
        return statistics.median(x[k] for x in t)

    print(
        f"rows: {n:,} ({len(ARMS)} arms x {a.items:,} items x {a.replicates} replicates); load {os.getloadavg()[0]:.1f}"
    )
    print(f"selfconf probe --analyse-only: {med(tp, 0):.2f} s (median of {a.repeat}; CPU {med(tp, 1):.2f} s)")
    print(f"selfconf report:               {med(tr, 0):.2f} s (median of {a.repeat}; CPU {med(tr, 1):.2f} s)")
    if tb:
        print(f"probe with the baseline src:   {med(tb, 0):.2f} s (median of {a.repeat}; CPU {med(tb, 1):.2f} s)")
    print(f"ratio probe / report: {med(tp, 0) / med(tr, 0):.2f} (target <= 1); CPU ratio {med(tp, 1) / med(tr, 1):.2f}")
    if tb:
        print(f"ratio baseline probe / report: {med(tb, 0) / med(tr, 0):.2f}; CPU ratio {med(tb, 1) / med(tr, 1):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
