"""One of each thing: one manifest loader, one answer normaliser, one named-stream helper,
one formatter, one Holm, one normal quantile.  Each unified function is checked against the copies it
replaced (written out here as they were) on a table of inputs."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest

from selfconf import bootstrap
from selfconf.claims import consistency, judging
from selfconf.claims.judging import fmt, load_manifest
from selfconf.data import answers
from selfconf.data.collection import normalise_answer
from selfconf.stats import normal
from selfconf.stats.streams import name_key, stream
from selfconf.stats.summary import model_rng

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------------------------ streams


def _draws(g: np.random.Generator) -> list[int]:
    return g.integers(0, 2**62, 8).tolist()


def test_stream_same_inputs_same_stream():
    assert _draws(stream(20260801, "topic", "glm4:9b")) == _draws(stream(20260801, "topic", "glm4:9b"))
    assert _draws(model_rng(7, "panel:CN")) == _draws(stream(7, "panel:CN"))


@pytest.mark.parametrize(
    "a, b",
    [
        (("ab",), ("ba",)),  # equal length, equal letter sum: the old manipulation collision
        (("ad",), ("bc",)),
        (("glm4:9b",), ("glm4:9c",)),
        (("a", "b"), ("ab",)),  # the split between names counts
        (("a", "bc"), ("ab", "c")),
        (("",), ()),
        (("x",), ("x", "")),
    ],
)
def test_stream_distinct_names_distinct_streams(a, b):
    assert name_key(*a) != name_key(*b)
    assert _draws(stream(3, *a)) != _draws(stream(3, *b))


def test_old_manipulation_scheme_collided_and_the_helper_does_not():
    def old(seed, model):
        return np.random.default_rng([int(seed), len(model), sum(map(ord, model))])

    assert _draws(old(5, "ab")) == _draws(old(5, "ba"))  # the bug being fixed
    assert _draws(stream(5, "topic", "ab")) != _draws(stream(5, "topic", "ba"))


def test_stream_seed_and_names_do_not_alias():
    # a large seed must not be readable as a smaller seed followed by name words
    assert _draws(stream(2**32 + 1)) != _draws(stream(1, "\x01"))
    assert _draws(stream(1, "x")) != _draws(stream(2, "x"))
    with pytest.raises(ValueError):
        stream(-1, "x")
    with pytest.raises(TypeError):
        stream(1.5, "x")


# ------------------------------------------------------------------------------- normaliser


def _old_collection_normalise(text: str) -> str:
    s = re.sub(r"[^\w\s]", " ", str(text).lower())
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


@pytest.mark.parametrize(
    "text, want",
    [
        ("  The Eiffel-Tower! ", "eiffel tower"),  # the collection loader's cases (test_loader)
        ("An apple", "apple"),
        ("The  Eiffel Tower!", "eiffel tower"),  # grade's cases
        ("1,000.50 %", "1000.5 percent"),
        ("Twelve", "12"),
        ("A", "a"),  # a lone letter is never stripped as an article
        ("the", "the"),
        ("Café", "cafe"),
        (None, ""),
    ],
)
def test_one_normaliser(text, want):
    assert answers.normalize(text) == want
    assert normalise_answer(text) == want  # the loader's name is the same function
    assert normalise_answer is answers.normalize


@pytest.mark.parametrize("text", ["  The Eiffel-Tower! ", "An apple", "Paris", "the big apple", "Don't know"])
def test_normaliser_agrees_with_old_loader_rule_away_from_its_differences(text):
    assert answers.normalize(text) == _old_collection_normalise(text)


def test_old_loader_rule_differed_where_grade_documents_otherwise():
    # the old loader rule turned a multiple-choice "A" into an empty answer class; the one rule keeps it
    assert _old_collection_normalise("A") == "" and answers.normalize("A") == "a"
    assert _old_collection_normalise("1,000") != answers.normalize("1000") == answers.normalize("1,000")


@pytest.mark.parametrize(
    "text, refusal",
    [
        ("I'm sorry, I cannot determine that.", True),
        ("N/A", True),
        ("unknown", True),
        ("", True),
        ("Na", False),
        ("Paris", False),
        ("A", False),
    ],
)
def test_one_refusal_lexicon(text, refusal):
    from selfconf.cli import grade
    from selfconf.cli.diagnose import scoring

    assert answers.is_refusal(text) is refusal
    assert grade.is_refusal is answers.is_refusal and scoring.is_refusal is answers.is_refusal
    assert grade.normalize is answers.normalize and scoring.normalize is answers.normalize


# -------------------------------------------------------------------------------- formatter


def _old_consistency(x, d=3, signed=False):
    return format(float(x), f"{'+' if signed else ''}.{d}f")


def _old_diagnose(x, pct=False, signed=False):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "undefined"
    v = 100 * x if pct else x
    return f"{v:+.1f}" if signed else f"{v:.1f}" if pct else f"{v:.3f}"


def _old_rerun(v):
    return f"{v:.6g}"


def _old_judging(x, decimals):
    s = format(float(x), f".{int(decimals)}f")
    return s[1:] if s.startswith("-") and float(s) == 0 else s


VALUES = [
    0.0,
    0.7455,
    0.74649,
    1 / 3,
    -1 / 3,
    12,
    1461,
    0.0213,
    -0.0213,
    0.5,
    2.5,
    99.95,
    -12.345678,
    Fraction(109, 584) * 100,
    1e-7,
    123456789.123,
    float("inf"),
]


def _negative_zero(s: str) -> bool:
    return s.startswith("-") and float(s) == 0


@pytest.mark.parametrize("x", VALUES)
def test_formatter_equals_every_old_copy(x):
    """Identical output wherever the old copy did not print a negative zero (see the next test)."""
    checked = 0
    for d in (0, 1, 2, 3, 4):
        assert fmt(x, d) == _old_judging(x, d)
        for signed in (False, True):
            old = _old_consistency(x, d, signed)
            if not _negative_zero(old):
                assert fmt(x, d, signed=signed) == old == consistency._fmt(x, d, signed)
                checked += 1
    xf = float(x)
    if math.isfinite(xf):
        for pct, signed in ((False, False), (True, False), (True, True), (False, True)):
            old = _old_diagnose(xf, pct, signed)
            if not _negative_zero(old):
                assert fmt(xf, 1 if (pct or signed) else 3, percent=pct, signed=signed, missing="undefined") == old
                checked += 1
    assert fmt(xf, significant=6) == _old_rerun(xf)
    assert checked >= 6


def test_formatter_missing_and_negative_zero():
    assert fmt(float("nan"), 1, percent=True, missing="undefined") == _old_diagnose(float("nan"), True)
    assert fmt(None, 3, missing="undefined") == "undefined"
    # the book's rule: a value that rounds to zero prints without its minus sign, in every caller
    assert fmt(-0.0004, 3) == "0.000" and fmt(-0.0004, 3, signed=True) == "+0.000"
    assert _old_consistency(-0.0004, 3) == "-0.000"  # the old copy printed the sign
    with pytest.raises(TypeError):
        fmt(1.0)


# ------------------------------------------------------------------------------------- Holm


@pytest.mark.parametrize("p", [[0.064, 0.042], [0.01, 0.04, 0.03, 0.005], [0.6, 0.7, 0.2], [0.5], [0.2, 0.2, 0.2]])
def test_consistency_holm_is_bootstrap_holm(p):
    assert consistency.holm is bootstrap.holm
    np.testing.assert_array_equal(consistency.holm(p), bootstrap.holm(p))


def test_holm_batched_rows_equal_one_family_at_a_time():
    g = np.random.default_rng(0)
    P = g.random((200, 3))
    batched = bootstrap.holm(P)
    assert batched.shape == P.shape
    np.testing.assert_array_equal(batched, np.stack([bootstrap.holm(r) for r in P]))
    with pytest.raises(ValueError, match=r"first at index \(1, 0\)"):
        bootstrap.holm([[0.1, 0.2], [1.5, 0.1]])


# ----------------------------------------------------------------------------- normal quantile


def test_one_z975():
    assert normal.Z975 == 1.959963984540054
    # within one unit in the last place of the exact quantile 1.959963984540054235524594..., and closer
    # to it than NormalDist().inv_cdf(0.975)
    exact = Fraction("1.9599639845400542355245944305")
    assert abs(Fraction(normal.Z975) - exact) < abs(Fraction(NormalDist().inv_cdf(0.975)) - exact)
    assert abs(Fraction(normal.Z975) - exact) < Fraction(math.ulp(normal.Z975))
    assert normal.quantile(0.975) == NormalDist().inv_cdf(0.975)
    from selfconf.reconstruct import collection as rc

    assert judging.Z975 is normal.Z975 and consistency.Z975 is normal.Z975 and rc.Z975 is normal.Z975
    assert bootstrap.Z975 is normal.Z975


# ---------------------------------------------------------------------------------- manifest


def test_one_manifest_loader():
    from selfconf.book import audit, rerun
    from selfconf.reconstruct import arms, ladder, targets

    m = load_manifest()
    assert audit.load_claims() is m.raw
    T = targets.load_targets()
    assert T.manifest is m and T.raw is m.raw
    want = {c["id"]: float(c["value"]) for c in m.claims if isinstance(c.get("value"), (int, float))}
    assert ladder._claims_targets() == want == arms._targets() == targets.printed_values()
    assert rerun.claim_kinds() == m.effective
    repeat = next(c for c in m.claims if c.get("same_as"))
    assert (
        T.canonical(repeat["id"]) is m.canonical(repeat["id"]) is m.by_id[repeat["same_as"]]
        or m.canonical(repeat["id"]).get("same_as") is None
    )


# ------------------------------------------------------------------------------- book files


def test_one_reader_of_the_book_files(tmp_path):
    import yaml

    from selfconf.data.paths import book_file, project_root

    root = project_root()
    assert book_file("_toc.yml", root) == yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    assert book_file("_config.yml", tmp_path, missing_ok=True) == {}
    with pytest.raises(FileNotFoundError):
        book_file("_config.yml", tmp_path)
    (tmp_path / "_config.yml").write_text("", encoding="utf-8")
    assert book_file("_config.yml", tmp_path) == {}


def test_no_comment_cites_an_issue_number():
    """Comments and docstrings explain in words: the issue tracker is not in the repository, so a reference such
    as the word "issue" followed by a number would point nowhere for a reader of the code."""
    pattern = re.compile(r"\b[Ii]ssues? #?\d+")
    files = [p for d in ("src", "tests", "notebooks", "bench", "scripts") for p in (ROOT / d).rglob("*.py")]
    files += [ROOT / "Makefile", ROOT / "docs" / "decisions.md"]
    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in files
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found


def _make_recipe(target: str) -> str:
    """The recipe lines of one Makefile target (the lines after `target:` up to the next blank line)."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    body = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        body.append(line)
    return "\n".join(body)


def test_make_test_and_make_check_both_run_the_package_doctests():
    """CI runs `make test`: it must collect the doctests of src/selfconf as `make check` does."""
    for target in ("test", "check"):
        recipe = _make_recipe(target)
        assert "--doctest-modules" in recipe, target
        assert "src/selfconf" in recipe, target
