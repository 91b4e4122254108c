"""Rerun one section with another seed or bootstrap size, and diff its glued values against the book.

``selfconf rerun result1 --seed 7 --n-boot 5000`` (or ``make rerun SECTION=result1 SEED=7
N_BOOT=5000``) executes the section's notebook with papermill into its own folder,
``_build/reruns/<section>-seed7-n5000/``, then compares every value that notebook glued with the
value the default build glued (``book/<stem>.ipynb``):

* **deterministic** values — claims of kind ``deterministic`` or ``external`` in
  ``data/paper/claims.yaml``, and ``derived`` claims none of whose ``depends_on`` ancestors is a
  bootstrap claim — must be identical (``==``): a seed or a number of bootstrap draws may not move
  a pure function of the rows.  Any difference, or a value missing from one side, makes the
  command exit with status 1.
* **bootstrap** values (CI endpoints, bootstrap p-values and what is derived from them) are
  expected to move; the table shows each shift.
* glue keys that are not claims (page helpers such as counts or teaching numbers) are compared
  and reported as identical or changed, without an assertion: the manifest does not say whether
  they may depend on the seed.

This is an audit tool, so (like :mod:`selfconf.book.audit`) it may read the manifest's ``kind`` and
``depends_on`` fields; it never reads a claim's value.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfconf.book.build import _parse_params, add_param_option, execute_one, notebook_names
from selfconf.book.glue import glued_in_notebook
from selfconf.claims.judging import CLAIMS, fmt, load_manifest
from selfconf.data.paths import project_root

__all__ = [
    "RERUN_DIR",
    "ValueDiff",
    "RerunResult",
    "section_stems",
    "resolve_section",
    "claim_kinds",
    "compare",
    "rerun",
    "format_report",
    "add_parser",
    "run",
    "main",
]

#: Reruns land in ``<root>/_build/reruns/<section>-seed<S>-n<B>/``.
RERUN_DIR = "_build/reruns"


def section_stems(root: Path | None = None) -> dict[str, str]:
    """Map every section name to its notebook stem.

    Names come from :data:`selfconf.book.audit.SECTION_PAGES` (paper sections such as ``result1`` →
    ``04_result1``) and from the notebooks themselves (``NN_<name>`` is reachable as ``<name>``
    and as ``NN_<name>``).  Only stems with a source notebook in ``notebooks/`` are kept.
    """
    import inspect

    root = root or project_root()
    # every source notebook, listed in the table of contents or not (a rerun is an audit tool)
    if "in_toc_only" in inspect.signature(notebook_names).parameters:
        stems = notebook_names(root, in_toc_only=False)
    else:
        stems = notebook_names(root)
    out: dict[str, str] = {}
    for stem in stems:
        out[stem] = stem
        out.setdefault(stem.split("_", 1)[1] if "_" in stem else stem, stem)
    try:
        from selfconf.book.audit import SECTION_PAGES
    except ImportError:  # the audit module is optional for this tool
        SECTION_PAGES = {}
    for section, stem in SECTION_PAGES.items():
        if stem in stems:
            out[section] = stem
    return out


def resolve_section(section: str, root: Path | None = None) -> str:
    """Return the notebook stem for ``section``, or raise ``ValueError`` listing the known names."""
    known = section_stems(root)
    if section in known:
        return known[section]
    names = sorted(k for k in known if not k[:2].isdigit())
    raise ValueError(f"unknown section {section!r}; known sections: {', '.join(names) or '(no notebooks)'}")


def claim_kinds(path: str | Path = CLAIMS, root: Path | None = None) -> dict[str, str]:
    """``{claim id: "deterministic" | "bootstrap"}`` from the manifest's ``kind`` and ``depends_on``.

    ``external`` claims count as deterministic (quoted, so they cannot move); a ``derived`` claim is
    bootstrap when any claim it depends on, directly or through other derived claims, is.
    """
    root = root or project_root()
    p = Path(path) if Path(path).is_absolute() else root / path
    if not p.is_file():
        raise FileNotFoundError(f"{p}: claim manifest not found (needed for the claim kinds)")
    return load_manifest(p).effective


@dataclass
class ValueDiff:
    """One glue key compared between the default build and a rerun."""

    key: str
    kind: str  # "deterministic", "bootstrap" or "other" (not a claim)
    default: Any
    rerun: Any

    @property
    def missing(self) -> str | None:
        if self.default is _MISSING:
            return "missing from the default build"
        if self.rerun is _MISSING:
            return "missing from the rerun"
        return None

    @property
    def identical(self) -> bool:
        return self.missing is None and type(self.default) is type(self.rerun) and self.default == self.rerun

    @property
    def shift(self) -> float | None:
        if self.missing or isinstance(self.default, bool) or isinstance(self.rerun, bool):
            return None
        if isinstance(self.default, (int, float)) and isinstance(self.rerun, (int, float)):
            return float(self.rerun) - float(self.default)
        return None

    @property
    def violation(self) -> bool:
        """A deterministic value that moved (or vanished): the rerun must fail."""
        return self.kind == "deterministic" and not self.identical


class _Missing:
    def __repr__(self) -> str:
        return "—"


_MISSING = _Missing()


@dataclass
class RerunResult:
    section: str
    stem: str
    params: dict
    out_dir: Path
    seconds: float
    diffs: list[ValueDiff]

    @property
    def violations(self) -> list[ValueDiff]:
        return [d for d in self.diffs if d.violation]

    @property
    def ok(self) -> bool:
        return not self.violations


def compare(default: dict[str, Any], rerun_vals: dict[str, Any], kinds: dict[str, str]) -> list[ValueDiff]:
    """Pair the values of the two runs key by key (union of keys, sorted), classified by ``kinds``."""
    keys = sorted(set(default) | set(rerun_vals))
    return [
        ValueDiff(k, kinds.get(k, "other"), default.get(k, _MISSING), rerun_vals.get(k, _MISSING))
        for k in keys
        if not k.endswith("__quoted")
    ]


def _glued(book_dir: Path, stem: str) -> dict[str, Any]:
    """Values glued by ``<book_dir>/<stem>.ipynb`` (:func:`selfconf.book.glue.glued_in_notebook`)."""
    return glued_in_notebook(book_dir / f"{stem}.ipynb")


def rerun(
    section: str,
    seed: int | None = None,
    n_boot: int | None = None,
    *,
    extra: dict | None = None,
    baseline_dir: str | Path = "book",
    out_root: str | Path = RERUN_DIR,
    root: Path | None = None,
) -> RerunResult:
    """Execute ``section``'s notebook with new parameters and compare it with the default build.

    The notebook runs with :func:`selfconf.book.build.execute_one` into
    ``<out_root>/<section>-seed<seed>-n<n_boot>/``; the comparison reads ``<baseline_dir>/<stem>.ipynb``,
    which must exist (``make execute`` writes it).
    """
    root = root or project_root()
    stem = resolve_section(section, root)
    base = Path(baseline_dir) if Path(baseline_dir).is_absolute() else root / baseline_dir
    if not (base / f"{stem}.ipynb").is_file():
        raise FileNotFoundError(
            f"{base / (stem + '.ipynb')}: no default build of {stem} to compare with (run `make execute` first)"
        )
    params: dict[str, Any] = dict(extra or {})
    if seed is not None:
        params["seed"] = int(seed)
    if n_boot is not None:
        if int(n_boot) < 1:
            raise ValueError(f"--n-boot must be a positive number of draws, got {n_boot}")
        params["n_boot"] = int(n_boot)
    tag = "-".join(
        [section] + ([f"seed{seed}"] if seed is not None else []) + ([f"n{n_boot}"] if n_boot is not None else [])
    )
    out = (Path(out_root) if Path(out_root).is_absolute() else root / out_root) / tag
    t0 = time.perf_counter()
    execute_one(stem, params, out, root)
    seconds = time.perf_counter() - t0
    diffs = compare(_glued(base, stem), _glued(out, stem), claim_kinds(root=root))
    return RerunResult(section, stem, params, out, seconds, diffs)


def _fmt(v: Any) -> str:
    """A glued value in the report: a float with 6 significant digits (:func:`selfconf.claims.judging.fmt`),
    a string as its repr, anything else as ``str``."""
    if isinstance(v, float):
        return fmt(v, significant=6)
    return repr(v) if isinstance(v, str) else str(v)


def format_report(res: RerunResult, root: Path | None = None) -> str:
    """Plain-text report: parameters, the bootstrap shifts, non-claim changes, and the verdict."""
    root = root or project_root()
    try:
        where = res.out_dir.relative_to(root)
    except ValueError:
        where = res.out_dir
    lines = [
        f"rerun of {res.section} ({res.stem}) with "
        + (", ".join(f"{k}={v}" for k, v in res.params.items()) or "default parameters")
        + f": executed in {res.seconds:.1f} s -> {where}/{res.stem}.ipynb",
    ]
    groups: dict[str, list[Any]] = {"deterministic": [], "bootstrap": [], "other": []}
    for d in res.diffs:
        groups[d.kind].append(d)
    det = groups["deterministic"]
    n_same = sum(d.identical for d in det)
    lines.append(f"deterministic claims: {n_same}/{len(det)} identical")
    for d in det:
        if not d.identical:
            lines.append(
                f"  CHANGED {d.key}: default {_fmt(d.default)} -> rerun {_fmt(d.rerun)}"
                + (f" ({d.missing})" if d.missing else "")
            )
    boot = groups["bootstrap"]
    if boot:
        lines.append(f"bootstrap claims ({len(boot)}): shift = rerun - default")
        w = max(len(d.key) for d in boot)
        for d in boot:
            s = d.shift
            lines.append(
                f"  {d.key:<{w}}  {_fmt(d.default):>12}  {_fmt(d.rerun):>12}  "
                + (
                    fmt(s, significant=6, signed=True)
                    if s is not None
                    else (d.missing or "changed" if not d.identical else "same")
                )
            )
    other = groups["other"]
    if other:
        changed = [d for d in other if not d.identical]
        lines.append(
            f"other glued values (not claims; reported, not asserted): {len(other) - len(changed)}/{len(other)} "
            "identical"
        )
        for d in changed:
            s = d.shift
            lines.append(
                f"  {d.key}: {_fmt(d.default)} -> {_fmt(d.rerun)}"
                + (f" ({fmt(s, significant=6, signed=True)})" if s is not None and math.isfinite(s) else "")
                + (f" ({d.missing})" if d.missing else "")
            )
    if res.ok:
        lines.append("OK: every deterministic value is identical to the default build")
    else:
        lines.append(
            f"FAIL: {len(res.violations)} deterministic value(s) differ from the default build: "
            + ", ".join(d.key for d in res.violations)
        )
    return "\n".join(lines)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``selfconf rerun``."""
    p = subparsers.add_parser(
        "rerun",
        help="rerun one section with another seed / bootstrap size and diff it against the book",
        description=(
            "Execute one section's notebook with papermill into _build/reruns/<section>-seed<S>-n<B>/ and "
            "compare its glued values with the default build in book/<stem>.ipynb. Deterministic values "
            "(claims of kind deterministic/external, and derived claims that depend on no bootstrap claim) "
            "must be identical, otherwise the exit status is 1; bootstrap values are listed with their "
            "shifts; glued values that are not claims are compared and reported."
        ),
        epilog="example: selfconf rerun result1 --seed 7 --n-boot 5000",
    )
    p.add_argument("section", help="section name (e.g. result1) or notebook stem (e.g. 04_result1)")
    p.add_argument("--seed", type=int, default=None, help="random seed passed to the notebook")
    p.add_argument("--n-boot", type=int, default=None, help="bootstrap draws passed to the notebook")
    add_param_option(p, "any other notebook parameter (JSON value), e.g. -p data_dir data/raw")
    p.add_argument("--baseline", default="book", help="folder of the default executed notebooks (default: book)")
    p.add_argument("--out", default=RERUN_DIR, help=f"folder for reruns (default: {RERUN_DIR})")
    return p


def run(args: argparse.Namespace) -> int:
    """Execute the rerun and print the report; exit status 1 when a deterministic value moved."""
    try:
        res = rerun(
            args.section,
            args.seed,
            args.n_boot,
            extra=_parse_params(args.param),
            baseline_dir=args.baseline,
            out_root=args.out,
        )
    except RuntimeError as exc:  # the notebook failed: execute_one names the cell and the partial output
        print(f"selfconf rerun: error: {exc}", file=sys.stderr)
        return 2
    print(format_report(res))
    return 0 if res.ok else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m selfconf.book.rerun SECTION [--seed S] [--n-boot B]`` (same as ``selfconf rerun``)."""
    ap = argparse.ArgumentParser(prog="python -m selfconf.book.rerun")
    sub = ap.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = ap.parse_args(["rerun", *(sys.argv[1:] if argv is None else argv)])
    try:
        return run(args)
    except (FileNotFoundError, ValueError) as exc:
        print(f"selfconf rerun: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
