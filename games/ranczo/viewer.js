// Ranczo Party's table for the replay viewer (docs/viewer.md): the grid of animals (a column per value, at most seven
// rows), balloons, the card just placed, each seat's tokens and hand (face down unless this perspective may see
// it), and the deck. Rows and columns are labelled as the narration names them ("row -3", "column 5").

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
.rz-corner { font-size: .66rem; color: #cfe0d4; align-self: end; text-align: right; padding-right: .3rem; }
.rz-cell { height: 3.9rem; border-radius: .4rem; border: 1px dashed rgba(255,255,255,.13); }
.rz-cell.rz-rowfull { border-color: rgba(243,195,75,.35); }
.rz-card { position: relative; height: 3.9rem; border-radius: .4rem; background: #fffdf6; color: #2b2418;
  border-top: .4rem solid var(--rz); box-shadow: 0 2px 4px rgba(0,0,0,.35); display: grid; place-items: center;
  text-align: center; padding: .1rem; }
.rz-card .rz-v { font-size: 1.25rem; font-weight: 800; line-height: 1; color: var(--rz-ink, #2b2418); }
.rz-card .rz-n { font-size: .56rem; font-weight: 700; text-transform: uppercase; letter-spacing: .03em; }
.rz-card.rz-new { outline: 3px solid #f3c34b; outline-offset: 1px; }
.rz-balloon { position: absolute; top: .15rem; right: .2rem; width: .7rem; height: .85rem; border-radius: 50% 50% 45% 45%;
  background: #d0473b; box-shadow: inset -2px -2px 0 rgba(0,0,0,.15); }
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
}
`;

function card(h, c, { small = false, fresh = false } = {}) {
  return h(
    "div",
    { class: ["rz-card", `rz-v${c.value}`, small && "rz-sm", fresh && "rz-new"], title: `${ANIMALS[c.value]} (${c.value})${c.balloon ? " with a balloon" : ""}`, dataset: { card: String(c.id ?? "") } },
    c.balloon ? h("span", { class: "rz-balloon", title: "balloon: +1 token when its line is completed" }) : null,
    h("div", null, h("div", { class: "rz-v" }, String(c.value)), h("div", { class: "rz-n" }, ANIMALS[c.value] || "")),
  );
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
  );

  const grid = [h("div", { class: "rz-corner" }, "column")];
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
      ),
    );
  }

  const parts = [head];
  if (last && last.action === "play" && last.tokens) {
    parts.push(h("div", { class: "rz-gain" }, `★ seat ${last.seat} completes a line and gains ${last.tokens} token${last.tokens === 1 ? "" : "s"}`));
  }
  parts.push(h("div", { class: "rz-gridwrap" }, h("div", { class: "rz-grid", role: "img", "aria-label": "The grid of animals" }, grid)));
  parts.push(h("div", { class: "pv-seats" }, seats));
  if (ctx.revealed && view.end_reason) parts.push(h("div", { class: "rz-label" }, `The game ended: ${view.end_reason}`));
  return h("div", { class: "rz" }, parts);
}
