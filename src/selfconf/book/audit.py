"""The audit: every glued value against the number the paper prints.

The claim manifest (``data/paper/claims.yaml``) lists each printed number with its id, printed
token, value, decimals, section and kind.  The executed notebooks glue values under those ids
(:mod:`selfconf.book.glue`).  This module is one of the two places (with the reconstruction generators)
allowed to read the manifest's target values.

What a record shows depends on the rows: with the shipped reconstruction a match shows that the
analysis and the published numbers can hold together (the rows were fitted to them, with the fit checked by
this same package code, so it does not test the package's definitions); with the original replication
package it is a reproduction.

Rules
-----
Every number is judged by :mod:`selfconf.claims.judging`, the book's one rule (formatting with the printed
decimals; a Monte-Carlo tolerance for bootstrap and bootstrap-derived numbers; quoted external facts).
A claim whose section has no executed notebook is ``pending``; a built section's claim that no notebook
glued is ``unglued``.  A repeat (``same_as``) must be glued under its own id by its own section's page
with the canonical value (``transform: negate`` flips the sign); it is then judged like its canonical
claim.

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

from selfconf.book.glue import QUOTED_FACTS, glued_values, pasted_keys
from selfconf.book.seedstudy import SECTION_PAGES
from selfconf.claims import judging
from selfconf.claims.judging import FAILING, N_BOOT_PAPER, effective_kinds
from selfconf.data.paths import DEFAULT_DATA_DIR, resolve
from selfconf.data.sources import claim_sources, section_sources

__all__ = [
    "SECTION_PAGES",
    "AuditRecord",
    "load_claims",
    "effective_kinds",
    "run_audit",
    "summarise",
    "write_quoted_facts",
    "ReconstructionNotes",
    "Explanation",
    "load_reconstruction_notes",
    "explain_failures",
    "conflict_rows",
    "format_evidence",
    "VERDICTS",
    "VERDICT_PHRASES",
    "summary_sentences",
    "FAILING",
    "N_BOOT_PAPER",
    "WHAT_A_MATCH_SHOWS",
    "AuditResult",
    "audit_book",
    "CARDS",
    "card_text",
    "write_cards",
    "main",
]

CLAIMS = "data/paper/claims.yaml"


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
    shows: str | None = None
    marked: bool = False
    difference: float | None = None
    notebook: str | None = None
    cell: int | None = None
    computed_in: str | None = None
    computed_cell: int | None = None
    pages: list[str] = field(default_factory=list)
    source: str | None = None
    threshold: float | None = None
    tolerance_status: str | None = None
    mc_error: float | None = None
    seed_k: int | None = None
    seed_mean: float | None = None
    seed_sd: float | None = None
    seed_z: float | None = None
    seed_quantile: float | None = None


def load_claims(path: str | Path = CLAIMS) -> dict:
    """The claim manifest as a dict (``{"claims": [...], ...}``).

    Read once by :func:`selfconf.claims.judging.load_manifest`, the one manifest loader.
    """
    return judging.load_manifest(path).raw


def run_audit(
    book_dir: str | Path = "book", claims_path: str | Path = CLAIMS, measured: dict[str, float] | None = None
) -> list[AuditRecord]:
    """Judge every claim (:func:`selfconf.claims.judging.judge`) against the value glued in the executed notebooks.

    Each record names the notebook and cell that glued the value (``notebook``, ``cell``), the notebook
    that computed the canonical value of a repeat (``computed_in``) and the pages that paste it (``pages``).
    ``measured`` (the seed study's Monte-Carlo errors, :func:`selfconf.book.seedstudy.measured_errors`) gives
    bootstrap claims their measured error; without it the judge's analytic errors apply.
    """
    m = judging.load_manifest(claims_path)
    book = resolve(book_dir)
    glued = glued_values(book)
    pasted = pasted_keys(book)
    built = {sec for sec, page in SECTION_PAGES.items() if (book / f"{page}.ipynb").is_file()}
    values = {k: g["value"] for k, g in glued.items() if k in m.by_id}  # a derived claim's inputs, as recomputed
    records: list[AuditRecord] = []
    for c in m.claims:
        if c.get("same_as") and c["same_as"] not in m.by_id:
            raise ValueError(f"{claims_path}: claim {c['id']} has same_as {c['same_as']!r}, which is not a claim id")
        page = SECTION_PAGES.get(c["section"])
        rec = AuditRecord(
            id=c["id"],
            section=c["section"],
            kind=c["kind"],
            printed=str(c["printed"]),
            recomputed=None,
            status="pending",
            page=page,
            same_as=c.get("same_as"),
            pages=pasted.get(c["id"], []),
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
        rec.notebook, rec.cell = Path(g["notebook"]).stem, g["cell"]
        canon = glued.get(m.canonical(c["id"])["id"])
        rec.computed_in = Path(canon["notebook"]).stem if canon else rec.notebook
        rec.computed_cell = canon["cell"] if canon else rec.cell
        rec.detail = f"glued in {g['notebook']}"
        j = judging.judge(
            m,
            c["id"],
            rec.recomputed,
            quoted=bool(glued.get(f"{c['id']}__quoted", {}).get("value")),
            values=values,
            measured=measured,
        )
        rec.status, rec.tolerance, rec.shows, rec.marked = j.status, j.tolerance, j.shows, j.marked
        rec.difference, rec.threshold, rec.tolerance_status = j.difference, j.threshold, j.tolerance_status
        if m.effective.get(c["id"]) == "bootstrap":
            rec.mc_error = judging.monte_carlo_se(m, c["id"], values, judging.N_BOOT_PAPER, measured)
        if j.status == "not_quoted":
            rec.detail += "; external claim not glued from the quoted-facts file"
        elif j.status == "mismatch":
            if isinstance(rec.recomputed, bool) or not isinstance(rec.recomputed, (int, float)):
                rec.detail += f"; glued value {rec.recomputed!r} is not a number"
            else:
                rec.detail += (
                    f"; shows {j.shows}, paper prints {judging.fmt(float(c['value']), int(c.get('decimals') or 0))}"
                )
        elif j.rule == "monte-carlo" and j.difference is not None:
            rec.detail += f"; |Δ| = {abs(j.difference):.4g}, tol = {j.tolerance:.4g}"
        if j.status == "crosses_threshold":
            rec.detail += (
                f"; crosses {j.threshold:g}: the paper prints {rec.printed}, this build {j.shows} "
                f"(by the tolerance alone: {(j.tolerance_status or '').replace('_', ' ')})"
            )
    return records


def summarise(records: list[AuditRecord]) -> dict:
    """Counts by status and by kind × status."""
    by_status: dict[str, int] = {}
    by_kind: dict[str, dict[str, int]] = {}
    for r in records:
        by_status[r.status] = by_status.get(r.status, 0) + 1
        k = by_kind.setdefault(r.kind, {})
        k[r.status] = k.get(r.status, 0) + 1
    return {
        "n_claims": len(records),
        "by_status": by_status,
        "by_kind": by_kind,
        "n_failing": sum(by_status.get(s, 0) for s in FAILING),
    }


def write_audit_json(
    records: list[AuditRecord],
    out: str | Path = "_build/audit.json",
    *,
    explanations: list[Explanation] | None = None,
    notes: ReconstructionNotes | None = None,
    data_source: str | None = None,
    section_sources: dict | None = None,
) -> Path:
    """Write ``{"summary": ..., "claims": [record, ...]}`` to ``out``.

    With ``explanations`` (from :func:`explain_failures`) the file also holds ``"explanations"``; with
    ``notes`` (from :func:`load_reconstruction_notes`) it holds ``"fidelity_files"`` and ``"known_conflicts"``.
    """
    doc: dict[str, Any] = {"summary": summarise(records), "claims": [asdict(r) for r in records]}
    if data_source is not None:
        doc["data_source"] = data_source
        doc["what_a_match_shows"] = WHAT_A_MATCH_SHOWS[data_source]
    if section_sources is not None:
        doc["section_sources"] = section_sources
    if explanations is not None:
        doc["explanations"] = [asdict(e) for e in explanations]
    if notes is not None:
        doc["fidelity_files"] = list(notes.files)
        doc["known_conflicts"] = [dict(k) for k in notes.known_conflicts]
        doc["reconstruction_limits"] = [dict(k) for k in notes.limits]
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
        facts.append(
            {
                "id": c["id"],
                "value": v,
                "printed": str(c["printed"]),
                "unit": c.get("unit"),
                "role": c.get("role", "fact"),
                "where": c["where"],
            }
        )
    header = (
        "# Quoted facts: numbers the paper prints that have no row-level source anywhere (human spot-check,\n"
        "# cross-family audit, external-judge scores, swap extension) and design constants.  They are QUOTED,\n"
        "# never computed.  Extracted from claims.yaml by `python -m selfconf.book.audit --write-quoted`.\n"
    )
    p = resolve(out)
    p.write_text(
        header + yaml.safe_dump({"facts": facts}, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8"
    )
    return p


# ---------------------------------------------------------------------------------------------------
# Why a number fails: the reconstruction generators' notes (fidelity files)
# ---------------------------------------------------------------------------------------------------

#: The four answers :func:`explain_failures` can give, in the order the audit page lists them.
VERDICT_CONFLICT = "conflict among published numbers: a bound excludes the print beyond the tolerance"
VERDICT_UNLUCKY = "the data's ideal value is within tolerance: this seed's draw is unlucky"
VERDICT_UNDETERMINED = (
    "undetermined: the data's ideal value lies within two of its own Monte-Carlo errors of the tolerance's edge"
)
VERDICT_IDEAL_OFF = "the reconstruction's ideal value is itself off by {diff}"
VERDICT_CLOSER = (
    "the reconstruction misses (ideal value off by {diff}); the published numbers allow a value "
    "within tolerance, so a closer data set exists"
)
VERDICT_NONE = "no reconstruction note"
VERDICT_UNEXPLAINED = (
    "unexplained: the data's ideal value is within tolerance, but this page's value is not plausible under its own "
    "seed distribution (or none was measured), so luck does not explain it"
)
VERDICTS = {
    "conflict": VERDICT_CONFLICT,
    "unlucky": VERDICT_UNLUCKY,
    "unexplained": VERDICT_UNEXPLAINED,
    "undetermined": VERDICT_UNDETERMINED,
    "ideal_off": VERDICT_IDEAL_OFF,
    "closer_exists": VERDICT_CLOSER,
    "none": VERDICT_NONE,
}

FIDELITY_PATTERN = "fidelity*.json"

#: What the audit shows in each case the build can be in.
WHAT_A_MATCH_SHOWS = {
    "reconstruction": "The rows are a reconstruction fitted to the published statistics, and the generators "
    "check their fit with this package's own code: a match shows that the analysis and the published numbers "
    "hold together, not that the paper's data are as described, and (without an independent implementation) "
    "not that each statistic is computed as the paper defines it. What each difference is, is said per number "
    "below, from the reconstruction's notes.",
    "original": "The rows are the paper's own replication package: a match reproduces the printed number from the "
    "original data, a difference is a failure to reproduce it.",
    "mixed": "Some data families come from the paper's replication package and some from the book's reconstruction "
    "(the table of sources below says which, per section): a number computed from original rows is "
    "reproduced or not; a number computed from reconstructed rows shows only that the analysis and the "
    "published numbers are consistent.",
}


#: How :func:`summary_sentences` names each verdict in a count ("2 unlucky draws").
VERDICT_PHRASES = {
    "conflict": ("conflict among the published numbers", "conflicts among the published numbers"),
    "unlucky": ("unlucky draw of this seed", "unlucky draws of this seed"),
    "unexplained": ("unexplained number", "unexplained numbers"),
    "undetermined": ("undetermined case", "undetermined cases"),
    "ideal_off": ("number the reconstructed rows themselves miss", "numbers the reconstructed rows themselves miss"),
    "closer_exists": (
        "number the reconstruction misses although a closer data set exists",
        "numbers the reconstruction misses although a closer data set exists",
    ),
    "none": ("number without a reconstruction note", "numbers without a reconstruction note"),
}


#: How :func:`summary_sentences` names each status in the count sentence.
STATUS_PHRASES = {
    "match": "print as the paper prints (match)",
    "within_tolerance": "print differently within their Monte-Carlo tolerance",
    "outside_tolerance": "lie outside their Monte-Carlo tolerance",
    "crosses_threshold": "print on the other side of a threshold the paper's conclusion rests on (crosses threshold)",
    "mismatch": "are deterministic numbers that print differently (mismatch)",
    "quoted": "are quoted from the paper, not computed",
    "pending": "belong to sections not built (pending)",
    "unglued": "belong to built sections but were glued by no page (unglued)",
    "not_quoted": "are external numbers not glued from the quoted-facts file",
    "not_computed": "could not be computed",
}


def _count(n: int, words: tuple[str, str]) -> str:
    return f"{n} {words[0] if n == 1 else words[1]}"


def summary_sentences(records: list[AuditRecord], explanations: list[Explanation]) -> list[str]:
    """The audit's summary, as sentences generated from its table (no hand wording on the page).

    One sentence with the counts by status, one with the failing count, and one with the failing numbers by
    verdict (:data:`VERDICT_PHRASES`, only the verdicts that occur).

    >>> r = [AuditRecord("a", "s", "bootstrap", "1", 1.2, "outside_tolerance"),
    ...      AuditRecord("b", "s", "k", "2", 2, "match")]
    >>> e = [Explanation("a", "s", "bootstrap", "outside_tolerance", "1", 1.2, 0.1, 1.0, 4000, 5, "unlucky", "", "")]
    >>> print(summary_sentences(r, e)[2])
    By the reconstruction's notes, the failing number is 1 unlucky draw of this seed.
    """
    s = summarise(records)
    order = ["match", "within_tolerance", "outside_tolerance", "crosses_threshold", "mismatch", "quoted"]
    statuses = sorted(s["by_status"], key=lambda k: (order.index(k) if k in order else len(order), k))
    parts = [f"{s['by_status'][k]} {STATUS_PHRASES.get(k, k.replace('_', ' '))}" for k in statuses]
    out = [f"The manifest holds {s['n_claims']} printed numbers: " + "; ".join(parts) + "."]
    fail = s["n_failing"]
    if fail == 0:
        out.append("No number fails the audit.")
        return out
    fs = [k for k in statuses if k in FAILING]
    out.append(
        f"{fail} {'number fails' if fail == 1 else 'numbers fail'} the audit ("
        + ", ".join(f"{s['by_status'][k]} {k.replace('_', ' ')}" for k in fs)
        + ")."
    )
    counts = {code: sum(e.verdict_code == code for e in explanations) for code in VERDICTS}
    said = [_count(n, VERDICT_PHRASES[c]) for c, n in counts.items() if n]
    if said:
        lead = "the failing number is" if fail == 1 else "the failing numbers are"
        out.append(
            f"By the reconstruction's notes, {lead} "
            + (", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0])
            + "."
        )
    return out


@dataclass
class ReconstructionNotes:
    """What the fidelity files under a data folder say about numbers the rows cannot reproduce.

    ``files``: the fidelity files read, relative to the data folder, sorted.  ``known_conflicts``: every
    ``known_conflicts`` entry of every file, as ``{"claims", "reason", "evidence", "closest_attainable",
    "source"}``.  ``limits``: the ``reconstruction_limits`` entries (numbers the reconstruction misses although
    a bound shows the published numbers allow a closer value), same shape.  ``ideal_bootstrap``:
    ``{claim id: {"value", "n_boot", "seeds", "source"}}``.
    """

    data_dir: str
    files: list[str] = field(default_factory=list)
    known_conflicts: list[dict] = field(default_factory=list)
    ideal_bootstrap: dict[str, dict] = field(default_factory=dict)
    limits: list[dict] = field(default_factory=list)


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
    ideal_mc_error: float | None = None
    ideal_margin: float | None = None
    seed_z: float | None = None
    seed_quantile: float | None = None


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(float(x))


def _read_entries(path: Path, rel: str, doc: dict, list_key: str, target: list[dict]) -> None:
    """Validate and collect the ``known_conflicts`` / ``reconstruction_limits`` entries of one file."""
    entries = doc.get(list_key, [])
    if not isinstance(entries, list):
        raise ValueError(f"{path}: {list_key!r} should be a list, found {type(entries).__name__}")
    for i, k in enumerate(entries):
        where = f"{path}: {list_key}[{i}]"
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
        closest = k.get("closest_attainable") or {}
        if not isinstance(closest, dict) or not all(_is_number(v) for v in closest.values()):
            raise ValueError(f"{where}: field 'closest_attainable' should map claim ids to numbers, found {closest!r}")
        target.append(
            {
                "claims": list(ids),
                "reason": reason.strip(),
                "evidence": dict(evidence),
                "closest_attainable": {c: float(v) for c, v in closest.items()},
                "convention": k.get("convention"),
                "source": rel,
            }
        )


def load_reconstruction_notes(data_dir: str | Path = "data/reconstructed") -> ReconstructionNotes:
    """Read ``known_conflicts`` and ``ideal_bootstrap`` from every ``fidelity*.json`` under ``data_dir``.

    Files are searched recursively (``data_dir`` resolved with :func:`selfconf.data.paths.resolve`) and read in
    sorted path order.  A missing folder, a folder without fidelity files (the original paper data) or a
    file without either key gives empty notes.  Entry layout (agreed with the generators):

    * ``known_conflicts``: list of ``{"claims": [claim id, ...], "reason": str, "evidence": {name: number},
      "closest_attainable": {claim id: number}}`` (``evidence`` and ``closest_attainable`` optional):
      published numbers that cannot hold together under a stated convention, why, and the value nearest
      the print that any consistent data can give (the bound the *conflict* verdict needs);
    * ``reconstruction_limits``: the same shape, for numbers the reconstruction misses although a bound
      shows that the published numbers allow a value within tolerance;
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
        for list_key, target in (("known_conflicts", notes.known_conflicts), ("reconstruction_limits", notes.limits)):
            _read_entries(path, rel, doc, list_key, target)
        ideal = doc.get("ideal_bootstrap", {})
        if not isinstance(ideal, dict):
            raise ValueError(f"{path}: 'ideal_bootstrap' should be an object, found {type(ideal).__name__}")
        for cid, entry in ideal.items():
            where = f"{path}: ideal_bootstrap[{cid!r}]"
            if not isinstance(entry, dict) or not _is_number(entry.get("value")):
                raise ValueError(
                    f"{where}: field 'value' should be a finite number, found "
                    f"{entry.get('value') if isinstance(entry, dict) else entry!r}"
                )
            for name in ("n_boot", "seeds"):
                v = entry.get(name)
                if v is not None and not (isinstance(v, int) and not isinstance(v, bool)):
                    raise ValueError(f"{where}: field {name!r} should be an integer, found {v!r}")
            new = {
                "value": float(entry["value"]),
                "n_boot": entry.get("n_boot"),
                "seeds": entry.get("seeds"),
                "sd_between_seeds": entry.get("sd_between_seeds")
                if _is_number(entry.get("sd_between_seeds"))
                else None,
                "source": rel,
            }
            old = notes.ideal_bootstrap.get(cid)
            if old is not None and old["value"] != new["value"]:
                raise ValueError(
                    f"{path}: ideal_bootstrap[{cid!r}] = {new['value']!r} contradicts "
                    f"{old['value']!r} in {root / old['source']}"
                )
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


@dataclass
class _NoteIndex:
    """The reconstruction's notes keyed by canonical claim (``same_as`` followed), for :func:`explain_failures`.

    ``parent``/``negate`` are the ``same_as`` links (:func:`_same_as_links`); ``conflicts``, ``limits`` and
    ``ideals`` map a root claim to the ``known_conflicts`` entries, ``reconstruction_limits`` entries and
    ``(claim id, ideal_bootstrap entry)`` pairs that name any printing of it; ``manifest``/``by_id`` are the
    claims manifest (``None``/empty without one).
    """

    parent: dict[str, str]
    negate: dict[str, bool]
    manifest: Any
    by_id: dict[str, dict]
    conflicts: dict[str, list[dict]] = field(default_factory=dict)
    limits: dict[str, list[dict]] = field(default_factory=dict)
    ideals: dict[str, list[tuple[str, dict]]] = field(default_factory=dict)

    def root(self, cid: str) -> tuple[str, int]:
        """:func:`_root_and_sign` with these links."""
        return _root_and_sign(cid, self.parent, self.negate)

    def by_root(self, entries: list[dict]) -> dict[str, list[dict]]:
        """``{root: [entries naming a printing of it]}``, each entry once per root."""
        out: dict[str, list[dict]] = {}
        for k in entries:
            for root in dict.fromkeys(self.root(c)[0] for c in k["claims"]):
                out.setdefault(root, []).append(k)
        return out

    def bound_for(self, k: dict, rid: str, root: str, sign: int) -> float | None:
        """The entry's closest attainable value for record ``rid``, carried over another printing's sign."""
        ca = k.get("closest_attainable") or {}
        if rid in ca:
            return ca[rid]
        for cid, v in ca.items():
            croot, csign = self.root(cid)
            if croot == root:
                return v * csign * sign
        return None

    def judged(self, rid: str) -> bool:
        """Whether record ``rid`` is a claim of the manifest (so a bound can be judged against its print)."""
        return self.manifest is not None and rid in self.manifest.by_id


def _index_notes(
    records: list[AuditRecord],
    notes: ReconstructionNotes,
    claims_path: str | Path | None,
    measured: dict[str, float] | None,
) -> _NoteIndex:
    """Key the notes' conflicts, limits and ideal values by canonical claim, with the derived claims' ideals.

    Definition: see :class:`_NoteIndex`; then :func:`_derived_ideals` adds an ideal value for every derived
    claim whose inputs all have one.
    """
    claims = load_claims(claims_path)["claims"] if claims_path is not None else None
    parent, negate = _same_as_links(records, claims)
    manifest = judging.load_manifest(claims_path) if claims_path is not None else None
    ix = _NoteIndex(parent, negate, manifest, {c["id"]: c for c in claims or []})
    ix.conflicts, ix.limits = ix.by_root(notes.known_conflicts), ix.by_root(notes.limits)
    for cid, entry in notes.ideal_bootstrap.items():
        ix.ideals.setdefault(ix.root(cid)[0], []).append((cid, entry))
    if manifest is not None:
        _derived_ideals(ix, notes, measured)
    return ix


def _derived_ideals(ix: _NoteIndex, notes: ReconstructionNotes, measured: dict[str, float] | None) -> None:
    """Carry ideal values through derivations: a derived claim whose inputs all have one gets one.

    Definition: for each claim with a derivation of :data:`selfconf.claims.judging.DERIVATIONS`, no ``same_as``
    and no ideal value of its own, whose ``depends_on`` all have an ideal value: the derivation of those values
    (:func:`selfconf.claims.judging.derive`), its Monte-Carlo error propagated from the inputs that determine it
    (:func:`selfconf.claims.judging.propagate`; unknown when one of theirs is), and the first input's draws.
    """
    manifest, ideal = ix.manifest, notes.ideal_bootstrap
    for c in manifest.claims:
        if c.get("same_as") or c.get("derivation") not in judging.DERIVATIONS or c["id"] in ix.ideals:
            continue
        ins = list(c.get("depends_on") or [])
        if not ins or not all(d in ideal for d in ins):
            continue
        iv = {d: ideal[d]["value"] for d in ins}
        errs = {
            d: judging.ideal_mc_error(
                manifest, d, ideal[d]["n_boot"], ideal[d]["seeds"], ideal[d].get("sd_between_seeds"), measured
            )
            for d in ins
        }
        w = judging.determining_inputs(manifest, c["id"], iv)
        err = None if any(errs[d] is None for d in w) else judging.propagate(w, {d: float(errs[d] or 0) for d in w})
        sources = ", ".join(dict.fromkeys(ideal[d]["source"] for d in ins))
        entry = {
            "value": judging.derive(manifest, c["id"], iv),
            "n_boot": ideal[ins[0]]["n_boot"],
            "seeds": ideal[ins[0]]["seeds"],
            "mc_error": err,
            "source": sources + f" (derived: {c['derivation']} of {', '.join(ins)})",
        }
        ix.ideals[c["id"]] = [(c["id"], entry)]


#: Fields an :class:`Explanation` copies from its :class:`AuditRecord`.
_RECORD_FIELDS = ("id", "section", "kind", "status", "printed", "recomputed", "tolerance")


def _blank_explanation(r: AuditRecord) -> Explanation:
    """An :class:`Explanation` of record ``r`` with verdict ``none`` and no ideal value yet."""
    return Explanation(
        **{f: getattr(r, f) for f in _RECORD_FIELDS},
        ideal=None,
        ideal_n_boot=None,
        ideal_seeds=None,
        verdict_code="none",
        verdict=VERDICT_NONE,
        reason="",
    )


def _attach_ideal(
    ex: Explanation, r: AuditRecord, ix: _NoteIndex, root: str, sign: int, measured: dict[str, float] | None
) -> None:
    """Set ``ex``'s ideal value: the record's own entry first, then the canonical claim's, then other repeats'.

    Definition: the value is carried over with the sign of each printing (``transform: negate``); its
    Monte-Carlo error is the entry's own (a derived claim) or :func:`selfconf.claims.judging.ideal_mc_error`.
    """
    cands = sorted(ix.ideals.get(root, []), key=lambda ce: (ce[0] != r.id, ce[0] != root, ce[0]))
    if not cands:
        return
    cid, entry = cands[0]
    ex.ideal = entry["value"] * ix.root(cid)[1] * sign
    ex.ideal_n_boot, ex.ideal_seeds = entry["n_boot"], entry["seeds"]
    ex.note_id, ex.source = cid, entry["source"]
    if "mc_error" in entry:
        ex.ideal_mc_error = entry["mc_error"]
    elif ix.judged(r.id):
        ex.ideal_mc_error = judging.ideal_mc_error(
            ix.manifest, r.id, entry["n_boot"], entry["seeds"], entry.get("sd_between_seeds"), measured
        )


def _sort_notes(r: AuditRecord, ix: _NoteIndex, root: str, sign: int) -> tuple[list[Any], list[Any]]:
    """Split the record's conflict and limit entries into ``(supported conflicts, other notes)``.

    Definition: an entry is a supported conflict when it is a ``known_conflicts`` entry whose bound excludes the
    print beyond the tolerance (:func:`selfconf.claims.judging.conflict_excludes`); every other entry is a note,
    with its arithmetic (``closest_attainable``, ``gap_to_print``, ``tolerance``) when it has a bound, else ``{}``.
    """
    supported: list[Any] = []
    notes_here: list[Any] = []
    conflicts = ix.conflicts.get(root, [])
    for k in conflicts + ix.limits.get(root, []):
        b = ix.bound_for(k, r.id, root, sign)
        if b is not None and ix.judged(r.id):
            excl, gap, limit = judging.conflict_excludes(ix.manifest, r.id, b)
            arith = {"closest_attainable": b, "gap_to_print": gap, "tolerance": limit}
            (supported if excl and k in conflicts else notes_here).append((k, arith))
        else:
            notes_here.append((k, {}))
    return supported, notes_here


def _explain_conflict(ex: Explanation, supported: list[Any], ix: _NoteIndex, root: str) -> None:
    """Verdict ``conflict``: the reasons, evidence and arithmetic of every supported conflict entry."""
    ex.verdict_code, ex.verdict = "conflict", VERDICT_CONFLICT
    ex.reason = " | ".join(k["reason"] for k, _ in supported)
    for k, arith in supported:
        ex.evidence.update(k["evidence"])
        ex.evidence.update(arith)
    ex.note_id = next(c for c in supported[0][0]["claims"] if ix.root(c)[0] == root)
    ex.source = ", ".join(dict.fromkeys(k["source"] for k, _ in supported))


def _ideal_basis(ex: Explanation) -> str:
    """``"ideal value V (N draws × S seeds, ± E)"``, the opening of every reason that rests on an ideal value.

    >>> e = Explanation("c", "s", "bootstrap", "mismatch", "0.5", 0.4, 0.01, 0.51, 2000, 3, "none", "", "",
    ...                 ideal_mc_error=0.002)
    >>> _ideal_basis(e)
    'ideal value 0.5100 (2,000 draws × 3 seeds, ± 0.002)'
    """
    draws = " × ".join(f"{v:,} {n}" for v, n in ((ex.ideal_n_boot, "draws"), (ex.ideal_seeds, "seeds")) if v)
    err_txt = "its Monte-Carlo error unknown" if ex.ideal_mc_error is None else f"± {ex.ideal_mc_error:.2g}"
    return f"ideal value {ex.ideal:.4f} ({', '.join(x for x in (draws, err_txt) if x)})"


def _with_notes(reason: str, notes_here: list[Any]) -> str:
    """``reason`` followed by the notes' reasons, ``" | "``-separated."""
    return reason + "".join(" | " + k["reason"] for k, _ in notes_here)


def _explain_by_ideal(ex: Explanation, r: AuditRecord, claim: dict, notes_here: list[Any]) -> None:
    """Verdicts 2 to 4 of :func:`explain_failures` from the ideal value against the printed ``claim``.

    Definition: ``inside`` = the ideal value is within the record's tolerance of the print (or prints alike at
    the claim's decimals when the record has no tolerance); ``undetermined`` when the margin to the tolerance is
    within :data:`selfconf.claims.judging.UNLUCKY_MARGIN_SE` times the ideal value's Monte-Carlo error (or that
    error is unknown); otherwise ``unlucky``/``unexplained`` (inside, by the seed z), ``closer_exists`` (outside,
    with a bound within tolerance) or ``ideal_off`` (outside).
    """
    if ex.ideal is None:
        raise ValueError(f"audit record {r.id!r}: no ideal value to judge")
    target = float(claim["value"])
    diff = ex.ideal - target
    undetermined = False
    if r.tolerance is not None:
        inside = abs(diff) <= r.tolerance + 1e-12
        rule = f"tolerance {r.tolerance:.4g}"
        ex.ideal_margin = r.tolerance - abs(diff)
        err = ex.ideal_mc_error
        undetermined = err is None or abs(ex.ideal_margin) <= judging.UNLUCKY_MARGIN_SE * err
    else:
        d = int(claim.get("decimals") or 0)
        inside = judging.fmt(ex.ideal, d) == judging.fmt(target, d)
        rule = f"shown with {d} decimals"
    ex.seed_z, ex.seed_quantile = r.seed_z, r.seed_quantile
    lead = f"{_ideal_basis(ex)} is {abs(diff):.4g} from the printed value"
    closer = [(k, a) for k, a in notes_here if a]
    if undetermined:
        ex.verdict_code, ex.verdict = "undetermined", VERDICT_UNDETERMINED
        side = "inside" if inside else "outside"
        ex.reason = _with_notes(
            f"{lead}, {side} the {rule} by {abs(ex.ideal_margin or 0):.2g}, not more than "
            f"{judging.UNLUCKY_MARGIN_SE} x its error: neither this seed nor the rows can be blamed",
            notes_here,
        )
    elif inside:
        _explain_inside(ex, r, f"{lead}, inside the {rule}")
    elif closer:
        k, a = closer[0]
        ex.verdict_code = "closer_exists"
        ex.verdict = VERDICT_CLOSER.format(diff=f"{diff:+.4f}")
        ex.reason = (
            f"{lead}, outside the {rule}; the bound {a['closest_attainable']:.4f} is {a['gap_to_print']:.4g} from "
            f"it, inside the tolerance {a['tolerance']:.4g}. " + k["reason"]
        )
        ex.evidence.update(k["evidence"])
        ex.evidence.update(a)
        ex.source = k["source"]
    else:
        ex.verdict_code = "ideal_off"
        ex.verdict = VERDICT_IDEAL_OFF.format(diff=f"{diff:+.4f}")
        ex.reason = _with_notes(
            f"{lead}, outside the {rule}: the reconstructed rows, not this seed, miss the number", notes_here
        )


def _explain_inside(ex: Explanation, r: AuditRecord, lead: str) -> None:
    """Verdict ``unlucky`` (the page's value is plausible under its seed distribution) or ``unexplained``.

    Definition: plausible when the record's ``seed_z`` is known and ``|seed_z| <=``
    :data:`selfconf.claims.judging.PLAUSIBLE_Z`.
    """
    if r.seed_z is None:
        seat = "no seed distribution measured"
    else:
        seat = (
            f"this page's value sits at z = {r.seed_z:+.1f} in its {r.seed_k} seeds (quantile "
            f"{r.seed_quantile:.3f}; plausible within |z| <= {judging.PLAUSIBLE_Z})"
        )
    if r.seed_z is not None and abs(r.seed_z) <= judging.PLAUSIBLE_Z:
        ex.verdict_code, ex.verdict = "unlucky", VERDICT_UNLUCKY
    else:
        ex.verdict_code, ex.verdict = "unexplained", VERDICT_UNEXPLAINED
    ex.reason = f"{lead}; {seat}"


def explain_failures(
    records: list[AuditRecord],
    data_dir: str | Path = "data/reconstructed",
    claims_path: str | Path | None = CLAIMS,
    *,
    notes: ReconstructionNotes | None = None,
    measured: dict[str, float] | None = None,
) -> list[Explanation]:
    """Say why each failing record fails, from the reconstruction's notes (:func:`load_reconstruction_notes`).

    One :class:`Explanation` per record whose status is in ``FAILING`` (``mismatch``, ``outside_tolerance``,
    ``unglued``, ``not_quoted``), in record order.  A record and every other printing of the same number
    (linked by ``same_as``, followed to the canonical claim) share one explanation.  The verdict, first that
    applies:

    1. ``conflict`` — one of those printings is listed in a ``known_conflicts`` entry whose
       ``closest_attainable`` bound excludes the printed value by more than the tolerance
       (:func:`selfconf.claims.judging.conflict_excludes`): no data consistent with the other published numbers can
       come within tolerance; ``reason`` and ``evidence`` carry the generator's explanation and the arithmetic
       (``closest_attainable``, ``gap_to_print``, ``tolerance``).  An entry without such a bound never gives
       this verdict;
    2. ``unlucky`` — an ideal (large-B) value is recorded and lies inside the record's tolerance of the
       printed value by more than twice its own Monte-Carlo error (``undetermined`` within that margin), **and**
       the page's value is plausible under its own seed distribution (the record's ``seed_z``, from the seed
       study, within :data:`selfconf.claims.judging.PLAUSIBLE_Z` SDs of the seeds' mean): the rows reproduce the
       number and this seed's 2,000 draws are an ordinary draw that falls outside; ``unexplained`` when the
       ideal value is inside but the page's value is implausible under its seed distribution (or no seed
       distribution was measured): luck does not explain it;
    3. ``closer_exists`` — the ideal value is outside, and a ``reconstruction_limits`` (or non-excluding
       conflict) entry gives a bound within tolerance: the published numbers allow the print, the
       reconstruction misses it;
    4. ``ideal_off`` — an ideal value is recorded and is itself outside: the rows, not the draw, are off,
       by ``ideal − printed`` (stated in the verdict);
    5. ``none`` — no note.

    The ideal value of another printing is carried over with its ``transform: negate`` sign.  Printed
    target values, decimals and ``same_as`` links come from the manifest at ``claims_path`` (``None``:
    the records' ``same_as`` only, and ideal values are shown but not judged).  ``data_dir`` is resolved
    with :func:`selfconf.data.paths.resolve`; with no fidelity file there, every verdict is ``none``.  A caller
    that has already read the notes passes them as ``notes`` (then ``data_dir`` is not read again).
    """
    if notes is None:
        notes = load_reconstruction_notes(data_dir)
    ix = _index_notes(records, notes, claims_path, measured)
    out: list[Explanation] = []
    for r in records:
        if r.status not in FAILING:
            continue
        if claims_path is not None and r.id not in ix.by_id:
            raise ValueError(f"{claims_path}: audit record {r.id!r} is not a claim of the manifest")
        root, sign = ix.root(r.id)
        ex = _blank_explanation(r)
        _attach_ideal(ex, r, ix, root, sign, measured)
        supported, notes_here = _sort_notes(r, ix, root, sign)
        if supported:
            _explain_conflict(ex, supported, ix, root)
        elif ex.ideal is not None and r.id in ix.by_id:
            _explain_by_ideal(ex, r, ix.by_id[r.id], notes_here)
        elif ex.ideal is not None:
            ex.reason = f"ideal value {ex.ideal:.4f} recorded; no printed value to judge it against"
        elif notes_here:
            ex.reason = " | ".join(k["reason"] for k, _ in notes_here)
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


@dataclass
class AuditResult:
    """Everything one audit of a built book holds: the records, the explanations of the failing ones, the
    reconstruction notes they were read from, which case the build is in (``data_source``:
    ``"reconstruction"``, ``"original"`` or ``"mixed"``) and, per section, which source each data family
    came from (``section_sources``, :func:`selfconf.data.sources.section_sources`)."""

    records: list[AuditRecord]
    explanations: list[Explanation]
    notes: ReconstructionNotes
    data_source: str
    section_sources: dict[str, dict[str, str]] = field(default_factory=dict)
    study: Any = None


def audit_book(
    book_dir: str | Path = "book",
    data_dir: str | Path = "data/reconstructed",
    claims_path: str | Path = CLAIMS,
    *,
    run_study: bool = False,
) -> AuditResult:
    """Run :func:`run_audit` and :func:`explain_failures` once: the audit page, the CLI, the build and the
    inline provenance marks (:mod:`selfconf.book.provenance`) all read this one result.

    Each record gets its ``source``: ``"original"`` (its section's families were read from the original
    package in ``data_dir``: the record is a true reproduction check), ``"reconstruction"``, ``"mixed"`` or
    ``None`` (a quoted fact, or a section that reads no rows).  The reconstruction's notes (fidelity files)
    explain only failing numbers that came from the reconstruction; they are read from the shipped
    reconstruction whenever any family fell back to it.

    The seed study (:mod:`selfconf.book.seedstudy`) gives every bootstrap claim its measured Monte-Carlo error
    and its page value's place in its seed distribution (``seed_z``, ``seed_quantile``): read from its cache,
    or computed first with ``run_study`` (the audit page does; the other readers only read).
    """
    from selfconf.book import seedstudy

    study = seedstudy.seed_study(book_dir, run=True) if run_study else seedstudy.load_study(book_dir)
    measured = seedstudy.measured_errors(study)
    records = run_audit(book_dir, claims_path, measured)
    m = judging.load_manifest(claims_path)
    if study is not None:
        for r in records:
            sp = study.spreads.get(m.canonical(r.id)["id"])
            if sp is None or r.recomputed is None:
                continue
            neg = m.by_id[r.id].get("transform") == "negate"
            r.seed_k, r.seed_sd = sp.k, sp.sd
            r.seed_mean = -sp.mean if neg else sp.mean
            r.seed_z = None if sp.z is None else (-sp.z if neg else sp.z)
            r.seed_quantile = float(sum(v >= sp.page_value for v in sp.values)) / sp.k if neg else sp.quantile
    try:
        by_claim = claim_sources(data_dir, m.claims)
        secs = section_sources(data_dir)
    except (FileNotFoundError, ValueError):  # an unreadable data folder: the notebooks would have failed first
        by_claim, secs = {}, {}
    for r in records:
        r.source = by_claim.get(r.id)
    kinds = {k for r in records for k in [r.source] if k}
    case = "mixed" if len(kinds) > 1 else (kinds.pop() if kinds else "reconstruction")
    notes_dir = data_dir if case == "reconstruction" else (DEFAULT_DATA_DIR if case == "mixed" else data_dir)
    notes = load_reconstruction_notes(notes_dir)
    why = explain_failures(records, notes_dir, claims_path, notes=notes, measured=measured)
    for e in why:
        if by_claim.get(e.id) == "original":  # a real reproduction failure: no reconstruction note applies
            e.verdict_code, e.verdict, e.reason, e.evidence = "none", VERDICT_NONE, "", {}
            e.ideal = e.ideal_n_boot = e.ideal_seeds = e.note_id = e.source = None
    return AuditResult(records, why, notes, case, secs, study)


#: Data cards that state the judging rule; each holds a block between these markers, written by :func:`write_cards`.
CARDS = ("data/reconstructed/ladder/README.md",)
CARD_BEGIN, CARD_END = "<!-- judging-rule:begin -->", "<!-- judging-rule:end -->"


def card_text(text: str) -> str:
    """``text`` with its judging-rule block replaced by :func:`selfconf.claims.judging.card_rules` (one source).

    >>> card_text(" ".join(["a", CARD_BEGIN, "old", CARD_END, "b"])).count("half a printed unit")
    1
    """
    i, j = text.find(CARD_BEGIN), text.find(CARD_END)
    if i < 0 or j < i:
        raise ValueError(f"no {CARD_BEGIN} ... {CARD_END} block")
    import textwrap

    body = "\n".join(textwrap.wrap(judging.card_rules(), 110, break_on_hyphens=False))
    return text[: i + len(CARD_BEGIN)] + "\n" + body + "\n" + text[j:]


def write_cards(cards: tuple[str, ...] = CARDS) -> list[Path]:
    """Rewrite the judging-rule block of every data card in ``cards``; returns the files written."""
    out = []
    for c in cards:
        p = resolve(c)
        try:
            new = card_text(p.read_text(encoding="utf-8"))
        except ValueError as e:
            raise ValueError(f"{p}: {e}") from e
        p.write_text(new, encoding="utf-8")
        out.append(p)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m selfconf.book.audit", description=__doc__.split("\n")[0])
    ap.add_argument("--book-dir", default="book")
    ap.add_argument("--data-dir", default="data/reconstructed", help="where to look for the fidelity files")
    ap.add_argument("--out", default="_build/audit.json")
    ap.add_argument("--write-quoted", action="store_true", help="regenerate data/paper/quoted_facts.yaml and exit")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a built section has a failing claim")
    ap.add_argument("--write-cards", action="store_true", help="rewrite the judging-rule block of the data cards")
    a = ap.parse_args(argv)
    if a.write_quoted:
        print(write_quoted_facts())
        return 0
    if a.write_cards:
        for p in write_cards():
            print(p)
        return 0
    res = audit_book(a.book_dir, a.data_dir)
    recs, notes = res.records, res.notes
    why = {e.id: e for e in res.explanations}
    write_audit_json(
        recs,
        a.out,
        explanations=list(why.values()),
        notes=notes,
        data_source=res.data_source,
        section_sources=res.section_sources,
    )
    s = summarise(recs)
    print(json.dumps(s, indent=1))
    for line in summary_sentences(recs, list(why.values())):
        print(line)
    for r in recs:
        if r.status in FAILING:
            print(f"  {r.status:18s} {r.id:45s} printed {r.printed!s:>12}  got {r.recomputed!r}  {r.detail}")
            print(f"  {'':18s} why: {why[r.id].verdict}" + (f" ({why[r.id].reason})" if why[r.id].reason else ""))
    return 1 if (a.strict and s["n_failing"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
