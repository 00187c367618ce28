// Controls for the blanks of templated legal actions (the table page, docs/tables.md "Actions with blanks"): the
// server describes each blank (games/blanks.py: one of a list, some of a list, a bounded number, free text) and this
// draws it as a labelled select, chips, a number input or a text input, with a "Play" button that fills the template.
// The server still checks the filled action; its refusal comes back as the page's message.
import { compact, h } from "./viewer/kit.js";

const TEXT_MAX = 200;  // a free-text blank is bounded like every client input

function choicesOf(blank, lists, values) {
  const list = lists[blank.choices];
  let raw;
  if (!blank.per) raw = Array.isArray(list) ? list : [];
  else {
    const key = values.get(JSON.stringify(blank.per));
    raw = key === undefined || !list ? [] : list[String(key)] || [];
  }
  // A bare value is labelled by the blank's label table, or by itself (games/blanks.py).
  const labels = blank.labels ? lists[blank.labels] || {} : {};
  return raw.map((c) => (c !== null && typeof c === "object" && "value" in c ? c : { value: c, label: labels[String(c)] ?? String(c) }));
}

function setAt(target, path, value) {
  let node = target;
  for (const step of path.slice(0, -1)) node = node[step];
  node[path[path.length - 1]] = value;
}

// The template in words, its blanks as "…" (the legend of its form).
export function sketch(action) {
  const show = (value) => (value === null ? "…" : typeof value === "object" ? compact(value).replace(/null/g, "…") : String(value));
  return Object.entries(action).map(([key, value]) => `${key.replace(/_/g, " ")} ${show(value)}`).join(" · ");
}

// One form for one template. onPlay(action, button) sends it; say(text) shows a message.
export function fillForm(template, blanks, lists, index, onPlay, say) {
  const values = new Map();  // JSON path -> the value chosen so far (one/number/text), or an array (some)
  const form = h("form", { class: "tb-fill", dataset: { fill: String(index) } });
  const legend = h("p", { class: "tb-fill-what" }, sketch(template));
  const fields = h("div", { class: "tb-fill-fields" });
  const play = h("button", { type: "submit", class: "button tb-play" }, "Play");
  form.append(legend, fields, play);

  function field(blank) {
    const key = JSON.stringify(blank.path);
    const id = `tb-fill-${index}-${blank.path.join("-")}`;
    if (blank.kind === "one") {
      const choices = choicesOf(blank, lists, values);
      const select = h("select", { id, class: "tb-select", dataset: { blank: key } },
        h("option", { value: "" }, "choose…"), choices.map((c, i) => h("option", { value: String(i) }, c.label)));
      select.addEventListener("change", () => {
        if (select.value === "") values.delete(key); else values.set(key, choices[Number(select.value)].value);
        redraw();
      });
      if (values.has(key)) select.value = String(choices.findIndex((c) => c.value === values.get(key)));
      return h("div", { class: "tb-field" }, h("label", { for: id }, blank.label), select);
    }
    if (blank.kind === "some") {
      const choices = choicesOf(blank, lists, values);
      const picked = values.get(key) || [];
      const max = Math.min(blank.max ?? choices.length, choices.length);
      const chips = choices.map((c) => {
        const full = !picked.includes(c.value) && picked.length >= max;  // stays off when a refused action re-enables
        const box = h("input", { type: "checkbox", checked: picked.includes(c.value), disabled: full, dataset: { full: full ? "1" : null } });
        box.addEventListener("change", () => {
          const now = (values.get(key) || []).filter((v) => v !== c.value);
          if (box.checked) now.push(c.value);
          values.set(key, now);
          redraw();
        });
        return h("label", { class: "tb-chip" }, box, c.label);
      });
      const count = `${picked.length} chosen, ${blank.min === max ? max : `${blank.min ?? 0} to ${max}`}`;
      return h("fieldset", { class: "tb-field tb-chips", dataset: { blank: key } }, h("legend", null, `${blank.label} · ${count}`),
        chips.length ? chips : h("span", { class: "muted" }, "choose the blank above first"));
    }
    const number = blank.kind === "number";
    const input = h("input", number
      ? { id, type: "number", min: blank.min, max: blank.max, step: 1, class: "tb-number", dataset: { blank: key } }
      : { id, type: "text", maxlength: TEXT_MAX, class: "tb-text", dataset: { blank: key } });
    if (values.has(key)) input.value = String(values.get(key));
    input.addEventListener("input", () => {
      if (input.value === "") values.delete(key); else values.set(key, number ? Number(input.value) : input.value);
    });
    return h("div", { class: "tb-field" }, h("label", { for: id }, blank.label), input);
  }

  function redraw() {
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.blank : null;
    // A blank that depends on another one (its "per") loses what no longer fits the other's new value.
    for (const blank of blanks) {
      if (blank.kind === "some" && blank.per) {
        const allowed = new Set(choicesOf(blank, lists, values).map((c) => JSON.stringify(c.value)));
        const key = JSON.stringify(blank.path);
        values.set(key, (values.get(key) || []).filter((v) => allowed.has(JSON.stringify(v))));
      }
    }
    fields.replaceChildren(...blanks.map(field));
    if (focused) { const again = fields.querySelector(`[data-blank='${focused}']`); if (again && again.focus) again.focus(); }
  }
  redraw();

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const action = structuredClone(template);
    for (const blank of blanks) {
      const value = values.get(JSON.stringify(blank.path));
      if (blank.kind === "some") {
        const picked = value || [];
        if (picked.length < (blank.min ?? 0)) { say(`Choose ${blank.label}: ${picked.length} chosen, at least ${blank.min}.`); return; }
        setAt(action, blank.path, picked);
      } else if (value === undefined || (blank.kind === "number" && !Number.isInteger(value))) {
        say(`Fill in ${blank.label} first.`);
        return;
      } else setAt(action, blank.path, value);
    }
    onPlay(action, play);
  });
  return form;
}
