// Every page's small behaviours (templates/base.html), none needed for the page to work:
// - the phone's menu button: on a narrow screen the two navigations fold behind it (site.css, ".has-menu"); without
//   this script they stay open, as on a laptop. Escape closes the menu and gives the focus back to the button;
// - a box that scrolls sideways (a wide table on a phone) shows it, with a shadow at the edge (".scrolls-x"), and
//   can be scrolled from the keyboard: it takes the focus (tabindex 0) and is named for screen readers, but only
//   while it does scroll and has nothing focusable inside.
"use strict";
(function () {
  const header = document.querySelector("header.topbar");
  const button = header && header.querySelector(".menu-button");
  if (button) {
    const setOpen = (open) => {
      button.setAttribute("aria-expanded", String(open));
      header.classList.toggle("menu-open", open);
    };
    button.hidden = false;
    header.classList.add("has-menu");
    button.addEventListener("click", () => setOpen(button.getAttribute("aria-expanded") !== "true"));
    header.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || button.getAttribute("aria-expanded") !== "true") return;
      setOpen(false);
      button.focus();
    });
  }

  const SCROLLERS = ".table-scroll, .card, pre";
  const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";
  // A region's name: its table's caption, else its section's heading; numbered when the page has it already.
  function nameOf(box) {
    const caption = box.querySelector("caption");
    const heading = caption || box.closest("section, article, main")?.querySelector("h1, h2, h3");
    const name = `${heading ? heading.textContent.trim() : "Table"} (scrolls sideways)`;
    const taken = new Set([...document.querySelectorAll("[aria-label]")].map((el) => el.getAttribute("aria-label")));
    let numbered = name;
    for (let n = 2; taken.has(numbered); n++) numbered = `${name.slice(0, -1)}, ${n})`;
    return numbered;
  }
  function markScrollers() {
    for (const box of document.querySelectorAll(SCROLLERS)) {
      const sideways = box.scrollWidth > box.clientWidth + 1;
      const scrolls = sideways || box.scrollHeight > box.clientHeight + 1;
      if (!box.matches("pre")) box.classList.toggle("scrolls-x", sideways); // its shadows (site.css)
      const needsFocus = scrolls && !box.querySelector(FOCUSABLE);
      if (needsFocus && !box.hasAttribute("tabindex")) {
        // Only what is added here is taken away again (a box the page's own markup labelled keeps its label).
        const added = ["tabindex", "role", "aria-label"].filter((name) => !box.hasAttribute(name));
        box.dataset.scrollFocus = added.join(" ");
        box.tabIndex = 0;
        if (added.includes("role")) box.setAttribute("role", "region");
        if (added.includes("aria-label")) box.setAttribute("aria-label", nameOf(box));
      } else if (!needsFocus && "scrollFocus" in box.dataset) {
        for (const name of box.dataset.scrollFocus.split(" ")) box.removeAttribute(name);
        delete box.dataset.scrollFocus;
      }
    }
  }
  let pending = 0;
  const later = () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(markScrollers);
  };
  document.addEventListener("DOMContentLoaded", markScrollers);
  window.addEventListener("load", later);
  window.addEventListener("resize", later);
  document.addEventListener("htmx:afterSettle", later); // a live part of the page was fetched again
})();
