"""Result 3 (page ``06_result3``): the self-image channel can be manipulated, computed from its rows in one call.

:func:`compute` runs the exploratory frontier rung of the ladder (CORE against SHUFFLED), the exploratory
CORE − SHUFFLED contrast on the confirmatory rung, the local microprobe (Table 4) and the topic-labelled pass,
returning every value the page glues (:class:`selfconf.sections.computed.Computed`).  The statistics are those
of :mod:`selfconf.sections.ladder` and :mod:`selfconf.sections.manipulation`, called with the same seeds in the
same order as the page always did.
"""

from __future__ import annotations

import pandas as pd

from selfconf.sections import ladder, manipulation
from selfconf.sections.computed import Builder, Computed

__all__ = ["EXAMPLE_CELLS", "SHORT_NAMES", "ci_zero_phrase", "compute", "microprobe_top_phrase"]

#: Short local-model names used in the glue keys.
SHORT_NAMES = {
    "glm4:9b": "glm4",
    "llama3.2:3b": "llama32",
    "mistral:7b": "mistral7b",
    "phi4-mini": "phi4mini",
    "qwen3:8b": "qwen3",
}
#: The (model, bin) cells of the topic-labelled pass the paper quotes, with the glue-key stem of each.
EXAMPLE_CELLS = {
    ("llama3.2:3b", "physics"): "topic_llama32_physics",
    ("phi4-mini", "logic"): "topic_phi4mini_logic",
    ("llama3.2:3b", "history"): "topic_llama32_history",
}


def microprobe_top_phrase(mp: pd.DataFrame) -> str:
    """Whether the model with the largest microprobe shift is also the one that started lowest under the low claim.

    Definition: with ``top`` the row of the largest ``delta`` (first on ties), the phrase says whether ``top``'s
    ``conf_at_0`` is the minimum over models (a fact of the rows), and gives the paper's own reading of the
    shift (the model with the most declarative calibration to lose) as the paper's, not as a cause the rows show.

    References: the paper's Table 4 (local microprobe).

    Examples
    --------
    >>> mp = pd.DataFrame({"model": ["a", "b"], "conf_at_0": [10, 50], "conf_at_95": [80, 60], "delta": [70, 10]})
    >>> microprobe_top_phrase(mp).split(" (")[0]
    'the model that started lowest under the low claim'
    """
    top = mp.loc[mp["delta"].idxmax()]
    paper = " (the paper: the model with the most declarative calibration to lose)"
    if int(top["conf_at_0"]) == int(mp["conf_at_0"].min()):
        return "the model that started lowest under the low claim" + paper
    return f"{top['model']}, which did not start lowest under the low claim" + paper


def ci_zero_phrase(includes_zero: pd.Series) -> str:
    """How many per-probe bootstrap intervals contain zero, in words.

    Examples
    --------
    >>> ci_zero_phrase(pd.Series([True, True])), ci_zero_phrase(pd.Series([True, False]))
    ('Every per-probe bootstrap interval', '1 of the 2 per-probe bootstrap intervals')
    """
    n = int(includes_zero.sum())
    return (
        "Every per-probe bootstrap interval"
        if n == len(includes_zero)
        else f"{n} of the {len(includes_zero)} per-probe bootstrap intervals"
    )


def glue_frontier_rung(
    b: Builder, frames: dict[str, pd.DataFrame], *, bound: float, seed: int, n_boot: int, frontier_subject: str
) -> pd.DataFrame:
    """Record the exploratory frontier rung, CORE against SHUFFLED (part and table ``frontier``).

    Definition: the degeneracy rule (:func:`selfconf.sections.ladder.rung_status` at ``bound``) must demote
    ``frontier_subject``; :func:`selfconf.sections.ladder.frontier_rung` gives each arm's AUROC and their
    difference with bootstrap intervals (``n_boot`` draws, ``seed``).  Some estimates are glued under two ids.

    Returns
    -------
    pandas.DataFrame
        The rung status (one row per subject).

    Raises
    ------
    ValueError
        When ``frontier_subject`` is not demoted in these rows.

    References: Chernets (2026), Result 3 (frontier rung).

    >>> from selfconf.data.families import load_ladder
    >>> b, frames = Builder(), load_ladder("data/reconstructed")[0]
    >>> st = glue_frontier_rung(b, frames, bound=0.85, seed=1, n_boot=20, frontier_subject=ladder.FRONTIER_RUNG)
    >>> list(b.tables["frontier"].index), int(st["demoted"].sum())
    (['core', 'shuffled', 'delta'], 3)
    """
    status = ladder.rung_status(frames, bound=bound)
    if not bool(status.set_index("subject").loc[frontier_subject, "demoted"]):
        raise ValueError(f"{frontier_subject} is not a demoted rung in these rows; the frontier rung must be one")
    b.add("frontier", "r3_frontier_rung_subject", frontier_subject, origin="rows")
    fr = ladder.frontier_rung(frames[frontier_subject], n_boot=n_boot, seed=seed)
    b.update(
        "frontier",
        {
            "expl_rung_core_auroc": fr["core"]["estimate"],
            "r3_expl_rung_core_auroc_b": fr["core"]["estimate"],
            "expl_rung_core_auroc_ci_lo": fr["core"]["low"],
            "expl_rung_core_auroc_ci_hi": fr["core"]["high"],
            "expl_rung_shuffled_auroc": fr["shuffled"]["estimate"],
            "r3_expl_rung_shuffled_auroc_b": fr["shuffled"]["estimate"],
            "expl_rung_shuffled_auroc_ci_lo": fr["shuffled"]["low"],
            "expl_rung_shuffled_auroc_ci_hi": fr["shuffled"]["high"],
            "expl_rung_core_minus_shuffled_delta": fr["delta"]["estimate"],
            "expl_rung_core_minus_shuffled_delta_ci_lo": fr["delta"]["low"],
            "expl_rung_core_minus_shuffled_delta_ci_hi": fr["delta"]["high"],
        },
    )
    b.add("frontier", "r3_frontier_n_core", fr["core"]["n"], origin="rows")
    b.add("frontier", "r3_frontier_n_shuffled", fr["shuffled"]["n"], origin="rows")
    parts = ("core", "shuffled", "delta")
    table = [{"part": p, "n": fr[p].get("n")} | {k: fr[p][k] for k in ("estimate", "low", "high")} for p in parts]
    b.table("frontier", pd.DataFrame(table).set_index("part"))
    return status


def glue_confirmatory_shuffled(b: Builder, conf: pd.DataFrame, *, seed: int, n_boot: int) -> None:
    """Record the exploratory CORE − SHUFFLED contrast on the confirmatory rung (part ``confirmatory``).

    Definition: the SHUFFLED, PLACEBO and CORE AUROCs of :func:`selfconf.sections.ladder.arm_table` and the
    paired bootstrap contrast CORE − SHUFFLED (:func:`selfconf.sections.ladder.paired_contrast`).

    References: Chernets (2026), Result 3.

    >>> from selfconf.data.families import load_ladder
    >>> b, frames = Builder(), load_ladder("data/reconstructed")[0]
    >>> glue_confirmatory_shuffled(b, frames["sonnet5"], seed=1, n_boot=20)
    >>> list(b.build().part("confirmatory"))[:3]
    ['r3_shuffled_auroc', 'r3_placebo_auroc', 'r3_core_auroc']
    """
    t3 = ladder.arm_table(conf).set_index("arm")
    b.update(
        "confirmatory",
        {
            "r3_shuffled_auroc": t3.loc["shuffled", "auroc"],
            "r3_placebo_auroc": t3.loc["placebo", "auroc"],
            "r3_core_auroc": t3.loc["core", "auroc"],
        },
    )
    pc = ladder.paired_contrast(conf, "shuffled", n_boot=n_boot, seed=seed)
    b.update(
        "confirmatory",
        {
            "ladder_shuffled_paired_delta": pc.estimate,
            "ladder_shuffled_paired_delta_ci_lo": pc.low,
            "ladder_shuffled_paired_delta_ci_hi": pc.high,
        },
    )


def glue_microprobe(b: Builder, microprobe: pd.DataFrame) -> None:
    """Record Table 4, the local microprobe (part and table ``microprobe``).

    Definition: :func:`selfconf.sections.manipulation.microprobe_table`; per model (short name
    :data:`SHORT_NAMES`) its confidence under the low and the high claim and the shift; the model with the
    largest shift (first on ties) and :func:`microprobe_top_phrase`.

    References: Chernets (2026), Table 4.

    >>> from selfconf.data.families import load_probes
    >>> b, probes = Builder(), load_probes("data/reconstructed")[0]
    >>> glue_microprobe(b, probes["microprobe"])
    >>> b.build()["r3_microprobe_up_to"] == int(b.tables["microprobe"]["delta"].max())
    True
    """
    mp = manipulation.microprobe_table(microprobe)
    for _, r in mp.iterrows():
        s = SHORT_NAMES[r["model"]]
        b.update(
            "microprobe",
            {
                f"t4_{s}_conf_at_0": int(r["conf_at_0"]),
                f"t4_{s}_conf_at_95": int(r["conf_at_95"]),
                f"t4_{s}_delta": int(r["delta"]),
            },
        )
    top = mp.loc[mp["delta"].idxmax()]
    b.add("microprobe", "r3_microprobe_top_model", top["model"], origin="rows")
    b.add("microprobe", "r3_microprobe_top_phrase", microprobe_top_phrase(mp), origin="rows")
    b.update(
        "microprobe",
        {
            "r3_microprobe_conf_before": int(top["conf_at_0"]),
            "r3_microprobe_conf_after": int(top["conf_at_95"]),
            "r3_microprobe_largest_shift": int(top["delta"]),
            "r3_microprobe_up_to": int(mp["delta"].max()),
        },
    )
    b.table("microprobe", mp)


def glue_topic(b: Builder, topic_probes: pd.DataFrame, *, seed: int, n_boot: int) -> None:
    """Record the topic-labelled pass (part and table ``topic``).

    Definition: :func:`selfconf.sections.manipulation.topic_summary` (per model the Brier change between the
    true and the false topic label, with a bootstrap interval); glued: four models' Brier changes, how many
    models consumed the label, the quoted accuracies and confidences, and whether every interval contains zero.

    References: Chernets (2026), Result 3 (topic-labelled pass).

    >>> from selfconf.data.families import load_probes
    >>> b, probes = Builder(), load_probes("data/reconstructed")[0]
    >>> glue_topic(b, probes["topic_probes"], seed=1, n_boot=20)
    >>> b.build()["topic_ci_zero_phrase"] == ci_zero_phrase(b.tables["topic"]["ci_includes_zero"])
    True
    """
    ts = manipulation.topic_summary(topic_probes, n_boot=n_boot, seed=seed).set_index("model")
    for m in ("glm4:9b", "llama3.2:3b", "mistral:7b", "phi4-mini"):
        b.add("topic", f"topic_{SHORT_NAMES[m]}_brier_delta", ts.loc[m, "brier_delta"])
    b.update(
        "topic",
        {
            "topic_n_models_consumed": int(ts["consumed"].sum()),
            "topic_llama32_acc_before": ts.loc["llama3.2:3b", "acc_true_pct"],
            "topic_llama32_acc_after": ts.loc["llama3.2:3b", "acc_false_pct"],
            "topic_qwen3_acc": ts.loc["qwen3:8b", "acc_true_pct"],
            "topic_qwen3_conf": ts.loc["qwen3:8b", "mean_conf_true"],
            "topic_qwen3_delta": ts.loc["qwen3:8b", "brier_delta"],
        },
    )
    b.add("topic", "topic_all_ci_include_zero", bool(ts["ci_includes_zero"].all()), origin="rows")
    b.add("topic", "topic_ci_zero_phrase", ci_zero_phrase(ts["ci_includes_zero"]), origin="rows")
    b.add("topic", "topic_qwen3_conf_false", ts.loc["qwen3:8b", "mean_conf_false"], origin="rows")
    b.add("topic", "topic_qwen3_acc_false", ts.loc["qwen3:8b", "acc_false_pct"], origin="rows")
    b.table("topic", ts)


def glue_examples(b: Builder, topic_probes: pd.DataFrame, topic_heldout: pd.DataFrame) -> None:
    """Record the directional examples of the topic pass (part and table ``examples``).

    Definition: :func:`selfconf.sections.manipulation.directional_examples`; for each cell of
    :data:`EXAMPLE_CELLS` the confidence under the true and the false label (and, but for phi4-mini's logic
    cell, the held-out accuracy); the table adds the shift and the change of the claimed topic per cell.

    References: Chernets (2026), Result 3 (directional examples).

    >>> from selfconf.data.families import load_probes
    >>> b, probes = Builder(), load_probes("data/reconstructed")[0]
    >>> glue_examples(b, probes["topic_probes"], probes["topic_heldout"])
    >>> len(b.build().part("examples")), {"shift", "claim change"} <= set(b.tables["examples"])
    (8, True)
    """
    ex = manipulation.directional_examples(topic_probes, topic_heldout).set_index(["model", "bin"])
    for cell, stem in EXAMPLE_CELLS.items():
        b.add("examples", f"{stem}_conf_before", ex.loc[cell, "conf_true"])
        b.add("examples", f"{stem}_conf_after", ex.loc[cell, "conf_false"])
        if stem != "topic_phi4mini_logic":
            b.add("examples", f"{stem}_heldout_acc", ex.loc[cell, "heldout_acc_pct"])
    cells = ex.reset_index()
    cells["shift"] = cells["conf_false"] - cells["conf_true"]
    cells["claim change"] = cells["claimed_false"] - cells["claimed_true"]
    b.table("examples", cells)


def compute(
    frames: dict[str, pd.DataFrame],
    probe_tables: dict[str, pd.DataFrame],
    *,
    bound: float,
    seed: int,
    n_boot: int,
    frontier_subject: str = ladder.FRONTIER_RUNG,
) -> Computed:
    """Every value page 06 glues, from the ladder's scored rows and the local probe tables.

    Parameters
    ----------
    frames : dict
        Per ladder subject, the scored arms (:func:`selfconf.data.families.load_ladder`).
    probe_tables : dict
        ``microprobe``, ``topic_probes`` and ``topic_heldout`` (:func:`selfconf.data.families.load_probes`).
    bound : float
        The degeneracy bound on OFF-arm accuracy (a quoted design constant); the frontier rung must be demoted.
    seed, n_boot : int
        Bootstrap seed and draws (frontier rung, paired contrast, topic pass).
    frontier_subject : str
        The demoted rung taken as the frontier rung (a recorded decision of the reconstruction).

    Returns
    -------
    Computed
        Parts ``frontier``, ``confirmatory``, ``microprobe``, ``topic``, ``examples``; tables ``frontier`` (one
        row per arm and the difference: ``n``, ``estimate``, ``low``, ``high``), ``microprobe``, ``topic``
        (indexed by model) and ``examples`` (one row per model × bin).

    References: the paper's Result 3 and Table 4; :func:`selfconf.sections.ladder.frontier_rung`,
    :func:`selfconf.sections.manipulation.topic_summary`.

    Examples
    --------
    >>> from selfconf.data import families
    >>> frames, _, _ = families.load_ladder("data/reconstructed")
    >>> probes, _ = families.load_probes("data/reconstructed")
    >>> compute(frames, probes, bound=0.85, seed=1, n_boot=20)["t4_glm4_delta"]
    45
    """
    b = Builder()
    status = glue_frontier_rung(b, frames, bound=bound, seed=seed, n_boot=n_boot, frontier_subject=frontier_subject)
    glue_confirmatory_shuffled(b, frames[status[~status["demoted"]]["subject"].iloc[0]], seed=seed, n_boot=n_boot)
    glue_microprobe(b, probe_tables["microprobe"])
    glue_topic(b, probe_tables["topic_probes"], seed=seed, n_boot=n_boot)
    glue_examples(b, probe_tables["topic_probes"], probe_tables["topic_heldout"])
    return b.build()
