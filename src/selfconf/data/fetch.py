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
    "MMLU_PRO_SHA256",
    "ChecksumError",
    "DownloadError",
    "verify_mmlu_pro_file",
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
#: SHA-256 of each result file at :data:`MMLU_PRO_COMMIT` (as mirrored in ../shared/external); a fetched file
#: with another digest is refused (:func:`verify_mmlu_pro_file`).
MMLU_PRO_SHA256: dict[str, str] = {
    "gpt-4.1": "fb5554cb92e8c30cfb52fc4c05422575d8c97544a42cf9e46c8d1b978c1f22f1",
    "gpt-4.1-mini": "32e32225f905847028ac44591e035bfc700337cc69cf3436a2c428ce781040a9",
    "gpt-4.1-nano": "a3c9af9b9664a276ce5ab0b0d635178bb14861cdbdd57381accdf7fc03f5bec2",
    "gpt-4o-2024-08-06": "9b432a72f21f31d1f315376f9240486202acee0dcebe5913cacf55b39f5b6e5a",
    "gpt-4o-mini-2024-07-18": "d0fa862778f618e977ab0c173f9328de04cd192c2d174b321e6ef6de239d66d3",
    "o1-mini-2024-09-12": "6bc82c66c556b17c7f1925c235fdf49cf1d8c0c70f15b44d809dd43d31c28340",
    "o3-mini-2025-01-31": "375ef446f6a2c489d0066f3fc638ea18ee78497998bef423ff58cf0b1304c8ae",
    "o4-mini-2025-04-16": "cd634f60fda23e5f4581e8360aea95a4d44ff3e5d71aa0e32cf681dfe5e924c4",
    "claude-3-7-sonnet-20250219": "43ab905e67376e3de87421c540f207643742a47b98c8d48da0e2ba9a60f5ae66",
    "claude-3-5-haiku-20241022": "02f3336ef54947deb674b5594c709a67d034b8b9abdbdd90259bdd17e443916a",
    "claude-3-haiku-20240307": "3d1211cd228a4515cdb8330044f680dee15d38ba1454822899f449d95baec654",
    "deepseek-chat": "e4989de9cbde130da6aef98daeaea6d9e4c95320452e892c6539ebb84bfa76f5",
    "deepseek-reasoner": "0bf16dd6691a3afb371dd0d61158af5044ab9267bd331b7d6813fdaf6464f0ac",
    "gemini-1.5-pro": "d74652d580cd0d94901751488af6be9afd420ab2555d973dc7691d41f436a054",
    "gemini-1.5-flash": "3b0751775fed159a1d1a9533c998cba8d27a46af4b0030f2045edaddb5f06026",
    "gemini-2.0-flash": "8701f6a69d8099ede4facf35beb0ab109a961ea4903f012e0b5f9a9589e09362",
    "gemma-3-27b-it": "3617710ed314b13efc3f79d26e677855dc4b268f1d38fb46aa7996835454a751",
    "grok-3-beta": "aca0d1f51cbffe041213b1390e3d639967a61c7bb82f4f2596b53c8397207deb",
    "grok-2-1212": "665e214b01ffa871dc9f21360a310dc9efae0bc280e94b9c8abfeb8d2acc4c51",
    "Meta-Llama-3.1-405B-Instruct-Turbo": "8be64581be2f13c41a3ea9a384855c5699ae8da4321b40c36ca65547920da665",
    "Meta-Llama-3.1-70B-Instruct-Turbo": "d9296c1c50757cd8814e2f41ae8e3a10ae996c4f72a5924404a3bb970cbc5dcc",
    "Meta-Llama-3.1-8B-Instruct-Turbo": "427f7a6375226a964a4e7eca0b146289f8910368519ff077395b7fc5d11abd28",
    "Llama-4-Maverick-17B-128E-Instruct-FP8": "20c7af76e703a3fa37b615479603e55089da0b79bb5ca9662936a469e813f1b9",
    "Qwen3-235B-A22B-fp8-tput": "0d048eb13bc1be9bb86f5d2f32b38366ce2183862f3ecc05cfa6cce297480ef7",
    "Qwen2.5-32B-Instruct": "2f35e392c519ecd415303186d99fca77f6b2d714da7b052e30b33c6b6ce57480",
    "Mistral-Small-24B-Instruct-2501": "f4002d5f1d5aefaa55500cba842d33811cec39f6de266279f786e7f0aa42f74f",
}
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


class DownloadError(OSError):
    """A download failed (no network, HTTP error); the message names the URL and the way out."""


class ChecksumError(ValueError):
    """A fetched or cached file does not have its pinned SHA-256; the message names file and digests."""


def _download(url: str, dest: Path, *, timeout: float = 120.0) -> None:
    import requests

    tmp = dest.with_name(dest.name + ".part")
    try:
        with requests.get(url, stream=True, timeout=timeout) as r:
            if r.status_code != 200:
                raise DownloadError(f"{url}: HTTP {r.status_code}; cannot download")
            with open(tmp, "wb") as fh:
                for chunk in r.iter_content(1 << 16):
                    fh.write(chunk)
    except requests.RequestException as e:
        tmp.unlink(missing_ok=True)
        raise DownloadError(
            f"{url}: cannot download ({type(e).__name__}); no network? Copy the files from a local folder "
            "instead (selfconf fetch ... --from DIR, or SELFCONF_EXTERNAL_FROM=DIR)"
        ) from None
    os.replace(tmp, dest)


def verify_mmlu_pro_file(path: str | os.PathLike, model: str) -> str:
    """Check one MMLU-Pro result file against :data:`MMLU_PRO_SHA256`; return its digest.

    Raises :class:`ChecksumError` naming the file, the digest found and the one expected.
    Example: ``verify_mmlu_pro_file("data/external/mmlu-pro-calibration/mmlu_pro_gpt-4.1_eval_all_None.csv",
    "gpt-4.1")`` returns the pinned digest for an intact copy."""
    digest = sha256(path)
    want = MMLU_PRO_SHA256[model]
    if digest != want:
        raise ChecksumError(
            f"{path}: SHA-256 {digest}, expected {want} (commit {MMLU_PRO_COMMIT}); the file is "
            "corrupt or not the pinned version: delete it and fetch again"
        )
    return digest


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
        log(
            f"warning: {full} has SHA-256 {digest}, not the expected {SIMPLEQA_SHA256}; "
            "the published file may have changed"
        )
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
    naming it).  Already-present files are replaced, so the folder always matches the source.  At the
    pinned commit every file is checked against :data:`MMLU_PRO_SHA256` (:class:`ChecksumError` otherwise);
    a failed download raises :class:`DownloadError` naming the URL.
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
        files[name] = verify_mmlu_pro_file(d / name, m) if commit == MMLU_PRO_COMMIT else sha256(d / name)
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
    s.add_argument(
        "--from", dest="from_dir", default=None, help=f"copy {SIMPLEQA_FILE} from this folder instead of downloading"
    )
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
    m.add_argument(
        "--from", dest="from_dir", default=None, help="copy the 26 CSVs from this folder instead of downloading"
    )
    m.add_argument(
        "--commit", default=MMLU_PRO_COMMIT, help="repository commit to download from (default: the pinned one)"
    )
    return p


def run(args: argparse.Namespace) -> int:
    log = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    if args.dataset == "simpleqa":
        if args.n_items < 0:
            raise ValueError(f"--n-items must be >= 0, got {args.n_items}")
        fetch_simpleqa(
            args.dest, from_dir=args.from_dir, url=args.url, n_items=args.n_items, sample_seed=args.sample_seed, log=log
        )
    else:
        fetch_mmlu_pro_calibration(args.dest, from_dir=args.from_dir, commit=args.commit, log=log)
    return 0
