"""Manipulation probes (Result 3) and the limitation arms (Limitations), computed from rows.

Files (under ``<data_dir>``): ``probes/microprobe.csv``, ``probes/topic_heldout.csv``,
``probes/topic_probes.csv``, ``arms/twostage.csv``, ``arms/regrade.csv`` (see the data card).

Definitions
-----------
* **Microprobe shift**: stated confidence on the same (incorrectly answered) item when the
  injected profile claims "95%" minus when it claims "0%" accuracy in the item's domain.
* **Topic-labelled pass**: per model, Brier score over its 16 held-out probes with the false
  profile injected minus with the true profile; a model *consumes* the false profile when that
  change is positive.  Per-probe bootstrap: resample the 16 probes with replacement, mean of the
  per-probe Brier differences (percentile interval).  A model's held-out accuracy in a bin is the
  share right among its held-out items of that bin (this is the true profile it is shown).
* **Two-stage arm**: answered-only AUROC of stated confidence on rows whose deterministic label
  resolved, per model and format; the pooled contrast is AUROC(post-hoc) - AUROC(inline) over the
  matched (model, item) pairs labelled in both formats, with a paired bootstrap resampling pairs.
* **Regrade**: agreement = share of self-graded rows where the cross-family grade equals the
  grader's own; a down-flip is own-correct -> cross-incorrect; accuracy before/after is over the
  grader model's whole graded set, with the cross-family grade replacing the self-grade.

References: Brier (1950); Hanley & McNeil (1982); Efron & Tibshirani (1993).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from selfconf import bootstrap as _bs
from selfconf import metrics as _m
from selfconf.data.families import load_csv
from selfconf.stats.streams import stream

__all__ = [
    "load_csv",
    "microprobe_table",
    "heldout_profile",
    "topic_summary",
    "directional_examples",
    "twostage_auroc",
    "twostage_contrast",
    "regrade_summary",
    "recompute_all",
]


# ------------------------------------------------------------------------------------ microprobe
def microprobe_table(mp: pd.DataFrame) -> pd.DataFrame:
    """Table 4: confidence at the "0%" and "95%" claims and their difference, per model."""
    wrong = mp[mp["correct"] == 1]
    if len(wrong):
        raise ValueError(f"microprobe: {len(wrong)} row(s) answered correctly; the probe uses a wrong answer")
    w = mp.pivot_table(index="model", columns="claimed_accuracy_pct", values="confidence", aggfunc="first")
    t = pd.DataFrame({"model": w.index, "conf_at_0": w[0].to_numpy(), "conf_at_95": w[95].to_numpy()})
    t["delta"] = t["conf_at_95"] - t["conf_at_0"]
    return t.reset_index(drop=True)


# ------------------------------------------------------------------------------------ topic pass
def heldout_profile(ho: pd.DataFrame) -> pd.DataFrame:
    """Held-out accuracy (percent) per model and bin: the true profile each model is shown."""
    g = ho.groupby(["model", "bin"])["correct"].agg(["mean", "count"]).reset_index()
    g["heldout_acc_pct"] = 100 * g["mean"]
    return g[["model", "bin", "count", "heldout_acc_pct"]]


def _probe_diffs(tp: pd.DataFrame, model: str) -> tuple[pd.DataFrame, np.ndarray]:
    w = tp[tp["model"] == model].pivot_table(
        index="probe_id", columns="arm", values=["correct", "confidence"], aggfunc="first"
    )
    if w.isna().any().any():
        raise ValueError(f"topic pass: model {model!r} has a probe without both arms")
    d = (
        (w[("confidence", "false")] / 100 - w[("correct", "false")]) ** 2
        - (w[("confidence", "true")] / 100 - w[("correct", "true")]) ** 2
    ).to_numpy(dtype=float)
    return w, d


def topic_summary(tp: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per model: accuracy (%) and Brier in each arm, Brier change false - true with a per-probe
    percentile bootstrap CI, and whether the false profile was consumed (change > 0)."""
    rows = []
    for model in sorted(tp["model"].unique()):
        sub = tp[tp["model"] == model]
        _, d = _probe_diffs(tp, model)
        ci = _bs.percentile_ci(lambda x: float(np.mean(x)), d, n_boot=n_boot, rng=stream(seed, "topic", model))
        row = {"model": model, "n_probes": int(len(d))}
        for arm in ("true", "false"):
            a = sub[sub["arm"] == arm]
            row[f"acc_{arm}_pct"] = 100 * float(a["correct"].mean())
            row[f"mean_conf_{arm}"] = float(a["confidence"].mean())
            row[f"brier_{arm}"] = _m.brier(a["confidence"].to_numpy() / 100, a["correct"].to_numpy())
        row["brier_delta"] = row["brier_false"] - row["brier_true"]
        row["ci_low"], row["ci_high"] = ci.low, ci.high
        row["ci_includes_zero"] = bool(ci.low <= 0 <= ci.high)
        row["consumed"] = bool(row["brier_delta"] > 0)
        rows.append(row)
    return pd.DataFrame(rows)


def directional_examples(tp: pd.DataFrame, ho: pd.DataFrame) -> pd.DataFrame:
    """Mean stated confidence per model x bin x arm, with the bin's held-out accuracy and the
    claimed accuracy of each arm (the cells behind the paper's directional examples)."""
    m = (
        tp.groupby(["model", "bin", "arm"])
        .agg(confidence=("confidence", "mean"), claimed_pct=("claimed_pct", "first"), correct=("correct", "mean"))
        .reset_index()
    )
    w = m.pivot_table(index=["model", "bin"], columns="arm", values=["confidence", "claimed_pct"]).reset_index()
    w.columns = ["model", "bin", "claimed_false", "claimed_true", "conf_false", "conf_true"]
    w = w.merge(heldout_profile(ho)[["model", "bin", "heldout_acc_pct"]], on=["model", "bin"], how="left")
    return w[["model", "bin", "heldout_acc_pct", "claimed_true", "claimed_false", "conf_true", "conf_false"]]


# ------------------------------------------------------------------------------------ two-stage
def twostage_auroc(ts: pd.DataFrame) -> pd.DataFrame:
    """Per model and format: labelled rows, accuracy, mean confidence, AUROC (labelled rows only)."""
    lab = ts[ts["label"] != "unresolved"]
    bad = set(lab["label"]) - {"correct", "incorrect"}
    if bad:
        raise ValueError(f"arms/twostage.csv: unknown label value {sorted(bad)[0]!r}")
    rows = []
    for (model, fmt), g in lab.groupby(["model", "format"]):
        y = (g["label"] == "correct").to_numpy().astype(int)
        c = g["confidence"].to_numpy() / 100
        rows.append(
            {
                "model": model,
                "format": fmt,
                "n_labelled": len(g),
                "accuracy": float(y.mean()),
                "mean_conf": 100 * float(c.mean()),
                "auroc": _m.auroc(c, y),
            }
        )
    return pd.DataFrame(rows)


def twostage_contrast(ts: pd.DataFrame, n_boot: int, seed: int) -> dict[str, Any]:
    """Pooled AUROC(post-hoc) - AUROC(inline) on matched (model, item) pairs labelled in both
    formats; paired bootstrap resampling pairs.  Returns estimate, CI, p and n_pairs."""
    lab = ts[ts["label"] != "unresolved"]
    a = lab[lab["format"] == "posthoc"].set_index(["model", "item_id"])
    b = lab[lab["format"] == "inline"].set_index(["model", "item_id"])
    keys = a.index.intersection(b.index).sort_values()
    a, b = a.loc[keys], b.loc[keys]
    pair = np.array([f"{m}|{i}" for m, i in keys])
    pc = _bs.paired_auroc_contrast(
        a["confidence"].to_numpy() / 100,
        b["confidence"].to_numpy() / 100,
        (a["label"] == "correct").to_numpy().astype(int),
        (b["label"] == "correct").to_numpy().astype(int),
        items=pair,
        n_boot=n_boot,
        rng=np.random.default_rng([int(seed), 2]),
    )
    return {
        "estimate": pc.estimate,
        "low": pc.low,
        "high": pc.high,
        "p_two_sided": pc.p_two_sided,
        "n_pairs": len(keys),
        "auroc_posthoc": pc.auroc_a.estimate,
        "auroc_inline": pc.auroc_b.estimate,
    }


# ------------------------------------------------------------------------------------ regrade
def regrade_summary(rg: pd.DataFrame) -> dict[str, Any]:
    """Agreement, flips and accuracy before/after the cross-family regrade (see module docstring)."""
    self_rows = rg[rg["grade_route"] == "llm_self"]
    if self_rows["cross_family_correct"].isna().any():
        raise ValueError("arms/regrade.csv: a self-graded row lacks its cross-family grade")
    own = self_rows["canonical_correct"].to_numpy().astype(int)
    cross = self_rows["cross_family_correct"].to_numpy().astype(int)
    after = rg["canonical_correct"].to_numpy().astype(float).copy()
    after[(rg["grade_route"] == "llm_self").to_numpy()] = cross
    n = len(rg)
    return {
        "n_graded": n,
        "n_self_graded": len(self_rows),
        "n_other_routes": n - len(self_rows),
        "agreement_pct": 100 * float(np.mean(own == cross)),
        "down_flips": int(((own == 1) & (cross == 0)).sum()),
        "up_flips": int(((own == 0) & (cross == 1)).sum()),
        "correct_before": int(rg["canonical_correct"].sum()),
        "correct_after": int(after.sum()),
        "acc_before_pct": 100 * float(rg["canonical_correct"].mean()),
        "acc_after_pct": 100 * float(after.mean()),
        "acc_before_selfrows_pct": 100 * float(own.mean()),
        "acc_after_selfrows_pct": 100 * float(cross.mean()),
    }


# ------------------------------------------------------------------------------------ all
_SHORT = {
    "glm4:9b": "glm4",
    "llama3.2:3b": "llama32",
    "mistral:7b": "mistral7b",
    "phi4-mini": "phi4mini",
    "qwen3:8b": "qwen3",
}


def recompute_all(data_dir: str | Path, seed: int, n_boot: int) -> dict[str, float]:
    """Every claim of these arms under its claim id (used by the notebooks and the fidelity check)."""
    v: dict[str, float] = {}
    mp = microprobe_table(load_csv(data_dir, "probes/microprobe.csv")).set_index("model")
    for model, s in _SHORT.items():
        v[f"t4_{s}_conf_at_0"] = float(mp.loc[model, "conf_at_0"])
        v[f"t4_{s}_conf_at_95"] = float(mp.loc[model, "conf_at_95"])
        v[f"t4_{s}_delta"] = float(mp.loc[model, "delta"])
    tp = load_csv(data_dir, "probes/topic_probes.csv")
    ho = load_csv(data_dir, "probes/topic_heldout.csv")
    ts_ = topic_summary(tp, n_boot, seed).set_index("model")
    for model in ("glm4:9b", "llama3.2:3b", "mistral:7b", "phi4-mini"):
        v[f"topic_{_SHORT[model]}_brier_delta"] = float(ts_.loc[model, "brier_delta"])
    v["topic_n_models_consumed"] = int(ts_["consumed"].sum())
    v["topic_llama32_acc_before"] = float(ts_.loc["llama3.2:3b", "acc_true_pct"])
    v["topic_llama32_acc_after"] = float(ts_.loc["llama3.2:3b", "acc_false_pct"])
    v["topic_qwen3_acc"] = float(ts_.loc["qwen3:8b", "acc_true_pct"])
    v["topic_qwen3_conf"] = float(ts_.loc["qwen3:8b", "mean_conf_true"])
    v["topic_qwen3_delta"] = float(ts_.loc["qwen3:8b", "brier_delta"])
    ex = directional_examples(tp, ho).set_index(["model", "bin"])
    v["topic_llama32_physics_conf_before"] = float(ex.loc[("llama3.2:3b", "physics"), "conf_true"])
    v["topic_llama32_physics_conf_after"] = float(ex.loc[("llama3.2:3b", "physics"), "conf_false"])
    v["topic_llama32_physics_heldout_acc"] = float(ex.loc[("llama3.2:3b", "physics"), "heldout_acc_pct"])
    v["topic_phi4mini_logic_conf_before"] = float(ex.loc[("phi4-mini", "logic"), "conf_true"])
    v["topic_phi4mini_logic_conf_after"] = float(ex.loc[("phi4-mini", "logic"), "conf_false"])
    v["topic_llama32_history_conf_before"] = float(ex.loc[("llama3.2:3b", "history"), "conf_true"])
    v["topic_llama32_history_conf_after"] = float(ex.loc[("llama3.2:3b", "history"), "conf_false"])
    v["topic_llama32_history_heldout_acc"] = float(ex.loc[("llama3.2:3b", "history"), "heldout_acc_pct"])
    ts = load_csv(data_dir, "arms/twostage.csv")
    au = twostage_auroc(ts)
    v["twostage_self_auroc_min"] = float(au["auroc"].min())
    v["twostage_self_auroc_max"] = float(au["auroc"].max())
    lab_per_model = au.groupby("model")["n_labelled"].min()
    v["twostage_rows_per_model_min"] = int(lab_per_model.min())
    v["twostage_rows_per_model_max"] = int(lab_per_model.max())
    tc = twostage_contrast(ts, n_boot, seed)
    v["twostage_delta_auroc"] = float(tc["estimate"])
    v["twostage_delta_auroc_ci_lo"] = float(tc["low"])
    v["twostage_delta_auroc_ci_hi"] = float(tc["high"])
    v["twostage_n_pairs"] = int(tc["n_pairs"])
    rg = regrade_summary(load_csv(data_dir, "arms/regrade.csv"))
    v["regrade_agreement_pct"] = rg["agreement_pct"]
    v["regrade_down_flips"] = rg["down_flips"]
    v["regrade_up_flips"] = rg["up_flips"]
    v["regrade_acc_before"] = rg["acc_before_pct"]
    v["regrade_acc_after"] = rg["acc_after_pct"]
    return v
