"""Loaders for the ladder, probe and arm families in either layout, and a writer of the raw layouts.

The families and their layouts are listed in :mod:`selfconf.data.sources` and documented field by field in
``data/raw/README.md``.  Every loader here returns the same frames whichever layout it reads (the frames
of :func:`selfconf.sections.ladder.load_scored_arms` / :func:`load_csv`, which the analysis
code expects), together with a :class:`LoadReport`.  The guarantees are those of the collection loader
(:mod:`selfconf.data`):

* a malformed value raises :class:`selfconf.data.DataError` naming the file, the line and the field
  (invalid JSON, a missing field, a wrong type, a value outside its range or vocabulary, a duplicate key);
* a field (JSONL) or column (CSV) the mapping does not use is listed in ``LoadReport.unmapped_fields``,
  and a file of the folder that no loader reads in ``LoadReport.unread_files``; nothing is dropped
  silently (blank JSONL lines are the only thing skipped).

:func:`export_raw` writes rows (normally the shipped reconstruction) into the raw layouts, so the raw
path can be tested end to end with rows whose numbers are known.

Example::

    src = selfconf.data.sources.resolve_families("data/raw", ["ladder"])
    frames, profiles, report = load_ladder(src.path("ladder"))
    print(report)            # rows per file, unmapped fields, files not read
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from selfconf.data import collection as data
from selfconf.data import validate
from selfconf.data.collection import _read_jsonl
from selfconf.data.paths import resolve
from selfconf.data.sources import FAMILIES, LAYOUTS, SUBJECTS, family_layout
from selfconf.data.validate import DataError

__all__ = [
    "LoadReport",
    "RAW_SCHEMAS",
    "CONTRACT_SCHEMAS",
    "load_csv",
    "LADDER_FIELDS",
    "load_ladder",
    "load_probes",
    "load_twostage",
    "load_regrade",
    "export_raw",
]

#: Ladder row fields: name -> JSON type.  ``confidence`` (integer 0-100 or null) and ``subject`` are
#: optional; any other field is reported as unmapped.
LADDER_FIELDS = {
    "item_id": str,
    "bin": str,
    "arm": str,
    "replicate": int,
    "is_trap": bool,
    "status": str,
    "abstained": bool,
    "correct": bool,
}
LADDER_ARMS = ("off", "placebo", "core", "shuffled")
_PROFILE_KEYS = ("bins", "core", "placebo", "shuffled")
_PROFILE_EXTRA = ("subject", "model", "note")  # read as labels, not numbers

#: Per probe/arm file (without extension): column -> kind, and the columns that must be unique together.
#: Kinds: ``str`` (non-empty text), ``pct`` (integer 0-100), ``bin`` (0/1, true/false), ``conf`` (stated
#: confidence, integer 0-100), ``bin?`` (0/1 or empty), ``{a|b|c}`` (one of the listed strings).
RAW_SCHEMAS: dict[str, dict[str, Any]] = {
    "probes/microprobe": {
        "columns": {
            "model": "str",
            "item_id": "str",
            "domain": "str",
            "claimed_accuracy_pct": "pct",
            "correct": "bin",
            "confidence": "conf",
        },
        "key": ("model", "item_id", "claimed_accuracy_pct"),
    },
    "probes/topic_heldout": {
        "columns": {"model": "str", "bin": "str", "item_id": "str", "correct": "bin"},
        "key": ("model", "item_id"),
    },
    "probes/topic_probes": {
        "columns": {
            "model": "str",
            "probe_id": "str",
            "bin": "str",
            "arm": "{true|false}",
            "claimed_pct": "pct",
            "correct": "bin",
            "confidence": "conf",
        },
        "key": ("model", "probe_id", "arm"),
    },
    "arms/twostage": {
        "columns": {
            "model": "str",
            "item_id": "str",
            "format": "{inline|posthoc}",
            "label": "{correct|incorrect|unresolved}",
            "confidence": "conf",
        },
        "key": ("model", "item_id", "format"),
    },
    "arms/regrade": {
        "columns": {
            "model": "str",
            "item_id": "str",
            "grade_route": "{string|refusal|llm_self}",
            "canonical_correct": "bin",
            "cross_family_correct": "bin?",
        },
        "key": ("model", "item_id"),
    },
}


@dataclass
class LoadReport:
    """What a family loader read: ``rows`` per file, ``unmapped_fields`` per file, ``unread_files``."""

    family: str
    layout: str
    path: str
    rows: dict[str, int] = field(default_factory=dict)
    unmapped_fields: dict[str, list[str]] = field(default_factory=dict)
    unread_files: list[str] = field(default_factory=list)

    @property
    def total_rows(self) -> int:
        return int(sum(self.rows.values()))

    def __str__(self) -> str:
        lines = [
            f"{self.family} ({self.layout} layout, {self.path}): {self.total_rows:,} rows in {len(self.rows)} files"
        ]
        for f, names in self.unmapped_fields.items():
            lines.append(f"  {f}: unmapped fields {', '.join(names)}")
        if self.unread_files:
            lines.append(f"  files not read: {', '.join(self.unread_files)}")
        return "\n".join(lines)


def _unread(d: Path, family: str, sub: str) -> list[str]:
    """Files under ``d/sub`` that no layout of ``family`` names (documentation and fidelity notes aside)."""
    known = {f for files in LAYOUTS[family].values() for f in files}
    base = d / sub
    if not base.is_dir():
        return []
    return sorted(
        p.relative_to(d).as_posix()
        for p in base.rglob("*")
        if p.is_file()
        and p.relative_to(d).as_posix() not in known
        and p.name != "README.md"
        and not p.name.startswith("fidelity")
    )


# ------------------------------------------------------------------------------------ ladder
def _ladder_rows(path: Path, subject: str, unmapped: set[str]) -> pd.DataFrame:
    recs, seen = [], validate.SeenKeys()
    for ln, r in _read_jsonl(path):
        if not isinstance(r, dict):
            raise DataError(path, ln, None, f"expected a JSON object, got {type(r).__name__}")
        unmapped.update(k for k in r if k not in LADDER_FIELDS and k not in ("confidence", "subject"))
        for f, t in LADDER_FIELDS.items():
            if f not in r:
                raise DataError(path, ln, f, "field missing")
            v = r[f]
            if t is bool and not isinstance(v, bool):
                raise DataError(path, ln, f, f"expected true/false, got {v!r}")
            if t is int and (isinstance(v, bool) or not isinstance(v, int)):
                raise DataError(path, ln, f, f"expected an integer, got {v!r}")
            if t is str and (not isinstance(v, str) or not v.strip()):
                raise DataError(path, ln, f, f"expected a non-empty string, got {v!r}")
        if "subject" in r and r["subject"] != subject:
            raise DataError(path, ln, "subject", f"row of subject {r['subject']!r} in the file of {subject!r}")
        if r["arm"] not in LADDER_ARMS:
            raise DataError(path, ln, "arm", f"unknown arm {r['arm']!r} (expected one of {', '.join(LADDER_ARMS)})")
        answered = r["status"] == "ok" and not r["abstained"]
        c = r.get("confidence")
        if answered:
            if c is None:
                raise DataError(path, ln, "confidence", "missing on an answered row (status ok, not abstained)")
            c = validate.at(path, ln, "confidence", validate.percent_integer, c)
        elif c is not None:
            raise DataError(path, ln, "confidence", "must be null on an abstained or failed row")
        if r["correct"] and not answered and not (r["is_trap"] and r["abstained"]):
            raise DataError(path, ln, "correct", "a failed or abstained row is correct only on a trap item")
        key = (r["item_id"], r["arm"], r["replicate"])
        first = seen.add(key, ln)
        if first is not None:
            raise DataError(path, ln, "item_id", f"duplicate item x arm x replicate {key} (first on line {first})")
        recs.append({**{f: r[f] for f in LADDER_FIELDS}, "confidence": np.nan if c is None else float(c)})
    if not recs:
        raise DataError(path, None, None, "no rows")
    df = pd.DataFrame.from_records(recs)
    df["subject"] = subject
    return df


def _profiles(path: Path, unmapped: set[str]) -> pd.DataFrame:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise DataError(path, e.lineno, None, f"invalid JSON ({e.msg})") from None
    if not isinstance(doc, dict):
        raise DataError(path, 1, None, "expected a JSON object")
    unmapped.update(k for k in doc if k not in _PROFILE_KEYS and k not in _PROFILE_EXTRA)
    for key in _PROFILE_KEYS:
        if not isinstance(doc.get(key), list):
            raise DataError(path, None, key, "missing (expected a list with one value per bin)")
        if len(doc[key]) != len(doc["bins"]):
            raise DataError(path, None, key, f"{len(doc[key])} values for {len(doc['bins'])} bins")
    for key in _PROFILE_KEYS[1:]:
        for i, v in enumerate(doc[key]):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
                raise DataError(path, None, f"{key}[{i}]", f"{v!r} is not an accuracy in [0, 1]")
    return pd.DataFrame({k: doc[k] for k in ("bins", "core", "placebo", "shuffled")}).rename(columns={"bins": "bin"})


def load_ladder(path: str | os.PathLike) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame], LoadReport]:
    """Read the ladder package under ``path/ladder/``: scored rows and injected profiles of every subject.

    Returns ``(frames, profiles, report)``: ``frames[subject]`` has the columns of
    :func:`selfconf.sections.ladder.load_scored_arms` (``item_id, bin, arm, replicate, is_trap, status, abstained,
    correct, confidence, subject``; confidence a float, NaN when not answered), ``profiles[subject]`` those
    of :func:`selfconf.sections.ladder.load_profiles` (``bin, core, placebo, shuffled``).  Besides that loader's
    checks: a row's optional ``subject`` must be its file's, item x arm x replicate is unique, a failed or
    abstained row is correct only on a trap item.  Other files of the package (protocol, battery, analysis
    JSON) are listed in ``report.unread_files``.  Reference: the frozen bundle of the paper's Result 2.

    Example: ``frames, profiles, rep = load_ladder("data/reconstructed")``; ``len(frames) == 4``.
    """
    d = resolve(path)
    layout = family_layout(d, "ladder")
    if layout is None:
        raise FileNotFoundError(
            f"{d}: ladder package missing (ladder/scored-arms-<subject>.jsonl, "
            f"ladder/profiles-<subject>.json for {', '.join(SUBJECTS)})"
        )
    rep = LoadReport("ladder", layout, str(d))
    frames: dict[str, Any] = {}
    profiles: dict[str, Any] = {}
    for s in SUBJECTS:
        for name, reader, out in (
            (f"ladder/scored-arms-{s}.jsonl", lambda p, u, s=s: _ladder_rows(p, s, u), frames),
            (f"ladder/profiles-{s}.json", _profiles, profiles),
        ):
            unmapped: set[str] = set()
            out[s] = reader(d / name, unmapped)
            rep.rows[name] = len(out[s])
            if unmapped:
                rep.unmapped_fields[name] = sorted(unmapped)
    rep.unread_files = _unread(d, "ladder", "ladder")
    return frames, profiles, rep


# ------------------------------------------------------------------------------------ probes and arms
def _value(v: Any, kind: str, path: Path, line: int, name: str):
    if kind == "str":
        if not isinstance(v, str) or not v.strip():
            raise DataError(path, line, name, f"expected a non-empty string, got {v!r}")
        return v
    if kind.startswith("{"):
        allowed = kind[1:-1].split("|")
        if v not in allowed:
            raise DataError(path, line, name, f"unknown value {v!r} (expected one of {', '.join(allowed)})")
        return v
    if kind == "bin?" and v is None:
        return np.nan
    if kind in ("bin", "bin?"):
        return validate.at(path, line, name, validate.binary, v)
    if kind in ("pct", "conf"):
        return validate.at(path, line, name, validate.percent_integer, v)
    raise ValueError(f"unknown kind {kind!r}")  # a programming error in RAW_SCHEMAS


def _check_table(df: pd.DataFrame, stem: str, path: Path, lines: list[int]) -> None:
    key = list(RAW_SCHEMAS[stem]["key"])
    dup = df.duplicated(key, keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero((df[key] == df.iloc[i][key]).all(axis=1).to_numpy())[0])
        raise DataError(
            path,
            lines[i],
            key[-1],
            f"duplicate {' x '.join(key)} {tuple(df.iloc[i][key])} (first on line {lines[first]})",
        )
    if "grade_route" in df:
        self_graded = (df["grade_route"] == "llm_self").to_numpy()
        has = df["cross_family_correct"].notna().to_numpy()
        bad = np.flatnonzero(self_graded != has)
        if len(bad):
            i = int(bad[0])
            msg = (
                "missing on a self-graded (llm_self) row"
                if self_graded[i]
                else "only self-graded (llm_self) rows carry a cross-family grade"
            )
            raise DataError(path, lines[i], "cross_family_correct", msg)


def _read_raw_table(path: Path, stem: str, unmapped: set[str]) -> pd.DataFrame:
    cols = RAW_SCHEMAS[stem]["columns"]
    recs, lines = [], []
    for ln, r in _read_jsonl(path):
        if not isinstance(r, dict):
            raise DataError(path, ln, None, f"expected a JSON object, got {type(r).__name__}")
        unmapped.update(k for k in r if k not in cols)
        rec = {}
        for name, kind in cols.items():
            if name not in r and kind != "bin?":
                raise DataError(path, ln, name, "field missing")
            rec[name] = _value(r.get(name), kind, path, ln, name)
        recs.append(rec)
        lines.append(ln)
    if not recs:
        raise DataError(path, None, None, "no rows")
    df = pd.DataFrame.from_records(recs, columns=list(cols))
    for name, kind in cols.items():
        if kind in ("bin", "pct", "conf"):
            df[name] = df[name].astype(np.int64)
        elif kind == "bin?":
            df[name] = df[name].astype(np.float64)
        else:
            df[name] = df[name].astype(str)
    _check_table(df, stem, path, lines)
    return df


#: The contract layout's probe and arm files: column -> kind (str, int, bin, bin? = 0/1 or empty, conf = 0-100).
CONTRACT_SCHEMAS: dict[str, dict[str, str]] = {
    "probes/microprobe.csv": {
        "model": "str",
        "item_id": "str",
        "domain": "str",
        "claimed_accuracy_pct": "int",
        "correct": "bin",
        "confidence": "conf",
    },
    "probes/topic_heldout.csv": {"model": "str", "bin": "str", "item_id": "str", "correct": "bin"},
    "probes/topic_probes.csv": {
        "model": "str",
        "probe_id": "str",
        "bin": "str",
        "arm": "str",
        "claimed_pct": "int",
        "correct": "bin",
        "confidence": "conf",
    },
    "arms/twostage.csv": {"model": "str", "item_id": "str", "format": "str", "label": "str", "confidence": "conf"},
    "arms/regrade.csv": {
        "model": "str",
        "item_id": "str",
        "grade_route": "str",
        "canonical_correct": "bin",
        "cross_family_correct": "bin?",
    },
}


def load_csv(data_dir: str | Path, name: str) -> pd.DataFrame:
    """Read and validate one of the probe/arm files in the contract layout (CSV); errors name the file, row and field.

    ``name`` is a key of :data:`CONTRACT_SCHEMAS` (e.g. ``"probes/microprobe.csv"``); integer fields are parsed,
    ``bin`` fields must be 0/1 (``bin?`` may be empty, read as NaN) and ``conf`` fields lie in 0-100.

    Example: ``load_csv("data/reconstructed", "arms/regrade.csv")``.
    """
    path = resolve(data_dir) / name
    if not path.is_file():
        raise FileNotFoundError(f"{path}: file missing")
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    schema = CONTRACT_SCHEMAS[name]
    missing = [c for c in schema if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: column {missing[0]!r} missing")
    out = pd.DataFrame(index=df.index)
    for col, kind in schema.items():
        vals = df[col]
        if kind == "str":
            out[col] = vals
            continue
        parsed = []
        for i, v in enumerate(vals):
            where = f"{path}: row {i + 2}, field {col!r}"
            if v == "" and kind == "bin?":
                parsed.append(np.nan)
                continue
            try:
                x = int(v)
            except ValueError:
                raise ValueError(f"{where}: {v!r} is not an integer") from None
            if kind in ("bin", "bin?") and x not in (0, 1):
                raise ValueError(f"{where}: {x} is not 0/1")
            if kind == "conf" and not 0 <= x <= 100:
                raise ValueError(f"{where}: confidence {x} outside 0-100")
            parsed.append(x)
        out[col] = parsed
    return out


def _read_contract_table(d: Path, stem: str, unmapped: set[str]) -> pd.DataFrame:
    path = d / f"{stem}.csv"
    df = load_csv(d, f"{stem}.csv")
    header = pd.read_csv(path, nrows=0).columns
    unmapped.update(c for c in header if c not in RAW_SCHEMAS[stem]["columns"])
    _check_table(df, stem, path, list(range(2, len(df) + 2)))
    return df


def _load_tables(path: str | os.PathLike, family: str) -> tuple[dict[str, pd.DataFrame], LoadReport]:
    d = resolve(path)
    layout = family_layout(d, family)
    if layout is None:
        raise FileNotFoundError(
            f"{d}: the {family} family is missing "
            f"({', '.join(LAYOUTS[family]['raw'])} or {', '.join(LAYOUTS[family]['contract'])})"
        )
    rep = LoadReport(family, layout, str(d))
    out = {}
    for name in LAYOUTS[family][layout]:
        stem = name.rsplit(".", 1)[0]
        unmapped: set[str] = set()
        df = _read_raw_table(d / name, stem, unmapped) if layout == "raw" else _read_contract_table(d, stem, unmapped)
        out[stem.split("/")[1]] = df
        rep.rows[name] = len(df)
        if unmapped:
            rep.unmapped_fields[name] = sorted(unmapped)
    rep.unread_files = _unread(d, family, LAYOUTS[family][layout][0].split("/")[0]) if family == "probes" else []
    return out, rep


def load_probes(path: str | os.PathLike) -> tuple[dict[str, pd.DataFrame], LoadReport]:
    """Read the manipulation probes under ``path/probes/``: ``{"microprobe", "topic_heldout", "topic_probes"}``.

    Either layout (``.jsonl`` raw or ``.csv`` contract; columns in :data:`RAW_SCHEMAS`); the frames equal
    :func:`load_csv`'s.  Keys must be unique (microprobe: model x item x claimed
    accuracy; held-out: model x item; probes: model x probe x arm).  Reference: the paper's Result 3
    (Table 4 and the topic-labelled pass).  Example: ``t, rep = load_probes("data/reconstructed")``;
    ``len(t["microprobe"]) == 10``."""
    return _load_tables(path, "probes")


def load_twostage(path: str | os.PathLike) -> tuple[pd.DataFrame, LoadReport]:
    """Read the two-stage elicitation arm ``path/arms/twostage.{jsonl,csv}``: one row per model x item x format.

    ``format`` is ``inline`` or ``posthoc``, ``label`` ``correct`` / ``incorrect`` / ``unresolved``.
    Reference: the paper's Limitations (elicitation format).  Example:
    ``ts, rep = load_twostage("data/reconstructed")``; ``set(ts["format"]) == {"inline", "posthoc"}``."""
    t, rep = _load_tables(path, "twostage")
    return t["twostage"], rep


def load_regrade(path: str | os.PathLike) -> tuple[pd.DataFrame, LoadReport]:
    """Read the cross-family regrade ``path/arms/regrade.{jsonl,csv}``: the grader model's graded rows.

    ``cross_family_correct`` is present exactly on the ``llm_self`` rows (NaN elsewhere).  Reference: the
    paper's Limitations (grader).  Example: ``rg, rep = load_regrade("data/reconstructed")``;
    ``rg["cross_family_correct"].notna().sum() == (rg["grade_route"] == "llm_self").sum()``."""
    t, rep = _load_tables(path, "regrade")
    return t["regrade"], rep


# ------------------------------------------------------------------------------------ writer
def _jsonl(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")


def _py(v: Any, kind: str) -> Any:
    if kind == "bin?":
        return None if pd.isna(v) else bool(v)
    if kind == "bin":
        return bool(v)
    if kind in ("pct", "conf"):
        return int(v)
    return str(v)


def export_raw(
    src_dir: str | os.PathLike, out_dir: str | os.PathLike, families: tuple[str, ...] | list[str] = FAMILIES
) -> list[Path]:
    """Write the rows of ``src_dir`` (any layout) into ``out_dir`` in the raw layouts of ``families``.

    Collection: ``frontier_graded.jsonl`` / ``local_graded.jsonl`` with the contract's answer class as
    ``answer_norm`` and ``graded_by`` as ``grade_method``; benchmark age, probes and arms: one JSON object
    per row with the contract's names (flags as true/false); the ladder package is copied as it is (its
    layout is the package's).  Fidelity files are not written: ``out_dir`` is read as an original package.
    Returns the files written.  Example: ``export_raw("data/reconstructed", "scratch/raw", ["collection"])``.
    """
    src, out = resolve(src_dir), resolve(out_dir)
    written: list[Path] = []
    for fam in dict.fromkeys(families):
        if fam == "collection":
            rows, _ = data.load_collection(src)
            for tier, name in data.RAW_FILES.items():
                t = rows[rows["tier"] == tier]
                recs = [
                    {
                        "model": r.model,
                        "model_id": r.model_id,
                        "item_id": r.item_id,
                        "parse_ok": bool(r.parse_ok),
                        "confidence": None if pd.isna(r.confidence) else int(r.confidence),
                        "correct": None if pd.isna(r.correct) else bool(r.correct),
                        "refusal": bool(r.refusal),
                        "answer_norm": r.answer_class if r.parse_ok and not r.refusal else None,
                        "grade_method": r.graded_by or None,
                        "served_by": r.served_by,
                    }
                    for r in t.itertuples(index=False)
                ]
                _jsonl(out / name, recs)
                written.append(out / name)
        elif fam == "benchmark_age":
            b = data.load_benchmark_age(src)
            _jsonl(
                out / "benchmark_age.jsonl",
                (
                    {"model": r.model, "item_id": r.item_id, "benchmark": r.benchmark, "correct": bool(r.correct)}
                    for r in b.itertuples(index=False)
                ),
            )
            written.append(out / "benchmark_age.jsonl")
        elif fam == "ladder":
            if family_layout(src, "ladder") is None:
                raise FileNotFoundError(f"{src}: no ladder package to export")
            for name in LAYOUTS["ladder"]["package"]:
                (out / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src / name, out / name)
                written.append(out / name)
        elif fam in ("probes", "twostage", "regrade"):
            tables, _ = _load_tables(src, fam)
            for name in LAYOUTS[fam]["raw"]:
                stem = name.rsplit(".", 1)[0]
                cols = RAW_SCHEMAS[stem]["columns"]
                df = tables[stem.split("/")[1]]
                _jsonl(
                    out / name,
                    (
                        {c: _py(v, cols[c]) for c, v in zip(cols, row, strict=False)}
                        for row in df[list(cols)].itertuples(index=False)
                    ),
                )
                written.append(out / name)
        else:
            raise ValueError(f"unknown data family {fam!r} (known: {', '.join(FAMILIES)})")
    return written
