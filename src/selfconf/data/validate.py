"""Row validation: the one place that decides whether a row's values are valid, and how an error names them.

Used by the book's loaders (:mod:`selfconf.data.collection`, :mod:`selfconf.data.families`), by
``selfconf report`` (:mod:`selfconf.data.rows` and :mod:`selfconf.report.core`) and by
``selfconf collect`` (:mod:`selfconf.cli.collect`).  Every check either returns the typed value
or raises an error whose message names the file, the line (or row) and the field.

Two kinds of checks, one set of rules:

* **one value at a time** (the loaders that read row by row): :func:`binary`,
  :func:`percent_integer`, :func:`stated_confidence`, :func:`nonempty`, :func:`choice`.  They raise
  :class:`FieldError` (the problem, without its location); the caller adds the location, e.g.
  ``DataError(path, line, field, str(err))`` (:func:`at`);
* **whole columns** (``selfconf report``, numpy): :func:`resolve_scale` (the confidence scale
  and its range), :func:`check_binary`, :func:`duplicated`, :func:`require_columns`.  They take a
  ``where(i)`` callable naming row ``i`` (``"rows.csv: line 7"``) and raise ``ValueError``.

Vocabulary (the same words everywhere): missing values are :data:`NULL_WORDS` (after trimming,
any case); a binary flag is one of :data:`TRUE_WORDS` / :data:`FALSE_WORDS` for the report's
lenient reading, or exactly 0/1/true/false (:data:`STRICT_TRUE` / :data:`STRICT_FALSE`) for the
book's contract files; a confidence on the percent scale lies in [0, :data:`PERCENT_MAX`].

Reference: the row contract of ``data/README.md`` and the input rules of ``selfconf report --help``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "NULL_WORDS",
    "TRUE_WORDS",
    "FALSE_WORDS",
    "STRICT_TRUE",
    "STRICT_FALSE",
    "PERCENT_MAX",
    "SCALES",
    "DataError",
    "FieldError",
    "at",
    "binary",
    "percent_integer",
    "stated_confidence",
    "nonempty",
    "choice",
    "SeenKeys",
    "missing_columns",
    "require_columns",
    "resolve_scale",
    "check_binary",
    "duplicated",
    "first_duplicate",
]

NULL_WORDS = ("", "nan", "null", "none", "na")
TRUE_WORDS = ("1", "1.0", "true", "t", "yes", "y")
FALSE_WORDS = ("0", "0.0", "false", "f", "no", "n")
STRICT_TRUE = ("1", "true")
STRICT_FALSE = ("0", "false")
#: Upper end of the percent confidence scale (the paper's elicitation: integers 0-100).
PERCENT_MAX = 100.0
SCALES = ("auto", "percent", "unit")


# --------------------------------------------------------------------------------------------
# errors and locations
# --------------------------------------------------------------------------------------------


class DataError(ValueError):
    """A malformed input value; the message names file, line and field (``"f.csv, line 3, field 'x': ..."``).

    Example: ``str(DataError("a.csv", 3, "correct", "expected 0 or 1, got '2'"))`` is
    ``"a.csv, line 3, field 'correct': expected 0 or 1, got '2'"``.
    """

    def __init__(self, path: Path | str, line: int | None, field: str | None, msg: str):
        where = f"{path}"
        if line is not None:
            where += f", line {line}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {msg}")
        self.path, self.line, self.field = str(path), line, field


class FieldError(ValueError):
    """What is wrong with one value, without where it is; the caller adds the location (:func:`at`).

    Example: ``str(FieldError("missing value"))`` is ``"missing value"``.
    """


def at(path: Path | str, line: int | None, field: str | None, check: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """``check(*args, **kw)``, with a :class:`FieldError` turned into a :class:`DataError` at (path, line, field).

    Example: ``at("a.csv", 2, "correct", binary, "1")`` is ``1``; with ``"2"`` it raises
    ``DataError("a.csv, line 2, field 'correct': expected 0 or 1, got '2'")``.
    """
    try:
        return check(*args, **kw)
    except FieldError as exc:
        raise DataError(path, line, field, str(exc)) from None


# --------------------------------------------------------------------------------------------
# one value at a time
# --------------------------------------------------------------------------------------------


def binary(val: Any, *, allow_empty: bool = False) -> int | None:
    """A 0/1 flag of a contract file: ``0``, ``1``, ``true``, ``false`` (any case, spaces trimmed) or a bool.

    Empty (None or "") is None when ``allow_empty``, else an error.

    Example: ``binary(" True ")`` is ``1``; ``binary("", allow_empty=True)`` is None.
    """
    if val is None or val == "":
        if allow_empty:
            return None
        raise FieldError("missing value (expected 0 or 1)")
    if isinstance(val, bool):
        return int(val)
    s = str(val).strip().lower()
    if s in ("0", "1"):
        return int(s)
    if s in ("true", "false"):
        return int(s == "true")
    raise FieldError(f"expected 0 or 1, got {val!r}")


def percent_integer(val: Any, *, allow_empty: bool = False) -> int | None:
    """A stated confidence of a contract file: an integer in [0, 100] (``"85"``, ``85``, ``85.0``).

    Reference: the elicitation of Chernets (2026), Section 2 (integers 0-100).

    Example: ``percent_integer("85")`` is ``85``; ``percent_integer("85.5")`` raises.
    """
    if val is None or val == "":
        if allow_empty:
            return None
        raise FieldError("missing confidence")
    if isinstance(val, bool):
        raise FieldError(f"expected an integer 0-100, got {val!r}")
    try:
        f = float(val)
    except (TypeError, ValueError):
        raise FieldError(f"expected an integer 0-100, got {val!r}") from None
    if not np.isfinite(f) or f != int(f):
        raise FieldError(f"expected an integer 0-100, got {val!r}")
    if not 0 <= f <= PERCENT_MAX:
        raise FieldError(f"confidence {val!r} out of range 0-100")
    return int(f)


_NUM = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)\s*(%|percent)?\s*$", re.I)


def stated_confidence(value: Any) -> int | float:
    """A confidence as a model states it in a reply: a number, ``"85"``, ``"85%"``, ``"85 percent"``, in [0, 100].

    Integral values come back as ``int``.  Used by ``selfconf collect`` to read replies (a failure
    there is a *parse failure* of the reply, recorded, not an error of the run).

    Example: ``stated_confidence("85%")`` is ``85``; ``stated_confidence(150)`` raises.
    """
    if isinstance(value, bool) or value is None:
        raise FieldError(f"confidence is {value!r}, not a number")
    if isinstance(value, (int, float)):
        x = float(value)
    elif isinstance(value, str):
        m = _NUM.match(value)
        if not m:
            raise FieldError(f"confidence {value!r} is not a number")
        x = float(m.group(1))
    else:
        raise FieldError(f"confidence has type {type(value).__name__}")
    if not math.isfinite(x) or x < 0 or x > PERCENT_MAX:
        raise FieldError(f"confidence {value!r} is outside 0-100")
    return int(x) if x.is_integer() else x


def nonempty(val: Any, message: str = "missing value") -> str:
    """The value as a stripped, non-empty string; None or blank raises ``FieldError(message)``.

    Example: ``nonempty(" m1 ")`` is ``"m1"``.
    """
    s = "" if val is None else str(val).strip()
    if not s:
        raise FieldError(message)
    return s


def choice(val: Any, allowed: Sequence[str], *, allow_empty: bool = False) -> str:
    """The value if it is one of ``allowed`` (exact), ``""`` when empty and ``allow_empty``.

    Example: ``choice("llm", ("string", "llm"))`` is ``"llm"``.
    """
    s = "" if val is None else str(val)
    if s == "" and allow_empty:
        return ""
    if s not in allowed:
        raise FieldError(f"unknown value {val!r} (expected one of {', '.join(allowed)})")
    return s


class SeenKeys:
    """First line of every key seen: :meth:`add` returns the earlier line of a repeated key (else None).

    Example: ``s = SeenKeys(); s.add(("m", "1"), 2), s.add(("m", "1"), 5)`` is ``(None, 2)``.
    """

    def __init__(self) -> None:
        self._first: dict[Hashable, int] = {}

    def add(self, key: Hashable, line: int) -> int | None:
        if key in self._first:
            return self._first[key]
        self._first[key] = line
        return None

    def __contains__(self, key: Hashable) -> bool:
        return key in self._first

    def __getitem__(self, key: Hashable) -> int:
        return self._first[key]


# --------------------------------------------------------------------------------------------
# whole columns
# --------------------------------------------------------------------------------------------


def missing_columns(required: Iterable[str], present: Iterable[str]) -> list[str]:
    """The required column names that are not present, in the order required.

    Example: ``missing_columns(["model", "correct"], ["model"])`` is ``["correct"]``.
    """
    have = set(present)
    return [c for c in required if c not in have]


def require_columns(
    source: Any, required: Iterable[str], present: Sequence[str], *, show_present: bool = True, hint: str = ""
) -> None:
    """Raise ``ValueError("<source>: missing column(s) a, b (has: x, y)<hint>")`` if a required column is absent.

    Example: ``require_columns("rows.csv", ["model"], ["model", "x"])`` returns None.
    """
    missing = missing_columns(required, present)
    if missing:
        has = f" (has: {', '.join(map(str, present)) or 'none'})" if show_present else ""
        raise ValueError(f"{source}: missing column(s) {', '.join(missing)}{has}{hint}")


def _first_rows(mask: np.ndarray, where: Callable[[int], str], k: int = 3) -> str:
    idx = np.flatnonzero(mask)[:k]
    return "; ".join(where(int(i)) for i in idx)


def resolve_scale(
    raw: np.ndarray, percent_sign: np.ndarray, scale: str, where: Callable[[int], str]
) -> tuple[str, str]:
    """Check a confidence column and decide its scale; return ``(scale, reason)``.

    ``raw`` are the confidences as written (NaN = missing), ``percent_sign`` marks values written
    with ``%``, ``where(i)`` names row i.  Rules (``--confidence-scale``): ``percent`` (0-100),
    ``unit`` (0-1) or ``auto``: a value above 1, or one written with ``%``, means percent; all
    values within [0, 1] with at least one strictly between 0 and 1 means unit; values all
    exactly 0 or 1 with at least one 1 are ambiguous (an error asking for the flag; all 0 means
    the same on either scale); values above 1 together with fractional values at or below 1 are
    a mixed file (an error naming the first rows of each kind).  Non-finite, negative and
    out-of-range values are errors naming the first such row; ``%`` is refused under ``unit``.

    Reference: the elicitation scale of Chernets (2026), Section 2 (integers 0–100).

    Example: ``resolve_scale(np.array([0.2, 0.9]), np.zeros(2, bool), "auto", str)`` is
    ``("unit", ...)``.
    """
    if scale not in SCALES:
        raise ValueError(f"--confidence-scale must be one of {', '.join(SCALES)}, got {scale!r}")
    present = ~np.isnan(raw)
    values = raw if present.all() else raw[present]  # (no copy in the usual case: nothing missing)
    if not np.isfinite(values).all():
        i = int(np.flatnonzero(present & ~np.isfinite(raw))[0])
        raise ValueError(f"{where(i)}: field 'confidence' must be finite, got {float(raw[i])}")
    lowest = float(values.min()) if values.size else 0.0
    highest = float(values.max()) if values.size else 0.0
    if lowest < 0:
        i = int(np.flatnonzero(present & (raw < 0))[0])
        raise ValueError(f"{where(i)}: field 'confidence' = {raw[i]:g} is negative")
    any_percent = bool(percent_sign.any())
    if scale == "unit" and any_percent:
        raise ValueError(
            f"{where(int(np.flatnonzero(percent_sign)[0]))}: confidence written with '%' "
            "but --confidence-scale unit was given (use percent or auto)"
        )
    if scale == "auto":
        # the masks below are built only over what can be in them: values at or below 1
        # (fractional ones), and values above 1 or written with % (a whole pass only if needed)
        above_any = highest > 1 or bool((percent_sign & present).any())
        low = present & (raw <= 1)
        if any_percent:
            low &= ~percent_sign
        low_idx = np.flatnonzero(low)
        frac_idx = low_idx[raw[low_idx] != np.floor(raw[low_idx])]
        if above_any and frac_idx.size:
            above = present & ((raw > 1) | percent_sign)
            frac = np.zeros(raw.size, dtype=bool)
            frac[frac_idx] = True
            raise ValueError(
                "confidences mix scales: values above 1 (or written with %) at "
                f"{_first_rows(above, where)}, and fractional values at or below 1 at {_first_rows(frac, where)}; "
                "fix the file, or pass --confidence-scale percent or unit to state the scale"
            )
        if above_any:
            scale, reason = "percent", "auto-detected: values above 1 (or written with %)"
        elif frac_idx.size:
            scale, reason = "unit", "auto-detected: all values within [0, 1], some strictly between"
        elif values.size and highest != 0:
            raise ValueError(
                "every confidence is exactly 0 or 1, which fits both the 0-1 and the 0-100 scale; "
                "pass --confidence-scale unit or --confidence-scale percent"
            )
        elif present.any():
            scale, reason = "unit", "auto-detected: every value is 0, which means the same on either scale"
        else:
            scale, reason = "unit", "no confidences present"
    else:
        reason = "given by --confidence-scale"
    hi = PERCENT_MAX if scale == "percent" else 1.0
    if highest > hi:
        i = int(np.flatnonzero(present & (raw > hi))[0])
        hint = " (0-100 values? use --confidence-scale percent or auto)" if scale == "unit" and raw[i] <= 100 else ""
        raise ValueError(f"{where(i)}: field 'confidence' = {raw[i]:g} is outside the {scale} scale [0, {hi:g}]{hint}")
    return scale, reason


def check_binary(bad: np.ndarray, where: Callable[[int], str], name: str, value: Callable[[int], Any]) -> None:
    """Raise ``ValueError("<where(i)>: field '<name>' must be 0/1 (or true/false), got <value(i)!r>")`` at the
    first row ``i`` flagged in ``bad`` (a boolean mask of values that are neither missing nor a 0/1 word).

    Example: ``check_binary(np.array([False, True]), "row {}".format, "correct", ["1", "2"].__getitem__)``
    raises ``ValueError("row 1: field 'correct' must be 0/1 (or true/false), got '2'")``.
    """
    idx = np.flatnonzero(bad)
    if idx.size:
        i = int(idx[0])
        raise ValueError(f"{where(i)}: field '{name}' must be 0/1 (or true/false), got {value(i)!r}")


def duplicated(key: np.ndarray) -> np.ndarray:
    """True for every entry whose value occurred earlier in ``key`` (non-negative integers).

    Example: ``duplicated(np.array([3, 1, 3])).tolist()`` is ``[False, False, True]``.
    """
    if not key.size:
        return np.zeros(0, dtype=bool)
    if int(key.max()) < 8 * key.size + 1_000_000:  # dense keys: counting, no sort
        if np.bincount(key).max() <= 1:
            return np.zeros(key.size, dtype=bool)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    dup = np.zeros(key.size, dtype=bool)
    dup[order[1:]] = ks[1:] == ks[:-1]
    return dup


def first_duplicate(key: np.ndarray) -> tuple[int, int] | None:
    """``(i, j)``: the first row ``i`` repeating an earlier key and the row ``j`` where that key first occurs.

    Example: ``first_duplicate(np.array([3, 1, 3]))`` is ``(2, 0)``; None without repeats.
    """
    dup = duplicated(key)
    if not dup.any():
        return None
    i = int(np.flatnonzero(dup)[0])
    return i, int(np.flatnonzero(key == key[i])[0])
