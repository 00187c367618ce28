// Small DOM helpers shared by the viewer and handed to every game's renderer as `ctx.h`, `ctx.esc`, ... so that a
// renderer (games/<id>/viewer.js) needs no imports and no build step.

/** Escape text for HTML. */
export function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Create an element: h("div", {class: "x", title: "y", onclick: fn, dataset: {a: 1}}, child, [children], "text").
 * Children may be nodes, strings (as text), numbers, arrays, or null/false (skipped).
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "html") el.innerHTML = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** "1st", "2nd", "3rd", "4th" ... */
export function ordinal(n) {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th"}`;
}

/** A seat as people count it: the protocol's seat 0 is "Seat 1". */
export function seatNumber(seat) {
  return seat + 1;
}

/** A coloured chip naming a seat: its number as people count (from 1) and its bot's label. */
export function seatChip(seat, label, extra) {
  return h("span", { class: ["pv-chip", `pv-s${seat % 6}`, extra], title: `Seat ${seatNumber(seat)}: ${label}` }, h("b", null, String(seatNumber(seat))), label);
}

/** A compact one-line JSON text for an action. */
export function compact(value) {
  return JSON.stringify(value)
    .replace(/"([a-z_][a-z0-9_]*)":/gi, "$1: ")
    .replace(/,/g, ", ");
}

/** Add a renderer's stylesheet (its exported `css`) to the document once. A constructed sheet, not a <style>
 *  element, so that a strict Content-Security-Policy (style-src 'self') still allows it. */
const adopted = new Set();
export function adoptCss(id, text) {
  if (!text || adopted.has(id)) return;
  adopted.add(id);
  if ("adoptedStyleSheets" in document && typeof CSSStyleSheet.prototype.replaceSync === "function") {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } else {
    document.head.appendChild(h("style", { "data-pv-css": id }, text));
  }
}

/** A game's renderer's plain-English rewording of the engine's lines (its optional `narrate`, docs/viewer.md), or the
 *  lines themselves (the same array) when it has none, has nothing to reword, or fails (logged, naming `where`). */
export function narrateWith(renderer, lines, { move, step, seats, name }, where) {
  if (typeof renderer.narrate !== "function" || !lines.length) return lines;
  try {
    const said = renderer.narrate(lines, { move, step, seats, name });
    return Array.isArray(said) ? said : lines;
  } catch (error) {
    console.error(`Parlour ${where}: the narration failed`, error);
    return lines;
  }
}
