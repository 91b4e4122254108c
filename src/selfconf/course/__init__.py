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
* Each exercise's check is declared once, in :data:`selfconf.course.grading.EXERCISES` (its ``verify``
  function, variables and messages); :func:`checks_dir` renders otter's test files from it into a temporary
  folder, so :func:`grader` works wherever the package is installed: Jupyter, Binder, and Colab (where otter
  cannot read checks stored in a notebook).  :func:`make_student` fails when the files ``otter assign``
  writes from the masters' test cells differ from the rendered ones.
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
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from selfconf import __version__
from selfconf.data.external import without_unavailable
from selfconf.data.paths import book_file, project_root

__all__ = [
    "TEACHING",
    "CHECKS_DIR",
    "checks_dir",
    "INSTALL_TAG",
    "WHEEL_ENV",
    "grader",
    "repository_url",
    "book_ref",
    "install_cell_source",
    "install_cell",
    "add_install_cell",
    "make_student",
    "without_solutions",
    "exercises",
    "progress",
    "offline_charts",
    "render_myst",
    "student_links",
    "autograder_zip",
    "grade",
    "publish",
    "launch_requirements",
    "PYTHON_VERSION",
    "main",
]

#: The teaching notebooks that have exercises (stems of ``notebooks/*.py``).
TEACHING = ("20_calibration_vs_discrimination", "21_seed_variation")
#: Metadata mark of the install cell (``cell.metadata["selfconf"] == INSTALL_TAG``).
INSTALL_TAG = "install-cell"
#: Environment variable the install cell reads: a local wheel (or folder) to install instead of the repository.
WHEEL_ENV = "SELFCONF_WHEEL"
#: Tags of the book's HTML that mean nothing in Jupyter; the student edition drops them.
BOOK_TAGS = ("hide-input", "hide-output", "hide-cell", "remove-input", "remove-output")


def grader(stem: str):
    """The otter-grader checker of one teaching notebook: ``grader.check("<exercise>")`` runs its checks.

    Definition: ``otter.Notebook(nb_path, tests_dir=checks_dir(stem))``.  A check never raises:
    it shows "<exercise> results: All test cases passed!" or, per failed case, the exercise's
    "Not yet ..." message and the assertion that failed.  ``nb_path`` is ``<stem>.ipynb`` when the working
    folder has it (the student notebook, saved under its own name), else ``None`` (otter then takes the only
    notebook of the folder): ``grader.export(...)``, the notebook's export cell, zips that file.

    Reference: otter-grader, "Student Usage" (``otter.Notebook.check``).

    Example::

        grader = grader("20_calibration_vs_discrimination")
        grader.check("ece-by-hand")
    """
    try:
        folder = checks_dir(stem)
    except KeyError as e:
        raise FileNotFoundError(e.args[0]) from None
    try:
        import otter
    except ImportError:
        raise ImportError(
            "the exercise checks need otter-grader: pip install 'selfconf[course]' "
            "(the notebook's first cell does this when the package is missing)"
        ) from None
    own = f"{stem}.ipynb"
    return otter.Notebook(own if Path(own).is_file() else None, tests_dir=str(folder))


def offline_charts() -> str:
    """Make altair draw with no network in a notebook outside the book; return the renderer's name.

    Definition: altair's ``html`` renderer with its ``inline`` template, which puts Vega, Vega-Lite and
    vega-embed (bundled by ``vl-convert-python``) inside each chart's output instead of loading them from a
    CDN.  Sliders and other bindings keep working; each chart's output is about 1 MB.  The book draws its
    charts with its own renderer (``selfconf.book.vega``) instead.

    Reference: altair documentation, "Displaying Altair Charts" (offline rendering).

    Example: ``course.offline_charts()`` before the first chart of a student notebook.
    """
    import altair as alt

    alt.renderers.enable("html", template="inline")
    return "html"


def exercises(stem: str) -> list[str]:
    """Names of the exercises of a teaching notebook that have checks, sorted (the order of their files).

    Example:

    >>> exercises("21_seed_variation")
    ['draws-needed', 'two-seeds']
    """
    from selfconf.course.grading import EXERCISES

    return sorted(EXERCISES.get(stem, {}))


#: The folder :func:`checks_dir` rendered the checks into in this process (made on first use, removed at exit).
_RENDERED: list[Path] = []


def checks_dir(stem: str | None = None) -> Path:
    """The folder of otter test files of ``stem`` (or the folder of every teaching notebook's, one subfolder
    each), rendered from :data:`selfconf.course.grading.EXERCISES` by
    :func:`selfconf.course.grading.check_files` into a temporary folder of this process.

    Each call writes the files again, so a check file changed on disk since is restored before otter reads
    it.  ``KeyError`` names the known notebooks when ``stem`` has no exercises.

    Reference: otter-grader documentation, "Student Usage" (``otter.Notebook(tests_dir=...)``).

    Example:

    >>> sorted(p.name for p in checks_dir("21_seed_variation").glob("*.py"))
    ['draws-needed.py', 'two-seeds.py']
    """
    import atexit

    from selfconf.course.grading import EXERCISES, check_files

    if not _RENDERED or not _RENDERED[0].is_dir():
        _RENDERED[:] = [Path(tempfile.mkdtemp(prefix="selfconf-checks-"))]
        atexit.register(shutil.rmtree, _RENDERED[0], True)
    root = _RENDERED[0]
    for s in EXERCISES if stem is None else [stem]:
        files = check_files(s)
        folder = root / s
        folder.mkdir(exist_ok=True)
        for old in folder.glob("*.py"):
            if old.name not in files:
                old.unlink()
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
    return root if stem is None else root / stem


def __getattr__(name: str) -> Any:
    """``CHECKS_DIR``: the folder of every notebook's rendered checks (:func:`checks_dir`), as before."""
    if name == "CHECKS_DIR":
        return checks_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def progress(stem: str, env: Mapping[str, Any]) -> None:
    """Print one line: how many of ``stem``'s checked exercises pass with the variables in ``env``.

    Definition: every public check of the notebook (:func:`exercises`) run quietly by otter-grader's
    ``Notebook.check`` against ``env`` (a student passes ``globals()``); an exercise passes when all its test
    cases pass.  Nothing is recorded or sent anywhere: it is the student's own progress record, to run at any
    time.  It returns nothing, so that the cell shows the line once (a returned string would also be displayed as
    the cell's plain-text result).

    Reference: otter-grader, "Student Usage" (``otter.Notebook.check``, ``check_all``).

    Example::

        course.progress("21_seed_variation", globals())
        # Progress: 1 of 2 checked exercises pass (two-seeds); not yet: draws-needed
    """
    import contextlib
    import io

    checker = grader(stem)
    passed: list[str] = []
    todo: list[str] = []
    for name in exercises(stem):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            result = checker.check(name, dict(env))
        (passed if getattr(result, "passed_all", False) else todo).append(name)
    line = f"Progress: {len(passed)} of {len(passed) + len(todo)} checked exercises pass"
    line += f" ({', '.join(passed)})" if passed else ""
    line += f"; not yet: {', '.join(todo)}" if todo else "; all done"
    print(line)


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


#: A MyST role in Markdown: ``{name}`content```.
MYST_ROLE = re.compile(r"\{([a-z][a-z0-9:_-]*)\}`([^`]*)`")
#: A fenced MyST directive (``{bibliography}``, ``{dropdown}``, ...), backtick or colon fence.
MYST_DIRECTIVE = re.compile(r"^(```|:::)\{([a-z][a-z0-9:_-]*)\}[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
#: The MyST roles that paste a glued value (``{glue}`key```, ``{glue:text}`key:format```, ...).
GLUE_ROLES = ("glue", "glue:text", "glue:md")


def _bib(root: Path):
    from pybtex.database import parse_file

    return parse_file(str(root / "references.bib"))


def _cite_key(key: str) -> str:
    return key.strip().removeprefix("t-")


def _cite_name(entry) -> str:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    last = [" ".join(p.last_names) for p in people]
    if not last:
        return entry.fields.get("title", "?")
    if len(last) == 1:
        return last[0]
    if len(last) == 2:
        return f"{last[0]} and {last[1]}"
    return f"{last[0]} et al."


def render_myst(text: str, values: dict, bib=None, cited: list | None = None) -> str:
    """Markdown without MyST for a notebook outside the book: every role rendered to plain Markdown.

    ``{glue:text}`key:fmt``` and ``{glue}`key``` become ``format(values[key], fmt)``; ``{cite:p}`` becomes
    "(Guo et al., 2017)" and ``{cite:t}`` "Guo et al. (2017)" (keys looked up in ``bib``, a pybtex
    database, and appended to ``cited``); ``{ref}`text <label>``` and ``{term}`text <label>``` become
    ``text``; a ``{bibliography}`` directive becomes the list of works in ``cited``.  Any other role or
    directive is an error, so none can reach a student notebook unrendered.

    >>> render_myst("AUROC {glue:text}`a:.3f` ({term}`AUROC`)", {"a": 0.71234})
    'AUROC 0.712 (AUROC)'
    """

    def role(m: re.Match) -> str:
        name, body = m.group(1), m.group(2)
        if name in GLUE_ROLES:
            key, _, fmt = body.partition(":")
            if key not in values:
                raise KeyError(f"glue key {key!r} has no value for the student edition (pass make_student(values=...))")
            return format(values[key], fmt)
        if name in ("cite:p", "cite:t"):
            if bib is None:
                raise ValueError(f"{m.group(0)}: no bibliography to render a citation")
            parts = []
            for key in body.split(","):
                entry = bib.entries[_cite_key(key)]
                if cited is not None and _cite_key(key) not in cited:
                    cited.append(_cite_key(key))
                year = entry.fields.get("year", "n.d.")
                parts.append(f"{_cite_name(entry)} ({year})" if name == "cite:t" else f"{_cite_name(entry)}, {year}")
            return "; ".join(parts) if name == "cite:t" else "(" + "; ".join(parts) + ")"
        if name in ("ref", "term", "doc"):
            shown = re.match(r"(.*?)\s*<[^>]*>\s*$", body)
            return shown.group(1) if shown else body
        raise ValueError(f"MyST role {{{name}}} has no rendering for a notebook: {m.group(0)}")

    def directive(m: re.Match) -> str:
        if m.group(2) != "bibliography":
            raise ValueError(f"MyST directive {{{m.group(2)}}} has no rendering for a notebook")
        if bib is None or not cited:
            return ""
        from pybtex.database import BibliographyData
        from pybtex.plugin import find_plugin

        style = find_plugin("pybtex.style.formatting", "plain")()
        sub = BibliographyData({k: bib.entries[k] for k in cited})
        return "\n".join(
            "- " + " ".join(e.text.render_as("markdown").split("\n"))
            for e in style.format_entries(sub.entries.values())
        )

    out = MYST_ROLE.sub(role, text)
    return MYST_DIRECTIVE.sub(directive, out)


#: otter's ``<!-- BEGIN QUESTION -->`` / ``<!-- END QUESTION -->`` comments around a manually graded question: they
#: only serve otter's PDF export, which the course does not use.
OTTER_MARKERS = re.compile(r"^[ \t]*<!-- (?:BEGIN|END) QUESTION -->[ \t]*\n?", re.M)
#: A Markdown link to another page of the book (``[text](24_bibliography.md)``): dead in a notebook outside it.
BOOK_LINK = re.compile(r"\[([^\]]+)\]\((?![a-z][a-z0-9+.-]*:|#)[^)\s]+\.(?:md|ipynb)(?:#[^)]*)?\)")


def book_links_as_text(text: str) -> str:
    """Markdown with every relative link to a page of the book replaced by its text, marked as a page of the book.

    A notebook opened outside the book (Colab, Binder, a download) has no sibling pages, so such a link is dead;
    absolute links (``https://...``) and anchors stay.

    >>> book_links_as_text("see the [Bibliography](24_bibliography.md) and [otter](https://otter.example)")
    'see the Bibliography (a page of the book) and [otter](https://otter.example)'
    """
    return BOOK_LINK.sub(lambda m: f"{m.group(1)} (a page of the book)", text)


#: A parameter line ``name = book value  # student edition: student value``.
STUDENT_VALUE = re.compile(r"^(\w+ = )(.+?)\s*# student edition: (.+)$", re.M)


def _student_notebook(path: Path, values: dict | None = None, bib=None):
    """Read otter's student notebook and make it a notebook for Jupyter: drop what only the book's HTML uses
    (layout tags, ``book-only`` cells), keep ``student-only`` cells (hidden in the book), and render every
    MyST role of the Markdown cells (:func:`render_myst`) with the book's glued ``values``."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    keep: list = []
    cited: list[str] = []
    for c in nb.cells:
        tags = list(c.get("metadata", {}).get("tags", []))
        if "book-only" in tags:
            continue
        if "student-only" in tags:
            tags = [t for t in tags if t not in ("remove-cell", "student-only")]
        elif "remove-cell" in tags and c.get("metadata", {}).get("selfconf") != INSTALL_TAG:
            continue
        tags = [t for t in tags if t not in BOOK_TAGS]
        if tags:
            c.metadata["tags"] = tags
        else:
            c.metadata.pop("tags", None)
        c.metadata.pop("mystnb", None)
        if c.cell_type == "code":
            c.outputs, c.execution_count = [], None
            if "parameters" in tags:  # a parameter may name its student-edition value in a trailing comment
                c.source = STUDENT_VALUE.sub(r"\1\3  # the book uses \2", c.source)
        elif c.cell_type == "markdown":
            c.source = book_links_as_text(
                OTTER_MARKERS.sub("", render_myst(c.source, values or {}, bib, cited))
            ).strip()
            if not c.source:
                continue
        keep.append(c)
    nb.cells = keep
    return nb


#: A reference-solution line of a master (``x = ...  # SOLUTION``): the student site shows ``x = ...``.
SOLUTION_LINE = re.compile(r"^(\s*)(?:(\w[\w\[\]'\".,\s]*?)\s*=\s*)?\S.*#\s*SOLUTION\s*$")


def without_solutions(nb):
    """A copy of an executed teaching notebook (the book's page) with no reference solution and no check.

    Definition: between otter's raw ``# BEGIN SOLUTION`` and ``# END SOLUTION`` cells, every line marked
    ``# SOLUTION`` becomes ``<name> = ...`` (``...`` when it assigns nothing), Markdown cells (a written reference
    answer) are dropped and outputs are cleared; the cells between ``# BEGIN TESTS`` and ``# END TESTS`` (the
    public check, whose success message names the method, and the hidden tests) and ``book-only`` cells are
    dropped.  Everything else, glued values included, is kept, so the page's prose and numbers stay the same.
    This is the student-only site's version of a teaching page (``python -m selfconf.book.build html --edition
    student``).

    Reference: otter-grader documentation, "Creating Assignments" (the solution and test markers).

    Example::

        page = without_solutions(nbformat.read("book/20_calibration_vs_discrimination.ipynb", 4))
    """
    import copy

    out = copy.deepcopy(nb)
    keep, zone = [], None
    for c in out.cells:
        src = c.source.strip()
        if c.cell_type == "raw":
            for word in ("SOLUTION", "TESTS"):
                if src.startswith(f"# BEGIN {word}"):
                    zone = word
                elif src.startswith(f"# END {word}"):
                    zone = None
            keep.append(c)
            continue
        tags = c.get("metadata", {}).get("tags", [])
        if c.cell_type == "markdown" and "book-only" in tags and "reference solution" in c.source:
            continue  # "each reference solution is shown behind a toggle": not on this edition
        if zone == "TESTS":
            continue
        if zone == "SOLUTION":
            if c.cell_type != "code":
                continue
            lines = []
            for line in c.source.splitlines():
                m = SOLUTION_LINE.match(line)
                if m:
                    lines.append(f"{m.group(1)}{m.group(2)} = ..." if m.group(2) else f"{m.group(1)}...")
                else:
                    lines.append(line)
            c.source = "\n".join(lines)
            c.outputs, c.execution_count = [], None
            c.metadata.pop("mystnb", None)  # its toggle said "Show the reference solution"; the blank is shown as is
            tags = [t for t in c.metadata.get("tags", []) if t != "hide-input"]
            if tags:
                c.metadata["tags"] = tags
            else:
                c.metadata.pop("tags", None)
        keep.append(c)
    out.cells = keep
    return out


def make_student(
    out_dir: str | os.PathLike = "_build/student",
    *,
    update_checks: bool = False,
    root: Path | None = None,
    stems: tuple[str, ...] = TEACHING,
    values: Callable[[str], Mapping[str, Any]] | None = None,
) -> list[Path]:
    """Write the student edition of every teaching notebook; return the notebooks written.

    For each stem: the master ``notebooks/<stem>.py`` (through jupytext) gets the install cell, goes
    through ``otter assign``, and its student notebook lands in ``out_dir`` and in
    ``book/_static/student/`` (the site's download), and the instructor notebook with checks in
    ``out_dir/instructor/``.  The checks otter writes are compared with the ones the package renders from
    :data:`selfconf.course.grading.EXERCISES` (:func:`checks_dir`): a difference is an error naming the
    exercises, whose declaration (or master test cell) is then to be brought in line.  ``update_checks`` is
    kept for old command lines: with it, a notebook whose third-party data is missing is an error.

    The prose of the student notebook shows the book's numbers as plain text: every glue role is rendered
    with ``values(stem)``, the values the book's executed notebook glued (``selfconf.book.build.teaching_values``;
    this layer does not read the book); citations become "(Author, year)" with a reference list.  Without
    ``values`` a glue role is an error.
    """
    import jupytext
    import nbformat

    from selfconf.course import grading

    root = root or project_root()
    out = Path(out_dir) if Path(out_dir).is_absolute() else root / out_dir
    (out / "instructor").mkdir(parents=True, exist_ok=True)
    site = root / "book" / "_static" / "student"
    site.mkdir(parents=True, exist_ok=True)
    cell = install_cell(root)
    bib = _bib(root)
    written: list[Path] = []
    stale: list[str] = []
    for stem in stems:
        glued = dict(values(stem)) if values is not None else {}
        with tempfile.TemporaryDirectory(prefix=f"selfconf-assign-{stem}-") as tmp:
            t = Path(tmp)
            # the cells whose third-party data this build lacks are left out, as on the book's page (a notice says so)
            nb, lacking = without_unavailable(jupytext.read(root / "notebooks" / f"{stem}.py"), root, myst=False)
            if lacking and update_checks:
                raise SystemExit(
                    f"{stem}: cannot update the exercise checks without the third-party data {', '.join(lacking)} "
                    "(their exercises are left out): run `make external` first"
                )
            add_install_cell(nb, root, cell)
            reqs = t / "requirements.txt"  # what a hosted grader installs: the package at the book's commit
            reqs.write_text(f"selfconf[course] @ git+{repository_url(root)}@{book_ref(root)}\n", encoding="utf-8")
            for c in nb.cells:
                if c.cell_type == "raw" and c.source.startswith("# ASSIGNMENT CONFIG"):
                    c.source += f"\nrequirements: {reqs}\noverwrite_requirements: false"
                    c.source += f"\npython_version: {PYTHON_VERSION}"  # the grading image's Python, as Binder's
            master = t / f"{stem}.ipynb"
            nbformat.write(nb, master)
            _otter_assign(master, t / "out")
            student = _student_notebook(t / "out" / "student" / f"{stem}.ipynb", glued, bib)
            for dest in (out / f"{stem}.ipynb", site / f"{stem}.ipynb"):
                nbformat.write(student, dest)
            shutil.copyfile(t / "out" / "autograder" / f"{stem}.ipynb", out / "instructor" / f"{stem}.ipynb")
            (out / "autograder").mkdir(exist_ok=True)
            zips = sorted((t / "out" / "autograder").glob(f"{stem}-autograder_*.zip"))
            if zips:
                dest = out / "autograder" / f"{stem}-autograder.zip"
                shutil.copyfile(zips[-1], dest)
                with zipfile.ZipFile(dest, "a") as z:  # the judge's inputs: the instructor notebook, run by grade
                    z.write(t / "out" / "autograder" / f"{stem}.ipynb", f"reference/{stem}.ipynb")
            written.append(out / f"{stem}.ipynb")
            made = {
                p.name: p.read_text(encoding="utf-8") for p in sorted((t / "out" / "student" / "tests").glob("*.py"))
            }
            declared = grading.check_files(stem)
            if lacking:  # the left-out exercises made no check; every other one must still match
                declared = {k: v for k, v in declared.items() if k in made}
            stale += [f"{stem}/{k[:-3]}" for k in sorted(set(made) | set(declared)) if made.get(k) != declared.get(k)]
    if stale:
        raise SystemExit(
            f"the checks otter writes from the master notebooks differ from selfconf.course.grading.EXERCISES for "
            f"{', '.join(stale)}: make the exercise's entry there and its test cell in notebooks/ say the same"
        )
    return written


# ------------------------------------------------------------------------------------------ graded mode


def autograder_zip(stem: str, out_dir: str | os.PathLike = "_build/student", root: Path | None = None) -> Path:
    """The autograder of ``stem`` that :func:`make_student` wrote: ``<out_dir>/autograder/<stem>-autograder.zip``.

    It holds every check of the notebook in ``tests/``, the hidden, pointed ones included (otter-grader's own
    hidden tests), otter's ``run_autograder``, ``run_otter.py``, ``setup.sh`` and ``otter_config.json``, an
    ``environment.yml``: Python :data:`PYTHON_VERSION` with ``selfconf[course]`` at the commit the book was built
    from in its pip section, and the instructor notebook as ``reference/<stem>.ipynb`` (the inputs
    :func:`grade`'s judge recomputes from).  Upload it to a hosted grader (Gradescope's otter image), or give it
    to :func:`grade` to grade locally."""
    root = root or project_root()
    out = Path(out_dir) if Path(out_dir).is_absolute() else root / out_dir
    path = out / "autograder" / f"{stem}-autograder.zip"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no autograder; run `make student` first")
    return path


def _default_autograder(stem: str) -> Path:
    """The autograder ``make student`` wrote in this checkout, or FileNotFoundError saying what to pass instead."""
    try:
        return autograder_zip(stem)
    except FileNotFoundError as e:
        raise FileNotFoundError(
            f"no autograder for {stem} ({e}); outside a checkout of the book where `make student` has run, pass "
            "the zip an instructor built: --autograder PATH/TO/<page>-autograder.zip"
        ) from None


def grade(
    submissions: str | os.PathLike,
    autograder: str | os.PathLike,
    out_csv: str | os.PathLike | None = None,
    **limits: Any,
):
    """Grade every submission in the folder ``submissions`` with ``autograder`` on this machine; return a table.

    A submission is a notebook (``*.ipynb``) or the zip its export cell wrote (``*.zip``, holding the notebook).

    Definition: :func:`selfconf.course.grading.grade_isolated`: the hidden tests are evaluated by a judge kernel
    that ran the autograder's reference notebook before any submission, on the answers each submission exports
    as plain values from a kernel of its own (time limit per cell and per notebook, memory limit).  One row per
    submission: ``submission``, ``total``, ``possible``, ``percent``, ``error`` (a line per affected exercise:
    an exception, a time-out, memory exhaustion) and one column per exercise with its points.  ``out_csv`` also
    writes the table as CSV.  ``limits``: ``notebook``, ``cell_timeout``, ``time_limit`` (seconds) and ``memory``
    (bytes) of :func:`~selfconf.course.grading.grade_isolated`.

    Reference: otter-grader documentation, "Grading Locally" and "Otter Grade" (hidden tests graded outside the
    student's environment).

    Example::

        grade("submissions/", autograder_zip("21_seed_variation"), "grades.csv")
    """
    from selfconf.course.grading import grade_isolated

    return grade_isolated(submissions, autograder, out_csv, **limits)


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
#: The Python version the published tree asks repo2docker (Binder) for: ``binder/runtime.txt``.
PYTHON_VERSION = "3.11"
#: Packages the launch environment leaves to Binder's own Jupyter (pinning them could break its server).
_JUPYTER_STACK = {"ipykernel", "jupyter-client", "jupyter-core", "notebook", "jupyterlab", "tornado", "traitlets"}
#: What the published README says a Colab user needs (Colab brings its own Python; the install cell does the rest).
COLAB_NOTE = (
    "Colab: nothing to set up. Colab's runtime brings its own Python (3.11 or newer is needed; every current Colab "
    "runtime is newer), and the first cell of each notebook installs `selfconf[course]` from this repository at "
    "the commit above when it is missing (about a minute). The exercise checks and the MMLU-Pro lab's sample ship "
    "inside the package, so after that first cell the notebook needs no network."
)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def launch_requirements(root: Path | None = None) -> list[str]:
    """The pinned requirements of the launch environment, ``name==version`` each, sorted.

    Definition: the package's own dependencies and its ``course`` extra (``pyproject.toml``), each pinned to
    the version ``requirements.txt`` (the environment the book is built and tested with) pins; Jupyter's own
    packages (:data:`_JUPYTER_STACK`) stay unpinned so Binder's server keeps its versions.  A dependency
    that ``requirements.txt`` does not pin is an error.

    Example: ``any(r.startswith("numpy==") for r in launch_requirements())``.
    """
    import tomllib

    root = root or project_root()
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"]) + list(project["optional-dependencies"]["course"])
    pins = {}
    for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, ver = line.split("==", 1)
            pins[_canonical(name)] = f"{name.strip()}=={ver.strip()}"
    out, missing = set(), []
    for req in wanted:
        name = _canonical(re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0])
        if name in _JUPYTER_STACK:
            out.add(name)
        elif name in pins:
            out.add(pins[name])
        else:
            missing.append(name)
    if missing:
        raise ValueError(f"{root / 'requirements.txt'}: no pin for {', '.join(sorted(missing))}")
    return sorted(out, key=str.lower)


def student_branch(root: Path | None = None) -> str:
    """The branch the student-only site's launch buttons open: :func:`notebooks_branch` + ``-student``."""
    return f"{notebooks_branch(root)}-student"


def publish(
    dest: str | os.PathLike = "_build/notebooks", root: Path | None = None, edition: str = "instructor"
) -> Path:
    """Lay out the tree of the notebooks branch in ``dest``; return it.

    ``book/<page>.ipynb`` for every executed page (with its install cell), ``student/<stem>.ipynb`` for
    every student notebook, and a Binder environment that repo2docker reads from ``binder/``:
    ``runtime.txt`` (``python-3.11``: without it repo2docker picks its default Python, older than the
    package's ``requires-python``) and ``requirements.txt`` (``selfconf[course]`` from the repository at
    :func:`book_ref`, and :func:`launch_requirements`); and a README that also says what Colab needs.
    The launch buttons of the site open ``<branch>/book/<page>.ipynb`` (``repository.branch`` of
    ``_config.yml``), so every page they are on must be here; :func:`selfconf.course.main` ``publish``
    refuses to write a tree without them.

    Reference: repo2docker documentation, "Configuration files" (``runtime.txt``, the ``binder/`` folder).
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
    if edition not in ("instructor", "student"):
        raise ValueError(f"edition must be 'instructor' or 'student', not {edition!r}")
    for p in pages:
        shutil.copyfile(p, d / "book" / p.name)
    if edition == "student":  # the student-only site's launch buttons open book/<page>: the student notebooks there
        for stem in TEACHING:
            src = root / "_build" / "student" / f"{stem}.ipynb"
            if not src.is_file():
                raise FileNotFoundError(f"{src}: no student notebook; run `make student` first")
            shutil.copyfile(src, d / "book" / f"{stem}.ipynb")
    students = sorted((root / "_build" / "student").glob("*.ipynb"))
    missing = [s for s in TEACHING if not (root / "_build" / "student" / f"{s}.ipynb").is_file()]
    if missing:
        raise FileNotFoundError(f"student notebooks missing for {', '.join(missing)}; run `make student` first")
    for p in students:
        shutil.copyfile(p, d / "student" / p.name)
    ref = book_ref(root)
    (d / "binder" / "runtime.txt").write_text(f"python-{PYTHON_VERSION}\n", encoding="utf-8")
    (d / "binder" / "requirements.txt").write_text(
        BINDER_NOTE
        + f"selfconf[course] @ git+{repository_url(root)}@{ref}\n"
        + "# pinned as the book's build pins them (requirements.txt of the commit above)\n"
        + "".join(f"{r}\n" for r in launch_requirements(root)),
        encoding="utf-8",
    )
    (d / "README.md").write_text(
        f"# Notebooks of selfconf-book {__version__}\n\nBuilt from {repository_url(root)} at `{ref}` by the "
        "publishing workflow; do not edit (the branch is replaced on every publication).\n\n"
        "- `book/`: every page of the book as an executed notebook (the instructor edition of the teaching chapter).\n"
        "- `student/`: the teaching notebooks with the exercises blank and their checks kept.\n"
        f"- `binder/`: the launch environment. Binder (repo2docker) reads `runtime.txt` (Python {PYTHON_VERSION}) "
        "and `requirements.txt` (this book's package at the commit above, with pinned dependencies).\n\n"
        f"{COLAB_NOTE}\n",
        encoding="utf-8",
    )
    return d


def main(argv: list[str] | None = None) -> int:
    """``python -m selfconf.course student [--update-checks] | publish [DEST] | grade SUBMISSIONS``."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m selfconf.course", description=main.__doc__)
    sub = ap.add_subparsers(dest="step", required=True)
    s = sub.add_parser("student", help="write _build/student/ (otter assign on every teaching notebook)")
    s.add_argument(
        "--update-checks",
        action="store_true",
        help="kept for old command lines (checks render from grading.EXERCISES)",
    )
    p = sub.add_parser("publish", help="lay out the notebooks branch (default _build/notebooks)")
    p.add_argument("dest", nargs="?", default="_build/notebooks")
    p.add_argument(
        "--edition",
        choices=("instructor", "student"),
        default="instructor",
        help="student: the teaching pages' notebooks are the student edition (the student-only site's branch)",
    )
    g = sub.add_parser("grade", help="grade a folder of submitted notebooks on this machine (no Docker)")
    g.add_argument("submissions", help="folder of the students' .ipynb files or export-cell .zip files")
    g.add_argument("--notebook", default=TEACHING[0], choices=TEACHING, help="which teaching notebook they are")
    g.add_argument("--autograder", help="autograder zip (default: the one `make student` wrote)")
    g.add_argument("--out", default="grades.csv", help="CSV of the scores (default grades.csv)")
    g.add_argument("--cell-timeout", type=int, default=600, help="seconds one cell may run (default 600)")
    g.add_argument("--time-limit", type=int, default=3600, help="seconds one notebook may run (default 3600)")
    g.add_argument("--memory-gb", type=float, default=4.0, help="memory of a submission's kernel (default 4; 0: none)")
    a = ap.parse_args(argv)
    if a.step == "grade":
        try:
            zip_path = a.autograder or _default_autograder(a.notebook)
            if not Path(zip_path).is_file():
                raise FileNotFoundError(f"{zip_path}: no such autograder zip")
            table = grade(
                a.submissions,
                zip_path,
                a.out,
                notebook=a.notebook,
                cell_timeout=a.cell_timeout,
                time_limit=a.time_limit,
                memory=int(a.memory_gb * 2**30) or None,
            )
        except (FileNotFoundError, ImportError, ValueError) as e:
            print(f"python -m selfconf.course grade: {e}", file=sys.stderr)
            return 2
        print(table.to_string(index=False))
        print(f"written: {a.out}")
        return 0
    if a.step == "student":  # the book's build makes it: the prose's numbers are the executed pages' glued values
        cmd = [sys.executable, "-m", "selfconf.book.build", "student"] + (
            ["--update-checks"] if a.update_checks else []
        )
        return subprocess.run(cmd, cwd=project_root()).returncode
    else:
        print(publish(a.dest, edition=a.edition))
    return 0
