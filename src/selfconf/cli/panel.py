"""``selfconf panel``: does agreement among your other models predict correctness better than each model's
own stated confidence?  The paper's panel comparison (Result 1) on anyone's graded rows, under every reading.

Input rows (CSV, TSV or JSONL, optionally ``.gz``) need ``model``, ``item_id``, ``confidence``, ``correct`` and
``answer`` (optional ``refusal``); they are read and validated by ``selfconf report``'s reader
(:func:`selfconf.report.core.load_rows` rules: the same scale detection, the same errors naming file, line and
field).  Rows without a confidence or a grade are excluded and counted, as in the report; an empty answer or a
refusal is an *indeterminate* answer (it concurs with nothing under the canonical reading).

The computation is :func:`selfconf.panels.panel_readings`; the readings are :data:`selfconf.panels.READINGS`,
defined in :data:`selfconf.panels.READING_DEFINITIONS`.  Intervals are item-clustered percentile bootstraps
drawn from ``selfconf.stats.streams.stream(seed, "panel:" + ",".join(members))``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from typing import Any

import numpy as np

from selfconf.report.arguments import add_sampling_arguments, command_parser, sampling_options

__all__ = ["HELP", "add_parser", "run", "panel_table", "records_json", "format_panel_table"]

HELP = "panel agreement versus each model's own confidence (the paper's Result 1) on your rows, under every reading"


def _definitions() -> str:
    from selfconf.stats.readings import CANONICAL_READING, READING_DEFINITIONS, READING_STATUS

    out = [
        "readings (NAME=VALUE; the canonical value of each, the paper's and the default, is listed first; each",
        "option is a reasonable reading or a bound, Steegen et al. 2016; a reading with any bound is a bound):",
    ]
    for name, opts in READING_DEFINITIONS.items():
        out.append(f"  {name}:")
        for v, text in opts.items():
            mark = " [canonical]" if CANONICAL_READING[name] == v else ""
            status, why = READING_STATUS[name][v]
            out.append(f"    {v}{mark}: {text} [{status}: {why}]")
    return "\n".join(out)


#: What ``selfconf panel --help`` says it computes (the reading definitions follow it).
DESCRIPTION = (
    "For the models named by --members (a panel), compare two predictors of a row's correctness on the\n"
    "items they share: the row's own stated confidence (self-AUROC) and the panel signal, the number of\n"
    "OTHER members whose answer concurs with the row's (panel AUROC). delta = panel AUROC - self AUROC;\n"
    "a positive delta means agreement among the other models ranks answers better than the model's own\n"
    "confidence. Every number carries a 95% item-clustered percentile bootstrap interval (items resampled\n"
    "with all their rows; panel, self and delta from the same item draws).\n\n"
    "Input rows need model, item_id, confidence, correct and answer (optional refusal); CSV, TSV or JSONL,\n"
    "optionally .gz. Reading, validation, scale detection and error messages are those of `selfconf\n"
    "report` (see its --help); rows without a confidence or a grade are excluded and counted, an empty\n"
    "answer or a refusal is an indeterminate answer.\n\n"
)


def _epilog() -> str:
    """The end of ``selfconf panel --help``: the outputs, the JSON keys and an example (the count of readings
    computed from :func:`selfconf.stats.readings.all_readings`).

    >>> "--all-readings computes every" in _epilog()
    True
    """
    return (
        "output: by default the canonical reading only; --reading NAME=VALUE[,VALUE...] (repeatable) adds the\n"
        "readings that combine the given values (other dimensions canonical); --all-readings computes every\n"
        f"combination ({_n_readings()} readings; per_member gives one row per member, leave_out=each_member one\n"
        "row per dropped member, left out for a panel of two) and prints the specification curve as a table\n"
        "sorted by delta, the canonical row marked '*', then the count of distinct results and the tallies of\n"
        "reasonable readings and bounds.\n\n"
        "JSON (--json): a list of records, one per reading computed (and per member under per_member): reading\n"
        "(the option values), member (null unless per_member), canonical (true for the canonical reading only),\n"
        "panel_auroc, self_auroc_pooled (always the pooled self-AUROC of the reading's items and ties),\n"
        "self_auroc (the self side under the reading's aggregation), delta (panel_auroc - self_auroc;\n"
        "under pooled aggregation, the canonical one, that is panel minus pooled self),\n"
        "each with _ci_low/_ci_high, then items, rows, undefined_draws (draws in which a statistic had one\n"
        "class only, left out of its quantiles), confidence_scale, left_out (the dropped member under\n"
        "leave_out=each_member, else null), status (reasonable or bound), result_id (readings with equal\n"
        "member, panel AUROC, self AUROC, delta, items and rows share one) and same_result_as (null on the first\n"
        "reading of a result, else the label of that first reading).\n\n"
        "example: selfconf panel runs/*.graded.csv --members gpt-4o,claude-3-5-sonnet,gemini-1.5-pro "
        "--all-readings"
    )


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``selfconf panel``; the sampling options are ``selfconf report``'s (:mod:`selfconf.report.arguments`).

    >>> p = add_parser(argparse.ArgumentParser(prog="selfconf").add_subparsers())
    >>> a = p.parse_args(["rows.csv", "--members", "a,b,c"])
    >>> (a.n_boot, a.seed, a.reading, a.all_readings)
    (2000, 0, [], False)
    """
    p = command_parser(subparsers, "panel", help=HELP, description=DESCRIPTION + _definitions(), epilog=_epilog())
    p.add_argument("paths", nargs="+", metavar="PATH", help="CSV/TSV/JSONL files (optionally .gz) of graded rows")
    p.add_argument("--members", required=True, help="comma-separated models of the panel (at least two)")
    p.add_argument(
        "--reading",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a reading to compute besides the canonical one (repeatable; VALUE may list several, comma-separated)",
    )
    p.add_argument("--all-readings", action="store_true", help="every combination of readings (specification curve)")
    add_sampling_arguments(p, scale_rule="default; the rule of selfconf report")
    p.add_argument("--json", action="store_true", help="print a JSON list of records instead of the table")
    return p


def _n_readings() -> int:
    from selfconf.stats.readings import all_readings

    return len(all_readings())


def _requested_readings(specs: list[str], every: bool) -> list[dict[str, str]]:
    from selfconf.stats.readings import CANONICAL_READING, all_readings, check_reading

    if every:
        return all_readings()
    chosen: dict[str, list[str]] = {}
    for spec in specs:
        name, sep, values = spec.partition("=")
        if not sep or not values:
            raise ValueError(f"--reading {spec!r}: expected NAME=VALUE (e.g. ties=loss)")
        for v in values.split(","):
            check_reading({name.strip(): v.strip()})
            chosen.setdefault(name.strip(), [])
            if v.strip() not in chosen[name.strip()]:
                chosen[name.strip()].append(v.strip())
    out = [dict(CANONICAL_READING)]
    for combo in itertools.product(*chosen.values()):
        r = check_reading(dict(zip(chosen, combo, strict=True)))
        if r not in out:
            out.append(r)
    return out


def panel_table(
    paths: list[str],
    members: list[str],
    *,
    readings: list[dict[str, str]],
    seed: int = 0,
    n_boot: int = 2000,
    confidence_scale: str = "auto",
):
    """Read, validate and compare: (the :func:`selfconf.panels.panel_readings` table, facts about the input).

    Example: ``panel_table(["rows.csv"], ["a", "b", "c"], readings=[{}])[0]["delta"]``.
    """
    import pandas as pd

    from selfconf import panels
    from selfconf.data.rows import columns_from, read_file
    from selfconf.report.core import REQUIRED, _rows_from_columns
    from selfconf.stats.streams import stream

    if len(members) < 2:
        raise ValueError(f"--members: a panel needs at least two models, got {len(members)}")
    if len(set(members)) != len(members):
        raise ValueError(f"--members: a model is named twice in {','.join(members)}")
    required = (*REQUIRED, "answer")
    files = [read_file(p, [*required, "refusal"], required) for p in paths]
    cols = columns_from(files)
    rows = _rows_from_columns(cols, confidence_scale=confidence_scale, by=None, inputs=[str(p) for p in paths])
    models = [str(m) for m in rows.models]
    unknown = [m for m in members if m not in models]
    if unknown:
        raise ValueError(
            f"--members: no rows for {', '.join(repr(m) for m in unknown)} (models in the input: {', '.join(models)})"
        )
    item, _ = cols.identifiers("item_id")
    answer = np.array(["" if a is None else str(a).strip() for a in cols._arrow("answer", text=True).to_pylist()])
    reasons = rows.reasons()
    used = reasons < 0
    refusal = np.zeros(used.size, dtype=np.int64) if rows.refusal is None else np.nan_to_num(rows.refusal).astype(int)
    _, level = np.unique(np.where(used, rows.confidence, 0.0), return_inverse=True)
    frame = pd.DataFrame(
        {
            "model": np.asarray(models, dtype=object)[rows.model],
            "item_id": item,
            "parse_ok": used.astype(int),
            "confidence": level.reshape(-1).astype(np.int64),  # order-preserving codes: only the order matters
            "correct": np.nan_to_num(rows.correct).astype(np.int64),
            "refusal": ((refusal == 1) | (answer == "")).astype(int),
            "answer_class": answer,
        }
    )
    in_panel = np.isin(frame["model"].to_numpy(), members)
    excluded = {m: int((~used[frame["model"].to_numpy() == m]).sum()) for m in members}
    rng = stream(seed, "panel:" + ",".join(members))
    tab = panels.panel_readings(frame[in_panel], tuple(members), readings=readings, n_boot=n_boot, rng=rng)
    facts = {
        "inputs": [str(p) for p in paths],
        "rows_read": int(rows.rows_read),
        "panel_rows_read": int(in_panel.sum()),
        "excluded": excluded,
        "confidence_scale": rows.scale,
        "confidence_scale_reason": rows.scale_reason,
        "members": list(members),
        "seed": seed,
        "n_boot": n_boot,
    }
    return tab, facts


def _num(v: Any) -> float | None:
    v = float(v)
    return None if math.isnan(v) else v


def records_json(tab, facts: dict) -> list[dict[str, Any]]:
    """The ``--json`` records (one per row of the table), in the table's order."""
    from selfconf.stats.readings import READINGS

    out = []
    for r in tab.to_dict("records"):
        rec: dict[str, Any] = {
            "reading": {k: r[k] for k in READINGS},
            "member": r["member"] or None,
            "canonical": bool(r["canonical"]),
        }
        for s in ("panel_auroc", "self_auroc_pooled", "self_auroc", "delta"):
            rec[s] = _num(r[s])
            rec[f"{s}_ci_low"] = _num(r[f"{s}_ci_low"])
            rec[f"{s}_ci_high"] = _num(r[f"{s}_ci_high"])
        rec.update(
            items=int(r["items"]),
            rows=int(r["rows"]),
            undefined_draws=int(r["undefined_draws"]),
            confidence_scale=facts["confidence_scale"],
            left_out=r["left_out"] or None,
            status=r["status"],
            result_id=int(r["result_id"]),
            same_result_as=r["same_result_as"] or None,
        )
        out.append(rec)
    return out


def reading_label(r: dict[str, str]) -> str:
    """'canonical', or the options that differ from it (``ties=loss, signal=any``):
    :func:`selfconf.stats.readings.reading_label` of the reading's options."""
    from selfconf.stats.readings import reading_label as label

    return label(r)


def format_panel_table(tab, facts: dict, *, sort: bool = False) -> str:
    """Plain-text table: one line per reading (the canonical one marked '*'), then the input facts."""
    from selfconf.stats.readings import READINGS

    recs = tab.to_dict("records")
    if sort:
        recs = sorted(recs, key=lambda r: (math.isnan(r["delta"]), r["delta"]))

    def iv(r: dict, s: str, sign: str = "") -> str:
        return f"{r[s]:{sign}.3f} [{r[s + '_ci_low']:{sign}.3f}, {r[s + '_ci_high']:{sign}.3f}]"

    head = ["", "reading", "member", "panel AUROC [95% CI]", "self AUROC [95% CI]", "delta [95% CI]", "items", "rows"]
    body = [
        [
            "*" if r["canonical"] else "",
            reading_label({k: r[k] for k in READINGS}) + (f" (without {r['left_out']})" if r["left_out"] else ""),
            r["member"],
            iv(r, "panel_auroc"),
            iv(r, "self_auroc"),
            iv(r, "delta", "+"),
            str(r["items"]),
            str(r["rows"]),
        ]
        for r in recs
    ]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in [head, *body]]
    ex = ", ".join(f"{m}: {n}" for m, n in facts["excluded"].items())
    lines += [
        "",
        f"panel: {', '.join(facts['members'])}; rows read {facts['rows_read']} ({facts['panel_rows_read']} of the "
        f"panel's models); excluded (no confidence or no grade): {ex}",
        f"confidence scale: {facts['confidence_scale']} ({facts['confidence_scale_reason']})",
        f"intervals: 95% item-clustered percentile bootstrap, {facts['n_boot']} draws, seed {facts['seed']}; "
        "delta = panel - self under the reading's aggregation (pooled: the pooled self-AUROC)",
        "'*' marks the canonical reading (the paper's); `selfconf panel --help` defines every reading",
    ]
    if len(recs) > 1:
        lines.append(
            f"distinct results: {tab['result_id'].nunique()} of {len(recs)} comparisons; "
            + "; ".join(
                f"{st}: {int((tab['status'] == st).sum())} comparisons, "
                f"{tab.loc[tab['status'] == st, 'result_id'].nunique()} distinct results"
                for st in ("reasonable", "bound")
            )
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``selfconf panel`` on parsed options (sampling validated by
    :func:`selfconf.report.arguments.sampling_options`); print the table or the JSON records; return 0.

    Example: ``run(build_parser()[0].parse_args(["panel", "rows.csv", "--members", "a,b,c"]))``.
    """
    sampling = sampling_options(args)
    members = [m.strip() for m in args.members.split(",") if m.strip()]
    readings = _requested_readings(args.reading, args.all_readings)
    if args.all_readings and len(members) < 3:  # two members: dropping one leaves no panel (said in --help)
        readings = [r for r in readings if r["leave_out"] == "none"]
    tab, facts = panel_table(args.paths, members, readings=readings, confidence_scale=args.confidence_scale, **sampling)
    if args.json:
        print(json.dumps(records_json(tab, facts), indent=2))
    else:
        print(format_panel_table(tab, facts, sort=args.all_readings))
    return 0
