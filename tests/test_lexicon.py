"""Prose near a fitted target restates it: no "shows", "demonstrates", "survives", "comes from" or "because" in the
book's voice in a sentence that pastes a value the reconstruction was fitted to (``selfconf.book.lexicon``)."""

from __future__ import annotations

from selfconf.book import lexicon


def test_no_book_voice_claim_near_a_fitted_target():
    found = lexicon.findings()  # links comparison copies by value when the executed book/ is present
    assert not found, "\n".join(f"{f.notebook}: {f.key} ({f.claim}) '{f.word}': {f.sentence}" for f in found)


def test_the_check_fails_on_the_old_sentences(tmp_path):
    """The sentences this check replaced, pasted into a notebook: each is found (the check can fail)."""
    old = (
        "# %% [markdown]\n"
        "# It lowers the panel AUROC to {glue:text}`cn_panel_auroc_labelfree:.3f`. The headline advantage of the\n"
        "# panel survives the stricter coding ({glue:text}`cn_panel_auroc_labelfree:.3f`).\n"
        "#\n"
        "# Even this model keeps {glue:text}`t1_anthropic_citl:+.1f` pp (ECE {glue:text}`t1_anthropic_ece:.3f`); its\n"
        "# lower band comes from refusing, not from calibrated self-knowledge.\n"
        "#\n"
        "# [The paper shows it for {glue:text}`t1_anthropic_ece:.3f`]{.quoted}. The paper reads it as a band that\n"
        "# survives, for {glue:text}`t1_anthropic_ece:.3f`.\n"
    )
    (tmp_path / "99_old.py").write_text(old, encoding="utf-8")
    found = lexicon.findings(tmp_path, book_dir=tmp_path / "none")
    assert sorted((f.word, f.claim) for f in found) == [
        ("comes from", "t1_anthropic_citl"),
        ("comes from", "t1_anthropic_ece"),
        ("survives", "cn_panel_auroc_labelfree"),
    ], found  # the quoted span and the paper's reading are not the book's voice


def test_every_fitted_target_is_a_claim():
    from selfconf.claims.judging import load_manifest

    m = load_manifest()
    fitted = lexicon.fitted_targets()
    assert len(fitted) > 300 and set(fitted) <= set(m.by_id)
