/* mkdocs-material's inline script after the content, as a file (see theme-base.js): a link to a content
   tab's anchor selects that tab. */
(function () {
  "use strict";
  const target = document.getElementById(location.hash.slice(1));
  if (target && target.name) target.checked = target.name.startsWith("__tabbed_");
})();
