// The fallback renderer: any game's view as readable data, for a game that has no games/<id>/viewer.js yet.
import { compact, h, seatNumber } from "./kit.js";

export const css = "";

export function render(view, ctx) {
  return h(
    "div",
    { class: "pv-generic" },
    h("p", { class: "pv-generic-note" }, `${ctx.title} has no table drawing yet; here is what `,
      ctx.revealed ? "the end of the game" : ctx.seat === null ? "a spectator sees" : `seat ${seatNumber(ctx.seat)} knows`,
      ", as data."),
    value(view, ctx, 0),
  );
}

function humanise(key) {
  return String(key).replace(/_/g, " ");
}

function isPrimitive(v) {
  return v === null || typeof v !== "object";
}

function value(v, ctx, depth) {
  if (v === null || v === undefined) return h("span", { class: "pv-g-null" }, "—");
  if (typeof v === "boolean") return h("span", { class: v ? "pv-g-yes" : "pv-g-no" }, v ? "yes" : "no");
  if (typeof v === "number") return h("span", { class: "pv-g-num" }, String(v));
  if (typeof v === "string") return h("span", { class: "pv-g-str" }, v);
  if (depth > 4) return h("code", null, compact(v));
  if (Array.isArray(v)) {
    if (v.length === 0) return h("span", { class: "pv-g-null" }, "none");
    if (v.every(isPrimitive)) {
      return h("span", { class: "pv-g-list" }, v.map((item) => h("span", { class: "pv-g-item" }, value(item, ctx, depth + 1))));
    }
    if (v.every((item) => !isPrimitive(item) && !Array.isArray(item) && Object.values(item).every(isPrimitive))) {
      return h("span", { class: "pv-g-list" }, v.map((item) => h("code", { class: "pv-g-item" }, compact(item))));
    }
    return h("ol", { class: "pv-g-array", start: 0 }, v.map((item) => h("li", null, value(item, ctx, depth + 1))));
  }
  const entries = Object.entries(v);
  if (entries.length === 0) return h("span", { class: "pv-g-null" }, "none");
  return h(
    "dl",
    { class: ["pv-g-obj", depth === 0 && "pv-g-top"] },
    entries.map(([key, item]) => [h("dt", null, humanise(key)), h("dd", null, value(item, ctx, depth + 1))]),
  );
}
