/* A pinned p on the fast_p curves: a line at p on every chart and, under each, every submission's fast_p
   at that p, best first. The URL keeps it (?p=1.5) so a reading can be shared. */
(function () {
  "use strict";

  // fast_p at p of a step trace drawn horizontal-then-vertical: the value of the last point at or left of p.
  function valueAt(trace, p) {
    let value = trace.y[0];
    for (let i = 0; i < trace.x.length; i++) {
      if (trace.x[i] > p) break;
      value = trace.y[i];
    }
    return value;
  }

  function pinned() {
    const p = parseFloat(new URLSearchParams(window.location.search).get("p"));
    return Number.isFinite(p) && p > 0 ? p : null;
  }

  function readout(chart, p) {
    let box = chart.nextElementSibling;
    if (!box || !box.classList.contains("kb-pin-readout")) {
      box = document.createElement("ol");
      box.className = "kb-pin-readout";
      chart.after(box);
    }
    box.replaceChildren();
    if (p === null) return;
    const rows = chart.data.map(function (trace) { return [trace.name, valueAt(trace, p)]; });
    rows.sort(function (a, b) { return b[1] - a[1]; });
    for (const [name, value] of rows) {
      const item = document.createElement("li");
      item.textContent = name + ": " + (100 * value).toFixed(1) + "% at p = " + p;
      box.appendChild(item);
    }
  }

  function apply(doc) {
    const p = pinned();
    const input = doc.querySelector(".kb-pin-p");
    if (input && document.activeElement !== input) input.value = p === null ? "" : String(p);
    doc.querySelectorAll(".kb-target .kb-chart").forEach(function (chart) {
      if (!chart.data || !window.Plotly) return;
      const shapes = (chart.layout.shapes || []).filter(function (s) { return !s.name || s.name !== "pin"; });
      if (p !== null) {
        shapes.push({ name: "pin", type: "line", xref: "x", yref: "paper", x0: p, x1: p, y0: 0, y1: 1,
          line: { width: 2, color: "#e65100" } });
      }
      window.Plotly.relayout(chart, { shapes: shapes });
      readout(chart, p);
    });
  }

  window.kb.pin = { apply: apply, valueAt: valueAt };
  window.kb.onPage(function (doc) {
    const input = doc.querySelector(".kb-pin-p");
    if (!input) return;
    input.closest(".kb-pin").hidden = false;
    input.addEventListener("change", function () {
      const p = parseFloat(input.value);
      window.kb.filters.setParam("p", Number.isFinite(p) && p > 0 ? String(p) : "");
      apply(doc);
    });
  });
})();
