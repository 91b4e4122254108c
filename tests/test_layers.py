"""The package's layers: the import contracts in pyproject.toml hold, and no module imports itself back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    """import-linter's contracts (layers; statistics import no other layer) all hold."""
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run(
        [str(lint), "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "broken" not in out.stdout.split("Contracts:")[-1].lower().replace("0 broken", "")


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt)))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        comp.append(m)
                        if m == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycle_between_modules():
    """No module reaches itself through the modules it imports (a package importing its own
    submodules in ``__init__`` to re-export them is not a cycle: the submodules do not import it back)."""
    graph = grimp.build_graph("selfconf")
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_cycle():
    """The cycle check can fail: a graph with a -> b -> a is reported."""
    g = grimp.ImportGraph()
    for m in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        g.add_module(m)
    g.add_import(importer="pkg.a", imported="pkg.b")
    g.add_import(importer="pkg.b", imported="pkg.a")
    g.add_import(importer="pkg.c", imported="pkg.a")
    assert _cycles(g) == [["pkg.a", "pkg.b"]]


def test_public_statistics_api_imports():
    """The public statistics names stay where checks outside the project import them."""
    import selfconf.bootstrap
    import selfconf.metrics
    import selfconf.panels
    from selfconf.bootstrap import auroc_ci, holm  # noqa: F401
    from selfconf.metrics import auroc, ece  # noqa: F401
    from selfconf.panels import agreement_signal  # noqa: F401

    for mod in (selfconf.metrics, selfconf.bootstrap, selfconf.panels):
        assert Path(mod.__file__).name == mod.__name__.rsplit(".", 1)[1] + ".py"  # real modules, not shims


@pytest.mark.slow
@pytest.mark.parametrize("command", ["selfconf.build", "selfconf.audit"])
def test_command_names_the_issues_give_still_run(command):
    out = subprocess.run(
        [sys.executable, "-m", command, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "usage" in out.stdout.lower()


def test_bootstrap_is_one_module_under_two_names(monkeypatch):
    """``selfconf.bootstrap`` is the very module ``selfconf.stats.bootstrap`` (not a copy of its names): a
    patched private constant is seen through both names, and the statistics subpackage imports it there."""
    import selfconf.bootstrap as public
    import selfconf.stats.bootstrap as impl
    import selfconf.stats.summary

    assert public is impl
    monkeypatch.setattr(public, "_CHUNK", 7)
    assert impl._CHUNK == 7
    assert selfconf.stats.summary.bootstrap is impl
    assert Path(impl.__file__).parent.name == "stats"
