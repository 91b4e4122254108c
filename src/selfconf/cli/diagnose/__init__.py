"""Self-assessment diagnostic (the paper's appendix tool) with a battery written for selfconf.

* :mod:`selfconf.cli.diagnose.scoring` — battery loading, grading, the four components, composite, tiers;
* :mod:`selfconf.cli.diagnose.command` — the ``selfconf diagnose`` subcommand (``add_parser``/``run``);
* ``battery.json`` — the probes and traps (package data).
"""

from selfconf.cli.diagnose.command import add_parser, run
from selfconf.cli.diagnose.scoring import (
    ABSTAIN,
    DIAGNOSE_SYSTEM_PROMPT,
    TIERS,
    WEIGHTS,
    DiagnosticResult,
    components,
    composite,
    grade_item,
    load_battery,
    score_answers,
    tier,
)

__all__ = [
    "add_parser",
    "run",
    "ABSTAIN",
    "DIAGNOSE_SYSTEM_PROMPT",
    "TIERS",
    "WEIGHTS",
    "DiagnosticResult",
    "components",
    "composite",
    "grade_item",
    "load_battery",
    "score_answers",
    "tier",
]
