"""The ``selfconf`` command line (console script ``selfconf = selfconf.cli:main``).

Each subcommand lives in its own module, which exposes two functions:

* ``add_parser(subparsers)`` — register the subcommand (``subparsers.add_parser(name, ...)``) with
  its options and full help text; returns the parser;
* ``run(args) -> int`` — execute it and return the process exit code.

:data:`SUBCOMMANDS` lists ``(name, module, optional)``.  An optional module that is not installed
(for example ``selfconf.book.rerun`` before it is written) is skipped silently; any other import error
is raised, so a broken module is never hidden.

Errors that users can fix (missing file, malformed row, out-of-range value, bad option) are
raised as ``FileNotFoundError``/``ValueError`` by the subcommands and printed here as one line
``selfconf <cmd>: error: ...`` with exit code 2, without a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from types import ModuleType

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

#: (subcommand name, module path, optional?)
SUBCOMMANDS: list[tuple[str, str, bool]] = [
    ("report", "selfconf.report.command", False),
    ("compare", "selfconf.cli.compare", False),
    ("panel", "selfconf.cli.panel", False),
    ("collect", "selfconf.cli.collect", False),
    ("grade", "selfconf.cli.grade", False),
    ("diagnose", "selfconf.cli.diagnose", False),
    ("fetch", "selfconf.data.fetch", False),
    ("rerun", "selfconf.book.rerun", True),
]


def _load(module: str, optional: bool) -> ModuleType | None:
    if optional and importlib.util.find_spec(module) is None:
        return None
    return importlib.import_module(module)


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, ModuleType]]:
    """Build the top-level parser; return it with ``{subcommand: module}``."""
    from selfconf import __version__

    parser = argparse.ArgumentParser(
        prog="selfconf",
        description=(
            "Measure stated-confidence calibration the way 'Self-Confidence in LLM Evaluation' "
            "(Chernets 2026) does: collect answers with a 0-100 confidence from any OpenAI-compatible "
            "endpoint, grade them, report the paper's Table 1 metrics, and run the appendix diagnostic."
        ),
        epilog="run `selfconf <command> --help` for the options of each command",
    )
    parser.add_argument("--version", action="version", version=f"selfconf {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    modules: dict[str, ModuleType] = {}
    for name, modpath, optional in SUBCOMMANDS:
        mod = _load(modpath, optional)
        if mod is None:
            continue
        mod.add_parser(sub)
        modules[name] = mod
    return parser, modules


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse ``argv`` and run the chosen subcommand; return its exit code."""
    parser, modules = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(modules[args.command].run(args) or 0)
    except (FileNotFoundError, ValueError) as exc:
        print(f"selfconf {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and the like
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"selfconf {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # endpoint failures and the like: one readable line
        from selfconf.cli.collect import EndpointError
        from selfconf.data.fetch import DownloadError

        if isinstance(exc, EndpointError):
            print(f"selfconf {args.command}: error: {exc}", file=sys.stderr)
            return 3
        if isinstance(exc, DownloadError):  # a URL or the network: the user's to fix, like a missing file
            print(f"selfconf {args.command}: error: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
