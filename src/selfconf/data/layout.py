"""Any file layout in: column mapping (``--columns``), delimiter choice and detection (``--sep``), and the
checks that keep a malformed input from costing memory or a traceback (a directory, an over-long line).

Used by :func:`selfconf.data.rows.read_file` (``selfconf report``, ``selfconf compare``).

* ``--columns model=llm,confidence=stated_confidence,correct=is_correct,item_id=qset+question_id`` names,
  for each column the report needs, the file's column that holds it; ``a+b`` joins several columns into one
  identifier, their trimmed values separated by :data:`JOIN` (``qset`` "math" and ``question_id`` "7" give the
  item id "math/7").  A missing part makes the joined value missing (an error naming file, line and field).
* ``--sep auto`` (default): the delimiter of a .csv/.tsv file is the candidate among comma, tab, semicolon and
  pipe that splits the header line into the most fields (a tie keeps the extension's: comma for .csv, tab for
  .tsv); the one found is named on stderr when it is not the extension's.  ``--sep comma|tab|semicolon|pipe``
  (or the character itself) sets it.
* A line longer than :data:`MAX_LINE_BYTES` (64 MiB) is refused before parsing, with the byte offset at which
  it starts; the scan reads the file in 1 MiB pieces, so its memory is bounded whatever the file.
"""

from __future__ import annotations

import csv
import gzip
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "JOIN",
    "MAX_LINE_BYTES",
    "SEPARATORS",
    "Layout",
    "parse_columns",
    "parse_sep",
    "detect_delimiter",
    "check_line_lengths",
    "check_input_path",
    "check_output_path",
]

#: Separator between the parts of a composite identifier (``item_id=qset+question_id``).
JOIN = "/"
#: Longest line (bytes, line end excluded) any input may have: 64 MiB.
MAX_LINE_BYTES = 64 << 20
#: Delimiter names of ``--sep`` (detection tries them in this order).
SEPARATORS = {"comma": ",", "tab": "\t", "semicolon": ";", "pipe": "|"}
_PIECE = 1 << 20


@dataclass(frozen=True)
class Layout:
    """How to read a file: ``columns`` maps a report column to the file's column(s); ``sep`` is the delimiter
    (None: detect).

    Example: ``Layout(parse_columns("model=llm"), parse_sep("tab")).sep`` is ``"\\t"``.
    """

    columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sep: str | None = None

    def sources(self, name: str) -> tuple[str, ...]:
        """The file's columns that hold report column ``name`` (``(name,)`` when not mapped)."""
        return tuple(self.columns.get(name, (name,)))

    def describe(self, name: str) -> str:
        """``"item_id (--columns item_id=qset+question_id)"`` for a mapped column, else ``name``."""
        if name not in self.columns:
            return name
        return f"{name} (--columns {name}={'+'.join(self.columns[name])})"


def parse_columns(text: str | None, allowed: tuple[str, ...] | None = None) -> dict[str, tuple[str, ...]]:
    """Parse ``"model=llm,item_id=qset+question_id"`` into ``{"model": ("llm",), "item_id": ("qset",
    "question_id")}``.  A malformed entry, an empty name or a target named twice is a ``ValueError``; with
    ``allowed``, a target outside it too.

    Reference: the ``--columns`` option of ``selfconf report`` and ``selfconf compare``.

    >>> parse_columns("model=llm, item_id = qset+question_id")
    {'model': ('llm',), 'item_id': ('qset', 'question_id')}
    """
    out: dict[str, tuple[str, ...]] = {}
    if not text:
        return out
    for entry in text.split(","):
        if not entry.strip():
            continue
        target, eq, source = entry.partition("=")
        target = target.strip()
        parts = tuple(p.strip() for p in source.split("+"))
        if not eq or not target or not all(parts):
            raise ValueError(
                f"--columns: {entry.strip()!r} is not NAME=COLUMN or NAME=COLUMN+COLUMN "
                "(e.g. model=llm,item_id=qset+question_id)"
            )
        if allowed is not None and target not in allowed:
            raise ValueError(f"--columns: unknown column {target!r}; map one of {', '.join(allowed)}")
        if target in out:
            raise ValueError(f"--columns: {target!r} is mapped twice")
        out[target] = parts
    return out


def parse_sep(text: str | None) -> str | None:
    """``None`` for ``auto`` (or nothing), else the delimiter of a name in :data:`SEPARATORS` or a single
    character.

    >>> parse_sep("semicolon"), parse_sep("|"), parse_sep("auto")
    (';', '|', None)
    """
    if text is None or text == "auto":
        return None
    if text in SEPARATORS:
        return SEPARATORS[text]
    if text == "\\t":
        return "\t"
    if len(text) == 1 and text not in '"\r\n':
        return text
    raise ValueError(f"--sep: {text!r} is not auto, {', '.join(SEPARATORS)} or a single character")


def detect_delimiter(header_line: str, default: str) -> str:
    """The delimiter that splits ``header_line`` into the most fields among ``default`` and
    :data:`SEPARATORS` (a tie keeps ``default``, then the order of :data:`SEPARATORS`).

    Reference: a narrower version of :class:`csv.Sniffer` that looks only at the header, whose names
    never contain the delimiter of a well-formed file.

    >>> detect_delimiter("llm;question_id;is_correct", ","), detect_delimiter("a,b", "\\t")
    (';', ',')
    """
    best, most = default, 1
    for cand in (default, *SEPARATORS.values()):
        n = len(next(csv.reader([header_line], delimiter=cand), []))
        if n > most:
            best, most = cand, n
    return best


def check_line_lengths(path: Path, gz: bool = False, limit: int = MAX_LINE_BYTES) -> None:
    """Raise ``ValueError`` naming the byte offset of the first line longer than ``limit`` bytes.

    Definition: the file (decompressed, for ``gz``) is read in pieces of 1 MiB; a line is the bytes between two
    newlines (``\\r`` counts as part of it).  Only the start of the current line is remembered, so memory stays
    at one piece whatever the file; the scan stops at the first line over the limit.

    Reference: the guard ``csv.field_size_limit`` gives Python's reader, applied before any parsing.

    Example: ``check_line_lengths(Path("rows.csv"))`` returns None for any ordinary file.
    """
    opener = gzip.open if gz else open
    size = min(_PIECE, max(1, limit))  # a line inside one piece is then shorter than the limit
    pos = start = 0  # bytes read so far; offset of the current line's first byte
    try:
        with opener(path, "rb") as fh:
            while True:
                piece = fh.read(size)
                if not piece:
                    if pos - start <= limit:
                        return
                    break
                first = piece.find(b"\n")
                if first >= 0:
                    if pos + first - start > limit:
                        break
                    start = pos + piece.rfind(b"\n") + 1
                pos += len(piece)
                if pos - start > limit:
                    break
    except (OSError, EOFError) as exc:
        raise ValueError(f"{path}: cannot read the file ({exc})") from None
    where = " (decompressed)" if gz else ""
    raise ValueError(
        f"{path}: the line starting at byte {start}{where} is longer than {_size(limit)} "
        f"(the most a row may have); is this a row file with line breaks?"
    )


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n and n % (1 << 20) == 0 else f"{n} bytes"


def check_input_path(path: str | Path) -> Path:
    """The path of an input file; a directory or a missing file is a ``ValueError``/``FileNotFoundError``
    saying which.

    Example: ``check_input_path("rows.csv")`` returns ``Path("rows.csv")`` when the file exists.
    """
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{p}: is a directory, not a row file; pass the files in it (e.g. {p}/*.csv)")
    if not p.is_file():
        raise FileNotFoundError(f"{p}: file not found")
    return p


def check_output_path(path: str | Path, option: str) -> Path:
    """The path an output is written to; a directory is a ``ValueError`` naming ``option``, raised before any
    computation (missing parent folders are created by the writer).

    Example: ``check_output_path("report.html", "--html")`` returns ``Path("report.html")``.
    """
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{option} {p}: is a directory; give a file name (e.g. {p / 'report.html'})")
    return p
