"""Time ``selfconf report --json`` on large synthetic files against merely reading them (pyarrow).

Usage (from the repository root)::

    PYTHONPATH=src python bench/report.py                 # 1,000,000 rows (100 models x 10,000 items)
    PYTHONPATH=src python bench/report.py --items 100000  # 10,000,000 rows
    PYTHONPATH=src python bench/report.py --file /tmp/rows-1m.csv   # write the file once, reuse it after

The file holds integer confidences 0-100 and 0/1 grades (seeded, so every run uses the same
file).  The report runs as a child process (``python -m selfconf.cli report FILE --json`` with
2,000 bootstrap draws: every interval); its wall time and peak resident memory (``getrusage``
of the child) are printed beside the time pyarrow takes to read the same file into columns (best
of three warm reads, and once in a fresh interpreter), the ratio to the warm read, the child's CPU
time and the machine's load average (on a shared machine the wall time depends on it).  The
fixed cost every run pays is printed too: a fresh interpreter that imports the command line and
builds its parser (what ``selfconf report`` does before reading a row), so the ratio can be split
into start-up and the work proper.  Targets (issue 11): ratio <= 10 and peak < 500 MB at 1M rows; ratio <= 10
and peak < 2 GB at 10M rows.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def make_file(path: Path, n_models: int, n_items: int, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    rng = np.random.default_rng(seed)
    n = n_models * n_items
    model = np.repeat(np.arange(n_models), n_items)
    skill = rng.uniform(0.3, 0.9, n_models)[model]
    conf = np.clip(np.rint(rng.normal(100 * skill + 10, 15)), 0, 100).astype(np.int64)
    correct = (rng.random(n) < skill).astype(np.int64)
    table = pa.table(
        {
            "model": pa.array([f"model-{m:03d}" for m in range(n_models)]).take(pa.array(model)),
            "item_id": pa.array(np.tile(np.arange(n_items), n_models)).cast(pa.string()),
            "confidence": conf,
            "correct": correct,
        }
    )
    pcsv.write_csv(table, str(path))


def read_time(path: Path, repeat: int = 3) -> float:
    import pyarrow.csv as pcsv

    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        pcsv.read_csv(str(path))
        best = min(best, time.perf_counter() - t0)
    return best


def cold_read_time(path: Path) -> float:
    """Wall time of a fresh interpreter that imports pyarrow and reads the file (no report code)."""
    code = (
        f"import time, pyarrow.csv as c; t = time.perf_counter(); c.read_csv({str(path)!r}); "
        "print(time.perf_counter() - t)"
    )
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def startup_time(repeat: int = 3) -> float:
    """Best wall time of a fresh interpreter importing ``selfconf.cli`` and building the parser (no rows read)."""
    code = "from selfconf.cli.commands import build_parser; build_parser()"
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument(
        "--resampling",
        choices=("rows", "poisson"),
        default="rows",
        help="the report's --resampling (default rows, the report's default)",
    )
    ap.add_argument(
        "--file",
        type=Path,
        default=None,
        help="CSV to use: written (seeded) when missing, else reused as is (give the --models and --items "
        "it was written with); default a temporary file",
    )
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = a.file or Path(tmp) / "rows.csv"
        if not path.is_file():
            make_file(path, a.models, a.items)
        n = a.models * a.items
        t_start = startup_time()
        t_read = read_time(path)
        t_cold = cold_read_time(path)
        env = dict(os.environ)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "selfconf.cli",
                "report",
                str(path),
                "--json",
                "--n-boot",
                str(a.n_boot),
                "--resampling",
                a.resampling,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        t_rep = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        peak_mb = after.ru_maxrss / 1024
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if proc.returncode:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        print(
            f"rows {n:,} ({a.models} models x {a.items:,} items), file {path.stat().st_size / 1e6:.1f} MB, "
            f"{a.n_boot} draws, --resampling {a.resampling}"
        )
        print(
            f"pyarrow read           {t_read:8.2f} s   (best of 3, warm; in a fresh interpreter with its import: "
            f"{t_cold:.2f} s)"
        )
        print(
            f"selfconf report --json {t_rep:8.2f} s   ratio {t_rep / t_read:6.1f}x   peak memory {peak_mb:,.0f} MB   "
            f"CPU {cpu:.2f} s on {os.cpu_count()} cores (load average {os.getloadavg()[0]:.2f})"
        )
        print(
            f"start-up (imports + parser, no rows; best of 3): {t_start:.2f} s = {t_start / t_read:.1f}x the read; "
            f"the rest {t_rep - t_start:.2f} s = {(t_rep - t_start) / t_read:.1f}x"
        )
        print(f"targets: ratio <= 10x and peak < {500 if n <= 1_000_000 else 2000} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
