"""Time ``selfconf report --json`` on large synthetic files against merely reading them (pyarrow).

Usage (from the repository root)::

    PYTHONPATH=src python bench/report.py                 # 1,000,000 rows (100 models x 10,000 items)
    PYTHONPATH=src python bench/report.py --items 100000  # 10,000,000 rows
    PYTHONPATH=src python bench/report.py --file /tmp/rows-1m.csv   # write the file once, reuse it after

The file holds integer confidences 0-100 and 0/1 grades (seeded, so every run uses the same
file).  The report runs as a child process (``python -m selfconf.cli report FILE --json`` with
2,000 bootstrap draws: every interval); its wall time and peak resident memory (the child's own
``VmHWM`` at exit) are printed beside the time pyarrow takes to read the same file into columns (best
of three warm reads, and once in a fresh interpreter), the ratio to the warm read, the child's CPU
time and the machine's load average (on a shared machine the wall time depends on it).  The
fixed cost every run pays is printed too: a fresh interpreter that imports the command line and
builds its parser (what ``selfconf report`` does before reading a row), so the ratio can be split
into start-up and the work proper, and so is the time of the bootstrap draws alone (the report's
sampler on every model, in-process, no statistic computed): no implementation that draws the same
bootstrap with numpy's samplers can take less.  Targets: ratio <= 10 and peak < 500 MB
at 1M rows; ratio <= 10 and peak < 2 GB at 10M rows.

``--recalibrate isotonic`` (or temperature, histogram) adds a run with that option and prints its cost
beside the plain run.  ``--baseline-src DIR`` (the ``src`` folder of another checkout, e.g. ``git worktree
add /tmp/base main``) times that code's report on the same file in the same run, alternating with this
one ``--repeat`` times, and prints the ratio of the medians (on a shared machine only a side-by-side
comparison means anything).
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

#: The report's command line, run by a fresh interpreter that prints its own peak resident memory at exit.
#: ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` is no measure of it on Linux: a child's maximum includes the
#: memory of the parent it was forked from (before it executed Python), and it is the largest over every
#: child waited for so far.  ``VmHWM`` of ``/proc/self/status`` is the peak of the executed program only.
_REPORT_WITH_PEAK = """
import sys
from selfconf.cli.commands import main
try:
    rc = main(sys.argv[1:])
finally:
    try:
        with open("/proc/self/status") as fh:
            hwm = [line.split()[1] for line in fh if line.startswith("VmHWM:")]
        print("bench-peak-kib", hwm[0], file=sys.stderr)
    except (OSError, IndexError):
        pass
sys.exit(rc)
"""


def _child_peak_mb(stderr: str, ru_maxrss_kib: int) -> float:
    """The report child's peak in MB (KiB / 1024), from its ``VmHWM`` line; ``ru_maxrss`` where there is none."""
    for line in stderr.splitlines():
        if line.startswith("bench-peak-kib "):
            return int(line.split()[1]) / 1024
    return ru_maxrss_kib / 1024


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


def draws_alone(path: Path, n_boot: int, resampling: str) -> tuple[float, int]:
    """Wall time of the bootstrap draws alone, every model, no statistic: the floor of the report's compute.

    The per-model (level, class) counts are taken from the file (not timed); each model's ``n_boot`` draws
    are then generated by the report's sampler (:func:`selfconf.bootstrap.count_draws`, or
    :func:`~selfconf.bootstrap.poisson_count_draws`) and discarded, on as many threads as the report uses.
    Returns (seconds, threads).
    """
    import pyarrow.csv as pcsv

    from selfconf import bootstrap
    from selfconf.report.core import _map_units, _workers
    from selfconf.stats.streams import stream

    t = pcsv.read_csv(str(path))
    model = np.unique(t.column("model").to_numpy(zero_copy_only=False), return_inverse=True)[1].reshape(-1)
    conf = t.column("confidence").to_numpy().astype(np.int64)
    y = t.column("correct").to_numpy().astype(np.int64)
    m = int(model.max()) + 1
    cells = np.bincount((model * 101 + conf) * 2 + y, minlength=m * 202).reshape(m, 101, 2)
    draw = bootstrap.poisson_count_draws if resampling == "poisson" else bootstrap.count_draws

    def one(u: int) -> None:
        used = cells[u].sum(axis=1) > 0
        for _ in draw(cells[u, used, 1], cells[u, used, 0], n_boot=n_boot, rng=stream(0, str(u))):
            pass

    t0 = time.perf_counter()
    _map_units(one, m)
    return time.perf_counter() - t0, _workers(m)


def _report_wall(path: Path, n_boot: int, resampling: str, src: str | None, extra: list[str]) -> float:
    """Wall time of one ``report --json`` child, with ``src`` first on its PYTHONPATH when given."""
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    argv = ["report", str(path), "--json", "--n-boot", str(n_boot), "--resampling", resampling, *extra]
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", _REPORT_WITH_PEAK, *argv],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    return time.perf_counter() - t0


def side_by_side(path: Path, a: argparse.Namespace) -> None:
    """Alternate the report of ``--baseline-src``, this one and (with ``--recalibrate``) this one with it."""
    here = str(Path(__file__).resolve().parents[1] / "src")
    runs: dict[str, list[float]] = {"baseline": [], "this": []}
    if a.recalibrate:
        runs[f"this --recalibrate {a.recalibrate}"] = []
    for _ in range(a.repeat):
        if a.baseline_src:
            runs["baseline"].append(_report_wall(path, a.n_boot, a.resampling, a.baseline_src, []))
        runs["this"].append(_report_wall(path, a.n_boot, a.resampling, here, []))
        if a.recalibrate:
            runs[f"this --recalibrate {a.recalibrate}"].append(
                _report_wall(path, a.n_boot, a.resampling, here, ["--recalibrate", a.recalibrate])
            )
    med = {k: float(np.median(v)) for k, v in runs.items() if v}
    for k, v in runs.items():
        if v:
            print(f"side by side, {k:32s} median {med[k]:6.2f} s  ({', '.join(f'{x:.2f}' for x in v)})")
    if "baseline" in med:
        print(f"this / baseline: {med['this'] / med['baseline']:.3f} (target <= 1.10)")
    if a.recalibrate:
        k = f"this --recalibrate {a.recalibrate}"
        print(
            f"--recalibrate {a.recalibrate} costs {med[k] - med['this']:.2f} s = "
            f"{med[k] / med['this']:.2f}x the plain run"
        )


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
    ap.add_argument("--recalibrate", choices=("isotonic", "temperature", "histogram", "platt", "beta"), default=None)
    ap.add_argument("--baseline-src", default=None, help="src folder of another checkout to time side by side")
    ap.add_argument("--repeat", type=int, default=3, help="alternating runs of the side-by-side comparison")
    ap.add_argument("--side-by-side-only", action="store_true", help="print only the side-by-side comparison")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = a.file or Path(tmp) / "rows.csv"
        if not path.is_file():
            make_file(path, a.models, a.items)
        n = a.models * a.items
        if a.baseline_src or a.recalibrate:
            side_by_side(path, a)
            if a.side_by_side_only:
                return 0
        t_start = startup_time()
        t_read = read_time(path)
        env = dict(os.environ)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                _REPORT_WITH_PEAK,
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
        peak_mb = _child_peak_mb(proc.stderr, after.ru_maxrss)
        t_cold = cold_read_time(path)
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
        t_draws, threads = draws_alone(path, a.n_boot, a.resampling)
        print(
            f"the draws alone (the report's sampler, every model, {threads} threads, no statistic): {t_draws:.2f} s "
            f"= {t_draws / t_read:.1f}x the read (a floor under the compute with this sampler)"
        )
        print(f"targets: ratio <= 10x and peak < {500 if n <= 1_000_000 else 2000} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
