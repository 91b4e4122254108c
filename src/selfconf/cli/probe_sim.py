"""Scripted models of the self-profile probe, run in-process: the test stub's ``probe-*`` models and the book's
worked example.

A scripted model reads the chat messages ``selfconf probe`` sends (system prompt with the calibration slot, the
question as the user turn) and replies as a fixed rule says.  The same rules answer over HTTP in the tests' stub
server and in-process here (:class:`ScriptedClient`, which stands where :class:`selfconf.cli.collect.ChatClient`
stands), so the book's worked example runs the probe's own collection and analysis code without any network.

Rules (every model is right on the questions whose :func:`stable_fraction` is below 0.6, whatever the arm):

=================  ============================================================================
probe-blind        confidence ignores the system prompt: 70 when right, 50 when wrong, +-20 by question
probe-consuming    confidence follows the injected profile: the percentage of the item's topic when
                   labelled, else the mean of the percentages in the calibration slot (50 when it
                   holds none), +10 when right, -10 when wrong, +-20 by question
probe-pinned       confidence 100 on everything
probe-refusing     "I don't know" on ~40 % of questions, otherwise like probe-blind
probe-noconf       a JSON answer without any confidence field
probe-perfect      always right, confidence 90 (a profile of all-equal accuracies)
=================  ============================================================================

Everything here is a simulation of a model, not the paper's data: the book labels its numbers so.

References: Chernets (2026), Results 2-3 (the ladder and the micro-probe the scripted models are put through).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
from pathlib import Path
from typing import Any

__all__ = [
    "KINDS",
    "SIM_DOMAINS",
    "stable_fraction",
    "scripted_reply",
    "ScriptedClient",
    "simulated_battery",
    "simulate",
    "worked_example",
]

#: The scripted probe models (names as the stub server serves them).
KINDS = ("probe-blind", "probe-consuming", "probe-pinned", "probe-refusing", "probe-noconf", "probe-perfect")


#: The domains of the simulated battery of the book's worked example (MMLU-Pro category names, as labels only).
SIM_DOMAINS = ("biology", "business", "chemistry", "economics", "history", "law", "philosophy", "psychology")


def stable_fraction(text: str) -> float:
    """A number in [0, 1) fixed by ``text``: the first 32 bits of its SHA-256 divided by 2**32.

    >>> stable_fraction("a") == stable_fraction("a"), 0 <= stable_fraction("b") < 1
    (True, True)
    """
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 16**8


def _reply(answer: str, confidence: Any) -> str:
    return json.dumps({"answer": answer, "confidence": confidence})


def scripted_reply(kind: str, system: str, user: str, gold: dict[str, str]) -> str:
    """The reply text of scripted model ``kind`` (see the module's table) to one chat.

    ``user`` is the question, optionally preceded by a ``Topic: <domain>`` line (the topic-labelled pass);
    ``gold`` maps question text to its right answer ("unknown" for a question it does not hold).  Whether the
    model is right depends on the question only, so every arm sees the same right and wrong answers; the
    noise of the confidence is fixed per question as well.  An unknown ``kind`` raises ``ValueError``.

    >>> slot = "Calibration profile (your measured accuracy by domain):\\n- law: 95%"
    >>> json.loads(scripted_reply("probe-pinned", slot, "Q?", {"Q?": "x"}))["confidence"]
    100
    """
    if kind not in KINDS:
        raise ValueError(f"unknown scripted probe model {kind!r}; expected one of {', '.join(KINDS)}")
    question = user.split("\n", 1)[1] if user.startswith("Topic: ") and "\n" in user else user
    answer = gold.get(question, "unknown")
    u = stable_fraction(question)
    right = u < 0.6
    ans = answer if right else f"wrong answer {int(u * 1000)}"
    if kind == "probe-perfect":
        return _reply(answer, 90)
    if kind == "probe-noconf":
        return json.dumps({"answer": ans})
    if kind == "probe-pinned":
        return _reply(ans, 100)
    noise = int(40 * stable_fraction("noise" + question)) - 20  # fixed per question, the same in every arm
    if kind == "probe-consuming":
        lines = dict(re.findall(r"^- ([^:\n]+): (\d+)%$", system, re.M))
        topic = user[len("Topic: ") :].split("\n", 1)[0] if user.startswith("Topic: ") else None
        pct = [int(lines[topic])] if topic in lines else [int(v) for v in lines.values()]
        base = sum(pct) / len(pct) if pct else 50.0
        return _reply(ans, int(round(min(100.0, max(0.0, base + noise + (10 if right else -10))))))
    if kind == "probe-refusing" and stable_fraction("refuse" + question) < 0.4:
        return _reply("I don't know", 10)
    return _reply(ans, (70 if right else 50) + noise)


class ScriptedClient:
    """A scripted model behind the interface ``selfconf probe`` calls (``model``, ``chat(messages, ...)``).

    ``chat`` returns ``(reply text, {"attempts": 1})`` from :func:`scripted_reply`; nothing leaves the process.

    >>> c = ScriptedClient("probe-blind", {"Q?": "x"})
    >>> text, meta = c.chat([{"role": "system", "content": ""}, {"role": "user", "content": "Q?"}])
    >>> meta["attempts"], c.model
    (1, 'probe-blind')
    """

    def __init__(self, kind: str, gold: dict[str, str]) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown scripted probe model {kind!r}; expected one of {', '.join(KINDS)}")
        self.model = kind
        self.gold = dict(gold)
        self.calls = 0

    def chat(self, messages: list[dict[str, str]], temperature: float = 0, **_: Any) -> tuple[str, dict[str, Any]]:
        """One reply: the scripted model's answer to ``messages`` (system turn, user turn)."""
        system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
        user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
        self.calls += 1
        return scripted_reply(self.model, system, user, self.gold), {"attempts": 1}


def simulated_battery(path: str | Path, domains: list[str], per_domain: int) -> Path:
    """Write a probe battery (CSV ``item_id, question, answer, domain``) of simulated questions.

    ``per_domain`` questions per domain, question text ``Simulated question <k> on <domain>.``, answer
    ``answer-<k>``: placeholders for a scripted model, not real questions.

    >>> import tempfile
    >>> p = simulated_battery(Path(tempfile.mkdtemp()) / "b.csv", ["law", "music"], 3)
    >>> p.read_text().splitlines()[1]
    'law-0,Simulated question 0 on law.,answer-0,law'
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["item_id", "question", "answer", "domain"])
        for d in domains:
            for k in range(per_domain):
                w.writerow([f"{d}-{k}", f"Simulated question {k} on {d}.", f"answer-{k}", d])
    return p


def simulate(
    kind: str,
    battery: str | Path,
    out: str | Path,
    *,
    seed: int = 20261130,
    replicates: int = 2,
    label_topics: bool = False,
) -> Path:
    """Run ``selfconf probe``'s collection (stage 1, profiles, stage 2) on a scripted model; returns the log.

    The same code path as ``selfconf probe --battery B --out LOG`` (its split, profiles, placebo check,
    arm prompts, grading and append-only log), with :class:`ScriptedClient` in place of the HTTP client;
    analyse the log with :func:`selfconf.cli.probe.analyse_path` (what ``--analyse-only`` runs).  ``seed`` and
    ``replicates`` default to the command's defaults.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> b = simulated_battery(d / "b.csv", [f"d{k}" for k in range(8)], 6)
    >>> log = simulate("probe-blind", b, d / "log.jsonl")
    >>> sum(1 for line in log.read_text().splitlines() if '"stage": "arm"' in line)
    240
    """
    from selfconf.cli import probe as cli_probe

    items = cli_probe.load_battery(battery)
    client = ScriptedClient(kind, {it.question: it.gold for it in items})
    args = argparse.Namespace(
        battery=str(battery),
        out=str(out),
        seed=seed,
        replicates=replicates,
        label_topics=label_topics,
        dry_run=False,
        max_calls=None,
        concurrency=1,
    )
    rc = cli_probe._run_live(args, lambda m: None, client=client, analyse=False)
    if rc != 0:
        raise RuntimeError(f"simulated probe of {kind} stopped with exit status {rc}")
    return Path(out)


def worked_example(
    kind: str = "probe-consuming",
    *,
    seed: int = 0,
    n_boot: int = 2000,
    domains: tuple[str, ...] = SIM_DOMAINS,
    per_domain: int = 16,
    replicates: int = 1,
) -> dict[str, Any]:
    """The book's worked example: ``selfconf probe`` on scripted model ``kind``, then ``--analyse-only``'s analysis.

    A simulated battery (:func:`simulated_battery`, ``per_domain`` questions in each of ``domains``) in a
    temporary folder, collected by :func:`simulate` and analysed by :func:`selfconf.cli.probe.analyse_path` at
    ``seed`` and ``n_boot``.  Returns ``{"model", "result"`` (the analysis: ``arms``, ``contrasts``, ``checks``),
    ``"rows"`` (the stage-2 rows), ``"n_items"``, ``"n_calls"}``.  Nothing leaves the process; the numbers are a
    simulation, not the paper's data.

    >>> ex = worked_example("probe-blind", n_boot=50, per_domain=6)
    >>> ex["n_items"], ex["n_calls"], ex["result"]["checks"]["manipulable"]
    (48, 144, False)
    """
    import tempfile

    from selfconf.cli import probe as cli_probe

    with tempfile.TemporaryDirectory(prefix="selfconf-probe-sim-") as tmp:
        d = Path(tmp)
        battery = simulated_battery(d / "battery.csv", list(domains), per_domain)
        log = simulate(kind, battery, d / "probe.jsonl", seed=seed, replicates=replicates)
        res, frames = cli_probe.analyse_path(log, n_boot=n_boot, seed=seed)
        lines = log.read_text(encoding="utf-8").splitlines()
        n_calls = sum(json.loads(x).get("stage") in ("profile", "arm") for x in lines if x.strip())
    name = next(iter(res["subjects"]))
    return {
        "model": name,
        "result": res["subjects"][name],
        "rows": frames[name],
        "n_items": len(domains) * per_domain,
        "n_calls": n_calls,
    }
