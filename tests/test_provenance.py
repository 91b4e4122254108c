"""The provenance extension on a one-page Sphinx project: labelled pastes become elements with their claim or
origin, and an unlabelled paste fails the build under -W."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.book  # runs a kernel once and three Sphinx builds

CONF = """extensions = ["myst_nb", "selfconf.book.provenance"]
root_doc = "book/04_result1"
nb_execution_mode = "off"
exclude_patterns = ["_build"]
"""
CLAIMS = """claims:
  - {id: c1, value: 0.5, printed: "0.500", decimals: 3, section: result1, kind: deterministic}
  - {id: c2, value: 0.25, printed: "0.250", decimals: 3, section: result1, kind: deterministic}
"""


CODE = (
    "from selfconf.book import glue\nglue.claim('c1', 0.5)\nglue.claim('c2', 0.2512)\n"
    "glue.value('n_boot', 2000, origin='parameter')\nglue.claim('loose', 7)\n"
)


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict:
    """The code cell of every test page, executed once (a kernel start each would cost ~1.5 s)."""
    import nbformat
    from nbclient import NotebookClient

    from selfconf.book.kernels import IPCKernelManager

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells += [nbformat.v4.new_code_cell(CODE)]
    NotebookClient(nb, kernel_name="python3", timeout=120, kernel_manager_class=IPCKernelManager).execute()
    return nb


def _project(tmp_path: Path, markdown: str, executed) -> Path:
    """A one-page project: ``markdown`` above the executed code cell, as ``book/04_result1.ipynb``."""
    import copy

    import nbformat

    (tmp_path / "book").mkdir()
    (tmp_path / "data" / "paper").mkdir(parents=True)
    (tmp_path / "conf.py").write_text(CONF)
    (tmp_path / "data" / "paper" / "claims.yaml").write_text(CLAIMS)
    nb = copy.deepcopy(executed)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(markdown))
    nbformat.write(nb, tmp_path / "book" / "04_result1.ipynb")
    return tmp_path


def _sphinx(project: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, SELFCONF_ROOT=str(project))
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-b", "html", ".", "_build/html"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_labelled_pastes_carry_claim_status_and_origin(tmp_path, executed):
    md = (
        "# Page\n\nClaim {glue:text}`c1:.3f`, a differing claim {glue:text}`c2:.3f`, a setting "
        "{glue:text}`n_boot:,.0f`.\n\n| a | b | paper |\n|--|--|--|\n| {num}`0.500 <c1>` | x | {printed}`c2` |\n"
    )
    r = _sphinx(_project(tmp_path, md, executed))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    page = (tmp_path / "_build" / "html" / "book" / "04_result1.html").read_text(encoding="utf-8")
    spans = re.findall(r'<span class="(selfconf-num[^"]*)"([^>]*)>', page)
    claims = [(cls, a) for cls, a in spans if 'data-claim="c1"' in a]
    assert len(claims) == 2 and all('data-status="match"' in a for _, a in claims)  # prose and table cell
    assert all("selfconf-differs" not in cls for cls, _ in claims)
    differ = [(cls, a) for cls, a in spans if 'data-claim="c2"' in a]
    assert differ and 'data-status="mismatch"' in differ[0][1] and "selfconf-differs" in differ[0][0]
    assert 'data-printed="0.250"' in differ[0][1] and "≠" in page
    assert any('data-origin="parameter"' in a for _, a in spans)
    assert "selfconf-legend" in page and "provenance.js" in page
    # the {printed} role shows the paper's token of c2 (0.250), labelled as the paper's, not this build's 0.251
    shown = re.findall(r'<span class="selfconf-printed"([^>]*)>([^<]*)</span>', page)
    assert [(t) for _, t in shown] == ["0.250"] and 'data-origin="paper-print"' in shown[0][0]
    assert 'data-claim="c2"' in shown[0][0]


def test_printed_role_of_an_unknown_claim_fails_the_build(tmp_path, executed):
    md = "# Page\n\nThe paper prints {printed}`nope`.\n"
    r = _sphinx(_project(tmp_path, md, executed))
    assert r.returncode != 0
    assert "'nope' is not a claim of the manifest" in r.stdout + r.stderr


def test_unlabelled_paste_fails_the_build(tmp_path, executed):
    md = "# Page\n\nAn unlabelled number {glue:text}`loose`.\n"
    r = _sphinx(_project(tmp_path, md, executed))
    assert r.returncode != 0
    assert "'loose' has neither a claim id nor an origin" in r.stdout + r.stderr
