/* Inline provenance card for the book's pasted numbers (selfconf.book.provenance).
 * Every pasted value is a <span class="selfconf-num" data-...> element; hovering it or focusing it with
 * the keyboard shows one small card built from its data attributes.  No network, no library. */
(function () {
  "use strict";
  var card = null;
  var current = null;
  var hideTimer = null;

  var STATUS_TEXT = {
    match: "prints as the paper prints",
    mismatch: "differs from the paper's print",
    within_tolerance: "differs from the print, within its Monte-Carlo tolerance",
    outside_tolerance: "outside its Monte-Carlo tolerance",
    quoted: "quoted from the paper, not computed",
    not_quoted: "external number not glued from the quoted facts",
    unglued: "not glued by any notebook",
    pending: "section not built"
  };
  var ORIGIN_TEXT = {
    "reconstruction-only": "Not in the paper: computed from the reconstructed rows",
    "original-data": "Not in the paper: computed from the original replication rows",
    "parameter": "A setting of this build",
    "simulation": "Simulated teaching data",
    "external-data": "Third-party real data",
    "paper-arithmetic": "Arithmetic on the paper's printed numbers",
    "build": "A fact about this build"
  };

  function row(dl, label, value) {
    if (value === undefined || value === null || value === "") { return; }
    var dt = document.createElement("dt");
    dt.textContent = label;
    var dd = document.createElement("dd");
    dd.textContent = value;
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
    if (d.claim) {
      head.textContent = "Paper claim " + d.claim;
      row(dl, "Paper prints", d.printed);
      row(dl, "This build", d.value);
      row(dl, "Kind", d.kind);
      row(dl, "Status", (d.status || "") + (STATUS_TEXT[d.status] ? " — " + STATUS_TEXT[d.status] : ""));
      row(dl, "Why", d.why);
      row(dl, "Rows", d.source);
      row(dl, "Computed in", d.notebook ? d.notebook + (d.cell ? " (cell " + d.cell + ")" : "") : "");
    } else {
      head.textContent = ORIGIN_TEXT[d.origin] || ("Origin: " + (d.origin || "unknown"));
      row(dl, "Origin", d.origin);
      row(dl, "Value", d.value);
      row(dl, "What it is", d.why);
      row(dl, "Computed in", d.notebook);
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
})();
