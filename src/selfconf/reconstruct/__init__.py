"""Seeded, deterministic reconstruction of the paper's row-level data.

The paper's replication package is out of reach, so the book computes from rows generated to be
consistent with every printed number of the *Design* and *Result 1* sections (collection) and,
from a colleague's module, of the ladder experiment.  Run ``python -m selfconf.reconstruct``
(``make data``); ``--check`` regenerates into a temporary folder and compares bytes.

Modules
-------
targets     the printed numbers of ``data/paper/claims.yaml`` as target intervals
tables      confidence-by-correctness tables and their statistics (numpy)
faststats   the same statistics in one pure-Python pass (used inside the search)
anneal      simulated annealing over integer tables (parts, hard/soft targets)
frontier    the nine frontier models' tables (Table 1, Table 2, Result 1 prose, panel pooling)
local       the seven local models' tables (spans only are printed)
collection  items, correctness, confidences and answer classes; panel-structure tuning; CSV
bench_age   the TruthfulQA side of the benchmark-age arm
fidelity    every design/result1 claim recomputed from the written rows with the book's functions
generate    the driver writing ``data/reconstructed/*`` and ``fidelity_collection.json``

This package (and :mod:`selfconf.book.audit`) are the only code allowed to read claim targets.
"""
