"""Read the paper's printed numbers (``data/paper/claims.yaml``) as fitting targets.

Only the generator and the reconstruction page may read these targets; analysis code never
does.  A printed token with ``d`` decimals stands for every real number that formats to it
with ``format(x, f".{d}f")``, i.e. (to within half a unit in the last place) the interval
``[value - 0.5*10**-d, value + 0.5*10**-d]``; the generator aims at the middle of it.

The manifest is read by the book's one loader, :func:`selfconf.claims.judging.load_manifest`
(cached); :class:`Targets` is a view over its :class:`~selfconf.claims.judging.Manifest`, so a
repeat (``same_as``) resolves to its canonical claim here as in the audit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from selfconf.claims.judging import CLAIMS, Manifest, load_manifest

__all__ = ["Targets", "load_targets", "printed_values", "CLAIMS_PATH"]

CLAIMS_PATH = CLAIMS


@dataclass
class Targets:
    """The claim manifest, indexed by id, with helpers returning target intervals.

    ``raw`` is the manifest document; ``manifest`` its :class:`~selfconf.claims.judging.Manifest`
    (built from ``raw`` when not given); ``by_id`` and :meth:`canonical` are the manifest's.
    """

    raw: dict
    manifest: Manifest | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.manifest is None:
            self.manifest = Manifest(self.raw["claims"], self.raw)
        self.by_id = self.manifest.by_id

    def canonical(self, cid: str) -> dict:
        """The claim a repeat (``same_as``) restates, or the claim itself."""
        assert self.manifest is not None  # set in __post_init__
        return self.manifest.canonical(cid)

    def values(self) -> dict[str, float]:
        """``{claim id: printed number}`` for every claim whose ``value`` is a number."""
        return {c["id"]: float(c["value"]) for c in self.raw["claims"] if isinstance(c.get("value"), (int, float))}

    def value(self, cid: str) -> float:
        """The printed number of claim ``cid`` (percent as 0-100, AUROC as 0-1)."""
        return float(self.by_id[cid]["value"])

    def decimals(self, cid: str) -> int:
        return int(self.by_id[cid]["decimals"])

    def interval(self, cid: str, scale: float = 1.0) -> tuple[float, float]:
        """Closed interval of unrounded values that print as claim ``cid`` (times ``scale``)."""
        v = self.value(cid)
        h = 0.5 * 10 ** (-self.decimals(cid))
        return ((v - h) * scale, (v + h) * scale)

    def printed(self, cid: str) -> str:
        return str(self.by_id[cid]["printed"])

    @property
    def panels(self) -> dict:
        return self.raw["panels"]

    @property
    def models(self) -> dict:
        return self.raw["models"]


def load_targets(path: str | Path = CLAIMS_PATH) -> Targets:
    """The claim manifest as fitting targets (default: the project copy ``data/paper/claims.yaml``),
    read by :func:`selfconf.claims.judging.load_manifest`.

    Example
    -------
    >>> load_targets().interval("t1_google_n")
    (1460.5, 1461.5)
    """
    m = load_manifest(path)
    return Targets(m.raw, m)


def printed_values(path: str | Path = CLAIMS_PATH) -> dict[str, float]:
    """``{claim id: printed number}`` of the manifest (:meth:`Targets.values`); the generators'
    targets (analysis code never reads them).

    >>> printed_values()["t1_google_n"]
    1461.0
    """
    return load_targets(path).values()
