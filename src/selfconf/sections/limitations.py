"""Limitations (page ``08_limitations``): the numbers of the limitation arms that have rows, in one call.

:func:`compute` recomputes the scope of the headline (models per provider), the two-stage elicitation arm
(per-model AUROC and the paired post-hoc − inline contrast), the size of the ladder behind Result 2's null and the
cross-family regrade of the grader's own answers, returning every value the page glues
(:class:`selfconf.sections.computed.Computed`).  The statistics are those of :mod:`selfconf.sections.ladder` and
:mod:`selfconf.sections.manipulation`, called with the same seed as the page always did.
"""

from __future__ import annotations

import pandas as pd

from selfconf.sections import ladder, manipulation
from selfconf.sections.computed import Builder, Computed

__all__ = ["compute", "selfrows_reading"]


def selfrows_reading(
    n_self: int, acc_before_pct: float, acc_after_pct: float, net_down: int, decimals: int = 1
) -> str | None:
    """Whether two printed accuracies could both be over the ``n_self`` self-graded rows alone.

    Definition: find every correct count ``k`` in ``0..n_self`` whose percentage prints as ``acc_before_pct``
    (at ``decimals`` decimals); apply the net down-flips (``k - net_down``) and collect how the "after" accuracy
    would print.  Returns ``None`` when the printed "after" value is among them (both readings possible), else a
    sentence saying why it cannot be.

    References: the paper's cross-family regrade (Limitations, Grading); the printed-token arithmetic is the
    same as the consistency checks' (:mod:`selfconf.claims.consistency`).

    Examples
    --------
    >>> selfrows_reading(10, 50.0, 40.0, 1) is None
    True
    >>> selfrows_reading(10, 50.0, 30.0, 1)
    '50.0% of them forces 5 correct, and 1 net down-flips leave 4, which prints 40.0%, not 30.0%'
    """
    before_txt, after_txt = format(acc_before_pct, f".{decimals}f"), format(acc_after_pct, f".{decimals}f")
    k_fit = [k for k in range(n_self + 1) if format(100 * k / n_self, f".{decimals}f") == before_txt]
    after_fit = sorted({format(100 * (k - net_down) / n_self, f".{decimals}f") for k in k_fit})
    if not k_fit:
        return f"no number of correct rows prints {before_txt}% on them"
    if after_txt in after_fit:
        return None
    ks = " or ".join(str(k) for k in k_fit)
    lefts = " or ".join(str(k - net_down) for k in k_fit)
    return (
        f"{before_txt}% of them forces {ks} correct, and {net_down} net down-flips leave {lefts}, "
        f"which prints {' or '.join(a + '%' for a in after_fit)}, not {after_txt}%"
    )


def glue_twostage(b: Builder, twostage: pd.DataFrame, *, seed: int, n_boot: int) -> None:
    """Record the two-stage elicitation arm (part ``twostage``; table ``twostage_auroc``).

    Definition: items, models and unresolved labels of the arm's rows; per model and format the self-AUROC
    (:func:`selfconf.sections.manipulation.twostage_auroc`), its range and the range over models of the fewest
    labelled rows; the paired post-hoc − inline contrast with its bootstrap interval
    (:func:`selfconf.sections.manipulation.twostage_contrast`, ``n_boot`` draws, ``seed``); the mean stated
    confidence of each format.

    References: Chernets (2026), Limitations (elicitation format).

    >>> from selfconf.data.families import load_twostage
    >>> b, tsd = Builder(), load_twostage("data/reconstructed")[0]
    >>> glue_twostage(b, tsd, seed=1, n_boot=20)
    >>> b.build()["twostage_n_models_rows"] == tsd["model"].nunique(), len(b.build().part("twostage"))
    (True, 13)
    """
    b.add("twostage", "twostage_n_items_rows", int(twostage["item_id"].nunique()), origin="rows")
    b.add("twostage", "twostage_n_models_rows", int(twostage["model"].nunique()), origin="rows")
    au = manipulation.twostage_auroc(twostage)
    b.add("twostage", "twostage_n_unresolved", int((twostage["label"] == "unresolved").sum()), origin="rows")
    tc = manipulation.twostage_contrast(twostage, n_boot=n_boot, seed=seed)
    fewest = au.groupby("model")["n_labelled"].min()
    b.update(
        "twostage",
        {
            "twostage_self_auroc_min": au["auroc"].min(),
            "twostage_self_auroc_max": au["auroc"].max(),
            "twostage_rows_per_model_min": int(fewest.min()),
            "twostage_rows_per_model_max": int(fewest.max()),
            "twostage_delta_auroc": tc["estimate"],
            "twostage_delta_auroc_ci_lo": tc["low"],
            "twostage_delta_auroc_ci_hi": tc["high"],
            "twostage_n_pairs": tc["n_pairs"],
        },
    )
    for fmt in ("inline", "posthoc"):
        mean_conf = float(au.loc[au["format"] == fmt, "mean_conf"].mean())
        b.add("twostage", f"twostage_mean_conf_{fmt}", mean_conf, origin="rows")
    b.table("twostage_auroc", au)


#: Glue key of each field of :func:`selfconf.sections.manipulation.regrade_summary` glued with origin "rows".
_REGRADE_ROWS = {
    "regrade_n_graded": "n_graded",
    "regrade_n_other_routes": "n_other_routes",
    "regrade_correct_before": "correct_before",
    "regrade_correct_after": "correct_after",
    "regrade_acc_before_selfrows": "acc_before_selfrows_pct",
    "regrade_acc_after_selfrows": "acc_after_selfrows_pct",
}


def glue_regrade(b: Builder, regrade: pd.DataFrame) -> None:
    """Record the cross-family regrade (part ``regrade``; table ``regrade``).

    Definition: :func:`selfconf.sections.manipulation.regrade_summary` (rows, agreement, flips, accuracy before
    and after); then whether the whole-set accuracies, read at one decimal, could instead be over the
    self-graded rows alone (:func:`selfrows_reading` with the net down-flips), as a sentence and a verdict.

    References: Chernets (2026), Limitations (grading).

    >>> from selfconf.data.families import load_regrade
    >>> b, regrade = Builder(), load_regrade("data/reconstructed")[0]
    >>> glue_regrade(b, regrade)
    >>> b.build()["regrade_selfrows_verdict"] in ("It cannot be", "It could also be")
    True
    """
    rg = manipulation.regrade_summary(regrade)
    b.add("regrade", "regrade_n_rows_computed", rg["n_self_graded"], origin="rows")
    for key, name in _REGRADE_ROWS.items():
        b.add("regrade", key, rg[name], origin="rows")
    b.update(
        "regrade",
        {
            "regrade_agreement_pct": rg["agreement_pct"],
            "regrade_down_flips": rg["down_flips"],
            "regrade_up_flips": rg["up_flips"],
            "regrade_acc_before": rg["acc_before_pct"],
            "regrade_acc_after": rg["acc_after_pct"],
        },
    )
    before_txt, after_txt = f"{rg['acc_before_pct']:.1f}", f"{rg['acc_after_pct']:.1f}"
    reading = selfrows_reading(
        rg["n_self_graded"], rg["acc_before_pct"], rg["acc_after_pct"], rg["down_flips"] - rg["up_flips"]
    )
    b.add(
        "regrade",
        "regrade_selfrows_reading",
        reading or f"{before_txt}% and {after_txt}% are both reachable there too",
        origin="rows",
    )
    b.add("regrade", "regrade_selfrows_verdict", "It cannot be" if reading else "It could also be", origin="rows")
    b.table("regrade", pd.DataFrame([rg]))


def compute(
    collection: pd.DataFrame,
    twostage: pd.DataFrame,
    frames: dict[str, pd.DataFrame],
    regrade: pd.DataFrame,
    *,
    bound: float,
    seed: int,
    n_boot: int,
) -> Computed:
    """Every value page 08 computes from rows.

    Parameters
    ----------
    collection : DataFrame
        The collection's rows (:func:`selfconf.data.load_collection`).
    twostage : DataFrame
        The two-stage arm's rows (:func:`selfconf.data.families.load_twostage`).
    frames : dict
        Per ladder subject, the scored arms (:func:`selfconf.data.families.load_ladder`).
    regrade : DataFrame
        The cross-family regrade rows (:func:`selfconf.data.families.load_regrade`).
    bound : float
        The ladder's degeneracy bound (a quoted design constant).
    seed, n_boot : int
        Bootstrap seed and draws of the two-stage paired contrast.

    Returns
    -------
    Computed
        Parts ``scope``, ``twostage``, ``ladder``, ``regrade``; tables ``twostage_auroc`` (one row per model ×
        format) and ``regrade`` (a one-row frame of :func:`selfconf.sections.manipulation.regrade_summary`).

    References: the paper's Limitations section; :func:`selfconf.sections.manipulation.twostage_contrast`.

    Examples
    --------
    >>> from selfconf.data import families, load_collection
    >>> rows, _ = load_collection("data/reconstructed")
    >>> twostage, _ = families.load_twostage("data/reconstructed")
    >>> frames, _, _ = families.load_ladder("data/reconstructed")
    >>> regrade, _ = families.load_regrade("data/reconstructed")
    >>> res = compute(rows, twostage, frames, regrade, bound=0.85, seed=1, n_boot=20)
    >>> res["lim_models_per_provider"]
    1
    """
    b = Builder()
    frontier = collection[collection["tier"] == "frontier"][["model", "model_id"]].drop_duplicates()
    b.add("scope", "lim_models_per_provider", int(frontier.groupby("model")["model_id"].nunique().max()))
    glue_twostage(b, twostage, seed=seed, n_boot=n_boot)
    status = ladder.rung_status(frames, bound=bound)
    anyf = next(iter(frames.values()))
    b.update(
        "ladder",
        {
            "lim_ladder_n_confirmatory_rungs": int((~status["demoted"]).sum()),
            "lim_ladder_n_items": int(anyf["item_id"].nunique()),
            "lim_ladder_n_bins": int(anyf["bin"].nunique()),
        },
    )
    glue_regrade(b, regrade)
    return b.build()
