"""Read the paper's printed numbers (``data/paper/claims.yaml``) as fitting targets.

Only the generator and the reconstruction page may read these targets; analysis code never
does.  A printed token with ``d`` decimals stands for every real number that formats to it
with ``format(x, f".{d}f")``, i.e. (to within half a unit in the last place) the interval
``[value - 0.5*10**-d, value + 0.5*10**-d]``; the generator aims at the middle of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from selfconf.data.paths import resolve

__all__ = ["Targets", "load_targets", "CLAIMS_PATH"]

CLAIMS_PATH = "data/paper/claims.yaml"


@dataclass
class Targets:
    """The claim manifest, indexed by id, with helpers returning target intervals."""

    raw: dict

    def __post_init__(self):
        self.by_id = {c["id"]: c for c in self.raw["claims"]}

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
    """Load the claim manifest (default: the project copy ``data/paper/claims.yaml``)."""
    p = resolve(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: claim manifest missing")
    return Targets(yaml.safe_load(p.read_text(encoding="utf-8")))
