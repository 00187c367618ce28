// The admin's tournament form: list only the bots of the game chosen above (the form still checks on save).
// A static file, not inline script: the site's Content-Security-Policy allows scripts from 'self' only.
(function () {
  "use strict";
  function filterEntrants() {
    var select = document.getElementById("id_game");
    var boxes = document.querySelectorAll("input[data-game]");
    // Once the draft exists its game is read-only and the server lists only that game's bots.
    if (!select || !boxes.length) return;
    var shown = 0;
    boxes.forEach(function (box) {
      var row = box.closest("div") || box.parentElement;
      var match = select.value !== "" && box.dataset.game === select.value;
      if (!match) box.checked = false; // a hidden choice must not be sent
      row.hidden = !match;
      if (match) shown += 1;
    });
    var hint = document.getElementById("entrants-hint");
    if (hint) {
      hint.textContent = select.value === "" ? "Choose a game to see its bots." :
        shown === 0 ? "No bot of this game has a ready version yet." : "";
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("id_game");
    if (!select) return;
    var boxes = document.querySelector("input[data-game]");
    if (boxes) {
      var hint = document.createElement("p");
      hint.id = "entrants-hint";
      hint.className = "help";
      var list = boxes.closest("div[id]") || boxes.parentElement;
      list.insertBefore(hint, list.firstChild);
    }
    select.addEventListener("change", filterEntrants);
    filterEntrants();
  });
})();
