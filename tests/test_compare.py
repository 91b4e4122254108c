"""`selfconf compare` / `selfconf.report.compare`: DeLong against a plain O(n^2) implementation, the paired
item-clustered bootstrap against an independent loop and against `bootstrap.paired_auroc_contrast`, order
invariance, and the command line."""

from __future__ import annotations

import json
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from test_report_layout import LAYOUT, _foreign, _write

from selfconf import bootstrap, cli, metrics
from selfconf.report import compare
from selfconf.stats.paired import delong_paired
from selfconf.stats.streams import stream


def _delong_loop(sa, ya, sb, yb):
    """DeLong et al. (1988) written from the paper: placement values by comparing every (positive, negative)
    pair, per-class sample (co)variances.  For arms with different labels: the sum over items of the products of
    the standardised placement deviations (the definition stated in `delong_paired`)."""

    def placements(s, y):
        pos = [i for i in range(len(s)) if y[i] == 1]
        neg = [j for j in range(len(s)) if y[j] == 0]
        v = np.zeros(len(s))
        for i in pos:
            v[i] = sum(1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0 for j in neg) / len(neg)
        for j in neg:
            v[j] = sum(1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0 for i in pos) / len(pos)
        auc = float(np.mean([v[i] for i in pos]))
        return auc, v, pos, neg

    aa, va, pa, na = placements(sa, ya)
    ab, vb, pb, nb = placements(sb, yb)
    if list(ya) == list(yb):  # the textbook paired test: covariance matrices of V10 and V01
        s10 = np.cov(np.vstack([va[pa], vb[pa]]), ddof=1)
        s01 = np.cov(np.vstack([va[na], vb[na]]), ddof=1)
        cov = s10 / len(pa) + s01 / len(na)
        var = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    else:
        ta = np.zeros(len(sa))
        tb = np.zeros(len(sb))
        for i in range(len(sa)):
            m, n = len(pa), len(na)
            ta[i] = (va[i] - aa) / np.sqrt(m * (m - 1) if ya[i] == 1 else n * (n - 1))
            m, n = len(pb), len(nb)
            tb[i] = (vb[i] - ab) / np.sqrt(m * (m - 1) if yb[i] == 1 else n * (n - 1))
        var = float(np.sum((ta - tb) ** 2))
    return aa - ab, float(var)


def _arms(seed, n=120, same_labels=False):
    rng = np.random.default_rng(seed)
    ya = rng.integers(0, 2, n)
    yb = ya.copy() if same_labels else rng.integers(0, 2, n)
    sa = np.round(np.clip(0.5 + 0.3 * (ya - 0.5) + rng.normal(0, 0.25, n), 0, 1), 1)  # tied levels
    sb = np.round(np.clip(0.5 + 0.1 * (yb - 0.5) + rng.normal(0, 0.25, n), 0, 1), 2)
    return sa, ya, sb, yb


@pytest.mark.parametrize("same_labels", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_delong_equals_a_plain_pairwise_implementation(seed, same_labels):
    sa, ya, sb, yb = _arms(seed, same_labels=same_labels)
    diff, var = _delong_loop(sa, ya, sb, yb)
    got = delong_paired(sa, ya, sb, yb)
    assert abs(got["difference"] - diff) < 1e-6
    assert abs(got["variance"] - var) < 1e-6
    z = diff / np.sqrt(var)
    assert abs(got["p_two_sided"] - 2 * (1 - NormalDist().cdf(abs(z)))) < 1e-6
    assert got["same_labels"] == float(same_labels)


def _frames(seed=3, n=150):
    sa, ya, sb, yb = _arms(seed, n)
    items = [f"q{i:03d}" for i in range(n)]
    a = pd.DataFrame({"model": "m1", "item_id": items, "confidence": sa, "correct": ya})
    b = pd.DataFrame({"model": "m2", "item_id": items, "confidence": sb, "correct": yb})
    return a, b


def test_compare_delong_matches_the_oracle_and_counts_items():
    a, b = _frames()
    # drop 5 items from A and 7 from B, exclude one ungraded row of B: shared = 150 - 5 - 7 - 1
    a2 = a.iloc[5:].copy()
    b2 = b.iloc[:-7].copy()
    b2.loc[b2.index[20], "correct"] = np.nan
    r = compare(a2, b2, n_boot=200)["pairs"][0]
    assert r["n_items_shared"] == 137
    assert (r["n_items_only_a"], r["n_items_only_b"]) == (8, 5)  # 7 absent from B, 1 ungraded there
    assert r["excluded_b"]["missing_correct"] == 1
    keep = set(a2.item_id) & set(b2.dropna().item_id)
    aa = a2[a2.item_id.isin(keep)].sort_values("item_id")
    bb = b2[b2.item_id.isin(keep)].sort_values("item_id")
    diff, var = _delong_loop(
        aa.confidence.to_numpy(), aa.correct.to_numpy(), bb.confidence.to_numpy(), bb.correct.to_numpy()
    )
    assert abs(r["delong"]["difference"] - diff) < 1e-6
    assert abs(r["delong"]["variance"] - var) < 1e-6
    assert abs(r["metrics"]["auroc"]["difference"] - diff) < 1e-12


def test_bootstrap_is_paired_and_clustered_on_items():
    """An independent loop: draw item indices with the comparison's stream, evaluate every metric of both arms
    on the same resampled items with the row-level functions; the intervals and p-values agree."""
    a, b = _frames()
    n_boot = 300
    res = compare(a, b, n_boot=n_boot, seed=5)["pairs"][0]
    gen = stream(5, "compare", "m1", "m2")
    n = len(a)
    picks = gen.integers(0, n, size=(n_boot, n), dtype=bootstrap._index_dtype(n))
    ca, ya, cb, yb = a.confidence.to_numpy(), a.correct.to_numpy(), b.confidence.to_numpy(), b.correct.to_numpy()
    fns = {
        "auroc": metrics.auroc,
        "ece": lambda c, y: metrics.ece(c, y, n_bins=10),
        "brier": metrics.brier,
        "accuracy": lambda c, y: float(np.mean(y)),
        "aurc": metrics.aurc,
    }
    for key, f in fns.items():
        d = np.array([f(ca[i], ya[i]) - f(cb[i], yb[i]) for i in picks])
        lo, hi = bootstrap.percentile_interval(d, 0.95)
        p = min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0)))
        m = res["metrics"][key]
        assert abs(m["ci_low"] - lo) < 1e-9 and abs(m["ci_high"] - hi) < 1e-9, key
        assert abs(m["p_value"] - p) < 1e-12, key
        assert abs(m["difference"] - (f(ca, ya) - f(cb, yb))) < 1e-12, key
    # the project's paired AUROC contrast, given the same stream, draws the same items for both arms
    pc = bootstrap.paired_auroc_contrast(ca, cb, ya, yb, a.item_id.to_numpy(), n_boot, stream(5, "compare", "m1", "m2"))
    assert (pc.low, pc.high, pc.p_two_sided) == pytest.approx(
        (res["metrics"]["auroc"]["ci_low"], res["metrics"]["auroc"]["ci_high"], res["metrics"]["auroc"]["p_value"]),
        abs=1e-12,
    )
    holm = bootstrap.holm([res["metrics"][k]["p_value"] for k in fns])
    assert [res["metrics"][k]["p_holm"] for k in fns] == pytest.approx(list(holm))


def test_a_permutation_of_one_input_changes_nothing():
    a, b = _frames()
    r1 = compare(a, b, n_boot=200)
    r2 = compare(a, b.sample(frac=1.0, random_state=1), n_boot=200)
    assert json.dumps(r1, sort_keys=True) == json.dumps(r2, sort_keys=True)


def test_two_runs_in_one_column_and_two_models_in_one_file():
    a, b = _frames()
    runs = pd.concat([a.assign(run="old"), b.assign(model="m1", run="new")])
    r = compare(runs, by="run", n_boot=200)["pairs"][0]
    # runs sorted by name: "new" is A, "old" is B
    assert (r["a"], r["b"]) == ("m1 run=new", "m1 run=old")
    direct = compare(b.assign(model="m1"), a.assign(model="m0"), n_boot=200)["pairs"][0]
    assert r["delong"] == direct["delong"]
    both = pd.concat([a, b])
    r2 = compare(both, models=["m2", "m1"], n_boot=200)["pairs"][0]
    assert r2["metrics"]["brier"]["difference"] == pytest.approx(-direct["metrics"]["brier"]["difference"] * -1)


def test_cli_compare_reads_any_layout_and_writes_json_and_html(tmp_path, capsys):
    a, b = _frames()
    pa = _write(tmp_path / "a.csv", _foreign(a), sep=";")
    pb = _write(tmp_path / "b.csv", _foreign(b), sep="\t")  # a TSV saved as .csv
    html = tmp_path / "cmp.html"
    argv = ["compare", pa, pb, "--columns", LAYOUT, "--n-boot", "200", "--json", "--html", str(html)]
    assert cli.main(argv) == 0
    cap = capsys.readouterr()
    doc = json.loads(cap.out)
    assert "delimiter ';' (semicolon) detected" in cap.err and "delimiter tab detected" in cap.err
    fa = _foreign(a)
    composite = (fa.qset + "/" + fa.question_id.astype(str)).to_numpy()
    ref = compare(a.assign(item_id=composite), b.assign(item_id=composite), n_boot=200)
    assert doc["pairs"][0]["metrics"] == json.loads(json.dumps(ref["pairs"][0]["metrics"]))
    page = html.read_text()
    assert "<script" not in page and "http" not in page and 'data-metric="auroc"' in page
    assert cli.main(["compare", pa, pb, "--columns", LAYOUT, "--n-boot", "200"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("ECE:") and "--ece-edge lower --no-ece-snap" in out.splitlines()[0]
    assert max(len(line) for line in out.splitlines() if not line.startswith(("intervals", "DeLong:", "differ"))) <= 120
