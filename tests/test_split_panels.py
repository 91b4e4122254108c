"""The named steps of ``selfconf.panels.panel_intervals`` and ``panel_readings``, against outside references.

Oracle for the draws: the rows of a draw built by repeating every item as often as it is drawn, then the point
estimates of :func:`selfconf.panels.panel_point_estimates` on them (an independent path: rows, not cell counts).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from selfconf import bootstrap, panels


def _rows(n_models=3, n=30, seed=0):
    g = np.random.default_rng(seed)
    m = n_models * n
    return pd.DataFrame(
        {
            "model": np.repeat([f"m{i}" for i in range(n_models)], n),
            "item_id": np.tile(np.arange(n), n_models),
            "parse_ok": 1,
            "confidence": g.choice([40, 60, 80, 95], m),
            "correct": g.integers(0, 2, m),
            "refusal": 0,
            "answer_class": g.choice(["x", "y", "z"], m),
        }
    )


def test_panel_draws_equal_point_estimates_on_repeated_items():
    rows = _rows()
    members = ("m0", "m1", "m2")
    p = panels.panel_rows(rows, members)
    mult = bootstrap.cluster_multiplicities(p.correct.shape[0], 4, np.random.default_rng(1))
    draws = panels._panel_draws(
        p, mult, panels.agreement_signal(p, "canonical"), panels.agreement_signal(p, "label_free")
    )
    items = np.asarray(p.items)
    for b in range(mult.shape[0]):
        picked = np.repeat(items, mult[b])
        parts = [rows[rows["item_id"] == it].assign(item_id=f"{it}#{c}") for c, it in enumerate(picked)]
        est = panels.panel_point_estimates(panels.panel_rows(pd.concat(parts, ignore_index=True), members))
        for s in ("self_auroc_pooled", "panel_auroc", "panel_auroc_labelfree", "within_model_macro"):
            assert np.concatenate(draws[s])[b] == pytest.approx(est[s], abs=1e-12), (b, s)


def test_leave_out_records_are_the_smaller_panels_point_values():
    rows = _rows(4, 40, seed=3)
    members = ("m0", "m1", "m2", "m3")
    kids = np.random.default_rng(0).spawn(4 + len(members))
    canonical = dict(panels.CANONICAL_READING)
    (recs,) = panels._leave_out_records(rows, members, [canonical], 30, kids)
    assert [r["left_out"] for r, _ in recs] == list(members)
    for rec, d in recs:
        rest = tuple(m for m in members if m != rec["left_out"])
        alone = panels.panel_readings(rows, rest, readings=[canonical], n_boot=20, rng=0)
        assert rec["panel_auroc"] == pytest.approx(alone["panel_auroc"][0], abs=1e-12)
        assert rec["delta"] == pytest.approx(alone["delta"][0], abs=1e-12)
        assert (rec["leave_out"], rec["canonical"], len(d), d[0].size) == ("each_member", False, 4, 31)


def test_attach_intervals_are_numpy_percentiles_of_the_draws():
    g = np.random.default_rng(2)
    draws = [np.r_[0.5, g.normal(0.5, 0.1, 400)] for _ in range(4)]
    draws[3][5] = np.nan  # one undefined draw of delta
    rec = {k: panels.CANONICAL_READING[k] for k in panels.READINGS}
    panels._attach_intervals([rec], draws, 0.9)
    for name, d in zip(("panel_auroc", "self_auroc", "self_auroc_pooled", "delta"), draws, strict=True):
        lo, hi = np.nanquantile(d[1:], [0.05, 0.95])
        assert (rec[f"{name}_ci_low"], rec[f"{name}_ci_high"]) == pytest.approx((lo, hi))
    assert rec["undefined_draws"] == 1 and rec["status"] == panels.reading_status(panels.CANONICAL_READING)
