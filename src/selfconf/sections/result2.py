"""Result 2 (page ``05_result2``): the profile-injection ladder, computed from its rows in one call.

:func:`compute` applies the degeneracy rule, builds Table 3 of the eligible rung, runs the pre-registered
contrasts with Holm's correction, reads the power off the confirmatory interval, and computes the oracle ceiling
and the placebo validation, returning every value the page glues (:class:`selfconf.sections.computed.Computed`).
The statistics themselves are those of :mod:`selfconf.sections.ladder`, called with the same seeds in the same
order as the page always did.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pandas as pd

from selfconf.sections import ladder
from selfconf.sections.computed import Builder, Computed

__all__ = ["ALPHA", "SHORT_NAMES", "TARGET_POWER", "compare_wording", "compute", "core_off_reading", "holm_verdict"]

#: The test level of the design (the default of :func:`selfconf.sections.ladder.power_from_ci`).
ALPHA = float(inspect.signature(ladder.power_from_ci).parameters["alpha"].default)
#: The power the design was sized for (the same function's default).
TARGET_POWER = float(inspect.signature(ladder.power_from_ci).parameters["target_power"].default)
#: Short subject names used in the placebo glue keys.
SHORT_NAMES = {"haiku45": "haiku", "sonnet5": "sonnet", "opus48": "opus", "fable5": "fable"}


def compare_wording(a: float, b: float, decimals: int = 3) -> str:
    """How score ``a`` compares with score ``b`` where lower is better, as printed at ``decimals`` decimals.

    Definition: equal printed forms give ``"the same at three decimals as"``; otherwise ``a > b`` is
    ``"higher (worse) than"`` and ``a < b`` ``"lower (better) than"``.

    References: Brier (1950) and ECE (Guo et al., 2017) are both lower-is-better.

    Examples
    --------
    >>> compare_wording(0.1234, 0.1231), compare_wording(0.2, 0.1), compare_wording(0.1, 0.2)
    ('the same at three decimals as', 'higher (worse) than', 'lower (better) than')
    """
    fa, fb = format(a, f".{decimals}f"), format(b, f".{decimals}f")
    return "the same at three decimals as" if fa == fb else ("higher (worse) than" if a > b else "lower (better) than")


def core_off_reading(ci_low: float, ci_high: float, p_holm: float, alpha: float = ALPHA) -> str:
    """The sentence on how this build's CORE > OFF interval reads against the paper's, which lies above zero.

    Definition: the paper prints a CORE > OFF interval entirely above zero (a nominal effect before Holm, lost
    after it).  The sentence says whether the interval computed here keeps that reading (above zero), loses it
    (contains zero) or reverses it (below zero), and whether the Holm-adjusted verdict at ``alpha`` changes.

    References: Chernets (2026), Result 2 (Table 3 caption); Holm (1979).

    Examples
    --------
    >>> core_off_reading(-0.002, 0.111, 0.114)[:60]
    "This build's CORE > OFF interval contains zero, while the pa"
    >>> core_off_reading(0.002, 0.113, 0.085)[:45]
    "This build's CORE > OFF interval lies above z"
    """
    if ci_low > 0:
        text = (
            "This build's CORE > OFF interval lies above zero, as the paper's does: before the Holm correction "
            "the contrast is distinguishable from zero in both"
        )
    elif ci_high < 0:
        text = (
            "This build's CORE > OFF interval lies below zero, the opposite sign of the paper's, which lies above "
            "zero: here OFF beats CORE before any correction"
        )
    else:
        text = (
            "This build's CORE > OFF interval contains zero, while the paper's lies above zero: the paper's CORE > "
            "OFF contrast is distinguishable from zero before the Holm correction, and here it is not even that"
        )
    after = (
        "; after Holm it does not pass in either, so the confirmatory verdict is the same."
        if p_holm >= alpha
        else "; after Holm it passes here, unlike in the paper, so the confirmatory verdict differs."
    )
    return text + after


def holm_verdict(p_holm: tuple[float, float], alpha: float = ALPHA) -> str:
    """The verdict on a family of two Holm-adjusted p-values at test level ``alpha``.

    Definition: an endpoint passes when its adjusted p is below ``alpha``.

    References: Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scand. J. Stat.* 6.

    Examples
    --------
    >>> holm_verdict((0.2, 0.3))
    'both are at or above the test level α = 0.05: no confirmatory endpoint passes'
    """
    if max(p_holm) < alpha:
        text = "both are below the test level α = {:.2f}: both confirmatory endpoints pass"
    elif min(p_holm) < alpha:
        text = "only one is below the test level α = {:.2f}: one confirmatory endpoint passes"
    else:
        text = "both are at or above the test level α = {:.2f}: no confirmatory endpoint passes"
    return text.format(alpha)


#: Per ladder subject, a frame (its scored arms, or its injected profiles).
_PerSubject = dict[str, pd.DataFrame]

#: Repeats of the canonical confirmatory values glued under other ids (the paper prints them more than once).
_REPEATS = {
    "r2_ladder_delta": "ladder_core_vs_placebo_delta",
    "r2_ladder_delta_observed": "ladder_core_vs_placebo_delta",
    "r2_ladder_delta_ci_lo": "ladder_core_vs_placebo_delta_ci_lo",
    "r2_ladder_delta_ci_hi": "ladder_core_vs_placebo_delta_ci_hi",
    "t3cap_core_vs_placebo_delta": "ladder_core_vs_placebo_delta",
    "t3cap_core_vs_placebo_ci_lo": "ladder_core_vs_placebo_delta_ci_lo",
    "t3cap_core_vs_placebo_ci_hi": "ladder_core_vs_placebo_delta_ci_hi",
    "t3cap_core_vs_placebo_p_raw": "ladder_core_vs_placebo_p_raw",
    "t3cap_core_vs_off_delta": "ladder_core_vs_off_delta",
    "t3cap_core_vs_off_ci_lo": "ladder_core_vs_off_delta_ci_lo",
    "t3cap_core_vs_off_ci_hi": "ladder_core_vs_off_delta_ci_hi",
    "t3cap_p_holm_adj": "ladder_p_holm_adj",
}


def glue_rungs(b: Builder, frames: dict[str, pd.DataFrame], *, bound: float, n_rungs: int) -> str:
    """Apply the degeneracy rule and record the rungs (part ``rungs``; tables ``status`` and ``demoted``).

    Definition: :func:`selfconf.sections.ladder.rung_status` at ``bound``; the rows must hold ``n_rungs``
    subjects and exactly one rung that is not demoted (the confirmatory rung).  Glued: how many rungs are demoted
    and eligible, each demoted rung's OFF accuracy and AUROC in order of OFF accuracy, and the confirmatory subject.

    Returns
    -------
    str
        The confirmatory subject.

    Raises
    ------
    ValueError
        When the subjects are not ``n_rungs`` or the eligible rungs are not exactly one.

    References: Chernets (2026), Result 2 (degeneracy rule).

    >>> from selfconf.data.families import load_ladder
    >>> b, frames = Builder(), load_ladder("data/reconstructed")[0]
    >>> glue_rungs(b, frames, bound=0.85, n_rungs=4), b.build()["ladder_n_rungs_demoted"]
    ('sonnet5', 3)
    """
    status = ladder.rung_status(frames, bound=bound)
    if len(status) != n_rungs:
        raise ValueError(f"{len(status)} subjects in the data, the design has {n_rungs} rungs")
    eligible = status[~status["demoted"]]
    demoted = status[status["demoted"]].sort_values("off_accuracy").reset_index(drop=True)
    if len(eligible) != 1:
        raise ValueError(f"{len(eligible)} confirmatory-eligible rungs; this page expects exactly one")
    confirmatory = str(eligible["subject"].iloc[0])
    b.update(
        "rungs",
        {
            "ladder_n_rungs_demoted": len(demoted),
            "ladder_n_eligible_rungs": len(eligible),
            "r2_ladder_n_rungs_scope": len(eligible),
        },
    )
    for k, row in demoted.iterrows():
        b.add("rungs", f"ladder_demoted_rung{k + 1}_off_acc", row["off_accuracy"])
        b.add("rungs", f"ladder_demoted_rung{k + 1}_off_auroc", row["off_auroc"])
    b.add("rungs", "ladder_confirmatory_subject", confirmatory, origin="rows")
    b.table("status", status)
    b.table("demoted", demoted)
    return confirmatory


def glue_battery(b: Builder, conf: pd.DataFrame) -> None:
    """Record the confirmatory rung's battery (part ``battery``; table ``per_bin``).

    Definition: distinct items, bins, non-trap items (:func:`selfconf.sections.ladder.scored_rows`) and trap
    items of the rung's rows; ``per_bin`` counts items and trap items per bin.

    References: Chernets (2026), Result 2 (battery).

    Examples
    --------
    >>> conf = pd.DataFrame({"item_id": [1, 1, 2, 3], "bin": ["x", "x", "x", "y"],
    ...                      "is_trap": [False, False, True, False], "arm": ["off", "core", "off", "off"],
    ...                      "correct": [1, 0, 1, 1], "confidence": [50, 60, 70, 80]})
    >>> b = Builder()
    >>> glue_battery(b, conf)
    >>> b.build().part("battery"), b.tables["per_bin"]["trap_items"].tolist()
    ({'ladder_n_items_battery': 3, 'ladder_n_bins': 2, 'ladder_n_nontrap_items': 2, 'ladder_n_trap_items': 1}, [1, 0])
    """
    scored = ladder.scored_rows(conf)
    b.update(
        "battery",
        {
            "ladder_n_items_battery": conf["item_id"].nunique(),
            "ladder_n_bins": conf["bin"].nunique(),
            "ladder_n_nontrap_items": scored["item_id"].nunique(),
        },
    )
    b.add("battery", "ladder_n_trap_items", int(conf.loc[conf["is_trap"], "item_id"].nunique()), origin="rows")
    b.table(
        "per_bin",
        conf.drop_duplicates("item_id")
        .groupby("bin")
        .agg(items=("item_id", "size"), trap_items=("is_trap", "sum"))
        .reset_index(),
    )


def glue_table3(b: Builder, conf: pd.DataFrame, *, seed: int, n_boot: int) -> pd.Series:
    """Record Table 3 and the confirmatory family (part ``table3``; tables ``arm_table`` and ``contrasts``).

    Definition: :func:`selfconf.sections.ladder.arm_table` (accuracy, AUROC, Brier, ECE per arm) and
    :func:`selfconf.sections.ladder.confirmatory_contrasts` (CORE − PLACEBO and CORE − OFF, paired bootstrap,
    Holm); the canonical values, their repeats under the other ids the paper prints (``_REPEATS``), the pairs,
    the wording of the ECE and Brier comparisons (:func:`compare_wording`), the Holm verdict
    (:func:`holm_verdict`) and the CORE > OFF reading (:func:`core_off_reading`).

    Returns
    -------
    pandas.Series
        The CORE − PLACEBO contrast row (``delta``, ``ci_low``, ``ci_high``, ``p_raw``, ``p_holm``, ``n_pairs``).

    References: Chernets (2026), Table 3; Holm (1979).

    >>> from selfconf.data.families import load_ladder
    >>> b, frames = Builder(), load_ladder("data/reconstructed")[0]
    >>> pl = glue_table3(b, frames["sonnet5"], seed=1, n_boot=20)
    >>> bool(b.build()["t3cap_core_vs_placebo_delta"] == pl["delta"]), b.build()["r2_alpha"]
    (True, 0.05)
    """
    t3 = ladder.arm_table(conf).set_index("arm")
    contr = ladder.confirmatory_contrasts(conf, n_boot=n_boot, seed=seed).set_index("contrast")
    b.table("arm_table", t3)
    b.table("contrasts", contr)
    b.add("table3", "ladder_n_rows_per_arm", int(t3.loc["off", "n_rows"]))
    for arm in ladder.ARMS:
        b.update(
            "table3",
            {
                f"t3_{arm}_acc": t3.loc[arm, "accuracy"],
                f"t3_{arm}_auroc": t3.loc[arm, "auroc"],
                f"t3_{arm}_brier": t3.loc[arm, "brier"],
                f"t3_{arm}_ece": t3.loc[arm, "ece"],
            },
        )
    b.add("table3", "r2_surviving_off_acc", t3.loc["off", "accuracy"])
    b.update("table3", {"t3cap_core_ece": t3.loc["core", "ece"], "t3cap_placebo_ece": t3.loc["placebo", "ece"]})
    pl, off = contr.loc["core-placebo"], contr.loc["core-off"]
    canon = {
        "ladder_core_vs_placebo_delta": pl["delta"],
        "ladder_core_vs_placebo_delta_ci_lo": pl["ci_low"],
        "ladder_core_vs_placebo_delta_ci_hi": pl["ci_high"],
        "ladder_core_vs_placebo_p_raw": pl["p_raw"],
        "ladder_core_vs_off_delta": off["delta"],
        "ladder_core_vs_off_delta_ci_lo": off["ci_low"],
        "ladder_core_vs_off_delta_ci_hi": off["ci_high"],
        "ladder_core_vs_off_p_raw": off["p_raw"],
        "ladder_p_holm_adj": pl["p_holm"],
    }
    b.update("table3", canon)
    b.add("table3", "ladder_core_vs_off_p_holm", off["p_holm"])  # a claim: Table 3 caption, p_adj = .085 for both
    b.update("table3", {rep: canon[c] for rep, c in _REPEATS.items()})
    b.add("table3", "ladder_holm_raw_off_unrounded", off["p_raw"], origin="rows")
    b.add("table3", "ladder_n_pairs_placebo", int(pl["n_pairs"]), origin="rows")
    b.add("table3", "ladder_n_pairs_off", int(off["n_pairs"]), origin="rows")
    for stat in ("ece", "brier"):
        wording = compare_wording(t3.loc["core", stat], t3.loc["placebo", stat])
        b.add("table3", f"r2_{stat}_core_vs_placebo", wording, origin="rows")
    b.add("table3", "r2_alpha", ALPHA, origin="parameter")
    holm_pair = (pl["p_holm"], off["p_holm"])
    b.add("table3", "r2_holm_verdict", holm_verdict(holm_pair), origin="rows")
    b.add("table3", "r2_holm_equal", "They are equal" if np.isclose(*holm_pair) else "They differ", origin="rows")
    reading = core_off_reading(off["ci_low"], off["ci_high"], off["p_holm"])
    b.add("table3", "r2_core_off_reading", reading, origin="rows")
    return pl


def glue_power(b: Builder, pl: pd.Series, *, n_boot: int) -> None:
    """Record the power read off the confirmatory interval (part ``power``).

    Definition: :func:`selfconf.sections.ladder.power_from_ci` on the CORE − PLACEBO interval and estimate
    (the standard error, the smallest detectable difference at :data:`ALPHA` and :data:`TARGET_POWER`, and the
    power at the observed difference, in percent), with the bootstrap draws and the target as parameters.

    References: Chernets (2026), Result 2 (power); Cohen (1988), Statistical Power Analysis.

    Examples
    --------
    >>> b = Builder()
    >>> glue_power(b, pd.Series({"ci_low": -0.02, "ci_high": 0.06, "delta": 0.02}), n_boot=100)
    >>> round(b.build()["ladder_power_se_computed"], 4), b.build()["r2_power_target_pct"]
    (0.0204, 80.0)
    """
    b.add("power", "ladder_n_boot", n_boot, origin="parameter")
    pw = ladder.power_from_ci(pl["ci_low"], pl["ci_high"], observed=pl["delta"])
    b.add("power", "ladder_power_se_computed", pw["se"], origin="rows")
    b.add("power", "ladder_power_min_delta_computed", pw["min_delta"], origin="rows")
    b.add("power", "ladder_power_at_observed_pct", 100 * pw["power_at_observed"], origin="rows")
    b.add("power", "r2_power_target_pct", 100 * TARGET_POWER, origin="parameter")


def glue_oracle(b: Builder, frames: dict[str, pd.DataFrame], confirmatory: str) -> None:
    """Record the oracle ceiling (part ``oracle``; tables ``oracle`` and ``oracle_bin_acc``).

    Definition: :func:`selfconf.sections.ladder.oracle_ceiling` of every subject of
    :data:`selfconf.sections.ladder.SUBJECTS`; glued: the confirmatory rung's oracle AUROC, rows, spread of bin
    accuracies and bins, and the range of the oracle AUROC over subjects.

    References: Chernets (2026), Result 2 (oracle ceiling).

    >>> from selfconf.data.families import load_ladder
    >>> b, frames = Builder(), load_ladder("data/reconstructed")[0]
    >>> glue_oracle(b, frames, "sonnet5")
    >>> len(b.tables["oracle"]) == len(ladder.SUBJECTS), 0.5 < b.build()["oracle_auroc_confirmatory"] <= 1
    (True, True)
    """
    orc = {s: ladder.oracle_ceiling(frames[s]) for s in ladder.SUBJECTS}
    oc = orc[confirmatory]
    b.update(
        "oracle",
        {
            "oracle_auroc_confirmatory": oc["auroc"],
            "oracle_n_rows_confirmatory": oc["n_rows"],
            "oracle_bin_acc_sd": oc["bin_acc_sd"],
            "oracle_bin_acc_range_min": oc["bin_acc_min"],
            "oracle_bin_acc_range_max": oc["bin_acc_max"],
            "r2_oracle_n_bins": oc["n_bins"],
            "oracle_auroc_subjects_min": min(o["auroc"] for o in orc.values()),
            "oracle_auroc_subjects_max": max(o["auroc"] for o in orc.values()),
        },
    )
    b.table(
        "oracle",
        pd.DataFrame(
            {"subject": list(orc)} | {k: [o[k] for o in orc.values()] for k in ("auroc", "n_rows", "bin_acc_sd")}
        ),
    )
    b.table("oracle_bin_acc", oc["bin_acc"].rename("accuracy").reset_index())


def glue_placebo(b: Builder, profiles: dict[str, pd.DataFrame]) -> None:
    """Record the placebo validation (part ``placebo``; table ``placebo``).

    Definition: per subject of :data:`selfconf.sections.ladder.SUBJECTS`, the correlation of its CORE and
    PLACEBO profiles (:func:`selfconf.sections.ladder.placebo_correlation`) glued under its short name
    (:data:`SHORT_NAMES`), with the mean of each profile in the table.

    References: Chernets (2026), Result 2 (placebo validation).

    >>> from selfconf.data.families import load_ladder
    >>> b, profiles = Builder(), load_ladder("data/reconstructed")[1]
    >>> glue_placebo(b, profiles)
    >>> list(b.build().part("placebo")) == [f"ladder_placebo_rho_{SHORT_NAMES[s]}" for s in ladder.SUBJECTS]
    True
    """
    prow: list[dict[str, Any]] = []
    for s in ladder.SUBJECTS:
        rho = ladder.placebo_correlation(profiles[s])
        b.add("placebo", f"ladder_placebo_rho_{SHORT_NAMES[s]}", rho)
        p = profiles[s]
        prow.append({"subject": s, "rho": rho, "mean_core": p["core"].mean(), "mean_placebo": p["placebo"].mean()})
    b.table("placebo", pd.DataFrame(prow))


def compute(
    frames: _PerSubject, profiles: _PerSubject, *, bound: float, n_rungs: int, seed: int, n_boot: int
) -> Computed:
    """Every value page 05 glues, from the ladder's scored rows and profiles.

    Parameters
    ----------
    frames, profiles : dict
        Per subject, the scored arms and the injected profiles (:func:`selfconf.data.families.load_ladder`).
    bound : float
        The degeneracy bound on OFF-arm accuracy (a quoted design constant).
    n_rungs : int
        The number of rungs of the design; the rows must hold exactly that many subjects.
    seed, n_boot : int
        Bootstrap seed and draws of the paired contrasts.

    Returns
    -------
    Computed
        Parts ``rungs``, ``battery``, ``table3``, ``power``, ``oracle``, ``placebo``; tables ``status``,
        ``demoted``, ``per_bin``, ``arm_table`` (indexed by arm), ``contrasts`` (indexed by contrast),
        ``oracle`` (one row per subject), ``oracle_bin_acc`` (confirmatory rung) and ``placebo``.

    References: the paper's Result 2 and Table 3; Holm (1979); the oracle and the placebo rule are documented in
    :mod:`selfconf.sections.ladder`.

    Examples
    --------
    >>> from selfconf.data import families
    >>> frames, profiles, _ = families.load_ladder("data/reconstructed")
    >>> res = compute(frames, profiles, bound=0.85, n_rungs=4, seed=1, n_boot=20)
    >>> res.values["ladder_n_eligible_rungs"]
    1
    """
    b = Builder()
    confirmatory = glue_rungs(b, frames, bound=bound, n_rungs=n_rungs)
    conf = frames[confirmatory]
    glue_battery(b, conf)
    pl = glue_table3(b, conf, seed=seed, n_boot=n_boot)
    glue_power(b, pl, n_boot=n_boot)
    glue_oracle(b, frames, confirmatory)
    glue_placebo(b, profiles)
    return b.build()
