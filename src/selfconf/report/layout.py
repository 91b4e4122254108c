"""Command-line options every row-reading command shares: ``--columns`` and ``--sep`` (how a file is laid out),
and the checks of output paths; the rules are :mod:`selfconf.data.layout`'s."""

from __future__ import annotations

import argparse
import sys

from selfconf.data.layout import SEPARATORS, Layout, check_output_path, parse_columns, parse_sep
from selfconf.report.core import REQUIRED

__all__ = [
    "COLUMNS_HELP",
    "add_layout_arguments",
    "add_ece_sklearn_argument",
    "apply_ece_sklearn",
    "layout_of",
    "check_outputs",
    "print_notes",
]

COLUMNS_HELP = (
    "the file's column for each column the report needs, e.g. "
    "model=llm,confidence=stated_confidence,correct=is_correct,item_id=qset+question_id "
    "(a+b joins the trimmed values of several columns into one id, separated by '/'); "
    "names: " + ", ".join((*REQUIRED, "refusal"))
)


def add_layout_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--columns`` and ``--sep`` to a command's parser."""
    p.add_argument("--columns", metavar="MAP", default=None, help=COLUMNS_HELP)
    p.add_argument(
        "--sep",
        metavar="SEP",
        default="auto",
        help="delimiter of .csv/.tsv files: auto (default: of "
        + ", ".join(SEPARATORS)
        + ", the one that splits the header into the most fields; a tie keeps the extension's; the one found "
        "is named on stderr when it is not the extension's), one of those names, or a single character",
    )


def add_ece_sklearn_argument(p: argparse.ArgumentParser) -> None:
    """Add ``--ece-sklearn``: scikit-learn's ECE convention in one flag (``--ece-edge lower --no-ece-snap``)."""
    p.add_argument(
        "--ece-sklearn",
        action="store_true",
        help="scikit-learn's ECE convention (calibration_curve's bins) in one flag: sets --ece-edge lower "
        "--no-ece-snap, overriding both",
    )


def apply_ece_sklearn(args: argparse.Namespace) -> None:
    """Turn ``--ece-sklearn`` into ``ece_edge="lower"``, ``ece_snap=False`` on the parsed options (in place)."""
    if getattr(args, "ece_sklearn", False):
        args.ece_edge, args.ece_snap = "lower", False


def layout_of(args: argparse.Namespace, extra: tuple[str, ...] = ()) -> Layout:
    """The :class:`selfconf.data.layout.Layout` of the parsed options (``extra``: more mappable names, e.g. the
    ``--by`` column)."""
    allowed = (*REQUIRED, "refusal", *extra)
    return Layout(parse_columns(getattr(args, "columns", None), allowed), parse_sep(getattr(args, "sep", "auto")))


def check_outputs(**paths: str | None) -> None:
    """Refuse an output path that is a directory before any work (``check_outputs(html=args.html)``)."""
    for option, path in paths.items():
        if path:
            check_output_path(path, f"--{option.replace('_', '-')}")


def print_notes(*rows) -> None:
    """Print how each input was read (e.g. a detected delimiter) to stderr."""
    seen = set()
    for r in rows:
        for note in getattr(r, "notes", []):
            if note not in seen:
                seen.add(note)
                print(f"note: {note}", file=sys.stderr)
