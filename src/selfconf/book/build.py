"""Execute the book's notebooks with papermill, in parallel and cached, then build the HTML.

Usage::

    python -m selfconf.book.build execute [--only 04_result1 ...] [--jobs N] [--no-cache] [-p seed 7]
    python -m selfconf.book.build student     # the student edition of the teaching chapter (selfconf.course)
    python -m selfconf.book.build html        # student edition (if the toc lists a teaching page), then
                                              # jupyter-book build . -W -n --keep-going
    python -m selfconf.book.build all         # both
    python -m selfconf.book.build all --edition student   # also the student-only site (_build/student-site/)
    python -m selfconf.book.build all --explain-cache   # per notebook: hit, or miss and the input that changed

Phases: computing notebooks run first (in parallel); pages that restate numbers (abstract,
introduction, ...) paste values glued by the first phase, so they run second; the audit page runs
last.  A notebook's execution is reused from ``_build/nbcache/`` when its cache key matches
(:func:`key_inputs`: the notebook source, its parameters, the content of every data file, the family
each data family resolves to, the pins and interpreter, the ``selfconf`` code it imports and, for later
phases, the values glued by earlier phases).  A cache entry holds everything the notebook wrote (the
executed notebook with its glued values and figures, and its CSV tables with their printed-cell lists):
a hit restores all of it, and the CSV tables of ``book/_static/tables`` are exactly those of the entries
the build used (:func:`install_tables`).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from selfconf.book.glue import glued_values
from selfconf.book.pages import PRINTED_DIR, TABLE_DIR, TABLE_DIR_ENV, fill_printed_csv
from selfconf.data.paths import book_file, project_root

# The kernel manager (jupyter_client), the scorecard (pandas, the sections) and the course edition (otter) are
# imported in the functions that use them: the `selfconf` command line imports this module through `rerun` to
# build its parser, and `selfconf report --json` must start without them (tests/test_report_speed.py).

__all__ = [
    "PHASES",
    "notebook_names",
    "phase_of",
    "cache_key",
    "key_inputs",
    "build_inputs",
    "explain_miss",
    "install_tables",
    "used_modules",
    "code_digest",
    "execute_one",
    "execute",
    "upstream_values",
    "build_html",
    "html_key",
    "student_edition",
    "teaching_in_toc",
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
#: Entries kept per notebook (the newest by time): pointing the book at other data and back is a hit both ways.
KEEP_ENTRIES = 3
#: Inside an entry folder ``<name>-<key>/``: the executed notebook, the tables it wrote, and the key's inputs
#: (written last: an entry without it is incomplete and never used).
ENTRY_NOTEBOOK, ENTRY_TABLES, ENTRY_KEY = "notebook.ipynb", "tables", "key.json"
#: Inside a table folder: which files each notebook wrote there (``<name>.json``), so that a restored entry
#: removes the tables its notebook no longer writes.
OWNERS_DIR = ".owners"


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


def _file_digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()[:16]


def build_inputs(root: Path, data_dir: str | None = None) -> dict[str, dict[str, str]]:
    """The inputs every notebook of one build shares, by kind (computed once per build).

    * ``data``: the content digest of every file under ``data/`` (the raw folder included) and, for a
      ``data_dir`` outside ``data/``, of every file there, keyed by path: a file appearing, disappearing or
      changing changes the key;
    * ``families``: where each data family resolves (:func:`selfconf.data.sources.resolve_families` for
      ``data_dir``: source, layout and folder, or the error that stops the notebook);
    * ``environment``: ``requirements.txt``, the interpreter, ``_config.yml``'s repository block (pages print
      links built from it; the rest of the configuration does not reach a notebook).

    Example: ``build_inputs(project_root())["data"]["data/paper/claims.yaml"]`` is the manifest's digest.
    """
    files = sorted(p for p in (root / "data").rglob("*") if p.is_file())
    data = {p.relative_to(root).as_posix(): _file_digest(p) for p in files}
    if data_dir:
        d = Path(data_dir) if Path(data_dir).is_absolute() else root / data_dir
        if d.is_dir() and not d.resolve().is_relative_to((root / "data").resolve()):
            data.update({str(p): _file_digest(p) for p in sorted(d.rglob("*")) if p.is_file()})
    fams: dict[str, str] = {}
    if data_dir or (root / "data" / "reconstructed").is_dir():
        from selfconf.data.sources import FAMILIES, resolve_families

        for fam in FAMILIES:
            try:
                s = resolve_families(data_dir or "data/reconstructed", [fam]).families[fam]
                fams[fam] = f"{s.source} ({s.layout}, {s.shown_path})"
            except (FileNotFoundError, ValueError) as e:
                fams[fam] = f"error: {e}"
    req = root / "requirements.txt"
    cfg = book_file("_config.yml", root, missing_ok=True)
    env = {
        "requirements.txt": _file_digest(req) if req.is_file() else "missing",
        "python": sys.version,
        "_config.yml repository": json.dumps(cfg.get("repository"), sort_keys=True),
    }
    return {"data": data, "families": fams, "environment": env}


def _inputs_digest(root: Path, data_dir: str | None = None) -> str:
    """One digest of :func:`build_inputs` (the data, the pins, the interpreter and the configuration)."""
    return hashlib.sha256(json.dumps(build_inputs(root, data_dir), sort_keys=True).encode()).hexdigest()


#: The ``selfconf`` imports of each Python file by a digest of its path and text; kept between builds in
#: :data:`IMPORTS_FILE` (parsing every module is most of a warm build's key computation).
_IMPORTS: dict[str, list[str]] = {}
IMPORTS_FILE = "_build/nbcache/imports.json"
#: ``importlib.import_module("selfconf.x")`` with a literal name (a lazy import, PEP 562)
_IMPORT_MODULE = re.compile(r"""import_module\(\s*["'](selfconf(?:\.\w+)*)["']""")


def _statements(body: list[ast.stmt]):
    """Every statement of ``body``, nested ones included (function and class bodies, branches, handlers): an
    import is a statement, so expressions need not be visited."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            sub = getattr(node, field, None)
            if isinstance(sub, list):
                yield from _statements([n for n in sub if isinstance(n, ast.stmt)])
                yield from _statements([b for n in sub if not isinstance(n, ast.stmt) for b in getattr(n, "body", [])])


def _module_file(module: str, src: Path) -> Path | None:
    """``selfconf.a.b`` -> ``src/selfconf/a/b.py`` or ``src/selfconf/a/b/__init__.py`` (``None``: not a module)."""
    base = src.joinpath(*module.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _imported_modules(path: Path, src: Path) -> set[str]:
    """The ``selfconf`` modules one Python file imports (anywhere in the file, absolute imports, and
    ``importlib.import_module("selfconf....")`` with a literal name: a lazily imported module runs too)."""
    text = path.read_text(encoding="utf-8")
    stamp = hashlib.sha256(text.encode()).hexdigest()[:24]
    if stamp not in _IMPORTS:  # the names the file imports, and each ``from a import b`` as ``a.b`` too
        found: set[str] = set(_IMPORT_MODULE.findall(text))
        for node in _statements(ast.parse(text).body):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.split(".")[0] == "selfconf")
            elif (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.level == 0
                and node.module.split(".")[0] == "selfconf"
            ):
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
        _IMPORTS[stamp] = sorted(found)
    out: set[str] = set()
    for m in _IMPORTS[stamp]:  # importing a.b.c runs the packages a and a.b first
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


def _code_files(name: str, root: Path, start: set[str] | None = None, data_folders: bool = False) -> set[Path]:
    """The files of the modules :func:`used_modules` lists and the package data beside each package's
    ``__init__.py`` (with ``data_folders``, also in its sub-folders that are not packages themselves)."""
    src = root / "src"
    files: set[Path] = set()
    for m in used_modules(name, root, start):
        f = _module_file(m, src)
        if f is None:
            continue
        files.add(f)
        if f.name == "__init__.py":  # a package's data files (yaml, json, csv.gz, assets) travel with it
            files.update(p for p in f.parent.iterdir() if p.is_file() and p.suffix not in {".py", ".pyc"})
            if data_folders:
                for sub in f.parent.iterdir():
                    if sub.is_dir() and sub.name != "__pycache__" and not (sub / "__init__.py").is_file():
                        files.update(p for p in sub.rglob("*") if p.is_file() and p.suffix != ".pyc")
    return files


def code_digest(name: str, root: Path, start: set[str] | None = None) -> str:
    """Digest of the package code notebook ``name`` uses (:func:`used_modules`, from ``start`` when given) and the
    package data beside it (the seed study's shipped store is keyed on it: its value must stay stable)."""
    return _hash_files(_code_files(name, root, start), root)


def key_inputs(
    name: str, params: dict, root: Path, inputs: dict[str, dict[str, str]] | str, upstream: dict[str, str] | str = ""
) -> dict[str, dict[str, str]]:
    """Everything notebook ``name``'s cached execution depends on, by kind, each input by name with its digest.

    ``source`` (the notebook's jupytext file), ``parameters`` (each papermill parameter, as JSON), the shared
    inputs of the build (:func:`build_inputs`: ``data``, ``families``, ``environment``), ``code`` (every file of
    the ``selfconf`` modules the notebook can execute, :func:`used_modules`, with their package data) and
    ``upstream`` (each value the earlier phases glued, :func:`upstream_values`).  Content is hashed (SHA-256), never
    a time stamp.  What the key does not see: packages outside ``selfconf`` beyond their pins, environment
    variables, and third-party data sets read from outside ``data/`` (those are checked against their published
    checksums when they are loaded, :mod:`selfconf.datasets`).

    Example: ``key_inputs("04_result1", {}, project_root(), build_inputs(project_root()))["code"]`` lists
    ``src/selfconf/metrics/__init__.py`` and not ``src/selfconf/cli/collect.py``.
    """
    out: dict[str, dict[str, str]] = {
        "source": {f"notebooks/{name}.py": _file_digest(root / "notebooks" / f"{name}.py")},
        "parameters": {k: json.dumps(v, sort_keys=True) for k, v in params.items()},
    }
    out.update(inputs if isinstance(inputs, dict) else {"inputs": {"digest": inputs}})
    out["code"] = {p.relative_to(root).as_posix(): _file_digest(p) for p in _code_files(name, root, data_folders=True)}
    out["upstream"] = upstream if isinstance(upstream, dict) else ({"digest": upstream} if upstream else {})
    return out


def _key_of(inputs: dict[str, dict[str, str]]) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:24]


def cache_key(
    name: str, params: dict, root: Path, inputs: dict[str, dict[str, str]] | str, upstream: dict[str, str] | str = ""
) -> str:
    """The key of notebook ``name``'s cached execution: the digest of :func:`key_inputs`."""
    return _key_of(key_inputs(name, params, root, inputs, upstream))


def explain_miss(name: str, inputs: dict[str, dict[str, str]], root: Path, limit: int = 3) -> str:
    """Why notebook ``name`` with these :func:`key_inputs` is not in the cache: the inputs that differ from its
    newest cached entry, by kind (``"no cached execution"`` when it has none; ``""`` when it is a hit).

    Example: after a build with ``-p seed 7``, the default build's miss says ``parameters: seed changed``.
    """
    key = _key_of(inputs)
    entries = _entries(root, name)
    if any(e.name == f"{name}-{key}" for e in entries):
        return ""
    if not entries:
        return "no cached execution"
    try:
        old = json.loads((entries[0] / ENTRY_KEY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "no readable cached execution"
    parts = []
    for kind in sorted(set(inputs) | set(old)):
        a, b = old.get(kind, {}), inputs.get(kind, {})
        diff = [f"{k} added" for k in sorted(set(b) - set(a))]
        diff += [f"{k} removed" for k in sorted(set(a) - set(b))]
        diff += [
            f"{k}: {a[k]} -> {b[k]}" if kind in ("parameters", "families") else f"{k} changed"
            for k in sorted(set(a) & set(b))
            if a[k] != b[k]
        ]
        if diff:
            more = f" (and {len(diff) - limit} more)" if len(diff) > limit else ""
            parts.append(f"{kind}: " + "; ".join(diff[:limit]) + more)
    return " | ".join(parts) or "inputs equal to a cached entry that is incomplete"


def _entries(root: Path, name: str) -> list[Path]:
    """Complete cache entries of notebook ``name`` (its key file written), newest first."""
    d = root / CACHE_DIR
    if not d.is_dir():
        return []
    found = [e for e in d.glob(f"{name}-*") if e.is_dir() and (e / ENTRY_KEY).is_file()]
    return sorted(found, key=lambda e: (e / ENTRY_KEY).stat().st_mtime_ns, reverse=True)


def install_tables(entry_tables: Path, target: Path, name: str) -> list[str]:
    """Make the table folder ``target`` hold what notebook ``name`` wrote (the files in ``entry_tables``): copy
    each file that differs, and remove every file ``name`` wrote there before (``target/.owners/<name>.json``)
    that it did not write this time.  Returns the files (relative paths) it owns now.

    An unchanged file is left as it is (Sphinx does not copy it again).

    >>> import tempfile
    >>> src, dst = (Path(tempfile.mkdtemp()) for _ in range(2))
    >>> _ = (src / "a.csv").write_text("x\\n1\\n")
    >>> install_tables(src, dst, "nb")
    ['a.csv']
    >>> (src / "a.csv").unlink(); install_tables(src, dst, "nb"), (dst / "a.csv").exists()
    ([], False)
    """
    files = sorted(
        p.relative_to(entry_tables).as_posix()
        for p in (entry_tables.rglob("*") if entry_tables.is_dir() else [])
        if p.is_file()
    )
    owners = target / OWNERS_DIR / f"{name}.json"
    try:
        before = json.loads(owners.read_text(encoding="utf-8")) if owners.is_file() else []
    except ValueError:
        before = []
    token = _printed_token(target)
    for rel in files:
        src, dst = entry_tables / rel, target / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
        shutil.copyfile(src, tmp)
        side = entry_tables / PRINTED_DIR / f"{Path(rel).stem}.json"
        if token is not None and "/" not in rel and rel.endswith(".csv") and side.is_file():
            # the paper's tokens, as the provenance step writes them when the HTML is built: so an unchanged
            # download is left as it is and Sphinx does not read its page again
            try:
                fill_printed_csv(tmp, json.loads(side.read_text(encoding="utf-8"))["cells"], token)
            except (ValueError, KeyError):
                pass  # the provenance step reports it, naming the claim
        if dst.is_file() and dst.read_bytes() == tmp.read_bytes():
            tmp.unlink()
            continue
        os.replace(tmp, dst)
    for rel in set(before) - set(files):
        (target / rel).unlink(missing_ok=True)
    if before != files or not owners.is_file():
        owners.parent.mkdir(parents=True, exist_ok=True)
        owners.write_text(json.dumps(files, indent=0) + "\n", encoding="utf-8")
    return files


_TOKENS: dict[tuple[str, int, int], dict[str, str]] = {}


def _printed_token(target: Path):
    """The paper's printed token of a claim id (the claim manifest of the project ``target`` belongs to), for the
    printed cells of the book's CSV downloads; ``None`` outside the book's table folder (a rerun's tables)."""
    root = project_root()
    if target.resolve() != (root / TABLE_DIR).resolve():
        return None
    path = root / "data" / "paper" / "claims.yaml"
    st = path.stat()
    stamp = (str(path), st.st_mtime_ns, st.st_size)

    def token(key: str) -> str:
        if stamp not in _TOKENS:  # read once per process, and only when a table has printed cells
            from selfconf.claims.judging import load_manifest

            _TOKENS[stamp] = {k: str(c["printed"]) for k, c in load_manifest(path).by_id.items()}
        return _TOKENS[stamp][key]

    return token


def _sweep_tables(target: Path, names: list[str]) -> list[str]:
    """After a full build: remove from ``target`` every file no notebook of ``names`` wrote (a table left by an
    earlier run, a removed page, a restored folder).  Returns the removed files."""
    owned: set[str] = set()
    for n in names:
        f = target / OWNERS_DIR / f"{n}.json"
        owned.update(json.loads(f.read_text(encoding="utf-8")) if f.is_file() else [])
    removed = []
    for p in sorted(target.rglob("*")) if target.is_dir() else []:
        rel = p.relative_to(target).as_posix()
        if p.is_file() and rel.split("/")[0] != OWNERS_DIR and rel not in owned:
            p.unlink()
            removed.append(rel)
    for f in (target / OWNERS_DIR).glob("*.json"):
        if f.stem not in names:
            f.unlink()
    return removed


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


def _without_unavailable_data(src: Path, root: Path, work: Path) -> Path:
    """``src``, or a copy in ``work`` without the cells whose third-party data are not available (with a notice in
    their place, :func:`selfconf.data.external.without_unavailable`); prints which data sets are missing."""
    import nbformat

    from selfconf.data.external import without_unavailable

    nb, missing = without_unavailable(nbformat.read(src, as_version=4), root)
    if not missing:
        return src
    print(f"  {src.stem}: third-party data not available ({', '.join(missing)}): its cells are left out, the page "
          "says so (`make external` fetches them)", flush=True)  # fmt: skip
    dst = work / f"{src.stem}.without-external.ipynb"
    nbformat.write(nb, dst)
    return dst


def execute_one(
    name: str,
    params: dict | None = None,
    out_dir: str | Path = "book",
    root: Path | None = None,
    table_dir: str | Path | None = None,
) -> Path:
    """Execute one notebook with papermill into ``out_dir/<name>.ipynb``; raise a clear error on failure.

    Its CSV tables go to ``table_dir`` when given (the build's cache entry), else to ``book/_static/tables`` for
    ``out_dir`` ``book`` and to ``out_dir/_static/tables`` for any other folder (a rerun).

    The kernel is started first (with the environment set below) and boots while the notebook is
    converted from its jupytext source and papermill is imported."""
    from selfconf.book.kernels import preload_modules, run_papermill, start_kernel, stop_kernel

    root = root or project_root()
    out = Path(out_dir) if Path(out_dir).is_absolute() else root / out_dir
    out.mkdir(parents=True, exist_ok=True)
    dst = out / f"{name}.ipynb"
    # papermill rewrites its output after every cell; write beside it and rename at the end, so a
    # notebook of the same phase reading glued values (restate) never sees a half-written file
    part = out / ".partial" / f"{name}.ipynb"
    part.parent.mkdir(exist_ok=True)
    # the kernel imports the notebook's slow third-party modules while it boots and this process prepares
    try:
        preload = preload_modules((root / "notebooks" / f"{name}.py").read_text(encoding="utf-8"))
    except OSError:
        preload = ()  # the missing notebook is reported by the conversion below, after the kernel is stopped
    env_root = os.environ.get("SELFCONF_ROOT")
    os.environ["SELFCONF_ROOT"] = str(root)
    os.environ["SELFCONF_BOOK"] = "1"  # selfconf.book.in_book(): the kernel runs a page of the book
    # a notebook run outside book/ (a rerun) writes its tables beside it, never over the book's CSV downloads
    if table_dir is not None:
        os.environ[TABLE_DIR_ENV] = str(table_dir)
    elif out.resolve() != (root / "book").resolve():
        os.environ[TABLE_DIR_ENV] = str(out / "_static" / "tables")
    else:
        os.environ.pop(TABLE_DIR_ENV, None)
    kernel = start_kernel(root / "book", preload=preload) if preload else start_kernel(root / "book")
    try:
        src = _without_unavailable_data(_to_ipynb(name, root), root, part.parent)
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
    """Restore notebook ``name``'s cache entry ``<name>-<key>/`` (its executed notebook into ``out_dir`` and its
    tables into ``out_dir/_static/tables``, :func:`install_tables`) or execute it into a new entry first.

    The entry's key file is written by :func:`execute` when this returns, so an entry interrupted half-way is
    never used."""
    t0 = time.perf_counter()
    entry = root / CACHE_DIR / f"{name}-{key}"
    dst = out_dir / f"{name}.ipynb"
    tables = (root / TABLE_DIR) if out_dir.resolve() == (root / "book").resolve() else out_dir / "_static" / "tables"
    out_dir.mkdir(parents=True, exist_ok=True)
    part = out_dir / ".partial" / f"{name}.ipynb"
    part.parent.mkdir(exist_ok=True)
    if use_cache and (entry / ENTRY_KEY).is_file() and (entry / ENTRY_NOTEBOOK).is_file():
        how = "cached"
    else:
        how = "executed"
        shutil.rmtree(entry, ignore_errors=True)
        work = entry.with_name(f".{entry.name}.{os.getpid()}")
        shutil.rmtree(work, ignore_errors=True)
        (work / ENTRY_TABLES).mkdir(parents=True)
        try:
            execute_one(name, params, work, root, table_dir=work / ENTRY_TABLES)
        except RuntimeError as e:  # keep the partial output where the reader looks (out_dir), not in the cache
            failed = work / f"{name}.ipynb"
            if failed.is_file():
                os.replace(failed, dst)
            shutil.rmtree(work, ignore_errors=True)
            raise RuntimeError(str(e).replace(str(failed), str(dst))) from None
        os.replace(work / f"{name}.ipynb", work / ENTRY_NOTEBOOK)
        shutil.rmtree(work / ".partial", ignore_errors=True)
        os.replace(work, entry)
    shutil.copyfile(entry / ENTRY_NOTEBOOK, part)
    with_install_cell(part, root)
    if dst.is_file() and dst.read_bytes() == part.read_bytes():
        part.unlink()  # unchanged: keep the file (and its time stamp), so Sphinx does not read the page again
    else:
        os.replace(part, dst)  # atomic, as in execute_one
    install_tables(entry / ENTRY_TABLES, tables, name)
    return name, how, time.perf_counter() - t0


def _store_key(root: Path, name: str, key: str, inputs: dict[str, dict[str, str]]) -> None:
    """Complete the entry ``<name>-<key>/`` (write its key file) and keep the :data:`KEEP_ENTRIES` newest entries
    of ``name`` (entries of the cache's earlier format, one ``<name>-<key>.ipynb`` file each, are removed)."""
    entry = root / CACHE_DIR / f"{name}-{key}"
    if not (entry / ENTRY_NOTEBOOK).is_file():
        return
    tmp = entry / f".{ENTRY_KEY}.{os.getpid()}"
    tmp.write_text(json.dumps(inputs, sort_keys=True, indent=0), encoding="utf-8")
    os.replace(tmp, entry / ENTRY_KEY)  # also refreshes its time: the entry used last is the newest
    for old in _entries(root, name)[KEEP_ENTRIES:]:
        shutil.rmtree(old, ignore_errors=True)
    for old in (root / CACHE_DIR).glob(f"{name}-*.ipynb"):
        old.unlink()


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


def upstream_values(out_dir: Path, before_phase: int) -> dict[str, str]:
    """Each value the executed notebooks of the phases before ``before_phase`` in ``out_dir`` glued, by key, as a
    digest of the value and where it was glued (what a notebook of that phase can read; its own phase and later
    ones are left out, so its key does not depend on whether they ran before).

    Example: ``upstream_values(Path("book"), 1)`` is ``{}`` (phase 1 reads no glued value).
    """
    exclude = tuple(p.name for p in out_dir.glob("*.ipynb") if phase_of(p.stem) >= before_phase)
    values = glued_values(out_dir, exclude=exclude) if before_phase > 1 else {}
    return {
        k: hashlib.sha256(json.dumps(v, sort_keys=True, default=str).encode()).hexdigest()[:16]
        for k, v in values.items()
    }


def execute(
    only: list[str] | None = None,
    params: dict | None = None,
    jobs: int | None = None,
    use_cache: bool = True,
    out_dir: str | Path = "book",
    explain: bool = False,
) -> list[tuple[str, str, float]]:
    """Execute notebooks phase by phase (parallel within a phase). Returns (name, how, seconds).

    With ``explain``, print per notebook whether its cache entry is a hit or, for a miss, which inputs changed
    since its newest entry (:func:`explain_miss`).  A full build leaves in the table folder only the tables its
    notebooks wrote (a table of an earlier run, or of a page no longer in the book, is removed)."""
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
    shared = build_inputs(root, data_dir if isinstance(data_dir, str) else None)
    imports = root / IMPORTS_FILE
    try:
        _IMPORTS.update(json.loads(imports.read_text(encoding="utf-8")) if imports.is_file() else {})
    except ValueError:
        pass  # unreadable: parsed again
    jobs = jobs or os.cpu_count() or 1
    done: list[tuple[str, str, float]] = []
    failures: list[str] = []
    for phase in sorted({phase_of(n) for n in names}):
        batch = [n for n in names if phase_of(n) == phase]
        upstream = upstream_values(out, phase)
        inputs = {n: key_inputs(n, params, root, shared, upstream) for n in batch}
        keys = {n: _key_of(inputs[n]) for n in batch}
        if explain:
            for n in batch:
                why = "not used (--no-cache)" if not use_cache else explain_miss(n, inputs[n], root)
                print(f"  {n:32s} {'hit' if not why else 'miss':8s} {why}", flush=True)
        with ProcessPoolExecutor(max_workers=min(jobs, len(batch))) as pool:
            futs = {pool.submit(_run_cached, n, params, root, keys[n], use_cache, out): n for n in batch}
            for f in as_completed(futs):
                try:
                    res = f.result()
                    _store_key(root, res[0], keys[res[0]], inputs[res[0]])
                    done.append(res)
                    print(f"  {res[0]:32s} {res[1]:8s} {res[2]:6.1f} s", flush=True)
                except Exception as e:  # noqa: BLE001 - reported with the notebook's name
                    failures.append(f"{futs[f]}: {e}")
                    print(f"  {futs[f]:32s} FAILED   {e}", flush=True)
        if failures:
            raise SystemExit("notebook execution failed:\n  " + "\n  ".join(failures))
    imports.parent.mkdir(parents=True, exist_ok=True)
    imports.write_text(json.dumps(_IMPORTS, sort_keys=True), encoding="utf-8")
    if not only:
        tables = root / TABLE_DIR if out == root / "book" else out / "_static" / "tables"
        for rel in _sweep_tables(tables, names):
            print(f"  removed {rel} (written by no notebook of this build)", flush=True)
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


def teaching_in_toc(root: Path | None = None) -> bool:
    """Whether the table of contents lists a teaching page (:data:`selfconf.course.TEACHING`): only then do
    ``build html`` and ``build all`` write the student edition (``build student`` always does).

    The book's own table of contents lists them:

    >>> teaching_in_toc()
    True
    """
    from selfconf.course import TEACHING

    return bool(set(TEACHING) & toc_files(root))


def student_edition(root: Path | None = None, *, update_checks: bool = False) -> bool:
    """Write the student edition (:func:`selfconf.course.make_student`) unless it is up to date; True if written.

    Up to date: the key stored beside it equals the digest of everything ``otter assign`` reads (the teaching
    masters, the install cell they get, the ``selfconf.course`` package that declares the checks, the pinned
    requirements), of the values the book's teaching pages glued (the student prose shows them,
    :func:`teaching_values`), and every output file exists.  ``update_checks`` always writes it.
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


def add_param_option(ap: argparse.ArgumentParser, help_text: str) -> None:
    """Add ``-p/--param NAME VALUE`` (repeatable) to a command line: a notebook parameter (:func:`_parse_params`).

    Definition: ``nargs=2``, appended, default ``[]``; the value is JSON where it parses, else the string.
    Used by ``python -m selfconf.book.build`` and ``selfconf rerun``.

    >>> ap = argparse.ArgumentParser()
    >>> add_param_option(ap, "a parameter")
    >>> _parse_params(ap.parse_args(["-p", "seed", "7", "-p", "data_dir", "data/raw"]).param)
    {'seed': 7, 'data_dir': 'data/raw'}
    """
    ap.add_argument("-p", "--param", nargs=2, action="append", metavar=("NAME", "VALUE"), default=[], help=help_text)


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
    ap.add_argument(
        "--explain-cache",
        action="store_true",
        help="per notebook: cache hit, or miss and the inputs that changed",
    )
    ap.add_argument(
        "--update-checks", action="store_true", help="student: write the student edition even when up to date"
    )
    add_param_option(ap, "papermill parameter (JSON value), e.g. -p seed 7")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    if a.step in ("execute", "all"):
        execute(a.only, _parse_params(a.param), a.jobs, not a.no_cache, explain=a.explain_cache)
    if a.step == "student" or (a.step in ("html", "all") and teaching_in_toc()):
        # the student edition first: the teaching pages offer its notebooks (book/_static/student/) for download
        # (a book whose table of contents lists no teaching page offers none, and writes none)
        student_edition(update_checks=a.update_checks)
    if a.step in ("html", "all"):
        build_html()
        if a.edition == "student":  # also the site without solutions, from the same executed pages
            print(f"student-only site: {build_student_site()}")
    print(f"done in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
