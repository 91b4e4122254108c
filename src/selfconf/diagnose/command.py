"""``selfconf diagnose``: run the self-assessment diagnostic against an endpoint, or score a file."""

from __future__ import annotations

import argparse
import json
import math
import sys

from ..collect import Question, add_client_arguments, client_from_args, collect
from ..grade import read_rows
from .scoring import BOTTOM_NOT_OVERCONFIDENT, DIAGNOSE_SYSTEM_PROMPT, TIERS, WEIGHTS, load_battery, score_answers

__all__ = ["add_parser", "run", "battery_questions", "format_result"]

HELP = "self-assessment diagnostic: a fixed probe battery + traps scored into a calibration tier"


def battery_questions(battery: dict) -> list[Question]:
    """The battery as :class:`selfconf.collect.Question` objects (gold = first accepted answer)."""
    return [Question(it["id"], it["question"], it["answers"][0]) for it in battery["items"]]


def _fmt(x, pct=False, signed=False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "undefined"
    v = 100 * x if pct else x
    return f"{v:+.1f}" if signed else f"{v:.1f}" if pct else f"{v:.3f}"


def format_result(res, label: str) -> str:
    """Human-readable summary of a :class:`~selfconf.diagnose.scoring.DiagnosticResult`."""
    lines = [
        f"diagnostic for {label}: {res.n_items} items ({res.n_probes} probes, {res.n_traps} traps)",
        f"  missing replies {res.n_missing}; replies without a usable confidence {res.n_no_confidence}; probes scored {res.n_probes_scored}",
        f"  accuracy on probes            {_fmt(res.accuracy, pct=True)} %",
        f"  mean stated confidence        {_fmt(res.mean_confidence, pct=True)}",
        f"  Brier score                   {_fmt(res.brier)}",
        f"  overconfidence gap            {_fmt(res.gap, pct=True, signed=True)} pp (mean confidence - accuracy)",
        f"  discrimination proxy          {_fmt(res.discrimination, pct=True, signed=True)} pp (mean conf. correct - incorrect)",
        f"  trap abstention rate          {_fmt(res.trap_abstention, pct=True)} %",
        f"  abstentions on answerable     {_fmt(res.probe_abstention, pct=True)} %",
        f"  composite                     {_fmt(res.composite, pct=False) if math.isnan(res.composite) else f'{res.composite:.1f}'} / 100",
        f"  tier                          {res.tier}",
    ]
    if res.left_out:
        lines.append(f"  (undefined, left out of the composite: {', '.join(res.left_out)})")
    lines.append("  by domain: " + ", ".join(
        f"{d['domain']} {_fmt(d['accuracy'], pct=True)}%/{_fmt(d['mean_confidence'], pct=True)}" for d in res.by_domain
    ) + "  (accuracy % / mean confidence)")
    lines.append("  tiers: " + "; ".join(f">= {lo:g} {name}" if math.isfinite(lo) else f"below: {name} "
                                         f"(or {BOTTOM_NOT_OVERCONFIDENT} if not overconfident)" for lo, name in TIERS))
    return "\n".join(lines)


def add_parser(subparsers) -> argparse.ArgumentParser:
    b = load_battery()
    n_probe = sum(it["kind"] == "probe" for it in b["items"])
    n_trap = len(b["items"]) - n_probe
    p = subparsers.add_parser(
        "diagnose",
        help=HELP,
        description=(
            f"The paper's appendix diagnostic with selfconf's own battery ({n_probe} short probes with deterministic "
            f"answers across domain bins, plus {n_trap} trap questions whose right answer is the token ABSTAIN). "
            "Scores the Brier score, the overconfidence gap (mean confidence - accuracy), a discrimination proxy "
            "(mean confidence on correct minus incorrect answers) and the trap-abstention rate, combines them "
            "into a 0-100 composite (weights " + ", ".join(f"{k} {w}" for k, w in WEIGHTS.items()) + ") and maps it "
            "to a tier. Either query an endpoint (--base-url/--model; replies are logged to --out and the run resumes "
            "if interrupted) or score existing replies (--answers FILE with item_id, answer, confidence 0-100)."
        ),
        epilog="the tool is a quick screen, not the paper's result: its discrimination score is a proxy, not AUROC",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--answers", metavar="FILE", help="JSONL/CSV of replies: item_id, answer, confidence (0-100)")
    src.add_argument("--base-url", help="API root of an OpenAI-compatible endpoint to run the battery against")
    p.add_argument("--model", help="model name (with --base-url)")
    p.add_argument("--out", help="JSONL log of replies (with --base-url; default diagnose-<model>.jsonl)")
    add_client_arguments_no_url(p)
    p.add_argument("--concurrency", type=int, default=4, help="parallel requests (default 4)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--items", action="store_true", help="with --json: include the per-item grading")
    p.add_argument("--list-battery", action="store_true", help="print the battery (id, kind, domain, question) and exit")
    return p


def add_client_arguments_no_url(p: argparse.ArgumentParser) -> None:
    """The endpoint options of :func:`selfconf.collect.add_client_arguments` minus base-url/model."""
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
        records = read_rows(args.answers)
        label = args.answers
    else:
        if not args.model:
            raise ValueError("--base-url needs --model")
        out = args.out or f"diagnose-{args.model.replace('/', '_')}.jsonl"
        client = client_from_args(args)
        s = collect(battery_questions(battery), client, out, concurrency=args.concurrency,
                    system_prompt=DIAGNOSE_SYSTEM_PROMPT, prompt_id="diagnose-v1")
        print(f"{out}: {s.written} new replies, {s.skipped_done} already logged, {s.parse_failures} parse failures, "
              f"{s.endpoint_failures} endpoint failures", file=sys.stderr)
        records = [r for r in read_rows(out) if str(r.get("model")) == args.model]
        label = f"{args.model} ({out})"
    res = score_answers(records, battery, source=str(args.answers or label))
    if args.json:
        print(json.dumps({"source": label, **res.to_dict(with_items=args.items)}, indent=2, allow_nan=False))
    else:
        print(format_result(res, label))
    return 0
