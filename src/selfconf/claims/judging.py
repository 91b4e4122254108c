"""How a recomputed number is judged against the number the paper prints: the book's one rule.

The audit (:mod:`selfconf.book.audit`), the fidelity files written by every reconstruction generator
(:mod:`selfconf.reconstruct`) and the inline marks on the pages all call this module; nothing else
formats-and-compares a number against its print.

The rule
--------
* A claim **prints as the paper prints** when its recomputed value, formatted with the printed number
  of decimals (``format(x, ".{d}f")``, ``-0.0`` shown as ``0.0``), equals the printed value formatted
  the same way.  Its status is then ``match``, whatever its kind.
* A **deterministic** claim (or a derived one computed only from deterministic inputs) that prints
  differently is a ``mismatch``.
* A **bootstrap** claim (an interval end point, a bootstrap p-value) and a derived claim computed from
  bootstrap inputs (a *bootstrap-derived* claim, e.g. a Holm-adjusted bootstrap p-value) that prints
  differently is ``within_tolerance`` when ``|x - printed| <= tol`` and ``outside_tolerance``
  otherwise, with ``tol`` = half a unit in the last printed digit + 3 Monte-Carlo standard errors of a
  2,000-draw estimate (:func:`mc_tolerance`).  The SE comes from the quantity's own definition: a two-sided
  bootstrap p-value (2 x the smaller tail share) has ``sqrt(p(2-p)/B)``; a percentile end point
  ``sqrt(q(1-q)/B) / f(x_q)`` with ``f`` the bootstrap density at the end point, measured from the draws by the
  seed study (:mod:`selfconf.book.seedstudy`, passed as ``measured``) or, without one, a normal density with the
  SD the printed interval implies.  A bootstrap-derived claim's Monte-Carlo standard error is
  propagated through its declared ``derivation`` from the inputs that determine it (:func:`monte_carlo_se`;
  for a Holm-adjusted p-value: the SE of the raw p-value that sets the adjusted value, times its Holm
  multiplier); its tolerance is its own half printed unit + 3 of those SEs.
* A number that prints differently **on the other side of a threshold the paper's conclusion rests on**
  (:func:`threshold`: 0 for a signed difference, 0.5 for an AUROC, :data:`ALPHA` for a p-value) is
  ``crosses_threshold``, whatever its tolerance (the tolerance's own verdict stays in ``tolerance_status``).
* An **external** claim is never computed: it is ``quoted`` when glued from the quoted-facts file and
  ``not_quoted`` otherwise.

Statuses that a page marks in its text (the number does not print as the paper prints) are in
:data:`MARKED`; statuses that fail the audit are in :data:`FAILING`.

References
----------
Hall, P. (1986). On the number of bootstrap simulations required to construct a confidence interval.
Annals of Statistics 14, 1453-1462.  Efron, B. & Tibshirani, R. (1993). An Introduction to the
Bootstrap, section 19.3 (Monte-Carlo error of a percentile end point).

Examples
--------
>>> claims = [{"id": "a", "kind": "deterministic", "value": 0.746, "decimals": 3, "printed": "0.746"}]
>>> m = Manifest(claims)
>>> judge(m, "a", 0.74649).status
'match'
>>> judge(m, "a", 0.7466).status
'mismatch'
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from selfconf.data.paths import resolve
from selfconf.stats.normal import Z975

__all__ = [
    "N_BOOT_PAPER",
    "Z975",
    "STATUSES",
    "FAILING",
    "MARKED",
    "CLAIMS",
    "Manifest",
    "load_manifest",
    "fmt",
    "fmt_p",
    "effective_kinds",
    "judge_kind",
    "mc_tolerance",
    "mc_se",
    "monte_carlo_se",
    "DERIVATIONS",
    "K_SE",
    "UNLUCKY_MARGIN_SE",
    "ideal_mc_error",
    "determining_inputs",
    "derive",
    "rules",
    "card_rules",
    "ALPHA",
    "threshold",
    "crosses",
    "tolerance",
    "Judgement",
    "judge",
    "fidelity_record",
    "fidelity_records",
    "conflict_excludes",
]

#: The claim manifest shipped with the book.
CLAIMS = "data/paper/claims.yaml"

#: Bootstrap draws behind the paper's intervals and p-values.
N_BOOT_PAPER = 2000
#: Monte-Carlo standard errors in a tolerance (beyond half a printed unit).
K_SE = 3
#: An ideal (large-B) value decides a verdict only when it lies further than this many of its own
#: Monte-Carlo errors from the tolerance's edge (otherwise the verdict is *undetermined*).
UNLUCKY_MARGIN_SE = 2
#: Percentile of the lower interval end point (a 95 % interval).
Q_END = 0.025
#: The significance level the paper reads its p-values at ("both fail the Holm correction", p_adj = .085).
ALPHA = 0.05
#: The seed distribution makes a page value plausible when it lies within this many seed SDs of the seeds' mean.
PLAUSIBLE_Z = 3
_PHI_Z975 = math.exp(-0.5 * Z975**2) / math.sqrt(2 * math.pi)

#: Every status a claim can have, with what it means to a reader.
STATUSES = {
    "match": "prints exactly as the paper prints",
    "mismatch": "a deterministic number that prints differently from the paper",
    "within_tolerance": "a Monte-Carlo number that prints differently from the paper, within its tolerance",
    "outside_tolerance": "a Monte-Carlo number outside its tolerance",
    "crosses_threshold": "prints on the other side of a threshold the paper's conclusion rests on (0 for a "
    "difference, 0.5 for an AUROC, alpha for a p-value), whatever its tolerance",
    "quoted": "quoted from the paper, not computed",
    "not_quoted": "an external number that was not glued from the quoted-facts file",
    "unglued": "a claim of a built section that no notebook glued",
    "pending": "its section has not been built",
    "not_computed": "the generator could not compute it",
}
#: Statuses that fail the audit.
FAILING = frozenset({"mismatch", "outside_tolerance", "crosses_threshold", "unglued", "not_quoted"})
#: Statuses whose number does not print as the paper prints: marked in the page text.
MARKED = frozenset({"mismatch", "within_tolerance", "outside_tolerance", "crosses_threshold"})


class Manifest:
    """The claim manifest with the views every judge needs.

    ``claims``: the list of claim dicts (id, kind, value, printed, decimals, depends_on, same_as, ...);
    ``by_id``: ``{id: claim}``; ``effective``: :func:`effective_kinds`; ``canonical(id)``: the claim a
    repeat (``same_as``) restates, or the claim itself.

    Example
    -------
    >>> m = Manifest([{"id": "x", "kind": "bootstrap", "value": 0.5}, {"id": "y", "kind": "derived",
    ...               "value": 1, "depends_on": ["x"]}])
    >>> m.effective["y"]
    'bootstrap'
    """

    def __init__(self, claims: list[dict], raw: dict | None = None):
        self.claims = claims
        self.raw = raw if raw is not None else {"claims": claims}
        self.by_id = {c["id"]: c for c in claims}
        self.effective = effective_kinds(claims)

    def canonical(self, claim_id: str) -> dict:
        c = self.by_id[claim_id]
        seen = {claim_id}
        while c.get("same_as"):
            nxt = c["same_as"]
            if nxt in seen or nxt not in self.by_id:
                raise ValueError(f"claim {claim_id!r}: same_as chain broken or cyclic at {nxt!r}")
            seen.add(nxt)
            c = self.by_id[nxt]
        return c


def _read_manifest(path: Path) -> dict:
    import yaml

    if not path.is_file():
        raise FileNotFoundError(f"{path}: claim manifest not found")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: much faster on the 500-claim file
    doc = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list):
        raise ValueError(f"{path}: no 'claims' list")
    return doc


@lru_cache(maxsize=8)
def _cached_manifest(path: str, mtime_ns: int) -> Manifest:
    doc = _read_manifest(Path(path))
    return Manifest(doc["claims"], doc)


def load_manifest(path: str | Path = CLAIMS) -> Manifest:
    """Read the claim manifest once (cached per file and modification time).

    Example
    -------
    >>> m = load_manifest()
    >>> m.by_id["t1_google_n"]["printed"]
    '1,461'
    """
    p = resolve(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: claim manifest not found")
    return _cached_manifest(str(p), p.stat().st_mtime_ns)


def _is_nan(x: Any) -> bool:
    try:
        return math.isnan(x)
    except TypeError:
        return False


def fmt(
    x: Any,
    decimals: int | None = None,
    *,
    signed: bool = False,
    percent: bool = False,
    significant: int | None = None,
    missing: str | None = None,
) -> str:
    """The printed form of ``x``: the book's one number formatter.

    Definition: ``format(v, ".{decimals}f")`` with ``v = 100 x`` when ``percent`` and ``v = x``
    otherwise (or ``format(v, ".{significant}g")`` when ``significant`` is given instead of
    ``decimals``); a value that rounds to zero prints without a minus sign (``-0.0004`` -> ``0.000``);
    ``signed`` puts ``+`` before every other value (``+0.000``, ``+1.5``, ``-1.5``).  With ``missing``
    given, ``None`` and NaN print as that text (otherwise ``None`` raises and NaN prints ``nan``).
    Every formatter of the package calls this function (the claim judge, the consistency
    appendix, ``selfconf rerun`` and ``selfconf diagnose``).

    Reference: Python's format specification mini-language (``f`` and ``g`` presentation types).

    >>> fmt(-0.0004, 3), fmt(0.7455, 3), fmt(12, 0)
    ('0.000', '0.746', '12')
    >>> fmt(0.1234, 1, percent=True), fmt(-0.0213, 1, percent=True, signed=True), fmt(3.5, 2, signed=True)
    ('12.3', '-2.1', '+3.50')
    >>> fmt(float("nan"), 3, missing="undefined"), fmt(1234.5678, significant=6)
    ('undefined', '1234.57')
    """
    if (decimals is None) == (significant is None):
        raise TypeError("fmt: give exactly one of decimals and significant")
    if missing is not None and (x is None or _is_nan(x)):
        return missing
    v = 100.0 * float(x) if percent else float(x)
    if decimals is not None:
        spec = f".{int(decimals)}f"
    else:
        assert significant is not None  # exactly one of the two is given (checked above)
        spec = f".{int(significant)}g"
    s = format(v, spec)
    if s.startswith("-") and float(s) == 0:
        s = s[1:]
    return "+" + s if signed and not s.startswith("-") else s


def fmt_p(p: Any, n_boot: int | None = None, *, missing: str = "n/a") -> str:
    """The printed form of a p-value: three decimals, ``<0.001`` below 0.001, and a bound for a bootstrap zero.

    Definition: a bootstrap p-value is a share of ``n_boot`` draws, so a share of 0 only says p < 1/n_boot; it
    prints as ``<`` and 1/n_boot to two significant digits (``<0.0005`` for 2,000 draws, ``<0.0025`` for 400),
    never as ``0.000``.  Any other p below 0.001 prints ``<0.001``; the rest as :func:`fmt` with 3 decimals.
    ``None`` and NaN print as ``missing``.

    Reference: Davison & Hinkley (1997), Sec. 4.2 (a Monte-Carlo p-value is resolved to 1/B).

    >>> fmt_p(0.0846), fmt_p(0.0, 2000), fmt_p(0.0, 400), fmt_p(0.0004), fmt_p(float("nan"))
    ('0.085', '<0.0005', '<0.0025', '<0.001', 'n/a')
    """
    if p is None or _is_nan(p):
        return missing
    if float(p) == 0.0 and n_boot:
        return "<" + fmt(1.0 / int(n_boot), significant=2)
    return "<0.001" if float(p) < 0.001 else fmt(p, 3)


def effective_kinds(claims: list[dict]) -> dict[str, str]:
    """``{claim id: "deterministic" | "bootstrap"}``: whether a claim can move with the bootstrap seed.

    ``bootstrap`` claims can; a ``derived`` claim can when any claim it depends on can, directly or
    through other derived claims; a repeat (``same_as``) inherits its canonical claim's answer;
    ``deterministic`` and ``external`` (quoted) claims cannot.

    >>> effective_kinds([{"id": "p", "kind": "bootstrap"}, {"id": "h", "kind": "derived", "depends_on": "p"}])
    {'p': 'bootstrap', 'h': 'bootstrap'}
    """
    by_id = {c["id"]: c for c in claims}
    memo: dict[str, str] = {}

    def kind(cid: str, seen: frozenset = frozenset()) -> str:
        if cid in memo:
            return memo[cid]
        c = by_id.get(cid)
        if c is None or cid in seen:
            return "deterministic"
        k = c.get("kind", "deterministic")
        if c.get("same_as") and c["same_as"] in by_id:
            k = kind(c["same_as"], seen | {cid})
        elif k == "derived":
            deps = c.get("depends_on") or []
            deps = [deps] if isinstance(deps, str) else deps
            k = "bootstrap" if any(kind(d, seen | {cid}) == "bootstrap" for d in deps) else "deterministic"
        elif k != "bootstrap":
            k = "deterministic"
        memo[cid] = k
        return k

    return {cid: kind(cid) for cid in by_id}


def judge_kind(c: dict, effective: dict[str, str]) -> str:
    """The rule a canonical claim is judged by: its manifest kind, or ``bootstrap-derived``.

    >>> judge_kind({"id": "h", "kind": "derived"}, {"h": "bootstrap"})
    'bootstrap-derived'
    """
    if c.get("kind") == "derived" and effective.get(c["id"]) == "bootstrap":
        return "bootstrap-derived"
    return c.get("kind", "deterministic")


def _half_unit(c: dict) -> float:
    return 0.5 * 10.0 ** (-int(c.get("decimals") or 0))


def mc_se(c: dict, by_id: dict[str, dict], n_boot: int = N_BOOT_PAPER) -> float | None:
    """The Monte-Carlo standard error of an ``n_boot``-draw bootstrap estimate of claim ``c``.

    For a bootstrap p-value (``unit: p_value`` or an id ending ``_p_raw``) it is ``sqrt(p(2-p)/B)``: the book's
    p-values are two-sided, ``2 x`` the smaller tail share ``s`` of B draws, so ``Var = 4 s(1-s)/B`` with
    ``s = p/2``.  For a percentile-interval end point it is ``sqrt(q(1-q)/B) / f(x_q)`` with q = 0.025 and the
    bootstrap distribution taken as normal with the SD the printed interval implies (its width / (2 x 1.96));
    about 0.06 SD at B = 2,000 (the seed study replaces this density by the one measured from the draws).
    ``None`` when neither applies (no partner end point is known).

    Reference: Efron & Tibshirani (1993), section 19.3; Hall (1986); Koehler, Brown & Haneuse (2009),
    "On the assessment of Monte Carlo error in simulation-based statistical analyses", Am. Stat. 63, 155-162.

    >>> by_id = {"a_ci_lo": {"id": "a_ci_lo", "value": 0.722, "decimals": 3},
    ...          "a_ci_hi": {"id": "a_ci_hi", "value": 0.770, "decimals": 3}}
    >>> round(mc_se(by_id["a_ci_hi"], by_id), 5)
    0.00073
    """
    cid = c["id"]
    if c.get("unit") == "p_value" or cid.endswith("_p_raw"):
        return p_value_se(float(c["value"]), n_boot)
    for lo_s, hi_s in (("_ci_lo", "_ci_hi"), ("_ci_hi", "_ci_lo")):
        if cid.endswith(lo_s):
            partner = by_id.get(cid[: -len(lo_s)] + hi_s)
            if partner is not None:
                sd = abs(float(partner["value"]) - float(c["value"])) / (2 * Z975)
                return math.sqrt(Q_END * (1 - Q_END) / n_boot) * sd / _PHI_Z975
    return None


def mc_tolerance(c: dict, by_id: dict[str, dict], n_boot: int = N_BOOT_PAPER) -> float:
    """Half a printed unit + 3 Monte-Carlo SEs (:func:`mc_se`) of an ``n_boot``-draw bootstrap estimate of ``c``.

    Without a known partner end point (no SE) the tolerance is one printed unit.

    >>> by_id = {"a_ci_lo": {"id": "a_ci_lo", "value": 0.722, "decimals": 3},
    ...          "a_ci_hi": {"id": "a_ci_hi", "value": 0.770, "decimals": 3}}
    >>> round(mc_tolerance(by_id["a_ci_hi"], by_id), 4)
    0.0027
    """
    se = mc_se(c, by_id, n_boot)
    return 2 * _half_unit(c) if se is None else _half_unit(c) + K_SE * se


def p_value_se(p: float, n_boot: int = N_BOOT_PAPER) -> float:
    """Monte-Carlo SE of a two-sided bootstrap p-value ``p = 2 x min(tail share)`` of ``n_boot`` draws.

    Definition: ``sqrt(p (2 - p) / B)`` (the tail share ``s = p/2`` is a binomial proportion, ``Var(2s) = 4
    s(1-s)/B``), about 1.4 x the ``sqrt(p(1-p)/B)`` of a one-sided p.  Reference: Koehler, Brown & Haneuse (2009).

    >>> round(p_value_se(0.042), 5), round(p_value_se(0.042) / math.sqrt(0.042 * 0.958 / 2000), 3)
    (0.00641, 1.43)
    """
    p = min(max(float(p), 0.0), 1.0)
    return math.sqrt(max(p * (2 - p), 1e-12) / n_boot)


def _deps(c: dict) -> list[str]:
    deps = c.get("depends_on") or []
    return [deps] if isinstance(deps, str) else list(deps)


def _holm_weights(c: dict, x: dict[str, float]) -> dict[str, float]:
    """Holm (1979) step-down over the family ``depends_on``: the adjusted p of ``adjusts`` is
    ``max_{j <= rank} min(1, (m - j + 1) p_(j))``; the input that attains the maximum sets it, with weight
    ``m - j + 1`` (0 when the cap at 1 binds)."""
    target = c.get("adjusts")
    fam = _deps(c)
    if target not in fam:
        raise ValueError(f"claim {c['id']}: derivation 'holm' needs 'adjusts', one of its depends_on {fam}")
    order = sorted(fam, key=lambda k: (x[k], k))
    best, who, mult = -1.0, target, 1
    for j, k in enumerate(order):
        v = min(1.0, (len(order) - j) * x[k])
        if v > best:
            best, who, mult = v, k, len(order) - j
        if k == target:
            break
    return {who: 0.0 if best >= 1.0 else float(mult)}


def _holm_value(c: dict, x: dict[str, float]) -> float:
    w = _holm_weights(c, x)
    ((k, mult),) = w.items()
    return 1.0 if mult == 0 else mult * x[k]


def _select_weights(c: dict, x: dict[str, float], pick) -> dict[str, float]:
    fam = _deps(c)
    return {pick(fam, key=lambda k: x[k]): 1.0}


#: How a derived claim depends on its inputs (``derivation`` in the manifest): for each, what it computes,
#: ``weights(claim, input values) -> {input id: d claim / d input}`` over the inputs that determine it, and
#: ``value(claim, input values)`` (used to carry ideal input values over to the derived claim).
DERIVATIONS: dict[str, tuple[str, Any, Any]] = {
    "holm": (
        "a Holm-adjusted p-value: the raw p-value that sets the adjusted value (the maximum of the step-down "
        "chain), times its Holm multiplier m - j + 1 (m = 2 here: the smaller raw p is doubled)",
        _holm_weights,
        _holm_value,
    ),
    "difference": (
        "a difference a - b of two inputs: both, with weights +1 and -1",
        lambda c, x: {_deps(c)[0]: 1.0, _deps(c)[1]: -1.0},
        lambda c, x: x[_deps(c)[0]] - x[_deps(c)[1]],
    ),
    "linear": (
        "a linear combination sum_i c_i x_i with the manifest's `coefficients`: every input, with weight c_i",
        lambda c, x: {k: float(v) for k, v in c["coefficients"].items()},
        lambda c, x: sum(float(v) * x[k] for k, v in c["coefficients"].items()),
    ),
    "count_excluding": (
        "the number of intervals (pairs of *_ci_lo, *_ci_hi inputs) that exclude `threshold`: no Monte-Carlo "
        "term (tol = half a unit), so the count must print exactly",
        lambda c, x: {},
        lambda c, x: float(
            sum(
                (x[lo] > c["threshold"]) or (x[lo[: -len("_lo")] + "_hi"] < c["threshold"])
                for lo in _deps(c)
                if lo.endswith("_ci_lo")
            )
        ),
    ),
    "min": (
        "the smallest input: the input that is smallest, with weight 1",
        lambda c, x: _select_weights(c, x, min),
        lambda c, x: min(x.values()),
    ),
    "max": (
        "the largest input: the input that is largest, with weight 1",
        lambda c, x: _select_weights(c, x, max),
        lambda c, x: max(x.values()),
    ),
}


def derive(m: Manifest, claim_id: str, values: dict[str, float]) -> float:
    """The value of a derived claim with a declared ``derivation``, from its inputs' values (all needed).

    >>> m = Manifest([{"id": "a_p_raw", "kind": "bootstrap", "value": 0.064},
    ...               {"id": "b_p_raw", "kind": "bootstrap", "value": 0.042},
    ...               {"id": "h", "kind": "derived", "derivation": "holm", "adjusts": "a_p_raw",
    ...                "depends_on": ["a_p_raw", "b_p_raw"], "value": 0.085, "decimals": 3}])
    >>> round(derive(m, "h", {"a_p_raw": 0.064, "b_p_raw": 0.0485}), 4)
    0.097
    """
    c = m.canonical(claim_id)
    return float(DERIVATIONS[c["derivation"]][2](c, {d: float(values[d]) for d in _deps(c)}))


def determining_inputs(m: Manifest, claim_id: str, values: dict[str, Any] | None = None) -> dict[str, float]:
    """``{input id: weight}``: the inputs that determine a bootstrap-derived claim and how strongly.

    The claim's ``derivation`` (a key of :data:`DERIVATIONS`) is applied to the recomputed input values in
    ``values`` (the derivation as this build ran it); an input missing from ``values`` takes its printed
    value.  A bootstrap-derived claim without a known ``derivation`` is an error naming the claim.

    >>> m = Manifest([{"id": "a_p_raw", "kind": "bootstrap", "value": 0.064},
    ...               {"id": "b_p_raw", "kind": "bootstrap", "value": 0.042},
    ...               {"id": "h", "kind": "derived", "derivation": "holm", "adjusts": "a_p_raw",
    ...                "depends_on": ["a_p_raw", "b_p_raw"], "value": 0.085, "decimals": 3}])
    >>> determining_inputs(m, "h"), determining_inputs(m, "h", {"a_p_raw": 0.2})
    ({'b_p_raw': 2.0}, {'a_p_raw': 1.0})
    """
    c = m.canonical(claim_id)
    how = c.get("derivation")
    if how not in DERIVATIONS:
        raise ValueError(
            f"claim {c['id']}: a derived claim with bootstrap inputs needs 'derivation', one of {sorted(DERIVATIONS)}"
            f" (found {how!r}), so that its tolerance can be propagated from its inputs"
        )
    x: dict[str, float] = {}
    for d in _deps(c):
        v = (values or {}).get(d)
        x[d] = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else float(m.by_id[d]["value"])
    return DERIVATIONS[how][1](c, x)


def mc_correlation(a: str, b: str) -> float:
    """The correlation of the Monte-Carlo errors of two claims estimated from one set of draws.

    Two end points of one percentile interval (``X_ci_lo``, ``X_ci_hi``) are the q and 1 - q sample quantiles of
    the same draws, whose asymptotic covariance is ``q (1 - (1-q)) / (B f_lo f_hi)``: correlation
    ``q / (1 - q)`` (1/39 for a 95 % interval).  Any other pair is taken as uncorrelated (separate streams).
    Reference: the joint asymptotic normality of sample quantiles (Serfling 1980, section 2.3.3).

    >>> round(mc_correlation("x_ci_lo", "x_ci_hi"), 4), mc_correlation("x_ci_lo", "y_ci_hi")
    (0.0256, 0.0)
    """
    if a == b:
        return 1.0
    for lo_s, hi_s in (("_ci_lo", "_ci_hi"), ("_ci_hi", "_ci_lo")):
        if a.endswith(lo_s) and b == a[: -len(lo_s)] + hi_s:
            return Q_END / (1 - Q_END)
    return 0.0


def propagate(weights: dict[str, float], se: dict[str, float]) -> float:
    """``sqrt(w' S w)``: the Monte-Carlo SE of ``sum_i w_i x_i`` with ``S_ij = rho_ij se_i se_j``.

    ``rho`` from :func:`mc_correlation` (first-order propagation of error; Koehler, Brown & Haneuse 2009).

    >>> round(propagate({"a_ci_hi": 1.0, "a_ci_lo": -1.0}, {"a_ci_hi": 0.003, "a_ci_lo": 0.004}), 6)
    0.004938
    """
    ids = list(weights)
    var = 0.0
    for i in ids:
        for j in ids:
            var += weights[i] * weights[j] * mc_correlation(i, j) * se[i] * se[j]
    return math.sqrt(max(var, 0.0))


def monte_carlo_se(
    m: Manifest,
    claim_id: str,
    values: dict[str, Any] | None = None,
    n_boot: int = N_BOOT_PAPER,
    measured: dict[str, float] | None = None,
) -> float | None:
    """The Monte-Carlo SE of an ``n_boot``-draw estimate of a bootstrap or bootstrap-derived claim.

    A bootstrap claim: its measured SE at :data:`N_BOOT_PAPER` draws when ``measured`` (``{canonical id: SE}``,
    from the seed study) holds it, scaled by ``sqrt(N_BOOT_PAPER / n_boot)``; otherwise :func:`mc_se`.  A
    bootstrap-derived claim: first-order propagation from the inputs that determine it, ``sqrt(w' S w)``
    (:func:`determining_inputs`, :func:`propagate`; each input's own SE, itself propagated when the input is
    derived).  ``None`` for a claim with no Monte-Carlo error (or none known).

    >>> m = Manifest([{"id": "a_p_raw", "kind": "bootstrap", "value": 0.05}])
    >>> round(monte_carlo_se(m, "a_p_raw"), 5), monte_carlo_se(m, "a_p_raw", measured={"a_p_raw": 0.01}, n_boot=8000)
    (0.00698, 0.005)
    """
    c = m.canonical(claim_id)
    rule = judge_kind(c, m.effective)
    if rule == "bootstrap":
        if measured and c["id"] in measured and measured[c["id"]] is not None:
            return float(measured[c["id"]]) * math.sqrt(N_BOOT_PAPER / n_boot)
        return mc_se(c, m.by_id, n_boot)
    if rule == "bootstrap-derived":
        w = determining_inputs(m, c["id"], values)
        ses: dict[str, float] = {}
        for d in w:
            se = monte_carlo_se(m, d, values, n_boot, measured)
            if se is None:
                return None
            ses[d] = se
        return propagate(w, ses)
    return None


def ideal_mc_error(
    m: Manifest,
    claim_id: str,
    n_boot: int | None,
    seeds: int | None,
    sd: float | None = None,
    measured: dict[str, float] | None = None,
) -> float | None:
    """The Monte-Carlo error of an ideal (large-B) value: the mean over ``seeds`` runs of ``n_boot`` draws.

    ``sd / sqrt(seeds)`` when the generator recorded the between-seed SD ``sd``; otherwise the analytic
    SE of one ``n_boot``-draw estimate (:func:`monte_carlo_se`) divided by ``sqrt(seeds)``.  ``None`` when
    neither is known.

    >>> m = Manifest([{"id": "a_p_raw", "kind": "bootstrap", "value": 0.05}])
    >>> round(ideal_mc_error(m, "a_p_raw", 4000, 10), 6), ideal_mc_error(m, "a_p_raw", 4000, 4, sd=0.002)
    (0.001561, 0.001)
    """
    k = max(int(seeds or 1), 1)
    if sd is not None and k > 1:
        return float(sd) / math.sqrt(k)
    if not n_boot:
        return None
    se = monte_carlo_se(m, claim_id, None, int(n_boot), measured)
    return None if se is None else se / math.sqrt(k)


def tolerance(
    m: Manifest, claim_id: str, values: dict[str, Any] | None = None, measured: dict[str, float] | None = None
) -> float | None:
    """The Monte-Carlo tolerance claim ``claim_id`` is held to, or ``None`` for an exact (digit) rule.

    Half a printed unit + 3 x :func:`monte_carlo_se` (the measured SE of ``measured`` where given; for a
    bootstrap-derived claim the SE propagated from the inputs that determine it, with the recomputed input
    values in ``values`` deciding which inputs those are); one printed unit when no SE is known.

    >>> m = Manifest([{"id": "a_p_raw", "kind": "bootstrap", "value": 0.064, "decimals": 3},
    ...               {"id": "b_p_raw", "kind": "bootstrap", "value": 0.042, "decimals": 3},
    ...               {"id": "h", "kind": "derived", "derivation": "holm", "adjusts": "a_p_raw",
    ...                "depends_on": ["a_p_raw", "b_p_raw"], "value": 0.085, "decimals": 3}])
    >>> round(tolerance(m, "h", {"a_p_raw": 0.064, "b_p_raw": 0.057}), 4)
    0.039
    """
    c = m.canonical(claim_id)
    if judge_kind(c, m.effective) not in ("bootstrap", "bootstrap-derived"):
        return None
    se = monte_carlo_se(m, c["id"], values, N_BOOT_PAPER, measured)
    return 2 * _half_unit(c) if se is None else _half_unit(c) + K_SE * se


def threshold(m: Manifest, claim_id: str) -> float | None:
    """The threshold a claim's reading rests on, or ``None``: what a number must not cross unmarked.

    A p-value (``unit: p_value``): :data:`ALPHA`.  A number the paper prints with a sign (``+0.002``,
    ``-0.170``: a difference, a gap): 0.  An AUROC the paper prints unsigned (``unit: auroc`` and ``auroc`` in
    the canonical id): 0.5, chance.  Anything else (counts, SEs, calibration numbers): none.

    >>> m = load_manifest()
    >>> threshold(m, "ladder_core_vs_off_delta_ci_lo"), threshold(m, "t1_alibaba_self_auroc_ci_lo")
    (0.0, 0.5)
    >>> threshold(m, "ladder_core_vs_off_p_raw"), threshold(m, "ladder_power_se")
    (0.05, None)
    """
    c = m.by_id[claim_id]
    canon = m.canonical(claim_id)
    if isinstance(c.get("value"), str) or canon.get("kind") == "external":
        return None
    if canon.get("unit") == "p_value":
        return ALPHA
    if str(c.get("printed", "")).lstrip()[:1] in ("+", "-", "\u2212"):
        return 0.0
    if canon.get("unit") == "auroc" and "auroc" in canon["id"]:
        return 0.5
    return None


def crosses(printed: float, x: float, t: float) -> bool:
    """Whether ``x`` lies on another side of ``t`` than ``printed`` (at ``t`` itself counts as another side).

    >>> crosses(0.002, -0.0016, 0.0), crosses(0.042, 0.057, 0.05), crosses(0.085, 0.114, 0.05)
    (True, True, False)
    """
    return (printed < t) != (x < t) or (printed > t) != (x > t)


def rules() -> list[dict[str, str]]:
    """Every rule the audit applies, as ``[{"rule": name, "statement": text}]``: the audit page prints this list.

    The statements are built from the constants the code uses (:data:`N_BOOT_PAPER`, :data:`K_SE`,
    :data:`UNLUCKY_MARGIN_SE`, :data:`DERIVATIONS`), so the page cannot state a rule the code does not apply.

    >>> [r["rule"] for r in rules()][:3]
    ['printed form', 'match', 'deterministic']
    """
    deriv = "; ".join(f"*{k}*: {text}" for k, (text, *_) in DERIVATIONS.items())
    return [{"rule": r["rule"], "statement": _plain(r["statement"])} for r in _rule_list(deriv)]


def _plain(text: str) -> str:
    """Statements are shown in table cells as plain text: *term* -> 'term', `code` -> code."""
    import re

    return re.sub(r"\*([A-Za-z][^*]*?)\*", r"'\1'", text).replace("`", "")


def _rule_list(deriv: str) -> list[dict[str, str]]:
    """The rules of :func:`rules` with their statements in markup, ``deriv`` naming each derivation.

    Over 80 lines on purpose: it is a table of rules that the audit page reads from top to bottom, and cutting
    it into steps would scatter that order over several functions.
    """
    return [
        {
            "rule": "printed form",
            "statement": "a recomputed value is formatted with the printed number of decimals (`format(x, '.{d}f')`, "
            "-0 shown as 0), as a reader sees it",
        },
        {
            "rule": "match",
            "statement": "a claim matches when its printed form equals the paper's printed value; a claim the paper "
            "prints as words (a panel's members, a phrase) matches when the glued text is the same, case and "
            "spacing aside",
        },
        {
            "rule": "deterministic",
            "statement": "a deterministic claim, or a derived claim whose inputs are all deterministic, that prints "
            "differently is a *mismatch*",
        },
        {
            "rule": "bootstrap tolerance",
            "statement": "a bootstrap claim (interval end point, bootstrap p-value) that prints differently is *within "
            f"tolerance* when |recomputed - printed| <= tol, else *outside tolerance*; tol = half a printed unit + "
            f"{K_SE} Monte-Carlo SEs of a {N_BOOT_PAPER:,}-draw estimate",
        },
        {
            "rule": "Monte-Carlo SE",
            "statement": "two-sided bootstrap p-value (2 x the smaller tail share): sqrt(p(2-p)/B); interval end point "
            f"(the q quantile of B draws, q = {Q_END} or {1 - Q_END}): sqrt(q(1-q)/B)/f(x_q) with f the bootstrap "
            "density at the end point, measured by the seed study from the pooled draws of its K seeds (without a "
            "study: a normal density with the SD the printed interval implies, width / (2 x 1.96)); an end point "
            "with neither gets one printed unit as its whole tolerance",
        },
        {
            "rule": "derived tolerance",
            "statement": "a derived claim with bootstrap inputs declares its derivation; its SE is propagated to first "
            "order from the inputs that determine it, SE = sqrt(sum_ij w_i w_j rho_ij SE_i SE_j) (rho = q/(1-q) "
            "between the two end points of one interval, else 0), deciding which inputs those are on this build's "
            f"recomputed inputs; tol = its own half printed unit + {K_SE} x SE. Derivations: {deriv}",
        },
        {
            "rule": "seed study",
            "statement": "every bootstrap claim's section function is run at K other seeds from the book's one seed "
            "stream (stream(page seed, 'seed-study')); the SD of its K values checks the SE above, and the page "
            "value's z = (value - mean) / SD places it in its own seed distribution",
        },
        {
            "rule": "crosses threshold",
            "statement": "a number that prints differently on the other side of a threshold the paper's reading rests "
            f"on (0 for a number printed with a sign, 0.5 for an AUROC, alpha = {ALPHA} for a p-value) is *crosses "
            "threshold*, whatever its tolerance (a failing status, marked loudly on every surface)",
        },
        {
            "rule": "repeats",
            "statement": "a repeat (`same_as`) must be glued under its own id by its own page with the canonical "
            "value (`transform: negate` flips the sign) and is judged like its canonical claim",
        },
        {
            "rule": "quoted",
            "statement": "an external claim (no row-level source in the shipped data: human spot-check, cross-family "
            "audit, external-judge scores, swap extension, protocol constants) is quoted from the quoted-facts file, "
            "never computed; a number computable from shipped rows is never external",
        },
        {
            "rule": "pending / unglued",
            "statement": "a claim of a section with no executed page is *pending*; a built section's claim that no "
            "page glued is *unglued* (a failure)",
        },
        {
            "rule": "failing",
            "statement": "failing statuses: "
            + ", ".join(sorted(FAILING))
            + "; marked in the text: "
            + ", ".join(sorted(MARKED)),
        },
        {
            "rule": "ideal value's error",
            "statement": "an ideal value (mean of k runs of B draws) has Monte-Carlo error SD_between_seeds / sqrt(k) "
            "where the generator recorded that SD, else the analytic SE of a B-draw estimate / sqrt(k)",
        },
        {
            "rule": "verdict on a failing number",
            "statement": "*conflict* only when a proven bound excludes the print by more than the tolerance; "
            "otherwise, with an ideal value: when |ideal - printed| lies within "
            f"{UNLUCKY_MARGIN_SE} of the ideal's own errors of the tolerance (or that error is unknown), "
            "*undetermined*; inside by more, *unlucky draw* when the page value is plausible under its seed "
            f"distribution (|z| <= {PLAUSIBLE_Z}), else *unexplained*; outside by more, *a closer data set exists* "
            "(a bound inside the tolerance) or *the ideal value is itself off*; without a note, *no reconstruction "
            "note*",
        },
    ]


def card_rules() -> str:
    """The judging rule in one paragraph, for a data card (the cards print this text: one source).

    >>> "half a printed unit" in card_rules()
    True
    """
    by = {r["rule"]: r["statement"] for r in rules()}
    return (
        "Statuses come from `selfconf.claims.judging` (the audit's rule). "
        + ". ".join(by[k][0].upper() + by[k][1:] for k in ("match", "deterministic", "bootstrap tolerance"))
        + ". Monte-Carlo SE: "
        + by["Monte-Carlo SE"]
        + ". "
        + by["derived tolerance"][0].upper()
        + by["derived tolerance"][1:]
        + ". A fidelity file records each claim's tolerance and status as judged when it was written; the "
        "reconstruction page and the audit re-judge every recorded value by this rule."
    )


@dataclass
class Judgement:
    """The verdict on one number: ``status`` (a key of :data:`STATUSES`), ``rule`` (``exact``,
    ``monte-carlo`` or ``quoted``), ``shows`` (the value as printed with the paper's decimals),
    ``printed``, ``tolerance`` (Monte-Carlo rule only), ``difference`` (recomputed - printed value),
    ``threshold`` (:func:`threshold`) and ``tolerance_status`` (the status the tolerance alone gives, kept when
    the status is ``crosses_threshold``)."""

    status: str
    rule: str
    shows: str | None
    printed: str
    tolerance: float | None = None
    difference: float | None = None
    threshold: float | None = None
    tolerance_status: str | None = None

    @property
    def marked(self) -> bool:
        """True when the number does not print as the paper prints it (the page marks it)."""
        return self.status in MARKED


def _target(m: Manifest, claim_id: str) -> float:
    """The printed value of ``claim_id`` (its own ``value``, which already carries a repeat's sign)."""
    return float(m.by_id[claim_id]["value"])


def judge(
    m: Manifest,
    claim_id: str,
    x: Any,
    *,
    quoted: bool = False,
    values: dict[str, Any] | None = None,
    measured: dict[str, float] | None = None,
) -> Judgement:
    """Judge the recomputed value ``x`` of ``claim_id`` by the module's rule.

    ``quoted`` says whether an external claim was glued from the quoted-facts file; ``values`` holds the
    recomputed values of other claims (a derived claim's inputs decide its tolerance); ``measured`` the
    seed study's Monte-Carlo SEs (:func:`monte_carlo_se`).  ``x`` that is ``None`` or NaN gives
    ``not_computed``; a value that is not a number gives ``mismatch``.  A number that prints differently on
    another side of its :func:`threshold` than the print is ``crosses_threshold`` (its tolerance's verdict in
    ``tolerance_status``).

    >>> m = Manifest([{"id": "a_ci_lo", "kind": "bootstrap", "value": 0.722, "decimals": 3, "printed": "0.722"},
    ...               {"id": "a_ci_hi", "kind": "bootstrap", "value": 0.770, "decimals": 3, "printed": "0.770"}])
    >>> judge(m, "a_ci_hi", 0.7702).status, judge(m, "a_ci_hi", 0.7720).status, judge(m, "a_ci_hi", 0.7745).status
    ('match', 'within_tolerance', 'outside_tolerance')
    >>> j = judge(load_manifest(), "ladder_core_vs_off_delta_ci_lo", -0.0016)
    >>> j.status, j.tolerance_status, j.threshold
    ('crosses_threshold', 'within_tolerance', 0.0)
    """
    c = m.by_id[claim_id]
    canon = m.canonical(claim_id)
    printed = str(c.get("printed", c.get("value")))
    if canon.get("kind") == "external":
        return Judgement("quoted" if quoted else "not_quoted", "quoted", None, printed)
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return Judgement("not_computed", "exact", None, printed)
    if isinstance(c.get("value"), str):  # a printed word or list (a panel's members): the same text, case aside
        same = " ".join(str(x).casefold().split()) == " ".join(c["value"].casefold().split())
        return Judgement("match" if same else "mismatch", "exact", str(x), printed)
    try:
        xf = float(x)
    except (TypeError, ValueError):
        return Judgement("mismatch", "exact", str(x), printed)
    d = int(c.get("decimals") or 0)
    target = _target(m, claim_id)
    shows = fmt(xf, d)
    tol = tolerance(m, claim_id, values, measured)
    diff = xf - target
    t = threshold(m, claim_id)
    if shows == fmt(target, d):
        return Judgement("match", "exact" if tol is None else "monte-carlo", shows, printed, tol, diff, t, "match")
    if tol is None:
        status = "mismatch"
    else:
        status = "within_tolerance" if abs(diff) <= tol + 1e-12 else "outside_tolerance"
    final = "crosses_threshold" if t is not None and crosses(target, xf, t) else status
    return Judgement(final, "exact" if tol is None else "monte-carlo", shows, printed, tol, diff, t, status)


def fidelity_record(m: Manifest, claim_id: str, x: Any, values: dict[str, Any] | None = None) -> dict:
    """One entry of a generator's fidelity file (the schema every generator writes).

    Keys: ``id``, ``kind`` (manifest kind), ``rule``, ``printed``, ``target`` (printed value, float),
    ``decimals``, ``recomputed``, ``shows``, ``status``, and for the Monte-Carlo rule ``tolerance`` and
    ``difference``; ``same_as`` for a repeat.

    >>> m = Manifest([{"id": "n", "kind": "deterministic", "value": 12, "decimals": 0, "printed": "12"}])
    >>> fidelity_record(m, "n", 12)["status"]
    'match'
    """
    c = m.by_id[claim_id]
    canon = m.canonical(claim_id)
    j = judge(m, claim_id, x, values=values)
    rec: dict[str, Any] = {
        "id": claim_id,
        "kind": canon.get("kind", "deterministic"),
        "rule": j.rule,
        "printed": str(c.get("printed", c.get("value"))),
    }
    if canon.get("kind") == "external":
        rec["status"] = "external"
        return rec
    rec.update(
        {
            "target": c["value"] if isinstance(c.get("value"), str) else _target(m, claim_id),
            "decimals": int(c.get("decimals") or 0),
            "recomputed": None if x is None else (x if isinstance(x, str) else float(x)),
            "shows": j.shows,
            "status": j.status,
        }
    )
    if c.get("same_as"):
        rec["same_as"] = c["same_as"]
    if j.tolerance is not None:
        rec["tolerance"] = j.tolerance
        rec["difference"] = j.difference
    return rec


def fidelity_records(m: Manifest, values: dict[str, Any]) -> dict[str, dict]:
    """:func:`fidelity_record` for every ``claim id: value`` of ``values``, keyed by id (sorted)."""
    return {
        cid: {k: v for k, v in fidelity_record(m, cid, values[cid], values).items() if k != "id"}
        for cid in sorted(values)
    }


def conflict_excludes(m: Manifest, claim_id: str, closest: float) -> tuple[bool, float, float | None]:
    """Does a bound exclude the printed value of ``claim_id``?

    ``closest`` is the value nearest the print that any data consistent with the other published
    numbers can reach (a generator's proven bound).  Returns ``(excludes, gap, tolerance)``: ``gap`` is
    ``|closest - printed|``; the bound excludes the print when the gap exceeds the claim's tolerance (the
    Monte-Carlo tolerance, or half a printed unit for an exact claim).  Only then may a number be called
    a *conflict among published numbers*.

    >>> m = Manifest([{"id": "a_ci_lo", "kind": "bootstrap", "value": 0.722, "decimals": 3},
    ...               {"id": "a_ci_hi", "kind": "bootstrap", "value": 0.770, "decimals": 3}])
    >>> conflict_excludes(m, "a_ci_hi", 0.7716)[0], conflict_excludes(m, "a_ci_hi", 0.7740)[0]
    (False, True)
    """
    tol = tolerance(m, claim_id)
    limit = tol if tol is not None else _half_unit(m.canonical(claim_id))
    gap = abs(float(closest) - _target(m, claim_id))
    return gap > limit + 1e-12, gap, limit


def as_dict(j: Judgement) -> dict:
    """The judgement as a plain dict (for JSON)."""
    return asdict(j)
