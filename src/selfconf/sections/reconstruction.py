"""How the data were reconstructed (page ``12_reconstruction``): the page's numbers from the reconstructed rows.

:func:`compute` counts what the page says about the written rows (rows, models, items, the confidence grid and
its off-grid values, the refusal-heavy model), recomputes the headline CN panel comparison with the page's seed
and the same random stream as Result 1 (so that the page can check that the two pages compute one interval), and
measures the plausibility of the rows (heaping on round numbers, correlation of correctness across models, shared
wrong answers).  :func:`fidelity_tables` reads the generators' ``fidelity*.json`` files into tables.

This page documents the generator; it does not read the paper's claim manifest either: the targets it shows are
those each generator wrote into its fidelity file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from selfconf import roster
from selfconf.data import graded
from selfconf.panels import PANELS, panel_analysis
from selfconf.sections.computed import Builder, Computed
from selfconf.stats.summary import model_rng

__all__ = [
    "FRONTIER_ORDER",
    "GRID",
    "STATUS",
    "cn_interval",
    "compute",
    "fidelity_records",
    "fidelity_tables",
    "plausibility",
]

#: The round-number grid the generator puts confidences on (a generator choice).
GRID = 5
#: Generators word their statuses differently; one vocabulary for the fidelity tables.
STATUS = {"hit": "match", "miss": "mismatch", "within": "within_tolerance", "outside": "outside_tolerance"}
#: Display order of the frontier models in the correlation heat map.
FRONTIER_ORDER = roster.frontier()  # the roster table's Table 1 order


def cn_interval(df: pd.DataFrame, *, seed: int, n_boot: int) -> dict[str, float]:
    """The CN panel's ΔAUROC (panel minus self) and its bootstrap interval, keyed by Result 1's glue keys.

    Definition: :func:`selfconf.panels.panel_analysis` on the collection's rows with the CN panel, drawing from
    ``summary.model_rng(seed, "panel:CN")``, the stream Result 1 uses, so that equal parameters give the same
    interval to the last digit.

    References: the paper's Result 1 (panel agreement against self-assessment).

    Examples
    --------
    >>> from selfconf.data import load_collection
    >>> rows, _ = load_collection("data/reconstructed")
    >>> {k: round(v, 3) for k, v in cn_interval(rows, seed=1, n_boot=20).items()}
    {'cn_panel_vs_self_delta': 0.287, 'cn_panel_vs_self_delta_ci_lo': 0.266, 'cn_panel_vs_self_delta_ci_hi': 0.297}
    """
    cn = panel_analysis(df, PANELS["CN"], n_boot=n_boot, rng=model_rng(seed, "panel:CN"))
    return {
        "cn_panel_vs_self_delta": cn["delta_panel_minus_self"],
        "cn_panel_vs_self_delta_ci_lo": cn["delta_ci"][0],
        "cn_panel_vs_self_delta_ci_hi": cn["delta_ci"][1],
    }


def plausibility(rows: pd.DataFrame, grid: int = GRID) -> dict[str, Any]:
    """How much the graded rows look like verbalised confidences.

    Definition: ``heap``, graded rows per tier and stated confidence (with whether it is a multiple of ``grid``);
    ``share_on_grid``, the share of graded rows on the grid; ``phi``, the correlation (phi coefficient) of
    correctness between frontier models over items both graded; ``n_shared_wrong_strings`` and
    ``n_shared_wrong_rows``, the wrong (non-refused) frontier answer strings given by two or more models and the
    rows they cover, out of ``n_wrong_rows``; ``n_variant_correct``, correct frontier rows graded by the LLM
    (a variant string, not the gold one).

    References: on heaping of verbalised confidence, Xiong et al. (2024), *Can LLMs express their uncertainty?*

    Examples
    --------
    >>> rows = pd.DataFrame({"tier": "frontier", "model": ["a", "a", "b", "b"], "item_id": [1, 2, 1, 2],
    ...                      "confidence": [90, 72, 85, 80], "correct": [1, 0, 1, 0], "refusal": 0,
    ...                      "answer_class": ["g", "w", "g", "w"], "graded_by": "string"})
    >>> p = plausibility(rows)
    >>> p["share_on_grid"], p["n_shared_wrong_strings"], p["n_shared_wrong_rows"]
    (0.75, 1, 2)
    """
    heap = rows.groupby(["tier", "confidence"]).size().rename("rows").reset_index()
    heap[f"multiple of {grid}"] = np.where(heap["confidence"] % grid == 0, "yes", "no")
    front = rows[rows["tier"] == "frontier"]
    wide = front.pivot(index="item_id", columns="model", values="correct")
    order = [m for m in FRONTIER_ORDER if m in wide.columns]
    wrong = front[(front["correct"] == 0) & (front["refusal"] == 0)]
    by_class = wrong.groupby("answer_class")["model"].nunique()
    return {
        "heap": heap,
        "share_on_grid": float((rows["confidence"] % grid == 0).mean()),
        "phi_order": order,
        "phi": wide[order].astype(float).corr(),
        "n_shared_wrong_strings": int((by_class >= 2).sum()),
        "n_shared_wrong_rows": int(wrong["answer_class"].isin(by_class.index[by_class >= 2]).sum()),
        "n_wrong_rows": len(wrong),
        "n_variant_correct": int(((front["correct"] == 1) & (front["graded_by"] == "llm")).sum()),
    }


def compute(df: pd.DataFrame, *, seed: int, n_boot: int, grid: int = GRID) -> Computed:
    """Every value page 12 glues from the reconstructed collection, plus the CN interval it checks.

    Parameters
    ----------
    df : DataFrame
        The collection's rows (:func:`selfconf.data.load_collection`), parse failures included.
    seed, n_boot : int
        Bootstrap seed and draws of the CN panel comparison.
    grid : int
        The generator's confidence grid.

    Returns
    -------
    Computed
        Part ``counts`` (every glued value; origin ``rows`` except the grid, a ``parameter``); table
        ``cn_interval`` (a Series keyed by Result 1's glue keys, see :func:`cn_interval`), ``off_grid`` (the graded
        rows off the grid) and ``graded`` (the graded rows).

    References: ``data/README.md`` (the generator); the paper's Result 1 for the CN panel.

    Examples
    --------
    >>> from selfconf.data import load_collection
    >>> res = compute(load_collection("data/reconstructed")[0], seed=1, n_boot=20)
    >>> res["recon_grid"]
    5
    """
    b = Builder()
    rows = graded(df)
    b.add("counts", "recon_n_rows", len(df), "rows")
    b.add("counts", "recon_n_models", int(df["model"].nunique()), "rows")
    b.add("counts", "recon_n_items", int(df["item_id"].nunique()), "rows")
    b.add("counts", "recon_google_n", int((rows["model"] == "google").sum()), "rows")
    b.add("counts", "recon_grid", grid, "parameter")
    off_grid = rows[rows["confidence"] % grid != 0]
    b.add("counts", "recon_off_grid_values", ", ".join(str(v) for v in sorted(off_grid["confidence"].unique())), "rows")
    b.add("counts", "recon_off_grid_pct", 100 * len(off_grid) / len(rows), "rows")
    refusal_heavy = str(rows.groupby("model")["refusal"].sum().idxmax())
    b.add("counts", "recon_refusal_model", refusal_heavy, "rows")
    b.add(
        "counts",
        "recon_refusal_model_median",
        float(rows.loc[rows["model"] == refusal_heavy, "confidence"].median()),
        "rows",
    )
    b.table("graded", rows)
    b.table("off_grid", off_grid)
    b.table("cn_interval", pd.Series(cn_interval(df, seed=seed, n_boot=n_boot)))
    return b.build()


def fidelity_records(doc: dict) -> list[dict]:
    """Constraint records of a fidelity file, whatever generator wrote it.

    Definition: the first of the keys ``claims``, ``constraints``, ``records`` that holds a list (returned as is)
    or a mapping of id to record (returned as records with an ``id``).

    Examples
    --------
    >>> fidelity_records({"constraints": {"a": {"status": "hit"}}})
    [{'id': 'a', 'status': 'hit'}]
    """
    for key in ("claims", "constraints", "records"):
        val = doc.get(key)
        if isinstance(val, list):
            return val
        if isinstance(val, dict) and all(isinstance(v, dict) for v in val.values()):
            return [{"id": k, **v} for k, v in val.items()]
    return []


def _shown(x: Any, decimals: Any) -> str:
    """An achieved value as text at ``decimals`` decimals; blank for a missing value, ``str`` for a non-number."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return ""
    try:
        return format(float(x), f".{int(decimals)}f")
    except (TypeError, ValueError):
        return str(x)


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and bool(np.isfinite(x))


def _rejudged(manifest: Any, r: dict, values: dict[str, float]) -> str:
    """The record's status under the judging rule of this build (a file written under an older rule shows the
    verdict the audit gives today); records that are not claims, or not recomputed numbers, keep their own."""
    from selfconf.claims import judging

    cid = str(r.get("id"))
    if cid in manifest.by_id and _number(r.get("recomputed")) and r.get("status") != "external":
        return judging.judge(manifest, cid, r["recomputed"], values=values).status
    return str(r.get("status", ""))


def fidelity_tables(root: str | Path) -> list[tuple[str, str, pd.DataFrame, list[str]]]:
    """One table per ``fidelity*.json`` under ``root``: every constraint, its printed target and what the rows give.

    Definition: for each file (sorted by path), ``(name relative to root, file stem, frame, keys of the file)``;
    the frame has columns ``constraint``, ``kind``, ``printed``, ``achieved`` (the file's ``shows`` or the
    achieved value at the record's decimals) and ``status`` (in the vocabulary of :data:`STATUS`; a claim with a
    recomputed value is re-judged by :func:`selfconf.claims.judging.judge`, so a file written under an older
    rule shows today's verdict).  A file with
    no constraint list gives an empty frame.

    References: :mod:`selfconf.claims.judging` (the rule each generator judged its constraints with).

    Examples
    --------
    >>> [name for name, *_ in fidelity_tables("data/reconstructed")]
    ['arms/fidelity_arms.json', 'fidelity_collection.json', 'ladder/fidelity_ladder.json']
    """
    from selfconf.claims import judging  # the audit's one rule: a record is re-judged by today's rule

    manifest = judging.load_manifest()
    root = Path(root)
    out = []
    for path in sorted(root.rglob("fidelity*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        recs = fidelity_records(doc)
        values = {r["id"]: r["recomputed"] for r in recs if "id" in r and _number(r.get("recomputed"))}
        frame = pd.DataFrame(
            [
                {
                    "constraint": r.get("id", r.get("name", r.get("term", ""))),
                    "kind": r.get("kind", ""),
                    "printed": r.get("printed", r.get("target", "")),
                    "achieved": r.get("shows")
                    or _shown(r.get("achieved", r.get("recomputed", r.get("value"))), r.get("decimals", 3)),
                    "status": STATUS.get(status, status),
                }
                for r in recs
                for status in [_rejudged(manifest, r, values)]
            ]
        )
        out.append((str(path.relative_to(root)), path.stem, frame, list(doc)))
    return out
