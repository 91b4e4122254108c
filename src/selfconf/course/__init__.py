"""The course edition of the teaching chapter: student notebooks, exercise checks, install cell, publishing.

The teaching notebooks (:data:`TEACHING`) are written as otter-grader *master notebooks*
(``notebooks/2x_*.py``): each exercise is fenced by otter's raw cells (``# BEGIN QUESTION`` ...
``# END QUESTION``), its reference solution is marked ``# SOLUTION`` (one line) or
``# BEGIN SOLUTION`` / ``# END SOLUTION`` (a block), and its checks are exception-based otter tests
(``# BEGIN TESTS``) with a "Not yet" failure message.  The book executes the master as it is: the
instructor edition, solutions behind toggles.

* :func:`make_student` runs ``otter assign`` on each master and writes ``_build/student/<stem>.ipynb``
  (every solution replaced by ``...``, each check replaced by ``grader.check("<exercise>")``) and the
  site's download copy in ``book/_static/student/``; ``make student`` calls it.
* The checks otter writes for each exercise are shipped inside this package
  (``selfconf/course/checks/<stem>/<exercise>.py``), so :func:`grader` works wherever the package is
  installed: Jupyter, Binder, and Colab (where otter cannot read checks stored in a notebook).
  ``make_student(update_checks=True)`` refreshes them; a test checks the shipped copy equals what
  otter writes from the masters.
* :func:`install_cell` is the first cell of every downloadable notebook: it installs ``selfconf[course]``
  from the repository, pinned to the commit the book was built from, when the package is missing, and
  does nothing otherwise.  ``SELFCONF_WHEEL`` (a local wheel or source folder) replaces the repository.
* :func:`publish` lays out the tree the launch buttons open (the ``notebooks`` branch): the executed
  pages ``book/*.ipynb``, the student notebooks ``student/*.ipynb`` and a Binder environment.

Reference: otter-grader documentation, "Creating Assignments" (``otter assign``, the notebook format);
Project Jupyter et al. (2018), "Binder 2.0", SciPy proceedings (the Binder environment).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from selfconf import __version__
from selfconf.data.paths import book_file, project_root

__all__ = [
    "TEACHING",
    "CHECKS_DIR",
    "INSTALL_TAG",
    "WHEEL_ENV",
    "grader",
    "repository_url",
    "book_ref",
    "install_cell_source",
    "install_cell",
    "add_install_cell",
    "make_student",
    "exercises",
    "student_links",
    "publish",
    "main",
]

#: The teaching notebooks that have exercises (stems of ``notebooks/*.py``).
TEACHING = ("20_calibration_vs_discrimination", "21_seed_variation")
#: The otter checks shipped with the package, one folder per teaching notebook.
CHECKS_DIR = Path(__file__).with_name("checks")
#: Metadata mark of the install cell (``cell.metadata["selfconf"] == INSTALL_TAG``).
INSTALL_TAG = "install-cell"
#: Environment variable the install cell reads: a local wheel (or folder) to install instead of the repository.
WHEEL_ENV = "SELFCONF_WHEEL"
#: Tags of the book's HTML that mean nothing in Jupyter; the student edition drops them.
BOOK_TAGS = ("hide-input", "hide-output", "hide-cell", "remove-input", "remove-output")


def grader(stem: str):
    """The otter-grader checker of one teaching notebook: ``grader.check("<exercise>")`` runs its checks.

    Definition: ``otter.Notebook(tests_dir=<the package's checks for stem>)``.  A check never raises:
    it shows "<exercise> results: All test cases passed!" or, per failed case, the exercise's
    "Not yet ..." message and the assertion that failed.

    Reference: otter-grader, "Student Usage" (``otter.Notebook.check``).

    Example::

        grader = grader("20_calibration_vs_discrimination")
        grader.check("ece-by-hand")
    """
    folder = CHECKS_DIR / stem
    if not folder.is_dir():
        known = ", ".join(sorted(p.name for p in CHECKS_DIR.iterdir() if p.is_dir())) if CHECKS_DIR.is_dir() else "none"
        raise FileNotFoundError(f"{folder}: no exercise checks for notebook {stem!r} (known: {known})")
    try:
        import otter
    except ImportError:
        raise ImportError(
            "the exercise checks need otter-grader: pip install 'selfconf[course]' "
            "(the notebook's first cell does this when the package is missing)"
        ) from None
    return otter.Notebook(tests_dir=str(folder))


def exercises(stem: str) -> list[str]:
    """Names of the exercises of a teaching notebook that have checks, in file order of the shipped checks.

    Example: ``"ece-by-hand" in exercises("20_calibration_vs_discrimination")``."""
    folder = CHECKS_DIR / stem
    return sorted(p.stem for p in folder.glob("*.py")) if folder.is_dir() else []


# ------------------------------------------------------------------------------------------ install cell


def repository_url(root: Path | None = None) -> str:
    """``repository.url`` of ``_config.yml``, the one place the repository address is set."""
    cfg = book_file("_config.yml", root)
    url = (cfg.get("repository") or {}).get("url")
    if not url:
        raise ValueError(f"{(root or project_root()) / '_config.yml'}: repository.url is not set")
    return str(url).rstrip("/")


def notebooks_branch(root: Path | None = None) -> str:
    """``repository.branch`` of ``_config.yml``: the branch the launch buttons open (the published notebooks)."""
    cfg = book_file("_config.yml", root)
    return str((cfg.get("repository") or {}).get("branch") or "main")


def book_ref(root: Path | None = None) -> str:
    """The git revision the install cell pins: ``$SELFCONF_COMMIT`` or ``git rev-parse HEAD``, else ``v<version>``.

    The full commit of the checkout the book is built from, so a notebook installs exactly the package
    its outputs were computed with."""
    env = os.environ.get("SELFCONF_COMMIT", "").split("+")[0]
    if len(env) == 40:
        return env
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root or project_root(), capture_output=True, text=True, timeout=5
        )
        sha = out.stdout.strip()
        if len(sha) == 40:
            return sha
    except (OSError, subprocess.SubprocessError, FileNotFoundError):
        pass
    return f"v{__version__}"


def install_cell_source(repo_url: str, ref: str, version: str) -> str:
    """Source of the install cell: install ``selfconf[course]`` pinned to ``ref`` when it is missing.

    "Missing" means any of ``selfconf``, ``altair`` or ``otter`` cannot be imported; the cell then runs
    ``pip install "selfconf[course] @ git+<repo_url>@<ref>"``, or, when ``$SELFCONF_WHEEL`` names a local
    wheel or source folder, ``pip install "selfconf[course] @ file://..."`` (the fresh-environment test
    uses this).  When everything imports it does nothing.

    >>> "git+https://github.com/o/r@abc" in install_cell_source("https://github.com/o/r", "abc", "0.1.0")
    True
    """
    return f'''# Installs this book's package (selfconf {version}) when it is missing -- on Colab, Binder or a fresh
# Jupyter -- and does nothing when it is already there.  {WHEEL_ENV}=/path/to/selfconf.whl installs a local copy.
import importlib.util, os, pathlib, subprocess, sys
if not all(importlib.util.find_spec(m) for m in ("selfconf", "altair", "otter")):
    _src = os.environ.get("{WHEEL_ENV}")
    _src = pathlib.Path(_src).resolve().as_uri() if _src else "git+{repo_url}@{ref}"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", f"selfconf[course] @ {{_src}}"], check=True)
    importlib.invalidate_caches()'''


def install_cell(root: Path | None = None):
    """The install cell as an ``nbformat`` code cell (tagged ``remove-cell``: the HTML page does not show it)."""
    import nbformat

    cell = nbformat.v4.new_code_cell(install_cell_source(repository_url(root), book_ref(root), __version__))
    cell.metadata["tags"] = ["remove-cell"]
    cell.metadata["selfconf"] = INSTALL_TAG
    cell["id"] = "selfconf-install"
    return cell


def add_install_cell(nb, root: Path | None = None, cell=None):
    """Put the install cell first in ``nb`` (replacing an earlier one); return ``nb``.

    Example: ``add_install_cell(nbformat.read("book/20_calibration_vs_discrimination.ipynb", 4))``."""
    import copy

    cells = [c for c in nb.cells if c.get("metadata", {}).get("selfconf") != INSTALL_TAG]
    new = copy.deepcopy(cell) if cell is not None else install_cell(root)
    if nb.get("nbformat_minor", 0) < 5:
        new.pop("id", None)
    nb.cells = [new] + cells
    return nb


# ------------------------------------------------------------------------------------------ student edition


def _otter_assign(master: Path, out: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "otter", "assign", str(master), str(out)], capture_output=True, text=True)
    if r.returncode:
        tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"otter assign failed on {master.name}:\n{tail}")


def _student_notebook(path: Path):
    """Read otter's student notebook and drop what only the book's HTML uses (layout tags, book-only cells)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    keep = []
    for c in nb.cells:
        tags = list(c.get("metadata", {}).get("tags", []))
        if "book-only" in tags or "remove-cell" in tags and c.get("metadata", {}).get("selfconf") != INSTALL_TAG:
            continue
        tags = [t for t in tags if t not in BOOK_TAGS]
        if tags:
            c.metadata["tags"] = tags
        else:
            c.metadata.pop("tags", None)
        c.metadata.pop("mystnb", None)
        if c.cell_type == "code":
            c.outputs, c.execution_count = [], None
        keep.append(c)
    nb.cells = keep
    return nb


def make_student(
    out_dir: str | os.PathLike = "_build/student",
    *,
    update_checks: bool = False,
    root: Path | None = None,
    stems: tuple[str, ...] = TEACHING,
) -> list[Path]:
    """Write the student edition of every teaching notebook; return the notebooks written.

    For each stem: the master ``notebooks/<stem>.py`` (through jupytext) gets the install cell, goes
    through ``otter assign``, and its student notebook lands in ``out_dir`` and in
    ``book/_static/student/`` (the site's download), and the instructor notebook with checks in
    ``out_dir/instructor/``.  The checks otter writes are compared with the package's copy
    (:data:`CHECKS_DIR`): ``update_checks=True`` replaces the copy, otherwise a difference is an error
    telling you to run ``python -m selfconf.course student --update-checks``.
    """
    import jupytext
    import nbformat

    root = root or project_root()
    out = Path(out_dir) if Path(out_dir).is_absolute() else root / out_dir
    (out / "instructor").mkdir(parents=True, exist_ok=True)
    site = root / "book" / "_static" / "student"
    site.mkdir(parents=True, exist_ok=True)
    cell = install_cell(root)
    written, stale = [], []
    for stem in stems:
        with tempfile.TemporaryDirectory(prefix=f"selfconf-assign-{stem}-") as tmp:
            t = Path(tmp)
            nb = jupytext.read(root / "notebooks" / f"{stem}.py")
            add_install_cell(nb, root, cell)
            master = t / f"{stem}.ipynb"
            nbformat.write(nb, master)
            _otter_assign(master, t / "out")
            student = _student_notebook(t / "out" / "student" / f"{stem}.ipynb")
            for dest in (out / f"{stem}.ipynb", site / f"{stem}.ipynb"):
                nbformat.write(student, dest)
            shutil.copyfile(t / "out" / "autograder" / f"{stem}.ipynb", out / "instructor" / f"{stem}.ipynb")
            written.append(out / f"{stem}.ipynb")
            made = {
                p.name: p.read_text(encoding="utf-8") for p in sorted((t / "out" / "student" / "tests").glob("*.py"))
            }
            shipped_dir = CHECKS_DIR / stem
            shipped = (
                {p.name: p.read_text(encoding="utf-8") for p in sorted(shipped_dir.glob("*.py"))}
                if shipped_dir.is_dir()
                else {}
            )
            if made != shipped:
                if update_checks:
                    shutil.rmtree(shipped_dir, ignore_errors=True)
                    shipped_dir.mkdir(parents=True)
                    for name, text in made.items():
                        (shipped_dir / name).write_text(text, encoding="utf-8")
                else:
                    stale.append(stem)
    if stale:
        raise SystemExit(
            f"the package's exercise checks differ from the masters' for {', '.join(stale)}: run "
            "`python -m selfconf.course student --update-checks` and commit src/selfconf/course/checks/"
        )
    return written


def student_links(stem: str, root: Path | None = None) -> str:
    """Markdown with the ways to open the student edition of ``stem``: Colab, Binder, download.

    The Colab and Binder links open ``student/<stem>.ipynb`` on the published notebooks branch
    (:func:`publish`); the download is the copy :func:`make_student` puts in ``book/_static/student/``."""
    from urllib.parse import quote

    url = repository_url(root)
    org_repo = url.split("github.com/")[-1]
    branch = notebooks_branch(root)
    colab = f"https://colab.research.google.com/github/{org_repo}/blob/{branch}/student/{stem}.ipynb"
    binder = f"https://mybinder.org/v2/gh/{org_repo}/{branch}?urlpath={quote(f'tree/student/{stem}.ipynb')}"
    return (
        f"**Student edition** (exercises blank, checks kept): [open in Colab]({colab}) · "
        f"[open on Binder]({binder}) · "
        f"{{download}}`download the notebook <_static/student/{stem}.ipynb>`"
    )


# ------------------------------------------------------------------------------------------ publishing

BINDER_NOTE = "# Binder environment of the published notebooks: the book's package at the commit they were built from\n"


def publish(dest: str | os.PathLike = "_build/notebooks", root: Path | None = None) -> Path:
    """Lay out the tree of the notebooks branch in ``dest``; return it.

    ``book/<page>.ipynb`` for every executed page (with its install cell), ``student/<stem>.ipynb`` for
    every student notebook, ``binder/requirements.txt`` installing ``selfconf[course]`` from the
    repository at :func:`book_ref`, and a README.  The launch buttons of the site open
    ``<branch>/book/<page>.ipynb`` (``repository.branch`` of ``_config.yml``), so every page they are on
    must be here; :func:`selfconf.course.main` ``publish`` refuses to write a tree without them.
    """
    root = root or project_root()
    d = Path(dest) if Path(dest).is_absolute() else root / dest
    shutil.rmtree(d, ignore_errors=True)
    (d / "book").mkdir(parents=True)
    (d / "student").mkdir()
    (d / "binder").mkdir()
    pages = sorted((root / "book").glob("[0-9][0-9]_*.ipynb"))
    if not pages:
        raise FileNotFoundError(f"{root / 'book'}: no executed notebooks; run `make book` first")
    for p in pages:
        shutil.copyfile(p, d / "book" / p.name)
    students = sorted((root / "_build" / "student").glob("*.ipynb"))
    missing = [s for s in TEACHING if not (root / "_build" / "student" / f"{s}.ipynb").is_file()]
    if missing:
        raise FileNotFoundError(f"student notebooks missing for {', '.join(missing)}; run `make student` first")
    for p in students:
        shutil.copyfile(p, d / "student" / p.name)
    ref = book_ref(root)
    (d / "binder" / "requirements.txt").write_text(
        BINDER_NOTE + f"selfconf[course] @ git+{repository_url(root)}@{ref}\n", encoding="utf-8"
    )
    (d / "README.md").write_text(
        f"# Notebooks of selfconf-book {__version__}\n\nBuilt from {repository_url(root)} at `{ref}` by the "
        "publishing workflow; do not edit (the branch is replaced on every publication).\n\n"
        "- `book/`: every page of the book as an executed notebook (the instructor edition of the teaching chapter).\n"
        "- `student/`: the teaching notebooks with the exercises blank and their checks kept.\n",
        encoding="utf-8",
    )
    return d


def main(argv: list[str] | None = None) -> int:
    """``python -m selfconf.course student [--update-checks] | publish [DEST]``."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m selfconf.course", description=main.__doc__)
    sub = ap.add_subparsers(dest="step", required=True)
    s = sub.add_parser("student", help="write _build/student/ (otter assign on every teaching notebook)")
    s.add_argument("--update-checks", action="store_true", help="refresh the package's copy of the checks")
    p = sub.add_parser("publish", help="lay out the notebooks branch (default _build/notebooks)")
    p.add_argument("dest", nargs="?", default="_build/notebooks")
    a = ap.parse_args(argv)
    if a.step == "student":
        for path in make_student(update_checks=a.update_checks):
            print(path)
    else:
        print(publish(a.dest))
    return 0
