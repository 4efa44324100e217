/* Kernel sources on submission pages: a submission can hold hundreds of kernels, so the page does not
   carry them; the generator bundles them per (submission, level) as {path: source} JSON, fetched when
   a <details> block is first opened, and highlighted here with Pygments' class names so they look like
   every other code block of the theme. */
(function () {
  "use strict";
  const KEYWORDS = new Set(("and as assert async await break class continue def del elif else except " +
    "finally for from global if import in is lambda nonlocal not or pass raise return try while with yield " +
    "match case").split(" "));
  const CONSTANTS = new Set(["True", "False", "None"]);
  const BUILTINS = new Set(("abs all any bool dict enumerate float getattr hasattr int isinstance len list " +
    "max min print range repr set sorted str sum super tuple type zip").split(" "));
  const TOKEN = new RegExp([
    "(#[^\\n]*)",                                                    // 1 comment
    "((?:[rRbBuUfF]{1,2})?(?:\"\"\"[\\s\\S]*?(?:\"\"\"|$)|'''[\\s\\S]*?(?:'''|$)" +
      "|\"(?:\\\\.|[^\"\\\\\\n])*\"?|'(?:\\\\.|[^'\\\\\\n])*'?))",   // 2 string
    "(@[A-Za-z_][\\w.]*)",                                           // 3 decorator
    "(\\b(?:0[xXoObB][\\da-fA-F_]+|\\d[\\d_]*\\.?\\d*(?:[eE][+-]?\\d+)?j?)\\b)", // 4 number
    "([A-Za-z_]\\w*)",                                               // 5 name
  ].join("|"), "g");

  function escapeHtml(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function span(css, text) {
    return '<span class="' + css + '">' + escapeHtml(text) + "</span>";
  }

  function highlight(source) {
    let html = "";
    let last = 0;
    let previous = "";
    TOKEN.lastIndex = 0;
    let match;
    while ((match = TOKEN.exec(source)) !== null) {
      html += escapeHtml(source.slice(last, match.index));
      last = TOKEN.lastIndex;
      const text = match[0];
      if (match[1]) html += span("c1", text);
      else if (match[2]) html += span(text.includes('"""') || text.includes("'''") ? "sd" : "s2", text);
      else if (match[3]) html += span("nd", text);
      else if (match[4]) html += span(text.includes(".") ? "mf" : "mi", text);
      else if (previous === "def") html += span("nf", text);
      else if (previous === "class") html += span("nc", text);
      else if (CONSTANTS.has(text)) html += span("kc", text);
      else if (text === "import" || text === "from") html += span("kn", text);
      else if (KEYWORDS.has(text)) html += span("k", text);
      else if (BUILTINS.has(text)) html += span("nb", text);
      else html += escapeHtml(text);
      if (match[5]) previous = text;
      if (text.length === 0) TOKEN.lastIndex++;
    }
    return html + escapeHtml(source.slice(last));
  }

  const bundles = new Map();

  function bundle(url) {
    if (!bundles.has(url)) {
      bundles.set(url, fetch(url).then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + response.statusText);
        return response.json();
      }).catch(function (error) {
        bundles.delete(url);
        throw error;
      }));
    }
    return bundles.get(url);
  }

  function show(details) {
    if (details.dataset.kbLoaded || !details.dataset.kbBundle) return;
    details.dataset.kbLoaded = "1";
    const placeholder = details.querySelector("p");
    bundle(new URL(details.dataset.kbBundle, document.baseURI).href).then(function (sources) {
      const source = sources[details.dataset.kbPath];
      if (typeof source !== "string") throw new Error("not in the bundle");
      const block = document.createElement("div");
      block.className = "highlight kb-code";
      block.innerHTML = "<pre><code>" + highlight(source) + "</code></pre>";
      if (placeholder) placeholder.remove();
      details.appendChild(block);
    }).catch(function (error) {
      details.dataset.kbLoaded = "";
      if (placeholder) placeholder.textContent = "Could not load the source: " + error.message;
    });
  }

  function openFromHash() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (target && target.matches("details.kb-source")) {
      target.open = true;
      show(target);
    }
  }

  window.kb.highlight = highlight;
  window.addEventListener("hashchange", openFromHash);
  window.kb.onPage(function (doc) {
    doc.querySelectorAll("details.kb-source[data-kb-bundle]").forEach(function (details) {
      details.addEventListener("toggle", function () {
        if (details.open) show(details);
      });
    });
    openFromHash();
  });
})();
