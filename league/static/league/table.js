// A person's table (templates/league/table.html): the game's own replay renderer draws the seat's observation (or,
// for a spectator, the public view) in an interactive mode; moves arrive by server-sent events
// (/tables/<id>/events/), actions go to the API (/api/tables/<id>/act/).
// The person acts through the game's own controls when its renderer exports them (docs/viewer.md, "Controls"):
//   controls(observation, ctx) -> Element | null, where ctx is the render context plus
//   legal (the legal actions, some with null blanks), blanks (their description, games/blanks.py),
//   act(action, label) (send it; label is the sentence shown while it is sent), you (the person's seat).
// The protocol's own actions stay below, folded away (the only controls when a game exports none).
// window.parlourTable.latencies: click -> the bots' reply drawn, in ms (the browser tests and benchmarks read it).
import { adoptCss, compact, esc, h, narrateWith, ordinal, seatChip } from "./viewer/kit.js";
import * as generic from "./viewer/generic.js";
import { fillForm } from "./fill.js";

const config = JSON.parse(document.getElementById("table-config").textContent);
const root = document.querySelector("[data-parlour-table]");
const felt = root.querySelector("[data-felt]");
const actionsBox = root.querySelector("[data-actions]");
const narrationBox = root.querySelector("[data-narration]");
const messageBox = root.querySelector("[data-message]");
const turnBox = root.querySelector("[data-turn]");
const clockBox = root.querySelector("[data-clock]");
const resultBox = root.querySelector("[data-result]");
const statusBadge = document.querySelector("[data-table-status]");
const cancelForm = root.querySelector("[data-cancel]");  // the person's, while the table is queued
const resignForm = root.querySelector("[data-resign]");  // the person's, while the game runs
const rematchForm = root.querySelector("[data-rematch]");  // the person's, once the game is over
// The latencies survive the reload that brings the replay at the end (this tab only).
const latencyKey = `parlour-table-${config.id}-latencies`;
const stored = JSON.parse(sessionStorage.getItem(latencyKey) || "[]");
const state = { view: null, sentAt: null, sentMove: null, clockUntil: null, latencies: Array.isArray(stored) ? stored : [] };
window.parlourTable = state;

let renderer = generic;
if (config.renderer) {
  try {
    renderer = await import(config.renderer);
    adoptCss(`game-${config.game}`, renderer.css);
  } catch (error) {
    console.error("Parlour table: the game's renderer did not load", error);
  }
}

function csrfToken() {
  const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

function labels(view) {
  return view.seats.map((seat, i) => (i === view.person_seat && view.role === "person" ? `you (${seat.label})` : seat.label));
}

function context(view) {
  const seats = labels(view);
  const final = view.status === "finished";
  return {
    game: view.game, title: config.title, seat: view.role === "person" ? view.person_seat : null, seats,
    players: view.players, step: view.move_count, last: view.move_count, final, revealed: false, allHands: false,
    move: null, lines: [], toMove: view.to_move, previous: null,
    outcome: final && view.result ? view.result.outcome : null, faults: [],
    h, esc, compact, ordinal, seatChip: (seat, extra) => seatChip(seat, seats[seat], extra), name: (seat) => seats[seat],
  };
}

function drawFelt(view) {
  const shown = view.role === "person" ? view.observation : view.public;
  if (shown === undefined) { felt.replaceChildren(); felt.dataset.step = String(view.move_count); return; }  // a match not started yet
  const ctx = context(view);
  let drawn;
  try {
    drawn = renderer.render(shown, ctx);
  } catch (error) {
    console.error("Parlour table: the renderer failed", error);
    drawn = generic.render(shown, ctx);
  }
  if (typeof drawn === "string") felt.innerHTML = drawn;
  else felt.replaceChildren(drawn);
  felt.dataset.perspective = ctx.seat === null ? "spectator" : String(ctx.seat);
  felt.dataset.step = String(view.move_count);
}

function hasBlank(value) {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(hasBlank);
  if (typeof value === "object") return Object.values(value).some(hasBlank);
  return false;
}

function describe(action) {
  return Object.entries(action).map(([key, value]) => `${key.replace(/_/g, " ")} ${typeof value === "object" ? compact(value) : value}`).join(" · ");
}

async function send(view, action, button) {
  for (const b of actionsBox.querySelectorAll("button, select, input")) b.disabled = true;
  state.sentAt = performance.now();
  state.sentMove = view.move_count;
  if (button) button.classList.add("tb-sent");
  const response = await fetch(config.act, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify({ move: view.move_count, action }),
    credentials: "same-origin",
  });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    messageBox.textContent = (body.error && body.error.message) || `The action was refused (${response.status}).`;
    messageBox.dataset.kind = "error";
    state.sentAt = null;
    for (const b of actionsBox.querySelectorAll("button, select, input:not([data-full])")) b.disabled = false;
  }
}

function gameControls(view) {
  if (typeof renderer.controls !== "function" || view.role !== "person") return null;
  const ctx = {
    ...context(view), legal: view.legal_actions || [], blanks: view.blanks || null, you: view.person_seat,
    act: (action, label) => { if (label) messageBox.textContent = `${label}…`; send(view, action, null); },
  };
  try {
    return renderer.controls(view.observation, ctx) || null;
  } catch (error) {
    console.error("Parlour table: the game's controls failed", error);
    return null;
  }
}

function drawActions(view) {
  const legal = view.legal_actions || [];
  // The same decision pushed again (its clock started): keep the buttons, do not redraw them under the pointer.
  const key = `${view.move_count}:${JSON.stringify(legal)}`;
  if (actionsBox.dataset.key === key) return;
  actionsBox.dataset.key = key;
  actionsBox.replaceChildren();
  if (!legal.length) return;
  const own = gameControls(view);
  if (own) {
    actionsBox.appendChild(h("div", { class: "tb-controls", "data-controls": "" }, own));
    const raw = h("details", { class: "tb-raw", "data-raw-actions": "" }, h("summary", null, "Every legal action, as a bot writes it"));
    actionsBox.appendChild(raw);
    drawProtocolActions(view, legal, raw);
    return;
  }
  drawProtocolActions(view, legal, actionsBox);
}

function drawProtocolActions(view, legal, box) {
  // The server describes each template's blanks (games/blanks.py); an action without blanks is a button.
  const described = view.blanks || { blanks: legal.map((a) => (hasBlank(a) ? null : [])), lists: {} };
  const blanksOf = (i) => described.blanks[i] || [];
  const concrete = legal.filter((a, i) => described.blanks[i] && !blanksOf(i).length);
  const templates = legal.map((a, i) => [a, i]).filter(([, i]) => !described.blanks[i] || blanksOf(i).length);
  box.appendChild(h("p", { class: "tb-prompt" }, templates.length && !concrete.length ? "Your move: fill one in and play it." : "Your move: choose one."));
  const list = h("div", { class: "tb-buttons" });
  concrete.forEach((action, index) => {
    const button = h("button", { type: "button", class: "button tb-action", title: JSON.stringify(action), dataset: { index: String(index), action: JSON.stringify(action) } }, describe(action));
    button.addEventListener("click", () => send(view, action, button));
    list.appendChild(button);
  });
  if (concrete.length) box.appendChild(list);
  if (!templates.length) return;
  const say = (text) => { messageBox.textContent = text; messageBox.dataset.kind = "error"; };
  const forms = h("div", { class: "tb-fills" });
  for (const [template, i] of templates) {
    const blanks = described.blanks[i] || [];
    if (blanks.length) forms.appendChild(fillForm(template, blanks, described.lists || {}, i, (action, button) => send(view, action, button), say));
  }
  box.appendChild(forms);
  // The raw action as JSON, for what the controls cannot say (collapsed).
  const input = h("input", { type: "text", class: "tb-template", maxlength: 4000, value: JSON.stringify(templates[0][0]), "aria-label": "Your action as JSON (fill in the nulls)" });
  const button = h("button", { type: "button", class: "button small" }, "Send");
  button.addEventListener("click", () => {
    let action;
    try { action = JSON.parse(input.value); } catch { say("That is not JSON."); return; }
    send(view, action, button);
  });
  box.appendChild(h("details", { class: "tb-advanced" }, h("summary", null, "Advanced: write the action as JSON"), h("p", { class: "tb-free" }, input, button)));
}

// The engines narrate by seat number ("seat 1 plays Baron on seat 0"): a person reads names, and "you".
function named(line, view) {
  const names = view.seats.map((seat, i) => (i === view.person_seat && view.role === "person" ? "you" : seat.label));
  const said = line.replace(/\b[Ss]eat (\d+)\b/g, (whole, n) => names[Number(n)] ?? whole);
  return said.charAt(0).toUpperCase() + said.slice(1);
}

function narrate(view) {
  const seats = labels(view);
  const lines = narrateWith(renderer, view.narration.slice(-40), { move: null, step: view.move_count, seats, name: (seat) => seats[seat] }, "table");
  return lines.map((line) => named(String(line), view));
}

function drawNarration(view) {
  const lines = narrate(view);
  narrationBox.replaceChildren(...lines.map((line) => h("li", null, line)).reverse());
  narrationBox.start = view.narration.length;
  narrationBox.reversed = true;
}

function drawStatus(view) {
  if (statusBadge) { statusBadge.textContent = view.status; statusBadge.className = `status ${view.status}`; }
  root.dataset.status = view.status;
  if (cancelForm) cancelForm.hidden = view.status !== "queued";
  if (resignForm) resignForm.hidden = view.status !== "running" || view.forfeited || view.role !== "person";
  if (rematchForm) rematchForm.hidden = view.status !== "finished";
  root.dataset.move = String(view.move_count);
  const mine = view.role === "person" && view.to_move === view.person_seat && view.status === "running" && !view.forfeited;
  root.dataset.turn = mine ? "mine" : "theirs";
  if (view.status === "running") {
    turnBox.textContent = view.to_move === null ? "" : mine ? "Your turn." : `Waiting for ${labels(view)[view.to_move]}…`;
  } else turnBox.textContent = "";
  if (view.message) { messageBox.textContent = view.message; messageBox.dataset.kind = view.status; }
  else if (!messageBox.dataset.kind || messageBox.dataset.kind !== "error" || mine) { messageBox.textContent = ""; delete messageBox.dataset.kind; }
  state.clockUntil = view.clock_left === null || view.clock_left === undefined ? null : performance.now() + view.clock_left * 1000;
  tick();
}

function drawResult(view) {
  if (view.status !== "finished" || !view.result) { resultBox.hidden = true; return; }
  const seats = labels(view);
  const rows = view.result.seats.map((seat, i) => h("tr", { class: seat.rank === 1 ? "winner" : null },
    h("td", null, seatChip(i, seats[i])), h("td", { class: "num" }, String(seat.rank)), h("td", { class: "num" }, String(seat.score)),
    h("td", { class: "tb-fault" }, i === view.person_seat && view.resigned ? "resigned" : seat.fault ? `forfeited: ${seat.fault.detail}` : "")));
  const person = view.result.seats[view.person_seat];
  const headline = view.resigned ? `You resigned: ${ordinal(person.rank)} of ${view.players}.`
    : person.rank === 1 ? "You won!" : `You finished ${ordinal(person.rank)} of ${view.players}.`;
  resultBox.replaceChildren(
    h("h2", null, view.role === "person" ? headline : `The person finished ${ordinal(person.rank)} of ${view.players}.`),
    h("div", { class: "tb-result-seats" }, h("table", { class: "seats-table" }, h("thead", null, h("tr", null, h("th", null, "Player"), h("th", { class: "num" }, "Rank"), h("th", { class: "num" }, "Score"), h("th", null, "Note"))), h("tbody", null, rows))),
    document.querySelector("[data-parlour-viewer]")
      ? h("p", null, "The whole game, every hand revealed, is in the replay below.")
      : h("p", null, "The replay, every hand revealed, follows in a moment (or ", h("a", { href: location.pathname }, "reload"), ")."),
  );
  resultBox.hidden = false;
}

function tick() {
  if (state.clockUntil === null || !state.view || state.view.status !== "running") { clockBox.hidden = true; return; }
  const left = Math.max(0, (state.clockUntil - performance.now()) / 1000);
  clockBox.hidden = false;
  clockBox.textContent = `${Math.ceil(left)} s`;
  clockBox.classList.toggle("tb-low", left < 15);
}
setInterval(tick, 250);

function show(view) {
  // A league match watched live (templates/league/match_live.html): once it is over, its own page takes over.
  if (view.match_url && !["queued", "running"].includes(view.status)) { location.assign(view.match_url); return; }
  const previous = state.view;
  state.view = view;
  drawFelt(view);
  drawStatus(view);
  drawActions(view);
  drawNarration(view);
  drawResult(view);
  // Their turn again: the move's first control takes the focus (keyboard users act at once; it scrolls into view on
  // a phone, where the docked move box sits at the bottom of the screen).
  if (root.dataset.turn === "mine" && state.focusedMove !== view.move_count) {
    state.focusedMove = view.move_count;
    const first = actionsBox.querySelector("button:not([disabled]), input:not([disabled]), select:not([disabled]), summary");
    if (first) first.focus({ preventScroll: true });
  }
  // The person sees the bots' reply once it is their turn again (or the game is over) after their own move.
  if (state.sentAt !== null && view.move_count > state.sentMove && (root.dataset.turn === "mine" || view.status !== "running")) {
    state.latencies.push(Math.round(performance.now() - state.sentAt));
    state.sentAt = null;
    sessionStorage.setItem(latencyKey, JSON.stringify(state.latencies));
  }
  root.dataset.ready = "1";
  if (previous && previous.status !== "finished" && view.status === "finished" && !document.querySelector("[data-parlour-viewer]")) {
    setTimeout(() => location.reload(), 1500);  // the replay viewer comes with the finished page
  }
}

if (resignForm) {
  const button = resignForm.querySelector("[data-resign-button]");
  resignForm.addEventListener("submit", (event) => {
    if (resignForm.dataset.confirm === "1") return;  // the second click: resign
    event.preventDefault();
    resignForm.dataset.confirm = "1";
    button.textContent = "Resign: click again to confirm";
    setTimeout(() => { delete resignForm.dataset.confirm; button.textContent = "Resign"; }, 5000);
  });
}

show(config.view);
// Past the server's caps on open streams (429/503, league/site/event_stream.py) EventSource gives up for good: the page keeps
// what it shows and asks again slowly (30 to 60 s) instead of never updating again.
const SLOW_RETRY_MS = 30000;
function follow() {
  const events = new EventSource(config.events);
  events.onmessage = (event) => show(JSON.parse(event.data));
  events.addEventListener("over", () => events.close());
  events.onerror = () => {
    if (events.readyState !== EventSource.CLOSED) return;  // reconnecting by itself
    root.dataset.live = "slow";
    setTimeout(follow, SLOW_RETRY_MS * (1 + Math.random()));
  };
}
if (!["finished", "failed", "cancelled"].includes(config.view.status)) follow();
