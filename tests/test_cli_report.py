"""`selfconf report`: validation, exclusions, JSON schema, HTML, and the stub pipeline end to end."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest_stub import api_key, collect_argv, questions_csv, stub  # noqa: F401

from selfconf import cli, metrics
from selfconf.report import CI_METRICS, JSON_MODEL_KEYS, from_frame

GOOD = """model,item_id,confidence,correct,refusal
a,1,90,1,0
a,2,80,0,0
a,3,,1,0
a,4,70,1,0
a,5,95,0,0
a,6,60,0,1
b,1,50,1,0
b,2,60,0,0
b,3,40,0,0
b,4,90,1,0
b,5,30,,0
b,6,85,1,0
"""


@pytest.fixture
def good_csv(tmp_path) -> Path:
    p = tmp_path / "rows.csv"
    p.write_text(GOOD)
    return p


def run_json(capsys, *argv) -> dict:
    assert cli.main(["report", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_has_exactly_the_documented_keys_and_matches_metrics(good_csv, capsys):
    doc = run_json(capsys, str(good_csv), "--n-boot", "300")
    assert [m["model"] for m in doc["models"]] == ["a", "b"]
    for m in doc["models"]:
        assert tuple(m) == JSON_MODEL_KEYS
        assert set(m["risk_coverage"]) == {"1.0", "0.8", "0.6", "0.4", "0.2"}
    a = doc["models"][0]
    conf = np.array([90, 80, 70, 95, 60]) / 100
    corr = np.array([1, 0, 1, 0, 0])
    assert a["n"] == 5
    assert a["accuracy"] == pytest.approx(0.4)
    assert a["mean_confidence"] == pytest.approx(conf.mean())
    assert a["median_confidence"] == pytest.approx(0.8)
    assert a["citl"] == pytest.approx(conf.mean() - 0.4)
    assert a["brier"] == pytest.approx(metrics.brier(conf, corr))
    assert a["ece"] == pytest.approx(metrics.ece(conf, corr))
    assert a["auroc"] == pytest.approx(metrics.auroc(conf, corr))
    assert a["auroc_ci_low"] <= a["auroc"] <= a["auroc_ci_high"]
    assert a["high_conf_error_rate"] == pytest.approx(2 / 3)  # 90 ok, 80 wrong, 95 wrong
    assert a["risk_coverage"]["0.2"] == pytest.approx(1.0)  # the single most confident answer is wrong
    # exclusions are counted, never silent
    assert doc["excluded"] == {
        "total": 2,
        "missing_confidence": {"a": 1},
        "missing_correct": {"b": 1},
        "refusal_without_confidence": {},
        "collection_error": {},
    }
    assert doc["models"][0]["excluded"] == {
        "missing_confidence": 1,
        "missing_correct": 0,
        "refusal_without_confidence": 0,
        "collection_error": 0,
    }
    for m in doc["models"]:
        for k in CI_METRICS:
            assert m[f"{k}_ci_low"] <= m[k] + 1e-12 and m[k] <= m[f"{k}_ci_high"] + 1e-12, k
    assert doc["rows_read"] == 12 and doc["rows_used"] == 10


def test_terminal_table_reports_units_and_exclusions(good_csv, capsys):
    assert cli.main(["report", str(good_csv), "--n-boot", "200"]) == 0
    out = capsys.readouterr().out
    assert "excluded 2 (1 without a confidence, 1 ungraded, 0 refusals without a confidence)" in out
    assert "confidence scale: percent (auto-detected" in out and "edge upper" in out
    assert "excluded without a confidence: a: 1" in out and "excluded ungraded: b: 1" in out
    row_a = next(line for line in out.splitlines() if line.startswith("a "))
    assert " 40.0 " in row_a  # accuracy in percent
    assert "+39.0" in row_a  # CITL in percentage points: mean conf 79.0 - 40.0


def test_unit_scale_gives_the_same_report(good_csv, tmp_path, capsys):
    unit = tmp_path / "unit.csv"
    lines = good_csv.read_text().splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        f = line.split(",")
        f[2] = "" if f[2] == "" else str(int(f[2]) / 100)
        out.append(",".join(f))
    unit.write_text("\n".join(out) + "\n")
    p = run_json(capsys, str(good_csv), "--n-boot", "200", "--seed", "7")
    u = run_json(capsys, str(unit), "--n-boot", "200", "--seed", "7", "--confidence-scale", "unit")
    assert p["confidence_scale"] == "percent" and u["confidence_scale"] == "unit"
    for mp, mu in zip(p["models"], u["models"], strict=True):
        for k in JSON_MODEL_KEYS:
            if isinstance(mp[k], float):
                assert mp[k] == pytest.approx(mu[k], abs=1e-12), k


def test_seed_controls_the_bootstrap(good_csv, capsys):
    x = run_json(capsys, str(good_csv), "--n-boot", "200", "--seed", "1")
    y = run_json(capsys, str(good_csv), "--n-boot", "200", "--seed", "1")
    assert x["models"] == y["models"]


@pytest.mark.parametrize(
    "body, scale, message",
    [
        (
            "model,item_id,confidence,correct\na,1,90,1\na,2,101,0\n",
            "percent",
            r"rows.csv: line 3: field 'confidence' = 101 is outside the percent scale",
        ),
        (
            "model,item_id,confidence,correct\na,1,0.5,1\na,2,85,0\n",
            "unit",
            r"line 3: .*= 85 is outside the unit scale.*--confidence-scale percent",
        ),
        ("model,item_id,confidence,correct\na,1,-1,1\n", "percent", r"line 2: field 'confidence' = -1 is negative"),
        (
            "model,item_id,confidence,correct\na,1,high,1\n",
            "percent",
            r"line 2: field 'confidence' must be a number, got 'high'",
        ),
        ("model,item_id,confidence,correct\na,1,50,2\n", "percent", r"line 2: field 'correct' must be 0/1"),
        (
            "model,item_id,confidence,correct\na,1,50,1\na,1,60,0\n",
            "percent",
            r"line 3: duplicate row for model 'a', item_id '1'",
        ),
        ("model,item_id,confidence,correct\n,1,50,1\n", "percent", r"line 2: field 'model' is empty"),
        ("model,item_id,correct\na,1,1\n", "percent", r"missing column\(s\) confidence"),
    ],
)
def test_bad_input_is_a_clear_error(tmp_path, capsys, body, scale, message):
    p = tmp_path / "rows.csv"
    p.write_text(body)
    assert cli.main(["report", str(p), "--confidence-scale", scale]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err), err


def test_jsonl_input_errors_name_the_line(tmp_path, capsys):
    p = tmp_path / "rows.jsonl"
    p.write_text(
        '{"model": "a", "item_id": 1, "confidence": 50, "correct": 1}\n{"model": "a", "item_id": 2, "correct": 1}\n'
    )
    assert cli.main(["report", str(p)]) == 2
    assert "rows.jsonl: line 2: missing field 'confidence'" in capsys.readouterr().err
    assert cli.main(["report", str(tmp_path / "absent.csv")]) == 2
    assert "absent.csv: file not found" in capsys.readouterr().err
    q = tmp_path / "rows.txt"
    q.write_text("x")
    assert cli.main(["report", str(q)]) == 2
    assert "unknown file type" in capsys.readouterr().err


def test_all_rows_excluded_is_an_error_not_an_empty_table(tmp_path, capsys):
    p = tmp_path / "rows.csv"
    p.write_text("model,item_id,confidence,correct\na,1,,1\na,2,,0\n")
    assert cli.main(["report", str(p)]) == 2
    assert "no usable rows" in capsys.readouterr().err


def test_a_model_with_every_row_excluded_still_appears(tmp_path, capsys):
    p = tmp_path / "rows.csv"
    p.write_text("model,item_id,confidence,correct\na,1,50,1\na,2,60,0\nz,1,,1\n")
    doc = run_json(capsys, str(p), "--n-boot", "100")
    z = doc["models"][1]
    assert z["model"] == "z" and z["n"] == 0 and z["accuracy"] is None
    assert doc["excluded"]["missing_confidence"] == {"z": 1}


def test_from_frame_matches_the_command_line(good_csv, capsys):
    import pandas as pd

    doc = run_json(capsys, str(good_csv), "--n-boot", "150", "--seed", "3")
    tab = from_frame(pd.read_csv(good_csv), n_boot=150, seed=3)
    assert list(tab.columns) == list(JSON_MODEL_KEYS)
    for m, r in zip(doc["models"], tab.to_dict("records"), strict=True):
        for k in ("n", "accuracy", "auroc", "auroc_ci_low", "auroc_ci_high", "brier_ci_high", "smooth_ece", "aurc"):
            assert m[k] == pytest.approx(r[k], abs=0), k
        assert m["excluded"] == r["excluded"]


@pytest.mark.slow
def test_html_is_self_contained(good_csv, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert cli.main(["report", str(good_csv), "--n-boot", "100", "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert not re.search(r"""<(?:script|link|img|iframe)[^>]+(?:src|href)\s*=\s*["']?(?:https?:)?//""", html, re.I)
    assert "window.vegaEmbed=" in html  # the bundle is inline
    assert 'id="reliability"' in html and 'id="overconfidence"' in html and 'id="riskcoverage"' in html
    assert "Rows excluded: 2" in html and "without a stated confidence" in html
    assert "<td>a</td>" in html


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium not installed")
def test_html_renders_both_charts_offline(good_csv, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert cli.main(["report", str(good_csv), "--n-boot", "100", "--html", str(out)]) == 0
    dom = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--proxy-server=127.0.0.1:9",
            "--virtual-time-budget=8000",
            "--dump-dom",
            out.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
    ).stdout
    assert dom.count('class="marks"') == 3, "all three vega charts should render to SVG without network"
    assert ">chart failed to render" not in dom


@pytest.mark.slow
def test_pipeline_collect_grade_report_separates_the_scripted_models(stub, questions_csv, api_key, tmp_path, capsys):
    graded = []
    for model in ("calibrated", "overconfident", "refusing", "malformed"):
        raw, g = tmp_path / f"{model}.jsonl", tmp_path / f"{model}.graded.jsonl"
        assert cli.main(collect_argv(stub, model, questions_csv, raw)) == 0
        assert cli.main(["grade", str(raw), "--out", str(g), "--unresolved-as-incorrect"]) == 0
        graded.append(str(g))
    capsys.readouterr()
    doc = run_json(capsys, *graded, "--n-boot", "300", "--html", str(tmp_path / "all.html"))
    by = {m["model"]: m for m in doc["models"]}
    assert set(by) == {"calibrated", "overconfident", "refusing", "malformed"}
    cal, over, ref = by["calibrated"], by["overconfident"], by["refusing"]
    assert cal["auroc"] == pytest.approx(1.0) and cal["auroc_ci_low"] > 0.9  # 85 when right, 25 when wrong
    assert over["auroc"] == pytest.approx(0.5)  # 95 on everything: no discrimination
    assert over["citl"] > 0.5 and abs(cal["citl"]) < 0.15
    assert over["high_conf_error_rate"] > 0.5
    assert ref["accuracy"] < 0.6 and ref["auroc"] > 0.9
    # the malformed model's unparseable confidences are excluded and counted, not dropped
    assert doc["excluded"]["missing_confidence"]["malformed"] > 0
    assert by["malformed"]["n"] + doc["excluded"]["missing_confidence"]["malformed"] == 40
    assert (tmp_path / "all.html").stat().st_size > 100_000
