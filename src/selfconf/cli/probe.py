"""``selfconf probe``: the paper's profile-injection ladder and manipulation probe against any endpoint.

Protocol (Chernets 2026, Results 2-3), run on the user's model:

1. **Battery**: a CSV with ``question`` (or ``problem``), ``answer`` and ``domain`` columns (optional ``item_id``).
   Each domain's items are split by the seed into a *profile split* and a *held-out split* (:func:`split_battery`).
2. **Stage 1**: the model answers the profile split with ``selfconf collect``'s prompt; answers are graded by
   ``selfconf grade``'s deterministic rules (unresolved grades count as wrong and are counted); the per-domain
   accuracy is the model's own profile.
3. **Stage 2**: every held-out item is asked once per arm and replicate, the arm's profile placed in the same
   calibration slot of the system prompt (:func:`render_slot`); arm names never appear in the prompt; the order
   of the arms per item is a seeded permutation.
4. **Analysis**: :func:`selfconf.sections.probe.analyse`, the functions that compute the book's Table 3.

Every reply is appended to one JSONL log (``collect``'s :class:`~selfconf.cli.collect.JsonlLog` and
:class:`~selfconf.cli.collect.OutputLock`), so a killed run resumes without losing or repeating a row.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import hashlib
import json
import math
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from selfconf.cli.collect import (
    SYSTEM_PROMPT,
    ChatClient,
    EndpointError,
    JsonlLog,
    OutputLock,
    add_client_arguments,
    client_from_args,
    parse_jsonl,
    parse_reply,
)
from selfconf.cli.grade import grade_stage1
from selfconf.stats.streams import stream

if TYPE_CHECKING:  # pandas and the analysis are imported when used: `selfconf report --json` never loads pandas
    import pandas as pd

#: The placebo's rank-correlation bound as the help states it (a test holds it equal to
#: :data:`selfconf.sections.probe.PLACEBO_RHO_MAX`, which the check uses).
PLACEBO_RHO_TEXT = "0.10"

__all__ = [
    "ARM_HELP",
    "CONTRAST_HELP",
    "MIN_PER_SPLIT",
    "FORGED_PCT",
    "BatteryItem",
    "load_battery",
    "split_battery",
    "make_profiles",
    "render_slot",
    "arm_messages",
    "log_frame",
    "analyse_path",
    "profile_table",
    "probe_html",
    "read_log",
    "add_parser",
    "run",
]

#: Items a domain needs in each split (profile and held-out).
MIN_PER_SPLIT = 2
#: The fabricated accuracy claim of the ``forged`` arm (the paper's micro-probe).
FORGED_PCT = 95
#: Draws tried for a placebo profile with |rho| below the bound before giving up.
PLACEBO_TRIES = 1000

ARM_HELP = {
    "off": "the calibration slot holds the profile's structure (every domain listed) with no values",
    "placebo": "a profile irrelevant to calibration: values with the true profile's mean, |Spearman rho| with it "
    f"below {PLACEBO_RHO_TEXT} (redrawn until so; the check is printed)",
    "core": "the model's own measured per-domain accuracy from stage 1 (the truthful profile)",
    "shuffled": "the true values permuted across domains, no domain keeping its own (a false profile)",
    "forged": f"one fabricated claim of {FORGED_PCT}% accuracy in the item's domain (the micro-probe)",
}
CONTRAST_HELP = {
    "core-placebo": "AUROC(core) - AUROC(placebo) on matched answered cells: does a truthful profile repair "
    "discrimination beyond a profile-shaped placebo? (confirmatory, Holm-adjusted with core-off)",
    "core-off": "AUROC(core) - AUROC(off): does a truthful profile beat an empty slot? (confirmatory)",
    "shuffled-core": "shuffled minus core: what a false profile costs (exploratory)",
    "forged-off": "forged minus off, above all the mean stated-confidence shift in points: does a fabricated claim "
    "move stated confidence? An interval above 0 flags the channel manipulable (exploratory)",
}


# ------------------------------------------------------------------------------------------ battery
@dataclass(frozen=True)
class BatteryItem:
    item_id: str
    question: str
    gold: str
    domain: str


def load_battery(path: str | os.PathLike) -> list[BatteryItem]:
    """Read a probe battery: CSV with ``question`` (or ``problem``), ``answer``, ``domain`` (optional ``item_id``).

    Missing file or column, an empty field and a repeated id raise ``ValueError`` naming file, line and field.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "b.csv"
    >>> _ = p.write_text("question,answer\\nWhat?,x\\n")
    >>> try:
    ...     load_battery(p)
    ... except ValueError as e:
    ...     print(str(e).split(": ", 1)[1][:32])
    no 'domain' column (columns: que
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: battery file not found")
    out: list[BatteryItem] = []
    seen: dict[str, int] = {}
    with open(p, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        cols = reader.fieldnames or []
        qcol = "question" if "question" in cols else "problem" if "problem" in cols else None
        for need, have in (("domain", "domain" in cols), ("question", qcol is not None), ("answer", "answer" in cols)):
            if not have:
                raise ValueError(
                    f"{p}: no {need!r} column (columns: {', '.join(cols) or 'none'}); a probe battery needs "
                    "question, answer, domain"
                )
        assert qcol is not None
        for idx, row in enumerate(reader):
            line = reader.line_num
            iid = (row.get("item_id") or "").strip() if "item_id" in cols else str(idx)
            for field, val in (("item_id", iid), (qcol, row.get(qcol)), ("answer", row.get("answer"))):
                if not (val or "").strip():
                    raise ValueError(f"{p}: line {line}: field {field!r} is empty")
            dom = (row.get("domain") or "").strip()
            if not dom:
                raise ValueError(f"{p}: line {line}: field 'domain' is empty")
            if iid in seen:
                raise ValueError(f"{p}: line {line}: item_id {iid!r} repeats line {seen[iid]}")
            seen[iid] = line
            out.append(BatteryItem(iid, str(row[qcol]).strip(), str(row["answer"]).strip(), dom))
    if not out:
        raise ValueError(f"{p}: no items")
    return out


def split_battery(items: list[BatteryItem], seed: int) -> tuple[list[BatteryItem], list[BatteryItem]]:
    """Per domain, a seeded split into a profile half (the larger half when odd) and a held-out half.

    Definition: the items of each domain, in file order, are permuted by stream ``(seed, "probe-split", domain)``;
    the first ceil(n/2) form the profile split.  A domain with fewer than 2 x :data:`MIN_PER_SPLIT` items is an
    error naming every such domain and its count.

    >>> its = [BatteryItem(str(i), f"q{i}", "a", "d") for i in range(5)]
    >>> [len(s) for s in split_battery(its, 1)]
    [3, 2]
    """
    by: dict[str, list[BatteryItem]] = {}
    for it in items:
        by.setdefault(it.domain, []).append(it)
    small = {d: len(v) for d, v in by.items() if len(v) < 2 * MIN_PER_SPLIT}
    if small:
        what = ", ".join(f"{d!r} has {n} item{'s' * (n != 1)}" for d, n in sorted(small.items()))
        raise ValueError(
            f"too few items per domain for a profile split and a held-out split of at least {MIN_PER_SPLIT} each "
            f"(need {2 * MIN_PER_SPLIT}): {what}"
        )
    prof: list[BatteryItem] = []
    held: list[BatteryItem] = []
    for d in sorted(by):
        v = by[d]
        order = stream(seed, "probe-split", d).permutation(len(v))
        k = math.ceil(len(v) / 2)
        prof += [v[i] for i in order[:k]]
        held += [v[i] for i in order[k:]]
    return prof, held


# ----------------------------------------------------------------------------------------- profiles
def make_profiles(core: pd.Series, seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Placebo and shuffled profiles for the true per-domain accuracy ``core`` (index: domain).

    Definitions: **shuffled** is a permutation of the core values across domains without a fixed point (seeded);
    **placebo** draws values uniformly in [0, 1], shifts them to the core mean (clipped to [0, 1]) and is redrawn
    (stream ``(seed, "probe-placebo")``) until |Spearman rho| with core is below
    :data:`selfconf.sections.probe.PLACEBO_RHO_MAX`.
    All-equal core values (rho undefined) and a placebo not found in :data:`PLACEBO_TRIES` draws are errors.
    Returns the profile frame (``bin, core, placebo, shuffled``) and the check ``{"placebo_rho", "placebo_draws"}``.

    Reference: Spearman (1904); the paper's placebo validation (Result 2).

    >>> import pandas as pd
    >>> core = pd.Series([0.2, 0.5, 0.9, 0.4, 0.7], index=list("abcde"))
    >>> prof, chk = make_profiles(core, 1)
    >>> abs(chk["placebo_rho"]) < 0.10, sorted(prof["shuffled"]) == sorted(core)
    (True, True)
    """
    import pandas as pd

    from selfconf.metrics import spearman_rho
    from selfconf.sections import probe as analysis

    vals = core.to_numpy(dtype=float)
    k = vals.size
    if k < 2 or np.all(vals == vals[0]):
        what = "one domain" if k < 2 else f"the same accuracy ({vals[0]:.2f}) in all {k} domains"
        raise ValueError(
            f"the measured profile has {what}: "
            "no placebo can be uncorrelated with it (rank correlation undefined) and no permutation makes it false; "
            "use a battery whose domains differ in difficulty"
        )
    rng = stream(seed, "probe-shuffle")
    for _ in range(PLACEBO_TRIES):
        perm = rng.permutation(k)
        if not np.any(perm == np.arange(k)):
            break
    shuffled = vals[perm]
    prng = stream(seed, "probe-placebo")
    for draw in range(1, PLACEBO_TRIES + 1):
        u = prng.random(k)
        pl = np.clip(np.round(u - u.mean() + vals.mean(), 2), 0.0, 1.0)
        rho = spearman_rho(pl, vals)
        if np.isfinite(rho) and abs(rho) < analysis.PLACEBO_RHO_MAX:
            frame = pd.DataFrame({"bin": list(core.index), "core": vals, "placebo": pl, "shuffled": shuffled})
            return frame, {"placebo_rho": rho, "placebo_draws": draw}
    raise ValueError(
        f"no placebo profile with |Spearman rho| < {analysis.PLACEBO_RHO_MAX} found in {PLACEBO_TRIES} draws over "
        f"{k} domains; with so few domains the rank correlation cannot get that small: use more domains"
    )


def render_slot(arm: str, profile: pd.DataFrame | None, domain: str) -> str:
    """The calibration slot of the system prompt for ``arm`` (the arm's name never appears).

    ``profile`` None renders placeholders (a dry run before stage 1).

    >>> import pandas as pd
    >>> prof = pd.DataFrame({"bin": ["law", "music"], "core": [0.5, 0.75], "placebo": [0.6, 0.65],
    ...     "shuffled": [0.75, 0.5]})
    >>> print(render_slot("core", prof, "law"))
    Calibration profile (your measured accuracy by domain):
    - law: 50%
    - music: 75%
    >>> print(render_slot("forged", prof, "law").splitlines()[1])
    - law: 95%
    """
    head = "Calibration profile (your measured accuracy by domain):"
    if arm == "forged":
        return f"{head}\n- {domain}: {FORGED_PCT}%"
    if profile is None:
        return head + "\n- <domain>: <" + ("no value" if arm == "off" else "measured in stage 1") + ">"
    lines = [head]
    for _, r in profile.iterrows():
        v = "n/a" if arm == "off" else f"{round(100 * float(r[arm]))}%"
        lines.append(f"- {r['bin']}: {v}")
    return "\n".join(lines)


def arm_messages(item: BatteryItem, slot: str | None, *, label_topics: bool) -> list[dict[str, str]]:
    """Chat messages: ``collect``'s system prompt (plus the slot in stage 2) and the question as the user turn."""
    system = SYSTEM_PROMPT if slot is None else f"{SYSTEM_PROMPT}\n\n{slot}"
    user = f"Topic: {item.domain}\n{item.question}" if label_topics else item.question
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# -------------------------------------------------------------------------------------------- log
def _key(r: dict) -> tuple:
    return (str(r.get("stage")), str(r.get("item_id")), str(r.get("arm")), int(r.get("replicate") or 0))


def _record(stage: str, item: BatteryItem, arm: str | None, rep: int, text: str, meta: dict) -> dict:
    parsed = parse_reply(text)
    g = grade_stage1(parsed.answer, item.gold, raw=text)
    refusal = bool(g["refusal"])
    status = "ok" if (parsed.ok or refusal) else "parse_error"
    return {
        "stage": stage,
        "item_id": item.item_id,
        "domain": item.domain,
        "arm": arm,
        "replicate": rep,
        "answer": parsed.answer,
        "confidence": None if (refusal or not parsed.ok) else parsed.confidence,
        "parse_error": parsed.error,
        "abstained": refusal,
        "status": status,
        "correct": bool(g["correct"] == 1),
        "graded_by": g["graded_by"],
        "raw": text,
        "attempts": meta.get("attempts"),
    }


def log_frame(records: list[dict]) -> tuple[pd.DataFrame, pd.DataFrame | None, dict]:
    """Stage-2 rows of a probe log in the ladder layout, the profile frame and the run's header."""
    import pandas as pd

    head = next((r for r in records if r.get("stage") == "meta"), {})
    prof_rec = next((r for r in records if r.get("stage") == "profiles"), None)
    arms = [r for r in records if r.get("stage") == "arm"]
    if not arms:
        raise ValueError("the log holds no stage-2 (arm) rows yet")
    df = pd.DataFrame(
        {
            "item_id": [r["item_id"] for r in arms],
            "bin": [r["domain"] for r in arms],
            "arm": [r["arm"] for r in arms],
            "replicate": [int(r["replicate"]) for r in arms],
            "is_trap": False,
            "status": [r["status"] for r in arms],
            "abstained": [bool(r["abstained"]) for r in arms],
            "confidence": [np.nan if r["confidence"] is None else float(r["confidence"]) for r in arms],
            "correct": [bool(r["correct"]) for r in arms],
        }
    )
    prof = None
    if prof_rec is not None:
        prof = pd.DataFrame({k: prof_rec[k] for k in ("bin", "core", "placebo", "shuffled")})
    return df, prof, head


def analyse_path(path: str | os.PathLike, *, n_boot: int, seed: int) -> tuple[dict[str, Any], dict[str, pd.DataFrame]]:
    """``--analyse-only``: a probe log (JSONL), or a ladder layout (``scored-arms-<subject>.jsonl`` files).

    Returns the result (``source``, ``subjects``: one :func:`selfconf.sections.probe.analyse` result each) and
    the rows per subject.

    A ladder layout (the folder itself, or a data folder holding ``ladder/``) gives one result per subject,
    each analysed by :func:`selfconf.sections.probe.analyse` with its injected profiles.
    """
    from selfconf.sections import probe as analysis

    p = Path(path)
    if p.is_dir():
        from selfconf.data.families import load_ladder

        root = p.parent if p.name == "ladder" else p
        frames, profiles, _ = load_ladder(root)
        res = {s: analysis.analyse(frames[s], n_boot=n_boot, seed=seed, profile=profiles[s]) for s in frames}
        return {"source": str(p), "subjects": res}, frames
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no probe log or ladder folder here")
    records, torn = read_log(p)
    head = next((r for r in records if r.get("stage") == "meta"), {})
    name = str(head.get("model") or p.stem)
    res, df = _analyse_log(records, n_boot=n_boot, seed=seed)
    res["checks"]["torn_last_line_skipped"] = torn
    return {"source": str(p), "model": head.get("model"), "subjects": {name: res}}, {name: df}


def _confidence_coverage(df: pd.DataFrame) -> int:
    """Rows without a usable confidence (counted, excluded from the answered-row statistics); an arm where no
    reply carried one is an error."""
    for arm, g in df.groupby("arm"):
        if (g["status"] != "ok").all():
            raise ValueError(
                f"arm {arm!r}: none of its {len(g)} replies carried a readable confidence (the endpoint returns no "
                "'confidence' field); the probe needs a stated 0-100 confidence in every reply"
            )
    return int((df["status"] != "ok").sum())


# -------------------------------------------------------------------------------------------- run
@dataclass
class _Counter:
    made: int = 0
    retried: int = 0
    failed: int = 0


def _ask(client: ChatClient, tasks: list[tuple], log: JsonlLog, cnt: _Counter, concurrency: int, say) -> None:
    """Ask every task (one stage's cells) on ``concurrency`` threads, appending each reply to ``log``; ``cnt``
    counts the run's requests (made, retried, failed) across stages.  About every tenth finished cell of the stage
    (and the last) prints ``progress <cells finished>/<cells of this stage>`` with the run's counts so far."""
    lock = threading.Lock()
    stop = threading.Event()
    fatal: list[EndpointError] = []
    total = len(tasks)
    finished = 0

    def tick() -> None:  # called under the lock, once per finished cell (answered or failed)
        nonlocal finished
        finished += 1
        if total >= 10 and (finished % max(1, total // 10) == 0 or finished == total):
            say(
                f"  progress {finished}/{total} cells: requests made {cnt.made}, retried {cnt.retried}, "
                f"failed {cnt.failed}"
            )

    def work(t: tuple) -> None:
        stage, item, arm, rep, messages = t
        if stop.is_set():
            return
        try:
            text, meta = client.chat(messages, temperature=0)
        except EndpointError as exc:
            with lock:
                cnt.failed += 1
                cnt.made += exc.attempts
                if not exc.retryable:
                    stop.set()
                    fatal.append(exc)
                tick()
            return
        log.append(_record(stage, item, arm, rep, text, meta))
        with lock:
            cnt.made += int(meta.get("attempts") or 1)
            cnt.retried += int(meta.get("attempts") or 1) - 1
            tick()

    with cf.ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for fut in cf.as_completed([pool.submit(work, t) for t in tasks]):
            fut.result()
    if fatal:
        raise fatal[0]


def _battery_digest(items: list[BatteryItem]) -> str:
    h = hashlib.sha256()
    for it in items:
        h.update(json.dumps([it.item_id, it.question, it.gold, it.domain]).encode())
    return h.hexdigest()[:16]


def profile_table(records: list[dict]) -> list[dict[str, Any]]:
    """Stage 1 of a probe log, per domain: ``domain, n, n_correct, accuracy, ci_low, ci_high, n_unresolved``.

    Definition: accuracy = correct stage-1 answers / stage-1 answers of the domain (an unresolved grade counts as
    wrong and is counted in ``n_unresolved``); the interval is Wilson's
    (:func:`selfconf.stats.proportions.wilson_interval`).

    >>> profile_table([{"stage": "profile", "domain": "law", "correct": True, "graded_by": "normalised_match"},
    ...                {"stage": "profile", "domain": "law", "correct": False, "graded_by": "unresolved"}])[0]["n"]
    2
    """
    from selfconf.stats.proportions import wilson_interval

    rows = [r for r in records if r.get("stage") == "profile"]
    out = []
    for d in sorted({str(r["domain"]) for r in rows}):
        mine = [r for r in rows if r["domain"] == d]
        k = sum(bool(r["correct"]) for r in mine)
        lo, hi = wilson_interval(k, len(mine))
        out.append(
            {
                "domain": d,
                "n": len(mine),
                "n_correct": k,
                "accuracy": k / len(mine),
                "ci_low": lo,
                "ci_high": hi,
                "n_unresolved": sum(r.get("graded_by") == "unresolved" for r in mine),
            }
        )
    return out


def _log_checks(records: list[dict]) -> dict[str, Any]:
    """Stage-1 profile with counts and intervals, and the stage-2 grades left unresolved (counted as wrong)."""
    arm = [r for r in records if r.get("stage") == "arm"]
    return {
        "profile": profile_table(records),
        "stage2_unresolved_as_wrong": sum(r.get("graded_by") == "unresolved" for r in arm),
    }


def _profile_from_log(records: list[dict], domains: list[str]) -> pd.Series:
    import pandas as pd

    rows = [r for r in records if r.get("stage") == "profile"]
    acc = {d: [bool(r["correct"]) for r in rows if r["domain"] == d] for d in domains}
    return pd.Series({d: float(np.mean(v)) for d, v in acc.items()})


@dataclass(frozen=True)
class _Plan:
    """A run's battery, its two splits, the arms and the replicates (what ``--dry-run`` prints)."""

    items: list[BatteryItem]
    prof_items: list[BatteryItem]
    held: list[BatteryItem]
    domains: list[str]
    arms: tuple[str, ...]
    replicates: int

    @property
    def n_calls(self) -> int:
        return len(self.prof_items) + len(self.held) * len(self.arms) * self.replicates


def _plan(args: argparse.Namespace) -> _Plan:
    from selfconf.sections.probe import PROBE_ARMS

    items = load_battery(args.battery)
    prof_items, held = split_battery(items, args.seed)
    domains = sorted({it.domain for it in items})
    return _Plan(items, prof_items, held, domains, PROBE_ARMS, args.replicates)


def _profile_frame(rec: dict) -> pd.DataFrame:
    """The injected profiles of a log's ``profiles`` record as a frame (``bin, core, placebo, shuffled``)."""
    import pandas as pd

    return pd.DataFrame({k: rec[k] for k in ("bin", "core", "placebo", "shuffled")})


def _dry_run(args: argparse.Namespace, plan: _Plan) -> int:
    """Print the call count and one rendered prompt per arm (the profiles of ``--out`` when it has them)."""
    profile = None
    if Path(args.out).is_file():
        pr = next((r for r in read_log(Path(args.out))[0] if r.get("stage") == "profiles"), None)
        profile = None if pr is None else _profile_frame(pr)
    ex, K = plan.held[0], plan.replicates
    print(
        f"dry run: no call made. {len(plan.items)} items in {len(plan.domains)} domains: {len(plan.prof_items)} "
        f"profile, {len(plan.held)} held-out; calls: {len(plan.prof_items)} (stage 1) + {len(plan.held)} x "
        f"{len(plan.arms)} arms x {K} replicates = {plan.n_calls}"
    )
    for arm in plan.arms:
        msgs = arm_messages(ex, render_slot(arm, profile, ex.domain), label_topics=args.label_topics)
        print(f"\n--- arm {arm} (item {ex.item_id}) ---\n[system]\n{msgs[0]['content']}\n[user]\n{msgs[1]['content']}")
    return 0


def _start_or_resume(args: argparse.Namespace, log: JsonlLog, plan: _Plan, model: str, say) -> None:
    """Write the run's header to a new log, or check that a log being resumed was started with these settings."""
    header = {
        "stage": "meta",
        "item_id": "",
        "arm": None,
        "replicate": 0,
        "model": model,
        "seed": args.seed,
        "replicates": plan.replicates,
        "label_topics": bool(args.label_topics),
        "battery_sha": _battery_digest(plan.items),
    }
    if log.dropped_partial:
        say(f"{args.out}: removed a truncated last line left by an interrupted run")
    old = next((r for r in log.records if r.get("stage") == "meta"), None)
    if old is None:
        log.append(header)
        return
    diff = [k for k in ("model", "seed", "replicates", "label_topics", "battery_sha") if old.get(k) != header[k]]
    if diff:
        raise ValueError(
            f"{args.out}: this log was started with other settings ({', '.join(diff)} differ); "
            "resume with the same ones or write to a new --out"
        )


def _stage1(
    args, plan: _Plan, client, log: JsonlLog, cnt: _Counter, budget: int, done: set, say
) -> tuple[int, int | None]:
    """Ask the profile split's items not yet logged (at most ``budget``); returns the calls asked and, when the
    stage is not complete, the exit status to stop with."""
    todo = [
        ("profile", it, None, 0, arm_messages(it, None, label_topics=args.label_topics))
        for it in plan.prof_items
        if ("profile", it.item_id, "None", 0) not in done
    ][:budget]
    say(f"stage 1: {len(plan.prof_items) - len(todo)} profile items already logged, asking {len(todo)}")
    _ask(client, todo, log, cnt, args.concurrency, say)
    missing = [it for it in plan.prof_items if ("profile", it.item_id, "None", 0) not in log.done_keys()]
    if not missing:
        return len(todo), None
    if args.max_calls is not None and len(todo) >= budget:
        say(f"stopped at --max-calls {args.max_calls} in stage 1; run the same command again to continue")
        return len(todo), 0
    say(f"stage 1 incomplete: {len(missing)} profile items without a reply; run the same command again")
    return len(todo), 3


def _profiles(args: argparse.Namespace, plan: _Plan, log: JsonlLog, say) -> pd.DataFrame:
    """The run's injected profiles: from the log, or made from stage 1 (:func:`make_profiles`) and logged."""
    from selfconf.sections.probe import PLACEBO_RHO_MAX

    prec = next((r for r in log.records if r.get("stage") == "profiles"), None)
    if prec is None:
        frame, chk = make_profiles(_profile_from_log(log.records, plan.domains), args.seed)
        prec = {"stage": "profiles", "item_id": "", "arm": None, "replicate": 0}
        prec.update({k: frame[k].tolist() for k in ("bin", "core", "placebo", "shuffled")})
        prec.update(chk)
        log.append(prec)
    say(
        f"placebo check: Spearman rho {prec['placebo_rho']:+.3f} with the true profile "
        f"(|rho| < {PLACEBO_RHO_MAX}, {prec['placebo_draws']} draw(s))"
    )
    return _profile_frame(prec)


def _stage2(args, plan: _Plan, client, log: JsonlLog, cnt: _Counter, left: int, done: set, say) -> bool:
    """Ask every held-out item x arm x replicate cell not yet logged, the arms of an item in its seeded order
    (stream ``probe-arm-order``), at most ``left``; returns whether ``--max-calls`` cut the list."""
    profile = _profiles(args, plan, log, say)
    tasks = []
    for it in plan.held:
        order = stream(args.seed, "probe-arm-order", it.item_id).permutation(len(plan.arms))
        for rep in range(1, plan.replicates + 1):
            for arm in (plan.arms[j] for j in order):
                if ("arm", it.item_id, arm, rep) not in done:
                    slot = render_slot(arm, profile, it.domain)
                    tasks.append(("arm", it, arm, rep, arm_messages(it, slot, label_topics=args.label_topics)))
    say(f"stage 2: asking {min(len(tasks), left)} item x arm x replicate cells")
    _ask(client, tasks[:left], log, cnt, args.concurrency, say)
    return len(tasks) > left


def _analyse_log(
    records: list[dict], *, n_boot: int, seed: int, calls: dict[str, int] | None = None
) -> tuple[dict[str, Any], pd.DataFrame]:
    """A probe log's analysis (:func:`selfconf.sections.probe.analyse` on its arm rows and profiles) with the
    log's own checks: rows without a confidence, the calls of this run (``calls``, when collected now), the
    stage-1 profile, unresolved stage-2 grades."""
    from selfconf.sections import probe as analysis

    df, prof, _ = log_frame(records)
    n_noconf = _confidence_coverage(df)
    res = analysis.analyse(df, n_boot=n_boot, seed=seed, profile=prof)
    res["checks"]["rows_without_confidence"] = n_noconf
    res["checks"].update(calls or {})
    res["checks"].update(_log_checks(records))
    return res, df


def _run_live(args: argparse.Namespace, say, *, client: Any = None, analyse: bool = True) -> int:
    """Collect (and unless ``analyse`` is false, analyse and print) a probe run; ``client`` replaces the HTTP client
    built from ``args`` (the in-process scripted models of :mod:`selfconf.cli.probe_sim`).

    Steps: the plan (:func:`_plan`), or only :func:`_dry_run`; under the output lock, :func:`_start_or_resume`,
    :func:`_stage1` (the model's own profile), :func:`_stage2` (the arms), then :func:`_analyse_log`."""
    plan = _plan(args)
    if args.dry_run:
        return _dry_run(args, plan)
    if client is None:
        client = client_from_args(args)
    cnt = _Counter()
    with OutputLock(args.out):
        log = JsonlLog(args.out, key=_key)
        try:
            _start_or_resume(args, log, plan, client.model, say)
            budget = args.max_calls if args.max_calls is not None else plan.n_calls
            done = log.done_keys()
            asked, stop = _stage1(args, plan, client, log, cnt, budget, done, say)
            if stop is not None:
                return stop
            capped = _stage2(args, plan, client, log, cnt, max(0, budget - asked), done, say)
            records = list(log.records)
        finally:
            log.close()
    say(f"calls made {cnt.made}, retried {cnt.retried}, failed {cnt.failed}")
    if capped:
        say(f"stopped at --max-calls {args.max_calls}; run the same command again to continue")
        return 0
    if cnt.failed:
        say("some cells got no reply; run the same command again to retry only those")
        return 3
    if not analyse:
        return 0
    calls = {"calls_made": cnt.made, "calls_retried": cnt.retried, "calls_failed": cnt.failed}
    res, df = _analyse_log(records, n_boot=args.n_boot, seed=args.seed, calls=calls)
    _emit(args, {"source": args.out, "model": client.model, "subjects": {client.model: res}}, {client.model: df})
    return 0


def read_log(path: Path) -> tuple[list[dict], int]:
    """Records of a probe log, read without writing to it; returns ``(records, torn)``.

    :func:`selfconf.cli.collect.parse_jsonl`, the reader ``collect``'s log uses: a last line cut short by a
    kill is skipped and counted (``torn`` = 1); any other unreadable line is an error naming the file and line.
    """
    got = parse_jsonl(Path(path).read_bytes(), path)
    return got.records, got.torn


def probe_html(result: dict[str, Any], frames: dict[str, pd.DataFrame]) -> str:
    """A self-contained HTML page of a probe: per subject the terminal's tables and readings (the same printed
    values), each arm's reliability diagram (ten equal-width bins of answered rows,
    :func:`selfconf.metrics.reliability_bins`) and the per-item confidence shift forged - off
    (:func:`selfconf.sections.probe.confidence_shifts`), drawn with the report's chart code and its inlined
    Vega bundle (works offline).

    Steps: per subject :func:`_probe_specs` (its charts) and :func:`_probe_section` (its block), then
    :func:`_probe_page` (the page around them)."""
    specs: dict[str, Any] = {}
    parts: list[str] = []
    for k, (subject, res) in enumerate(result["subjects"].items()):
        specs.update(_probe_specs(frames[subject], [r["arm"] for r in res["arms"]], k))
        parts.append(_probe_section(subject, res, [c for c in specs if c.endswith(str(k))]))
    return _probe_page(str(result["source"]), parts, specs)


def _reliability_points(df: pd.DataFrame, arms: list[str]) -> list[dict[str, Any]]:
    """The points of the reliability chart: per arm, one per non-empty bin of ten equal-width bins of its
    answered rows (``model`` = the arm, ``bin`` as ``"90-100"``, ``n``, ``mean_conf`` and ``acc`` in points)."""
    from selfconf import metrics
    from selfconf.sections import ladder

    pts = []
    for arm in arms:
        a = ladder.answered_rows(df[df["arm"] == arm])
        if not len(a):
            continue
        rb = metrics.reliability_bins(a["confidence"].to_numpy() / 100, a["correct"].to_numpy().astype(int))
        for lo, hi, n, c, acc in zip(rb["lo"], rb["hi"], rb["n"], rb["mean_conf"], rb["acc"], strict=True):
            if n:
                pts.append(
                    {
                        "model": arm,
                        "bin": f"{100 * lo:.0f}-{100 * hi:.0f}",
                        "n": int(n),
                        "mean_conf": 100 * c,
                        "acc": 100 * acc,
                    }
                )
    return pts


def _probe_specs(df: pd.DataFrame, arms: list[str], k: int) -> dict[str, Any]:
    """The Vega-Lite specs of subject number ``k``: ``rel<k>``, the reliability chart of its arms
    (:func:`_reliability_points`), and, when it has the arms forged and off, ``shift<k>``, the histogram of the
    per-item confidence shift forged - off."""
    import altair as alt
    import pandas as pd

    from selfconf.report import html as rhtml
    from selfconf.sections import probe as analysis

    specs: dict[str, Any] = {}
    curve = pd.DataFrame({"model": [], "t": [], "acc": [], "low": [], "high": []})
    with rhtml._no_row_limit():
        rel = rhtml.reliability_chart(pd.DataFrame(_reliability_points(df, arms)), curve, arms, ece_note="").to_dict()
        rel["title"] = "Reliability per arm: ten equal-width bins of answered rows (dot size = answers)"
        specs[f"rel{k}"] = rel
        if {"forged", "off"} <= set(arms):
            sh = analysis.confidence_shifts(df, "forged", "off")
            specs[f"shift{k}"] = (
                alt.Chart(sh)
                .mark_bar()
                .encode(
                    x=alt.X("shift:Q", bin=alt.Bin(maxbins=30), title="stated confidence, forged - off (points)"),
                    y=alt.Y("count():Q", title="items"),
                )
                .properties(width=420, height=240, title="Per-item confidence shift under the forged claim")
                .to_dict()
            )
    return specs


def _probe_section(subject: str, res: dict[str, Any], chart_ids: list[str]) -> str:
    """One subject's block of the page: its name, the terminal's tables, the readings as a list and an empty
    ``div`` per chart id (filled by the page's script)."""
    from html import escape as esc

    from selfconf.sections import probe as analysis

    sentences = "".join(f"<li>{esc(x)}</li>" for x in analysis.sentences(res))
    charts = "".join(f'<div class="chart" id="{c}"></div>' for c in chart_ids)
    return (
        f"<h2>{esc(subject)}</h2><pre>{esc(analysis.format_tables(res))}</pre><ul>{sentences}</ul>"
        f'<div class="charts">{charts}</div>'
    )


def _probe_page(source: str, parts: list[str], specs: dict[str, Any]) -> str:
    """The whole page: the inlined Vega bundle, the subjects' blocks ``parts`` and a script that draws each spec
    of ``specs`` into the element of its id (a chart that fails says so in its place)."""
    from html import escape as esc

    from selfconf.report import html as rhtml

    spec_json = json.dumps(specs).replace("</", "<\\/")
    js = rhtml._js_bundle(rhtml._vl_version()).replace("</script", "<\\/script")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>selfconf probe</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }}
pre {{ font-size: 0.8em; overflow-x: auto; }}
.charts {{ display: flex; flex-wrap: wrap; gap: 2em; margin-top: 1em; }}
.note {{ color: #555; font-size: 0.85em; }}
</style>
<script type="text/javascript">{js}</script></head><body>
<h1>Self-profile probe</h1>
<p class="note">source: {esc(source)} · <code>selfconf probe</code></p>
{"".join(parts)}
<script type="text/javascript">
const specs = {spec_json};
for (const [id, spec] of Object.entries(specs)) {{
  vegaEmbed("#" + id, spec, {{renderer: "svg", actions: false}}).catch(err => {{
    document.getElementById(id).textContent = "chart failed to render: " + err;
  }});
}}
</script></body></html>
"""


def _emit(args: argparse.Namespace, result: dict[str, Any], frames: dict[str, pd.DataFrame] | None = None) -> None:
    from selfconf.claims.judging import fmt
    from selfconf.sections import probe as analysis

    if getattr(args, "html", None) and frames is not None:
        Path(args.html).parent.mkdir(parents=True, exist_ok=True)
        Path(args.html).write_text(probe_html(result, frames), encoding="utf-8")
        print(f"wrote {args.html}", file=sys.stderr)
    if args.json:
        print(json.dumps(_jsonable(result), indent=1, allow_nan=False))
        return
    for subject, res in result["subjects"].items():
        print(f"== {subject} ({result['source']})")
        prof = res["checks"].get("profile")
        if prof:
            print("Stage 1 profile (the model's own per-domain accuracy, Wilson 95% interval)")
            for r in prof:
                print(
                    f"  {r['domain']:<16} {r['n_correct']:>4}/{r['n']:<4} {fmt(r['accuracy'], 3)} "
                    f"[{fmt(r['ci_low'], 3)}, {fmt(r['ci_high'], 3)}]"
                    + (f"  ({r['n_unresolved']} unresolved, counted wrong)" if r["n_unresolved"] else "")
                )
            print()
        print(analysis.format_tables(res))
        print()
        for s in analysis.sentences(res):
            print(f"* {s}")
        print()


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return None if not math.isfinite(float(x)) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


HELP = "probe a model's self-profile channel: the paper's profile-injection ladder and manipulation probe"


def add_parser(subparsers) -> argparse.ArgumentParser:
    import textwrap

    def block(d: dict[str, str], w: int) -> str:
        return "\n".join(
            textwrap.fill(
                v, 104, break_on_hyphens=False, initial_indent=f"  {k:<{w}} ", subsequent_indent=" " * (w + 3)
            )
            for k, v in d.items()
        )

    arms, contr = block(ARM_HELP, 9), block(CONTRAST_HELP, 14)
    p = subparsers.add_parser(
        "probe",
        help=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Ask the paper's Result 2 and 3 questions of your own model: does a truthful competence profile in the\n"
            "system prompt help stated confidence discriminate right from wrong answers, and does a false one move\n"
            "it? Stage 1 measures the model's per-domain accuracy on a profile split of the battery; stage 2 asks\n"
            "the held-out split once per arm and replicate, each arm filling the same calibration slot.\n\n"
            f"arms:\n{arms}\n\ncontrasts (A - B, paired, item-clustered bootstrap):\n{contr}\n\n"
            "degeneracy bound: OFF accuracy above 0.85 demotes the run from confirmatory reading (stated).\n"
            "--analyse-only PATH analyses a probe log, or the ladder layout (data/reconstructed/ladder/) with the\n"
            "book's Table 3 functions, without any call."
        ),
        epilog=(
            "example: OPENAI_API_KEY=... selfconf probe --base-url https://api.openai.com/v1 --model MODEL "
            "--battery battery.csv --out runs/probe-MODEL.jsonl --dry-run"
        ),
    )
    p.add_argument("--analyse-only", metavar="PATH", help="analyse a probe log or ladder folder; no endpoint call")
    p.add_argument("--battery", help="CSV with question (or problem), answer, domain (optional item_id)")
    p.add_argument("--out", help="JSONL log (append-only; an interrupted run resumes from it)")
    add_client_arguments(p, required=False)
    p.add_argument("--concurrency", type=int, default=4, help="parallel requests (default 4)")
    p.add_argument("--seed", type=int, default=20261130, help="seed of the split, profiles, arm order, bootstrap")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap draws (default 2000)")
    p.add_argument("--replicates", type=int, default=2, help="replicates per item and arm (default 2)")
    p.add_argument("--label-topics", action="store_true", help="show each item's domain in the user turn")
    p.add_argument("--dry-run", action="store_true", help="print one rendered prompt per arm and the call count")
    p.add_argument("--max-calls", type=int, default=None, help="ask at most N questions in this run")
    p.add_argument("--json", action="store_true", help="print the result as JSON (arms, contrasts, checks)")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="also write an offline HTML page: the tables, per-arm reliability diagrams, the confidence-shift chart",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p


def run(args: argparse.Namespace) -> int:
    if args.n_boot < 1:
        raise ValueError(f"--n-boot must be >= 1, got {args.n_boot}")
    say = (lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    if args.analyse_only:
        _emit(args, *analyse_path(args.analyse_only, n_boot=args.n_boot, seed=args.seed))
        return 0
    missing = [o for o, v in (("--battery", args.battery), ("--out", args.out)) if not v]
    if not args.dry_run:
        missing += [o for o, v in (("--base-url", args.base_url), ("--model", args.model)) if not v]
    if missing:
        raise ValueError(f"{', '.join(missing)} required (or --analyse-only PATH)")
    if args.replicates < 1 or args.concurrency < 1:
        raise ValueError("--replicates and --concurrency must be >= 1")
    return _run_live(args, say)
