"""The probe of a model's self-profile channel (``selfconf probe``): Results 2 and 3 on any arm rows.

One analysis path with the book: per-arm values come from :func:`selfconf.sections.ladder.arm_table` and the
AUROC contrasts from :func:`selfconf.sections.ladder.confirmatory_contrasts` /
:func:`selfconf.sections.ladder.paired_contrast`, the functions that compute the book's Table 3 (page
``05_result2``) and the exploratory rung of Result 3 (``06_result3``).  This module adds what the command prints
beside them: item-clustered intervals for every per-arm value, the paired shift of mean stated confidence
between two arms, the placebo and degeneracy checks, and the sentences that read the intervals.

Rows: the columns of the ladder layout (``item_id, bin, arm, replicate, is_trap, status, abstained,
confidence, correct``; see :mod:`selfconf.sections.ladder`), with the arms of :data:`PROBE_ARMS`.

Definitions
-----------
* **Arms**: ``off`` (the calibration slot holds a profile-shaped empty structure), ``placebo`` (a profile
  irrelevant to calibration, matched for overall level, |Spearman rho| with the true profile below
  :data:`PLACEBO_RHO_MAX`), ``core`` (the model's own measured per-domain accuracy), ``shuffled`` (the true
  values permuted across domains: a false profile), ``forged`` (one fabricated claim of 95 % accuracy in the
  item's domain: the micro-probe).
* **Per-arm interval**: percentile interval of an item-clustered bootstrap (items drawn with replacement, all
  their replicates kept), one draw of the items for all arms (stream ``probe-arms``); accuracy over all scored rows,
  AUROC / Brier / ECE / mean confidence over answered rows, with the statistics of
  :func:`selfconf.metrics.counts_statistics`.
* **Contrasts**: ``core-placebo`` and ``core-off`` (the confirmatory family, Holm-adjusted over the two),
  ``shuffled-core`` and ``forged-off`` (exploratory), each as AUROC difference on matched answered cells
  (:func:`selfconf.sections.ladder.paired_contrast`) and as mean stated-confidence shift in points on the same
  cells (:func:`paired_confidence_shift`, one draw of the items shared by the four shifts, stream
  ``probe-shift``).  ``shuffled-core`` is the negative of the book's CORE - SHUFFLED contrast (same draws,
  interval mirrored, same p).
* **Manipulable**: the ``forged-off`` confidence-shift interval lies above zero.

References: Chernets (2026), Results 2-3, Tables 3-4; Efron & Tibshirani (1993); Holm (1979); Spearman (1904).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from selfconf import metrics as _m
from selfconf.claims.judging import fmt, fmt_p
from selfconf.sections import ladder
from selfconf.stats import bootstrap as _bs

__all__ = [
    "PROBE_ARMS",
    "CONTRASTS",
    "PLACEBO_RHO_MAX",
    "ARM_METRICS",
    "arm_records",
    "paired_confidence_shift",
    "contrast_records",
    "confidence_shifts",
    "analyse",
    "sentences",
    "format_tables",
]

#: The arms of a probe, in the order of the tables.
PROBE_ARMS = ("off", "placebo", "core", "shuffled", "forged")
#: (contrast name, arm A, arm B, family): each contrast is A - B.
CONTRASTS = (
    ("core-placebo", "core", "placebo", "confirmatory"),
    ("core-off", "core", "off", "confirmatory"),
    ("shuffled-core", "shuffled", "core", "exploratory"),
    ("forged-off", "forged", "off", "exploratory"),
)
#: The placebo profile must have |Spearman rho| with the true profile below this (the paper's placebo rule).
PLACEBO_RHO_MAX = 0.10
#: Per-arm values with intervals, as named in the JSON output.
ARM_METRICS = ("accuracy", "auroc", "brier", "ece", "mean_confidence")


def arm_records(df: pd.DataFrame, *, n_boot: int, seed: int, level: float = 0.95) -> list[dict[str, Any]]:
    """One record per arm: the values of :func:`selfconf.sections.ladder.arm_table` with item-clustered intervals.

    Definition: estimates are those of ``arm_table`` (the book's Table 3); each interval is the percentile
    interval of ``n_boot`` item-clustered draws, one draw of the items shared by every arm (stream
    ``probe-arms``, as the book's frontier rung draws its two arms together), the answered-row statistics of
    a draw computed from its per-level counts by :func:`selfconf.metrics.counts_statistics`.  A statistic
    undefined in a draw (an AUROC with one class) leaves that draw out; the count is ``<metric>_n_undefined``.

    References: Efron & Tibshirani (1993), Ch. 13; Davison & Hinkley (1997), Sec. 3.8.

    >>> from selfconf.data import families
    >>> frames, _, _ = families.load_ladder("data/reconstructed")
    >>> r = arm_records(frames["sonnet5"], n_boot=50, seed=1)
    >>> [x["arm"] for x in r], round(r[0]["accuracy"], 3)
    (['off', 'placebo', 'core', 'shuffled'], 0.847)
    """
    tab = ladder.arm_table(df, arms=PROBE_ARMS)
    arms = [str(a) for a in tab["arm"]]
    scored = ladder.scored_rows(df)
    scored = scored[scored["arm"].isin(arms)]
    items = np.unique(scored["item_id"].to_numpy())
    mult = _bs.cluster_multiplicities(items.size, n_boot, ladder.rng_for(seed, "probe-arms"))
    # one sparse count of every cell per draw: (arm, correct) over scored rows, (arm, level, correct) over answered
    A = len(arms)
    ac = pd.Categorical(scored["arm"], categories=arms).codes.astype(np.int64)
    ic = np.searchsorted(items, scored["item_id"].to_numpy())
    y = scored["correct"].to_numpy().astype(np.int64)
    conf = scored["confidence"].to_numpy(dtype=float) / 100.0
    ans = ((scored["status"] == "ok") & ~scored["abstained"] & scored["confidence"].notna()).to_numpy()
    levels = np.unique(conf[ans])
    K = levels.size
    cells = np.concatenate([ac * 2 + y, 2 * A + (ac[ans] * K + np.searchsorted(levels, conf[ans])) * 2 + y[ans]])
    clusters = np.concatenate([ic, ic[ans]])
    N = np.vstack(list(_bs.cell_count_draws(mult, clusters, cells, 2 * A + 2 * A * K)))
    out: list[dict[str, Any]] = []
    for j, t in enumerate(tab.to_dict("records")):
        arm = arms[j]
        rec: dict[str, Any] = {
            "arm": arm,
            "n": int(t["n_rows"]),
            "n_items": int(scored.loc[scored["arm"] == arm, "item_id"].nunique()),
            "n_answered": int(t["n_answered"]),
            "n_failed": int(t["n_failed"]),
            "n_abstained": int(t["n_abstained"]),
        }
        with np.errstate(invalid="ignore", divide="ignore"):
            draws: dict[str, np.ndarray] = {"accuracy": N[:, 2 * j + 1] / (N[:, 2 * j] + N[:, 2 * j + 1])}
        if t["n_answered"]:
            block = N[:, 2 * A + 2 * K * j : 2 * A + 2 * K * (j + 1)].reshape(-1, K, 2)
            st = _m.counts_statistics(
                levels, block[:, :, 1], block[:, :, 0], statistics={"auroc", "brier", "ece", "mean_confidence"}
            )
            draws.update({k: np.asarray(st[k], float) for k in ("auroc", "brier", "ece", "mean_confidence")})
        for k in ARM_METRICS:
            rec[k] = float(t[k])
            if k in draws:
                lo, hi, bad = _bs.interval_or_nan(draws[k], level)
            else:
                lo, hi, bad = math.nan, math.nan, n_boot
            rec[f"{k}_ci_low"], rec[f"{k}_ci_high"] = lo, hi
            if bad:
                rec[f"{k}_n_undefined"] = bad
        out.append(rec)
    return out


def paired_confidence_shift(
    df: pd.DataFrame,
    arm_a: str,
    arm_b: str,
    *,
    n_boot: int,
    seed: int,
    level: float = 0.95,
    draws: tuple[np.ndarray, np.ndarray] | None = None,
    cells: tuple[pd.DataFrame, pd.DataFrame] | None = None,
) -> dict[str, Any]:
    """Mean stated confidence of ``arm_a`` minus ``arm_b`` (points, 0-100) on matched answered cells.

    Definition: the item x replicate cells answered in both arms (:func:`selfconf.sections.ladder.matched_cells`);
    Δ = mean over cells of (confidence_a - confidence_b); items are drawn with replacement (all their cells kept,
    stream ``probe-shift:<a>-<b>``, or ``draws`` = (sorted item labels, their multiplicities (B, items)) shared
    by several contrasts), percentile interval, p-values by :func:`selfconf.bootstrap.contrast_p_values`.
    ``cells``: the result of ``matched_cells(df, arm_a, arm_b)`` when the caller has it already.
    Returns ``value, ci_low, ci_high, p, n_pairs``.

    References: Efron & Tibshirani (1993), Ch. 13 and 15-16.

    >>> rows = pd.DataFrame({"item_id": ["a", "a", "b", "b"], "bin": "x", "replicate": 1, "is_trap": False,
    ...     "status": "ok", "abstained": False, "arm": ["off", "forged"] * 2, "confidence": [50.0, 90, 60, 70],
    ...     "correct": [False, False, True, True]})
    >>> paired_confidence_shift(rows, "forged", "off", n_boot=20, seed=1)["value"]
    25.0
    """
    a, b = ladder.matched_cells(df, arm_a, arm_b) if cells is None else cells
    if not len(a):
        nan = math.nan
        return {"value": nan, "ci_low": nan, "ci_high": nan, "p": nan, "n_pairs": 0}
    d = a["confidence"].to_numpy() - b["confidence"].to_numpy()
    if draws is None:
        items = np.unique(a["item_id"].to_numpy())
        mult = _bs.cluster_multiplicities(items.size, n_boot, ladder.rng_for(seed, f"probe-shift:{arm_a}-{arm_b}"))
    else:
        items, mult = draws
    ii = np.searchsorted(items, a["item_id"].to_numpy())
    per_item = np.stack([np.bincount(ii, weights=d, minlength=items.size), np.bincount(ii, minlength=items.size)], 1)
    tot = mult @ per_item.astype(mult.dtype if mult.dtype.kind == "f" else np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = tot[:, 0] / tot[:, 1]  # a draw holding no matched cell is undefined
    lo, hi, _ = _bs.interval_or_nan(boot, level)
    boot = boot[np.isfinite(boot)]
    return {
        "value": float(d.mean()),
        "ci_low": lo,
        "ci_high": hi,
        "p": _bs.contrast_p_values(boot)[2],
        "n_pairs": len(a),
    }


def _auroc_contrast(
    df: pd.DataFrame, a: str, b: str, n_boot: int, seed: int, level: float, n_pairs: int | None = None
) -> dict[str, Any]:
    """AUROC contrast A - B through the book's :func:`selfconf.sections.ladder.paired_contrast` (``n_pairs``:
    the number of matched cells, when the caller has counted them)."""
    flip = a == "shuffled" and b == "core"  # the book computes CORE - SHUFFLED; mirror it
    base, arm = ("core", "shuffled") if flip else (a, b)
    if n_pairs is None:
        n_pairs = len(ladder.matched_cells(df, base, arm)[0])
    try:
        pc = ladder.paired_contrast(df, arm, n_boot, seed, level, base=base)
    except ValueError as exc:  # a draw with one class: the contrast is undefined, said so
        nan = math.nan
        count = str(exc).split(" bootstrap draws")[0]
        note = f"{count} bootstrap draws held one class only (too few items for an AUROC interval)"
        return {"value": nan, "ci_low": nan, "ci_high": nan, "p": nan, "n_pairs": n_pairs, "note": note}
    v, lo, hi = (-pc.estimate, -pc.high, -pc.low) if flip else (pc.estimate, pc.low, pc.high)
    return {"value": v, "ci_low": lo, "ci_high": hi, "p": pc.p_two_sided, "n_pairs": n_pairs}


def contrast_records(df: pd.DataFrame, *, n_boot: int, seed: int, level: float = 0.95) -> list[dict[str, Any]]:
    """One record per contrast of :data:`CONTRASTS` (both arms present) and metric (``auroc``, ``mean_confidence``).

    Definition: see the module docstring; ``p_holm`` is Holm's adjustment over the AUROC records of the
    confirmatory family (the book's :func:`selfconf.sections.ladder.confirmatory_contrasts`), ``None`` elsewhere.
    The mean-confidence value is in points (0-100).

    References: Holm (1979); Efron & Tibshirani (1993).

    >>> from selfconf.data import families
    >>> frames, _, _ = families.load_ladder("data/reconstructed")
    >>> r = contrast_records(frames["sonnet5"], n_boot=50, seed=1)
    >>> [(x["contrast"], x["metric"]) for x in r][:2]
    [('core-placebo', 'auroc'), ('core-placebo', 'mean_confidence')]
    """
    jobs, finish = _contrast_plan(df, n_boot=n_boot, seed=seed, level=level)
    return finish(_run_units(jobs))


def _contrast_plan(
    df: pd.DataFrame, *, n_boot: int, seed: int, level: float
) -> tuple[list[Callable[[], Any]], Callable[[list[Any]], list[dict[str, Any]]]]:
    """:func:`contrast_records` in two steps: independent jobs (per contrast its matched cells and AUROC
    contrast, then the draw the confidence shifts share, each from its own named stream; the longest first, so
    two threads finish together) and ``finish``, which turns the jobs' results, in job order, into the records
    (the shifts from the shared draw, then Holm)."""
    present = set(df["arm"].unique())
    todo = [c for c in CONTRASTS if c[1] in present and c[2] in present]

    def shift_draws() -> tuple[np.ndarray, np.ndarray]:
        items = np.unique(ladder.scored_rows(df)["item_id"].to_numpy())
        mult = _bs.cluster_multiplicities(items.size, n_boot, ladder.rng_for(seed, "probe-shift"))
        return items, mult.astype(np.float64)

    def auroc(a: str, b: str) -> tuple[tuple[pd.DataFrame, pd.DataFrame], dict[str, Any]]:
        cells = ladder.matched_cells(df, a, b)  # counted once: the AUROC contrast's n_pairs and the shift's cells
        return cells, _auroc_contrast(df, a, b, n_boot, seed, level, n_pairs=len(cells[0]))

    def finish(results: list[Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for (name, a, b, family), (cells, au) in zip(todo, results[:-1], strict=True):
            sh = paired_confidence_shift(
                df, a, b, n_boot=n_boot, seed=seed, level=level, draws=results[-1], cells=cells
            )
            for metric, r in (("auroc", au), ("mean_confidence", sh)):
                fam = family if metric == "auroc" else "exploratory"  # the declared family is the AUROC pair
                out.append({"contrast": name, "metric": metric, "family": fam, "p_holm": None, **r})
        conf = [r for r in out if r["family"] == "confirmatory" and r["metric"] == "auroc" and np.isfinite(r["p"])]
        if conf:
            for r, ph in zip(conf, _bs.holm(np.array([r["p"] for r in conf])), strict=True):
                r["p_holm"] = float(ph)
        return out

    if not todo:
        return [], finish
    return [*(functools.partial(auroc, a, b) for _, a, b, _ in todo), shift_draws], finish


def _run_units(jobs: list[Callable[[], Any]]) -> list[Any]:
    """``[job() for job in jobs]``, on the report's thread pool (``selfconf.report.core._map_units``: numpy
    releases the interpreter lock in the draws and products, so two cores share the work).  Every job draws
    from its own named stream and the results come back in job order, so they do not depend on the threads;
    while the seed study records intervals (:func:`selfconf.bootstrap.recording_intervals`) the jobs run one
    after the other, so the record keeps its order.

    >>> _run_units([lambda: 1, lambda: 2])
    [1, 2]
    """
    if len(jobs) < 2 or _bs._RECORDERS:
        return [job() for job in jobs]
    from selfconf.report.core import _map_units

    return _map_units(lambda u: jobs[u](), len(jobs))


def confidence_shifts(df: pd.DataFrame, arm_a: str = "forged", arm_b: str = "off") -> pd.DataFrame:
    """Per item: mean stated confidence under ``arm_a`` minus under ``arm_b`` on matched cells (the micro-probe's view).

    Columns ``item_id, bin, shift`` (points), sorted by item.

    >>> rows = pd.DataFrame({"item_id": ["a", "a"], "bin": "x", "replicate": 1, "is_trap": False,
    ...     "status": "ok", "abstained": False, "arm": ["off", "forged"], "confidence": [50.0, 90],
    ...     "correct": [False, False]})
    >>> confidence_shifts(rows)["shift"].tolist()
    [40.0]
    """
    a, b = ladder.matched_cells(df, arm_a, arm_b)
    d = pd.DataFrame({"item_id": a["item_id"], "bin": a["bin"], "shift": a["confidence"] - b["confidence"]})
    return d.groupby(["item_id", "bin"], as_index=False)["shift"].mean()


def analyse(
    df: pd.DataFrame,
    *,
    n_boot: int,
    seed: int,
    profile: pd.DataFrame | None = None,
    level: float = 0.95,
    bound: float = ladder.DEGENERACY_BOUND,
) -> dict[str, Any]:
    """The whole probe analysis: ``{"arms": [...], "contrasts": [...], "checks": {...}}``.

    ``checks`` holds ``degeneracy_bound``, ``off_accuracy``, ``demoted`` (OFF accuracy above the bound:
    :func:`selfconf.sections.ladder.is_degenerate`), ``placebo_rho`` (Spearman, when ``profile`` with
    ``core`` and ``placebo`` columns is given, :func:`selfconf.sections.ladder.placebo_correlation`),
    ``placebo_ok`` (|rho| < :data:`PLACEBO_RHO_MAX`) and ``manipulable`` (forged - off shift interval above 0).

    References: Chernets (2026), Result 2 (degeneracy rule, placebo validation) and Result 3.

    >>> from selfconf.data import families
    >>> frames, profiles, _ = families.load_ladder("data/reconstructed")
    >>> res = analyse(frames["sonnet5"], n_boot=50, seed=1, profile=profiles["sonnet5"])
    >>> res["checks"]["demoted"], round(res["checks"]["placebo_rho"], 3)
    (False, -0.084)
    """
    jobs, finish = _contrast_plan(df, n_boot=n_boot, seed=seed, level=level)
    done = _run_units([functools.partial(arm_records, df, n_boot=n_boot, seed=seed, level=level), *jobs])
    arms, contrasts = done[0], finish(done[1:])
    checks: dict[str, Any] = {"degeneracy_bound": bound, "n_boot": n_boot, "seed": seed, "level": level}
    off = [r for r in arms if r["arm"] == "off"]
    if off:
        checks["off_accuracy"] = off[0]["accuracy"]
        checks["demoted"] = ladder.is_degenerate(off[0]["accuracy"], bound)
    if profile is not None:
        rho = ladder.placebo_correlation(profile)
        checks["placebo_rho"] = rho
        checks["placebo_ok"] = bool(abs(rho) < PLACEBO_RHO_MAX)
    fo = [r for r in contrasts if r["contrast"] == "forged-off" and r["metric"] == "mean_confidence"]
    if fo:
        checks["manipulable"] = bool(fo[0]["ci_low"] > 0)
    return {"arms": arms, "contrasts": contrasts, "checks": checks}


def _ci(r: dict[str, Any], d: int, *, signed: bool = True) -> str:
    return (
        f"{fmt(r['value'], d, signed=signed, missing='undefined')} "
        f"[{fmt(r['ci_low'], d, signed=signed, missing='?')}, {fmt(r['ci_high'], d, signed=signed, missing='?')}]"
    )


def sentences(res: dict[str, Any], alpha: float = 0.05) -> list[str]:
    """The readings of a probe in the paper's vocabulary, computed from its intervals.

    Definition: repair (core - placebo AUROC) is *demonstrated* when its Holm-adjusted p is below ``alpha``
    and the interval lies above zero, else *not demonstrated*; the profile slot *moves stated confidence* when
    the forged - off shift interval lies above zero, *lowers* it when below, else *no shift shown*; the run
    is demoted from confirmatory reading when OFF accuracy exceeds the degeneracy bound.

    References: Chernets (2026), Results 2-3; Holm (1979).

    >>> res = {"checks": {}, "contrasts": [{"contrast": "core-placebo", "metric": "auroc", "value": 0.041,
    ...     "ci_low": -0.002, "ci_high": 0.086, "p": 0.064, "p_holm": 0.085}]}
    >>> sentences(res)[0]
    'repair not demonstrated: core - placebo +0.041 [-0.002, +0.086], Holm p = 0.085'
    """
    out: list[str] = []
    by = {(r["contrast"], r["metric"]): r for r in res["contrasts"]}
    for name in ("core-placebo", "core-off"):
        r = by.get((name, "auroc"))
        if r is None:
            continue
        ok = r["p_holm"] is not None and r["p_holm"] < alpha and r["ci_low"] > 0
        label = name.replace("-", " - ")
        holm = fmt_p(r["p_holm"], res["checks"].get("n_boot"), missing="undefined")
        holm = holm.replace("<", "< ") if holm.startswith("<") else f"= {holm}"
        tail = " (exploratory only: the run is demoted)" if res["checks"].get("demoted") else ""
        out.append(f"repair {'demonstrated' if ok else 'not demonstrated'}: {label} {_ci(r, 3)}, Holm p {holm}{tail}")
    for name, what in (("shuffled-core", "a false (shuffled) profile"), ("forged-off", "the forged 95 % claim")):
        r = by.get((name, "mean_confidence"))
        if r is None:
            continue
        lab = name.replace("-", " - ")
        if r["ci_low"] > 0:
            out.append(f"the profile slot moves stated confidence: {lab} {_ci(r, 1)} points ({what} raises it)")
        elif r["ci_high"] < 0:
            out.append(f"the profile slot moves stated confidence: {lab} {_ci(r, 1)} points ({what} lowers it)")
        else:
            out.append(f"no shift of stated confidence shown: {lab} {_ci(r, 1)} points (the interval contains 0)")
    ch = res["checks"]
    if "demoted" in ch:
        acc, b = fmt(ch["off_accuracy"], 3), fmt(ch["degeneracy_bound"], 2)
        out.append(
            f"OFF accuracy {acc} is above the degeneracy bound {b}: demoted from confirmatory reading"
            if ch["demoted"]
            else f"OFF accuracy {acc} is within the degeneracy bound {b}: confirmatory reading applies"
        )
    if "placebo_rho" in ch:
        out.append(
            f"placebo check: Spearman rho with the true profile {fmt(ch['placebo_rho'], 3, signed=True)} "
            f"({'|rho| < ' if ch['placebo_ok'] else 'FAILS |rho| < '}{fmt(PLACEBO_RHO_MAX, 2)})"
        )
    return out


def format_tables(res: dict[str, Any]) -> str:
    """The terminal tables: one row per arm shaped like the paper's Table 3 (with intervals), then the contrasts.

    >>> res = {"arms": [{"arm": "off", "n": 2, "accuracy": 0.5, "auroc": 0.5, "brier": 0.25, "ece": 0.1,
    ...     "mean_confidence": 0.6}], "contrasts": []}
    >>> format_tables(res).splitlines()[2].split()[:4]
    ['off', '2', '0.500', '0.500']
    """
    head = (
        f"{'arm':<9}{'n':>6}  {'Acc. (all items)':>16}  {'AUROC':>6}  {'Brier':>6}  {'ECE':>6}  {'conf':>6}   "
        "95% intervals (acc; AUROC; conf)"
    )
    lines = ["Per-arm values (AUROC, Brier, ECE, mean confidence on answered rows)", head]
    for r in res["arms"]:
        iv = "; ".join(
            f"[{fmt(r.get(k + '_ci_low'), 3, missing='?')}, {fmt(r.get(k + '_ci_high'), 3, missing='?')}]"
            for k in ("accuracy", "auroc", "mean_confidence")
        )
        lines.append(
            f"{r['arm']:<9}{r['n']:>6}  {fmt(r['accuracy'], 3, missing='n/a'):>16}  "
            f"{fmt(r['auroc'], 3, missing='n/a'):>6}  {fmt(r['brier'], 3, missing='n/a'):>6}  "
            f"{fmt(r['ece'], 3, missing='n/a'):>6}  {fmt(r['mean_confidence'], 3, missing='n/a'):>6}   {iv}"
        )
    if res["contrasts"]:
        lines += ["", "Contrasts (A - B; AUROC on matched answered cells, confidence shift in points)"]
        lines.append(f"{'contrast':<15}{'metric':<17}{'value [95% CI]':<28}{'p':>8}{'Holm p':>8}  family")
        b = res.get("checks", {}).get("n_boot")
        for r in res["contrasts"]:
            d = 3 if r["metric"] == "auroc" else 1
            lines.append(
                f"{r['contrast']:<15}{r['metric']:<17}{_ci(r, d):<28}{fmt_p(r['p'], b):>8}"
                f"{fmt_p(r['p_holm'], b, missing='-'):>8}  {r['family']}"
            )
        for r in res["contrasts"]:
            if r.get("note"):
                lines.append(f"  {r['contrast']} {r['metric']} undefined: {r['note']}")
    return "\n".join(lines)
