"""End to end: execute every notebook, build the HTML with warnings as errors, audit the result."""

from __future__ import annotations

import functools
import json
import warnings

import pytest
import yaml

from selfconf.book.audit import SECTION_PAGES
from selfconf.book.build import notebook_names, toc_files

pytestmark = pytest.mark.book

# A failure of any of these, in a built section, fails the build test (issue rule: deterministic and derived
# claims must match; every claim of a built section must be glued; external claims must be quoted).
STRICT = {"mismatch", "unglued", "not_quoted"}


def _audit(root):
    doc = json.loads((root / "_build" / "audit.json").read_text())
    built = {sec for sec, page in SECTION_PAGES.items() if (root / "book" / f"{page}.ipynb").is_file()}
    return doc, built


def test_html_built(built_book):
    assert (built_book / "index.html").is_file()
    assert (built_book / "book" / "14_audit.html").is_file()


def test_every_toc_page_is_built_and_every_notebook_listed(built_book, root):
    listed = toc_files(root)
    for stem in listed:
        if stem == "index":
            continue
        assert (built_book / "book" / f"{stem}.html").is_file(), f"{stem} is in _toc.yml but was not built"
    unlisted = sorted({p.stem for p in (root / "notebooks").glob("[0-9][0-9]_*.py")} - listed)
    assert not unlisted, f"notebooks not in _toc.yml (never executed or built): {unlisted}"
    assert set(notebook_names(root)) <= listed


def test_audit_deterministic_derived_glued_quoted(built_book, root):
    doc, built = _audit(root)
    recs = doc["claims"]
    assert len(recs) == doc["summary"]["n_claims"] > 500
    bad = [f"{r['id']} ({r['status']}: {r['detail']})" for r in recs if r["section"] in built and r["status"] in STRICT]
    assert not bad, "claims of built sections failing the audit:\n" + "\n".join(bad)
    for r in recs:
        if r["section"] not in built:
            assert r["status"] == "pending", f"{r['id']}: unbuilt section should be pending, is {r['status']}"


def test_audit_bootstrap_claims(built_book, root):
    """Bootstrap claims outside the Monte-Carlo tolerance are shown on the audit page, never hidden.

    They fail this test only when grossly off (more than twice the tolerance), which would mean a broken
    resampling scheme rather than a reconstruction whose rows spread a little differently from the paper's.
    """
    doc, built = _audit(root)
    outside = [r for r in doc["claims"] if r["section"] in built and r["status"] == "outside_tolerance"]
    if outside:
        warnings.warn(
            "bootstrap claims outside Monte-Carlo tolerance: " + ", ".join(f"{r['id']} {r['detail']}" for r in outside),
            stacklevel=1,
        )
    gross = [
        r["id"]
        for r in outside
        if abs(float(r["recomputed"]) - float(_printed_value(root, r["id"]))) > 2 * r["tolerance"]
    ]
    assert not gross, f"bootstrap claims off by more than twice their tolerance: {gross}"


@functools.cache
def _printed_values(root):
    doc = yaml.safe_load((root / "data/paper/claims.yaml").read_text())
    return {c["id"]: c["value"] for c in doc["claims"]}


def _printed_value(root, cid):
    return _printed_values(root)[cid]


def test_no_stray_reprs_on_pages(built_book, root):
    """A cell that ends in a call returning a value shows its bare repr (an unrounded float, a
    PosixPath) on the reader's page; every execute_result must carry a rich representation."""
    import json

    stray = []
    for nb_path in sorted((root / "book").glob("*.ipynb")):
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            for out in cell.get("outputs", []):
                if out.get("output_type") == "execute_result" and set(out["data"]) <= {"text/plain"}:
                    stray.append(f"{nb_path.name} cell {i}: {''.join(out['data']['text/plain'])[:60]}")
    assert not stray, "stray plain-text results:\n" + "\n".join(stray)


def test_every_page_says_the_rows_are_a_reconstruction(built_book):
    """The developers' rule: the reconstruction is labelled on every page, prose-only pages included."""
    pages = sorted((built_book / "book").glob("*.html"))
    assert pages
    missing = [p.name for p in pages if "reconstruction</strong>" not in p.read_text(encoding="utf-8")]
    assert not missing, f"pages without the reconstruction notice: {missing}"


def _pasted_elements(page_html: str) -> list[dict]:
    """Every pasted-number element of a built page (the legend's samples excluded), with its attributes."""
    import re

    out = []
    for m in re.finditer(r'<span class="(selfconf-num[^"]*)"([^>]*)>', page_html):
        if "selfconf-legend-sample" in m.group(1):
            continue
        attrs = dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', m.group(2)))
        attrs["class"] = m.group(1)
        after = page_html[m.end() : m.end() + 400]
        attrs["marked"] = "selfconf-differs" in m.group(1) and "≠" in after.split("</span>", 2)[0] + after
        out.append(attrs)
    return out


def test_every_glued_claim_is_on_its_page_with_its_status(built_book, root):
    """Inline provenance: every claim id a notebook glues appears on its page as an element with data-claim and
    data-status (the audit's status); every claim that does not print as the paper prints is marked in the text;
    every other pasted value carries a data-origin."""
    from selfconf.book.glue import ORIGINS, glued_in_notebook
    from selfconf.claims.judging import MARKED

    doc, _ = _audit(root)
    status = {r["id"]: r["status"] for r in doc["claims"]}
    problems = []
    for nb in sorted((root / "book").glob("*.ipynb")):
        page = built_book / "book" / f"{nb.stem}.html"
        els = _pasted_elements(page.read_text(encoding="utf-8"))
        on_page = {e["data-claim"]: e for e in els if "data-claim" in e}
        for key in glued_in_notebook(nb):
            if key in status and key not in on_page:
                problems.append(f"{nb.stem}: claim {key} glued but not on the page")
        for cid, e in on_page.items():
            if e.get("data-status") != status.get(cid):
                problems.append(
                    f"{nb.stem}: {cid} shows status {e.get('data-status')!r}, audit says {status.get(cid)!r}"
                )
            if status.get(cid) in MARKED and not e["marked"]:
                problems.append(f"{nb.stem}: {cid} ({status[cid]}) is not marked in the text")
            if status.get(cid) in ("match", "quoted") and "selfconf-differs" in e["class"]:
                problems.append(f"{nb.stem}: {cid} prints as the paper but is marked")
        for e in els:
            if "data-claim" not in e and e.get("data-origin") not in ORIGINS:
                problems.append(f"{nb.stem}: a pasted value without claim or origin: {e}")
    assert not problems, "\n".join(problems[:40])


def test_audit_records_name_notebook_cell_and_pages(built_book, root):
    doc, built = _audit(root)
    recs = [r for r in doc["claims"] if r["section"] in built and r["status"] != "pending"]
    assert recs and all(set(r) >= {"notebook", "cell", "pages"} for r in recs)
    glued = [r for r in recs if r["status"] not in ("unglued",)]
    assert all(isinstance(r["cell"], int) and r["notebook"] for r in glued)
    assert any(r["pages"] for r in glued)
    assert doc["data_source"] == "reconstruction" and "hold together" in doc["what_a_match_shows"]


def test_banners_say_what_each_page_computes_from(built_book):
    pages = {p.stem: p.read_text(encoding="utf-8") for p in (built_book / "book").glob("*.html")}
    assert "Simulated data" in pages["20_calibration_vs_discrimination"]
    assert "Real third-party data" in pages["22_external_replication"]
    assert "Computed from reconstructed rows" in pages["04_result1"]
    assert "Computed from reconstructed rows" not in pages["20_calibration_vs_discrimination"]
    for stem in ("09_conclusion", "23_glossary"):  # prose-only pages: nothing about rows they do not use
        assert "Computed from reconstructed rows" not in pages[stem]
    for stem in ("04_result1", "20_calibration_vs_discrimination", "22_external_replication"):
        assert 'href="12_reconstruction.html#recon-limits"' in pages[stem], stem
    assert "What this audit shows with reconstructed rows" in pages["14_audit"]


@pytest.mark.parametrize("section", ["design", "result1", "result2", "result3", "limitations"])
def test_each_section_notebook_glues_what_its_compute_returns(built_book, root, section):
    """The notebook glues every value its section's ``compute()`` returns, and every value no bootstrap draw enters
    is the same; so the checks made on ``compute()`` alone (the seed test, the raw layouts) hold for the pages."""
    from sections_compute import computed

    from selfconf.book.glue import glued_in_notebook
    from selfconf.book.rerun import claim_kinds

    res = computed(section)  # the book's seed, fewer draws
    glued = glued_in_notebook(root / "book" / f"{SECTION_PAGES[section]}.ipynb")
    assert not sorted(set(res.values) - set(glued)), f"{section}: compute() values the notebook does not glue"
    kinds = claim_kinds()
    det = [k for k, o in res.origins.items() if o == "claim" and kinds.get(k) == "deterministic"]
    assert det, section
    assert {k: (res[k], glued[k]) for k in det if res[k] != glued[k]} == {}


def test_every_notebook_executed_every_cell_and_starts_with_the_install_cell(built_book, root):
    names = sorted(p.stem for p in (root / "book").glob("*.ipynb"))
    assert names
    for nb in names:  # every notebook executed: no cell without an execution count
        doc = json.loads((root / "book" / f"{nb}.ipynb").read_text())
        # the install cell is added after execution and never runs in the build (selfconf.book.build.with_install_cell)
        code = [c for c in doc["cells"] if c["cell_type"] == "code" and c["metadata"].get("selfconf") != "install-cell"]
        assert code and all(c.get("execution_count") for c in code), f"{nb}: a cell did not execute"
        assert doc["cells"][0]["metadata"].get("selfconf") == "install-cell", f"{nb}: no install cell first"
