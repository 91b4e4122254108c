"""The command-line options that ``selfconf report``, ``compare`` and ``panel`` share, declared once.

Each option group has one function that adds it to a parser and one that turns the parsed namespace into
validated values:

* :func:`add_sampling_arguments` / :func:`sampling_options`: ``--confidence-scale``, ``--seed``, ``--n-boot``;
* :func:`add_ece_arguments` / :func:`ece_options`: ``--ece-bins``, ``--ece-binning`` (``report`` only),
  ``--ece-edge``, ``--ece-snap`` and ``--ece-sklearn``, validated by
  :meth:`selfconf.report.core.ReportOptions.from_keywords`;
* :func:`add_report_arguments` / :func:`report_keywords`: the report's other statistics options
  (``--resampling``, ``--high-confidence``, ``--coverages``, ``--recalibrate``, ``--folds``).

:func:`report_keywords` and :func:`compare_keywords` are the only places that spell the ``ece_*`` keywords of
:func:`selfconf.report.core.compute_records` and :func:`selfconf.report.compare.compare_rows`.  A bad value
raises ``ValueError`` naming the option (``--ece-bins must be a positive integer, got 0``), which the command
line prints as one ``selfconf <cmd>: error: ...`` line with exit code 2 (argparse's own form), no traceback.
"""

from __future__ import annotations

import argparse
from typing import Any

from selfconf.data.validate import SCALES
from selfconf.metrics import BINNINGS, EDGE_RULES, EceOptions
from selfconf.report import core
from selfconf.report.layout import add_ece_sklearn_argument, apply_ece_sklearn

__all__ = [
    "command_parser",
    "add_sampling_arguments",
    "sampling_options",
    "add_ece_arguments",
    "ece_options",
    "add_report_arguments",
    "report_keywords",
    "compare_keywords",
]

#: Each :class:`selfconf.metrics.EceOptions` field and the option that sets it.
ECE_FLAGS = {field: "--" + kw.replace("_", "-") for kw, field in core.ECE_KEYWORDS.items()}


def command_parser(subparsers: Any, name: str, *, help: str, description: str, epilog: str) -> argparse.ArgumentParser:
    """Register subcommand ``name`` with its one-line ``help`` and its ``description`` and ``epilog`` printed as
    written (line breaks kept: ``RawDescriptionHelpFormatter``); return its parser.

    >>> sub = argparse.ArgumentParser(prog="selfconf").add_subparsers()
    >>> command_parser(sub, "demo", help="h", description="d\\n  kept", epilog="e").format_help().count("  kept")
    1
    """
    return subparsers.add_parser(
        name, help=help, formatter_class=argparse.RawDescriptionHelpFormatter, description=description, epilog=epilog
    )


def add_sampling_arguments(p: argparse.ArgumentParser, *, scale_rule: str) -> None:
    """Add ``--confidence-scale``, ``--seed`` and ``--n-boot`` (one default, one rule:
    :func:`selfconf.report.core.check_n_boot`); ``scale_rule`` is the parenthesis after ``auto`` in the
    scale's help text.

    >>> p = argparse.ArgumentParser()
    >>> add_sampling_arguments(p, scale_rule="default")
    >>> a = p.parse_args([])
    >>> (a.confidence_scale, a.seed, a.n_boot)
    ('auto', 0, 2000)
    """
    p.add_argument(
        "--confidence-scale",
        choices=SCALES,
        default="auto",
        help=f"scale of the confidence column: auto ({scale_rule}), percent = 0-100, unit = 0-1",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument(
        "--n-boot",
        type=int,
        default=2000,
        help=f"bootstrap draws for every interval (default 2000; at least {core.MIN_N_BOOT})",
    )


def sampling_options(args: argparse.Namespace) -> dict[str, int]:
    """``{"seed": ..., "n_boot": ...}`` of the parsed options, validated: ``--n-boot`` by
    :func:`selfconf.report.core.check_n_boot` (at least :data:`selfconf.report.core.MIN_N_BOOT`), ``--seed``
    non-negative (a seed names a stream: :mod:`selfconf.stats.streams`).

    >>> sampling_options(argparse.Namespace(seed=3, n_boot=500))
    {'seed': 3, 'n_boot': 500}
    >>> sampling_options(argparse.Namespace(seed=-1, n_boot=500))
    Traceback (most recent call last):
    ...
    ValueError: --seed must be >= 0, got -1
    """
    n_boot = core.check_n_boot(args.n_boot)
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    return {"seed": args.seed, "n_boot": n_boot}


def add_ece_arguments(p: argparse.ArgumentParser, *, binning: bool = True) -> None:
    """Add the binned-ECE options: ``--ece-bins``, ``--ece-binning`` (unless ``binning=False``: ``compare``
    uses equal-width bins only), ``--ece-edge``, ``--ece-snap`` / ``--no-ece-snap`` and ``--ece-sklearn``
    (scikit-learn's convention in one flag).  Their meaning is :class:`selfconf.metrics.EceOptions`'.

    >>> p = argparse.ArgumentParser()
    >>> add_ece_arguments(p, binning=False)
    >>> ece_options(p.parse_args(["--ece-bins", "15", "--ece-sklearn"]))
    EceOptions(n_bins=15, binning='equal_width', edge='lower', snap=False)
    """
    kind = "" if binning else "equal-width "
    p.add_argument("--ece-bins", type=int, default=10, help=f"number of {kind}ECE bins (default 10)")
    if binning:
        p.add_argument(
            "--ece-binning",
            choices=BINNINGS,
            default="equal_width",
            help="equal_width (default) or equal_mass bins (about n/B rows each; tied confidences share a bin)",
        )
    p.add_argument(
        "--ece-edge",
        choices=EDGE_RULES,
        default="upper",
        help="bin of a confidence exactly on an edge: upper (default, the book's rule) or lower "
        "(scikit-learn's and Guo et al.'s)",
    )
    p.add_argument(
        "--ece-snap",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="count a confidence within 1e-9 of a bin edge as on the edge (default); --no-ece-snap: compare "
        "the stored value as scikit-learn's calibration_curve does",
    )
    add_ece_sklearn_argument(p)


def ece_options(args: argparse.Namespace) -> EceOptions:
    """The :class:`selfconf.metrics.EceOptions` of the parsed options (``--ece-sklearn`` sets edge ``lower`` and
    no snapping, overriding both).  Validation is :meth:`selfconf.report.core.ReportOptions.from_keywords`' (the
    report's declared constraints and their one wording, which names the option).

    >>> ece_options(argparse.Namespace(ece_bins=12, ece_edge="upper", ece_snap=True)).n_bins
    12
    >>> ece_options(argparse.Namespace(ece_bins=0))
    Traceback (most recent call last):
    ...
    ValueError: --ece-bins must be a positive integer, got 0
    """
    given: dict[str, Any] = {
        "ece_bins": getattr(args, "ece_bins", 10),
        "ece_binning": getattr(args, "ece_binning", "equal_width"),
        "ece_edge": getattr(args, "ece_edge", "upper"),
        "ece_snap": getattr(args, "ece_snap", True),
    }
    convention = argparse.Namespace(ece_sklearn=getattr(args, "ece_sklearn", False), ece_edge=None, ece_snap=None)
    apply_ece_sklearn(convention)  # the flag's one definition (selfconf.report.layout)
    if convention.ece_sklearn:
        given.update(ece_edge=convention.ece_edge, ece_snap=convention.ece_snap)
    return core.ReportOptions.from_keywords(**given).ece


def _ece_keywords(ece: EceOptions, *, binning: bool = True) -> dict[str, Any]:
    """The ``ece_*`` keywords of the report's keyword API for ``ece`` (``binning=False``: without
    ``ece_binning``, which ``compare_rows`` does not take)."""
    kw = {kw: getattr(ece, field) for kw, field in core.ECE_KEYWORDS.items()}
    if not binning:
        del kw["ece_binning"]
    return kw


def add_report_arguments(p: argparse.ArgumentParser) -> None:
    """Add the report's statistics options besides sampling and ECE: ``--resampling``, ``--high-confidence``,
    ``--coverages``, ``--recalibrate`` and ``--folds``.

    >>> p = argparse.ArgumentParser()
    >>> add_report_arguments(p)
    >>> a = p.parse_args(["--coverages", "90,50"])
    >>> (a.resampling, a.high_confidence, a.coverages, a.recalibrate, a.folds)
    ('rows', '0.8', '90,50', None, 5)
    """
    p.add_argument(
        "--resampling",
        choices=core.RESAMPLING,
        default="rows",
        help="rows (default): the row bootstrap; poisson: the Poisson bootstrap (an independent Poisson(1) "
        "weight per row; agrees to O(1/n); its draws take about two thirds of the time, the whole report at 1M "
        "rows about 15%% less)",
    )
    p.add_argument(
        "--high-confidence",
        metavar="T",
        default="0.8",
        help="threshold (0-1) of the high-confidence error rate, answers with confidence >= T (default 0.8)",
    )
    p.add_argument(
        "--coverages",
        metavar="LIST",
        default="100,80,60,40,20",
        help="coverages in percent of the risk@c columns (default 100,80,60,40,20)",
    )
    eps = f"{core.CLIP_EPS:g}"
    p.add_argument(
        "--recalibrate",
        choices=core.RECALIBRATIONS,
        default=None,
        help="also report ECE, Brier and AUROC after recalibrating each model's confidences (isotonic regression, "
        "temperature scaling, histogram binning, Platt scaling a*logit(c)+b or beta calibration "
        "a*ln(c)-b*ln(1-c)+c0), fitted by k-fold cross-fitting so that no row is scored by a "
        f"map fitted on it; temperature, Platt and beta clip confidences to [{eps}, 1 - {eps}] before the "
        "logit/log and fit by maximum likelihood with a convergence check: a map that does not converge is "
        "not used and its metrics are shown missing with the reason; off by default",
    )
    p.add_argument("--folds", type=int, default=5, help="folds of --recalibrate's cross-fitting (default 5)")


def report_keywords(args: argparse.Namespace) -> dict[str, Any]:
    """Every statistics keyword of :func:`selfconf.report.core.compute_records` from the parsed options,
    validated (sampling, ECE, ``--high-confidence`` by :func:`selfconf.report.core.check_high_confidence`,
    ``--coverages`` by :func:`selfconf.report.core.parse_coverages`); options a caller's namespace lacks take
    their defaults.

    >>> kw = report_keywords(argparse.Namespace(seed=0, n_boot=200, ece_bins=15, coverages="50"))
    >>> (kw["ece_bins"], kw["ece_binning"], kw["coverages"], kw["high_confidence"])
    (15, 'equal_width', (0.5,), 0.8)
    """
    sampling = sampling_options(args)
    high_confidence = core.check_high_confidence(getattr(args, "high_confidence", "0.8"))
    coverages = core.parse_coverages(getattr(args, "coverages", "100,80,60,40,20"))
    return {
        **sampling,
        **_ece_keywords(ece_options(args)),
        "resampling": getattr(args, "resampling", "rows"),
        "high_confidence": high_confidence,
        "coverages": coverages,
        "recalibrate": getattr(args, "recalibrate", None),
        "folds": getattr(args, "folds", 5),
    }


def compare_keywords(args: argparse.Namespace) -> dict[str, Any]:
    """The statistics keywords of :func:`selfconf.report.compare.compare_rows` from the parsed options, validated
    as :func:`report_keywords` validates them.

    >>> compare_keywords(argparse.Namespace(seed=1, n_boot=300, ece_bins=10, ece_sklearn=True))
    {'seed': 1, 'n_boot': 300, 'ece_bins': 10, 'ece_edge': 'lower', 'ece_snap': False}
    """
    return {**sampling_options(args), **_ece_keywords(ece_options(args), binning=False)}
