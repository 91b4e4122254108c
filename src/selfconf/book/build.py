"""Execute the book's notebooks with papermill, in parallel and cached, then build the HTML.

Usage::

    python -m selfconf.book.build execute [--only 04_result1 ...] [--jobs N] [--no-cache] [-p seed 7]
    python -m selfconf.book.build student     # the student edition of the teaching chapter (selfconf.course)
    python -m selfconf.book.build html        # student edition, then jupyter-book build . -W -n --keep-going
    python -m selfconf.book.build all         # both
    python -m selfconf.book.build all --edition student   # also the student-only site (_build/student-site/)

Phases: computing notebooks run first (in parallel); pages that restate numbers (abstract,
introduction, ...) paste values glued by the first phase, so they run second; the audit page runs
last.  An executed notebook is reused from ``_build/nbcache/`` when its cache key matches: the
notebook source, its parameters, the data files, the ``selfconf`` package source and, for later
phases, the values glued by earlier phases (jupyter-cache alone would ignore imported code).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from selfconf.book.glue import glued_values
from selfconf.book.pages import TABLE_DIR_ENV
from selfconf.data.paths import book_file, project_root

# The kernel manager (jupyter_client), the scorecard (pandas, the sections) and the course edition (otter) are
# imported in the functions that use them: the `selfconf` command line imports this module through `rerun` to
# build its parser, and `selfconf report --json` must start without them (tests/test_report_speed.py).

__all__ = [
    "PHASES",
    "notebook_names",
    "phase_of",
    "cache_key",
    "used_modules",
    "code_digest",
    "execute_one",
    "execute",
    "build_html",
    "html_key",
    "student_edition",
    "with_install_cell",
    "main",
]

#: Phase of each notebook stem not in phase 1.
PHASES = {
    "00_abstract": 2,
    "01_introduction": 2,
    "02_related_work": 2,
    "07_implications": 2,
    "10_diagnostic": 2,
    "11_reproducibility": 2,
    "12_reconstruction": 2,
    "14_audit": 3,
    "26_real_answers": 2,  # shows Result 1's claims beside its own (reads the executed 04_result1)
    "28_every_reading": 2,  # reads Result 1's computed median band (the executed 04_result1)
    "21_seed_variation": 2,  # restates Table 1's intervals from Result 1's executed notebook
}
CACHE_DIR = "_build/nbcache"


def toc_files(root: Path | None = None) -> set[str]:
    """Stems of the ``book/...`` files listed in ``_toc.yml`` (the toc defines what the book contains)."""
    root = root or project_root()
    toc = book_file("_toc.yml", root)
    found: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str):
                found.add(Path(f).stem)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    if isinstance(toc.get("root"), str):
        found.add(Path(toc["root"]).stem)
    return found


def notebook_names(root: Path | None = None, in_toc_only: bool = True) -> list[str]:
    """Stems of the source notebooks ``notebooks/NN_*.py`` that the table of contents lists, sorted."""
    root = root or project_root()
    names = sorted(p.stem for p in (root / "notebooks").glob("[0-9][0-9]_*.py"))
    if in_toc_only:
        listed = toc_files(root)
        names = [n for n in names if n in listed]
    return names


def phase_of(name: str) -> int:
    return PHASES.get(name, 1)


def _hash_files(paths, root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _inputs_digest(root: Path, data_dir: str | None = None) -> str:
    """Digest of the data, the pins, the interpreter and the configuration a notebook may read (its code is
    :func:`code_digest`).

    A ``data_dir`` parameter outside the project's ``data/`` (an original package kept elsewhere) is
    hashed too, so editing its files invalidates the cached notebooks."""
    files = [p for p in (root / "data").rglob("*") if p.is_file() and "raw" not in p.relative_to(root).parts[:2]]
    files += [p for p in (root / "data" / "raw").rglob("*") if p.is_file()]
    extra: list[Path] = []
    if data_dir:
        d = Path(data_dir) if Path(data_dir).is_absolute() else root / data_dir
        if d.is_dir() and not d.resolve().is_relative_to((root / "data").resolve()):
            extra = sorted(p for p in d.rglob("*") if p.is_file())
    files += [root / "requirements.txt"]
    h = _hash_files([f for f in files if f.is_file()], root)
    # the interpreter (requirements.txt pins the packages, not Python itself)
    h = hashlib.sha256((h + sys.version).encode()).hexdigest()
    # the repository block of _config.yml: pages print links built from it (the student edition's Colab and
    # Binder links, selfconf.course.student_links); the rest of the configuration does not reach a notebook
    cfg = book_file("_config.yml", root, missing_ok=True)
    h = hashlib.sha256((h + json.dumps(cfg.get("repository"), sort_keys=True)).encode()).hexdigest()
    if extra:
        x = hashlib.sha256(h.encode())
        for p in extra:
            x.update(str(p).encode())
            x.update(p.read_bytes())
        h = x.hexdigest()
    return h


def _module_file(module: str, src: Path) -> Path | None:
    """``selfconf.a.b`` -> ``src/selfconf/a/b.py`` or ``src/selfconf/a/b/__init__.py`` (``None``: not a module)."""
    base = src.joinpath(*module.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _imported_modules(path: Path, src: Path) -> set[str]:
    """The ``selfconf`` modules one Python file imports (anywhere in the file, absolute imports)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "selfconf")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.split(".")[0] == "selfconf"
        ):
            found.add(node.module)
            found.update(
                f"{node.module}.{a.name}"
                for a in node.names
                if _module_file(f"{node.module}.{a.name}", src) is not None
            )
    out: set[str] = set()
    for m in found:  # importing a.b.c runs the packages a and a.b first
        parts = m.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return {m for m in out if _module_file(m, src) is not None}


def used_modules(name: str, root: Path, start: set[str] | None = None) -> list[str]:
    """Every ``selfconf`` module notebook ``name`` can execute: its imports and theirs, transitively.

    With ``start`` (module names) the closure starts from those modules instead of the notebook's imports.

    Example: ``"selfconf.metrics" in used_modules("04_result1", project_root())`` is true and
    ``"selfconf.cli.collect"`` is not, so editing the command line re-executes no paper section.
    """
    src = root / "src"
    todo = set(start) if start is not None else _imported_modules(root / "notebooks" / f"{name}.py", src)
    seen: set[str] = set()
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        f = _module_file(m, src)
        if f is not None:
            todo |= _imported_modules(f, src) - seen
    return sorted(seen)


def code_digest(name: str, root: Path, start: set[str] | None = None) -> str:
    """Digest of the package code notebook ``name`` uses (:func:`used_modules`, from ``start`` when given) and the
    package data beside it."""
    src = root / "src"
    files: set[Path] = set()
    for m in used_modules(name, root, start):
        f = _module_file(m, src)
        if f is None:
            continue
        files.add(f)
        if f.name == "__init__.py":  # a package's data files (yaml, json, csv.gz, assets) travel with it
            files.update(p for p in f.parent.iterdir() if p.is_file() and p.suffix not in {".py", ".pyc"})
    return _hash_files(files, root)


def cache_key(name: str, params: dict, root: Path, inputs: str, upstream: str = "") -> str:
    """The key of notebook ``name``'s cached execution: its source, parameters, inputs, code and upstream pages."""
    h = hashlib.sha256()
    h.update((root / "notebooks" / f"{name}.py").read_bytes())
    h.update(json.dumps(params, sort_keys=True).encode())
    h.update(inputs.encode())
    h.update(code_digest(name, root).encode())
    h.update(upstream.encode())
    return h.hexdigest()[:24]


def _to_ipynb(name: str, root: Path) -> Path:
    """Sync the jupytext pair ``notebooks/<name>.py`` → ``notebooks/<name>.ipynb`` (in process: fast).

    The ``.py`` file is the source of truth; the ``.ipynb`` is rewritten only when its content differs.
    """
    import jupytext

    src = root / "notebooks" / f"{name}.py"
    dst = root / "notebooks" / f"{name}.ipynb"
    nb = jupytext.read(src)
    text = jupytext.writes(nb, fmt="ipynb")
    if not dst.exists() or dst.read_text(encoding="utf-8") != text:
        tmp = dst.with_suffix(f".ipynb.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, dst)  # atomic: parallel builds never see a half-written pair
    return dst


def execute_one(name: str, params: dict | None = None, out_dir: str | Path = "book", root: Path | None = None) -> Path:
    """Execute one notebook with papermill into ``out_dir/<name>.ipynb``; raise a clear error on failure.

    The kernel is started first (with the environment set below) and boots while the notebook is
    converted from its jupytext source and papermill is imported."""
    from selfconf.book.kernels import run_papermill, start_kernel, stop_kernel

    root = root or project_root()
    out = Path(out_dir) if Path(out_dir).is_absolute() else root / out_dir
    out.mkdir(parents=True, exist_ok=True)
    dst = out / f"{name}.ipynb"
    # papermill rewrites its output after every cell; write beside it and rename at the end, so a
    # notebook of the same phase reading glued values (restate) never sees a half-written file
    part = out / ".partial" / f"{name}.ipynb"
    part.parent.mkdir(exist_ok=True)
    env_root = os.environ.get("SELFCONF_ROOT")
    os.environ["SELFCONF_ROOT"] = str(root)
    os.environ["SELFCONF_BOOK"] = "1"  # selfconf.book.in_book(): the kernel runs a page of the book
    # a notebook run outside book/ (a rerun) writes its tables beside it, never over the book's CSV downloads
    if out.resolve() != (root / "book").resolve():
        os.environ[TABLE_DIR_ENV] = str(out / "_static" / "tables")
    else:
        os.environ.pop(TABLE_DIR_ENV, None)
    kernel = start_kernel(root / "book")
    try:
        src = _to_ipynb(name, root)
        from papermill import PapermillExecutionError

        try:
            run_papermill(src, part, params, cwd=root / "book", kernel=kernel)
        except PapermillExecutionError as e:
            os.replace(part, dst)
            raise RuntimeError(
                f"notebook notebooks/{name}.py failed in cell {e.exec_count} ({e.ename}: {e.evalue}); "
                f"the partial output is in {dst}"
            ) from None
    finally:
        stop_kernel(kernel)  # run_papermill stops it; this covers a failure before it ran
        os.environ.pop(TABLE_DIR_ENV, None)
        if env_root is None:
            os.environ.pop("SELFCONF_ROOT", None)
        else:
            os.environ["SELFCONF_ROOT"] = env_root
    os.replace(part, dst)
    return dst


def _run_cached(
    name: str, params: dict, root: Path, key: str, use_cache: bool, out_dir: Path
) -> tuple[str, str, float]:
    t0 = time.perf_counter()
    cached = root / CACHE_DIR / f"{name}-{key}.ipynb"
    dst = out_dir / f"{name}.ipynb"
    if use_cache and cached.is_file():
        out_dir.mkdir(parents=True, exist_ok=True)
        part = out_dir / ".partial" / f"{name}.ipynb"
        part.parent.mkdir(exist_ok=True)
        shutil.copyfile(cached, part)
        with_install_cell(part, root)
        if dst.is_file() and dst.read_bytes() == part.read_bytes():
            part.unlink()  # unchanged: keep the file (and its time stamp), so Sphinx does not read the page again
        else:
            os.replace(part, dst)  # atomic, as in execute_one
        return name, "cached", time.perf_counter() - t0
    execute_one(name, params, out_dir, root)
    cached.parent.mkdir(parents=True, exist_ok=True)
    for old in cached.parent.glob(f"{name}-*.ipynb"):
        old.unlink()
    shutil.copyfile(dst, cached)
    with_install_cell(dst, root)
    return name, "executed", time.perf_counter() - t0


def with_install_cell(nb_path: Path, root: Path) -> None:
    """Make the executed notebook start with the install cell (:func:`selfconf.course.install_cell`).

    Done after execution (the cell would do nothing in the build's environment), so the cached
    execution stays valid when only the commit it pins changes; the page's HTML does not show the cell
    (``remove-cell``), the downloaded and published notebooks start with it."""
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    from selfconf.course import add_install_cell

    add_install_cell(nb, root)
    tmp = nb_path.with_name(nb_path.name + f".{os.getpid()}.tmp")
    nbformat.write(nb, tmp)
    os.replace(tmp, nb_path)


def _glued_digest(out_dir: Path, before_phase: int | None = None) -> str:
    """Digest of the values the executed notebooks in ``out_dir`` glued; with ``before_phase``, of the notebooks of
    the earlier phases only (what a notebook of that phase can read), so a notebook's cache key does not depend on
    whether its own phase, or a later one, has been executed before."""
    exclude: tuple[str, ...] = ()
    if before_phase is not None:
        exclude = tuple(p.name for p in out_dir.glob("*.ipynb") if phase_of(p.stem) >= before_phase)
    values = glued_values(out_dir, exclude=exclude)
    return hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()


def execute(
    only: list[str] | None = None,
    params: dict | None = None,
    jobs: int | None = None,
    use_cache: bool = True,
    out_dir: str | Path = "book",
) -> list[tuple[str, str, float]]:
    """Execute notebooks phase by phase (parallel within a phase). Returns (name, how, seconds)."""
    root = project_root()
    out = Path(out_dir) if Path(out_dir).is_absolute() else root / out_dir
    names = notebook_names(root, in_toc_only=not only)
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise SystemExit(f"unknown notebook(s): {', '.join(unknown)}; known: {', '.join(names)}")
        names = [n for n in names if n in only]
    params = params or {}
    if not only and out.is_dir():
        # a full build: executed notebooks of pages no longer in the book must not be audited
        for stale in out.glob("*.ipynb"):
            if stale.stem not in names:
                stale.unlink()
    data_dir = params.get("data_dir")
    inputs = _inputs_digest(root, data_dir if isinstance(data_dir, str) else None)
    jobs = jobs or os.cpu_count() or 1
    done: list[tuple[str, str, float]] = []
    failures: list[str] = []
    for phase in sorted({phase_of(n) for n in names}):
        batch = [n for n in names if phase_of(n) == phase]
        upstream = _glued_digest(out, before_phase=phase) if phase > 1 else ""
        with ProcessPoolExecutor(max_workers=min(jobs, len(batch))) as pool:
            futs = {
                pool.submit(
                    _run_cached, n, params, root, cache_key(n, params, root, inputs, upstream), use_cache, out
                ): n
                for n in batch
            }
            for f in as_completed(futs):
                try:
                    res = f.result()
                    done.append(res)
                    print(f"  {res[0]:32s} {res[1]:8s} {res[2]:6.1f} s", flush=True)
                except Exception as e:  # noqa: BLE001 - reported with the notebook's name
                    failures.append(f"{futs[f]}: {e}")
                    print(f"  {futs[f]:32s} FAILED   {e}", flush=True)
        if failures:
            raise SystemExit("notebook execution failed:\n  " + "\n  ".join(failures))
    if out == root / "book":
        _after_execution(out)
    return done


def _after_execution(out: Path) -> None:
    """Files the build derives from executed notebooks, rewritten on every run (a cached notebook runs no cell).

    ``_build/scorecard.json`` comes from the executed chapter ``26_real_answers`` (its glued records).
    """
    from selfconf.book.scorecard import ensure_scorecard

    written = ensure_scorecard(out)
    if written is not None:
        print(f"  scorecard: {written.relative_to(project_root())}", flush=True)


def teaching_values(stem: str) -> dict:
    """The values a teaching notebook glued, for its student edition's prose (``selfconf.course.make_student``):
    read from ``book/<stem>.ipynb``, which is executed first (through the cache) when it is missing."""
    from selfconf.book import glue

    nb = project_root() / "book" / f"{stem}.ipynb"
    if not nb.is_file():
        execute(only=[stem])
    return glue.glued_in_notebook(nb)


#: What a page's HTML depends on that Sphinx does not track by a page's own source: the configuration and table
#: of contents, the book's Sphinx extensions and templates (the package's ``book`` folder), the claim manifest and
#: bibliography the extensions read, and every value any notebook glued (a page may paste another page's value).
HTML_KEY_FILE = "_build/.html-key"


def html_key(root: Path | None = None) -> str:
    """Digest of what every page's HTML depends on beyond its own source (:data:`HTML_KEY_FILE`).

    Example: editing one page's prose leaves the key unchanged (Sphinx re-renders that page alone); a changed
    glued value, a changed extension or a changed ``_config.yml`` changes it (every page is rendered again).
    """
    root = root or project_root()
    files = [root / n for n in ("_config.yml", "_toc.yml", "references.bib", "data/paper/claims.yaml")]
    files += [p for p in (root / "src" / "selfconf" / "book").rglob("*") if p.is_file() and p.suffix != ".pyc"]
    h = hashlib.sha256(_hash_files([f for f in files if f.is_file()], root).encode())
    h.update(_glued_digest(root / "book").encode())
    h.update(sys.version.encode())
    return h.hexdigest()


def build_html(root: Path | None = None) -> None:
    """``jupyter-book build . -W -n --keep-going``: any warning fails the build.

    Incremental: Sphinx re-reads the pages whose source changed (an executed notebook is rewritten only when its
    content changes).  When :func:`html_key` differs from the last build's, or the last build failed, the output
    is removed first and every page is built, so a warning is never hidden by an old page.
    """
    root = root or project_root()
    key_file = root / HTML_KEY_FILE
    key = html_key(root)
    if not key_file.is_file() or key_file.read_text() != key:
        for d in ("html", ".doctrees", "jupyter_execute"):
            shutil.rmtree(root / "_build" / d, ignore_errors=True)
    key_file.unlink(missing_ok=True)  # written back only when this build succeeds
    # pages dropped from the toc must not linger in _build/html
    listed = toc_files(root)
    for page in (root / "_build" / "html" / "book").glob("*.html"):
        if page.stem not in listed:
            page.unlink()
    jb = Path(sys.executable).with_name("jupyter-book")
    r = subprocess.run([str(jb), "build", ".", "-W", "-n", "--keep-going"], cwd=root)
    if r.returncode:
        raise SystemExit(f"jupyter-book build failed (exit {r.returncode}); warnings are errors")
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key_file.write_text(key)


STUDENT_KEY_FILE = "_build/student/.key"


def student_edition(root: Path | None = None, *, update_checks: bool = False) -> bool:
    """Write the student edition (:func:`selfconf.course.make_student`) unless it is up to date; True if written.

    Up to date: the key stored beside it equals the digest of everything ``otter assign`` reads (the teaching
    masters, the install cell they get, the ``selfconf.course`` package with its shipped checks, the pinned
    requirements), of the values the book's teaching pages glued (the student prose shows them,
    :func:`teaching_values`), and every output file exists.  ``update_checks`` always writes it and refreshes the
    package's copy of the checks.
    """
    import selfconf.course as course

    root = root or project_root()
    values = {s: teaching_values(s) for s in course.TEACHING}
    files = [root / "notebooks" / f"{s}.py" for s in course.TEACHING] + [root / "requirements.txt"]
    files += [p for p in (root / "src" / "selfconf" / "course").rglob("*") if p.is_file() and p.suffix != ".pyc"]
    key = hashlib.sha256(
        (
            _hash_files([f for f in files if f.is_file()], root)
            + course.install_cell(root).source
            + json.dumps(values, sort_keys=True, default=str)
        ).encode()
    ).hexdigest()
    outputs = [root / "_build" / "student" / f"{s}.ipynb" for s in course.TEACHING]
    outputs += [root / "_build" / "student" / "instructor" / f"{s}.ipynb" for s in course.TEACHING]
    outputs += [root / "book" / "_static" / "student" / f"{s}.ipynb" for s in course.TEACHING]
    key_file = root / STUDENT_KEY_FILE
    if not update_checks and key_file.is_file() and key_file.read_text() == key and all(p.is_file() for p in outputs):
        return False
    key_file.unlink(missing_ok=True)
    course.make_student(root / "_build" / "student", root=root, update_checks=update_checks, values=values.__getitem__)
    key_file.write_text(key)
    return True


def _parse_params(pairs: list[list[str]] | None) -> dict:
    out = {}
    for k, v in pairs or []:
        try:
            out[k] = json.loads(v)
        except json.JSONDecodeError:
            out[k] = v
    return out


#: Where the student-only site is built (``html --edition student``): no reference solution on any page.
STUDENT_SITE = "_build/student-site"


def build_student_site(root: Path | None = None) -> Path:
    """The student-only site: the book with every teaching page stripped of its solutions and checks.

    Definition: each teaching page ``book/<stem>.ipynb`` is replaced, for this build only, by
    :func:`selfconf.course.without_solutions` of it (prose, numbers and charts kept), and jupyter-book builds into
    :data:`STUDENT_SITE` with ``_config.yml``'s ``repository.branch`` set to
    :func:`selfconf.course.student_branch`, whose tree (``python -m selfconf.course publish --edition student``)
    holds the student notebooks at the teaching pages' paths, so the launch buttons open them.  The instructor
    edition's notebooks are put back afterwards.  Returns the HTML folder.
    """
    import nbformat
    import yaml

    from selfconf import course

    root = root or project_root()
    out = root / STUDENT_SITE
    out.mkdir(parents=True, exist_ok=True)
    cfg = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    cfg.setdefault("repository", {})["branch"] = course.student_branch(root)
    cfg["title"] = f"{cfg.get('title', '')} (student edition)".strip()
    cfg_path = out / "_config.yml"
    cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    saved = {}
    try:
        for stem in course.TEACHING:
            page = root / "book" / f"{stem}.ipynb"
            if not page.is_file():
                raise FileNotFoundError(f"{page}: not executed; run `make book` first")
            saved[page] = page.read_bytes()
            nbformat.write(course.without_solutions(nbformat.read(page, as_version=4)), page)
        jb = Path(sys.executable).with_name("jupyter-book")
        cmd = [str(jb), "build", ".", "-W", "-n", "--keep-going", "--path-output", str(out), "--config", str(cfg_path)]
        r = subprocess.run(cmd, cwd=root)
        if r.returncode:
            raise SystemExit(f"jupyter-book build of the student-only site failed (exit {r.returncode})")
    finally:
        for page, data in saved.items():
            page.write_bytes(data)
    return out / "_build" / "html"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m selfconf.book.build", description=__doc__.split("\n")[0])
    ap.add_argument("step", choices=["execute", "student", "html", "all"])
    ap.add_argument("--only", nargs="*", help="notebook stems to execute (default: all)")
    ap.add_argument(
        "--edition",
        choices=("instructor", "student"),
        default="instructor",
        help="html/all: student also builds the student-only site (no reference solutions) into " + STUDENT_SITE,
    )
    ap.add_argument("--jobs", type=int, default=None, help="parallel notebooks (default: all cores)")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--update-checks", action="store_true", help="student: refresh the package's copy of the checks")
    ap.add_argument(
        "-p",
        "--param",
        nargs=2,
        action="append",
        metavar=("NAME", "VALUE"),
        help="papermill parameter (JSON value), e.g. -p seed 7",
    )
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    if a.step in ("execute", "all"):
        execute(a.only, _parse_params(a.param), a.jobs, not a.no_cache)
    if a.step in ("student", "html", "all"):
        # the student edition first: the teaching pages offer its notebooks (book/_static/student/) for download
        student_edition(update_checks=a.update_checks)
    if a.step in ("html", "all"):
        build_html()
        if a.edition == "student":  # also the site without solutions, from the same executed pages
            print(f"student-only site: {build_student_site()}")
    print(f"done in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
