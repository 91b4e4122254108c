"""Prose that claims only what rows can show: a lexicon check near every glued value that is a fitted target.

With reconstructed rows, a number the generators fitted the rows to (a claim recorded in a fidelity file,
``data/reconstructed/**/fidelity_*.json``) can be restated, never *shown* by them.  :func:`findings` reads every
markdown cell of the notebooks, splits it into sentences, and reports each sentence that pastes such a value (by
its claim id, a restatement of it, or a value equal to a fitted claim's value, e.g. a comparison copy glued with an
origin) and uses one of :data:`FORBIDDEN` in the book's own voice.  Text in the paper's voice is exempt: a span
marked ``[...]{.quoted}``, text in double quotes, and the part of a sentence after "the paper" (its reading,
reported as the paper's).

Reference: the honesty rules of CONTRIBUTING.md ("Explanations claim no more than their evidence").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfconf.data.paths import resolve

__all__ = ["FORBIDDEN", "Finding", "fitted_targets", "sentences", "book_voice", "findings"]

#: Words a sentence about a fitted target must not use in the book's voice.
FORBIDDEN = ("shows", "demonstrates", "survives", "comes from", "because")
_WORD_RE = re.compile(r"\b(" + "|".join(re.escape(w) for w in FORBIDDEN) + r")\b", re.I)
_GLUE_RE = re.compile(r"\{glue:text\}`([^`:]+)(?::[^`]*)?`")
_SENT_RE = re.compile(r"(?<=[.!?;])\s+(?=[A-Z{\[(])")


@dataclass(frozen=True)
class Finding:
    notebook: str
    key: str
    claim: str
    word: str
    sentence: str


def fitted_targets(data_dir: str | Path = "data/reconstructed") -> dict[str, Any]:
    """``{claim id: recomputed value}`` of every claim the reconstruction's fidelity files record (fitted)."""
    out: dict[str, Any] = {}
    for p in sorted(resolve(data_dir).rglob("fidelity*.json")):
        claims = json.loads(p.read_text(encoding="utf-8")).get("claims") or {}
        items = claims.items() if isinstance(claims, dict) else ((c["id"], c) for c in claims)
        for cid, c in items:
            out[cid] = c.get("recomputed") if isinstance(c, dict) else None
    return out


def sentences(text: str) -> list[str]:
    """Sentences of a markdown paragraph (split after ``.``, ``!``, ``?`` or ``;`` before a capital or a role).

    >>> sentences("It is 0.5; The rest. Next one; and more")
    ['It is 0.5;', 'The rest.', 'Next one; and more']
    """
    out = []
    for para in re.split(r"\n\s*\n", text):
        out += [s.strip() for s in _SENT_RE.split(" ".join(para.split())) if s.strip()]
    return out


def book_voice(sentence: str) -> str:
    """The part of ``sentence`` said in the book's own voice (quoted spans, quotes and the paper's reading removed).

    >>> book_voice('X holds [as the paper shows]{.quoted}; the paper reads it as "survives".')
    'X holds ; '
    """
    s = re.sub(r"\[[^\]]*\]\{\.quoted\}", "", sentence)
    s = re.sub(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d", "", s)
    i = s.lower().find("the paper")
    return s if i < 0 else s[:i]


def findings(
    notebooks: str | Path = "notebooks", book_dir: str | Path = "book", data_dir: str | Path = "data/reconstructed"
):
    """Every sentence that pastes a fitted target and uses a word of :data:`FORBIDDEN` in the book's voice.

    ``book_dir`` holds the executed notebooks (their glued values link comparison copies to fitted claims by
    value); without it only claim ids and their restatements are linked.
    """
    from selfconf.book.glue import glued_values
    from selfconf.claims.judging import load_manifest

    fitted = fitted_targets(data_dir)
    m = load_manifest()
    by_value: dict[float, str] = {}
    for cid, v in fitted.items():
        if isinstance(v, float) and not float(v).is_integer():
            by_value.setdefault(v, cid)
    bd = resolve(book_dir)
    glued = glued_values(bd) if bd.is_dir() else {}
    out: list[Finding] = []
    for nb in sorted(resolve(notebooks).glob("[0-9][0-9]_*.py")):
        cells = re.split(r"^# %%.*$", nb.read_text(encoding="utf-8"), flags=re.M)
        for cell in cells:
            lines = cell.splitlines()
            if not lines or "[markdown]" not in cell.splitlines()[0] and not cell.lstrip().startswith("#"):
                continue
            text = "\n".join(ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines if ln.startswith("#"))
            for sent in sentences(text):
                for key in _GLUE_RE.findall(sent):
                    claim = None
                    if key in fitted:
                        claim = key
                    elif key in m.by_id and m.canonical(key)["id"] in fitted:
                        claim = m.canonical(key)["id"]
                    else:
                        g = glued.get(key, {}).get("value")
                        if isinstance(g, float) and g in by_value:
                            claim = by_value[g]
                    if claim is None:
                        continue
                    hit = _WORD_RE.search(book_voice(sent))
                    if hit:
                        out.append(Finding(nb.stem, key, claim, hit.group(1).lower(), sent))
    return out
