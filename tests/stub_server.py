"""A scripted stand-in for an OpenAI-compatible chat-completions server, for end-to-end tests.

Runs :class:`http.server.ThreadingHTTPServer` in a daemon thread on ``127.0.0.1`` at a free port
chosen by the OS.  The *model name* in each request picks a behaviour, so one server can play
several models at once:

==============  ===============================================================================
model           behaviour
==============  ===============================================================================
calibrated      right on ~60 % of questions (stable hash) with confidence 85, wrong ones at 25
overconfident   right on ~30 % of questions, confidence 95 on everything, never abstains
refusing        "I don't know" (confidence 10) on ~60 %, right with confidence 80 otherwise
malformed       cycles through fenced JSON, prose around JSON, "85%" strings, non-JSON text,
                out-of-range and non-numeric confidence, single-quoted pseudo-JSON
slow            first request per question sleeps ``slow_seconds`` (meant to exceed the client's
                timeout), later ones answer like ``calibrated``
flaky           first request per question gets HTTP 500, later ones answer like ``calibrated``
ratelimited     first request per question gets HTTP 429 with ``Retry-After: 0``
dropping        first request per question closes the socket without any response
midbody         first request per question sends the headers and half the body, then closes the
                socket (the client sees a connection dropped mid-response)
trickle         first request per question sends the headers, then one body byte every
                ``trickle_seconds`` (a per-read socket timeout never fires)
paced           every request waits ``pace_seconds`` and then answers like ``calibrated``
judge           grader: EQUIVALENT when every gold token occurs in the candidate, else DIFFERENT
unauthorized    HTTP 401 always
==============  ===============================================================================

Scripted models of ``selfconf probe`` (``probe-blind``, ``probe-consuming``, ``probe-pinned``, ``probe-refusing``,
``probe-noconf``, ``probe-perfect``; a ``-paced`` suffix adds ``pace_seconds`` per request) answer by the rules of
:mod:`selfconf.cli.probe_sim` (the module the book's worked example runs in-process).

``gold`` maps question text to the right answer; questions it does not know get "unknown".
Every request body and its ``Authorization`` header are kept in :attr:`StubServer.requests`.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selfconf.cli.probe_sim import scripted_reply, stable_fraction

MALFORMED_TEMPLATES = [
    '```json\n{{"answer": "{a}", "confidence": 70}}\n```',
    'Sure! Here is my reply: {{"answer": "{a}", "confidence": "85%"}} Hope that helps.',
    "The answer is {a}, and I am fairly sure.",
    '{{"answer": "{a}", "confidence": 150}}',
    '{{"answer": "{a}", "confidence": "high"}}',
    "{{'answer': '{a}', 'confidence': 60,}}",
]


def _reply(answer: str, confidence) -> str:
    return json.dumps({"answer": answer, "confidence": confidence})


class StubServer:
    """Start with :meth:`start` (returns the base URL ending in ``/v1``), stop with :meth:`stop`."""

    def __init__(
        self,
        gold: dict[str, str] | None = None,
        *,
        slow_seconds: float = 1.0,
        pace_seconds: float = 0.05,
        trickle_seconds: float = 0.5,
    ):
        self.gold = dict(gold or {})
        self.slow_seconds = slow_seconds
        self.pace_seconds = pace_seconds
        self.trickle_seconds = trickle_seconds
        self.requests: list[dict] = []
        self.attempts: Counter = Counter()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> str:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # one buffered write per response and no Nagle: otherwise every reply waits ~40 ms for a
            # delayed ACK between the header and body packets
            wbufsize = 1 << 16
            disable_nagle_algorithm = True

            def log_message(self, *a):  # keep test output quiet
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                stub._handle(self, body)

        class QuietServer(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                # a client that timed out closed its socket before the (slow) reply: expected here
                import sys

                if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
                    super().handle_error(request, client_address)

        self._httpd = QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self.base_url

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- behaviour ---------------------------------------------------------------------------
    def _send(self, h: BaseHTTPRequestHandler, status: int, payload: dict, headers: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _chat(self, h, model: str, content: str) -> None:
        self._send(
            h,
            200,
            {
                "id": "stub",
                "object": "chat.completion",
                "model": model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
            },
        )

    def answer_like(self, kind: str, question: str) -> str:
        """The reply text a scripted model gives to ``question``."""
        gold = self.gold.get(question, "unknown")
        u = stable_fraction(question)
        wrong = f"wrong answer {int(u * 1000)}"
        if kind == "calibrated":
            return _reply(gold, 85) if u < 0.6 else _reply(wrong, 25)
        if kind == "overconfident":
            if gold == "ABSTAIN":
                return _reply("Paris", 95)
            return _reply(gold if u < 0.3 else wrong, 95)
        if kind == "refusing":
            return _reply("I don't know", 10) if u < 0.6 else _reply(gold, 80)
        if kind == "malformed":
            tpl = MALFORMED_TEMPLATES[int(u * len(MALFORMED_TEMPLATES))]
            return tpl.format(a=gold)
        raise ValueError(kind)

    def probe_answer(self, kind: str, system: str, user: str) -> str:
        """The reply of a scripted ``probe-*`` model: :func:`selfconf.cli.probe_sim.scripted_reply`."""
        return scripted_reply(kind, system, user, self.gold)

    def _handle(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        model = str(body.get("model", ""))
        msgs = body.get("messages") or []
        question = next((m.get("content", "") for m in msgs if m.get("role") == "user"), "")
        with self._lock:
            self.requests.append({"body": body, "authorization": h.headers.get("Authorization")})
            self.attempts[(model, question)] += 1
            attempt = self.attempts[(model, question)]
        if model == "unauthorized":
            return self._send(h, 401, {"error": {"message": "invalid api key"}})
        if model == "flaky" and attempt == 1:
            return self._send(h, 500, {"error": {"message": "internal error"}})
        if model == "ratelimited" and attempt == 1:
            return self._send(h, 429, {"error": {"message": "slow down"}}, {"Retry-After": "0"})
        if model == "dropping" and attempt == 1:
            h.close_connection = True
            try:
                h.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return None
        if model == "midbody" and attempt == 1:
            data = json.dumps(
                {"choices": [{"message": {"content": self.answer_like("calibrated", question)}}]}
            ).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data[: len(data) // 2])
            h.wfile.flush()
            h.close_connection = True
            try:
                h.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return None
        if model == "trickle" and attempt == 1:
            data = json.dumps(
                {"choices": [{"message": {"content": self.answer_like("calibrated", question)}}]}
            ).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.flush()
            try:
                for i in range(len(data)):
                    h.wfile.write(data[i : i + 1])
                    h.wfile.flush()
                    time.sleep(self.trickle_seconds)
            except OSError:  # the client gave up and closed the connection
                pass
            h.close_connection = True
            return None
        if model == "slow" and attempt == 1:
            time.sleep(self.slow_seconds)
        if model == "paced":
            time.sleep(self.pace_seconds)
        if model.startswith("probe-"):
            kind = model.removesuffix("-paced")
            if kind != model:
                time.sleep(self.pace_seconds)
            system = next((m.get("content", "") for m in msgs if m.get("role") == "system"), "")
            return self._chat(h, model, self.probe_answer(kind, system, question))
        if model == "judge":
            return self._chat(h, model, self._judge(question))
        kind = model if model in ("calibrated", "overconfident", "refusing", "malformed") else "calibrated"
        return self._chat(h, model, self.answer_like(kind, question))

    @staticmethod
    def _judge(prompt: str) -> str:
        gold = re.search(r"Gold answer:\s*(.*)", prompt)
        cand = re.search(r"Candidate answer:\s*(.*)", prompt)
        if not gold or not cand:
            return "UNSURE"
        g = set(re.findall(r"\w+", gold.group(1).lower()))
        c = set(re.findall(r"\w+", cand.group(1).lower()))
        return "EQUIVALENT" if g and g <= c else "DIFFERENT"
