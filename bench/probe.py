"""Time ``selfconf probe --analyse-only`` beside ``selfconf report`` on the same rows.

Usage (from the repository root)::

    PYTHONPATH=src python bench/probe.py                      # 4 arms x 5,000 items x 2 replicates
    PYTHONPATH=src python bench/probe.py --items 1000 --repeat 1

Synthetic, seeded rows: per item a latent difficulty; each arm x replicate answers right with that
probability and states an integer confidence 0-100 that rises with it (the ``forged`` arm is not used: the
book's four ladder arms).  The same rows are written twice: as a probe log (JSONL, one ``arm`` record per item x
arm x replicate plus the injected profiles) and as a report CSV (``model`` = arm, ``item_id`` = item and
replicate).  Both commands run as fresh interpreters with ``--json`` and 2,000 bootstrap draws; the medians
of ``--repeat`` runs are printed with their ratio (probe / report).  The target: the probe's analysis costs no
more than the report on the same rows (ratio <= 1).  On a shared machine only the side-by-side ratio means
anything.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
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


def timed(argv: list[str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "selfconf.cli", *argv], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:2])} failed: {done.stderr.strip()[-500:]}")
    return dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=5000)
    ap.add_argument("--replicates", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log, rep = make_files(Path(tmp), a.items, a.replicates)
        n = a.items * a.replicates * len(ARMS)
        tp, tr = [], []
        for _ in range(a.repeat):  # alternate, so a change in machine load hits both
            tp.append(timed(["probe", "--analyse-only", str(log), "--json", "--n-boot", "2000"]))
            tr.append(timed(["report", str(rep), "--json", "--n-boot", "2000"]))
    mp, mr = statistics.median(tp), statistics.median(tr)
    print(
        f"rows: {n:,} ({len(ARMS)} arms x {a.items:,} items x {a.replicates} replicates); load {os.getloadavg()[0]:.1f}"
    )
    print(f"selfconf probe --analyse-only: {mp:.2f} s (median of {a.repeat})")
    print(f"selfconf report:               {mr:.2f} s (median of {a.repeat})")
    print(f"ratio probe / report: {mp / mr:.2f} (target <= 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
