"""``design.glue_benchmark_age`` and ``readings._status_split`` against plain loops."""

from __future__ import annotations

import numpy as np
import pandas as pd

from selfconf.sections import design, readings
from selfconf.sections.computed import Builder


def test_benchmark_age_step_picks_the_widest_gap_by_a_loop():
    rows, excl, bench = design.load("data/reconstructed")
    age = design.benchmark_age(design.graded(rows), bench, seed=1, n_boot=20, level=0.95)
    c = Builder()
    design.glue_benchmark_age(c, age)
    v = c.build()
    gaps = dict(zip(age["model"], age["gap_pp"], strict=True))
    widest = max(gaps, key=lambda m: gaps[m])
    assert v["bench_age_example_model"] == widest
    assert (v["bench_age_gap_range_min"], v["bench_age_gap_range_max"]) == (min(gaps.values()), max(gaps.values()))
    assert len(v.part("benchmark_age")) == 1 + 3 * len(age) + 2 + 3


def test_status_split_counts_like_a_loop():
    g = np.random.default_rng(4)
    n = 50
    status = g.choice(np.array(readings.STATUSES), n)
    v = g.choice([-1, 0, 1], n)
    same = g.random(n) < 0.5
    rev = v == -1
    t = pd.DataFrame({"result_id": g.integers(0, 7, n)})
    s = readings._status_split(t, status, v, 1, same, rev)
    for st in readings.STATUSES:
        idx = [i for i in range(n) if status[i] == st]
        assert s[f"n_{st}"] == len(idx)
        assert s[f"n_{st}_survive"] == sum(v[i] == 1 for i in idx)
        assert s[f"n_{st}_inconclusive"] == sum(v[i] == 0 for i in idx)
        assert s[f"n_{st}_reversed"] == sum(rev[i] for i in idx)
        assert s[f"n_{st}_distinct"] == len({t["result_id"][i] for i in idx})
    assert "n_distinct" not in readings._status_split(t.drop(columns="result_id"), status, v, 1, same, rev)
