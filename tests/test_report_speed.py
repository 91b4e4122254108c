"""The speed-ups of the practitioner report keep its numbers: helper oracles and thread-count invariance."""

from __future__ import annotations

import json

import numpy as np
import pytest

from selfconf import metrics, report
from selfconf.report import command as report_command
from selfconf.report import core as report_core


def test_harmonic_numbers_match_digamma():
    from scipy.special import digamma

    x = np.concatenate([np.arange(0, 400), [0.5, 3.7, 19.99, 20.0, 20.5, 1e3 + 0.25, 1e6, 1e7]]).astype(float)
    ref = digamma(x + 1) + np.euler_gamma
    assert np.abs(metrics._harmonic(x) - ref).max() < 4e-15
    assert np.abs(metrics._harmonic(x[:30]) - ref[:30]).max() < 4e-15  # the small-array path
    assert metrics._harmonic(np.array([0.0, 1.0, 2.0])).tolist() == [0.0, 1.0, 1.5]


@pytest.mark.parametrize("strict", [False, True])
def test_count_at_or_below_matches_a_broadcast_comparison(strict):
    rng = np.random.default_rng(3)
    cum = np.cumsum(rng.integers(0, 4, size=(50, 30)), axis=1).astype(float)
    x = rng.integers(-2, 100, size=(50, 7)).astype(float)
    ref = (cum[:, :, None] < x[:, None, :]).sum(axis=1) if strict else (cum[:, :, None] <= x[:, None, :]).sum(axis=1)
    assert np.array_equal(metrics._count_at_or_below(cum, x, strict=strict), ref)


def test_kernel_applied_to_counts_equals_relplot_on_rows():
    relplot = pytest.importorskip("relplot")
    lv = np.array([0.05, 0.3, 0.31, 0.7, 0.99])
    pos, tot = np.array([[3.0, 1, 4, 1, 5]]), np.array([[4.0, 2, 9, 3, 5]])
    c = np.repeat(lv, tot[0].astype(int))
    y = np.concatenate([np.r_[np.ones(int(p)), np.zeros(int(t - p))] for p, t in zip(pos[0], tot[0], strict=True)])
    for sigma in (0.01, 0.05, 0.12, 0.4, 1.0):
        grid = np.linspace(0, 1, max(200, round(10 / sigma)))  # relplot's evaluation grid
        k = metrics.smooth_kernel(lv, sigma, grid)
        resid = tot * lv - pos
        ece_k = np.abs(resid @ k.T).sum() / (tot @ k.sum(axis=0) + metrics.SMOOTH_DENSITY_EPS * grid.size)
        assert ece_k[0] == pytest.approx(float(relplot.smECE_sigma(c, y, sigma)), rel=1e-12), sigma


def _rows(n_models=6, n=400, seed=5):
    import pandas as pd

    rng = np.random.default_rng(seed)
    m = np.repeat([f"m{i}" for i in range(n_models)], n)
    skill = np.repeat(rng.uniform(0.3, 0.9, n_models), n)
    return pd.DataFrame(
        {
            "model": m,
            "item_id": np.tile(np.arange(n), n_models),
            "confidence": np.clip(np.rint(rng.normal(100 * skill + 5, 15)), 0, 100),
            "correct": (rng.random(m.size) < skill).astype(int),
            "subject": rng.choice(["a", "b", "c"], m.size),
        }
    )


@pytest.mark.slow
def test_output_does_not_depend_on_the_thread_count(monkeypatch):
    df = _rows()
    docs = []
    for workers in (1, 2, 5):
        monkeypatch.setattr(report_core, "_workers", lambda n, w=workers: min(n, w))
        tab = report.from_frame(df, by="subject", n_boot=300, seed=4)
        docs.append(json.dumps(report.report_json(tab), sort_keys=True))
    assert docs[0] == docs[1] == docs[2]


def test_allocator_setting_is_harmless():
    report_command._keep_freed_blocks()  # glibc: mallopt; elsewhere a no-op; must not raise
    report_command._keep_freed_blocks(1 << 20)


def test_records_are_the_frame_rows():
    df = _rows(n_models=3, n=200)
    rows = report.rows_from_frame(df, by="subject")
    recs = report.compute_records(rows, n_boot=200, seed=2)
    tab = report.compute(rows, n_boot=200, seed=2)
    assert list(tab.columns) == list(report.JSON_MODEL_KEYS) and tab.attrs == recs.attrs
    assert json.dumps(report.report_json(recs), sort_keys=True) == json.dumps(report.report_json(tab), sort_keys=True)
    assert report.format_table(recs) == report.format_table(tab)


def test_json_report_does_not_import_pandas(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "rows.csv"
    _rows(n_models=2, n=50).drop(columns="subject").to_csv(path, index=False)
    code = (
        "import sys, io, contextlib\nfrom selfconf.cli.commands import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['report', {str(path)!r}, '--json', '--n-boot', '100'])\n"
        "print(rc, 'pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", "False"]


def test_the_package_exports_what_the_book_imports():
    # notebooks/22 imports HIGH_CONF and COVERAGES from selfconf.report; notebooks/26 calls report.coverage_key
    from selfconf.report import COVERAGES, HIGH_CONF, coverage_key

    assert HIGH_CONF == 0.8 and COVERAGES[0] == 1.0 and coverage_key(0.8) == "0.8"
    assert report.coverage_key is report_core.coverage_key


def _keys(tmp_path, values, name="k.csv"):
    from selfconf.data import rows as R

    path = tmp_path / name
    path.write_text("model,item_id,confidence,correct\n" + "".join(f"m,{v},50,1\n" for v in values))
    return R.columns_from([R.read_file(path, ["model", "item_id"], ["model"])]).keys("item_id").tolist()


@pytest.mark.parametrize(
    "values, same",
    [
        (["1", "2", "10", "0"], None),  # canonical: the values themselves
        (["7", "07"], False),  # parse alike, differ as text
        (["0x1F", "31"], False),  # Arrow parses hex
        (["0xFFFFF", "1048575"], False),  # hex with as many characters as the decimal has digits
        (["-0", "0"], False),
        (["00", "0"], False),
        (["+5", "5"], False),
        ([" 5", "5"], True),  # equal after trimming, as identifiers() decides
        (["a", "b"], False),
        (["9223372036854775807", "1"], None),
    ],
)
def test_item_keys_equal_exactly_where_the_identifiers_are(tmp_path, values, same):
    keys = _keys(tmp_path, values)
    from selfconf.data import rows as R

    path = tmp_path / "k.csv"
    codes = R.columns_from([R.read_file(path, ["model", "item_id"], ["model"])]).identifiers("item_id")[0].tolist()
    # the keys partition the rows as the codes do
    assert [[a == b for b in keys] for a in keys] == [[a == b for b in codes] for a in codes]
    if same is None:
        assert keys == [int(v) for v in values]  # the canonical path: no hashing
    else:
        assert (keys[0] == keys[1]) is same


def test_duplicate_check_tells_07_from_7_and_names_the_item(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("model,item_id,confidence,correct\na,7,50,1\na,07,60,0\nb,7,50,1\n")
    rows = report.load_rows([path])  # no duplicate: "07" is not "7"
    assert rows.rows_read == 3
    path.write_text("model,item_id,confidence,correct\na,7,50,1\nb,7,60,0\na,7,70,1\n")
    with pytest.raises(ValueError, match=r"line 4: duplicate row for model 'a', item_id '7' \(first at .*line 2\)"):
        report.load_rows([path])
    path.write_text("model,item_id,confidence,correct\na,x 1,50,1\na, x 1 ,60,0\n")
    with pytest.raises(ValueError, match=r"line 3: duplicate row for model 'a', item_id 'x 1'"):
        report.load_rows([path])


def test_huge_sparse_integer_ids_still_find_duplicates(tmp_path):
    path = tmp_path / "rows.csv"
    big = 2**62 + 5
    path.write_text(f"model,item_id,confidence,correct\na,{big},50,1\nb,{big},60,0\nb,3,60,0\nb,{big},70,1\n")
    with pytest.raises(ValueError, match=rf"line 5: duplicate row for model 'b', item_id '{big}'"):
        report.load_rows([path])


def test_models_read_as_a_dictionary_match_models_read_as_text(tmp_path):
    # a CSV (the reader encodes the model column) and a JSONL file (a list, encoded later) in one report
    csv_path, jsonl_path = tmp_path / "a.csv", tmp_path / "b.jsonl"
    csv_path.write_text("model,item_id,confidence,correct\nzeta,1,50,1\nalpha,1,60,0\nzeta,2,70,1\n")
    jsonl_path.write_text(
        "\n".join(
            json.dumps(r)
            for r in (
                {"model": "alpha", "item_id": 2, "confidence": 80, "correct": 1},
                {"model": "mid", "item_id": 1, "confidence": 40, "correct": 0},
            )
        )
    )
    rows = report.load_rows([csv_path, jsonl_path])
    assert rows.models.tolist() == ["alpha", "mid", "zeta"]
    assert [rows.models[c] for c in rows.model] == ["zeta", "alpha", "zeta", "alpha", "mid"]
    one = report.load_rows([csv_path])
    assert one.models.tolist() == ["alpha", "zeta"] and one.model.tolist() == [1, 0, 1]


def test_counts_statistics_subset_gives_the_same_values():
    rng = np.random.default_rng(5)
    lv = np.linspace(0.05, 1.0, 20)
    P, Q = rng.integers(0, 30, (50, 20)), rng.integers(0, 30, (50, 20))
    P[:, 3] = Q[:, 3] = 0  # an empty level in every draw
    full = metrics.counts_statistics(lv, P, Q, smooth_sigma=0.1, coverages=(1.0, 0.5))
    sub = metrics.counts_statistics(
        lv, P.astype(float), Q.astype(float), smooth_sigma=0.1, coverages=(), statistics=("ece", "aurc")
    )
    assert "median_confidence" not in sub and "auroc" not in sub and "smooth_ece" not in sub
    for k in ("n", "accuracy", "brier", "ece", "aurc", "high_conf_error_rate"):
        np.testing.assert_array_equal(sub[k], full[k])


def test_hugepage_switch_respects_the_environment(monkeypatch):
    import numpy._core.multiarray as mu

    calls = []
    monkeypatch.setattr(mu, "_set_madvise_hugepage", lambda flag: calls.append(flag) or True)
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    report_command._no_hugepage_advice()
    assert calls == []  # the user's setting stands
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE")
    report_command._no_hugepage_advice()
    assert calls == [False]
