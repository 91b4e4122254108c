"""Load and validate the row-level collection (reconstructed CSV or the original JSONL).

Two layouts are accepted in ``data_dir`` (see ``data/README.md`` and ``data/raw/README.md``):

* **contract** (the shipped reconstruction): ``collection.csv`` (one row per model x item,
  parse failures included) and ``benchmark_age.csv``;
* **raw** (the paper's replication package, if it is ever obtained): ``frontier_graded.jsonl``
  and ``local_graded.jsonl`` (one graded call per line) and ``benchmark_age.jsonl``.  The raw
  records are mapped onto the contract's columns; fields the mapping does not use are listed
  in :attr:`ExclusionReport.unmapped_fields`, never dropped silently.

Every malformed value raises :class:`DataError` naming the file, the line and the field.
Nothing is excluded silently: :class:`ExclusionReport` counts, per model, the rows whose
answer could not be parsed (they carry no confidence and no grade, and every analysis of
graded rows leaves them out).
"""

from __future__ import annotations

import csv
import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from selfconf.data import validate
from selfconf.data.answers import normalize
from selfconf.data.paths import resolve
from selfconf.data.validate import DataError

__all__ = [
    "COLUMNS",
    "BENCHMARK_AGE_COLUMNS",
    "TIERS",
    "DataError",
    "ExclusionReport",
    "load_collection",
    "load_collection_csv",
    "load_benchmark_age",
    "graded",
    "normalise_answer",
]

COLUMNS = [
    "tier",
    "model",
    "model_id",
    "item_id",
    "confidence",
    "parse_ok",
    "correct",
    "refusal",
    "answer_class",
    "graded_by",
    "served_by",
]
BENCHMARK_AGE_COLUMNS = ["model", "item_id", "benchmark", "correct"]
TIERS = ("frontier", "local")
GRADERS = ("string", "llm")
SERVED = ("first_party", "aggregator", "local")
RAW_FILES = {"frontier": "frontier_graded.jsonl", "local": "local_graded.jsonl"}
REFUSAL_CLASS = "REFUSAL"


@dataclass
class ExclusionReport:
    """What was excluded from the graded analysis set, counted per model.

    ``per_model`` has one row per model: ``tier``, ``rows`` (calls), ``parse_failures``,
    ``graded`` (= rows - parse failures) and ``refusals`` (kept: graded incorrect).
    ``unmapped_fields`` lists raw-layout fields the loader did not map (empty for the CSV).
    """

    source: str
    files: list[str]
    per_model: pd.DataFrame
    unmapped_fields: dict[str, list[str]] = field(default_factory=dict)

    @property
    def total_rows(self) -> int:
        return int(self.per_model["rows"].sum())

    @property
    def total_parse_failures(self) -> int:
        return int(self.per_model["parse_failures"].sum())

    @property
    def total_graded(self) -> int:
        return int(self.per_model["graded"].sum())

    def __str__(self) -> str:
        lines = [
            f"{self.source}: {self.total_rows:,} rows, {self.total_parse_failures:,} parse failures "
            f"excluded from grading, {self.total_graded:,} graded"
        ]
        for r in self.per_model.itertuples():
            if r.parse_failures:
                lines.append(f"  {r.model} ({r.tier}): {r.parse_failures:,} of {r.rows:,} unparsed")
        for f, names in self.unmapped_fields.items():
            lines.append(f"  {f}: unmapped fields {', '.join(names)}")
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------
# field parsers (the rules are selfconf.data.validate's; each raises DataError naming file, line and field)
# ----------------------------------------------------------------------------------------


def _binary(val: Any, path, line, name, allow_empty=False) -> int | None:
    return validate.at(path, line, name, validate.binary, val, allow_empty=allow_empty)


def _confidence(val: Any, path, line, name="confidence", allow_empty=False) -> int | None:
    return validate.at(path, line, name, validate.percent_integer, val, allow_empty=allow_empty)


def _choice(val: Any, allowed, path, line, name, allow_empty=False) -> str:
    return validate.at(path, line, name, validate.choice, val, allowed, allow_empty=allow_empty)


def _nonempty(val: Any, path, line, name) -> str:
    return validate.at(path, line, name, validate.nonempty, val)


def _check_row(rec: dict, path, line) -> dict:
    """Validate one contract row (strings or Python values); return typed values."""
    tier = _choice(rec.get("tier"), TIERS, path, line, "tier")
    model = _nonempty(rec.get("model"), path, line, "model")
    model_id = _nonempty(rec.get("model_id"), path, line, "model_id")
    item = _nonempty(rec.get("item_id"), path, line, "item_id")
    ok = _binary(rec.get("parse_ok"), path, line, "parse_ok")
    conf = _confidence(rec.get("confidence"), path, line, allow_empty=not ok)
    cor = _binary(rec.get("correct"), path, line, "correct", allow_empty=not ok)
    ref = _binary(rec.get("refusal"), path, line, "refusal")
    graded_by = _choice(rec.get("graded_by"), GRADERS, path, line, "graded_by", allow_empty=not ok)
    served = _choice(rec.get("served_by"), SERVED, path, line, "served_by")
    ans = "" if rec.get("answer_class") is None else str(rec.get("answer_class"))
    if not ok and (conf is not None or cor is not None):
        raise DataError(
            path,
            line,
            "confidence" if conf is not None else "correct",
            "a parse failure (parse_ok=0) must have no confidence and no grade",
        )
    if ok and ans == "":
        raise DataError(path, line, "answer_class", "a parsed answer needs an answer class")
    if ref and cor == 1:
        raise DataError(path, line, "correct", "a refusal cannot be graded correct")
    if (tier == "local") != (served == "local"):
        raise DataError(path, line, "served_by", f"served_by {served!r} does not fit tier {tier!r}")
    return {
        "tier": tier,
        "model": model,
        "model_id": model_id,
        "item_id": item,
        "confidence": conf,
        "parse_ok": ok,
        "correct": cor,
        "refusal": ref,
        "answer_class": ans,
        "graded_by": graded_by,
        "served_by": served,
    }


def _frame(recs: list[dict]) -> pd.DataFrame:
    return _frame_from_columns({c: [r[c] for r in recs] for c in COLUMNS})


def _frame_from_columns(cols: dict[str, list]) -> pd.DataFrame:
    """The typed frame of the contract columns (one list per column, typed values): the one construction
    both loader paths use, so their frames cannot differ in dtype."""
    df = pd.DataFrame({c: cols[c] for c in COLUMNS}, columns=COLUMNS)
    for c in ("confidence", "correct"):
        df[c] = pd.array(cols[c], dtype="Int64")
    for c in ("parse_ok", "refusal"):
        df[c] = df[c].astype("int8")
    for c in ("tier", "model", "model_id", "item_id", "answer_class", "graded_by", "served_by"):
        df[c] = df[c].astype(str)
    return df


def _check_unique(recs: list[dict], lines: list[int], path) -> None:
    seen = validate.SeenKeys()
    ids: dict[str, tuple[str, int]] = {}
    for r, ln in zip(recs, lines, strict=False):
        key = (r["model"], r["item_id"])
        first = seen.add(key, ln)
        if first is not None:
            raise DataError(
                path, ln, "item_id", f"duplicate model x item {key[0]} x {key[1]} (first seen on line {first})"
            )
        prev = ids.setdefault(r["model"], (r["model_id"], ln))
        if prev[0] != r["model_id"]:
            raise DataError(
                path,
                ln,
                "model_id",
                f"model {r['model']!r} has model_id {r['model_id']!r} here but {prev[0]!r} on line {prev[1]}",
            )


def _report(df: pd.DataFrame, source: str, files: list[str], unmapped=None) -> ExclusionReport:
    g = df.groupby(["tier", "model"], sort=False)
    per = pd.DataFrame(
        {
            "rows": g.size(),
            "parse_failures": g["parse_ok"].apply(lambda s: int((s == 0).sum())),
            "refusals": g["refusal"].sum().astype(int),
        }
    ).reset_index()
    per["graded"] = per["rows"] - per["parse_failures"]
    per = per[["tier", "model", "rows", "parse_failures", "graded", "refusals"]]
    return ExclusionReport(source, files, per, unmapped or {})


# ----------------------------------------------------------------------------------------
# contract layout (CSV)
# ----------------------------------------------------------------------------------------


def _read_csv_checked(path: Path, columns: list[str]):
    if not path.is_file():
        raise FileNotFoundError(f"{path}: file missing")
    with _open_text(path) as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise DataError(path, 1, None, "empty file (no header)") from None
        missing = validate.missing_columns(columns, header)
        if missing:
            raise DataError(path, 1, missing[0], f"required column missing (header has {', '.join(header)})")
        extra = [c for c in header if c not in columns]
        if extra:
            raise DataError(path, 1, extra[0], "unknown column")
        for ln, row in enumerate(reader, start=2):
            if len(row) != len(header):
                raise DataError(path, ln, None, f"expected {len(header)} fields, got {len(row)}")
            yield ln, dict(zip(header, row, strict=False))


def _open_text(path: Path):
    """``path`` opened for reading text, through gzip when it ends in ``.gz`` (a compressed copy, as in
    :mod:`selfconf.datasets`, reads alike)."""
    opener = gzip.open if path.suffix == ".gz" else open
    return opener(path, "rt", newline="", encoding="utf-8")


#: The columns the column path checks a distinct value at a time; every other rule is :func:`_check_row`'s,
#: applied once per distinct combination of the other columns.
_BY_VALUE = ("model", "model_id", "item_id")


def _contract_columns(path: Path) -> dict[str, list] | None:
    """The typed columns of a contract CSV, or None when anything is wrong (the caller then reads row by row).

    The checks are the row path's own: the identifier columns go through :func:`selfconf.data.validate.nonempty`
    once per distinct value, every other field and cross-field rule through :func:`_check_row` once per
    distinct combination of the other columns (the answer class only as empty or not, the one thing its rules
    read), and the keys through :func:`_check_unique`.  On any failure the caller reads the file again row by
    row, so an error names the same row and field whichever path found it.  ``tests/test_loader.py`` checks
    that both paths return the same frame.
    """
    with _open_text(path) as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None or sorted(header) != sorted(COLUMNS):
            return None
        rows = list(reader)
    if any(len(r) != len(header) for r in rows):
        return None
    cols: dict[str, list] = {c: [r[i] for r in rows] for i, c in enumerate(header)}
    for c in _BY_VALUE:
        typed: dict[str, str] = {}
        for v in set(cols[c]):
            try:
                typed[v] = validate.nonempty(v)
            except validate.FieldError:
                return None
        cols[c] = [typed[v] for v in cols[c]]
    rest = [c for c in COLUMNS if c not in _BY_VALUE and c != "answer_class"]
    checked: dict[tuple, dict] = {}
    recs = []
    for *vals, ans in zip(*(cols[c] for c in rest), cols["answer_class"], strict=True):
        key = (*vals, ans != "")
        if key not in checked:
            probe = dict(zip(rest, vals, strict=True), model="m", model_id="m", item_id="i", answer_class=ans)
            try:
                checked[key] = _check_row(probe, path, None)
            except DataError:
                return None
        recs.append(checked[key])
    for c in rest:
        cols[c] = [r[c] for r in recs]
    keys = [{"model": m, "model_id": mi, "item_id": i} for m, mi, i in zip(*(cols[c] for c in _BY_VALUE), strict=True)]
    try:
        _check_unique(keys, list(range(2, len(keys) + 2)), path)
    except DataError:
        return None
    return cols


def _load_contract(d: Path, path: Path | None = None) -> tuple[pd.DataFrame, ExclusionReport]:
    path = path or d / "collection.csv"
    if path.is_file():
        cols = _contract_columns(path)
        if cols is not None:
            df = _frame_from_columns(cols)
            return df, _report(df, "contract", [path.name])
    recs, lines = [], []
    for ln, row in _read_csv_checked(path, COLUMNS):
        recs.append(_check_row(row, path, ln))
        lines.append(ln)
    _check_unique(recs, lines, path)
    df = _frame(recs)
    return df, _report(df, "contract", [path.name])


# ----------------------------------------------------------------------------------------
# raw layout (JSONL of the replication package)
# ----------------------------------------------------------------------------------------

#: raw fields the mapping reads (others are reported as unmapped): the contract's columns except the tier (from
#: the file) and the answer class and grader (derived from ``answer``/``answer_norm`` and ``grade_method``)
RAW_FIELDS = (set(COLUMNS) - {"tier", "answer_class", "graded_by"}) | {"answer", "answer_norm", "grade_method"}

#: The answer class of a raw record without ``answer_norm``: the project's one normalisation
#: (:func:`selfconf.data.answers.normalize`, re-exported under this name).
normalise_answer = normalize


def _raw_record(obj: Any, tier: str, path: Path, line: int, unmapped: set[str]) -> dict:
    if not isinstance(obj, dict):
        raise DataError(path, line, None, f"expected a JSON object, got {type(obj).__name__}")
    unmapped.update(k for k in obj if k not in RAW_FIELDS)
    ok = _binary(obj.get("parse_ok"), path, line, "parse_ok")
    refusal = _binary(obj.get("refusal", False), path, line, "refusal")
    if not ok:
        ans = ""
    elif refusal:
        ans = REFUSAL_CLASS
    elif obj.get("answer_norm") not in (None, ""):
        ans = str(obj["answer_norm"])
    elif obj.get("answer") not in (None, ""):
        ans = normalise_answer(obj["answer"])
    else:
        raise DataError(path, line, "answer", "a parsed, non-refused answer needs 'answer' or 'answer_norm'")
    default_served = "local" if tier == "local" else "first_party"
    rec = {
        "tier": tier,
        "model": obj.get("model"),
        "model_id": obj.get("model_id") or obj.get("model"),
        "item_id": obj.get("item_id"),
        "confidence": obj.get("confidence") if ok else None,
        "parse_ok": ok,
        "correct": obj.get("correct") if ok else None,
        "refusal": refusal,
        "answer_class": ans,
        "graded_by": obj.get("grade_method") if ok else "",
        "served_by": obj.get("served_by") or default_served,
    }
    return _check_row(rec, path, line)


def _read_jsonl(path: Path):
    with path.open(encoding="utf-8") as fh:
        for ln, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                yield ln, json.loads(text)
            except json.JSONDecodeError as e:
                raise DataError(path, ln, None, f"invalid JSON ({e.msg} at column {e.colno})") from None


def _load_raw(d: Path) -> tuple[pd.DataFrame, ExclusionReport]:
    recs, lines, files, unmapped_all = [], [], [], {}
    for tier, name in RAW_FILES.items():
        path = d / name
        if not path.is_file():
            raise FileNotFoundError(f"{path}: file missing (raw layout needs {' and '.join(RAW_FILES.values())})")
        unmapped: set[str] = set()
        file_recs, file_lines = [], []
        for ln, obj in _read_jsonl(path):
            file_recs.append(_raw_record(obj, tier, path, ln, unmapped))
            file_lines.append(ln)
        _check_unique(file_recs, file_lines, path)
        recs += file_recs
        lines += file_lines
        files.append(name)
        if unmapped:
            unmapped_all[name] = sorted(unmapped)
    # a model may not appear in both tiers
    tiers: dict[str, Any] = {}
    for r in recs:
        if tiers.setdefault(r["model"], r["tier"]) != r["tier"]:
            raise DataError(d / RAW_FILES[r["tier"]], None, "model", f"model {r['model']!r} appears in both tiers")
    df = _frame(recs)
    return df, _report(df, "raw", files, unmapped_all)


def _layout(d: Path) -> str:
    if (d / "collection.csv").is_file():
        return "contract"
    if any((d / f).is_file() for f in RAW_FILES.values()):
        return "raw"
    raise FileNotFoundError(
        f"{d}: no collection found (expected collection.csv, or {' and '.join(RAW_FILES.values())})"
    )


def load_collection(data_dir: str | Path = "data/reconstructed") -> tuple[pd.DataFrame, ExclusionReport]:
    """Read and validate every model x item row of ``data_dir``; return the rows and the exclusions.

    Returns all rows (parse failures included, with empty ``confidence``/``correct``) in the
    contract's columns (``data/README.md``) and an :class:`ExclusionReport`.  Analyses of
    graded rows use :func:`graded` (``parse_ok == 1``).  Raises :class:`DataError` (file,
    line, field) on malformed values: confidence outside 0-100 or not an integer, non-binary
    flags, unknown tier/grader/route, duplicate model x item, inconsistent model_id.
    """
    d = resolve(data_dir)
    return _load_contract(d) if _layout(d) == "contract" else _load_raw(d)


def load_collection_csv(path: str | Path) -> tuple[pd.DataFrame, ExclusionReport]:
    """Read and validate one ``collection.csv`` in the contract layout (plain or ``.csv.gz``).

    Same checks and result as :func:`load_collection` on a folder holding the file; used by
    :func:`selfconf.datasets.load` for the compressed copy shipped inside the package.
    Example: ``rows, report = load_collection_csv("data/reconstructed/collection.csv")``.
    """
    p = Path(path)
    return _load_contract(p.parent, p)


def graded(df: pd.DataFrame) -> pd.DataFrame:
    """The graded rows (parse_ok == 1) with ``confidence`` and ``correct`` as plain ints."""
    g = df[df["parse_ok"] == 1].copy()
    g["confidence"] = g["confidence"].astype(np.int64)
    g["correct"] = g["correct"].astype(np.int64)
    return g


def load_benchmark_age(data_dir: str | Path = "data/reconstructed") -> pd.DataFrame:
    """Rows of the exploratory benchmark-age arm: ``model, item_id, benchmark, correct``.

    Reads ``benchmark_age.csv`` (contract) or ``benchmark_age.jsonl`` (raw).  The SimpleQA
    side of the comparison is the collection's own graded rows.
    """
    d = resolve(data_dir)
    recs = []
    csv_path, raw_path = d / "benchmark_age.csv", d / "benchmark_age.jsonl"
    if csv_path.is_file():
        path, it = csv_path, _read_csv_checked(csv_path, BENCHMARK_AGE_COLUMNS)
    elif raw_path.is_file():
        path, it = raw_path, _read_jsonl(raw_path)
    else:
        raise FileNotFoundError(f"{d}: benchmark-age arm missing (benchmark_age.csv or benchmark_age.jsonl)")
    seen = validate.SeenKeys()
    for ln, r in it:
        if not isinstance(r, dict):
            raise DataError(path, ln, None, "expected a JSON object")
        rec = {
            "model": _nonempty(r.get("model"), path, ln, "model"),
            "item_id": _nonempty(r.get("item_id"), path, ln, "item_id"),
            "benchmark": _nonempty(r.get("benchmark"), path, ln, "benchmark"),
            "correct": _binary(r.get("correct"), path, ln, "correct"),
        }
        first = seen.add((rec["model"], rec["benchmark"], rec["item_id"]), ln)
        if first is not None:
            raise DataError(path, ln, "item_id", f"duplicate model x benchmark x item (first on line {first})")
        recs.append(rec)
    df = pd.DataFrame.from_records(recs, columns=BENCHMARK_AGE_COLUMNS)
    df["correct"] = df["correct"].astype("int8")
    return df
