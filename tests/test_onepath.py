"""One per-model computation path: chapter 22, chapter 26, Result 1's Table 1 and `selfconf report --json` give the
same value for every shared model and column, and no value depends on the order of the input rows."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from selfconf import cli, data, report
from selfconf.data.fetch import read_mmlu_pro_calibration
from selfconf.sections import external, realanswers, result1

ROOT = Path(__file__).resolve().parents[1]
EXT = ROOT / "data" / "external" / "mmlu-pro-calibration"
needs_ext = pytest.mark.skipif(not EXT.is_dir(), reason="run `make external` first (third-party MMLU-Pro files)")
SEED, N_BOOT = 7, 200
#: columns whose value the report computes in one matrix product with its bootstrap draws: equal to the last bits
LAST_BITS = {"mean_confidence", "citl", "brier", "ece"}


@pytest.fixture(scope="module")
def frontier() -> pd.DataFrame:
    rows, _ = data.load_collection(ROOT / "data" / "reconstructed")
    return rows[rows["tier"] == "frontier"]


@pytest.fixture(scope="module")
def ext_few() -> pd.DataFrame:
    """Four external models (enough to compare, quick to compute)."""
    ext = read_mmlu_pro_calibration(EXT)
    keep = sorted(ext["model"].unique())[:4]
    return ext[ext["model"].isin(keep)].reset_index(drop=True)


def _same(a, b, col: str) -> bool:
    if isinstance(a, dict):
        return a == b
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    if col in LAST_BITS:
        return b == pytest.approx(a, rel=1e-13, abs=1e-15)
    return a == b


def _json_models(capsys, path: Path, scale: str) -> list[dict]:
    argv = ["report", str(path), "--confidence-scale", scale, "--seed", str(SEED), "--n-boot", str(N_BOOT), "--json"]
    assert cli.main(argv) == 0
    return json.loads(capsys.readouterr().out)["models"]


@needs_ext
def test_chapter_22_26_and_report_json_agree_cell_for_cell(ext_few, frontier, tmp_path, capsys):
    res = external.compute(ext_few, frontier, seed=SEED, n_boot=N_BOOT)
    t22 = res.tables["t_ext"]
    # chapter 26's call (notebooks/26_real_answers.py and realanswers.compute), with its declared bins
    t26 = report.from_frame(
        ext_few[["model", "item_id", "confidence", "correct"]],
        confidence_scale="unit",
        seed=SEED,
        n_boot=N_BOOT,
        ece_bins=int(realanswers.declared_thresholds()["ece_bins"]),
    )
    pd.testing.assert_frame_equal(t22, t26)
    # the command line on the same rows written to a file
    path = tmp_path / "ext.csv"
    ext_few[["model", "item_id", "confidence", "correct"]].to_csv(path, index=False)
    models = _json_models(capsys, path, "unit")
    assert [m["model"] for m in models] == list(t22["model"])
    doc22 = report.report_json(t22)["models"]
    for mine, cli_row in zip(doc22, models, strict=True):
        for key in report.JSON_MODEL_KEYS:
            assert _same(mine[key], cli_row[key], ""), (mine["model"], key)


def test_chapter_26_calls_the_report_as_chapter_22_does():
    """Chapter 26's table is `report.from_frame` on the unit scale with the declared ECE bins, which equal
    chapter 22's (a change to either call shows here)."""
    src = (ROOT / "notebooks" / "26_real_answers.py").read_text()
    call = re.search(r"t1 = report\.from_frame\((.*?)\n\)", src, re.S)
    assert call is not None
    args = call.group(1)
    assert 'confidence_scale="unit"' in args and "seed=seed" in args and "n_boot=n_boot" in args
    assert "ece_bins=int(N_BINS)" in args
    assert external.ECE_BINS == int(realanswers.declared_thresholds()["ece_bins"])


def test_result1_table1_chapter_22_and_report_json_agree_on_the_frontier_rows(frontier, tmp_path, capsys):
    """Result 1's Table 1, chapter 22's side-by-side table and `selfconf report --json` on the paper's frontier
    rows: one value per model and column."""
    t1 = result1.frontier_table1(
        result1.frontier_rows(frontier),
        seed=SEED,
        n_boot=N_BOOT,
        threshold_points=100 * report.HIGH_CONF,
        coverages_pct=[100 * c for c in report.COVERAGES],
        level=0.95,
        n_bins=external.ECE_BINS,
    ).set_index("model")
    t22 = external.report_table(frontier, scale="percent", seed=SEED, n_boot=N_BOOT, source="collection")
    graded = data.graded(frontier)
    path = tmp_path / "frontier.csv"
    graded[["model", "item_id", "confidence", "correct"]].to_csv(path, index=False)
    models = {m["model"]: m for m in _json_models(capsys, path, "percent")}
    assert set(t1.index) == set(t22["model"]) == set(models)
    shared = [
        "n",
        "accuracy",
        "mean_confidence",
        "median_confidence",
        "citl",
        "brier",
        "ece",
        "auroc",
        "auroc_ci_low",
        "auroc_ci_high",
        "high_conf_error_rate",
        "high_conf_n",
    ]
    for r in t22.to_dict("records"):
        m = r["model"]
        for col in shared:
            assert _same(float(t1.loc[m, col]), float(r[col]), col), (m, col)
            assert r[col] == models[m][col], (m, col)
        for name in ("risk_coverage", "risk_coverage_min", "risk_coverage_max"):
            mine = {report.coverage_key(k): v for k, v in t1.loc[m, name].items()}
            assert mine == r[name] == models[m][name], (m, name)


@needs_ext
def test_shuffling_chapter_22_inputs_changes_nothing(ext_few, frontier):
    a = external.compute(ext_few, frontier, seed=SEED, n_boot=N_BOOT)
    rng = np.random.default_rng(0)
    for _ in range(2):
        e = ext_few.iloc[rng.permutation(len(ext_few))].reset_index(drop=True)
        f = frontier.iloc[rng.permutation(len(frontier))].reset_index(drop=True)
        b = external.compute(e, f, seed=SEED, n_boot=N_BOOT)
        assert a.values == b.values
        for name in ("t_ext", "t_paper", "missing", "acc_all"):
            ta, tb = a.tables[name], b.tables[name]
            if isinstance(ta, pd.DataFrame):
                pd.testing.assert_frame_equal(ta, tb)
            else:
                pd.testing.assert_series_equal(ta, tb)


def test_shuffling_result1_rows_changes_no_value():
    """Result 1 (Table 1, Table 2, the panels, Figure 1) from the shipped rows and from the same rows shuffled."""
    rows, excl = data.load_collection(ROOT / "data" / "reconstructed")
    kw = dict(
        seed=SEED,
        n_boot=N_BOOT,
        threshold_points=80,
        chance=0.5,
        auroc_cut=0.7,
        n_bins=10,
        level=0.95,
        coverages_pct=[100, 80, 60, 40, 20],
    )
    a = result1.compute(rows, excl, **kw)
    shuffled = rows.iloc[np.random.default_rng(3).permutation(len(rows))].reset_index(drop=True)
    b = result1.compute(shuffled, excl, **kw)
    differ = {k: (a.values[k], b.values[k]) for k in a.values if a.values[k] != b.values[k]}
    assert not differ
