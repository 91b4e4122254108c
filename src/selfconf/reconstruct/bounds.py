"""Standard errors of the AUROC used by the generator: item-clustered influence SEs and the
smallest DeLong SE a block-constrained table can reach.

Two jobs, both analytic (no bootstrap draws, so nothing depends on one seed's luck):

1. **Clustered influence SE** (:func:`clustered_auroc_influence`, :func:`clustered_auroc_se`,
   :func:`clustered_contrast_se`).  The AUROC with ties counted one half is a two-sample
   U-statistic.  Linearised, ``A - theta ~ sum_k S_k`` with one term per cluster (item)::

       S_k = (1/n1) sum_{correct rows r of k} (V10_r - A) + (1/n0) sum_{incorrect rows r of k} (V01_r - A)

   where ``V10_r`` (a correct row's placement) is the share of incorrect rows scoring below it
   plus half the tied ones and ``V01_r`` (an incorrect row's placement) the share of correct rows
   scoring above it plus half the tied ones.  An item-clustered bootstrap that draws K items
   with replacement has variance ``sum_k (S_k - mean S)^2`` to first order, so
   ``sqrt(sum_k (S_k - mean S)^2)`` is the seed-free counterpart of the bootstrap SE (the
   percentile interval's half-width is about 1.96 of it).  A paired contrast A_a - A_b on the
   same clusters has influence ``S_k^a - S_k^b``.  References: DeLong, DeLong & Clarke-Pearson
   (1988), Biometrics 44:837-845; Obuchowski (1997), Biometrics 53:567-578 (clustered data).

2. **Smallest DeLong SE under coverage blocks** (:func:`min_delong_se`).  Table 2 fixes, for a
   model, how many rows and how many errors lie in each coverage block (rows sorted by
   descending confidence).  Inside a block the order of correct and incorrect rows is free.
   Walking down the ranking, every incorrect row's placement is the share of correct rows
   above it and every correct row's placement is the share of incorrect rows below it (the
   ROC staircase), so with the AUROC ``A`` held fixed the DeLong variance::

       SE^2 = [sum V10^2 - n1 A^2] / (n1 (n1 - 1)) + [sum V01^2 - n0 A^2] / (n0 (n0 - 1))

   is a sum of per-step costs.  With a Lagrange multiplier ``mu`` on the AUROC the problem
   ``min sum cost - mu * A`` splits into one shortest-path problem per block, solved exactly by
   dynamic programming over the block's (incorrect, correct) lattice.  Steps are one row at a
   time (strict order) or, optionally, a tie group of up to ``max_tie`` incorrect and
   ``max_tie`` correct rows sharing one confidence (mid-rank placements).  ``mu`` is bisected
   until the AUROC falls in the printed window.  Weak duality also gives a certified lower
   bound: for every ordering with AUROC in ``[lo, hi]``,
   ``sum V^2-cost >= L(mu) + min(mu lo, mu hi)``, where ``L(mu)`` is the dynamic programme's
   optimum; the largest such bound over the bisection's ``mu`` values is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "clustered_auroc_influence",
    "clustered_auroc_se",
    "clustered_contrast_se",
    "delong_se_from_table",
    "block_tied_table",
    "BlockBound",
    "min_delong_se",
]


# ----------------------------------------------------------------------------------------
# 1. item-clustered influence standard errors
# ----------------------------------------------------------------------------------------


def clustered_auroc_influence(score, correct, clusters) -> tuple[float, np.ndarray]:
    """AUROC (ties one half) and its per-cluster influence terms ``S_k`` (module docstring).

    ``score`` and ``correct`` (0/1) are row vectors; ``clusters`` gives each row's cluster as
    integers ``0 .. K-1`` (every cluster present).  Returns ``(A, S)`` with ``S`` of shape (K,).
    """
    s = np.asarray(score, dtype=float)
    y = np.asarray(correct).astype(bool)
    k = np.asarray(clusters, dtype=np.int64)
    if not (s.shape == y.shape == k.shape):
        raise ValueError("score, correct and clusters must have the same shape")
    pos, neg = np.sort(s[y]), np.sort(s[~y])
    n1, n0 = pos.size, neg.size
    if n1 == 0 or n0 == 0:
        raise ValueError("both classes are needed for an AUROC")
    v = np.empty(s.size)
    sp = s[y]
    v[y] = (
        np.searchsorted(neg, sp, "left") + 0.5 * (np.searchsorted(neg, sp, "right") - np.searchsorted(neg, sp, "left"))
    ) / n0
    sn = s[~y]
    above = n1 - np.searchsorted(pos, sn, "right")
    tied = np.searchsorted(pos, sn, "right") - np.searchsorted(pos, sn, "left")
    v[~y] = (above + 0.5 * tied) / n1
    a = float(v[y].mean())
    contrib = np.where(y, (v - a) / n1, (v - a) / n0)
    return a, np.bincount(k, weights=contrib, minlength=int(k.max()) + 1)


def _se(s: np.ndarray) -> float:
    return float(np.sqrt(np.sum((s - s.mean()) ** 2)))


def clustered_auroc_se(score, correct, clusters) -> float:
    """First-order item-clustered bootstrap SE of the AUROC: ``sqrt(sum_k (S_k - mean S)^2)``."""
    return _se(clustered_auroc_influence(score, correct, clusters)[1])


def clustered_contrast_se(score_a, score_b, correct, clusters) -> float:
    """Same for the paired difference AUROC(score_a) - AUROC(score_b) on the same rows."""
    sa = clustered_auroc_influence(score_a, correct, clusters)[1]
    sb = clustered_auroc_influence(score_b, correct, clusters)[1]
    return _se(sa - sb)


# ----------------------------------------------------------------------------------------
# 2. smallest DeLong SE under fixed coverage blocks
# ----------------------------------------------------------------------------------------


def delong_se_from_table(c0, c1) -> tuple[float, float]:
    """AUROC and DeLong SE (mid-rank placements) of a table of counts per score level.

    ``c0[t]`` / ``c1[t]`` = incorrect / correct rows at level ``t`` (levels in ascending score).
    """
    c0 = np.asarray(c0, dtype=float)
    c1 = np.asarray(c1, dtype=float)
    n0, n1 = c0.sum(), c1.sum()
    v10 = (np.cumsum(c0) - c0 + 0.5 * c0) / n0
    v01 = (n1 - np.cumsum(c1) + 0.5 * c1) / n1
    a = float((c1 * v10).sum() / n1)
    s10 = (c1 * (v10 - a) ** 2).sum() / (n1 - 1)
    s01 = (c0 * (v01 - a) ** 2).sum() / (n0 - 1)
    return a, float(np.sqrt(s10 / n1 + s01 / n0))


def block_tied_table(block_sizes, block_errors) -> tuple[np.ndarray, np.ndarray]:
    """The table in which every coverage block is one tie group (blocks listed top first).

    Returns ``(c0, c1)`` in ascending score order (bottom block first).
    """
    n = np.asarray(block_sizes, dtype=np.int64)
    e = np.asarray(block_errors, dtype=np.int64)
    return e[::-1].copy(), (n - e)[::-1].copy()


@dataclass
class BlockBound:
    """Result of :func:`min_delong_se` (plain Python numbers; see the module docstring)."""

    auroc: float  #: AUROC of the best ordering found
    se: float  #: its DeLong SE (the smallest found in the window)
    lower_bound: float  #: certified lower bound on the DeLong SE of any ordering in the window
    window: tuple[float, float]
    max_tie: int
    mu: float
    c0: list[int] = field(repr=False, default_factory=list)  #: the ordering as a table, ascending score
    c1: list[int] = field(repr=False, default_factory=list)


def _solve_block(x0, y0, a, p, n0, n1, mu, max_tie):
    """Exact minimum of sum(step costs) - mu * area over one block's lattice (module docstring).

    Lattice point (i, j) = i incorrect and j correct rows of the block placed, counting from the
    block's top; (x0, y0) = incorrect / correct rows above the block.  Returns the optimum and
    the list of steps (dn, dp) from the top.
    """
    w0 = 1.0 / (n0 * (n0 - 1))
    w1 = 1.0 / (n1 * (n1 - 1))
    jumps = [(1, 0)] + [(dn, dp) for dn in range(1, max_tie + 1) for dp in range(1, max_tie + 1)]
    jj = np.arange(p + 1)
    D = np.full((a + 1, p + 1), np.inf)
    E = np.full((a + 1, p + 1), np.inf)
    jump_of = np.full((a + 1, p + 1), -1, dtype=np.int64)
    run_from = np.zeros((a + 1, p + 1), dtype=np.int64)
    for i in range(a + 1):
        if i == 0:
            E[0, 0] = 0.0
        else:
            for t, (dn, dp) in enumerate(jumps):
                if dn > i or dp > p:
                    continue
                jv = jj[dp:]
                v01 = (y0 + jv - dp + 0.5 * dp) / n1  # placement of each incorrect row of the group
                v10 = (n0 - (x0 + i - dn) - 0.5 * dn) / n0  # placement of each correct row
                cost = dn * (w0 * v01**2 - mu * v01 / n0) + dp * w1 * v10**2
                cand = D[i - dn, : p + 1 - dp] + cost
                better = cand < E[i, dp:]
                E[i, dp:][better] = cand[better]
                jump_of[i, dp:][better] = t
        # runs of correct rows inside row i: each costs w1 * ((n0 - x0 - i) / n0)^2
        step = w1 * ((n0 - x0 - i) / n0) ** 2
        g = E[i] - step * jj
        best = np.minimum.accumulate(g)
        arg = np.empty(p + 1, dtype=np.int64)
        idx = np.arange(p + 1)
        is_new = np.concatenate([[True], g[1:] < best[:-1]])
        arg = np.maximum.accumulate(np.where(is_new, idx, 0))
        D[i] = best + step * jj
        run_from[i] = arg
    # backtrack from (a, p)
    steps = []
    i, j = a, p
    while (i, j) != (0, 0):
        j0 = int(run_from[i, j])
        steps.extend([(0, 1)] * (j - j0))
        j = j0
        if (i, j) == (0, 0):
            break
        dn, dp = jumps[int(jump_of[i, j])]
        steps.append((dn, dp))
        i, j = i - dn, j - dp
    return float(D[a, p]), steps[::-1]


def _solve_all(sizes, errors, n0, n1, mu, max_tie):
    total, groups = 0.0, []
    x0 = y0 = 0
    for nb, eb in zip(sizes, errors, strict=True):
        val, steps = _solve_block(x0, y0, int(eb), int(nb - eb), n0, n1, mu, max_tie)
        total += val
        groups.extend(steps)
        x0 += int(eb)
        y0 += int(nb - eb)
    # groups run from the top score down; a table lists levels in ascending score
    c0 = np.array([g[0] for g in groups][::-1])
    c1 = np.array([g[1] for g in groups][::-1])
    return total, c0, c1


def min_delong_se(
    block_sizes, block_errors, window: tuple[float, float], *, max_tie: int = 3, iters: int = 40
) -> BlockBound:
    """Smallest DeLong SE of an AUROC in ``window`` for rows split into fixed coverage blocks.

    ``block_sizes`` / ``block_errors``: rows and incorrect rows of each block, top (most
    confident) block first.  Orders inside a block are searched exactly by dynamic programming
    (strict order plus tie groups of up to ``max_tie`` rows of each class); a Lagrange
    multiplier on the AUROC is bisected (``iters`` steps) so that the optimum's AUROC falls in
    ``window``.  The search is deterministic (no random numbers).  Returns the best ordering
    in the window and a certified lower bound on the SE (weak duality, see module docstring).
    Raises ``ValueError`` if no multiplier puts the AUROC in the window.
    """
    sizes = np.asarray(block_sizes, dtype=np.int64)
    errors = np.asarray(block_errors, dtype=np.int64)
    if sizes.shape != errors.shape or (errors > sizes).any() or (errors < 0).any():
        raise ValueError("block_errors must be 0..block_sizes, one per block")
    lo, hi = float(window[0]), float(window[1])
    n0, n1 = int(errors.sum()), int((sizes - errors).sum())
    k0 = 1.0 / (n0 - 1) + 1.0 / (n1 - 1)  # SE^2 = sumV2_cost - A^2 * k0

    def run(mu):
        val, c0, c1 = _solve_all(sizes, errors, n0, n1, mu, max_tie)
        a, se = delong_se_from_table(c0, c1)
        return val, a, se, c0, c1

    best = None
    bound_cost = -np.inf
    m_lo, m_hi = -1.0, 1.0
    # widen the bracket until it straddles the window's centre
    centre = 0.5 * (lo + hi)
    while run(m_hi)[1] < centre:
        m_hi *= 2
    while run(m_lo)[1] > centre:
        m_lo *= 2
    for _ in range(iters):
        mu = 0.5 * (m_lo + m_hi)
        val, a, se, c0, c1 = run(mu)
        bound_cost = max(bound_cost, val + min(mu * lo, mu * hi))
        if lo <= a <= hi and (best is None or se < best.se):
            best = BlockBound(a, se, float("nan"), (lo, hi), max_tie, mu, c0.tolist(), c1.tolist())
        if a < centre:
            m_lo = mu
        else:
            m_hi = mu
    if best is None:
        raise ValueError(f"no ordering with AUROC in [{lo}, {hi}] found")
    best.lower_bound = float(np.sqrt(max(bound_cost - hi * hi * k0, 0.0)))
    return best
