"""selfconf: recompute *Self-Confidence in LLM Evaluation* (Chernets 2026) from rows.

Subpackages
-----------
metrics    calibration and discrimination statistics (AUROC, Brier, ECE, CITL, ...)
bootstrap  percentile bootstrap CIs vectorised over draws, clustered and paired variants
glue       gluing claim-id values into executed notebooks (myst-nb) as plain Python numbers
audit      comparing every glued value with the number the paper prints
paths      locating the project root and its data
"""

__version__ = "0.1.0"
