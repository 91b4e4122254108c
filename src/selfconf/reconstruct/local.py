"""Tables for the seven local (Ollama) models.

The paper prints only the local tier's spans (accuracy 5.0-9.2%, median stated confidence
85-100, graded n 98-1,498, total 8,802 graded rows) and says parse failures concentrate in
one reasoning model with 98 gradable answers.  Everything else here is a documented choice
of the reconstruction, not a published number:

* per-model graded n and correct counts (qwen3:8b, the grader model, gets 89 of 1,498
  correct = 5.9%, the pre-regrade accuracy printed in the Limitations section);
* medians inside 85-100, means a few points below the median, self-AUROC near 0.57
  (weak discrimination, as for the frontier tier).
"""

from __future__ import annotations

import numpy as np

from selfconf.reconstruct.anneal import ModelTable, Part, anneal, interval_penalty
from selfconf.reconstruct.frontier import median_penalty
from selfconf.reconstruct.tables import auroc_table

__all__ = ["LOCAL", "LOCAL_SPEC", "fit_local"]

#: tag: (graded n, correct, median, mean target, self-AUROC target)
LOCAL_SPEC = {
    "gemma4:e4b": (1479, 120, 95, 90.5, 0.58),
    "llama3.2:3b": (1411, 71, 90, 86.0, 0.55),
    "phi4-mini": (1372, 80, 90, 85.0, 0.56),
    "qwen3:8b": (1498, 89, 100, 95.5, 0.57),
    "deepseek-r1:8b": (98, 9, 85, 80.0, 0.60),
    "glm4:9b": (1460, 105, 95, 89.0, 0.59),
    "mistral:7b": (1484, 98, 90, 87.5, 0.56),
}
LOCAL = list(LOCAL_SPEC)

GRID = np.arange(0, 101, 5)


def _penalty(mt: ModelTable):
    n, k, med, mean_t, auc_t = LOCAL_SPEC[mt.name]
    v, c0, c1 = mt.table()
    tot = c0 + c1
    mean = float((v * tot).sum() / tot.sum())
    p = median_penalty(v, tot, med, unit=4.0)
    p += interval_penalty(mean, mean_t - 0.5, mean_t + 0.5)
    p += interval_penalty(auroc_table(v, c0, c1), auc_t - 0.01, auc_t + 0.01)
    return p, {}


def fit_local(rng: np.random.Generator, n_steps: int = 6000) -> dict[str, ModelTable]:
    """One table per local model (independent small annealing runs)."""
    out = {}
    for name, (n, k, med, _, _) in LOCAL_SPEC.items():
        j = int(np.searchsorted(GRID, med))
        counts = np.zeros((2, GRID.size), dtype=np.int64)
        counts[1, j] = k
        counts[0, j] = n - k
        mt = ModelTable(name, GRID.copy(), {"main": Part("main", counts, np.ones(GRID.size, bool))})
        anneal({name: mt}, _penalty, None, rng, n_steps, t0=1.0, t1=1e-3)
        out[name] = mt
    return out
