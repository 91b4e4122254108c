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

Why a number fails
------------------
:func:`explain_failures` pairs every failing record with the notes the reconstruction generators left
in their fidelity files (``fidelity*.json`` under the data folder): *known conflicts* (published numbers
that no data set can reproduce together under the book's rules, with the reason) and *ideal bootstrap
values* (a bootstrap claim recomputed from the reconstructed rows with many more draws, which separates a
seed's Monte-Carlo luck from rows that sit away from the printed value).  The original paper data ship
no fidelity files; every failure is then reported as having no reconstruction note.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .glue import QUOTED_FACTS, glued_values
from .paths import resolve

__all__ = ["SECTION_PAGES", "AuditRecord", "load_claims", "effective_kinds", "run_audit", "summarise", "write_quoted_facts",
           "ReconstructionNotes", "Explanation", "load_reconstruction_notes", "explain_failures", "conflict_rows", "format_evidence",
           "VERDICTS", "main"]

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


def write_audit_json(records: list[AuditRecord], out: str | Path = "_build/audit.json", *,
                     explanations: list["Explanation"] | None = None,
                     notes: "ReconstructionNotes | None" = None) -> Path:
    """Write ``{"summary": ..., "claims": [record, ...]}`` to ``out``.

    With ``explanations`` (from :func:`explain_failures`) the file also holds ``"explanations"``; with
    ``notes`` (from :func:`load_reconstruction_notes`) it holds ``"fidelity_files"`` and ``"known_conflicts"``.
    """
    doc: dict[str, Any] = {"summary": summarise(records), "claims": [asdict(r) for r in records]}
    if explanations is not None:
        doc["explanations"] = [asdict(e) for e in explanations]
    if notes is not None:
        doc["fidelity_files"] = list(notes.files)
        doc["known_conflicts"] = [dict(k) for k in notes.known_conflicts]
    p = resolve(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(doc, indent=1), encoding="utf-8")
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


# ---------------------------------------------------------------------------------------------------
# Why a number fails: the reconstruction generators' notes (fidelity files)
# ---------------------------------------------------------------------------------------------------

#: The four answers :func:`explain_failures` can give, in the order the audit page lists them.
VERDICT_CONFLICT = "known conflict among published numbers"
VERDICT_UNLUCKY = "the data's ideal value is within tolerance: this seed's draw is unlucky"
VERDICT_IDEAL_OFF = "the reconstruction's ideal value is itself off by {diff}"
VERDICT_NONE = "no reconstruction note"
VERDICTS = {"conflict": VERDICT_CONFLICT, "unlucky": VERDICT_UNLUCKY, "ideal_off": VERDICT_IDEAL_OFF,
            "none": VERDICT_NONE}

FIDELITY_PATTERN = "fidelity*.json"


@dataclass
class ReconstructionNotes:
    """What the fidelity files under a data folder say about numbers the rows cannot reproduce.

    ``files``: the fidelity files read, relative to the data folder, sorted.  ``known_conflicts``: every
    ``known_conflicts`` entry of every file, as ``{"claims", "reason", "evidence", "source"}``.
    ``ideal_bootstrap``: ``{claim id: {"value", "n_boot", "seeds", "source"}}``.
    """

    data_dir: str
    files: list[str] = field(default_factory=list)
    known_conflicts: list[dict] = field(default_factory=list)
    ideal_bootstrap: dict[str, dict] = field(default_factory=dict)


@dataclass
class Explanation:
    """One failing audit record and what the reconstruction's notes say about it.

    ``verdict_code`` is a key of :data:`VERDICTS`; ``note_id`` is the claim id under which the note was
    found (the record's own id or another printing of the same number, through ``same_as``).
    """

    id: str
    section: str
    kind: str
    status: str
    printed: str
    recomputed: Any
    tolerance: float | None
    ideal: float | None
    ideal_n_boot: int | None
    ideal_seeds: int | None
    verdict_code: str
    verdict: str
    reason: str
    evidence: dict = field(default_factory=dict)
    note_id: str | None = None
    source: str | None = None


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(float(x))


def load_reconstruction_notes(data_dir: str | Path = "data/reconstructed") -> ReconstructionNotes:
    """Read ``known_conflicts`` and ``ideal_bootstrap`` from every ``fidelity*.json`` under ``data_dir``.

    Files are searched recursively (``data_dir`` resolved with :func:`selfconf.paths.resolve`) and read in
    sorted path order.  A missing folder, a folder without fidelity files (the original paper data) or a
    file without either key gives empty notes.  Entry layout (agreed with the generators):

    * ``known_conflicts``: list of ``{"claims": [claim id, ...], "reason": str, "evidence": {name: number}}``
      (``evidence`` optional): published numbers the reconstruction cannot reproduce together, and why;
    * ``ideal_bootstrap``: ``{claim id: {"value": float, "n_boot": int, "seeds": int}}`` (``n_boot`` and
      ``seeds`` optional): the claim recomputed from the reconstructed rows with many draws.

    Malformed content raises ``ValueError`` naming the file, entry and field; nothing is skipped.  Two
    files giving different ideal values for one claim is an error too.
    """
    root = resolve(data_dir)
    notes = ReconstructionNotes(data_dir=str(data_dir))
    if not root.is_dir():
        return notes
    for path in sorted(root.rglob(FIDELITY_PATTERN)):
        if not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        notes.files.append(rel)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not valid JSON ({e})") from e
        if not isinstance(doc, dict):
            raise ValueError(f"{path}: expected a JSON object at the top level, found {type(doc).__name__}")
        conflicts = doc.get("known_conflicts", [])
        if not isinstance(conflicts, list):
            raise ValueError(f"{path}: 'known_conflicts' should be a list, found {type(conflicts).__name__}")
        for i, k in enumerate(conflicts):
            where = f"{path}: known_conflicts[{i}]"
            if not isinstance(k, dict):
                raise ValueError(f"{where}: expected an object, found {type(k).__name__}")
            ids = k.get("claims")
            if not isinstance(ids, list) or not ids or not all(isinstance(c, str) for c in ids):
                raise ValueError(f"{where}: field 'claims' should be a non-empty list of claim ids, found {ids!r}")
            reason = k.get("reason")
            if not isinstance(reason, str) or not reason.strip():
                raise ValueError(f"{where}: field 'reason' should be a non-empty string, found {reason!r}")
            evidence = k.get("evidence") or {}
            if not isinstance(evidence, dict):
                raise ValueError(f"{where}: field 'evidence' should be an object, found {type(evidence).__name__}")
            notes.known_conflicts.append({"claims": list(ids), "reason": reason.strip(), "evidence": dict(evidence),
                                          "source": rel})
        ideal = doc.get("ideal_bootstrap", {})
        if not isinstance(ideal, dict):
            raise ValueError(f"{path}: 'ideal_bootstrap' should be an object, found {type(ideal).__name__}")
        for cid, entry in ideal.items():
            where = f"{path}: ideal_bootstrap[{cid!r}]"
            if not isinstance(entry, dict) or not _is_number(entry.get("value")):
                raise ValueError(f"{where}: field 'value' should be a finite number, found "
                                 f"{entry.get('value') if isinstance(entry, dict) else entry!r}")
            for name in ("n_boot", "seeds"):
                v = entry.get(name)
                if v is not None and not (isinstance(v, int) and not isinstance(v, bool)):
                    raise ValueError(f"{where}: field {name!r} should be an integer, found {v!r}")
            new = {"value": float(entry["value"]), "n_boot": entry.get("n_boot"), "seeds": entry.get("seeds"),
                   "source": rel}
            old = notes.ideal_bootstrap.get(cid)
            if old is not None and old["value"] != new["value"]:
                raise ValueError(f"{path}: ideal_bootstrap[{cid!r}] = {new['value']!r} contradicts "
                                 f"{old['value']!r} in {root / old['source']}")
            notes.ideal_bootstrap.setdefault(cid, new)
    return notes


def _same_as_links(records: list[AuditRecord], claims: list[dict] | None) -> tuple[dict[str, str], dict[str, bool]]:
    """``({id: same_as}, {id: negated})`` from the manifest when given, completed by the records."""
    parent: dict[str, str] = {}
    negate: dict[str, bool] = {}
    for c in claims or []:
        if c.get("same_as"):
            parent[c["id"]] = c["same_as"]
            negate[c["id"]] = c.get("transform") == "negate"
    for r in records:
        if r.same_as and r.id not in parent:
            parent[r.id] = r.same_as
            negate.setdefault(r.id, False)
    return parent, negate


def _root_and_sign(cid: str, parent: dict[str, str], negate: dict[str, bool]) -> tuple[str, int]:
    """Follow ``same_as`` to the canonical claim; the sign maps the root's value onto ``cid``'s."""
    sign, seen = 1, {cid}
    while cid in parent:
        sign *= -1 if negate.get(cid) else 1
        cid = parent[cid]
        if cid in seen:
            raise ValueError(f"same_as cycle through claim {cid!r}")
        seen.add(cid)
    return cid, sign


def format_evidence(evidence: dict) -> str:
    """``"name = value; ..."`` for a conflict's evidence (numbers with 6 significant digits)."""
    parts = []
    for k, v in evidence.items():
        parts.append(f"{k} = {format(float(v), '.6g') if _is_number(v) else v}")
    return "; ".join(parts)


def explain_failures(records: list[AuditRecord], data_dir: str | Path = "data/reconstructed",
                     claims_path: str | Path | None = CLAIMS, *,
                     notes: ReconstructionNotes | None = None) -> list[Explanation]:
    """Say why each failing record fails, from the reconstruction's notes (:func:`load_reconstruction_notes`).

    One :class:`Explanation` per record whose status is in ``FAILING`` (``mismatch``, ``outside_tolerance``,
    ``unglued``, ``not_quoted``), in record order.  A record and every other printing of the same number
    (linked by ``same_as``, followed to the canonical claim) share one explanation.  The verdict, first that
    applies:

    1. ``conflict`` — one of those printings is listed in a ``known_conflicts`` entry: the published numbers
       cannot be reproduced together; ``reason`` (and ``evidence``) carry the generator's explanation
       (several entries are joined);
    2. ``unlucky`` — an ideal (large-B) value is recorded and lies within the record's tolerance of the
       printed value (``|ideal − printed| <= tolerance``; without a tolerance, the audit's digit rule): the
       rows reproduce the number, this seed's 2,000 draws do not;
    3. ``ideal_off`` — an ideal value is recorded and is itself outside: the rows, not the draw, are off,
       by ``ideal − printed`` (stated in the verdict);
    4. ``none`` — no note.

    The ideal value of another printing is carried over with its ``transform: negate`` sign.  Printed
    target values, decimals and ``same_as`` links come from the manifest at ``claims_path`` (``None``:
    the records' ``same_as`` only, and ideal values are shown but not judged).  ``data_dir`` is resolved
    with :func:`selfconf.paths.resolve`; with no fidelity file there, every verdict is ``none``.  A caller
    that has already read the notes passes them as ``notes`` (then ``data_dir`` is not read again).
    """
    if notes is None:
        notes = load_reconstruction_notes(data_dir)
    claims = load_claims(claims_path)["claims"] if claims_path is not None else None
    by_id = {c["id"]: c for c in claims or []}
    parent, negate = _same_as_links(records, claims)

    conflicts_by_root: dict[str, list[dict]] = {}
    for k in notes.known_conflicts:
        for root in dict.fromkeys(_root_and_sign(c, parent, negate)[0] for c in k["claims"]):
            conflicts_by_root.setdefault(root, []).append(k)
    ideal_by_root: dict[str, list[tuple[str, dict]]] = {}
    for cid, entry in notes.ideal_bootstrap.items():
        root, _ = _root_and_sign(cid, parent, negate)
        ideal_by_root.setdefault(root, []).append((cid, entry))

    out: list[Explanation] = []
    for r in records:
        if r.status not in FAILING:
            continue
        if claims is not None and r.id not in by_id:
            raise ValueError(f"{claims_path}: audit record {r.id!r} is not a claim of the manifest")
        root, sign = _root_and_sign(r.id, parent, negate)
        ex = Explanation(id=r.id, section=r.section, kind=r.kind, status=r.status, printed=r.printed,
                         recomputed=r.recomputed, tolerance=r.tolerance, ideal=None, ideal_n_boot=None,
                         ideal_seeds=None, verdict_code="none", verdict=VERDICT_NONE, reason="")
        # the ideal value: the record's own entry first, then the canonical claim's, then other repeats'
        cands = sorted(ideal_by_root.get(root, []), key=lambda ce: (ce[0] != r.id, ce[0] != root, ce[0]))
        if cands:
            cid, entry = cands[0]
            ex.ideal = entry["value"] * _root_and_sign(cid, parent, negate)[1] * sign
            ex.ideal_n_boot, ex.ideal_seeds = entry["n_boot"], entry["seeds"]
            ex.note_id, ex.source = cid, entry["source"]
        hits = conflicts_by_root.get(root, [])
        if hits:
            ex.verdict_code, ex.verdict = "conflict", VERDICT_CONFLICT
            ex.reason = " | ".join(k["reason"] for k in hits)
            for k in hits:
                ex.evidence.update(k["evidence"])
            ex.note_id = next(c for c in hits[0]["claims"] if _root_and_sign(c, parent, negate)[0] == root)
            ex.source = ", ".join(dict.fromkeys(k["source"] for k in hits))
        elif ex.ideal is not None and r.id in by_id:
            c = by_id[r.id]
            target = float(c["value"])
            diff = ex.ideal - target
            if r.tolerance is not None:
                inside = abs(diff) <= r.tolerance + 1e-12
                rule = f"tolerance {r.tolerance:.4g}"
            else:
                d = int(c.get("decimals") or 0)
                inside = _fmt(ex.ideal, d) == _fmt(target, d)
                rule = f"shown with {d} decimals"
            draws = " × ".join(f"{v:,} {n}" for v, n in ((ex.ideal_n_boot, "draws"), (ex.ideal_seeds, "seeds")) if v)
            basis = f"ideal value {ex.ideal:.4f}" + (f" ({draws})" if draws else "")
            if inside:
                ex.verdict_code, ex.verdict = "unlucky", VERDICT_UNLUCKY
                ex.reason = f"{basis} is {abs(diff):.4g} from the printed value, inside the {rule}"
            else:
                ex.verdict_code = "ideal_off"
                ex.verdict = VERDICT_IDEAL_OFF.format(diff=f"{diff:+.4f}")
                ex.reason = (f"{basis} is {abs(diff):.4g} from the printed value, outside the {rule}: "
                             "the reconstructed rows, not this seed, miss the number")
        elif ex.ideal is not None:
            ex.reason = f"ideal value {ex.ideal:.4f} recorded; no printed value to judge it against"
        out.append(ex)
    return out


def conflict_rows(notes: ReconstructionNotes, records: list[AuditRecord] | None = None) -> list[dict]:
    """One row per known conflict (every entry of every fidelity file), whether its claims pass or not.

    Columns: ``source`` (fidelity file), ``claims`` (comma-separated ids), ``status`` (each claim's current
    audit status, when ``records`` is given; ``not audited`` for an id the records lack), ``reason`` and
    ``evidence`` (``name = value`` pairs).
    """
    status = {r.id: r.status for r in records or []}
    rows = []
    for k in notes.known_conflicts:
        row = {"source": k["source"], "claims": ", ".join(k["claims"])}
        if records is not None:
            row["status"] = ", ".join(f"{c}: {status.get(c, 'not audited')}" for c in k["claims"])
        row["reason"] = k["reason"]
        row["evidence"] = format_evidence(k["evidence"])
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m selfconf.audit", description=__doc__.split("\n")[0])
    ap.add_argument("--book-dir", default="book")
    ap.add_argument("--data-dir", default="data/reconstructed", help="where to look for the fidelity files")
    ap.add_argument("--out", default="_build/audit.json")
    ap.add_argument("--write-quoted", action="store_true", help="regenerate data/paper/quoted_facts.yaml and exit")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a built section has a failing claim")
    a = ap.parse_args(argv)
    if a.write_quoted:
        print(write_quoted_facts())
        return 0
    recs = run_audit(a.book_dir)
    notes = load_reconstruction_notes(a.data_dir)
    why = {e.id: e for e in explain_failures(recs, a.data_dir, notes=notes)}
    write_audit_json(recs, a.out, explanations=list(why.values()), notes=notes)
    s = summarise(recs)
    print(json.dumps(s, indent=1))
    for r in recs:
        if r.status in FAILING:
            print(f"  {r.status:18s} {r.id:45s} printed {r.printed!s:>12}  got {r.recomputed!r}  {r.detail}")
            print(f"  {'':18s} why: {why[r.id].verdict}" + (f" ({why[r.id].reason})" if why[r.id].reason else ""))
    return 1 if (a.strict and s["n_failing"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
