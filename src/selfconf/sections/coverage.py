"""Page "Do the intervals cover?": a simulation study of the book's 95 % intervals on a process with a known truth.

The *process*: the shipped rows are taken as the population.  A replicate data set has the paper's size and is
drawn from it by items, with replacement (every row of a drawn item comes along, as many times as it was drawn):
the graded collection's frontier rows (all items of the battery) and the confirmatory ladder rung's scored rows
(all its non-trap items).  The *true value* of each quantity is the book's statistic on the population itself, the
value of the functional at the distribution the replicates are drawn from.  On each replicate the book's own
functions compute the estimate and the interval the book shows:

* ``table1_auroc`` - Table 1's per-model self-AUROC with its percentile row-bootstrap interval
  (:func:`selfconf.stats.summary.table1`, one generator per model);
* ``panel_delta`` - panel − self with its paired item-clustered interval (:func:`selfconf.panels.panel_analysis`,
  generator ``summary.model_rng(seed, "panel:<name>")`` as Result 1);
* ``ladder_contrast`` - the ladder's CORE − arm ΔAUROC on matched cells, item-clustered and paired
  (:func:`selfconf.sections.ladder.paired_contrast`, as Result 2's confirmatory family).

:func:`compute` reports, per quantity and per interval type, the empirical coverage with its Monte-Carlo SE, the
misses below and above the truth and the mean width (:func:`selfconf.stats.coverage.interval_coverage`).  A replicate's
data draw and its bootstrap seed come from their own named streams (:func:`selfconf.stats.streams.stream`), so a
replicate does not depend on how many others are run.

What it can and cannot say: it measures how these interval procedures behave for data drawn from a population with
the reconstruction's features (its discreteness, its item structure, the paper's sample sizes).  It is the
"bootstrap of the bootstrap" check of the procedure; it does not show how the intervals would behave on the paper's
own data, whose generating process nobody here knows.

References: Morris, White & Crowther (2019), simulation studies to evaluate statistical methods; Efron &
Tibshirani (1993), ch. 13 (percentile interval); Davison & Hinkley (1997), sec. 3.8 (cluster bootstrap).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from selfconf import panels
from selfconf.data import graded
from selfconf.metrics import from_percent
from selfconf.sections import ladder
from selfconf.sections.computed import Builder, Computed
from selfconf.stats import summary
from selfconf.stats.coverage import interval_coverage
from selfconf.stats.streams import stream

__all__ = [
    "INTERVAL_TYPES",
    "resample_clusters",
    "estimates",
    "replicate_seeds",
    "compute",
    "verdict",
    "type_sentence",
]

#: The interval types of the study: key -> (short label, how the book computes the interval).
INTERVAL_TYPES: dict[str, tuple[str, str]] = {
    "table1_auroc": ("Table 1 self-AUROC", "percentile row bootstrap per model (summary.table1)"),
    "panel_delta": ("panel − self", "paired item-clustered percentile bootstrap (panels.panel_analysis)"),
    "ladder_contrast": (
        "ladder CORE − arm ΔAUROC",
        "paired item-clustered percentile bootstrap on matched cells (ladder.paired_contrast)",
    ),
}

_COLLECTION_COLUMNS = ("model", "item_id", "parse_ok", "confidence", "correct", "refusal", "answer_class", "tier")

#: |z| beyond which a coverage is called below / above nominal (z against the SE at the nominal level).
Z_RULE = 2.0


def resample_clusters(frame: pd.DataFrame, column: str, draw: Any) -> pd.DataFrame:
    """The rows of the clusters ``draw`` indexes, in draw order; ``column`` is replaced by the draw position.

    Definition: the clusters are the distinct values of ``frame[column]`` in order of first appearance
    (``pandas.factorize``); ``draw`` holds cluster positions (with repeats).  Every row of cluster ``draw[k]`` is
    returned with ``column`` = k, so a cluster drawn twice is two distinct clusters of the new data set (the
    cluster bootstrap's convention).  The index is reset.

    References: Davison & Hinkley (1997), sec. 3.8 (resampling clusters).

    Examples
    --------
    >>> f = pd.DataFrame({"item": ["a", "a", "b", "c"], "x": [1, 2, 3, 4]})
    >>> resample_clusters(f, "item", [2, 0, 2]).to_dict("list")
    {'item': [0, 1, 1, 2], 'x': [4, 1, 2, 4]}
    """
    codes, uniques = pd.factorize(frame[column], sort=False)
    draw = np.asarray(draw, dtype=np.int64)
    if draw.size and (draw.min() < 0 or draw.max() >= len(uniques)):
        raise ValueError(f"resample_clusters: draw indexes {len(uniques)} clusters of {column!r}, got {draw.max()}")
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=len(uniques))
    starts = np.cumsum(sizes) - sizes
    lens = sizes[draw]
    total = int(lens.sum())
    offset = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
    pos = order[np.repeat(starts[draw], lens) + offset]
    out = frame.iloc[pos].reset_index(drop=True)
    out[column] = np.repeat(np.arange(draw.size), lens)
    return out


def estimates(
    collection: pd.DataFrame,
    rung: pd.DataFrame,
    *,
    seed: int,
    n_boot: int,
    level: float = 0.95,
    panel_members: Mapping[str, Sequence[str]] | None = None,
    arms: Sequence[str] = ladder.CONFIRMATORY_FAMILY,
) -> pd.DataFrame:
    """Every quantity of the study on one data set: its estimate and the book's interval, by the book's functions.

    Definition: ``table1_auroc`` per model of ``collection``'s graded rows (:func:`selfconf.stats.summary.table1`
    with ``rng=seed``, so each model draws from ``model_rng(seed, model)``); ``panel_delta`` per panel
    (:func:`selfconf.panels.panel_analysis` with ``rng=summary.model_rng(seed, "panel:<name>")``, Result 1's rule);
    ``ladder_contrast`` per arm of ``arms`` (:func:`selfconf.sections.ladder.paired_contrast`, CORE − arm, stream
    ``paired:core-<arm>`` of ``seed``, Result 2's rule).  With the page's seed and draws these are the values and
    intervals of Result 1 and Result 2.

    Returns a DataFrame with columns ``type``, ``quantity``, ``estimate``, ``low``, ``high``.

    References: Chernets (2026), Table 1, Result 1 (panels) and Result 2 (confirmatory family); Efron & Tibshirani
    (1993), ch. 13.

    Examples
    --------
    >>> from selfconf import data
    >>> from selfconf.data import families
    >>> from selfconf.data.sources import resolve_families
    >>> rows = data.load_collection(resolve_families("data/reconstructed", ["collection"]).path("collection"))[0]
    >>> rung = families.load_ladder("data/reconstructed")[0]["sonnet5"]
    >>> e = estimates(rows[rows["tier"] == "frontier"], rung, seed=1, n_boot=100)  # Table 1's models
    >>> e.groupby("type", sort=False).size().to_dict()
    {'table1_auroc': 9, 'panel_delta': 3, 'ladder_contrast': 2}
    >>> bool(((e["low"] <= e["estimate"]) & (e["estimate"] <= e["high"])).all())
    True
    """
    members = dict(panels.PANELS if panel_members is None else panel_members)
    recs: list[dict[str, Any]] = []
    g = graded(collection)
    t1 = summary.table1(
        g.assign(confidence=from_percent(g["confidence"].to_numpy())), rng=seed, n_boot=n_boot, level=level
    )
    for r in t1.itertuples():
        recs.append(
            {
                "type": "table1_auroc",
                "quantity": str(r.model),
                "estimate": r.auroc,
                "low": r.auroc_ci_low,
                "high": r.auroc_ci_high,
            }
        )
    for name, mem in members.items():
        res = panels.panel_analysis(collection, tuple(mem), n_boot=n_boot, rng=summary.model_rng(seed, f"panel:{name}"))
        lo, hi = res["delta_ci"]
        recs.append(
            {"type": "panel_delta", "quantity": name, "estimate": res["delta_panel_minus_self"], "low": lo, "high": hi}
        )
    for arm in arms:
        pc = ladder.paired_contrast(rung, arm, n_boot, seed, level=level)
        recs.append(
            {
                "type": "ladder_contrast",
                "quantity": f"core-{arm}",
                "estimate": pc.estimate,
                "low": pc.low,
                "high": pc.high,
            }
        )
    return pd.DataFrame.from_records(recs, columns=["type", "quantity", "estimate", "low", "high"])


def replicate_seeds(seed: int, rep: int) -> tuple[np.random.Generator, int]:
    """Replicate ``rep``'s data generator and bootstrap seed, each from its own named stream of ``seed``.

    Definition: data ``stream(seed, "coverage", "data", str(rep))``; bootstrap seed = the first draw of
    ``stream(seed, "coverage", "bootstrap", str(rep))`` in [0, 2**63).  Replicate r is the same whatever the
    number of replicates run.

    Reference: NumPy, ``numpy.random.SeedSequence`` (through :func:`selfconf.stats.streams.stream`).

    >>> g1, s1 = replicate_seeds(5, 3)
    >>> g2, s2 = replicate_seeds(5, 3)
    >>> s1 == s2, bool(g1.integers(0, 10**9) == g2.integers(0, 10**9)), s1 == replicate_seeds(5, 4)[1]
    (True, True, False)
    """
    data_rng = stream(seed, "coverage", "data", str(rep))
    boot_seed = int(stream(seed, "coverage", "bootstrap", str(rep)).integers(0, 2**63))
    return data_rng, boot_seed


def verdict(z: float, rule: float = Z_RULE) -> str:
    """Coverage judged against nominal by its z (SE at the nominal level): below / above nominal or consistent.

    Definition: ``z`` = (coverage - nominal) / sqrt(nominal (1 - nominal) / R) (``interval_coverage``'s ``z``);
    below nominal when z < -``rule``, above when z > ``rule``.  Reference: Morris, White & Crowther (2019), sec. 5.2
    (Monte-Carlo SE of coverage).

    >>> verdict(-2.5), verdict(0.3), verdict(2.1)
    ('below nominal', 'consistent with nominal', 'above nominal')
    """
    if z < -rule:
        return "below nominal"
    if z > rule:
        return "above nominal"
    return "consistent with nominal"


def _pooled(covered: np.ndarray, nominal: float) -> dict[str, float]:
    """Coverage pooled over the quantities of one type; the MC SE is clustered by replicate (R x Q matrix)."""
    share = covered.mean(axis=1)  # per replicate: share of the type's quantities covered
    r = share.size
    c = float(share.mean())
    se = float(share.std(ddof=1) / np.sqrt(r)) if r > 1 else float("nan")
    return {"coverage": c, "mc_se": se, "n_reps": r, "n_quantities": covered.shape[1], "nominal": nominal}


def type_sentence(kind: str, pooled: Mapping[str, Any], per: pd.DataFrame) -> str:
    """One sentence on an interval type: pooled coverage with its MC SE, and the quantities off nominal.

    ``per`` holds the type's rows of the per-quantity table (columns ``quantity``, ``coverage``, ``mc_se``,
    ``miss_below``, ``miss_above``, ``verdict``).  Numbers are formatted here from the records.  Reference: the
    measures of Morris, White & Crowther (2019).

    >>> per = pd.DataFrame({"quantity": ["a", "b"], "coverage": [0.95, 0.90], "mc_se": [0.01, 0.02],
    ...                     "miss_below": [0.02, 0.09], "miss_above": [0.03, 0.01],
    ...                     "verdict": ["consistent with nominal", "below nominal"]})
    >>> type_sentence("panel_delta", {"coverage": 0.925, "mc_se": 0.011, "n_reps": 200, "n_quantities": 2,
    ...                               "nominal": 0.95}, per)[:92]
    'panel − self: 92.5 % of 2 × 200 intervals cover their true value (replicate-clustered MC SE '
    """
    label = INTERVAL_TYPES[kind][0]
    text = (
        f"{label}: {100 * pooled['coverage']:.1f} % of {pooled['n_quantities']} × {pooled['n_reps']} intervals "
        f"cover their true value (replicate-clustered MC SE {100 * pooled['mc_se']:.1f} pp; nominal "
        f"{100 * pooled['nominal']:.0f} %)."
    )
    below = per[per["verdict"] == "below nominal"]
    above = per[per["verdict"] == "above nominal"]
    if below.empty and above.empty:
        text += f" Every one of the {len(per)} is within {Z_RULE:g} SE of nominal."
    for part, word in ((below, "Below"), (above, "Above")):
        if not part.empty:
            items = ", ".join(
                f"{q} {100 * c:.1f} % (SE {100 * s:.1f} pp; misses {100 * b:.1f} % below, {100 * a:.1f} % above)"
                for q, c, s, b, a in part[["quantity", "coverage", "mc_se", "miss_below", "miss_above"]].to_numpy()
            )
            text += f" {word} nominal by more than {Z_RULE:g} SE: {items}."
    return text


def population(
    rows: pd.DataFrame, frames: Mapping[str, pd.DataFrame], *, bound: float = ladder.DEGENERACY_BOUND
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """The study's population: the collection's frontier rows and the confirmatory rung's scored rows.

    Definition: the frontier tier of ``rows`` with only the columns the book's functions read (faster draws);
    the confirmatory rung is the one subject the degeneracy rule (:func:`selfconf.sections.ladder.rung_status`
    at ``bound``) does not demote, and its rows are :func:`selfconf.sections.ladder.scored_rows`.

    Returns
    -------
    (population rows, rung rows, rung subject)

    Raises
    ------
    ValueError
        When the eligible rungs are not exactly one.

    References: Morris, White & Crowther (2019), the data-generating mechanism of a simulation study.

    Examples
    --------
    >>> from selfconf import data
    >>> from selfconf.data import families
    >>> rows = data.load_collection("data/reconstructed")[0]
    >>> pop, rung, subject = population(rows, families.load_ladder("data/reconstructed")[0], bound=0.85)
    >>> subject, sorted(pop["tier"].unique()), bool(rung["is_trap"].any())
    ('sonnet5', ['frontier'], False)
    """
    cols = [c for c in _COLLECTION_COLUMNS if c in rows.columns]
    pop = rows.loc[rows["tier"] == "frontier", cols].reset_index(drop=True)
    status = ladder.rung_status(dict(frames), bound=bound)
    eligible = status[~status["demoted"]]
    if len(eligible) != 1:
        raise ValueError(f"{len(eligible)} confirmatory-eligible rungs; the study expects exactly one")
    subject = str(eligible["subject"].iloc[0])
    return pop, ladder.scored_rows(frames[subject]).reset_index(drop=True), subject


def replicates(
    pop: pd.DataFrame,
    rung: pd.DataFrame,
    *,
    seed: int,
    n_reps: int,
    n_boot: int,
    level: float = 0.95,
    panel_members: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Every replicate's estimates and intervals: :func:`estimates` on item-resampled copies of the population.

    Definition: replicate r draws as many items as each population holds, with replacement, from its data
    stream (:func:`replicate_seeds`), the collection first and the rung second (:func:`resample_clusters`), and
    computes :func:`estimates` with its own bootstrap seed and ``n_boot`` draws.

    Returns the frames of :func:`estimates` stacked, with a first column ``replicate``.

    References: Morris, White & Crowther (2019); Davison & Hinkley (1997), sec. 3.8.

    >>> from selfconf.data import families, load_collection
    >>> frames = families.load_ladder("data/reconstructed")[0]
    >>> pop, rung, _ = population(load_collection("data/reconstructed")[0], frames, bound=0.85)
    >>> rep = replicates(pop, rung, seed=1, n_reps=2, n_boot=50)
    >>> rep.groupby("replicate").size().tolist()
    [14, 14]
    """
    n_items, n_rung_items = int(pop["item_id"].nunique()), int(rung["item_id"].nunique())
    reps = []
    for r in range(n_reps):
        data_rng, boot_seed = replicate_seeds(seed, r)
        coll = resample_clusters(pop, "item_id", data_rng.integers(0, n_items, n_items))
        lad = resample_clusters(rung, "item_id", data_rng.integers(0, n_rung_items, n_rung_items))
        e = estimates(coll, lad, seed=boot_seed, n_boot=n_boot, level=level, panel_members=panel_members)
        e.insert(0, "replicate", r)
        reps.append(e)
    return pd.concat(reps, ignore_index=True)


def coverage_tables(
    truth: pd.DataFrame, rep: pd.DataFrame, *, level: float = 0.95
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, dict[str, float]]]:
    """Coverage per quantity and pooled per interval type, from the truth and the replicates.

    Definition: per quantity, :func:`selfconf.stats.coverage.interval_coverage` of its replicates' intervals
    around its true value, with :func:`verdict`; per type, the share of its quantities covered in each replicate,
    averaged, with a Monte-Carlo SE clustered by replicate (types of :data:`INTERVAL_TYPES` in their order; a
    type with no quantity in ``truth`` has no pooled entry).

    Returns
    -------
    (per-quantity table, replicates with ``truth`` and ``covered``, {type: pooled coverage})

    References: Morris, White & Crowther (2019), sec. 5.2.

    Examples
    --------
    >>> truth = pd.DataFrame({"type": ["panel_delta"], "quantity": ["US"], "estimate": [0.0]})
    >>> rep = pd.DataFrame({"replicate": [0, 1, 2], "type": "panel_delta", "quantity": "US",
    ...                     "estimate": [0.1, -0.1, 0.2], "low": [-0.1, -0.2, 0.1], "high": [0.2, 0.1, 0.3]})
    >>> per_q, rep2, pooled = coverage_tables(truth, rep)
    >>> rep2["covered"].tolist(), round(pooled["panel_delta"]["coverage"], 3)
    ([True, True, False], 0.667)
    """
    per = []
    for t in truth.itertuples():
        sel = rep[(rep["type"] == t.type) & (rep["quantity"] == t.quantity)]
        cov = interval_coverage(t.estimate, sel["low"], sel["high"], sel["estimate"], level=level)
        per.append({"type": t.type, "quantity": t.quantity, "truth": t.estimate, **cov, "verdict": verdict(cov["z"])})
    per_q = pd.DataFrame(per)
    rep = rep.merge(
        truth[["type", "quantity", "estimate"]].rename(columns={"estimate": "truth"}), on=["type", "quantity"]
    )
    rep["covered"] = (rep["low"] <= rep["truth"]) & (rep["high"] >= rep["truth"])
    pooled = {}
    for kind in (k for k in INTERVAL_TYPES if k in set(truth["type"])):
        sel = rep[rep["type"] == kind]
        mat = sel.pivot(index="replicate", columns="quantity", values="covered").to_numpy(dtype=float)
        pooled[kind] = _pooled(mat, level)
    return per_q, rep, pooled


def glue_coverage(b: Builder, per_q: pd.DataFrame, pooled: Mapping[str, Mapping[str, Any]]) -> None:
    """Record the study's results (part ``coverage``).

    Definition: per interval type its pooled coverage and MC SE (percent, points) and :func:`type_sentence`;
    how many quantities are below and above nominal (:func:`verdict`); the smallest and largest coverage.

    References: Morris, White & Crowther (2019).

    Examples
    --------
    >>> per_q = pd.DataFrame({"type": "panel_delta", "quantity": ["US", "CN"], "coverage": [0.9, 0.97],
    ...                       "mc_se": [0.01, 0.01], "miss_below": [0.05, 0.0], "miss_above": [0.05, 0.03],
    ...                       "verdict": ["below nominal", "consistent with nominal"]})
    >>> pooled = {"panel_delta": {"coverage": 0.935, "mc_se": 0.01, "n_reps": 100, "n_quantities": 2,
    ...                           "nominal": 0.95}}
    >>> b = Builder()
    >>> glue_coverage(b, per_q, pooled)
    >>> b.build()["coverage_n_below"], b.build()["coverage_max_pct"]
    (1, 97.0)
    """
    for kind, p in pooled.items():
        b.add("coverage", f"coverage_{kind}_pct", 100 * p["coverage"], origin="rows")
        b.add("coverage", f"coverage_{kind}_mc_se_pp", 100 * p["mc_se"], origin="rows")
        b.add("coverage", f"coverage_{kind}_sentence", type_sentence(kind, p, per_q[per_q["type"] == kind]), "rows")
    b.add("coverage", "coverage_n_below", int((per_q["verdict"] == "below nominal").sum()), origin="rows")
    b.add("coverage", "coverage_n_above", int((per_q["verdict"] == "above nominal").sum()), origin="rows")
    b.add("coverage", "coverage_min_pct", 100 * float(per_q["coverage"].min()), origin="rows")
    b.add("coverage", "coverage_max_pct", 100 * float(per_q["coverage"].max()), origin="rows")


def compute(
    rows: pd.DataFrame,
    frames: Mapping[str, pd.DataFrame],
    *,
    seed: int,
    n_boot: int,
    n_reps: int,
    study_n_boot: int,
    bound: float = ladder.DEGENERACY_BOUND,
    level: float = 0.95,
    panel_members: Mapping[str, Sequence[str]] | None = None,
) -> Computed:
    """The coverage study (module docstring): every value the page glues and its tables.

    Steps: :func:`population`, :func:`estimates` (the truth), :func:`replicates`, :func:`coverage_tables`,
    :func:`glue_coverage` (over 80 lines through this docstring only).

    Parameters
    ----------
    rows : the graded collection as read by :func:`selfconf.data.load_collection` (the frontier tier is used)
    frames : per ladder subject, its scored arms (:func:`selfconf.data.families.load_ladder`); the confirmatory
        rung is chosen by the degeneracy rule (:func:`selfconf.sections.ladder.rung_status` with ``bound``)
    seed : page seed (the population's intervals; replicate streams, :func:`replicate_seeds`)
    n_boot : draws of the population's intervals (the book's interval on the shipped rows)
    n_reps, study_n_boot : replicates of the study and bootstrap draws of each replicate's intervals
    level : nominal level of the intervals

    Returns
    -------
    Computed
        Parts ``parameters``, ``population`` and ``coverage``; tables ``population`` (the truth and the book's
        interval on the shipped rows, per quantity), ``per_quantity`` (:func:`selfconf.stats.coverage.interval_coverage`
        per quantity, with ``type``, ``quantity``, ``truth`` and ``verdict``), ``per_type`` (pooled per type) and
        ``replicates`` (every replicate's estimate and interval).

    References: Morris, White & Crowther (2019); Efron & Tibshirani (1993), ch. 13.

    >>> from selfconf.data import families, load_collection
    >>> rows, frames = load_collection("data/reconstructed")[0], families.load_ladder("data/reconstructed")[0]
    >>> res = compute(rows, frames, seed=1, n_boot=100, n_reps=2, study_n_boot=100)
    >>> res.tables["per_type"]["n_quantities"].tolist()
    [9, 3, 2]
    """
    if n_reps < 2:
        raise ValueError(f"n_reps must be at least 2 (an MC SE needs two replicates), got {n_reps}")
    pop, rung, subject = population(rows, frames, bound=bound)
    truth = estimates(pop, rung, seed=seed, n_boot=n_boot, level=level, panel_members=panel_members)
    rep = replicates(pop, rung, seed=seed, n_reps=n_reps, n_boot=study_n_boot, level=level, panel_members=panel_members)
    per_q, rep, pooled = coverage_tables(truth, rep, level=level)
    per_type = pd.DataFrame([{"type": k, "label": INTERVAL_TYPES[k][0], **v} for k, v in pooled.items()])
    b = Builder()
    b.update(
        "parameters",
        {
            "coverage_n_reps": n_reps,
            "coverage_study_n_boot": study_n_boot,
            "coverage_n_boot": n_boot,
            "coverage_n_quantities": len(per_q),
            "coverage_n_types": len(INTERVAL_TYPES),
            "coverage_z_rule": Z_RULE,
        },
        origin="parameter",
    )
    # what the rule and the replicates imply at the nominal level: two SE, and the flags expected by chance
    b.add("parameters", "coverage_two_se_nominal_pp", 200 * math.sqrt(level * (1 - level) / n_reps), "parameter")
    b.add("parameters", "coverage_expected_flags", len(per_q) * 2 * float(norm.sf(Z_RULE)), "parameter")
    b.update(
        "population",
        {
            "coverage_n_items": int(pop["item_id"].nunique()),
            "coverage_n_rung_items": int(rung["item_id"].nunique()),
            "coverage_rung": subject,
            "coverage_n_models": int((truth["type"] == "table1_auroc").sum()),
        },
        origin="rows",
    )
    glue_coverage(b, per_q, pooled)
    return b.build(
        tables={"population": truth, "per_quantity": per_q, "per_type": per_type, "replicates": rep},
        facts={"subject": subject},
    )
