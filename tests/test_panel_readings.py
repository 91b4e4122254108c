"""Readings of the panel comparison: oracle tests written without the package's functions.

The oracle below is plain Python (loops over rows and pairs of rows); it shares no code with
``selfconf.panels`` or ``selfconf.metrics``.  Small hand-made rows carry values checked by hand.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from selfconf.panels import (
    CANONICAL_READING,
    READINGS,
    all_readings,
    check_reading,
    panel_intervals,
    panel_readings,
)

COLS = ["model", "item_id", "parse_ok", "confidence", "correct", "refusal", "answer_class"]

# the hand-made rows of tests/test_panels.py: q4 has no graded row of c (a parse failure)
HAND = pd.DataFrame(
    [
        ("a", "q1", 1, 90, 1, 0, "gold"),
        ("b", "q1", 1, 80, 1, 0, "variant"),
        ("c", "q1", 1, 70, 0, 0, "w1"),
        ("a", "q2", 1, 60, 0, 0, "w2"),
        ("b", "q2", 1, 50, 0, 0, "w3"),
        ("c", "q2", 1, 95, 0, 0, "w2"),
        ("a", "q3", 1, 85, 1, 0, "gold3"),
        ("b", "q3", 1, 10, 0, 1, "REFUSAL"),
        ("c", "q3", 1, 75, 1, 0, "gold3"),
        ("a", "q4", 1, 99, 1, 0, "g4"),
        ("b", "q4", 1, 99, 1, 0, "g4"),
        ("c", "q4", 0, 0, 0, 0, ""),
    ],
    columns=COLS,
)


# ---------------------------------------------------------------------------------------------
# the oracle
# ---------------------------------------------------------------------------------------------


def o_auc(scores, ys, w):
    """P(S1 > S0) + w P(S1 = S0) over all (correct, wrong) pairs, by enumeration."""
    pos = [s for s, y in zip(scores, ys, strict=False) if y == 1]
    neg = [s for s, y in zip(scores, ys, strict=False) if y == 0]
    if not pos or not neg:
        return math.nan
    tot = 0.0
    for a in pos:
        for b in neg:
            tot += 1.0 if a > b else (w if a == b else 0.0)
    return tot / (len(pos) * len(neg))


def oracle(df, members, r):
    """(panel, self, self_pooled) of a reading; dicts {member: ...} under per_member."""
    w = {"half": 0.5, "loss": 0.0, "win": 1.0}[r["ties"]]
    graded = {}
    for row in df if isinstance(df, list) else df.itertuples(index=False):  # a list: the rows, read once
        if row.parse_ok == 1 and row.model in members:
            graded[(row.model, row.item_id)] = row
    items = sorted({i for (_, i) in graded})
    if r["population"] == "all_answered":
        items = [i for i in items if all((m, i) in graded for m in members)]

    def det(m, i):
        return (m, i) in graded and graded[(m, i)].refusal == 0

    if r["indeterminate"] == "dropped":
        items = [i for i in items if all(det(m, i) for m in members)]

    def concur(m, o, i):
        if not (det(m, i) and det(o, i)):
            return r["indeterminate"] == "concurring"
        a, b = graded[(m, i)], graded[(o, i)]
        if a.answer_class == b.answer_class:
            return True
        return r["coding"] == "canonical" and a.correct == 1 and b.correct == 1

    rows = []  # (member, signal, confidence, correct)
    for i in items:
        for m in members:
            if (m, i) not in graded:
                continue
            n = sum(concur(m, o, i) for o in members if o != m)
            if r["signal"] == "any":
                n = int(n >= 1)
            elif r["signal"] == "majority":
                n = int(n > (len(members) - 1) / 2)
            g = graded[(m, i)]
            rows.append((m, n, g.confidence, g.correct))

    def col(j, sub=None):
        return [x[j] for x in rows if sub is None or x[0] == sub]

    self_pooled = o_auc(col(2), col(3), w)
    agg = r["aggregation"]
    if agg == "pooled":
        return o_auc(col(1), col(3), w), self_pooled, self_pooled
    per_panel = {m: o_auc(col(1, m), col(3, m), w) for m in members}
    per_self = {m: o_auc(col(2, m), col(3, m), w) for m in members}
    if agg == "per_member":
        return per_panel, per_self, self_pooled
    if agg == "macro":
        return sum(per_panel.values()) / len(members), sum(per_self.values()) / len(members), self_pooled
    # rank_normalised: each member's confidences -> (below + half the ties) / n within the member
    pct = []
    for m, _, c, _ in rows:
        own = col(2, m)
        pct.append((sum(x < c for x in own) + 0.5 * sum(x == c for x in own)) / len(own))
    return o_auc(col(1), col(3), w), o_auc(pct, col(3), w), self_pooled


def random_rows(seed, members, n_items):
    g = np.random.default_rng(seed)
    recs = []
    for i in range(n_items):
        gold_right = g.random() < 0.5
        for m in members:
            u = g.random()
            if u < 0.06:
                recs.append((m, i, 0, 0, 0, 0, ""))  # parse failure
                continue
            if u < 0.12:
                recs.append((m, i, 1, int(g.choice([10, 50])), 0, 1, "REFUSAL"))
                continue
            correct = int(g.random() < (0.65 if gold_right else 0.35))
            ans = g.choice(["gold", "gold_variant"]) if correct else g.choice(["w1", "w2", "w3"])
            conf = int(g.choice([60, 70, 80, 90, 95])) + (5 if correct and g.random() < 0.3 else 0)
            recs.append((m, i, 1, conf, correct, 0, str(ans)))
    return pd.DataFrame(recs, columns=COLS)


# ---------------------------------------------------------------------------------------------
# hand-checked values (worked out on paper in the comments)
# ---------------------------------------------------------------------------------------------


def one(t, **kw):
    sel = np.ones(len(t), bool)
    for k, v in kw.items():
        sel &= t[k].to_numpy() == v
    assert sel.sum() == 1
    return t[sel].iloc[0]


def test_hand_values_ties_and_indeterminate():
    t = panel_readings(HAND, ("a", "b", "c"), n_boot=20, rng=0)
    canon = one(t, canonical=True)
    # population q1-q3; canonical signals q1 (1,1,0), q2 (1,0,1), q3 (1,0,1); correct q1 (1,1,0), q2 (0,0,0),
    # q3 (1,0,1): 4 correct rows all at 1; 5 wrong rows at 0,1,0,1,0.  Half: (3 + 2/2)/5 = 0.8
    assert canon["panel_auroc"] == pytest.approx(0.8)
    # self: every correct confidence (90, 80, 85, 75) beats 4 of the 5 wrong ones (70, 60, 50, 10; not 95)
    assert canon["self_auroc"] == pytest.approx(0.8) and canon["delta"] == pytest.approx(0.0)
    base = dict(CANONICAL_READING)
    assert one(t, **{**base, "ties": "loss"})["panel_auroc"] == pytest.approx(0.6)  # ties lost: 3/5
    assert one(t, **{**base, "ties": "win"})["panel_auroc"] == pytest.approx(1.0)  # ties won: 5/5
    # b's refusal on q3 concurring with everything: q3 signals (2,2,2); correct rows at 1,1,2,2 against wrong
    # rows at 0,1,0,1,2: (2 + 1) * 2 + (4 + 0.5) * 2 = 15 of 20 pairs
    assert one(t, **{**base, "indeterminate": "concurring"})["panel_auroc"] == pytest.approx(0.75)
    # dropped: q3 goes (a refusal); correct q1a, q1b at 1 against q1c 0, q2a 1, q2b 0, q2c 1: (2 + 1) * 2 / 8
    dropped = one(t, **{**base, "indeterminate": "dropped"})
    assert dropped["panel_auroc"] == pytest.approx(0.75) and dropped["items"] == 2 and dropped["rows"] == 6
    # any member answered: q4 joins with a and b (both correct, same string, signal 1; c has no row)
    anyp = one(t, **{**base, "population": "any_answered"})
    assert (anyp["items"], anyp["rows"]) == (4, 11)
    assert anyp["panel_auroc"] == pytest.approx(0.8)  # 6 correct rows at 1 against the same 5 wrong rows
    assert anyp["self_auroc"] == pytest.approx(26 / 30)  # the two 99s beat all 5 wrong rows, the rest 4 each


def test_hand_values_signal_and_aggregation():
    t = panel_readings(HAND, ("a", "b", "c"), n_boot=20, rng=0)
    base = dict(CANONICAL_READING)
    # 'any' equals 'count' here (no count above 1); 'majority' needs both others: nobody has it -> all tied
    assert one(t, **{**base, "signal": "any"})["panel_auroc"] == pytest.approx(0.8)
    assert one(t, **{**base, "signal": "majority"})["panel_auroc"] == pytest.approx(0.5)
    # per member: a has correct q1 (1), q3 (1) vs wrong q2 (1): all tied -> 0.5; c has correct q3 (1) vs
    # wrong q1 (0), q2 (1): (1 + 0.5)/2 = 0.75; b has correct q1 (1) vs wrong q2 (0), q3 (0): 1.0
    per = t[(t["aggregation"] == "per_member") & (t[list(base)[:4]] == pd.Series(base)[list(base)[:4]]).all(axis=1)]
    per = per[(per["population"] == "all_answered") & (per["cluster"] == "item") & (per["leave_out"] == "none")]
    per = per.set_index("member")
    assert per.loc["a", "panel_auroc"] == pytest.approx(0.5)
    assert per.loc["b", "panel_auroc"] == pytest.approx(1.0)
    assert per.loc["c", "panel_auroc"] == pytest.approx(0.75)
    macro = one(t, **{**base, "aggregation": "macro"})
    assert macro["panel_auroc"] == pytest.approx((0.5 + 1.0 + 0.75) / 3)


# ---------------------------------------------------------------------------------------------
# every reading against the oracle
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "members,seed,n",
    # the four-member case costs several seconds: it runs with the whole suite (make test, CI), not in make check
    [(("a", "b", "c"), 1, 36), pytest.param(("a", "b", "c", "d"), 2, 24, marks=pytest.mark.slow)],
)
def test_every_reading_matches_the_oracle(members, seed, n):
    """Every reading with the item bootstrap (the cluster unit moves intervals only: tests/test_readings_counted.py);
    a leave-one-member-out reading is the oracle's reading of the panel without that member."""
    df = random_rows(seed, members, n)
    reads = [r for r in all_readings() if r["cluster"] == "item"]
    t = panel_readings(df, members, readings=reads, n_boot=5, rng=0)
    n_m = len(members)

    def n_rows(r):
        kept = n_m - 1 if r["leave_out"] == "each_member" else n_m
        return (kept if r["aggregation"] == "per_member" else 1) * (n_m if r["leave_out"] == "each_member" else 1)

    assert len(t) == sum(n_rows(r) for r in reads)
    rows = list(df.itertuples(index=False))
    by_reading = dict(list(t.groupby([*READINGS, "left_out"], sort=False, dropna=False)))
    checked = 0
    for r in reads:
        panels_of = (
            [(m, tuple(x for x in members if x != m)) for m in members] if r["leave_out"] != "none" else [("", members)]
        )
        for gone, mem in panels_of:
            panel, self_, pooled = oracle(rows, mem, dict(r, leave_out="none"))
            got = by_reading[(*(r[k] for k in READINGS), gone)]
            if r["aggregation"] == "per_member":
                for m in mem:
                    row = got[got["member"] == m].iloc[0]
                    assert row["panel_auroc"] == pytest.approx(panel[m], abs=1e-12), (r, m)
                    assert row["self_auroc"] == pytest.approx(self_[m], abs=1e-12), (r, m)
                    assert row["delta"] == pytest.approx(panel[m] - self_[m], abs=1e-12)
                    checked += 1
            else:
                row = got.iloc[0]
                assert row["panel_auroc"] == pytest.approx(panel, abs=1e-12), r
                assert row["self_auroc"] == pytest.approx(self_, abs=1e-12), r
                assert row["self_auroc_pooled"] == pytest.approx(pooled, abs=1e-12), r
                checked += 1
    assert checked == len(t)


def test_bootstrap_draw_is_the_oracle_on_replicated_items():
    members = ("a", "b", "c")
    df = random_rows(3, members, 40)
    full = df[df["parse_ok"] == 1].groupby("item_id")["model"].nunique()
    items = sorted(full.index[full == 3])
    g = np.random.default_rng(7)
    mult = g.multinomial(len(items), np.full(len(items), 1 / len(items)), size=1)
    # replicate every item as often as the draw picks it (fresh ids), then ask the oracle
    copies = []
    for it, k in zip(items, mult[0], strict=False):
        for c in range(k):
            copies.append(df[df["item_id"] == it].assign(item_id=f"{it}#{c}"))
    rep = pd.concat(copies)
    reads = [
        r
        for r in all_readings()
        if r["population"] == "all_answered"
        and r["aggregation"] != "per_member"
        and r["cluster"] == "item"
        and r["leave_out"] == "none"
    ]
    t = panel_readings(df, members, readings=reads, multiplicities=mult)
    for r, (_, row) in zip(reads, t.iterrows(), strict=False):
        panel, self_, _ = oracle(rep, members, r)
        assert row["panel_auroc_ci_low"] == row["panel_auroc_ci_high"]  # one draw: the interval is that draw
        assert row["panel_auroc_ci_low"] == pytest.approx(panel, abs=1e-12), r
        assert row["self_auroc_ci_low"] == pytest.approx(self_, abs=1e-12), r


def test_canonical_row_equals_panel_intervals():
    members = ("a", "b", "c")
    df = random_rows(4, members, 80)
    t = panel_readings(df, members, n_boot=200, rng=11)
    iv = panel_intervals(df, members, n_boot=200, rng=11)
    c = t[t["canonical"]]
    assert len(c) == 1 and c.index[0] == 0
    c = c.iloc[0]
    assert c["panel_auroc"] == pytest.approx(iv["panel_auroc"], abs=1e-12)
    assert c["self_auroc_pooled"] == pytest.approx(iv["self_auroc_pooled"], abs=1e-12)
    assert (c["panel_auroc_ci_low"], c["panel_auroc_ci_high"]) == iv["panel_auroc_ci"]
    assert (c["self_auroc_ci_low"], c["self_auroc_ci_high"]) == iv["self_auroc_pooled_ci"]
    assert (c["delta_ci_low"], c["delta_ci_high"]) == iv["delta_panel_minus_self_ci"]
    # the rank-normalised reading is the paper's panel-minus-rank-normalised-self statistic
    rn = one(t, **{**CANONICAL_READING, "aggregation": "rank_normalised"})
    assert rn["delta"] == pytest.approx(iv["delta_panel_minus_ranknorm"], abs=1e-12)
    assert (rn["delta_ci_low"], rn["delta_ci_high"]) == pytest.approx(iv["delta_panel_minus_ranknorm_ci"], abs=1e-12)
    lf = one(t, **{**CANONICAL_READING, "coding": "label_free"})
    assert lf["panel_auroc"] == pytest.approx(iv["panel_auroc_labelfree"], abs=1e-12)


def test_bad_readings_are_named():
    with pytest.raises(ValueError, match="ties='halves'.*half, loss, win"):
        check_reading(ties="halves")
    with pytest.raises(ValueError, match="unknown reading 'tie'"):
        check_reading(tie="half")
    assert list(itertools.islice((r == CANONICAL_READING for r in all_readings()), 1)) == [True]
