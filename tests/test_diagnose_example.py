"""Appendix A's worked example (``selfconf.cli.diagnose.example``) against independent plain-Python loops."""

from __future__ import annotations

import math

import numpy as np
import pytest

from selfconf.cli.diagnose.example import (
    STYLES,
    battery_counts,
    boot_composite,
    respondent_knowledge,
    simulate_replies,
    worked_example,
)
from selfconf.cli.diagnose.scoring import load_battery, score_answers

BATTERY = load_battery()
WEIGHTS = {"brier": 0.30, "gap": 0.25, "discrimination": 0.25, "trap_abstention": 0.20}  # the page's table


def _composite_by_hand(c: list[float], y: list[int], t: list[bool], a: list[bool]) -> float:
    """The composite written out with plain Python (module docstring of scoring), no project function."""
    n = len(c)
    good = {}
    if n:
        brier = sum((ci - yi) ** 2 for ci, yi in zip(c, y, strict=True)) / n
        gap = sum(c) / n - sum(y) / n
        good["brier"] = 1 - min(1.0, brier / 0.25)
        good["gap"] = 1 - min(1.0, abs(gap) / 0.5)
        right = [ci for ci, yi in zip(c, y, strict=True) if yi == 1]
        wrong = [ci for ci, yi in zip(c, y, strict=True) if yi == 0]
        if right and wrong:
            good["discrimination"] = min(1.0, max(0.0, (sum(right) / len(right) - sum(wrong) / len(wrong)) / 0.5))
    if t:
        good["trap_abstention"] = sum(t) / len(t)
    if not good:
        return math.nan
    rate = 1 - sum(a) / len(a) if a else 1.0
    return 100 * rate * sum(WEIGHTS[k] * g for k, g in good.items()) / sum(WEIGHTS[k] for k in good)


def _quantile(xs: list[float], q: float) -> float:
    """Linear-interpolation sample quantile (numpy's default, Hyndman & Fan type 7), by hand."""
    s = sorted(xs)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def _boot_by_hand(res, n_boot: int, rng: np.random.Generator) -> tuple[float, float]:
    """An independent loop: same index draws (same generator calls), composites and quantiles by hand."""
    pr = [r for r in res.items if r["kind"] == "probe" and r.get("confidence") is not None]
    tr = [r for r in res.items if r["kind"] == "trap" and r["status"] == "answered"]
    ip = rng.integers(0, len(pr), size=(n_boot, len(pr)))
    it = rng.integers(0, len(tr), size=(n_boot, len(tr)))
    draws = []
    for row_p, row_t in zip(ip.tolist(), it.tolist(), strict=True):
        c = [pr[i]["confidence"] / 100 for i in row_p]
        y = [pr[i]["correct"] for i in row_p]
        a = [pr[i]["abstained"] for i in row_p]
        t = [tr[j]["abstained"] for j in row_t]
        d = _composite_by_hand(c, y, t, a)
        if not math.isnan(d):
            draws.append(d)
    return _quantile(draws, 0.025), _quantile(draws, 0.975)


@pytest.mark.parametrize("style", STYLES)
def test_boot_composite_equals_an_independent_loop(style: str) -> None:
    """Same seed, same index draws: the interval equals the plain-Python loop's to rounding."""
    rng = np.random.default_rng(11)
    p_know = respondent_knowledge(sorted({it["domain"] for it in BATTERY["items"]}), rng)
    res = score_answers(simulate_replies(BATTERY, style, p_know, rng), BATTERY)
    got = boot_composite(res, 400, np.random.default_rng(5))
    want = _boot_by_hand(res, 400, np.random.default_rng(5))
    assert got == pytest.approx(want, abs=1e-9)
    assert got[0] <= res.composite <= got[1]  # the point estimate sits inside (sanity)


def test_boot_composite_counts_probe_abstentions() -> None:
    """A respondent that abstains on some probes: the interval carries the answer-rate factor, as the point does."""
    replies = []
    for k, it in enumerate(BATTERY["items"]):
        if it["kind"] == "trap":
            replies.append({"item_id": it["id"], "answer": "ABSTAIN", "confidence": 20})
        elif k % 3 == 0:
            replies.append({"item_id": it["id"], "answer": "ABSTAIN", "confidence": 10})
        else:
            replies.append({"item_id": it["id"], "answer": it["answers"][0], "confidence": 90})
    res = score_answers(replies, BATTERY)
    assert res.probe_answer_rate < 0.8
    got = boot_composite(res, 300, np.random.default_rng(2))
    assert got == pytest.approx(_boot_by_hand(res, 300, np.random.default_rng(2)), abs=1e-9)
    assert got[0] <= res.composite <= got[1]
    assert got[1] < 100 * 0.9  # without the factor every draw would be near 100 × goodness


def test_worked_example_reproduces_the_former_notebook_code() -> None:
    """The page's numbers do not move: the former in-notebook simulation (restated here) gives the same replies."""
    seed, n_boot = 20261130, 60
    rng = np.random.default_rng(seed)
    probes = [it for it in BATTERY["items"] if it["kind"] == "probe"]
    domains = list(dict.fromkeys(it["domain"] for it in probes))
    p_know = dict(zip(domains, rng.uniform(0.35, 0.9, len(domains)), strict=True))
    old = {}
    for style in STYLES:
        out = []
        for it in BATTERY["items"]:
            if it["kind"] == "trap":
                ab = rng.random() < {"tracking": 0.85, "saturated": 0.1, "hedging": 0.5}[style]
                conf = {"tracking": 80, "saturated": 95, "hedging": 55}[style]
                out.append(
                    {"item_id": it["id"], "answer": "ABSTAIN" if ab else "a confident guess", "confidence": conf}
                )
                continue
            right = rng.random() < p_know[it["domain"]]
            if style == "tracking":
                conf = rng.integers(75, 96) if right else rng.integers(10, 46)
            elif style == "saturated":
                conf = rng.choice([90, 95])
            else:
                conf = int(np.clip(rng.normal(55, 6), 0, 100))
            out.append(
                {"item_id": it["id"], "answer": it["answers"][0] if right else "a wrong guess", "confidence": int(conf)}
            )
        old[style] = out
    # the former page then drew each style's interval from the same generator, in style order
    old_intervals = {s: _boot_by_hand(score_answers(old[s], BATTERY), n_boot, rng) for s in STYLES}
    replies, results, intervals = worked_example(BATTERY, seed=seed, n_boot=n_boot)
    assert replies == old
    assert list(intervals) == list(STYLES)
    for s in STYLES:
        assert intervals[s] == pytest.approx(old_intervals[s], abs=1e-9)
    assert all(results[s].composite == score_answers(old[s], BATTERY).composite for s in STYLES)


def test_battery_counts_against_a_loop() -> None:
    counts = battery_counts(BATTERY)
    n_probe = n_trap = n_num = 0
    domains = set()
    for it in BATTERY["items"]:
        if it["kind"] == "probe":
            n_probe += 1
            domains.add(it["domain"])
            n_num += "numeric" in it and it["numeric"] is not None
        else:
            n_trap += 1
    assert counts == {
        "n_items": len(BATTERY["items"]),
        "n_probes": n_probe,
        "n_traps": n_trap,
        "n_domains": len(domains),
        "n_numeric": n_num,
    }


def test_simulate_rejects_an_unknown_style() -> None:
    with pytest.raises(ValueError, match="style 'bold'"):
        simulate_replies(BATTERY, "bold", {}, np.random.default_rng(0))
