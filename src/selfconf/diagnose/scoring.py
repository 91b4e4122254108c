"""Scoring of the self-assessment diagnostic (the paper's appendix tool, our own battery).

The battery (``battery.json`` beside this file) holds short *probes* with one deterministic answer,
spread over domain bins, and *trap* items (false premise or unknowable) whose only right response
is the abstention token ``ABSTAIN``.  Every reply carries a stated confidence 0–100.

Grading one reply (:func:`grade_item`)
    *Abstained*: the normalised answer contains the word ``abstain``, or matches the refusal
    lexicon of :mod:`selfconf.grade` ("I don't know", "cannot determine", ...).
    *Trap*: correct iff abstained.
    *Probe*: correct iff the normalised answer (:func:`selfconf.grade.normalize`) equals a
    normalised accepted answer (checked first), else an abstention is incorrect, else — for numeric
    probes — the first number in the answer (fractions ``a/b`` allowed, thousands separators
    ignored, ``x%`` read as ``x/100`` where the probe says so) is within the probe's tolerance.

Components (answerable probes with a parsed confidence only; confidence c on 0–1, y = 0/1)
    ``brier``          mean (c − y)² (:func:`selfconf.metrics.brier`);
    ``gap``            overconfidence gap, mean c − accuracy (:func:`selfconf.metrics.citl`);
    ``discrimination`` proxy: mean c over correct probes − mean c over incorrect probes
                       (undefined when all probes are right or all wrong); this is *not* AUROC,
                       as the paper's appendix says, just its cheap cousin;
    ``trap_abstention`` share of trap items answered with an abstention.

Composite (0–100; :func:`composite`)
    Each component is mapped to a 0–1 "goodness":
    ``1 − min(1, brier / 0.25)`` (0.25 = Brier of always saying 50 %),
    ``1 − min(1, |gap| / 0.5)``, ``clip(discrimination / 0.5, 0, 1)`` and ``trap_abstention``.
    They are averaged with weights :data:`WEIGHTS` (0.30, 0.25, 0.25, 0.20) and multiplied by 100.
    An undefined component is left out and the other weights rescaled (the result says so).

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
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable

import numpy as np

from ..grade import is_refusal, normalize

__all__ = [
    "ABSTAIN",
    "WEIGHTS",
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
#: Name of the bottom tier when the model is *not* overconfident (gap <= 0): it fails by saying
#: little, not by saying too much, and "confidently blind" would misdescribe it.
BOTTOM_NOT_OVERCONFIDENT = "uninformative"

#: System prompt for the diagnostic: the paper's answer format plus the abstention token.
DIAGNOSE_SYSTEM_PROMPT = (
    'Answer the question briefly. Respond with ONLY a JSON object like {"answer": "<short answer>", '
    '"confidence": 85}. confidence is an integer 0-100 for how likely it is that your answer is correct. '
    'If the question has no correct answer (for example it rests on a false premise) or the answer cannot '
    'be known, set answer to "ABSTAIN". No other text.'
)


@lru_cache(maxsize=1)
def _battery_text() -> str:
    return resources.files("selfconf.diagnose").joinpath("battery.json").read_text(encoding="utf-8")


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
    if percent_as_fraction and s[m.end():].lstrip().startswith("%"):
        x /= 100.0
    return x


def abstained(answer: Any) -> bool:
    """True when the answer is the abstention token or a refusal (see module docstring)."""
    if answer is None:
        return False
    return bool(re.search(r"\babstain\b", normalize(answer))) or is_refusal(answer)


def grade_item(item: dict, answer: Any) -> tuple[int, bool]:
    """``(correct, abstained)`` for one reply to one battery item (rules in the module docstring)."""
    ab = abstained(answer)
    if item["kind"] == "trap":
        return int(ab), ab
    if answer is None:
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


def components(confidence: np.ndarray, correct: np.ndarray, trap_abstained: np.ndarray) -> dict[str, float]:
    """The four raw components from probe confidences (0–1), probe correctness and trap flags.

    Undefined values are NaN: Brier/gap without scored probes, discrimination unless both
    correct and incorrect probes exist, trap abstention without traps.
    """
    from .. import metrics  # imported here: scipy (via metrics) is slow to load for `--help`

    c = np.asarray(confidence, dtype=float)
    y = np.asarray(correct, dtype=int)
    t = np.asarray(trap_abstained, dtype=bool)
    out = {"brier": math.nan, "gap": math.nan, "discrimination": math.nan, "trap_abstention": math.nan}
    if c.size:
        out["brier"] = metrics.brier(c, y)
        out["gap"] = metrics.citl(c, y)
        if 0 < y.sum() < y.size:
            out["discrimination"] = float(c[y == 1].mean() - c[y == 0].mean())
    if t.size:
        out["trap_abstention"] = float(t.mean())
    return out


def goodness(comp: dict[str, float]) -> dict[str, float]:
    """Map raw components to 0–1 goodness scores (NaN stays NaN)."""
    g = {
        "brier": 1 - min(1.0, comp["brier"] / 0.25),
        "gap": 1 - min(1.0, abs(comp["gap"]) / 0.5),
        "discrimination": min(1.0, max(0.0, comp["discrimination"] / 0.5)),
        "trap_abstention": comp["trap_abstention"],
    }
    return {k: (math.nan if math.isnan(comp[k]) else float(v)) for k, v in g.items()}


def composite(comp: dict[str, float]) -> tuple[float, list[str]]:
    """Composite 0–100 and the list of components left out because undefined."""
    g = goodness(comp)
    used = {k: w for k, w in WEIGHTS.items() if not math.isnan(g[k])}
    left_out = [k for k in WEIGHTS if k not in used]
    if not used:
        return math.nan, left_out
    total = sum(used.values())
    return 100.0 * sum(w * g[k] for k, w in used.items()) / total, left_out


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
    composite: float
    tier: str
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


def score_answers(answers: Iterable[dict], battery: dict | None = None, *, source: str = "answers") -> DiagnosticResult:
    """Score replies ``[{"item_id", "answer", "confidence" (0–100 or None)}, ...]`` against the battery.

    Unknown or repeated ``item_id`` raise ``ValueError`` naming ``source`` and the record.
    Battery items without a reply count in ``n_missing``; replies without a usable confidence
    count in ``n_no_confidence`` and are left out of the confidence components (a trap's
    abstention is still judged from its answer).  A confidence outside 0–100 is an error.
    """
    battery = battery or load_battery()
    by_id = {it["id"]: it for it in battery["items"]}
    got: dict[str, dict] = {}
    for i, a in enumerate(answers, start=1):
        iid = str(a.get("item_id", "")).strip()
        if iid not in by_id:
            raise ValueError(f"{source}: record {i}: item_id {iid!r} is not in the battery")
        if iid in got:
            raise ValueError(f"{source}: record {i}: item_id {iid!r} appears twice")
        conf = a.get("confidence")
        if conf is not None and not (isinstance(conf, float) and math.isnan(conf)) and str(conf).strip() != "":
            try:
                conf = float(conf)
            except (TypeError, ValueError):
                raise ValueError(f"{source}: record {i} (item {iid}): confidence {a.get('confidence')!r} is not a number") from None
            if not (0 <= conf <= 100):
                raise ValueError(f"{source}: record {i} (item {iid}): confidence {conf:g} is outside 0-100")
        else:
            conf = None
        got[iid] = {"answer": a.get("answer"), "confidence": conf}
    rows = []
    for it in battery["items"]:
        rec = got.get(it["id"])
        if rec is None:
            rows.append({"item_id": it["id"], "kind": it["kind"], "domain": it["domain"], "status": "missing"})
            continue
        correct, ab = grade_item(it, rec["answer"])
        rows.append({
            "item_id": it["id"], "kind": it["kind"], "domain": it["domain"], "status": "answered",
            "answer": rec["answer"], "confidence": rec["confidence"], "correct": correct, "abstained": ab,
        })
    answered = [r for r in rows if r["status"] == "answered"]
    probes = [r for r in answered if r["kind"] == "probe"]
    scored = [r for r in probes if r["confidence"] is not None]
    traps = [r for r in answered if r["kind"] == "trap"]
    c = np.array([r["confidence"] / 100.0 for r in scored], dtype=float)
    y = np.array([r["correct"] for r in scored], dtype=int)
    t = np.array([r["abstained"] for r in traps], dtype=bool)
    comp = components(c, y, t)
    score, left_out = composite(comp)
    domains = []
    for d in dict.fromkeys(it["domain"] for it in battery["items"]):
        rs = [r for r in answered if r["domain"] == d]
        cs = [r["confidence"] for r in rs if r["confidence"] is not None]
        domains.append({
            "domain": d,
            "n": len(rs),
            "accuracy": float(np.mean([r["correct"] for r in rs])) if rs else math.nan,
            "mean_confidence": float(np.mean(cs)) / 100 if cs else math.nan,
        })
    n_items = len(battery["items"])
    return DiagnosticResult(
        n_items=n_items,
        n_probes=sum(it["kind"] == "probe" for it in battery["items"]),
        n_traps=sum(it["kind"] == "trap" for it in battery["items"]),
        n_missing=n_items - len(answered),
        n_no_confidence=sum(r["confidence"] is None for r in answered),
        n_probes_scored=len(scored),
        accuracy=float(y.mean()) if y.size else math.nan,
        mean_confidence=float(c.mean()) if c.size else math.nan,
        brier=comp["brier"],
        gap=comp["gap"],
        discrimination=comp["discrimination"],
        trap_abstention=comp["trap_abstention"],
        probe_abstention=float(np.mean([r["abstained"] for r in probes])) if probes else math.nan,
        composite=score,
        tier=tier(score, comp["gap"]),
        left_out=left_out,
        by_domain=domains,
        items=rows,
    )
