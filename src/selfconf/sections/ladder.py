"""The profile-injection ladder (Result 2) and its exploratory frontier rung (Result 3).

Data: one ``scored-arms-<subject>.jsonl`` per ladder subject (one row per item x arm x
replicate) and one ``profiles-<subject>.json`` with the injected per-bin profiles, both under
``<data_dir>/ladder/``.  Every number is computed from those rows.

Definitions used throughout
---------------------------
* **Scored rows**: rows of non-trap items (the 294 non-trap items x 2 replicates = 588 rows per
  arm).  Trap items are kept in the files but enter no statistic of Table 3.
* **Accuracy (all items)**: correct scored rows / all scored rows of the arm; failed
  (``status != "ok"``) and abstained rows count as not correct.
* **Answered rows**: scored rows with ``status == "ok"``, not abstained, with a confidence.
  AUROC, Brier and ECE are computed on answered rows only (confidence / 100 as the probability).
* **Paired contrast CORE - arm**: both arms restricted to the item x replicate cells answered in
  *both* arms (matched pairs); Δ = AUROC_core - AUROC_arm on those cells, with an item-clustered
  paired bootstrap (:func:`selfconf.bootstrap.paired_auroc_contrast`).  Because the matched cells
  differ from each arm's full answered set, Δ is not the difference of the per-arm AUROC column.
* **Degeneracy rule** (pre-registered): a rung whose OFF-arm accuracy exceeds the bound
  (0.85) is demoted from all confirmatory computation.
* **Oracle ceiling**: on scored rows with ``status == "ok"`` (abstentions count as incorrect), each
  item's predictor is the accuracy of the other items of its bin, all rows of the item left out
  together (leave-one-item-out); the oracle is the AUROC of that predictor for correctness.
* **Placebo validation**: Spearman rank correlation (average ranks for ties) between the
  placebo profile and the true (CORE) profile over the 21 bins.

References: Hanley & McNeil (1982) for AUROC; Brier (1950); Guo et al. (2017) for ECE;
Efron & Tibshirani (1993) for the bootstrap; Holm (1979); Spearman (1904).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from selfconf import bootstrap as _bs
from selfconf import metrics as _m
from selfconf.data.families import LADDER_FIELDS
from selfconf.data.paths import resolve
from selfconf.stats.streams import stream

__all__ = [
    "SUBJECTS",
    "ARMS",
    "CONFIRMATORY_FAMILY",
    "DEGENERACY_BOUND",
    "FRONTIER_RUNG",
    "load_scored_arms",
    "load_profiles",
    "scored_rows",
    "answered_rows",
    "arm_table",
    "is_degenerate",
    "rung_status",
    "matched_cells",
    "paired_contrast",
    "confirmatory_contrasts",
    "loo_bin_accuracy",
    "bin_accuracy",
    "oracle_ceiling",
    "placebo_correlation",
    "arm_auroc_ci",
    "frontier_rung",
    "power_from_ci",
    "rng_for",
]

SUBJECTS = ("haiku45", "sonnet5", "opus48", "fable5")
ARMS = ("off", "placebo", "core", "shuffled")
#: Confirmatory family of the ladder (pre-registered): CORE > PLACEBO and CORE > OFF.
CONFIRMATORY_FAMILY = ("placebo", "off")
#: Pre-registered degeneracy bound on OFF-arm accuracy (a design constant of the protocol).
DEGENERACY_BOUND = 0.85
#: The exploratory frontier rung of Result 3.  The paper says only that it is one of the
#: ceiling-demoted rungs; this book takes Claude Opus 4.8 (a decision recorded in docs/decisions.md).
FRONTIER_RUNG = "opus48"

_FIELDS = LADDER_FIELDS


# ------------------------------------------------------------------------------------ loading
def _ladder_dir(data_dir: str | Path) -> Path:
    return resolve(data_dir) / "ladder"


def load_scored_arms(data_dir: str | Path, subject: str) -> pd.DataFrame:
    """Read and validate ``ladder/scored-arms-<subject>.jsonl``.

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` naming the file, line and
    field for a malformed row (bad JSON, missing field, wrong type, unknown arm, confidence outside
    0-100 or present on an abstained/failed row, missing on an answered row)."""
    path = _ladder_dir(data_dir) / f"scored-arms-{subject}.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: ladder rows missing")
    recs = []
    with path.open(encoding="utf-8") as fh:
        for ln, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{ln}: not valid JSON ({e.msg})") from None
            for f, t in _FIELDS.items():
                if f not in r:
                    raise ValueError(f"{path}:{ln}: field {f!r} missing")
                if t is bool and not isinstance(r[f], bool):
                    raise ValueError(f"{path}:{ln}: field {f!r} must be true/false, got {r[f]!r}")
                if t is int and (isinstance(r[f], bool) or not isinstance(r[f], int)):
                    raise ValueError(f"{path}:{ln}: field {f!r} must be an integer, got {r[f]!r}")
                if t is str and not isinstance(r[f], str):
                    raise ValueError(f"{path}:{ln}: field {f!r} must be a string, got {r[f]!r}")
            if r["arm"] not in ARMS:
                raise ValueError(f"{path}:{ln}: field 'arm' is {r['arm']!r}, expected one of {ARMS}")
            c = r.get("confidence")
            answered = r["status"] == "ok" and not r["abstained"]
            if answered:
                if c is None or isinstance(c, bool) or not isinstance(c, (int, float)):
                    raise ValueError(f"{path}:{ln}: field 'confidence' missing on an answered row")
                if not 0 <= c <= 100:
                    raise ValueError(f"{path}:{ln}: field 'confidence' = {c!r} outside 0-100")
            elif c is not None:
                raise ValueError(f"{path}:{ln}: field 'confidence' must be empty on an abstained/failed row")
            recs.append({**{f: r[f] for f in _FIELDS}, "confidence": np.nan if c is None else float(c)})
    df = pd.DataFrame.from_records(recs)
    df["subject"] = subject
    return df


def load_profiles(data_dir: str | Path, subject: str) -> pd.DataFrame:
    """Read ``ladder/profiles-<subject>.json``: one row per bin with core, placebo, shuffled."""
    path = _ladder_dir(data_dir) / f"profiles-{subject}.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: injected profiles missing")
    doc = json.loads(path.read_text(encoding="utf-8"))
    for key in ("bins", "core", "placebo", "shuffled"):
        if key not in doc:
            raise ValueError(f"{path}: field {key!r} missing")
        if len(doc[key]) != len(doc["bins"]):
            raise ValueError(f"{path}: field {key!r} has {len(doc[key])} values for {len(doc['bins'])} bins")
    for key in ("core", "placebo", "shuffled"):
        bad = [v for v in doc[key] if not (isinstance(v, (int, float)) and 0 <= v <= 1)]
        if bad:
            raise ValueError(f"{path}: field {key!r} holds {bad[0]!r}, not an accuracy in [0, 1]")
    return pd.DataFrame(
        {"bin": doc["bins"], "core": doc["core"], "placebo": doc["placebo"], "shuffled": doc["shuffled"]}
    )


# ------------------------------------------------------------------------------------ subsets
def scored_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Non-trap rows (the population of Table 3)."""
    return df[~df["is_trap"]]


def answered_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Scored rows that parsed, did not abstain and carry a confidence."""
    s = scored_rows(df)
    return s[(s["status"] == "ok") & ~s["abstained"] & s["confidence"].notna()]


# ------------------------------------------------------------------------------------ Table 3
def arm_table(df: pd.DataFrame, arms: tuple[str, ...] = ARMS) -> pd.DataFrame:
    """Per-arm rows, accuracy over all scored rows, and answered-only AUROC / Brier / ECE / mean confidence.

    Columns: ``arm, n_rows, n_correct, accuracy, n_failed, n_abstained, n_answered, auroc,
    brier, ece, mean_confidence`` (one row per arm of ``arms`` present, in that order; mean confidence
    on the 0-1 scale)."""
    out = []
    s = scored_rows(df)
    for arm in [a for a in arms if (s["arm"] == a).any()]:
        a = s[s["arm"] == arm]
        ans = answered_rows(a)
        c = ans["confidence"].to_numpy() / 100.0
        y = ans["correct"].to_numpy().astype(int)
        out.append(
            {
                "arm": arm,
                "n_rows": len(a),
                "n_correct": int(a["correct"].sum()),
                "accuracy": float(a["correct"].mean()) if len(a) else math.nan,
                "n_failed": int((a["status"] != "ok").sum()),
                "n_abstained": int(a["abstained"].sum()),
                "n_answered": len(ans),
                "auroc": _m.auroc(c, y),
                "brier": _m.brier(c, y),
                "ece": _m.ece(c, y),
                "mean_confidence": float(c.mean()) if c.size else math.nan,
            }
        )
    return pd.DataFrame(out)


def is_degenerate(off_accuracy: float, bound: float = DEGENERACY_BOUND) -> bool:
    """Pre-registered degeneracy rule: OFF-arm accuracy strictly above ``bound`` demotes the rung."""
    return bool(off_accuracy > bound)


def rung_status(frames: dict[str, pd.DataFrame], bound: float = DEGENERACY_BOUND) -> pd.DataFrame:
    """OFF accuracy and answered-only OFF AUROC per subject, with the rule applied.

    Columns: ``subject, off_accuracy, off_auroc, demoted, status``."""
    rows = []
    for subj, df in frames.items():
        t = arm_table(df).set_index("arm")
        acc = float(t.loc["off", "accuracy"])
        dem = is_degenerate(acc, bound)
        rows.append(
            {
                "subject": subj,
                "off_accuracy": acc,
                "off_auroc": float(t.loc["off", "auroc"]),
                "demoted": dem,
                "status": "demoted (ceiling)" if dem else "confirmatory-eligible",
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------- contrasts
def rng_for(seed: int, name: str) -> np.random.Generator:
    """Independent bootstrap stream for a named quantity: :func:`selfconf.stats.streams.stream` ``(seed, name)``.

    Each contrast gets its own stream so results do not depend on the order of computation; distinct names never
    share a stream (the book's one derivation of named streams).

    >>> bool((rng_for(1, "arm:core").integers(0, 9, 5) == rng_for(1, "arm:core").integers(0, 9, 5)).all())
    True
    """
    return stream(seed, name)


def matched_cells(df: pd.DataFrame, arm_a: str, arm_b: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Answered rows of ``arm_a`` and ``arm_b`` restricted to item x replicate cells answered in both,
    aligned row by row."""
    ans = answered_rows(df)
    a = ans[ans["arm"] == arm_a].set_index(["item_id", "replicate"])
    b = ans[ans["arm"] == arm_b].set_index(["item_id", "replicate"])
    keys = a.index.intersection(b.index).sort_values()
    return a.loc[keys].reset_index(), b.loc[keys].reset_index()


def paired_contrast(df: pd.DataFrame, arm: str, n_boot: int, seed: int, level: float = 0.95, *, base: str = "core"):
    """``base`` (CORE unless given) minus ``arm`` on matched answered cells, item-clustered paired bootstrap.

    The bootstrap stream is named ``paired:<base>-<arm>``.
    Returns :class:`selfconf.bootstrap.PairedContrast` (estimate, percentile CI, p-values)."""
    a, b = matched_cells(df, base, arm)
    return _bs.paired_auroc_contrast(
        a["confidence"].to_numpy() / 100.0,
        b["confidence"].to_numpy() / 100.0,
        a["correct"].to_numpy().astype(int),
        b["correct"].to_numpy().astype(int),
        items=a["item_id"].to_numpy(),
        n_boot=n_boot,
        rng=rng_for(seed, f"paired:{base}-{arm}"),
        level=level,
    )


def confirmatory_contrasts(df: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """The confirmatory family (CORE>PLACEBO, CORE>OFF) plus the exploratory CORE-SHUFFLED contrast.

    Holm adjustment is applied over the confirmatory family only, from the unrounded two-sided
    bootstrap p-values.  Columns: ``contrast, family, n_pairs, delta, ci_low, ci_high, p_raw,
    p_holm``."""
    rows = []
    for arm in ("placebo", "off", "shuffled"):
        pc = paired_contrast(df, arm, n_boot, seed)
        a, _ = matched_cells(df, "core", arm)
        rows.append(
            {
                "contrast": f"core-{arm}",
                "family": "confirmatory" if arm in CONFIRMATORY_FAMILY else "exploratory",
                "n_pairs": len(a),
                "delta": pc.estimate,
                "ci_low": pc.low,
                "ci_high": pc.high,
                "p_raw": pc.p_two_sided,
            }
        )
    out = pd.DataFrame(rows)
    conf = out["family"] == "confirmatory"
    out["p_holm"] = np.nan
    out.loc[conf, "p_holm"] = _bs.holm(out.loc[conf, "p_raw"].to_numpy())
    return out


# ---------------------------------------------------------------------------------- oracle
def _oracle_rows(df: pd.DataFrame) -> pd.DataFrame:
    s = scored_rows(df)
    return s[s["status"] == "ok"]


def bin_accuracy(df: pd.DataFrame) -> pd.Series:
    """Accuracy per bin over the oracle population (scored, parsed rows of all arms/replicates)."""
    r = _oracle_rows(df)
    return r.groupby("bin", sort=True)["correct"].mean()


def loo_bin_accuracy(df: pd.DataFrame) -> pd.DataFrame:
    """Oracle population with each row's leave-one-item-out bin accuracy (column ``loo_acc``).

    loo_acc(item i in bin b) = (correct rows of b - correct rows of i) / (rows of b - rows of i).
    An item alone in its bin has no predictor and raises ``ValueError``."""
    r = _oracle_rows(df).copy()
    r["y"] = r["correct"].astype(int)
    per_item = r.groupby(["bin", "item_id"])["y"].agg(["sum", "count"])
    per_bin = per_item.groupby(level="bin").sum()
    kb = per_bin.loc[per_item.index.get_level_values("bin")].to_numpy()
    rest_n = kb[:, 1] - per_item["count"].to_numpy()
    if (rest_n <= 0).any():
        bad = per_item.index[np.flatnonzero(rest_n <= 0)[0]]
        raise ValueError(f"bin {bad[0]!r}: item {bad[1]!r} is the only item, leave-one-out undefined")
    loo = pd.Series((kb[:, 0] - per_item["sum"].to_numpy()) / rest_n, index=per_item.index, name="loo_acc")
    return r.join(loo, on=["bin", "item_id"])


def oracle_ceiling(df: pd.DataFrame) -> dict[str, Any]:
    """Oracle AUROC with the per-bin accuracy spread it rests on.

    Returns ``{"auroc", "n_rows", "n_bins", "bin_acc_sd" (sample SD, ddof=1), "bin_acc_min",
    "bin_acc_max", "bin_acc" (Series)}``."""
    r = loo_bin_accuracy(df)
    acc = bin_accuracy(df)
    return {
        "auroc": _m.auroc(r["loo_acc"].to_numpy(), r["y"].to_numpy()),
        "n_rows": len(r),
        "n_bins": int(acc.size),
        "bin_acc_sd": float(acc.std(ddof=1)),
        "bin_acc_min": float(acc.min()),
        "bin_acc_max": float(acc.max()),
        "bin_acc": acc,
    }


def placebo_correlation(profiles: pd.DataFrame) -> float:
    """Spearman rho (average ranks for ties) between the placebo and the true (CORE) profile.

    Computed by :func:`selfconf.metrics.spearman_rho` (numpy; equal to ``scipy.stats.spearmanr`` to 1e-12)."""
    return _m.spearman_rho(profiles["placebo"].to_numpy(dtype=float), profiles["core"].to_numpy(dtype=float))


# ------------------------------------------------------------------------------- frontier rung
def arm_auroc_ci(df: pd.DataFrame, arm: str, n_boot: int, seed: int, level: float = 0.95):
    """Answered-only AUROC of one arm with an item-clustered percentile CI (:class:`BootstrapCI`)."""
    a = answered_rows(df)
    a = a[a["arm"] == arm]
    return _bs.auroc_ci(
        a["confidence"].to_numpy() / 100.0,
        a["correct"].to_numpy().astype(int),
        n_boot=n_boot,
        rng=rng_for(seed, f"arm:{arm}"),
        level=level,
        clusters=a["item_id"].to_numpy(),
    )


def frontier_rung(df: pd.DataFrame, n_boot: int, seed: int, level: float = 0.95) -> dict[str, Any]:
    """CORE (true profile) vs SHUFFLED (false profile) on a rung, each arm on all its answered rows.

    One item-clustered bootstrap draws the items once for both arms, so the two AUROC intervals and
    the interval of their difference come from the same draws.  Returns a dict with ``core``,
    ``shuffled`` (estimate, low, high) and ``delta`` (estimate, low, high, p_two_sided)."""
    a = answered_rows(df)
    c, s = a[a["arm"] == "core"], a[a["arm"] == "shuffled"]
    pc = _bs.paired_auroc_contrast(
        c["confidence"].to_numpy() / 100.0,
        s["confidence"].to_numpy() / 100.0,
        c["correct"].to_numpy().astype(int),
        s["correct"].to_numpy().astype(int),
        items=c["item_id"].to_numpy(),
        items_b=s["item_id"].to_numpy(),
        n_boot=n_boot,
        rng=rng_for(seed, "frontier:core-shuffled"),
        level=level,
    )
    return {
        "core": {"estimate": pc.auroc_a.estimate, "low": pc.auroc_a.low, "high": pc.auroc_a.high, "n": len(c)},
        "shuffled": {"estimate": pc.auroc_b.estimate, "low": pc.auroc_b.low, "high": pc.auroc_b.high, "n": len(s)},
        "delta": {"estimate": pc.estimate, "low": pc.low, "high": pc.high, "p_two_sided": pc.p_two_sided},
    }


# ---------------------------------------------------------------------------------------- power
def power_from_ci(
    ci_low: float, ci_high: float, observed: float, alpha: float = 0.05, target_power: float = 0.80, level: float = 0.95
) -> dict[str, float]:
    """Normal-approximation power read off a confidence interval.

    SE = (ci_high - ci_low) / (2 z_{(1+level)/2}); the smallest true Δ detected with probability
    ``target_power`` by a two-sided test at ``alpha`` is (z_{1-alpha/2} + z_{target_power}) x SE;
    the power at the observed Δ is Φ(|Δ|/SE - z_{1-alpha/2}) (the far tail neglected)."""
    from scipy.stats import norm

    z_ci = float(norm.ppf(0.5 + level / 2))
    z_a = float(norm.ppf(1 - alpha / 2))
    z_p = float(norm.ppf(target_power))
    se = (ci_high - ci_low) / (2 * z_ci)
    return {
        "se": se,
        "min_delta": (z_a + z_p) * se,
        "power_at_observed": float(norm.cdf(abs(observed) / se - z_a)),
        "z_alpha": z_a,
        "z_power": z_p,
    }
