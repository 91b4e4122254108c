"""``selfconf diagnose``: run the self-assessment diagnostic against an endpoint, or score a file."""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap

from selfconf.claims.judging import fmt
from selfconf.cli.collect import (
    Question,
    add_client_arguments,
    client_from_args,
    collect,
)
from selfconf.cli.diagnose.scoring import (
    BOTTOM_NOT_OVERCONFIDENT,
    DIAGNOSE_SYSTEM_PROMPT,
    MAX_MISSING_SHARE,
    PROSE_ABSTAIN_BELOW,
    REPLY_FIELDS,
    TIERS,
    WEIGHTS,
    load_battery,
    score_answers,
)
from selfconf.cli.grade import read_rows

#: Prompt id written to the reply log by ``--base-url`` runs (and expected of replies collected elsewhere).
PROMPT_ID = "diagnose-v1"

__all__ = ["add_parser", "run", "battery_questions", "format_result"]

HELP = "self-assessment diagnostic: a fixed probe battery + traps scored into a calibration tier"


def battery_questions(battery: dict) -> list[Question]:
    """The battery as :class:`selfconf.cli.collect.Question` objects (gold = first accepted answer)."""
    return [Question(it["id"], it["question"], it["answers"][0]) for it in battery["items"]]


def _fmt(x, pct=False, signed=False) -> str:
    """:func:`selfconf.claims.judging.fmt`: a percentage or a signed value with 1 decimal, else 3;
    a missing value is ``undefined``."""
    return fmt(x, 1 if (pct or signed) else 3, percent=pct, signed=signed, missing="undefined")


def format_result(res, label: str) -> str:
    """Human-readable summary of a :class:`~selfconf.cli.diagnose.scoring.DiagnosticResult`."""
    lines = [
        f"diagnostic for {label}: {res.n_items} items ({res.n_probes} probes, {res.n_traps} traps)",
        f"  confidence scale: {res.confidence_scale} ({res.confidence_scale_reason})",
        f"  missing replies {res.n_missing}; replies without a usable confidence {res.n_no_confidence}; "
        f"probes scored {res.n_probes_scored}",
        f"  accuracy on probes            {_fmt(res.accuracy, pct=True)} %",
        f"  mean stated confidence        {_fmt(res.mean_confidence, pct=True)}",
        f"  Brier score                   {_fmt(res.brier)}",
        f"  overconfidence gap            {_fmt(res.gap, pct=True, signed=True)} pp (mean confidence - accuracy)",
        f"  discrimination proxy          {_fmt(res.discrimination, pct=True, signed=True)} pp "
        "(mean conf. correct - incorrect)",
        f"  trap abstention rate          {_fmt(res.trap_abstention, pct=True)} %",
        f"  abstentions on answerable     {_fmt(res.probe_abstention, pct=True)} % (the composite is multiplied by "
        f"the answer rate {_fmt(res.probe_answer_rate, pct=True)} %)",
        "  composite                     "
        f"{_fmt(res.composite, pct=False) if math.isnan(res.composite) else f'{res.composite:.1f}'} / 100",
        f"  tier                          {res.tier}",
    ]
    if not res.complete:
        lines.append(
            f"  {res.n_missing} of {res.n_items} items have no reply (more than {100 * MAX_MISSING_SHARE:g} %): "
            "no composite and no tier; the components above describe only the replies given"
        )
    if res.left_out:
        lines.append(f"  (undefined, left out of the composite: {', '.join(res.left_out)})")
    lines.append(
        "  by domain: "
        + ", ".join(
            f"{d['domain']} {_fmt(d['accuracy'], pct=True)}%/{_fmt(d['mean_confidence'], pct=True)}"
            for d in res.by_domain
        )
        + "  (accuracy % / mean confidence)"
    )
    lines.append(
        "  tiers: "
        + "; ".join(
            f">= {lo:g} {name}"
            if math.isfinite(lo)
            else f"below: {name} (or {BOTTOM_NOT_OVERCONFIDENT} if not overconfident)"
            for lo, name in TIERS
        )
    )
    return "\n".join(lines)


def add_parser(subparsers) -> argparse.ArgumentParser:
    b = load_battery()
    n_probe = sum(it["kind"] == "probe" for it in b["items"])
    n_trap = len(b["items"]) - n_probe
    probe_ids = [it["id"] for it in b["items"] if it["kind"] == "probe"]
    trap_ids = [it["id"] for it in b["items"] if it["kind"] == "trap"]
    p = subparsers.add_parser(
        "diagnose",
        help=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            f"The paper's appendix diagnostic with selfconf's own battery ({b['name']} {b['version']}: "
            f"{n_probe} short\n"
            f"probes with deterministic answers across domain bins, plus {n_trap} trap questions whose right answer "
            "is\n"
            "the token ABSTAIN). Scores the Brier score, the overconfidence gap (mean confidence - accuracy), a\n"
            "discrimination proxy (mean confidence on correct minus incorrect answers) and the trap-abstention rate,\n"
            "combines them into a 0-100 composite (weights " + ", ".join(f"{k} {w}" for k, w in WEIGHTS.items()) + ")\n"
            "multiplied by the share of probes answered rather than abstained on, and maps it to a tier.\n\n"
            "Either query an endpoint (--base-url/--model; replies are logged to --out and the run resumes if\n"
            "interrupted) or score existing replies (--answers FILE).\n\n"
            "A file of answers (--answers): CSV, TSV or JSONL (optionally .gz) with columns "
            + ", ".join(REPLY_FIELDS)
            + "\n"
            "(other columns are ignored; a `model` column with several models needs --model), one row per battery\n"
            f"item. item_id must be the battery's ids as printed by --list-battery: probes {probe_ids[0]} ...\n"
            f"{probe_ids[-1]}, traps {trap_ids[0]} ... {trap_ids[-1]}. The replies must answer the battery's question\n"
            "text (--list-battery) sent as the user message, under the system prompt below (prompt id\n"
            f"{PROMPT_ID}, temperature 0); answers given under another prompt are not comparable to the tiers.\n\n"
            "System prompt:\n" + textwrap.fill(DIAGNOSE_SYSTEM_PROMPT, 100, initial_indent="  ", subsequent_indent="  ")
        ),
        epilog=(
            "rules: an abstention is the token ABSTAIN (at any confidence) or refusal prose such as 'unknown' or\n"
            f"'I don't know' stated below {100 * PROSE_ABSTAIN_BELOW:g} % confidence "
            "(above it, it is an ordinary answer);\n"
            "an abstention on an answerable probe is a wrong answer, so abstaining on everything scores 0;\n"
            f"more than {100 * MAX_MISSING_SHARE:g} % of the items without a reply (or with an empty answer) gives\n"
            "'incomplete (k of n answered)' and no tier. Confidences follow the scale rule of `selfconf report`\n"
            "(--confidence-scale auto: a value above 1 or written with % means 0-100; all within [0, 1] with one\n"
            "strictly between means 0-1; only 0s and 1s, at least one 1, is ambiguous; a mix is an error naming "
            "the records).\n\n"
            "the tool is a quick screen, not the paper's result: its discrimination score is a proxy, not AUROC"
        ),
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--answers",
        metavar="FILE",
        help="CSV/TSV/JSONL of replies with columns " + ", ".join(REPLY_FIELDS) + " (see above)",
    )
    src.add_argument("--base-url", help="API root of an OpenAI-compatible endpoint to run the battery against")
    p.add_argument("--model", help="model name (with --base-url); with --answers, keep only this model's rows")
    p.add_argument("--out", help="JSONL log of replies (with --base-url; default diagnose-<model>.jsonl)")
    p.add_argument(
        "--confidence-scale",
        choices=("auto", "percent", "unit"),
        default="auto",
        help="scale of the confidences: auto (default; rule below), percent = 0-100, unit = 0-1",
    )
    add_client_arguments_no_url(p)
    p.add_argument("--concurrency", type=int, default=4, help="parallel requests (default 4)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--items", action="store_true", help="with --json: include the per-item grading")
    p.add_argument(
        "--list-battery", action="store_true", help="print the battery (id, kind, domain, question) and exit"
    )
    return p


def add_client_arguments_no_url(p: argparse.ArgumentParser) -> None:
    """The endpoint options of :func:`selfconf.cli.collect.add_client_arguments` minus base-url/model."""
    tmp = argparse.ArgumentParser(add_help=False)
    add_client_arguments(tmp, required=False)
    for act in tmp._actions:
        if act.dest in ("base_url", "model"):
            continue
        p._add_action(act)


def run(args: argparse.Namespace) -> int:
    battery = load_battery()
    if args.list_battery:
        for it in battery["items"]:
            print(f"{it['id']}\t{it['kind']}\t{it['domain']}\t{it['question']}")
        return 0
    if not args.answers and not args.base_url:
        raise ValueError("give --answers FILE (score replies) or --base-url URL --model NAME (query an endpoint)")
    if args.answers:
        records = _answer_records(args.answers, args.model)
        label = args.answers if not args.model else f"{args.model} ({args.answers})"
    else:
        if not args.model:
            raise ValueError("--base-url needs --model")
        out = args.out or f"diagnose-{args.model.replace('/', '_')}.jsonl"
        client = client_from_args(args)
        s = collect(
            battery_questions(battery),
            client,
            out,
            concurrency=args.concurrency,
            system_prompt=DIAGNOSE_SYSTEM_PROMPT,
            prompt_id=PROMPT_ID,
        )
        print(
            f"{out}: {s.written} new replies, {s.skipped_done} already logged, {s.parse_failures} parse failures, "
            f"{s.endpoint_failures} endpoint failures",
            file=sys.stderr,
        )
        records = [r for r in read_rows(out) if str(r.get("model")) == args.model]
        label = f"{args.model} ({out})"
    res = score_answers(records, battery, source=str(args.answers or label), confidence_scale=args.confidence_scale)
    if args.json:
        print(json.dumps({"source": label, **res.to_dict(with_items=args.items)}, indent=2, allow_nan=False))
    else:
        print(format_result(res, label))
    return 0


def _answer_records(path: str, model: str | None) -> list[dict]:
    """Rows of an ``--answers`` file: the columns of :data:`REPLY_FIELDS` are required (an error
    names the missing ones and those the file has); ``model`` keeps one model's rows."""
    try:
        records = read_rows(path, require=REPLY_FIELDS)
    except ValueError as exc:
        if "missing column" in str(exc) or "(the file must have" in str(exc):
            raise ValueError(
                f"{exc}; `selfconf diagnose --answers` needs columns {', '.join(REPLY_FIELDS)} "
                "(see `selfconf diagnose --help`)"
            ) from None
        raise
    models = list(dict.fromkeys(str(r["model"]) for r in records if "model" in r))
    if model is not None:
        if not models:
            raise ValueError(f"{path}: --model {model} was given but the file has no `model` column")
        kept = [r for r in records if str(r.get("model")) == model]
        if not kept:
            raise ValueError(f"{path}: no rows for --model {model!r} (models in the file: {', '.join(models)})")
        return kept
    if len(models) > 1:
        raise ValueError(
            f"{path}: rows of {len(models)} models ({', '.join(models[:5])}"
            f"{', ...' if len(models) > 5 else ''}); choose one with --model"
        )
    return records
