"""The notebook cache never serves a stale page: a warm build equals a ``--no-cache`` build of the same tree.

A two-page book is built in a copy of the project: the design section (computes from rows, glues claims, writes
four CSV tables) and the audit page (reads every glued value, the claim manifest and the data families; writes
six).  For each kind of input a notebook depends on (a parameter, a data file's content, a family appearing under
``data/raw``, a package function, a value glued by an earlier phase, the claim manifest) the property test

1. changes it and builds with the cache, and compares everything the build wrote (each executed notebook's cells
   and outputs, every file of the table folder, which the HTML's CSV downloads copy) with a build of the changed
   tree without the cache;
2. changes it back, puts back the ``_build/`` folder saved before the change (as a CI job restoring its cache or a
   user restoring a backup would) and compares with the unchanged tree's ``--no-cache`` build.

What keeps it cheap (130 s in all, measured on a shared 2-core machine where the first version took 947 s):

* the oracle of step 1: the papermill start time of each executed notebook says whether the build ran it or
  restored it.  When the build ran every notebook of the changed tree, it *was* a build without the cache (the
  same code path executes both); only when it restored one from the cache does the test pay for a
  ``--no-cache`` build and compare.  The unchanged tree's ``--no-cache`` builds are made once (the fixture);
* the seed study the audit runs for the design section uses 4 seeds instead of 200 (the copy's
  ``selfconf.book.seedstudy.K_SEEDS`` is edited for every build alike; the study's own numbers are tested in
  ``tests/test_seedstudy.py``) and the pages draw 50 bootstrap samples;
* the cache's key by kind is unit-tested in ``tests/test_build_key.py``.

``test_restored_cache_after_a_raw_build`` is the sequence a researcher pointing the book at the original package
and back runs (build the book; save ``_build/``; execute with ``data_dir=data/raw`` holding the graded collections
alone; remove them; put ``_build/`` back; ``build all`` with the defaults): the result equals the book built from
an execution without the cache: same notebooks and tables, byte-identical CSV downloads in ``_build/html``, and
``python -m selfconf.book.parity`` finds no mismatch.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import nbformat
import pytest

from selfconf.data import families

pytestmark = pytest.mark.book

_SKIP = {".git", ".venv", "_build", "__pycache__", ".pytest_cache", ".partial", ".mypy_cache", ".ruff_cache"}
TOC = "format: jb-book\nroot: book/cache_book\nchapters:\n  - file: book/03_design\n  - file: book/14_audit\n"
#: Its root page (the book's own ``index.md`` pastes values of pages this book leaves out).
ROOT_PAGE = "# A two-page book\n\nThe design section and the audit, built by the cache's tests.\n"
#: Every build of this file: 50 bootstrap draws keep the pages' intervals and the audit's seed study quick.
BASE = {"n_boot": 50}
RAW = {**BASE, "data_dir": "data/raw"}
#: Seeds of the audit's seed study in the copy (the book's is 200).
STUDY_SEEDS = 4
#: The kernel names its cells' files after its process id (``/tmp/ipykernel_<pid>/<n>.py``) in a warning's text.
KERNEL_FILE = re.compile(r"/tmp/ipykernel_\d+/")


def _copy_project(root: Path, dst: Path) -> Path:
    """A copy without build outputs, executed notebooks, tables or raw data; the two-page table of contents and
    its root page; the seed study at :data:`STUDY_SEEDS` seeds; and Sphinx told that the pages' links into the
    pages left out of this book are expected (the only warnings of its HTML)."""

    def ignore(folder, names):
        rel = Path(folder).relative_to(root).as_posix()
        out = {n for n in names if n in _SKIP}
        if rel in ("book", "notebooks"):
            out |= {n for n in names if n.endswith(".ipynb")}
        if rel == "data/raw":
            out |= {n for n in names if n != "README.md"}
        if rel == "book/_static":
            out |= {"tables", "student"}
        return out

    shutil.copytree(root, dst, ignore=ignore, symlinks=True)
    (dst / "_toc.yml").write_text(TOC)
    (dst / "book" / "cache_book.md").write_text(ROOT_PAGE)
    _edit(dst / "src/selfconf/book/seedstudy.py", "\nK_SEEDS = 200\n", f"\nK_SEEDS = {STUDY_SEEDS}\n")
    _edit(
        dst / "_config.yml",
        "\n    html_show_copyright: false\n",
        '\n    html_show_copyright: false\n    suppress_warnings: ["myst.xref_missing", "ref.ref"]\n',
    )
    return dst


def _run(project: Path, step: str, params: dict, *flags: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("SELFCONF_ROOT", "PYTHONPATH", "SELFCONF_TABLE_DIR")}
    env["PYTHONPATH"] = str(project / "src")
    cmd = [sys.executable, "-m", "selfconf.book.build", step, *flags]
    for k, v in params.items():
        cmd += ["-p", k, json.dumps(v)]
    r = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(cmd[3:])} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return r.stdout


def _execute(project: Path, params: dict, *flags: str) -> str:
    return _run(project, "execute", params, *flags)


def _outputs(project: Path) -> dict[str, object]:
    """What a build wrote: each executed notebook's cells (source and outputs, without run times and counters)
    and the bytes of every file in the table folder (the CSV downloads and their printed-cell lists)."""
    out: dict[str, object] = {}
    for p in sorted((project / "book").glob("*.ipynb")):
        nb = nbformat.read(p, as_version=4)
        cells = []
        for c in nb.cells:
            outs = [{k: v for k, v in o.items() if k != "execution_count"} for o in c.get("outputs", [])]
            cells.append(
                (c.cell_type, c.source, KERNEL_FILE.sub("/tmp/ipykernel_*/", json.dumps(outs, sort_keys=True)))
            )
        out[f"book/{p.name}"] = cells
    tables = project / "book" / "_static" / "tables"
    for p in sorted(tables.rglob("*")):
        rel = p.relative_to(tables).as_posix()
        if p.is_file() and not rel.startswith(".owners/"):
            out[f"tables/{rel}"] = p.read_bytes()
    return out


def _restored(project: Path, since: datetime) -> list[str]:
    """The executed notebooks of ``book/`` that papermill did not start after ``since`` (restored from a cache)."""
    out = []
    for p in sorted((project / "book").glob("*.ipynb")):
        start = nbformat.read(p, as_version=4).metadata.get("papermill", {}).get("start_time")
        if not start or datetime.fromisoformat(start) < since:
            out.append(p.stem)
    return out


def _differences(a: dict, b: dict) -> list[str]:
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path}: {old!r} found {text.count(old)} times"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


class Change:
    """One input changed and changed back: ``params`` of both builds, ``apply`` and ``undo`` on the project."""

    def __init__(self, params: dict, apply, undo, extra: dict | None = None):
        self.params, self.apply, self.undo, self.extra = params, apply, undo, extra or {}


def _text_change(rel: str, old: str, new: str, params: dict | None = None) -> Change:
    return Change(
        params or BASE,
        lambda p: _edit(p / rel, old, new),
        lambda p: _edit(p / rel, new, old),
    )


def _raw_collection(project: Path) -> None:
    families.export_raw(project / "data" / "reconstructed", project / "data" / "raw", ["collection"])


def _no_raw(project: Path) -> None:
    for p in (project / "data" / "raw").iterdir():
        if p.name != "README.md":
            shutil.rmtree(p) if p.is_dir() else p.unlink()


KINDS = {
    # a parameter: the seed of the benchmark-age intervals (design's table and glued values)
    "parameter": Change(BASE, lambda p: None, lambda p: None, extra={"seed": 7}),
    # a data file's content: one TruthfulQA answer graded wrong
    "data file": _text_change(
        "data/reconstructed/benchmark_age.csv",
        "deepseek,tqa-0001,truthfulqa_mc,1\n",
        "deepseek,tqa-0001,truthfulqa_mc,0\n",
    ),
    # a family appearing under data/raw (the graded collections), read with data_dir=data/raw
    "raw family": Change(RAW, _raw_collection, _no_raw),
    # a package function: the benchmark-age gap
    "package function": _text_change(
        "src/selfconf/sections/design.py",
        "    return 100.0 * (older - newer)\n",
        "    return 100.0 * (older - newer) + 1.0\n",
    ),
    # a value glued by an earlier phase: the design page glues another model count (the audit page reads it)
    "glued value": _text_change(
        "notebooks/03_design.py",
        "            glue.claim(key, v)\n",
        "            glue.claim(key, v + 1 if key == 'design_n_models' else v)\n",
    ),
    # the claim manifest: the printed model count
    "claim manifest": _text_change(
        "data/paper/claims.yaml",
        "- id: design_n_models\n  value: 16\n  printed: sixteen\n",
        "- id: design_n_models\n  value: 17\n  printed: seventeen\n",
    ),
}


class Tiny:
    """The two-page project, the outputs of its ``--no-cache`` builds by parameters, and the parameters of its
    last build when the tree was unchanged (``None`` when unknown), so that a test needing that state does
    not build it again."""

    def __init__(self, project: Path):
        self.project, self.reference, self.last = project, {}, None

    def ref(self, params: dict) -> dict:
        return self.reference[json.dumps(params, sort_keys=True)]

    def at(self, params: dict) -> None:
        """The unchanged tree built with ``params`` and the cache (a hit when its entries are there).  After a
        failed test (the state unknown) a ``--no-cache`` build comes first, so that each test fails on its own."""
        if self.last is None:
            _execute(self.project, params, "--no-cache")
        if self.last != params:
            _execute(self.project, params)
            self.last = params
        diff = _differences(_outputs(self.project), self.ref(params))
        assert not diff, f"the unchanged tree's warm build differs from its --no-cache build: {diff}"


@pytest.fixture(scope="module")
def tiny(root, tmp_path_factory):
    t = Tiny(_copy_project(root, tmp_path_factory.mktemp("cache") / "proj"))
    for params in (RAW, BASE):
        _execute(t.project, params, "--no-cache")
        t.reference[json.dumps(params, sort_keys=True)] = _outputs(t.project)
    t.last = BASE
    assert _differences(t.ref(BASE), t.ref(RAW)), "data_dir=data/raw shows no difference"
    return t


@pytest.mark.parametrize("kind", list(KINDS))
def test_warm_build_equals_a_build_without_cache(tiny, kind, tmp_path):
    project, change = tiny.project, KINDS[kind]
    tiny.at(change.params)
    saved = tmp_path / "_build"
    shutil.copytree(project / "_build", saved)

    change.apply(project)
    tiny.last = None
    changed_params = {**change.params, **change.extra}
    try:
        since = datetime.now(UTC)
        log = _execute(project, changed_params)
        warm = _outputs(project)
        restored = _restored(project, since)
        if restored:  # the build used the cache: the changed tree's build without it is the reference
            _execute(project, changed_params, "--no-cache")
            cold = _outputs(project)
        else:  # the build ran every notebook of the changed tree: it was a build without the cache
            cold = warm
        assert _differences(cold, tiny.ref(change.params)), f"changing the {kind} changed nothing: no test"
        diff = _differences(warm, cold)
        assert not diff, f"{kind} changed: the warm build (restored {restored}) differs from --no-cache: {diff}\n{log}"
    finally:
        change.undo(project)

    shutil.rmtree(project / "_build")
    shutil.copytree(saved, project / "_build")  # the saved cache put back, as a CI restore would
    log = _execute(project, change.params)
    diff = _differences(_outputs(project), tiny.ref(change.params))
    assert not diff, f"{kind} changed back with the saved _build/: stale outputs {diff}\n{log}"
    tiny.last = change.params


def _explained(log: str) -> dict[str, str]:
    """``{notebook: "hit" or "miss <why>"}`` from a build's ``--explain-cache`` lines."""
    out = {}
    for ln in log.splitlines():
        parts = ln.split(maxsplit=2)
        if len(parts) >= 2 and parts[1] in ("hit", "miss"):
            out[parts[0]] = " ".join(parts[1:])
    return out


def test_explain_names_the_changed_input(tiny):
    tiny.at(BASE)
    tiny.last = None
    why = _explained(_execute(tiny.project, {**BASE, "seed": 7}, "--explain-cache", "--only", "03_design"))
    assert why["03_design"].startswith("miss") and "parameters: seed added" in why["03_design"], why
    # back to the defaults: the entries of both builds are kept, so both pages are hits
    assert _explained(_execute(tiny.project, BASE, "--explain-cache")) == {"03_design": "hit", "14_audit": "hit"}
    tiny.last = BASE


def _downloads(project: Path) -> dict[str, bytes]:
    """Every CSV file of the built HTML (the downloads, each in a folder Sphinx names by a digest of its source,
    and the static copy of the table folder), by path."""
    html = project / "_build" / "html"
    return {p.relative_to(html).as_posix(): p.read_bytes() for p in sorted(html.rglob("*.csv"))}


def test_restored_cache_after_a_raw_build(tiny, tmp_path):
    """The researcher's sequence: the default build's ``_build/`` restored after a build from the graded
    collections under ``data/raw`` gives what a build without the cache gives (every table, every page, every
    CSV download, and parity 0)."""
    project = tiny.project
    tiny.at(BASE)  # the notebooks and tables of a --no-cache build (checked)
    _run(project, "html", {})
    reference, downloads = _outputs(project), _downloads(project)
    names = {Path(n).name for n in downloads if n.startswith("_downloads/")}
    assert {"audit.csv", "audit_sources.csv", "design_tier_counts.csv"} <= names, sorted(downloads)
    for n, data in downloads.items():  # each a copy of the table the notebooks wrote
        assert data == reference[f"tables/{Path(n).name}"], n
    saved = tmp_path / "_build"
    shutil.copytree(project / "_build", saved)

    _raw_collection(project)
    tiny.last = None
    try:
        _execute(project, RAW)  # the HTML it would build is in _build/, which is put back below
        sources = (project / "book" / "_static" / "tables" / "audit_sources.csv").read_text()
        assert "original" in sources  # the raw build did label its collection as the original package
    finally:
        _no_raw(project)
    shutil.rmtree(project / "_build")
    shutil.copytree(saved, project / "_build")
    log = _run(project, "all", BASE)  # the defaults, but for the bootstrap draws of every build of this file
    diff = _differences(_outputs(project), reference)
    assert not diff, f"stale outputs after the restored cache: {diff}\n{log}"
    got = _downloads(project)
    assert got == downloads, f"CSV downloads differ: {sorted(n for n in got if got[n] != downloads.get(n))}"
    env = {k: v for k, v in os.environ.items() if k not in ("SELFCONF_ROOT", "PYTHONPATH")}
    r = subprocess.run(
        [sys.executable, "-m", "selfconf.book.parity"],
        cwd=project,
        env={**env, "PYTHONPATH": str(project / "src")},
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, f"parity after the restored cache:\n{r.stdout[-4000:]}\n{r.stderr[-2000:]}"
    tiny.last = BASE
