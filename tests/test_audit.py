"""The audit's rules on hand-made executed notebooks (no book build needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from selfconf import audit
from selfconf.glue import glued_values, plain


def _nb(glued: dict) -> dict:
    # the layout myst-nb 1.x writes: the bundle under a papermill.record prefix
    pre = "application/papermill.record/"
    outs = [{"output_type": "display_data", "metadata": {"scrapbook": {"name": k, "mime_prefix": pre}},
             "data": {pre + "text/plain": repr(v)}} for k, v in glued.items()]
    return {"cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": outs, "execution_count": 1}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def claims_file(tmp_path):
    claims = [
        {"id": "acc", "value": 66.5, "printed": "66.5", "decimals": 1, "section": "result1", "kind": "deterministic", "unit": "percent"},
        {"id": "gap", "value": 26.3, "printed": "+26.3", "decimals": 1, "section": "result1", "kind": "derived", "unit": "pp"},
        {"id": "lo", "value": 0.722, "printed": "0.722", "decimals": 3, "section": "result1", "kind": "bootstrap", "unit": "auroc"},
        {"id": "lo_ci_lo", "value": 0.722, "printed": "0.722", "decimals": 3, "section": "result1", "kind": "bootstrap", "unit": "auroc"},
        {"id": "lo_ci_hi", "value": 0.770, "printed": "0.770", "decimals": 3, "section": "result1", "kind": "bootstrap", "unit": "auroc"},
        {"id": "bins", "value": 10, "printed": "10", "decimals": 0, "section": "result1", "kind": "external", "unit": "count"},
        {"id": "abs_acc", "value": 66.5, "printed": "66.5", "decimals": 1, "section": "abstract", "kind": "deterministic", "same_as": "acc"},
        {"id": "later", "value": 1, "printed": "1", "decimals": 0, "section": "result2", "kind": "deterministic"},
        {"id": "missing", "value": 3, "printed": "3", "decimals": 0, "section": "result1", "kind": "deterministic"},
    ]
    p = tmp_path / "claims.yaml"
    p.write_text(yaml.safe_dump({"claims": claims}))
    return p


def _run(tmp_path, claims_file, glued):
    book = tmp_path / "book"
    book.mkdir()
    (book / "04_result1.ipynb").write_text(json.dumps(_nb(glued)))
    return {r.id: r for r in audit.run_audit(book, claims_file)}


def test_statuses(tmp_path, claims_file):
    recs = _run(tmp_path, claims_file, {
        "acc": 66.46, "gap": 26.34, "lo_ci_lo": 0.7235, "lo_ci_hi": 0.7801, "bins": 10, "bins__quoted": True,
    })
    assert recs["acc"].status == "match"            # 66.46 shows as 66.5
    assert recs["gap"].status == "match"
    assert recs["lo_ci_lo"].status == "within_tolerance"
    assert recs["lo_ci_hi"].status == "outside_tolerance"   # 0.010 off is far beyond MC error
    assert recs["bins"].status == "quoted"
    assert recs["abs_acc"].status == "pending"      # abstract page not built
    assert recs["later"].status == "pending"
    assert recs["missing"].status == "unglued"


def test_mismatch_is_reported_with_both_values(tmp_path, claims_file):
    recs = _run(tmp_path, claims_file, {"acc": 66.44})
    assert recs["acc"].status == "mismatch"
    assert "66.4" in recs["acc"].detail and "66.5" in recs["acc"].detail


def test_external_must_be_quoted(tmp_path, claims_file):
    recs = _run(tmp_path, claims_file, {"bins": 10})
    assert recs["bins"].status == "not_quoted"


def test_tolerance_scales_with_interval_width():
    by = {"a_ci_lo": {"id": "a_ci_lo", "value": 0.70, "decimals": 3}, "a_ci_hi": {"id": "a_ci_hi", "value": 0.74, "decimals": 3},
          "b_ci_lo": {"id": "b_ci_lo", "value": 0.60, "decimals": 3}, "b_ci_hi": {"id": "b_ci_hi", "value": 0.80, "decimals": 3}}
    assert audit._mc_tolerance(by["a_ci_lo"], by) < audit._mc_tolerance(by["b_ci_lo"], by)
    # a 2,000-draw percentile endpoint: about 0.06 SD of MC error; three of them plus half a unit
    sd = 0.04 / 3.92
    assert audit._mc_tolerance(by["a_ci_lo"], by) == pytest.approx(0.0005 + 3 * 0.0598 * sd, rel=0.01)


def test_glued_values_rejects_conflicts(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    (book / "a.ipynb").write_text(json.dumps(_nb({"k": 1.0})))
    (book / "b.ipynb").write_text(json.dumps(_nb({"k": 2.0})))
    with pytest.raises(ValueError, match="two values"):
        glued_values(book)


def test_plain_unwraps_numpy_and_rejects_nan():
    import numpy as np

    assert type(plain(np.float64(0.5))) is float and type(plain(np.int64(3))) is int
    with pytest.raises(ValueError):
        plain(float("nan"))
    with pytest.raises(TypeError):
        plain(np.array([1, 2]))


def test_every_external_claim_is_in_quoted_facts(root):
    doc = audit.load_claims(root / "data/paper/claims.yaml")
    facts = yaml.safe_load((root / "data/paper/quoted_facts.yaml").read_text())["facts"]
    want = {c["id"] for c in doc["claims"] if c["kind"] == "external" and not c.get("same_as")}
    assert want == {f["id"] for f in facts}


def test_glued_values_reads_a_real_myst_nb_glue_output(tmp_path):
    """Round trip through myst_nb.glue itself, not a hand-written imitation of its output."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("from selfconf.glue import claim\nimport numpy as np\n"
                                              "claim('x', np.float64(0.125)); claim('n', np.int64(7))"))
    from selfconf.kernels import IPCKernelManager

    NotebookClient(nb, kernel_name="python3", timeout=60, kernel_manager_class=IPCKernelManager).execute()
    book = tmp_path / "book"
    book.mkdir()
    nbformat.write(nb, book / "t.ipynb")
    vals = glued_values(book)
    assert vals["x"]["value"] == 0.125 and vals["n"]["value"] == 7
