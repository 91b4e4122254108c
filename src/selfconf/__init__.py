"""selfconf: recompute *Self-Confidence in LLM Evaluation* (Chernets 2026) from rows.

Layers, from the bottom up; a layer imports only from the layers below it (``tests/test_layers.py``
enforces this with import-linter, and that no module imports itself back through others):

=====================  =====================================================================================
statistics             :mod:`selfconf.metrics`, :mod:`selfconf.bootstrap`, :mod:`selfconf.panels`,
                       :mod:`selfconf.stats` (the public statistics API; imports no other layer)
row input and schemas  :mod:`selfconf.data` (collection, families, row files, sources, downloads, paths)
claims                 :mod:`selfconf.claims` (manifest, the one judging rule, the paper's consistency)
report, data sets      :mod:`selfconf.report` (the practitioner's report), :mod:`selfconf.datasets`
sections               :mod:`selfconf.sections` (what each section notebook glues, as functions)
reconstruction         :mod:`selfconf.reconstruct` (the seeded rows fitted to the published statistics)
book                   :mod:`selfconf.book` (execution, glue, audit, Sphinx extensions, PDF), :mod:`selfconf.course`
command line           :mod:`selfconf.cli` (``selfconf collect | grade | report | diagnose | fetch``)
=====================  =====================================================================================

``python -m selfconf.build`` and ``python -m selfconf.audit`` are the two command names the project's
issues give; they run :mod:`selfconf.book.build` and :mod:`selfconf.book.audit`.
"""

__version__ = "0.1.0"
