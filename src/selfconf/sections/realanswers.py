"""The paper's Result 1 claims tested on real third-party answers (MMLU-Pro, 26 models).

This module holds everything the chapter ``notebooks/26_real_answers.py`` computes, so that tests can
call it without papermill:

* :data:`PANEL_RULE` and :func:`select_panels` - the rule, written down before any panel statistic was
  computed, that picks analogues of the paper's three pre-specified panels among the 26 models, plus the
  larger panel of all models (an extension);
* :func:`panel_frame` - the MMLU-Pro rows in the collection layout that :mod:`selfconf.panels` reads;
* :func:`model_draws` - per-model statistics on one item-clustered bootstrap draw shared by all models,
  for the claims that summarise many models at once (how many are saturated, the lowest CITL, ...);
* :data:`SCORECARD`, :func:`verdict`, :func:`scorecard` - the pre-declared scorecard (declared
  2026-12-01): each Result 1 claim in our words, the statistic that tests it here and the verdict rule;
* :data:`AMENDED`, :data:`AMENDMENTS`, :func:`amended_verdict` - the dated amendment of 2026-12-02:
  scope, the paper's value and finding, the paper's side, tie-order ranges and "not applicable"; the declaration
  itself is kept unchanged;
* :data:`AMENDED_2`, :data:`AMENDMENT_2_CHANGES`, :func:`second_amendment` - the dated amendment of 2026-12-03:
  thresholds this chapter chose with the paper's numbers in view are marked exploratory, an interval of a maximum
  over models is withdrawn (the verdict inconclusive), a zero-width interval of a count says so; the first
  amendment's verdict is kept as ``verdict_amended_2026_12_02``;
* :func:`compute` - every result of the chapter from the downloaded files; :func:`write_scorecard`,
  :func:`selfconf.book.scorecard.ensure_scorecard` - ``_build/scorecard.json`` from the executed chapter.

Everything is computed by the functions the paper's own sections use: :func:`selfconf.report.from_frame`
(Table 1 with intervals on every metric, Table 2, reliability bins), :func:`selfconf.panels.panel_intervals`
(which extends :func:`selfconf.panels.panel_analysis` on the same item draw) and
:func:`selfconf.metrics.counts_statistics`.  Nothing here reads ``data/paper/claims.yaml``; the paper's
thresholds are quoted facts (:func:`selfconf.claims.quoted.quoted_value`).

Data: Linwei Tao et al., *LLM-Calibration-Study* (MIT), MMLU-Pro test split (Wang et al. 2024,
arXiv:2406.01574), read by :func:`selfconf.data.fetch.read_mmlu_pro_calibration`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from selfconf import bootstrap, metrics, panels, roster
from selfconf.claims.quoted import quoted_value
from selfconf.data.fetch import MMLU_PRO_COMMIT, MMLU_PRO_MODELS, MMLU_PRO_REPO, mmlu_pro_filename
from selfconf.data.paths import resolve
from selfconf.report import core as report
from selfconf.stats import registry, summary

__all__ = [
    "DECLARED",
    "NOTEBOOK",
    "SCORECARD_PATH",
    "VERDICTS",
    "SIGNALS",
    "PROVIDER",
    "BLOC",
    "REASONING_SERIES",
    "TIER_MARKERS",
    "PANEL_RULE",
    "ALL_PANEL",
    "PanelChoice",
    "provider_of",
    "select_panels",
    "panel_frame",
    "ModelDraws",
    "model_draws",
    "Claim",
    "SCORECARD",
    "declared_thresholds",
    "verdict",
    "AMENDED",
    "AMENDMENT_CHANGES",
    "Amendment",
    "AMENDMENTS",
    "amended_verdict",
    "Results",
    "compute",
    "scorecard",
    "write_scorecard",
    "dataset_label",
]

#: The day the scorecard and the panel rule were declared (before any statistic of the chapter was computed).
DECLARED = "2026-12-01"
#: The chapter's notebook stem.
NOTEBOOK = "26_real_answers"
#: Where the build writes the machine-readable scorecard (relative to the project root).
SCORECARD_PATH = "_build/scorecard.json"
#: The glue key under which the chapter stores the scorecard records as JSON text.
SCORECARD_KEY = "real_scorecard_json"
VERDICTS = ("holds", "does not hold", "inconclusive", "not comparable", "not applicable")
#: Panel signals of the scorecard (the ``signal`` key of a panel record).
SIGNALS = ("self", "canonical", "label_free", "rank_normalised")

# --------------------------------------------------------------------------------------------
# panels: the rule (declared 2026-12-01)
# --------------------------------------------------------------------------------------------

#: Provider of each model, from its name (the names of the source files).
PROVIDER: dict[str, str] = {
    "gpt-4.1": "openai",
    "gpt-4.1-mini": "openai",
    "gpt-4.1-nano": "openai",
    "gpt-4o-2024-08-06": "openai",
    "gpt-4o-mini-2024-07-18": "openai",
    "o1-mini-2024-09-12": "openai",
    "o3-mini-2025-01-31": "openai",
    "o4-mini-2025-04-16": "openai",
    "claude-3-7-sonnet-20250219": "anthropic",
    "claude-3-5-haiku-20241022": "anthropic",
    "claude-3-haiku-20240307": "anthropic",
    "deepseek-chat": "deepseek",
    "deepseek-reasoner": "deepseek",
    "gemini-1.5-pro": "google",
    "gemini-1.5-flash": "google",
    "gemini-2.0-flash": "google",
    "gemma-3-27b-it": "google",
    "grok-3-beta": "xai",
    "grok-2-1212": "xai",
    "Meta-Llama-3.1-405B-Instruct-Turbo": "meta",
    "Meta-Llama-3.1-70B-Instruct-Turbo": "meta",
    "Meta-Llama-3.1-8B-Instruct-Turbo": "meta",
    "Llama-4-Maverick-17B-128E-Instruct-FP8": "meta",
    "Qwen3-235B-A22B-fp8-tput": "alibaba",
    "Qwen2.5-32B-Instruct": "alibaba",
    "Mistral-Small-24B-Instruct-2501": "mistral",
}
#: Where each provider is based (the paper's panels are named by bloc: US, CN, and one across blocs).
BLOC = roster.blocs()  # the roster table's bloc column
#: Dedicated reasoning-model series: not eligible (the paper queried its panel members as chat models).
REASONING_SERIES = ("o1-mini-2024-09-12", "o3-mini-2025-01-31", "o4-mini-2025-04-16", "deepseek-reasoner")
#: Words of a model name (split at "-") that mark a provider's budget or mid-tier line, like the paper's members.
TIER_MARKERS = ("mini", "haiku", "flash", "small", "chat")
#: Release month of each model (the date in its id where there is one, else the provider's announcement):
#: only used to order several candidates of one provider and tier.
RELEASED = {
    "gpt-4.1": "2025-04",
    "gpt-4.1-mini": "2025-04",
    "gpt-4.1-nano": "2025-04",
    "gpt-4o-2024-08-06": "2024-08",
    "gpt-4o-mini-2024-07-18": "2024-07",
    "o1-mini-2024-09-12": "2024-09",
    "o3-mini-2025-01-31": "2025-01",
    "o4-mini-2025-04-16": "2025-04",
    "claude-3-7-sonnet-20250219": "2025-02",
    "claude-3-5-haiku-20241022": "2024-10",
    "claude-3-haiku-20240307": "2024-03",
    "deepseek-chat": "2024-12",
    "deepseek-reasoner": "2025-01",
    "gemini-1.5-pro": "2024-02",
    "gemini-1.5-flash": "2024-05",
    "gemini-2.0-flash": "2025-02",
    "gemma-3-27b-it": "2025-03",
    "grok-3-beta": "2025-02",
    "grok-2-1212": "2024-12",
    "Meta-Llama-3.1-405B-Instruct-Turbo": "2024-07",
    "Meta-Llama-3.1-70B-Instruct-Turbo": "2024-07",
    "Meta-Llama-3.1-8B-Instruct-Turbo": "2024-07",
    "Llama-4-Maverick-17B-128E-Instruct-FP8": "2025-04",
    "Qwen3-235B-A22B-fp8-tput": "2025-04",
    "Qwen2.5-32B-Instruct": "2024-09",
    "Mistral-Small-24B-Instruct-2501": "2025-01",
}
#: The larger panel of the extension: every model of the collection.
ALL_PANEL = "all_models"

#: The panel rule in words, as declared (the notebook states the same rule before computing).
PANEL_RULE = (
    "For each provider the paper names in a panel, take one model of that provider: among its chat models "
    "(dedicated reasoning series excluded), those whose name carries one of the words mini, haiku, flash, small "
    "or chat (a budget or mid-tier line), the most recent; if it has none, its chat model with the fewest "
    "parameters in the name. A provider the data do not have is replaced by the closest available model: the "
    "next eligible model, by the same rule, of a provider of the same bloc that is not yet in the panel, or, "
    "failing that, of a same-bloc provider already in it (providers in alphabetical order). The extension panel "
    "holds all models."
)


@dataclass(frozen=True)
class PanelChoice:
    """One panel analogue: the paper's panel name, the chosen models, and why each one was chosen."""

    name: str
    paper_providers: tuple[str, ...]
    members: tuple[str, ...]
    reasons: tuple[str, ...]


def provider_of(model: str) -> str:
    """Provider of a model of the collection (:data:`PROVIDER`); a clear error for an unknown name.

    >>> provider_of("gpt-4.1-mini")
    'openai'
    """
    if model not in PROVIDER:
        raise ValueError(f"model {model!r} has no provider in selfconf.sections.realanswers.PROVIDER")
    return PROVIDER[model]


def _params_b(model: str) -> float:
    """Parameter count in billions written in the name (the total, e.g. 235 for 'Qwen3-235B-A22B'); inf if none."""
    m = re.search(r"(\d+(?:\.\d+)?)[Bb](?![a-z])", model)
    return float(m.group(1)) if m else float("inf")


def _marked(model: str) -> bool:
    """True when a word of the name (split at "-") is one of :data:`TIER_MARKERS` ("gemini" is not "mini")."""
    return any(w in TIER_MARKERS for w in model.lower().split("-"))


def _ranked_candidates(provider: str, models: list[str], taken: set[str]) -> list[str]:
    """Eligible models of a provider, best first by the panel rule (tier marker and recency, else size)."""
    chat = [m for m in models if PROVIDER.get(m) == provider and m not in REASONING_SERIES and m not in taken]
    marked = [m for m in chat if _marked(m)]
    if marked:
        # most recent first; among one month, the name order keeps the choice deterministic
        return sorted(marked, key=lambda m: (RELEASED.get(m, ""), m), reverse=True) + sorted(
            set(chat) - set(marked), key=lambda m: (_params_b(m), m)
        )
    return sorted(chat, key=lambda m: (_params_b(m), m))


def select_panels(models=MMLU_PRO_MODELS) -> dict[str, PanelChoice]:
    """Apply :data:`PANEL_RULE` to the collection's models: the analogues of :data:`selfconf.panels.PANELS`
    (in the paper's member order) and the all-models panel :data:`ALL_PANEL`.

    Reference: Chernets (2026), Result 1 and its pre-registration (the three panels and their providers).

    >>> select_panels()["US"].members
    ('claude-3-5-haiku-20241022', 'gpt-4.1-mini', 'gemini-2.0-flash')
    """
    models = list(models)
    for m in models:
        provider_of(m)
    out: dict[str, PanelChoice] = {}
    for name, providers in panels.PANELS.items():
        chosen: list[str] = []
        reasons: list[str] = []
        for prov in providers:
            cands = _ranked_candidates(prov, models, set(chosen))
            if cands:
                chosen.append(cands[0])
                reasons.append(
                    f"{prov}: its most recent budget/mid-tier chat model"
                    if _marked(cands[0])
                    else f"{prov}: no budget/mid-tier name; its chat model with the fewest parameters"
                )
                continue
            bloc = BLOC[prov]
            present = {p for p in map(PROVIDER.get, chosen)}
            others = sorted({PROVIDER[m] for m in models if BLOC.get(PROVIDER[m]) == bloc and PROVIDER[m] != prov})
            order = [p for p in others if p not in present] + [p for p in others if p in present]
            pick = next((c for p in order for c in _ranked_candidates(p, models, set(chosen))), None)
            if pick is None:
                raise ValueError(f"panel {name}: no model of provider {prov!r} and no other {bloc} model to replace it")
            chosen.append(pick)
            reasons.append(
                f"{prov}: not in the data; closest available {bloc} model ({PROVIDER[pick]}"
                f"{', already a member provider' if PROVIDER[pick] in present else ''})"
            )
        out[name] = PanelChoice(name, tuple(providers), tuple(chosen), tuple(reasons))
    out[ALL_PANEL] = PanelChoice(ALL_PANEL, (), tuple(models), ("every model of the collection",) * len(models))
    return out


def dataset_label(n_models: int, n_items: int) -> str:
    """The ``dataset`` text of every scorecard record.

    >>> dataset_label(26, 12032)[:8]
    'MMLU-Pro'
    """
    return (
        f"MMLU-Pro test split, {n_models} models x {n_items:,} items, verbalised confidence; "
        f"{MMLU_PRO_REPO} @ {MMLU_PRO_COMMIT[:10]}"
    )


def panel_frame(ext: pd.DataFrame) -> pd.DataFrame:
    """The MMLU-Pro rows in the collection layout of :func:`selfconf.panels.panel_rows`.

    Definition: ``parse_ok`` = the row has a stated confidence; ``confidence`` = that confidence in
    integer points (0-100; the files store points / 100, every value a whole point); ``answer_class`` =
    the extracted letter; ``refusal`` = no letter was extracted (no answer: it concurs with nothing);
    ``correct`` as graded by :func:`selfconf.data.fetch.read_mmlu_pro_calibration`.  A confidence that is not a
    whole number of points raises, naming the file and line.

    Reference: Chernets (2026), Result 1 (panel definitions); :mod:`selfconf.panels`.

    >>> f = panel_frame(pd.DataFrame({"model": ["m"], "item_id": [0], "confidence": [0.85], "correct": [1],
    ...                               "answer": ["C"]}))
    >>> [f[c].iloc[0].item() if c != "answer_class" else f[c].iloc[0]
    ...  for c in ("parse_ok", "confidence", "refusal", "answer_class")]
    [1, 85, 0, 'C']
    """
    need = ("model", "item_id", "confidence", "correct", "answer")
    missing = [c for c in need if c not in ext.columns]
    if missing:
        raise ValueError(f"MMLU-Pro rows: missing column(s) {', '.join(missing)}")
    conf = ext["confidence"].to_numpy(float)
    ok = ~np.isnan(conf)
    points = np.rint(conf * 100.0)
    off = ok & (np.abs(points - conf * 100.0) > 1e-6)
    if off.any():
        i = int(np.flatnonzero(off)[0])
        m, item = ext["model"].iloc[i], int(ext["item_id"].iloc[i])
        raise ValueError(
            f"{mmlu_pro_filename(m)}: line {item + 2}: field 'verbal_numerical_confidence' = "
            f"{conf[i]!r} is not a whole number of points (/100); the panels need whole points"
        )
    answer = ext["answer"].fillna("").astype(str)
    return pd.DataFrame(
        {
            "model": ext["model"].to_numpy(),
            "item_id": ext["item_id"].to_numpy(),
            "parse_ok": ok.astype(int),
            "confidence": np.where(ok, points, 0).astype(np.int64),
            "correct": ext["correct"].to_numpy().astype(np.int64),
            "refusal": (answer == "").astype(int).to_numpy(),
            "answer_class": answer.to_numpy(),
        }
    )


# --------------------------------------------------------------------------------------------
# per-model statistics on one shared item draw
# --------------------------------------------------------------------------------------------


@dataclass
class ModelDraws:
    """Per-model statistics on the data (``point``, shape (models,)) and on item-clustered draws
    (``draws``, shape (n_boot, models)); one item draw is shared by every model.

    Keys: those of :func:`selfconf.metrics.counts_statistics` used here (``accuracy``, ``median_confidence``,
    ``citl``, ``ece``, ``auroc``, ``high_conf_n``, ``high_conf_wrong``) and ``nonpositive_bins`` (occupied
    reliability bins whose confidence-minus-accuracy gap is not positive) and ``occupied_bins``.
    """

    models: tuple[str, ...]
    point: dict[str, np.ndarray]
    draws: dict[str, np.ndarray]
    n_items: int
    threshold: float
    n_bins: int


def _model_specs() -> tuple[registry.MetricSpec, ...]:
    """The registered metrics of chapter 26's per-model draws (``model_draws`` in :mod:`selfconf.stats.registry`)."""
    return tuple(m for m in registry.entries() if m.model_draws)


#: Per-model statistics of :class:`ModelDraws` from the registry (a live view), then the high-confidence count.
_MODEL_KEYS = registry.view(lambda: tuple(m.name for m in _model_specs()) + ("high_conf_n",))


def _model_statistics(lv: np.ndarray, pos: np.ndarray, neg: np.ndarray, threshold: float, n_bins: int) -> dict:
    st = registry.values(lv, pos, neg, _model_specs(), {"n_bins": n_bins, "threshold": threshold})
    out = {k: st[k] for k in _MODEL_KEYS}
    high = lv >= threshold - metrics.EDGE_TOL
    out["high_conf_wrong"] = np.atleast_2d(neg)[:, high].sum(axis=1).astype(float)
    # reliability bins, the rule of metrics.reliability_bins (equal width, interior edges to the upper bin)
    onehot = np.eye(n_bins)[metrics._bin_index(lv, n_bins, "upper")]
    tot = np.atleast_2d(pos + neg).astype(float)
    gap = (tot * lv - np.atleast_2d(pos)) @ onehot
    occupied = (tot @ onehot) > 0
    out["occupied_bins"] = occupied.sum(axis=1).astype(float)
    out["nonpositive_bins"] = (occupied & (gap <= 0)).sum(axis=1).astype(float)
    return out


def model_draws(
    ext: pd.DataFrame, *, n_boot: int = 2000, rng=None, threshold: float = 0.8, n_bins: int = 10
) -> ModelDraws:
    """Per-model Table 1 statistics with one item-clustered bootstrap draw shared by all models.

    Definition: rows without a confidence are left out (as in :func:`selfconf.report.from_frame`); each
    model's rows are reduced to counts of right and wrong answers per confidence level; in each draw the
    items are resampled with replacement (:func:`selfconf.bootstrap.cluster_multiplicities`) and every
    model's counts follow (:func:`selfconf.bootstrap.cell_count_draws`), so a statistic that summarises
    the models together (the lowest CITL, how many models are saturated) gets an interval that respects
    that all models answered the same items.  Statistics per model and draw:
    :func:`selfconf.metrics.counts_statistics`, plus the high-confidence wrong count and the reliability
    bins whose gap is not positive.

    Parameters
    ----------
    ext : rows of :func:`selfconf.data.fetch.read_mmlu_pro_calibration` (``model``, ``item_id``, ``confidence``
        on 0-1, ``correct``)
    n_boot, rng : draws and seed (or Generator)
    threshold, n_bins : the high-confidence cut (0-1) and the number of reliability bins

    References
    ----------
    Davison & Hinkley (1997), Sec. 3.8; Guo et al. (2017) (bins); Chernets (2026), Table 1.

    Examples
    --------
    >>> ext = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "item_id": [0, 1, 2, 3] * 2,
    ...                     "confidence": [0.9, 0.8, 0.6, 0.3, 0.9, 0.9, 0.5, 0.5],
    ...                     "correct": [1, 1, 0, 0, 1, 0, 1, 0]})
    >>> d = model_draws(ext, n_boot=20, rng=0)
    >>> d.point["auroc"].tolist(), d.draws["auroc"].shape
    ([1.0, 0.5], (20, 2))
    """
    used = ext[ext["confidence"].notna()]
    models = tuple(dict.fromkeys(used["model"]))
    item_codes, items = pd.factorize(used["item_id"], sort=True)
    model_code = pd.Index(models).get_indexer(used["model"])
    levels, level_code = np.unique(used["confidence"].to_numpy(float), return_inverse=True)
    k = levels.size
    y = used["correct"].to_numpy().astype(np.int64)
    cells = (model_code * k + level_code.reshape(-1)) * 2 + y
    n_cells = len(models) * k * 2
    point_counts = np.bincount(cells, minlength=n_cells).reshape(len(models), k, 2)
    present = [np.flatnonzero(point_counts[j].sum(axis=1)) for j in range(len(models))]
    mult = bootstrap.cluster_multiplicities(items.size, n_boot, bootstrap.as_generator(rng))

    def per_model(counts: np.ndarray) -> dict[str, np.ndarray]:
        c = counts.reshape(counts.shape[0], len(models), k, 2)
        res: dict[str, list[np.ndarray]] = {}
        for j, pres in enumerate(present):
            st = _model_statistics(levels[pres], c[:, j, pres, 1], c[:, j, pres, 0], threshold, n_bins)
            for key, v in st.items():
                res.setdefault(key, []).append(np.asarray(v, float))
        return {key: np.stack(v, axis=1) for key, v in res.items()}

    point = {key: v[0] for key, v in per_model(point_counts.reshape(1, -1).astype(float)).items()}
    chunks = [per_model(c) for c in bootstrap.cell_count_draws(mult, item_codes, cells, n_cells)]
    draws = {key: np.concatenate([ch[key] for ch in chunks]) for key in point}
    return ModelDraws(models, point, draws, int(items.size), float(threshold), int(n_bins))


# --------------------------------------------------------------------------------------------
# the scorecard (declared 2026-12-01; never edited after the results existed)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One declared claim of the scorecard.

    ``test`` names the statistic the verdict judges; ``null`` is a number, a quoted fact of the paper
    (``"quoted:<id>"``) or ``"half"`` (half the number of models); ``direction`` +1 means the claim says
    the test statistic lies above the null, -1 below.  ``paper_ids`` are the Result 1 claims that print
    the paper's value (shown beside the value here); ``signal``/``panel`` mark panel records.
    """

    id: str
    paper_claim: str
    statistic: str
    test: str
    null: float | str
    direction: int
    unit: str
    paper_ids: tuple[str, ...] = ()
    signal: str | None = None
    panel: str | None = None
    not_comparable_if: str | None = None


#: Declared numbers of our own (the paper's thresholds are quoted facts, see :func:`declared_thresholds`).
RESIDUAL_ERROR_FLOOR_PCT = (
    10.0  # "large" residual error at 20 % coverage: above 10 % (the paper's lowest print is 15.1 %)
)
ECE_TOLERANCE_PP = 1.0  # "ECE almost exactly |CITL|": within 1 percentage point for every model
BEST_AUROC_CEILING = 0.80  # "even the best discriminates only moderately": the best self-AUROC below 0.80
TOP_K = 3  # the paper's Table 2 shows the three models with the best self-AUROC

_RULE = (
    "holds if the interval of the test statistic lies entirely on the claimed side of the null; does not "
    "hold if it lies entirely on the other side; inconclusive otherwise"
)


#: The verdict rule as amended on :data:`AMENDED` (the declared :data:`_RULE` is kept for the record).
_RULE_AMENDED = (
    "holds if the interval of the test statistic lies entirely on the paper's side of the null (the declared side "
    "where the paper prints no value); does not hold if it lies entirely on the other side; inconclusive otherwise; "
    "for a statistic that depends on tie order, holds only if the worst order holds and does not hold only if the "
    "best order does not; not applicable when the claim explains a reversal the data do not show"
)


def _panel_claims(panel: str) -> list[Claim]:
    k = {"US": "us", "CN": "cn", "cross_bloc": "xb"}.get(panel)
    ids = (lambda *names: tuple(f"{k}_{n}" for n in names)) if k else (lambda *names: ())
    lf_ids = ids("panel_auroc_labelfree") if panel in ("US", "CN") else ()
    rn_ids = ids("self_auroc_ranknorm") if panel in ("US", "CN") else ()
    where = "the panel" if panel != ALL_PANEL else "the all-models panel (extension)"
    return [
        Claim(
            f"panel_{panel}_self",
            f"On {where}, the members' own stated confidence, pooled, tells right from wrong answers better "
            "than chance (but it is the weaker signal).",
            "pooled self-AUROC of the members' rows on the panel population",
            "self_auroc_pooled",
            "quoted:r1_chance_auroc",
            +1,
            "auroc",
            ids("self_auroc_pooled"),
            "self",
            panel,
        ),
        Claim(
            f"panel_{panel}_canonical",
            f"On {where}, counting how many other members give a concurring answer predicts a row's "
            "correctness better than the members' own confidence.",
            "AUROC of the canonical agreement count; test: panel minus pooled self-AUROC (paired, item-clustered)",
            "delta_panel_minus_self",
            0.0,
            +1,
            "auroc",
            ids("panel_auroc", "panel_vs_self_delta"),
            "canonical",
            panel,
        ),
        Claim(
            f"panel_{panel}_label_free",
            f"On {where}, the agreement count still beats self-confidence when two answers concur only if they "
            "are the same answer (no correctness flag consulted).",
            "AUROC of the label-free agreement count; test: label-free panel minus pooled self-AUROC",
            "delta_labelfree_minus_self",
            0.0,
            +1,
            "auroc",
            lf_ids,
            "label_free",
            panel,
            not_comparable_if="codings_coincide",
        ),
        Claim(
            f"panel_{panel}_rank_normalised",
            f"On {where}, once between-model differences in confidence level are removed (each model's "
            "confidences replaced by their rank within that model), self-confidence does not beat the panel: "
            "a pooled self-AUROC above the panel's is between-model identity, not per-item self-knowledge.",
            "pooled AUROC of within-model mid-rank percentiles; test: panel minus rank-normalised self-AUROC",
            "delta_panel_minus_ranknorm",
            0.0,
            +1,
            "auroc",
            rn_ids,
            "rank_normalised",
            panel,
        ),
    ]


#: The declared scorecard, in the order of the chapter.
SCORECARD: tuple[Claim, ...] = (
    (
        Claim(
            "overconfident_every_model",
            "Every model is overconfident in the large: its mean stated confidence exceeds its accuracy.",
            "smallest CITL (mean confidence minus accuracy) over the models, item-clustered interval",
            "min_citl_pp",
            0.0,
            +1,
            "pp",
            ("r1_citl_range_min",),
        ),
        Claim(
            "saturated_typical_confidence",
            "Typical stated confidence is saturated: for most models the median sits at or above the paper's "
            "high-confidence threshold, whatever their accuracy.",
            "number of models whose median stated confidence is at or above the threshold",
            "n_saturated",
            "half",
            +1,
            "models",
            ("r1_n_models_median_in_band", "r1_n_models_median_in_band_of"),
        ),
        Claim(
            "confident_answers_mostly_wrong",
            "Most answers stated with high confidence are wrong (pooled over the models).",
            "share of wrong answers among all answers stated at or above the threshold, pooled over models",
            "pooled_high_conf_wrong_pct",
            50.0,
            +1,
            "percent",
            ("r1_highconf_wrong_pooled_pct",),
        ),
        Claim(
            "ece_close_to_abs_citl",
            "Binned and global miscalibration coincide: each model's ECE is almost exactly |CITL|.",
            "largest ECE minus |CITL| over the models (percentage points)",
            "max_ece_minus_abs_citl_pp",
            ECE_TOLERANCE_PP,
            -1,
            "pp",
            (),
        ),
        Claim(
            "gap_positive_every_bin",
            "The confidence-minus-accuracy gap is positive in every occupied reliability bin for most models.",
            "number of models with a positive gap in every occupied bin (10 equal-width bins)",
            "n_all_bins_positive",
            "half",
            +1,
            "models",
            ("r1_n_models_all_bins_positive", "r1_n_models_all_bins_positive_of"),
        ),
        Claim(
            "every_ci_excludes_chance",
            "Stated confidence discriminates better than chance for every model: every interval excludes 0.5.",
            "lowest self-AUROC over the models, item-clustered interval",
            "min_auroc",
            "quoted:r1_chance_auroc",
            +1,
            "auroc",
            ("r1_self_auroc_span_min",),
        ),
        Claim(
            "best_self_auroc_moderate",
            "Even the best model's stated confidence discriminates only moderately (the paper's best is below 0.8).",
            "highest self-AUROC over the models, item-clustered interval",
            "max_auroc",
            BEST_AUROC_CEILING,
            -1,
            "auroc",
            ("r1_self_auroc_span_max",),
        ),
        Claim(
            "most_below_auroc_cutoff",
            "For most models self-AUROC stays below the paper's descriptive cut-off.",
            "number of models whose self-AUROC is below the cut-off",
            "n_below_cutoff",
            "half",
            +1,
            "models",
            ("r1_n_models_below_threshold", "r1_n_models_below_threshold_of"),
        ),
    )
    + tuple(
        Claim(
            f"residual_error_top{r}",
            "A confidence gate leaves large error: among its most confident 20% of answers, a model with one of the "
            "three best self-AUROCs is still often wrong.",
            f"error rate among the 20% most confident answers of the model ranked {r} by self-AUROC "
            "(row bootstrap within the model)",
            f"residual_error_top{r}_pct",
            RESIDUAL_ERROR_FLOOR_PCT,
            +1,
            "percent",
            (),
        )
        for r in range(1, TOP_K + 1)
    )
    + tuple(c for name in (*panels.PANELS, ALL_PANEL) for c in _panel_claims(name))
)


def declared_thresholds() -> dict[str, float]:
    """The paper's thresholds the scorecard uses, as quoted facts (never computed), plus our declared ones.

    >>> declared_thresholds()["auroc_cutoff"]
    0.62
    """
    return {
        "chance": float(quoted_value("r1_chance_auroc")),
        "auroc_cutoff": float(quoted_value("r1_auroc_threshold")),
        "high_conf_points": float(quoted_value("r1_highconf_threshold")),
        "coverage_pct": float(quoted_value("t2_coverage_20")),
        "ece_bins": float(quoted_value("t1_ece_n_bins")),
        "residual_error_floor_pct": RESIDUAL_ERROR_FLOOR_PCT,
        "ece_tolerance_pp": ECE_TOLERANCE_PP,
        "best_auroc_ceiling": BEST_AUROC_CEILING,
    }


# --------------------------------------------------------------------------------------------
# the amendment of 2026-12-02: dated and visible; the declaration above is kept as declared
# --------------------------------------------------------------------------------------------

#: The day the scorecard was amended.  The declaration (:data:`DECLARED`, :data:`SCORECARD`, :data:`PANEL_RULE`, the
#: constants) is unchanged and its digest is still pinned; the amendment adds fields to every record and changes
#: how a verdict is read, for the reasons in :data:`AMENDMENT_CHANGES`.  Each record keeps its declared verdict
#: (``verdict_declared``) and declared claim text (``paper_claim_declared``) beside the amended ones.
AMENDED = "2026-12-02"

#: What the amendment changed, and why (the chapter's amendment cell says the same in prose).
AMENDMENT_CHANGES: tuple[tuple[str, str], ...] = (
    (
        "scope and paper_value",
        "every record says whether the paper makes the claim (scope 'paper') or the chapter extends it ('extension'), "
        "and carries the paper's printed value of the tested statistic (paper_value, null where the paper prints "
        "none), so a reader can see which claims are the paper's",
    ),
    (
        "paper_claim",
        "paper_claim now states what the paper found on that panel or statistic; the declared text had the US panel "
        "backwards (the paper finds pooled self-assessment above the US panel, which it explains by model identity)",
    ),
    (
        "the paper's side",
        "'holds' requires the interval on the side of the null where the paper's value lies; where the declared "
        "direction disagreed with the paper (the US panel's panel-minus-self and label-free records), the paper's "
        "side replaces it",
    ),
    (
        "tie order",
        "the error rate at the lowest coverage depends on how a tie group at the cut is ordered; the record reports "
        "the range over tie orders and holds only if the worst order holds (does not hold only if the best order "
        "does not)",
    ),
    (
        "not applicable",
        "a rank-normalised record tests that a pooled self-AUROC above the panel is model identity; on a panel "
        "whose pooled self-AUROC is clearly below the panel there is no such reversal to explain, and the record "
        "is 'not applicable' instead of 'holds'",
    ),
)


@dataclass(frozen=True)
class Amendment:
    """What the amendment of :data:`AMENDED` adds to one declared claim.

    ``scope``: ``"paper"`` when the paper makes the claim, ``"extension"`` otherwise.  ``paper_claim``: what the
    paper found, in our words (no number: the number is ``paper_value``).  ``paper_side``: the side of the null on
    which the paper's printed value lies (``"above"``/``"below"``, read from the paper; ``None`` where it prints no
    value, and the declared side stands).  ``paper_value_ids``: the claims of the paper's manifest whose printed
    values give the paper's value of the tested statistic (one id: that value; two: the first minus the second);
    the analysis never reads them, :func:`selfconf.book.scorecard.with_paper_values` does.  ``paper_of_id``: for a
    null of half the models, the claim printing the paper's number of models.  ``applicable_if``: ``"reversal"``
    when the record only applies to a panel whose pooled self-AUROC is not clearly below the panel's.
    ``tie_order``: the statistic depends on the order of a tie group (the verdict uses the range of orders).
    """

    scope: str
    paper_claim: str
    paper_side: str | None = None
    paper_value_ids: tuple[str, ...] = ()
    paper_of_id: str | None = None
    applicable_if: str | None = None
    tie_order: bool = False


#: The paper's Table 2 models by rank of self-AUROC (the claims printing their error at the lowest coverage).
_PAPER_TOP_ERROR_IDS = ("r1_riskcov_anthropic_err20", "r1_riskcov_xai_err20", "r1_riskcov_google_err20")

_MODEL_AMENDMENTS: dict[str, Amendment] = {
    "overconfident_every_model": Amendment(
        "paper",
        "The paper finds overconfidence in every model it evaluated: each model's mean stated confidence exceeds its "
        "accuracy (the value is its smallest CITL among the API models).",
        "above",
        ("r1_citl_range_min",),
    ),
    "saturated_typical_confidence": Amendment(
        "paper",
        "The paper finds the median stated confidence of most API models in a saturated band at or above its "
        "high-confidence threshold while their accuracy varies widely; the refusal-heavy and the dispersed-confidence "
        "models depart from it.",
        "above",
        ("r1_n_models_median_in_band",),
        "r1_n_models_median_in_band_of",
    ),
    "confident_answers_mostly_wrong": Amendment(
        "paper",
        "The paper finds most API answers stated at or above its high-confidence threshold wrong, pooled over the "
        "API models.",
        "above",
        ("r1_highconf_wrong_pooled_pct",),
    ),
    "ece_close_to_abs_citl": Amendment(
        "paper",
        "The paper finds each API model's ECE almost equal to its |CITL| (the gap is positive in every occupied bin "
        "for most models); it prints no single number for how close, so the declared tolerance is this chapter's.",
    ),
    "gap_positive_every_bin": Amendment(
        "paper",
        "The paper finds the confidence-minus-accuracy gap positive in every occupied bin for most API models (all "
        "but one bin for the others).",
        "above",
        ("r1_n_models_all_bins_positive",),
        "r1_n_models_all_bins_positive_of",
    ),
    "every_ci_excludes_chance": Amendment(
        "paper",
        "The paper finds every API model's self-AUROC interval above chance (the value is the bottom of its printed "
        "range).",
        "above",
        ("r1_self_auroc_span_min",),
    ),
    "best_self_auroc_moderate": Amendment(
        "paper",
        "The paper's highest self-AUROC (the refusal-heavy model's, which it reads as an upper bound on elicited "
        "self-knowledge) is the top of its printed range; the ceiling tested here is this chapter's declared "
        "number, not the paper's.",
        "below",
        ("r1_self_auroc_span_max",),
    ),
    "most_below_auroc_cutoff": Amendment(
        "paper",
        "The paper finds self-AUROC below its descriptive cut-off for most API models.",
        "above",
        ("r1_n_models_below_threshold",),
        "r1_n_models_below_threshold_of",
    ),
    **{
        f"residual_error_top{r}": Amendment(
            "paper",
            "The paper finds that each of its three best self-AUROC models keeps a substantial error rate among its "
            "most confident fifth of answers (its Table 2; the value is the paper's model of the same rank).",
            "above",
            (_PAPER_TOP_ERROR_IDS[r - 1],),
            tie_order=True,
        )
        for r in range(1, TOP_K + 1)
    },
}

_PAPER_PANEL_FINDINGS = {
    "US": {
        "self": "On the US panel the paper finds the members' pooled self-assessment above chance and above the "
        "panel's agreement signal (its apparent reversal).",
        "canonical": "On the US panel the paper finds pooled self-assessment above the panel (panel minus self below "
        "zero), a reversal it explains largely by model identity: ranked within each model, the pooled self-AUROC "
        "falls below the panel's.",
        "label_free": "On the US panel the paper's label-free agreement signal is also below pooled self-assessment "
        "(the value is the difference of its two printed AUROCs).",
        "rank_normalised": "On the US panel the paper finds the reversal largely between-model identity: once each "
        "model's confidences are ranked within the model, pooled self falls below the panel (the value is the "
        "difference of its two printed AUROCs).",
    },
    "CN": {
        "self": "On the CN panel (the headline comparison) the paper finds pooled self-assessment only weakly above "
        "chance.",
        "canonical": "On the CN panel (the headline comparison) the paper finds the agreement count far ahead of "
        "pooled self-assessment.",
        "label_free": "On the CN panel the paper finds the panel still ahead under the label-free recoding (the value "
        "is the difference of its two printed AUROCs).",
        "rank_normalised": "On the CN panel the paper finds no reversal to explain: rank normalisation leaves pooled "
        "self-assessment far below the panel (the value is the difference of its two printed AUROCs).",
    },
    "cross_bloc": {
        "self": "On the cross-bloc panel the paper finds pooled self-assessment above chance.",
        "canonical": "On the cross-bloc panel the paper finds the panel ahead of pooled self-assessment, by less "
        "than on the CN panel.",
    },
}

_PANEL_VALUE_IDS = {
    ("US", "self"): ("us_self_auroc_pooled",),
    ("US", "canonical"): ("us_panel_vs_self_delta",),
    ("US", "label_free"): ("us_panel_auroc_labelfree", "us_self_auroc_pooled"),
    ("US", "rank_normalised"): ("us_panel_auroc", "us_self_auroc_ranknorm"),
    ("CN", "self"): ("cn_self_auroc_pooled",),
    ("CN", "canonical"): ("cn_panel_vs_self_delta",),
    ("CN", "label_free"): ("cn_panel_auroc_labelfree", "cn_self_auroc_pooled"),
    ("CN", "rank_normalised"): ("cn_panel_auroc", "cn_self_auroc_ranknorm"),
    ("cross_bloc", "self"): ("xb_self_auroc_pooled",),
    ("cross_bloc", "canonical"): ("xb_panel_vs_self_delta",),
}
#: The side of the null on which the paper's value of each panel test lies (read from the paper's Result 1).
_PANEL_PAPER_SIDE = {
    ("US", "self"): "above",
    ("US", "canonical"): "below",
    ("US", "label_free"): "below",
    ("US", "rank_normalised"): "above",
    ("CN", "self"): "above",
    ("CN", "canonical"): "above",
    ("CN", "label_free"): "above",
    ("CN", "rank_normalised"): "above",
    ("cross_bloc", "self"): "above",
    ("cross_bloc", "canonical"): "above",
}


def _panel_amendment(c: Claim) -> Amendment:
    assert c.panel is not None and c.signal is not None
    key = (c.panel, c.signal)
    finding = _PAPER_PANEL_FINDINGS.get(c.panel, {}).get(c.signal)
    applicable = "reversal" if c.signal == "rank_normalised" else None
    if finding is None:
        where = "the all-models panel" if c.panel == ALL_PANEL else f"the {c.panel} panel for this signal"
        return Amendment(
            "extension",
            f"Not a claim of the paper (it prints no value on {where}); this chapter's extension: {c.paper_claim}",
            applicable_if=applicable,
        )
    return Amendment("paper", finding, _PANEL_PAPER_SIDE[key], _PANEL_VALUE_IDS[key], applicable_if=applicable)


#: The amendment of every declared claim, by claim id.
AMENDMENTS: dict[str, Amendment] = {
    c.id: (_panel_amendment(c) if c.panel else _MODEL_AMENDMENTS[c.id]) for c in SCORECARD
}


def amended_verdict(
    test: dict[str, Any], a: Amendment, *, declared_direction: int, reversal: bool | None = None
) -> tuple[str, int]:
    """The verdict under the amendment of :data:`AMENDED`, and the claimed side (+1 above, -1 below) it used.

    Definition: the claimed side is the paper's side (``a.paper_side``) where the paper prints a value, else
    the declared one.  A record whose claim needs a reversal the data do not show (``a.applicable_if ==
    "reversal"`` and ``reversal`` False) is ``not applicable``.  A tie-order dependent statistic
    (``a.tie_order``) holds only if the interval of its worst order for the claim holds, does not hold only if
    its best order does not hold, and is inconclusive otherwise (``test`` then carries ``tie_min``/``tie_max``,
    each with ``ci_low``/``ci_high``).  Otherwise :func:`verdict` on the test interval.

    >>> a = Amendment("paper", "", "below")
    >>> amended_verdict({"ci_low": 0.05, "ci_high": 0.09, "null": 0.0}, a, declared_direction=+1)
    ('does not hold', -1)
    >>> t = {"ci_low": 9.0, "ci_high": 11.0, "null": 8.0, "tie_min": {"ci_low": 7.0, "ci_high": 9.0},
    ...      "tie_max": {"ci_low": 9.0, "ci_high": 12.0}}
    >>> amended_verdict(t, Amendment("paper", "", "above", tie_order=True), declared_direction=+1)
    ('inconclusive', 1)
    """
    side = {"above": +1, "below": -1}[a.paper_side] if a.paper_side else declared_direction
    if a.applicable_if == "reversal" and reversal is False:
        return "not applicable", side
    null = float(test["null"])
    if a.tie_order:
        worst, best = (test["tie_min"], test["tie_max"]) if side > 0 else (test["tie_max"], test["tie_min"])
        v_worst = verdict(worst["ci_low"], worst["ci_high"], null=null, direction=side)
        v_best = verdict(best["ci_low"], best["ci_high"], null=null, direction=side)
        if v_worst == "holds":
            return "holds", side
        return ("does not hold" if v_best == "does not hold" else "inconclusive"), side
    return verdict(float(test["ci_low"]), float(test["ci_high"]), null=null, direction=side), side


# the amendment of 2026-12-03: dated and visible; the declaration and the amendment of 2026-12-02 are kept
#: Date of the second amendment.
AMENDED_2 = "2026-12-03"
#: Claims whose null is a threshold this chapter chose (not the paper), with the paper's values in view: exploratory.
EXPLORATORY_THRESHOLDS: dict[str, str] = {
    "best_self_auroc_moderate": "the ceiling was set by this chapter after the paper's per-model self-AUROCs "
    "(its Table 1) were on the page, not by a pre-stated rule; the paper states no ceiling",
    "ece_close_to_abs_citl": "the tolerance for 'almost exactly |CITL|' is this chapter's, set with the "
    "paper's Table 1 in view; the paper prints no tolerance",
    **{
        f"residual_error_top{r}": "the error floor is this chapter's, set with the paper's Table 2 in view; the paper "
        "states no floor"
        for r in range(1, TOP_K + 1)
    },
}
#: Test statistics with no valid bootstrap interval: the percentile bootstrap of an extreme (a maximum or minimum
#: over models) is not consistent where several models are near the top (Bickel & Freedman 1981; Andrews 2000).
NO_VALID_INTERVAL: dict[str, str] = {
    "max_auroc": "a percentile-bootstrap interval of a maximum over models is not a valid interval for the "
    "maximum (the bootstrap of an extreme is inconsistent when models tie near the top); no interval is given "
    "and the verdict is inconclusive",
}
#: What the amendment of 2026-12-03 changes, and why (shown in the chapter's amendment cell).
AMENDMENT_2_CHANGES: tuple[tuple[str, str], ...] = (
    (
        "exploratory thresholds",
        "a record whose null is a threshold this chapter chose with the paper's numbers in view (not a pre-stated "
        "rule) is marked exploratory (`exploratory`, `exploratory_why`); its verdict is read as exploratory",
    ),
    (
        "no interval for a maximum",
        "the highest self-AUROC over models has no valid percentile-bootstrap interval: `ci_low`/`ci_high` (and the "
        "test's) are withdrawn (null) and the verdict is inconclusive",
    ),
    (
        "zero-width interval",
        "an interval of zero width around a count (every draw gives the same count) is not a sampling interval: "
        "the record says the statistic is a count with no sampling uncertainty at that resolution (`interval_note`)",
    ),
    (
        "half a claim",
        "the saturation record tests only that most medians sit at or above the threshold; 'whatever their "
        "accuracy' is not tested, and the record says so (`tests_part`)",
    ),
)


def second_amendment(rec: dict[str, Any]) -> dict[str, Any]:
    """Apply the amendment of :data:`AMENDED_2` to one scorecard record (a new dict; the input is not changed).

    Keeps the verdict of the amendment of :data:`AMENDED` as ``verdict_amended_2026_12_02``; adds
    ``exploratory`` (+ ``exploratory_why``), ``interval_note`` and ``tests_part`` where they apply, and
    ``amended_2``.  Every existing key stays.

    >>> r = second_amendment({"id": "best_self_auroc_moderate", "verdict": "holds", "value": 0.79, "ci_low": 0.78,
    ...      "ci_high": 0.799, "test": {"statistic": "max_auroc", "ci_low": 0.78, "ci_high": 0.799}})
    >>> r["verdict"], r["ci_low"], r["exploratory"], r["verdict_amended_2026_12_02"]
    ('inconclusive', None, True, 'holds')
    >>> second_amendment({"id": "x", "verdict": "holds", "value": 26, "ci_low": 26, "ci_high": 26,
    ...                   "test": {"statistic": "n", "ci_low": 26, "ci_high": 26}})["interval_note"][:26]
    'a count with no sampling u'
    """
    out = dict(rec)
    out["test"] = dict(rec.get("test") or {})
    out["verdict_amended_2026_12_02"] = rec["verdict"]
    out["amended_2"] = AMENDED_2
    out["exploratory"] = rec["id"] in EXPLORATORY_THRESHOLDS
    if out["exploratory"]:
        out["exploratory_why"] = EXPLORATORY_THRESHOLDS[rec["id"]]
    stat = out["test"].get("statistic")
    if stat in NO_VALID_INTERVAL:
        out["ci_low"] = out["ci_high"] = None
        out["test"].update(ci_low=None, ci_high=None, margin=None)
        out["verdict"] = "inconclusive"
        out["interval_note"] = NO_VALID_INTERVAL[stat]
    elif out.get("ci_low") is not None and out.get("ci_low") == out.get("ci_high"):
        out["interval_note"] = (
            "a count with no sampling uncertainty at this resolution: every bootstrap draw gives the same count, "
            "so the interval has zero width and the verdict reads the count itself"
        )
    if rec["id"] == "saturated_typical_confidence":
        out["tests_part"] = (
            "tests that most medians sit at or above the threshold; 'whatever their accuracy' is not tested"
        )
    return out


def verdict(low: float, high: float, *, null: float, direction: int) -> str:
    """The declared verdict rule on an interval [low, high] of a test statistic.

    ``holds`` when the interval lies entirely on the side of ``null`` the claim names (``direction`` +1:
    above, -1: below), ``does not hold`` when it lies entirely on the other side, ``inconclusive`` when it
    contains the null.  (``not comparable`` is decided before the statistic, see :func:`scorecard`.)

    >>> verdict(0.55, 0.60, null=0.5, direction=+1), verdict(0.40, 0.45, null=0.5, direction=+1)
    ('holds', 'does not hold')
    >>> verdict(0.45, 0.55, null=0.5, direction=+1)
    'inconclusive'
    """
    if direction not in (+1, -1):
        raise ValueError(f"direction must be +1 or -1, got {direction!r}")
    if not (np.isfinite(low) and np.isfinite(high)) or low > high:
        raise ValueError(f"verdict: need a finite interval with low <= high, got [{low}, {high}]")
    above, below = low > null, high < null
    if (above and direction > 0) or (below and direction < 0):
        return "holds"
    if (below and direction > 0) or (above and direction < 0):
        return "does not hold"
    return "inconclusive"


# --------------------------------------------------------------------------------------------
# everything the chapter computes
# --------------------------------------------------------------------------------------------


@dataclass
class Results:
    """Every result of the chapter (see :func:`compute`)."""

    ext: pd.DataFrame
    table1: pd.DataFrame
    draws: ModelDraws
    panels: dict[str, PanelChoice]
    panel_results: dict[str, dict]
    tests: dict[str, tuple[float, float, float]]
    top_models: list[str]
    thresholds: dict[str, float]
    n_models: int
    n_items: int
    level: float = 0.95
    extras: dict[str, Any] = field(default_factory=dict)


def _interval(d: np.ndarray, level: float) -> tuple[float, float]:
    d = np.asarray(d, float)
    if not np.isfinite(d).all():
        raise ValueError(f"{int((~np.isfinite(d)).sum())} bootstrap draws are undefined")
    return bootstrap.percentile_interval(d, level)


def compute(
    ext: pd.DataFrame,
    *,
    seed: int,
    n_boot: int = 2000,
    level: float = 0.95,
    table1: pd.DataFrame | None = None,
    panel_names=None,
) -> Results:
    """Every statistic the scorecard needs, from the MMLU-Pro rows
    (:func:`selfconf.data.fetch.read_mmlu_pro_calibration`).

    Definition: Table 1 per model by :func:`selfconf.report.from_frame` (row bootstrap within model, its
    seeds); the model-summary tests on one item-clustered draw (:func:`model_draws`, generator
    ``summary.model_rng(seed, "real:models")``); the residual error at the quoted 20 % coverage for the
    :data:`TOP_K` models with the highest self-AUROC, by the report's count bootstrap
    (:func:`selfconf.bootstrap.count_draws`, generator ``summary.model_rng(seed, "real:risk:<model>")``);
    every panel of :func:`select_panels` by :func:`selfconf.panels.panel_intervals` (generator
    ``summary.model_rng(seed, "panel:<name>")``, the rule of Result 1).  ``tests`` maps each claim's
    ``test`` name to (value, low, high).

    ``table1`` may pass an already computed ``from_frame`` result (the notebook shows it too);
    ``panel_names`` restricts the panels (tests).

    Reference: Chernets (2026), Result 1, Tables 1-2.

    Steps: :func:`_model_summary_tests`, :func:`_residual_error_tests` (one generator per model) and
    :func:`_panel_tests` (one per panel), their tests in that order.

    Example: ``compute(read_mmlu_pro_calibration("data/external/mmlu-pro-calibration"), seed=20261130)``.
    """

    th = declared_thresholds()
    hc = th["high_conf_points"] / 100
    if table1 is None:
        table1 = report.from_frame(
            ext[["model", "item_id", "confidence", "correct"]],
            confidence_scale="unit",
            seed=seed,
            n_boot=n_boot,
            ece_bins=int(th["ece_bins"]),
        )
    n_models = int(ext["model"].nunique())
    n_items = int(ext["item_id"].nunique())
    d = model_draws(
        ext, n_boot=n_boot, rng=summary.model_rng(seed, "real:models"), threshold=hc, n_bins=int(th["ece_bins"])
    )
    tests = _model_summary_tests(d, th, level)
    top, risk_detail = _residual_error_tests(ext, table1, th, tests, seed=seed, n_boot=n_boot, level=level)
    choices, presults = _panel_tests(ext, panel_names, tests, seed=seed, n_boot=n_boot, level=level)
    return Results(ext, table1, d, choices, presults, tests, top, th, n_models, n_items, level, {"risk": risk_detail})


def _put(
    tests: dict[str, tuple[float, float, float]], name: str, point: float, draws: np.ndarray, level: float
) -> None:
    """``tests[name] = (point, low, high)``: ``point`` and the percentile interval of its bootstrap ``draws``.

    Example::

        >>> t = {}
        >>> _put(t, "x", 2, np.arange(101.0), 0.5)
        >>> t
        {'x': (2.0, 25.0, 75.0)}
    """
    lo, hi = _interval(draws, level)
    tests[name] = (float(point), lo, hi)


def _model_summary_tests(d: ModelDraws, th: dict[str, float], level: float) -> dict[str, tuple[float, float, float]]:
    """The model-summary tests (value, low, high) on the item-clustered draw ``d`` (:func:`model_draws`): the
    smallest calibration-in-the-large, the saturated models, the pooled high-confidence error rate, the largest
    ECE beyond |CITL|, the models with every bin above the diagonal, the AUROC range and the models below the
    declared AUROC cutoff; in this order."""
    tests: dict[str, tuple[float, float, float]] = {}
    hc = th["high_conf_points"] / 100
    P, D = d.point, d.draws
    _put(tests, "min_citl_pp", 100 * P["citl"].min(), 100 * D["citl"].min(axis=1), level)
    sat = P["median_confidence"] >= hc - metrics.EDGE_TOL
    _put(tests, "n_saturated", sat.sum(), (D["median_confidence"] >= hc - metrics.EDGE_TOL).sum(axis=1), level)
    _put(
        tests,
        "pooled_high_conf_wrong_pct",
        100 * P["high_conf_wrong"].sum() / P["high_conf_n"].sum(),
        100 * D["high_conf_wrong"].sum(axis=1) / D["high_conf_n"].sum(axis=1),
        level,
    )
    _put(
        tests,
        "max_ece_minus_abs_citl_pp",
        100 * (P["ece"] - np.abs(P["citl"])).max(),
        100 * (D["ece"] - np.abs(D["citl"])).max(axis=1),
        level,
    )
    _put(
        tests,
        "n_all_bins_positive",
        (P["nonpositive_bins"] == 0).sum(),
        (D["nonpositive_bins"] == 0).sum(axis=1),
        level,
    )
    _put(tests, "min_auroc", P["auroc"].min(), D["auroc"].min(axis=1), level)
    _put(tests, "max_auroc", P["auroc"].max(), D["auroc"].max(axis=1), level)
    cut = th["auroc_cutoff"]
    _put(tests, "n_below_cutoff", (P["auroc"] < cut).sum(), (D["auroc"] < cut).sum(axis=1), level)
    return tests


def _residual_error_tests(
    ext: pd.DataFrame,
    table1: pd.DataFrame,
    th: dict[str, float],
    tests: dict[str, tuple[float, float, float]],
    *,
    seed: int,
    n_boot: int,
    level: float,
) -> tuple[list[str], dict[str, dict]]:
    """Add to ``tests`` the residual error at the quoted coverage of the :data:`TOP_K` models with the best
    self-AUROC in ``table1`` (Table 2's choice), each with its best and worst tie orders on the same count
    draws (generator ``summary.model_rng(seed, "real:risk:<model>")``); return those models and, per model,
    its rank and its error at full coverage."""
    cov = th["coverage_pct"] / 100
    t1 = table1.dropna(subset=["auroc"])
    top = list(t1.sort_values("auroc", ascending=False, kind="stable")["model"].head(TOP_K))
    used = ext[ext["confidence"].notna()]
    risk_detail = {}
    for r, m in enumerate(top, start=1):
        sub = used[used["model"] == m]
        lv, pos, neg = metrics.level_counts(sub["confidence"].to_numpy(float), sub["correct"].to_numpy())
        pst = metrics.counts_statistics(lv, pos, neg, coverages=(cov, 1.0))
        point = pst["risk_coverage"][0]
        # the expected rate over tie orders (the declared statistic) and the best and worst tie orders, on the
        # same draws (amendment 2026-12-02: a tie-order dependent statistic reports its range)
        drs = [
            metrics.counts_statistics(lv, a, b, coverages=(cov,))
            for a, b in bootstrap.count_draws(pos, neg, n_boot=n_boot, rng=summary.model_rng(seed, f"real:risk:{m}"))
        ]
        dr = np.concatenate([st["risk_coverage"][:, 0] for st in drs])
        _put(tests, f"residual_error_top{r}_pct", 100 * point[0], 100 * dr, level)
        for end in ("min", "max"):
            _put(
                tests,
                f"residual_error_top{r}_pct:tie_{end}",
                100 * float(pst[f"risk_coverage_{end}"][0, 0]),
                100 * np.concatenate([st[f"risk_coverage_{end}"][:, 0] for st in drs]),
                level,
            )
        risk_detail[m] = {"rank": r, "error_at_full_coverage_pct": 100 * float(point[1])}
    return top, risk_detail


def _panel_tests(
    ext: pd.DataFrame,
    panel_names,
    tests: dict[str, tuple[float, float, float]],
    *,
    seed: int,
    n_boot: int,
    level: float,
) -> tuple[dict[str, PanelChoice], dict[str, dict]]:
    """Add to ``tests`` every statistic of each panel of :func:`select_panels` (only ``panel_names`` when given)
    as ``"<panel>:<statistic>"``, by :func:`selfconf.panels.panel_intervals` (generator
    ``summary.model_rng(seed, "panel:<name>")``); return the panel choices and each panel's results."""
    pf = panel_frame(ext)
    choices = select_panels(tuple(dict.fromkeys(ext["model"])))
    names = list(choices) if panel_names is None else list(panel_names)
    presults = {}
    for name in names:
        res = panels.panel_intervals(
            pf, choices[name].members, n_boot=n_boot, level=level, rng=summary.model_rng(seed, f"panel:{name}")
        )
        presults[name] = res
        for s in panels.PANEL_STATISTICS:
            ci_lo, ci_hi = res[f"{s}_ci"]
            tests[f"{name}:{s}"] = (float(res[s]), float(ci_lo), float(ci_hi))
    return choices, presults


def _null_value(c: Claim, th: dict[str, float], n_models: int) -> float:
    if c.null == "half":
        return n_models / 2
    if isinstance(c.null, str) and c.null.startswith("quoted:"):
        return float(quoted_value(c.null.split(":", 1)[1]))
    return float(c.null)


_SIGNAL_STAT = {
    "self": "self_auroc_pooled",
    "canonical": "panel_auroc",
    "label_free": "panel_auroc_labelfree",
    "rank_normalised": "self_auroc_ranknorm",
}


def scorecard(res: Results) -> list[dict[str, Any]]:
    """The scorecard records: one per :data:`SCORECARD` claim whose statistic was computed.

    Keys: ``id``, ``paper_claim`` (our words), ``dataset``, ``statistic``, ``value``, ``ci_low``, ``ci_high``,
    ``verdict`` (one of :data:`VERDICTS`), and for panel records ``members`` (model names as in the source
    files) and ``signal`` (one of :data:`SIGNALS`) plus ``panel``.  Every record also carries ``test``
    (the statistic the verdict judges, its value, interval, null and direction; for non-panel records the
    same as ``value``), ``unit``, ``rule``, ``paper_claim_ids`` (the Result 1 claims that print the paper's
    value), ``model`` for the residual-error records and ``declared``.

    Amended on :data:`AMENDED` (see :data:`AMENDMENT_CHANGES`): ``verdict`` is :func:`amended_verdict`'s (the
    declared one is ``verdict_declared``), ``paper_claim`` states what the paper found (the declared text is
    ``paper_claim_declared``), and every record has ``scope`` (``"paper"``/``"extension"``), ``paper_value`` (left
    ``None`` here: :func:`selfconf.book.scorecard.with_paper_values` fills it from the paper's manifest, which
    the analysis never reads), ``paper_value_ids``, ``paper_of_id`` and ``amended``; ``test`` gains
    ``direction_declared``, ``margin`` (how far the deciding interval clears the null on the claimed side,
    negative when it does not) and, for tie-order dependent statistics, ``tie_min``/``tie_max``.

    ``not comparable``: a label-free record whose canonical and label-free agreement counts coincide on
    every row (lettered answers: two correct answers always share a letter), so the recoding removes
    nothing and cannot test what the paper's sensitivity check tests.

    Reference: the declared scorecard of the chapter "The paper's claims on real answers".

    Example: ``scorecard(compute(ext, seed=1))[0]["verdict"]``.
    """
    out = []
    label = dataset_label(res.n_models, res.n_items)
    for c in SCORECARD:
        if c.panel is not None and c.panel not in res.panel_results:
            continue
        null = _null_value(c, res.thresholds, res.n_models)
        key = f"{c.panel}:{c.test}" if c.panel else c.test
        tv, tlo, thi = res.tests[key]
        rec: dict[str, Any] = {"id": c.id, "paper_claim": c.paper_claim, "dataset": label, "statistic": c.statistic}
        if c.panel:
            pr = res.panel_results[c.panel]
            assert c.signal is not None  # every panel record names its signal
            s = _SIGNAL_STAT[c.signal]
            rec.update(value=float(pr[s]), ci_low=float(pr[f"{s}_ci"][0]), ci_high=float(pr[f"{s}_ci"][1]))
        else:
            rec.update(value=tv, ci_low=tlo, ci_high=thi)
        v = verdict(tlo, thi, null=null, direction=c.direction)
        if c.not_comparable_if == "codings_coincide":
            assert c.panel is not None  # only panel records carry this condition
            if res.panel_results[c.panel]["n_rows_codings_differ"] == 0:
                v = "not comparable"
        declared_v = v
        a = AMENDMENTS[c.id]
        test: dict[str, Any] = {"statistic": c.test, "value": tv, "ci_low": tlo, "ci_high": thi, "null": null}
        if a.tie_order:
            for end in ("min", "max"):
                ev, elo, ehi = res.tests[f"{key}:tie_{end}"]
                test[f"tie_{end}"] = {"value": ev, "ci_low": elo, "ci_high": ehi}
        reversal = None
        if c.panel:
            # a reversal: the pooled self-AUROC is not clearly below the panel's (panel - self interval not above 0)
            reversal = not res.tests[f"{c.panel}:delta_panel_minus_self"][1] > 0
        if v != "not comparable":
            v, side = amended_verdict(test, a, declared_direction=c.direction, reversal=reversal)
        else:
            side = {"above": +1, "below": -1}[a.paper_side] if a.paper_side else c.direction
        used = test if not a.tie_order else (test["tie_min"] if side > 0 else test["tie_max"])
        test.update(
            direction="above" if side > 0 else "below",
            direction_declared="above" if c.direction > 0 else "below",
            margin=float(used["ci_low"] - null) if side > 0 else float(null - used["ci_high"]),
        )
        rec["verdict"] = v
        if c.panel:
            rec.update(members=list(res.panel_results[c.panel]["members"]), signal=c.signal, panel=c.panel)
        if c.id.startswith("residual_error_top"):
            rec["model"] = res.top_models[int(c.id[len("residual_error_top") :]) - 1]
        rec.update(
            test=test,
            unit=c.unit,
            rule=_RULE_AMENDED
            + (
                "; not comparable when the canonical and label-free codings give the same signal on every row"
                if c.not_comparable_if
                else ""
            ),
            paper_claim_ids=list(c.paper_ids),
            declared=DECLARED,
            # the amendment (AMENDED): scope, the paper's value (filled by selfconf.book.scorecard.with_paper_values,
            # never by the analysis), the declared text and verdict kept beside the amended ones
            scope=a.scope,
            paper_value=None,
            paper_value_ids=list(a.paper_value_ids),
            paper_of_id=a.paper_of_id,
            paper_claim_declared=c.paper_claim,
            verdict_declared=declared_v,
            amended=AMENDED,
        )
        rec["paper_claim"] = a.paper_claim
        out.append(second_amendment(rec))
    return out


def write_scorecard(records: list[dict], path: str | Path = SCORECARD_PATH) -> Path:
    """Write the records as a JSON list (UTF-8, indented); the folder is created.  Returns the path.

    Example: ``write_scorecard(scorecard(compute(ext, seed=1)))`` writes ``_build/scorecard.json``.
    """
    p = resolve(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(p)
    return p
