/* Pages with hardware, baseline, track and correctness-rule selectors (leaderboard, curves, heatmap): the
   generator writes one data file per combo and view, data/<combo id>/<view>.json (ids: see `parse`), and
   the page fetches only the one selected, so each page stays small however many results exist. */
(function () {
  "use strict";
  let generation = 0;

  function setStatus(controls, text) {
    const status = controls.querySelector(".kb-loading");
    if (status) status.textContent = text;
  }

  // A combo id is hardware--baseline, with --track after it for a KernelBench version other than the
  // headline's and ~rule after that for a correctness rule other than upstream's (the headline); the track
  // select (shown only when a second track has runs) uses "" for the headline.
  function parse(combo) {
    const [view, rule] = combo.split("~");
    const [hardware, baseline, track] = view.split("--");
    return { hardware: hardware, baseline: baseline, track: track || "", rule: rule || "upstream" };
  }

  function idOf(hardware, baseline, track, rule) {
    return hardware + "--" + baseline + (track ? "--" + track : "") + (rule && rule !== "upstream" ? "~" + rule : "");
  }

  function value(controls, name) {
    const select = controls.querySelector(".kb-" + name);
    return select ? select.value : "";
  }

  function chosenCombo(controls, combos) {
    const hardware = value(controls, "hardware");
    const track = value(controls, "track");
    const rule = value(controls, "rule");
    const wanted = idOf(hardware, value(controls, "baseline"), track, rule);
    if (combos.includes(wanted)) return wanted;
    const parsed = combos.map(parse);
    const same = parsed.find(function (c) { return c.hardware === hardware && c.track === track && c.rule === rule; }) ||
      parsed.find(function (c) { return c.hardware === hardware && c.rule === rule; }) ||
      parsed.find(function (c) { return c.hardware === hardware; });
    return same ? idOf(same.hardware, same.baseline, same.track, same.rule) : controls.dataset.kbDefault;
  }

  function showCombo(controls, combos, combo) {
    const chosen = parse(combo);
    const parsed = combos.map(parse);
    controls.querySelector(".kb-hardware").value = chosen.hardware;
    const tracks = controls.querySelector(".kb-track");
    if (tracks) {
      for (const option of tracks.options) {
        option.disabled = !parsed.some(function (c) { return c.hardware === chosen.hardware && c.track === option.value; });
      }
      tracks.value = chosen.track;
    }
    const select = controls.querySelector(".kb-baseline");
    for (const option of select.options) {
      option.disabled = !combos.includes(idOf(chosen.hardware, option.value, chosen.track, chosen.rule));
    }
    select.value = chosen.baseline;
    const rules = controls.querySelector(".kb-rule");
    if (rules) rules.value = chosen.rule;
  }

  function fill(target, level, combo) {
    const parts = (target.dataset.kbParts || "").split(" ");
    if (parts.includes("html")) {
      // Built and escaped by the site generator: the same HTML the page carries for its default combo.
      target.innerHTML = level ? level.html : "No results for this level.";
      target.dataset.kbCombo = combo;
      target.querySelectorAll("table.kb-sortable").forEach(window.kb.tables.makeSortable);
      return [];
    }
    // A static chart the page carries (curves: the top few as SVG) stays until the Plotly chart is drawn.
    const placeholder = parts.includes("chart") && level && level.figure ? target.querySelector(".kb-static-chart") : null;
    Array.from(target.children).forEach(function (child) { if (child !== placeholder) child.remove(); });
    const drawn = [];
    if (!level) {
      target.textContent = "No results for this level.";
      return drawn;
    }
    if (parts.includes("chart") && level.figure) {
      const chart = document.createElement("div");
      chart.className = "kb-chart";
      target.appendChild(chart);
      drawn.push(window.kb.charts.draw(chart, level.figure).then(function () {
        if (placeholder) placeholder.remove();
      }));
    }
    if (parts.includes("table") && level.table) target.appendChild(window.kb.tables.renderTable(level.table));
    return drawn;
  }

  // The choice lives in the URL as readable filters (?hw=…&baseline=…&track=…&rule=strict), each left out at its
  // default.
  function keepInURL(combo, fallback) {
    const chosen = parse(combo);
    const base = parse(fallback);
    window.kb.filters.setParam("combo", ""); // the older single parameter
    window.kb.filters.setParam("hw", chosen.hardware === base.hardware ? "" : chosen.hardware);
    window.kb.filters.setParam("baseline", chosen.baseline === base.baseline ? "" : chosen.baseline);
    window.kb.filters.setParam("track", chosen.track);
    window.kb.filters.setParam("rule", chosen.rule === "upstream" ? "" : chosen.rule);
  }

  function sharedCombo(combos, fallback) {
    const query = new URLSearchParams(window.location.search);
    if (combos.includes(query.get("combo"))) return query.get("combo");
    if (!["hw", "baseline", "track", "rule"].some(function (name) { return query.has(name); })) return null;
    const base = parse(fallback);
    const wanted = idOf(query.get("hw") || base.hardware, query.get("baseline") || base.baseline, query.get("track") || "",
      query.get("rule") || "upstream");
    return combos.includes(wanted) ? wanted : null;
  }

  function load(doc, controls, combos) {
    const combo = chosenCombo(controls, combos);
    showCombo(controls, combos, combo);
    window.kb.store("combo", combo);
    if (window.kb.filters) keepInURL(combo, controls.dataset.kbDefault);
    const mine = ++generation;
    setStatus(controls, "Loading…");
    const view = controls.dataset.kbView;
    const targets = Array.from(doc.querySelectorAll(".kb-target[data-kb-level]"));
    if (targets.length && targets.every(function (t) { return t.dataset.kbCombo === combo; })) {
      setStatus(controls, ""); // the page already shows this combo as static HTML
      if (window.kb.filters) window.kb.filters.apply(doc);
      return Promise.resolve();
    }
    return window.kb.fetchJSON("data/" + combo + "/" + view + ".json").then(function (payload) {
      if (mine !== generation) return;
      const drawn = [];
      const leaders = doc.querySelector(".kb-leaders-box");
      if (leaders && payload.leaders) leaders.innerHTML = payload.leaders;
      targets.forEach(function (target) {
        drawn.push(...fill(target, payload.levels[target.dataset.kbLevel], combo));
      });
      if (window.kb.filters) window.kb.filters.apply(doc);
      return Promise.all(drawn).then(function () {
        if (mine === generation) setStatus(controls, "");
        if (window.kb.pin) window.kb.pin.apply(doc);
      });
    }).catch(function (error) {
      console.error(error);
      setStatus(controls, "Could not load the data: " + error.message);
    });
  }

  window.kb.onPage(function (doc) {
    const controls = doc.querySelector(".kb-controls[data-kb-view]");
    if (!controls) return;
    const combos = controls.dataset.kbCombos.split(" ").filter(Boolean);
    if (!combos.length) return;
    const stored = sharedCombo(combos, controls.dataset.kbDefault) || window.kb.stored("combo", "");
    showCombo(controls, combos, combos.includes(stored) ? stored : controls.dataset.kbDefault);
    controls.querySelectorAll("select").forEach(function (select) {
      select.addEventListener("change", function () {
        load(doc, controls, combos);
      });
    });
    load(doc, controls, combos);
  });
})();
