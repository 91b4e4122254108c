"""Reading and validating row files (CSV, TSV, JSONL, optionally gzip-compressed) column by column.

Used by ``selfconf report`` and :func:`selfconf.report.from_frame`.  The rules, which every
reader here applies identically:

* **Encodings.** UTF-8, with or without a byte-order mark (what spreadsheet programs write);
  CRLF or LF line ends; ``.gz`` files (``rows.csv.gz``, ``rows.jsonl.gz``) are decompressed.
  Bytes that are not UTF-8 (a Latin-1 export, say) are an error naming the file and line.
* **Shape.** An empty file, or a CSV with a header and no data rows, is an error naming the file;
  a CSV row with fewer or more fields than the header is an error naming its line.  A required
  column missing from the header (or a required key missing from a JSONL record) is an error.
* **Values.** Missing values are empty cells, JSON ``null`` and the words ``nan``, ``null``,
  ``none``, ``na`` (any case; :data:`selfconf.data.validate.NULL_WORDS`).  Numbers may carry
  surrounding spaces; a confidence may carry a
  trailing ``%`` (recorded, because it decides the scale).  Anything else that is not a number
  where a number is needed is an error naming the file, line and field.

CSV files are parsed by ``pyarrow.csv`` (multi-threaded, columnar); when it refuses a file
the pure-Python reader parses it again, to give the exact line of the fault (or, for quirks
Arrow alone rejects, to read it anyway).  JSONL is read line by line with :mod:`json`.  Line
numbers are file lines (the header is line 1); they are computed only when an error is
reported, so valid files pay nothing for them.  The checks and their messages are those of
:mod:`selfconf.data.validate` (shared with the book's loaders and ``selfconf collect``).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from selfconf.data import validate
from selfconf.data.layout import JOIN, Layout, check_input_path, check_line_lengths, detect_delimiter
from selfconf.data.validate import FALSE_WORDS, NULL_WORDS, TRUE_WORDS

__all__ = ["NULL_WORDS", "TRUE_WORDS", "FALSE_WORDS", "RowFile", "read_file", "Columns", "columns_from"]

_JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
_CSV_SUFFIXES = (".csv", ".tsv")


def _kind(path: Path) -> tuple[str, bool]:
    """('csv'|'tsv'|'jsonl', gzipped?) from the file name."""
    suffixes = [s.lower() for s in path.suffixes]
    gz = bool(suffixes) and suffixes[-1] == ".gz"
    last = suffixes[-2] if gz and len(suffixes) >= 2 else (suffixes[-1] if suffixes and not gz else "")
    if last in _JSON_SUFFIXES:
        return "jsonl", gz
    if last in _CSV_SUFFIXES:
        return last[1:], gz
    raise ValueError(
        f"{path}: unknown file type {''.join(path.suffixes) or '(none)'!r}; use .csv, .tsv or .jsonl (optionally .gz)"
    )


def _text(path: Path, gz: bool) -> str:
    """Whole file decoded as UTF-8 (BOM removed); a decode error names the file and line."""
    try:
        data = gzip.open(path, "rb").read() if gz else path.read_bytes()
    except (OSError, EOFError) as exc:
        raise ValueError(f"{path}: cannot read the file ({exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ValueError(
            f"{path}: line {line}: byte 0x{data[exc.start]:02x} at column {col} is not UTF-8 "
            "(re-save the file as UTF-8, e.g. from a Latin-1 or Windows-1252 export)"
        ) from None


@dataclass
class RowFile:
    """One input file read into columns (``data``: name -> list or pyarrow array)."""

    path: Path
    kind: str
    gz: bool
    columns: list[str]
    data: dict[str, Any]
    n_rows: int
    _lines: np.ndarray | None = field(default=None, repr=False)
    #: CSV delimiter used ("" for JSONL and frames); ``detected``: chosen by ``--sep auto`` against the extension
    delimiter: str = ""
    detected: bool = False

    def line_of(self, i: int) -> int:
        """File line of data row ``i`` (0-based); header is line 1 for CSV."""
        if self._lines is None:
            self._lines = _row_lines(self.path, self.kind, self.gz, self.delimiter)
        return int(self._lines[i])


def _default_delimiter(kind: str) -> str:
    return "\t" if kind == "tsv" else ","


def _row_lines(path: Path, kind: str, gz: bool, delimiter: str = "") -> np.ndarray:
    text = _text(path, gz)
    if kind == "jsonl":
        return np.array([no for no, line in enumerate(text.splitlines(), start=1) if line.strip()], dtype=np.int64)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter or _default_delimiter(kind))
    out = []
    start = 1
    for k, _ in enumerate(reader):
        if k:
            out.append(start)
        start = reader.line_num + 1
    return np.array(out, dtype=np.int64)


def _python_csv(path: Path, kind: str, gz: bool, want: Sequence[str], delimiter: str = "") -> RowFile:
    text = _text(path, gz)
    delimiter = delimiter or _default_delimiter(kind)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise ValueError(f"{path}: the file is empty (no header, no rows)") from None
    except csv.Error as exc:
        raise ValueError(f"{path}: line 1: {exc}") from None
    header = [h.strip() for h in header]
    idx = {c: header.index(c) for c in want if c in header}
    cols: dict[str, list] = {c: [] for c in idx}
    lines = []
    start = reader.line_num + 1
    try:
        for rec in reader:
            if not rec or (len(rec) == 1 and not rec[0].strip() and len(header) > 1):
                start = reader.line_num + 1
                continue  # a blank line carries no row
            if len(rec) != len(header):
                raise ValueError(
                    f"{path}: line {start}: {len(rec)} field(s), but the header has {len(header)} "
                    f"({', '.join(header)}); a field may contain an unquoted delimiter or be missing"
                )
            for c, j in idx.items():
                cols[c].append(rec[j])
            lines.append(start)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ValueError(f"{path}: line {start}: {exc}") from None
    if not lines:
        raise ValueError(f"{path}: header only, no data rows")
    return RowFile(path, kind, gz, header, cols, len(lines), np.array(lines, dtype=np.int64), delimiter)


def _header_line(path: Path, gz: bool) -> str | None:
    """The first line of a text file (BOM removed), or None when it cannot be decoded."""
    try:
        with (
            gzip.open(path, "rt", encoding="utf-8-sig", newline="")
            if gz
            else open(path, encoding="utf-8-sig", newline="")
        ) as fh:
            return fh.readline()
    except (UnicodeDecodeError, OSError, EOFError):
        return None


def _arrow_csv(
    path: Path, kind: str, gz: bool, want: Sequence[str], delimiter: str = "", text_columns: Sequence[str] = ()
) -> RowFile | None:
    """Columnar fast path; None when Arrow refuses the file (the Python reader then decides)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        return None
    # header first (cheap), so that missing columns are reported by name
    first = _header_line(path, gz)
    if first is None or not first.strip():
        return None
    delimiter = delimiter or _default_delimiter(kind)
    header = [h.strip() for h in next(csv.reader([first], delimiter=delimiter))]
    if len(set(header)) != len(header):
        return None
    present = [c for c in want if c in header]
    # identifiers are text; the model column, with few distinct values, is dictionary-encoded while the
    # file is parsed (in Arrow's threads), which saves a hashing pass over the rows later (identifiers)
    strings = {
        c: pa.dictionary(pa.int32(), pa.string()) if c == "model" else pa.string()
        for c in present
        if c in ("model", "item_id", "group", *text_columns)
    }
    try:
        table = pcsv.read_csv(
            str(path),
            read_options=pcsv.ReadOptions(column_names=None),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
            convert_options=pcsv.ConvertOptions(
                include_columns=present, column_types=strings, strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowKeyError, OSError):
        return None
    if table.num_rows == 0:
        return None
    return RowFile(path, kind, gz, header, {c: table.column(c) for c in present}, table.num_rows, delimiter=delimiter)


def jsonl_records(path: Path, text: str, required: Sequence[str] = (), hint: Callable[[str], str] | None = None):
    """Yield ``(line number, record)`` for every non-blank line of a JSONL text.

    A line that is not a JSON object, or lacks a field of ``required``, raises ``ValueError`` naming the file,
    the line and the field (``hint(field)`` may add a sentence).  An empty file raises too.

    Example: ``list(jsonl_records(Path("a.jsonl"), '{"x": 1}\\n'))`` is ``[(1, {"x": 1})]``.
    """
    any_record = False
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path}: line {no}: not valid JSON ({exc})") from None
        if not isinstance(rec, dict):
            raise ValueError(f"{path}: line {no}: expected a JSON object, got {type(rec).__name__}")
        for c in required:
            if c not in rec:
                raise ValueError(f"{path}: line {no}: missing field '{c}'{hint(c) if hint else ''}")
        any_record = True
        yield no, rec
    if not any_record:
        raise ValueError(f"{path}: the file is empty (no records)")


def _ungraded_hint(field: str) -> str:
    return " (ungraded `selfconf collect` output? run `selfconf grade` first)" if field == "correct" else ""


def _jsonl(path: Path, gz: bool, want: Sequence[str], required: Sequence[str]) -> RowFile:
    cols: dict[str, list] = {c: [] for c in want}
    seen: set[str] = set()
    lines = []
    for no, rec in jsonl_records(path, _text(path, gz), required, _ungraded_hint):
        for c in want:
            if c in rec:
                seen.add(c)
            cols[c].append(rec.get(c))
        lines.append(no)
    present = [c for c in want if c in seen]
    return RowFile(
        path, "jsonl", gz, present, {c: cols[c] for c in present}, len(lines), np.array(lines, dtype=np.int64)
    )


def read_file(path: str | Path, want: Sequence[str], required: Sequence[str], layout: Layout | None = None) -> RowFile:
    """Read the columns ``want`` of one file (rules in the module docstring).

    ``required`` columns must be in the CSV header (or in every JSONL record); a missing one is
    an error naming the file and the columns it has.  ``layout`` (:class:`selfconf.data.layout.Layout`)
    maps the names of ``want`` to the file's columns (joining several into one identifier) and sets the
    delimiter (None: detected from the header, see :mod:`selfconf.data.layout`).  A directory, or a line
    longer than :data:`selfconf.data.layout.MAX_LINE_BYTES`, is an error before anything is parsed.

    Example: ``read_file("runs/a.graded.jsonl.gz", ["model", "item_id"], ["model"]).n_rows``.
    """
    p = check_input_path(path)
    kind, gz = _kind(p)
    layout = layout or Layout()
    check_line_lengths(p, gz)
    sources = list(dict.fromkeys(s for c in want for s in layout.sources(c)))
    if kind == "jsonl":
        rf = _jsonl(p, gz, sources, [s for c in required for s in layout.sources(c)])
    else:
        delimiter, detected = layout.sep, False
        if delimiter is None:
            first = _header_line(p, gz)
            default = _default_delimiter(kind)
            delimiter = detect_delimiter(first, default) if first else default
            detected = delimiter != default
        text_columns = [s for c in ("model", "item_id") for s in layout.sources(c)]
        fast = _arrow_csv(p, kind, gz, sources, delimiter, text_columns)
        rf = fast if fast is not None else _python_csv(p, kind, gz, sources, delimiter)
        rf.detected = detected
    if layout.columns:
        _apply_columns(rf, want, layout)
    missing = validate.missing_columns(required, rf.columns)
    hint = ""
    if missing == ["correct"]:
        hint = " (run `selfconf grade` first)"
    elif missing:
        hint = f" (name the file's columns with --columns, e.g. --columns {missing[0]}=<column>)"
    validate.require_columns(p, required, rf.columns, hint=hint)
    return rf


def _apply_columns(rf: RowFile, want: Sequence[str], layout: Layout) -> None:
    """Put each mapped column of ``want`` under its report name (joining composite identifiers)."""
    for c in want:
        if c not in layout.columns:
            continue
        src = layout.sources(c)
        absent = [s for s in src if s not in rf.data]
        if absent:
            if rf.kind == "jsonl" and not any(s in rf.columns for s in src):
                continue  # an optional column absent from every record; a required one is reported below
            raise ValueError(
                f"{rf.path}: {layout.describe(c)}: no column {absent[0]!r} (has: {', '.join(rf.columns) or 'none'})"
            )
        if len(src) == 1:
            rf.data[c] = rf.data[src[0]]
        else:
            rf.data[c] = _join(rf, src)
        if c not in rf.columns:
            rf.columns = [*rf.columns, c]


def _join(rf: RowFile, src: Sequence[str]):
    """The trimmed values of the columns ``src`` joined by :data:`JOIN` (missing when any part is)."""
    if all(not isinstance(rf.data[s], list) for s in src):
        import pyarrow as pa
        import pyarrow.compute as pc

        parts = []
        for s in src:
            col = rf.data[s]
            if pa.types.is_dictionary(col.type):
                col = col.cast(pa.string())
            col = pc.utf8_trim_whitespace(col.cast(pa.string()))
            parts.append(pc.if_else(pc.equal(col, ""), pa.scalar(None, pa.string()), col))
        return pc.binary_join_element_wise(*parts, JOIN)
    out = []
    cols = [rf.data[s] if isinstance(rf.data[s], list) else rf.data[s].to_pylist() for s in src]
    for vals in zip(*cols, strict=True):
        texts = [None if v is None else str(v).strip() for v in vals]
        out.append(None if any(t is None or t == "" for t in texts) else JOIN.join(t for t in texts if t is not None))
    return out


# --------------------------------------------------------------------------------------------
# typed columns
# --------------------------------------------------------------------------------------------


@dataclass
class Columns:
    """Typed columns of all inputs, concatenated, with a way back to (file, line).

    ``text[name]`` are numpy object arrays of stripped strings (None = missing) for identifier
    columns; ``number(name)`` parses a numeric column.
    """

    files: list[RowFile]
    offsets: np.ndarray  # start row of each file in the concatenation

    @property
    def n(self) -> int:
        return int(self.offsets[-1])

    def where(self, i: int) -> str:
        """``"<file>: line <L>"`` of global row ``i``."""
        f = int(np.searchsorted(self.offsets, i, side="right") - 1)
        rf = self.files[f]
        if rf.kind == "frame":
            return f"{rf.path}: row {i - int(self.offsets[f]) + 1}"  # 1-based, like the file lines
        return f"{rf.path}: line {rf.line_of(i - int(self.offsets[f]))}"

    def text_at(self, name: str, i: int) -> str | None:
        """The value of column ``name`` at global row ``i`` as trimmed text (None when missing), for messages."""
        v = self._arrow(name, text=True)[i].as_py()
        return None if v is None else v.strip()

    def has(self, name: str) -> bool:
        return any(name in rf.data for rf in self.files)

    def _arrow(self, name: str, text: bool = False):
        import pyarrow as pa

        parts = []
        for rf in self.files:
            v = rf.data.get(name)
            if v is None:
                parts.append(pa.nulls(rf.n_rows))
            elif isinstance(v, list):
                parts.append(_list_to_arrow(v, text))
            else:
                parts.append(v)
        chunks = []
        types = {(c.type if isinstance(c, pa.ChunkedArray) else c.type) for c in parts}
        numeric = all(
            pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t) or pa.types.is_boolean(t)
            for t in types
        )
        target = pa.float64() if numeric and not text else pa.string()
        for c in parts:
            cc = c.chunks if isinstance(c, pa.ChunkedArray) else [c]
            for ch in cc:
                if pa.types.is_boolean(ch.type) and target == pa.float64():
                    ch = ch.cast(pa.int8())
                if pa.types.is_boolean(ch.type):
                    import pyarrow.compute as pc

                    ch = pc.if_else(ch, "true", "false")
                chunks.append(ch.cast(target))
        return pa.chunked_array(chunks, type=target)

    def identifiers(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Codes (int64, sorted-name order) and the names of an identifier column.

        An empty or missing value is an error naming the file and line.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        # one hashing pass over the rows (none when the reader already encoded the column); trimming and
        # the emptiness check then run on the distinct values only (values equal after trimming share a code)
        parts: list[Any] = [rf.data.get(name) for rf in self.files]
        if all(isinstance(v, pa.ChunkedArray) and pa.types.is_dictionary(v.type) for v in parts):
            enc = pa.chunked_array([ch for v in parts for ch in v.chunks], type=parts[0].type)
            enc = enc.unify_dictionaries().combine_chunks()
        else:
            enc = pc.dictionary_encode(self._arrow(name, text=True)).combine_chunks()
        trimmed = pc.utf8_trim_whitespace(enc.dictionary).to_pylist()
        idx = enc.indices
        null_rows = idx.null_count > 0
        codes = _numpy(idx.fill_null(0) if null_rows else idx).astype(np.int64)
        empty_entry = np.array([t is None or t == "" for t in trimmed], dtype=bool)
        if null_rows or empty_entry.any():
            bad = empty_entry[codes] if codes.size and empty_entry.size else np.zeros(codes.size, bool)
            if null_rows:
                bad |= _numpy(idx.is_null())
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{self.where(i)}: field '{name}' is empty")
        names, inverse = np.unique(np.array(trimmed, dtype=object).astype(str), return_inverse=True)
        inverse = inverse.reshape(-1).astype(np.int64)
        if inverse.size == names.size and np.array_equal(inverse, np.arange(names.size)):
            return codes, names.astype(object)  # the dictionary is already in name order (a sorted file)
        return inverse[codes], names.astype(object)

    def keys(self, name: str) -> np.ndarray:
        """Non-negative int64 keys of an identifier column, equal exactly where :meth:`identifiers` gives
        equal codes (the values are equal after trimming); the keys are neither dense nor in name order.

        Identifiers that are all canonical decimal integers (digits only, no sign, no leading zero, no
        space: what most benchmarks use for item ids) are their own keys: parsing them is an order of
        magnitude cheaper than hashing the strings, and "7" and "07" (which parse alike but differ as
        text) are not canonical, so they take the general path.  Otherwise the keys are the codes of
        :meth:`identifiers`, which also reports an empty or missing value by file and line.

        Example: ``columns_from([read_file("rows.csv", ["item_id"], ["item_id"])]).keys("item_id")``.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = self._arrow(name, text=True)
        if arr.null_count == 0 and len(arr) and all(pa.types.is_string(ch.type) for ch in arr.chunks):
            try:
                value = pc.cast(arr, pa.int64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                value = None
            if value is not None:
                v = _numpy(value)
                if v.min() >= 0 and _canonical_decimals(arr, v):
                    return v
        return self.identifiers(name)[0]

    def number(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(values as float64 with NaN for missing, boolean mask of values written with '%')."""
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = self._arrow(name)
        if arr.type == pa.float64():
            v = _numpy(pc.fill_null(arr, np.nan)) if arr.null_count else _numpy(arr)
            return v, np.zeros(v.size, dtype=bool)
        s = pc.utf8_trim_whitespace(arr)
        low = pc.utf8_lower(s)
        null = pc.fill_null(pc.or_kleene(pc.is_null(s), pc.is_in(low, value_set=pa.array(NULL_WORDS))), True)
        pct = pc.fill_null(pc.ends_with(s, "%"), False)
        body = pc.utf8_trim_whitespace(pc.utf8_rtrim(s, characters="%"))
        body = pc.if_else(null, pa.scalar(None, pa.string()), body)
        try:
            v = pc.cast(body, pa.float64()).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            import pandas as pd

            raw = body.to_pandas()
            parsed = pd.to_numeric(raw, errors="coerce")
            bad = np.flatnonzero(parsed.isna().to_numpy() & ~null.to_numpy(zero_copy_only=False))
            i = int(bad[0])
            raise ValueError(f"{self.where(i)}: field '{name}' must be a number, got {arr[i].as_py()!r}") from None
        v = np.array(v, dtype=float)  # a writable copy
        v[null.to_numpy(zero_copy_only=False)] = np.nan
        return v, pct.to_numpy(zero_copy_only=False)

    def binary(self, name: str) -> np.ndarray:
        """0/1 as float64, NaN for missing; anything else is an error naming file and line."""
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = self._arrow(name)
        if arr.type == pa.float64():
            v = _numpy(pc.fill_null(arr, np.nan)) if arr.null_count else _numpy(arr)
            # the message quotes the value as typed ('2', not 2.0): the column's text, not its parsed float
            validate.check_binary(~np.isnan(v) & (v != 0) & (v != 1), self.where, name, lambda i: self.text_at(name, i))
            return v
        low = pc.utf8_lower(pc.utf8_trim_whitespace(arr))
        null = pc.fill_null(
            pc.or_kleene(pc.is_null(low), pc.is_in(low, value_set=pa.array(NULL_WORDS))), True
        ).to_numpy(zero_copy_only=False)
        t = pc.fill_null(pc.is_in(low, value_set=pa.array(TRUE_WORDS)), False).to_numpy(zero_copy_only=False)
        f = pc.fill_null(pc.is_in(low, value_set=pa.array(FALSE_WORDS)), False).to_numpy(zero_copy_only=False)
        validate.check_binary(~(null | t | f), self.where, name, lambda i: arr[i].as_py())
        out = np.where(t, 1.0, 0.0)
        out[null] = np.nan
        return out


#: Indexed by a digit count d = 1..19: the least and the greatest int64 with d decimal digits.
_LEAST_WITH_DIGITS = np.array([0, 0] + [10**d for d in range(1, 19)], dtype=np.int64)
_MOST_WITH_DIGITS = np.array([-1] + [10**d - 1 for d in range(1, 19)] + [np.iinfo(np.int64).max], dtype=np.int64)


def _canonical_decimals(arr, v: np.ndarray) -> bool:
    """Whether every string of ``arr`` (a null-free Arrow string array) is the canonical decimal form of
    ``v`` (its values as Arrow parsed them, all >= 0).

    Arrow's parser also takes a "-", a "0x" hex prefix and leading zeros, so a string is canonical when
    it is exactly as long as v has decimal digits and starts with "0" only if it is "0" (which rules out
    hex: "0xFFFFF" has the 7 digits of 1048575).  Lengths and first bytes are read from the Arrow
    buffers, chunk by chunk.
    """
    import pyarrow as pa

    at = 0
    for ch in arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]:
        m = len(ch)
        if not m:
            continue
        _, off_buf, data_buf = ch.buffers()
        offs = np.frombuffer(off_buf, dtype=np.int32, count=m + 1, offset=ch.offset * 4)
        length = np.diff(offs)
        data = np.frombuffer(data_buf, dtype=np.uint8)
        if length.min() < 1:
            return False
        if length.max() > 19:  # more characters than any int64 has digits: leading zeros
            return False
        w = v[at : at + m]
        if not ((w >= _LEAST_WITH_DIGITS[length]) & (w <= _MOST_WITH_DIGITS[length])).all():
            return False  # not as many decimal digits as characters
        if ((data[offs[:-1]] == ord("0")) & (length > 1)).any():
            return False
        at += m
    return True


_NUMPY_TYPES = {
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "float": np.float32,
    "double": np.float64,
}


def _numpy(arr) -> np.ndarray:
    """A null-free numeric or boolean Arrow array (or chunked array) as a new numpy array.

    Read from the Arrow buffers directly: ``Array.to_numpy`` imports pandas (half a second of
    ``selfconf report``'s start-up) even for plain integers.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    parts = []
    for ch in chunks:
        if ch.null_count:
            raise ValueError("_numpy: the array has nulls (fill them first)")
        if pa.types.is_boolean(ch.type):
            ch = pc.cast(ch, pa.uint8())
        dtype = np.dtype(_NUMPY_TYPES[str(ch.type)])
        parts.append(np.frombuffer(ch.buffers()[1], dtype=dtype, count=len(ch), offset=ch.offset * dtype.itemsize))
    if not parts:
        return np.zeros(0, dtype=np.float64 if not pa.types.is_boolean(arr.type) else bool)
    out = np.concatenate(parts) if len(parts) > 1 else parts[0].copy()
    return out.astype(bool) if pa.types.is_boolean(arr.type) else out


def _list_to_arrow(values: list, text: bool = False):
    """A JSON column (mixed Python values) as one Arrow array: numbers stay numbers when every
    value is a number (or null) and ``text`` is False; otherwise every value is written as text
    (integers without a decimal point)."""
    import pyarrow as pa

    kinds = {type(v) for v in values if v is not None}
    if not text and kinds <= {int, float, bool} and bool not in kinds:
        return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    if not text and kinds == {bool}:
        return pa.array(values, type=pa.bool_())
    return pa.array(
        [
            None
            if v is None
            else (
                "true"
                if v is True
                else "false"
                if v is False
                else v
                if isinstance(v, str)
                else json.dumps(v)
                if isinstance(v, (list, dict))
                else str(v)
            )
            for v in values
        ],
        type=pa.string(),
    )


def columns_from(files: list[RowFile]) -> Columns:
    """Concatenate read files into :class:`Columns`."""
    return Columns(files, np.concatenate([[0], np.cumsum([rf.n_rows for rf in files])]).astype(np.int64))
