"""`selfconf report` admits its limits: flagged intervals, Wilson intervals, tie ranges where people
read, warnings on stderr in every mode, the snapping switch against scikit-learn, the options stated in every
output, and the metric registry driving every output."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from selfconf import cli
from selfconf.report import core, from_frame
from selfconf.stats.proportions import wilson_interval


def _csv(path, rows, header="model,item_id,confidence,correct"):
    path.write_text(header + "\n" + "\n".join(",".join(str(x) for x in r) for r in rows) + "\n", encoding="utf-8")
    return path


def _run(capsys, *argv):
    rc = cli.main(["report", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def small_csv(tmp_path):
    rng = np.random.default_rng(3)
    rows = [("big", i, int(c), int(rng.random() < c / 100)) for i, c in enumerate(rng.integers(40, 100, 200))]
    rows += [("one", 1, 90, 1)]  # one row: every interval collapses to a point
    rows += [("perfect", i, 90, 1) for i in range(20)]  # 20 of 20 right
    rows += [("two", 1, 90, 1), ("two", 2, 40, 0)]  # n = 2: AUROC 1.000 [1.000, 1.000]
    return _csv(tmp_path / "rows.csv", rows)


def test_zero_width_and_small_n_intervals_are_flagged_in_every_output(small_csv, tmp_path, capsys):
    rc, out, err = _run(capsys, str(small_csv), "--json", "--n-boot", "200")
    assert rc == 0
    doc = json.loads(out)
    m = {r["model"]: r for r in doc["models"]}
    assert m["big"]["interval_flags"] == {}
    assert "accuracy" in m["one"]["interval_flags"] and "zero width" in m["one"]["interval_flags"]["accuracy"]
    assert "fewer than 30" in m["perfect"]["interval_flags"]["accuracy"]
    assert m["perfect"]["accuracy_ci_low"] == m["perfect"]["accuracy_ci_high"] == 1.0
    # the Wilson interval does not collapse: 20 of 20 gives about [83.9, 100]
    assert round(m["perfect"]["accuracy_wilson_low"], 3) == 0.839 and m["perfect"]["accuracy_wilson_high"] == 1.0
    assert m["two"]["auroc"] == 1.0 and "auroc" in m["two"]["interval_flags"]
    for r in doc["models"]:
        lo, hi = wilson_interval(round(r["accuracy"] * r["n"]), r["n"])
        assert (r["accuracy_wilson_low"], r["accuracy_wilson_high"]) == (lo, hi)
        assert (
            r["high_conf_error_rate_wilson_low"] <= r["high_conf_error_rate"] <= r["high_conf_error_rate_wilson_high"]
        )
    assert "flagged intervals" in err
    # terminal: the flagged cells carry a mark and the reasons follow the table
    rc, out, _ = _run(capsys, str(small_csv), "--n-boot", "200")
    assert "[100.0, 100.0]*" in out and "[1.000, 1.000]*" in out
    assert "one: accuracy, mean_confidence" in out and "zero width" in out and "computed on 1 rows" in out
    big_line = next(line for line in out.splitlines() if line.startswith("big "))
    assert "*" not in big_line
    # HTML: the reason on the cell
    html = tmp_path / "r.html"
    assert _run(capsys, str(small_csv), "--n-boot", "200", "--html", str(html))[0] == 0
    page = html.read_text(encoding="utf-8")
    assert 'data-interval-flag="computed on 1 rows (fewer than 30); zero width' in page
    assert "flagged intervals" in page


@pytest.mark.parametrize("n_boot", ["1", "99"])
def test_too_few_draws_is_an_error(small_csv, capsys, n_boot):
    rc, _, err = _run(capsys, str(small_csv), "--n-boot", n_boot)
    assert rc == 2 and "--n-boot must be at least 100" in err and f"got {n_boot}" in err


def test_the_python_api_flags_too_few_draws():
    df = pd.DataFrame(
        {
            "model": "m",
            "item_id": range(60),
            "confidence": np.tile([30, 60, 90], 20),
            "correct": np.tile([0, 1, 1, 0, 1], 12),
        }
    )
    r = from_frame(df, n_boot=20).iloc[0]
    assert "only 20 bootstrap draws" in r["interval_flags"]["accuracy"]


def test_tie_ranges_are_shown_next_to_risk_in_the_terminal_and_html(tmp_path, capsys):
    # 100 rows: 90 tied at 90 (45 wrong), 10 at 50; risk@20% falls inside the tie group: expectation 50%,
    # best order 0%, worst 100%
    rows = [("m", i, 90, int(i % 2 == 0)) for i in range(90)] + [("m", 90 + i, 50, 0) for i in range(10)]
    p = _csv(tmp_path / "ties.csv", rows)
    rc, out, _ = _run(capsys, str(p), "--n-boot", "100", "--html", str(tmp_path / "t.html"))
    assert rc == 0
    assert "50.0 (0.0–100.0)" in out and "best and worst tie orders" in out
    assert "50.0 (0.0–100.0)" in (tmp_path / "t.html").read_text(encoding="utf-8")
    # no range where the orders agree to within 1 pp
    rows = [("m", i, 10 + i % 90, int(i % 3 > 0)) for i in range(90)]
    p2 = _csv(tmp_path / "noties.csv", rows)
    _, out, _ = _run(capsys, str(p2), "--n-boot", "100")
    assert "–" not in out.split("\n\n")[0] and "best and worst tie orders" not in out


def test_warnings_reach_stderr_with_json(tmp_path, capsys):
    rows = [("a", i, 80, i % 2) for i in range(40)] + [("b", i, "" if i < 20 else 70, 1) for i in range(40)]
    p = _csv(tmp_path / "w.csv", rows)
    rc, out, err = _run(capsys, str(p), "--json", "--n-boot", "100")
    assert rc == 0
    doc = json.loads(out)
    assert doc["warnings"] and all(f"WARNING {w}" in err for w in doc["warnings"])
    assert "b: 50.0% of its 40 rows excluded" in err


def test_percent_on_unit_data_warns_and_unit_above_one_is_an_error(tmp_path, capsys):
    rows = [("a", i, [0.2, 0.6, 0.9][i % 3], i % 2) for i in range(60)]
    p = _csv(tmp_path / "u.csv", rows)
    rc, out, err = _run(capsys, str(p), "--json", "--n-boot", "100", "--confidence-scale", "percent")
    assert rc == 0
    doc = json.loads(out)
    assert any("every confidence is within [0, 1]" in w for w in doc["warnings"])
    assert "WARNING --confidence-scale percent, but every confidence is within [0, 1] (largest 0.9)" in err
    _, out, _ = _run(capsys, str(p), "--n-boot", "100", "--confidence-scale", "percent")
    assert "WARNING --confidence-scale percent, but every confidence" in out
    _, out, err = _run(capsys, str(p), "--json", "--n-boot", "100")  # auto: unit, no warning
    assert not json.loads(out)["warnings"] and "WARNING" not in err
    rows = [("a", i, [20, 60, 90][i % 3], i % 2) for i in range(60)]
    rc, _, err = _run(capsys, str(_csv(tmp_path / "p.csv", rows)), "--confidence-scale", "unit")
    assert rc == 2 and "outside the unit scale" in err


def _artefact_data(seed=0, n=3000):
    """Confidences on and around the bin edges, with float artefacts such as 0.5000000000000001."""
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 11, n)
    edge = k / 10
    art = np.array([0.7 + 0.1, 0.1 * 3, 0.5000000000000001, 0.6 - 0.1 + 1e-16, 0.2 + 0.1, 0.4999999999999999])
    conf = np.where(rng.random(n) < 0.5, edge, art[rng.integers(0, art.size, n)])
    conf = np.where(rng.random(n) < 0.2, rng.random(n), conf)
    y = (rng.random(n) < conf).astype(int)
    return conf, y


def _sklearn_ece(conf, y, n_bins=10):
    """ECE from scikit-learn's calibration_curve: bins as it assigns them, each weighted by its share."""
    from sklearn.calibration import calibration_curve

    prob_true, prob_pred = calibration_curve(y, conf, n_bins=n_bins, strategy="uniform")
    bins = np.linspace(0.0, 1.0, n_bins + 1)
    counts = np.bincount(np.searchsorted(bins[1:-1], conf), minlength=n_bins)
    w = counts[counts > 0] / conf.size
    return float(np.sum(w * np.abs(prob_true - prob_pred))), counts


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lower_edge_without_snapping_is_scikit_learns_calibration_curve(seed):
    pytest.importorskip("sklearn")
    from selfconf import metrics

    conf, y = _artefact_data(seed)
    want, counts = _sklearn_ece(conf, y)
    # the bins are scikit-learn's, row for row
    assert metrics.reliability_bins(conf, y, edge="lower", snap=False)["n"].tolist() == counts.tolist()
    got_rows = metrics.ece(conf, y, edge="lower", snap=False)
    df = pd.DataFrame({"model": "m", "item_id": range(conf.size), "confidence": conf, "correct": y})
    got = float(from_frame(df, n_boot=100, ece_edge="lower", ece_snap=False, confidence_scale="unit")["ece"][0])
    # the row-level function sums rows in scikit-learn's order: bit for bit
    assert got_rows == want
    # the report sums per confidence level (so that no row order can change it): the last bits may differ
    assert got == pytest.approx(want, rel=0, abs=1e-12)
    # with snapping (the default) the artefacts move to the bins of the values they stand for: not sklearn's
    snapped = metrics.reliability_bins(conf, y, edge="lower")["n"].tolist()
    assert snapped != counts.tolist()


def test_no_ece_snap_flag_reaches_the_json_and_the_conventions(tmp_path, capsys):
    conf, y = _artefact_data(4, 400)
    p = _csv(
        tmp_path / "a.csv", [("m", i, repr(float(c)), int(v)) for i, (c, v) in enumerate(zip(conf, y, strict=True))]
    )
    _, out, _ = _run(capsys, str(p), "--json", "--n-boot", "100", "--ece-edge", "lower", "--no-ece-snap")
    doc = json.loads(out)
    assert doc["ece_snap"] is False and any("no snapping" in c for c in doc["conventions"])
    want, _ = _sklearn_ece(np.array([float(repr(float(c))) for c in conf]), y)
    assert doc["models"][0]["ece"] == pytest.approx(want, rel=0, abs=1e-12)
    _, out, _ = _run(capsys, str(p), "--json", "--n-boot", "100")
    assert json.loads(out)["ece_snap"] is True


def test_high_confidence_and_coverages_options_are_stated_everywhere(small_csv, tmp_path, capsys):
    args = [str(small_csv), "--n-boot", "100", "--high-confidence", "0.9", "--coverages", "100,50,10"]
    _, out, _ = _run(capsys, *args, "--json")
    doc = json.loads(out)
    assert doc["high_confidence_threshold"] == 0.9 and doc["coverages"] == ["1.0", "0.5", "0.1"]
    assert list(doc["models"][0]["risk_coverage"]) == ["1.0", "0.5", "0.1"]
    big = next(r for r in doc["models"] if r["model"] == "big")
    df = pd.read_csv(small_csv)
    b = df[df.model == "big"]
    hc = b[b.confidence >= 90]
    assert big["high_conf_n"] == len(hc) and big["high_conf_error_rate"] == pytest.approx(1 - hc.correct.mean())
    assert any(">= 0.9" in c for c in doc["conventions"]) and any("100%, 50%, 10%" in c for c in doc["conventions"])
    _, out, _ = _run(capsys, *args, "--html", str(tmp_path / "o.html"))
    for text in (out, (tmp_path / "o.html").read_text(encoding="utf-8")):
        assert "err@conf≥90 %" in text and "risk@50%" in text and "risk@10%" in text and "risk@80%" not in text
    rc, _, err = _run(capsys, str(small_csv), "--coverages", "100,abc")
    assert rc == 2 and "abc is not a number" in err
    rc, _, err = _run(capsys, str(small_csv), "--high-confidence", "80")
    assert rc == 2 and "got 80" in err


def test_metric_registry_drives_every_output(small_csv, tmp_path, capsys, monkeypatch):
    """A dummy metric added to the registry appears in the terminal, the JSON, the HTML, the intervals and --help."""
    dummy = core.Metric(
        "dummy_share_at_or_above_half",
        "dummy %",
        "pct",
        "share of answers with confidence >= 0.5 (a test metric)",
        compute=lambda lv, P, Q, opts: ((P + Q)[:, lv >= 0.5].sum(axis=1)) / (P + Q).sum(axis=1),
    )
    monkeypatch.setattr(core, "METRICS", core.METRICS + (dummy,))
    name = dummy.name
    assert name in core.ci_metrics() and f"{name}_ci_low" in core.json_model_keys()
    rc, out, _ = _run(capsys, str(small_csv), "--json", "--n-boot", "100")
    doc = json.loads(out)
    big = next(r for r in doc["models"] if r["model"] == "big")
    df = pd.read_csv(small_csv)
    want = float((df[df.model == "big"].confidence >= 50).mean())
    assert big[name] == pytest.approx(want) and big[f"{name}_ci_low"] <= want <= big[f"{name}_ci_high"]
    _, out, _ = _run(capsys, str(small_csv), "--n-boot", "100", "--html", str(tmp_path / "d.html"))
    head, rest = out.split("95% intervals", 1)  # the headline tables (in blocks of 120 columns), then the intervals
    assert "dummy %" in head and name in rest  # headline column and intervals table
    page = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert "<th>dummy %</th>" in page and f"<th>{name}</th>" in page
    with pytest.raises(SystemExit):
        cli.main(["report", "--help"])
    help_text = capsys.readouterr().out
    assert f"dummy %, {name}: share of answers" in help_text and name in help_text.split("JSON:")[1]
    tab = from_frame(df, n_boot=100)
    assert name in tab.columns and list(tab.columns) == list(core.json_model_keys())


def test_messages_quote_values_as_typed_and_count_frame_rows_from_one(tmp_path, capsys):
    p = _csv(tmp_path / "b.csv", [("a", 1, 50, 2), ("a", 2, 60, 1)])
    rc, _, err = _run(capsys, str(p))
    assert rc == 2 and "line 2: field 'correct' must be 0/1 (or true/false), got '2'" in err
    p = _csv(tmp_path / "i.csv", [("a", 1, "inf", 1), ("a", 2, 60, 1)])
    rc, _, err = _run(capsys, str(p))
    assert rc == 2 and "must be finite, got inf" in err and "np.float64" not in err
    frame = pd.DataFrame({"model": ["a", "a", "a"], "item_id": [1, 2, 3], "confidence": [50, 60, 70]})
    with pytest.raises(ValueError, match=r"frame: row 3: field 'correct' must be 0/1 \(or true/false\), got '2'"):
        from_frame(frame.assign(correct=[1, 0, 2]))
    with pytest.raises(ValueError, match=r"frame: row 2: field 'confidence' must be a number, got 'x'"):
        core.prepare_frame(
            pd.DataFrame({"model": ["a", "a"], "item_id": [1, 2], "confidence": [0.5, "x"], "correct": [1, 0]})
        )


def test_an_interval_that_misses_its_estimate_is_flagged(tmp_path, capsys):
    """A perfectly calibrated model (every answer at 50 %, half of them right): its ECE is 0, every resample's ECE
    is above 0, so the percentile interval lies above the estimate and is flagged; its accuracy interval is not."""
    rows = [("calibrated", i, 50, i % 2) for i in range(2000)]
    rc, out, err = _run(capsys, str(_csv(tmp_path / "c.csv", rows)), "--json", "--n-boot", "200")
    assert rc == 0
    m = json.loads(out)["models"][0]
    # several reasons (zero width, estimate outside) on one model: the note counts the model once
    assert "note: 1 model/group(s) have flagged intervals" in err
    assert m["ece"] == 0.0 and m["ece_ci_low"] > 0.0
    assert "does not contain the estimate" in m["interval_flags"]["ece"]
    assert "accuracy" not in m["interval_flags"]
    assert "does not contain its estimate" in json.loads(out)["interval_flag_rules"]
