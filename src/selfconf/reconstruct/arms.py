"""Reconstruct the local manipulation probes (Result 3) and the limitation arms (Limitations).

What is written
---------------
``<out_dir>/probes/``
  * ``microprobe.csv`` -- Table 4: five local models x two injected claims ("0%" / "95%
    accuracy" in the item's domain) on one item each model answered incorrectly; stated
    confidence per row.
  * ``topic_heldout.csv`` -- the held-out items that define each model's true per-bin profile
    (8 bins x 4 items per model); the true profile is their accuracy per bin.
  * ``topic_probes.csv`` -- the topic-labelled pass: five models x 16 held-out probes (2 per bin)
    x 2 arms (``true`` / ``false`` profile injected), with the claimed bin accuracy, correctness
    and stated confidence.

``<out_dir>/arms/``
  * ``twostage.csv`` -- the two-stage elicitation arm: 150 items x five local models x two
    formats (``inline``: answer and confidence in one call; ``posthoc``: a stateless second call
    asks for confidence), with the deterministic no-LLM label (``label``: correct / incorrect /
    unresolved).
  * ``regrade.csv`` -- the grader model's (qwen3:8b) full graded set (1,498 rows, the graded n
    chosen by the local-tier reconstruction) with the grading route and, for the 1,441 rows it
    graded itself, the cross-family regrade.

Algorithm (one ``numpy.random.Generator`` seeded with :data:`SEED`)
-------------------------------------------------------------------
* Microprobe: the printed confidences are the rows (the table *is* the row-level record).
* Topic pass: held-out correctness fixes each true profile (e.g. llama3.2:3b physics 1/4 = 25%,
  history 3/4 = 75%); the false profile inverts it (100 - true).  Probe correctness is drawn per
  model (llama3.2:3b 6/16 right with the true profile, 4/16 with the false one; qwen3:8b all
  right at confidence 100), the directional examples are fixed cells, and the remaining
  confidences are moved one 5-point step at a time until each model's Brier change
  (false - true, over its 16 probes) rounds to the printed value while a 20,000-draw per-probe
  bootstrap interval of that change still contains zero.
* Two-stage arm: per-model label coverage 150/149/148/148/142 (737 matched pairs); about 7%
  of labelled answers are right; confidences come from a weak latent signal, and a greedy
  search moves single confidences until the pooled post-hoc-minus-inline AUROC prints +0.05 and
  the ten per-model-per-format AUROCs span 0.43-0.61.
* Regrade: 57 rows resolved by string equivalence or refusal detection, 1,441 by the grader
  itself; 89 canonical correct (5.9%); the cross-family regrade flips 24 self-graded "correct"
  to incorrect and 1 "incorrect" to correct, so accuracy becomes 66/1,498 = 4.4%.  The
  consistency check shows 5.9 -> 4.4% is impossible over 1,441 rows (85 -> 62 gives 4.3%), so
  accuracy is taken over the model's full graded set, as the paper's wording allows.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from selfconf.metrics import auroc_from_counts
from selfconf.reconstruct.judged import ideal_bootstrap, judge
from selfconf.reconstruct.targets import printed_values
from selfconf.sections import manipulation as man

__all__ = ["SEED", "LOCAL_MODELS", "generate"]

SEED = 20260801
LOCAL_MODELS = ("glm4:9b", "llama3.2:3b", "mistral:7b", "phi4-mini", "qwen3:8b")
TOPIC_BINS = ("numerical", "logic", "physics", "history", "code", "probability", "chemistry", "geography")


def _targets() -> dict[str, float]:
    """Printed target values from the claim manifest (:func:`selfconf.reconstruct.targets.printed_values`)."""
    return printed_values()


def _write_csv(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if v is None else v) for k, v in r.items()})
    path.write_text(buf.getvalue(), encoding="utf-8", newline="\n")


# ------------------------------------------------------------------------------------ microprobe
_T4 = {
    "glm4:9b": "glm4",
    "llama3.2:3b": "llama32",
    "mistral:7b": "mistral7b",
    "phi4-mini": "phi4mini",
    "qwen3:8b": "qwen3",
}


def _microprobe(T: dict[str, float]) -> list[dict]:
    rows = []
    for m in LOCAL_MODELS:
        for claim, key in ((0, "conf_at_0"), (95, "conf_at_95")):
            rows.append(
                {
                    "model": m,
                    "item_id": "mp-physics-03",
                    "domain": "physics",
                    "claimed_accuracy_pct": claim,
                    "correct": 0,
                    "confidence": int(T[f"t4_{_T4[m]}_{key}"]),
                }
            )
    return rows


# ------------------------------------------------------------------------------------ topic pass
_TOPIC = {  # brier target id, true-arm correct count, false-arm correct count
    "glm4:9b": ("topic_glm4_brier_delta", 7, 7),
    "llama3.2:3b": ("topic_llama32_brier_delta", 6, 4),
    "mistral:7b": ("topic_mistral7b_brier_delta", 8, 7),
    "phi4-mini": ("topic_phi4mini_brier_delta", 7, 7),
    "qwen3:8b": (None, 16, 16),
}


def _heldout(rng: np.random.Generator) -> list[dict]:
    """4 held-out items per bin and model; llama3.2 physics 1/4 and history 3/4 are fixed."""
    rows = []
    for m in LOCAL_MODELS:
        for b in TOPIC_BINS:
            if m == "qwen3:8b":
                k = 4
            elif m == "llama3.2:3b" and b == "physics":
                k = 1
            elif m == "llama3.2:3b" and b == "history":
                k = 3
            else:
                k = int(rng.integers(0, 5))
            ys = [1] * k + [0] * (4 - k)
            rng.shuffle(ys)
            for j, y in enumerate(ys):
                rows.append({"model": m, "bin": b, "item_id": f"ho-{b}-{j + 1}", "correct": int(y)})
    return rows


def _brier_delta(ct, yt, cf, yf) -> float:
    return float(np.mean((cf / 100 - yf) ** 2 - (ct / 100 - yt) ** 2))


def _boot_ci(d: np.ndarray, rng: np.random.Generator, n_boot: int = 20000) -> tuple[float, float]:
    idx = rng.integers(0, len(d), size=(n_boot, len(d)))
    m = d[idx].mean(axis=1)
    return float(np.quantile(m, 0.025)), float(np.quantile(m, 0.975))


def _topic(rng: np.random.Generator, T: dict[str, float], heldout: list[dict]) -> list[dict]:
    """Topic-pass rows of every local model: 16 probes (two per topic bin) in a true and a false arm.

    Per model: the held-out accuracy of each bin is the claimed percentage (true arm; 100 minus it in the
    false arm), answers and confidences from :func:`_topic_answers`, then the confidences tuned to the printed
    Brier change (:func:`_tune_topic_brier`); qwen3:8b answers every probe right at 100 in both arms.
    """
    rows = []
    prof: dict[tuple[str, str], list[Any]] = {}
    for r in heldout:
        prof.setdefault((r["model"], r["bin"]), []).append(r["correct"])
    for m in LOCAL_MODELS:
        tid, k_true, k_false = _TOPIC[m]
        bins = np.repeat(np.arange(len(TOPIC_BINS)), 2)
        true_pct = np.array([100 * np.mean(prof[(m, TOPIC_BINS[b])]) for b in bins])
        if m == "qwen3:8b":
            yt, yf, ct, cf = np.ones(16, int), np.ones(16, int), np.full(16, 100), np.full(16, 100)
        else:
            yt, yf, ct, cf, fixed = _topic_answers(m, rng, bins, true_pct, k_true, k_false)
            assert tid is not None  # every topic model has a Brier target
            _tune_topic_brier(m, rng, ct, yt, cf, yf, fixed, T[tid])
        rows += _topic_rows(m, bins, true_pct, (yt, ct), (yf, cf))
    return rows


def _topic_answers(
    m: str, rng: np.random.Generator, bins: np.ndarray, true_pct: np.ndarray, k_true: int, k_false: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Correctness and confidence of one model's 16 probes in the true and false arm, and which are fixed.

    A probe's answer tends to follow the held-out bin accuracy p (the ``k_true`` highest of p + U(0, 0.6) are
    right); the false arm loses ``k_true - k_false`` right answers in its falsely-low bins; confidence
    40 + 50 p + N(0, 12) in steps of 5, moved by half the claimed difference under the false claim.  llama3.2:3b
    and phi4-mini carry the printed per-bin cases (fixed: the Brier tuning leaves them alone).
    """
    false_pct = 100 - true_pct
    fixed = np.zeros(16, bool)
    p = np.clip(true_pct / 100, 0.1, 0.9)
    order = np.argsort(-(p + rng.uniform(0, 0.6, 16)))
    yt = np.zeros(16, int)
    yt[order[:k_true]] = 1
    yf = yt.copy()
    if k_false < k_true:  # the false profile costs right answers in the falsely-low bins
        lose = [j for j in np.argsort(false_pct, kind="stable") if yt[j] == 1]
        yf[lose[: k_true - k_false]] = 0
    ct = np.clip(np.round((40 + 50 * p + rng.normal(0, 12, 16)) / 5) * 5, 0, 100).astype(int)
    cf = np.clip(np.round((ct + 0.5 * (false_pct - true_pct) + rng.normal(0, 8, 16)) / 5) * 5, 0, 100).astype(int)
    if m == "llama3.2:3b":
        # physics (held-out 1/4): wrong in both arms, confidence 0 -> 100 under the false
        # (high) claim; history (held-out 3/4): right in both arms, 100 -> 0 under the false
        # (low) claim; the printed 6 -> 4 right answers come from the other bins
        ph = np.nonzero(bins == TOPIC_BINS.index("physics"))[0]
        hi = np.nonzero(bins == TOPIC_BINS.index("history"))[0]
        rest = np.array([j for j in range(16) if j not in ph and j not in hi])
        yt = np.zeros(16, int)
        yt[hi] = 1
        pick = rest[np.argsort(-(p[rest] + rng.uniform(0, 0.6, len(rest))))][: k_true - len(hi)]
        yt[pick] = 1
        yf = yt.copy()
        lose = [j for j in rest[np.argsort(false_pct[rest], kind="stable")] if yt[j] == 1]
        yf[lose[: k_true - k_false]] = 0
        ct[ph], cf[ph] = 0, 100
        ct[hi], cf[hi] = 100, 0
        fixed[ph] = fixed[hi] = True
    if m == "phi4-mini":
        lg = np.nonzero(bins == TOPIC_BINS.index("logic"))[0]
        ct[lg], cf[lg] = (10, 16), (60, 70)
        fixed[lg] = True
    return yt, yf, ct, cf, fixed


def _tune_topic_brier(
    m: str,
    rng: np.random.Generator,
    ct: np.ndarray,
    yt: np.ndarray,
    cf: np.ndarray,
    yf: np.ndarray,
    fixed: np.ndarray,
    target: float,
) -> None:
    """Move confidences (not ``fixed``) by +-5 until the false-minus-true Brier change is within 0.0004 of
    ``target`` and its 95 % bootstrap interval (seed 7, 4,000 draws) covers [-0.01, 0.01]; in place.

    A step is kept when it brings the change closer without losing the covering interval, or gains it;
    a RuntimeError after 100,000 steps.
    """
    d = _brier_delta(ct, yt, cf, yf)
    for _ in range(100000):
        lo, hi_ = _boot_ci((cf / 100 - yf) ** 2 - (ct / 100 - yt) ** 2, np.random.default_rng(7), 4000)
        if abs(d - target) < 0.0004 and lo < -0.01 < 0.01 < hi_:
            return
        j = int(rng.integers(16))
        if fixed[j]:
            continue
        arr = cf if rng.random() < 0.5 else ct
        old = arr[j]
        arr[j] = int(np.clip(old + rng.choice((-5, 5)), 0, 100))
        d2 = _brier_delta(ct, yt, cf, yf)
        lo2, hi2 = _boot_ci((cf / 100 - yf) ** 2 - (ct / 100 - yt) ** 2, np.random.default_rng(7), 4000)
        ok_now = lo < -0.01 < 0.01 < hi_
        ok_new = lo2 < -0.01 < 0.01 < hi2
        if (abs(d2 - target) < abs(d - target) and (ok_new or not ok_now)) or (ok_new and not ok_now):
            d = d2
        else:
            arr[j] = old
    raise RuntimeError(f"{m}: topic-pass Brier change stuck at {d:.4f} (target {target})")


def _topic_rows(m: str, bins: np.ndarray, true_pct: np.ndarray, true_arm: tuple, false_arm: tuple) -> list[dict]:
    """The 32 rows of one model: per probe j (``tp-<bin>-<1|2>``), its true-arm row, then its false-arm row;
    each arm is (correct, confidence) arrays, the false arm's claimed percentage is 100 minus the true one.

    >>> rows = _topic_rows("m", np.zeros(16, int), np.full(16, 25.0), (np.ones(16), np.full(16, 90)),
    ...                    (np.zeros(16), np.full(16, 40)))
    >>> len(rows), rows[1]["arm"], rows[1]["claimed_pct"], rows[1]["confidence"]
    (32, 'false', 75, 40)
    """
    rows = []
    for j in range(16):
        b = TOPIC_BINS[bins[j]]
        for arm, pct, (y, c) in (("true", true_pct[j], true_arm), ("false", 100 - true_pct[j], false_arm)):
            rows.append(
                {
                    "model": m,
                    "probe_id": f"tp-{b}-{j % 2 + 1}",
                    "bin": b,
                    "arm": arm,
                    "claimed_pct": int(pct),
                    "correct": int(y[j]),
                    "confidence": int(c[j]),
                }
            )
    return rows


# ------------------------------------------------------------------------------------ two-stage
_COVERAGE = {"glm4:9b": 150, "llama3.2:3b": 149, "mistral:7b": 148, "phi4-mini": 148, "qwen3:8b": 142}


def _auc(y: np.ndarray, s: np.ndarray) -> float:
    """Tie-aware AUROC of scores ``s`` for 0/1 ``y`` (the kernel on per-score counts; NaN with one class)."""
    levels, code = np.unique(s, return_inverse=True)
    cells = np.bincount(code.reshape(-1) * 2 + (np.asarray(y) == 1), minlength=2 * levels.size).reshape(-1, 2)
    return float(auroc_from_counts(cells[:, 1], cells[:, 0]))


def _twostage(rng: np.random.Generator, T: dict[str, float], attempts: int = 25) -> list[dict]:
    """Retry :func:`_twostage_once` until a 4,000-draw paired bootstrap of the pooled contrast lands
    within 0.004 of the printed interval (or keep the closest attempt)."""
    lo_t, hi_t = T["twostage_delta_auroc_ci_lo"], T["twostage_delta_auroc_ci_hi"]
    best = None
    for _ in range(attempts):
        rows = _twostage_once(rng, T)
        if rows is None:
            continue
        import pandas as pd

        df = pd.DataFrame(rows)
        tc = man.twostage_contrast(df, 4000, 11)
        miss = max(abs(tc["low"] - lo_t), abs(tc["high"] - hi_t))
        if best is None or miss < best[0]:
            best = (miss, rows)
        if miss <= 0.004:
            break
    if best is None:
        raise RuntimeError("two-stage arm: no attempt met the deterministic targets")
    return best[1]


def _twostage_once(rng: np.random.Generator, T: dict[str, float]) -> list[dict] | None:
    n_items = int(T.get("twostage_n_items", 150))
    lo_t, hi_t = T["twostage_self_auroc_min"], T["twostage_self_auroc_max"]
    delta_t = T["twostage_delta_auroc"]
    y: dict[str, Any] = {}
    c_in: dict[str, Any] = {}
    c_ph: dict[str, Any] = {}
    lab: dict[str, Any] = {}
    for m in LOCAL_MODELS:
        labelled = np.zeros(n_items, bool)
        labelled[rng.choice(n_items, size=_COVERAGE[m], replace=False)] = True
        yy = (rng.random(n_items) < 0.065).astype(int)
        lat = rng.normal(0, 1, n_items)
        ci = np.clip(np.round((88 + 2 * lat + 2 * yy + rng.normal(0, 5, n_items)) / 5) * 5, 0, 100).astype(int)
        cp = np.clip(np.round((70 + 3 * lat + 3 * yy + rng.normal(0, 9, n_items)) / 5) * 5, 0, 100).astype(int)
        y[m], c_in[m], c_ph[m], lab[m] = yy, ci, cp, labelled

    def stats():
        per = []
        for m in LOCAL_MODELS:
            L = lab[m]
            per += [_auc(y[m][L], c_in[m][L].astype(float)), _auc(y[m][L], c_ph[m][L].astype(float))]
        Y = np.concatenate([y[m][lab[m]] for m in LOCAL_MODELS])
        Ai = _auc(Y, np.concatenate([c_in[m][lab[m]] for m in LOCAL_MODELS]).astype(float))
        Ap = _auc(Y, np.concatenate([c_ph[m][lab[m]] for m in LOCAL_MODELS]).astype(float))
        return np.array(per), Ap - Ai

    def loss(per, d):
        return (
            (max(0, per.max() - hi_t) + max(0, lo_t - per.min())) * 10
            + abs(per.max() - hi_t)
            + abs(per.min() - lo_t)
            + 5 * abs(d - delta_t)
        )

    per, d = stats()
    cur = loss(per, d)
    for _ in range(20000):
        if f"{per.min():.2f}" == f"{lo_t:.2f}" and f"{per.max():.2f}" == f"{hi_t:.2f}" and abs(d - delta_t) < 0.002:
            break
        if rng.random() < 0.6:  # work on the model/format farthest outside (or nearest) the span ends
            viol = np.maximum(per - hi_t, 0) + np.maximum(lo_t - per, 0)
            k = int(np.argmax(viol)) if viol.max() > 0 else int(rng.choice([np.argmax(per), np.argmin(per)]))
        else:
            k = int(rng.integers(2 * len(LOCAL_MODELS)))
        m = LOCAL_MODELS[k // 2]
        arr = c_in[m] if k % 2 == 0 else c_ph[m]
        j = int(rng.choice(np.nonzero(lab[m])[0]))
        old = arr[j]
        arr[j] = int(np.clip(old + rng.choice((-5, 5)), 0, 100))
        per2, d2 = stats()
        l2 = loss(per2, d2)
        if l2 < cur:
            per, d, cur = per2, d2, l2
        else:
            arr[j] = old
    else:
        return None
    rows = []
    for m in LOCAL_MODELS:
        for i in range(n_items):
            label = ("correct" if y[m][i] else "incorrect") if lab[m][i] else "unresolved"
            for fmt, c in (("inline", c_in[m][i]), ("posthoc", c_ph[m][i])):
                rows.append(
                    {"model": m, "item_id": f"sqa-{i + 1:03d}", "format": fmt, "label": label, "confidence": int(c)}
                )
    return rows


# ------------------------------------------------------------------------------------ regrade
def _regrade(rng: np.random.Generator, T: dict[str, float]) -> list[dict]:
    n_total, n_self = 1498, int(T["regrade_n_rows"])
    n_right_before = 89
    down, up = int(T["regrade_down_flips"]), int(T["regrade_up_flips"])
    n_other = n_total - n_self
    # string/refusal-resolved rows: 30 exact matches (correct) and the rest refusals
    routes = ["string"] * 30 + ["refusal"] * (n_other - 30) + ["llm_self"] * n_self
    canon = [1] * 30 + [0] * (n_other - 30)
    self_right = n_right_before - 30
    s = np.zeros(n_self, int)
    s[rng.choice(n_self, size=self_right, replace=False)] = 1
    cross = s.copy()
    right_idx = np.nonzero(s == 1)[0]
    wrong_idx = np.nonzero(s == 0)[0]
    cross[rng.choice(right_idx, size=down, replace=False)] = 0
    cross[rng.choice(wrong_idx, size=up, replace=False)] = 1
    canon += s.tolist()
    order = rng.permutation(n_total)
    rows = []
    for k, j in enumerate(order):
        is_self = routes[j] == "llm_self"
        rows.append(
            {
                "model": "qwen3:8b",
                "item_id": f"sqa-{k + 1:04d}",
                "grade_route": routes[j],
                "canonical_correct": int(canon[j]),
                "cross_family_correct": int(cross[j - n_other]) if is_self else None,
            }
        )
    return rows


# ------------------------------------------------------------------------------------ driver
def generate(out_dir: Path, claims: Any = None, *, seed: int = SEED, check: bool = True) -> dict:
    """Write ``probes/`` and ``arms/`` under ``out_dir`` (the reconstructed-data root); return the
    fidelity dict (also written to ``arms/fidelity_arms.json``)."""
    out_dir = Path(out_dir)
    T = _targets()
    rng = np.random.default_rng(seed)
    _write_csv(out_dir / "probes" / "microprobe.csv", _microprobe(T))
    held = _heldout(rng)
    _write_csv(out_dir / "probes" / "topic_heldout.csv", held)
    _write_csv(out_dir / "probes" / "topic_probes.csv", _topic(rng, T, held))
    _write_csv(out_dir / "arms" / "twostage.csv", _twostage(rng, T))
    _write_csv(out_dir / "arms" / "regrade.csv", _regrade(rng, T))
    fid: dict = {"generator": "selfconf.reconstruct.arms", "seed": seed}
    if check:
        vals = man.recompute_all(out_dir, seed=20261130, n_boot=2000)
        fid["claims"] = judge({k: v for k, v in vals.items() if k in T})
        fid["ideal_bootstrap"] = ideal_bootstrap(lambda **kw: man.recompute_all(out_dir, **kw), fid["claims"])
        st = [r["status"] for r in fid["claims"].values()]
        fid["summary"] = {k: st.count(k) for k in sorted(set(st))}
    (out_dir / "arms" / "fidelity_arms.json").write_text(
        json.dumps(fid, indent=1, sort_keys=True) + "\n", encoding="utf-8", newline="\n"
    )
    return fid
