"""Page "Every reading of the panel comparison": the specification curve of panel minus self, and its summary.

* :func:`compute` - for each panel of a data set, :func:`selfconf.panels.panel_readings` under every reading
  (item-clustered intervals; the generator of a panel is ``summary.model_rng(seed, "panel:<name>")``, Result 1's
  rule, so the canonical row's values and intervals are Result 1's / chapter 26's for the same seed and draws);
* :func:`survival` - per panel, what the canonical conclusion (the sign of panel - self, judged by its interval)
  becomes under every other reading: kept, inconclusive, or reversed, and which choices produce a reversal;
* :func:`survival_sentence` - that summary in words (the page glues it; no number in it is typed by hand).

Nothing here reads the paper's claims; the page shows the paper's printed value beside the canonical row through
the book's ``{printed}`` role.

References: Chernets (2026), Result 1; Steegen, Tuerlinckx, Gelman & Vanpaemel (2016), multiverse analysis;
Simonsohn, Simmons & Nelson (2020), specification-curve analysis.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pandas as pd

from selfconf import panels
from selfconf.stats import summary

__all__ = [
    "compute",
    "survival",
    "survival_sentence",
    "verdict",
    "PANEL_LABEL",
    "STATUSES",
    "joint_tests",
    "collapse_patterns",
    "distinct_table",
]

#: Reading statuses (:data:`selfconf.panels.READING_STATUS`), in the order the page tallies them.
STATUSES = ("reasonable", "bound")

#: Panels by name, each its members (as :data:`selfconf.panels.PANELS`).
Panels = dict[str, tuple[str, ...]]

PANEL_LABEL = {"US": "US", "CN": "CN", "cross_bloc": "cross-bloc"}


def compute(
    rows: pd.DataFrame, members: Panels, *, seed: int, n_boot: int, level: float = 0.95, dataset: str = ""
) -> pd.DataFrame:
    """Every reading of every panel: the rows of :func:`selfconf.panels.panel_readings` with ``dataset`` and
    ``panel`` columns in front (``panel`` is the key of ``members``).

    Example: ``compute(rows, {"CN": ("deepseek", "alibaba", "moonshot")}, seed=1, n_boot=200)``.
    """
    return _compute(rows, members, seed=seed, n_boot=n_boot, level=level, dataset=dataset)[0]


def _compute(
    rows: pd.DataFrame, members: Panels, *, seed: int, n_boot: int, level: float, dataset: str
) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """:func:`compute` and, per panel, the draws of every row's delta (internal)."""
    out, draws = [], {}
    for name, mem in members.items():
        rng = summary.model_rng(seed, f"panel:{name}")
        t, d = panels.panel_readings(rows, mem, n_boot=n_boot, rng=rng, level=level, return_draws=True)
        t.insert(0, "panel", name)
        t.insert(0, "dataset", dataset)
        out.append(t)
        draws[name] = d
    return pd.concat(out, ignore_index=True), draws


def joint_tests(
    rows: pd.DataFrame, members: Panels, *, seed: int, n_boot: int, level: float = 0.95, dataset: str = ""
) -> tuple[pd.DataFrame, dict[str, dict[str, dict[str, Any]]]]:
    """:func:`compute` and, per panel, Simonsohn et al.'s joint test over its specifications.

    Definition: the specifications are the rows of the panel's table with the item cluster (the other cluster
    units repeat every estimate; they change intervals only); :func:`selfconf.panels.joint_test` is run on all
    of them (``"all"``) and on the reasonable ones (``"reasonable"``), oriented by the canonical row, on the
    panel's own item draws (Result 1's generator ``summary.model_rng(seed, "panel:<name>")``: no new randomness).

    Example: ``table, tests = joint_tests(rows, {"CN": ("deepseek", "alibaba", "moonshot")}, seed=1, n_boot=200)``.
    """
    table, draws = _compute(rows, members, seed=seed, n_boot=n_boot, level=level, dataset=dataset)
    tests: dict[str, dict[str, dict[str, Any]]] = {}
    for name, g in table.groupby("panel", sort=False):
        pos = np.arange(len(g))
        is_can = g["canonical"].to_numpy()
        tests[str(name)] = {}
        for which in ("all", "reasonable"):
            use = (g["cluster"] == "item").to_numpy().copy()
            if which == "reasonable":
                use &= (g["status"] == "reasonable").to_numpy()
            tests[str(name)][which] = panels.joint_test(
                g["delta"].to_numpy()[use], draws[str(name)][:, pos[use]], canonical=int(np.flatnonzero(is_can[use])[0])
            )
    return table, tests


def collapse_patterns(table: pd.DataFrame) -> pd.DataFrame:
    """How duplicate readings collapse onto the first reading of their result, as patterns with counts.

    Definition: for each row of ``table`` (one data set, from :func:`compute`) whose ``same_result_as`` is not
    empty, the pattern is the list of dimensions (with both option values) in which it differs from the first
    row of its result (:func:`selfconf.panels.distinct_results`); the table counts the rows per panel and
    pattern, most frequent first.

    >>> t = pd.DataFrame({"panel": "CN", "result_id": [0, 0], "same_result_as": ["", "canonical"],
    ...                   **{d: [v[0], v[0]] for d, v in panels.READINGS.items()}})
    >>> t.loc[1, "cluster"] = "row"
    >>> collapse_patterns(t).to_dict("records")
    [{'panel': 'CN', 'pattern': 'cluster item → row', 'duplicates': 1}]
    """
    dims = list(panels.READINGS)
    recs = []
    for name, g in table.groupby("panel", sort=False):
        first = g.drop_duplicates("result_id").set_index("result_id")
        dup = g[g["same_result_as"] != ""]
        f = first.loc[dup["result_id"].to_numpy(), dims]
        mine, theirs = dup[dims].to_numpy(dtype=object), f.to_numpy(dtype=object)
        for r, fr in zip(mine, theirs, strict=True):
            diff = [f"{d} {a} → {b}" for d, a, b in zip(dims, fr, r, strict=True) if a != b]
            recs.append({"panel": str(name), "pattern": "; ".join(diff) or "(same options)"})
    if not recs:
        return pd.DataFrame(columns=["panel", "pattern", "duplicates"])
    out = pd.DataFrame(recs).groupby(["panel", "pattern"], sort=False).size().rename("duplicates").reset_index()
    return out.sort_values(["panel", "duplicates"], ascending=[True, False], kind="mergesort").reset_index(drop=True)


def distinct_table(table: pd.DataFrame) -> pd.DataFrame:
    """One row per distinct result of each data set's panel, with how many comparisons give it and the row- and
    member-bootstrap intervals of its panel - self (the page's CSV download).

    Definition: the rows of ``table`` (from :func:`compute`, one or more data sets) with an empty
    ``same_result_as`` (the first reading of each result, :func:`selfconf.panels.distinct_results`), every column
    kept; ``n_readings`` counts the rows of ``table`` with the same ``dataset``, ``panel`` and ``result_id``;
    ``delta_ci_low_<unit>`` / ``delta_ci_high_<unit>`` (unit ``row``, ``member``) are the interval of the same
    reading (same options, member and left-out member) under that cluster unit, empty when ``table`` lacks it.

    >>> t = pd.DataFrame([dict(panels.CANONICAL_READING, dataset="d", panel="CN", member="", left_out="",
    ...                        result_id=0, same_result_as=s, cluster=c, delta_ci_low=lo, delta_ci_high=lo + 1)
    ...                   for c, s, lo in (("item", "", 0.0), ("row", "canonical", 0.5), ("member", "x", -1.0))])
    >>> d = distinct_table(t)
    >>> int(d["n_readings"][0]), d[["delta_ci_low_row", "delta_ci_high_member"]].values.tolist()
    (3, [[0.5, 0.0]])
    """
    keys = ["dataset", "panel", "result_id"]
    out = table[table["same_result_as"] == ""].copy()
    n = table.groupby(keys, sort=False).size().rename("n_readings")
    out = out.merge(n, left_on=keys, right_index=True, how="left")
    match = ["dataset", "panel", *[d for d in panels.READINGS if d != "cluster"], "member", "left_out"]
    for unit in ("row", "member"):
        other = table[table["cluster"] == unit][[*match, "delta_ci_low", "delta_ci_high"]]
        other = other.rename(columns={"delta_ci_low": f"delta_ci_low_{unit}", "delta_ci_high": f"delta_ci_high_{unit}"})
        out = out.merge(other, on=match, how="left")
    return out.reset_index(drop=True)


def verdict(low: float, high: float) -> int:
    """+1 if an interval lies above 0, -1 if below, 0 if it contains 0 (or is undefined).

    >>> verdict(0.1, 0.2), verdict(-0.2, -0.1), verdict(-0.1, 0.1)
    (1, -1, 0)
    """
    if not (np.isfinite(low) and np.isfinite(high)):
        return 0
    return 1 if low > 0 else (-1 if high < 0 else 0)


def _status_split(
    g: pd.DataFrame, status: np.ndarray, v: np.ndarray, v0: int, same_sign: np.ndarray, rev: np.ndarray
) -> dict[str, Any]:
    """Counts of :func:`survival` per reading status: readings, surviving, same sign, inconclusive, reversed.

    Definition: for each status of :data:`STATUSES`, over the readings ``u`` with that status: how many there are,
    how many keep the canonical verdict ``v0``, keep its sign, are inconclusive (interval containing zero while the
    canonical one does not) and reverse it; with a ``result_id`` column also the distinct results (per status and
    overall, :func:`selfconf.panels.distinct_results`).

    >>> g = pd.DataFrame({"result_id": [0, 0, 1]})
    >>> s = _status_split(g, np.array(["reasonable", "reasonable", "bound"]), np.array([1, 1, -1]), 1,
    ...                   np.array([True, True, False]), np.array([False, False, True]))
    >>> s["n_reasonable_survive"], s["n_bound_reversed"], s["n_reasonable_distinct"], s["n_distinct"]
    (2, 1, 1, 2)
    """
    split: dict[str, Any] = {}
    for st in STATUSES:
        u = status == st
        split[f"n_{st}"] = int(u.sum())
        split[f"n_{st}_survive"] = int((v[u] == v0).sum())
        split[f"n_{st}_same_sign"] = int(same_sign[u].sum())
        split[f"n_{st}_inconclusive"] = int(((v[u] == 0) & (v0 != 0)).sum())
        split[f"n_{st}_reversed"] = int(rev[u].sum())
        if "result_id" in g:
            split[f"n_{st}_distinct"] = int(g["result_id"][u].nunique())
    if "result_id" in g:
        split["n_distinct"] = int(g["result_id"].nunique())
    return split


def survival(table: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per panel of ``table`` (one data set): the canonical verdict and what every other reading makes of it.

    Definition: a reading's verdict is the sign of its panel - self interval (:func:`verdict`).  Every count is
    also given per reading status (``n_reasonable_survive``, ``n_bound_reversed``, ...; the status of
    :func:`selfconf.panels.reading_status`) and, when the table numbers its results, the number of distinct
    results (``n_distinct``, ``n_<status>_distinct``).  The canonical
    conclusion *survives* a reading when that reading's verdict equals the canonical one; it is *reversed* when
    the verdict is the opposite sign, *inconclusive* when the interval contains zero.  ``reversing_choices``
    counts, per non-canonical option value, the reversing readings that use it; ``reversal_share`` gives, per
    option value, the share of the readings using it that reverse (the base rate of each option removed);
    ``common`` lists the non-canonical option values shared by every reversing reading.

    >>> t = pd.DataFrame({"panel": "CN", "canonical": [True, False], "delta": [0.1, -0.1],
    ...                   "delta_ci_low": [0.05, -0.2], "delta_ci_high": [0.2, -0.05], "signal": ["count", "any"],
    ...                   "coding": "canonical", "indeterminate": "not_concurring", "ties": ["half", "loss"],
    ...                   "aggregation": "pooled", "population": "all_answered", "member": ""})
    >>> s = survival(t)["CN"]
    >>> s["canonical_verdict"], s["n_reversed"], s["common"]
    (1, 1, ['signal=any', 'ties=loss'])
    """
    out: dict[str, dict[str, Any]] = {}
    dims = [d for d in panels.READINGS if d in table]  # a table may predate a dimension (then canonical)
    for name, g in table.groupby("panel", sort=False):
        can = g[g["canonical"]].iloc[0]
        v0 = verdict(can["delta_ci_low"], can["delta_ci_high"])
        v = np.array([verdict(lo, hi) for lo, hi in zip(g["delta_ci_low"], g["delta_ci_high"], strict=True)])
        same_sign = np.sign(g["delta"].to_numpy()) == np.sign(can["delta"])
        rev = (v == -v0) & (v != 0) if v0 != 0 else np.zeros(len(g), bool)
        choice_sets = []
        counts: Counter[str] = Counter()
        for _, r in g[rev].iterrows():
            ch = {f"{d}={r[d]}" for d in dims if r[d] != panels.CANONICAL_READING[d]}
            choice_sets.append(ch)
            counts.update(ch)
        common = sorted(set.intersection(*choice_sets)) if choice_sets else []
        share = {}  # per option value: the share of the readings using it that reverse the conclusion
        for d in dims:
            for val in panels.READINGS[d]:
                use = (g[d] == val).to_numpy()
                if use.any():
                    share[f"{d}={val}"] = float(rev[use].mean())
        status = (
            g["status"].to_numpy()
            if "status" in g
            else np.array(
                [
                    panels.reading_status({d: r[d] for d in dims if d in r})
                    for r in g.to_dict("records")  # tables without a status column (older callers)
                ]
            )
        )
        split = _status_split(g, status, v, v0, same_sign, rev)
        out[str(name)] = {
            **split,
            "canonical_delta": float(can["delta"]),
            "canonical_ci": (float(can["delta_ci_low"]), float(can["delta_ci_high"])),
            "canonical_verdict": v0,
            "n_readings": int(len(g)),
            "n_survive": int((v == v0).sum()),
            "n_same_sign": int(same_sign.sum()),
            "n_inconclusive": int(((v == 0) & (v0 != 0)).sum()),
            "n_reversed": int(rev.sum()),
            "reversing_choices": dict(counts.most_common()),
            "common": common,
            "reversal_share": dict(sorted(share.items(), key=lambda kv: -kv[1])),
            "min_delta": float(g["delta"].min()),
            "max_delta": float(g["delta"].max()),
        }
    return out


def _status_noun(status: str) -> str:
    """'reasonable readings' or 'bounds' (the sentence's plural for a status)."""
    return {"reasonable": "reasonable readings", "bound": "bounds"}[status]


def survival_sentence(name: str, s: dict[str, Any]) -> str:
    """One sentence from a :func:`survival` record (numbers formatted here, from the record).

    >>> t = survival_sentence("CN", {"canonical_delta": 0.1, "canonical_ci": (0.05, 0.2), "canonical_verdict": 1,
    ...     "n_readings": 2, "n_survive": 1, "n_same_sign": 1, "n_inconclusive": 0, "n_reversed": 1,
    ...     "reversing_choices": {"signal=any": 1}, "common": ["signal=any"], "min_delta": -0.1, "max_delta": 0.1})
    >>> t[:60]
    'CN: canonical panel − self +0.100 [+0.050, +0.200] (panel ah'
    >>> t[t.index("reversed"):]
    'reversed under 1; every reversal uses signal=any. Range of panel − self over all readings: −0.100 to +0.100.'
    """

    def f(x: float) -> str:
        return f"{x:+.3f}".replace("-", "\u2212")

    label = PANEL_LABEL.get(name, name)
    side = {1: "panel ahead", -1: "self ahead", 0: "interval contains 0"}[s["canonical_verdict"]]
    lo, hi = s["canonical_ci"]
    text = f"{label}: canonical panel − self {f(s['canonical_delta'])} [{f(lo)}, {f(hi)}] ({side}). "
    split = all(f"n_{st}" in s for st in STATUSES)
    if s["canonical_verdict"] == 0:
        if split:
            text += "No direction to keep; " + " and ".join(
                f"{s[f'n_{st}_same_sign']} of {s[f'n_{st}']} {_status_noun(st)}" for st in STATUSES
            )
            text += " have the canonical sign."
        else:
            text += f"No direction to keep; {s['n_same_sign']} of {s['n_readings']} readings have the canonical sign."
    elif split:
        text += "Kept with an interval on the same side under " + " and under ".join(
            f"{s[f'n_{st}_survive']} of {s[f'n_{st}']} {_status_noun(st)} (inconclusive under "
            f"{s[f'n_{st}_inconclusive']}, reversed under {s[f'n_{st}_reversed']})"
            for st in STATUSES
        )
    else:
        text += (
            f"Kept with an interval on the same side under {s['n_survive']} of {s['n_readings']} readings, "
            f"inconclusive under {s['n_inconclusive']}, reversed under {s['n_reversed']}"
        )
    if s["canonical_verdict"] != 0:
        if s["n_reversed"]:
            if s["common"]:
                text += f"; every reversal uses {' and '.join(s['common'])}."
            else:
                top = ", ".join(f"{k} ({v:.0%})" for k, v in list(s["reversal_share"].items())[:3])
                text += (
                    "; no single choice is shared by every reversal (the options under which the largest shares of "
                    f"readings reverse: {top})."
                )
        else:
            text += "."
    text += f" Range of panel − self over all readings: {f(s['min_delta'])} to {f(s['max_delta'])}."
    return text
