"""``selfconf report``: the paper's Table 1 (and Table 2 risk–coverage) for your own graded rows.

Input: one or more CSV or JSONL files, one graded answer per row, with columns

==============  ==========================================================================
``model``       model name (non-empty)
``item_id``     question id; ``(model, item_id)`` must be unique across all inputs
``confidence``  stated confidence, 0–100 (``--confidence-scale percent``, default) or 0–1
                (``unit``); empty/null means *missing* (row excluded and counted)
``correct``     1/0 (also true/false); empty/null means *ungraded* (row excluded and counted)
``refusal``     optional 1/0
``answer``      optional, carried along
``gold``        optional, carried along
==============  ==========================================================================

A value that is present but invalid (confidence outside the chosen scale or not a number,
``correct`` not binary, empty model or item id, duplicate row) stops the report with an error
naming the file, line and value: nothing is silently dropped or clipped.

Statistics come from :func:`selfconf.summary.table1` (the same function the book uses for the
paper's Table 1), which delegates each formula to :mod:`selfconf.metrics`; this module only reads,
validates, and formats.  Outputs: a terminal table in the paper's units (accuracy, confidence and
error rates in percent, CITL in percentage points, Brier/ECE/AUROC on 0–1), ``--json`` (all
proportions on 0–1) and ``--html FILE`` (self-contained offline page, :mod:`selfconf.htmlreport`).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:  # heavy imports (pandas, scipy via metrics) wait until a report is computed,
    import pandas as pd  # so that `selfconf collect --help` and friends start fast

__all__ = [
    "JSON_MODEL_KEYS",
    "COVERAGES",
    "LoadedRows",
    "load_rows",
    "prepare_frame",
    "compute_report",
    "report_json",
    "format_table",
    "add_parser",
    "run",
]

#: Keys of every object in the ``models`` list of ``--json`` output, in order.
JSON_MODEL_KEYS = (
    "model", "n", "accuracy", "mean_confidence", "median_confidence", "citl", "brier", "ece",
    "auroc", "auroc_ci_low", "auroc_ci_high", "high_conf_error_rate", "risk_coverage",
)
#: Coverages of the risk–coverage columns (the paper's Table 2).
COVERAGES = (1.0, 0.8, 0.6, 0.4, 0.2)
#: High-confidence threshold on the 0–1 scale (the paper's "stated confidence >= 80").
HIGH_CONF = 0.8
REQUIRED = ("model", "item_id", "confidence", "correct")
_JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
_TRUE = {"1", "1.0", "true", "t", "yes", "y"}
_FALSE = {"0", "0.0", "false", "f", "no", "n"}


@dataclass
class LoadedRows:
    """Validated rows plus what was excluded, per model."""

    frame: pd.DataFrame  # model, item_id, confidence (0-1), correct (0/1), refusal, answer, gold, source
    rows_read: int
    missing_confidence: dict[str, int] = field(default_factory=dict)
    missing_correct: dict[str, int] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    scale: str = "percent"

    @property
    def n_excluded(self) -> int:
        return sum(self.missing_confidence.values()) + sum(self.missing_correct.values())


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    return isinstance(v, str) and v.strip().lower() in ("", "nan", "null", "none", "na")


def _binary(v: Any, where: str, name: str) -> int:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)) and v in (0, 1):
        return int(v)
    s = str(v).strip().lower()
    if s in _TRUE:
        return 1
    if s in _FALSE:
        return 0
    raise ValueError(f"{where}: field '{name}' must be 0/1 (or true/false), got {v!r}")


def _number(v: Any, where: str, name: str) -> float:
    if isinstance(v, bool):
        raise ValueError(f"{where}: field '{name}' must be a number, got {v!r}")
    try:
        x = float(str(v).strip().rstrip("%")) if isinstance(v, str) else float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: field '{name}' must be a number, got {v!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{where}: field '{name}' must be finite, got {v!r}")
    return x


def _iter_file(path: Path):
    """Yield ``(line_number, dict)`` for each data row of a CSV or JSONL file."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: file not found")
    if path.suffix.lower() in _JSON_SUFFIXES:
        with open(path, encoding="utf-8") as fh:
            for no, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except ValueError as exc:
                    raise ValueError(f"{path}: line {no}: not valid JSON ({exc})") from None
                if not isinstance(rec, dict):
                    raise ValueError(f"{path}: line {no}: expected a JSON object, got {type(rec).__name__}")
                yield no, rec
    elif path.suffix.lower() in (".csv", ".tsv"):
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
            cols = reader.fieldnames or []
            missing = [c for c in REQUIRED if c not in cols]
            if missing:
                hint = " (run `selfconf grade` first)" if missing == ["correct"] else ""
                raise ValueError(f"{path}: missing column(s) {', '.join(missing)} (has: {', '.join(cols) or 'none'}){hint}")
            for rec in reader:
                yield reader.line_num, rec
    else:
        raise ValueError(f"{path}: unknown file type {path.suffix!r}; use .csv or .jsonl")


def load_rows(paths: Sequence[str | Path], *, scale: str = "percent") -> LoadedRows:
    """Read and validate graded rows from CSV/JSONL files (rules in the module docstring).

    ``scale`` is ``"percent"`` (confidence 0–100) or ``"unit"`` (0–1); confidences are converted
    to 0–1 (:func:`selfconf.metrics.from_percent` for percent).  Rows with a missing confidence or
    a missing ``correct`` are left out of ``frame`` and counted per model.
    """
    import pandas as pd

    from . import metrics

    if scale not in ("percent", "unit"):
        raise ValueError(f"--confidence-scale must be 'percent' or 'unit', got {scale!r}")
    if not paths:
        raise ValueError("no input files given")
    hi = 100.0 if scale == "percent" else 1.0
    recs: list[dict] = []
    seen: dict[tuple[str, str], str] = {}
    miss_conf: dict[str, int] = {}
    miss_corr: dict[str, int] = {}
    n_read = 0
    for p in map(Path, paths):
        for no, r in _iter_file(p):
            n_read += 1
            where = f"{p}: line {no}"
            for col in REQUIRED:
                if col not in r:
                    hint = " (ungraded `selfconf collect` output? run `selfconf grade` first)" if col == "correct" else ""
                    raise ValueError(f"{where}: missing field '{col}'{hint}")
            if _is_missing(r["model"]) or not str(r["model"]).strip():
                raise ValueError(f"{where}: field 'model' is empty")
            if _is_missing(r["item_id"]) or not str(r["item_id"]).strip():
                raise ValueError(f"{where}: field 'item_id' is empty")
            model, item = str(r["model"]).strip(), str(r["item_id"]).strip()
            key = (model, item)
            if key in seen:
                raise ValueError(f"{where}: duplicate row for model {model!r}, item_id {item!r} (first at {seen[key]})")
            seen[key] = where
            if _is_missing(r["confidence"]):
                miss_conf[model] = miss_conf.get(model, 0) + 1
                continue
            c = _number(r["confidence"], where, "confidence")
            if not (0.0 <= c <= hi):
                hint = " (0-100 values? use --confidence-scale percent)" if scale == "unit" and c <= 100 else ""
                raise ValueError(
                    f"{where}: field 'confidence' = {r['confidence']!r} is outside the {scale} scale [0, {hi:g}]{hint}"
                )
            if _is_missing(r["correct"]):
                miss_corr[model] = miss_corr.get(model, 0) + 1
                continue
            y = _binary(r["correct"], where, "correct")
            ref = None if _is_missing(r.get("refusal")) else _binary(r.get("refusal"), where, "refusal")
            recs.append(
                {
                    "model": model,
                    "item_id": item,
                    "confidence_raw": c,
                    "correct": y,
                    "refusal": ref,
                    "answer": r.get("answer"),
                    "gold": r.get("gold"),
                    "source": where,
                }
            )
    df = pd.DataFrame(recs, columns=["model", "item_id", "confidence_raw", "correct", "refusal", "answer", "gold", "source"])
    raw = df["confidence_raw"].to_numpy(dtype=float)
    df["confidence"] = metrics.from_percent(raw) if (scale == "percent" and raw.size) else raw
    return LoadedRows(df, n_read, miss_conf, miss_corr, [str(p) for p in paths], scale)


def prepare_frame(df: pd.DataFrame, *, scale: str = "unit", source: str = "frame") -> LoadedRows:
    """Validate an in-memory frame (columns model, item_id, confidence, correct) like :func:`load_rows`.

    For notebooks that build rows in Python (e.g. the external replication chapter): the same
    exclusion counting and range checks as the command line, without writing a file first.
    NaN confidences and NaN ``correct`` are excluded and counted.
    """
    import numpy as np
    import pandas as pd

    from . import metrics

    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise ValueError(f"{source}: missing column(s) {', '.join(missing)}")
    hi = 100.0 if scale == "percent" else 1.0
    conf = pd.to_numeric(df["confidence"], errors="coerce")
    bad = df["confidence"].notna() & conf.isna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"{source}: row {i}: field 'confidence' is not a number: {df['confidence'].iloc[i]!r}")
    oor = conf.notna() & ((conf < 0) | (conf > hi))
    if oor.any():
        i = int(np.flatnonzero(oor.to_numpy())[0])
        raise ValueError(f"{source}: row {i}: field 'confidence' = {conf.iloc[i]!r} is outside the {scale} scale [0, {hi:g}]")
    dup = df.duplicated(["model", "item_id"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise ValueError(f"{source}: row {i}: duplicate (model, item_id) = ({df['model'].iloc[i]!r}, {df['item_id'].iloc[i]!r})")
    no_conf = conf.isna()
    no_corr = ~no_conf & pd.to_numeric(df["correct"], errors="coerce").isna()
    keep = df[~no_conf & ~no_corr].copy()
    keep["confidence_raw"] = conf[~no_conf & ~no_corr]
    keep["confidence"] = metrics.from_percent(keep["confidence_raw"].to_numpy(float)) if scale == "percent" else keep["confidence_raw"].astype(float)
    keep["correct"] = pd.to_numeric(keep["correct"]).astype(int)
    bad = ~keep["correct"].isin([0, 1])
    if bad.any():
        raise ValueError(f"{source}: field 'correct' must be 0/1; got {keep['correct'][bad].iloc[0]!r}")
    count = lambda mask: {str(k): int(v) for k, v in df.loc[mask, "model"].value_counts(sort=False).items() if v}  # noqa: E731
    return LoadedRows(keep.reset_index(drop=True), len(df), count(no_conf), count(no_corr), [source], scale)


def compute_report(rows: LoadedRows, *, seed: int = 0, n_boot: int = 2000) -> pd.DataFrame:
    """Per-model Table 1 statistics (0–1 scale) from validated rows via :func:`selfconf.summary.table1`.

    Adds the exclusion counts per model (``excluded_missing_confidence``,
    ``excluded_missing_correct``).  Models whose every row was excluded appear with ``n = 0``
    and NaN statistics, so they are still visible.
    """
    import numpy as np
    import pandas as pd

    from .summary import table1

    if rows.frame.empty:
        raise ValueError(
            "no usable rows: every row lacks a confidence or a grade "
            f"({sum(rows.missing_confidence.values())} without confidence, {sum(rows.missing_correct.values())} ungraded)"
        )
    tab = table1(rows.frame[["model", "confidence", "correct"]], rng=int(seed), n_boot=n_boot, threshold=HIGH_CONF, coverages=COVERAGES)
    empty = [m for m in list(rows.missing_confidence) + list(rows.missing_correct) if m not in set(tab["model"])]
    for m in dict.fromkeys(empty):
        blank = {c: np.nan for c in tab.columns}
        blank.update(model=m, n=0, high_conf_n=0, high_conf_wrong=0, risk_coverage={c: np.nan for c in COVERAGES})
        tab = pd.concat([tab, pd.DataFrame([blank])], ignore_index=True)
    tab["excluded_missing_confidence"] = [rows.missing_confidence.get(m, 0) for m in tab["model"]]
    tab["excluded_missing_correct"] = [rows.missing_correct.get(m, 0) for m in tab["model"]]
    tab["n"] = tab["n"].astype(int)
    return tab


def _f(x: Any) -> float | None:
    """JSON-safe float: NaN -> None."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def coverage_key(c: float) -> str:
    """JSON key of a coverage: ``"1.0"``, ``"0.8"``, ... (0–1 scale)."""
    return repr(float(c))


def report_json(tab: pd.DataFrame, rows: LoadedRows, *, seed: int, n_boot: int) -> dict:
    """The ``--json`` document.  ``models`` objects have exactly :data:`JSON_MODEL_KEYS`."""
    models = []
    for _, r in tab.iterrows():
        obj = {
            "model": str(r["model"]),
            "n": int(r["n"]),
            **{k: _f(r[k]) for k in JSON_MODEL_KEYS[2:-1]},
            "risk_coverage": {coverage_key(c): _f(v) for c, v in r["risk_coverage"].items()},
        }
        assert tuple(obj) == JSON_MODEL_KEYS
        models.append(obj)
    return {
        "inputs": rows.inputs,
        "confidence_scale": rows.scale,
        "seed": int(seed),
        "n_boot": int(n_boot),
        "high_confidence_threshold": HIGH_CONF,
        "rows_read": int(rows.rows_read),
        "rows_used": int(len(rows.frame)),
        "excluded": {
            "total": int(rows.n_excluded),
            "missing_confidence": {m: int(v) for m, v in rows.missing_confidence.items()},
            "missing_correct": {m: int(v) for m, v in rows.missing_correct.items()},
        },
        "notes": [
            "proportions and confidences on the 0-1 scale; citl = mean_confidence - accuracy",
            "auroc CI: row-level percentile bootstrap within model (selfconf.summary.table1)",
            "risk_coverage: error rate among the ceil(coverage*n) most confident rows, ties in input order",
        ],
        "models": models,
    }


def _pct(x: Any, d: int = 1) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * float(x):.{d}f}"


def _num(x: Any, d: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):.{d}f}"


def table_rows(tab: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Header and string cells of the terminal/HTML table, in the paper's display units."""
    head = ["model", "n", "acc %", "mean conf", "median conf", "CITL pp", "Brier", "ECE", "AUROC", "95% CI",
            "err@conf≥80 %"] + [f"risk@{int(c * 100)}% " for c in COVERAGES] + ["excluded"]
    body = []
    for _, r in tab.iterrows():
        ci = "—" if math.isnan(r["auroc_ci_low"]) else f"[{r['auroc_ci_low']:.3f}, {r['auroc_ci_high']:.3f}]"
        hc = _pct(r["high_conf_error_rate"]) + (f" (n={int(r['high_conf_n'])})" if r["n"] else "")
        rc = [_pct(r["risk_coverage"].get(c)) for c in COVERAGES]
        exc = int(r["excluded_missing_confidence"]) + int(r["excluded_missing_correct"])
        body.append([str(r["model"]), str(int(r["n"])), _pct(r["accuracy"]), _pct(r["mean_confidence"]),
                     _pct(r["median_confidence"]), ("—" if math.isnan(r["citl"]) else f"{100 * r['citl']:+.1f}"),
                     _num(r["brier"]), _num(r["ece"]), _num(r["auroc"]), ci, hc, *rc, str(exc)])
    return head, body


def format_table(tab: pd.DataFrame, rows: LoadedRows, *, seed: int, n_boot: int) -> str:
    """Plain-text table for the terminal, followed by the exclusion summary."""
    head, body = table_rows(tab)
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    out = [line(head), line(["-" * w for w in widths])] + [line(b) for b in body]
    out.append("")
    out.append(
        f"rows read {rows.rows_read}, used {len(rows.frame)}, excluded {rows.n_excluded} "
        f"({sum(rows.missing_confidence.values())} without a confidence, {sum(rows.missing_correct.values())} ungraded)"
    )
    for kind, d in (("without a confidence", rows.missing_confidence), ("ungraded", rows.missing_correct)):
        for m, v in d.items():
            out.append(f"  excluded {kind}: {m}: {v}")
    out.append(
        f"units: acc/conf/err in percent, CITL in percentage points; AUROC 95% CI: row-level bootstrap, "
        f"{n_boot} draws, seed {seed}; risk@c = error rate among the c most confident answers (ties in input order)"
    )
    return "\n".join(out)


HELP = "Table 1-style calibration report (terminal, --json, --html) for graded rows of any model"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "report",
        help=HELP,
        description=(
            "Compute, per model, the paper's Table 1 columns (n, accuracy, mean and median stated confidence, "
            "CITL, Brier, 10-bin ECE, self-AUROC with a row-level bootstrap 95% CI), the error rate among "
            "answers stated with confidence >= 80, and risk-coverage at 100/80/60/40/20% coverage. Input rows "
            "need model, item_id, confidence, correct (optional refusal, answer, gold). Rows without a confidence "
            "or a grade are excluded and counted in every output."
        ),
        epilog="example: selfconf report runs/*.graded.jsonl --html report.html",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="CSV or JSONL files of graded rows")
    p.add_argument("--confidence-scale", choices=("percent", "unit"), default="percent",
                   help="scale of the confidence column: percent = 0-100 (default), unit = 0-1")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap draws for the AUROC CI (default 2000)")
    p.add_argument("--json", action="store_true", help="print JSON (proportions on the 0-1 scale) instead of the table")
    p.add_argument("--html", metavar="FILE", default=None, help="also write a self-contained offline HTML report")
    return p


def run(args: argparse.Namespace) -> int:
    if args.n_boot < 1:
        raise ValueError(f"--n-boot must be >= 1, got {args.n_boot}")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    rows = load_rows(args.paths, scale=args.confidence_scale)
    tab = compute_report(rows, seed=args.seed, n_boot=args.n_boot)
    if args.json:
        print(json.dumps(report_json(tab, rows, seed=args.seed, n_boot=args.n_boot), indent=2, allow_nan=False))
    else:
        print(format_table(tab, rows, seed=args.seed, n_boot=args.n_boot))
    if args.html:
        from .htmlreport import write_html

        write_html(args.html, tab, rows, seed=args.seed, n_boot=args.n_boot)
        print(f"wrote {args.html}", file=sys.stderr)
    return 0
