"""Statistics layer, beyond the three public modules.

The statistics the book and the report compute live in :mod:`selfconf.metrics` (point statistics),
:mod:`selfconf.bootstrap` (percentile intervals) and :mod:`selfconf.panels` (panel agreement). This
subpackage holds what they share or build on: the per-model summary table (:mod:`selfconf.stats.summary`).
Nothing here imports the book, the command line, the claims or the reconstruction.
"""
