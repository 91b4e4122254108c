"""The options ``selfconf report``, ``compare`` and ``panel`` share are declared once
(:mod:`selfconf.report.arguments`): the same declaration on every command, defaults equal to the keyword API's, and
a bad value refused before any file is read with one clean line naming the option (exit 2, no traceback)."""

from __future__ import annotations

import argparse
import inspect

import pytest

from selfconf import cli
from selfconf.report import arguments, core
from selfconf.report.compare import compare_rows

MISSING = "no-such-file.csv"  # an option error must come before the file is looked for


def _parsers() -> dict[str, argparse.ArgumentParser]:
    parser, _ = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {name: sub.choices[name] for name in ("report", "compare", "panel")}


def _action(p: argparse.ArgumentParser, flag: str) -> argparse.Action:
    return next(a for a in p._actions if flag in a.option_strings)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["report", MISSING, "--ece-bins", "0"], "--ece-bins must be a positive integer, got 0"),
        (["compare", MISSING, "--ece-bins", "-3"], "--ece-bins must be a positive integer, got -3"),
        (["report", MISSING, "--n-boot", "5"], "--n-boot must be at least 100"),
        (["compare", MISSING, "--n-boot", "5"], "--n-boot must be at least 100"),
        (["panel", MISSING, "--members", "a,b", "--n-boot", "5"], "--n-boot must be at least 100"),
        (["report", MISSING, "--seed", "-1"], "--seed must be >= 0, got -1"),
        (["compare", MISSING, "--seed", "-1"], "--seed must be >= 0, got -1"),
        (["panel", MISSING, "--members", "a,b", "--seed", "-1"], "--seed must be >= 0, got -1"),
        (["report", MISSING, "--high-confidence", "80"], "--high-confidence must be a number in (0, 1]"),
        (["report", MISSING, "--coverages", "x"], "--coverages: x is not a number"),
        (["report", MISSING, "--ece-binning", "foo"], "argument --ece-binning: invalid choice: 'foo'"),
        (["compare", MISSING, "--ece-edge", "middle"], "argument --ece-edge: invalid choice: 'middle'"),
        (["report", MISSING, "--ece-bins", "ten"], "argument --ece-bins: invalid int value: 'ten'"),
    ],
)
def test_a_bad_option_is_one_clean_line_naming_it_before_any_file_is_read(argv, message, capsys):
    try:
        rc = cli.main(argv)
    except SystemExit as exc:  # argparse's own refusals (choices, types) exit from the parser
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2
    assert "Traceback" not in err and MISSING not in err
    line = [x for x in err.splitlines() if "error:" in x]
    assert len(line) == 1 and line[0].startswith(f"selfconf {argv[0]}: error: ") and message in line[0]


def test_the_shared_options_are_one_declaration_on_every_command():
    ps = _parsers()

    def decl(p, flag):
        a = _action(p, flag)
        return (type(a), a.default, a.choices, a.type, a.help, a.metavar)

    for flag in ("--confidence-scale", "--seed", "--n-boot"):
        assert decl(ps["compare"], flag) == decl(ps["panel"], flag), flag
        # report's scale help says "rule below" (its epilog states the rule) where the others refer to report
        assert decl(ps["report"], flag)[:4] == decl(ps["compare"], flag)[:4], flag
    assert decl(ps["report"], "--n-boot") == decl(ps["compare"], "--n-boot")
    for flag in ("--ece-edge", "--ece-snap", "--ece-sklearn"):
        assert decl(ps["report"], flag) == decl(ps["compare"], flag), flag
    assert _action(ps["report"], "--ece-bins").default == _action(ps["compare"], "--ece-bins").default == 10
    assert not any("--ece-binning" in a.option_strings for a in ps["compare"]._actions)  # compare: equal width only


def _defaults(fn, names) -> dict:
    sig = inspect.signature(fn).parameters
    return {k: sig[k].default for k in names}


def test_command_defaults_are_the_keyword_api_defaults():
    ps = _parsers()
    kw = arguments.report_keywords(ps["report"].parse_args([MISSING]))
    api = _defaults(core.compute_records, kw)
    assert kw == {**api, "coverages": tuple(api["coverages"])}
    kw = arguments.compare_keywords(ps["compare"].parse_args([MISSING]))
    assert kw == _defaults(compare_rows, kw)


def test_parsed_values_reach_the_keywords():
    ps = _parsers()
    argv = [MISSING, "--ece-bins", "7", "--ece-sklearn", "--seed", "3", "--n-boot", "150"]
    rep = arguments.report_keywords(
        ps["report"].parse_args([*argv, "--ece-binning", "equal_mass", "--coverages", "50"])
    )
    assert (rep["ece_bins"], rep["ece_binning"], rep["ece_edge"], rep["ece_snap"]) == (7, "equal_mass", "lower", False)
    assert (rep["seed"], rep["n_boot"], rep["coverages"]) == (3, 150, (0.5,))
    cmp = arguments.compare_keywords(ps["compare"].parse_args([*argv, "--ece-snap"]))
    assert cmp == {"seed": 3, "n_boot": 150, "ece_bins": 7, "ece_edge": "lower", "ece_snap": False}
    edge = arguments.compare_keywords(ps["compare"].parse_args([MISSING, "--ece-edge", "lower", "--no-ece-snap"]))
    assert (edge["ece_edge"], edge["ece_snap"]) == ("lower", False)


def test_ece_options_are_validated_by_ece_options_itself():
    from selfconf.metrics import EceOptions

    for bad in (0, 2.5, True):
        with pytest.raises(ValueError) as ours:
            arguments.ece_options(argparse.Namespace(ece_bins=bad))
        with pytest.raises(ValueError) as theirs:
            EceOptions(n_bins=bad)
        assert str(ours.value) == str(theirs.value).replace("n_bins", "--ece-bins")


@pytest.mark.parametrize("name", ["report", "compare", "panel"])
def test_each_command_prints_its_description_line_for_line(name, capsys):
    import importlib

    mod = importlib.import_module(dict((n, m) for n, m, _ in cli.SUBCOMMANDS)[name])
    with pytest.raises(SystemExit):
        cli.main([name, "--help"])
    out = capsys.readouterr().out
    lines = [x for x in mod.DESCRIPTION.splitlines() if x.strip()]
    assert lines and all(x in out.splitlines() for x in lines)  # line breaks and indents kept (raw formatter)


def test_report_help_reads_the_metric_registry_when_the_parser_is_built(monkeypatch, capsys):
    import dataclasses

    from selfconf.report import command

    dummy = dataclasses.replace(core.METRICS[1], name="dummy_registry_metric", help="a metric added at run time")
    monkeypatch.setattr(core, "METRICS", (*core.METRICS, dummy))
    assert "dummy_registry_metric: a metric added at run time" in command._epilog()
    with pytest.raises(SystemExit):
        cli.main(["report", "--help"])
    assert "dummy_registry_metric" in capsys.readouterr().out
