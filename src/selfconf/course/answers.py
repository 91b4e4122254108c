"""What an exercise check accepts, and what its message may say: one helper per kind of answer.

Every check of the teaching notebooks (``notebooks/2x_*.py``, declared in :data:`selfconf.course.grading.EXERCISES`)
compares a student's answer with a value it recomputes, through these functions:

* a number is accepted in any real type or one-element container (``int``, ``float``, a numpy scalar, a 0-d
  or one-element array, a one-element list), and at the precision the page prints it: the tolerance is half
  a unit of the last printed digit (``decimals=3`` accepts anything within 0.0005), so typing the page's
  four-decimal ECE passes;
* a whole number is accepted in any integer type (``numpy.int64`` included) or as a float with no fraction;
* a degenerate answer (``None``, text, a single number where an array is expected, an array of the wrong
  dimensionality or length, a function that fails on an array) gets a sentence saying what is wrong with its
  form, never a traceback;
* an answer left as ``...`` (the student notebook's blank) says "not written yet", never "wrong";
* a failure message names the variable and what to look at, and **never the expected value** (a test runs
  every helper with wrong answers and looks for it), so a check cannot be passed by copying its message.

Each helper raises ``AssertionError`` with that message, which otter-grader shows under the exercise's
"Not yet" hint.

Reference: otter-grader documentation, "Python test files" (exception-based tests).

Example
-------
>>> number("ece_hand", np.float64(0.27387), 0.273866, decimals=4)
0.27387
>>> try:
...     number("ece_hand", ..., 0.273866)
... except AssertionError as e:
...     print(e)
ece_hand is not written yet (replace the ... with your answer)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["NOT_WRITTEN", "as_number", "number", "whole", "same_set", "array", "tolerance", "precision_note"]

#: The message for an answer left blank.
NOT_WRITTEN = "{name} is not written yet (replace the ... with your answer)"


def tolerance(decimals: int | None) -> float:
    """Half a unit of the last printed digit: ``tolerance(3) == 0.0005``; ``None`` means exact (1e-9).

    >>> tolerance(4)
    5e-05
    """
    return 1e-9 if decimals is None else 0.5 * 10.0 ** (-decimals)


def precision_note(decimals: int | None) -> str:
    """The sentence a failure message adds about precision: how close an answer must be, and why.

    >>> precision_note(3)
    'an answer within 0.0005 of the right value passes: half a unit of the 3rd decimal, the page prints it with 3'
    """
    if decimals is None:
        return "it must be exact"
    nth = {1: "1st", 2: "2nd", 3: "3rd"}.get(decimals, f"{decimals}th")
    return (
        f"an answer within {tolerance(decimals):.{decimals + 1}f} of the right value passes: half a unit of the "
        f"{nth} decimal, the page prints it with {decimals}"
    )


def as_number(name: str, got: Any) -> float:
    """``got`` as a float when it is one real number in any type or one-element container; else AssertionError.

    >>> as_number("x", np.array([0.5])), as_number("x", [2])
    (0.5, 2.0)
    """
    if got is Ellipsis:
        raise AssertionError(NOT_WRITTEN.format(name=name))
    if isinstance(got, bool | np.bool_) or isinstance(got, str | bytes) or got is None:
        raise AssertionError(f"{name} is not a number yet")
    if isinstance(got, numbers.Real):
        return float(got)
    try:
        arr = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} is not a number yet") from None
    if arr.size != 1:
        raise AssertionError(f"{name} should be one number, not {arr.size} values")
    return float(arr.reshape(-1)[0])


def number(name: str, got: Any, want: float, decimals: int | None = None) -> float:
    """Accept ``got`` when it is within :func:`tolerance` (``decimals``) of ``want``; return it as a float.

    The message on failure says the answer is not right yet and how close it must be (:func:`precision_note`),
    never ``want``.

    >>> number("ece_hand", 0.274, 0.273866, decimals=3)
    0.274
    """
    x = as_number(name, got)
    if not np.isfinite(x):
        raise AssertionError(f"{name} is not a finite number (it is {x})")
    if abs(x - float(want)) > tolerance(decimals) + 1e-12:
        raise AssertionError(f"{name} is not right yet ({precision_note(decimals)})")
    return x


def whole(name: str, got: Any, want: int) -> int:
    """Accept a whole number equal to ``want`` in any integer type (or a float with no fraction).

    >>> whole("n", np.int64(7), 7)
    7
    """
    x = as_number(name, got)
    if x != round(x):
        raise AssertionError(f"{name} should be a whole number")
    if int(round(x)) != int(want):
        raise AssertionError(f"{name} is not right yet")
    return int(round(x))


def same_set(name: str, got: Any, want: set) -> set:
    """Accept any collection of strings (set, list, tuple) holding exactly the names in ``want``.

    >>> sorted(same_set("terms", ["b", "a"], {"a", "b"}))
    ['a', 'b']
    """
    if got is Ellipsis:
        raise AssertionError(NOT_WRITTEN.format(name=name))
    if isinstance(got, str):
        got = {got}
    try:
        items = {str(g).strip().lower() for g in got}
    except TypeError:
        raise AssertionError(f"{name} is not a collection of names yet") from None
    if items != {str(w).lower() for w in want}:
        raise AssertionError(f"{name} does not hold the right names yet")
    return items


def array(name: str, got: Any, want: Any, decimals: int | None = None) -> np.ndarray:
    """Accept any array-like of numbers with ``want``'s length and each entry within :func:`tolerance`.

    >>> array("acc", [0.5, 0.25], np.array([0.5, 0.25])).tolist()
    [0.5, 0.25]
    """
    if got is Ellipsis:
        raise AssertionError(NOT_WRITTEN.format(name=name))
    ref = np.asarray(want, dtype=float).reshape(-1)
    if got is None:
        raise AssertionError(
            f"{name} is None: it should be an array of {ref.size} numbers (did a function return nothing?)"
        )
    if callable(got):
        raise AssertionError(f"{name} is a function: it should be an array of {ref.size} numbers (call it)")
    if isinstance(got, str | bytes) or np.asarray(got, dtype=object).dtype.kind in "US":
        raise AssertionError(f"{name} is text: it should be an array of {ref.size} numbers")
    try:
        raw = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} is not an array of numbers yet (some entry is not a number)") from None
    if raw.ndim == 0:
        raise AssertionError(f"{name} is one number: it should be an array of {ref.size} numbers, one per answer")
    if raw.ndim != 1:
        raise AssertionError(
            f"{name} is a {raw.ndim}-dimensional array of shape {raw.shape}: it should be one-dimensional, "
            f"{ref.size} numbers in a row"
        )
    arr = raw
    if arr.shape != ref.shape:
        raise AssertionError(f"{name} should hold {ref.size} values, not {arr.size}")
    if not np.all(np.isfinite(arr) | ~np.isfinite(ref)):
        raise AssertionError(f"{name} has missing (NaN) or infinite entries")
    if not np.allclose(arr, ref, rtol=0, atol=tolerance(decimals) + 1e-12, equal_nan=True):
        raise AssertionError(f"{name} is not right yet in every entry ({precision_note(decimals)})")
    return arr
