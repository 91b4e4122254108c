"""Fit the nine frontier models' confidence-by-correctness tables to the printed numbers.

Targets (all from ``claims.yaml``, sections *design* and *result1*): per-model n, correct
count, mean and median stated confidence, CITL, Brier, 10-bin ECE, the sign of every
occupied reliability bin, tie-corrected self-AUROC and the width of its row-level bootstrap
CI (through the DeLong standard error), Table 2 risk-coverage errors at tie-group cut points,
the high-confidence (>= 80) error counts, anthropic's refusal split, and the three panels'
pooled and rank-normalised self-AUROCs on their populations.
"""

from __future__ import annotations

from typing import Any, TypedDict, cast

import numpy as np

from selfconf import roster
from selfconf.reconstruct.anneal import ModelTable, Part, anneal, exact_penalty, interval_penalty
from selfconf.reconstruct.faststats import auroc_lists, pooled_auroc_lists, ranknorm_auroc_lists, table_stats
from selfconf.reconstruct.targets import Targets

__all__ = ["FRONTIER", "FrontierPlan", "fit_frontier", "frontier_summary"]

#: Table 1 row order.
#: The frontier models in Table 1 row order (the roster table, :func:`selfconf.roster.frontier`).
FRONTIER = roster.frontier()

#: Correct counts: the unique value (or one of two) compatible with accuracy and CITL
#: (consistency.md, "Implied integer counts").  google 971 leaves the 490 errors Table 2 needs.
CORRECT = {
    "google": 971,
    "moonshot": 774,
    "alibaba": 710,
    "xai": 568,
    "deepseek": 536,
    "zhipu": 424,
    "openai": 250,
    "mistral": 246,
    "anthropic": 155,
}

#: Models whose reliability diagram has exactly one non-positive bin (ECE > |CITL| in Table 1).
ONE_NONPOSITIVE_BIN = ("deepseek", "openai")

#: Risk-coverage cut points: covered rows = floor(coverage * n), placed on tie-group boundaries.
COVERAGES = (80, 60, 40, 20)

#: anthropic refusals state at most this confidence.
REFUSAL_MAX_CONF = 40

GRID = np.arange(0, 101, 5)

#: Rows stated at confidence >= 80 and wrong ones among them, per model.  The paper prints only
#: the pooled counts (9,310 and 5,598), the per-model range of the error rate (29.0-83.2%) and
#: its macro average (57.6%).  This allocation was read off a joint search over all nine tables
#: (then nudged by a few rows); :func:`check_highconf_allocation` verifies it prints as published.
HIGHCONF_ALLOCATION = {
    "google": (1379, 438),
    "moonshot": (948, 373),
    "alibaba": (1395, 695),
    "xai": (138, 40),
    "deepseek": (1361, 844),
    "zhipu": (1406, 996),
    "openai": (1132, 935),
    "mistral": (1451, 1207),
    "anthropic": (100, 70),
}


def check_highconf_allocation(T: Targets) -> dict[str, bool]:
    """Whether :data:`HIGHCONF_ALLOCATION` reproduces every printed high-confidence number."""
    H = sum(h for h, _ in HIGHCONF_ALLOCATION.values())
    W = sum(w for _, w in HIGHCONF_ALLOCATION.values())
    rates = [100 * w / h for h, w in HIGHCONF_ALLOCATION.values()]

    def ok(x, cid):
        lo, hi = T.interval(cid)
        return lo < x < hi

    return {
        "total": H == T.value("r1_highconf_total_n"),
        "wrong": W == T.value("r1_highconf_wrong_n"),
        "pooled_pct": ok(100 * W / H, "r1_highconf_wrong_pooled_pct"),
        "min": ok(min(rates), "r1_highconf_wrong_permodel_min"),
        "max": ok(max(rates), "r1_highconf_wrong_permodel_max"),
        "macro": ok(sum(rates) / len(rates), "r1_highconf_wrong_macro_pct"),
    }


#: Table 2 models: value ranges of the five coverage blocks, top (A, the most confident 20%)
#: to bottom (E).  Block boundaries are tie-group boundaries, so the covered sets of Table 2
#: do not depend on any tie-breaking rule.  The block holding the median rows contains the
#: median value.
BLOCK_RANGES = {
    "google": [(100, 100), (98, 99), (91, 97), (90, 90), (0, 89)],
    "xai": [(75, 100), (62, 72), (50, 60), (35, 45), (0, 30)],
    "anthropic": [(70, 100), (55, 65), (40, 50), (25, 35), (0, 20)],
}
BLOCKS = "ABCDE"

#: off-grid confidences a model may use (at a small cost per row: verbalised confidences heap
#: on multiples of 5, but 98/99 and the odd 42 do occur)
EXTRA_VALUES = {
    "google": (96, 97, 98, 99),
    "alibaba": (98, 99),
    "zhipu": (98, 99),
    "deepseek": (98,),
    "mistral": (98,),
    "xai": (62, 68, 72, 78),
    "anthropic": (42, 62, 72, 78),
    "moonshot": (82, 88),
    "openai": (82, 88),
}
OFF_GRID_COST = 0.003  # penalty per row stated off the multiples of 5
W_DET = 10.0  # weight of a deterministic (printed to the last digit) target
W_SE = 10.0  # weight of the bootstrap-width proxy (exact targets are made hard at the end)
CORE = 0.8  # deterministic targets count as met inside the central 80% of their interval

T2_MODELS = tuple(BLOCK_RANGES)
T2_NEEDS: dict[str, list[tuple[int, int, int]]] = {}


def risk_coverage_needs(T: Targets, m: str, n: int) -> list[tuple[int, int, int]]:
    """(covered rows, min errors, max errors) for each Table 2 coverage of model ``m``.

    Covered rows = floor(coverage * n), the book's rule (``selfconf.metrics.risk_coverage``);
    the blocks of :data:`BLOCK_RANGES` end exactly there, so no tie-breaking rule decides a
    printed rate.  (At n = 1,500 floor, round and ceiling agree; for google's 1,461 the ceiling
    would make the printed 40% and 20% rates unreachable by any data.)
    """
    out = []
    for cov in COVERAGES:
        mcov = (cov * n) // 100
        lo_, hi_ = T.interval(f"t2_{m}_err_cov{cov}")
        e_need = [e for e in range(mcov + 1) if lo_ < 100 * e / mcov < hi_]
        out.append((mcov, min(e_need), max(e_need)))
    return out


class FrontierPlan:
    """Row groups of every frontier model.

    A *part* is ``"<block>/<label>"``: the block is a coverage block (Table 2 models) or
    ``all``; the label is ``main``, ``refusal`` (anthropic) or ``x<panel>:<model>`` (the rows
    on items that ``model`` failed to parse, which ``panel``'s population leaves out).
    ``self.parts[m]`` maps part -> (size, correct rows or None when free, value range).
    """

    def __init__(self, T: Targets, parse_fail: dict[str, int]):
        self.T = T
        self.n = {m: int(T.value(f"t1_{m}_n")) for m in FRONTIER}
        self.k = dict(CORRECT)
        self.fail = parse_fail
        self.refusals = self.n["anthropic"] - int(T.value("r1_anthropic_n_excl_refusals"))
        panels = T.panels
        self.panels = {p: list(panels[p]["members"]) for p in ("US", "CN", "cross_bloc")}
        self.parts: dict[str, dict[str, tuple]] = {}
        for m in FRONTIER:
            labels = {}
            for p, members in self.panels.items():
                for other in members:
                    if other != m and m in members and self.fail.get(other, 0) > 0:
                        labels[f"x{p}:{other}"] = self.fail[other]
            self.parts[m] = self._split(m, labels)

    def _blocks(self, m: str) -> list[tuple[str, int, int | None, tuple[int, int]]]:
        """(block, size, correct, value range) from the top block down."""
        n, k = self.n[m], self.k[m]
        if m not in BLOCK_RANGES:
            return [("all", n, k, (0, 100))]
        needs = risk_coverage_needs(self.T, m, n)
        cum_m = [x[0] for x in needs] + [n]  # rows covered at 20, 40, 60, 80, 100%
        cum_m = sorted(cum_m)
        # errors: use the middle of each feasible range (a single integer at n = 1,500)
        err = {x[0]: (x[1] + x[2]) // 2 for x in needs}
        err[n] = n - k
        out: list[tuple[str, int, int | None, tuple[int, int]]] = []
        prev_m, prev_e = 0, 0
        for b, (mm, rng_) in enumerate(zip(cum_m, BLOCK_RANGES[m], strict=True)):
            size = mm - prev_m
            wrong = err[mm] - prev_e
            out.append((BLOCKS[b], size, size - wrong, rng_))
            prev_m, prev_e = mm, err[mm]
        return out

    def _split(self, m: str, labels: dict[str, int]) -> dict[str, tuple]:
        blocks = self._blocks(m)
        parts: dict[str, tuple] = {}
        ref_left = self.refusals if m == "anthropic" else 0
        # refusals fill blocks from the bottom (they are the least confident rows)
        ref_in = {}
        for name, size, cor, _rng in reversed(blocks):
            r = min(ref_left, size - (cor or 0))
            ref_in[name] = r
            ref_left -= r
        answered = {name: size - ref_in[name] for name, size, _, _ in blocks}
        tot_answered = sum(answered.values())
        # label rows spread over blocks in proportion to answered rows (largest remainder)
        lab_in: dict[str, dict[str, int]] = {name: {} for name, *_ in blocks}
        for lab, cnt in labels.items():
            quotas = {b: cnt * answered[b] / tot_answered for b in answered}
            base = {b: int(np.floor(q)) for b, q in quotas.items()}
            rest = cnt - sum(base.values())
            for b in sorted(quotas, key=lambda b: -(quotas[b] - base[b]))[:rest]:
                base[b] += 1
            for b in base:
                lab_in[b][lab] = base[b]
        for name, size, _cor, rng_ in blocks:
            used = 0
            for lab, cnt in lab_in[name].items():
                if cnt:
                    parts[f"{name}/{lab}"] = (cnt, rng_)
                    used += cnt
            if ref_in[name]:
                parts[f"{name}/refusal"] = (ref_in[name], (0, min(rng_[1], REFUSAL_MAX_CONF)))
                used += ref_in[name]
            parts[f"{name}/main"] = (size - used, rng_)
        self.block_correct = getattr(self, "block_correct", {})
        self.block_correct[m] = {name: cor for name, _, cor, _ in blocks}
        return parts

    def population_parts(self, m: str, panel: str) -> list[str]:
        """Parts of model ``m`` inside panel ``panel``'s population."""
        return [p for p in self.parts[m] if not p.split("/", 1)[1].startswith(f"x{panel}:")]

    def answered_parts(self, m: str) -> list[str]:
        return [p for p in self.parts[m] if not p.endswith("/refusal")]


def _grid_for(m: str, T: Targets) -> np.ndarray:
    med = int(T.value(f"fig1_{m}_median_conf"))
    g = set(GRID.tolist())
    g.add(med)
    g.update(EXTRA_VALUES.get(m, ()))
    return np.array(sorted(g))


def _init_model(m: str, plan: FrontierPlan, rng: np.random.Generator) -> ModelTable:
    """A feasible start: every block's rows at one value (the median in the median's block)."""
    T = plan.T
    values = _grid_for(m, T)
    med = int(T.value(f"fig1_{m}_median_conf"))
    mt = ModelTable(m, values)
    by_block: dict[str, list[str]] = {}
    for pname in plan.parts[m]:
        by_block.setdefault(pname.split("/")[0], []).append(pname)
    for block, pnames in by_block.items():
        k_block = plan.block_correct[m][block]
        n_answered = sum(plan.parts[m][p][0] for p in pnames if not p.endswith("/refusal"))
        k_left = k_block
        for pname in sorted(pnames, key=lambda p: p.endswith("/main")):  # main last takes the rest
            size, (lo, hi) = plan.parts[m][pname]
            allowed = (values >= lo) & (values <= hi)
            inside = values[allowed]
            if lo <= med <= hi:
                v0 = med
            else:
                v0 = int(inside[len(inside) // 2])
            j = int(np.searchsorted(values, v0))
            counts = np.zeros((2, values.size), dtype=np.int64)
            if pname.endswith("/refusal"):
                counts[0, j] = size
                mt.parts[pname] = Part(pname, counts, allowed, 0, block)
                continue
            if pname.endswith("/main"):
                kc = k_left
            else:
                kc = min(k_left, int(round(k_block * size / max(n_answered, 1))))
            k_left -= kc
            counts[1, j] = kc
            counts[0, j] = size - kc
            mt.parts[pname] = Part(pname, counts, allowed, None, block)
    return mt


def median_penalty(values: np.ndarray, tot: np.ndarray, target: float, unit: float = 8.0) -> float:
    """Rows that would have to move for the median to equal ``target`` exactly (smooth in rows).

    The median is ``target`` iff at most ``(n-1)//2`` rows lie below it and more than
    ``n//2`` rows lie at or below it.
    """
    n = int(tot.sum())
    below = tot[values < target].sum()
    upto = tot[values <= target].sum()
    if not np.any(values == target):
        lo, hi = values[values < target].max(), values[values > target].min()
        # an even-n median between two grid values can still equal target
        return 1e3 if (lo + hi) / 2 != target else 0.0
    d = max(0.0, below - (n - 1) // 2) + max(0.0, n // 2 + 1 - upto)
    return (d / unit) ** 2


def _median_pen_lists(values, tot, target, unit=8.0) -> float:
    n = sum(tot)
    below = sum(t for v, t in zip(values, tot, strict=True) if v < target)
    upto = below + sum(t for v, t in zip(values, tot, strict=True) if v == target)
    d = max(0, below - (n - 1) // 2) + max(0, n // 2 + 1 - upto)
    return (d / unit) ** 2


def _t2_pen(values, c0, c1, needs) -> float:
    """Rows away from a tie-group cut with the printed error count, per coverage (summed)."""
    T = E = 0
    best = [1e9] * len(needs)
    for j in range(len(values) - 1, -1, -1):
        T += c0[j] + c1[j]
        E += c0[j]
        for i, (mcov, e_lo, e_hi) in enumerate(needs):
            d = abs(T - mcov) + max(0, e_lo - E, E - e_hi)
            if d < best[i]:
                best[i] = d
    return float(sum(best))


def _gap_pen(gaps, n_nonpositive: int, margin: float = 0.01) -> float:
    g = sorted(gaps)
    p = 0.0
    for i, x in enumerate(g):
        if i < n_nonpositive:
            p += max(0.0, x + margin) ** 2
        else:
            p += max(0.0, margin - x) ** 2
    return 20 * p / margin**2


class _ModelTargets(TypedDict):
    """One model's Table 1 targets: printed intervals, and the printed median."""

    mean: tuple[float, float]
    citl: tuple[float, float]
    median: float
    brier: tuple[float, float]
    ece: tuple[float, float]
    auroc: tuple[float, float]
    se: tuple[float, float]


def make_model_penalty(plan: FrontierPlan):
    """The per-model part of the objective (Table 1, Table 2, bins, refusal and population AUROCs)."""
    T = plan.T
    for m in T2_MODELS:
        T2_NEEDS[m] = risk_coverage_needs(T, m, plan.n[m])
    iv: dict[str, _ModelTargets] = {}
    for m in FRONTIER:
        lo, hi = T.value(f"t1_{m}_self_auroc_ci_lo"), T.value(f"t1_{m}_self_auroc_ci_hi")
        iv[m] = {
            "mean": T.interval(f"t1_{m}_mean_conf"),
            "citl": T.interval(f"t1_{m}_citl"),
            "median": T.value(f"fig1_{m}_median_conf"),
            "brier": T.interval(f"t1_{m}_brier"),
            "ece": T.interval(f"t1_{m}_ece"),
            "auroc": T.interval(f"t1_{m}_self_auroc"),
            "se": ((hi - lo) / 3.92 - 0.0004, (hi - lo) / 3.92 + 0.0004),
        }
    iv_excl = T.interval("r1_anthropic_self_auroc_excl_refusals")
    iv_us = {
        "anthropic": T.interval("us_within_model_self_auroc_max"),
        "openai": T.interval("us_within_model_self_auroc_min"),
    }

    def pen(mt: ModelTable):
        m = mt.name
        t = iv[m]
        v = mt.values.tolist()
        c = cast(np.ndarray, sum(p.counts for p in mt.parts.values()))
        c0, c1 = c[0].tolist(), c[1].tolist()
        s = table_stats(v, c0, c1)
        acc = s["k"] / s["n"]
        soft = OFF_GRID_COST * sum(a + b for x, a, b in zip(v, c0, c1, strict=True) if x % 5)
        det = interval_penalty(s["mean"], *t["mean"], core=CORE)
        det += interval_penalty(s["mean"] - 100 * acc, *t["citl"], core=CORE)
        det += _median_pen_lists(v, [a + b for a, b in zip(c0, c1, strict=True)], t["median"], unit=1.0)
        det += interval_penalty(s["brier"], *t["brier"], core=CORE)
        det += interval_penalty(s["ece"], *t["ece"], core=CORE)
        det += interval_penalty(s["auroc"], *t["auroc"], core=CORE)
        det += _gap_pen(s["gaps"], 1 if m in ONE_NONPOSITIVE_BIN else 0)
        h_t, w_t = HIGHCONF_ALLOCATION[m]
        det += (abs(s["H"] - h_t) + abs(s["W"] - w_t)) / 2.0
        soft += W_SE * interval_penalty(s["se"], *t["se"])
        info: dict[str, Any] = {"stats": s, "pop": {}}
        if m in T2_MODELS:
            det += 2.0 * _t2_pen(v, c0, c1, T2_NEEDS[m])
        if m == "anthropic":
            cc = cast(np.ndarray, sum(mt.parts[name].counts for name in plan.answered_parts(m)))
            det += interval_penalty(auroc_lists(cc[0].tolist(), cc[1].tolist()), *iv_excl, core=CORE)
        for panel, members in plan.panels.items():
            if m in members:
                cc = cast(np.ndarray, sum(mt.parts[name].counts for name in plan.population_parts(m, panel)))
                info["pop"][panel] = (v, cc[0].tolist(), cc[1].tolist())
        if m in iv_us:
            _, a0, a1 = info["pop"]["US"]
            au = auroc_lists(a0, a1)
            info["us_within"] = au
            det += interval_penalty(au, *iv_us[m], core=CORE)
        if m == "google":
            info["us_within"] = s["auroc"]
        info["det"] = det
        p = W_DET * det + soft
        return p, info

    return pen


def make_global_penalty(plan: FrontierPlan):
    """Cross-model terms: pooled high-confidence error counts and rates, panel pooled AUROCs."""
    T = plan.T
    H_t, W_t = T.value("r1_highconf_total_n"), T.value("r1_highconf_wrong_n")
    names_panel = {"US": "us", "CN": "cn", "cross_bloc": "xb"}
    iv = {
        k: T.interval(k)
        for k in (
            "r1_highconf_wrong_permodel_min",
            "r1_highconf_wrong_permodel_max",
            "r1_highconf_wrong_macro_pct",
            "us_self_auroc_pooled",
            "cn_self_auroc_pooled",
            "xb_self_auroc_pooled",
            "us_self_auroc_ranknorm",
            "cn_self_auroc_ranknorm",
            "us_between_model_identity_contribution",
            "us_within_model_self_auroc_macro",
        )
    }

    def gpen(models, infos):
        p = 0.0
        ip = lambda x, lo, hi: interval_penalty(x, lo, hi, core=CORE)  # noqa: E731
        H = sum(infos[m]["stats"]["H"] for m in FRONTIER)
        W = sum(infos[m]["stats"]["W"] for m in FRONTIER)
        p += W_DET * (exact_penalty(H, H_t, unit=1.0) + exact_penalty(W, W_t, unit=1.0))
        rates = [100 * infos[m]["stats"]["W"] / max(infos[m]["stats"]["H"], 1) for m in FRONTIER]
        p += W_DET * ip(min(rates), *iv["r1_highconf_wrong_permodel_min"])
        p += W_DET * ip(max(rates), *iv["r1_highconf_wrong_permodel_max"])
        p += W_DET * ip(sum(rates) / len(rates), *iv["r1_highconf_wrong_macro_pct"])
        for panel, members in plan.panels.items():
            key = names_panel[panel]
            tabs = [infos[m]["pop"][panel] for m in members]
            pooled = pooled_auroc_lists(tabs)
            p += W_DET * ip(pooled, *iv[f"{key}_self_auroc_pooled"])
            if panel in ("US", "CN"):
                rn = ranknorm_auroc_lists(tabs)
                p += W_DET * ip(rn, *iv[f"{key}_self_auroc_ranknorm"])
                if panel == "US":
                    p += W_DET * ip(pooled - rn, *iv["us_between_model_identity_contribution"])
        macro = sum(infos[m]["us_within"] for m in plan.panels["US"]) / 3
        p += W_DET * ip(macro, *iv["us_within_model_self_auroc_macro"])
        return p

    return gpen


def fit_frontier(
    plan: FrontierPlan, rng: np.random.Generator, n_steps: int = 60000, warm_steps: int = 20000, restarts: int = 3
) -> tuple[dict[str, ModelTable], float]:
    """Search the nine tables.

    1. Per model, up to ``restarts`` independent annealing runs (stopping at the first that
       meets every exact per-model target); the best run is kept.
    2. A joint pass adds the cross-model terms (pooled high-confidence counts, panel pooled
       AUROCs).  It runs in *hard* mode: a model that meets all its exact targets never
       accepts a move that breaks one, so the joint terms are fitted without undoing Table 1.
    """
    mpen = make_model_penalty(plan)
    gpen = make_global_penalty(plan)
    models = {}
    for m in FRONTIER:
        best = None
        for _ in range(restarts):
            mt = _init_model(m, plan, rng)
            anneal({m: mt}, mpen, None, rng, warm_steps, t0=2.0, t1=1e-3)
            anneal({m: mt}, mpen, None, rng, warm_steps // 2, t0=0.05, t1=1e-5, hard=True)
            pen, info = mpen(mt)
            key = (info["det"] > 0, info["det"], pen)
            if best is None or key < best[0]:
                best = (key, mt)
            if info["det"] == 0:
                break
        assert best is not None  # restarts >= 1
        models[m] = best[1]
    anneal(models, mpen, gpen, rng, n_steps, t0=0.3, t1=1e-4)
    total, _ = anneal(models, mpen, gpen, rng, n_steps, t0=0.05, t1=1e-5, hard=True)
    # repair: a model still missing an exact target is searched alone (the others held fixed,
    # the cross-model terms still counted), then everything is polished once more
    for _ in range(3):
        infos = {m: mpen(models[m])[1] for m in FRONTIER}
        bad = [m for m in FRONTIER if infos[m]["det"] > 0]
        if not bad:
            break
        for m in bad:

            def gfix(sub, sub_infos, m=m, infos=infos):
                return gpen(models, {**infos, **sub_infos})

            anneal({m: models[m]}, mpen, gfix, rng, warm_steps // 2, t0=0.2, t1=1e-5)
            infos[m] = mpen(models[m])[1]
    total, _ = anneal(models, mpen, gpen, rng, n_steps // 2, t0=0.02, t1=1e-5, hard=True)
    return models, total


def frontier_summary(plan: FrontierPlan, models: dict[str, ModelTable]) -> dict:
    """Table-level values of every fitted quantity (for logging while developing)."""
    mpen = make_model_penalty(plan)
    out = {}
    infos = {}
    for m in FRONTIER:
        pen, info = mpen(models[m])
        infos[m] = info
        s = dict(info["stats"])
        s["n_nonpos"] = sum(g <= 0 for g in s.pop("gaps"))
        s["penalty"] = pen
        out[m] = s
    out["_global_penalty"] = make_global_penalty(plan)(models, infos)
    return out


def frontier_terms(plan: FrontierPlan, models: dict[str, ModelTable]) -> list[tuple[str, float, float, float]]:
    """(term, value, lo, hi) of every table-level target, for diagnostics."""
    T = plan.T
    out = []
    infos = {}
    for m in FRONTIER:
        mt = models[m]
        v = mt.values.tolist()
        c = cast(np.ndarray, sum(p.counts for p in mt.parts.values()))
        s = table_stats(v, c[0].tolist(), c[1].tolist())
        infos[m] = s
        acc = s["k"] / s["n"]
        out.append((f"{m}.mean", s["mean"], *T.interval(f"t1_{m}_mean_conf")))
        out.append((f"{m}.citl", s["mean"] - 100 * acc, *T.interval(f"t1_{m}_citl")))
        med = T.value(f"fig1_{m}_median_conf")
        out.append((f"{m}.median", s["median"], med, med))
        out.append((f"{m}.brier", s["brier"], *T.interval(f"t1_{m}_brier")))
        out.append((f"{m}.ece", s["ece"], *T.interval(f"t1_{m}_ece")))
        out.append((f"{m}.auroc", s["auroc"], *T.interval(f"t1_{m}_self_auroc")))
        lo, hi = T.value(f"t1_{m}_self_auroc_ci_lo"), T.value(f"t1_{m}_self_auroc_ci_hi")
        out.append((f"{m}.delong_se", s["se"], (hi - lo) / 3.92 - 0.0004, (hi - lo) / 3.92 + 0.0004))
        nn = sum(g <= 0 for g in s["gaps"])
        want = 1 if m in ONE_NONPOSITIVE_BIN else 0
        out.append((f"{m}.n_nonpositive_bins", nn, want, want))
        out.append((f"{m}.highconf_rate", 100 * s["W"] / max(s["H"], 1), float("nan"), float("nan")))
    H = sum(s["H"] for s in infos.values())
    W = sum(s["W"] for s in infos.values())
    out.append(("highconf.total", H, T.value("r1_highconf_total_n"), T.value("r1_highconf_total_n")))
    out.append(("highconf.wrong", W, T.value("r1_highconf_wrong_n"), T.value("r1_highconf_wrong_n")))
    rates = [100 * s["W"] / s["H"] for s in infos.values()]
    out.append(("highconf.rate_min", min(rates), *T.interval("r1_highconf_wrong_permodel_min")))
    out.append(("highconf.rate_max", max(rates), *T.interval("r1_highconf_wrong_permodel_max")))
    out.append(("highconf.rate_macro", sum(rates) / len(rates), *T.interval("r1_highconf_wrong_macro_pct")))
    pinfo = {m: make_model_penalty(plan)(models[m])[1] for m in FRONTIER}
    key = {"US": "us", "CN": "cn", "cross_bloc": "xb"}
    for panel, members in plan.panels.items():
        tabs = [pinfo[m]["pop"][panel] for m in members]
        pooled = pooled_auroc_lists(tabs)
        out.append((f"{panel}.self_pooled", pooled, *T.interval(f"{key[panel]}_self_auroc_pooled")))
        if panel != "cross_bloc":
            rn = ranknorm_auroc_lists(tabs)
            out.append((f"{panel}.self_ranknorm", rn, *T.interval(f"{key[panel]}_self_auroc_ranknorm")))
    for m, cid in (("anthropic", "us_within_model_self_auroc_max"), ("openai", "us_within_model_self_auroc_min")):
        out.append((f"US.within.{m}", pinfo[m]["us_within"], *T.interval(cid)))
    macro = sum(pinfo[m]["us_within"] for m in plan.panels["US"]) / 3
    out.append(("US.within.macro", macro, *T.interval("us_within_model_self_auroc_macro")))
    return out
