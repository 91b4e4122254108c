"""Seeded, deterministic reconstruction of the paper's row-level data.

The paper's replication package is out of reach, so the book computes from rows generated to be
consistent with every printed number of the *Design* and *Result 1* sections (the collection), of the
profile-injection ladder (Result 2, Result 3's frontier rung) and of the probes and limitation arms.  Run
``python -m selfconf.reconstruct`` (``make data``); ``--check`` regenerates into a temporary folder and compares
bytes.

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
generate    the collection's driver: ``collection.csv``, ``benchmark_age.csv``, ``fidelity_collection.json``
bounds      item-clustered AUROC standard errors and the attainable bounds the audit's verdicts use
ladder      the ladder bundle (scored arms and profiles per subject) and ``fidelity_ladder.json``
arms        the manipulation probes and the limitation arms, and ``fidelity_arms.json``

Generators run in that order: ``python -m selfconf.reconstruct`` calls ``generate.generate`` then
``ladder.generate`` (which writes the arms too).

This package (and :mod:`selfconf.book.audit`) are the only code allowed to read claim targets.
"""
