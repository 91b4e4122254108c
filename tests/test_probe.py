"""`selfconf probe`: the book's Table 3 through the probe's path, outside-reference checks of its intervals,
the scripted stub models (consuming flagged, blind and pinned not), dry run, resume after kill -9, bad input."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import brier_score_loss, roc_auc_score
from stub_server import StubServer

from selfconf import cli
from selfconf.cli import probe as probe_cli
from selfconf.data import families
from selfconf.sections import ladder, result2
from selfconf.sections import probe as probe_an

ROOT = Path(__file__).resolve().parents[1]
BOOK_SEED, BOOK_N_BOOT = 20261130, 2000  # the defaults of notebooks/05_result2.py
DOMAINS = ["law", "music", "physics", "history", "film", "sports"]
ROWS = [
    (f"{d}-{i}", f"Probe question {d} {i}: name the code word?", f"word {d} {i}", d) for d in DOMAINS for i in range(8)
]


@pytest.fixture(scope="module")
def ladder_rows():
    return families.load_ladder(ROOT / "data" / "reconstructed")


@pytest.fixture(scope="module")
def pstub():
    server = StubServer({q: a for _, q, a, _ in ROWS}, pace_seconds=0.02)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def battery(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("battery") / "battery.csv"
    write_battery(p, ROWS)
    return p


def write_battery(p: Path, rows, header=("item_id", "question", "answer", "domain")) -> Path:
    with open(p, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return p


def probe_argv(stub: StubServer, model: str, battery: Path, out: Path, *extra: str) -> list[str]:
    return [
        "probe",
        "--base-url",
        stub.base_url,
        "--model",
        model,
        "--battery",
        str(battery),
        "--out",
        str(out),
        "--api-key-env",
        "",
        "--backoff-base",
        "0.01",
        "--n-boot",
        "400",
        "--quiet",
        *extra,
    ]


def run_json(capsys, argv) -> dict:
    assert cli.main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


# ------------------------------------------------------------------------------ the book's Table 3


def test_analyse_only_reproduces_table3_and_the_exploratory_contrast(ladder_rows, capsys):
    """`--analyse-only` on the shipped ladder prints the book's Table 3 cells and contrasts at the printed precision."""
    frames, profiles, _ = ladder_rows
    out = run_json(capsys, ["probe", "--analyse-only", str(ROOT / "data" / "reconstructed" / "ladder")])
    res = out["subjects"]["sonnet5"]
    book = result2.compute(frames, profiles, bound=0.85, n_rungs=4, seed=BOOK_SEED, n_boot=BOOK_N_BOOT).values
    arms = {r["arm"]: r for r in res["arms"]}
    assert list(arms) == list(ladder.ARMS)
    for arm in ladder.ARMS:
        for col, key in (("accuracy", "acc"), ("auroc", "auroc"), ("brier", "brier"), ("ece", "ece")):
            assert f"{arms[arm][col]:.3f}" == f"{book[f't3_{arm}_{key}']:.3f}", (arm, col)
        assert arms[arm]["n"] == book["ladder_n_rows_per_arm"]
    con = {(r["contrast"], r["metric"]): r for r in res["contrasts"]}
    for name, key in (("core-placebo", "ladder_core_vs_placebo"), ("core-off", "ladder_core_vs_off")):
        r = con[(name, "auroc")]
        assert r["family"] == "confirmatory"
        assert f"{r['value']:.3f}" == f"{book[key + '_delta']:.3f}"
        assert f"{r['ci_low']:.3f}" == f"{book[key + '_delta_ci_lo']:.3f}"
        assert f"{r['ci_high']:.3f}" == f"{book[key + '_delta_ci_hi']:.3f}"
        assert f"{r['p']:.3f}" == f"{book[key + '_p_raw']:.3f}"
    assert f"{con[('core-placebo', 'auroc')]['p_holm']:.3f}" == f"{book['ladder_p_holm_adj']:.3f}"
    # Result 3's exploratory CORE - SHUFFLED on the confirmatory rung, mirrored as shuffled - core
    pc = ladder.paired_contrast(frames["sonnet5"], "shuffled", BOOK_N_BOOT, BOOK_SEED)
    sh = con[("shuffled-core", "auroc")]
    assert (sh["value"], sh["ci_low"], sh["ci_high"], sh["p"]) == pytest.approx(
        (-pc.estimate, -pc.high, -pc.low, pc.p_two_sided)
    )
    assert sh["family"] == "exploratory" and sh["p_holm"] is None
    assert res["checks"]["placebo_rho"] == pytest.approx(book["ladder_placebo_rho_sonnet"])
    assert res["checks"]["demoted"] is False
    assert {s: r["checks"]["demoted"] for s, r in out["subjects"].items()} == {
        "haiku45": True,
        "sonnet5": False,
        "opus48": True,
        "fable5": True,
    }
    # the JSON shape of the issue
    for r in res["arms"]:
        for k in probe_an.ARM_METRICS:
            assert {k, f"{k}_ci_low", f"{k}_ci_high"} <= set(r)
    assert all(
        {"contrast", "metric", "value", "ci_low", "ci_high", "p", "p_holm", "family"} <= set(r)
        for r in res["contrasts"]
    )


@pytest.mark.slow
def test_arm_values_match_sklearn_and_intervals_match_an_independent_item_bootstrap(ladder_rows):
    """Estimates against scikit-learn; interval ends against a plain loop over resampled items (other seed)."""
    df = ladder_rows[0]["sonnet5"]
    recs = {r["arm"]: r for r in probe_an.arm_records(df, n_boot=2000, seed=3)}
    rng = np.random.default_rng(12345)
    for arm in ("core", "off"):
        sub = ladder.scored_rows(df)[lambda d, a=arm: d["arm"] == a]
        ans = ladder.answered_rows(sub)
        c, y = ans["confidence"].to_numpy() / 100, ans["correct"].to_numpy().astype(int)
        assert recs[arm]["auroc"] == pytest.approx(roc_auc_score(y, c))
        assert recs[arm]["brier"] == pytest.approx(brier_score_loss(y, c))
        assert recs[arm]["mean_confidence"] == pytest.approx(c.mean())
        answered = ((sub["status"] == "ok") & ~sub["abstained"]).to_numpy()
        yy, cc = sub["correct"].to_numpy().astype(int), sub["confidence"].to_numpy() / 100
        rows_of = [np.flatnonzero(sub["item_id"].to_numpy() == k) for k in sub["item_id"].unique()]
        acc, auc, conf = [], [], []
        for _ in range(500):  # resample items with replacement, keep all their rows
            take = np.concatenate([rows_of[i] for i in rng.integers(0, len(rows_of), len(rows_of))])
            a = take[answered[take]]
            acc.append(yy[take].mean())
            auc.append(roc_auc_score(yy[a], cc[a]))
            conf.append(cc[a].mean())
        for k, draws, tol in (("accuracy", acc, 0.012), ("auroc", auc, 0.025), ("mean_confidence", conf, 0.006)):
            lo, hi = np.quantile(draws, [0.025, 0.975])
            assert recs[arm][f"{k}_ci_low"] == pytest.approx(lo, abs=tol), (arm, k)
            assert recs[arm][f"{k}_ci_high"] == pytest.approx(hi, abs=tol), (arm, k)


def test_confidence_shift_matches_an_independent_loop():
    rng = np.random.default_rng(0)
    n = 60
    rows = []
    for i in range(n):
        base = rng.integers(30, 90)
        for rep in (1, 2):
            for arm, add in (("off", 0), ("forged", 5 + (i % 7))):
                rows.append((f"i{i}", "d", arm, rep, False, "ok", False, float(base + add + rep), bool(i % 3)))
    df = pd.DataFrame(
        rows, columns=["item_id", "bin", "arm", "replicate", "is_trap", "status", "abstained", "confidence", "correct"]
    )
    r = probe_an.paired_confidence_shift(df, "forged", "off", n_boot=3000, seed=1)
    per_item = np.array([5 + (i % 7) for i in range(n)], float)
    assert r["value"] == pytest.approx(per_item.mean())
    draws = [per_item[rng.integers(0, n, n)].mean() for _ in range(3000)]
    lo, hi = np.quantile(draws, [0.025, 0.975])
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi), abs=0.15)


def test_threaded_analysis_equals_the_job_by_job_one(ladder_rows, monkeypatch):
    """``analyse`` runs its jobs on the report's thread pool; every job has its own named stream, so the result
    (every value, bit for bit) equals the jobs run one after the other, and equals the public per-part functions
    the book's readers call (:func:`arm_records`, :func:`contrast_records`)."""
    from selfconf import bootstrap
    from selfconf.report import core

    frames, profiles, _ = ladder_rows
    pools: list[int] = []
    real = core._map_units
    monkeypatch.setattr(core, "_map_units", lambda fn, n: pools.append(n) or real(fn, n))
    threaded = probe_an.analyse(frames["sonnet5"], n_boot=300, seed=5, profile=profiles["sonnet5"])
    assert pools == [5]  # the per-arm records, three AUROC contrasts, the shifts' draw
    with bootstrap.recording_intervals():  # while intervals are recorded, the jobs run one after the other
        serial = probe_an.analyse(frames["sonnet5"], n_boot=300, seed=5, profile=profiles["sonnet5"])
    assert pools == [5]
    parts = {
        "arms": probe_an.arm_records(frames["sonnet5"], n_boot=300, seed=5),
        "contrasts": probe_an.contrast_records(frames["sonnet5"], n_boot=300, seed=5),
    }
    for res in (serial, parts):
        for key in ("arms", "contrasts"):
            assert json.dumps(threaded[key], default=repr) == json.dumps(res[key], default=repr)


# ------------------------------------------------------------------------------ the stub models


@pytest.mark.parametrize(
    "model, manipulable", [("probe-consuming", True), ("probe-blind", False), ("probe-pinned", False)]
)
def test_probe_flags_the_consuming_model_only(pstub, battery, tmp_path, capsys, model, manipulable):
    res = run_json(capsys, probe_argv(pstub, model, battery, tmp_path / "log.jsonl"))["subjects"][model]
    fo = next(r for r in res["contrasts"] if r["contrast"] == "forged-off" and r["metric"] == "mean_confidence")
    assert res["checks"]["manipulable"] is manipulable
    if manipulable:
        assert fo["ci_low"] > 0
    else:
        assert fo["ci_low"] <= 0 <= fo["ci_high"]
    assert abs(res["checks"]["placebo_rho"]) < probe_an.PLACEBO_RHO_MAX
    prof = res["checks"]["profile"]  # stage 1: per domain, counts and a Wilson interval
    assert [r["domain"] for r in prof] == sorted(DOMAINS) and sum(r["n"] for r in prof) == len(ROWS) // 2
    assert all(r["ci_low"] <= r["accuracy"] <= r["ci_high"] for r in prof)
    assert {r["arm"] for r in res["arms"]} == set(probe_an.PROBE_ARMS)
    assert all(r["n"] == len(ROWS) // 2 * 2 for r in res["arms"])  # held-out half x 2 replicates


def test_progress_counts_each_stage_against_its_own_cells(pstub, battery, tmp_path, capsys):
    """Each stage's progress runs up to exactly its own number of cells (stage 1 used to be added to stage 2's
    count, printing "264/240"), and the closing line totals the requests of both stages."""
    argv = [a for a in probe_argv(pstub, "probe-blind", battery, tmp_path / "p.jsonl") if a != "--quiet"]
    assert cli.main(argv) == 0
    text = capsys.readouterr()
    lines = (text.out + text.err).splitlines()
    stages, current = [], None
    for line in lines:
        m = re.match(r"\s+progress (\d+)/(\d+) cells: requests made (\d+)", line)
        if m:
            done, total, made = map(int, m.groups())
            if current is None or total != current[1] or done <= current[0]:
                stages.append([])
            stages[-1].append((done, total, made))
            current = (done, total)
    assert [s[-1][0] == s[-1][1] for s in stages] == [True, True], stages
    assert all(done <= total for s in stages for done, total, _ in s)
    n1, n2 = stages[0][-1][1], stages[1][-1][1]
    assert (n1, n2) == (len(ROWS) // 2, len(ROWS) // 2 * len(probe_an.PROBE_ARMS) * 2)
    assert f"calls made {n1 + n2}, retried 0, failed 0" in lines


@pytest.mark.slow
def test_arm_names_never_reach_the_model(pstub, battery, tmp_path):
    before = len(pstub.requests)
    assert cli.main(probe_argv(pstub, "probe-blind", battery, tmp_path / "n.jsonl")) == 0
    text = json.dumps([r["body"]["messages"] for r in pstub.requests[before:]]).lower()
    for word in ("placebo", "shuffled", "forged", "core"):
        assert word not in text


@pytest.mark.slow
def test_html_page_shows_the_terminal_values_offline(pstub, battery, tmp_path, capsys):
    log, page = tmp_path / "h.jsonl", tmp_path / "h.html"
    assert cli.main(probe_argv(pstub, "probe-consuming", battery, log)) == 0
    capsys.readouterr()
    argv = ["probe", "--analyse-only", str(log), "--n-boot", "400"]
    assert cli.main([*argv, "--html", str(page)]) == 0
    terminal = capsys.readouterr().out
    text = page.read_text(encoding="utf-8")
    import html as _html

    tables = "Per-arm values" + terminal.split("\n\n* ")[0].split("Per-arm values", 1)[1]  # the terminal's tables
    assert _html.escape(tables) in text  # the same printed values on both surfaces
    assert "<script src" not in text and '"rel0"' in text and '"shift0"' in text


def test_label_topics_puts_the_domain_in_the_user_turn_only(pstub, battery, tmp_path):
    before = len(pstub.requests)
    assert cli.main(probe_argv(pstub, "probe-blind", battery, tmp_path / "t.jsonl", "--label-topics")) == 0
    users = [m["content"] for r in pstub.requests[before:] for m in r["body"]["messages"] if m["role"] == "user"]
    assert users and all(u.startswith("Topic: ") and u.split("\n")[0][7:] in DOMAINS for u in users)


def test_dry_run_makes_no_call(pstub, battery, tmp_path, capsys):
    before = len(pstub.requests)
    assert cli.main(probe_argv(pstub, "probe-blind", battery, tmp_path / "d.jsonl", "--dry-run")) == 0
    out = capsys.readouterr().out
    assert len(pstub.requests) == before
    assert "24 (stage 1) + 24 x 5 arms x 2 replicates = 264" in out
    assert all(f"--- arm {a} " in out for a in probe_an.PROBE_ARMS)
    assert not (tmp_path / "d.jsonl").exists()


@pytest.mark.slow
def test_max_calls_caps_and_a_rerun_completes(pstub, battery, tmp_path, capsys):
    out = tmp_path / "cap.jsonl"
    before = len(pstub.requests)
    assert cli.main(probe_argv(pstub, "probe-blind", battery, out, "--max-calls", "10")) == 0  # within stage 1
    assert len(pstub.requests) - before == 10
    assert cli.main(probe_argv(pstub, "probe-blind", battery, out, "--max-calls", "20")) == 0  # into stage 2
    assert len(pstub.requests) - before == 30
    res = run_json(capsys, probe_argv(pstub, "probe-blind", battery, out))
    assert len(pstub.requests) - before == 264
    assert res["subjects"]["probe-blind"]["checks"]["manipulable"] is False


def test_a_faulty_endpoint_is_retried_and_counted(pstub, battery, tmp_path, capsys):
    """The stub's `flaky` model fails the first request of every question with HTTP 500: each is retried once."""
    res = run_json(capsys, probe_argv(pstub, "flaky", battery, tmp_path / "f.jsonl"))["subjects"]["flaky"]
    assert res["checks"]["calls_retried"] == len(ROWS)  # one retry per distinct question
    assert res["checks"]["calls_failed"] == 0
    assert all(r["n"] == 48 for r in res["arms"])


@pytest.mark.slow
def test_killed_probe_resumes_without_lost_or_duplicated_rows(pstub, battery, tmp_path):
    out = tmp_path / "killed.jsonl"
    argv = [sys.executable, "-m", "selfconf.cli", *probe_argv(pstub, "probe-blind-paced", battery, out)]
    argv[argv.index("--quiet")] = "--json"
    for stop_at in (10, 120):
        proc = subprocess.Popen(argv, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.exists() and out.read_bytes().count(b"\n") >= stop_at:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert stop_at <= out.read_bytes().count(b"\n") < 266, "the kill must land mid-run"
    with open(out, "ab") as fh:
        fh.write(b'{"stage": "arm", "item_id": "law-')
    done = subprocess.run(argv, env=dict(os.environ), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    keys = [probe_cli._key(r) for r in recs]
    assert len(keys) == len(set(keys)), "duplicated rows"
    arm_keys = {k for k in keys if k[0] == "arm"}
    assert len(arm_keys) == 24 * 5 * 2 and len([k for k in keys if k[0] == "profile"]) == 24, "lost rows"
    assert json.loads(done.stdout)["subjects"]["probe-blind-paced"]["arms"][0]["n"] == 48


# ------------------------------------------------------------------------------ bad input


def _err(capsys, argv) -> str:
    rc = cli.main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    return err


def test_battery_without_domain_is_refused(pstub, tmp_path, capsys):
    bad = write_battery(tmp_path / "b.csv", [r[:3] for r in ROWS], header=("item_id", "question", "answer"))
    err = _err(capsys, probe_argv(pstub, "probe-blind", bad, tmp_path / "x.jsonl"))
    assert "b.csv" in err and "no 'domain' column" in err


def test_domain_with_one_item_is_named_with_its_count(pstub, tmp_path, capsys):
    bad = write_battery(tmp_path / "b.csv", [*ROWS, ("solo-1", "A lonely question?", "x", "astronomy")])
    err = _err(capsys, probe_argv(pstub, "probe-blind", bad, tmp_path / "x.jsonl"))
    assert "'astronomy' has 1 item" in err


def test_endpoint_without_confidence_is_a_clear_error(pstub, battery, tmp_path, capsys):
    err = _err(capsys, probe_argv(pstub, "probe-noconf", battery, tmp_path / "x.jsonl"))
    assert "no 'confidence' field" in err


def test_all_equal_profile_admits_no_placebo(pstub, battery, tmp_path, capsys):
    err = _err(capsys, probe_argv(pstub, "probe-perfect", battery, tmp_path / "x.jsonl"))
    assert "same accuracy (1.00) in all 6 domains" in err and "no placebo" in err


@pytest.mark.slow
def test_refusals_are_counted_abstentions(pstub, battery, tmp_path, capsys):
    res = run_json(capsys, probe_argv(pstub, "probe-refusing", battery, tmp_path / "r.jsonl"))
    arms = res["subjects"]["probe-refusing"]["arms"]
    assert all(r["n_abstained"] > 0 and r["n_answered"] + r["n_abstained"] == r["n"] for r in arms)


def test_a_zero_bootstrap_p_prints_as_its_bound_not_as_zero():
    """A p that is a share of 0 draws says only p < 1/B: the table and the sentence print that bound."""
    rec = {
        "contrast": "core-off",
        "metric": "auroc",
        "value": 0.1,
        "ci_low": 0.05,
        "ci_high": 0.15,
        "p": 0.0,
        "p_holm": 0.0,
        "family": "confirmatory",
    }
    res = {"checks": {"n_boot": 400}, "arms": [], "contrasts": [rec]}
    row = probe_an.format_tables(res).splitlines()[-1]
    assert row.split()[-3:] == ["<0.0025", "<0.0025", "confirmatory"] and "0.000 " not in row
    assert probe_an.sentences(res)[0].endswith("Holm p < 0.0025")
    res["contrasts"][0].update(p=0.0423, p_holm=0.0846)
    assert probe_an.format_tables(res).splitlines()[-1].split()[-3:] == ["0.042", "0.085", "confirmatory"]


def test_help_defines_every_arm_and_contrast(capsys):
    with pytest.raises(SystemExit):
        cli.main(["probe", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in (*probe_an.PROBE_ARMS, *(c[0] for c in probe_an.CONTRASTS)):
        assert f" {name} " in text, name
    assert float(probe_cli.PLACEBO_RHO_TEXT) == probe_an.PLACEBO_RHO_MAX
    assert f"below {probe_cli.PLACEBO_RHO_TEXT}" in text


def test_a_log_started_with_other_settings_is_not_resumed(pstub, battery, tmp_path, capsys):
    log = tmp_path / "s.jsonl"
    assert cli.main(probe_argv(pstub, "probe-blind", battery, log, "--max-calls", "3")) == 0
    err = _err(capsys, probe_argv(pstub, "probe-blind", battery, log, "--seed", "7"))
    assert "other settings (seed differ)" in err


def test_analyse_only_on_a_missing_path_is_a_clear_error(tmp_path, capsys):
    err = _err(capsys, ["probe", "--analyse-only", str(tmp_path / "nothing")])
    assert "no probe log or ladder folder" in err


# ------------------------------------------------------------------ the in-process scripted models (the book's)
@pytest.mark.parametrize("model", ["probe-consuming", "probe-blind"])
def test_in_process_simulation_equals_the_stub_over_http(pstub, battery, tmp_path, capsys, model):
    """The book's worked example (scripted model in-process) logs what `selfconf probe` logs against the stub server
    (the same rules answering over HTTP), row for row, and its analysis is the command's."""
    from selfconf.cli import probe_sim

    http_log, sim_log = tmp_path / "http.jsonl", tmp_path / "sim.jsonl"
    res_http = run_json(capsys, probe_argv(pstub, model, battery, http_log, "--replicates", "2"))["subjects"][model]
    probe_sim.simulate(model, battery, sim_log)  # the command's defaults

    def cells(path):
        keep = ("stage", "item_id", "domain", "arm", "replicate", "answer", "confidence", "abstained", "correct")
        recs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        rows = sorted((tuple(str(r.get(k)) for k in keep) for r in recs if r["stage"] in ("profile", "arm")), key=str)
        prof = next(r for r in recs if r["stage"] == "profiles")
        return rows, {k: prof[k] for k in ("bin", "core", "placebo", "shuffled")}

    assert cells(sim_log) == cells(http_log)
    res_sim, _ = probe_cli.analyse_path(sim_log, n_boot=400, seed=20261130)
    sim = res_sim["subjects"][model]
    assert sim["contrasts"] == res_http["contrasts"]
    assert sim["checks"]["manipulable"] is (model == "probe-consuming")


def test_worked_example_counts_its_calls_and_refuses_an_unknown_model():
    from selfconf.cli import probe_sim

    ex = probe_sim.worked_example("probe-pinned", n_boot=50, per_domain=4, domains=("a", "b", "c", "d", "e", "f"))
    held = ex["n_items"] // 2
    assert ex["n_items"] == 24 and ex["n_calls"] == held + held * len(probe_an.PROBE_ARMS)
    assert ex["result"]["checks"]["manipulable"] is False
    with pytest.raises(ValueError, match="unknown scripted probe model 'gpt'"):
        probe_sim.ScriptedClient("gpt", {})
