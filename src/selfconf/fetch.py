"""``selfconf fetch``: download third-party data sets used beyond the paper (never committed).

``selfconf fetch simpleqa``
    OpenAI's published SimpleQA test set (Wei et al. 2024, arXiv 2411.04368; MIT licence via
    openai/simple-evals), 4,326 questions with columns ``metadata, problem, answer``.  Writes the
    full file and a seeded subsample (default 1,500 items, seed 0, like the paper's pre-registered
    ``n = 1,500`` subsample) with an ``item_id`` column holding the original row index, and prints
    the SHA-256 of both so a run can be pinned to its question set.

``selfconf fetch mmlu-pro-calibration``
    The 26 ``results/mmlu_pro_<model>_eval_all_None.csv`` files of Linwei94/LLM-Calibration-Study
    (MIT) at the pinned commit :data:`MMLU_PRO_COMMIT`: MMLU-Pro test-split answers of 26 models
    with a verbalised 0–100 confidence (stored divided by 100).  Read them with
    :func:`read_mmlu_pro_calibration`.

``--from DIR`` copies the same files from a local folder instead of the network (CI uses
``../shared/external/...``).  Downloads go to a temporary name first and are renamed when
complete, so an interrupted fetch never leaves a half file under the final name.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

__all__ = [
    "SIMPLEQA_URL",
    "SIMPLEQA_SHA256",
    "MMLU_PRO_REPO",
    "MMLU_PRO_COMMIT",
    "MMLU_PRO_MODELS",
    "mmlu_pro_filename",
    "fetch_simpleqa",
    "subsample_simpleqa",
    "fetch_mmlu_pro_calibration",
    "read_mmlu_pro_calibration",
    "add_parser",
    "run",
]

SIMPLEQA_URL = "https://openaipublic.blob.core.windows.net/simple-evals/simple_qa_test_set.csv"
#: SHA-256 of the published file as mirrored in ../shared/external/simpleqa (see its SOURCE.md).
SIMPLEQA_SHA256 = "feee3f7e7db3617e94e8fcf1977b756ec420ef8568f4e0fcbbe0e92e9d5fc032"
SIMPLEQA_FILE = "simple_qa_test_set.csv"

MMLU_PRO_REPO = "Linwei94/LLM-Calibration-Study"
MMLU_PRO_COMMIT = "ddc349e31695f3c2f8b8dfb2c3376a720914df55"
#: The 26 models whose result files are fetched (names exactly as in the repository's file names).
MMLU_PRO_MODELS: tuple[str, ...] = (
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "gpt-4o-2024-08-06",
    "gpt-4o-mini-2024-07-18",
    "o1-mini-2024-09-12",
    "o3-mini-2025-01-31",
    "o4-mini-2025-04-16",
    "claude-3-7-sonnet-20250219",
    "claude-3-5-haiku-20241022",
    "claude-3-haiku-20240307",
    "deepseek-chat",
    "deepseek-reasoner",
    "gemini-1.5-pro",
    "gemini-1.5-flash",
    "gemini-2.0-flash",
    "gemma-3-27b-it",
    "grok-3-beta",
    "grok-2-1212",
    "Meta-Llama-3.1-405B-Instruct-Turbo",
    "Meta-Llama-3.1-70B-Instruct-Turbo",
    "Meta-Llama-3.1-8B-Instruct-Turbo",
    "Llama-4-Maverick-17B-128E-Instruct-FP8",
    "Qwen3-235B-A22B-fp8-tput",
    "Qwen2.5-32B-Instruct",
    "Mistral-Small-24B-Instruct-2501",
)
DEFAULT_SIMPLEQA_DIR = "data/external/simpleqa"
DEFAULT_MMLU_PRO_DIR = "data/external/mmlu-pro-calibration"


def mmlu_pro_filename(model: str) -> str:
    return f"mmlu_pro_{model}_eval_all_None.csv"


def mmlu_pro_url(model: str, commit: str = MMLU_PRO_COMMIT) -> str:
    return f"https://raw.githubusercontent.com/{MMLU_PRO_REPO}/{commit}/results/{mmlu_pro_filename(model)}"


def sha256(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _download(url: str, dest: Path, *, timeout: float = 120.0) -> None:
    import requests

    tmp = dest.with_name(dest.name + ".part")
    with requests.get(url, stream=True, timeout=timeout) as r:
        if r.status_code != 200:
            raise ValueError(f"{url}: HTTP {r.status_code}; cannot download")
        with open(tmp, "wb") as fh:
            for chunk in r.iter_content(1 << 16):
                fh.write(chunk)
    os.replace(tmp, dest)


def _copy(src: Path, dest: Path) -> None:
    if not src.is_file():
        raise FileNotFoundError(f"{src}: not found (expected in the --from folder)")
    tmp = dest.with_name(dest.name + ".part")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)


def subsample_simpleqa(full_csv: str | os.PathLike, out_csv: str | os.PathLike, *, n_items: int, seed: int) -> int:
    """Write a seeded subsample of the SimpleQA file with an ``item_id`` column; return its size.

    Rows are drawn without replacement by ``numpy.random.default_rng(seed).choice`` and written in
    their original order; ``item_id`` is the 0-based row index in the full file.  ``n_items <= 0``
    or larger than the file keeps every row.
    """
    import numpy as np

    with open(full_csv, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        cols = reader.fieldnames or []
        for need in ("problem", "answer"):
            if need not in cols:
                raise ValueError(f"{full_csv}: no {need!r} column (columns: {', '.join(cols)})")
        rows = list(reader)
    n = len(rows)
    if n_items <= 0 or n_items >= n:
        keep = np.arange(n)
    else:
        keep = np.sort(np.random.default_rng(seed).choice(n, size=n_items, replace=False))
    out_cols = ["item_id", "problem", "answer"] + [c for c in cols if c not in ("problem", "answer", "item_id")]
    with open(out_csv, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=out_cols)
        w.writeheader()
        for i in keep:
            w.writerow({"item_id": str(int(i)), **{c: rows[i][c] for c in out_cols if c != "item_id"}})
    return int(len(keep))


def fetch_simpleqa(
    dest: str | os.PathLike = DEFAULT_SIMPLEQA_DIR,
    *,
    from_dir: str | os.PathLike | None = None,
    url: str = SIMPLEQA_URL,
    n_items: int = 1500,
    sample_seed: int = 0,
    log=print,
) -> dict:
    """Fetch (or copy) the SimpleQA test set and write the seeded subsample; return a manifest."""
    d = Path(dest)
    d.mkdir(parents=True, exist_ok=True)
    full = d / SIMPLEQA_FILE
    if from_dir:
        _copy(Path(from_dir) / SIMPLEQA_FILE, full)
        source = str(Path(from_dir) / SIMPLEQA_FILE)
    else:
        log(f"downloading {url}")
        _download(url, full)
        source = url
    digest = sha256(full)
    if digest != SIMPLEQA_SHA256:
        log(f"warning: {full} has SHA-256 {digest}, not the expected {SIMPLEQA_SHA256}; the published file may have changed")
    sample_name = f"simpleqa_sample_{n_items}_seed{sample_seed}.csv" if n_items > 0 else "simpleqa_all.csv"
    sample = d / sample_name
    k = subsample_simpleqa(full, sample, n_items=n_items, seed=sample_seed)
    manifest = {
        "source": source,
        "file": str(full),
        "sha256": digest,
        "sample_file": str(sample),
        "sample_sha256": sha256(sample),
        "n_items": k,
        "sample_seed": sample_seed,
    }
    (d / "FETCHED.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log(f"{full}: sha256 {digest}")
    log(f"{sample}: {k} questions, sha256 {manifest['sample_sha256']}")
    return manifest


def fetch_mmlu_pro_calibration(
    dest: str | os.PathLike = DEFAULT_MMLU_PRO_DIR,
    *,
    from_dir: str | os.PathLike | None = None,
    commit: str = MMLU_PRO_COMMIT,
    log=print,
) -> dict:
    """Fetch (or copy) the 26 MMLU-Pro result CSVs into ``dest``; return a manifest of SHA-256s.

    With ``from_dir`` every one of the 26 files must be present there (a missing one is an error
    naming it).  Already-present files are replaced, so the folder always matches the source.
    """
    d = Path(dest)
    d.mkdir(parents=True, exist_ok=True)
    if from_dir and not Path(from_dir).is_dir():
        raise FileNotFoundError(f"{from_dir}: --from folder not found")
    files = {}
    for m in MMLU_PRO_MODELS:
        name = mmlu_pro_filename(m)
        if from_dir:
            _copy(Path(from_dir) / name, d / name)
        else:
            log(f"downloading {name}")
            _download(mmlu_pro_url(m, commit), d / name)
        files[name] = sha256(d / name)
    if from_dir and (Path(from_dir) / "SOURCE.md").is_file():
        shutil.copyfile(Path(from_dir) / "SOURCE.md", d / "SOURCE.md")
    manifest = {
        "source": str(from_dir) if from_dir else f"https://github.com/{MMLU_PRO_REPO}",
        "repository": MMLU_PRO_REPO,
        "commit": commit,
        "files": files,
    }
    (d / "FETCHED.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log(f"{d}: {len(files)} files")
    return manifest


def read_mmlu_pro_calibration(folder: str | os.PathLike = DEFAULT_MMLU_PRO_DIR):
    """Read the 26 result files into one long frame in the ``selfconf report`` row layout.

    Columns: ``model``, ``item_id`` (the row number, identical across files), ``category``,
    ``confidence`` (the verbalised confidence on the 0–1 scale as stored, ``NaN`` when it was not
    parsed), ``correct`` (``extracted_answer == correct_answer``; an empty extraction is wrong,
    as in the source repository), ``answer``, ``gold``.  A missing folder or file raises
    ``FileNotFoundError`` telling the user to run ``make external``.
    """
    import numpy as np
    import pandas as pd

    d = Path(folder)
    hint = "run `make external` (or `selfconf fetch mmlu-pro-calibration`) first"
    if not d.is_dir():
        raise FileNotFoundError(f"{d}: MMLU-Pro calibration data not found; {hint}")
    frames = []
    for m in MMLU_PRO_MODELS:
        p = d / mmlu_pro_filename(m)
        if not p.is_file():
            raise FileNotFoundError(f"{p}: missing; {hint}")
        raw = pd.read_csv(p, dtype={"correct_answer": str, "extracted_answer": str})
        for col in ("category", "correct_answer", "extracted_answer", "verbal_numerical_confidence"):
            if col not in raw.columns:
                raise ValueError(f"{p}: no {col!r} column")
        gold = raw["correct_answer"].fillna("").str.strip()
        ans = raw["extracted_answer"].fillna("").str.strip()
        frames.append(
            pd.DataFrame(
                {
                    "model": m,
                    "item_id": np.arange(len(raw)),
                    "category": raw["category"],
                    "confidence": pd.to_numeric(raw["verbal_numerical_confidence"], errors="coerce"),
                    "correct": ((ans == gold) & (ans != "")).astype(int),
                    "answer": ans,
                    "gold": gold,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


HELP = "download third-party data (SimpleQA questions, MMLU-Pro calibration results); never committed"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "fetch",
        help=HELP,
        description="Download a third-party data set into data/external/ (or copy it from a local folder with --from).",
    )
    sub = p.add_subparsers(dest="dataset", metavar="<dataset>", required=True)
    s = sub.add_parser(
        "simpleqa",
        help="OpenAI's SimpleQA test set + a seeded subsample for `selfconf collect`",
        description=(
            f"Download the SimpleQA test set from {SIMPLEQA_URL} (MIT licence, openai/simple-evals), check its "
            "SHA-256, and write a seeded subsample (default 1,500 items) with an item_id column = original row index."
        ),
    )
    s.add_argument("--dest", default=DEFAULT_SIMPLEQA_DIR, help=f"output folder (default {DEFAULT_SIMPLEQA_DIR})")
    s.add_argument("--from", dest="from_dir", default=None, help=f"copy {SIMPLEQA_FILE} from this folder instead of downloading")
    s.add_argument("--url", default=SIMPLEQA_URL, help="download URL (default: the published file)")
    s.add_argument("--n-items", type=int, default=1500, help="subsample size (default 1500; 0 = all 4,326)")
    s.add_argument("--sample-seed", type=int, default=0, help="seed of the subsample (default 0)")
    m = sub.add_parser(
        "mmlu-pro-calibration",
        help="26 models' MMLU-Pro answers with verbalised confidence (Linwei94/LLM-Calibration-Study)",
        description=(
            f"Download the 26 results/mmlu_pro_<model>_eval_all_None.csv files of github.com/{MMLU_PRO_REPO} "
            f"(MIT) at commit {MMLU_PRO_COMMIT}."
        ),
    )
    m.add_argument("--dest", default=DEFAULT_MMLU_PRO_DIR, help=f"output folder (default {DEFAULT_MMLU_PRO_DIR})")
    m.add_argument("--from", dest="from_dir", default=None, help="copy the 26 CSVs from this folder instead of downloading")
    m.add_argument("--commit", default=MMLU_PRO_COMMIT, help="repository commit to download from (default: the pinned one)")
    return p


def run(args: argparse.Namespace) -> int:
    log = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    if args.dataset == "simpleqa":
        if args.n_items < 0:
            raise ValueError(f"--n-items must be >= 0, got {args.n_items}")
        fetch_simpleqa(args.dest, from_dir=args.from_dir, url=args.url, n_items=args.n_items, sample_seed=args.sample_seed, log=log)
    else:
        fetch_mmlu_pro_calibration(args.dest, from_dir=args.from_dir, commit=args.commit, log=log)
    return 0
