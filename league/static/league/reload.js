// Reloads the page every data-reload-seconds (a challenge still playing); a static file, as the
// Content-Security-Policy allows no inline script.
"use strict";
(function () {
  const seconds = Number(document.currentScript.dataset.reloadSeconds) || 5;
  setTimeout(function () { location.reload(); }, seconds * 1000);
})();
