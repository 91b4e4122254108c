"""Percentile bootstrap confidence intervals: the public name of :mod:`selfconf.stats.bootstrap`.

The implementation lives in the statistics subpackage (``src/selfconf/stats/bootstrap.py``), below the
statistics that use it, so no import runs from ``selfconf.stats`` out to this module and back in.  Readers'
code, exercises and checks import ``selfconf.bootstrap`` as before: importing it gives the very same module
object (it replaces itself in ``sys.modules``), so every public and private name, ``monkeypatch.setattr`` and
:func:`recording_intervals` act on the one module.

Reference: Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*. Chapman & Hall.

Example: after ``import selfconf.bootstrap, selfconf.stats.bootstrap``, ``selfconf.bootstrap is
selfconf.stats.bootstrap`` is True (``tests/test_layers.py``; pytest does not collect this file, see
``pyproject.toml``, because its doctests run under the implementation's name).
"""

from __future__ import annotations

import sys

from selfconf.stats import bootstrap as _impl
from selfconf.stats.bootstrap import *  # noqa: F403  (the names, for type checkers)
from selfconf.stats.bootstrap import __all__ as __all__

sys.modules[__name__] = _impl
