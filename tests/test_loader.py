"""Loader: contract CSV and raw JSONL layouts, validation errors naming file, line and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from selfconf.data import COLUMNS, DataError, graded, load_benchmark_age, load_collection, normalise_answer

FIX = Path(__file__).parent / "fixtures" / "raw"
ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "data" / "reconstructed"

HEADER = ",".join(COLUMNS)
GOOD_ROWS = [
    "frontier,google,gemini-3.6-flash,sqa-0001,95,1,1,0,i0001-a0,string,first_party",
    "frontier,google,gemini-3.6-flash,sqa-0002,,0,,0,,,first_party",
    "frontier,anthropic,claude-haiku-4-5-20251001,sqa-0001,10,1,0,1,REFUSAL,string,first_party",
    "local,qwen3:8b,qwen3:8b,sqa-0001,100,1,0,0,i0001-a3,llm,local",
]


def write_csv(tmp_path: Path, rows: list[str]) -> Path:
    (tmp_path / "collection.csv").write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return tmp_path


# ---------------------------------------------------------------- contract layout


def test_contract_small_file_roundtrip(tmp_path):
    df, rep = load_collection(write_csv(tmp_path, GOOD_ROWS))
    assert list(df.columns) == COLUMNS
    assert len(df) == 4
    assert rep.total_parse_failures == 1 and rep.total_graded == 3
    g = graded(df)
    assert len(g) == 3 and g["confidence"].dtype.kind == "i"
    row = rep.per_model.set_index("model").loc["google"]
    assert (row["rows"], row["parse_failures"], row["graded"]) == (2, 1, 1)
    assert "google (frontier): 1 of 2 unparsed" in str(rep)


@pytest.mark.parametrize(
    "line_no, bad, field, words",
    [
        (
            2,
            "frontier,google,gemini-3.6-flash,sqa-0001,101,1,1,0,i0001-a0,string,first_party",
            "confidence",
            "out of range",
        ),
        (
            3,
            "frontier,google,gemini-3.6-flash,sqa-0002,-5,1,0,0,i0002-a3,llm,first_party",
            "confidence",
            "out of range",
        ),
        (
            2,
            "frontier,google,gemini-3.6-flash,sqa-0001,85.5,1,1,0,i0001-a0,string,first_party",
            "confidence",
            "integer",
        ),
        (3, "frontier,google,gemini-3.6-flash,sqa-0002,80,1,2,0,i0002-a3,llm,first_party", "correct", "0 or 1"),
        (
            4,
            "cloud,anthropic,claude-haiku-4-5-20251001,sqa-0001,10,1,0,1,REFUSAL,string,first_party",
            "tier",
            "unknown",
        ),
        (5, "local,qwen3:8b,qwen3:8b,sqa-0001,100,1,0,0,i0001-a3,human,local", "graded_by", "unknown"),
        (
            4,
            "frontier,anthropic,claude-haiku-4-5-20251001,sqa-0001,10,1,1,1,REFUSAL,string,first_party",
            "correct",
            "refusal",
        ),
        (3, "frontier,google,gemini-3.6-flash,sqa-0002,70,0,,0,,,first_party", "confidence", "parse failure"),
    ],
)
def test_contract_malformed_value_names_file_line_field(tmp_path, line_no, bad, field, words):
    rows = list(GOOD_ROWS)
    rows[line_no - 2] = bad
    with pytest.raises(DataError) as e:
        load_collection(write_csv(tmp_path, rows))
    msg = str(e.value)
    assert "collection.csv" in msg and f"line {line_no}" in msg and repr(field) in msg
    assert words in msg
    assert e.value.line == line_no and e.value.field == field


def test_contract_duplicate_model_item(tmp_path):
    rows = GOOD_ROWS + [GOOD_ROWS[0]]
    with pytest.raises(DataError, match=r"line 6.*duplicate model x item google x sqa-0001.*line 2"):
        load_collection(write_csv(tmp_path, rows))


def test_contract_missing_column_and_file(tmp_path):
    (tmp_path / "collection.csv").write_text("tier,model\nfrontier,google\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 1, field 'model_id'"):
        load_collection(tmp_path)
    with pytest.raises(FileNotFoundError, match="no collection found"):
        load_collection(tmp_path / "nowhere")


def test_contract_inconsistent_model_id(tmp_path):
    rows = GOOD_ROWS + ["frontier,google,gemini-9,sqa-0003,90,1,1,0,i0003-a0,string,first_party"]
    with pytest.raises(DataError, match="field 'model_id'"):
        load_collection(write_csv(tmp_path, rows))


# ---------------------------------------------------------------- raw layout


def test_raw_layout_maps_onto_contract():
    df, rep = load_collection(FIX / "good")
    assert rep.source == "raw"
    assert list(df.columns) == COLUMNS
    assert len(df) == 10  # 7 frontier + 3 local lines (blank line skipped)
    assert rep.total_parse_failures == 2
    # fields the mapping does not use are reported, never silently dropped
    assert rep.unmapped_fields["frontier_graded.jsonl"] == ["latency_ms", "raw_response"]
    assert rep.unmapped_fields["local_graded.jsonl"] == ["think_tokens"]
    d = df.set_index(["model", "item_id"])
    # answers are normalised: 'The Eiffel Tower' and 'Eiffel tower.' are one class
    assert d.loc[("google", "sqa-0001"), "answer_class"] == d.loc[("anthropic", "sqa-0001"), "answer_class"]
    assert d.loc[("anthropic", "sqa-0002"), "answer_class"] == "REFUSAL"
    assert d.loc[("qwen3:8b", "sqa-0001"), "answer_class"] == "eiffel tower"
    assert d.loc[("deepseek-r1:8b", "sqa-0001"), "served_by"] == "local"
    assert d.loc[("deepseek-r1:8b", "sqa-0001"), "model_id"] == "deepseek-r1:8b"
    assert d.loc[("moonshot", "sqa-0001"), "served_by"] == "aggregator"
    assert pd.isna(d.loc[("google", "sqa-0003"), "confidence"])


@pytest.mark.parametrize(
    "folder, line, field",
    [
        ("bad_confidence", 3, "confidence"),
        ("bad_correct", 2, "correct"),
        ("bad_json", 4, None),
        ("duplicate", 8, "item_id"),
    ],
)
def test_raw_malformed_lines(folder, line, field):
    with pytest.raises(DataError) as e:
        load_collection(FIX / folder)
    assert "frontier_graded.jsonl" in str(e.value)
    assert e.value.line == line and e.value.field == field
    assert f"line {line}" in str(e.value)


def test_raw_missing_tier_file(tmp_path):
    shutil.copy(FIX / "good" / "frontier_graded.jsonl", tmp_path)
    with pytest.raises(FileNotFoundError, match="local_graded.jsonl"):
        load_collection(tmp_path)


def test_benchmark_age_raw_and_errors(tmp_path):
    b = load_benchmark_age(FIX / "good")
    assert list(b.columns) == ["model", "item_id", "benchmark", "correct"]
    assert b["correct"].tolist() == [1, 0, 1]
    (tmp_path / "benchmark_age.csv").write_text(
        "model,item_id,benchmark,correct\nzhipu,tqa-0001,truthfulqa_mc,1\nzhipu,tqa-0002,truthfulqa_mc,maybe\n"
    )
    with pytest.raises(DataError, match=r"benchmark_age.csv, line 3, field 'correct'"):
        load_benchmark_age(tmp_path)


def test_normalise_answer():
    assert normalise_answer("  The Eiffel-Tower! ") == "eiffel tower"
    assert normalise_answer("An apple") == "apple"


# ---------------------------------------------------------------- the shipped files


@pytest.mark.skipif(not (SHIPPED / "collection.csv").is_file(), reason="reconstruction not generated")
def test_shipped_collection_contract():
    df, rep = load_collection(SHIPPED)
    assert len(df) == 16 * 1500
    assert rep.total_graded == 22248
    per = rep.per_model.set_index("model")
    assert per.loc[per["tier"] == "frontier", "graded"].sum() == 13446
    assert per.loc[per["tier"] == "local", "graded"].sum() == 8802
    assert per.loc["google", "graded"] == 1461
    assert per.loc["deepseek-r1:8b", "graded"] == 98
    assert per.loc[per["tier"] == "local", "graded"].max() == 1498
    ms = df[df["model"] == "moonshot"]["served_by"].value_counts()
    assert ms["first_party"] == 670 and ms["aggregator"] == 830
    b = load_benchmark_age(SHIPPED)
    assert set(b["model"]) == {"deepseek", "mistral", "zhipu"}
    assert set(b["benchmark"]) == {"truthfulqa_mc"}


# ---------------------------------------------------------------- the column-at-a-time path


def _row_by_row(path: Path) -> pd.DataFrame:
    """The row-by-row reading the loader falls back to (it names the first bad row)."""
    from selfconf.data import collection as c

    recs, lines = [], []
    for ln, row in c._read_csv_checked(path, COLUMNS):
        recs.append(c._check_row(row, path, ln))
        lines.append(ln)
    c._check_unique(recs, lines, path)
    return c._frame(recs)


EDGE_VALUES = ["", " ", "x", "1", " 1 ", "TRUE", "false", "0", "2", "85", "85.0", "85.5", "-1", "101", "nan", "llm"]


def test_column_path_agrees_with_row_path_on_every_single_cell_change(tmp_path):
    """Each cell of the small file replaced by each edge value: where the row-by-row reading accepts the
    file, the column-at-a-time path gives the same frame or declines (None); where it rejects, the column
    path declines, so the error always comes from the row-by-row reading."""
    from selfconf.data import collection as c

    accepted = declined = 0
    for r in range(len(GOOD_ROWS)):
        for j in range(len(COLUMNS)):
            for v in EDGE_VALUES:
                cells = GOOD_ROWS[r].split(",")
                cells[j] = v
                rows = list(GOOD_ROWS)
                rows[r] = ",".join(cells)
                path = write_csv(tmp_path, rows) / "collection.csv"
                fast = c._contract_columns(path)
                try:
                    slow = _row_by_row(path)
                except DataError:
                    assert fast is None, (r, COLUMNS[j], v)
                    declined += 1
                    continue
                if fast is not None:
                    pd.testing.assert_frame_equal(c._frame_from_columns(fast), slow)
                    accepted += 1
    assert accepted > 100 and declined > 100  # both branches were exercised


def test_column_path_declines_duplicates_and_ragged_rows(tmp_path):
    from selfconf.data import collection as c

    for rows in (GOOD_ROWS + [GOOD_ROWS[0]], GOOD_ROWS + [GOOD_ROWS[0] + ",extra"]):
        assert c._contract_columns(write_csv(tmp_path, rows) / "collection.csv") is None
    ids = GOOD_ROWS + ["frontier,google,other-id,sqa-0009,95,1,1,0,i0009-a0,string,first_party"]
    assert c._contract_columns(write_csv(tmp_path, ids) / "collection.csv") is None


@pytest.mark.skipif(not (SHIPPED / "collection.csv").is_file(), reason="reconstruction not generated")
def test_column_path_gives_the_row_path_frame_on_the_shipped_file():
    from selfconf.data import collection as c

    path = SHIPPED / "collection.csv"
    fast = c._contract_columns(path)
    assert fast is not None
    pd.testing.assert_frame_equal(c._frame_from_columns(fast), _row_by_row(path))
