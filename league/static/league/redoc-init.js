// Starts Redoc on /api/redoc/ from a static file (the Content-Security-Policy allows no inline script).
"use strict";
(function () {
  const container = document.getElementById("redoc-container");
  Redoc.init(container.dataset.schemaUrl, JSON.parse(container.dataset.settings || "{}"), container);
})();
