// Parlour TV on /live/ (templates/league/live.html; what is featured: league/live/broadcasts.py, docs/live.md).
// One game at a human pace: a league match in play (its live event stream, as on its own live page), or a finished
// game replayed as a broadcast: its public frames fetched once (/live/broadcasts/<id>/frames/), stepped every
// config.move_ms, drawn by the game's own renderer (games/<id>/viewer.js) as a spectator sees it. At the end the
// result stays config.result_ms, then the page asks /live/next/?after=<id> for the next game, and so on.
// window.parlourTv: what is shown, and each game's steps as they were drawn (the browser tests read it).
import { adoptCss, compact, esc, h, narrateWith, ordinal, seatChip } from "./viewer/kit.js";
import { expandViews } from "./viewer/frames.js";
import * as generic from "./viewer/generic.js";

const config = JSON.parse(document.getElementById("tv-config").textContent);
const root = document.querySelector("[data-parlour-tv]");
const part = (name) => root.querySelector(`[data-tv-${name}]`);
const box = {
  caption: part("caption"), seats: part("seats"), link: part("match"), skip: part("skip"), progress: part("progress"),
  count: part("count"), bar: part("bar"), felt: part("felt"), say: part("say"), result: part("result"),
};
const NOTHING_RETRY_MS = 20000; // nothing to show: ask again this often
const ERROR_RETRY_MS = 5000; // the server could not be asked: again after this
const LIVE_STATUSES = ["queued", "running"];

const state = { item: null, shown: [], step: null, phase: "starting", history: [] };
window.parlourTv = state;

// ----- waiting, and skipping ahead ------------------------------------------------------------------------------------
let run = 0; // bumped by every new game and by "Next game": what an older run still does is dropped
let wake = null; // ends the current wait at once
let closeStream = null; // the live game's event stream, while one is open

function sleep(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      if (wake === done) wake = null;
      resolve();
    }
    wake = done;
  });
}

function skip() {
  run += 1;
  if (closeStream) closeStream();
  if (wake) wake();
}
box.skip.addEventListener("click", skip);

function setPhase(phase) {
  state.phase = phase;
  root.dataset.phase = phase;
}

// ----- the game's renderer ----------------------------------------------------------------------------------------
const renderers = new Map();
async function rendererFor(item) {
  if (!item.renderer) return generic;
  if (!renderers.has(item.renderer)) {
    let module = generic;
    try {
      module = await import(item.renderer);
      if (typeof module.render !== "function") throw new Error(`${item.renderer} exports no render(view, context)`);
      adoptCss(`game-${item.game}`, module.css);
    } catch (error) {
      console.error("Parlour TV: the game's renderer did not load; the view is shown as data", error);
      module = generic;
    }
    renderers.set(item.renderer, module);
  }
  return renderers.get(item.renderer);
}

function context(item, seats, extra) {
  return {
    game: item.game, title: item.title, seat: null, seats, players: seats.length, revealed: false, allHands: false,
    faults: [], h, esc, compact, ordinal,
    seatChip: (seat, cls) => seatChip(seat, seats[seat], cls), name: (seat) => seats[seat],
    ...extra,
  };
}

function draw(renderer, view, ctx) {
  let drawn;
  try {
    drawn = renderer.render(view, ctx);
  } catch (error) {
    console.error(`Parlour TV: the ${ctx.title} drawing failed; the view is shown as data`, error);
    drawn = generic.render(view, ctx);
  }
  if (typeof drawn === "string") box.felt.innerHTML = drawn;
  else box.felt.replaceChildren(drawn);
  box.felt.dataset.perspective = "spectator";
  box.felt.dataset.step = String(ctx.step);
}

// ----- what every game shows ------------------------------------------------------------------------------------
function showHead(item) {
  box.caption.textContent = item.caption;
  box.seats.replaceChildren(...item.seats.flatMap((label, seat) => [seat ? " " : "", seatChip(seat, label, "pv-chip-sm")]));
  box.link.href = item.kind === "live" ? item.live_url : item.match_url;
  box.link.textContent = item.kind === "live" ? "Its own page" : "The full replay";
  box.link.title = item.kind === "live" ? "This match on its own page" : "This game's page: its replay, move by move, at your pace";
  box.skip.hidden = false;
  box.felt.hidden = false;
  box.say.hidden = false;
  box.result.hidden = true;
  box.result.replaceChildren();
  box.say.replaceChildren();
  box.felt.replaceChildren(h("p", { class: "tv-wait" }, "The game starts in a moment…"));
  root.dataset.match = String(item.match);
  root.dataset.kind = item.kind;
}

function showProgress(step, last, live) {
  box.progress.hidden = false;
  box.count.textContent = live ? `Move ${step}, live` : step === 0 ? `The deal · ${last} moves` : `Move ${step} of ${last}`;
  box.bar.max = Math.max(1, last);
  box.bar.value = step;
  box.bar.hidden = live;
  state.step = step;
  root.dataset.step = String(step);
  const now = state.history[state.history.length - 1];
  if (now) now.steps.push([step, Math.round(performance.now())]);
}

function showSay(mover, seats, lines) {
  const who = mover === null || mover === undefined ? null : seatChip(mover, seats[mover], "pv-chip-sm");
  const said = h("div", { class: "tv-lines" }, lines.map((line) => h("div", null, line)));
  box.say.replaceChildren(...(who ? [h("div", { class: "tv-who" }, who), said] : [said]));
}

function showResult(seats, outcome, note) {
  const rows = [];
  if (outcome) {
    const order = seats.map((_, seat) => seat).sort((a, b) => outcome.ranks[a] - outcome.ranks[b] || a - b);
    for (const seat of order) {
      rows.push(h("li", { class: ["tv-place", outcome.ranks[seat] === 1 && "tv-winner"] },
        h("span", { class: "tv-rank" }, ordinal(outcome.ranks[seat])), seatChip(seat, seats[seat]),
        h("span", { class: "tv-score" }, String(outcome.scores[seat]))));
    }
  }
  const parts = [h("h2", null, outcome ? "Result" : "The game is over")];
  if (rows.length) parts.push(h("ol", { class: "tv-places" }, rows));
  parts.push(h("p", { class: "tv-next" }, note ? [note, " "] : null, "The next game starts in a few seconds."));
  box.result.replaceChildren(...parts);
  box.result.hidden = false;
  setPhase("result");
  const now = state.history[state.history.length - 1];
  if (now) now.result = true;
}

// ----- a finished game, replayed as a broadcast ----------------------------------------------------------------------
async function fetchJson(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body?.error?.message || `the server answered ${response.status}`);
  return body;
}

async function playReplay(item, token) {
  const [doc, renderer] = await Promise.all([fetchJson(item.frames), rendererFor(item)]);
  if (token !== run) return;
  const views = expandViews(doc);
  const last = views.length - 1;
  const seats = doc.seats;
  setPhase("playing");
  // A long game (TEN: some 300 moves) goes faster, so a broadcast lasts about config.max_ms; never under 0.4 s a move.
  const pace = Math.min(config.move_ms, Math.max(400, config.max_ms / Math.max(1, last)));
  state.pace = pace;
  for (let step = 0; step <= last; step += 1) {
    const frame = doc.frames[step];
    const final = step === last && doc.over;
    const ctx = context(item, seats, {
      step, last, final, move: frame.move, lines: frame.lines, toMove: frame.to_move,
      previous: step > 0 ? views[step - 1] : null, outcome: final ? doc.outcome : null,
    });
    draw(renderer, views[step], ctx);
    showProgress(step, last, false);
    const lines = step === 0 ? [`${doc.title}, ${doc.players} players: the deal.`] : narrateWith(renderer, frame.lines, ctx, `TV (${ctx.title})`);
    showSay(frame.move ? frame.move.seat : null, seats, lines);
    await sleep(step === last ? Math.min(pace, 800) : pace);
    if (token !== run) return;
  }
  showResult(seats, doc.over ? doc.outcome : null, null);
  await sleep(config.result_ms);
}

// ----- a league match in play ------------------------------------------------------------------------------------
async function playLive(item, token) {
  const renderer = await rendererFor(item);
  if (token !== run) return;
  setPhase("live");
  let seats = item.seats;
  const ended = await new Promise((resolve) => {
    const events = new EventSource(item.events);
    const close = (over) => {
      events.close();
      closeStream = null;
      resolve(over);
    };
    closeStream = () => close(false);
    events.onmessage = (event) => {
      const view = JSON.parse(event.data);
      if (!LIVE_STATUSES.includes(view.status)) return close(true);
      if (view.public === undefined) return; // not started yet
      seats = view.seats.map((seat) => seat.label);
      const ctx = context(item, seats, {
        step: view.move_count, last: view.move_count, final: false, move: null, lines: [], toMove: view.to_move,
        previous: null, outcome: null,
      });
      draw(renderer, view.public, ctx);
      showProgress(view.move_count, view.move_count, true);
      const waiting = view.to_move === null ? [] : [`${seats[view.to_move]} to move…`];
      showSay(null, seats, [...view.narration.slice(-2), ...waiting]);
    };
    events.addEventListener("over", () => close(true));
    // Past the server's caps on open streams the browser gives up: this game is left for the next.
    events.onerror = () => { if (events.readyState === EventSource.CLOSED) close(true); };
  });
  if (!ended || token !== run) return;
  showResult(seats, null, h("a", { href: item.match_url }, "Its result and replay are on the match's page."));
  await sleep(config.result_ms);
}

// ----- one game after another ----------------------------------------------------------------------------------------
async function nextAfter(match) {
  for (;;) {
    try {
      const response = await fetch(`${config.next}${match ? `?after=${match}` : ""}`, { credentials: "same-origin" });
      if (response.status === 204) return null;
      if (response.ok) return await response.json();
    } catch {
      // offline for a moment: ask again below
    }
    await sleep(ERROR_RETRY_MS);
  }
}

function showNothing() {
  setPhase("empty");
  box.caption.textContent = "Nothing to watch yet";
  box.seats.textContent = "Once bots have played rated games, the best of them are replayed here, one after another.";
  box.felt.hidden = true;
  box.progress.hidden = true;
  box.skip.hidden = true;
  box.result.hidden = true;
  box.say.replaceChildren();
  box.say.hidden = true;
  delete root.dataset.match;
}

async function main() {
  let item = config.first;
  for (;;) {
    if (!item) {
      showNothing();
      await sleep(NOTHING_RETRY_MS);
      item = await nextAfter(null);
      continue;
    }
    run += 1;
    const token = run;
    state.item = item;
    state.shown.push(item.match);
    state.history.push({ match: item.match, caption: item.caption, steps: [], result: false });
    showHead(item);
    try {
      if (item.kind === "live") await playLive(item, token);
      else await playReplay(item, token);
    } catch (error) {
      // A game that cannot be shown (its engine changed, the network failed): say so, and go on to the next.
      if (token === run) {
        box.say.replaceChildren(h("p", { class: "pv-error" }, `This game cannot be shown (${error.message}); the next one follows.`));
        setPhase("error");
        await sleep(ERROR_RETRY_MS);
      }
    }
    item = await nextAfter(item.match);
  }
}

main();
