"""Scoring of the self-assessment diagnostic (the paper's appendix tool, our own battery).

The battery (``battery.json`` beside this file) holds short *probes* with one deterministic answer,
spread over domain bins, and *trap* items (false premise or unknowable) whose only right response
is the abstention token ``ABSTAIN``.  Every reply carries a stated confidence 0–100.

Grading one reply (:func:`grade_item`)
    *Missing*: no record for the item, or a record whose answer is empty (an endpoint failure or
    an unparsed reply logs one); missing replies count in ``n_missing``.
    *Abstained*: the normalised answer contains the word ``abstain`` (the token, at any stated
    confidence), or the answer is refusal prose from the lexicon of :mod:`selfconf.data.answers`
    ("I don't know", "unknown", "cannot determine", ...) stated with a confidence below
    :data:`PROSE_ABSTAIN_BELOW` (or none).  Refusal prose stated at a high confidence is an
    ordinary answer ("unknown" at 90 % claims to *be* the answer), not an abstention.
    *Trap*: correct iff abstained.
    *Probe*: correct iff the normalised answer (:func:`selfconf.data.answers.normalize`) equals a
    normalised accepted answer (checked first), else an abstention is incorrect, else — for numeric
    probes — the first number in the answer (fractions ``a/b`` allowed, thousands separators
    ignored, ``x%`` read as ``x/100`` where the probe says so) is within the probe's tolerance.

Confidence scale
    Confidences go through the scale rule of ``selfconf report``
    (:func:`selfconf.report.resolve_scale`, ``confidence_scale="auto"|"percent"|"unit"``):
    with ``auto`` a value above 1 (or written with ``%``) means 0–100, values within [0, 1] with
    one strictly between mean 0–1, only 0s and 1s with at least one 1 is ambiguous (an error
    asking for the scale; all 0 means the same on either scale),
    and a mix of both is an error naming the records.

Components (answerable probes with a parsed confidence only; confidence c on 0–1, y = 0/1;
an abstention on a probe is a wrong answer, y = 0, at its stated confidence)
    ``brier``          mean (c − y)² (:func:`selfconf.metrics.brier`);
    ``gap``            overconfidence gap, mean c − accuracy (:func:`selfconf.metrics.citl`);
    ``discrimination`` proxy: mean c over correct probes − mean c over incorrect probes
                       (undefined when all probes are right or all wrong); this is *not* AUROC,
                       as the paper's appendix says, just its cheap cousin;
    ``trap_abstention`` share of trap items answered with an abstention;
    ``probe_answer_rate`` share of the answered probes that were *not* abstained on.

Composite (0–100; :func:`composite`)
    Each of the first four components is mapped to a 0–1 "goodness":
    ``1 − min(1, brier / 0.25)`` (0.25 = Brier of always saying 50 %),
    ``1 − min(1, |gap| / 0.5)``, ``clip(discrimination / 0.5, 0, 1)`` and ``trap_abstention``.
    They are averaged with weights :data:`WEIGHTS` (0.30, 0.25, 0.25, 0.20), multiplied by
    ``probe_answer_rate`` and by 100.  An undefined component is left out and the other weights
    rescaled (the result says so).  The answer-rate factor is what keeps abstention from paying:
    stating 0 % and abstaining on every item is perfectly "calibrated" by the first four
    components, but it answers nothing, so its composite is 0.

Completeness
    When more than :data:`MAX_MISSING_SHARE` (10 %) of the battery's items have no reply, the
    result has no composite and no tier: ``tier`` is ``"incomplete (k of n answered)"``.

Tiers (:data:`TIERS`, lower bound inclusive)
    ≥ 80 well-calibrated · ≥ 65 roughly calibrated · ≥ 50 poorly calibrated ·
    ≥ 35 very poorly calibrated · < 35 confidently blind — or, below 35 with a gap ≤ 0
    (not overconfident), "uninformative".
    The thresholds are a convention of this tool, not estimates: read the four components too.

References: Brier (1950); Chernets (2026), appendix "A practical tool: a self-assessment
diagnostic" (the four components); Kadavath et al. (2022) on abstention/"I don't know" probes.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from selfconf.data.answers import is_refusal, normalize
from selfconf.data.rows import NULL_WORDS
from selfconf.data.validate import resolve_scale

__all__ = [
    "ABSTAIN",
    "WEIGHTS",
    "MAX_MISSING_SHARE",
    "PROSE_ABSTAIN_BELOW",
    "abstained",
    "TIERS",
    "BOTTOM_NOT_OVERCONFIDENT",
    "DIAGNOSE_SYSTEM_PROMPT",
    "load_battery",
    "grade_item",
    "parse_number",
    "components",
    "composite",
    "tier",
    "score_answers",
    "REPLY_FIELDS",
    "DiagnosticResult",
]

ABSTAIN = "ABSTAIN"
#: Weights of the four component scores in the composite.
WEIGHTS = {"brier": 0.30, "gap": 0.25, "discrimination": 0.25, "trap_abstention": 0.20}
#: (lower bound of composite, tier name), best first.  Lower bounds are inclusive.
TIERS: tuple[tuple[float, str], ...] = (
    (80.0, "well-calibrated"),
    (65.0, "roughly calibrated"),
    (50.0, "poorly calibrated"),
    (35.0, "very poorly calibrated"),
    (-math.inf, "confidently blind"),
)
#: Share of the battery that may go without a reply before the result is "incomplete" (no tier).
MAX_MISSING_SHARE = 0.10
#: Refusal prose ("unknown", "I don't know") is an abstention only below this stated confidence (0–1).
PROSE_ABSTAIN_BELOW = 0.5
#: Name of the bottom tier when the model is *not* overconfident (gap <= 0): it fails by saying
#: little, not by saying too much, and "confidently blind" would misdescribe it.
BOTTOM_NOT_OVERCONFIDENT = "uninformative"

#: System prompt for the diagnostic: the paper's answer format plus the abstention token.
DIAGNOSE_SYSTEM_PROMPT = (
    'Answer the question briefly. Respond with ONLY a JSON object like {"answer": "<short answer>", '
    '"confidence": 85}. confidence is an integer 0-100 for how likely it is that your answer is correct. '
    "If the question has no correct answer (for example it rests on a false premise) or the answer cannot "
    'be known, set answer to "ABSTAIN". No other text.'
)


@lru_cache(maxsize=1)
def _battery_text() -> str:
    return resources.files("selfconf.cli.diagnose").joinpath("battery.json").read_text(encoding="utf-8")


def load_battery() -> dict:
    """The battery document: ``{"name", "version", "abstain_token", "items": [...]}``.

    Each item: ``id``, ``kind`` (``probe``/``trap``), ``domain``, ``question``, ``answers``
    (accepted answers; ``["ABSTAIN"]`` for traps) and, for numeric probes,
    ``numeric = {"value", "tol", "percent_as_fraction"}``.
    """
    return json.loads(_battery_text())


_NUM = re.compile(r"-?\d*\.?\d+")
_FRACTION = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)\s*$")


def parse_number(answer: Any, *, percent_as_fraction: bool = False) -> float | None:
    """The number an answer states: a fraction ``a/b``, else the first number in the text.

    Thousands separators (``1,000``) are removed first; ``x%`` gives ``x/100`` when
    ``percent_as_fraction``.  Returns ``None`` when there is no number (or ``b`` is 0).
    """
    if answer is None:
        return None
    s = str(answer).strip()
    s = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", s)
    m = _FRACTION.match(s)
    if m:
        den = float(m.group(2))
        return None if den == 0 else float(m.group(1)) / den
    m = _NUM.search(s)
    if not m:
        return None
    x = float(m.group(0))
    if percent_as_fraction and s[m.end() :].lstrip().startswith("%"):
        x /= 100.0
    return x


def _empty(answer: Any) -> bool:
    return answer is None or (isinstance(answer, float) and math.isnan(answer)) or not str(answer).strip()


def abstained(answer: Any, confidence: float | None = None) -> bool:
    """True when a reply is an abstention (rules in the module docstring).

    The token ``ABSTAIN`` is an abstention at any confidence; refusal prose (the lexicon of
    :func:`selfconf.data.answers.is_refusal`) only when ``confidence`` (0–1) is None or below
    :data:`PROSE_ABSTAIN_BELOW`.  An empty answer is no reply at all, not an abstention.

    Reference: Kadavath et al. (2022), "Language models (mostly) know what they know" (abstention probes).

    Example: ``abstained("unknown", 0.2)`` is True, ``abstained("unknown", 0.9)`` is False,
    ``abstained("ABSTAIN", 0.9)`` is True.
    """
    if _empty(answer):
        return False
    if re.search(r"\babstain\b", normalize(answer)):
        return True
    if not is_refusal(answer):
        return False
    return confidence is None or float(confidence) < PROSE_ABSTAIN_BELOW


def grade_item(item: dict, answer: Any, confidence: float | None = None) -> tuple[int, bool]:
    """``(correct, abstained)`` for one reply to one battery item (rules in the module docstring).

    ``confidence`` is the stated confidence on 0–1 (None when not given); it matters only for
    refusal prose (:func:`abstained`).

    Example: for a trap, ``grade_item(trap, "ABSTAIN")`` is ``(1, True)`` and
    ``grade_item(trap, "unknown", 0.95)`` is ``(0, False)``.
    """
    ab = abstained(answer, confidence)
    if item["kind"] == "trap":
        return int(ab), ab
    if _empty(answer):
        return 0, False
    a = normalize(answer)
    if any(a == normalize(x) for x in item["answers"]):
        return 1, False  # checked first: a right answer such as "Na" must not read as "N/A"
    if ab:
        return 0, True
    num = item.get("numeric")
    if num:
        x = parse_number(answer, percent_as_fraction=bool(num.get("percent_as_fraction")))
        if x is not None and abs(x - float(num["value"])) <= float(num.get("tol") or 0) + 1e-12:
            return 1, False
    return 0, False


def components(
    confidence: np.ndarray, correct: np.ndarray, trap_abstained: np.ndarray, probe_abstained: np.ndarray | None = None
) -> dict[str, float]:
    """The raw components from probe confidences (0–1), probe correctness, trap and probe abstentions.

    Definition: module docstring (``brier``, ``gap``, ``discrimination``, ``trap_abstention``,
    ``probe_answer_rate`` = 1 − mean of ``probe_abstained``).  Undefined values are NaN:
    Brier/gap without scored probes, discrimination unless both correct and incorrect probes
    exist, trap abstention without traps; ``probe_answer_rate`` is 1 when ``probe_abstained`` is
    not given (callers that never see probe abstentions) and NaN when it is empty.

    Reference: Chernets (2026), appendix "A practical tool" (the four components); Brier (1950).

    Example: ``components(np.array([0.0]), np.array([0]), np.array([True]), np.array([True]))``
    has ``brier`` 0.0 and ``probe_answer_rate`` 0.0.
    """
    from selfconf import metrics  # imported here: scipy (via metrics) is slow to load for `--help`

    c = np.asarray(confidence, dtype=float)
    y = np.asarray(correct, dtype=int)
    t = np.asarray(trap_abstained, dtype=bool)
    out = {
        "brier": math.nan,
        "gap": math.nan,
        "discrimination": math.nan,
        "trap_abstention": math.nan,
        "probe_answer_rate": 1.0,
    }
    if c.size:
        out["brier"] = metrics.brier(c, y)
        out["gap"] = metrics.citl(c, y)
        if 0 < y.sum() < y.size:
            out["discrimination"] = float(c[y == 1].mean() - c[y == 0].mean())
    if t.size:
        out["trap_abstention"] = float(t.mean())
    if probe_abstained is not None:
        pa = np.asarray(probe_abstained, dtype=bool)
        out["probe_answer_rate"] = float(1.0 - pa.mean()) if pa.size else math.nan
    return out


def goodness(comp: dict[str, float]) -> dict[str, float]:
    """Map the four weighted components to 0–1 goodness scores (NaN stays NaN).

    Example: ``goodness({"brier": 0.125, "gap": 0.25, "discrimination": 0.25, "trap_abstention": 0.5})``
    gives 0.5 for each.
    """
    g = {
        "brier": 1 - min(1.0, comp["brier"] / 0.25),
        "gap": 1 - min(1.0, abs(comp["gap"]) / 0.5),
        "discrimination": min(1.0, max(0.0, comp["discrimination"] / 0.5)),
        "trap_abstention": comp["trap_abstention"],
    }
    return {k: (math.nan if math.isnan(comp[k]) else float(v)) for k, v in g.items()}


def composite(comp: dict[str, float]) -> tuple[float, list[str]]:
    """Composite 0–100 and the list of components left out because undefined.

    Definition: 100 × (weighted mean of the defined goodness values) × ``probe_answer_rate``
    (taken as 1 when absent or undefined).  Reference: module docstring.

    Example: ``composite({"brier": 0.0, "gap": 0.0, "discrimination": math.nan,
    "trap_abstention": 1.0, "probe_answer_rate": 0.0})`` is ``(0.0, ["discrimination"])``.
    """
    g = goodness(comp)
    used = {k: w for k, w in WEIGHTS.items() if not math.isnan(g[k])}
    left_out = [k for k in WEIGHTS if k not in used]
    if not used:
        return math.nan, left_out
    total = sum(used.values())
    rate = comp.get("probe_answer_rate", 1.0)
    rate = 1.0 if rate is None or math.isnan(rate) else float(rate)
    return 100.0 * rate * sum(w * g[k] for k, w in used.items()) / total, left_out


def tier(score: float, gap: float | None = None) -> str:
    """Tier name of a composite score (see :data:`TIERS`); ``"undetermined"`` for NaN.

    In the bottom tier, a known ``gap <= 0`` gives :data:`BOTTOM_NOT_OVERCONFIDENT` instead of
    "confidently blind".
    """
    if math.isnan(score):
        return "undetermined"
    for lo, name in TIERS:
        if score >= lo:
            if not math.isfinite(lo) and gap is not None and not math.isnan(gap) and gap <= 0:
                return BOTTOM_NOT_OVERCONFIDENT
            return name
    raise AssertionError("unreachable")


@dataclass
class DiagnosticResult:
    """Everything :func:`score_answers` computes; ``to_dict`` gives JSON-ready plain values."""

    n_items: int
    n_probes: int
    n_traps: int
    n_missing: int
    n_no_confidence: int
    n_probes_scored: int
    accuracy: float
    mean_confidence: float
    brier: float
    gap: float
    discrimination: float
    trap_abstention: float
    probe_abstention: float
    probe_answer_rate: float
    composite: float
    tier: str
    complete: bool
    confidence_scale: str
    confidence_scale_reason: str
    left_out: list[str]
    by_domain: list[dict] = field(default_factory=list)
    items: list[dict] = field(default_factory=list)

    def to_dict(self, with_items: bool = False) -> dict:
        d = asdict(self)
        if not with_items:
            d.pop("items")
        return _json_safe(d)


def _json_safe(x):
    if isinstance(x, float):
        return None if math.isnan(x) else x
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_json_safe(v) for v in x]
    return x


def _confidences(got: dict[str, dict], source: str, confidence_scale: str) -> tuple[str, str]:
    """Parse every reply's confidence in place (to 0–1 or None) with the report's scale rule."""

    keys = list(got)
    raw = np.full(len(keys), np.nan)
    pct = np.zeros(len(keys), dtype=bool)
    for j, iid in enumerate(keys):
        rec = got[iid]
        v = rec["confidence"]
        if v is None:
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            raw[j] = float(v)
            continue
        text = str(v).strip()
        if text.lower() in NULL_WORDS:
            continue
        if text.endswith("%"):
            pct[j], text = True, text[:-1].strip()
        try:
            raw[j] = float(text)
        except ValueError:
            raise ValueError(
                f"{source}: record {rec['record']} (item {iid}): confidence {v!r} is not a number"
            ) from None
    scale, reason = resolve_scale(
        raw, pct, confidence_scale, lambda j: f"{source}: record {got[keys[j]]['record']} (item {keys[j]})"
    )
    unit = raw / 100.0 if scale == "percent" else raw
    percent = raw if scale == "percent" else raw * 100.0  # as stated, on 0-100 (no round trip)
    for j, iid in enumerate(keys):
        got[iid]["confidence"] = None if np.isnan(unit[j]) else float(unit[j])
        got[iid]["confidence_percent"] = None if np.isnan(unit[j]) else float(percent[j])
    return scale, reason


#: Fields every reply must have (``score_answers`` records, ``--answers`` file columns).
REPLY_FIELDS = ("item_id", "answer", "confidence")


def _read_replies(answers: Iterable[dict], ids: set[str], source: str) -> dict[str, dict]:
    """``{item_id: {"answer", "confidence", "record"}}`` from the replies, with errors naming source and record."""
    got: dict[str, dict] = {}
    for i, a in enumerate(answers, start=1):
        lacking = [f for f in REPLY_FIELDS if f not in a]
        if lacking:
            raise ValueError(
                f"{source}: record {i}: missing field(s) {', '.join(lacking)} "
                f"(a reply needs {', '.join(REPLY_FIELDS)}; has: {', '.join(map(str, a)) or 'none'})"
            )
        iid = str(a.get("item_id", "")).strip()
        if iid not in ids:
            raise ValueError(
                f"{source}: record {i}: item_id {iid!r} is not in the battery "
                "(ids are those of `selfconf diagnose --list-battery`)"
            )
        if iid in got:
            raise ValueError(f"{source}: record {i}: item_id {iid!r} appears twice")
        conf = a.get("confidence")
        if isinstance(conf, float) and math.isnan(conf):
            conf = None
        got[iid] = {"answer": a.get("answer"), "confidence": conf, "record": i}
    return got


def _graded_rows(battery: dict, got: dict[str, dict]) -> list[dict]:
    """One row per battery item: ``missing``, or ``answered`` with its grade (:func:`grade_item`)."""
    rows = []
    for it in battery["items"]:
        rec = got.get(it["id"])
        if rec is None or _empty(rec["answer"]):
            rows.append({"item_id": it["id"], "kind": it["kind"], "domain": it["domain"], "status": "missing"})
            continue
        correct, ab = grade_item(it, rec["answer"], rec["confidence"])
        rows.append(
            {
                "item_id": it["id"],
                "kind": it["kind"],
                "domain": it["domain"],
                "status": "answered",
                "answer": rec["answer"],
                "confidence": rec["confidence_percent"],
                "confidence_unit": rec["confidence"],
                "correct": correct,
                "abstained": ab,
            }
        )
    return rows


def _by_domain(battery: dict, answered: list[dict]) -> list[dict]:
    """Accuracy and mean confidence (0–1) of the answered items per domain, in battery order."""
    domains = []
    for d in dict.fromkeys(it["domain"] for it in battery["items"]):
        rs = [r for r in answered if r["domain"] == d]
        cs = [r["confidence_unit"] for r in rs if r["confidence_unit"] is not None]
        domains.append(
            {
                "domain": d,
                "n": len(rs),
                "accuracy": float(np.mean([r["correct"] for r in rs])) if rs else math.nan,
                "mean_confidence": float(np.mean(cs)) if cs else math.nan,
            }
        )
    return domains


def score_answers(
    answers: Iterable[dict], battery: dict | None = None, *, source: str = "answers", confidence_scale: str = "auto"
) -> DiagnosticResult:
    """Score replies ``[{"item_id", "answer", "confidence"}, ...]`` against the battery.

    Definition: every reply is graded (:func:`grade_item`) and the components, composite and
    tier follow the module docstring.  Confidences are read with the scale rule of
    ``selfconf report`` (``confidence_scale``: ``"auto"``, ``"percent"`` for 0–100, ``"unit"``
    for 0–1; a trailing ``%`` is accepted except under ``unit``).

    Errors (``ValueError`` naming ``source`` and the record): a record without one of
    :data:`REPLY_FIELDS`, an unknown or repeated ``item_id``, a confidence that is not a number or
    is out of range, mixed or ambiguous scales.  Battery items without a reply (or with an empty
    answer) count in ``n_missing``; more than :data:`MAX_MISSING_SHARE` of the battery missing
    gives the tier ``"incomplete (k of n answered)"`` and no composite.  Replies without a usable
    confidence count in ``n_no_confidence`` and are left out of the confidence components (a
    trap's abstention is still judged from its answer).

    Reference: Chernets (2026), appendix "A practical tool: a self-assessment diagnostic".

    Example: ``score_answers([{"item_id": "nume-01", "answer": "42", "confidence": 90}]).tier``
    is ``"incomplete (1 of 134 answered)"``.
    """
    battery = battery or load_battery()
    got = _read_replies(answers, {it["id"] for it in battery["items"]}, source)
    scale, scale_reason = _confidences(got, source, confidence_scale)
    rows = _graded_rows(battery, got)
    answered = [r for r in rows if r["status"] == "answered"]
    probes = [r for r in answered if r["kind"] == "probe"]
    scored = [r for r in probes if r["confidence"] is not None]
    traps = [r for r in answered if r["kind"] == "trap"]
    c = np.array([r["confidence_unit"] for r in scored], dtype=float)
    y = np.array([r["correct"] for r in scored], dtype=int)
    t = np.array([r["abstained"] for r in traps], dtype=bool)
    pa = np.array([r["abstained"] for r in probes], dtype=bool)
    comp = components(c, y, t, pa)
    score, left_out = composite(comp)
    n_items = len(battery["items"])
    n_missing = n_items - len(answered)
    complete = n_missing <= MAX_MISSING_SHARE * n_items
    if complete:
        tier_name = tier(score, comp["gap"])
    else:
        score, tier_name = math.nan, f"incomplete ({len(answered)} of {n_items} answered)"
    domains = _by_domain(battery, answered)
    return DiagnosticResult(
        n_items=n_items,
        n_probes=sum(it["kind"] == "probe" for it in battery["items"]),
        n_traps=sum(it["kind"] == "trap" for it in battery["items"]),
        n_missing=n_missing,
        n_no_confidence=sum(r["confidence"] is None for r in answered),
        n_probes_scored=len(scored),
        accuracy=float(y.mean()) if y.size else math.nan,
        mean_confidence=float(c.mean()) if c.size else math.nan,
        brier=comp["brier"],
        gap=comp["gap"],
        discrimination=comp["discrimination"],
        trap_abstention=comp["trap_abstention"],
        probe_abstention=float(pa.mean()) if pa.size else math.nan,
        probe_answer_rate=comp["probe_answer_rate"],
        composite=score,
        tier=tier_name,
        complete=complete,
        confidence_scale=scale,
        confidence_scale_reason=scale_reason,
        left_out=left_out,
        by_domain=domains,
        items=rows,
    )
