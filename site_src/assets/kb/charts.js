/* Plotly charts: plotly.js is loaded from this site on first use (no CDN), figures take their
   colours from mkdocs-material's palette, and are re-themed when the reader toggles light/dark. */
(function () {
  "use strict";
  const live = new Set();
  let loading = null;

  function loadPlotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        const script = document.createElement("script");
        script.src = window.kb.url("assets/kb/plotly.min.js");
        script.onload = function () {
          resolve(window.Plotly);
        };
        script.onerror = function () {
          loading = null;
          reject(new Error("could not load plotly.js"));
        };
        document.head.appendChild(script);
      });
    }
    return loading;
  }

  function palette() {
    const style = getComputedStyle(document.body);
    const read = function (name, fallback) {
      return style.getPropertyValue(name).trim() || fallback;
    };
    return {
      scheme: document.body.getAttribute("data-md-color-scheme") || "default",
      fg: read("--md-default-fg-color", "#000000de"),
      light: read("--md-default-fg-color--lighter", "#00000052"),
      lightest: read("--md-default-fg-color--lightest", "#00000012"),
      bg: read("--md-default-bg-color", "#ffffff"),
    };
  }

  function themeLayout() {
    const p = palette();
    return {
      paper_bgcolor: "rgba(0,0,0,0)",
      plot_bgcolor: "rgba(0,0,0,0)",
      "font.color": p.fg,
      "xaxis.gridcolor": p.lightest,
      "yaxis.gridcolor": p.lightest,
      "xaxis.zerolinecolor": p.light,
      "yaxis.zerolinecolor": p.light,
      "xaxis.linecolor": p.light,
      "yaxis.linecolor": p.light,
      "legend.bgcolor": "rgba(0,0,0,0)",
      "hoverlabel.bgcolor": p.bg,
      "hoverlabel.font.color": p.fg,
      "meta.scheme": p.scheme,
    };
  }

  function applyTheme(layout) {
    const themed = JSON.parse(JSON.stringify(layout || {}));
    const values = themeLayout();
    for (const path of Object.keys(values)) {
      const parts = path.split(".");
      let node = themed;
      for (const part of parts.slice(0, -1)) node = node[part] = node[part] || {};
      node[parts[parts.length - 1]] = values[path];
    }
    for (const shape of themed.shapes || []) shape.line = Object.assign({}, shape.line, { color: values["font.color"] });
    return themed;
  }

  function prune() {
    for (const element of live) {
      if (!element.isConnected) {
        if (window.Plotly) window.Plotly.purge(element);
        live.delete(element);
      }
    }
  }

  function phone() {
    return window.innerWidth < 600;
  }

  // Shortened, keeping a reference's label
  function shorten(text, length) {
    if (text.length <= length) return text;
    const tail = text.endsWith(" (reference)") ? " (reference)" : "";
    return text.slice(0, length - tail.length - 1) + "…" + tail;
  }

  // Phones: legend below the plot (beside it, it left the plot 64 of 358 px), slimmer margins, no toolbar.
  // With many traces a legend below would push the plot off the screen: hover names each trace instead.
  function fitToScreen(layout, data) {
    if (!phone()) return layout;
    const narrow = Object.assign({}, layout, {
      legend: Object.assign({}, layout.legend, { orientation: "h", x: 0, y: -0.25, yanchor: "top" }),
      margin: Object.assign({}, layout.margin, { l: 44, r: 8, t: 36 }),
      title: Object.assign({}, layout.title, { font: { size: 13 } }),
    });
    narrow.legend.title = { text: "" };
    if (data.length > 12) narrow.showlegend = false;
    return isHeatmap(data) ? fitHeatmap(narrow, layout, data[0]) : narrow;
  }

  function isHeatmap(data) {
    return data.length > 0 && data[0].type === "heatmap";
  }

  // A heatmap on a phone keeps the width for its cells: rows labelled by problem id (the hover names the
  // problem), column names upright and shortened (slanted, the first one pushed the plot 200 px right), the
  // colour bar across the top.
  function fitHeatmap(narrow, layout, trace) {
    const ids = trace.y.map(function (name) { return name.split("_")[0]; });
    narrow.margin = Object.assign({}, narrow.margin, { l: 30, t: 100 });
    narrow.height = layout.height + 160; // the colour bar on top and upright names below take what the rows had
    narrow.yaxis = Object.assign({}, narrow.yaxis, { tickmode: "array", tickvals: trace.y, ticktext: ids });
    narrow.xaxis = Object.assign({}, narrow.xaxis, {
      tickangle: 90, tickmode: "array", tickvals: trace.x,
      ticktext: trace.x.map(function (name) { return shorten(name, 28); }),
    });
    return narrow;
  }

  function fitTraces(data) {
    if (!phone() || !isHeatmap(data)) return data;
    const bar = Object.assign({}, data[0].colorbar, {
      orientation: "h", x: 0, xanchor: "left", y: 1.01, yanchor: "bottom", len: 1, thickness: 8, title: { text: "" },
    });
    return [Object.assign({}, data[0], { colorbar: bar })].concat(data.slice(1));
  }

  // One chart at a time, the browser painting between them: the first chart shows without waiting for the rest.
  let queue = Promise.resolve();

  function nextTask() {
    return new Promise(function (resolve) { setTimeout(resolve, 0); });
  }

  function draw(element, figure) {
    const drawn = queue.then(loadPlotly).then(function (Plotly) {
      prune();
      live.add(element);
      const config = { responsive: true, displaylogo: false, displayModeBar: phone() ? false : "hover" };
      return Plotly.react(element, fitTraces(figure.data), applyTheme(fitToScreen(figure.layout, figure.data)), config);
    });
    queue = drawn.then(nextTask, nextTask);
    return drawn;
  }

  function retheme() {
    if (!window.Plotly) return;
    prune();
    const values = themeLayout();
    for (const element of live) {
      const shapes = (element.layout.shapes || []).map(function (shape) {
        return Object.assign({}, shape, { line: Object.assign({}, shape.line, { color: values["font.color"] }) });
      });
      window.Plotly.relayout(element, Object.assign({}, values, { shapes: shapes }));
    }
  }

  // Material switches palettes by setting data-md-color-scheme on <body>.
  new MutationObserver(retheme).observe(document.body, {
    attributes: true,
    attributeFilter: ["data-md-color-scheme", "data-md-color-primary"],
  });

  // A page with charts starts fetching plotly.js at once, beside its data file, rather than after it.
  function preload(doc) {
    if (doc.querySelector(".kb-target[data-kb-parts~='chart']")) loadPlotly().catch(function () {});
  }

  window.kb.charts = { draw: draw, retheme: retheme, live: live, loadPlotly: loadPlotly };
  preload(document);
  window.kb.onPage(function (doc) {
    prune();
    preload(doc);
  });
})();
