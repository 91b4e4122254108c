"""Common tests over every registered metric (:mod:`selfconf.stats.registry`), in the style of scikit-learn's
``sklearn/metrics/tests/test_common.py``: parametrised from the registry, so a new metric gets them by
construction.  For each metric: invariance to row order and to duplicating the whole data set, the declared
bounds, the degenerate cases (all correct, all wrong, one confidence level) and an oracle outside the package
(scikit-learn, relplot, plain-Python loops).  A registered metric without an oracle here fails
:func:`test_every_registered_metric_has_an_oracle`.  Then a dummy metric registered for one test appears on every
surface: the terminal table, the JSON, the HTML page, the recalibration table, the book's Table 1 and chapter 26's
per-model statistics.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, roc_auc_score

from selfconf.report import core
from selfconf.report.html import build_html
from selfconf.sections import realanswers
from selfconf.stats import registry, summary
from selfconf.stats.registry import MetricSpec

ROOT = Path(__file__).resolve().parents[1]
NAN = float("nan")
THRESHOLD = 0.8
N_BINS = 10


# ---- oracles: plain loops and outside libraries, never the package's own kernels --------------------------------


def _bin_upper(c: float, n_bins: int = N_BINS) -> int:
    """Equal-width bin of the report's default rule: an interior edge belongs to the upper bin; a value within
    1e-9 of an edge counts as on it (``snap``)."""
    return min(int(math.floor(c * n_bins + 1e-8)), n_bins - 1)


def _bins(conf, y) -> dict[int, list[tuple[float, float]]]:
    out: dict[int, list[tuple[float, float]]] = {}
    for c, v in zip(conf, y, strict=True):
        out.setdefault(_bin_upper(c), []).append((c, v))
    return out


def _oracle_ece(conf, y, refusal):
    n = len(conf)
    return sum(abs(sum(c for c, _ in b) - sum(v for _, v in b)) for b in _bins(conf, y).values()) / n


def _oracle_mce(conf, y, refusal):
    return max(abs(sum(c for c, _ in b) / len(b) - sum(v for _, v in b) / len(b)) for b in _bins(conf, y).values())


def _oracle_debiased(conf, y, refusal):
    """Kumar, Liang & Ma (2019), Sec. 5: sum_b (n_b/n)[(c_b - a_b)^2 - a_b(1 - a_b)/(n_b - 1)], bins of >= 2 rows."""
    n, ce2 = len(conf), 0.0
    for b in _bins(conf, y).values():
        if len(b) < 2:
            continue
        cb = sum(c for c, _ in b) / len(b)
        ab = sum(v for _, v in b) / len(b)
        ce2 += len(b) / n * ((cb - ab) ** 2 - ab * (1 - ab) / (len(b) - 1))
    return math.sqrt(max(ce2, 0.0))


def _oracle_auroc(conf, y, refusal):
    return NAN if len(set(y)) < 2 else float(roc_auc_score(y, conf))


def _oracle_high_conf(conf, y, refusal):
    hi = [v for c, v in zip(conf, y, strict=True) if c >= THRESHOLD - 1e-9]
    return NAN if not hi else sum(1 - v for v in hi) / len(hi)


def _oracle_aurc(conf, y, refusal):
    """Mean over k = 1..n of the error rate among the k most confident rows; a cut inside a group of tied
    confidences takes the expected errors of a uniformly random subset of the group (linear in the count)."""
    groups: dict[float, list[float]] = {}
    for c, v in zip(conf, y, strict=True):
        groups.setdefault(c, []).append(v)
    total, above, err_above = 0.0, 0, 0.0
    for c in sorted(groups, reverse=True):
        g = groups[c]
        err_g = sum(1 - v for v in g)
        for j in range(1, len(g) + 1):
            total += (err_above + j * err_g / len(g)) / (above + j)
        above += len(g)
        err_above += err_g
    return total / len(conf)


def _oracle_smooth_ece(conf, y, refusal):
    relplot = pytest.importorskip("relplot")
    return float(relplot.smECE(np.asarray(conf, float), np.asarray(y, float)))


def _oracle_refusal(conf, y, refusal):
    known = [r for r in refusal if not math.isnan(r)]
    return NAN if not known else sum(known) / len(known)


ORACLES: dict[str, Callable] = {
    "accuracy": lambda c, y, r: sum(y) / len(y),
    "mean_confidence": lambda c, y, r: sum(c) / len(c),
    "median_confidence": lambda c, y, r: statistics.median(c),
    "citl": lambda c, y, r: sum(c) / len(c) - sum(y) / len(y),
    "brier": lambda c, y, r: (
        float(brier_score_loss(y, c))
        if len(set(y)) > 1
        else sum((a - b) ** 2 for a, b in zip(c, y, strict=True)) / len(c)
    ),
    "ece": _oracle_ece,
    "smooth_ece": _oracle_smooth_ece,
    "auroc": _oracle_auroc,
    "high_conf_error_rate": _oracle_high_conf,
    "refusal_rate": _oracle_refusal,
    "aurc": _oracle_aurc,
    "mce": _oracle_mce,
    "ece_debiased": _oracle_debiased,
}

#: When a metric is undefined (NaN) on a degenerate data set, and why (anything else NaN is a failure).
DECLARED_NAN = {
    "auroc": "one class: confidence cannot separate right from wrong",
    "high_conf_error_rate": "no answer at or above the threshold",
}


#: Metrics found by a numerical search, and the precision it stops at (the smooth ECE's bandwidth is a fixed point
#: found by bisection: duplicating the rows leaves the target unchanged but moves the search's path slightly).
SEARCH_TOL = {"smooth_ece": 1e-6}


# ---- data ------------------------------------------------------------------------------------------------------


def _data(kind: str, seed: int = 3) -> tuple[list[float], list[int], list[float]]:
    rng = np.random.default_rng(seed)
    if kind == "percent":  # stated confidences on a 0-100 grid, many ties
        c = rng.choice(np.arange(0, 101, 5), 400) / 100.0
    elif kind == "continuous":  # distinct values
        c = rng.beta(3, 1.5, 300)
    elif kind == "all_correct":
        c = rng.choice([0.6, 0.85, 0.95], 50)
    elif kind == "all_wrong":
        c = rng.choice([0.3, 0.85, 0.95], 50)
    else:  # one confidence level
        c = np.full(60, 0.9)
    if kind == "all_correct":
        y = np.ones(c.size, int)
    elif kind == "all_wrong":
        y = np.zeros(c.size, int)
    else:
        y = (rng.random(c.size) < c**1.3).astype(int)
    refusal = np.where(rng.random(c.size) < 0.1, 1.0, 0.0)
    refusal[:3] = np.nan  # a few unknown
    return [float(x) for x in c], [int(v) for v in y], [float(v) for v in refusal]


def _value(spec: MetricSpec, conf, y, refusal, options=None) -> float:
    return registry.evaluate(spec, conf, y, refusal=refusal, options=options)


def _same(a: float, b: float, tol: float = 1e-9) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


SPECS = registry.entries()
IDS = [m.name for m in SPECS]


def test_every_registered_metric_has_an_oracle():
    missing = [m.name for m in registry.entries() if m.name not in ORACLES]
    assert not missing, f"registered metrics without an oracle in this file: {missing}"


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@pytest.mark.parametrize("kind", ["percent", "continuous"])
def test_metric_equals_its_oracle(spec, kind):
    conf, y, refusal = _data(kind)
    assert _value(spec, conf, y, refusal) == pytest.approx(ORACLES[spec.name](conf, y, refusal), abs=1e-9)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_invariant_to_row_order(spec):
    conf, y, refusal = _data("percent")
    order = np.random.default_rng(11).permutation(len(conf))
    shuffled = [conf[i] for i in order], [y[i] for i in order], [refusal[i] for i in order]
    assert _same(_value(spec, conf, y, refusal), _value(spec, *shuffled), tol=1e-12)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_invariant_to_duplicating_the_data(spec):
    """A metric declared ``duplicate_invariant`` (a function of the empirical distribution) is unchanged when every
    row is duplicated; the others (AURC's mean over k = 1..n, the debiased ECE's variance correction) move, and
    must move exactly as their oracle does."""
    conf, y, refusal = _data("continuous")
    one, two = _value(spec, conf, y, refusal), _value(spec, conf * 2, y * 2, refusal * 2)
    if spec.duplicate_invariant:
        assert _same(one, two, tol=SEARCH_TOL.get(spec.name, 1e-9))
    else:
        assert not _same(one, two, tol=1e-9)
        assert two == pytest.approx(ORACLES[spec.name](conf * 2, y * 2, refusal * 2), abs=1e-9)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@pytest.mark.parametrize("kind", ["percent", "continuous", "all_correct", "all_wrong", "one_level"])
def test_within_declared_bounds_and_degenerate_cases(spec, kind):
    conf, y, refusal = _data(kind)
    v = _value(spec, conf, y, refusal)
    if math.isnan(v):
        assert spec.name in DECLARED_NAN, f"{spec.name} is NaN on {kind} without a declared reason"
        return
    lo, hi = spec.bounds
    assert lo - 1e-12 <= v <= hi + 1e-12, (spec.name, kind, v)
    if kind in ("all_correct", "all_wrong", "one_level"):  # a degenerate set: the defined value is the oracle's
        assert v == pytest.approx(ORACLES[spec.name](conf, y, refusal), abs=1e-9)


def test_degenerate_values_that_are_declared():
    conf, y, r = _data("all_correct")
    assert math.isnan(_value(registry.find("auroc"), conf, y, r))
    assert _value(registry.find("accuracy"), conf, y, r) == 1.0
    conf, y, r = _data("one_level")
    assert math.isnan(_value(registry.find("auroc"), conf, y, r)) or len(set(y)) > 1
    assert _value(registry.find("auroc"), conf, y, r) == 0.5  # one level, both classes: every pair tied
    assert _value(registry.find("median_confidence"), conf, y, r) == 0.9


def test_ece_options_against_scikit_learn_calibration_curve():
    """With interior edges to the lower bin and no snapping, the ECE is scikit-learn's calibration_curve bins."""
    conf, y, r = _data("continuous")
    true, pred = calibration_curve(y, conf, n_bins=N_BINS, strategy="uniform")
    ids = np.searchsorted(np.linspace(0.0, 1.0, N_BINS + 1)[1:-1], conf)  # scikit-learn's own bin rule
    counts = np.bincount(ids, minlength=N_BINS)
    want = float((np.abs(true - pred) * counts[counts > 0]).sum() / len(conf))
    got = _value(registry.find("ece"), conf, y, r, {"edge": "lower", "snap": False})
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("spec", [m for m in SPECS if m.batched], ids=lambda m: m.name)
def test_declared_function_is_the_reports_batched_value(spec):
    """A batched metric's declared function gives the value the report prints (computed in one pass)."""
    conf, y, r = _data("percent")
    frame = pd.DataFrame({"model": "m", "item_id": range(len(conf)), "confidence": conf, "correct": y})
    tab = core.from_frame(frame, n_boot=100)
    assert float(tab.loc[0, spec.name]) == pytest.approx(_value(spec, conf, y, r), abs=1e-12)


def test_registry_rejects_a_duplicate_name_and_restores():
    before = registry.entries()
    with pytest.raises(ValueError, match="already registered"):
        with registry.registered(MetricSpec("accuracy", "x", "num", "x")):
            pass
    assert registry.entries() == before


# ---- a dummy metric on every surface ---------------------------------------------------------------------------


def _share_at_or_above_half(lv, P, Q, opts):
    lv = np.asarray(lv, float)
    T = np.atleast_2d(np.asarray(P, float)) + np.atleast_2d(np.asarray(Q, float))
    return T[:, lv >= 0.5].sum(axis=1) / T.sum(axis=1)


DUMMY = MetricSpec(
    "dummy_share_high",
    "dummy %",
    "pct",
    "share of answers with confidence >= 0.5 (a test metric)",
    compute=_share_at_or_above_half,
    recalibrated=4,
    table1="Dummy %",
    model_draws=True,
)


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = []
    for model, shift in (("alpha", 0.0), ("beta", 0.1)):
        c = rng.choice(np.arange(20, 101, 10), 200)
        y = (rng.random(c.size) < c / 100 - shift).astype(int)
        rows.append(pd.DataFrame({"model": model, "item_id": range(c.size), "confidence": c, "correct": y}))
    return pd.concat(rows, ignore_index=True)


def test_a_dummy_metric_reaches_every_surface():
    df = _frame()
    want = {m: float((g.confidence >= 50).mean()) for m, g in df.groupby("model")}
    with registry.registered(DUMMY):
        tab = core.from_frame(df, n_boot=100, recalibrate="platt")
        text = core.format_table(tab)
        doc = core.report_json(tab)
        page = build_html(tab)
        head, body = core.recal_rows(tab)
        unit = df.assign(confidence=df.confidence / 100)
        t1 = summary.table1(unit, rng=0, n_boot=50)
        d = realanswers.model_draws(unit, n_boot=5, rng=0)
    name = DUMMY.name
    assert "dummy %" in text.split("95% intervals")[0] and name in text  # headline column, intervals table
    rec = {r["model"]: r for r in doc["models"]}
    assert rec["alpha"][name] == pytest.approx(want["alpha"]) and f"{name}_ci_low" in rec["alpha"]
    assert json.dumps(doc)  # the JSON document serialises
    assert "<th>dummy %</th>" in page
    assert f"{name} after" in head and rec["alpha"]["recalibrated"][name] is not None
    assert name in t1.columns and t1.set_index("model").loc["beta", name] == pytest.approx(want["beta"])
    assert name in d.point and d.point[name][list(d.models).index("alpha")] == pytest.approx(want["alpha"])
    assert name in d.draws and d.draws[name].shape == (5, 2)
    # and gone again after the block
    assert name not in core.json_model_keys() and name not in summary.table1_columns()


def test_readme_json_key_list_is_the_registry():
    """The README's JSON bullet names the interval metrics of the registry, in its order, and the others."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    bullet = text.split("- **JSON.**", 1)[1].split("\n- **", 1)[0]
    listed = bullet.split("for ", 1)[1].split(" (one", 1)[0].replace("\n", " ").replace(" and ", ", ")
    names = [w.strip() for w in listed.split(",") if w.strip()]
    assert names == [m.name for m in registry.entries() if m.interval]
    for m in registry.entries():
        if not m.interval:
            assert f"`{m.name}`" in bullet, m.name
    assert "selfconf.stats.registry" in bullet
