"""``python -m selfconf.reconstruct [--out DIR] [--check] [--seed N]``: regenerate the reconstructed data.

Runs every generator module present among ``collection`` and ``ladder`` (each exposes
``generate(out_dir, seed)``), prints its run time, and with ``--check`` regenerates into a
temporary folder and compares the bytes with the committed files.
"""

from __future__ import annotations

import argparse
import filecmp
import importlib
import sys
import tempfile
import time
from pathlib import Path

from selfconf.data.paths import resolve

#: data family -> the generator module that writes it (each exposes ``generate(out_dir, seed)``)
GENERATORS = {"collection": "generate", "ladder": "ladder"}


def _available():
    mods = []
    for name, module in GENERATORS.items():
        try:
            mod = importlib.import_module(f"selfconf.reconstruct.{module}")
        except ModuleNotFoundError as e:
            if e.name == f"selfconf.reconstruct.{module}":
                continue
            raise
        if hasattr(mod, "generate"):
            mods.append((name, mod))
    return mods


def run(out: Path, seed: int | None) -> list[str]:
    """Run every generator into ``out``; return the names of the files written."""
    written = []
    for name, mod in _available():
        t0 = time.perf_counter()
        before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} if out.exists() else {}
        kwargs = {} if seed is None else {"seed": seed}
        mod.generate(out, **kwargs)
        print(f"[{name}] done in {time.perf_counter() - t0:.1f} s", flush=True)
        written += [
            str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and before.get(p) != p.stat().st_mtime_ns
        ]
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m selfconf.reconstruct", description=__doc__)
    ap.add_argument("--out", default="data/reconstructed", help="output folder (default data/reconstructed)")
    ap.add_argument(
        "--check", action="store_true", help="regenerate into a temporary folder and compare bytes with --out"
    )
    ap.add_argument("--seed", type=int, default=None, help="override each generator's default seed")
    a = ap.parse_args(argv)
    out = resolve(a.out)
    t0 = time.perf_counter()
    if a.check:
        with tempfile.TemporaryDirectory() as tmp:
            files = run(Path(tmp), a.seed)
            bad = [
                f
                for f in sorted(files)
                if not (out / f).is_file() or not filecmp.cmp(Path(tmp) / f, out / f, shallow=False)
            ]
            print(f"total {time.perf_counter() - t0:.1f} s")
            if bad:
                print("DIFFERENT from the committed files: " + ", ".join(bad))
                return 1
            print(f"byte-identical: {', '.join(sorted(files))}")
            return 0
    run(out, a.seed)
    print(f"total {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
