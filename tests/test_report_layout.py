"""Any layout in (`--columns`, `--sep`), clear errors for a directory or an over-long line, collection errors
counted as exclusions, and a terminal report that fits 120 columns (`selfconf report`)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from selfconf import cli

LAYOUT = "model=llm,confidence=stated_confidence,correct=is_correct,item_id=qset+question_id"


def _write(path, df, sep=","):
    df.to_csv(path, index=False, sep=sep)
    return str(path)


def _frames(seed=3, n=150):
    rng = np.random.default_rng(seed)
    items = [f"q{i:03d}" for i in range(n)]
    ya, yb = rng.integers(0, 2, n), rng.integers(0, 2, n)
    sa = np.round(np.clip(0.5 + 0.3 * (ya - 0.5) + rng.normal(0, 0.25, n), 0, 1), 1)
    sb = np.round(np.clip(0.5 + 0.1 * (yb - 0.5) + rng.normal(0, 0.25, n), 0, 1), 2)
    a = pd.DataFrame({"model": "m1", "item_id": items, "confidence": sa, "correct": ya})
    b = pd.DataFrame({"model": "m2", "item_id": items, "confidence": sb, "correct": yb})
    return a, b


def _foreign(df):
    """A file as a lab keeps it: other column names, the item id in two columns."""
    return pd.DataFrame(
        {
            "llm": df.model,
            "question_id": [int(s[1:]) // 3 for s in df.item_id],  # unique only together with the set
            "qset": [f"set{int(s[1:]) % 3}" for s in df.item_id],
            "stated_confidence": df.confidence,
            "is_correct": df.correct,
        }
    )


def test_report_reads_the_lab_layout_with_one_option(tmp_path, capsys):
    a, _ = _frames()
    lab = _write(tmp_path / "lab.csv", _foreign(a))
    assert cli.main(["report", lab, "--columns", LAYOUT, "--n-boot", "200", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    plain = _write(tmp_path / "plain.csv", a)
    assert cli.main(["report", plain, "--n-boot", "200", "--json"]) == 0
    ref = json.loads(capsys.readouterr().out)
    keys = ("n", "accuracy", "brier", "ece", "auroc", "aurc")
    assert [doc["models"][0][k] for k in keys] == [ref["models"][0][k] for k in keys]
    # a composite id keeps items of different sets apart: q001 in set1 and q001 in set2 are two items
    assert (
        cli.main(
            [
                "report",
                lab,
                "--columns",
                "model=llm,confidence=stated_confidence,correct=is_correct,item_id=question_id",
            ]
        )
        == 2
    )
    assert "duplicate row for model 'm1', item_id '0'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv_tail", "message"),
    [
        (
            ["--columns", "model=nope,confidence=stated_confidence,correct=is_correct,item_id=qset+question_id"],
            "no column 'nope'",
        ),
        (["--columns", "model"], "is not NAME=COLUMN"),
        (["--columns", "colour=llm"], "unknown column 'colour'"),
        (["--sep", "xx"], "--sep: 'xx'"),
    ],
)
def test_layout_option_errors_are_one_line(tmp_path, capsys, argv_tail, message):
    a, _ = _frames()
    lab = _write(tmp_path / "lab.csv", _foreign(a))
    assert cli.main(["report", lab, *argv_tail]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_directory_as_input_or_html_target_is_a_clear_error(tmp_path, capsys, command):
    a, b = _frames()
    pa, pb = _write(tmp_path / "a.csv", a), _write(tmp_path / "b.csv", b)
    assert cli.main([command, str(tmp_path)]) == 2
    assert "is a directory, not a row file" in capsys.readouterr().err
    assert cli.main([command, pa, pb, "--html", str(tmp_path)]) == 2
    assert "--html" in (err := capsys.readouterr().err) and "is a directory" in err


def test_an_over_long_line_is_refused_early_with_its_offset(tmp_path, capsys):
    """A sparse 3 GiB file of one header and one endless line: refused after reading 64 MiB, naming the byte."""
    p = tmp_path / "huge.csv"
    with open(p, "wb") as fh:
        fh.write(b"model,item_id,confidence,correct\n")
        fh.truncate(3 << 30)
    assert cli.main(["report", str(p)]) == 2
    err = capsys.readouterr().err
    assert "line starting at byte 33" in err and "64 MiB" in err and "Traceback" not in err


def test_report_terminal_fits_120_columns_and_states_the_ece_convention_first(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame(
        {
            "model": np.repeat(["a-model-with-a-long-name", "b"], n),
            "item_id": np.tile(np.arange(n), 2),
            "confidence": rng.integers(40, 101, 2 * n),
            "correct": rng.integers(0, 2, 2 * n),
            "subject": np.tile(["algebra", "history", "chemistry"], 2 * n // 3),
        }
    )
    path = _write(tmp_path / "r.csv", df)
    assert cli.main(["report", path, "--by", "subject", "--n-boot", "100"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0].startswith("ECE convention: the book's") and "--ece-sklearn (= --ece-edge lower --no-ece-snap)" in out[0]
    )
    assert max(len(line) for line in out) <= 120
    assert cli.main(["report", path, "--by", "subject", "--n-boot", "100", "--recalibrate", "isotonic"]) == 0
    recal = capsys.readouterr().out.splitlines()  # the recalibration table is split into blocks too
    start = next(i for i, line in enumerate(recal) if line.startswith("out of sample after"))
    block = recal[start : next(i for i, line in enumerate(recal) if line.startswith("rows read"))]
    assert max(len(line) for line in block) <= 120 and not any(line.startswith("    ") for line in block)  # unwrapped
    assert cli.main(["report", path, "--by", "subject", "--n-boot", "100", "--wide"]) == 0
    wide = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in wide) > 120 and sum(line.startswith("model ") for line in wide) == 2
    assert cli.main(["report", path, "--n-boot", "100", "--ece-edge", "lower", "--no-ece-snap", "--json"]) == 0
    two_flags = json.loads(capsys.readouterr().out)
    assert cli.main(["report", path, "--n-boot", "100", "--ece-sklearn", "--json"]) == 0
    one_flag = json.loads(capsys.readouterr().out)
    assert one_flag == two_flags
    assert cli.main(["report", path, "--n-boot", "100", "--json"]) == 0
    book = json.loads(capsys.readouterr().out)  # integer percents lie on bin edges: the conventions differ
    assert one_flag["models"][0]["ece"] != book["models"][0]["ece"]
    assert cli.main(["report", path, "--n-boot", "100", "--ece-sklearn"]) == 0
    assert capsys.readouterr().out.startswith("ECE convention: scikit-learn's")


def test_report_counts_collection_errors_as_their_own_exclusion(tmp_path, capsys):
    a, _ = _frames()
    df = a.assign(error="")
    df.loc[[3, 7], ["confidence", "correct"]] = np.nan
    df.loc[[3, 7], "error"] = "http://x/v1/chat/completions: gave up after 3 attempts; last failure: HTTP 500"
    path = _write(tmp_path / "g.csv", df)
    assert cli.main(["report", path, "--json", "--n-boot", "100"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["excluded"]["collection_error"] == {"m1": 2} and doc["excluded"]["missing_confidence"] == {}
    assert doc["models"][0]["n"] == len(df) - 2
    assert cli.main(["report", path, "--n-boot", "100"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # prose lines wrap at 120 columns
    assert "2 collection errors (no reply from the endpoint)" in text
    # an `error` column of another meaning (numbers, booleans) marks nothing
    other = _write(
        tmp_path / "o.csv", a.assign(error=1 - a.correct, flag="x").assign(error=lambda d: d.error.astype(int))
    )
    assert cli.main(["report", other, "--json", "--n-boot", "100"]) == 0
    assert json.loads(capsys.readouterr().out)["models"][0]["n"] == len(a)


def test_grade_refuses_a_directory_and_an_over_long_line(tmp_path, capsys):
    assert cli.main(["grade", str(tmp_path), "--out", str(tmp_path / "g.jsonl")]) == 2
    assert "is a directory, not a row file" in capsys.readouterr().err
    p = tmp_path / "huge.jsonl"
    with open(p, "wb") as fh:
        fh.write(b'{"answer": "a", "gold": "a"}\n')
        fh.truncate(2 << 30)
    assert cli.main(["grade", str(p), "--out", str(tmp_path / "g.jsonl")]) == 2
    assert "line starting at byte 29" in capsys.readouterr().err
