"""``selfconf rerun``: deterministic values must survive a new seed / bootstrap size; bootstrap ones may move.

Runs on a tiny fixture project (one notebook, a three-claim manifest) so each papermill execution
takes about a second.  The fixture notebook can be told to leak the seed into a deterministic claim,
which the rerun must catch.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from selfconf.book import rerun as rr
from selfconf.book.build import execute_one

pytestmark = pytest.mark.slow  # executes notebooks with papermill

NOTEBOOK = textwrap.dedent("""\
    # ---
    # jupyter:
    #   kernelspec:
    #     display_name: Python 3
    #     language: python
    #     name: python3
    # ---

    # %% tags=["parameters"]
    seed = 1
    n_boot = 200
    data_dir = "data/reconstructed"
    leak_seed = False

    # %%
    import numpy as np
    from selfconf.book import glue
    rows = np.arange(1, 11, dtype=float)              # stands for the data in data_dir
    rng = np.random.default_rng(seed)
    boot = rng.choice(rows, size=(n_boot, rows.size)).mean(axis=1)
    mean = rows.mean() + (1e-9 * seed if leak_seed else 0.0)
    glue.claim("t_mean", mean)                        # deterministic
    glue.claim("t_ci_lo", np.percentile(boot, 2.5))   # bootstrap
    glue.claim("t_gap", mean - np.percentile(boot, 2.5))  # derived from a bootstrap claim
    glue.claim("t_twice", 2 * mean)                   # derived from a deterministic claim
    glue.value("t_helper_draws", n_boot, origin="parameter")  # not a claim
    glue.value("t_data_dir", data_dir, origin="parameter")

    # %%
    import pandas as pd
    from selfconf.book import table
    table(pd.DataFrame({"lo": [float(np.percentile(boot, 2.5))]}), "tiny_ci", caption="The bootstrap's lower end")
    """)

CLAIMS = textwrap.dedent("""\
    claims:
    - {id: t_mean, kind: deterministic, section: tiny, value: 5.5}
    - {id: t_ci_lo, kind: bootstrap, section: tiny, value: 4.0}
    - {id: t_gap, kind: derived, depends_on: [t_mean, t_ci_lo], section: tiny, value: 1.5}
    - {id: t_twice, kind: derived, depends_on: [t_mean], section: tiny, value: 11.0}
    """)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A minimal project root with one notebook and its default build in ``book/``."""
    root = tmp_path_factory.mktemp("proj")
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/index\n")
    (root / "notebooks").mkdir()
    (root / "notebooks" / "90_tiny.py").write_text(NOTEBOOK)
    (root / "data" / "paper").mkdir(parents=True)
    (root / "data" / "paper" / "claims.yaml").write_text(CLAIMS)
    (root / "book").mkdir()
    execute_one("90_tiny", {}, "book", root)
    return root


def test_section_names(project):
    assert rr.resolve_section("tiny", project) == "90_tiny"
    assert rr.resolve_section("90_tiny", project) == "90_tiny"
    with pytest.raises(ValueError, match="unknown section 'nope'.*tiny"):
        rr.resolve_section("nope", project)


def test_claim_kinds_follow_dependencies(project):
    kinds = rr.claim_kinds(root=project)
    assert kinds == {
        "t_mean": "deterministic",
        "t_ci_lo": "bootstrap",
        "t_gap": "bootstrap",
        "t_twice": "deterministic",
    }


def test_new_seed_keeps_deterministic_values(project, capsys):
    res = rr.rerun("tiny", seed=7, n_boot=300, root=project)
    assert res.out_dir == project / "_build" / "reruns" / "tiny-seed7-n300"
    assert (res.out_dir / "90_tiny.ipynb").is_file()
    by_key = {d.key: d for d in res.diffs}
    assert res.ok, rr.format_report(res, project)
    assert by_key["t_mean"].identical and by_key["t_twice"].identical
    assert by_key["t_ci_lo"].kind == "bootstrap" and not by_key["t_ci_lo"].identical
    assert by_key["t_ci_lo"].shift == pytest.approx(by_key["t_ci_lo"].rerun - by_key["t_ci_lo"].default)
    helper = by_key["t_helper_draws"]
    assert helper.kind == "other" and (helper.default, helper.rerun) == (200, 300)
    report = rr.format_report(res, project)
    assert "deterministic claims: 2/2 identical" in report
    assert "t_helper_draws: 200 -> 300" in report
    assert report.rstrip().endswith("identical to the default build")


def test_a_rerun_leaves_the_books_csv_downloads_alone(project):
    """The rerun's tables go to its own folder: the book's CSV downloads keep the default build's values."""
    book_csv = project / "book" / "_static" / "tables" / "tiny_ci.csv"
    before = book_csv.read_bytes()
    res = rr.rerun("tiny", seed=11, n_boot=300, root=project)
    assert book_csv.read_bytes() == before
    rerun_csv = res.out_dir / "_static" / "tables" / "tiny_ci.csv"
    assert rerun_csv.is_file() and rerun_csv.read_bytes() != before


def test_leaked_seed_fails_the_rerun(project):
    res = rr.rerun("tiny", seed=8, extra={"leak_seed": True}, root=project)
    assert not res.ok
    assert {d.key for d in res.violations} == {"t_mean", "t_twice"}
    assert "FAIL: 2 deterministic value(s) differ" in rr.format_report(res, project)


def test_cli_exit_status(project, monkeypatch, capsys):
    import argparse

    monkeypatch.setenv("SELFCONF_ROOT", str(project))
    ap = argparse.ArgumentParser()
    rr.add_parser(ap.add_subparsers(dest="command"))
    assert rr.run(ap.parse_args(["rerun", "tiny", "--seed", "3"])) == 0
    assert "OK: every deterministic value" in capsys.readouterr().out
    assert rr.run(ap.parse_args(["rerun", "tiny", "--seed", "3", "-p", "leak_seed", "true"])) == 1
    assert "FAIL" in capsys.readouterr().out


def test_missing_baseline_is_a_clear_error(project, tmp_path):
    with pytest.raises(FileNotFoundError, match="no default build of 90_tiny"):
        rr.rerun("tiny", seed=1, baseline_dir=tmp_path, root=project)
