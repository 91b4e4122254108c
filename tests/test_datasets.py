"""selfconf.datasets: the shipped collection equals data/reconstructed, mmlu-pro loads from ../shared with
checksums and a cache, names() lists licences, and failures name what failed."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from selfconf import datasets
from selfconf.data import fetch, load_collection

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "external"


def test_shipped_collection_is_byte_identical_to_the_reconstruction():
    shipped = gzip.decompress(datasets.collection_file().read_bytes())
    assert shipped == (ROOT / "data" / "reconstructed" / "collection.csv").read_bytes(), (
        "src/selfconf/datasets/collection.csv.gz is stale: run `python -m selfconf.datasets pack`"
    )


@pytest.mark.slow
def test_load_collection_is_marked_as_a_reconstruction_and_equals_the_loader():
    df = datasets.load("collection")
    ref, report = load_collection(ROOT / "data" / "reconstructed")
    pd.testing.assert_frame_equal(df, ref)
    assert df.attrs["reconstruction"] is True and df.attrs["dataset"] == "collection"
    assert df.attrs["parse_failures"] == report.total_parse_failures
    assert "reconstruction" in datasets.load.__doc__.lower() and "reconstruction" in datasets.__doc__.lower()


def test_names_lists_every_data_set_with_a_licence():
    n = datasets.names()
    assert list(n["name"]) == ["collection", "mmlu-pro", "mmlu-pro-sample"]
    assert n["licence"].str.contains("MIT").all()
    assert n.set_index("name").loc["collection", "reconstruction"] and n.set_index("name").loc["collection", "shipped"]


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(KeyError, match="known: collection, mmlu-pro, mmlu-pro-sample"):
        datasets.load("mmlu")


needs_shared = pytest.mark.skipif(not (SHARED / "mmlu-pro-calibration").is_dir(), reason="no ../shared/external")


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """An empty cache and no copy inside the checkout: load must go through SELFCONF_EXTERNAL_FROM or the network."""
    monkeypatch.setenv("SELFCONF_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(datasets, "_project_copy", lambda: None)
    return tmp_path


@pytest.mark.slow
@needs_shared
def test_mmlu_pro_from_shared_then_from_the_cache(isolated, monkeypatch):
    monkeypatch.setenv("SELFCONF_EXTERNAL_FROM", str(SHARED))
    df = datasets.load("mmlu-pro")
    assert df["model"].nunique() == 26 and len(df) == 26 * 12032
    assert df.attrs["reconstruction"] is False and df.attrs["commit"] == fetch.MMLU_PRO_COMMIT
    cached = isolated / "cache" / "mmlu-pro-calibration"
    assert len(list(cached.glob("mmlu_pro_*.csv"))) == 26
    # second load: from the cache, with no source at all
    monkeypatch.delenv("SELFCONF_EXTERNAL_FROM")
    monkeypatch.setattr(fetch, "_download", lambda *a, **k: pytest.fail("downloaded although cached"))
    again = datasets.load("mmlu-pro")
    pd.testing.assert_frame_equal(df, again)


@needs_shared
def test_mmlu_pro_bad_checksum_names_the_file(isolated, monkeypatch):
    src = isolated / "src" / "mmlu-pro-calibration"
    shutil.copytree(SHARED / "mmlu-pro-calibration", src)
    victim = src / fetch.mmlu_pro_filename("gpt-4.1")
    victim.chmod(0o644)
    victim.write_bytes(victim.read_bytes()[:-10])
    monkeypatch.setenv("SELFCONF_EXTERNAL_FROM", str(isolated / "src"))
    with pytest.raises(fetch.ChecksumError, match=r"mmlu-pro: .*mmlu_pro_gpt-4\.1_eval_all_None\.csv: SHA-256"):
        datasets.load("mmlu-pro")


@needs_shared
def test_a_corrupted_cache_is_refused(isolated, monkeypatch):
    monkeypatch.setenv("SELFCONF_EXTERNAL_FROM", str(SHARED))
    datasets.load("mmlu-pro")
    f = isolated / "cache" / "mmlu-pro-calibration" / fetch.mmlu_pro_filename("deepseek-chat")
    f.chmod(0o644)
    f.write_text("category,correct_answer\n")
    with pytest.raises(fetch.ChecksumError, match="deepseek-chat"):
        datasets.load("mmlu-pro")


def test_no_network_says_so(isolated, monkeypatch):
    import requests

    monkeypatch.delenv("SELFCONF_EXTERNAL_FROM", raising=False)

    def offline(*a, **k):
        raise requests.ConnectionError("no route to host")

    monkeypatch.setattr(requests, "get", offline)
    with pytest.raises(fetch.DownloadError, match=r"mmlu-pro: https://raw\.githubusercontent\.com/.*no network"):
        datasets.load("mmlu-pro")
    assert not list((isolated / "cache" / "mmlu-pro-calibration").glob("*.part"))


def test_a_missing_local_source_folder_is_named(isolated, monkeypatch):
    monkeypatch.setenv("SELFCONF_EXTERNAL_FROM", str(isolated / "nowhere"))
    with pytest.raises(FileNotFoundError, match="SELFCONF_EXTERNAL_FROM=.*nowhere"):
        datasets.load("mmlu-pro")


def test_the_mmlu_pro_sample_ships_with_its_source_note_and_loads_offline(monkeypatch, tmp_path):
    """The teaching lab's offline data: 26 models x 1,000 questions inside the package, with the licence note."""
    monkeypatch.setenv("SELFCONF_EXTERNAL_FROM", "none")
    monkeypatch.setenv("SELFCONF_CACHE", str(tmp_path / "empty"))
    s = datasets.load("mmlu-pro-sample")
    assert s.shape == (26 * datasets.MMLU_SAMPLE_QUESTIONS, 7) and s["model"].nunique() == 26
    assert s["item_id"].nunique() == datasets.MMLU_SAMPLE_QUESTIONS and "gpt-4o-2024-08-06" in set(s["model"])
    assert datasets.names().set_index("name").loc["mmlu-pro-sample", "shipped"]
    note = datasets.MMLU_SAMPLE_NOTE.read_text(encoding="utf-8")
    assert (
        "MIT" in note and "Permission is hereby granted" in note and "ddc349e31695f3c2f8b8dfb2c3376a720914df55" in note
    )


@needs_shared
def test_the_mmlu_pro_sample_is_the_full_datas_rows_on_its_questions(monkeypatch, tmp_path):
    monkeypatch.setenv("SELFCONF_EXTERNAL_FROM", str(SHARED))
    monkeypatch.setenv("SELFCONF_CACHE", str(tmp_path / "cache"))
    full = datasets.load("mmlu-pro")
    sample = datasets.load("mmlu-pro-sample")
    ids = np.sort(
        np.random.default_rng(datasets.MMLU_SAMPLE_SEED).choice(
            np.sort(full["item_id"].unique()), datasets.MMLU_SAMPLE_QUESTIONS, replace=False
        )
    )
    want = full[full["item_id"].isin(ids)].sort_values(["model", "item_id"], kind="stable").reset_index(drop=True)
    pd.testing.assert_frame_equal(sample.reset_index(drop=True), want, check_dtype=False)
