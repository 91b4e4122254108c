"""Generate the reconstructed 16-model x 1,500-item collection (``collection.csv``).

Algorithm (plain words; the book page *How the data were reconstructed* shows it with the
fidelity table):

1. **Tables.**  For every model, search a confidence-by-correctness table (how many correct
   and incorrect rows sit at each stated confidence) that reproduces every printed number
   that depends only on such tables (:mod:`.frontier`, :mod:`.local`).
2. **Items.**  Each item gets a latent easiness ``e_i ~ N(0, 1)``.  A model's correct rows
   go to the items with the highest ``lambda_m e_i + sqrt(1 - lambda_m^2) z_mi`` (exact
   counts; correctness is correlated across models through ``e``).  Within each
   (model, correctness) group the table's confidences are handed out in order of a second
   easiness-linked score, so a model states higher confidence on items that are easier.
3. **Answers.**  Correct answers carry the item's gold token (``iNNNN-a0``) or, for a
   share of them, the item's one variant string (``iNNNN-a1``, graded correct by the LLM
   grader).  A wrong answer is the item's popular wrong answer (``iNNNN-a2``) with an
   item-specific probability, otherwise a string of its own (``iNNNN-a3``, ...).
   anthropic's refusals (``REFUSAL``) are graded incorrect and carry low confidence.
4. **Panel structure.**  The loadings ``lambda``, the popular-wrong-answer rate and the
   variant rate are tuned (bisection on a fixed random stream) so that the three panels'
   agreement AUROCs match the paper; the confidence loadings ``rho`` of the CN members and of
   mistral are tuned so that the analytic (seed-free) item-clustered SEs of each panel's pooled
   self-AUROC and panel-minus-self difference match the printed widths (:func:`panel_half_widths`).

Everything is driven by one seed through :class:`numpy.random.SeedSequence` children, so a
rerun gives byte-identical files.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from selfconf import panels
from selfconf.data.collection import COLUMNS
from selfconf.reconstruct.anneal import ModelTable
from selfconf.reconstruct.bounds import clustered_auroc_se, clustered_contrast_se
from selfconf.reconstruct.frontier import FRONTIER, FrontierPlan
from selfconf.reconstruct.local import LOCAL, LOCAL_SPEC
from selfconf.reconstruct.targets import Targets
from selfconf.stats.normal import Z975

__all__ = [
    "N_ITEMS",
    "ITEM_IDS",
    "COLUMNS",
    "Structure",
    "build_rows",
    "write_collection",
    "FRONTIER_PARSE_FAILURES",
    "MOONSHOT_FIRST_PARTY",
]

N_ITEMS = 1500
ITEM_IDS = [f"sqa-{i:04d}" for i in range(1, N_ITEMS + 1)]

#: 1,500 minus Table 1 n (models not listed parse every item).
FRONTIER_PARSE_FAILURES = {"google": 39, "alibaba": 3, "zhipu": 7, "mistral": 5}
#: moonshot items answered on the first-party account: the first 670 in collection order.
MOONSHOT_FIRST_PARTY = 670


@dataclass
class Structure:
    """Cross-model structure parameters (tuned for the panel AUROCs)."""

    loading: dict[str, float] = field(default_factory=dict)  # lambda_m (default 0.6)
    conf_loading: float = 0.3  # rho: within-class confidence vs easiness (default)
    conf_loading_by_model: dict[str, float] = field(default_factory=dict)
    popular_wrong_a: float = 1.0  # Beta(a, b) item rate of the popular wrong answer
    popular_wrong_b: float = 2.0
    wrong_sharing: dict[str, float] = field(default_factory=dict)  # w_m: scales the popular-wrong rate (default 1)
    variant_rate: dict[str, float] = field(default_factory=dict)  # share of correct answers as variant (default 0.1)

    def rho(self, m: str) -> float:
        return self.conf_loading_by_model.get(m, self.conf_loading)

    def lam(self, m: str) -> float:
        return self.loading.get(m, 0.6)

    def q(self, m: str) -> float:
        return self.variant_rate.get(m, 0.1)

    def w(self, m: str) -> float:
        return self.wrong_sharing.get(m, 1.0)


def model_ids(T: Targets) -> dict[str, str]:
    """provider / Ollama tag -> exact model id (claims.yaml ``models``)."""
    out = {f["provider"]: f["model_id"] for f in T.models["frontier"]}
    out.update({t: t for t in T.models["local"]["model_ids"]})
    return out


def parse_failures(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Item indices (0-based) of every model's parse failures.

    Frontier failures are drawn disjoint across models (so each panel population loses a
    known set of items); local failures are independent draws.
    """
    out: dict[str, np.ndarray] = {}
    perm = rng.permutation(N_ITEMS)
    at = 0
    for m in FRONTIER:
        f = FRONTIER_PARSE_FAILURES.get(m, 0)
        out[m] = np.sort(perm[at : at + f])
        at += f
    for tag in LOCAL:
        n = LOCAL_SPEC[tag][0]
        out[tag] = np.sort(rng.choice(N_ITEMS, size=N_ITEMS - n, replace=False))
    return out


def _expand(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return np.repeat(values, counts.astype(np.int64))


@dataclass
class ModelRows:
    """Per-item arrays of one model (index = item)."""

    parse_ok: np.ndarray
    correct: np.ndarray  # -1 when not graded
    confidence: np.ndarray  # -1 when not graded
    refusal: np.ndarray


def assign_model(
    name: str,
    mt: ModelTable,
    part_items: dict[str, np.ndarray],
    easiness: np.ndarray,
    lam: float,
    rho: float,
    rng_z: np.random.Generator,
    rng_u: np.random.Generator,
) -> ModelRows:
    """Hand a fitted table's rows to items, part by part (see module docstring, step 2)."""
    n = easiness.size
    z = rng_z.standard_normal(n)
    u = rng_u.standard_normal(n)
    s = lam * easiness + np.sqrt(1 - lam**2) * z
    t = rho * easiness + np.sqrt(1 - rho**2) * u
    parse_ok = np.zeros(n, dtype=np.int8)
    correct = np.full(n, -1, dtype=np.int8)
    conf = np.full(n, -1, dtype=np.int16)
    refusal = np.zeros(n, dtype=np.int8)
    # rows of every part with the same label share the label's items (blocks only differ in
    # which confidences they hold)
    by_label: dict[str, np.ndarray] = {}
    for pname, part in mt.parts.items():
        label = pname.split("/", 1)[-1]
        by_label[label] = by_label.get(label, 0) + part.counts
    pools = dict(part_items)
    if "refusal" in by_label:  # anthropic: refusals and answered rows share one item pool
        pool = pools.pop("main")
        k_main = int(by_label["main"][1].sum())
        order = pool[np.argsort(-s[pool], kind="stable")]
        n_ref = int(by_label["refusal"].sum())
        pools["main"] = np.sort(order[: len(order) - n_ref])
        pools["refusal"] = np.sort(order[len(order) - n_ref :])
        assert k_main <= len(pools["main"])
    for label, items in pools.items():
        counts = by_label[label]
        assert items.size == int(counts.sum()), (name, label, items.size, int(counts.sum()))
        k = int(counts[1].sum())
        order = items[np.argsort(-s[items], kind="stable")]
        cor_items, inc_items = order[:k], order[k:]
        parse_ok[items] = 1
        correct[cor_items] = 1
        correct[inc_items] = 0
        if label == "refusal":
            refusal[items] = 1
        for cls, its in ((1, cor_items), (0, inc_items)):
            vals = _expand(mt.values, counts[cls])
            its_sorted = its[np.argsort(t[its], kind="stable")]
            conf[its_sorted] = vals  # ascending confidence to ascending easiness score
    return ModelRows(parse_ok, correct, conf, refusal)


def answer_classes(
    rows: dict[str, ModelRows], order: list[str], struct: Structure, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Integer answer-class codes per model and item (see module docstring, step 3).

    Codes: -1 no answer (parse failure), -2 refusal, 0 gold, 1 the item's variant of the
    gold answer, 2 the item's popular wrong answer, 3+ a wrong answer no other model gave.
    """
    n = N_ITEMS
    pw = rng.beta(struct.popular_wrong_a, struct.popular_wrong_b, size=n)
    next_code = np.full(n, 3, dtype=np.int64)
    out = {}
    for m in order:
        r = rows[m]
        code = np.full(n, -1, dtype=np.int64)
        draw_v = rng.random(n)
        draw_w = rng.random(n)
        ok = r.parse_ok == 1
        code[ok & (r.refusal == 1)] = -2
        cor = ok & (r.correct == 1)
        code[cor] = np.where(draw_v[cor] < struct.q(m), 1, 0)
        wrong = ok & (r.correct == 0) & (r.refusal == 0)
        popular = wrong & (draw_w < pw * struct.w(m))
        code[popular] = 2
        own = np.flatnonzero(wrong & ~popular)
        code[own] = next_code[own]
        next_code[own] += 1
        out[m] = code
    return out


def child_seed(ss: np.random.SeedSequence, *path: int) -> np.random.SeedSequence:
    """A fixed descendant of ``ss`` (unlike ``ss.spawn``, calling it twice gives the same stream)."""
    return np.random.SeedSequence(entropy=ss.entropy, spawn_key=tuple(ss.spawn_key) + tuple(path))


def build_rows(
    T: Targets,
    tables: dict[str, ModelTable],
    plan: FrontierPlan,
    fails: dict[str, np.ndarray],
    struct: Structure,
    seed_seq: np.random.SeedSequence,
) -> tuple[dict[str, ModelRows], dict[str, np.ndarray]]:
    """Items for every model's table rows, then answer classes."""
    easiness = np.random.default_rng(child_seed(seed_seq, 0)).standard_normal(N_ITEMS)
    order = FRONTIER + LOCAL
    all_items = np.arange(N_ITEMS)
    rows = {}
    for idx, m in enumerate(order):
        mt = tables[m]
        gz = np.random.default_rng(child_seed(seed_seq, 1, idx, 0))
        gu = np.random.default_rng(child_seed(seed_seq, 1, idx, 1))
        own_fail = fails[m]
        graded = np.setdiff1d(all_items, own_fail)
        part_items = {}
        if m in FRONTIER:
            rest = graded
            for label in sorted({p.split("/", 1)[-1] for p in plan.parts[m]}):
                if label.startswith("x"):
                    other = label.split(":", 1)[1]
                    part_items[label] = fails[other]
                    rest = np.setdiff1d(rest, fails[other])
            part_items["main"] = rest
        else:
            part_items["main"] = graded
        rows[m] = assign_model(m, mt, part_items, easiness, struct.lam(m), struct.rho(m), gz, gu)
    codes = answer_classes(rows, order, struct, np.random.default_rng(child_seed(seed_seq, 2)))
    return rows, codes


def _class_token(item_idx: int, code: int) -> str:
    if code == -1:
        return ""
    if code == -2:
        return "REFUSAL"
    return f"i{item_idx + 1:04d}-a{code}"


def collection_table(T: Targets, rows: dict[str, ModelRows], codes: dict[str, np.ndarray]) -> list[list[str]]:
    """The CSV rows (as strings) in tier, model, item order."""
    ids = model_ids(T)
    out = []
    for m in FRONTIER + LOCAL:
        tier = "frontier" if m in FRONTIER else "local"
        r, code = rows[m], codes[m]
        for i in range(N_ITEMS):
            ok = int(r.parse_ok[i])
            c = int(code[i])
            if not ok:
                graded_by = ""
            elif c in (0, -2):  # gold string match or refusal lexicon
                graded_by = "string"
            else:
                graded_by = "llm"
            if tier == "local":
                served = "local"
            elif m == "moonshot":
                served = "first_party" if i < MOONSHOT_FIRST_PARTY else "aggregator"
            else:
                served = "first_party"
            out.append(
                [
                    tier,
                    m,
                    ids[m],
                    ITEM_IDS[i],
                    str(int(r.confidence[i])) if ok else "",
                    str(ok),
                    str(int(r.correct[i])) if ok else "",
                    str(int(r.refusal[i])),
                    _class_token(i, c),
                    graded_by,
                    served,
                ]
            )
    return out


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    """Write a CSV with '\\n' line endings and minimal quoting (byte-stable)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def write_collection(path: Path, T: Targets, rows, codes) -> int:
    table = collection_table(T, rows, codes)
    write_csv(path, COLUMNS, table)
    return len(table)


# ----------------------------------------------------------------------------------------
# cross-model structure: tune loadings and answer sharing to the panel AUROCs
# ----------------------------------------------------------------------------------------

#: which structure parameter moves which panel target (each fitted by bisection, in order)
PANEL_GROUPS = {
    "CN": ("deepseek", "alibaba", "moonshot"),
    "US": ("anthropic", "openai", "google"),
    "cross_bloc": ("mistral",),
}


def _panel_frame(rows: dict[str, ModelRows], codes: dict[str, np.ndarray], members) -> object:
    """Minimal long frame of the panel members for :func:`selfconf.panels.panel_rows`."""
    import pandas as pd

    parts = []
    for m in members:
        r = rows[m]
        parts.append(
            pd.DataFrame(
                {
                    "model": m,
                    "item_id": np.arange(N_ITEMS),
                    "parse_ok": r.parse_ok,
                    "confidence": r.confidence,
                    "correct": r.correct,
                    "refusal": r.refusal,
                    "answer_class": codes[m],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def panel_values(rows, codes, panel_members: dict[str, tuple[str, ...]]) -> dict[str, dict]:
    """Point estimates of every panel (the book's :func:`selfconf.panels.panel_point_estimates`)."""
    out = {}
    for name, members in panel_members.items():
        p = panels.panel_rows(_panel_frame(rows, codes, members), members)
        out[name] = panels.panel_point_estimates(p)
    return out


def panel_half_widths(rows, codes, members) -> dict[str, float]:
    """Seed-free half-widths of a panel's three intervals: 1.96 x the first-order item-clustered
    bootstrap SE (:func:`.bounds.clustered_auroc_se`, :func:`.bounds.clustered_contrast_se`) of
    the pooled self-AUROC (``self``), the canonical panel AUROC (``panel``) and their paired
    difference (``delta``), on the same rows as :func:`selfconf.panels.panel_analysis`."""
    p = panels.panel_rows(_panel_frame(rows, codes, members), members)
    sig, y, item, _ = p.long(panels.agreement_signal(p, "canonical").astype(float))
    conf = p.long(p.confidence.astype(float))[0]
    return {
        "self": Z975 * clustered_auroc_se(conf, y, item),
        "panel": Z975 * clustered_auroc_se(sig, y, item),
        "delta": Z975 * clustered_contrast_se(sig, conf, y, item),
    }


def _solve(
    f, lo: float, hi: float, target: tuple[float, float], increasing: bool = True, iters: int = 12, scan: int = 24
) -> tuple[float, float]:
    """x in [lo, hi] with f(x) inside ``target`` (an interval), nearest its centre.

    Bisection on the centre (f roughly monotone), then a fine scan around the result because
    f is a step function of x (rows switch items discretely).  Returns (x, f(x)).
    """
    c = 0.5 * (target[0] + target[1])
    a, b = lo, hi
    for _ in range(iters):
        mid = 0.5 * (a + b)
        if (f(mid) < c) == increasing:
            a = mid
        else:
            b = mid
    x0 = 0.5 * (a + b)
    width = (hi - lo) / 50
    best = None
    for x in np.linspace(max(lo, x0 - width), min(hi, x0 + width), scan + 1):
        val = f(float(x))
        inside = target[0] < val < target[1]
        key = (not inside, abs(val - c))
        if best is None or key < best[0]:
            best = (key, float(x), val)
    assert best is not None  # the grid is never empty
    return best[1], best[2]


#: loading of the US members (fixed; their panel AUROC is then tuned through wrong-answer sharing).
#: It sets the width of the US panel-minus-self interval: 1.96 x the analytic item-clustered SE
#: (:func:`panel_half_widths`, no bootstrap draws) is 0.0273 at 0.9, 0.0261 at 0.75, 0.0251 at 0.55
#: and 0.0244 at 0.45, against 0.025 printed; 0.55 is the value of that scan closest to the print.
US_LOADING = 0.55
US_CONF_LOADING = 0.85


#: Claim-id prefix of each panel group.
_KEY = {"US": "us", "CN": "cn", "cross_bloc": "xb"}

#: The panel searches of :func:`tune_structure`, in order: (panel, parameter, statistic, range, increasing,
#: fallback parameter and range if the first parameter's steps jump over the target interval).
PANEL_STEPS: tuple[tuple[str, str, str, float, float, bool, tuple | None], ...] = (
    ("CN", "loading", "panel_auroc", 0.0, 0.99, True, ("wrong_sharing", 0.6, 1.4, False)),
    ("US", "wrong_sharing", "panel_auroc", 0.0, 1.5, False, ("loading", 0.8, 0.99, True)),
    ("cross_bloc", "loading", "panel_auroc", 0.0, 0.99, True, ("wrong_sharing", 0.6, 1.4, False)),
    ("CN", "variant_rate", "panel_auroc_labelfree", 0.0, 0.9, False, None),
    ("US", "variant_rate", "panel_auroc_labelfree", 0.0, 0.9, False, None),
)


def tune_structure(
    T: Targets, tables, plan, fails, seed_seq: np.random.SeedSequence, log=print
) -> tuple[Structure, dict]:
    """Fit the cross-model structure to the panels' agreement AUROCs.

    Order (each step leaves the earlier targets untouched):
    CN canonical <- loading of the CN members; US canonical <- wrong-answer sharing of the US
    members (loading fixed at :data:`US_LOADING`); cross-bloc canonical <- mistral's loading;
    CN and US label-free <- the variant rate of each panel's members (:data:`PANEL_STEPS`,
    :func:`_fit_panel_step`); CN and cross-bloc pooled self-AUROC and panel-minus-self interval widths <- the
    confidence loading of the CN members, then of mistral (:func:`_fit_conf_loading`; analytic item-clustered
    SEs, no bootstrap draws); models in no panel get the mean (:func:`_fill_unpaneled`).  Every evaluation
    rebuilds the rows from the same seed, so the search is deterministic.
    """
    members = {k: tuple(v) for k, v in panels.PANELS.items()}
    struct = Structure()
    fitted: dict[str, Any] = {}

    def rows_now() -> tuple[dict[str, ModelRows], dict[str, np.ndarray]]:
        return build_rows(T, tables, plan, fails, struct, seed_seq)

    for m in PANEL_GROUPS["US"]:
        struct.loading[m] = US_LOADING
        # confidence tracks item easiness more closely for the US members: this narrows the
        # paired panel-minus-self interval to the printed width (a choice, see data/README.md)
        struct.conf_loading_by_model[m] = US_CONF_LOADING
    # the pooled self-AUROC depends on the tables only; the printed panel-minus-self difference
    # then narrows the interval the panel AUROC must land in
    self_pooled = {g: v["self_auroc_pooled"] for g, v in panel_values(*rows_now(), members).items()}
    for step in PANEL_STEPS:
        group = step[0]
        iv = _target_interval(T, group, step[2], self_pooled[group])

        def evaluate(group=group):
            return panel_values(*rows_now(), {group: members[group]})[group]

        fitted.update(_fit_panel_step(step, struct, T, iv, evaluate, log))
    for group, members_set in (("CN", PANEL_GROUPS["CN"]), ("cross_bloc", ("mistral",))):

        def half_widths(group=group):
            return panel_half_widths(*rows_now(), members[group])

        fitted[f"{group}.conf_loading"] = _fit_conf_loading(group, members_set, struct, T, half_widths, log)
    _fill_unpaneled(struct)
    return struct, panel_values(*rows_now(), members)


def _set_group(struct: Structure, attr: str, group: str, x: float) -> None:
    """Set ``struct.<attr>[m] = x`` for every member m of the panel group."""
    for m in PANEL_GROUPS[group]:
        getattr(struct, attr)[m] = x


def _target_interval(T: Targets, group: str, stat: str, self_pooled: float) -> tuple[float, float]:
    """The interval a panel statistic must land in: its claim's interval, for the panel AUROC narrowed by the
    printed panel-minus-self difference added to the pooled self-AUROC (when the two intervals overlap)."""
    lo_, hi_ = T.interval(f"{_KEY[group]}_{stat}")
    if stat == "panel_auroc":
        d_lo, d_hi = T.interval(f"{_KEY[group]}_panel_vs_self_delta")
        lo2, hi2 = max(lo_, self_pooled + d_lo), min(hi_, self_pooled + d_hi)
        if lo2 < hi2:
            return lo2, hi2
    return lo_, hi_


def _fit_panel_step(step: tuple, struct: Structure, T: Targets, iv: tuple[float, float], evaluate, log) -> dict:
    """One search of :data:`PANEL_STEPS`: solve the group's parameter so that ``evaluate()[stat]`` lands in
    ``iv`` (:func:`_solve`), then the fallback parameter if the first one's steps jumped over the interval.
    Leaves the solved values in ``struct``; returns the ``fitted`` records."""
    group, attr, stat, lo, hi, inc, fallback = step
    cid = f"{_KEY[group]}_{stat}"
    fitted: dict[str, Any] = {}

    def f(x, attr=attr):
        _set_group(struct, attr, group, x)
        return evaluate()[stat]

    x, val = _solve(f, lo, hi, iv, increasing=inc)
    _set_group(struct, attr, group, x)
    if not (iv[0] < val < iv[1]) and fallback is not None:
        attr2, lo2, hi2, inc2 = fallback
        x2, val = _solve(lambda x: f(x, attr2), lo2, hi2, iv, increasing=inc2, iters=10, scan=40)
        _set_group(struct, attr2, group, x2)
        fitted[f"{group}.{attr2}"] = {"x": x2, "value": val, "target": T.value(cid)}
        log(f"  {group} {attr2} = {x2:.4f} -> {stat} {val:.4f} (fallback)")
    fitted[f"{group}.{attr}"] = {"x": x, "value": val, "target": T.value(cid)}
    log(f"  {group} {attr} = {x:.4f} -> {stat} {val:.4f} (target {T.printed(cid)})")
    return fitted


def _scan_refine(loss_at) -> float:
    """The x in [0, 0.99] with the least ``loss_at(x)``: a 34-point scan, then 13 points within 0.03 of its
    best (values rounded to 4 decimals; ties go to the smaller x).

    >>> _scan_refine(lambda x: abs(x - 0.5012))
    0.5
    """
    scored = [(loss_at(x), float(x)) for x in np.round(np.linspace(0.0, 0.99, 34), 4)]
    x0 = min(scored)[1]
    for x in np.round(np.linspace(max(0.0, x0 - 0.03), min(0.99, x0 + 0.03), 13), 4):
        scored.append((loss_at(x), float(x)))
    return min(scored)[1]


def _fit_conf_loading(group: str, members_set, struct: Structure, T: Targets, half_widths, log) -> dict:
    """The confidence loading of ``members_set`` that brings the group's two interval half-widths nearest print.

    How closely a panel's members' stated confidence tracks item easiness sets the widths of the panel's
    item-clustered pooled self-AUROC and panel-minus-self intervals without touching any per-model table
    (confidences only move between items of the same model and correctness).  Measured by the analytic
    item-clustered influence SE (``half_widths()``, seed-free, see :mod:`.bounds`), never by one bootstrap
    seed's draws.  The loading minimises the summed distance of the two half-widths from the printed ones
    (:func:`_scan_refine`; the self width alone may be out of reach: mistral's loading cannot widen the
    cross-bloc self interval to the printed width, and then the delta width decides).
    """
    k = _KEY[group]
    printed = {
        part: 0.5 * (T.value(f"{k}_{cid}_ci_hi") - T.value(f"{k}_{cid}_ci_lo"))
        for part, cid in (("self", "self_auroc_pooled"), ("delta", "panel_vs_self_delta"))
    }

    def widths_at(x):
        for m in members_set:
            struct.conf_loading_by_model[m] = float(x)
        return half_widths()

    def loss(x):
        h = widths_at(x)
        return abs(h["self"] - printed["self"]) + abs(h["delta"] - printed["delta"])

    x = _scan_refine(loss)
    h = widths_at(x)
    log(
        f"  {group} confidence loading = {x:.4f} -> half-widths self {h['self']:.5f} (printed "
        f"{printed['self']:.4f}), delta {h['delta']:.5f} (printed {printed['delta']:.4f})"
    )
    return {"x": x, "value": h, "target": printed, "measure": "1.96 x item-clustered influence SE"}


def _fill_unpaneled(struct: Structure) -> None:
    """Models outside every panel get the mean of the fitted loadings and variant rates (set ones are kept)."""
    mean_l = float(np.mean([struct.loading[m] for m in struct.loading]))
    mean_q = float(np.mean([struct.variant_rate[m] for m in struct.variant_rate]))
    for m in FRONTIER + LOCAL:
        struct.loading.setdefault(m, mean_l)
        struct.variant_rate.setdefault(m, mean_q)
