"""`selfconf report`: order invariance, scale rules, input faults, metric oracles, --by, warnings, faults."""

from __future__ import annotations

import csv
import gzip
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest_stub import api_key, collect_argv, questions_csv, stub  # noqa: F401

from selfconf import cli, metrics, report


def run_json(capsys, *argv) -> dict:
    assert cli.main(["report", *argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def run_err(capsys, *argv) -> str:
    assert cli.main(["report", *argv]) == 2
    return capsys.readouterr().err


def synthetic(n_models: int, n_items: int, seed: int = 0, heaped: bool = True):
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n_models):
        skill = rng.uniform(0.3, 0.9)
        conf = rng.choice([60, 70, 80, 90, 95, 100], n_items) if heaped else rng.integers(0, 101, n_items)
        correct = (rng.random(n_items) < skill).astype(int)
        rows += [(f"model-{m}", str(i), int(c), int(y)) for i, (c, y) in enumerate(zip(conf, correct, strict=True))]
    return rows


def write_csv(path: Path, rows, header=("model", "item_id", "confidence", "correct")) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


# ---------------------------------------------------------------- order invariance


@pytest.mark.slow
def test_permuted_rows_give_byte_identical_json_text_and_html_on_100k_rows(tmp_path, capsys):
    rows = synthetic(10, 10_000)
    a = write_csv(tmp_path / "a.csv", rows)
    perm = np.random.default_rng(5).permutation(len(rows))
    b = write_csv(tmp_path / "b.csv", [rows[i] for i in perm])
    outs = []
    for p in (a, b):
        assert cli.main(["report", str(p), "--json", "--n-boot", "300"]) == 0
        j = capsys.readouterr().out.replace(str(p), "<in>")
        assert cli.main(["report", str(p), "--n-boot", "300", "--html", str(tmp_path / f"{p.stem}.html")]) == 0
        t = capsys.readouterr().out.replace(str(p), "<in>")
        h = (tmp_path / f"{p.stem}.html").read_text(encoding="utf-8").replace(str(p), "<in>")
        outs.append((j, t, h))
    assert outs[0][0] == outs[1][0]
    assert outs[0][1] == outs[1][1]
    assert outs[0][2] == outs[1][2]
    doc = json.loads(outs[0][0])
    # heaped confidences: the 20% cut lies inside a tie group, so min < expected < max there
    m = doc["models"][0]
    assert m["risk_coverage_min"]["0.2"] <= m["risk_coverage"]["0.2"] <= m["risk_coverage_max"]["0.2"]
    assert any(x["risk_coverage_min"]["0.2"] < x["risk_coverage_max"]["0.2"] for x in doc["models"])


def test_permuted_stub_pipeline_output_gives_identical_json(stub, questions_csv, api_key, tmp_path, capsys):
    raw, g = tmp_path / "c.jsonl", tmp_path / "c.graded.jsonl"
    assert cli.main(collect_argv(stub, "calibrated", questions_csv, raw)) == 0
    assert cli.main(["grade", str(raw), "--out", str(g), "--unresolved-as-incorrect"]) == 0
    lines = g.read_text(encoding="utf-8").splitlines()
    shuffled = tmp_path / "s.graded.jsonl"
    shuffled.write_text(
        "\n".join(lines[i] for i in np.random.default_rng(1).permutation(len(lines))) + "\n", encoding="utf-8"
    )
    capsys.readouterr()
    x = run_json(capsys, str(g), "--n-boot", "200")
    y = run_json(capsys, str(shuffled), "--n-boot", "200")
    x.pop("inputs"), y.pop("inputs")
    assert x == y


# ---------------------------------------------------------------- scale


@pytest.mark.parametrize(
    "values, scale", [([0.9, 0.5, 0.2], "unit"), ([90, 50, 1], "percent"), (["80%", "0", "1"], "percent")]
)
def test_auto_scale(tmp_path, capsys, values, scale):
    p = write_csv(tmp_path / "r.csv", [("m", i, v, i % 2) for i, v in enumerate(values)])
    doc = run_json(capsys, str(p), "--n-boot", "100")
    assert doc["confidence_scale"] == scale and "auto-detected" in doc["confidence_scale_reason"]


def test_unit_file_under_auto_reports_unit_means(tmp_path, capsys):
    p = write_csv(tmp_path / "r.csv", [("m", i, 0.9, 1) for i in range(10)])
    doc = run_json(capsys, str(p), "--n-boot", "100")
    assert doc["models"][0]["mean_confidence"] == pytest.approx(0.9)


@pytest.mark.parametrize(
    "values, extra, message",
    [
        ([0, 1, 1], [], r"every confidence is exactly 0 or 1.*--confidence-scale"),
        (
            [90, 0.5, 80, 0.7],
            [],
            r"mix scales: values above 1 .* at .*line 2.*fractional values at or below 1 at .*line 3",
        ),
        (["80%", 0.5], [], r"mix scales"),
        (["80%", "0.5"], ["--confidence-scale", "unit"], r"line 2: confidence written with '%'"),
    ],
)
def test_scale_errors(tmp_path, capsys, values, extra, message):
    import re

    p = write_csv(tmp_path / "r.csv", [("m", i, v, i % 2) for i, v in enumerate(values)])
    err = run_err(capsys, str(p), *extra)
    assert re.search(message, err), err
    assert "Traceback" not in err


# ---------------------------------------------------------------- input faults

GOOD = "model,item_id,confidence,correct\na,1,90,1\na,2,40,0\na,3,70,1\n"


def test_all_zero_confidences_are_not_ambiguous():
    from selfconf.report import resolve_scale

    scale, reason = resolve_scale(np.array([0.0, 0.0, np.nan]), np.zeros(3, bool), "auto", str)
    assert scale == "unit" and "every value is 0" in reason
    with pytest.raises(ValueError, match="exactly 0 or 1"):
        resolve_scale(np.array([0.0, 1.0]), np.zeros(2, bool), "auto", str)


def test_bom_crlf_and_gzip_read_like_plain_utf8(tmp_path, capsys):
    plain = tmp_path / "p.csv"
    plain.write_text(GOOD, encoding="utf-8")
    bom = tmp_path / "b.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + GOOD.replace("\n", "\r\n").encode())
    gz = tmp_path / "g.csv.gz"
    gz.write_bytes(gzip.compress(GOOD.encode()))
    jl = tmp_path / "j.jsonl.gz"
    jl.write_bytes(
        gzip.compress(
            b"\xef\xbb\xbf"
            + "\r\n".join(
                json.dumps({"model": "a", "item_id": i, "confidence": c, "correct": y})
                for i, c, y in ((1, 90, 1), (2, 40, 0), (3, 70, 1))
            ).encode()
        )
    )
    docs = [run_json(capsys, str(p), "--n-boot", "100")["models"] for p in (plain, bom, gz, jl)]
    assert docs[0] == docs[1] == docs[2] == docs[3]


@pytest.mark.parametrize(
    "data, name, message",
    [
        (GOOD.replace("a,2,40,0", "a,2,40").encode(), "r.csv", r"r.csv: line 3: 3 field\(s\), but the header has 4"),
        (GOOD.replace("a,2,40,0", "a,2,40,0,9").encode(), "r.csv", r"r.csv: line 3: 5 field\(s\)"),
        (GOOD.replace("a,2", "é,2").encode("latin-1"), "r.csv", r"r.csv: line 3: byte 0xe9 .* not UTF-8"),
        (b"", "r.csv", r"r.csv: the file is empty"),
        (b"model,item_id,confidence,correct\n", "r.csv", r"r.csv: header only, no data rows"),
        (b"", "r.jsonl", r"r.jsonl: the file is empty"),
        (gzip.compress(GOOD.replace("a,2", "é,2").encode("latin-1")), "r.csv.gz", r"r.csv.gz: line 3: byte 0xe9"),
    ],
)
def test_bad_files_are_errors_naming_file_and_line(tmp_path, capsys, data, name, message):
    import re

    p = tmp_path / name
    p.write_bytes(data)
    err = run_err(capsys, str(p))
    assert re.search(message, err), err
    assert "\ufeff" not in err and "Traceback" not in err


def test_bom_header_error_has_no_invisible_character(tmp_path, capsys):
    p = tmp_path / "r.csv"
    p.write_bytes(b"\xef\xbb\xbfmodel,item_id,correct\na,1,1\n")
    err = run_err(capsys, str(p))
    assert "missing column(s) confidence (has: model, item_id, correct)" in err and "\ufeff" not in err


# ---------------------------------------------------------------- exclusions and warnings


def test_ungraded_share_above_5_percent_warns_in_every_output(tmp_path, capsys):
    rows = [("m", i, 80, 1 if i < 60 else "") for i in range(100)] + [("ok", i, 80, i % 2) for i in range(50)]
    rows += [("m", 200, "", 0)]
    p = tmp_path / "r.csv"
    write_csv(p, rows, ("model", "item_id", "confidence", "correct"))
    with open(p, "a") as fh:
        fh.write("m,201,,0\n")
    p2 = tmp_path / "r2.csv"
    write_csv(
        p2, [("m", 300 + i, "", 0, 1) for i in range(3)], ("model", "item_id", "confidence", "correct", "refusal")
    )
    doc = run_json(capsys, str(p), str(p2), "--n-boot", "100", "--html", str(tmp_path / "r.html"))
    m = next(x for x in doc["models"] if x["model"] == "m")
    assert m["accuracy"] == 1.0 and m["n"] == 60
    assert m["excluded"] == {
        "missing_confidence": 2,
        "missing_correct": 40,
        "refusal_without_confidence": 3,
        "collection_error": 0,
    }
    assert m["warning"] and "40 ungraded" in m["warning"]
    assert next(x for x in doc["models"] if x["model"] == "ok")["warning"] is None
    assert any(w.startswith("m: ") for w in doc["warnings"])
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'class="warn" data-excluded-warning=' in html
    assert cli.main(["report", str(p), str(p2), "--n-boot", "100"]) == 0
    assert "WARNING m:" in capsys.readouterr().out


# ---------------------------------------------------------------- metrics oracles


@pytest.mark.parametrize("edge", ["upper", "lower"])
@pytest.mark.parametrize("binning", ["equal_width", "equal_mass"])
def test_counts_statistics_equal_the_row_level_functions(edge, binning):
    rng = np.random.default_rng(3)
    c = rng.integers(0, 21, 3000) / 20
    y = (rng.random(3000) < c).astype(int)
    s = metrics.counts_statistics(*metrics.level_counts(c, y), edge=edge, binning=binning)
    assert s["ece"][0] == pytest.approx(metrics.ece(c, y, edge=edge, binning=binning), abs=1e-12)
    assert s["auroc"][0] == pytest.approx(metrics.auroc(c, y), abs=1e-12)
    assert s["brier"][0] == pytest.approx(metrics.brier(c, y), abs=1e-12)
    assert s["median_confidence"][0] == pytest.approx(np.median(c))
    rc = metrics.risk_coverage(c, y, tie_rule="expected")
    assert s["risk_coverage"][0] == pytest.approx([rc[k] for k in (1.0, 0.8, 0.6, 0.4, 0.2)], abs=1e-12)
    tab = metrics.risk_coverage_table(c, y)
    assert s["risk_coverage_min"][0] == pytest.approx(tab["error_rate_min"])
    assert s["risk_coverage_max"][0] == pytest.approx(tab["error_rate_max"])


def test_lower_edge_matches_scikit_learn_bins():
    from sklearn.calibration import calibration_curve

    c = np.array([0.1, 0.2, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 0.0])
    y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 0])
    lv, p, q = metrics.level_counts(c, y)
    prob_true, prob_pred = calibration_curve(y, c, n_bins=10, strategy="uniform")
    rb = metrics.reliability_bins(c, y, 10, edge="lower")
    occ = rb["n"] > 0
    assert rb["acc"][occ] == pytest.approx(prob_true) and rb["mean_conf"][occ] == pytest.approx(prob_pred)
    ece_sk = np.sum(rb["n"][occ] / c.size * np.abs(prob_true - prob_pred))
    assert metrics.counts_statistics(lv, p, q, edge="lower")["ece"][0] == pytest.approx(ece_sk)


def test_aurc_is_the_mean_over_tie_orders():
    rng = np.random.default_rng(0)
    c = rng.choice([0.2, 0.5, 0.9], 9)
    y = rng.integers(0, 2, 9)
    vals = []
    for _ in range(4000):
        perm = rng.permutation(9)
        cc, yy = c[perm], y[perm]
        o = np.argsort(-cc, kind="stable")
        vals.append(np.mean(np.cumsum(1 - yy[o]) / np.arange(1, 10)))
    assert metrics.aurc(c, y) == pytest.approx(np.mean(vals), abs=3e-3)
    assert metrics.aurc([0.9, 0.1], [1, 0]) == pytest.approx(0.25)


@pytest.mark.slow
def test_smooth_ece_agrees_with_relplot():
    relplot = pytest.importorskip("relplot")
    rng = np.random.default_rng(1)
    for k in range(3):
        c = rng.beta(5, 2, 3000)
        y = (rng.random(3000) < c ** (1 + 0.4 * k)).astype(int)
        assert metrics.smooth_ece(c, y) == pytest.approx(float(relplot.smECE(c, y)), abs=1e-10)
    assert metrics.smooth_ece([0.9] * 10, [1] * 9 + [0]) == pytest.approx(0.0, abs=1e-9)


def test_count_draws_have_row_bootstrap_moments():
    from selfconf.bootstrap import count_draws

    pos, neg = np.array([30, 10]), np.array([10, 50])
    P, Q = next(count_draws(pos, neg, n_boot=20000, rng=0, max_cells=10**8))
    assert (P + Q).sum(axis=1).tolist() == [100] * 20000
    acc = P.sum(axis=1) / 100
    assert acc.mean() == pytest.approx(0.4, abs=2e-3)
    assert acc.std() == pytest.approx(np.sqrt(0.4 * 0.6 / 100), rel=0.03)


def test_poisson_count_draws_have_poisson_bootstrap_moments():
    from selfconf.bootstrap import poisson_count_draws

    pos, neg = np.array([30, 0, 10]), np.array([10, 0, 50])
    P, Q = next(poisson_count_draws(pos, neg, n_boot=40000, rng=0, max_cells=10**8))
    assert not P[:, 1].any() and not Q[:, 1].any()  # an empty level stays empty
    cells = np.stack([P[:, 0], Q[:, 0], P[:, 2], Q[:, 2]], axis=1).astype(float)
    lam = np.array([30, 10, 10, 50])
    assert np.abs(cells.mean(axis=0) / lam - 1).max() < 0.01  # Poisson(c): mean c ...
    assert np.abs(cells.var(axis=0) / lam - 1).max() < 0.04  # ... and variance c
    assert np.abs(np.corrcoef(cells.T)[np.triu_indices(4, 1)]).max() < 0.03  # independent cells
    n = cells.sum(axis=1)
    assert n.mean() == pytest.approx(100, rel=0.005) and n.std() == pytest.approx(10, rel=0.03)
    acc = cells[:, [0, 2]].sum(axis=1) / n  # the ratio's spread is the row bootstrap's
    assert acc.std() == pytest.approx(np.sqrt(0.4 * 0.6 / 100), rel=0.05)
    # chunking is memory only: the same draws in one block and in blocks of 3
    one = np.concatenate([np.hstack(d) for d in poisson_count_draws(pos, neg, n_boot=10, rng=4, max_cells=10**8)])
    blocks = np.concatenate([np.hstack(d) for d in poisson_count_draws(pos, neg, n_boot=10, rng=4, max_cells=12)])
    assert np.array_equal(one, blocks)


def test_poisson_resampling_on_the_command_line(tmp_path, capsys):
    rng = np.random.default_rng(8)
    df = pd.DataFrame(
        {
            "model": np.repeat(["a", "b"], 300),
            "item_id": np.tile(np.arange(300), 2),
            "confidence": rng.integers(0, 101, 600),
            "correct": rng.integers(0, 2, 600),
        }
    )
    path = tmp_path / "rows.csv"
    df.to_csv(path, index=False)
    docs = {}
    for scheme in ("rows", "poisson"):
        docs[scheme] = run_json(capsys, str(path), "--n-boot", "200", "--resampling", scheme)
        assert docs[scheme]["resampling"] == scheme
        tab = report.from_frame(df, n_boot=200, resampling=scheme)
        for m, r in zip(docs[scheme]["models"], tab.to_dict("records"), strict=True):
            assert m["accuracy_ci_low"] == r["accuracy_ci_low"] and m["auroc_ci_high"] == r["auroc_ci_high"]
    rows, pois = docs["rows"]["models"], docs["poisson"]["models"]
    assert [m["auroc"] for m in rows] == [m["auroc"] for m in pois]  # point estimates do not resample
    assert [m["auroc_ci_low"] for m in rows] != [m["auroc_ci_low"] for m in pois]  # the draws differ
    assert "Poisson bootstrap" in " ".join(docs["poisson"]["conventions"])
    assert "row bootstrap" in " ".join(docs["rows"]["conventions"])
    with pytest.raises(SystemExit):
        cli.main(["report", str(path), "--resampling", "binomial"])
    with pytest.raises(ValueError, match="--resampling must be one of rows, poisson"):
        report.from_frame(df, resampling="binomial")


def test_tiny_units_survive_empty_poisson_draws():
    # a model with one row: about exp(-1) = 37% of its Poisson draws hold no row; they are left out
    df = pd.DataFrame(
        {
            "model": ["big"] * 40 + ["one"],
            "item_id": range(41),
            "confidence": [60, 90] * 20 + [70],
            "correct": [0, 1] * 20 + [1],
        }
    )
    tab = report.from_frame(df, n_boot=300, seed=1, resampling="poisson")
    one = tab[tab["model"] == "one"].iloc[0]
    assert one["n"] == 1 and one["accuracy"] == 1.0
    assert one["accuracy_ci_low"] == one["accuracy_ci_high"] == 1.0
    assert math.isnan(one["auroc_ci_low"])  # one class in every draw
    assert all(v is not None for v in one["smooth_reliability"]["low"][30:40])


# ---------------------------------------------------------------- options


def test_by_column_and_ece_options(tmp_path, capsys):
    rows = [("m", i, 50 + (i % 5) * 10, i % 3 == 0, "math" if i % 2 else "law") for i in range(200)]
    p = write_csv(
        tmp_path / "r.csv",
        [(a, b, c, int(d), e) for a, b, c, d, e in rows],
        ("model", "item_id", "confidence", "correct", "subject"),
    )
    doc = run_json(
        capsys,
        str(p),
        "--n-boot",
        "100",
        "--by",
        "subject",
        "--ece-edge",
        "lower",
        "--ece-binning",
        "equal_mass",
        "--ece-bins",
        "5",
    )
    assert (
        doc["by"] == "subject"
        and doc["ece_edge"] == "lower"
        and doc["ece_binning"] == "equal_mass"
        and doc["ece_bins"] == 5
    )
    assert [g["group"] for g in doc["groups"]] == ["law", "math"]
    assert sum(g["n"] for g in doc["groups"]) == doc["models"][0]["n"] == 200
    assert any("edge lower" in c for c in doc["conventions"])
    law = [r for r in rows if r[4] == "law"]
    c = np.array([r[2] for r in law]) / 100
    y = np.array([int(r[3]) for r in law])
    assert doc["groups"][0]["ece"] == pytest.approx(metrics.ece(c, y, 5, edge="lower", binning="equal_mass"))
    err = run_err(capsys, str(p), "--by", "nope")
    assert "--by nope: no column 'nope'" in err


def test_help_documents_the_conventions(capsys):
    with pytest.raises(SystemExit):
        cli.main(["report", "--help"])
    out = capsys.readouterr().out
    for s in (
        "--confidence-scale",
        "--ece-edge",
        "--ece-binning",
        "--ece-bins",
        "--by",
        "scikit-learn",
        "permutation",
        "tie",
    ):
        assert s in out, s


def test_from_frame_signature_and_defaults():
    import inspect

    import pandas as pd

    from selfconf.report import from_frame

    sig = inspect.signature(from_frame)
    assert {k: v.default for k, v in sig.parameters.items() if k != "df"} == {
        "confidence_scale": "auto",
        "seed": 0,
        "n_boot": 2000,
        "by": None,
        "ece_bins": 10,
        "ece_binning": "equal_width",
        "ece_edge": "upper",
        "resampling": "rows",
        "ece_snap": True,
        "high_confidence": 0.8,
        "coverages": (1.0, 0.8, 0.6, 0.4, 0.2),
        "recalibrate": None,
        "folds": 5,
    }
    # 1-based, like the line numbers of files: the second row is row 2
    with pytest.raises(ValueError, match=r"frame: row 2: field 'confidence' must be a number, got 'x'"):
        from_frame(
            pd.DataFrame({"model": ["a", "a"], "item_id": [1, 2], "confidence": ["0.5", "x"], "correct": [1, 0]})
        )
