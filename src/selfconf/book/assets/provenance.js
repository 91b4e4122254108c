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
  var KIND_TEXT = {
    deterministic: "computed from the rows without randomness",
    derived: "arithmetic on other numbers of the paper",
    bootstrap: "a bootstrap (Monte-Carlo) estimate: it moves a little with the seed",
    quoted: "quoted, never computed"
  };
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
    var where = d.notebook ? d.notebook + (d.cell ? ", cell " + d.cell + " of the executed notebook" : "") : "";
    if (d.claim) {
      head.textContent = d.text ? "The paper: " + d.text : "A number the paper prints";
      row(dl, "Paper prints", d.printed);
      row(dl, "This build", d.value);
      row(dl, "Status", STATUS_TEXT[d.status] || d.status);
      row(dl, "Kind", KIND_TEXT[d.kind] || d.kind);
      row(dl, "Tolerance", d.tolerance);
      row(dl, "Why", d.why);
      row(dl, "Rows", d.source);
      row(dl, "Computed in", where, d.code);
      row(dl, "Claim id", d.claim);
    } else {
      head.textContent = ORIGIN_TEXT[d.origin] || ("Origin: " + (d.origin || "unknown"));
      row(dl, "Value", d.value);
      row(dl, "What it is", d.why);
      row(dl, "Computed in", d.notebook, d.code);
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
  // a tap (touch) opens the card too; a second tap on the same number closes it
  document.addEventListener("click", function (ev) {
    var el = target(ev);
    if (!el || el.classList.contains("selfconf-legend-sample")) { return; }
    if (current === el && card && !card.hidden && ev.pointerType === "touch") { hide(); return; }
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
})();
