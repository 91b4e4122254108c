"""The worked example of Appendix A: simulated respondents and an item-bootstrap interval of the composite.

Nothing here is a paper number.  Three respondent *styles* answer the battery with random draws
(:func:`simulate_replies`), they are scored by :func:`selfconf.cli.diagnose.scoring.score_answers`,
and the composite gets a percentile interval by resampling the items (:func:`boot_composite`).

Every function takes a :class:`numpy.random.Generator` and draws from it in a fixed order, so one
generator passed through :func:`respondent_knowledge`, :func:`simulate_replies` (per style) and
:func:`boot_composite` (per style) reproduces the page's numbers exactly.

Reference: Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13 (percentile
interval); Chernets (2026), appendix "A practical tool: a self-assessment diagnostic".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from selfconf.cli.diagnose.scoring import ABSTAIN, DiagnosticResult, components, composite, score_answers

__all__ = ["STYLES", "battery_counts", "respondent_knowledge", "simulate_replies", "boot_composite", "worked_example"]

#: The respondent styles of the worked example, in page order.
STYLES = ("tracking", "saturated", "hedging")
_P_ABSTAIN = {"tracking": 0.85, "saturated": 0.1, "hedging": 0.5}
_TRAP_CONF = {"tracking": 80, "saturated": 95, "hedging": 55}


def battery_counts(battery: dict) -> dict[str, int]:
    """Counts of a battery: items, probes, traps, probe domains and numerically graded probes.

    Definition: ``n_items`` = number of items; ``n_probes`` / ``n_traps`` = items of that
    ``kind``; ``n_domains`` = distinct ``domain`` values among the probes; ``n_numeric`` = probes
    with a ``numeric`` tolerance rule.  Reference: the battery format of
    :func:`selfconf.cli.diagnose.scoring.load_battery`.

    Example:

    >>> battery_counts({"items": [{"kind": "probe", "domain": "a", "numeric": {"value": 1}},
    ...                           {"kind": "probe", "domain": "b"}, {"kind": "trap", "domain": "t"}]})
    {'n_items': 3, 'n_probes': 2, 'n_traps': 1, 'n_domains': 2, 'n_numeric': 1}
    """
    items = battery["items"]
    probes = [it for it in items if it["kind"] == "probe"]
    return {
        "n_items": len(items),
        "n_probes": len(probes),
        "n_traps": sum(it["kind"] == "trap" for it in items),
        "n_domains": len({it["domain"] for it in probes}),
        "n_numeric": sum(it.get("numeric") is not None for it in probes),
    }


def respondent_knowledge(domains: Sequence[str], rng: np.random.Generator) -> dict[str, float]:
    """The chance that a simulated respondent knows a probe, per domain: uniform on [0.35, 0.9].

    Definition: one draw ``rng.uniform(0.35, 0.9)`` per domain, in the given order.
    Reference: the module docstring (a simulation, not an estimate).

    Example:

    >>> p = respondent_knowledge(["a", "b"], np.random.default_rng(0))
    >>> sorted(p), all(0.35 <= v <= 0.9 for v in p.values())
    (['a', 'b'], True)
    """
    return dict(zip(domains, rng.uniform(0.35, 0.9, len(domains)), strict=True))


def simulate_replies(battery: dict, style: str, p_know: dict[str, float], rng: np.random.Generator) -> list[dict]:
    """One simulated reply per battery item (``item_id``, ``answer``, ``confidence`` 0–100) for a style.

    Definition, per item in battery order: a trap is abstained on with probability 0.85 /
    0.1 / 0.5 (tracking / saturated / hedging) at a fixed confidence 80 / 95 / 55; a probe is
    right with probability ``p_know[domain]`` (then answered with its first accepted answer) and
    stated with a confidence uniform on 75–95 when right and 10–45 when wrong (tracking), 90 or
    95 (saturated), or ``round-down(clip(Normal(55, 6), 0, 100))`` (hedging).
    Reference: the module docstring (three stylised respondents).

    Example:

    >>> bat = {"items": [{"id": "p1", "kind": "probe", "domain": "a", "answers": ["4"]},
    ...                  {"id": "t1", "kind": "trap", "domain": "t", "answers": ["ABSTAIN"]}]}
    >>> out = simulate_replies(bat, "saturated", {"a": 1.0}, np.random.default_rng(1))
    >>> [r["answer"] for r in out], out[0]["confidence"] in (90, 95)
    (['4', 'a confident guess'], True)
    """
    if style not in _P_ABSTAIN:
        raise ValueError(f"style {style!r} is not one of {', '.join(STYLES)}")
    out = []
    for it in battery["items"]:
        if it["kind"] == "trap":
            ab = rng.random() < _P_ABSTAIN[style]
            out.append(
                {"item_id": it["id"], "answer": ABSTAIN if ab else "a confident guess", "confidence": _TRAP_CONF[style]}
            )
            continue
        right = rng.random() < p_know[it["domain"]]
        if style == "tracking":
            conf = int(rng.integers(75, 96)) if right else int(rng.integers(10, 46))
        elif style == "saturated":
            conf = int(rng.choice([90, 95]))
        else:
            conf = int(np.clip(rng.normal(55, 6), 0, 100))
        out.append(
            {"item_id": it["id"], "answer": it["answers"][0] if right else "a wrong guess", "confidence": int(conf)}
        )
    return out


def boot_composite(result: DiagnosticResult, n_boot: int, rng: np.random.Generator) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the diagnostic's composite, resampling items.

    Definition: the answered probes with a confidence (confidence ``c``, correctness ``y``, probe
    abstention ``a``) and the answered traps (abstention ``t``) are resampled with replacement,
    separately and to their own sizes, ``n_boot`` times: first an ``(n_boot, n_probes)`` matrix
    of probe indices, then an ``(n_boot, n_traps)`` matrix of trap indices, both by
    ``rng.integers``.  Each draw's composite is
    :func:`~selfconf.cli.diagnose.scoring.composite` of
    :func:`~selfconf.cli.diagnose.scoring.components` ``(c, y, t, a)``; the interval is the
    2.5 % and 97.5 % quantiles (linear interpolation) of the draws, NaN draws left out.
    The probe-abstention share is taken over the probes with a confidence, so the interval's
    answer-rate factor equals the point estimate's whenever every answered probe has one.

    Reference: Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13.

    Example:

    >>> from selfconf.cli.diagnose.scoring import load_battery
    >>> bat, rng = load_battery(), np.random.default_rng(3)
    >>> p_know = respondent_knowledge(sorted({it["domain"] for it in bat["items"]}), rng)
    >>> res = score_answers(simulate_replies(bat, "tracking", p_know, rng), bat)
    >>> lo, hi = boot_composite(res, 200, rng)
    >>> 0 <= lo <= hi <= 100
    True
    """
    pr = [r for r in result.items if r["kind"] == "probe" and r.get("confidence") is not None]
    tr = [r for r in result.items if r["kind"] == "trap" and r["status"] == "answered"]
    c = np.array([r["confidence"] / 100 for r in pr], dtype=float)
    y = np.array([r["correct"] for r in pr], dtype=int)
    a = np.array([r["abstained"] for r in pr], dtype=bool)
    t = np.array([r["abstained"] for r in tr], dtype=bool)
    ip = rng.integers(0, c.size, size=(n_boot, c.size))
    it = rng.integers(0, t.size, size=(n_boot, t.size))
    draws = np.array([composite(components(c[i], y[i], t[j], a[i]))[0] for i, j in zip(ip, it, strict=True)])
    if np.isnan(draws).all():
        return math.nan, math.nan
    lo, hi = np.nanquantile(draws, [0.025, 0.975])
    return float(lo), float(hi)


def worked_example(
    battery: dict, *, seed: int, n_boot: int, styles: Sequence[str] = STYLES
) -> tuple[dict[str, list[dict]], dict[str, DiagnosticResult], dict[str, tuple[float, float]]]:
    """The appendix's worked example: replies, scores and composite intervals of the simulated respondents.

    Definition: one generator ``numpy.random.default_rng(seed)`` draws, in this order, the
    per-domain knowledge (:func:`respondent_knowledge`, probe domains in battery order), each
    style's replies (:func:`simulate_replies`, in ``styles`` order) and then each style's
    interval (:func:`boot_composite` with ``n_boot`` draws, same order); the replies are scored by
    :func:`~selfconf.cli.diagnose.scoring.score_answers` (``source`` = the style).
    Returns ``(replies, results, intervals)``, each keyed by style.
    Reference: the module docstring.

    Example:

    >>> from selfconf.cli.diagnose.scoring import load_battery
    >>> replies, results, intervals = worked_example(load_battery(), seed=1, n_boot=50)
    >>> list(results) == list(STYLES), all(lo <= hi for lo, hi in intervals.values())
    (True, True)
    """
    rng = np.random.default_rng(seed)
    domains = list(dict.fromkeys(it["domain"] for it in battery["items"] if it["kind"] == "probe"))
    p_know = respondent_knowledge(domains, rng)
    replies = {s: simulate_replies(battery, s, p_know, rng) for s in styles}
    results = {s: score_answers(replies[s], battery, source=s) for s in styles}
    intervals = {s: boot_composite(results[s], n_boot, rng) for s in styles}
    return replies, results, intervals
