"""``selfconf report``: calibration, discrimination and selective-prediction statistics for graded rows.

- :mod:`selfconf.report.core`  computing the report (``from_frame``, the JSON, the terminal table, the CLI command)
- :mod:`selfconf.report.html`  the self-contained offline HTML page
- :mod:`selfconf.report.command`  the ``selfconf report`` command line (parser and run)
- :mod:`selfconf.report.compare`  two arms compared on shared items (``selfconf compare``, ``compare(df_a, df_b)``)
- :mod:`selfconf.report.layout`  the ``--columns`` / ``--sep`` options the commands share
- :mod:`selfconf.report.plots`  the charts (``figures(tab)``: name -> altair chart; ``write_figures``: SVG, PNG, PDF)

The public names of :mod:`selfconf.report.core` are importable from here: ``from selfconf.report import from_frame``.
"""

from selfconf.report import core as _core
from selfconf.report.compare import compare
from selfconf.report.core import *  # noqa: F403 - every public name of core (its __all__), listed once there
from selfconf.report.plots import figures, write_figures

__all__ = ["compare", "figures", "write_figures", *_core.__all__]
