"""`selfconf panel`: the canonical reading reproduces chapter 26 on the MMLU-Pro files; bad input gets the errors
of `selfconf report` (the same reader and validator); JSON schema; --help defines every reading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfconf import cli, panels
from selfconf.data.fetch import read_mmlu_pro_calibration
from selfconf.sections import realanswers

ROOT = Path(__file__).resolve().parents[1]
EXT = ROOT / "data" / "external" / "mmlu-pro-calibration"
needs_ext = pytest.mark.skipif(not EXT.is_dir(), reason="run `make external` first (third-party MMLU-Pro files)")

ROWS = """model,item_id,confidence,correct,answer,refusal
a,1,90,1,X,0
a,2,80,0,Y,0
a,3,70,1,Z,0
a,4,60,0,W,0
a,5,55,0,,1
b,1,85,1,X,0
b,2,60,0,Y,0
b,3,75,0,V,0
b,4,95,1,U,0
b,5,40,1,T,0
c,1,70,0,Q,0
c,2,90,1,R,0
c,3,50,1,Z,0
c,4,80,0,W,0
c,5,65,0,T,0
"""


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def rows_csv(tmp_path) -> Path:
    p = tmp_path / "rows.csv"
    p.write_text(ROWS)
    return p


def test_json_records(capsys, rows_csv):
    code, out, _ = run(
        capsys, "panel", str(rows_csv), "--members", "a,b,c", "--json", "--n-boot", "100", "--reading", "ties=loss,win"
    )
    assert code == 0
    recs = json.loads(out)
    assert [r["canonical"] for r in recs] == [True, False, False]
    assert [r["reading"]["ties"] for r in recs] == ["half", "loss", "win"]
    for r in recs:
        assert set(r["reading"]) == set(panels.READINGS)
        for s in ("panel_auroc", "self_auroc_pooled", "delta"):
            assert r[f"{s}_ci_low"] <= r[s] + 1e-12 or r[s] is None
            assert {f"{s}_ci_low", f"{s}_ci_high"} <= set(r)
        assert r["delta"] == pytest.approx(r["panel_auroc"] - r["self_auroc_pooled"])  # pooled aggregation
        assert (r["items"], r["rows"]) == (5, 15)
    # the new fields: class of the reading, its result, the reading it repeats (ties are bounds)
    assert [r["status"] for r in recs] == ["reasonable", "bound", "bound"]
    assert all(r["left_out"] is None for r in recs)
    first = {}
    for r in recs:
        key = (r["panel_auroc"], r["self_auroc"], r["delta"], r["items"], r["rows"])
        assert r["result_id"] == recs[first.setdefault(key, recs.index(r))]["result_id"]
        assert (r["same_result_as"] is None) == (first[key] == recs.index(r))
    # loss <= half <= win for both AUROCs
    assert recs[1]["panel_auroc"] <= recs[0]["panel_auroc"] <= recs[2]["panel_auroc"]


def test_all_readings_table(capsys, rows_csv):
    code, out, _ = run(capsys, "panel", str(rows_csv), "--members", "a,b,c", "--all-readings", "--n-boot", "100")
    assert code == 0
    lines = [ln for ln in out.splitlines() if "[" in ln and "]" in ln and "95% CI" not in ln]

    def n_rows(r):  # three members: per member, and per dropped member (two left)
        if r["leave_out"] == "each_member":
            return 3 * (2 if r["aggregation"] == "per_member" else 1)
        return 3 if r["aggregation"] == "per_member" else 1

    n = sum(n_rows(r) for r in panels.all_readings())
    assert len(lines) == n
    tail = [ln for ln in out.splitlines() if ln.startswith("distinct results:")]
    assert len(tail) == 1 and f"of {n} comparisons" in tail[0] and "reasonable: " in tail[0] and "bound: " in tail[0]
    assert sum(ln.startswith("*") for ln in lines) == 1
    deltas = [float(ln.split("]")[2].split("[")[0]) for ln in lines]  # the specification curve: sorted by delta
    assert deltas == sorted(deltas)


def test_all_readings_of_a_two_member_panel_leave_no_member_out(capsys, rows_csv):
    code, out, err = run(
        capsys, "panel", str(rows_csv), "--members", "a,b", "--all-readings", "--json", "--n-boot", "100"
    )
    assert code == 0, err
    recs = json.loads(out)
    assert recs and all(r["reading"]["leave_out"] == "none" and r["left_out"] is None for r in recs)
    assert {r["reading"]["cluster"] for r in recs} == {"item", "row", "member"}


def test_help_defines_every_reading(capsys):
    with pytest.raises(SystemExit):
        cli.main(["panel", "--help"])
    out = capsys.readouterr().out
    for name, opts in panels.READINGS.items():
        assert f"  {name}:" in out
        for v in opts:
            assert f"    {v}" in out
    assert out.count("[canonical]") == len(panels.READINGS)


@pytest.mark.parametrize(
    "text",
    [
        "model,item_id,confidence,correct,answer\na,1,90,1,X\na,1,80,0,Y\n",  # duplicate (model, item_id)
        "model,item_id,confidence,correct,answer\na,1,90,1,X\na,2,0.5,0,Y\n",  # mixed scale
        "model,item_id,confidence,correct,answer\na,1,1,1,X\na,2,0,0,Y\n",  # ambiguous scale
        "model,item_id,confidence,correct,answer\na,1,90,2,X\n",  # invalid correct
        "model,item_id,confidence,correct,answer\na,1,90,1\n",  # short row
        "model,item_id,confidence,correct,answer\n",  # header only
        "model,item_id,correct,answer\na,1,1,X\n",  # missing column
    ],
)
def test_bad_input_gets_the_reports_error(capsys, tmp_path, text):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    code_r, _, err_r = run(capsys, "report", str(p), "--n-boot", "100")
    code_p, _, err_p = run(capsys, "panel", str(p), "--members", "a,b", "--n-boot", "100")
    assert code_r == code_p == 2
    assert err_r.startswith("selfconf report: error: ") and err_p.startswith("selfconf panel: error: ")
    assert err_p.removeprefix("selfconf panel: ") == err_r.removeprefix("selfconf report: ")
    assert "Traceback" not in err_p


def test_too_few_draws_get_the_reports_error(capsys, rows_csv):
    code_r, _, err_r = run(capsys, "report", str(rows_csv), "--n-boot", "5")
    code_p, _, err_p = run(capsys, "panel", str(rows_csv), "--members", "a,b,c", "--n-boot", "5")
    assert code_r == code_p == 2
    assert "--n-boot must be at least 100" in err_p
    assert err_p.removeprefix("selfconf panel: ") == err_r.removeprefix("selfconf report: ")


def test_panel_specific_errors(capsys, tmp_path, rows_csv):
    no_answer = tmp_path / "noanswer.csv"
    no_answer.write_text("model,item_id,confidence,correct\na,1,90,1\nb,1,80,0\n")
    code, _, err = run(capsys, "panel", str(no_answer), "--members", "a,b")
    assert code == 2 and "answer" in err and str(no_answer) in err
    code, _, err = run(capsys, "panel", str(rows_csv), "--members", "a,zz")
    assert code == 2 and "'zz'" in err and "models in the input: a, b, c" in err
    code, _, err = run(capsys, "panel", str(rows_csv), "--members", "a,b", "--reading", "ties=halves")
    assert code == 2 and "half, loss, win" in err
    code, _, err = run(capsys, "panel", str(rows_csv), "--members", "a")
    assert code == 2 and "at least two" in err


@needs_ext
@pytest.mark.slow  # reads 313k rows and runs three panels (about 10 s): the full suite, not `make check`
def test_mmlu_pro_canonical_reproduces_chapter_26(capsys, tmp_path):
    ext = read_mmlu_pro_calibration(EXT)
    path = tmp_path / "mmlu.csv"
    ext[["model", "item_id", "confidence", "correct", "answer"]].to_csv(path, index=False)
    pf = realanswers.panel_frame(ext)
    choices = realanswers.select_panels(tuple(dict.fromkeys(ext["model"])))
    for name in panels.PANELS:
        members = choices[name].members
        code, out, _ = run(capsys, "panel", str(path), "--members", ",".join(members), "--json", "--n-boot", "100")
        assert code == 0
        rec = json.loads(out)[0]
        assert rec["canonical"]
        # chapter 26's statistics: the same functions on the chapter's frame (panel_intervals' point estimates)
        est = panels.panel_point_estimates(panels.panel_rows(pf, members))
        for key, ch in (
            ("panel_auroc", "panel_auroc"),
            ("self_auroc_pooled", "self_auroc_pooled"),
            ("delta", "delta_panel_minus_self"),
        ):
            assert f"{rec[key]:.3f}" == f"{est[ch]:.3f}", (name, key)
            assert rec[key] == pytest.approx(est[ch], abs=1e-12), (name, key)
        assert rec["items"] == est["n_items"] and rec["rows"] == est["n_rows"]
