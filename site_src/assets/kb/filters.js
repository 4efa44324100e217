/* Row filters for the pages' tables: a text filter, one select per column marked data-filter (run,
   method), and "All columns" on narrow screens. The state lives in the URL's query (?q=…&method=…&cols=all)
   so a filtered view can be shared; the tables themselves are static HTML, this only hides rows. */
(function () {
  "use strict";

  function params() {
    return new URLSearchParams(window.location.search);
  }

  function setParam(name, value) {
    const query = params();
    if (value) query.set(name, value);
    else query.delete(name);
    const text = query.toString();
    history.replaceState(history.state, "", window.location.pathname + (text ? "?" + text : "") + window.location.hash);
  }

  function keyOf(label) {
    return label.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-");
  }

  function filterColumns(doc) {
    const columns = new Map(); // key -> set of values
    doc.querySelectorAll("article table.kb-table").forEach(function (table) {
      Array.from(table.tHead.rows[0].cells).forEach(function (th, index) {
        if (!th.dataset.filter) return;
        const key = keyOf(th.textContent);
        if (!columns.has(key)) columns.set(key, { label: th.textContent.trim(), values: new Set() });
        for (const row of table.tBodies[0].rows) columns.get(key).values.add(row.cells[index].textContent.trim());
      });
    });
    return columns;
  }

  function apply(doc) {
    const query = params();
    const text = (query.get("q") || "").toLowerCase();
    doc.querySelectorAll("article table.kb-table").forEach(function (table) {
      const wanted = [];
      Array.from(table.tHead.rows[0].cells).forEach(function (th, index) {
        const value = th.dataset.filter ? query.get(keyOf(th.textContent)) : null;
        if (value) wanted.push([index, value]);
      });
      for (const row of table.tBodies[0].rows) {
        const shown = (!text || row.textContent.toLowerCase().includes(text)) &&
          wanted.every(function ([index, value]) { return row.cells[index].textContent.trim() === value; });
        row.hidden = !shown;
      }
    });
    doc.body.classList.toggle("kb-show-wide", query.get("cols") === "all");
  }

  function setUp(doc) {
    const bar = doc.querySelector(".kb-filters");
    if (!bar) return;
    const columns = filterColumns(doc);
    const query = params();
    const selects = bar.querySelector(".kb-filter-selects");
    selects.replaceChildren();
    for (const [key, column] of columns) {
      const label = document.createElement("label");
      label.textContent = column.label + " ";
      const select = document.createElement("select");
      select.className = "kb-filter-select";
      select.dataset.key = key;
      select.setAttribute("aria-label", "filter by " + column.label);
      for (const value of ["", ...Array.from(column.values).sort()]) {
        const option = document.createElement("option");
        option.value = value;
        option.textContent = value || "all";
        select.appendChild(option);
      }
      select.value = query.get(key) || "";
      select.addEventListener("change", function () {
        setParam(key, select.value);
        apply(doc);
      });
      label.appendChild(select);
      selects.appendChild(label);
    }
    const input = bar.querySelector(".kb-filter-text");
    input.value = query.get("q") || "";
    input.addEventListener("input", function () {
      setParam("q", input.value.trim());
      apply(doc);
    });
    const wide = bar.querySelector(".kb-wide-toggle");
    wide.addEventListener("click", function () {
      setParam("cols", params().get("cols") === "all" ? "" : "all");
      apply(doc);
    });
    bar.hidden = false;
    apply(doc);
  }

  window.kb.filters = { apply: apply, setParam: setParam, params: params };
  window.kb.onPage(setUp);
})();
