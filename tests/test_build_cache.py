"""The notebook cache never serves a stale page: a warm build equals a ``--no-cache`` build of the same tree.

A two-page book (the design section, which computes from rows and writes four CSV tables, and the audit page,
which reads every glued value and the claim manifest and writes six) is built in a copy of the project.  For each
kind of input a notebook depends on (a parameter, a data file's content, a family appearing under ``data/raw``, a
package function, a value glued by an earlier phase, the claim manifest) the test changes it, builds with the
cache, and compares everything the build wrote (each executed notebook's cells and outputs, every CSV table, which
the HTML's CSV downloads copy) with a ``--no-cache`` build of the same tree; then it changes the input back, puts
back the ``_build/`` folder saved before the change (as a CI job restoring its cache, or a user restoring a backup,
would) and compares again with the unchanged tree's ``--no-cache`` build.

``test_restored_cache_after_a_raw_build`` is the sequence a researcher pointing the book at the original package
and back runs: build; save ``_build/``; build with ``data_dir=data/raw`` holding the graded collections alone;
remove them; put ``_build/`` back; build with the defaults.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from selfconf.data import families

pytestmark = pytest.mark.book

_SKIP = {".git", ".venv", "_build", "__pycache__", ".pytest_cache", ".partial", ".mypy_cache", ".ruff_cache"}
TOC = "format: jb-book\nroot: book/index\nchapters:\n  - file: book/03_design\n  - file: book/14_audit\n"
#: Every build of this file: 200 draws keep the pages' intervals (and the audit's seed study) quick.
BASE = {"n_boot": 200}
RAW = {**BASE, "data_dir": "data/raw"}
#: The kernel names its cells' files after its process id (``/tmp/ipykernel_<pid>/<n>.py``) in a warning's text.
KERNEL_FILE = re.compile(r"/tmp/ipykernel_\d+/")


def _copy_project(root: Path, dst: Path) -> Path:
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
    return dst


def _execute(project: Path, params: dict, *flags: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("SELFCONF_ROOT", "PYTHONPATH", "SELFCONF_TABLE_DIR")}
    env["PYTHONPATH"] = str(project / "src")
    cmd = [sys.executable, "-m", "selfconf.book.build", "execute", *flags]
    for k, v in params.items():
        cmd += ["-p", k, json.dumps(v)]
    r = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(cmd[3:])} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return r.stdout


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


@pytest.fixture(scope="module")
def tiny(root, tmp_path_factory):
    """The two-page project, built once without the cache per parameter set; the reference outputs of each."""
    project = _copy_project(root, tmp_path_factory.mktemp("cache") / "proj")
    reference = {}
    for params in (BASE, RAW):
        _execute(project, params, "--no-cache")
        reference[json.dumps(params)] = _outputs(project)
    assert _differences(reference[json.dumps(BASE)], reference[json.dumps(RAW)]), (
        "data_dir=data/raw shows no difference"
    )
    return project, reference


@pytest.mark.parametrize("kind", list(KINDS))
def test_warm_build_equals_a_build_without_cache(tiny, kind, tmp_path):
    project, reference = tiny
    change = KINDS[kind]
    before = reference[json.dumps(change.params)]
    _execute(project, change.params)  # the cache holds the unchanged tree's entries
    assert not _differences(_outputs(project), before)
    saved = tmp_path / "_build"
    shutil.copytree(project / "_build", saved)

    change.apply(project)
    changed_params = {**change.params, **change.extra}
    try:
        _execute(project, changed_params)
        warm = _outputs(project)
        _execute(project, changed_params, "--no-cache")
        cold = _outputs(project)
        assert _differences(cold, before), f"changing the {kind} changed nothing: the test would prove nothing"
        assert not _differences(warm, cold), f"{kind} changed: warm build differs from --no-cache build"
    finally:
        change.undo(project)

    shutil.rmtree(project / "_build")
    shutil.copytree(saved, project / "_build")  # the saved cache put back, as a CI restore would
    log = _execute(project, change.params)
    diff = _differences(_outputs(project), before)
    assert not diff, f"{kind} changed back with the saved _build/: stale outputs {diff}\n{log}"


def _explained(log: str) -> dict[str, str]:
    """``{notebook: "hit" or "miss <why>"}`` from a build's ``--explain-cache`` lines."""
    out = {}
    for ln in log.splitlines():
        parts = ln.split(maxsplit=2)
        if len(parts) >= 2 and parts[1] in ("hit", "miss"):
            out[parts[0]] = " ".join(parts[1:])
    return out


def test_explain_names_the_changed_input(tiny):
    project, _ = tiny
    _execute(project, BASE)
    why = _explained(_execute(project, {**BASE, "seed": 7}, "--explain-cache"))
    assert why["03_design"].startswith("miss") and "parameters: seed added" in why["03_design"], why
    # back to the defaults: the entries of both builds are kept, so both pages are hits
    assert _explained(_execute(project, BASE, "--explain-cache")) == {"03_design": "hit", "14_audit": "hit"}


def test_restored_cache_after_a_raw_build(tiny, tmp_path):
    """The researcher's sequence: the default build's ``_build/`` restored after a build from the graded
    collections under ``data/raw`` gives what a build without the cache gives (every table, every page)."""
    project, reference = tiny
    _execute(project, BASE)
    saved = tmp_path / "_build"
    shutil.copytree(project / "_build", saved)
    _raw_collection(project)
    try:
        _execute(project, RAW)
        sources = (project / "book" / "_static" / "tables" / "audit_sources.csv").read_text()
        assert "original" in sources  # the raw build did label its collection as the original package
    finally:
        _no_raw(project)
    shutil.rmtree(project / "_build")
    shutil.copytree(saved, project / "_build")
    _execute(project, BASE)
    diff = _differences(_outputs(project), reference[json.dumps(BASE)])
    assert not diff, f"stale outputs after the restored cache: {diff}"
    assert "original" not in (project / "book" / "_static" / "tables" / "audit_sources.csv").read_text()
