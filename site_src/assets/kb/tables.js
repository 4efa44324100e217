/* Sortable tables (click or Enter on a header) and rendering of the compact tables the generator
   writes as JSON: each cell is [value, display, link?, css?, title?]; value is the sort key. */
(function () {
  "use strict";

  function sortKey(cell, numeric) {
    const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
    if (raw === "" || raw === "–") return null;
    if (!numeric) return raw;
    const number = parseFloat(raw);
    return Number.isNaN(number) ? null : number;
  }

  function compare(a, b, numeric) {
    if (numeric) return a - b;
    return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: "base" });
  }

  function sortBy(table, index) {
    const header = table.tHead.rows[0].cells[index];
    const numeric = header.dataset.type === "num";
    const current = header.getAttribute("aria-sort");
    let ascending;
    if (current === "ascending") ascending = false;
    else if (current === "descending") ascending = true;
    else ascending = !numeric || header.dataset.ascFirst === "1";
    const body = table.tBodies[0];
    const rows = Array.from(body.rows).map(function (row, position) {
      return { row: row, key: sortKey(row.cells[index], numeric), position: position };
    });
    rows.sort(function (a, b) {
      if (a.key === null || b.key === null) {
        if (a.key === b.key) return a.position - b.position;
        return a.key === null ? 1 : -1; // empty cells last in either direction
      }
      const order = compare(a.key, b.key, numeric);
      return (ascending ? order : -order) || a.position - b.position;
    });
    for (const item of rows) body.appendChild(item.row);
    for (const other of table.tHead.rows[0].cells) other.removeAttribute("aria-sort");
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  function makeSortable(table) {
    if (table.dataset.kbSortable === "1" || !table.tHead) return;
    table.dataset.kbSortable = "1";
    Array.from(table.tHead.rows[0].cells).forEach(function (header, index) {
      header.tabIndex = 0;
      header.classList.add("kb-sort");
      header.addEventListener("click", function () {
        sortBy(table, index);
      });
      header.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          sortBy(table, index);
        }
      });
    });
  }

  function href(link) {
    return /^(#|https?:)/.test(link) ? link : window.kb.url(link);
  }

  function renderTable(packed) {
    const table = document.createElement("table");
    table.className = "kb-table kb-sortable";
    const headRow = table.createTHead().insertRow();
    packed.columns.forEach(function (column, index) {
      const th = document.createElement("th");
      th.textContent = column.label;
      if (column.title) th.title = column.title;
      if (column.numeric) th.dataset.type = "num";
      if (column.asc) th.dataset.ascFirst = "1";
      if (packed.sort === index) th.setAttribute("aria-sort", column.asc ? "ascending" : "descending");
      headRow.appendChild(th);
    });
    const body = table.createTBody();
    for (const cells of packed.rows) {
      const row = body.insertRow();
      cells.forEach(function (cell, index) {
        const td = row.insertCell();
        const [value, display, link, css, title] = cell;
        let content = document.createTextNode(display);
        if (css) {
          const span = document.createElement("span");
          span.className = css;
          span.appendChild(content);
          content = span;
        }
        if (link) {
          const anchor = document.createElement("a");
          anchor.href = href(link);
          anchor.appendChild(content);
          content = anchor;
        }
        td.appendChild(content);
        if (value !== null && value !== undefined && String(value) !== display) td.dataset.sort = value;
        if (title) td.title = title;
        if (packed.columns[index].numeric) td.className = "kb-num";
      });
    }
    const wrap = document.createElement("div");
    wrap.className = "kb-table-wrap";
    wrap.appendChild(table);
    makeSortable(table);
    return wrap;
  }

  window.kb.tables = { renderTable: renderTable, makeSortable: makeSortable, sortBy: sortBy };
  window.kb.onPage(function (doc) {
    doc.querySelectorAll("table.kb-sortable").forEach(makeSortable);
  });
})();
