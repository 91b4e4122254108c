"""Named random streams: one generator per (page seed, name), the book's one derivation.

A bootstrap of one model, one panel or one contrast must not depend on which other models, panels or
contrasts are computed, nor on the order of computation.  Each therefore draws from its own stream,
derived from the page seed and the *name* of the quantity by :func:`stream`::

    numpy.random.default_rng(numpy.random.SeedSequence(seed, spawn_key=key(names)))

where ``key(names)`` lists, for each name in turn, the number of UTF-8 bytes of the name followed by
those bytes (one word each), after the number of names.  That encoding is injective: distinct name
tuples give distinct keys (two names of equal length and equal letter sum, such as ``"ab"`` and
``"ba"``, included), and a seed below 2**128 fills the SeedSequence's entropy pool without overlapping
the key, so distinct ``(seed, names)`` give distinct SeedSequence inputs.  NumPy's SeedSequence hashes
the words into the generator's state, so the streams are statistically independent; the derivation
uses no salted hash (unlike Python's ``hash``), so the same inputs give the same stream on every
platform and run.

References
----------
O'Neill, M. E. (2015). PCG: a family of simple fast space-efficient statistically good algorithms for
random number generation (the seeding scheme NumPy's ``SeedSequence`` follows).  NumPy documentation,
"Parallel random number generation" (``SeedSequence`` and ``spawn_key``).

Examples
--------
>>> a = stream(20260801, "model", "moonshot").integers(0, 10**6, 3)
>>> b = stream(20260801, "model", "moonshot").integers(0, 10**6, 3)
>>> bool((a == b).all())
True
>>> bool((stream(1, "ab").integers(0, 10**9, 4) == stream(1, "ba").integers(0, 10**9, 4)).all())
False
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

__all__ = ["name_key", "stream"]


def name_key(*names: str) -> tuple[int, ...]:
    """The injective word encoding of ``names`` used as the SeedSequence ``spawn_key`` of :func:`stream`.

    Definition: ``(len(names), len(b_1), *b_1, len(b_2), *b_2, ...)`` with ``b_i`` the UTF-8 bytes of
    ``str(names[i])``.  Reading the words back left to right recovers every name, so distinct name
    tuples never share a key.

    >>> name_key("ab"), name_key("ba"), name_key("a", "b")
    ((1, 2, 97, 98), (1, 2, 98, 97), (2, 1, 97, 1, 98))
    """
    key: list[int] = [len(names)]
    for name in names:
        b = str(name).encode("utf-8")
        key.append(len(b))
        key.extend(b)
    return tuple(key)


def stream(seed: int, *names: str) -> np.random.Generator:
    """The random generator of the quantity ``names`` under page seed ``seed``.

    Definition: ``default_rng(SeedSequence(seed, spawn_key=name_key(*names)))`` (:func:`name_key`);
    ``seed`` is a non-negative integer below 2**128.  Same ``(seed, names)`` -> same stream; distinct
    -> distinct SeedSequence inputs, statistically independent streams (module docstring).

    Reference: NumPy, ``numpy.random.SeedSequence`` (``spawn_key``).

    >>> x = stream(7, "panel:CN").random(2)
    >>> bool((x == stream(7, "panel:CN").random(2)).all()), bool((x == stream(8, "panel:CN").random(2)).all())
    (True, False)
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, Integral):
        raise TypeError(f"seed: expected a non-negative int, got {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed < 2**128:
        raise ValueError(f"seed: must be in [0, 2**128), got {seed}")
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=name_key(*names)))
