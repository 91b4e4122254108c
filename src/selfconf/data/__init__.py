"""Row input and schemas: reading, validating and locating the rows every number is computed from.

- :mod:`selfconf.data.collection`  the 16-model collection (reconstructed CSV or the original JSONL)
- :mod:`selfconf.data.families`    the ladder, probe and arm families, in either layout
- :mod:`selfconf.data.rows`        column-wise reading of CSV, TSV and JSONL files (optionally gzipped)
- :mod:`selfconf.data.sources`     which source each data family of a page comes from
- :mod:`selfconf.data.fetch`       downloading third-party data (never committed)
- :mod:`selfconf.data.paths`       the project root and data paths

The collection loader's public names are importable from here (``from selfconf.data import graded``).
"""

import importlib
from typing import Any

#: Names re-exported from :mod:`selfconf.data.collection`, imported on first use (PEP 562): that
#: module imports pandas, which the column reader (:mod:`selfconf.data.rows`, used by
#: ``selfconf report``) does not need.
_COLLECTION_NAMES = (
    "BENCHMARK_AGE_COLUMNS",
    "COLUMNS",
    "TIERS",
    "DataError",
    "ExclusionReport",
    "graded",
    "load_benchmark_age",
    "load_collection",
    "load_collection_csv",
    "normalise_answer",
)

__all__ = list(_COLLECTION_NAMES)  # the same names as selfconf.data.collection.__all__ (tested)


def __getattr__(name: str) -> Any:
    if name in _COLLECTION_NAMES:
        return getattr(importlib.import_module("selfconf.data.collection"), name)
    raise AttributeError(f"module 'selfconf.data' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_COLLECTION_NAMES))
