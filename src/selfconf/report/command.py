"""``selfconf report``: the command line of the practitioner's report (parser, run, the HTML file).

The computation is :mod:`selfconf.report.core` (``load_rows`` / ``compute_records``); the page is
:mod:`selfconf.report.html`. This module only wires them to ``argparse``.
"""

from __future__ import annotations

import argparse
import json
import sys

from selfconf.report import core
from selfconf.report.arguments import (
    add_ece_arguments,
    add_report_arguments,
    add_sampling_arguments,
    command_parser,
    report_keywords,
)
from selfconf.report.core import (
    MIN_N_BOOT,
    compute_records,
    format_table,
    load_rows,
    n_flagged_units,
    report_json,
    warnings_of,
)
from selfconf.report.layout import add_layout_arguments, check_outputs, layout_of, print_notes

__all__ = ["HELP", "DESCRIPTION", "add_parser", "add_sampling_arguments", "run"]


HELP = "calibration report (terminal, --json, --html) with intervals on every metric, for graded rows of any model"


#: The first paragraphs of ``selfconf report --help``: what is computed and the conventions every output states.
DESCRIPTION = (
    "Compute, per model (and per value of --by), n, accuracy, mean and median stated confidence, CITL,\n"
    "Brier, binned ECE, smooth ECE, self-AUROC, the error rate among answers stated with confidence >= 80,\n"
    "the refusal rate, AURC and risk at 100/80/60/40/20% coverage, each with a 95% percentile row-bootstrap\n"
    "interval. Input rows need model, item_id, confidence, correct (optional refusal and the --by column);\n"
    "CSV, TSV or JSONL, optionally .gz, UTF-8 with or without BOM.\n\n"
    "Conventions (stated in every output too):\n"
    "  * the output is identical under any permutation of the input rows: every statistic and bootstrap\n"
    "    draw depends only on per-model counts at each confidence level, models are listed sorted;\n"
    "  * risk@c uses floor(c*n) rows; when the cut falls inside tied confidences it is the expectation\n"
    "    over tie orders (JSON adds risk_coverage_min/max, the best and worst tie orders);\n"
    "  * ECE edge rule: 'upper' (default, the book's) puts a confidence lying on a bin edge into the bin\n"
    "    above; 'lower' is the rule of scikit-learn's calibration_curve and Guo et al. (2017);\n"
    "  * ECE snapping (--ece-snap, default): a confidence within 1e-9 of a bin edge counts as on the edge,\n"
    "    so float artefacts such as 0.7 + 0.1 = 0.7999999999999999 or 0.5000000000000001 land in the\n"
    "    bin of the value they stand for; --no-ece-snap compares the stored value with edges computed\n"
    "    as numpy.linspace(0, 1, bins + 1), exactly as calibration_curve does (--ece-edge lower\n"
    "    --no-ece-snap gives its bins);\n"
    "  * an interval is flagged (* in the tables, interval_flags in JSON) when it has zero width, is\n"
    "    computed on fewer than 30 rows, rests on fewer than 100 draws or does not contain its own\n"
    "    estimate (an ECE near 0 is larger on almost every resample): it is then no 95% interval;\n"
    "  * warnings (excluded rows, a --confidence-scale percent on 0-1 data) go to stderr in every mode;\n"
    "  * rows without a confidence, ungraded rows, refusals without a confidence and rows `collect` wrote\n"
    "    with an error (no reply) are excluded, counted per model and reason; more than 5% excluded gives\n"
    "    the model a warning;\n"
    "  * the first line names the ECE convention; tables come in blocks that fit 120 columns (--wide: one\n"
    "    table each); --columns/--sep read any layout (see their help)."
)


def _epilog() -> str:
    """The end of ``--help``: the metrics (from the registry :data:`selfconf.report.core.METRICS`, read at each
    call), the scale and input rules, the JSON keys, the HTML page, the figures and an example.

    >>> "risk_coverage_curve" in _epilog() and "metrics (terminal column" in _epilog()
    True
    """
    return (
        _metrics_help() + "\n\n"
        "scale rule (--confidence-scale auto): any value above 1 or written with a trailing % means percent;\n"
        "all values in [0, 1] with one strictly between means unit; only 0s and 1s (at least one 1) is\n"
        "ambiguous (an error asking for the flag; all 0s read the same on either scale); values above 1\n"
        "mixed with fractional values <= 1 is an error naming the first rows of each kind. A trailing %\n"
        "is accepted under auto and percent, refused under unit. The scale used is printed in every output.\n\n"
        "input rules: CRLF or LF; a row with too few or too many fields, bytes that are not UTF-8 (a Latin-1\n"
        "export), an empty or header-only file, a duplicate (model, item_id) or an invalid value stop the\n"
        "report with an error naming the file and line; nothing is dropped silently.\n\n"
        "JSON: per model (and group) every metric with <metric>_ci_low / <metric>_ci_high ("
        + ", ".join(core.ci_metrics())
        + "),\n<proportion>_wilson_low/_high ("
        + ", ".join(m.name for m in core.METRICS if m.proportion)
        + "), interval_flags,\n"
        "risk_coverage (+ _min/_max), risk_coverage_curve, reliability bins, smooth_reliability with its band,\n"
        "excluded counts per reason, excluded_share and warning; the settings and conventions at the top.\n"
        "HTML: the table scrolls in its own box (sticky header); reliability as small multiples up to 12\n"
        "models, one panel with a model selector beyond.\n"
        "Figures (--figures DIR): DIR/<chart>.svg, .png (2x) and .pdf for overconfidence, reliability,\n"
        "riskcoverage (and overconfidence_by, reliability_by, riskcoverage_by with --by).\n\n"
        "Python: selfconf.report.from_frame(df, ...) returns the same per-model rows as a DataFrame;\n"
        "selfconf.report.figures(tab) its charts (name -> altair chart).\n\n"
        "example: selfconf report runs/*.graded.jsonl --by subject --html report.html --figures figs/"
    )


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``selfconf report``: the description and epilog (:data:`DESCRIPTION`, :func:`_epilog`) and the
    options, the shared ones declared once in :mod:`selfconf.report.arguments` and :mod:`selfconf.report.layout`.

    >>> p = add_parser(argparse.ArgumentParser(prog="selfconf").add_subparsers())
    >>> a = p.parse_args(["rows.csv", "--ece-sklearn"])
    >>> (a.n_boot, a.ece_bins, a.ece_sklearn, a.coverages, a.wide)
    (2000, 10, True, '100,80,60,40,20', False)
    """
    p = command_parser(subparsers, "report", help=HELP, description=DESCRIPTION, epilog=_epilog())
    p.add_argument("paths", nargs="+", metavar="PATH", help="CSV/TSV/JSONL files (optionally .gz) of graded rows")
    add_sampling_arguments(p, scale_rule="default; rule below")
    add_ece_arguments(p)
    add_report_arguments(p)
    p.add_argument(
        "--by",
        metavar="COLUMN",
        default=None,
        help="also report every metric per model and value of this category column (e.g. subject)",
    )
    p.add_argument("--json", action="store_true", help="print JSON (proportions on the 0-1 scale) instead of the table")
    p.add_argument("--html", metavar="FILE", default=None, help="also write a self-contained offline HTML report")
    p.add_argument(
        "--figures",
        metavar="DIR",
        default=None,
        help="also write every chart into DIR (created if missing) as SVG, PNG and PDF for a paper: "
        "overconfidence (labels that never overlap; a label without room becomes a number in a key), reliability "
        "(small multiples per model) and riskcoverage, with --by also <chart>_by per group; both axes of the "
        "scatter and the reliability diagrams fitted to the data with the diagonal kept; rendered by vl-convert "
        "with no browser and no network access",
    )
    add_layout_arguments(p)  # input layout (--columns, --sep): shared with `selfconf compare`
    p.add_argument(
        "--wide",
        action="store_true",
        help=f"print each terminal table as one wide table (default: blocks of columns that fit "
        f"{core.TERMINAL_WIDTH} characters, the model column repeated)",
    )
    return p


def _metrics_help() -> str:
    """The metrics paragraph of ``--help``, from the registry :data:`selfconf.report.core.METRICS`."""
    lines = ["metrics (terminal column, JSON key: meaning):"]
    for m in core.METRICS:
        tag = " [interval]" if m.interval else ""
        tag += " [Wilson]" if m.proportion else ""
        lines.append(f"  {m.header.format(hc='T')}, {m.name}: {m.help}{tag}")
    return "\n".join(lines)


def _keep_freed_blocks(threshold: int = 16 << 20) -> None:
    """Let glibc keep freed blocks below ``threshold`` bytes in the heap instead of unmapping them.

    The bootstrap creates and frees many arrays of a few megabytes per model; by default glibc
    maps each from the kernel afresh and unmaps it on free, and the page faults of refilling that
    memory cost more than the arithmetic (about half of ``counts_statistics``' time at 1M rows).
    Raising ``M_MMAP_THRESHOLD`` (and ``M_TRIM_THRESHOLD``) makes the freed memory reusable.  Only
    the command line process calls this; elsewhere (or without glibc) it does nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
        libc.mallopt(m_mmap_threshold, int(threshold))
        libc.mallopt(m_trim_threshold, 2 * int(threshold))
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


def _no_hugepage_advice() -> None:
    """Stop numpy from advising the kernel to back large arrays with transparent huge pages.

    numpy calls ``madvise(MADV_HUGEPAGE)`` on every array of 4 MB or more.  Where the kernel's
    ``transparent_hugepage/defrag`` setting is ``madvise`` (the default of common distributions), the
    first touch of such memory may compact memory to find 2 MB pages; on the virtual machines measured
    this made a fresh 80 MB array (one column at 10M rows) cost 0.3 s instead of 0.07 s, and the whole
    10M-row report 10-35% slower.  numpy's own switch ``NUMPY_MADVISE_HUGEPAGE`` is read at import,
    before this runs, so the same switch is set here; a value the user put in the environment stands.
    Only the command line process calls this.
    """
    import os

    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    try:
        from numpy._core.multiarray import _set_madvise_hugepage  # type: ignore[attr-defined]  # numpy >= 2
    except ImportError:  # pragma: no cover - numpy 1.x
        try:
            from numpy.core.multiarray import _set_madvise_hugepage  # type: ignore[no-redef]
        except ImportError:
            return
    _set_madvise_hugepage(False)


def run(args: argparse.Namespace) -> int:
    """Run ``selfconf report`` on parsed options: validate every option (:func:`selfconf.report.arguments.
    report_keywords`) and the output paths before any computation, read, compute, print and write; return 0.

    Example: ``run(build_parser()[0].parse_args(["report", "rows.csv", "--json"]))`` prints the JSON report.
    """
    _keep_freed_blocks()
    _no_hugepage_advice()
    statistics = report_keywords(args)  # every option checked before any computation
    # input layout and output paths (selfconf.report.layout): checked before any computation
    check_outputs(html=args.html)
    figures_dir = getattr(args, "figures", None)
    if figures_dir:
        check_figures_dir(figures_dir)
    layout = layout_of(args, extra=(args.by,) if args.by else ())
    rows = load_rows(args.paths, confidence_scale=args.confidence_scale, by=args.by, layout=layout)
    print_notes(rows)
    tab = compute_records(rows, **statistics)
    # warnings reach the person at the terminal in every mode (stdout may be a file or a pipe)
    for w in warnings_of(tab):
        print(f"WARNING {w}", file=sys.stderr)
    n_flagged = n_flagged_units(tab)
    if n_flagged:
        print(
            f"note: {n_flagged} model/group(s) have flagged intervals (zero width, fewer than {core.SMALL_N} rows, "
            f"fewer than {MIN_N_BOOT} draws or the estimate outside); see interval_flags / the * marks",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(report_json(tab), indent=2, allow_nan=False))
    else:
        print(format_table(tab, width=None if getattr(args, "wide", False) else core.TERMINAL_WIDTH))
    if args.html:
        # imported here: the page needs pandas and altair, which `report --json` never loads (start-up time)
        from selfconf.report.html import write_html

        write_html(args.html, tab.to_frame())  # the charts are built with pandas anyway
        print(f"wrote {args.html}", file=sys.stderr)
    if figures_dir:
        from selfconf.report.plots import write_figures

        paths = write_figures(tab.to_frame(), figures_dir)
        print(f"wrote {len(paths)} figure files to {figures_dir} (svg, png, pdf)", file=sys.stderr)
    return 0


def check_figures_dir(path: str) -> None:
    """Refuse a ``--figures`` path that is an existing file, before any computation."""
    from pathlib import Path

    if Path(path).exists() and not Path(path).is_dir():
        raise ValueError(f"--figures {path}: is a file; give a directory (it is created if missing)")
