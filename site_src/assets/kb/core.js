/* KernelBench leaderboard: the shared namespace. Scripts are loaded once; under mkdocs-material's
   instant navigation the page content is swapped without a reload, so every page-level setup is
   registered with kb.onPage() and re-run on each emission of material's document$. */
(function () {
  "use strict";
  // This file lives at <root>/assets/kb/core.js, whatever page loaded it.
  const root = new URL("../../", document.currentScript.src);
  const inits = [];
  const cache = new Map();

  function runAll() {
    for (const init of inits) {
      try {
        init(document);
      } catch (error) {
        console.error("kb page setup failed:", error);
      }
    }
  }

  window.kb = {
    root: root,
    url: function (path) {
      return new URL(path, root).href;
    },
    onPage: function (init) {
      inits.push(init);
    },
    fetchJSON: function (path) {
      const url = this.url(path);
      if (!cache.has(url)) {
        cache.set(url, fetch(url).then(function (response) {
          if (!response.ok) {
            cache.delete(url);
            throw new Error(response.status + " " + response.statusText + " for " + path);
          }
          return response.json();
        }));
      }
      return cache.get(url);
    },
    stored: function (key, fallback) {
      try {
        return window.localStorage.getItem("kb." + key) || fallback;
      } catch (error) {
        return fallback;
      }
    },
    store: function (key, value) {
      try {
        window.localStorage.setItem("kb." + key, value);
      } catch (error) {
        /* private mode: the choice just is not remembered */
      }
    },
  };

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(runAll);
  } else {
    document.addEventListener("DOMContentLoaded", runAll);
  }
})();
