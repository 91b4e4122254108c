"""``selfconf report``: calibration, discrimination and selective-prediction statistics for graded rows.

- :mod:`selfconf.report.core`  computing the report (``from_frame``, the JSON, the terminal table, the CLI command)
- :mod:`selfconf.report.html`  the self-contained offline HTML page
- :mod:`selfconf.report.command`  the ``selfconf report`` command line (parser and run)
- :mod:`selfconf.report.compare`  two arms compared on shared items (``selfconf compare``, ``compare(df_a, df_b)``)
- :mod:`selfconf.report.layout`  the ``--columns`` / ``--sep`` options the commands share
- :mod:`selfconf.report.plots`  the charts (``figures(tab)``: name -> altair chart; ``write_figures``: SVG, PNG, PDF)

The public names of :mod:`selfconf.report.core` are importable from here: ``from selfconf.report import from_frame``.
"""

from selfconf.report.compare import compare
from selfconf.report.core import (
    CI_METRICS,
    COVERAGES,
    HIGH_CONF,
    JSON_MODEL_KEYS,
    METRICS,
    SCALES,
    LoadedRows,
    Metric,
    ReportOptions,
    ReportTable,
    Rows,
    ci_metrics,
    compute,
    compute_records,
    compute_report,
    coverage_key,
    format_table,
    from_frame,
    json_model_keys,
    load_rows,
    prepare_frame,
    report_json,
    resolve_scale,
    rows_from_frame,
)
from selfconf.report.plots import figures, write_figures

__all__ = [
    "compare",
    "figures",
    "write_figures",
    "JSON_MODEL_KEYS",
    "METRICS",
    "Metric",
    "ci_metrics",
    "json_model_keys",
    "CI_METRICS",
    "COVERAGES",
    "HIGH_CONF",
    "coverage_key",
    "SCALES",
    "Rows",
    "resolve_scale",
    "load_rows",
    "rows_from_frame",
    "compute",
    "compute_records",
    "ReportTable",
    "ReportOptions",
    "from_frame",
    "report_json",
    "format_table",
    "LoadedRows",
    "prepare_frame",
    "compute_report",
]
