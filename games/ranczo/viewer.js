// Ranczo Party's table for the replay viewer (docs/viewer.md): the grid of animals (a column per value, at most seven
// rows), balloons, the card just placed, each seat's tokens and hand (face down unless this perspective may see
// it), and the deck. Rows and columns are labelled as the narration names them ("row -3", "column 5").
// At a person's table, `controls` draws the person's move (docs/viewer.md, "Controls"): their hand as cards to pick,
// then the grid again with the places the picked card may go lit as buttons (rows named from the top, as a person
// counts them), or, when no card fits, the deck to slide one under.

const ANIMALS = { 1: "hen", 2: "goose", 3: "goat", 4: "sheep", 5: "pig", 6: "cow", 7: "horse" };
const MAX_ROWS = 7;

export const css = `
.rz { display: grid; gap: .9rem; }
.rz-top { display: flex; flex-wrap: wrap; gap: .5rem 1.4rem; align-items: center; font-size: .88rem; color: #e4efe7; }
.rz-top b { color: #fff; }
.rz-top .rz-title { font-size: 1.1rem; font-weight: 700; color: #fff; margin-right: auto; }
.rz-gridwrap { overflow-x: auto; }
.rz-grid { display: grid; grid-template-columns: 3.6rem repeat(7, minmax(2.9rem, 3.8rem)); gap: .3rem; justify-content: center; }
.rz-col { text-align: center; font-size: .74rem; color: #cfe0d4; line-height: 1.2; align-self: end; }
.rz-col b { display: block; font-size: .9rem; color: #fff; }
.rz-col.rz-full, .rz-col.rz-full b, .rz-row.rz-full { color: #8fe3a6; font-weight: 800; }
.rz-col.rz-full b::after, .rz-row.rz-full::after { content: " ✓"; }
.rz-row { align-self: center; text-align: right; padding-right: .3rem; font-size: .8rem; font-weight: 600; color: #e4efe7;
  white-space: nowrap; font-variant-numeric: tabular-nums; }
.rz-row.rz-here, .rz-col.rz-here b { color: #f3c34b; }
.rz-corner { font-size: .66rem; color: #cfe0d4; align-self: end; text-align: right; padding-right: .3rem; white-space: nowrap; overflow: hidden; }
.rz-cell { height: 3.9rem; border-radius: .4rem; border: 1px dashed rgba(255,255,255,.13); }
.rz-cell.rz-rowfull { border-color: rgba(243,195,75,.35); }
.rz-card { position: relative; height: 3.9rem; border-radius: .4rem; background: #fffdf6; color: #2b2418;
  border-top: .4rem solid var(--rz); box-shadow: 0 2px 4px rgba(0,0,0,.35); display: grid; place-items: center;
  text-align: center; padding: .1rem; }
.rz-face, .rz-v, .rz-n { display: block; }
.rz-card .rz-v { font-size: 1.25rem; font-weight: 800; line-height: 1; color: var(--rz-ink, #2b2418); }
.rz-card .rz-n { font-size: .56rem; font-weight: 700; text-transform: uppercase; letter-spacing: .03em; }
.rz-card.rz-new { outline: 3px solid #f3c34b; outline-offset: 1px; }
.rz-balloon { position: absolute; top: .15rem; right: .2rem; width: .7rem; height: .85rem; border-radius: 50% 50% 45% 45%;
  background: #d0473b; box-shadow: inset -2px -2px 0 rgba(0,0,0,.15); }
.rz-balloon-inline { position: relative; top: auto; right: auto; display: inline-block; flex: none; }
.rz-legend { display: inline-flex; align-items: center; gap: .4rem; font-size: .78rem; color: #cfe0d4; }
.rz-balloon::after { content: ""; position: absolute; left: 50%; top: 100%; width: 1px; height: .35rem; background: #7a5a4a; }
.rz-sm { width: 2.6rem; height: 3.3rem; flex: none; }
.rz-sm .rz-v { font-size: 1rem; }
.rz-back { height: 3.3rem; width: 2.6rem; flex: none; border-radius: .4rem; border: 2px solid #e8d6a8;
  background: repeating-linear-gradient(45deg, #6a4a2a 0 6px, #7b5733 6px 12px); box-shadow: 0 2px 4px rgba(0,0,0,.35); }
.rz-v1 { --rz: #e0b341; } .rz-v2 { --rz: #8fb3cf; } .rz-v3 { --rz: #9a8a62; } .rz-v4 { --rz: #b9b3a2; }
.rz-v5 { --rz: #e58fa0; } .rz-v6 { --rz: #6b4f3a; } .rz-v7 { --rz: #9b5e2a; }
.rz-tokens { margin-left: auto; font-weight: 800; color: #f3c34b; white-space: nowrap; }
.rz-hand { display: flex; flex-wrap: wrap; gap: .25rem; min-height: 3.3rem; }
.rz-label { font-size: .68rem; text-transform: uppercase; letter-spacing: .06em; color: #cfe0d4; }
.rz-none { color: rgba(255,255,255,.45); font-size: .8rem; font-style: italic; }
.rz-gain { background: #fff3cf; color: #5c4510; border-radius: .5rem; padding: .35rem .6rem; font-size: .85rem; font-weight: 600; }
@media (max-width: 520px) {
  .rz-grid { grid-template-columns: 2.7rem repeat(7, minmax(0, 1fr)); gap: .2rem; }
  .rz-row { font-size: .7rem; padding-right: .1rem; }
  .rz-col { font-size: .6rem; }
  .rz-card, .rz-cell { height: 3.2rem; }
  .rz-card .rz-n { font-size: .46rem; }
  .rz-corner-word { display: none; }
  .rz-top { gap: .3rem 1rem; }
}

/* The person's move at a table (controls): the hand to pick from, then the grid with the picked card's places lit. */
.rz-ctl { background: radial-gradient(ellipse at 50% 30%, var(--pv-felt-2, #2a6148), var(--pv-felt, #1f4d3a) 75%);
  color: #f6f3ea; border-radius: 12px; padding: .7rem .8rem .8rem; display: grid; gap: .6rem;
  grid-template-columns: minmax(0, 1fr); grid-template-areas: "side" "grid" "how"; }
.rz-side { grid-area: side; display: grid; gap: .6rem; align-content: start; }
.rz-ctl > .rz-gridwrap { grid-area: grid; }
.rz-ctl > .rz-how { grid-area: how; align-self: end; }
.rz-ctl .rz-card.rz-new { outline-color: #fff; }
.rz-say { margin: 0; font-size: 1rem; font-weight: 700; color: #fff; }
.rz-said { margin: 0; font-size: .85rem; color: #e4efe7; }
.rz-said b { color: #fff; }
.rz-ctl .rz-hand { justify-content: center; gap: .4rem; min-height: 0; }
.rz-pick { appearance: none; font: inherit; cursor: pointer; position: relative; width: 3.2rem; height: 4.2rem; padding: .1rem;
  border: 0; border-top: .45rem solid var(--rz); border-radius: .45rem; background: #fffdf6; color: #2b2418;
  box-shadow: 0 2px 5px rgba(0,0,0,.4); display: grid; place-items: center; text-align: center; transition: transform .12s; }
.rz-pick .rz-v { font-size: 1.3rem; font-weight: 800; line-height: 1; }
.rz-pick .rz-n { font-size: .58rem; font-weight: 700; text-transform: uppercase; letter-spacing: .03em; }
.rz-pick:hover:not(:disabled) { transform: translateY(-3px); }
.rz-pick[aria-pressed="true"] { transform: translateY(-6px); outline: 3px solid #f3c34b; outline-offset: 2px; }
.rz-pick:disabled { opacity: .4; cursor: not-allowed; box-shadow: none; }
.rz-ctl .rz-grid { grid-template-columns: 2.4rem repeat(7, minmax(2.6rem, 3.8rem)); }
.rz-ctl .rz-card, .rz-ctl .rz-cell, .rz-target { height: 3.5rem; }
.rz-ctl .rz-row { font-weight: 700; }
.rz-row.rz-newrow { color: #f3c34b; font-style: italic; font-size: .72rem; }
.rz-cell.rz-newcell { border-style: dotted; border-color: rgba(243,195,75,.25); }
.rz-target { appearance: none; font: inherit; cursor: pointer; height: 3.9rem; padding: 0; border-radius: .4rem;
  border: 2px dashed #f3c34b; background: rgba(243,195,75,.2); color: #fff3cf; display: grid; place-items: center;
  align-content: center; gap: .1rem; line-height: 1; }
.rz-target:hover { background: rgba(243,195,75,.4); border-style: solid; }
.rz-target .rz-v { font-size: 1.1rem; font-weight: 800; opacity: .85; }
.rz-target .rz-plus { font-size: .68rem; font-weight: 800; color: #1d1a10; background: #f3c34b; border-radius: 999px; padding: .05rem .3rem; }
.rz-ctl button:focus-visible { outline: 3px solid #fff; outline-offset: 2px; }
.rz-bury { display: flex; justify-content: center; }
.rz-deck { appearance: none; font: inherit; cursor: pointer; min-height: 3rem; padding: .45rem 1rem; border-radius: .45rem;
  border: 2px solid #e8d6a8; color: #fff; font-weight: 700; text-shadow: 0 1px 2px #000;
  background: repeating-linear-gradient(45deg, #6a4a2a 0 6px, #7b5733 6px 12px); box-shadow: 0 2px 5px rgba(0,0,0,.4); }
.rz-deck:hover { filter: brightness(1.15); }
.rz-how { margin: 0; font-size: .78rem; color: #cfe0d4; }
.rz-how .rz-balloon-inline { vertical-align: -.1rem; margin: 0 .35rem 0 .2rem; }
.rz-below { display: none; font-size: .8rem; color: #cfe0d4; font-style: italic; }
/* While the controls are up they hold the grid and the person's hand: the table above keeps the rest, not a copy. */
.tb:has(.rz-ctl) .tb-felt .rz-gridwrap, .tb:has(.rz-ctl) .tb-felt .pv-me .rz-hand,
.tb:has(.rz-ctl) .tb-felt .pv-me .rz-label { display: none; }
.tb:has(.rz-ctl) .tb-felt .rz-below { display: block; }
@media (min-width: 900px) {
  .rz-ctl { grid-template-columns: minmax(13rem, 1fr) auto; grid-template-areas: "side grid" "how grid"; align-items: start; column-gap: 1.2rem; }
  .rz-ctl .rz-hand { justify-content: flex-start; }
  .rz-bury { justify-content: flex-start; }
}
@media (max-width: 520px) {
  .rz-ctl { padding: .5rem .45rem .6rem; gap: .5rem; }
  .rz-say { font-size: .95rem; }
  .rz-ctl .rz-grid { grid-template-columns: 1.7rem repeat(7, minmax(0, 1fr)); gap: .2rem; }
  .rz-ctl .rz-hand { gap: .25rem; }
  .rz-pick { width: auto; flex: 1 1 0; min-width: 2.2rem; max-width: 3.2rem; height: 3.9rem; }
  .rz-pick .rz-v { font-size: 1.1rem; }
  .rz-pick .rz-n { font-size: .46rem; letter-spacing: 0; }
  .rz-ctl .rz-card, .rz-ctl .rz-cell, .rz-target { height: 3.2rem; }
  .rz-row.rz-newrow { font-size: .6rem; }
}
`;

const BALLOON_TIP = "a balloon: a row or column holding it is worth 1 extra token when completed";

function cardName(c) {
  return `${ANIMALS[c.value]} (${c.value})${c.balloon ? " with a balloon" : ""}`;
}

/** A card's face: its colour band, value, animal and balloon. Spans, so that it may also sit inside a button. */
function face(h, c) {
  return [
    c.balloon ? h("span", { class: "rz-balloon", title: BALLOON_TIP, role: "img", "aria-label": "balloon" }) : null,
    h("span", { class: "rz-face" }, h("span", { class: "rz-v" }, String(c.value)), h("span", { class: "rz-n" }, ANIMALS[c.value] || "")),
  ];
}

function card(h, c, { small = false, fresh = false } = {}) {
  return h(
    "div",
    { class: ["rz-card", `rz-v${c.value}`, small && "rz-sm", fresh && "rz-new"], title: cardName(c), dataset: { card: String(c.id ?? "") } },
    face(h, c),
  );
}

/** The balloon, explained once (its tooltip does not show on a phone). */
function legend(h) {
  return h("span", { class: "rz-legend" }, h("span", { class: "rz-balloon rz-balloon-inline", "aria-hidden": "true" }),
    "balloon: +1 token when its row or column is completed");
}

/** Plain-English narration: the engine's "gains 1 token(s)" with the right plural. */
export function narrate(lines) {
  return lines.map((line) => line.replace(/gains (\d+) token\(s\)/, (_, n) => `gains ${n} token${n === "1" ? "" : "s"}`));
}

export function render(view, ctx) {
  const { h } = ctx;
  const [top, bottom] = view.rows;
  const cells = new Map(view.grid.map((c) => [`${c.row}:${c.value}`, c]));
  const rowCount = (r) => view.grid.filter((c) => c.row === r).length;
  const colCount = (v) => view.grid.filter((c) => c.value === v).length;
  const last = view.last && ctx.move && !ctx.final ? view.last : null;
  const freshId = last && last.action === "play" && last.card ? last.card.id : null;

  const head = h(
    "div",
    { class: "rz-top" },
    h("span", { class: "rz-title" }, view.rounds > 1 ? `Game ${view.round} of ${view.rounds}` : "The ranch"),
    h("span", null, "Deck ", h("b", null, String(view.deck_size))),
    h("span", null, "Rows ", h("b", null, `${bottom - top + 1} / ${MAX_ROWS}`)),
    view.buries_in_a_row ? h("span", null, "Buried in a row ", h("b", null, String(view.buries_in_a_row))) : null,
    legend(h),
  );

  const grid = [h("div", { class: "rz-corner", title: "a card's value is its column" }, h("span", { class: "rz-corner-word" }, "column"))];
  const lastCard = last && last.action === "play" && last.card ? last : null;
  for (let v = 1; v <= 7; v += 1) {
    const full = colCount(v) === 7;
    grid.push(h("div", { class: ["rz-col", full && "rz-full", lastCard && lastCard.card.value === v && "rz-here"], title: `column ${v}: the ${ANIMALS[v]}s${full ? ", complete" : ""}` }, h("b", null, String(v)), ANIMALS[v]));
  }
  for (let r = top; r <= bottom; r += 1) {
    const full = rowCount(r) === 7;
    // The narration's own words: "row -3" (row 0 is the first card's; negative rows are above it).
    grid.push(h("div", { class: ["rz-row", full && "rz-full", lastCard && lastCard.row === r && "rz-here"], title: r === 0 ? "row 0: the first card's row" : `row ${r}: ${Math.abs(r)} ${r < 0 ? "above" : "below"} row 0` }, `row ${r}`));
    for (let v = 1; v <= 7; v += 1) {
      const c = cells.get(`${r}:${v}`);
      grid.push(c ? card(h, c, { fresh: c.id === freshId }) : h("div", { class: ["rz-cell", full && "rz-rowfull"] }));
    }
  }

  const seats = [];
  for (let s = 0; s < view.players; s += 1) {
    const me = view.seat === s;
    const turn = view.to_move === s;
    let hand;
    if (Array.isArray(view.hands)) hand = view.hands[s].map((c) => card(h, c, { small: true }));
    else if (me && Array.isArray(view.hand)) hand = view.hand.map((c) => card(h, c, { small: true }));
    else hand = Array.from({ length: view.hand_sizes[s] }, () => h("div", { class: "rz-back", title: "a hidden card" }));
    const badges = [];
    if (me) badges.push(h("span", { class: "pv-badge pv-b-you" }, "you"));
    if (turn) badges.push(h("span", { class: "pv-badge pv-b-turn" }, "to play"));
    if (view.out && view.out[s] && !view.over) badges.push(h("span", { class: "pv-badge" }, "done: one card left"));
    seats.push(
      h(
        "section",
        { class: ["pv-seat", "rz-seat", turn && "pv-turn", me && "pv-me"], dataset: { seat: String(s) } },
        h("div", { class: "pv-seat-head" }, ctx.seatChip(s), badges,
          h("span", { class: "rz-tokens", title: "victory tokens" }, `★ ${view.tokens[s]}`)),
        h("div", { class: "rz-label" }, `Hand · ${view.hand_sizes[s]}`),
        h("div", { class: "rz-hand" }, hand.length ? hand : h("span", { class: "rz-none" }, "empty")),
        me ? h("div", { class: "rz-below" }, `Your ${view.hand_sizes[s]} cards are below, with the grid: pick one to play.`) : null,
      ),
    );
  }

  const parts = [head];
  if (last && last.action === "play" && last.tokens) {
    parts.push(h("div", { class: "rz-gain" }, `★ ${who(ctx, last.seat)} completes a line and gains ${last.tokens} token${last.tokens === 1 ? "" : "s"}`));
  }
  parts.push(h("div", { class: "rz-gridwrap" }, h("div", { class: "rz-grid", role: "img", "aria-label": "The grid of animals" }, grid)));
  parts.push(h("div", { class: "pv-seats" }, seats));
  if (ctx.revealed && view.end_reason) parts.push(h("div", { class: "rz-label" }, `The game ended: ${view.end_reason}`));
  return h("div", { class: "rz" }, parts);
}

// ----- the person's move at a table (docs/viewer.md, "Controls") --------------------------------------------------

/** The seat's name in a sentence: "you" for the person, else the player's name. */
function who(ctx, seat) {
  if (ctx.you !== undefined && seat === ctx.you) return "you";
  return typeof ctx.name === "function" ? ctx.name(seat) : `seat ${seat}`;
}

/** A row as a person names it, from the top (the engine's row numbers start at the first card and go negative). */
function rowWords(row, top, bottom, ordinal) {
  if (row < top) return "a new row above the top row";
  if (row > bottom) return "a new row below the bottom row";
  if (top === bottom) return "the only row";
  if (row === top) return "the top row";
  if (row === bottom) return "the bottom row";
  return `the ${ordinal(row - top + 1)} row from the top`;
}

/** Tokens a card would earn on (row, its column): 1 per line it completes, plus 1 per balloon in that line. */
function gain(grid, c, row) {
  let tokens = 0;
  const inRow = grid.filter((g) => g.row === row);
  if (inRow.length === 6) tokens += 1 + inRow.filter((g) => g.balloon).length + (c.balloon ? 1 : 0);
  const inColumn = grid.filter((g) => g.value === c.value);
  if (inColumn.length === 6) tokens += 1 + inColumn.filter((g) => g.balloon).length + (c.balloon ? 1 : 0);
  return tokens;
}

export function controls(obs, ctx) {
  const { h } = ctx;
  const ordinal = ctx.ordinal || ((n) => String(n));
  const hand = Array.isArray(obs.hand) ? obs.hand : [];
  const byId = new Map(hand.map((c) => [c.id, c]));
  const legal = Array.isArray(ctx.legal) ? ctx.legal : [];
  const isPlay = (a) => a && Object.keys(a).length === 2 && Number.isInteger(a.play) && Number.isInteger(a.row);
  const isBury = (a) => a && Object.keys(a).length === 1 && Number.isInteger(a.bury);
  // Only what the engine offers, and only cards the person can see: anything else falls back to the protocol's list.
  if (!legal.length || !legal.every((a) => (isPlay(a) && byId.has(a.play)) || (isBury(a) && byId.has(a.bury)))) return null;
  const plays = legal.filter(isPlay);
  const buries = legal.filter(isBury);
  const burying = !plays.length;
  const grid = Array.isArray(obs.grid) ? obs.grid : [];
  const [top, bottom] = obs.rows;
  const cells = new Map(grid.map((c) => [`${c.row}:${c.value}`, c]));
  const placesOf = (id) => plays.filter((a) => a.play === id);
  // New rows are drawn only where some card of the hand may start one.
  const first = Math.min(top, ...plays.map((a) => a.row));
  const lastRow = Math.max(bottom, ...plays.map((a) => a.row));
  const freshId = obs.last && obs.last.action === "play" && obs.last.card ? obs.last.card.id : null;

  let picked = null;  // the card chosen in the hand
  const say = h("p", { class: "rz-say", "aria-live": "polite" });
  const gridBox = h("div", { class: "rz-gridwrap" });
  const buryBox = h("div", { class: "rz-bury" });

  // The table disables every control while the move is sent (and enables them again if it is refused).
  const send = (action, label) => ctx.act(action, label);

  function drawGrid() {
    const targets = new Map(picked && !burying ? placesOf(picked.id).map((a) => [a.row, a]) : []);
    const parts = [h("div", { class: "rz-corner", "aria-hidden": "true" })];
    for (let v = 1; v <= 7; v += 1) {
      const full = grid.filter((c) => c.value === v).length === 7;
      parts.push(h("div", { class: ["rz-col", full && "rz-full", picked && picked.value === v && "rz-here"], title: `the ${ANIMALS[v]}s' column${full ? ", complete" : ""}` },
        h("b", null, String(v)), ANIMALS[v]));
    }
    for (let r = first; r <= lastRow; r += 1) {
      const isNew = r < top || r > bottom;
      const full = !isNew && grid.filter((c) => c.row === r).length === 7;
      parts.push(h("div", { class: ["rz-row", isNew && "rz-newrow", full && "rz-full"], title: rowWords(r, top, bottom, ordinal) }, isNew ? "new" : ""));
      for (let v = 1; v <= 7; v += 1) {
        const c = cells.get(`${r}:${v}`);
        const action = targets.get(r);
        if (c) parts.push(card(h, c, { fresh: c.id === freshId }));
        else if (action && v === picked.value) {
          const tokens = gain(grid, picked, r);
          const where = rowWords(r, top, bottom, ordinal);
          const label = `Put your ${cardName(picked)} in ${where}${tokens ? `: it completes a line, +${tokens} token${tokens === 1 ? "" : "s"}` : ""}`;
          parts.push(h("button", {
            type: "button", class: "rz-target", "aria-label": label, title: label, dataset: { row: String(r - top + 1) },
            onclick: () => send(action, `You put your ${ANIMALS[picked.value]} in ${where}`),
          }, h("span", { class: "rz-v", "aria-hidden": "true" }, String(picked.value)),
          tokens ? h("span", { class: "rz-plus", "aria-hidden": "true" }, `+${tokens} ★`) : null));
        } else parts.push(h("div", { class: ["rz-cell", isNew && "rz-newcell", full && "rz-rowfull"] }));
      }
    }
    gridBox.replaceChildren(h("div", { class: "rz-grid", role: "group", "aria-label": "The grid: a column per animal" }, parts));
  }

  function drawSay() {
    if (burying) {
      buryBox.replaceChildren(picked ? h("button", {
        type: "button", class: "rz-deck", onclick: () => send(buries.find((a) => a.bury === picked.id), `You put your ${ANIMALS[picked.value]} under the deck`),
      }, `Put your ${cardName(picked)} under the deck`) : null);
      say.textContent = picked
        ? `Your ${cardName(picked)} goes to the bottom of the deck, face down.`
        : "None of your cards fits next to a card on the grid: pick one to put under the deck.";
      return;
    }
    if (!picked) { say.textContent = "Your turn: pick a card from your hand, then a lit place on the grid."; return; }
    const n = placesOf(picked.id).length;
    say.textContent = `Your ${cardName(picked)} fits in ${n === 1 ? "one place" : `${n} places`} in column ${picked.value}: pick a lit one.`;
  }

  const picks = hand.map((c) => {
    const can = burying ? buries.some((a) => a.bury === c.id) : placesOf(c.id).length > 0;
    const places = placesOf(c.id).length;
    const note = burying ? "to put under the deck" : can ? `${places} place${places === 1 ? "" : "s"}` : "no place for it on the grid now";
    const button = h("button", {
      type: "button", class: ["rz-pick", `rz-v${c.value}`], "aria-pressed": "false", disabled: !can,
      "aria-label": `Your ${cardName(c)}: ${note}`, title: `${cardName(c)}: ${note}`, dataset: { card: String(c.id) },
    }, face(h, c));
    button.addEventListener("click", (event) => {
      if (!can) return;  // (enabled again by the table after a refused move: still nowhere to go)
      picked = picked && picked.id === c.id ? null : c;
      for (const b of picks) b.setAttribute("aria-pressed", String(picked !== null && b === button));
      drawGrid();
      drawSay();
      // From the keyboard, go on to the first place (or the deck) at once.
      if (event.detail === 0 && picked) {
        const next = root.querySelector(".rz-target, .rz-deck");
        if (next) next.focus();
      }
    });
    return button;
  });

  // What the player before you did, in words (the table's grid outlines the card).
  let said = null;
  const last = obs.last;
  if (last && last.seat !== ctx.you) {
    if (last.action === "bury") said = h("p", { class: "rz-said" }, h("b", null, who(ctx, last.seat)), " could not play and put a card under the deck.");
    else if (last.card) {
      said = h("p", { class: "rz-said" }, h("b", null, who(ctx, last.seat)), ` just put a ${ANIMALS[last.card.value]} in ${rowWords(last.row, top, bottom, ordinal)} (outlined)`,
        last.tokens ? ` and won ${last.tokens} token${last.tokens === 1 ? "" : "s"}.` : ".");
    }
  }

  const playable = hand.filter((c) => placesOf(c.id).length);
  if (!burying && playable.length === 1) picked = playable[0];
  drawGrid();
  drawSay();
  for (const b of picks) b.setAttribute("aria-pressed", String(picked !== null && b.dataset.card === String(picked.id)));

  const how = h("p", { class: "rz-how" },
    "A card goes in its animal's column, touching a card on the grid. Completing a row or a column earns 1 token, plus 1 for each ",
    h("span", { class: "rz-balloon rz-balloon-inline", "aria-hidden": "true" }), "balloon in it.");
  const side = h("div", { class: "rz-side" }, said, say, h("div", { class: "rz-hand", role: "group", "aria-label": "Your hand" }, picks), buryBox);
  const root = h("div", { class: "rz-ctl", role: "group", "aria-label": "Your move" }, side, gridBox, how);
  return root;
}
