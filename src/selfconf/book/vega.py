"""Altair charts that draw in the static book with no network: a renderer and a Sphinx extension.

Altair's own HTML output loads Vega, Vega-Lite and vega-embed from a CDN; the book must work
offline, so this module replaces both halves:

* :func:`enable` registers and switches on the altair renderer ``"selfconf"``.  Each chart becomes
  a ``text/html`` output: an empty ``<div>`` and a small inline script that hands the Vega-Lite
  spec to ``window.vegaEmbed`` (already on the page, see below).  Interactive parameters
  (sliders, bindings) are part of the spec and keep working, since the full Vega runtime is on
  the page.
* The Sphinx extension (``extra_extensions: [selfconf.book.vega]`` in ``_config.yml``) writes one
  self-contained JavaScript file, ``_static/vendor/selfconf-vega.js`` (vega + vega-lite +
  vega-embed, bundled by ``vl_convert.javascript_bundle``), into the HTML output and adds it
  to every page's ``<head>``.  The bundle is cached per user (``~/.cache/selfconf/``) keyed on the
  library versions, so only the first build on a machine pays the ~4 s bundling cost.
* The same extension points Sphinx's MathJax (``mathjax_path``) at a local copy of MathJax 3,
  taken from the PyPI package ``django-static-mathjax`` and copied to ``_static/vendor/mathjax/``:
  Sphinx would otherwise load MathJax from a CDN on every page with math.
* Two page-hygiene fixes that the browser test would otherwise report on every page: an explicit
  ``default_mode`` for the theme (none logs a console error on a first visit) and, when the
  Thebe launch button is off, no sphinx-thebe scripts (their inline config is emitted twice, a
  SyntaxError, and names a CDN).
* ``python -m selfconf.book.vega install-js book/_static/vendor`` writes the same file into a folder
  (for builds that do not load the extension; ``book/_static/vendor/`` is gitignored).

Reference: Satyanarayan et al., "Vega-Lite: A Grammar of Interactive Graphics", IEEE TVCG 23(1),
2017; vega-embed (https://github.com/vega/vega-embed) for the embedding call.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "RENDERER",
    "JS_NAME",
    "EMBED_OPTIONS",
    "vl_version",
    "javascript_bundle",
    "install_js",
    "MATHJAX_DIR",
    "mathjax_source",
    "install_mathjax",
    "chart_html",
    "caption_of",
    "chart_markdown",
    "render",
    "enable",
    "setup",
    "main",
]

#: Name under which the renderer is registered with ``alt.renderers``.
RENDERER = "selfconf"
#: Path of the bundle inside the HTML output's ``_static`` folder.
JS_NAME = "vendor/selfconf-vega.js"
#: vega-embed options: SVG output (testable, printable) and no action menu (its links leave the site).
EMBED_OPTIONS = {"mode": "vega-lite", "renderer": "svg", "actions": False}

_counter = itertools.count(1)


def vl_version() -> str:
    """Vega-Lite ``major.minor`` that the installed altair writes (e.g. ``"6.4"``).

    Read from altair's schema module without importing altair (seconds of a warm book build otherwise); the
    import is the fallback when that file is not where altair keeps it.
    """
    import importlib.util
    import re

    spec = importlib.util.find_spec("altair")
    version = None
    if spec is not None and spec.submodule_search_locations:
        for schema in sorted(Path(next(iter(spec.submodule_search_locations))).glob("vegalite/v*/schema/__init__.py")):
            m = re.search(r'^SCHEMA_VERSION = "([^"]+)"', schema.read_text(encoding="utf-8"), flags=re.M)
            version = m.group(1) if m else version
    if version is None:
        import altair as alt

        version = alt.SCHEMA_VERSION
    major, minor = version.lstrip("v").split(".")[:2]
    return f"{major}.{minor}"


def _cache_dir() -> Path:
    """Where the bundle is cached: ``$SELFCONF_CACHE_DIR``, else ``$XDG_CACHE_HOME/selfconf``, else
    ``~/.cache/selfconf``.  Outside ``_build/`` on purpose: the bundle depends only on installed
    package versions (like the virtual environment), so cleaning the build does not rebuild it."""
    env = os.environ.get("SELFCONF_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "selfconf"


def javascript_bundle(cache: bool = True) -> str:
    """Return one classic-script JavaScript source that defines ``window.vegaEmbed``.

    (vega-embed carries Vega and Vega-Lite inside it; the bundle's ``window.vega`` and
    ``window.vegaLite`` globals are not populated and nothing here uses them.)

    Built by ``vl_convert.javascript_bundle`` for the Vega-Lite version altair uses, wrapped in a
    function scope so that its top-level ``const`` names cannot clash with other scripts.  Cached
    on disk (see ``_cache_dir``), keyed on the vl-convert and Vega-Lite versions.
    """
    import vl_convert as vlc

    vlc_version: str = vlc.__version__  # type: ignore[attr-defined]  # set at runtime; vl_convert's stub omits it
    ver = vl_version()
    key = hashlib.sha256(f"{vlc_version}|{ver}|v1".encode()).hexdigest()[:16]
    path = _cache_dir() / f"selfconf-vega-{key}.js"
    if cache and path.is_file():
        return path.read_text(encoding="utf-8")
    if ver not in vlc.get_vegalite_versions():
        raise RuntimeError(
            f"vl-convert-python {vlc_version} cannot bundle Vega-Lite {ver} (it knows "
            f"{', '.join(vlc.get_vegalite_versions())}); upgrade vl-convert-python to match altair"
        )
    # the stub makes ``snippet`` required; at runtime it is optional (the default snippet sets the window globals)
    body = vlc.javascript_bundle(vl_version=ver)  # type: ignore[call-arg]
    js = (
        f"/* vega {vlc.get_vega_version()}, vega-lite {ver}, vega-embed {vlc.get_vega_embed_version()}: "
        f"bundled by vl-convert-python {vlc_version} for selfconf-book (offline charts) */\n"
        "(function () {\n" + body + "\n})();\n"
    )
    if cache:
        _atomic_write(path, js)
    return js


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (safe under parallel writers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def install_js(vendor_dir: str | os.PathLike) -> Path:
    """Write the bundle to ``<vendor_dir>/selfconf-vega.js`` (unless already identical); return its path."""
    dst = Path(vendor_dir) / Path(JS_NAME).name
    js = javascript_bundle()
    if not (dst.is_file() and dst.read_text(encoding="utf-8") == js):
        _atomic_write(dst, js)
    return dst


def _script_json(obj: Any) -> str:
    """JSON safe to place inside an HTML ``<script>`` element (no ``</`` that could close it)."""
    return json.dumps(obj, separators=(",", ":"), sort_keys=True).replace("</", "<\\/").replace("<!--", "<\\!--")


def chart_html(spec: dict, embed_options: dict | None = None, div_id: str | None = None) -> str:
    """HTML for one chart: a ``div`` and an inline script calling the page's ``vegaEmbed`` on it.

    When the Vega bundle is missing, the script writes a visible message into the div and logs a
    console error (the browser test fails on both), instead of leaving a silent blank.
    """
    opts = {**EMBED_OPTIONS, **(embed_options or {})}
    spec_json = _script_json(spec)
    if div_id is None:
        digest = hashlib.sha256(spec_json.encode()).hexdigest()[:10]
        div_id = f"selfconf-vega-{digest}-{next(_counter)}"
    return (
        f'<div id="{div_id}" class="selfconf-vega"></div>\n'
        '<script type="text/javascript">\n'
        "(function () {\n"
        f'  var id = "{div_id}";\n'
        f"  var spec = {spec_json};\n"
        f"  var opts = {_script_json(opts)};\n"
        "  function draw() {\n"
        "    var el = document.getElementById(id);\n"
        '    if (typeof window.vegaEmbed !== "function") {\n'
        '      el.textContent = "This chart could not be drawn: the page did not load _static/' + JS_NAME + '.";\n'
        '      console.error("selfconf: vegaEmbed is not defined (missing _static/' + JS_NAME + ')");\n'
        "      return;\n"
        "    }\n"
        "    window.vegaEmbed(el, spec, opts).catch(function (err) {\n"
        '      el.textContent = "This chart could not be drawn: " + err;\n'
        '      console.error("selfconf: chart " + id + " failed: " + err);\n'
        "    });\n"
        "  }\n"
        '  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", draw); }\n'
        "  else { draw(); }\n"
        "})();\n"
        "</script>\n"
    )


def _title_text(title: Any) -> str:
    """Plain text of a Vega-Lite title (a string, a list of lines, or ``{"text": ..., "subtitle": ...}``)."""
    if title is None:
        return ""
    if isinstance(title, (list, tuple)):
        return " ".join(str(t) for t in title)
    if isinstance(title, dict):
        text = _title_text(title.get("text"))
        sub = _title_text(title.get("subtitle"))
        return f"{text} ({sub})" if text and sub else text or sub
    return str(title)


def caption_of(spec: dict) -> tuple[dict, str, str | None]:
    """Split a chart spec into (spec without its top-level title, caption, explicit label or None).

    Definition: the caption is the chart's top-level title (its subtitle in parentheses); a chart
    without one (a concatenation of titled panels) is captioned by its panels' titles joined with "; ",
    which stay drawn.  The top-level title moves out of the drawing into the figure caption, so it is
    not shown twice and does not widen the chart.  An explicit label comes from
    ``usermeta={"selfconf_label": "..."}`` (altair: ``chart.properties(usermeta=...)``).

    Example: ``caption_of({"mark": "bar", "title": "Counts"})`` returns ``({"mark": "bar"}, "Counts", None)``.
    """
    spec = dict(spec)
    caption = _title_text(spec.pop("title", None))
    if not caption:
        parts = [
            _title_text(sub.get("title"))
            for key in ("hconcat", "vconcat", "concat", "layer")
            for sub in spec.get(key, [])
            if isinstance(sub, dict)
        ]
        caption = "; ".join(p for p in parts if p)
    label = (spec.get("usermeta") or {}).get("selfconf_label")
    return spec, " ".join(caption.split()), label


def chart_markdown(spec: dict, embed_options: dict | None = None) -> str:
    """MyST source of a numbered chart: the ``selfconf-chart`` directive around :func:`chart_html`.

    The directive (registered by :mod:`selfconf.book.publication`) makes the chart a captioned, labelled,
    numbered figure.  Raises ``ValueError`` for a chart with no title to caption it.

    Example: ``chart_markdown({"mark": "bar", "title": "Counts"})`` starts with ``"````{selfconf-chart}"``.
    """
    body, caption, label = caption_of(spec)
    if not caption:
        raise ValueError(
            "every chart of the book is numbered and captioned: give the chart a title "
            "(chart.properties(title=...)), which becomes its caption"
        )
    lines = ["````{selfconf-chart}", f":caption: {caption}"]
    if label:
        lines.append(f":name: {label}")
    lines += [chart_html(body, embed_options).rstrip("\n"), "````"]
    return "\n".join(lines)


def render(spec: dict, **metadata: Any) -> dict[str, Any]:
    """Altair renderer: ``text/markdown`` (a numbered figure around the offline embed) and ``text/plain``.

    myst-nb renders the Markdown as MyST, so the ``selfconf-chart`` directive of
    :mod:`selfconf.book.publication` turns the chart into a numbered, captioned figure.  The Vega-Lite JSON
    mimetype is deliberately left out: myst-nb warns on every mimetype it cannot render
    (``mystnb.unknown_mime_type``), and the book builds with warnings as errors.
    """
    embed = metadata.get("embed_options") or {}
    return {
        "text/markdown": chart_markdown(spec, embed),
        "text/plain": "<altair chart: drawn by vega-embed from _static/" + JS_NAME + ">",
    }


def enable() -> None:
    """Register the ``selfconf`` renderer with altair and switch it on (idempotent)."""
    import altair as alt

    if RENDERER not in alt.renderers.names():
        alt.renderers.register(RENDERER, render)
    if alt.renderers.active != RENDERER:
        alt.renderers.enable(RENDERER)


# --------------------------------------------------------------------------- MathJax, the other CDN script

#: Where the local MathJax copy goes inside ``_static``.
MATHJAX_DIR = "vendor/mathjax"


def mathjax_source() -> Path | None:
    """The ``es5`` folder of MathJax 3 shipped by the PyPI package ``django-static-mathjax``, if installed.

    (The package holds MathJax's static files and nothing Django-specific is imported.)
    """
    import importlib.util

    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        es5 = Path(loc) / "static" / "mathjax" / "es5"
        if (es5 / "tex-mml-chtml.js").is_file():
            return es5
    return None


def install_mathjax(dest: str | os.PathLike) -> Path:
    """Copy MathJax's TeX→CommonHTML build (script, fonts, extensions) into ``dest``; return ``dest``.

    Leaves out the speech engine and the SVG output, which the book does not load.  Skips the copy
    when ``dest`` already holds the same MathJax version.
    """
    import shutil

    src = mathjax_source()
    if src is None:
        raise FileNotFoundError("MathJax is not installed: pip install django-static-mathjax (see requirements.txt)")
    dest = Path(dest)
    stamp = dest / ".selfconf-mathjax"
    version = (src / "tex-mml-chtml.js").stat().st_size
    if stamp.is_file() and stamp.read_text() == str(version):
        return dest

    def skip(folder: str, names: list[str]) -> list[str]:
        rel = Path(folder).relative_to(src)
        out = [n for n in names if rel == Path(".") and n in {"sre", "node-main.js"}]
        out += [
            n
            for n in names
            if rel == Path(".")
            and n.endswith(".js")
            and n not in {"tex-mml-chtml.js", "startup.js", "loader.js", "core.js"}
        ]
        out += [n for n in names if rel == Path("output") and n == "svg"]
        return out

    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, ignore=skip)
    stamp.write_text(str(version))
    return dest


def _local_mathjax(app, config) -> None:  # config-inited
    """Point Sphinx's MathJax at the local copy, unless the book configured its own ``mathjax_path``."""
    default = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"
    if config.mathjax_path in ("", None, default) and mathjax_source() is not None:
        config.mathjax_path = f"{MATHJAX_DIR}/tex-mml-chtml.js"


# --------------------------------------------------------------------------- Sphinx extension


def _add_bundle(app) -> None:  # builder-inited
    if app.builder.format == "html":
        app.add_js_file(JS_NAME, priority=200)


def _write_bundle(app, exception) -> None:  # build-finished
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        install_js(static / Path(JS_NAME).parent)
        if str(app.config.mathjax_path).startswith(MATHJAX_DIR):
            install_mathjax(static / MATHJAX_DIR)


def _theme_defaults(app, config) -> None:  # config-inited
    """Give the theme an explicit colour mode (``html_context["default_mode"]``): with none,
    pydata-sphinx-theme logs a console error ("Got invalid theme mode") on a reader's first visit."""
    ctx = dict(config.html_context or {})
    if not ctx.get("default_mode"):
        ctx["default_mode"] = "auto"
        config.html_context = ctx


def _drop_idle_thebe(app, pagename, templatename, context, doctree) -> None:  # html-page-context
    """Without the Thebe launch button, drop sphinx-thebe's scripts from the page.

    sphinx-thebe 0.3 adds its inline configuration twice on Jupyter Book pages (a ``const``
    declared twice is a SyntaxError in the console), and that configuration names a CDN copy of
    thebe.  With ``launch_buttons.thebe: false`` nothing on the page can start Thebe, so the
    scripts only cost an error and an external URL.
    """
    launch = (app.config.html_theme_options or {}).get("launch_buttons") or {}
    if launch.get("thebe") or "script_files" not in context:
        return

    def thebe(js) -> bool:
        body = (getattr(js, "attributes", None) or {}).get("body") or ""
        return "THEBE_JS_URL" in body or str(getattr(js, "filename", js) or "").endswith("sphinx-thebe.js")

    context["script_files"] = [js for js in context["script_files"] if not thebe(js)]


def setup(app) -> dict:
    """Sphinx entry point: ship the Vega bundle (and MathJax) under ``_static/vendor/``; load them locally.

    Registered after ``sphinx.ext.mathjax`` (loaded by myst-nb), so ``mathjax_path`` exists when
    ``config-inited`` fires.
    """
    app.setup_extension("sphinx.ext.mathjax")
    app.connect("config-inited", _local_mathjax)
    app.connect("config-inited", _theme_defaults)
    app.connect("html-page-context", _drop_idle_thebe, priority=900)
    app.connect("builder-inited", _add_bundle)
    app.connect("build-finished", _write_bundle)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


# --------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    """``python -m selfconf.book.vega install-js DIR``: write ``DIR/selfconf-vega.js``
    (e.g. ``book/_static/vendor``).
    """
    ap = argparse.ArgumentParser(prog="python -m selfconf.book.vega", description="Offline Vega bundle for the book.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("install-js", help="write <dir>/selfconf-vega.js, e.g. book/_static/vendor")
    p.add_argument("dir")
    a = ap.parse_args(argv)
    dst = install_js(a.dir)
    print(f"wrote {dst} ({dst.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
