"""Experiment design and data: every count the design page glues, computed from the rows.

This module holds what ``notebooks/03_design.py`` computes, so that tests can call it without papermill:

* :func:`load` - the collection rows, their exclusion report and the benchmark-age rows of a data directory;
* :func:`roster` - who answered, how many rows each model has, how many were graded (the roster claims);
* :func:`exclusions` - the local model with the most parse failures (the *reasoning* model);
* :func:`routes` - calls per model and route, and the moonshot first-party count;
* :func:`accuracy_gap_pp` and :func:`benchmark_age` - the exploratory benchmark-age comparison;
* :func:`compute` - all of them at once, as a :class:`DesignResult`.

Definitions
-----------
* **Roster**: the distinct ``(tier, model, model_id)`` triples of the rows.  The *frontier* tier holds the API
  models, the *local* tier the open-weights models.
* **Graded**: rows whose answer and confidence parsed (``parse_ok == 1``, :func:`selfconf.data.graded`);
  parse failures are the only exclusions.
* **Benchmark-age gap**: per model, accuracy on the older benchmark (TruthfulQA MC) minus accuracy on the
  model's graded SimpleQA rows, in percentage points.  Interval: unpaired percentile bootstrap, the rows of the
  two benchmarks resampled independently (stratified by benchmark), ``n_boot`` draws from the generator
  ``selfconf.stats.summary.model_rng(seed, model)``.

Nothing here reads ``data/paper/claims.yaml``; the interval level is a parameter (the page passes the quoted
``ci_level_pct``).

References
----------
Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap, chapter 13 (percentile intervals) and
section 8.3 (two-sample problems: resampling each sample independently).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from selfconf import bootstrap
from selfconf.data.collection import (
    ExclusionReport,
    graded,
    load_benchmark_age,
    load_collection,
)
from selfconf.data.sources import resolve_families
from selfconf.sections.computed import Builder, Computed
from selfconf.stats.summary import model_rng

__all__ = [
    "FAMILIES",
    "DesignResult",
    "accuracy_gap_pp",
    "benchmark_age",
    "compute",
    "exclusions",
    "load",
    "roster",
    "routes",
]

#: The data families the design page reads.
FAMILIES = ("collection", "benchmark_age")


#: The result of :func:`compute` (a :class:`selfconf.sections.computed.Computed`): ``values`` and
#: ``origins`` of every glue key, ``parts`` ``roster``, ``exclusions``, ``routes`` and ``benchmark_age``, the
#: frames the page renders in ``tables`` and ``facts`` (``same_items``, ``n_items``, ``ids_per_provider``).
DesignResult = Computed


def load(data_dir: str | Path = "data/reconstructed") -> tuple[pd.DataFrame, ExclusionReport, pd.DataFrame]:
    """The inputs of :func:`compute` for a data directory: ``(rows, exclusion report, benchmark-age rows)``.

    Each family comes from ``data_dir`` if it is there, else from the shipped reconstruction
    (:func:`selfconf.data.sources.resolve_families`), exactly as the design page resolves them.

    Examples
    --------
    >>> rows, excl, bench = load("data/reconstructed")
    >>> sorted(bench.columns)
    ['benchmark', 'correct', 'item_id', 'model']
    """
    sources = resolve_families(data_dir, list(FAMILIES))
    rows, excl = load_collection(sources.path("collection"))
    return rows, excl, load_benchmark_age(sources.path("benchmark_age"))


def roster(rows: pd.DataFrame, excl: ExclusionReport) -> dict[str, Any]:
    """Who answered: the roster, its size per tier, and rows and graded answers per model.

    Definition: the roster is the distinct ``(tier, model, model_id)`` of ``rows``; ``design_n_models`` counts
    distinct models, ``design_n_providers`` the distinct frontier models (one per provider),
    ``design_models_per_provider`` the largest number of model ids of one frontier provider,
    ``design_n_items`` the distinct item ids, and ``design_n_graded_*`` the graded rows (all, per tier).

    Parameters
    ----------
    rows : pandas.DataFrame
        The collection rows (:func:`selfconf.data.load_collection`).
    excl : selfconf.data.ExclusionReport
        Its exclusion report (``per_model`` with ``tier, model, rows, parse_failures, graded, refusals``).

    Returns
    -------
    dict
        ``values`` (glue key: value, claim ids), ``roster``, ``per_model`` and ``tier_counts`` (frames),
        ``ids_per_provider`` (Series: model ids per frontier provider), ``same_items`` (every model asked the
        same items), ``n_rows`` and ``n_parse_failures``.

    References
    ----------
    Chernets (2026), section "Experiment design" (roster and graded counts).

    Examples
    --------
    >>> rows = pd.DataFrame({"tier": ["frontier", "local"], "model": ["a", "b"], "model_id": ["a-1", "b-1"],
    ...                      "item_id": ["q1", "q1"], "parse_ok": [1, 0], "confidence": [90, 0], "correct": [1, 0]})
    >>> per_model = pd.DataFrame({"tier": ["frontier", "local"], "model": ["a", "b"], "rows": [1, 1],
    ...                           "parse_failures": [0, 1], "graded": [1, 0], "refusals": [0, 0]})
    >>> r = roster(rows, ExclusionReport("csv", [], per_model))
    >>> r["values"]["design_n_models"], r["values"]["design_n_graded_total"], r["same_items"]
    (2, 1, True)
    """
    g = graded(rows)
    ros = rows[["tier", "model", "model_id"]].drop_duplicates().reset_index(drop=True)
    per_model = excl.per_model.merge(ros, on=["tier", "model"], how="left")
    per_model = per_model[["tier", "model", "model_id", "rows", "parse_failures", "graded", "refusals"]]
    frontier = ros[ros["tier"] == "frontier"]
    local = ros[ros["tier"] == "local"]
    ids_per_provider = frontier.groupby("model")["model_id"].nunique()
    items_per_model = rows.groupby("model", sort=False)["item_id"].apply(lambda s: frozenset(s))
    all_items = frozenset(rows["item_id"])
    values = {
        "design_n_models": ros["model"].nunique(),
        "design_n_providers": frontier["model"].nunique(),
        "design_models_per_provider": int(ids_per_provider.max()),
        "design_n_local_models": local["model"].nunique(),
        "design_n_items": len(all_items),
        "design_n_graded_total": len(g),
        "design_n_graded_frontier": int((g["tier"] == "frontier").sum()),
        "design_n_graded_local": int((g["tier"] == "local").sum()),
    }
    tier_counts = (
        per_model.groupby("tier", sort=False)
        .agg(
            models=("model", "nunique"),
            rows=("rows", "sum"),
            parse_failures=("parse_failures", "sum"),
            graded=("graded", "sum"),
        )
        .reset_index()
    )
    return {
        "values": values,
        "roster": ros,
        "per_model": per_model,
        "tier_counts": tier_counts,
        "ids_per_provider": ids_per_provider,
        "same_items": all(s == all_items for s in items_per_model),
        "n_items": len(all_items),
        "n_rows": len(rows),
        "n_parse_failures": excl.total_parse_failures,
    }


def exclusions(per_model: pd.DataFrame) -> dict[str, Any]:
    """The local model with the most parse failures, and its gradable and asked counts.

    Definition: among the ``local`` rows of ``per_model`` (one row per model, as :func:`roster` returns it), the
    first with the largest ``parse_failures``; ``n_gradable`` is its ``graded`` count, ``n_items`` its ``rows``.
    The frame gains a ``share`` column (parse failures / rows) for the exclusions chart.

    References
    ----------
    Chernets (2026), section "Grading and exclusions".

    Examples
    --------
    >>> pm = pd.DataFrame({"tier": ["local", "local"], "model": ["a", "b"], "rows": [10, 10],
    ...                    "parse_failures": [1, 4], "graded": [9, 6]})
    >>> e = exclusions(pm)
    >>> e["model"], e["n_gradable"], e["n_items"]
    ('b', 6, 10)
    """
    local_pm = per_model[per_model["tier"] == "local"]
    reasoning = local_pm.loc[local_pm["parse_failures"].idxmax()]
    return {
        "model": str(reasoning["model"]),
        "n_gradable": int(reasoning["graded"]),
        "n_items": int(reasoning["rows"]),
        "table": per_model.assign(share=per_model["parse_failures"] / per_model["rows"]),
    }


def routes(rows: pd.DataFrame) -> dict[str, Any]:
    """Calls per model and route (``served_by``), and moonshot's first-party and total calls.

    Definition: row counts per ``(tier, model, served_by)``, one column per route (0 where a model never used
    it); moonshot's first-party count is its rows with ``served_by == "first_party"``.

    References
    ----------
    Chernets (2026), reproducibility appendix (routing of the API calls).

    Examples
    --------
    >>> rows = pd.DataFrame({"tier": ["frontier"] * 3, "model": ["moonshot"] * 3,
    ...                      "served_by": ["first_party", "aggregator", "first_party"]})
    >>> r = routes(rows)
    >>> r["moonshot_first_party"], r["moonshot_rows"], list(r["table"].columns)
    (2, 3, ['tier', 'model', 'first_party', 'aggregator'])
    """
    wide = (
        rows.groupby(["tier", "model", "served_by"], sort=False)
        .size()
        .unstack("served_by", fill_value=0)
        .astype(int)
        .reset_index()
    )
    wide.columns.name = None
    return {
        "table": wide,
        "moonshot_first_party": int(((rows["model"] == "moonshot") & (rows["served_by"] == "first_party")).sum()),
        "moonshot_rows": int((rows["model"] == "moonshot").sum()),
    }


def accuracy_gap_pp(correct: Any, is_older: Any) -> np.ndarray:
    """Accuracy on the older benchmark minus accuracy on SimpleQA, in percentage points, per row of a batch.

    Definition: for each row ``b`` of the (B, n) inputs,
    ``100 * (mean(correct[b, is_older[b]]) - mean(correct[b, ~is_older[b]]))``.  1-D inputs are one row.
    A batched statistic for :func:`selfconf.bootstrap.percentile_ci` (``batched=True``).

    Parameters
    ----------
    correct : array-like of shape (n,) or (B, n)
        0/1 correctness.
    is_older : array-like of the same shape
        True for a row of the older benchmark, False for a SimpleQA row.

    Returns
    -------
    numpy.ndarray of shape (B,)

    References
    ----------
    Efron & Tibshirani (1993), section 8.3 (difference of two sample means).

    Examples
    --------
    >>> accuracy_gap_pp([1, 1, 0, 1, 0, 0], [True, True, True, False, False, False]).round(6).tolist()
    [33.333333]
    """
    correct = np.atleast_2d(correct).astype(float)
    is_older = np.atleast_2d(is_older).astype(bool)
    older = (correct * is_older).sum(axis=1) / is_older.sum(axis=1)
    newer = (correct * ~is_older).sum(axis=1) / (~is_older).sum(axis=1)
    return 100.0 * (older - newer)


def benchmark_age(
    graded_rows: pd.DataFrame, bench: pd.DataFrame, *, seed: int, n_boot: int, level: float
) -> pd.DataFrame:
    """The benchmark-age comparison: per model, older-benchmark and SimpleQA accuracy and their gap.

    Definition: for each model of ``bench`` (in order of first appearance), ``acc_older_pct`` is its accuracy
    on the older benchmark's rows, ``acc_simpleqa_pct`` its accuracy on its graded collection rows, and
    ``gap_pp`` (:func:`accuracy_gap_pp`) their difference, with an unpaired percentile bootstrap interval
    (``gap_ci_low``, ``gap_ci_high``): rows resampled within each benchmark, ``n_boot`` draws from
    ``model_rng(seed, model)``.

    Parameters
    ----------
    graded_rows : pandas.DataFrame
        Graded collection rows (``model``, ``correct``).
    bench : pandas.DataFrame
        Benchmark-age rows (``model``, ``benchmark``, ``correct``; :func:`selfconf.data.load_benchmark_age`).
    seed, n_boot, level : int, int, float
        Page seed, bootstrap draws and interval level (0-1).

    Returns
    -------
    pandas.DataFrame
        ``model, benchmark_older, n_older, acc_older_pct, n_simpleqa, acc_simpleqa_pct, gap_pp, gap_ci_low,
        gap_ci_high``.

    References
    ----------
    Efron & Tibshirani (1993), chapter 13 and section 8.3.

    Examples
    --------
    >>> g = pd.DataFrame({"model": ["m"] * 4, "correct": [1, 0, 0, 0]})
    >>> b = pd.DataFrame({"model": ["m"] * 4, "benchmark": ["truthfulqa_mc"] * 4, "correct": [1, 1, 1, 0]})
    >>> t = benchmark_age(g, b, seed=0, n_boot=200, level=0.95)
    >>> float(t.loc[0, "gap_pp"])
    50.0
    """
    out = []
    for m, b in bench.groupby("model", sort=False):
        sqa = graded_rows.loc[graded_rows["model"] == m, "correct"].to_numpy()
        older = b["correct"].to_numpy()
        y = np.concatenate([older, sqa])
        flag = np.concatenate([np.ones(older.size, bool), np.zeros(sqa.size, bool)])
        ci = bootstrap.percentile_ci(
            accuracy_gap_pp, y, flag, n_boot=n_boot, rng=model_rng(seed, m), level=level, batched=True, groups=flag
        )
        out.append(
            {
                "model": m,
                "benchmark_older": ", ".join(sorted(b["benchmark"].unique())),
                "n_older": older.size,
                "acc_older_pct": 100 * older.mean(),
                "n_simpleqa": sqa.size,
                "acc_simpleqa_pct": 100 * sqa.mean(),
                "gap_pp": ci.estimate,
                "gap_ci_low": ci.low,
                "gap_ci_high": ci.high,
            }
        )
    return pd.DataFrame(out)


def glue_benchmark_age(c: Builder, age: pd.DataFrame) -> None:
    """Record the benchmark-age arm (part ``benchmark_age``): per model its gap with interval, and the worked example.

    Definition: from :func:`benchmark_age`'s table: the number of models, each model's gap (TruthfulQA minus
    SimpleQA accuracy, points) and interval, the range of the gaps, and the paper's worked example, the model with
    the widest gap (first on ties), with its two accuracies.

    References: Chernets (2026), "Experiment design and data" (benchmark age).

    >>> age = pd.DataFrame({"model": ["a", "b"], "gap_pp": [10.0, 30.0], "gap_ci_low": [5.0, 20.0],
    ...                     "gap_ci_high": [15.0, 40.0], "acc_older_pct": [80.0, 90.0],
    ...                     "acc_simpleqa_pct": [70.0, 60.0]})
    >>> c = Builder()
    >>> glue_benchmark_age(c, age)
    >>> v = c.build()
    >>> v["bench_age_example_model"], v["bench_age_b_simpleqa_acc"], v["bench_age_gap_range_min"]
    ('b', 60.0, 10.0)
    """
    c.add("benchmark_age", "design_bench_n_models", len(age), "rows")
    for r in age.itertuples():
        c.add("benchmark_age", f"bench_age_{r.model}_gap_pp", r.gap_pp)
        c.add("benchmark_age", f"bench_age_{r.model}_gap_ci_lo", r.gap_ci_low)
        c.add("benchmark_age", f"bench_age_{r.model}_gap_ci_hi", r.gap_ci_high)
    c.add("benchmark_age", "bench_age_gap_range_min", age["gap_pp"].min())
    c.add("benchmark_age", "bench_age_gap_range_max", age["gap_pp"].max())
    widest = age.loc[age["gap_pp"].idxmax()]  # the paper's worked example is the model with the widest gap
    c.add("benchmark_age", "bench_age_example_model", str(widest["model"]), "rows")
    c.add("benchmark_age", f"bench_age_{widest['model']}_truthfulqa_acc", widest["acc_older_pct"])
    c.add("benchmark_age", f"bench_age_{widest['model']}_simpleqa_acc", widest["acc_simpleqa_pct"])


def compute(
    rows: pd.DataFrame, excl: ExclusionReport, bench: pd.DataFrame, *, seed: int, n_boot: int, level: float
) -> DesignResult:
    """Everything the design page glues, from the collection rows and the benchmark-age rows.

    Definition: :func:`roster`, :func:`exclusions`, :func:`routes` and :func:`benchmark_age` on the inputs; the
    keys of each part are listed in ``DesignResult.parts``.  Only the benchmark-age intervals
    (``bench_age_*_gap_ci_lo/hi``) depend on ``seed`` and ``n_boot``.

    Parameters
    ----------
    rows, excl, bench
        As returned by :func:`load`.
    seed : int
        Page seed; each model's draws come from ``model_rng(seed, model)``.
    n_boot : int
        Bootstrap draws.
    level : float
        Interval level (0-1), the paper's quoted ``ci_level_pct`` / 100.

    Returns
    -------
    DesignResult

    References
    ----------
    Chernets (2026), section "Experiment design and data".

    Examples
    --------
    >>> res = compute(*load("data/reconstructed"), seed=20261130, n_boot=20, level=0.95)
    >>> res.values["design_n_models"]
    16
    """
    c = Builder()
    ros = roster(rows, excl)
    for k, v in ros["values"].items():
        c.add("roster", k, v)
    # restatements of the same numbers later in the page
    for k, src in (
        ("prereg_subsample_n", "design_n_items"),
        ("design_models_n_providers", "design_n_providers"),
        ("design_models_models_per_provider", "design_models_per_provider"),
        ("design_models_n_local", "design_n_local_models"),
    ):
        c.add("roster", k, ros["values"][src])
    c.add("roster", "design_n_rows", ros["n_rows"], "rows")
    c.add("roster", "design_n_parse_failures", ros["n_parse_failures"], "rows")

    ex = exclusions(ros["per_model"])
    c.add("exclusions", "local_reasoning_model", ex["model"], "rows")
    c.add("exclusions", "local_reasoning_model_n_gradable", ex["n_gradable"])
    c.add("exclusions", "local_reasoning_model_n_items", ex["n_items"])

    rt = routes(rows)
    c.add("routes", "repro_moonshot_firstparty_n", rt["moonshot_first_party"])
    c.add("routes", "repro_moonshot_rows", rt["moonshot_rows"], "rows")

    age = benchmark_age(graded(rows), bench, seed=seed, n_boot=n_boot, level=level)
    glue_benchmark_age(c, age)

    tables = {
        "roster": ros["roster"],
        "per_model": ros["per_model"],
        "tier_counts": ros["tier_counts"],
        "exclusions": ex["table"],
        "routes": rt["table"],
        "benchmark_age": age,
    }
    facts = {"same_items": ros["same_items"], "n_items": ros["n_items"], "ids_per_provider": ros["ids_per_provider"]}
    return c.build(tables, facts)
