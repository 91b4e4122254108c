/* Page layout for wide tables (selfconf.book.provenance ships it with the book).
 * At a desk (>= 1200 px) a page whose table is wider than the text column gets the class
 * body.selfconf-wide-tables: the in-page table of contents folds and the article takes its room
 * (selfconf-publication.css).  Measured on load and on resize, with the class off, so a page that no
 * longer needs the room gets it back. */
(function () {
  "use strict";
  var DESK = 1200;
  function box(t) {
    var p = t.parentElement;
    while (p && p !== document.body) {
      var ox = getComputedStyle(p).overflowX;
      if (ox === "auto" || ox === "scroll") { return p; }
      p = p.parentElement;
    }
    return t.parentElement;
  }
  function needsRoom() {
    var tables = document.querySelectorAll("main table");
    for (var i = 0; i < tables.length; i++) {
      var t = tables[i];
      var b = getComputedStyle(t).overflowX === "auto" ? t : box(t);
      if (b && b.scrollWidth > b.clientWidth + 1) { return true; }
    }
    return false;
  }
  function layout() {
    var body = document.body;
    if (window.innerWidth < DESK) { body.classList.remove("selfconf-wide-tables"); return; }
    body.classList.remove("selfconf-wide-tables");
    if (needsRoom()) { body.classList.add("selfconf-wide-tables"); }
  }
  // long identifiers in a table's first column (claim ids) may break after their underscores: a <wbr>
  // (no character is added, so a copied id stays exact)
  function breakIds(selector) {
    document.querySelectorAll(selector || "main table td:first-child").forEach(function (td) {
      var walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      var texts = [];
      while (walker.nextNode()) { if (/\w_\w/.test(walker.currentNode.nodeValue) && walker.currentNode.nodeValue.length > 16) { texts.push(walker.currentNode); } }
      texts.forEach(function (t) {
        var parts = t.nodeValue.split("_");
        var frag = document.createDocumentFragment();
        parts.forEach(function (p, i) {
          frag.appendChild(document.createTextNode(p + (i < parts.length - 1 ? "_" : "")));
          if (i < parts.length - 1) { frag.appendChild(document.createElement("wbr")); }
        });
        t.parentNode.replaceChild(frag, t);
      });
    });
  }
  // the audit page's tables (ids tab-audit*) that would scroll sideways are shown as stacked records: one box per
  // row, each cell on its own line after its column's name (data-label, from the header); the table of failing
  // numbers, 14 columns of long text, is always stacked.  Words then wrap whole (selfconf-publication.css).
  var ALWAYS_STACKED = { "tab-audit-why": true };
  function label(t) {
    var heads = Array.prototype.map.call(t.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
    t.querySelectorAll("tbody tr").forEach(function (tr) {
      Array.prototype.forEach.call(tr.children, function (td, i) {
        if (heads[i] !== undefined && !td.hasAttribute("data-label")) { td.setAttribute("data-label", heads[i]); }
      });
    });
  }
  // a token with a bar (|Δ|) would break after a bar: each such token is kept on one line
  function keepBars(t) {
    var walker = document.createTreeWalker(t, NodeFilter.SHOW_TEXT);
    var texts = [];
    while (walker.nextNode()) {
      var n = walker.currentNode;
      if (n.nodeValue.indexOf("|") >= 0 && !(n.parentNode.classList && n.parentNode.classList.contains("selfconf-nowrap"))) {
        texts.push(n);
      }
    }
    texts.forEach(function (n) {
      var frag = document.createDocumentFragment();
      n.nodeValue.split(/(\S*\|\S*)/).forEach(function (part, i) {
        if (!part) { return; }
        if (i % 2) {
          var span = document.createElement("span");
          span.className = "selfconf-nowrap";
          span.style.whiteSpace = "nowrap";
          span.textContent = part;
          frag.appendChild(span);
        } else { frag.appendChild(document.createTextNode(part)); }
      });
      n.parentNode.replaceChild(frag, n);
    });
  }
  function stack() {
    document.querySelectorAll('main table.selfconf-table[id^="tab-audit"]').forEach(function (t) {
      t.classList.remove("selfconf-stacked");
      var b = getComputedStyle(t).overflowX === "auto" ? t : box(t);
      var over = (b && b.scrollWidth > b.clientWidth + 1) || t.getBoundingClientRect().right > window.innerWidth + 1;
      if (ALWAYS_STACKED[t.id] || over) {
        label(t);
        t.classList.add("selfconf-stacked");
        if (t.id) { breakIds("#" + t.id + " td:not(:first-child)"); }  // ids in any cell wrap at their underscores
        keepBars(t);
      }
    });
  }
  var timer = null;
  window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(function () { layout(); stack(); }, 150); });
  function start() { breakIds(); layout(); stack(); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else { start(); }
})();

/* Charts that fit their column with readable text.  Each chart of the book calls window.vegaEmbed (the
 * offline bundle) on DOMContentLoaded; this wrapper, loaded before that (a deferred script), draws the chart,
 * and when its drawn width exceeds the column it draws it again narrower instead of letting the browser
 * shrink the SVG (which shrinks its text): plot widths are reduced so the whole chart fits, side-by-side
 * views are stacked when they would get narrower than MIN_VIEW px, and on a phone legends go below the plot.
 * Text sizes are floored at 10 px (axis and legend labels) and 11 px (titles) in the chart's config. */
(function () {
  "use strict";
  var MIN_VIEW = 150;
  var embed = window.vegaEmbed;
  if (typeof embed !== "function" || embed.selfconfFitted) { return; }
  function clone(o) { return JSON.parse(JSON.stringify(o)); }
  function floorFonts(spec) {
    var c = spec.config = spec.config || {};
    function atLeast(obj, key, v) { if (!(obj[key] >= v)) { obj[key] = v; } }
    c.axis = c.axis || {}; atLeast(c.axis, "labelFontSize", 10); atLeast(c.axis, "titleFontSize", 11);
    c.legend = c.legend || {}; atLeast(c.legend, "labelFontSize", 10); atLeast(c.legend, "titleFontSize", 11);
    c.header = c.header || {}; atLeast(c.header, "labelFontSize", 10); atLeast(c.header, "titleFontSize", 11);
    c.title = c.title || {}; atLeast(c.title, "fontSize", 12);
    c.text = c.text || {}; atLeast(c.text, "fontSize", 10);
    // explicit sizes in the spec (an axis's labelFontSize, a text mark's fontSize) are floored too
    (function walk(o) {
      if (!o || typeof o !== "object") { return; }
      if (Array.isArray(o)) { o.forEach(walk); return; }
      Object.keys(o).forEach(function (k) {
        var v = o[k];
        if (typeof v === "number" && /(^|[a-z])(fontSize|FontSize)$/.test(k)) {
          o[k] = Math.max(v, /title/i.test(k) ? 11 : 10);
        } else if (k !== "data" && k !== "datasets") { walk(v); }
      });
    })(spec);
  }
  // every view width of a spec (top level, concatenations, facet's inner spec), with a setter
  function views(spec, out) {
    out = out || [];
    if (typeof spec.width === "number") { out.push(spec); }
    ["hconcat", "vconcat", "concat"].forEach(function (k) { (spec[k] || []).forEach(function (s) { views(s, out); }); });
    if (spec.spec) { views(spec.spec, out); }
    return out;
  }
  // the summed width of the views in the widest row of a spec
  function rowWidth(spec) {
    if (spec.hconcat) { return spec.hconcat.reduce(function (t, x) { return t + rowWidth(x); }, 0); }
    if (spec.vconcat) { return Math.max.apply(null, spec.vconcat.map(rowWidth).concat([0])); }
    if (spec.concat) {
      var c = spec.columns || spec.concat.length;
      return c * Math.max.apply(null, spec.concat.map(rowWidth).concat([0]));
    }
    if (spec.spec) { return (spec.columns || 1) * rowWidth(spec.spec); }
    return typeof spec.width === "number" ? spec.width : 0;
  }
  function stack(s) {
    if (s.hconcat) { s.vconcat = s.hconcat; delete s.hconcat; return true; }
    if (s.vconcat) {  // side-by-side views nested in a vertical stack
      var any = false;
      s.vconcat.forEach(function (x) { if (stack(x)) { any = true; } });
      if (any) { return true; }
    }
    if (s.concat && s.columns !== 1) { s.columns = 1; return true; }
    if (s.spec && s.facet && s.columns && s.columns > 1) { s.columns = 1; return true; }
    return false;
  }
  // a title longer than maxChars becomes several lines (Vega draws an array of strings as lines)
  function wrapTitles(o, maxChars) {
    if (!o || typeof o !== "object") { return; }
    if (Array.isArray(o)) { o.forEach(function (x) { wrapTitles(x, maxChars); }); return; }
    Object.keys(o).forEach(function (k) {
      var v = o[k];
      if (k === "title" && typeof v === "string" && v.length > maxChars) {
        var lines = [], line = "";
        v.split(" ").forEach(function (w) {
          if (line && (line + " " + w).length > maxChars) { lines.push(line); line = w; }
          else { line = line ? line + " " + w : w; }
        });
        if (line) { lines.push(line); }
        o[k] = lines;
      } else if (k !== "data" && k !== "datasets") { wrapTitles(v, maxChars); }
    });
  }
  function narrower(s, natural, avail, tries) {  // scale every view so that the chart's drawn width fits avail
    wrapTitles(s, Math.max(18, Math.floor(avail / 9)));
    var rw = rowWidth(s);
    if (!rw) { return false; }
    var fixed = Math.max(0, natural - rw);
    var k = (avail - fixed - 24) / rw;
    var vs = views(s);
    var smallest = Math.min.apply(null, vs.map(function (v) { return v.width * k; }));
    if (smallest < MIN_VIEW && stack(s)) { return "stacked"; }
    // a plot is kept at least half the column wide at first; later passes may go narrower (a wide legend)
    var floor = tries <= 2 ? Math.min(200, Math.floor(avail * 0.5)) : 60;
    vs.forEach(function (v) { v.width = Math.max(Math.min(v.width, floor), Math.floor(v.width * Math.min(1, k))); });
    return true;
  }
  function wrapped(el, spec, opts) {
    var node = typeof el === "string" ? document.querySelector(el) : el;
    var s = clone(spec);
    floorFonts(s);
    if (window.innerWidth < 600 && !s.config.legend.orient) {  // a phone: legends below the plot, in columns
      s.config.legend.orient = "bottom";
      s.config.legend.direction = "vertical";
      s.config.legend.columns = 2;
      s.config.legend.labelLimit = 140;
      s.config.legend.layout = { bottom: { direction: "vertical", anchor: "start" } };  // several legends: one under another
    }
    if (window.innerWidth < 600 && !(s.config.axis.labelLimit > 0 && s.config.axis.labelLimit <= 110)) {
      s.config.axis.labelLimit = 110;
    }
    if (window.innerWidth < 600) {  // an explicit legend: one column, labels cut at 260 px (the full name is in the data)
      (function walk(o) {
        if (!o || typeof o !== "object") { return; }
        if (Array.isArray(o)) { o.forEach(walk); return; }
        Object.keys(o).forEach(function (k) {
          var v = o[k];
          if (k === "axis" && v && typeof v === "object" && !Array.isArray(v) && !(v.labelLimit > 0 && v.labelLimit <= 110)) {
            v.labelLimit = 110;  // long category names are cut with an ellipsis on a phone (the tooltip has them)
            walk(v);
          } else if (k === "legend" && v && typeof v === "object" && !Array.isArray(v)) {
            if (v.columns > 1) { v.columns = 1; }
            if (!(v.labelLimit > 0) || v.labelLimit > 260) { v.labelLimit = 260; }
            if (v.orient === "right" || v.orient === "left") { v.orient = "bottom"; }
          } else if (k !== "data" && k !== "datasets") { walk(v); }
        });
      })(s);
    }
    var tries = 0;
    if (node && node.dataset) { node.dataset.fitting = "1"; }
    function done(res) { if (node && node.dataset) { delete node.dataset.fitting; } return res; }
    function attempt() {
      return embed(node, s, opts).then(function (res) {
        var svg = node.querySelector("svg");
        var avail = node.clientWidth || (node.parentElement ? node.parentElement.clientWidth : window.innerWidth);
        var natural = svg ? parseFloat(svg.getAttribute("width")) : 0;
        if (!svg || !avail || !(natural > avail + 1) || tries >= 6) { return res; }
        tries += 1;
        if (!narrower(s, natural, avail, tries)) { return res; }
        if (res && res.finalize) { res.finalize(); }
        node.textContent = "";
        return attempt();
      });
    }
    return attempt().then(done, function (err) { done(); throw err; });
  }
  wrapped.selfconfFitted = true;
  window.vegaEmbed = wrapped;
})();

/* Citation previews: a citation (a link into the bibliography page, which sphinxcontrib-bibtex gives the full
 * reference as its title) shows that reference in a small card on hover, keyboard focus and tap; a first tap
 * on a touch screen previews, a second follows the link.  The title moves to data-cite (no double tooltip). */
(function () {
  "use strict";
  var box = null, shown = null, timer = null;
  function links() {
    return document.querySelectorAll('main a.reference.internal[href*="bibliography.html#"][title]');
  }
  function card() {
    if (box) { return box; }
    box = document.createElement("div");
    box.className = "selfconf-card selfconf-cite-card";
    box.id = "selfconf-cite-card";
    box.setAttribute("role", "tooltip");
    box.hidden = true;
    box.addEventListener("mouseenter", function () { clearTimeout(timer); });
    box.addEventListener("mouseleave", later);
    document.body.appendChild(box);
    return box;
  }
  function show(a) {
    clearTimeout(timer);
    var c = card();
    c.textContent = a.dataset.cite;
    c.hidden = false;
    var r = a.getBoundingClientRect();
    var left = Math.max(8, Math.min(r.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - c.offsetWidth - 8));
    c.style.left = left + "px";
    c.style.top = (r.bottom + window.scrollY + 6) + "px";
    a.setAttribute("aria-describedby", "selfconf-cite-card");
    shown = a;
  }
  function hide() { if (box) { box.hidden = true; } if (shown) { shown.removeAttribute("aria-describedby"); } shown = null; }
  function later() { clearTimeout(timer); timer = setTimeout(hide, 250); }
  function init() {
    links().forEach(function (a) {
      a.dataset.cite = a.getAttribute("title");
      a.removeAttribute("title");
      a.classList.add("selfconf-cite");
      a.addEventListener("mouseenter", function () { show(a); });
      a.addEventListener("mouseleave", later);
      a.addEventListener("focus", function () { show(a); });
      a.addEventListener("blur", later);
      a.addEventListener("click", function (ev) {
        if (ev.pointerType === "touch" && shown !== a) { ev.preventDefault(); show(a); }
      });
    });
    document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") { hide(); } });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
