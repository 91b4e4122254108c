"""What the clean-up of ``selfconf.book`` keeps: one list of page furniture, one ``-p/--param`` option."""

from __future__ import annotations

import argparse
import inspect

import selfconf.book as book
from selfconf.book import build, pages, rerun


def test_book_reexports_the_page_furniture_but_the_build_helpers():
    assert book.__all__ == [n for n in pages.__all__ if n not in ("table_folder", "fill_printed_csv")]
    assert len(book.__all__) == 17
    for name in book.__all__:
        got = getattr(book, name)
        if inspect.ismodule(got) and got.__name__ == f"selfconf.book.{name}":
            # importing the submodule selfconf.book.provenance (the Sphinx extension: the PDF writer and the
            # parity check do) rebinds the package attribute of that name; pages.provenance stays the function
            assert callable(getattr(pages, name))
            continue
        assert got is getattr(pages, name)


def test_rerun_and_build_share_the_param_option():
    ap = argparse.ArgumentParser()
    rerun.add_parser(ap.add_subparsers(dest="cmd"))
    args = ap.parse_args(["rerun", "result1", "-p", "seed", "7", "-p", "data_dir", "data/raw"])
    assert build._parse_params(args.param) == {"seed": 7, "data_dir": "data/raw"}
    assert build._parse_params(ap.parse_args(["rerun", "result1"]).param) == {}
