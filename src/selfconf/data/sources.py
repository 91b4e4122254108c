"""Which source each data family of a page comes from: the original package or the reconstruction.

The book reads six **data families** (each one a set of files that belong together; the layouts are
documented in ``data/raw/README.md``):

========================  ================================================  =========================
family                    files (reconstruction, ``data/reconstructed/``)   files (original package)
========================  ================================================  =========================
``collection``            ``collection.csv``                                ``frontier_graded.jsonl``,
                                                                            ``local_graded.jsonl``
``benchmark_age``         ``benchmark_age.csv``                             ``benchmark_age.jsonl``
``ladder``                ``ladder/scored-arms-<subject>.jsonl``,           the same names
                          ``ladder/profiles-<subject>.json``
``probes``                ``probes/{microprobe,topic_heldout,               the same names, ``.jsonl``
                          topic_probes}.csv``
``twostage``              ``arms/twostage.csv``                             ``arms/twostage.jsonl``
``regrade``               ``arms/regrade.csv``                              ``arms/regrade.jsonl``
========================  ================================================  =========================

**Resolution rule** (:func:`resolve_families`): a family is read from ``data_dir`` when ``data_dir``
holds all of its files in one layout, and from the shipped reconstruction
(:data:`selfconf.data.paths.DEFAULT_DATA_DIR`) when ``data_dir`` holds none of them.  A family is never
assembled from two sources: part of a family's files, or the files of two layouts at once, is an
error naming the folder and the files.  A folder is a *reconstruction* when it is the shipped one (its
name is ``reconstructed``), holds a ``fidelity*.json`` file or a ``RECONSTRUCTION`` marker; any other
folder is taken to hold the *original* package.

Example (``data/raw`` holding the original collection alone would give ``'collection: original package
(data/raw); ladder: reconstruction (data/reconstructed)'`` and ``{'collection': 'original', 'ladder':
'reconstruction'}``; the shipped reconstruction gives)::

    >>> src = resolve_families("data/reconstructed", ["collection", "ladder"])
    >>> src.text()
    'collection, ladder: reconstruction (data/reconstructed)'
    >>> src.as_dict()
    {'collection': 'reconstruction', 'ladder': 'reconstruction'}
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from selfconf.data.paths import DEFAULT_DATA_DIR, resolve

__all__ = [
    "FAMILIES",
    "LAYOUTS",
    "SUBJECTS",
    "SOURCE_LABELS",
    "SECTION_FAMILIES",
    "RESTATING_SECTIONS",
    "FamilySource",
    "Sources",
    "is_reconstruction",
    "family_layout",
    "resolve_families",
    "original_families",
    "section_sources",
    "claim_sources",
]

#: Ladder subjects (the file names of the ladder package carry them; same as ``selfconf.sections.ladder.SUBJECTS``).
SUBJECTS = ("haiku45", "sonnet5", "opus48", "fable5")

_LADDER_FILES = tuple(f"ladder/scored-arms-{s}.jsonl" for s in SUBJECTS) + tuple(
    f"ladder/profiles-{s}.json" for s in SUBJECTS
)
_PROBES = ("probes/microprobe", "probes/topic_heldout", "probes/topic_probes")

#: family -> {layout name: files relative to the data folder}.  ``contract`` is the layout of the shipped
#: reconstruction (``data/README.md``), ``raw`` the original package's (``data/raw/README.md``); the ladder
#: package has one layout, which the reconstruction was written in.
LAYOUTS: dict[str, dict[str, tuple[str, ...]]] = {
    "collection": {"contract": ("collection.csv",), "raw": ("frontier_graded.jsonl", "local_graded.jsonl")},
    "benchmark_age": {"contract": ("benchmark_age.csv",), "raw": ("benchmark_age.jsonl",)},
    "ladder": {"package": _LADDER_FILES},
    "probes": {"contract": tuple(f"{p}.csv" for p in _PROBES), "raw": tuple(f"{p}.jsonl" for p in _PROBES)},
    "twostage": {"contract": ("arms/twostage.csv",), "raw": ("arms/twostage.jsonl",)},
    "regrade": {"contract": ("arms/regrade.csv",), "raw": ("arms/regrade.jsonl",)},
}
#: Every family, in the order banners list them.
FAMILIES = tuple(LAYOUTS)

#: How a banner names each source.
SOURCE_LABELS = {"original": "original package", "reconstruction": "reconstruction"}

#: The families each paper section's notebook reads (the sections of ``selfconf.book.audit.SECTION_PAGES``).
SECTION_FAMILIES: dict[str, tuple[str, ...]] = {
    "design": ("collection", "benchmark_age"),
    "result1": ("collection",),
    "result2": ("ladder",),
    "result3": ("ladder", "probes"),
    "limitations": ("collection", "twostage", "ladder", "regrade"),
    "diagnostic-appendix": (),  # scores selfconf's own battery, no paper rows
}
#: Sections that read no rows but restate numbers computed by the sections above (every family).
RESTATING_SECTIONS = ("abstract", "introduction", "related-work", "implications", "conclusion", "reproducibility")


@dataclass(frozen=True)
class FamilySource:
    """Where one family is read from.

    ``source`` is ``"original"`` or ``"reconstruction"``; ``path`` the folder holding the family's files;
    ``layout`` a key of :data:`LAYOUTS` ``[family]``; ``fallback`` is true when ``data_dir`` did not hold
    the family and the shipped reconstruction stood in.
    """

    family: str
    source: str
    path: Path
    layout: str
    fallback: bool
    shown_path: str

    @property
    def label(self) -> str:
        """``"original package"`` or ``"reconstruction"``."""
        return SOURCE_LABELS[self.source]


@dataclass
class Sources(Mapping):
    """The resolved families of one page: a read-only mapping ``family -> FamilySource``.

    ``data_dir`` is the folder the page was asked to read; ``data_is_reconstruction`` says whether that
    folder is itself a reconstruction.
    """

    data_dir: str
    data_is_reconstruction: bool
    families: dict[str, FamilySource] = field(default_factory=dict)

    def __getitem__(self, family: str) -> FamilySource:
        try:
            return self.families[family]
        except KeyError:
            raise KeyError(
                f"family {family!r} was not resolved for this page (resolved: {', '.join(self.families) or 'none'})"
            ) from None

    def __iter__(self):
        return iter(self.families)

    def __len__(self) -> int:
        return len(self.families)

    def path(self, family: str) -> Path:
        """The folder to read ``family`` from."""
        return self[family].path

    def as_dict(self) -> dict[str, str]:
        """``{family: "original" | "reconstruction"}``."""
        return {f: s.source for f, s in self.families.items()}

    def of_source(self, source: str) -> list[str]:
        """The families read from ``source``, in resolution order."""
        return [f for f, s in self.families.items() if s.source == source]

    @property
    def none_in_data_dir(self) -> bool:
        """True when ``data_dir`` (not itself the reconstruction) held none of the page's families."""
        return bool(self.families) and all(s.fallback for s in self.families.values())

    def text(self) -> str:
        """Plain text naming each family's source, families of one source grouped.

        Example: ``"collection, benchmark_age: original package (data/raw); ladder: reconstruction
        (data/reconstructed)"``."""
        groups: dict[tuple[str, str], list[str]] = {}
        for f, s in self.families.items():
            groups.setdefault((s.label, s.shown_path), []).append(f)
        return "; ".join(f"{', '.join(fams)}: {label} ({shown})" for (label, shown), fams in groups.items())


def is_reconstruction(data_dir: str | os.PathLike) -> bool:
    """Whether ``data_dir`` holds reconstructed rows (see the module docstring for the rule).

    Example: ``is_reconstruction("data/reconstructed")`` is ``True``; ``is_reconstruction("data/raw")``
    is ``False`` (the raw folder never carries a fidelity file)."""
    p = resolve(data_dir)
    return p.name == "reconstructed" or any(p.glob("fidelity*.json")) or (p / "RECONSTRUCTION").exists()


def family_layout(data_dir: str | os.PathLike, family: str) -> str | None:
    """The layout in which ``data_dir`` holds ``family`` completely, or ``None`` when it holds none of it.

    Raises ``FileNotFoundError`` naming the folder and the missing files when only part of a layout is
    there, and ``ValueError`` when files of two layouts are there (a family is never read from a mix).

    Example: ``family_layout("data/reconstructed", "collection")`` is ``"contract"``."""
    if family not in LAYOUTS:
        raise ValueError(f"unknown data family {family!r} (known: {', '.join(FAMILIES)})")
    d = resolve(data_dir)
    present = {name: [f for f in files if (d / f).is_file()] for name, files in LAYOUTS[family].items()}
    touched = [name for name, got in present.items() if got]
    if not touched:
        return None
    if len(touched) > 1:
        shown = "; ".join(f"{name}: {', '.join(present[name])}" for name in touched)
        raise ValueError(
            f"{d}: the {family} family is there in two layouts at once ({shown}); "
            "keep one (a family is never read from a mix)"
        )
    name = touched[0]
    missing = [f for f in LAYOUTS[family][name] if f not in present[name]]
    if missing:
        raise FileNotFoundError(
            f"{d}: the {family} family is incomplete: missing {', '.join(missing)} "
            f"(found {', '.join(present[name])}); add the missing files or remove the family's files "
            "to use the reconstruction for it (see data/raw/README.md)"
        )
    return name


def _shown(data_dir: str | os.PathLike) -> str:
    p = Path(data_dir)
    if not p.is_absolute():
        return p.as_posix()
    try:
        return resolve(p).relative_to(resolve(".")).as_posix()
    except ValueError:
        return str(p)


def resolve_families(
    data_dir: str | os.PathLike, families: Iterable[str] = FAMILIES, fallback_dir: str | os.PathLike = DEFAULT_DATA_DIR
) -> Sources:
    """Resolve each family of ``families`` separately: from ``data_dir`` if it is there, else the reconstruction.

    Returns a :class:`Sources`.  Raises ``FileNotFoundError`` when ``data_dir`` does not exist, when a family
    is incomplete (:func:`family_layout`) or when neither ``data_dir`` nor ``fallback_dir`` holds it.

    Example::

        src = resolve_families("data/raw", ["collection"])
        rows, report = selfconf.data.load_collection(src.path("collection"))
    """
    d = resolve(data_dir)
    if not d.is_dir():
        raise FileNotFoundError(f"data_dir {data_dir!s} ({d}) does not exist")
    fb = resolve(fallback_dir)
    out = Sources(data_dir=_shown(data_dir), data_is_reconstruction=is_reconstruction(d))
    for fam in dict.fromkeys(families):
        layout = family_layout(d, fam)
        if layout is not None:
            src = "reconstruction" if out.data_is_reconstruction else "original"
            out.families[fam] = FamilySource(fam, src, d, layout, False, _shown(data_dir))
            continue
        if fb == d:
            raise FileNotFoundError(f"{d}: the {fam} family is missing ({', '.join(_first_layout(fam))})")
        layout = family_layout(fb, fam)
        if layout is None:
            raise FileNotFoundError(f"the {fam} family is in neither {d} nor the reconstruction {fb}")
        out.families[fam] = FamilySource(fam, "reconstruction", fb, layout, True, _shown(fallback_dir))
    return out


def _first_layout(fam: str) -> tuple[str, ...]:
    return next(iter(LAYOUTS[fam].values()))


def original_families(data_dir: str | os.PathLike) -> set[str]:
    """The families a build with this ``data_dir`` reads from the original package.

    Empty for the reconstruction itself and for a folder that holds no family.  Example: with the graded
    collections alone in ``data/raw``, ``original_families("data/raw") == {"collection"}``."""
    return set(resolve_families(data_dir).of_source("original"))


def section_sources(data_dir: str | os.PathLike) -> dict[str, dict[str, str]]:
    """``{section: {family: "original" | "reconstruction"}}`` for every paper section.

    A section that computes from rows maps the families of :data:`SECTION_FAMILIES`; a restating section
    (:data:`RESTATING_SECTIONS`) maps every family; the diagnostic appendix maps none.  Meant for the audit,
    which states per section where its numbers came from.  Example: with only the collection in
    ``data/raw``, ``section_sources("data/raw")["result2"] == {"ladder": "reconstruction"}``."""
    every = resolve_families(data_dir).as_dict()
    out = {sec: {f: every[f] for f in fams} for sec, fams in SECTION_FAMILIES.items()}
    out.update({sec: dict(every) for sec in RESTATING_SECTIONS})
    return out


def _summary(by_family: dict[str, str]) -> str | None:
    kinds = set(by_family.values())
    if not kinds:
        return None
    return kinds.pop() if len(kinds) == 1 else "mixed"


def claim_sources(data_dir: str | os.PathLike, claims: list[dict]) -> dict[str, str | None]:
    """Per claim of the manifest: ``"original"``, ``"reconstruction"``, ``"mixed"`` or ``None``.

    A claim takes the source of its section (:func:`section_sources`); a repeat (``same_as``) the source of
    the claim it repeats, followed to the end of the chain; an ``external`` (quoted) claim, or one of a
    section that reads no rows, gets ``None``.  ``"mixed"`` is for a section whose families come from both
    sources (the audit cannot tell which family a single number of such a section used).

    Example: ``claim_sources("data/reconstructed", load_claims()["claims"])["t1_google_n"]`` is
    ``"reconstruction"``."""
    secs = section_sources(data_dir)
    by_id = {c["id"]: c for c in claims}
    out: dict[str, str | None] = {}
    for c in claims:
        root, seen = c, {c["id"]}
        while root.get("same_as") in by_id and root["same_as"] not in seen:
            root = by_id[root["same_as"]]
            seen.add(root["id"])
        if root.get("kind") == "external" or c.get("kind") == "external":
            out[c["id"]] = None
            continue
        sec = root.get("section")
        out[c["id"]] = _summary(secs[sec] if sec in secs else {})
    return out
