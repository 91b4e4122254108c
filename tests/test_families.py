"""Per-family sources (selfconf.data.sources), the family loaders and the raw-layout writer (selfconf.data.families),
and the per-family banner (selfconf.book)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from selfconf import book, data
from selfconf.book import pages
from selfconf.book.audit import SECTION_PAGES, load_claims
from selfconf.data import DataError, families, sources
from selfconf.sections import ladder, manipulation

FIX = Path(__file__).parent / "fixtures"
GOOD = FIX / "raw_families" / "good"
COLLECTION = FIX / "raw" / "good"
RECON = "data/reconstructed"


def _package(tmp_path: Path, *parts: Path) -> Path:
    d = tmp_path / "pkg"
    for p in parts:
        shutil.copytree(p, d, dirs_exist_ok=True)
    return d


# ------------------------------------------------------------------------------------ resolution
def test_empty_folder_falls_back_to_the_reconstruction_for_every_family(tmp_path):
    (tmp_path / "README.md").write_text("nothing here yet\n")
    src = sources.resolve_families(tmp_path, ["collection", "ladder"])
    assert src.as_dict() == {"collection": "reconstruction", "ladder": "reconstruction"}
    assert src.none_in_data_dir and not src.data_is_reconstruction
    assert src.path("ladder") == sources.resolve(RECON)
    text = book.banner_text(tmp_path, 1, 10, src)
    assert "holds none of the data this page reads (collection, ladder)" in text
    assert "**reconstruction**" in text
    assert sources.original_families(tmp_path) == set()


def test_collection_only_is_original_and_the_rest_reconstruction(tmp_path):
    d = _package(tmp_path, COLLECTION)
    src = sources.resolve_families(d)
    assert src.as_dict() == {
        "collection": "original",
        "benchmark_age": "original",
        "ladder": "reconstruction",
        "probes": "reconstruction",
        "twostage": "reconstruction",
        "regrade": "reconstruction",
    }
    assert src["collection"].layout == "raw" and not src["collection"].fallback
    assert src["ladder"].fallback and src["ladder"].layout == "package"
    assert sources.original_families(d) == {"collection", "benchmark_age"}
    secs = sources.section_sources(d)
    assert secs["result1"] == {"collection": "original"}
    assert secs["result2"] == {"ladder": "reconstruction"}
    assert secs["limitations"]["collection"] == "original" and secs["limitations"]["regrade"] == "reconstruction"
    assert set(secs) >= set(SECTION_PAGES) - {"conclusion"}


def test_full_folder_is_original_everywhere(tmp_path):
    d = _package(tmp_path, COLLECTION, GOOD)
    src = sources.resolve_families(d)
    assert set(src.as_dict().values()) == {"original"}
    assert src["probes"].layout == "raw" and src["ladder"].layout == "package"
    text = book.banner_text(d, 1, 10, src)
    assert "Computed from the original replication package" in text and "reconstruction**" not in text


def test_the_reconstruction_keeps_its_notice_and_the_provenance_line_is_plain_text():
    src = sources.resolve_families(RECON, ["collection"])
    assert src.as_dict() == {"collection": "reconstruction"} and not src["collection"].fallback
    text = book.banner_text(RECON, 7, 2000, src)
    assert text.startswith(book.RECONSTRUCTION_NOTICE)
    line = text[len(book.RECONSTRUCTION_NOTICE) :]
    assert line.startswith('<p class="selfconf-provenance" data-sources="collection=reconstruction">')
    assert "data: collection: reconstruction (data/reconstructed) · seed: 7 · bootstrap draws: 2,000" in line
    # selfconf.book.pages.provenance: the package attribute `selfconf.book.provenance` is the submodule (the Sphinx
    # extension) once anything imported it, as the doctest run of `make check` does
    assert "`" not in line and "`" not in pages.provenance(RECON, 7, 2000)


def test_mixed_sources_name_each_family(tmp_path):
    d = _package(tmp_path, COLLECTION)
    text = book.banner_text(d, 1, 10, ["collection", "ladder"])
    assert "Computed partly from reconstructed rows" in text
    assert "**collection**" in text and "**ladder**" in text
    assert 'data-sources="collection=original;ladder=reconstruction"' in text
    assert "collection: original package" in text and "ladder: reconstruction (data/reconstructed)" in text
    # a caller may state the sources itself (the audit page does)
    stated = book.banner_text(d, families={"collection": "original", "ladder": "reconstruction"})
    assert 'data-sources="collection=original;ladder=reconstruction"' in stated
    with pytest.raises(ValueError, match="neither"):
        book.banner_text(d, families={"collection": "real"})


def test_part_of_a_family_is_an_error_not_a_silent_mix(tmp_path):
    d = _package(tmp_path, GOOD)
    (d / "ladder" / "scored-arms-opus48.jsonl").unlink()
    with pytest.raises(
        FileNotFoundError, match=r"ladder family is incomplete: missing ladder/scored-arms-opus48\.jsonl"
    ):
        sources.resolve_families(d, ["ladder"])
    (d / "arms" / "twostage.csv").write_text("model,item_id,format,label,confidence\n")
    with pytest.raises(ValueError, match="two layouts at once"):
        sources.family_layout(d, "twostage")
    (d / "local_graded.jsonl").write_text("")
    with pytest.raises(FileNotFoundError, match="frontier_graded.jsonl"):
        sources.family_layout(d, "collection")


def test_missing_data_dir_and_unknown_family(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        sources.resolve_families(tmp_path / "nope")
    with pytest.raises(ValueError, match="unknown data family"):
        sources.resolve_families(tmp_path, ["ladders"])


def test_claim_sources_follow_same_as_and_skip_quoted(tmp_path):
    claims = load_claims()["claims"]
    d = _package(tmp_path, COLLECTION)
    got = sources.claim_sources(d, claims)
    by_id = {c["id"]: c for c in claims}
    assert got["t1_google_n"] == "original"
    assert all(v is None for k, v in got.items() if by_id[k]["kind"] == "external")
    r2 = [k for k, c in by_id.items() if c["section"] == "result2" and c["kind"] != "external" and not c.get("same_as")]
    assert r2 and all(got[k] == "reconstruction" for k in r2)
    assert got["abs_n_models"] == got["design_n_models"] == "original"  # a repeat takes its canonical's source
    assert set(sources.claim_sources(RECON, claims).values()) <= {"reconstruction", None}


# ------------------------------------------------------------------------------------ loaders
def test_good_fixtures_load_with_unmapped_fields_and_unread_files_reported():
    frames, profiles, rep = families.load_ladder(GOOD)
    assert set(frames) == set(ladder.SUBJECTS) and all(len(f) == 4 for f in frames.values())
    f = frames["sonnet5"]
    assert list(f.columns) == [
        "item_id",
        "bin",
        "arm",
        "replicate",
        "is_trap",
        "status",
        "abstained",
        "correct",
        "confidence",
        "subject",
    ]
    assert f["confidence"].isna().sum() == 2 and f["correct"].sum() == 3
    assert list(profiles["haiku45"]["bin"]) == ["numerical", "logic", "physics"]
    assert rep.unmapped_fields == {f"ladder/scored-arms-{s}.jsonl": ["latency_ms"] for s in ladder.SUBJECTS}
    assert rep.unread_files == ["ladder/protocol.json"] and "protocol.json" in str(rep)

    t, rep = families.load_probes(GOOD)
    assert len(t["microprobe"]) == 2 and t["topic_probes"]["correct"].tolist() == [1, 0]
    assert rep.unmapped_fields == {"probes/microprobe.jsonl": ["temperature"]}
    assert manipulation.microprobe_table(t["microprobe"])["delta"].tolist() == [45]

    ts, rep = families.load_twostage(GOOD)
    assert ts["confidence"].dtype == np.int64 and rep.unmapped_fields == {"arms/twostage.jsonl": ["followup_prompt"]}
    rg, rep = families.load_regrade(GOOD)
    assert rg["cross_family_correct"].isna().tolist() == [True, False, True]
    assert rep.unmapped_fields == {"arms/regrade.jsonl": ["cross_grader"]}
    assert manipulation.regrade_summary(rg)["down_flips"] == 1


BROKEN = [
    ("ladder_bad_confidence", families.load_ladder, "ladder/scored-arms-opus48.jsonl", 2, "confidence"),
    ("ladder_wrong_subject", families.load_ladder, "ladder/scored-arms-sonnet5.jsonl", 3, "subject"),
    ("ladder_duplicate", families.load_ladder, "ladder/scored-arms-fable5.jsonl", 6, "item_id"),
    ("probes_bad_arm", families.load_probes, "probes/topic_probes.jsonl", 3, "arm"),
    ("twostage_bad_json", families.load_twostage, "arms/twostage.jsonl", 2, None),
    ("twostage_duplicate", families.load_twostage, "arms/twostage.jsonl", 3, "format"),
    ("regrade_missing_cross", families.load_regrade, "arms/regrade.jsonl", 2, "cross_family_correct"),
    ("regrade_bad_flag", families.load_regrade, "arms/regrade.jsonl", 1, "canonical_correct"),
]


@pytest.mark.parametrize("case, loader, name, line, field", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_line_names_file_line_and_field(tmp_path, case, loader, name, line, field):
    d = _package(tmp_path, GOOD, FIX / "raw_families" / "broken" / case)
    with pytest.raises(DataError) as e:
        loader(d)
    assert Path(e.value.path) == d / name and e.value.line == line and e.value.field == field
    assert f"{name.split('/')[-1]}, line {line}" in str(e.value)


def test_contract_csv_is_checked_too(tmp_path):
    (tmp_path / "arms").mkdir()
    shutil.copyfile(sources.resolve(RECON) / "arms" / "twostage.csv", tmp_path / "arms" / "twostage.csv")
    with (tmp_path / "arms" / "twostage.csv").open("a") as fh:
        fh.write("glm4:9b,sqa-001,inline,incorrect,85\n")  # repeats line 2
    with pytest.raises(DataError, match="duplicate") as e:
        families.load_twostage(tmp_path)
    assert e.value.line == 1502


# ------------------------------------------------------------------------------------ writer
@pytest.mark.slow
def test_export_of_the_reconstruction_loads_back_to_the_same_frames(tmp_path):
    out = tmp_path / "raw"
    written = families.export_raw(RECON, out)
    assert {p.relative_to(out).as_posix() for p in written} == {
        f for layouts in sources.LAYOUTS.values() for f in layouts.get("raw", layouts.get("package"))
    }
    assert not list(out.rglob("fidelity*")) and sources.original_families(out) == set(sources.FAMILIES)
    a, _ = data.load_collection(RECON)
    b, rep = data.load_collection(out)
    pd.testing.assert_frame_equal(a, b)
    assert rep.source == "raw" and rep.unmapped_fields == {}
    pd.testing.assert_frame_equal(data.load_benchmark_age(RECON), data.load_benchmark_age(out))
    frames, profiles, _ = families.load_ladder(out)
    for s in ladder.SUBJECTS:
        pd.testing.assert_frame_equal(frames[s], ladder.load_scored_arms(RECON, s))
        pd.testing.assert_frame_equal(profiles[s], ladder.load_profiles(RECON, s))
    t, rep = families.load_probes(out)
    assert rep.layout == "raw"
    for k, df in t.items():
        pd.testing.assert_frame_equal(df, manipulation.load_csv(RECON, f"probes/{k}.csv"))
    pd.testing.assert_frame_equal(families.load_twostage(out)[0], manipulation.load_csv(RECON, "arms/twostage.csv"))
    pd.testing.assert_frame_equal(families.load_regrade(out)[0], manipulation.load_csv(RECON, "arms/regrade.csv"))
