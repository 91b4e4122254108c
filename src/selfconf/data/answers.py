"""Answer strings: the one normalisation and the one refusal lexicon of the project.

``selfconf grade`` (:mod:`selfconf.cli.grade`), the diagnostic battery
(:mod:`selfconf.cli.diagnose.scoring`) and the collection loader (:mod:`selfconf.data.collection`,
the ``answer_class`` of a raw record without ``answer_norm``) all call this module; nothing else
normalises an answer.

Normalisation (:func:`normalize`), in order
-------------------------------------------
Unicode NFKD with accents removed; case folded; thousands separators inside numbers removed
("1,000" and "1 000" -> "1000"); "%" spelled "percent"; punctuation replaced by spaces except a
decimal point between digits; number words zero-twenty replaced by digits; decimals without trailing
zeros ("3.50" -> "3.5", "12.0" -> "12"); the articles "a", "an", "the" removed, except from a
single-word answer (a multiple-choice "A" is an answer, not an article); whitespace collapsed.
The article and punctuation steps are those of SQuAD-style exact-match grading (Rajpurkar et al. 2016).

Refusals (:func:`is_refusal`)
-----------------------------
An answer is a refusal when its raw text matches :data:`RAW_REFUSAL_PATTERNS` (case-insensitive) or
its normalised form matches any of :data:`REFUSAL_PATTERNS` (searched with :func:`re.search`).

References
----------
Rajpurkar, P., Zhang, J., Lopyrev, K. & Liang, P. (2016). SQuAD: 100,000+ questions for machine
comprehension of text. EMNLP (the exact-match normalisation).

Examples
--------
>>> normalize("The  Eiffel Tower!"), normalize("A")
('eiffel tower', 'a')
>>> is_refusal("I'm sorry, I cannot determine that."), is_refusal("Na")
(True, False)
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

__all__ = ["normalize", "strip_preamble", "is_refusal", "REFUSAL_PATTERNS", "RAW_REFUSAL_PATTERNS"]

_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_ARTICLES = {"a", "an", "the"}
_PREAMBLE = re.compile(r"^(?:final answer|the answer is|answer|it is|it's|its)\s*[:\-]?\s*", re.I)


def normalize(text: Any) -> str:
    """Normalise an answer string for equivalence checks (rules in the module docstring).

    ``None`` normalises to ``""``; any other value is taken as ``str(text)``.

    Reference: Rajpurkar et al. (2016), SQuAD exact match (articles and punctuation).

    >>> normalize("The  Eiffel Tower!")
    'eiffel tower'
    >>> normalize("1,000.50 %")
    '1000.5 percent'
    >>> normalize("Twelve")
    '12'
    >>> normalize("A")  # a multiple-choice letter is kept
    'a'
    """
    if text is None:
        return ""
    s = unicodedata.normalize("NFKD", str(text))
    s = "".join(ch for ch in s if not unicodedata.combining(ch)).casefold()
    prev = None
    while prev != s:  # "1,234,567" needs several passes
        prev = s
        s = re.sub(r"(?<=\d)[,\u00a0\u202f ](?=\d{3}(?!\d))", "", s)
    s = s.replace("%", " percent ")
    s = re.sub(r"(?<=\d)\.(?=\d)", "\x00", s)  # protect decimal points
    s = re.sub(r"[^\w\s\x00]|_", " ", s)
    s = s.replace("\x00", ".")
    words = []
    tokens = s.split()
    for w in tokens:
        w = _NUMBER_WORDS.get(w, w)
        if re.fullmatch(r"\d+\.\d+", w):
            w = w.rstrip("0").rstrip(".")
        if w not in _ARTICLES or len(tokens) == 1:  # a lone "A" is an answer, not an article
            words.append(w)
    return " ".join(words)


def strip_preamble(text: Any) -> str:
    """``text`` without a leading "the answer is" style preamble (final answer, answer, it is, it's, its),
    an optional ``:`` or ``-`` and the spaces after it; matched case-insensitively.

    >>> strip_preamble("The answer is: Paris")
    'Paris'
    """
    return _PREAMBLE.sub("", str(text).strip())


#: Refusal lexicon: regular expressions searched in the *normalised* answer (so apostrophes are
#: spaces: "don't" is "don t").  Written for this project; an answer matching any of them counts
#: as a refusal (graded incorrect, ``refusal = 1``), unless it already equals the gold answer.
REFUSAL_PATTERNS: tuple[str, ...] = (
    r"^$",  # empty answer
    r"^(?:unknown|unsure|uncertain|none known|no idea|not known|abstain|pass|\?+)$",
    r"\bi (?:do not|don t|dont) know\b",
    r"\b(?:do not|don t|dont) know\b",
    r"\bnot (?:sure|certain|known)\b",
    r"\bno idea\b",
    r"\b(?:cannot|can t|cant|unable to|not able to) "
    r"(?:answer|determine|say|verify|confirm|find|recall|provide|know|identify)\b",
    r"\bi (?:cannot|can t|am unable|m unable|am not able|m not able)\b",
    r"\b(?:no|not enough|insufficient|no reliable|limited) (?:information|data|knowledge|record|records)\b",
    r"\bi (?:do not|don t) have (?:information|access|enough|data|the|that|reliable)\b",
    r"\bbeyond my (?:knowledge|training)\b",
    r"\bknowledge cutoff\b",
    r"\bno answer\b",
    r"\bnot available\b",
    r"\babstain\b",
)
_REFUSAL_RE = [re.compile(p) for p in REFUSAL_PATTERNS]
#: Patterns matched against the raw answer (case-insensitive), for tokens normalisation would
#: destroy: "N/A" (normalised it would be "n", the article "a" being dropped).  Plain "NA" is
#: *not* a refusal: it is the symbol of sodium.
RAW_REFUSAL_PATTERNS: tuple[str, ...] = (r"^\s*n\s*/\s*a\s*\.?\s*$",)
_RAW_REFUSAL_RE = [re.compile(p, re.I) for p in RAW_REFUSAL_PATTERNS]


def is_refusal(answer: Any) -> bool:
    """True when ``answer`` matches :data:`RAW_REFUSAL_PATTERNS`, or its normalised form
    (:func:`normalize`) matches any of :data:`REFUSAL_PATTERNS`.

    >>> is_refusal("N/A"), is_refusal("I don't know"), is_refusal("Paris")
    (True, True, False)
    """
    if answer is not None and any(r.search(str(answer)) for r in _RAW_REFUSAL_RE):
        return True
    s = normalize(answer)
    return any(r.search(s) for r in _REFUSAL_RE)
