"""Reproduction audit: every glued value against the number the paper prints.

The claim manifest (``data/paper/claims.yaml``) lists each printed number with its id, printed
token, value, decimals, section and kind.  The executed notebooks glue values under those ids
(:mod:`selfconf.glue`).  This module is one of the two places (with the reconstruction generator)
allowed to read the manifest's target values.

Rules (also stated on the audit page)
-------------------------------------
* **deterministic / derived**: the recomputed value formatted with the printed number of decimals
  (``format(x, ".{d}f")`` — exactly what the page shows the reader) must equal the printed value
  formatted the same way.  A derived claim computed from bootstrap inputs (e.g. a Holm-adjusted
  bootstrap p-value) inherits the Monte-Carlo tolerance of its inputs.
* **bootstrap**: ``|recomputed − printed| <= tol`` with ``tol = half a unit in the last printed
  digit + 3 × the Monte-Carlo standard error`` of a ``B``-draw estimate (B = 2,000).  For a
  percentile-CI endpoint the MC standard error is ``sqrt(q(1−q)/B) / f(x_q)`` with the bootstrap
  distribution approximated as normal with the printed CI's implied SD, i.e. ``≈ 0.06 × SD`` at
  B = 2,000 (Hall 1986; Efron & Tibshirani 1993, §19.3); for a bootstrap p-value ``sqrt(p(1−p)/B)``.
* **external**: quoted, never computed; must be glued from the quoted-facts file (status ``quoted``).
* a claim whose section has no executed notebook is ``pending``; a built section's claim that no
  notebook glued is ``unglued``.
* a repeat (``same_as``) must be glued under its own id by its own section's page with the canonical
  value (``transform: negate`` flips the sign); it is then judged like its canonical claim.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from .glue import QUOTED_FACTS, glued_values
from .paths import resolve

__all__ = ["SECTION_PAGES", "AuditRecord", "load_claims", "effective_kinds", "run_audit", "summarise", "write_quoted_facts", "main"]

CLAIMS = "data/paper/claims.yaml"

#: Which executed notebook (in ``book/``) carries each paper section.
SECTION_PAGES = {
    "abstract": "00_abstract",
    "introduction": "01_introduction",
    "related-work": "02_related_work",
    "design": "03_design",
    "result1": "04_result1",
    "result2": "05_result2",
    "result3": "06_result3",
    "implications": "07_implications",
    "limitations": "08_limitations",
    "conclusion": "09_conclusion",
    "diagnostic-appendix": "10_diagnostic",
    "reproducibility": "11_reproducibility",
}

N_BOOT_PAPER = 2000
Z975 = 1.959963984540054
PHI_Z975 = math.exp(-0.5 * Z975**2) / math.sqrt(2 * math.pi)

FAILING = {"mismatch", "outside_tolerance", "unglued", "not_quoted"}


@dataclass
class AuditRecord:
    id: str
    section: str
    kind: str
    printed: str
    recomputed: Any
    status: str
    page: str | None = None
    same_as: str | None = None
    tolerance: float | None = None
    detail: str = ""


def load_claims(path: str | Path = CLAIMS) -> dict:
    """Load the claim manifest; raise with the file name when it is missing or malformed."""
    p = resolve(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: claim manifest not found")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~10x faster on the 500-claim manifest
    doc = yaml.load(p.read_text(encoding="utf-8"), Loader=loader)
    if not isinstance(doc, dict) or "claims" not in doc:
        raise ValueError(f"{p}: no 'claims' list")
    return doc


def _fmt(x: float, decimals: int) -> str:
    s = format(float(x), f".{int(decimals)}f")
    return "0" + s[2:] if s.startswith("-0") and float(s) == 0 else s  # "-0.000" -> "0.000"


def _mc_tolerance(c: dict, by_id: dict) -> float:
    """Half a printed unit + 3 Monte-Carlo SEs of a 2,000-draw bootstrap estimate (module docstring)."""
    half_unit = 0.5 * 10.0 ** (-int(c.get("decimals") or 0))
    cid = c["id"]
    if c.get("unit") == "p_value" or cid.endswith("_p_raw"):
        p = float(c["value"])
        return half_unit + 3 * math.sqrt(max(p * (1 - p), 1e-12) / N_BOOT_PAPER)
    for lo_s, hi_s in (("_ci_lo", "_ci_hi"), ("_ci_hi", "_ci_lo")):
        if cid.endswith(lo_s):
            partner = by_id.get(cid[: -len(lo_s)] + hi_s)
            if partner is not None:
                sd = abs(float(partner["value"]) - float(c["value"])) / (2 * Z975)
                q = 0.025
                mcse = math.sqrt(q * (1 - q) / N_BOOT_PAPER) * sd / PHI_Z975
                return half_unit + 3 * mcse
    return 2 * half_unit  # no partner known: one printed unit


def effective_kinds(claims: list[dict]) -> dict[str, str]:
    """``{claim id: "deterministic" | "bootstrap"}``: whether a claim can move with the bootstrap seed.

    ``bootstrap`` claims can; a ``derived`` claim can when any claim it depends on can, directly or
    through other derived claims; a repeat (``same_as``) inherits its canonical claim's answer;
    ``deterministic`` and ``external`` (quoted) claims cannot.
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


def _judge_kind(c: dict, effective: dict[str, str]) -> str:
    """The rule a canonical claim is judged by: its kind, or ``bootstrap-derived`` (module docstring)."""
    if c["kind"] == "derived" and effective.get(c["id"]) == "bootstrap":
        return "bootstrap-derived"
    return c["kind"]


def run_audit(book_dir: str | Path = "book", claims_path: str | Path = CLAIMS) -> list[AuditRecord]:
    """Compare every claim with the value glued in the executed notebooks of ``book_dir``."""
    doc = load_claims(claims_path)
    claims = doc["claims"]
    by_id = {c["id"]: c for c in claims}
    effective = effective_kinds(claims)
    book = resolve(book_dir)
    glued = glued_values(book)
    built = {sec for sec, page in SECTION_PAGES.items() if (book / f"{page}.ipynb").is_file()}
    records: list[AuditRecord] = []
    for c in claims:
        canonical = by_id.get(c["same_as"]) if c.get("same_as") else c
        if canonical is None:
            raise ValueError(f"{claims_path}: claim {c['id']} has same_as {c['same_as']!r}, which is not a claim id")
        page = SECTION_PAGES.get(c["section"])
        rec = AuditRecord(
            id=c["id"], section=c["section"], kind=c["kind"], printed=str(c["printed"]),
            recomputed=None, status="pending", page=page, same_as=c.get("same_as"),
        )
        records.append(rec)
        if c["section"] not in built:
            rec.detail = f"section not built (no book/{page}.ipynb)"
            continue
        g = glued.get(c["id"])
        if g is None:
            rec.status = "unglued"
            rec.detail = "no executed notebook glued this id"
            continue
        rec.recomputed = g["value"]
        rec.detail = f"glued in {g['notebook']}"
        if c["kind"] == "external":
            flag = glued.get(f"{c['id']}__quoted", {}).get("value")
            rec.status = "quoted" if flag else "not_quoted"
            if not flag:
                rec.detail += "; external claim not glued from the quoted-facts file"
            continue
        try:
            x = float(rec.recomputed)
        except (TypeError, ValueError):
            rec.status = "mismatch"
            rec.detail += f"; glued value {rec.recomputed!r} is not a number"
            continue
        target = float(c["value"])
        judge = _judge_kind(canonical, effective)
        if judge in ("bootstrap", "bootstrap-derived"):
            src = canonical
            if judge == "bootstrap-derived":
                tols = [_mc_tolerance(by_id[d], by_id) for d in canonical.get("depends_on") or [] if d in by_id]
                tol = max(tols) if tols else _mc_tolerance(src, by_id)
                tol *= 2 if "holm" in canonical["id"] else 1  # Holm multiplies the smallest p by up to m = 2
            else:
                tol = _mc_tolerance(src, by_id)
            rec.tolerance = tol
            rec.status = "within_tolerance" if abs(x - target) <= tol + 1e-12 else "outside_tolerance"
            rec.detail += f"; |Δ| = {abs(x - target):.4g}, tol = {tol:.4g}"
        else:
            d = int(c.get("decimals") or 0)
            got, want = _fmt(x, d), _fmt(target, d)
            rec.status = "match" if got == want else "mismatch"
            if got != want:
                rec.detail += f"; shows {got}, paper prints {want}"
    return records


def summarise(records: list[AuditRecord]) -> dict:
    """Counts by status and by kind × status."""
    by_status: dict[str, int] = {}
    by_kind: dict[str, dict[str, int]] = {}
    for r in records:
        by_status[r.status] = by_status.get(r.status, 0) + 1
        k = by_kind.setdefault(r.kind, {})
        k[r.status] = k.get(r.status, 0) + 1
    return {"n_claims": len(records), "by_status": by_status, "by_kind": by_kind,
            "n_failing": sum(by_status.get(s, 0) for s in FAILING)}


def write_audit_json(records: list[AuditRecord], out: str | Path = "_build/audit.json") -> Path:
    """Write ``{"summary": ..., "claims": [record, ...]}`` to ``out``."""
    p = resolve(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"summary": summarise(records), "claims": [asdict(r) for r in records]}, indent=1),
                 encoding="utf-8")
    return p


def write_quoted_facts(claims_path: str | Path = CLAIMS, out: str | Path = QUOTED_FACTS) -> Path:
    """Extract the external (quoted) claims into the one labelled source of quoted facts."""
    doc = load_claims(claims_path)
    facts = []
    for c in doc["claims"]:
        if c["kind"] != "external" or c.get("same_as"):
            continue
        v = c["value"]
        facts.append({"id": c["id"], "value": v, "printed": str(c["printed"]), "unit": c.get("unit"),
                      "role": c.get("role", "fact"), "where": c["where"]})
    header = ("# Quoted facts: numbers the paper prints that have no row-level source anywhere (human spot-check,\n"
              "# cross-family audit, external-judge scores, swap extension) and design constants.  They are QUOTED,\n"
              "# never computed.  Extracted from claims.yaml by `python -m selfconf.audit --write-quoted`.\n")
    p = resolve(out)
    p.write_text(header + yaml.safe_dump({"facts": facts}, sort_keys=False, allow_unicode=True, width=120),
                 encoding="utf-8")
    return p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m selfconf.audit", description=__doc__.split("\n")[0])
    ap.add_argument("--book-dir", default="book")
    ap.add_argument("--out", default="_build/audit.json")
    ap.add_argument("--write-quoted", action="store_true", help="regenerate data/paper/quoted_facts.yaml and exit")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a built section has a failing claim")
    a = ap.parse_args(argv)
    if a.write_quoted:
        print(write_quoted_facts())
        return 0
    recs = run_audit(a.book_dir)
    write_audit_json(recs, a.out)
    s = summarise(recs)
    print(json.dumps(s, indent=1))
    for r in recs:
        if r.status in FAILING:
            print(f"  {r.status:18s} {r.id:45s} printed {r.printed!s:>12}  got {r.recomputed!r}  {r.detail}")
    return 1 if (a.strict and s["n_failing"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
