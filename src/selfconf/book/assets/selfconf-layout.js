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
  var timer = null;
  window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(layout, 150); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", layout);
  } else { layout(); }
})();
