"""Every command's ``--help`` documents the options and conventions of the practitioner report."""

from __future__ import annotations

import pytest

from selfconf import cli


def _help(capsys, cmd: str) -> str:
    with pytest.raises(SystemExit) as exc:
        cli.main([cmd, "--help"])
    assert exc.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_report_help(capsys):
    h = _help(capsys, "report")
    for opt in (
        "--confidence-scale",
        "--seed",
        "--n-boot",
        "--ece-bins",
        "--ece-binning",
        "--ece-edge",
        "--by",
        "--json",
        "--html",
        "--figures",
    ):
        assert opt in h, opt
    for phrase in (
        "identical under any permutation",
        "expectation over tie orders",
        "scikit-learn",
        "more than 5% excluded",
        "trailing % is accepted under auto and percent, refused under unit",
        "<metric>_ci_low / <metric>_ci_high",
        "risk_coverage (+ _min/_max)",
        "sticky header",
        "model selector",
        "from_frame",
        "naming the file and line",
        ".gz",
        "SVG, PNG and PDF",
        "no network",
        "selfconf.report.figures(tab)",
    ):
        assert phrase in h, phrase


def test_collect_help(capsys):
    h = _help(capsys, "collect")
    assert "<out>.lock" in h and "refused" in h
    assert "reading the whole body included" in h and "dropped mid-response" in h


def test_grade_help(capsys):
    h = _help(capsys, "grade")
    assert "single-word answer" in h and "refusal lexicon" in h and "refusal_prose" in h
    assert "reuses its LLM verdicts" in h and "Exit status 3" in h and "answer and gold columns" in h
    assert "dropped mid-response" in h  # the grader's endpoint options


def test_diagnose_help(capsys):
    h = _help(capsys, "diagnose")
    assert "--confidence-scale" in h and "item_id, answer, confidence" in h and "diagnose-v1" in h
    assert "dropped mid-response" in h and "incomplete (k of n answered)" in h
