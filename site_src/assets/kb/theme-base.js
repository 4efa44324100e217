/* mkdocs-material keeps these helpers in an inline <script> in <head>; the site's Content-Security-Policy
   allows scripts from the site's own files only, so they are defined here with the same names and meaning.
   The scope (the site root, relative to the page) comes from the tag's data-kb-scope attribute. */
(function () {
  "use strict";
  const scope = new URL(document.currentScript.dataset.kbScope || ".", location);
  window.__md_scope = scope;
  window.__md_hash = function (text) {
    return Array.from(text).reduce(function (hash, char) {
      return (hash << 5) - hash + char.charCodeAt(0);
    }, 0);
  };
  window.__md_get = function (key, storage, where) {
    const store = storage === undefined ? localStorage : storage;
    const base = where === undefined ? window.__md_scope : where;
    return JSON.parse(store.getItem(base.pathname + "." + key));
  };
  window.__md_set = function (key, value, storage, where) {
    const store = storage === undefined ? localStorage : storage;
    const base = where === undefined ? window.__md_scope : where;
    try {
      store.setItem(base.pathname + "." + key, JSON.stringify(value));
    } catch (error) {
      /* storage full or disabled: the preference is simply not kept */
    }
  };
})();
