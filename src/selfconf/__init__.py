"""selfconf: recompute *Self-Confidence in LLM Evaluation* (Chernets 2026) from rows.

The package is layered; the one statement of the layers is the import-linter ``layers`` contract in
``pyproject.toml`` (README.md and CONTRIBUTING.md include the table rendered from it by ``scripts/layer_table.py``).

``python -m selfconf.build`` and ``python -m selfconf.audit`` are the two command names the project's
issues give; they run :mod:`selfconf.book.build` and :mod:`selfconf.book.audit`.
"""

__version__ = "0.1.0"
