"""The command-line tools: ``selfconf collect | grade | report | diagnose | fetch``.

- :mod:`selfconf.cli.commands`  the ``selfconf`` console script (``main``) and its sub-command table
- :mod:`selfconf.cli.collect`   ask a model the paper's question format and keep every reply
- :mod:`selfconf.cli.grade`     mark collected answers correct, incorrect or refused
- :mod:`selfconf.cli.diagnose`  the self-assessment diagnostic
"""

from selfconf.cli.commands import SUBCOMMANDS, build_parser, main

__all__ = ["SUBCOMMANDS", "build_parser", "main"]
