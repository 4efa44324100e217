/* The compare view: ?hw=<hardware>&s=<slug>,<slug>… -> one row per problem, per submission its status and
   speedup [interval], and its ratio to the first submission. Data: data/compare/index.json and one file
   per (hardware, submission). Rendering goes through kb.tables.renderTable (text, never markup). */
(function () {
  "use strict";

  const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

  function legend(index, slugs) {
    const list = document.createElement("ol");
    list.className = "kb-compare-legend";
    slugs.forEach(function (slug, i) {
      const item = document.createElement("li");
      const anchor = document.createElement("a");
      anchor.href = window.kb.url("submissions/" + slug + "/");
      anchor.textContent = index.names[slug] || slug;
      item.append(LETTERS[i % LETTERS.length] + " = ", anchor);
      list.appendChild(item);
    });
    return list;
  }

  function chosen() {
    const query = new URLSearchParams(window.location.search);
    return { hw: query.get("hw") || "", slugs: (query.get("s") || "").split(",").filter(Boolean) };
  }

  function share(hw, slugs) {
    const query = new URLSearchParams(window.location.search);
    query.set("hw", hw);
    if (slugs.length) query.set("s", slugs.join(","));
    else query.delete("s");
    history.replaceState(history.state, "", window.location.pathname + "?" + query.toString());
  }

  function speedText(entry) {
    if (!entry || entry[1] === null) return "–";
    let text = entry[1].toPrecision(3) + "×";
    if (entry[2] !== null && entry[3] !== null) text += " [" + entry[2].toPrecision(3) + "–" + entry[3].toPrecision(3) + "]";
    return text;
  }

  function table(index, hw, runs) {
    const columns = [{ label: "Problem", numeric: false }, { label: "Level", numeric: true }];
    runs.forEach(function (run, i) {
      const name = index.names[run.slug] || run.slug;
      const letter = LETTERS[i % LETTERS.length];
      columns.push({ label: letter + " status", numeric: false, title: name });
      columns.push({ label: letter + " speedup", numeric: true, title: name + ": vs PyTorch eager [interval]" });
      if (i > 0) columns.push({ label: letter + " ÷ A", numeric: true, title: name + ": its speedup over A's" });
    });
    const keys = Object.keys(index.problems).filter(function (key) { // catalogue order, the runs' tracks only
      return runs.some(function (run) { return key in run.problems; });
    });
    const rows = keys.map(function (key) {
      const [level, name] = index.problems[key];
      const version = key.includes("@") ? " (" + key.split("@")[1] + ")" : ""; // another version's track
      const cells = [[name, name + version, "problems/" + key + "/"], [level, String(level)]];
      const first = runs[0].problems[key];
      runs.forEach(function (run, i) {
        const entry = run.problems[key];
        const status = entry ? entry[0] : "missing";
        cells.push([status, status, null, "kb-status kb-" + status]);
        const counted = entry && entry[0] === "correct" ? entry[1] : null;
        cells.push([counted, speedText(entry)]);
        if (i > 0) {
          const base = first && first[0] === "correct" ? first[1] : null;
          const ratio = counted !== null && base ? counted / base : null;
          cells.push([ratio, ratio === null ? "–" : ratio.toPrecision(3) + "×"]);
        }
      });
      return cells;
    });
    return { columns: columns, sort: null, rows: rows };
  }

  function render(root, index) {
    const hwSelect = root.querySelector(".kb-compare-hardware");
    const pick = root.querySelector(".kb-compare-pick");
    const status = root.querySelector(".kb-loading");
    const target = root.querySelector(".kb-compare-table");
    const state = chosen();
    const hardware = Object.keys(index.hardware);
    const hw = hardware.includes(state.hw) ? state.hw : hardware[0];
    hwSelect.replaceChildren(...hardware.map(function (h) { return new Option(index.hardware[h].name, h, false, h === hw); }));
    const available = index.hardware[hw].slugs;
    const slugs = state.slugs.filter(function (s) { return available.includes(s); });
    pick.replaceChildren(...available.map(function (s) { return new Option(index.names[s] || s, s, false, slugs.includes(s)); }));
    share(hw, slugs);
    if (slugs.length < 2) {
      status.textContent = "Choose two or more submissions (Ctrl or Shift to pick several).";
      target.replaceChildren();
      return Promise.resolve();
    }
    status.textContent = "Loading…";
    const files = slugs.map(function (s) { return window.kb.fetchJSON("data/compare/" + hw + "/" + s + ".json"); });
    return Promise.all(files).then(function (runs) {
      target.replaceChildren(legend(index, slugs), window.kb.tables.renderTable(table(index, hw, runs)));
      status.textContent = "";
    }).catch(function (error) {
      status.textContent = "Could not load the data: " + error.message;
    });
  }

  window.kb.onPage(function (doc) {
    const root = doc.querySelector("[data-kb-compare]");
    if (!root) return;
    window.kb.fetchJSON("data/compare/index.json").then(function (index) {
      const again = function () {
        const hw = root.querySelector(".kb-compare-hardware").value;
        const slugs = Array.from(root.querySelector(".kb-compare-pick").selectedOptions).map(function (o) { return o.value; });
        share(hw, slugs);
        render(root, index);
      };
      root.querySelector(".kb-compare-hardware").addEventListener("change", again);
      root.querySelector(".kb-compare-pick").addEventListener("change", again);
      return render(root, index);
    }).catch(function (error) {
      root.querySelector(".kb-loading").textContent = "Could not load the data: " + error.message;
    });
  });
})();
