"""``selfconf report``: the command line of the practitioner's report (parser, run, the HTML file).

The computation is :mod:`selfconf.report.core` (``load_rows`` / ``compute_records``); the page is
:mod:`selfconf.report.html`. This module only wires them to ``argparse``.
"""

from __future__ import annotations

import argparse
import json
import sys

from selfconf.data.validate import SCALES
from selfconf.report import core
from selfconf.report.core import (
    MIN_N_BOOT,
    RESAMPLING,
    compute_records,
    format_table,
    load_rows,
    n_flagged_units,
    report_json,
    warnings_of,
)

__all__ = ["HELP", "add_parser", "run"]


HELP = "calibration report (terminal, --json, --html) with intervals on every metric, for graded rows of any model"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "report",
        help=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
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
        ),
        epilog=(
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
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="CSV/TSV/JSONL files (optionally .gz) of graded rows")
    add_sampling_arguments(p, scale_rule="default; rule below")
    p.add_argument(
        "--resampling",
        choices=RESAMPLING,
        default="rows",
        help="rows (default): the row bootstrap; poisson: the Poisson bootstrap (an independent Poisson(1) "
        "weight per row; agrees to O(1/n); its draws take about two thirds of the time, the whole report at 1M "
        "rows about 15%% less)",
    )
    p.add_argument("--ece-bins", type=int, default=10, help="number of ECE bins (default 10)")
    p.add_argument(
        "--ece-binning",
        choices=("equal_width", "equal_mass"),
        default="equal_width",
        help="equal_width (default) or equal_mass bins (about n/B rows each; tied confidences share a bin)",
    )
    p.add_argument(
        "--ece-edge",
        choices=("upper", "lower"),
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
    p.add_argument(
        "--recalibrate",
        choices=core.RECALIBRATIONS,
        default=None,
        help="also report ECE, Brier and AUROC after recalibrating each model's confidences (isotonic regression, "
        "temperature scaling, histogram binning, Platt scaling a*logit(c)+b or beta calibration "
        "a*ln(c)-b*ln(1-c)+c0), fitted by k-fold cross-fitting so that no row is scored by a "
        f"map fitted on it; temperature, Platt and beta clip confidences to [{core.CLIP_EPS:g}, 1 - {core.CLIP_EPS:g}] "
        "before the "
        "logit/log and fit by maximum likelihood with a convergence check: a map that does not converge is "
        "not used and its metrics are shown missing with the reason; off by default",
    )
    p.add_argument("--folds", type=int, default=5, help="folds of --recalibrate's cross-fitting (default 5)")
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
    # input layout (--columns, --sep): selfconf.report.layout, shared with `selfconf compare`
    from selfconf.report.layout import add_ece_sklearn_argument, add_layout_arguments

    add_layout_arguments(p)
    add_ece_sklearn_argument(p)
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


def add_sampling_arguments(p: argparse.ArgumentParser, *, scale_rule: str) -> None:
    """The options ``report`` and ``panel`` share: ``--confidence-scale``, ``--seed`` and ``--n-boot`` (one default,
    one rule: :func:`selfconf.report.core.check_n_boot`).  ``scale_rule`` is the parenthesis after ``auto`` in the
    scale's help text."""
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
        help=f"bootstrap draws for every interval (default 2000; at least {MIN_N_BOOT})",
    )


def run(args: argparse.Namespace) -> int:
    _keep_freed_blocks()
    _no_hugepage_advice()
    core.check_n_boot(args.n_boot)
    high_confidence = core.check_high_confidence(getattr(args, "high_confidence", "0.8"))
    coverages = core.parse_coverages(getattr(args, "coverages", "100,80,60,40,20"))
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    if args.ece_bins < 1:
        raise ValueError(f"--ece-bins must be >= 1, got {args.ece_bins}")
    # input layout and output paths (selfconf.report.layout): checked before any computation
    from selfconf.report.layout import apply_ece_sklearn, check_outputs, layout_of, print_notes

    apply_ece_sklearn(args)
    check_outputs(html=args.html)
    figures_dir = getattr(args, "figures", None)
    if figures_dir:
        check_figures_dir(figures_dir)
    layout = layout_of(args, extra=(args.by,) if args.by else ())
    rows = load_rows(args.paths, confidence_scale=args.confidence_scale, by=args.by, layout=layout)
    print_notes(rows)
    tab = compute_records(
        rows,
        seed=args.seed,
        n_boot=args.n_boot,
        ece_bins=args.ece_bins,
        ece_binning=args.ece_binning,
        ece_edge=args.ece_edge,
        resampling=getattr(args, "resampling", "rows"),
        ece_snap=getattr(args, "ece_snap", True),
        high_confidence=high_confidence,
        coverages=coverages,
        recalibrate=getattr(args, "recalibrate", None),
        folds=getattr(args, "folds", 5),
    )
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
