"""The paper's internal consistency: its printed numbers checked against each other.

No rows are read here.  Every check takes the numbers the paper prints (from the claim manifest
``data/paper/claims.yaml``; this module belongs to the audit appendix, which may read them) and asks
whether some set of *unrounded* values could have produced all of them at once.

Reading of a printed number
---------------------------
A value printed with ``d`` decimals stands for an unrounded value in the closed interval
``[v - h, v + h]`` with ``h = 0.5 * 10**-d``.  Both ends are admitted because the paper does not say
how halves are rounded (half up, half to even, or a binary float that happens to sit just below a
half).  All interval arithmetic is exact (:class:`fractions.Fraction`), so a check never passes or
fails because of float noise.

Statuses
--------
``pass``
    some unrounded values reproduce every printed number involved, under the reading the paper states;
``fail``
    no unrounded values do, under any reading the check considers;
``unclear``
    consistent only under an assumption the paper does not state (an unprinted denominator, an unnamed
    CI method), or the check is an approximation (Hanley–McNeil) that cannot decide either way.

Each check is a small function ``check_*(p, ...) -> (status, description, arithmetic)`` where ``p`` is a
:class:`Printed` view of the manifest; :func:`run_checks` runs them all and returns :class:`Check`
records.

References
----------
* Brown, N. J. L. & Heathers, J. A. J. (2017). The GRIM test. *Soc. Psychol. Personal. Sci.* 8(4).
* Hanley, J. A. & McNeil, B. J. (1982). The meaning and use of the area under a ROC curve. *Radiology* 143.
* Birnbaum, Z. W. & Klose, O. M. (1957). Bounds for the variance of the Mann–Whitney statistic.
  *Ann. Math. Statist.* 28(4).
* Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scand. J. Statist.* 6.
* Naeini, M. P., Cooper, G. & Hauskrecht, M. (2015). Obtaining well calibrated probabilities using
  Bayesian binning. *AAAI* (binned ECE).
* Popoviciu, T. (1935). Sur les équations algébriques ayant toutes leurs racines réelles (variance bound).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from statistics import NormalDist
from typing import Any

import numpy as np

from selfconf import roster
from selfconf.bootstrap import holm
from selfconf.claims.judging import fmt
from selfconf.stats.normal import Z975, quantile

__all__ = [
    "STATUSES",
    "Check",
    "Printed",
    "reachable_counts",
    "holm",
    "hanley_mcneil_se",
    "run_checks",
    "CHECKS",
    "CheckSpec",
    "CheckBlock",
    "Ctx",
    "Each",
    "At",
    "plan",
    "plan_context",
    "summarise",
    "checks_frame",
]

STATUSES = ("pass", "fail", "unclear")
PASS, FAIL, UNCLEAR = STATUSES

#: Table 1 row order used when the manifest does not give one.
DEFAULT_MODELS = tuple(roster.frontier())  # the roster table's Table 1 order

Z80 = quantile(0.80)

#: A bootstrap CI half-width within this factor of 1.96 x the Hanley-McNeil SE counts as agreement.
HM_RATIO_BAND = (0.75, 4 / 3)
#: Arms of a CI differing (beyond rounding) by more than this share of the half-width are flagged.
ASYMMETRY_SHARE = Fraction(1, 4)

Result = tuple[str, str, str]


@dataclass(frozen=True)
class Check:
    """One consistency check: its group, a short key, the verdict and the arithmetic behind it."""

    group: str
    key: str
    status: str
    description: str
    arithmetic: str
    claims: tuple[str, ...] = ()

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"check {self.key}: status {self.status!r} is not one of {STATUSES}")


# ---------------------------------------------------------------------------------------------------
# Printed values
# ---------------------------------------------------------------------------------------------------


class Printed:
    """Read-only view of the claim manifest: printed values, decimals and rounding intervals.

    ``claims_doc`` is the mapping returned by :func:`selfconf.book.audit.load_claims` (at least a
    ``claims`` list of mappings with ``id``, ``value`` and ``decimals``).  A claim asked for but
    absent raises ``KeyError`` naming it.
    """

    def __init__(self, claims_doc: dict, source: str = "claims document"):
        if not isinstance(claims_doc, dict) or not isinstance(claims_doc.get("claims"), list):
            raise ValueError(f"{source}: expected a mapping with a 'claims' list")
        self.source = source
        self.doc = claims_doc
        self.by_id: dict[str, dict] = {}
        for i, c in enumerate(claims_doc["claims"]):
            if not isinstance(c, dict) or "id" not in c:
                raise ValueError(f"{source}: claims[{i}] has no 'id'")
            for field in ("value", "decimals"):
                if field not in c:
                    raise ValueError(f"{source}: claim {c['id']!r} (claims[{i}]) lacks the field '{field}'")
            if c["id"] in self.by_id:
                raise ValueError(f"{source}: claim id {c['id']!r} appears twice")
            self.by_id[c["id"]] = c

    def has(self, cid: str) -> bool:
        return cid in self.by_id

    def claim(self, cid: str) -> dict:
        try:
            return self.by_id[cid]
        except KeyError:
            raise KeyError(f"{self.source}: no claim with id {cid!r}") from None

    def exact(self, cid: str) -> Fraction:
        """The printed value as an exact fraction (``0.77`` -> 77/100, not the binary float)."""
        v = self.claim(cid)["value"]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{self.source}: claim {cid!r} has a non-numeric value {v!r}")
        return Fraction(v) if isinstance(v, int) else Fraction(repr(float(v)))

    def decimals(self, cid: str) -> int:
        return int(self.claim(cid)["decimals"])

    def half_unit(self, cid: str) -> Fraction:
        return Fraction(1, 2 * 10 ** self.decimals(cid))

    def interval(self, cid: str) -> tuple[Fraction, Fraction]:
        """Closed interval of unrounded values that print as this claim."""
        v, h = self.exact(cid), self.half_unit(cid)
        return v - h, v + h

    def f(self, cid: str) -> float:
        return float(self.exact(cid))

    def show(self, cid: str, signed: bool = False) -> str:
        """The value formatted with its printed decimals (the token a reader sees, without units)."""
        return fmt(self.f(cid), self.decimals(cid), signed=signed)


def _fmt(x, d: int = 3, signed: bool = False) -> str:
    """:func:`selfconf.claims.judging.fmt` with this module's default of 3 decimals."""
    return fmt(x, d, signed=signed)


def _ival(iv: tuple | None, d: int = 4) -> str:
    assert iv is not None, "an interval was expected"
    return f"[{_fmt(iv[0], d)}, {_fmt(iv[1], d)}]"


def _overlap(a: tuple, b: tuple) -> tuple | None:
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if lo <= hi else None


def _sub(a: tuple, b: tuple) -> tuple:
    """Interval of x - y for x in a, y in b."""
    return a[0] - b[1], a[1] - b[0]


def _rounds_to(x: Fraction, iv: tuple) -> bool:
    return iv[0] <= x <= iv[1]


def reachable_counts(n: int, iv: tuple, scale: int = 100) -> list[int]:
    """Integers ``k`` in ``0..n`` with ``scale * k / n`` inside the closed interval ``iv`` (GRIM).

    With ``iv`` the rounding interval of a printed percentage this lists every correct-answer count
    that prints as that percentage over ``n`` rows (Brown & Heathers 2017).
    """
    if n <= 0:
        return []
    lo = math.ceil(Fraction(iv[0]) * n / scale)
    hi = math.floor(Fraction(iv[1]) * n / scale)
    return list(range(max(lo, 0), min(hi, n) + 1))


def _int_range(lo: Fraction, hi: Fraction) -> range:
    return range(math.ceil(lo), math.floor(hi) + 1)


def _ks(ks: Sequence[int], n: int, scale: int = 100, d: int = 3) -> str:
    if not ks:
        return "none"
    return ", ".join(f"{k}/{n} = {_fmt(Fraction(scale * k, n), d)}" for k in ks)


# ---------------------------------------------------------------------------------------------------
# Statistics helpers
# ---------------------------------------------------------------------------------------------------


def hanley_mcneil_se(auc: float, n_pos: int, n_neg: int) -> float:
    """Standard error of an AUROC by Hanley & McNeil (1982), eq. 2.

    ``SE^2 = [A(1-A) + (n_pos-1)(Q1-A^2) + (n_neg-1)(Q2-A^2)] / (n_pos n_neg)`` with
    ``Q1 = A/(2-A)`` and ``Q2 = 2A^2/(1+A)``.  ``n_pos`` counts the cases expected to score higher
    (here: correct answers, which should carry higher confidence).
    """
    a = float(auc)
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    var = (a * (1 - a) + (n_pos - 1) * (q1 - a * a) + (n_neg - 1) * (q2 - a * a)) / (n_pos * n_neg)
    return math.sqrt(max(var, 0.0))


def max_variance_se(auc: float, n_pos: int, n_neg: int) -> float:
    """Largest possible SD of a Mann–Whitney AUROC: ``sqrt(A(1-A)/min(n_pos, n_neg))`` (Birnbaum & Klose 1957)."""
    a = float(auc)
    return math.sqrt(a * (1 - a) / min(n_pos, n_neg))


# ---------------------------------------------------------------------------------------------------
# Manifest-level checks
# ---------------------------------------------------------------------------------------------------


def check_repeats(p: Printed) -> Result:
    """Every restatement (``same_as``) prints the value of its canonical claim (sign-flipped for ``negate``)."""
    bad, n = [], 0
    for c in p.by_id.values():
        if not c.get("same_as"):
            continue
        n += 1
        canon = p.claim(c["same_as"])
        want = -p.exact(canon["id"]) if c.get("transform") == "negate" else p.exact(canon["id"])
        if p.exact(c["id"]) != want:
            bad.append(f"{c['id']} prints {p.show(c['id'])} but {canon['id']} prints {p.show(canon['id'])}")
    desc = "A number the paper repeats is printed the same way each time (a negated restatement flips the sign)."
    if bad:
        return FAIL, desc, f"{len(bad)} of {n} repeats differ: " + "; ".join(bad)
    return PASS, desc, f"{n} repeats compared with their canonical claim; all agree"


# ---------------------------------------------------------------------------------------------------
# Counts and totals
# ---------------------------------------------------------------------------------------------------


def check_frontier_total(p: Printed, models: Sequence[str]) -> Result:
    ns = [int(p.exact(f"t1_{m}_n")) for m in models]
    total = int(p.exact("design_n_graded_frontier"))
    desc = "The per-model n of Table 1 add up to the frontier total given in the design section."
    arith = " + ".join(f"{x:,}" for x in ns) + f" = {sum(ns):,}; printed {total:,}"
    return (PASS if sum(ns) == total else FAIL), desc, arith


def check_grand_total(p: Printed) -> Result:
    fr, lo, tot = (
        int(p.exact(i)) for i in ("design_n_graded_frontier", "design_n_graded_local", "design_n_graded_total")
    )
    desc = "Frontier and local graded answers add up to the grand total."
    return (PASS if fr + lo == tot else FAIL), desc, f"{fr:,} + {lo:,} = {fr + lo:,}; printed {tot:,}"


def check_model_count(p: Printed) -> Result:
    prov, per, loc, tot = (
        int(p.exact(i))
        for i in ("design_n_providers", "design_models_per_provider", "design_n_local_models", "design_n_models")
    )
    desc = "The model count equals one model per frontier provider plus the local models."
    return (
        (PASS if prov * per + loc == tot else FAIL),
        desc,
        f"{prov} x {per} + {loc} = {prov * per + loc}; printed {tot}",
    )


def check_frontier_n_le_items(p: Printed, models: Sequence[str]) -> Result:
    items = int(p.exact("design_n_items"))
    ns = {m: int(p.exact(f"t1_{m}_n")) for m in models}
    over = [m for m, n in ns.items() if n > items]
    lost = sum(items - n for n in ns.values())
    desc = "No frontier model has more graded answers than there are questions."
    arith = (
        f"largest n = {max(ns.values()):,} vs {items:,} questions; rows lost to parse failures "
        f"{len(ns)} x {items:,} - {sum(ns.values()):,} = {lost:,}"
    )
    if over:
        return FAIL, desc, arith + f"; over the limit: {', '.join(over)}"
    return PASS, desc, arith


def check_local_n_range(p: Printed) -> Result:
    total = int(p.exact("design_n_graded_local"))
    n_models = int(p.exact("design_n_local_models"))
    lo, hi = int(p.exact("local_reasoning_model_n_gradable")), int(p.exact("fig1_local_n_max"))
    items = int(p.exact("design_n_items"))
    rest = total - lo - hi
    k = n_models - 2
    feas = (k * lo, k * min(hi, items))
    desc = (
        "The local total can be split over the local models with per-model n between the printed minimum "
        "and maximum, both attained."
    )
    arith = (
        f"{total:,} - {lo} - {hi:,} = {rest:,} left for the other {k} models, each in [{lo}, {hi:,}] "
        f"-> feasible sum [{feas[0]:,}, {feas[1]:,}]; rows lost: {n_models} x {items:,} - {total:,} = "
        f"{n_models * items - total:,}"
    )
    return (PASS if feas[0] <= rest <= feas[1] and hi <= items else FAIL), desc, arith


def check_highconf_share(p: Printed) -> Result:
    wrong, total = int(p.exact("r1_highconf_wrong_n")), int(p.exact("r1_highconf_total_n"))
    iv = p.interval("r1_highconf_wrong_pooled_pct")
    share = Fraction(100 * wrong, total)
    desc = "The pooled share of wrong high-confidence answers equals wrong / total as printed."
    arith = f"{wrong:,} / {total:,} = {_fmt(share, 4)}%; printed {p.show('r1_highconf_wrong_pooled_pct')}%"
    return (PASS if _rounds_to(share, iv) else FAIL), desc, arith


def check_highconf_vs_medians(p: Printed, models: Sequence[str], k_by_model: dict) -> Result:
    """Answers at confidence >= 80 must fit what the per-model medians allow; wrong/correct within totals."""
    thr = p.exact("r1_highconf_threshold")
    total, wrong = int(p.exact("r1_highconf_total_n")), int(p.exact("r1_highconf_wrong_n"))
    lo_sum = hi_sum = 0
    for m in models:
        n = int(p.exact(f"t1_{m}_n"))
        if p.exact(f"fig1_{m}_median_conf") >= thr:
            lo_sum += math.ceil(n / 2)  # at least half of the answers sit at or above the median
            hi_sum += n
        else:
            hi_sum += n // 2  # a median below the threshold leaves at most half at or above it
    ks = [k_by_model[m] for m in models]
    k_min = sum(min(k) for k in ks if k)
    k_max = sum(max(k) for k in ks if k)
    n_tot = sum(int(p.exact(f"t1_{m}_n")) for m in models)
    wrong_max, correct_max = n_tot - k_min, k_max
    ok = lo_sum <= total <= hi_sum and wrong <= wrong_max and total - wrong <= correct_max
    desc = (
        "The count of high-confidence answers fits the per-model medians (a median at or above the threshold "
        "puts at least half of a model's answers above it), and its wrong and correct parts fit within the "
        "Table 1 totals."
    )
    arith = (
        f"medians allow {lo_sum:,} to {hi_sum:,} answers at >= {_fmt(thr, 0)}; printed {total:,}. "
        f"Wrong {wrong:,} <= all wrong answers (at most {wrong_max:,}); correct {total - wrong:,} <= all "
        f"correct answers (at most {correct_max:,})"
    )
    return (PASS if ok else FAIL), desc, arith


def check_refusal_rows(p: Printed, k_anthropic: Sequence[int]) -> Result:
    n = int(p.exact("t1_anthropic_n"))
    kept = int(p.exact("r1_anthropic_n_excl_refusals"))
    desc = (
        "Excluding refusals leaves no more rows than the refusal-heavy model has, and at least as many as "
        "its correct answers (a refusal is never graded correct)."
    )
    kmax = max(k_anthropic) if k_anthropic else None
    arith = (
        f"{n:,} - {kept:,} = {n - kept:,} refusal rows; correct answers "
        f"{', '.join(map(str, k_anthropic)) or '?'} <= {kept:,}"
    )
    ok = kept <= n and (kmax is None or kmax <= kept)
    return (PASS if ok else FAIL), desc, arith


# ---------------------------------------------------------------------------------------------------
# Table 1
# ---------------------------------------------------------------------------------------------------


def check_grim_accuracy(p: Printed, m: str) -> Result:
    n = int(p.exact(f"t1_{m}_n"))
    ks = reachable_counts(n, p.interval(f"t1_{m}_acc"))
    desc = f"{m}: the printed accuracy is a whole number of correct answers out of its n."
    arith = f"n = {n:,}, printed {p.show(f't1_{m}_acc')}%: counts that print so: {_ks(ks, n)}"
    return (PASS if ks else FAIL), desc, arith


@dataclass(frozen=True)
class _Feasible:
    """Integer (correct count k, confidence sum S) pairs compatible with accuracy, mean confidence and CITL."""

    n: int
    pairs: tuple[tuple[int, int, int], ...]  # (k, S_lo, S_hi): every S in [S_lo, S_hi] works with this k

    @property
    def ks(self) -> list[int]:
        return [k for k, _, _ in self.pairs]

    def citl_range(self) -> tuple[Fraction, Fraction] | None:
        if not self.pairs:
            return None
        vals = [Fraction(s - 100 * k, self.n) for k, a, b in self.pairs for s in (a, b)]
        return min(vals), max(vals)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """All (accuracy, mean confidence) pairs as 0-1 proportions."""
        acc, conf = [], []
        for k, a, b in self.pairs:
            s = np.arange(a, b + 1)
            acc.append(np.full(s.shape, k / self.n))
            conf.append(s / (100 * self.n))
        return np.concatenate(acc), np.concatenate(conf)


def table1_feasible(p: Printed, m: str) -> _Feasible:
    """Integer solutions for model ``m``: confidences are integers 0-100, so the mean is S/n with integer S."""
    n = int(p.exact(f"t1_{m}_n"))
    ks = reachable_counts(n, p.interval(f"t1_{m}_acc"))
    c_lo, c_hi = p.interval(f"t1_{m}_mean_conf")
    g_lo, g_hi = p.interval(f"t1_{m}_citl")
    pairs = []
    for k in ks:
        lo = max(math.ceil(c_lo * n), math.ceil(g_lo * n + 100 * k), 0)
        hi = min(math.floor(c_hi * n), math.floor(g_hi * n + 100 * k), 100 * n)
        if lo <= hi:
            pairs.append((k, lo, hi))
    return _Feasible(n, tuple(pairs))


def check_citl(p: Printed, m: str) -> Result:
    n = int(p.exact(f"t1_{m}_n"))
    feas = table1_feasible(p, m)
    shown = p.exact(f"t1_{m}_mean_conf") - p.exact(f"t1_{m}_acc")
    printed = p.exact(f"t1_{m}_citl")
    desc = (
        f"{m}: CITL equals mean confidence minus accuracy, computed from unrounded means "
        "(confidences are whole numbers, so the mean is a sum over n)."
    )
    head = (
        f"{p.show(f't1_{m}_mean_conf')} - {p.show(f't1_{m}_acc')} = {_fmt(shown, 1, True)} from the printed values; "
        f"printed CITL {p.show(f't1_{m}_citl', True)}"
    )
    if feas.pairs:
        r = feas.citl_range()
        s_lo = min(a for _, a, _ in feas.pairs)
        s_hi = max(b for _, _, b in feas.pairs)
        note = (
            ""
            if shown == printed
            else " (the displayed values differ by one in the last digit; unrounded means explain it)"
        )
        return (
            PASS,
            desc,
            (
                f"{head}{note}. Integer solutions: correct k in {{{', '.join(map(str, feas.ks))}}}, "
                f"confidence sum S in [{s_lo:,}, {s_hi:,}] -> unrounded CITL in {_ival(r, 3)}"
            ),
        )
    # no integer solution: try real-valued confidences
    ks = reachable_counts(n, p.interval(f"t1_{m}_acc"))
    acc_iv = (Fraction(100 * min(ks), n), Fraction(100 * max(ks), n)) if ks else p.interval(f"t1_{m}_acc")
    cont = _overlap(_sub(p.interval(f"t1_{m}_mean_conf"), acc_iv), p.interval(f"t1_{m}_citl"))
    if cont:
        return (
            UNCLEAR,
            desc,
            f"{head}. No whole-number confidence sum fits; fractional confidences would give {_ival(cont, 3)}",
        )
    return (
        FAIL,
        desc,
        f"{head}. Mean confidence minus accuracy lies in {_ival(_sub(p.interval(f't1_{m}_mean_conf'), acc_iv), 3)}, "
        "outside the printed CITL's rounding interval",
    )


def _citl_abs_range(p: Printed, m: str) -> tuple[Fraction, Fraction]:
    """|CITL| as a 0-1 proportion: the integer-feasible range, or the printed rounding interval."""
    r = table1_feasible(p, m).citl_range() or p.interval(f"t1_{m}_citl")
    lo, hi = r
    if lo <= 0 <= hi:
        return Fraction(0), max(-lo, hi) / 100
    return min(abs(lo), abs(hi)) / 100, max(abs(lo), abs(hi)) / 100


def _same_resolution(p: Printed, m: str) -> bool:
    """ECE (0-1, d decimals) and CITL (points, d-2 decimals) are printed to the same resolution."""
    return p.decimals(f"t1_{m}_ece") == p.decimals(f"t1_{m}_citl") + 2


def _ece_vs_citl(p: Printed, m: str) -> tuple[str, str]:
    """Compare ECE with |CITL|: returns (relation, explanation), relation in {'equal', 'greater', 'smaller'}.

    When both are printed to the same resolution they are the same kind of number rounded the same way,
    and rounding is monotone: equal unrounded values print the same digits, and a larger unrounded
    value never prints smaller.  Otherwise the rounding intervals (with the integer-feasible CITL range)
    are compared.
    """
    e_iv, c_iv = p.interval(f"t1_{m}_ece"), _citl_abs_range(p, m)
    e_pr, c_pr = p.exact(f"t1_{m}_ece"), abs(p.exact(f"t1_{m}_citl")) / 100
    if _same_resolution(p, m):
        if e_pr < c_pr or e_iv[1] < c_iv[0]:
            return "smaller", f"ECE {p.show(f't1_{m}_ece')} < |CITL|/100 {_fmt(c_pr)}"
        if e_pr == c_pr and _overlap(e_iv, c_iv):
            return "equal", f"ECE {p.show(f't1_{m}_ece')} = |CITL|/100 {_fmt(c_pr)} (same digits: equality possible)"
        return "greater", (
            f"ECE {p.show(f't1_{m}_ece')} > |CITL|/100 {_fmt(c_pr)} at the same resolution, so the "
            f"unrounded ECE is larger (|CITL|/100 feasible in {_ival(c_iv)})"
        )
    if e_iv[1] < c_iv[0]:
        return "smaller", f"ECE in {_ival(e_iv)} below |CITL|/100 in {_ival(c_iv)}"
    if _overlap(e_iv, c_iv):
        return "equal", f"ECE in {_ival(e_iv)} overlaps |CITL|/100 in {_ival(c_iv)}"
    return "greater", f"ECE in {_ival(e_iv)} above |CITL|/100 in {_ival(c_iv)}"


def check_ece_ge_citl(p: Printed, m: str) -> Result:
    rel, why = _ece_vs_citl(p, m)
    desc = (
        f"{m}: binned ECE is at least |CITL| (the triangle inequality over bins: a weighted sum of "
        "|gaps| is at least |the weighted sum of gaps|)."
    )
    if rel == "smaller":
        return FAIL, desc, why + ": ECE would be smaller than |CITL| whatever the unrounded values"
    return PASS, desc, why


def check_all_bins_positive(p: Printed, models: Sequence[str]) -> Result:
    """'Gap positive in every occupied bin for seven of nine': equality ECE = |CITL| must be possible for seven."""
    claimed = int(p.exact("r1_n_models_all_bins_positive"))
    others = int(p.exact("r1_n_other_models_bins"))
    rel = {m: _ece_vs_citl(p, m)[0] for m in models}
    can_equal = [m for m in models if rel[m] == "equal"]
    must_exceed = [m for m in models if rel[m] != "equal"]
    desc = (
        f"The paper says the confidence-accuracy gap is positive in every occupied bin for {claimed} of "
        f"{len(models)} models. When every bin's gap has the sign of CITL, ECE equals |CITL| exactly (bins "
        "weighted by their counts, gap = mean confidence - accuracy within the bin); a bin with the opposite "
        "sign makes ECE strictly larger."
    )
    arith = (
        f"ECE and |CITL| can be equal for {len(can_equal)} ({', '.join(can_equal) or 'none'}); ECE is above "
        f"|CITL| for {len(must_exceed)} ({', '.join(must_exceed) or 'none'}); printed {claimed} all-positive and "
        f"{others} others; {len(models)} - {claimed} = {len(models) - claimed}"
    )
    if others != len(models) - claimed:
        return FAIL, desc, arith + "; the 'other' count does not complete the total"
    if len(can_equal) < claimed or len(must_exceed) > len(models) - claimed:
        return FAIL, desc, arith + "; too few models could have ECE = |CITL|"
    if len(can_equal) == claimed:
        return PASS, desc, arith + f"; the two with a wrong-signed bin must be {', '.join(must_exceed)}"
    return (
        UNCLEAR,
        desc,
        arith + "; consistent, but the printed values do not single out which models are the exceptions",
    )


def brier_bounds(acc: np.ndarray, conf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the Brier score given accuracy ``a`` and mean confidence ``m`` (both 0-1), confidences in [0, 1].

    Lower: with every correct answer at confidence 1 and every wrong one at the common value that keeps the
    mean, ``B >= (m-a)^2/(1-a)`` when ``m >= a`` (``(a-m)^2/a`` otherwise); this is at least the
    Jensen bound ``(m-a)^2``.  Upper: ``B = mean(c^2) - 2 mean(c y) + a <= m + a - 2 max(0, m + a - 1)``
    because ``c^2 <= c`` and the confidence carried by correct answers is at least ``m - (1 - a)``.
    """
    acc = np.asarray(acc, float)
    conf = np.asarray(conf, float)
    d = conf - acc
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.where(d >= 0, d * d / np.where(acc < 1, 1 - acc, np.inf), d * d / np.where(acc > 0, acc, np.inf))
    lower = np.nan_to_num(lower, nan=0.0)
    upper = conf + acc - 2 * np.maximum(0.0, conf + acc - 1)
    return lower, upper


def check_brier_bounds(p: Printed, m: str) -> Result:
    feas = table1_feasible(p, m)
    b = p.interval(f"t1_{m}_brier")
    e = p.interval(f"t1_{m}_ece")
    if feas.pairs:
        acc, conf = feas.arrays()
        basis = "over the integer (k, S) solutions"
    else:
        a_iv, c_iv = p.interval(f"t1_{m}_acc"), p.interval(f"t1_{m}_mean_conf")
        acc = np.array([float(a_iv[i]) / 100 for i in (0, 1, 0, 1)])
        conf = np.array([float(c_iv[i]) / 100 for i in (0, 0, 1, 1)])
        basis = "over the corners of the rounding box (no integer solution)"
    lower, upper = brier_bounds(acc, conf)
    jensen = float(np.min((conf - acc) ** 2))
    lb = max(float(np.min(lower)), float(e[0]) ** 2)
    ub = float(np.max(upper))
    desc = (
        f"{m}: the Brier score lies between what its accuracy, mean confidence and ECE force "
        "(lower bounds: (m-a)^2/(1-a) and ECE^2; upper bound: m + a - 2 max(0, m+a-1))."
    )
    arith = (
        f"Brier {p.show(f't1_{m}_brier')}; lower bounds {basis}: Jensen (m-a)^2 >= {jensen:.4f}, "
        f"(m-a)^2/(1-a) >= {float(np.min(lower)):.4f}, ECE^2 >= {float(e[0]) ** 2:.4f}; upper bound <= {ub:.4f}"
    )
    if float(b[1]) < lb or float(b[0]) > ub:
        return FAIL, desc, arith + " -> printed Brier outside the bounds"
    return PASS, desc, arith + f" -> inside (room above the lower bound {float(b[0]) - lb:.3f})"


def check_auroc_ci(p: Printed, m: str, ks: Sequence[int]) -> Result:
    """CI contains the point, is close to symmetric and has the width Hanley–McNeil predicts."""
    a = p.exact(f"t1_{m}_self_auroc")
    lo, hi = p.exact(f"t1_{m}_self_auroc_ci_lo"), p.exact(f"t1_{m}_self_auroc_ci_hi")
    n = int(p.exact(f"t1_{m}_n"))
    sh = ci_shape(p, f"t1_{m}_self_auroc")
    desc = (
        f"{m}: the self-AUROC interval holds the point estimate, is close to symmetric, and its width matches "
        "a Hanley-McNeil (1982) standard error for that many correct and wrong answers."
    )
    if not lo <= a <= hi:
        return (
            FAIL,
            desc,
            f"{p.show(f't1_{m}_self_auroc')} lies outside [{p.show(f't1_{m}_self_auroc_ci_lo')}, "
            f"{p.show(f't1_{m}_self_auroc_ci_hi')}]",
        )
    if not ks:
        return UNCLEAR, desc, "no whole-number correct count fits the printed accuracy, so n_correct is unknown"
    k = round(sum(ks) / len(ks))
    se = hanley_mcneil_se(float(a), k, n - k)
    se_max = max_variance_se(float(a), k, n - k)
    arm_lo, arm_hi = a - lo, hi - a
    half = (hi - lo) / 2
    ratio = float(half) / (Z975 * se)
    arith = (
        f"{p.show(f't1_{m}_self_auroc')} [{p.show(f't1_{m}_self_auroc_ci_lo')}, {p.show(f't1_{m}_self_auroc_ci_hi')}]: "
        f"arms {_fmt(arm_lo)} / {_fmt(arm_hi)}; n_correct = {k}, n_wrong = {n - k}: HM SE = {se:.4f}, "
        f"1.96 x SE = {Z975 * se:.4f}; printed half-width / HM half-width = {ratio:.2f}; "
        f"largest possible half-width 1.96 x {se_max:.4f} = {Z975 * se_max:.4f}"
    )
    if float(half) - 2 * float(p.half_unit(f"t1_{m}_self_auroc_ci_lo")) > Z975 * se_max:
        return UNCLEAR, desc, arith + ". Wider than the maximum-variance bound allows for a normal interval"
    if sh["excess"] > ASYMMETRY_SHARE * sh["half"]:
        return UNCLEAR, desc, arith + f". Arms differ by {_fmt(abs(arm_hi - arm_lo))}, more than rounding explains"
    if HM_RATIO_BAND[0] <= ratio <= HM_RATIO_BAND[1]:
        return PASS, desc, arith
    return (
        UNCLEAR,
        desc,
        (
            arith + ". Outside the 0.75-1.33 band; HM assumes continuous scores, and whole-number "
            "confidences with many ties can give a bootstrap SE well below HM, so this is not evidence of error"
        ),
    )


# ---------------------------------------------------------------------------------------------------
# Result 1 prose
# ---------------------------------------------------------------------------------------------------


def _argext(p: Printed, ids: dict, fn) -> tuple[list, Fraction]:
    """Models that attain min/max of printed values (ties kept)."""
    vals = {m: p.exact(c) for m, c in ids.items()}
    best = fn(vals.values())
    return [m for m, v in vals.items() if v == best], best


def check_range(p: Printed, lo_id: str, hi_id: str, comp: dict, what: str, signed: bool = False) -> Result:
    """A printed range equals the min and max of its printed components (after rounding to the range's decimals)."""
    vals = {m: p.exact(c) for m, c in comp.items()}
    mn_m = min(vals, key=vals.__getitem__)
    mx_m = max(vals, key=vals.__getitem__)
    d = p.decimals(lo_id)
    mn = Fraction(repr(round(float(vals[mn_m]), d))) if d < p.decimals(comp[mn_m]) else vals[mn_m]
    mx = Fraction(repr(round(float(vals[mx_m]), d))) if d < p.decimals(comp[mx_m]) else vals[mx_m]
    ok_lo = _rounds_to(vals[mn_m], p.interval(lo_id)) or mn == p.exact(lo_id)
    ok_hi = _rounds_to(vals[mx_m], p.interval(hi_id)) or mx == p.exact(hi_id)
    desc = f"The range printed for {what} runs from the smallest to the largest of its components."
    arith = (
        "components: "
        + ", ".join(f"{m} {_fmt(v, p.decimals(comp[m]), signed)}" for m, v in vals.items())
        + f"; min {mn_m}, max {mx_m}; printed {p.show(lo_id, signed)} to {p.show(hi_id, signed)}"
    )
    return (PASS if ok_lo and ok_hi else FAIL), desc, arith


def check_accuracy_span(p: Printed, models: Sequence[str]) -> Result:
    lo_b, hi_b = p.exact("r1_median_band_min"), p.exact("r1_median_band_max")
    in_band = [m for m in models if lo_b <= p.exact(f"fig1_{m}_median_conf") <= hi_b]
    accs = {m: p.exact(f"t1_{m}_acc") for m in in_band}
    all_accs = {m: p.exact(f"t1_{m}_acc") for m in models}
    lo, hi = p.exact("r1_acc_span_min"), p.exact("r1_acc_span_max")
    ok7 = bool(accs) and min(accs.values()) == lo and max(accs.values()) == hi
    ok9 = min(all_accs.values()) == lo and max(all_accs.values()) == hi
    desc = (
        f"The accuracy span {p.show('r1_acc_span_min')}-{p.show('r1_acc_span_max')}% is the smallest and largest "
        f"Table 1 accuracy over the models whose median confidence lies in the {_fmt(lo_b, 0)}-{_fmt(hi_b, 0)} "
        "band, the subject of the sentence that prints it."
    )
    arith = (
        f"in-band models ({len(in_band)}): min {_fmt(min(accs.values()), 1)}, max {_fmt(max(accs.values()), 1)}; "
        f"all {len(models)} models: min {_fmt(min(all_accs.values()), 1)}, max {_fmt(max(all_accs.values()), 1)}; "
        f"printed {p.show('r1_acc_span_min')}-{p.show('r1_acc_span_max')}"
    )
    if ok7:
        return PASS, desc, arith + ("" if ok9 else "; read over all nine models the span would start lower")
    if ok9:
        return UNCLEAR, desc, arith + "; matches only when read over all nine models"
    return FAIL, desc, arith


def check_median_band(p: Printed, models: Sequence[str]) -> Result:
    lo_b, hi_b = p.exact("r1_median_band_min"), p.exact("r1_median_band_max")
    med = {m: p.exact(f"fig1_{m}_median_conf") for m in models}
    inb = [m for m, v in med.items() if lo_b <= v <= hi_b]
    out = [m for m in models if m not in inb]
    claimed, depart = int(p.exact("r1_n_models_median_in_band")), int(p.exact("r1_n_models_depart"))
    attained = bool(inb) and min(med[m] for m in inb) == lo_b and max(med[m] for m in inb) == hi_b
    desc = (
        f"Counting Figure 1's median confidences: how many lie inside the {_fmt(lo_b, 0)}-{_fmt(hi_b, 0)} band, "
        "how many depart from it, and whether both ends of the band are actual medians."
    )
    arith = (
        f"in band: {', '.join(f'{m} {_fmt(med[m], 0)}' for m in inb)} ({len(inb)}, printed {claimed}); "
        f"outside: {', '.join(f'{m} {_fmt(med[m], 0)}' for m in out)} ({len(out)}, printed {depart})"
    )
    ok = len(inb) == claimed and len(out) == depart and attained
    return (PASS if ok else FAIL), desc, arith


def check_count_below(p: Printed, models: Sequence[str]) -> Result:
    thr = p.exact("r1_auroc_threshold")
    below: list[str] = []
    above: list[str] = []
    edge: list[str] = []
    for m in models:
        lo, hi = p.interval(f"t1_{m}_self_auroc")
        (below if hi < thr else above if lo >= thr else edge).append(m)
    claimed = int(p.exact("r1_n_models_below_threshold"))
    desc = (
        f"The paper counts {claimed} of {len(models)} Table 1 self-AUROCs below {p.show('r1_auroc_threshold')}; "
        "count them."
    )
    arith = (
        f"below: {', '.join(below)} ({len(below)}); not below: {', '.join(above)} ({len(above)})"
        + (f"; too close to call: {', '.join(edge)}" if edge else "")
        + f"; printed {claimed}"
    )
    if len(below) <= claimed <= len(below) + len(edge):
        return (PASS if not edge else UNCLEAR), desc, arith
    return FAIL, desc, arith


def check_cis_exclude_chance(p: Printed, models: Sequence[str]) -> Result:
    chance = p.exact("r1_chance_auroc")
    lows = {m: p.interval(f"t1_{m}_self_auroc_ci_lo")[0] for m in models}
    bad = [m for m, v in lows.items() if v <= chance]
    m0 = min(lows, key=lows.__getitem__)
    desc = f"Every Table 1 self-AUROC interval lies above chance ({p.show('r1_chance_auroc')}), as the caption says."
    arith = f"smallest lower end {p.show(f't1_{m0}_self_auroc_ci_lo')} ({m0})"
    return (FAIL if bad else PASS), desc, arith + (f"; touching or below chance: {', '.join(bad)}" if bad else "")


def check_all_overconfident(p: Printed, models: Sequence[str]) -> Result:
    neg = [m for m in models if p.interval(f"t1_{m}_citl")[0] <= 0]
    desc = "The paper calls every model overconfident in the large: every CITL must be positive."
    arith = ", ".join(f"{m} {p.show(f't1_{m}_citl', True)}" for m in models)
    return (FAIL if neg else PASS), desc, arith


def check_extremes(p: Printed, models: Sequence[str]) -> Result:
    """Best self-AUROC = refusal-heavy (lowest-accuracy, median 42) model.

    Smallest CITL = dispersed (median 60) model.
    """
    best, _ = _argext(p, {m: f"t1_{m}_self_auroc" for m in models}, max)
    worst_acc, _ = _argext(p, {m: f"t1_{m}_acc" for m in models}, min)
    low_med, _ = _argext(p, {m: f"fig1_{m}_median_conf" for m in models}, min)
    small_gap, _ = _argext(p, {m: f"t1_{m}_citl" for m in models}, min)
    disp = [m for m in models if p.exact(f"fig1_{m}_median_conf") == p.exact("fig1_xai_median_conf")]
    ok = best == worst_acc == low_med and small_gap == disp and len(best) == 1
    desc = (
        "Figure 1's caption: the refusal-heavy model (lowest median, lowest accuracy) has the best self-AUROC, "
        f"and the dispersed-confidence model (median {p.show('fig1_xai_median_conf')}) has the smallest "
        "calibration gap."
    )
    arith = (
        f"best self-AUROC: {', '.join(best)}; lowest accuracy: {', '.join(worst_acc)}; lowest median: "
        f"{', '.join(low_med)}; smallest CITL: {', '.join(small_gap)}; median-60 model: {', '.join(disp)}"
    )
    return (PASS if ok else FAIL), desc, arith


def check_top3_riskcov(p: Printed, models: Sequence[str], rows: Sequence[str]) -> Result:
    vals = sorted(((p.exact(f"t1_{m}_self_auroc"), m) for m in models), reverse=True)
    top = [m for _, m in vals[: len(rows)]]
    gap_ok = len(vals) > len(rows) and vals[len(rows) - 1][0] > vals[len(rows)][0]
    desc = f"Table 2's rows are the {len(rows)} models with the highest Table 1 self-AUROC."
    arith = f"top {len(rows)} by self-AUROC: {', '.join(top)}; Table 2 rows: {', '.join(rows)}"
    return (PASS if set(top) == set(rows) and gap_ok else FAIL), desc, arith


def check_highconf_rates(p: Printed) -> Result:
    lo, hi = p.interval("r1_highconf_wrong_permodel_min")[0], p.interval("r1_highconf_wrong_permodel_max")[1]
    pooled, macro = p.interval("r1_highconf_wrong_pooled_pct"), p.interval("r1_highconf_wrong_macro_pct")
    ok = lo <= pooled[1] and pooled[0] <= hi and lo <= macro[1] and macro[0] <= hi
    desc = (
        "The pooled and the macro-averaged high-confidence error rates are averages of the per-model rates, so "
        "both lie inside the per-model span."
    )
    arith = (
        f"pooled {p.show('r1_highconf_wrong_pooled_pct')}%, macro {p.show('r1_highconf_wrong_macro_pct')}% vs span "
        f"{p.show('r1_highconf_wrong_permodel_min')}-{p.show('r1_highconf_wrong_permodel_max')}%"
    )
    return (PASS if ok else FAIL), desc, arith


# ---------------------------------------------------------------------------------------------------
# Table 2
# ---------------------------------------------------------------------------------------------------


def check_full_coverage_error(p: Printed, m: str) -> Result:
    n = int(p.exact(f"t1_{m}_n"))
    ks = reachable_counts(n, p.interval(f"t1_{m}_acc"))
    err_iv = p.interval(f"t2_{m}_err_cov100")
    hits = [k for k in ks if _rounds_to(Fraction(100 * (n - k), n), err_iv)]
    desc = f"{m}: the error rate at 100% coverage is 100 minus the Table 1 accuracy."
    arith = (
        f"100 - {p.show(f't1_{m}_acc')} = {_fmt(100 - p.exact(f't1_{m}_acc'), 1)}; printed "
        f"{p.show(f't2_{m}_err_cov100')}; with whole counts: "
        + (", ".join(f"({n}-{k})/{n} = {_fmt(Fraction(100 * (n - k), n), 3)}%" for k in ks) or "no k")
    )
    return (PASS if hits else FAIL), desc, arith


def check_covered_counts(p: Printed, m: str, coverages: Sequence[int]) -> Result:
    """Whole numbers of errors in nested covered sets reproduce every printed risk-coverage rate."""
    n = int(p.exact(f"t1_{m}_n"))
    ks = reachable_counts(n, p.interval(f"t1_{m}_acc"))
    # states: (m_c, e_c) at each coverage, highest coverage first
    levels = []
    for c in sorted(coverages, reverse=True):
        if c == 100:
            opts = [(n, n - k) for k in ks if _rounds_to(Fraction(100 * (n - k), n), p.interval(f"t2_{m}_err_cov100"))]
        else:
            x = Fraction(c * n, 100)
            ms = sorted({math.floor(x), math.ceil(x)})
            iv = p.interval(f"t2_{m}_err_cov{c}")
            opts = [(mm, e) for mm in ms for e in reachable_counts(mm, iv)]
        levels.append((c, opts))
    # forward pass: keep states reachable from a feasible chain (fewer rows can only lose errors, and lose
    # at most as many as the rows dropped)
    alive = set(levels[0][1])
    chain_sets = [alive]
    for _, opts in levels[1:]:
        alive = {(mm, e) for (mm, e) in opts if any(e <= e0 and e0 - e <= m0 - mm for (m0, e0) in alive)}
        chain_sets.append(alive)
    desc = (
        f"{m}: each printed error rate at partial coverage "
        f"({'/'.join(str(c) for c in sorted(coverages, reverse=True) if c != 100)}%) "
        "is a whole number of errors among the covered answers (covered count = coverage x n, rounded either "
        "way), and the covered sets nest."
    )
    parts = []
    for (c, _), s in zip(levels, chain_sets, strict=False):
        parts.append(f"{c}%: " + (", ".join(f"{e}/{mm}" for mm, e in sorted(s)) or "none"))
    arith = "; ".join(parts)
    return (PASS if all(chain_sets) else FAIL), desc, arith


def check_decreasing_risk(p: Printed, m: str, coverages: Sequence[int]) -> Result:
    vals = [(c, p.exact(f"t2_{m}_err_cov{c}")) for c in sorted(coverages, reverse=True)]
    ok = all(a[1] > b[1] for a, b in zip(vals, vals[1:], strict=False))
    desc = (
        f"{m}: the error rate falls as coverage shrinks to the most confident answers (the row is in Table 2 because "
        "its confidence discriminates best)."
    )
    arith = " > ".join(_fmt(v, 1) for _, v in vals)
    return (PASS if ok else UNCLEAR), desc, arith if ok else arith.replace(">", "?")


# ---------------------------------------------------------------------------------------------------
# Differences printed as such
# ---------------------------------------------------------------------------------------------------


def check_difference(p: Printed, diff_id: str, a_id: str, b_id: str, what: str) -> Result:
    """``diff = a - b`` up to the rounding of all three printed values."""
    shown = p.exact(a_id) - p.exact(b_id)
    rng = _sub(p.interval(a_id), p.interval(b_id))
    dec = p.decimals(diff_id)
    both = _overlap(rng, p.interval(diff_id))
    desc = f"{what}: the printed difference equals the difference of the printed values, allowing for rounding."
    arith = (
        f"{p.show(a_id)} - {p.show(b_id)} = {_fmt(shown, dec, True)}; printed {p.show(diff_id, True)}; "
        f"unrounded difference can be anywhere in {_ival(rng, dec + 1)}"
    )
    if not both:
        return FAIL, desc, arith
    if shown == p.exact(diff_id):
        return PASS, desc, arith
    return PASS, desc, arith + f"; agreement needs unrounded values giving a difference in {_ival(both, dec + 1)}"


def check_integer_difference(p: Printed, diff_id: str, a_id: str, b_id: str, what: str) -> Result:
    d = p.exact(a_id) - p.exact(b_id)
    desc = f"{what}: the Δ column equals the difference of the two confidences."
    arith = f"{p.show(a_id)} - {p.show(b_id)} = {_fmt(d, 0, True)}; printed {p.show(diff_id, True)}"
    return (PASS if _rounds_to(d, p.interval(diff_id)) else FAIL), desc, arith


def check_us_middle_member(p: Printed) -> Result:
    lo, hi, mac = (
        p.interval(i)
        for i in (
            "us_within_model_self_auroc_min",
            "us_within_model_self_auroc_max",
            "us_within_model_self_auroc_macro",
        )
    )
    n = int(p.exact("us_panel_n_models"))
    mid = (n * mac[0] - lo[1] - hi[1], n * mac[1] - lo[0] - hi[0])
    inside = _overlap(mid, (lo[0], hi[1]))
    desc = (
        f"US panel: a macro-average over {n} members whose smallest and largest are printed implies the "
        "remaining member's value, which must lie between them."
    )
    third = (
        3 * p.exact("us_within_model_self_auroc_macro")
        - p.exact("us_within_model_self_auroc_min")
        - p.exact("us_within_model_self_auroc_max")
    )
    arith = (
        f"3 x {p.show('us_within_model_self_auroc_macro')} - {p.show('us_within_model_self_auroc_min')} - "
        f"{p.show('us_within_model_self_auroc_max')} = "
        f"{_fmt(third)}; "
        f"third member in {_ival(mid)} (Table 1 google, on the full set: {p.show('t1_google_self_auroc')})"
    )
    return (PASS if inside else FAIL), desc, arith


def check_us_pooled_exceeds_members(p: Printed) -> Result:
    pooled = p.interval("us_self_auroc_pooled")
    mx = p.interval("us_within_model_self_auroc_max")
    rn = p.interval("us_self_auroc_ranknorm")
    desc = (
        "US panel: a between-model identity gain needs the pooled self-AUROC above the rank-normalised one (the "
        "paper's gain is positive) and, as the text says, above every member's own value."
    )
    arith = (
        f"pooled {p.show('us_self_auroc_pooled')} vs largest member {p.show('us_within_model_self_auroc_max')} "
        f"and rank-normalised {p.show('us_self_auroc_ranknorm')}"
    )
    ok = pooled[1] > mx[0] and pooled[1] > rn[0]
    return (PASS if ok else FAIL), desc, arith


def check_labelfree(p: Printed) -> Result:
    cn, cnf, cns = p.exact("cn_panel_auroc"), p.exact("cn_panel_auroc_labelfree"), p.exact("cn_self_auroc_pooled")
    us, usf = p.exact("us_panel_auroc"), p.exact("us_panel_auroc_labelfree")
    ok = cnf < cn and usf < us and cnf > cns
    desc = (
        "Stricter label-free coding lowers both panel AUROCs (it can only remove agreement), and the CN panel "
        "still beats self-assessment, as the text says."
    )
    arith = (
        f"CN {p.show('cn_panel_auroc')} -> {p.show('cn_panel_auroc_labelfree')} (> self "
        f"{p.show('cn_self_auroc_pooled')}); "
        f"US {p.show('us_panel_auroc')} -> {p.show('us_panel_auroc_labelfree')}"
    )
    return (PASS if ok else FAIL), desc, arith


# ---------------------------------------------------------------------------------------------------
# Point estimates and intervals
# ---------------------------------------------------------------------------------------------------


def ci_triples(p: Printed) -> list[tuple[str, str, str]]:
    """(point, lo, hi) ids of every canonical claim printed with a CI (ids ``x``, ``x_ci_lo``, ``x_ci_hi``)."""
    out = []
    for cid, c in p.by_id.items():
        if c.get("same_as") or not cid.endswith("_ci_lo"):
            continue
        base = cid[: -len("_ci_lo")]
        if p.has(base) and p.has(base + "_ci_hi"):
            out.append((base, cid, base + "_ci_hi"))
    return out


def ci_shape(p: Printed, base: str) -> dict:
    """Arms of the printed interval around ``base`` and how far their difference exceeds what rounding explains.

    Each arm is a difference of two printed numbers, so rounding alone can move the difference of the two
    arms by ``2 x (half unit of an endpoint + half unit of the point)``; ``excess`` is the asymmetry beyond that.
    """
    a, lo, hi = p.exact(base), p.exact(base + "_ci_lo"), p.exact(base + "_ci_hi")
    slack = 2 * (p.half_unit(base + "_ci_lo") + p.half_unit(base))
    arm_lo, arm_hi = a - lo, hi - a
    return {
        "inside": lo <= a <= hi,
        "arm_lo": arm_lo,
        "arm_hi": arm_hi,
        "half": (hi - lo) / 2,
        "excess": max(Fraction(0), abs(arm_hi - arm_lo) - slack),
    }


#: Reader-facing names of the estimates that carry an interval (ids not listed are shown as they are).
INTERVAL_LABELS = {
    "cn_panel_auroc": "CN panel AUROC",
    "cn_self_auroc_pooled": "CN pooled self-AUROC",
    "cn_panel_vs_self_delta": "CN panel minus self Δ",
    "us_panel_vs_self_delta": "US panel minus self Δ",
    "xb_panel_auroc": "Cross-bloc panel AUROC",
    "xb_self_auroc_pooled": "Cross-bloc pooled self-AUROC",
    "xb_panel_vs_self_delta": "Cross-bloc panel minus self Δ",
    "ladder_core_vs_off_delta": "Ladder CORE>OFF paired Δ",
    "ladder_core_vs_placebo_delta": "Ladder CORE>PLACEBO paired Δ",
    "expl_rung_core_auroc": "Exploratory rung, true-profile AUROC",
    "expl_rung_shuffled_auroc": "Exploratory rung, false-profile AUROC",
    "expl_rung_core_minus_shuffled_delta": "Exploratory rung, true minus false",
    "ladder_shuffled_paired_delta": "Ladder SHUFFLED paired contrast",
    "twostage_delta_auroc": "Two-stage arm ΔAUROC",
}


def check_interval(p: Printed, base: str) -> Result:
    """The estimate lies inside its printed interval; a marked asymmetry is flagged as unclear."""
    sh = ci_shape(p, base)
    signed = p.exact(base + "_ci_lo") < 0 or str(p.claim(base).get("printed", "")).startswith("+")
    desc = (
        f"{INTERVAL_LABELS.get(base, base)}: the estimate lies inside its interval, and the two arms are about equal."
    )
    arith = (
        f"{p.show(base, signed)} [{p.show(base + '_ci_lo', signed)}, {p.show(base + '_ci_hi', signed)}]: "
        f"arms {_fmt(sh['arm_lo'], p.decimals(base))} / {_fmt(sh['arm_hi'], p.decimals(base))}"
    )
    if not sh["inside"]:
        return FAIL, desc, arith + ": the estimate lies outside its interval"
    if sh["excess"] > ASYMMETRY_SHARE * sh["half"]:
        return (
            UNCLEAR,
            desc,
            (
                arith + f": arms differ by more than rounding explains ({float(sh['excess']):.4f} beyond it, "
                f"over {float(ASYMMETRY_SHARE):.0%} of the half-width); percentile intervals of a bounded "
                "statistic can be skewed, so this is not decisive"
            ),
        )
    return PASS, desc, arith


# ---------------------------------------------------------------------------------------------------
# Benchmark-age arm
# ---------------------------------------------------------------------------------------------------


def check_bench_zhipu(p: Printed) -> Result:
    n = int(p.exact("t1_zhipu_n"))
    ks = reachable_counts(n, p.interval("t1_zhipu_acc"))
    simple = (Fraction(100 * min(ks), n), Fraction(100 * max(ks), n)) if ks else p.interval("t1_zhipu_acc")
    rng = _sub(p.interval("bench_age_zhipu_truthfulqa_acc"), simple)
    ok = _overlap(rng, p.interval("bench_age_zhipu_gap_pp"))
    desc = "Benchmark-age example: the TruthfulQA accuracy minus zhipu's SimpleQA accuracy gives zhipu's printed gap."
    arith = (
        f"{p.show('bench_age_zhipu_truthfulqa_acc')} - {p.show('t1_zhipu_acc')} = "
        f"{_fmt(p.exact('bench_age_zhipu_truthfulqa_acc') - p.exact('t1_zhipu_acc'), 1, True)}; unrounded in "
        f"{_ival(rng, 3)}; printed {p.show('bench_age_zhipu_gap_pp', True)}"
    )
    return (PASS if ok else FAIL), desc, arith


def check_bench_range(p: Printed, models: Sequence[str]) -> Result:
    gaps = {m: p.exact(f"bench_age_{m}_gap_pp") for m in models}
    lo_m, hi_m = min(gaps, key=gaps.__getitem__), max(gaps, key=gaps.__getitem__)
    ok = _rounds_to(gaps[lo_m], p.interval("bench_age_gap_range_min")) and _rounds_to(
        gaps[hi_m], p.interval("bench_age_gap_range_max")
    )
    desc = (
        f"The range {p.show('bench_age_gap_range_min', True)} to {p.show('bench_age_gap_range_max', True)} "
        "percentage points is the smallest and largest benchmark-age gap, rounded to whole points."
    )
    arith = (
        ", ".join(f"{m} {_fmt(v, 1, True)}" for m, v in gaps.items())
        + f" -> {_fmt(gaps[lo_m], 0, True)} to {_fmt(gaps[hi_m], 0, True)}; printed "
        f"{p.show('bench_age_gap_range_min', True)} to {p.show('bench_age_gap_range_max', True)}"
    )
    return (PASS if ok else FAIL), desc, arith


def implied_second_n(p_other: float, n_other: int, p_this: float, half_width: float) -> float:
    """n of the second arm that makes an unpaired Wald 95% CI of a difference of proportions this wide.

    ``h = 1.96 sqrt(p1(1-p1)/n1 + p2(1-p2)/n2)``  ->  ``n1 = p1(1-p1) / ((h/1.96)^2 - p2(1-p2)/n2)``;
    ``inf`` when the interval is no wider than the second arm alone would make it.
    """
    rest = (half_width / Z975) ** 2 - p_other * (1 - p_other) / n_other
    return math.inf if rest <= 0 else p_this * (1 - p_this) / rest


def check_bench_implied_n(p: Printed, m: str) -> Result:
    n = int(p.exact(f"t1_{m}_n"))
    ks = reachable_counts(n, p.interval(f"t1_{m}_acc"))
    ps = (sum(ks) / len(ks) / n) if ks else p.f(f"t1_{m}_acc") / 100
    gap = p.f(f"bench_age_{m}_gap_pp") / 100
    lo, hi = p.f(f"bench_age_{m}_gap_ci_lo") / 100, p.f(f"bench_age_{m}_gap_ci_hi") / 100
    pt = ps + gap
    arms = {"lower arm": gap - lo, "upper arm": hi - gap, "mean half-width": (hi - lo) / 2}
    ns = {k: implied_second_n(ps, n, pt, h) for k, h in arms.items()}
    desc = (
        f"{m}: the benchmark-age gap lies inside its interval, and the n of the TruthfulQA arm that the interval "
        "implies if it were an unpaired Wald interval for a difference of two proportions (the paper does not "
        "name the method)."
    )
    if not lo <= gap <= hi:
        return FAIL, desc, f"gap {gap * 100:+.1f} outside [{lo * 100:+.1f}, {hi * 100:+.1f}]"
    arith = (
        f"SimpleQA {ps * 100:.1f}% over {n:,}; TruthfulQA {pt * 100:.1f}% (= SimpleQA + gap); implied n: "
        + ", ".join(f"{k} {v:,.0f}" for k, v in ns.items())
        + " (full TruthfulQA has 817 questions; the local MC1 arm 750)"
    )
    return UNCLEAR, desc, arith


# ---------------------------------------------------------------------------------------------------
# Ladder
# ---------------------------------------------------------------------------------------------------


def check_ladder_rows(p: Printed) -> Result:
    items, reps, n = (
        int(p.exact(i)) for i in ("ladder_n_nontrap_items", "ladder_n_replicates", "ladder_n_rows_per_arm")
    )
    desc = "Rows per arm equal non-trap items times replicates."
    return (PASS if items * reps == n else FAIL), desc, f"{items} x {reps} = {items * reps}; printed {n}"


def check_battery(p: Printed) -> Result:
    items, bins, nontrap = (
        int(p.exact(i)) for i in ("ladder_n_items_battery", "ladder_n_bins", "ladder_n_nontrap_items")
    )
    desc = "The non-trap items are a subset of the battery (the remainder are trap items)."
    arith = (
        f"{items} - {nontrap} = {items - nontrap} trap items; {items} / {bins} bins = {Fraction(items, bins)} "
        "items per bin"
    )
    return (PASS if 0 <= nontrap <= items else FAIL), desc, arith


def check_oracle_rows(p: Printed) -> Result:
    n_or = int(p.exact("oracle_n_rows_confirmatory"))
    per_arm, arms = int(p.exact("ladder_n_rows_per_arm")), int(p.exact("ladder_n_arms"))
    cap = per_arm * arms
    desc = (
        "The oracle's rows for the confirmatory subject (non-trap, status ok) cannot exceed rows per arm x "
        "arms; more than one arm's worth means the oracle pools the arms."
    )
    arith = f"{per_arm} x {arms} = {cap:,} >= {n_or:,}; {cap - n_or} rows not ok"
    return (PASS if n_or <= cap else FAIL), desc, arith


def check_ladder_grim(p: Printed, acc_id: str, what: str, n_printed: bool = True) -> Result:
    n = int(p.exact("ladder_n_rows_per_arm"))
    ks = reachable_counts(n, p.interval(acc_id), scale=1)
    if n_printed:
        desc = f"{what}: the printed accuracy is a whole number of correct rows out of {n}."
        return (PASS if ks else FAIL), desc, f"printed {p.show(acc_id)}: {_ks(ks, n, 1, 5)}"
    desc = (
        f"{what}: the printed accuracy as a whole number of correct rows, if this rung also had {n} rows per "
        "arm (the paper prints no n for the demoted rungs)."
    )
    return UNCLEAR, desc, f"printed {p.show(acc_id)}: {_ks(ks, n, 1, 5)}"


def check_degeneracy(p: Printed) -> Result:
    bound = p.exact("ladder_degeneracy_bound")
    demoted = [f"ladder_demoted_rung{i}_off_acc" for i in (1, 2, 3)]
    above = [i for i in demoted if p.interval(i)[0] > bound]
    surv_ok = p.interval("t3_off_acc")[1] <= bound
    n_dem, n_rungs, n_elig = (
        int(p.exact(i)) for i in ("ladder_n_rungs_demoted", "ladder_n_rungs", "ladder_n_eligible_rungs")
    )
    ok = len(above) == len(demoted) == n_dem and surv_ok and n_rungs - n_dem == n_elig
    desc = (
        f"The degeneracy rule (OFF accuracy above {p.show('ladder_degeneracy_bound')} demotes a rung) sorts the "
        "printed OFF accuracies into the printed numbers of demoted and eligible rungs."
    )
    arith = (
        ", ".join(p.show(i) for i in demoted) + f" > {_fmt(bound, 2)}; surviving {p.show('t3_off_acc')} <= "
        f"{_fmt(bound, 2)}; {n_rungs} - {n_dem} = {n_rungs - n_dem} eligible (printed {n_elig})"
    )
    return (PASS if ok else FAIL), desc, arith


def check_placebo_rho(p: Printed) -> Result:
    bound = p.exact("ladder_placebo_rho_bound")
    ids = [
        i
        for i in (
            "ladder_placebo_rho_haiku",
            "ladder_placebo_rho_sonnet",
            "ladder_placebo_rho_opus",
            "ladder_placebo_rho_fable",
        )
        if p.has(i)
    ]
    worst = max(ids, key=lambda i: abs(p.exact(i)))
    ok = all(max(abs(x) for x in p.interval(i)) < bound for i in ids)
    desc = (
        f"Each rung's placebo profile passed its validation: |rho| below the {p.show('ladder_placebo_rho_bound')} "
        "bound."
    )
    arith = ", ".join(p.show(i, True) for i in ids) + f"; largest |rho| {abs(p.f(worst)):.4f} < {_fmt(bound, 2)}"
    return (PASS if ok else FAIL), desc, arith


def check_holm(p: Printed) -> Result:
    """Holm over the two confirmatory contrasts: which unrounded raw p-values give the printed adjusted p."""
    a_iv, b_iv, adj_iv = (
        p.interval(i) for i in ("ladder_core_vs_off_p_raw", "ladder_core_vs_placebo_p_raw", "ladder_p_holm_adj")
    )
    shown = holm([p.f("ladder_core_vs_off_p_raw"), p.f("ladder_core_vs_placebo_p_raw")])
    # exact search on a 1e-6 grid over the two rounding intervals
    step = Fraction(1, 10**6)
    ga = np.arange(math.ceil(a_iv[0] / step), math.floor(a_iv[1] / step) + 1) * 1e-6
    gb = np.arange(math.ceil(b_iv[0] / step), math.floor(b_iv[1] / step) + 1) * 1e-6
    A, B = np.meshgrid(ga, gb, indexing="ij")
    adj = holm(np.stack([A.ravel(), B.ravel()], axis=-1))
    lo, hi = float(adj_iv[0]) - 1e-12, float(adj_iv[1]) + 1e-12
    ok = np.all((adj >= lo) & (adj <= hi), axis=-1)
    desc = (
        f"Holm's adjustment of the printed raw p-values ({p.show('ladder_core_vs_off_p_raw')} for CORE>OFF, "
        f"{p.show('ladder_core_vs_placebo_p_raw')} for CORE>PLACEBO) gives the printed adjusted p "
        f"({p.show('ladder_p_holm_adj')}) for both contrasts, for some unrounded raw p-values."
    )
    arith = (
        f"from the printed values: 2 x {p.show('ladder_core_vs_off_p_raw')} = {shown[0]:.3f}, "
        f"max({shown[0]:.3f}, {p.show('ladder_core_vs_placebo_p_raw')}) = {shown[1]:.3f}, which prints .084. "
    )
    if not ok.any():
        return (
            FAIL,
            desc,
            arith + "No unrounded raw p-values in the printed rounding intervals give the printed adjusted p",
        )
    fa = A.ravel()[ok]
    # bootstrap p-values are often j / 2000 (B = 2,000 draws)
    n_draws = int(p.exact("bootstrap_n_draws")) if p.has("bootstrap_n_draws") else 2000
    lat = [j for j in _int_range(a_iv[0] * n_draws, a_iv[1] * n_draws) if _rounds_to(2 * Fraction(j, n_draws), adj_iv)]
    lat_s = ", ".join(f"{j}/{n_draws} = {j / n_draws:.4f}" for j in lat) or "none"
    arith += (
        f"The printed .085 needs unrounded CORE>OFF p in [{fa.min():.5f}, {fa.max():.5f}] (inside .042's "
        f"rounding interval {_ival(a_iv, 4)}); CORE>PLACEBO p anywhere in {_ival(b_iv, 4)}. "
        f"If p were a share of {n_draws:,} draws: {lat_s}"
        + (
            " (0.0425 prints as .042 only under round-half-to-even)"
            if any(Fraction(j, n_draws) == a_iv[1] for j in lat)
            else ""
        )
    )
    return PASS, desc, arith


def check_p_vs_ci(p: Printed, base: str, p_id: str, what: str) -> Result:
    d, lo, hi = p.f(base), p.f(base + "_ci_lo"), p.f(base + "_ci_hi")
    se = (hi - lo) / (2 * Z975)
    z = d / se
    p_norm = 2 * (1 - NormalDist().cdf(abs(z)))
    excl = p.interval(base + "_ci_lo")[0] > 0 or p.interval(base + "_ci_hi")[1] < 0
    incl = p.interval(base + "_ci_lo")[1] <= 0 <= p.interval(base + "_ci_hi")[0]
    p_iv = p.interval(p_id)
    sig, nonsig = p_iv[1] < Fraction(5, 100), p_iv[0] > Fraction(5, 100)
    desc = (
        f"{what}: the raw p-value and the 95% interval agree about significance at the matching 5% level (a "
        "percentile interval excludes zero exactly when a two-sided bootstrap p from the same draws is below it)."
    )
    arith = (
        f"Δ {p.show(base, True)} [{p.show(base + '_ci_lo', True)}, {p.show(base + '_ci_hi', True)}]; "
        f"SE = width / 3.92 = {se:.4f}; z = {z:.2f}; normal-approximation p = {p_norm:.3f}; printed p {p.show(p_id)}"
    )
    if (excl and sig) or (incl and nonsig):
        return PASS, desc, arith
    return (
        UNCLEAR,
        desc,
        arith + "; the interval and the p-value point different ways (they may come from different procedures)",
    )


def check_power(p: Printed) -> Result:
    lo_iv, hi_iv = p.interval("ladder_core_vs_placebo_delta_ci_lo"), p.interval("ladder_core_vs_placebo_delta_ci_hi")
    width = (hi_iv[0] - lo_iv[1], hi_iv[1] - lo_iv[0])
    se_rng = (float(width[0]) / (2 * Z975), float(width[1]) / (2 * Z975))
    se_ok = _overlap((Fraction(se_rng[0]), Fraction(se_rng[1])), p.interval("ladder_power_se"))
    zsum = Z975 + Z80
    mde = (zsum * se_rng[0], zsum * se_rng[1])
    mde_printed_se = zsum * p.f("ladder_power_se")
    mde_ok = _overlap((Fraction(mde[0]), Fraction(mde[1])), p.interval("ladder_power_min_delta"))
    obs = p.f("ladder_core_vs_placebo_delta")
    se_mid = (se_rng[0] + se_rng[1]) / 2
    power_obs = NormalDist().cdf(obs / se_mid - Z975)
    power_min = NormalDist().cdf(p.f("ladder_power_min_delta") / se_mid - Z975)
    desc = (
        f"Power statement: the SE read off the CORE>PLACEBO interval is about {p.show('ladder_power_se')}, and "
        f"with it a two-sided 5% test has about {p.show('ladder_power_pct')}% power only for ΔAUROC of about "
        f"{p.show('ladder_power_min_delta')} or more."
    )
    arith = (
        f"SE = ({p.show('ladder_core_vs_placebo_delta_ci_hi', True)} - "
        f"({p.show('ladder_core_vs_placebo_delta_ci_lo', True)})) / 3.92 "
        f"-> [{se_rng[0]:.4f}, {se_rng[1]:.4f}] (prints {p.show('ladder_power_se')}); 80%-power effect (1.96 + 0.84) "
        "x SE "
        f"-> [{mde[0]:.4f}, {mde[1]:.4f}] ({mde_printed_se:.4f} with SE = {p.show('ladder_power_se')}); "
        f"power at {p.show('ladder_power_min_delta')}: {power_min:.2f}; at the observed "
        f"{p.show('ladder_core_vs_placebo_delta', True)}: {power_obs:.2f}"
    )
    return (PASS if se_ok and mde_ok else FAIL), desc, arith


def check_brier_ge_ece_sq(p: Printed, arm: str) -> Result:
    b, e = p.interval(f"t3_{arm}_brier"), p.interval(f"t3_{arm}_ece")
    desc = f"Table 3 {arm.upper()}: Brier is at least ECE squared."
    arith = (
        f"{p.show(f't3_{arm}_brier')} >= {p.show(f't3_{arm}_ece')}^2 = {float(e[0]) ** 2:.4f} (at the low end of "
        "ECE's rounding)"
    )
    return (PASS if b[1] >= e[0] ** 2 else FAIL), desc, arith


def check_table3_text(p: Printed) -> Result:
    pl, sh, co = p.exact("t3_placebo_auroc"), p.exact("t3_shuffled_auroc"), p.exact("t3_core_auroc")
    ece_c, ece_p = p.exact("t3_core_ece"), p.exact("t3_placebo_ece")
    ok = min(pl, co) < sh < max(pl, co) and ece_c > ece_p
    desc = (
        "Text about Table 3: SHUFFLED's AUROC sits between PLACEBO's and CORE's, and CORE's ECE is worse "
        "(larger) than PLACEBO's."
    )
    arith = (
        f"{p.show('t3_placebo_auroc')} < {p.show('t3_shuffled_auroc')} < {p.show('t3_core_auroc')}; "
        f"ECE {p.show('t3_core_ece')} > {p.show('t3_placebo_ece')}"
    )
    return (PASS if ok else FAIL), desc, arith


def check_oracle_inside(p: Printed) -> Result:
    v, lo, hi = (
        p.exact("oracle_auroc_confirmatory"),
        p.exact("oracle_auroc_subjects_min"),
        p.exact("oracle_auroc_subjects_max"),
    )
    desc = "The confirmatory subject's oracle AUROC lies inside the range printed over all ladder subjects."
    arith = (
        f"{p.show('oracle_auroc_subjects_min')} <= {p.show('oracle_auroc_confirmatory')} <= "
        f"{p.show('oracle_auroc_subjects_max')}"
    )
    return (PASS if lo <= v <= hi else FAIL), desc, arith


def check_bin_sd(p: Printed) -> Result:
    sd = p.interval("oracle_bin_acc_sd")
    lo, hi = p.exact("oracle_bin_acc_range_min"), p.exact("oracle_bin_acc_range_max")
    k = int(p.exact("ladder_n_bins"))
    r = hi - lo
    sd_min_pop = float(r) * math.sqrt(2 / k) / 2  # two extreme bins, the rest at the midpoint
    sd_min_smp = float(r) * math.sqrt(2 / (k - 1)) / 2
    sd_max = float(r) / 2  # Popoviciu
    desc = (
        f"The per-bin accuracy SD is possible for {k} bins whose accuracies span the printed range (two bins at "
        "the ends pin the SD from below, Popoviciu's inequality from above)."
    )
    arith = (
        f"range {p.show('oracle_bin_acc_range_min')}-{p.show('oracle_bin_acc_range_max')} over {k} bins: SD at least "
        f"{sd_min_pop:.3f} (population; {sd_min_smp:.3f} sample) and at most {sd_max:.3f}; printed "
        f"{p.show('oracle_bin_acc_sd')}"
    )
    ok = float(sd[1]) >= sd_min_pop and float(sd[0]) <= sd_max
    return (PASS if ok else FAIL), desc, arith


def check_manipulation(p: Printed) -> Result:
    b = p.exact("ladder_shuffled_manipcheck_bound")
    j = [p.exact("ladder_shuffled_manipcheck_judge_1"), p.exact("ladder_shuffled_manipcheck_judge_2")]
    n_fail = int(p.exact("ladder_shuffled_manipcheck_n_failures"))
    fails = sum(x > b for x in j)
    desc = (
        f"The paper says the false profile failed the manipulation check {n_fail} times: count the "
        "external-judge scores above the bound."
    )
    arith = f"{', '.join(_fmt(x, 2) for x in j)} vs bound <= {_fmt(b, 2)}: {fails} failures (printed {n_fail})"
    return (PASS if fails == n_fail else FAIL), desc, arith


def check_swap(p: Printed) -> Result:
    calls, pairs, items = (int(p.exact(i)) for i in ("swap_n_calls", "swap_n_pairs", "ladder_n_items_battery"))
    desc = "Profile-swap calls = swap pairs x battery items (one call per item per pair)."
    arith = f"{calls:,} / {pairs} = {Fraction(calls, pairs)}; battery {items}"
    if calls == pairs * items:
        return PASS, desc, arith
    return UNCLEAR, desc, arith + "; not a whole battery per pair (the paper does not say how calls were split)"


# ---------------------------------------------------------------------------------------------------
# Local tier, topic pass, two-stage arm, regrade
# ---------------------------------------------------------------------------------------------------


def check_topic_grim(p: Printed) -> Result:
    n = int(p.exact("topic_n_probes_per_arm"))
    kb = reachable_counts(n, p.interval("topic_llama32_acc_before"))
    ka = reachable_counts(n, p.interval("topic_llama32_acc_after"))
    desc = f"Topic-labelled pass, llama3.2: both accuracies are whole numbers of correct probes out of {n}."
    arith = (
        f"before {p.show('topic_llama32_acc_before')}%: {_ks(kb, n, 100, 1)}; after "
        f"{p.show('topic_llama32_acc_after')}%: {_ks(ka, n, 100, 1)}"
    )
    return (PASS if kb and ka else FAIL), desc, arith


def check_topic_consumed(p: Printed) -> Result:
    ids = [
        "topic_glm4_brier_delta",
        "topic_llama32_brier_delta",
        "topic_mistral7b_brier_delta",
        "topic_phi4mini_brier_delta",
        "topic_qwen3_delta",
    ]
    pos = [i for i in ids if p.interval(i)[0] > 0]
    claimed, total = int(p.exact("topic_n_models_consumed")), int(p.exact("topic_n_models"))
    desc = (
        f"The paper says {claimed} of {total} models consumed the topic-labelled profile: count the positive "
        "Brier changes."
    )
    arith = (
        ", ".join(p.show(i, True) for i in ids) + f": {len(pos)} positive of {len(ids)} (printed {claimed} of {total})"
    )
    return (PASS if len(pos) == claimed and len(ids) == total else FAIL), desc, arith


def check_topic_ceiling(p: Printed) -> Result:
    acc, conf = p.exact("topic_qwen3_acc"), p.exact("topic_qwen3_conf")
    ok = acc == 100 and conf == 100 and _rounds_to(Fraction(0), p.interval("topic_qwen3_delta"))
    desc = (
        "qwen3 in the topic pass: at full accuracy with full confidence in both arms every Brier term is zero, "
        "so the printed change must be zero."
    )
    arith = (
        f"accuracy {p.show('topic_qwen3_acc')}%, confidence {p.show('topic_qwen3_conf')} -> Brier (1 - 1)^2 = 0 "
        f"in both arms; printed Δ {p.show('topic_qwen3_delta')}"
    )
    return (PASS if ok else FAIL), desc, arith


def check_table4_max(p: Printed, rows: Sequence[str]) -> Result:
    d = {r: p.exact(f"t4_{r}_delta") for r in rows}
    top = max(d, key=d.__getitem__)
    desc = (
        "The text names glm4:9b as the model with the largest microprobe shift: the biggest Table 4 Δ must be "
        "on that row (its two confidences are restated in the text and checked under Repeats)."
    )
    arith = (
        ", ".join(f"{r} {_fmt(v, 0, True)}" for r, v in d.items())
        + f"; largest: {top} ({p.show(f't4_{top}_conf_at_0')} -> {p.show(f't4_{top}_conf_at_95')})"
    )
    ok = top == "glm4" and list(d.values()).count(d[top]) == 1
    return (PASS if ok else FAIL), desc, arith


def check_twostage(p: Printed) -> Result:
    pairs = int(p.exact("twostage_n_pairs"))
    lo, hi = int(p.exact("twostage_rows_per_model_min")), int(p.exact("twostage_rows_per_model_max"))
    k = int(p.exact("twostage_n_models"))
    items = int(p.exact("twostage_n_items"))
    feas = (lo + hi + (k - 2) * lo, lo + hi + (k - 2) * hi)
    desc = (
        f"Two-stage arm: the pairs add up to a total that per-model counts of {lo}-{hi} (both ends attained) "
        f"over {k} models can reach, and no model exceeds the {items} items."
    )
    arith = (
        f"{lo} + {hi} + {k - 2} x [{lo}, {hi}] = [{feas[0]}, {feas[1]}]; printed {pairs} pairs; items per model {items}"
    )
    return (PASS if feas[0] <= pairs <= feas[1] and hi <= items else FAIL), desc, arith


def check_spotcheck(p: Printed) -> Result:
    n, err = int(p.exact("grading_spotcheck_n_items")), int(p.exact("grading_spotcheck_n_errors"))
    share = Fraction(100 * (n - err), n)
    desc = "Human spot-check: the printed agreement equals (items - errors) / items."
    arith = f"({n} - {err}) / {n} = {_fmt(share, 1)}%; printed {p.show('grading_spotcheck_agreement_pct')}%"
    return (PASS if _rounds_to(share, p.interval("grading_spotcheck_agreement_pct")) else FAIL), desc, arith


def check_regrade_agreement(p: Printed) -> Result:
    n, down, up = (int(p.exact(i)) for i in ("regrade_n_rows", "regrade_down_flips", "regrade_up_flips"))
    share = Fraction(100 * (n - down - up), n)
    desc = "Regrade: with every disagreement a down- or up-flip, agreement = (rows - flips) / rows."
    arith = f"({n:,} - {down} - {up}) / {n:,} = {_fmt(share, 3)}%; printed {p.show('regrade_agreement_pct')}%"
    return (PASS if _rounds_to(share, p.interval("regrade_agreement_pct")) else FAIL), desc, arith


def check_regrade_accuracy(p: Printed) -> Result:
    n, down, up = (int(p.exact(i)) for i in ("regrade_n_rows", "regrade_down_flips", "regrade_up_flips"))
    net = down - up
    b_iv, a_iv = p.interval("regrade_acc_before"), p.interval("regrade_acc_after")
    n_hi = int(p.exact("fig1_local_n_max"))

    def works(N: int) -> list[int]:
        return [k for k in reachable_counts(N, b_iv) if k - net >= 0 and _rounds_to(Fraction(100 * (k - net), N), a_iv)]

    at_n = works(n)
    ok_ns = [N for N in range(n, n_hi + 1) if works(N)]
    desc = (
        f"Regrade: accuracy {p.show('regrade_acc_before')} -> {p.show('regrade_acc_after')}% after a net "
        f"{net} down-flips; which denominators make both percentages whole-number shares."
    )
    ks = reachable_counts(n, b_iv)
    arith = (
        f"over the {n:,} regraded rows: {p.show('regrade_acc_before')}% needs k in {{{', '.join(map(str, ks))}}}, then "
        + ", ".join(f"{k - net}/{n} = {_fmt(Fraction(100 * (k - net), n), 3)}%" for k in ks)
        + f" (printed {p.show('regrade_acc_after')}%). "
    )
    if ok_ns:
        show: list[int | str] = list(ok_ns) if len(ok_ns) <= 8 else [*ok_ns[:4], "...", *ok_ns[-3:]]
        arith += (
            f"Denominators from {n:,} to {n_hi:,} (the grader model's full graded set) that work: "
            f"{len(ok_ns)}: {', '.join(map(str, show))}"
        )
    if at_n:
        return PASS, desc, arith
    if ok_ns:
        return (
            UNCLEAR,
            desc,
            arith + f". Consistent only if the accuracy is over more rows than the {n:,} regraded ones (not stated)",
        )
    return FAIL, desc, arith + ". No denominator up to the local maximum works"


def check_regrade_in_local_span(p: Printed) -> Result:
    v = p.exact("regrade_acc_before")
    lo, hi = p.exact("fig1_local_acc_min"), p.exact("fig1_local_acc_max")
    desc = "The grader model's accuracy before the regrade lies inside the local tier's printed accuracy span."
    arith = f"{p.show('fig1_local_acc_min')} <= {p.show('regrade_acc_before')} <= {p.show('fig1_local_acc_max')}"
    return (PASS if lo <= v <= hi else FAIL), desc, arith


# ---------------------------------------------------------------------------------------------------
# Running everything
# ---------------------------------------------------------------------------------------------------

GROUP_TITLES = {
    "manifest": "Repeats",
    "counts": "Counts and totals",
    "table1": "Table 1, row by row",
    "result1": "Result 1: statements about Table 1",
    "table2": "Table 2: risk and coverage",
    "differences": "Differences and derived values",
    "intervals": "Intervals",
    "benchmark": "Benchmark-age arm",
    "ladder": "Profile-injection ladder",
    "local": "Local tier, topic pass and two-stage arm",
    "grading": "Grading and regrade",
}


def _models(doc: dict) -> list[str]:
    return list(DEFAULT_MODELS)


@dataclass(frozen=True)
class Ctx:
    """An argument of a check: the value named ``name`` in the plan's context (:func:`plan_context`)."""

    name: str


@dataclass(frozen=True)
class Each:
    """An argument of a check: the loop value itself, or ``template.format(value)`` (``*value`` for a tuple)."""

    template: str | None = None

    def resolve(self, value: Any) -> Any:
        """The loop value, or the template filled with it.

        >>> Each().resolve("off"), Each("t3_{}_acc").resolve("off"), Each("{1} of {0}").resolve(("a", "b"))
        ('off', 't3_off_acc', 'b of a')
        """
        if self.template is None:
            return value
        return self.template.format(*value) if isinstance(value, tuple) else self.template.format(value)


@dataclass(frozen=True)
class At:
    """An argument of a check: entry ``[loop value]`` of the context value ``name``."""

    name: str


@dataclass(frozen=True)
class CheckSpec:
    """One row of :data:`CHECKS`: a check function, its group, key and arguments, maybe repeated over a list.

    ``fn`` is called as ``fn(printed, *args, **kwargs)``, each argument resolved against the context: :class:`Ctx`
    (a context value), :class:`Each` (the loop value, or a template filled with it), :class:`At` (a context
    mapping at the loop value), anything else as written.  With ``over`` (a context name) the row yields one check
    per value, its ``key`` a template filled like :class:`Each`.
    """

    group: str
    key: str
    fn: Callable[..., Result]
    args: tuple = ()
    over: str | None = None
    kwargs: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class CheckBlock:
    """Rows of :data:`CHECKS` repeated together over one list: for each value, every spec in turn."""

    over: str
    specs: tuple[CheckSpec, ...]


#: Models of Table 4 (local microprobe) and of the topic pass that consumed the profile.
_T4_MODELS = ("glm4", "llama32", "mistral7b", "phi4mini", "qwen3")
_TOPIC_MODELS = ("glm4", "llama32", "mistral7b", "phi4mini")
#: The ladder's arms, with the label Table 3 prints.
_ARMS = ("off", "placebo", "core", "shuffled")


def _in(group: str, *rows: tuple | list | CheckSpec) -> tuple[CheckSpec | CheckBlock, ...]:
    """The rows of one group of :data:`CHECKS`: a tuple ``(key, fn[, args[, over[, kwargs]]])`` is a
    :class:`CheckSpec` of ``group``; a list ``[over, tuple, tuple, ...]`` is a :class:`CheckBlock` of such specs.

    >>> _in("ladder", ("power", check_power))[0].key
    'power'
    """
    out: list[CheckSpec | CheckBlock] = []
    for row in rows:
        if isinstance(row, list):
            out.append(CheckBlock(row[0], tuple(CheckSpec(group, *r) for r in row[1:])))
        else:
            out.append(row if isinstance(row, CheckSpec) else CheckSpec(group, *row))
    return tuple(out)


def _diff(key: str, delta: str, a: str, b: str, label: str) -> tuple:
    """A :func:`check_difference` row: printed ``delta`` = ``a`` - ``b``."""
    return (key, check_difference, (delta, a, b, label))


_M = (Ctx("models"),)

#: Every consistency check, in page order: data, not code (:func:`plan` expands it against the printed values).
CHECKS: tuple[CheckSpec | CheckBlock, ...] = (
    *_in("manifest", ("repeats", check_repeats)),
    *_in(
        "counts",
        ("frontier_total", check_frontier_total, _M),
        ("grand_total", check_grand_total),
        ("model_count", check_model_count),
        ("frontier_n_le_items", check_frontier_n_le_items, _M),
        ("local_n_range", check_local_n_range),
        ("highconf_share", check_highconf_share),
        ("highconf_vs_medians", check_highconf_vs_medians, (Ctx("models"), Ctx("feas_k"))),
        ("refusal_rows", check_refusal_rows, (Ctx("refusal_ks"),)),
    ),
    *_in(
        "table1",
        ("grim_{}", check_grim_accuracy, (Each(),), "models"),
        ("citl_{}", check_citl, (Each(),), "models"),
        ("ece_ge_citl_{}", check_ece_ge_citl, (Each(),), "models"),
        ("brier_{}", check_brier_bounds, (Each(),), "models"),
        ("auroc_ci_{}", check_auroc_ci, (Each(), At("feas_k")), "models"),
    ),
    *_in(
        "result1",
        ("all_bins_positive", check_all_bins_positive, _M),
        ("median_band", check_median_band, _M),
        ("accuracy_span", check_accuracy_span, _M),
        (
            "self_auroc_span",
            check_range,
            ("r1_self_auroc_span_min", "r1_self_auroc_span_max", Ctx("t1_auroc_keys"), "self-AUROC"),
        ),
        (
            "citl_range",
            check_range,
            ("r1_citl_range_min", "r1_citl_range_max", Ctx("t1_citl_keys"), "CITL"),
            None,
            (("signed", True),),
        ),
        ("all_overconfident", check_all_overconfident, _M),
        ("six_below", check_count_below, _M),
        ("cis_exclude_chance", check_cis_exclude_chance, _M),
        ("extremes", check_extremes, _M),
        ("highconf_rates", check_highconf_rates),
    ),
    *_in(
        "table2",
        ("rows_top3", check_top3_riskcov, (Ctx("models"), Ctx("t2_rows"))),
        [
            "t2_rows",
            ("cov100_{}", check_full_coverage_error, (Each(),)),
            ("covered_counts_{}", check_covered_counts, (Each(), Ctx("covs"))),
            ("decreasing_{}", check_decreasing_risk, (Each(), Ctx("covs"))),
        ],
    ),
    *_in(
        "differences",
        _diff("cn_delta", "cn_panel_vs_self_delta", "cn_panel_auroc", "cn_self_auroc_pooled", "CN panel Δ"),
        _diff("us_delta", "us_panel_vs_self_delta", "us_panel_auroc", "us_self_auroc_pooled", "US panel Δ"),
        _diff("xb_delta", "xb_panel_vs_self_delta", "xb_panel_auroc", "xb_self_auroc_pooled", "Cross-bloc panel Δ"),
        _diff(
            "us_identity",
            "us_between_model_identity_contribution",
            "us_self_auroc_pooled",
            "us_self_auroc_ranknorm",
            "US between-model identity contribution (pooled minus rank-normalised)",
        ),
        _diff(
            "expl_rung",
            "expl_rung_core_minus_shuffled_delta",
            "expl_rung_core_auroc",
            "expl_rung_shuffled_auroc",
            "Exploratory rung, true minus false profile",
        ),
        ("zhipu_gap", check_bench_zhipu),
        (
            "t4_{}",
            check_integer_difference,
            (Each("t4_{}_delta"), Each("t4_{}_conf_at_95"), Each("t4_{}_conf_at_0"), Each("Table 4 {}")),
            "t4_models",
        ),
        ("t4_largest", check_table4_max, (Ctx("t4_models"),)),
        ("us_middle_member", check_us_middle_member),
        ("us_pooled_gain", check_us_pooled_exceeds_members),
        ("labelfree", check_labelfree),
    ),
    *_in("intervals", ("ci_{}", check_interval, (Each(),), "ci_bases")),
    *_in(
        "benchmark",
        ("range", check_bench_range, (Ctx("bench"),)),
        ("implied_n_{}", check_bench_implied_n, (Each(),), "bench"),
    ),
    *_in(
        "ladder",
        ("rows_per_arm", check_ladder_rows),
        ("battery", check_battery),
        ("oracle_rows", check_oracle_rows),
        ("grim_{0}", check_ladder_grim, (Each("t3_{0}_acc"), Each("Table 3 {1}")), "t3_arms"),
        (
            "grim_demoted_{}",
            check_ladder_grim,
            (Each("ladder_demoted_rung{}_off_acc"), Each("Demoted rung {}, OFF arm")),
            "demoted_rungs",
            (("n_printed", False),),
        ),
        ("degeneracy", check_degeneracy),
        ("placebo_rho", check_placebo_rho),
        ("holm", check_holm),
        (
            "p_vs_ci_placebo",
            check_p_vs_ci,
            ("ladder_core_vs_placebo_delta", "ladder_core_vs_placebo_p_raw", "CORE>PLACEBO"),
        ),
        ("p_vs_ci_off", check_p_vs_ci, ("ladder_core_vs_off_delta", "ladder_core_vs_off_p_raw", "CORE>OFF")),
        ("power", check_power),
        ("brier_ece_{}", check_brier_ge_ece_sq, (Each(),), "arms"),
        ("table3_text", check_table3_text),
        ("oracle_inside", check_oracle_inside),
        ("bin_sd", check_bin_sd),
        ("manipulation", check_manipulation),
        ("swap_calls", check_swap),
    ),
    *_in(
        "local",
        ("topic_grim", check_topic_grim),
        ("topic_consumed", check_topic_consumed),
        (
            "topic_range",
            check_range,
            (
                "intro_c3_topic_brier_delta_min",
                "intro_c3_topic_brier_delta_max",
                Ctx("topic_keys"),
                "the topic-pass Brier degradation (models that consumed the profile)",
            ),
            None,
            (("signed", True),),
        ),
        ("topic_ceiling", check_topic_ceiling),
        ("twostage", check_twostage),
    ),
    *_in(
        "grading",
        ("spotcheck", check_spotcheck),
        ("regrade_agreement", check_regrade_agreement),
        ("regrade_accuracy", check_regrade_accuracy),
        ("regrade_in_span", check_regrade_in_local_span),
    ),
)


def plan_context(p: Printed, models: Sequence[str]) -> dict[str, Any]:
    """The values the rows of :data:`CHECKS` refer to (:class:`Ctx`, :class:`At` and ``over``), from the prints.

    Definition: ``models`` as given; ``feas_k`` per model the correct counts Table 1 admits
    (:func:`table1_feasible`, else :func:`reachable_counts` of the printed n and accuracy), ``refusal_ks`` the
    refusal-heavy model's; the glue keys of Table 1's self-AUROC and CITL and of the topic pass's Brier change per
    model; ``t2_rows`` the models Table 2 prints, ``covs`` its coverages; ``ci_bases`` every printed interval
    (:func:`ci_triples`) but Table 1's self-AUROC ones (checked per model); ``bench`` the models of the
    benchmark-age arm; the ladder's arms (with Table 3's label) and demoted rungs; Table 4's models.

    References: the checks' own docstrings; Brown & Heathers (2017) for the granularity (GRIM) counts.

    Examples
    --------
    >>> ctx = plan_context(Printed({"claims": []}), [])
    >>> ctx["t3_arms"][0], ctx["covs"]
    (('off', 'OFF'), [100, 80, 60, 40, 20])
    """
    ks = {m: reachable_counts(int(p.exact(f"t1_{m}_n")), p.interval(f"t1_{m}_acc")) for m in models}
    feas_k = {m: (table1_feasible(p, m).ks or ks[m]) for m in models}
    t1_auroc = {m: f"t1_{m}_self_auroc" for m in models}
    return {
        "models": list(models),
        "feas_k": feas_k,
        "refusal_ks": feas_k.get("anthropic", []),
        "t1_auroc_keys": t1_auroc,
        "t1_citl_keys": {m: f"t1_{m}_citl" for m in models},
        "t2_rows": [m for m in models if p.has(f"t2_{m}_err_cov100")],
        "covs": [100, 80, 60, 40, 20],
        "t4_models": _T4_MODELS,
        "ci_bases": [base for base, _, _ in ci_triples(p) if base not in set(t1_auroc.values())],
        "bench": [m for m in models if p.has(f"bench_age_{m}_gap_pp")],
        "arms": _ARMS,
        "t3_arms": tuple((a, a.upper()) for a in _ARMS),
        "demoted_rungs": (1, 2, 3),
        "topic_keys": {r: f"topic_{r}_brier_delta" for r in _TOPIC_MODELS},
    }


def _expand(spec: CheckSpec, p: Printed, ctx: dict[str, Any], value: Any = None) -> tuple[str, str, Callable]:
    """``(group, key, thunk)`` of one row of :data:`CHECKS` at one loop value (arguments resolved now)."""

    def arg(a: Any) -> Any:
        if isinstance(a, Ctx):
            return ctx[a.name]
        if isinstance(a, Each):
            return a.resolve(value)
        if isinstance(a, At):
            return ctx[a.name][value]
        return a

    args = tuple(arg(a) for a in spec.args)
    key = spec.key if spec.over is None and value is None else Each(spec.key).resolve(value)
    return spec.group, key, partial(spec.fn, p, *args, **dict(spec.kwargs))


def plan(p: Printed, models: Sequence[str]) -> Iterator[tuple[str, str, Callable[[], Result]]]:
    """Every check as ``(group, key, thunk)``, in page order: :data:`CHECKS` expanded against the prints.

    Definition: a :class:`CheckSpec` without ``over`` gives one check; with ``over`` one per value of that
    context list (:func:`plan_context`); a :class:`CheckBlock` gives, per value, each of its specs in turn.

    References: Brown & Heathers (2017); Heathers et al. (2018), SPRITE, for consistency checks of printed values.

    Examples
    --------
    >>> from selfconf.book.audit import load_claims
    >>> keys = [f"{g}/{k}" for g, k, _ in plan(Printed(load_claims()), DEFAULT_MODELS)]
    >>> keys[:2], len(keys) == len(set(keys))
    (['manifest/repeats', 'counts/frontier_total'], True)
    """
    ctx = plan_context(p, models)
    for entry in CHECKS:
        if isinstance(entry, CheckBlock):
            for value in ctx[entry.over]:
                for spec in entry.specs:
                    yield _expand(spec, p, ctx, value)
        elif entry.over is not None:
            for value in ctx[entry.over]:
                yield _expand(entry, p, ctx, value)
        else:
            yield _expand(entry, p, ctx)


def _plan(p: Printed, models: Sequence[str]) -> Iterable[tuple[str, str, Callable[[], Result]]]:
    """Every check as (group, key, thunk): :func:`plan` (the former name, kept for callers)."""
    return plan(p, models)


def run_checks(claims_doc: dict, source: str = "claims document", only: Iterable[str] | None = None) -> list[Check]:
    """Run every consistency check on the printed values in ``claims_doc``; return the records in page order.

    ``only`` restricts the run to the checks named ``"group/key"``.  A claim a check needs but the
    document lacks raises ``KeyError`` naming the check and the claim id.
    """
    p = Printed(claims_doc, source)
    models = _models(claims_doc)
    wanted = set(only) if only is not None else None
    out: list[Check] = []
    seen: set[str] = set()
    for group, key, thunk in _plan(p, models):
        seen.add(f"{group}/{key}")
        if wanted is not None and f"{group}/{key}" not in wanted:
            continue
        try:
            status, desc, arith = thunk()
        except KeyError as e:
            raise KeyError(f"consistency check {group}/{key}: {e.args[0]}") from None
        out.append(Check(group, key, status, desc, arith))
    if wanted is not None and wanted - seen:
        raise KeyError(f"no consistency check named {sorted(wanted - seen)}")
    return out


def summarise(checks: Sequence[Check]) -> dict[str, int]:
    """Counts by status (every status present, zero included) and the total."""
    counts = {s: 0 for s in STATUSES}
    for c in checks:
        counts[c.status] += 1
    counts["total"] = len(checks)
    return counts


def checks_frame(checks: Sequence[Check]):
    """The checks as a pandas DataFrame (group, key, status, description, arithmetic)."""
    import pandas as pd

    return pd.DataFrame(
        [
            {"group": c.group, "key": c.key, "status": c.status, "check": c.description, "arithmetic": c.arithmetic}
            for c in checks
        ]
    )
