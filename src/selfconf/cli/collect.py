"""``selfconf collect``: ask a model the paper's question format and keep every reply.

The elicitation follows the paper's protocol (Chernets 2026, Design and Reproducibility sections):
the verbatim system prompt :data:`SYSTEM_PROMPT`, the bare question as the only user turn and
temperature 0, against any OpenAI-compatible ``/chat/completions`` endpoint.

Pieces, usable on their own:

* :class:`ChatClient` — one HTTP call per question with bounded retries (429, 5xx, timeouts and
  dropped connections, exponential backoff with jitter).  The API key is read from an environment
  variable and only ever placed in the ``Authorization`` header: it never reaches a record, a log
  line or an error message.
* :func:`parse_reply` — tolerant reading of the ``{"answer": ..., "confidence": ...}`` object
  (code fences, text around the object, ``"85%"``, numbers sent as strings).  Anything it cannot
  turn into an answer plus a confidence in [0, 100] becomes a *parse failure* that keeps the raw
  text; it never raises.
* :class:`JsonlLog` — append-only JSONL with one record per completed question, each written with
  ``flush`` + ``fsync``.  Reopening the log reads the records already there, so a second run skips
  finished items: an interrupted collection resumes without losing or repeating a row.  A last
  line cut short by a crash is dropped (with a warning), everything before it is kept.

References: OpenAI chat-completions API (``POST /v1/chat/completions``); Wei et al. 2024, SimpleQA
(arXiv 2411.04368) for the question layout.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import json
import os
import random
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from selfconf.data import validate

__all__ = [
    "SYSTEM_PROMPT",
    "ChatClient",
    "EndpointError",
    "ParsedReply",
    "parse_reply",
    "JsonlLog",
    "JsonlContents",
    "parse_jsonl",
    "Question",
    "load_questions",
    "collect",
    "add_parser",
    "run",
    "client_from_args",
    "add_client_arguments",
]

#: The paper's elicitation system prompt, verbatim (Reproducibility appendix of the paper).
SYSTEM_PROMPT = (
    "You answer short factual questions. Respond with ONLY a JSON object like "
    '{"answer": "<short answer>", "confidence": 85}. confidence is an integer 0-100 for how sure '
    "you are the answer is correct. No other text."
)

#: HTTP statuses that are worth another attempt.
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524})


class _AttemptTimeout(Exception):
    """An attempt ran past its wall-clock budget."""


class EndpointError(RuntimeError):
    """The endpoint could not produce a reply (after retries, or a non-retryable HTTP error)."""

    def __init__(self, message: str, *, status: int | None = None, attempts: int = 1, retryable: bool = True):
        super().__init__(message)
        self.status = status
        self.attempts = attempts
        self.retryable = retryable


# --------------------------------------------------------------------------------------------
# HTTP client
# --------------------------------------------------------------------------------------------


@dataclass
class ChatClient:
    """Minimal client for an OpenAI-compatible ``/chat/completions`` endpoint.

    ``base_url`` is the API root (``https://api.openai.com/v1``, ``http://127.0.0.1:8000/v1``);
    ``/chat/completions`` is appended.  ``api_key`` may be empty for local servers.

    Retry policy: a request that times out (``timeout`` bounds each attempt's wall-clock time,
    the body included), loses its connection (also mid-response), or returns one of
    :data:`RETRY_STATUSES` is retried up to ``max_retries`` times.  Attempt ``k`` (0-based) waits
    ``backoff_base * 2**k`` seconds, capped at ``backoff_max`` and multiplied by a random factor in
    [0.5, 1.0] (jitter keeps parallel workers from retrying in lock-step); a ``Retry-After``
    header, when present and shorter than ``backoff_max``, is honoured instead.  Other 4xx
    statuses fail at once (a bad key or model name does not get better by waiting).
    """

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout: float = 60.0
    max_retries: int = 6
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    max_tokens: int | None = None
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    _local: threading.local = field(default_factory=threading.local, init=False, repr=False)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def _session(self):
        import requests

        s = getattr(self._local, "session", None)
        if s is None:
            s = requests.Session()
            self._local.session = s
        return s

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json"}
        if self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        return h

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                ra = float(retry_after)
                if 0 <= ra <= self.backoff_max:
                    return ra
            except ValueError:
                pass
        return min(self.backoff_max, self.backoff_base * 2**attempt) * random.uniform(0.5, 1.0)

    def _attempt(self, body: dict, deadline: float) -> tuple[int, Any, bytes]:
        """One HTTP attempt bounded by ``deadline`` (``time.monotonic()``), body included.

        The socket timeout bounds each wait for bytes; the body is then read piece by piece as it
        arrives and the wall clock is checked after each piece, so a server that trickles a byte
        at a time cannot stretch an attempt past ``timeout``.
        """
        left = max(0.01, deadline - time.monotonic())
        resp = self._session().post(self.url, json=body, headers=self._headers(), timeout=(left, left), stream=True)
        try:
            buf = bytearray()
            while True:
                if time.monotonic() > deadline:
                    raise _AttemptTimeout()
                piece = resp.raw.read1(65536, decode_content=True)
                if not piece:
                    break
                buf += piece
            if time.monotonic() > deadline:
                raise _AttemptTimeout()
            return resp.status_code, resp.headers, bytes(buf)
        finally:
            resp.close()

    def chat(self, messages: list[dict[str, str]], *, temperature: float = 0.0) -> tuple[str, dict[str, Any]]:
        """Send one chat request; return ``(reply_text, meta)``.

        ``meta`` holds ``attempts`` (int), ``latency_s`` (seconds of the successful attempt) and
        ``response_model`` (the model name the server reports, if any).  Raises
        :class:`EndpointError` when every attempt failed; its message names the last failure but
        never the key.
        """
        import requests
        import urllib3

        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        last = "no attempt made"
        status: int | None = None
        for attempt in range(self.max_retries + 1):
            retry_after = None
            t0 = time.monotonic()
            try:
                status, headers, raw = self._attempt(body, t0 + self.timeout)
            except _AttemptTimeout:
                last, status = f"timed out after {self.timeout:g} s (wall clock, body included)", None
                self._local.session = None
            except requests.Timeout:
                last, status = f"timed out after {self.timeout:g} s", None
                self._local.session = None
            except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
                # refused or reset connections, a body cut off mid-response (ChunkedEncodingError,
                # IncompleteRead), a broken stream: all transient, all retried
                last, status = f"connection error ({type(exc).__name__})", None
                self._local.session = None  # a dropped connection may poison the pool
            else:
                if status == 200:
                    try:
                        payload = json.loads(raw.decode("utf-8"))
                        text = payload["choices"][0]["message"]["content"]
                    except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError):
                        last = "HTTP 200 but the body is not a chat-completions response"
                    else:
                        meta = {
                            "attempts": attempt + 1,
                            "latency_s": round(time.monotonic() - t0, 4),
                            "response_model": payload.get("model"),
                        }
                        return ("" if text is None else str(text)), meta
                elif status in RETRY_STATUSES:
                    last = f"HTTP {status}"
                    retry_after = headers.get("Retry-After")
                else:
                    snippet = raw[:200].decode("utf-8", "replace").replace("\n", " ")
                    if self.api_key:
                        snippet = snippet.replace(self.api_key, "***")
                    raise EndpointError(
                        f"{self.url}: HTTP {status} (not retried): {snippet}",
                        status=status,
                        attempts=attempt + 1,
                        retryable=False,
                    )
            if attempt < self.max_retries:
                self.sleep(self._delay(attempt, retry_after))
        raise EndpointError(
            f"{self.url}: gave up after {self.max_retries + 1} attempts; last failure: {last}",
            status=status,
            attempts=self.max_retries + 1,
        )


def add_client_arguments(p: argparse.ArgumentParser, *, prefix: str = "", required: bool = True) -> None:
    """Add the endpoint options (``--{prefix}base-url``, ``--{prefix}model``, ...) to ``p``."""
    dash = f"--{prefix}"
    p.add_argument(
        f"{dash}base-url",
        required=required,
        help="API root of an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1",
    )
    p.add_argument(f"{dash}model", required=required, help="model name sent in each request")
    p.add_argument(
        f"{dash}api-key-env",
        default="OPENAI_API_KEY",
        help="name of the environment variable holding the API key (default: OPENAI_API_KEY); "
        "the key is never written to any output",
    )
    p.add_argument(
        f"{dash}timeout",
        type=float,
        default=60.0,
        help="wall-clock seconds per HTTP attempt, connecting and reading the whole body included, so a "
        "server that trickles its reply is cut off too (default 60)",
    )
    p.add_argument(
        f"{dash}max-retries",
        type=int,
        default=6,
        help="retries on 429/5xx, timeouts and connection failures, including a connection dropped "
        "mid-response (default 6)",
    )
    p.add_argument(
        f"{dash}backoff-base",
        type=float,
        default=1.0,
        help="first backoff delay in seconds, doubled per retry (default 1)",
    )
    p.add_argument(
        f"{dash}max-tokens", type=int, default=None, help="max_tokens sent with each request (default: not sent)"
    )


def client_from_args(args: argparse.Namespace, *, prefix: str = "") -> ChatClient:
    """Build a :class:`ChatClient` from options added by :func:`add_client_arguments`."""
    attr = prefix.replace("-", "_")
    get = lambda name: getattr(args, attr + name)  # noqa: E731
    env = get("api_key_env")
    return ChatClient(
        base_url=get("base_url"),
        model=get("model"),
        api_key=os.environ.get(env, "") if env else "",
        timeout=get("timeout"),
        max_retries=get("max_retries"),
        backoff_base=get("backoff_base"),
        max_tokens=get("max_tokens"),
    )


# --------------------------------------------------------------------------------------------
# Reply parsing
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedReply:
    """Result of :func:`parse_reply`: ``answer`` and ``confidence`` (0–100), or ``error``."""

    answer: str | None
    confidence: float | None
    error: str | None = None
    lenient: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_LENIENT_ANSWER = re.compile(r"""["']?answer["']?\s*:\s*(?:"([^"]*)"|'([^']*)')""", re.I)
# the value must be closed by "," or "}" so that a reply cut off mid-number ("confidence": 8) is rejected
_LENIENT_CONF = re.compile(
    r"""["']?confidence["']?\s*:\s*["']?\s*([+-]?\d+(?:\.\d+)?)\s*(?:%|percent)?\s*["']?\s*[,}]""", re.I
)


def _json_objects(text: str) -> Iterable[dict]:
    """Yield every JSON object that starts at some ``{`` in ``text`` (outermost first)."""
    dec = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            obj, end = dec.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            yield obj
        i = text.find("{", end if isinstance(obj, dict) else i + 1)


def _confidence(value: Any) -> tuple[float | None, str | None]:
    """Read a stated confidence (:func:`selfconf.data.validate.stated_confidence`).

    Returns ``(value, None)``, or ``(None, why)`` for a reply whose confidence cannot be read.
    """
    try:
        return validate.stated_confidence(value), None
    except validate.FieldError as exc:
        return None, str(exc)


def _answer(value: Any) -> tuple[str | None, str | None]:
    if value is None:
        return None, "answer is null"
    if isinstance(value, bool):
        return str(value).lower(), None
    if isinstance(value, (int, float, str)):
        return str(value).strip(), None
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return ", ".join(str(v) for v in value), None
    return None, f"answer has type {type(value).__name__}"


def parse_reply(text: str | None) -> ParsedReply:
    """Parse a model reply into ``answer`` + ``confidence`` (0–100); never raises.

    Order of attempts: (1) the text inside a Markdown code fence, if any, else the whole text;
    (2) every JSON object found in it (so prose before/after the object is ignored), taking the
    first with both ``answer`` and ``confidence`` keys (case-insensitive); (3) a lenient regex for
    ``answer: "..."`` and ``confidence: 85`` (single quotes, trailing commas), where the number
    must be followed by ``,`` or ``}`` (a reply cut off mid-number is a failure, not a guess).  Confidence may be
    a number or a string like ``"85"``/``"85%"``; it must be within [0, 100].  Failure returns a
    :class:`ParsedReply` with ``error`` set and whatever fields could be read.
    """
    if text is None or not str(text).strip():
        return ParsedReply(None, None, "empty reply")
    text = str(text)
    fence = _FENCE.search(text)
    body = fence.group(1) if fence else text
    partial_error = None
    for obj in _json_objects(body):
        keys = {str(k).lower(): v for k, v in obj.items()}
        if "answer" not in keys and "confidence" not in keys:
            continue
        if "answer" not in keys:
            partial_error = "JSON object has no 'answer'"
            continue
        if "confidence" not in keys:
            ans, _ = _answer(keys["answer"])
            return ParsedReply(ans, None, "JSON object has no 'confidence'")
        ans, aerr = _answer(keys["answer"])
        conf, cerr = _confidence(keys["confidence"])
        err = aerr or cerr
        return ParsedReply(ans, conf if err is None else conf, err)
    ma, mc = _LENIENT_ANSWER.search(body), _LENIENT_CONF.search(body)
    if ma and mc:
        ans = ma.group(1) if ma.group(1) is not None else ma.group(2)
        conf, cerr = _confidence(mc.group(1))
        return ParsedReply(ans.strip(), conf, cerr, lenient=True)
    return ParsedReply(None, None, partial_error or "no JSON object with 'answer' and 'confidence' found")


# --------------------------------------------------------------------------------------------
# Append-only, resumable JSONL log
# --------------------------------------------------------------------------------------------


#: Whitespace that makes a JSONL line blank (skipped): what ``bytes.strip`` removes, newline aside.
_BLANK = " \t\r\x0b\x0c"


@dataclass(frozen=True)
class JsonlContents:
    """What :func:`parse_jsonl` read from a JSONL file's bytes.

    ``records``: the JSON objects, in file order; ``torn``: 1 when the last non-blank line was unreadable (a
    write cut short by a kill) and left out, else 0; ``good_end``: how many leading bytes hold only whole
    records (the torn line's first byte, else the length of the data); ``needs_newline``: the data ends with a
    record that lacks its newline.
    """

    records: list[dict]
    torn: int
    good_end: int
    needs_newline: bool


def parse_jsonl(data: bytes, source: str | os.PathLike = "<jsonl>") -> JsonlContents:
    """Read the records of a JSONL file (one JSON object per line), tolerating a write cut short at its end.

    Definition: lines are split at ``\\n``; a line holding only whitespace is skipped.  The last non-blank
    line, when it is not a JSON object (a kill in the middle of a write), is left out and counted (``torn``);
    blank lines after it change nothing.  Any other line that is not a JSON object (or not UTF-8) is an error
    naming ``source`` and the line number.  The one JSONL reader of the command line: :class:`JsonlLog` (which
    also cuts the torn line off the file) and ``selfconf probe --analyse-only`` (which only reads).

    Reference: JSON Lines (jsonlines.org); RFC 8259 (JSON).

    >>> got = parse_jsonl(b'{"a": 1}\\n\\n{"a": 2}\\n{"a": \\n\\n', "log.jsonl")
    >>> [r["a"] for r in got.records], got.torn, got.good_end
    ([1, 2], 1, 19)
    >>> parse_jsonl(b'{"a": 1}\\n{"a": 2}').needs_newline
    True
    >>> try:
    ...     parse_jsonl(b'{"a": 1}\\nnot json\\n{"a": 2}\\n', "log.jsonl")
    ... except ValueError as e:
    ...     print(str(e)[:38])
    log.jsonl: line 2 is not a JSON record
    """
    try:  # one decode of the whole file is faster than one per line; a cut multi-byte character forbids it
        lines: list[Any] = data.decode("utf-8").split("\n")
        blank: Any = _BLANK
    except UnicodeDecodeError:
        lines, blank = list(data.split(b"\n")), _BLANK.encode()
    last = max((i for i, x in enumerate(lines) if x.strip(blank)), default=-1)
    records: list[dict] = []
    for i in range(last + 1):
        if not lines[i].strip(blank):
            continue
        try:  # a byte-order mark opening a line is read as json.loads reads it in bytes (utf-8-sig)
            rec = json.loads(lines[i].removeprefix("\ufeff") if blank is _BLANK else lines[i])
            if not isinstance(rec, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError included
            if i < last:
                raise ValueError(f"{source}: line {i + 1} is not a JSON record ({exc}); fix or remove it") from None
            start = sum(len(x) + 1 for x in data.split(b"\n")[:i])
            return JsonlContents(records, 1, start, False)
        records.append(rec)
    return JsonlContents(records, 0, len(data), bool(data) and not data.endswith(b"\n"))


class JsonlLog:
    """Append-only JSONL file of completed records, resumable after a crash.

    On open, existing records are read by :func:`parse_jsonl`: a last non-blank line that is not valid JSON
    (a write cut short by a kill) is removed from the file and counted in ``dropped_partial``; a complete
    last record without its newline is kept and the newline added; an invalid line anywhere else is an
    error naming the file and line.
    :meth:`append` writes one record as one line, then ``flush`` and ``os.fsync``, under a lock,
    so concurrent workers never interleave lines.
    """

    def __init__(self, path: str | os.PathLike, key: Callable[[dict], Any]):
        self.path = Path(path)
        self.key = key
        self.records: list[dict] = []
        self.dropped_partial = 0
        self._lock = threading.Lock()
        self._load()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")

    def _load(self) -> None:
        if not self.path.exists():
            return
        got = parse_jsonl(self.path.read_bytes(), self.path)
        self.records, self.dropped_partial = got.records, got.torn
        if got.torn:  # cut the torn line (and any blank lines after it) off the file
            with open(self.path, "r+b") as fh:
                fh.truncate(got.good_end)
                fh.flush()
                os.fsync(fh.fileno())
        elif got.needs_newline:  # a complete record that only lacks its newline: keep it, add the newline
            with open(self.path, "ab") as fh:
                fh.write(b"\n")

    def done_keys(self) -> set:
        return {self.key(r) for r in self.records}

    def drop(self, keys: set) -> int:
        """Remove the records whose key is in ``keys`` (a question to ask again) and return how many went.

        The file is rewritten to a temporary file in the same folder, fsync'ed and renamed over the log, so a
        kill at any moment leaves either the old file or the new one, never a mix.
        """
        keep = [r for r in self.records if self.key(r) not in keys]
        gone = len(self.records) - len(keep)
        if not gone:
            return 0
        with self._lock:
            self._fh.close()
            tmp = self.path.with_name(self.path.name + ".rewrite")
            with open(tmp, "w", encoding="utf-8") as fh:
                for r in keep:
                    fh.write(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            self.records = keep
            self._fh = open(self.path, "a", encoding="utf-8")
        return gone

    def append(self, record: dict) -> None:
        line = json.dumps(record, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self.records.append(record)

    def close(self) -> None:
        self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class OutputLock:
    """Exclusive lock on ``<out>.lock`` so that two runs never write one output file together.

    Uses ``fcntl.flock`` (released by the kernel if the process dies, so a crash never leaves a
    stale lock).  A second run on the same file fails at once with a ``ValueError`` naming the
    file, instead of waiting or interleaving records.  The lock file is removed on release.
    """

    def __init__(self, out_path: str | os.PathLike):
        self.path = Path(str(out_path) + ".lock")
        self._fd: int | None = None

    def acquire(self) -> OutputLock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no locking available
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(5):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                out = str(self.path)[: -len(".lock")]
                raise ValueError(
                    f"{out}: another selfconf run is writing this file (lock {self.path} is held); "
                    "wait for it to finish, or write to a different --out"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:  # not a lock file that its previous holder removed meanwhile
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                self._fd = fd
                return self
            os.close(fd)
        raise ValueError(f"{self.path}: could not take the lock file")

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        os.close(self._fd)  # closing releases the flock
        self._fd = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


# --------------------------------------------------------------------------------------------
# Questions
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    item_id: str
    problem: str
    gold: str | None


def load_questions(path: str | os.PathLike, *, limit: int | None = None) -> list[Question]:
    """Read questions from a CSV in the SimpleQA layout (``problem``, ``answer``).

    ``item_id`` comes from an ``item_id`` column when present, else the 0-based row index (the
    conventional SimpleQA id).  Missing file, missing columns, empty problems and duplicate ids
    raise ``ValueError`` naming the file and row.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: question file not found (create one with `selfconf fetch simpleqa`)")
    out: list[Question] = []
    seen = validate.SeenKeys()
    with open(p, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        cols = reader.fieldnames or []
        if validate.missing_columns(["problem"], cols):
            raise ValueError(f"{p}: no 'problem' column (columns: {', '.join(cols) or 'none'})")
        for idx, row in enumerate(reader):
            line = reader.line_num
            try:
                iid = validate.nonempty(row.get("item_id"), "empty item_id") if "item_id" in cols else str(idx)
                prob = validate.nonempty(row.get("problem"), "empty 'problem'")
            except validate.FieldError as exc:
                raise ValueError(f"{p}: line {line}: {exc}") from None
            first = seen.add(iid, line)
            if first is not None:
                raise ValueError(f"{p}: line {line}: item_id {iid!r} repeats line {first}")
            out.append(Question(iid, prob, row.get("answer")))
            if limit is not None and len(out) >= limit:
                break
    return out


# --------------------------------------------------------------------------------------------
# Collection loop
# --------------------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def error_record(q: Question, model: str, exc: EndpointError, *, prompt_id: str) -> dict:
    """The record of a question the endpoint never answered (every attempt failed): the fields of
    :func:`build_record` empty and ``error`` the reason, so that ``grade`` and ``report`` count the question
    (reason ``collection_error``) instead of losing it.  The next run on the same ``--out`` asks it again and
    replaces this record."""
    return {
        "model": model,
        "item_id": q.item_id,
        "question": q.problem,
        "gold": q.gold,
        "answer": None,
        "confidence": None,
        "parse_error": None,
        "parse_lenient": False,
        "raw": None,
        "attempts": exc.attempts,
        "latency_s": None,
        "response_model": None,
        "prompt": prompt_id,
        "temperature": 0,
        "collected_at": _now(),
        "error": str(exc),
    }


def build_record(q: Question, model: str, text: str | None, meta: dict, parsed: ParsedReply, *, prompt_id: str) -> dict:
    """One output record: identity, question, gold, parsed fields and the raw reply."""
    return {
        "model": model,
        "item_id": q.item_id,
        "question": q.problem,
        "gold": q.gold,
        "answer": parsed.answer,
        "confidence": parsed.confidence,
        "parse_error": parsed.error,
        "parse_lenient": parsed.lenient,
        "raw": text,
        "attempts": meta.get("attempts"),
        "latency_s": meta.get("latency_s"),
        "response_model": meta.get("response_model"),
        "prompt": prompt_id,
        "temperature": 0,
        "collected_at": _now(),
    }


@dataclass
class CollectSummary:
    total: int = 0
    skipped_done: int = 0
    written: int = 0
    parse_failures: int = 0
    endpoint_failures: int = 0
    dropped_partial: int = 0
    failures: list[str] = field(default_factory=list)


def collect(
    questions: list[Question],
    client: ChatClient,
    out_path: str | os.PathLike,
    *,
    concurrency: int = 4,
    system_prompt: str = SYSTEM_PROMPT,
    prompt_id: str = "paper-v1",
    progress: Callable[[str], None] | None = None,
) -> CollectSummary:
    """Ask every question not yet in ``out_path``; append one record per completed question.

    Items whose ``(model, item_id)`` is already logged are skipped.  A question whose request
    fails after all retries is written with an ``error`` field (:func:`error_record`) and counted in
    ``endpoint_failures``; the next run removes that record and asks the question again, so each question
    has one record at any time; a reply that cannot be parsed *is* written, with ``parse_error`` set
    and the raw text kept.  A non-retryable HTTP error (bad key, unknown model) stops the run.
    The output is locked for the whole run (:class:`OutputLock`): a second run on the same
    ``out_path`` is refused with a ``ValueError``.
    """
    with OutputLock(out_path):
        return _collect_locked(
            questions,
            client,
            out_path,
            concurrency=concurrency,
            system_prompt=system_prompt,
            prompt_id=prompt_id,
            progress=progress,
        )


def _collect_locked(questions, client, out_path, *, concurrency, system_prompt, prompt_id, progress) -> CollectSummary:
    summary = CollectSummary(total=len(questions))
    log = JsonlLog(out_path, key=lambda r: (str(r.get("model")), str(r.get("item_id"))))
    summary.dropped_partial = log.dropped_partial
    if log.dropped_partial and progress:
        progress(f"{out_path}: removed a truncated last line left by an interrupted run")
    failed_before = {log.key(r) for r in log.records if r.get("error")}
    retry = {(client.model, q.item_id) for q in questions} & failed_before
    if retry:
        log.drop(retry)
        if progress:
            progress(f"{out_path}: asking {len(retry)} question(s) again whose collection failed before")
    done = log.done_keys()
    todo = [q for q in questions if (client.model, q.item_id) not in done]
    summary.skipped_done = len(questions) - len(todo)
    stop = threading.Event()
    fatal: list[EndpointError] = []
    count_lock = threading.Lock()

    def work(q: Question) -> None:
        if stop.is_set():
            return
        messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": q.problem}]
        try:
            text, meta = client.chat(messages, temperature=0)
        except EndpointError as exc:
            with count_lock:
                if not exc.retryable:
                    stop.set()
                    fatal.append(exc)
                summary.endpoint_failures += 1
                summary.failures.append(f"{q.item_id}: {exc}")
            if exc.retryable:  # a question that exhausted its retries is recorded, not lost
                log.append(error_record(q, client.model, exc, prompt_id=prompt_id))
            return
        parsed = parse_reply(text)
        log.append(build_record(q, client.model, text, meta, parsed, prompt_id=prompt_id))
        with count_lock:
            summary.written += 1
            if not parsed.ok:
                summary.parse_failures += 1

    try:
        with cf.ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            for fut in cf.as_completed([pool.submit(work, q) for q in todo]):
                fut.result()
    finally:
        log.close()
    if fatal:
        raise fatal[0]
    return summary


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------

HELP = "ask an OpenAI-compatible endpoint the paper's questions and log answers + stated confidence"


#: What ``selfconf collect --help`` says before the options.
DESCRIPTION = (
    "Elicit answers with a stated 0-100 confidence from an OpenAI-compatible chat-completions "
    "endpoint, using the paper's verbatim system prompt, the bare question as the user turn and "
    "temperature 0. Records are appended to a JSONL file (one per question, fsync'ed); re-running "
    "the same command resumes and skips questions already answered. Replies that are not valid "
    "JSON are kept with parse_error set and their raw text. While a run writes --out it holds the "
    "lock file <out>.lock: a second collect on the same --out is refused (exit 2) instead of "
    "writing rows twice; the lock is released when the run ends, even if it is killed. Transport "
    "failures never show a traceback: they are retried, then counted as endpoint failures and written "
    "with an error field (the next run asks those questions again and replaces their rows)."
)
#: The example ``selfconf collect --help`` ends with.
EPILOG = (
    "example: selfconf fetch simpleqa && OPENAI_API_KEY=... selfconf collect "
    "--questions data/external/simpleqa/simpleqa_sample_1500_seed0.csv "
    "--base-url https://api.openai.com/v1 --model gpt-4.1-mini --out runs/gpt-4.1-mini.jsonl"
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("collect", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    p.add_argument(
        "--questions",
        required=True,
        help="CSV with columns problem, answer (optional item_id), e.g. from `selfconf fetch simpleqa`",
    )
    p.add_argument("--out", required=True, help="JSONL output file (appended to; existing records are skipped)")
    add_client_arguments(p)
    p.add_argument("--concurrency", type=int, default=4, help="parallel requests (default 4)")
    p.add_argument("--limit", type=int, default=None, help="ask only the first N questions of the file")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return p


def run(args: argparse.Namespace) -> int:
    if args.concurrency < 1:
        raise ValueError(f"--concurrency must be >= 1, got {args.concurrency}")
    questions = load_questions(args.questions, limit=args.limit)
    client = client_from_args(args)
    say = (lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    if not client.api_key and args.api_key_env and not args.quiet:
        say(f"note: ${args.api_key_env} is not set; sending requests without an API key")
    s = collect(questions, client, args.out, concurrency=args.concurrency, progress=say)
    say(
        f"{args.out}: {s.total} questions, {s.skipped_done} already done, {s.written} written "
        f"({s.parse_failures} parse failures kept with raw text), {s.endpoint_failures} endpoint failures "
        "(recorded with an error field)"
    )
    for line in s.failures[:10]:
        say(f"  failed: {line}")
    if s.endpoint_failures:
        say("some questions got no reply (rows with an error field); run the same command again to retry only those")
        return 3
    return 0
