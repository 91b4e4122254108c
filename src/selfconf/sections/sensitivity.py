"""Sensitivities of Result 1 a methods reviewer asks for (page "Every reading of the panel comparison").

* :func:`count_claims` - the row-bootstrap distribution of two count statements of Result 1 (how many frontier
  models have a self-AUROC below the descriptive cut-off; how many have a median confidence inside the band
  the point estimates give): the probability of the count computed on the rows, and its range over draws;
* :func:`grader_sensitivity` - each frontier model's self-AUROC when a share k of the LLM-stage verdicts is
  flipped at random (many draws), and in the worst case where every answer the LLM stage accepted is wrong;
* :func:`first_party_split` - the moonshot first-party / aggregator split the paper pre-defined: moonshot's
  self-AUROC and the CN panel's panel - self difference on the items of each route.

Every function takes the collection rows and explicit seeds and reads nothing from the paper's claims; the
thresholds are arguments (the page passes the paper's quoted parameters).

References: Chernets (2026), Result 1 and its pre-registered sensitivity analyses; Efron & Tibshirani (1993),
Ch. 13 (percentile bootstrap).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from selfconf import bootstrap, metrics, panels
from selfconf.stats import summary

__all__ = ["count_claims", "grader_sensitivity", "first_party_split", "frontier_rows"]


def frontier_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The graded frontier rows (``tier == "frontier"``, ``parse_ok == 1``), the population of Table 1.

    >>> frontier_rows(pd.DataFrame({"tier": ["frontier", "local"], "parse_ok": [1, 1]})).shape[0]
    1
    """
    return rows[(rows["tier"] == "frontier") & (rows["parse_ok"] == 1)]


def _row_draws(n: int, n_boot: int, gen: np.random.Generator) -> np.ndarray:
    return gen.integers(0, n, size=(n_boot, n))


def count_claims(
    rows: pd.DataFrame, *, auroc_cut: float, band: tuple[float, float], seed: int, n_boot: int
) -> dict[str, Any]:
    """Row-bootstrap distribution of "k models below ``auroc_cut``" and "k medians inside ``band``".

    Definition: for each frontier model its graded rows are resampled with replacement (``n_boot`` draws from
    ``summary.model_rng(seed, "count:" + model)``); in each draw the model's self-AUROC (ties half) and median
    stated confidence (points) are recomputed, and the two counts are taken over models.  Returned per count:
    the value on the rows, the probability that a draw gives that same value, the 2.5-97.5 % range and the
    minimum and maximum over draws, and the distribution (value -> share of draws).

    Example: ``count_claims(rows, auroc_cut=0.62, band=(85, 95), seed=1, n_boot=500)["below"]["point"]``.
    """
    fr = frontier_rows(rows)
    models = sorted(fr["model"].unique())
    below = np.zeros(n_boot, dtype=int)
    inband = np.zeros(n_boot, dtype=int)
    pt_below = pt_band = 0
    lo, hi = band
    for m in models:
        g = fr[fr["model"] == m]
        conf = g["confidence"].to_numpy(float)
        y = g["correct"].to_numpy(int)
        pt_below += int(metrics.auroc(conf, y) < auroc_cut)
        pt_band += int(lo <= np.median(conf) <= hi)
        idx = _row_draws(conf.size, n_boot, summary.model_rng(seed, f"count:{m}"))
        below += metrics.auroc_batched(conf[idx], y[idx]) < auroc_cut
        med = np.median(conf[idx], axis=1)
        inband += (med >= lo) & (med <= hi)

    def summarise(d: np.ndarray, point: int) -> dict[str, Any]:
        vals, cnt = np.unique(d, return_counts=True)
        return {
            "point": int(point),
            "p_point": float((d == point).mean()),
            "range95": (int(np.quantile(d, 0.025)), int(np.quantile(d, 0.975))),
            "min": int(d.min()),
            "max": int(d.max()),
            "distribution": {int(v): float(c / d.size) for v, c in zip(vals, cnt, strict=True)},
        }

    return {
        "n_models": len(models),
        "below": summarise(below, pt_below),
        "band": summarise(inband, pt_band),
        "n_boot": n_boot,
    }


def grader_sensitivity(
    rows: pd.DataFrame, *, shares=(0.01, 0.02, 0.05), n_draws: int = 200, seed: int, n_boot: int = 500
) -> pd.DataFrame:
    """Each frontier model's self-AUROC under perturbed LLM-stage verdicts.

    Definition: the LLM-stage rows are the graded frontier rows with ``graded_by == "llm"``.  For a share k,
    each of ``n_draws`` draws (generator ``summary.model_rng(seed, f"grader:{k}")``) flips the verdict of
    round(k x n_llm) LLM-stage rows chosen at random over all models, and recomputes every model's self-AUROC;
    reported per model: the AUROC on the rows, the mean over draws, the 2.5-97.5 % range and the largest absolute
    change.  The worst case (``share = "worst"``) scores every LLM-accepted answer (``graded_by == "llm"`` and
    correct) as wrong; its interval is a row bootstrap of the changed rows (``n_boot`` draws).

    Example: ``grader_sensitivity(rows, shares=(0.01,), n_draws=50, seed=1)``.
    """
    fr = frontier_rows(rows).reset_index(drop=True)
    llm = np.flatnonzero((fr["graded_by"] == "llm").to_numpy())
    y0 = fr["correct"].to_numpy(int)
    conf_all = fr["confidence"].to_numpy(float)
    model = fr["model"].to_numpy()
    models = sorted(set(model))
    pos = {m: np.flatnonzero(model == m) for m in models}
    base = {m: metrics.auroc(conf_all[pos[m]], y0[pos[m]]) for m in models}
    recs = []
    for k in shares:
        gen = summary.model_rng(seed, f"grader:{k}")
        n_flip = int(round(k * llm.size))
        flips = np.zeros((n_draws, y0.size), dtype=bool)
        for d in range(n_draws):
            flips[d, gen.choice(llm, size=n_flip, replace=False)] = True
        for m in models:
            i = pos[m]
            yy = np.where(flips[:, i], 1 - y0[i], y0[i])
            a = metrics.auroc_batched(np.broadcast_to(conf_all[i], yy.shape), yy)
            recs.append(
                {
                    "model": m,
                    "share": f"{k:.0%}",
                    "flipped": n_flip,
                    "auroc": base[m],
                    "perturbed": float(a.mean()),
                    "low": float(np.quantile(a, 0.025)),
                    "high": float(np.quantile(a, 0.975)),
                    "max_abs_change": float(np.abs(a - base[m]).max()),
                }
            )
    accepted = (fr["graded_by"] == "llm").to_numpy() & (y0 == 1)
    yw = np.where(accepted, 0, y0)
    for m in models:
        i = pos[m]
        ci = bootstrap.auroc_ci(conf_all[i], yw[i], n_boot=n_boot, rng=summary.model_rng(seed, f"grader:worst:{m}"))
        recs.append(
            {
                "model": m,
                "share": "worst case",
                "flipped": int(accepted[i].sum()),
                "auroc": base[m],
                "perturbed": float(metrics.auroc(conf_all[i], yw[i])),
                "low": float(ci.low),
                "high": float(ci.high),
                "max_abs_change": float(abs(metrics.auroc(conf_all[i], yw[i]) - base[m])),
            }
        )
    out = pd.DataFrame(recs)
    out.attrs.update(n_llm=int(llm.size), n_rows=int(y0.size), n_accepted=int(accepted.sum()), n_draws=n_draws)
    return out


def first_party_split(
    rows: pd.DataFrame, *, model: str = "moonshot", panel: str = "CN", seed: int, n_boot: int
) -> pd.DataFrame:
    """``model``'s self-AUROC and ``panel``'s panel - self difference on the items of each serving route.

    Definition: the items are split by the route that served ``model`` (``served_by``: first_party or
    aggregator); on each part, ``model``'s self-AUROC with a row-bootstrap interval and
    :func:`selfconf.panels.panel_analysis` of the panel restricted to those items (generators
    ``summary.model_rng(seed, f"split:{route}:...")``).

    Example: ``first_party_split(rows, seed=1, n_boot=200)``.
    """
    fr = frontier_rows(rows)
    own = fr[fr["model"] == model]
    recs = []
    for route, g in own.groupby("served_by", sort=True):
        items = set(g["item_id"])
        ci = bootstrap.auroc_ci(
            g["confidence"].to_numpy(float),
            g["correct"].to_numpy(int),
            n_boot=n_boot,
            rng=summary.model_rng(seed, f"split:{route}:{model}"),
        )
        pa = panels.panel_analysis(
            rows[rows["item_id"].isin(items)],
            panels.PANELS[panel],
            n_boot=n_boot,
            rng=summary.model_rng(seed, f"split:{route}:panel:{panel}"),
        )
        recs.append(
            {
                "route": str(route),
                "items": len(items),
                "self_auroc": float(ci.estimate),
                "self_low": float(ci.low),
                "self_high": float(ci.high),
                "panel_items": pa["n_items"],
                "delta": pa["delta_panel_minus_self"],
                "delta_low": pa["delta_ci"][0],
                "delta_high": pa["delta_ci"][1],
            }
        )
    return pd.DataFrame(recs)
