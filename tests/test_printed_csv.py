"""CSV downloads show the paper's printed tokens where their page does (``{printed}`` cells).

The notebook never reads the manifest: :func:`selfconf.book.table` lists the printed cells beside the CSV, and the
provenance extension writes the tokens in when the book is built."""

from __future__ import annotations

import csv
import html
import json
import re

import pandas as pd
import pytest

from selfconf.book import pages
from selfconf.book.provenance import fill_printed_csv
from selfconf.claims.judging import load_manifest


def test_table_lists_its_printed_cells_beside_the_csv_and_forgets_them_when_gone(tmp_path, monkeypatch):
    monkeypatch.setenv(pages.BOOK_ENV, "1")
    monkeypatch.setenv(pages.TABLE_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(pages, "show_markdown", lambda md: None)
    df = pd.DataFrame({"panel": ["US", "CN"], "delta": [-0.145, 0.287], "paper prints": ["", ""]})
    df.index = df["panel"]
    pages.table(df, "t", caption="c", printed={("CN", "paper prints"): "cn_delta"})
    side = json.loads((tmp_path / pages.PRINTED_DIR / "t.json").read_text(encoding="utf-8"))
    assert side == {"csv": "t.csv", "cells": [{"row": 1, "column": "paper prints", "claim": "cn_delta"}]}
    assert fill_printed_csv(tmp_path / "t.csv", side["cells"], {"cn_delta": "+0.284"}.get)
    rows = list(csv.reader((tmp_path / "t.csv").open(encoding="utf-8", newline="")))
    assert rows == [["panel", "delta", "paper prints"], ["US", "-0.145", ""], ["CN", "0.287", "+0.284"]]
    assert not fill_printed_csv(tmp_path / "t.csv", side["cells"], {"cn_delta": "+0.284"}.get)  # unchanged
    pages.table(df, "t", caption="c")
    assert not (tmp_path / pages.PRINTED_DIR / "t.json").exists()


def test_fill_keeps_every_other_cell_and_names_a_missing_cell(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text('a,"b, c",paper prints\n"1,461","[−0.171, −0.120]",\n', encoding="utf-8")
    fill_printed_csv(p, [{"row": 0, "column": "paper prints", "claim": "k"}], {"k": "0.5"}.get)
    assert p.read_text(encoding="utf-8") == 'a,"b, c",paper prints\n"1,461","[−0.171, −0.120]",0.5\n'
    with pytest.raises(ValueError, match=r"q.csv: no cell at row 3, column 'paper prints' for claim 'k'"):
        fill_printed_csv(p, [{"row": 3, "column": "paper prints", "claim": "k"}], {"k": "0.5"}.get)


@pytest.mark.book
def test_every_printed_cell_of_a_download_holds_the_token_its_page_shows(built_book, root):
    """For every table with printed cells: the published CSV (static copy and download copy) holds the manifest's
    token in each listed cell, and the page's table shows that same token in that cell."""
    by_id = load_manifest(root / "data" / "paper" / "claims.yaml").by_id
    sides = sorted((root / pages.TABLE_DIR / pages.PRINTED_DIR).glob("*.json"))
    assert len(sides) >= 5  # Result 2's power table, seed variation, chapter 28's three tables
    checked = 0
    for side in sides:
        spec = json.loads(side.read_text(encoding="utf-8"))
        copies = [built_book / "_static" / "tables" / spec["csv"], *built_book.glob(f"_downloads/*/{spec['csv']}")]
        assert len(copies) == 2, copies
        tid = "tab-" + side.stem.replace("_", "-")
        page = next(p for p in built_book.rglob("*.html") if f'id="{tid}"' in p.read_text(encoding="utf-8"))
        table = page.read_text(encoding="utf-8").split(f'id="{tid}"', 1)[1].split("</table>", 1)[0]
        body = [
            re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, re.S) for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
        ]
        for copy in copies:
            rows = list(csv.reader(copy.open(encoding="utf-8", newline="")))
            for c in spec["cells"]:
                token = str(by_id[c["claim"]]["printed"])
                j = rows[0].index(c["column"])
                assert rows[c["row"] + 1][j] == token, (copy, c)
                shown = html.unescape(re.sub(r"<[^>]+>", "", body[c["row"] + 1][j])).strip()
                assert shown == token, (page.name, c, shown)
                checked += 1
    assert checked >= 20
