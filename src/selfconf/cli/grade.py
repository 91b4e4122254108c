"""``selfconf grade``: mark collected answers correct, incorrect or refused.

Two stages, as in the paper's grading procedure (Design section: normalised string equivalence to
gold and refusal detection first; unresolved open cases go to an LLM grader restricted to
equivalence with gold):

Stage 1 (deterministic, :func:`grade_stage1`)
    1. No answer at all (a parse failure without an ``answer``): ``graded_by = "no_answer"``,
       ``correct`` left empty.
    2. :func:`normalize` (answer) equals :func:`normalize` (gold), or equals it once a leading
       "the answer is" style preamble is removed: correct, ``graded_by = "normalised_match"``.
    3. The answer matches the refusal lexicon (:data:`REFUSAL_PATTERNS`, :func:`is_refusal`):
       incorrect with ``refusal = 1``, ``graded_by = "refusal"``.
    4. Both normalised strings are plain numbers and differ: incorrect,
       ``graded_by = "numeric_mismatch"``.
    5. Both are a single letter A–Z (a multiple-choice option, after normalisation and after removing
       an "the answer is" style preamble from the answer) and differ: incorrect,
       ``graded_by = "choice_mismatch"``.
    6. Anything else is ``unresolved``.

Stage 2 (optional, :func:`grade_stage2`)
    Each unresolved row is sent to an LLM through :class:`selfconf.cli.collect.ChatClient` with a
    prompt that asks only whether the candidate answer is equivalent to the gold answer
    (:data:`JUDGE_SYSTEM_PROMPT`).  ``EQUIVALENT``/``DIFFERENT`` grade the row
    (``graded_by = "llm"``); any other reply, or an endpoint failure, leaves it unresolved.

Unresolved rows keep ``correct`` empty (``--unresolved-as-incorrect`` turns them into errors
instead, marked ``graded_by = "unresolved_as_incorrect"``).  Every count is printed; nothing is
dropped.

Normalisation (:func:`normalize`), in order:
    Unicode NFKD with accents removed; case folded; thousands separators inside numbers removed
    ("1,000" and "1 000" -> "1000"); "%" spelled "percent"; punctuation replaced by spaces except a
    decimal point between digits; number words zero–twenty replaced by digits; decimals without
    trailing zeros ("3.50" -> "3.5", "12.0" -> "12"); the articles "a", "an", "the" removed, except
    from a single-word answer (a multiple-choice "A" is kept); whitespace collapsed.
    :func:`normalize`, :func:`is_refusal` and the lexicon live in :mod:`selfconf.data.answers` (the one
    normaliser of the project, shared with the diagnostic battery and the collection loader) and are
    re-exported here.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import io
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from selfconf.cli.collect import (
    ChatClient,
    EndpointError,
    add_client_arguments,
    client_from_args,
)
from selfconf.data.answers import (
    RAW_REFUSAL_PATTERNS,
    REFUSAL_PATTERNS,
    is_refusal,
    normalize,
    strip_preamble,
)
from selfconf.data.rows import _kind, _text, jsonl_records

__all__ = [
    "normalize",
    "is_refusal",
    "REFUSAL_PATTERNS",
    "RAW_REFUSAL_PATTERNS",
    "JUDGE_SYSTEM_PROMPT",
    "grade_stage1",
    "grade_stage2",
    "grade_rows",
    "read_rows",
    "write_rows",
    "add_parser",
    "run",
]


def _is_number(s: str) -> bool:
    return re.fullmatch(r"-?\d+(?:\.\d+)?", s) is not None


def _is_letter(s: str) -> bool:
    """A normalised multiple-choice option: exactly one letter a-z."""
    return re.fullmatch(r"[a-z]", s) is not None


def grade_stage1(answer: Any, gold: Any, raw: Any = None) -> dict[str, Any]:
    """Deterministic grade of one answer: ``{"correct", "refusal", "graded_by"}``.

    ``correct`` is 1, 0 or ``None`` (unresolved / no answer); ``refusal`` is 0 or 1.  ``raw`` is
    the reply text; when there is no parsed answer and it is refusal prose, the row is a refusal.

    >>> grade_stage1("A", "A")["correct"]
    1
    >>> grade_stage1(None, "Paris", raw="I'm sorry, I cannot determine that.")["graded_by"]
    'refusal_prose'
    >>> grade_stage1("B", "C")
    {'correct': 0, 'refusal': 0, 'graded_by': 'choice_mismatch'}
    """
    if answer is None or (isinstance(answer, str) and not answer.strip() and raw):
        if raw is not None and str(raw).strip() and is_refusal(raw):
            return {"correct": 0, "refusal": 1, "graded_by": "refusal_prose"}
        if answer is None:
            return {"correct": None, "refusal": 0, "graded_by": "no_answer"}
    a, g = normalize(answer), normalize(gold)
    if g and (a == g or normalize(strip_preamble(answer)) == g):
        return {"correct": 1, "refusal": 0, "graded_by": "normalised_match"}
    if is_refusal(answer):
        return {"correct": 0, "refusal": 1, "graded_by": "refusal"}
    if _is_number(a) and _is_number(g) and float(a) != float(g):
        return {"correct": 0, "refusal": 0, "graded_by": "numeric_mismatch"}
    if _is_letter(g) and (_is_letter(a) or _is_letter(normalize(strip_preamble(answer)))):
        return {"correct": 0, "refusal": 0, "graded_by": "choice_mismatch"}
    return {"correct": None, "refusal": 0, "graded_by": "unresolved"}


#: System prompt for the stage-2 grader.  It asks about equivalence with gold and nothing else.
JUDGE_SYSTEM_PROMPT = (
    "You check short answers against a reference. Decide only whether the candidate answer means the "
    "same thing as the gold answer for the given question (ignore spelling variants, formatting, "
    "extra context that does not change the answer). Reply with exactly one word: EQUIVALENT or DIFFERENT."
)


def judge_prompt(question: Any, gold: Any, answer: Any) -> str:
    """User turn for the stage-2 grader."""
    return f"Question: {question or ''}\nGold answer: {gold}\nCandidate answer: {answer}"


def parse_verdict(text: str | None) -> int | None:
    """``EQUIVALENT`` -> 1, ``DIFFERENT`` -> 0, anything else (both, neither) -> ``None``."""
    t = (text or "").upper()
    eq, diff = "EQUIVALENT" in t.replace("NOT EQUIVALENT", ""), ("DIFFERENT" in t or "NOT EQUIVALENT" in t)
    if eq and not diff:
        return 1
    if diff and not eq:
        return 0
    return None


def grade_stage2(rows: list[dict], client: ChatClient, *, concurrency: int = 4) -> Counter:
    """Ask the grader LLM about every row still ``unresolved``; update rows in place.

    Returns a counter of outcomes (``llm_equivalent``, ``llm_different``, ``llm_unclear``,
    ``llm_endpoint_failure``).
    """
    todo = [r for r in rows if r.get("graded_by") == "unresolved"]
    outcome: Counter = Counter()

    def ask(r: dict):
        msgs = [
            {"role": "system", "content": JUDGE_SYSTEM_PROMPT},
            {"role": "user", "content": judge_prompt(r.get("question"), r.get("gold"), r.get("answer"))},
        ]
        try:
            text, _ = client.chat(msgs, temperature=0)
        except EndpointError:
            return r, None, "llm_endpoint_failure", None
        v = parse_verdict(text)
        return r, v, {1: "llm_equivalent", 0: "llm_different", None: "llm_unclear"}[v], text

    with cf.ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for r, v, tag, text in pool.map(ask, todo):
            outcome[tag] += 1
            if v is not None:
                r["correct"], r["graded_by"] = v, "llm"
                r["grader_model"] = client.model
            else:
                r["grader_note"] = tag if text is None else f"{tag}: {str(text)[:200]}"
    return outcome


def grade_rows(rows: list[dict], *, source: str = "input") -> Counter:
    """Apply stage 1 to every row in place (adds ``correct``, ``refusal``, ``graded_by``).

    A row without a ``gold`` field is an error naming ``source`` and the row number.
    """
    counts: Counter = Counter()
    for i, r in enumerate(rows, start=1):
        if "gold" not in r:
            raise ValueError(f"{source}: row {i}: no 'gold' field to grade against")
        if r.get("error") not in (None, ""):  # `collect` recorded a question the endpoint never answered
            r.update({"correct": None, "refusal": None, "graded_by": "collection_error"})
        else:
            r.update(grade_stage1(r.get("answer"), r.get("gold"), r.get("raw")))
        counts[r["graded_by"]] += 1
    return counts


def read_rows(path: str | Path, require: tuple[str, ...] = ()) -> list[dict]:
    """Read JSONL (``.jsonl``/``.json``) or CSV/TSV rows (optionally ``.gz``, BOM allowed).

    Every column in ``require`` must be present (in the CSV header, in every JSONL record);
    errors name the file and line (reading rules: :mod:`selfconf.data.rows`).
    Example: ``read_rows("runs/a.jsonl", require=("answer",))``.
    """
    from selfconf.data.layout import check_input_path, check_line_lengths

    p = check_input_path(path)  # a directory or a missing file: one clear line
    kind, gz = _kind(p)
    check_line_lengths(p, gz)  # a line over 64 MiB is refused before the file is read into memory
    text = _text(p, gz)
    if kind == "jsonl":
        return [rec for _, rec in jsonl_records(p, text, require, lambda c: f" (the file must have an '{c}' column)")]
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t" if kind == "tsv" else ",")
    cols = [c.strip() for c in (reader.fieldnames or [])]
    missing = [c for c in require if c not in cols]
    if not cols:
        raise ValueError(f"{p}: the file is empty (no header)")
    if missing:
        raise ValueError(f"{p}: missing column(s) {', '.join(missing)} (has: {', '.join(cols)})")
    out = []
    for rec in reader:
        if None in rec or any(v is None for v in rec.values()):
            raise ValueError(f"{p}: line {reader.line_num}: wrong number of fields (header has {len(cols)})")
        out.append({k.strip(): v for k, v in rec.items()})
    if not out:
        raise ValueError(f"{p}: header only, no data rows")
    return out


def write_rows(rows: list[dict], path: str | Path) -> None:
    """Write rows as JSONL (``.jsonl``) or CSV (any other suffix)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if p.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        with open(p, "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        return
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    with open(p, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})


def _help_epilog() -> str:
    import textwrap

    norm = textwrap.fill(
        "normalisation (applied to answer and gold before comparing): Unicode NFKD with accents removed; case "
        "folded; thousands separators inside numbers removed; '%' spelled 'percent'; punctuation replaced by spaces "
        "except a decimal point between digits; number words zero-twenty as digits; trailing decimal zeros dropped; "
        "the articles a/an/the removed except from a single-word answer (a multiple-choice 'A' is kept); "
        "whitespace collapsed.",
        100,
    )
    lex = "\n".join("  " + p for p in REFUSAL_PATTERNS + RAW_REFUSAL_PATTERNS)
    return (
        f"{norm}\n\nrefusal lexicon (regular expressions searched in the normalised answer; the last one in the raw "
        f"answer):\n{lex}\n\nA reply with no parseable answer whose raw text matches the lexicon is a refusal "
        "(graded_by=refusal_prose).\n"
        "A single-letter answer (A-Z, after normalisation and preamble removal) against a different single-letter "
        "gold is wrong (graded_by=choice_mismatch);\na longer answer against a letter gold stays unresolved.\n"
        "Re-running with an existing --out reuses its LLM verdicts for unchanged rows.\n"
        "Exit status 3 when every grader call failed. The input must have answer and gold columns.\n"
        "The output keeps every input row; counts per graded_by value are printed to stderr."
    )


HELP = "grade collected answers against gold (normalised match + refusal lexicon, optional LLM stage)"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "grade",
        help=HELP,
        description=(
            "Add correct (1/0/empty), refusal (1/0) and graded_by to each row of a `selfconf collect` file. "
            "Stage 1 is deterministic: normalised string equality with gold (case, accents, punctuation, "
            "articles, whitespace, thousands separators, number words are normalised), a refusal lexicon, and "
            "a numeric-mismatch rule and a choice-mismatch rule (a single letter A-Z against a different single-letter "
            "gold is wrong). Rows still unresolved are left ungraded unless --llm-base-url is given, "
            "in which case an LLM is asked only whether the answer is equivalent to gold."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_help_epilog(),
    )
    p.add_argument("input", help="JSONL (from `selfconf collect`) or CSV with answer and gold columns")
    p.add_argument("--out", required=True, help="output file (.jsonl or .csv)")
    add_client_arguments(p, prefix="llm-", required=False)
    p.add_argument("--llm-concurrency", type=int, default=4, help="parallel grader requests (default 4)")
    p.add_argument(
        "--unresolved-as-incorrect",
        action="store_true",
        help="grade rows no stage could resolve as incorrect (graded_by=unresolved_as_incorrect) "
        "instead of leaving correct empty",
    )
    return p


def reuse_llm_verdicts(rows: list[dict], previous: list[dict]) -> int:
    """Copy earlier LLM verdicts onto rows still ``unresolved``; return how many were reused.

    A verdict is reused when the earlier row has ``graded_by = "llm"`` and the same
    ``(model, item_id)``, ``answer`` and ``gold`` (so a changed answer is asked again).

    >>> rows = [{"model": "m", "item_id": "1", "answer": "x", "gold": "y", "graded_by": "unresolved"}]
    >>> reuse_llm_verdicts(rows, [{**rows[0], "graded_by": "llm", "correct": 0}]), rows[0]["correct"]
    (1, 0)
    """
    key = lambda r: (str(r.get("model")), str(r.get("item_id")), str(r.get("answer")), str(r.get("gold")))  # noqa: E731
    earlier = {key(r): r for r in previous if r.get("graded_by") == "llm" and r.get("correct") not in (None, "")}
    n = 0
    for r in rows:
        if r.get("graded_by") == "unresolved" and key(r) in earlier:
            old = earlier[key(r)]
            r["correct"] = int(old["correct"])
            r["graded_by"] = "llm"
            if old.get("grader_model"):
                r["grader_model"] = old["grader_model"]
            n += 1
    return n


def run(args: argparse.Namespace) -> int:
    rows = read_rows(args.input, require=("answer", "gold"))
    counts = grade_rows(rows, source=args.input)
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    say(f"{args.input}: {len(rows)} rows; stage 1: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if Path(args.out).exists() and Path(args.out).resolve() != Path(args.input).resolve():
        reused = reuse_llm_verdicts(rows, read_rows(args.out))
        if reused:
            say(f"reused {reused} earlier LLM verdicts from {args.out}")
    status = 0
    if args.llm_base_url:
        if not args.llm_model:
            raise ValueError("--llm-base-url needs --llm-model")
        outcome = grade_stage2(rows, client_from_args(args, prefix="llm-"), concurrency=args.llm_concurrency)
        say("stage 2: " + (", ".join(f"{k} {v}" for k, v in sorted(outcome.items())) or "nothing to ask"))
        asked = sum(outcome.values())
        if asked and outcome["llm_endpoint_failure"] == asked:
            say(
                f"error: every one of the {asked} grader calls failed (endpoint {args.llm_base_url}); "
                "those rows stay unresolved"
            )
            status = 3
    unresolved = sum(r["graded_by"] == "unresolved" for r in rows)
    if unresolved and args.unresolved_as_incorrect and status == 0:
        for r in rows:
            if r["graded_by"] == "unresolved":
                r["correct"], r["graded_by"] = 0, "unresolved_as_incorrect"
    write_rows(rows, args.out)
    no_answer = sum(r["graded_by"] == "no_answer" for r in rows)
    say(
        f"{args.out}: wrote {len(rows)} rows; unresolved {unresolved}"
        + (
            " (graded incorrect)"
            if unresolved and args.unresolved_as_incorrect and status == 0
            else " (correct left empty)"
        )
        + f"; no answer {no_answer} (correct left empty)"
    )
    return status
