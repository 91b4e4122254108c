"""Offline altair charts (:mod:`selfconf.book.vega`): the renderer's HTML, the bundle, the Sphinx extension."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import altair as alt
import pandas as pd
import pytest

from selfconf.book import vega

CDN = re.compile(r"(cdn\.jsdelivr|unpkg\.com|cdnjs|vega\.github\.io/vega|requirejs)", re.I)


def _chart(title: str = "t") -> alt.Chart:
    return (
        alt.Chart(pd.DataFrame({"x": [1, 2, 3], "y": [3, 1, 2]}))
        .mark_line()
        .encode(x="x", y="y")
        .properties(title=title)
    )


def test_chart_html_embeds_spec_and_calls_local_vegaembed():
    spec = {"mark": "point", "title": "a </script><script>alert(1)</script> b", "data": {"values": [{"a": 1}]}}
    html = vega.chart_html(spec, div_id="c1")
    assert html.startswith('<div id="c1" class="selfconf-vega"></div>')
    assert html.count("</script>") == 1, "a '</script>' inside the spec must be escaped"
    assert "window.vegaEmbed(el, spec, opts)" in html
    assert not CDN.search(html) and "http" not in html
    # the embedded JSON round-trips to the spec
    m = re.search(r"var spec = (.*);\n", html)
    assert json.loads(m.group(1).replace("<\\/", "</")) == spec
    opts = json.loads(re.search(r"var opts = (.*);\n", html).group(1))
    assert opts == {"actions": False, "mode": "vega-lite", "renderer": "svg"}


def test_chart_ids_are_unique_and_deterministic_per_spec():
    a, b = vega.chart_html({"mark": "bar"}), vega.chart_html({"mark": "bar"})
    ida, idb = (re.search(r'id="([^"]+)"', h).group(1) for h in (a, b))
    assert ida != idb and ida.rsplit("-", 1)[0] == idb.rsplit("-", 1)[0]


def test_renderer_is_used_by_altair():
    previous = alt.renderers.active
    try:
        vega.enable()
        vega.enable()  # idempotent
        assert alt.renderers.active == vega.RENDERER
        bundle = _chart("hello")._repr_mimebundle_()
        bundle = bundle[0] if isinstance(bundle, tuple) else bundle
        assert set(bundle) == {"text/markdown", "text/plain"}
        md = bundle["text/markdown"]
        # a numbered figure (selfconf.book.publication's directive) whose caption is the chart's title
        assert md.startswith("````{selfconf-chart}\n:caption: hello\n") and md.rstrip().endswith("````")
        assert 'class="selfconf-vega"' in md and not CDN.search(md)
        assert '"hello"' not in md.split(":caption:", 1)[1].split("\n", 1)[1], "the title moves to the caption"
    finally:
        alt.renderers.enable(previous)


def test_interactive_params_survive_in_the_spec():
    vega.enable()
    p = alt.param(name="k", value=1, bind=alt.binding_range(min=0, max=3, step=1))
    html = vega.render(_chart().transform_filter(alt.datum.x >= p).add_params(p).to_dict())["text/markdown"]
    spec = json.loads(re.search(r"var spec = (.*);\n", html).group(1).replace("<\\/", "</"))
    assert spec["params"][0]["name"] == "k" and spec["params"][0]["bind"]["input"] == "range"


def test_bundle_defines_globals_without_network(tmp_path):
    js = vega.javascript_bundle()
    assert js.lstrip().startswith("/* vega ") and "(function () {" in js
    assert "window.vegaEmbed=" in js.replace(" ", "")
    assert not re.search(r"cdn\.jsdelivr|unpkg\.com", js)
    out = vega.install_js(tmp_path / "vendor")
    assert out == tmp_path / "vendor" / "selfconf-vega.js" and out.read_text() == js
    mtime = out.stat().st_mtime_ns
    vega.install_js(tmp_path / "vendor")
    assert out.stat().st_mtime_ns == mtime, "an identical bundle is not rewritten"


@pytest.mark.slow
def test_bundle_runs_in_node(tmp_path):
    """The bundle evaluates as a classic script and defines vegaEmbed (a DOM-free smoke test)."""
    node = subprocess.run(["which", "node"], capture_output=True, text=True).stdout.strip()
    if not node:
        pytest.skip("node not installed (the browser test covers the bundle in Chromium)")
    script = tmp_path / "smoke.js"
    script.write_text(
        "globalThis.window = globalThis; globalThis.self = globalThis;\n"
        + vega.javascript_bundle()
        + "\nconsole.log(typeof window.vegaEmbed);\n"
    )
    r = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["function"]


def test_unknown_vegalite_version_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(vega, "vl_version", lambda: "0.1")
    with pytest.raises(RuntimeError, match="cannot bundle Vega-Lite 0.1"):
        vega.javascript_bundle(cache=False)


@pytest.mark.slow
def test_cli_install_js(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "selfconf.book.vega", "install-js", str(tmp_path / "v")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "v" / "selfconf-vega.js").stat().st_size > 100_000


@pytest.fixture(scope="module")
def sphinx_site(tmp_path_factory) -> Path:
    """One Sphinx build of two pages (with the book's chart and numbering extensions): ``index`` has math and a
    chart as raw HTML, ``numbered`` a chart through the ``selfconf-chart`` directive and a {numref} to it."""
    tmp = tmp_path_factory.mktemp("sphinx")
    src = tmp / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'selfconf.book.vega', 'selfconf.book.publication']\n"
        "myst_enable_extensions = ['dollarmath']\nhtml_theme = 'alabaster'\n"
        "numfig = True\nnumfig_format = {'figure': 'Figure %s'}\n"
    )
    vega.enable()
    chart = vega.chart_html(_chart("sphinx").to_dict())
    (src / "index.md").write_text(
        "# Page\n\nMath: $a^2 + b^2$.\n\n```{raw} html\n" + chart + "\n```\n\n```{toctree}\nnumbered\n```\n"
    )
    md = vega.chart_markdown(_chart("A titled chart").to_dict())
    (src / "numbered.md").write_text("# Numbered\n\nSee {numref}`fig-a-titled-chart`.\n\n" + md + "\n")
    out = tmp / "html"
    r = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html", str(src), str(out)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.slow
def test_sphinx_extension_ships_vega_and_mathjax_locally(sphinx_site):
    """A Sphinx page with math and a chart: every script it loads is local."""
    out = sphinx_site
    page = (out / "index.html").read_text()
    srcs = re.findall(r'<script[^>]*src="([^"]+)"', page)
    assert "_static/vendor/selfconf-vega.js" in srcs
    assert any(s.startswith("_static/vendor/mathjax/tex-mml-chtml.js") for s in srcs), srcs
    assert not [s for s in srcs if s.startswith(("http:", "https:", "//"))], srcs
    assert (out / "_static" / "vendor" / "selfconf-vega.js").is_file()
    assert (out / "_static" / "vendor" / "mathjax" / "tex-mml-chtml.js").is_file()
    assert list((out / "_static" / "vendor" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))


@pytest.mark.slow
def test_numbered_chart_in_a_sphinx_build(sphinx_site):
    """The selfconf-chart directive makes a numbered figure that {numref} links; the title is its caption."""
    page = (sphinx_site / "numbered.html").read_text()
    assert '<figure class="selfconf-chart' in page and 'id="fig-a-titled-chart"' in page
    assert "Figure S1" in page and 'href="#fig-a-titled-chart"' in page


@pytest.mark.book
def test_every_executed_chart_is_offline(built_book, root):
    """No executed notebook holds a chart that the HTML build would drop or fetch from a CDN."""
    bad = []
    for nb_path in sorted((root / "book").glob("*.ipynb")):
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb.get("cells", [])):
            for o in cell.get("outputs", []) or []:
                data = o.get("data", {})
                if any(k.startswith("application/vnd.vegalite") or k.startswith("application/vnd.vega+") for k in data):
                    bad.append(f"{nb_path.name} cell {i}: Vega-Lite mimetype (call selfconf.book.vega.enable())")
                html = data.get("text/html", "")
                html = "".join(html) if isinstance(html, list) else html
                if CDN.search(html):
                    bad.append(f"{nb_path.name} cell {i}: HTML output loads a CDN script")
    assert not bad, "\n".join(bad)


def test_chart_caption_label_and_untitled_charts():
    spec, cap, label = vega.caption_of(
        {"mark": "bar", "title": {"text": "ECE", "subtitle": "rows: x"}, "usermeta": {"selfconf_label": "fig-x"}}
    )
    assert "title" not in spec and cap == "ECE (rows: x)" and label == "fig-x"
    _, cap, _ = vega.caption_of({"hconcat": [{"title": "left"}, {"title": "right"}]})
    assert cap == "left; right"
    with pytest.raises(ValueError, match="title"):
        vega.chart_markdown({"mark": "bar"})
    md = vega.chart_markdown({"mark": "bar", "title": "T", "usermeta": {"selfconf_label": "fig-t"}})
    assert ":name: fig-t" in md
