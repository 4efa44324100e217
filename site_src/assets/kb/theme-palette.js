/* mkdocs-material's inline palette restore, as a file (see theme-base.js): the reader's light/dark choice,
   kept in local storage, is applied before the page is painted. */
(function () {
  "use strict";
  const palette = window.__md_get("__palette");
  if (!palette || !palette.color) return;
  if (palette.color.media === "(prefers-color-scheme)") {
    const light = matchMedia("(prefers-color-scheme: light)").matches;
    const input = document.querySelector(light
      ? "[data-md-color-media='(prefers-color-scheme: light)']"
      : "[data-md-color-media='(prefers-color-scheme: dark)']");
    for (const key of ["media", "scheme", "primary", "accent"]) {
      palette.color[key] = input.getAttribute("data-md-color-" + key);
    }
  }
  for (const [key, value] of Object.entries(palette.color)) {
    document.body.setAttribute("data-md-color-" + key, value);
  }
})();
