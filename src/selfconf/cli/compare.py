"""``selfconf compare``: two runs or two models compared on the items both answered
(:mod:`selfconf.report.compare`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from selfconf.report.arguments import add_ece_arguments, add_sampling_arguments, command_parser, compare_keywords
from selfconf.report.layout import add_layout_arguments, check_outputs, layout_of, print_notes

__all__ = ["HELP", "add_parser", "run"]

HELP = "compare two runs or two models on their shared items: paired bootstrap, DeLong, Holm (terminal, --json, --html)"


#: What ``selfconf compare --help`` says it computes.
DESCRIPTION = (
    "Compare two arms answered on the same items: two files (A B; every model in both, or the one model\n"
    "of each), two models of one file (--models X,Y) or two runs in one file (--by RUN, a column with\n"
    "two values; each model's first run against its second). For AUROC, ECE, Brier, accuracy and AURC:\n"
    "A, B, the difference A - B on the shared items, its 95% item-clustered paired bootstrap interval\n"
    "(one draw of items serves both arms), a bootstrap p-value and Holm's adjustment over the five\n"
    "metrics; DeLong's z test of the AUROC difference beside the bootstrap; the number of items shared\n"
    "and dropped. Rows are read and excluded as `selfconf report` reads them (same columns, --columns,\n"
    "--sep, --confidence-scale)."
)
#: The end of ``selfconf compare --help``: conventions, the JSON keys and examples.
EPILOG = (
    "conventions: differences are A minus B; rows without a confidence or ungraded are excluded before the\n"
    "items are matched; items of one arm only are dropped (counted). An interval computed on fewer than\n"
    "30 items, of zero width, on fewer than 100 draws or not containing its estimate is marked *.\n"
    "p = min(1, 2 min(share of draws with A - B <= 0, share >= 0)) (0 means below 1/--n-boot); Holm's\n"
    "step-down adjustment runs over the five metrics of each pair. With --by the first value by name is A.\n"
    "The draws come from the stream (seed, 'compare', label A, label B): the same seed, the same numbers.\n"
    "DeLong (1988; Sun & Xu 2014 midrank form): when the arms' right/wrong labels differ item by item\n"
    "(two models), the covariance is the sum over shared items of the two arms' standardised placement\n"
    "terms; with equal labels it is DeLong's paired test exactly.\n\n"
    "JSON: settings, conventions, pairs[]: a, b, n_items_shared, n_items_only_a/_b, excluded_a/_b,\n"
    "metrics.<auroc|ece|brier|accuracy|aurc>: a, b, difference, ci_low, ci_high, p_value, p_holm,\n"
    "n_invalid_draws, interval_flag; delong: auroc_a, auroc_b, difference, variance, se, z, p_two_sided,\n"
    "same_labels.\n\n"
    "Python: selfconf.report.compare(df_a, df_b) returns the same dict.\n\n"
    "examples:\n"
    "  selfconf compare old.graded.csv new.graded.csv\n"
    "  selfconf compare runs.csv --models gpt-4o,claude --html cmp.html\n"
    "  selfconf compare runs.csv --by prompt --json"
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``selfconf compare`` (:data:`DESCRIPTION`, :data:`EPILOG`); the sampling, layout and ECE options
    are those of ``selfconf report``, declared once (:mod:`selfconf.report.arguments`; equal-width bins only).

    >>> p = add_parser(argparse.ArgumentParser(prog="selfconf").add_subparsers())
    >>> a = p.parse_args(["a.csv", "b.csv", "--ece-sklearn"])
    >>> (a.n_boot, a.ece_bins, a.ece_sklearn, hasattr(a, "ece_binning"))
    (2000, 10, True, False)
    """
    p = command_parser(subparsers, "compare", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("paths", nargs="+", metavar="PATH", help="one or two CSV/TSV/JSONL files (optionally .gz)")
    p.add_argument("--models", metavar="X,Y", default=None, help="the two models to compare (X from A, Y from B)")
    p.add_argument("--by", metavar="RUN", default=None, help="a column with two values (runs, prompts) to compare")
    add_sampling_arguments(p, scale_rule="default; the rule of selfconf report")
    add_layout_arguments(p)
    add_ece_arguments(p, binning=False)
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    p.add_argument("--html", metavar="FILE", default=None, help="also write a self-contained offline HTML page")
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``selfconf compare`` on parsed options: every option validated first
    (:func:`selfconf.report.arguments.compare_keywords`), then read, compare, print and write; return 0.

    Example: ``run(build_parser()[0].parse_args(["compare", "a.csv", "b.csv", "--json"]))`` prints the JSON.
    """
    from selfconf.report import core
    from selfconf.report.compare import compare_html, compare_rows, format_compare

    statistics = compare_keywords(args)
    if len(args.paths) > 2:
        raise ValueError(f"compare takes one or two files, got {len(args.paths)}")
    check_outputs(html=args.html)
    models = [m.strip() for m in args.models.split(",")] if args.models else None
    layout = layout_of(args, extra=(args.by,) if args.by else ())
    kw = {"confidence_scale": args.confidence_scale, "layout": layout, "keep_items": True}
    rows_a = core.load_rows(args.paths[:1], by=args.by, runs=args.by is not None, **kw)
    rows_b = core.load_rows(args.paths[1:], **kw) if len(args.paths) == 2 else None
    print_notes(rows_a, rows_b)
    result = compare_rows(rows_a, rows_b, models=models, by=args.by, **statistics)
    if args.json:
        print(json.dumps(core._jsonable(result), indent=2, allow_nan=False))
    else:
        print(format_compare(result))
    if args.html:
        out = Path(args.html)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(compare_html(result), encoding="utf-8")
        print(f"wrote {args.html}", file=sys.stderr)
    return 0
