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
  2,000-draw estimate (:func:`mc_tolerance`).  A bootstrap-derived claim takes the largest tolerance of
  its inputs, doubled for a Holm adjustment (it multiplies the smallest p-value by up to m = 2).
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
    "effective_kinds",
    "judge_kind",
    "mc_tolerance",
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
_PHI_Z975 = math.exp(-0.5 * Z975**2) / math.sqrt(2 * math.pi)

#: Every status a claim can have, with what it means to a reader.
STATUSES = {
    "match": "prints exactly as the paper prints",
    "mismatch": "a deterministic number that prints differently from the paper",
    "within_tolerance": "a Monte-Carlo number that prints differently from the paper, within its tolerance",
    "outside_tolerance": "a Monte-Carlo number outside its tolerance",
    "quoted": "quoted from the paper, not computed",
    "not_quoted": "an external number that was not glued from the quoted-facts file",
    "unglued": "a claim of a built section that no notebook glued",
    "pending": "its section has not been built",
    "not_computed": "the generator could not compute it",
}
#: Statuses that fail the audit.
FAILING = frozenset({"mismatch", "outside_tolerance", "unglued", "not_quoted"})
#: Statuses whose number does not print as the paper prints: marked in the page text.
MARKED = frozenset({"mismatch", "within_tolerance", "outside_tolerance"})


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


def mc_tolerance(c: dict, by_id: dict[str, dict], n_boot: int = N_BOOT_PAPER) -> float:
    """Half a printed unit + 3 Monte-Carlo SEs of an ``n_boot``-draw bootstrap estimate of claim ``c``.

    For a bootstrap p-value the SE is ``sqrt(p(1-p)/B)``.  For a percentile-interval end point it is
    ``sqrt(q(1-q)/B) / f(x_q)`` with q = 0.025 and the bootstrap distribution taken as normal with the SD
    the printed interval implies (its width / (2 x 1.96)); about 0.06 SD at B = 2,000.  Without a known
    partner end point the tolerance is one printed unit.

    >>> by_id = {"a_ci_lo": {"id": "a_ci_lo", "value": 0.722, "decimals": 3},
    ...          "a_ci_hi": {"id": "a_ci_hi", "value": 0.770, "decimals": 3}}
    >>> round(mc_tolerance(by_id["a_ci_hi"], by_id), 4)
    0.0027
    """
    half_unit = 0.5 * 10.0 ** (-int(c.get("decimals") or 0))
    cid = c["id"]
    if c.get("unit") == "p_value" or cid.endswith("_p_raw"):
        p = float(c["value"])
        return half_unit + 3 * math.sqrt(max(p * (1 - p), 1e-12) / n_boot)
    for lo_s, hi_s in (("_ci_lo", "_ci_hi"), ("_ci_hi", "_ci_lo")):
        if cid.endswith(lo_s):
            partner = by_id.get(cid[: -len(lo_s)] + hi_s)
            if partner is not None:
                sd = abs(float(partner["value"]) - float(c["value"])) / (2 * Z975)
                q = 0.025
                return half_unit + 3 * math.sqrt(q * (1 - q) / n_boot) * sd / _PHI_Z975
    return 2 * half_unit


def tolerance(m: Manifest, claim_id: str) -> float | None:
    """The Monte-Carlo tolerance claim ``claim_id`` is held to, or ``None`` for an exact (digit) rule."""
    c = m.canonical(claim_id)
    rule = judge_kind(c, m.effective)
    if rule == "bootstrap":
        return mc_tolerance(c, m.by_id)
    if rule == "bootstrap-derived":
        deps = c.get("depends_on") or []
        deps = [deps] if isinstance(deps, str) else deps
        tols = [mc_tolerance(m.by_id[d], m.by_id) for d in deps if d in m.by_id]
        tol = max(tols) if tols else mc_tolerance(c, m.by_id)
        return tol * (2 if "holm" in c["id"] else 1)
    return None


@dataclass
class Judgement:
    """The verdict on one number: ``status`` (a key of :data:`STATUSES`), ``rule`` (``exact``,
    ``monte-carlo`` or ``quoted``), ``shows`` (the value as printed with the paper's decimals),
    ``printed``, ``tolerance`` (Monte-Carlo rule only), ``difference`` (recomputed - printed value)."""

    status: str
    rule: str
    shows: str | None
    printed: str
    tolerance: float | None = None
    difference: float | None = None

    @property
    def marked(self) -> bool:
        """True when the number does not print as the paper prints it (the page marks it)."""
        return self.status in MARKED


def _target(m: Manifest, claim_id: str) -> float:
    """The printed value of ``claim_id`` (its own ``value``, which already carries a repeat's sign)."""
    return float(m.by_id[claim_id]["value"])


def judge(m: Manifest, claim_id: str, x: Any, *, quoted: bool = False) -> Judgement:
    """Judge the recomputed value ``x`` of ``claim_id`` by the module's rule.

    ``quoted`` says whether an external claim was glued from the quoted-facts file.  ``x`` that is
    ``None`` or NaN gives ``not_computed``; a value that is not a number gives ``mismatch``.

    >>> m = Manifest([{"id": "a_ci_lo", "kind": "bootstrap", "value": 0.722, "decimals": 3, "printed": "0.722"},
    ...               {"id": "a_ci_hi", "kind": "bootstrap", "value": 0.770, "decimals": 3, "printed": "0.770"}])
    >>> judge(m, "a_ci_hi", 0.7702).status, judge(m, "a_ci_hi", 0.7720).status, judge(m, "a_ci_hi", 0.7745).status
    ('match', 'within_tolerance', 'outside_tolerance')
    """
    c = m.by_id[claim_id]
    canon = m.canonical(claim_id)
    printed = str(c.get("printed", c.get("value")))
    if canon.get("kind") == "external":
        return Judgement("quoted" if quoted else "not_quoted", "quoted", None, printed)
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return Judgement("not_computed", "exact", None, printed)
    try:
        xf = float(x)
    except (TypeError, ValueError):
        return Judgement("mismatch", "exact", str(x), printed)
    d = int(c.get("decimals") or 0)
    target = _target(m, claim_id)
    shows = fmt(xf, d)
    tol = tolerance(m, claim_id)
    diff = xf - target
    if shows == fmt(target, d):
        return Judgement("match", "exact" if tol is None else "monte-carlo", shows, printed, tol, diff)
    if tol is None:
        return Judgement("mismatch", "exact", shows, printed, None, diff)
    status = "within_tolerance" if abs(diff) <= tol + 1e-12 else "outside_tolerance"
    return Judgement(status, "monte-carlo", shows, printed, tol, diff)


def fidelity_record(m: Manifest, claim_id: str, x: Any) -> dict:
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
    j = judge(m, claim_id, x)
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
            "target": _target(m, claim_id),
            "decimals": int(c.get("decimals") or 0),
            "recomputed": None if x is None else float(x),
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
    return {cid: {k: v for k, v in fidelity_record(m, cid, values[cid]).items() if k != "id"} for cid in sorted(values)}


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
    limit = tol if tol is not None else 0.5 * 10.0 ** (-int(m.canonical(claim_id).get("decimals") or 0))
    gap = abs(float(closest) - _target(m, claim_id))
    return gap > limit + 1e-12, gap, limit


def as_dict(j: Judgement) -> dict:
    """The judgement as a plain dict (for JSON)."""
    return asdict(j)
