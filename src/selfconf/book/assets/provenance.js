/* Inline provenance card for the book's pasted numbers (selfconf.book.provenance).
 * Every pasted value is a <span class="selfconf-num" data-...> element; hovering it or focusing it with
 * the keyboard shows one small card built from its data attributes.  No network, no library. */
(function () {
  "use strict";
  var card = null;
  var current = null;
  var hideTimer = null;

  var STATUS_TEXT = {
    match: "Prints exactly as the paper prints",
    mismatch: "Prints differently from the paper (a number computed without randomness): a real difference",
    within_tolerance: "Prints differently from the paper, by no more than the bootstrap's noise allows",
    outside_tolerance: "Differs from the paper by more than the bootstrap's noise allows",
    crosses_threshold: "Prints on the other side of a threshold the paper's reading rests on (0, 0.5 or alpha), whatever the bootstrap's noise",
    quoted: "Quoted from the paper, not computed",
    not_quoted: "A quoted number that was not taken from the quoted-facts file",
    unglued: "Not computed by any notebook of this build",
    pending: "Its section was not built",
    not_computed: "The generator could not compute it"
  };
  // the heading of a card for a number that is not the paper's, by its origin (data-origin)
  var ORIGIN_TEXT = {
    "reconstruction-only": "A property of the reconstructed rows, not printed in the paper",
    "original-data": "Computed from the original replication rows; the paper does not print it",
    parameter: "A setting of this build",
    simulation: "Computed from data simulated on this page for teaching",
    "external-data": "Computed from third-party real data, not from the paper's rows",
    "paper-arithmetic": "Arithmetic on the paper's printed numbers",
    build: "A fact about this build",
    "paper-print": "As the paper prints it"
  };
  // how the number was made, in one sentence (kind and tolerance together, so they never contradict)
  function kindText(d) {
    var tol = d.toleranceValue && !/tolerance/.test(d.why || "") ? " It may differ from the paper's value by up to " + d.toleranceValue +
      " (its Monte-Carlo tolerance)." : "";
    if (d.kind === "quoted") { return "Quoted from the paper, never computed."; }
    if (d.kind === "bootstrap") { return "A bootstrap estimate: it moves a little with the seed." + tol; }
    if (d.kind === "derived") {
      return tol ? "Arithmetic on bootstrap estimates, so it moves a little with the seed." + tol :
        "Arithmetic on other numbers of this build, without randomness: it must print as the paper prints.";
    }
    if (d.kind === "deterministic") {
      return "Computed from the rows without randomness: it must print exactly as the paper prints.";
    }
    return d.kind || "";
  }
  function sentence(t) {
    if (!t) { return ""; }
    t = String(t).trim();
    t = t.charAt(0).toUpperCase() + t.slice(1);
    return /[.!?)]$/.test(t) ? t : t + ".";
  }
  // the value as this page prints it (its printed precision and digit grouping), without the "≠ paper" mark
  function shown(el) {
    var copy = el.cloneNode(true);
    copy.querySelectorAll(".selfconf-mark").forEach(function (m) { m.remove(); });
    return copy.textContent.trim();
  }
  function row(dl, label, value, href) {
    if (value === undefined || value === null || value === "") { return; }
    var dt = document.createElement("dt");
    dt.textContent = label;
    var dd = document.createElement("dd");
    if (href) {
      var a = document.createElement("a");
      a.href = href; a.textContent = value; a.rel = "noopener";
      dd.appendChild(a);
    } else { dd.textContent = value; }
    dl.appendChild(dt);
    dl.appendChild(dd);
  }

  function ensureCard() {
    if (card) { return card; }
    card = document.createElement("div");
    card.className = "selfconf-card";
    card.id = "selfconf-card";
    card.setAttribute("role", "tooltip");
    card.hidden = true;
    card.addEventListener("mouseenter", function () { clearTimeout(hideTimer); });
    card.addEventListener("mouseleave", scheduleHide);
    document.body.appendChild(card);
    return card;
  }

  function fill(el) {
    var c = ensureCard();
    var d = el.dataset;
    c.textContent = "";
    var head = document.createElement("p");
    head.className = "selfconf-card-head";
    var dl = document.createElement("dl");
    var where = d.code ? (d.codeTitle ? "the executed cell on \u201c" + d.codeTitle + "\u201d" :
      "the executed cell") : "";
    if (d.claim) {
      head.textContent = d.text ? sentence(d.text) : "A number the paper prints";
      row(dl, "This build", shown(el));
      row(dl, "Paper prints", d.printed);
      row(dl, "Status", sentence(STATUS_TEXT[d.status] || d.status));
      // "why" only where it adds to the status (a match or a quote needs no second sentence)
      if (d.status !== "match" && d.status !== "quoted") { row(dl, "Why", sentence(d.why)); }
      row(dl, "How", kindText(d));
      row(dl, "Rows", d.source ? "From the " + d.source + "." : "");
      // a quoted value is never computed: its link is the cell that places it on the page
      row(dl, d.status === "quoted" ? "Placed by" : "Computed in", where, d.code);
    } else {
      head.textContent = ORIGIN_TEXT[d.origin] || ("Origin: " + (d.origin || "unknown"));
      row(dl, "Value", shown(el));
      row(dl, "Computed in", where, d.code);
    }
    c.appendChild(head);
    c.appendChild(dl);
    if (d.audit) {
      var a = document.createElement("a");
      a.href = d.audit;
      a.textContent = "Its row on the audit page";
      c.appendChild(a);
    }
  }

  function place(el) {
    var r = el.getBoundingClientRect();
    var c = card;
    c.hidden = false;
    var w = c.offsetWidth;
    var left = Math.max(8, Math.min(r.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - w - 8));
    c.style.left = left + "px";
    c.style.top = (r.bottom + window.scrollY + 6) + "px";
  }

  function show(el) {
    clearTimeout(hideTimer);
    if (current && current !== el) { current.removeAttribute("aria-describedby"); }
    current = el;
    fill(el);
    el.setAttribute("aria-describedby", "selfconf-card");
    place(el);
  }

  function hide() {
    if (card) { card.hidden = true; }
    if (current) { current.removeAttribute("aria-describedby"); }
    current = null;
  }

  function scheduleHide() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, 250);
  }

  function target(ev) {
    var t = ev.target;
    return t && t.closest ? t.closest(".selfconf-num[data-claim], .selfconf-num[data-origin]") : null;
  }

  document.addEventListener("mouseover", function (ev) {
    var el = target(ev);
    if (el && !el.classList.contains("selfconf-legend-sample")) { show(el); }
  });
  document.addEventListener("mouseout", function (ev) { if (target(ev)) { scheduleHide(); } });
  document.addEventListener("focusin", function (ev) {
    var el = target(ev);
    if (el) { show(el); } else if (card && !card.contains(ev.target)) { hide(); }
  });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") { hide(); } });
  // a tap opens the card; a second tap on the same number (or a tap elsewhere, or Escape) closes it.  A touch
  // tap also fires a simulated mouseover (which opens the card) before its click, so whether the card was
  // already open is read at pointerdown, before that mouseover.
  var wasOpen = false;
  var downType = "";
  document.addEventListener("pointerdown", function (ev) {
    var el = target(ev);
    downType = ev.pointerType || "";
    wasOpen = !!(el && current === el && card && !card.hidden);
  }, true);
  document.addEventListener("click", function (ev) {
    var el = target(ev);
    if (!el) {
      if (card && !card.hidden && !card.contains(ev.target)) { hide(); }
      return;
    }
    if (el.classList.contains("selfconf-legend-sample")) { return; }
    if (wasOpen && downType !== "mouse") { wasOpen = false; hide(); return; }
    wasOpen = false;
    show(el);
  });

  // the page's "Show every mark" switch (in the legend); remembered across pages
  var KEY = "selfconf-all-marks";
  function setAll(on) {
    document.documentElement.classList.toggle("selfconf-all-marks", on);
    document.querySelectorAll("input.selfconf-all-marks-switch").forEach(function (i) { i.checked = on; });
    try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* storage off: the switch still works */ }
  }
  var saved = false;
  try { saved = localStorage.getItem(KEY) === "1"; } catch (e) { saved = false; }
  document.documentElement.classList.toggle("selfconf-all-marks", saved);
  document.addEventListener("change", function (ev) {
    if (ev.target && ev.target.classList && ev.target.classList.contains("selfconf-all-marks-switch")) {
      setAll(ev.target.checked);
    }
  });

  // a table is one tab stop: Tab reaches the table, the arrow keys (and Home/End) move between its numbers
  function tables() {
    document.querySelectorAll("table").forEach(function (t) {
      var nums = t.querySelectorAll('.selfconf-num[tabindex="-1"]');
      if (!nums.length) { return; }
      t.setAttribute("tabindex", "0");
      if (!t.getAttribute("aria-label")) {
        var cap = t.querySelector("caption");
        t.setAttribute("aria-label", (cap ? cap.textContent.replace(/#$/, "").trim() + ". " : "") +
          "Arrow keys move between its numbers.");
      }
      t.addEventListener("keydown", function (ev) {
        var keys = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: "first", End: "last" };
        var step = keys[ev.key];
        if (step === undefined) { return; }
        var list = Array.prototype.slice.call(t.querySelectorAll(".selfconf-num[data-claim], .selfconf-num[data-origin]"));
        if (!list.length) { return; }
        var i = list.indexOf(document.activeElement);
        var next = step === "first" ? 0 : step === "last" ? list.length - 1 :
          (i < 0 ? 0 : Math.max(0, Math.min(list.length - 1, i + step)));
        ev.preventDefault();
        list[next].focus();
      });
    });
  }
  document.querySelectorAll("input.selfconf-all-marks-switch").forEach(function (i) { i.checked = saved; });
  tables();

  // the legend is open on the first page that shows it, one line (closed) on every page after
  var SEEN = "selfconf-legend-seen";
  var legends = document.querySelectorAll("details.selfconf-legend");
  var seen = false;
  try { seen = localStorage.getItem(SEEN) === "1"; } catch (e) { seen = false; }
  var shownOpen = false;
  legends.forEach(function (l) {
    if (seen) { l.open = false; } else if (l.open) { shownOpen = true; }
  });
  if (shownOpen) {
    try { localStorage.setItem(SEEN, "1"); } catch (e) { /* storage off: the legend stays open */ }
  }
})();
