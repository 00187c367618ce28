// TEN's table for the replay viewer (docs/viewer.md): the cards flipped this turn with the total and pips against
// ten, the wild on auction with every bid, the market, and each seat's collection drawn as four colour rows of
// 1-9 (runs are what score), its wilds, black and fiasco tokens and score. Everything but the deck order is public.

const COLOURS = ["red", "blue", "green", "yellow"];
const PHASES = {
  flip: "flipping",
  auction: "auction of a wild",
  pay: "paying for a wild",
  buy: "buying from the market",
  final_buy: "last purchases",
  over: "game over",
};

export const css = `
.tn { display: grid; gap: .9rem; }
.tn-top { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: .8rem 1.2rem; align-items: start; }
.tn-label { font-size: .7rem; text-transform: uppercase; letter-spacing: .06em; color: #cfe0d4; margin-bottom: .25rem; }
.tn-phase { font-size: 1.05rem; font-weight: 700; color: #fff; }
.tn-area { display: flex; flex-wrap: wrap; gap: .3rem; min-height: 4.5rem; align-items: center; }
.tn-none { color: rgba(255,255,255,.45); font-size: .8rem; font-style: italic; }
.tn-meters { display: grid; gap: .35rem; min-width: 13rem; max-width: 20rem; }
.tn-meter { display: grid; grid-template-columns: 3.2rem 1fr 3.4rem; align-items: center; gap: .4rem; font-size: .9rem; }
.tn-active { display: flex; flex-wrap: wrap; align-items: center; gap: .2rem .4rem; font-size: .85rem; color: #d6e4da; margin-bottom: .2rem; }
.tn-explain { font-size: .78rem; line-height: 1.35; color: #d6e4da; }
.tn-bar { height: .65rem; background: rgba(255,255,255,.14); border-radius: 999px; overflow: hidden; }
.tn-bar i { display: block; height: 100%; background: #8fd19e; border-radius: 999px; }
.tn-bar.tn-hot i { background: #f3c34b; } .tn-bar.tn-bust i { background: #e0564a; }
.tn-meter b { text-align: right; color: #fff; font-variant-numeric: tabular-nums; white-space: nowrap; }
.tn-card { position: relative; flex: none; width: 2.9rem; height: 4.1rem; border-radius: .4rem; display: grid;
  place-items: center; font-weight: 800; font-size: 1.35rem; color: #fff; box-shadow: 0 2px 4px rgba(0,0,0,.35);
  border: 2px solid rgba(255,255,255,.85); text-shadow: 0 1px 1px rgba(0,0,0,.3); }
.tn-card small { position: absolute; bottom: .15rem; left: 0; right: 0; text-align: center; font-size: .55rem;
  letter-spacing: .02em; font-weight: 700; text-shadow: 0 1px 1px rgba(0,0,0,.45); line-height: 1; }
.tn-card.tn-currency small { text-shadow: none; }
.tn-red { background: #c94f3d; } .tn-blue { background: #2d6fb3; } .tn-green { background: #3a8f5c; }
.tn-yellow { background: #d9a520; }
.tn-card.tn-currency { background: #f4ecd8; color: #5c4510; text-shadow: none; border-color: #c9b27a; font-size: .9rem; }
.tn-card.tn-wild { background: conic-gradient(#c94f3d 0 25%, #2d6fb3 0 50%, #3a8f5c 0 75%, #d9a520 0); }
.tn-card.tn-cw { box-shadow: inset 0 0 0 .3rem rgba(255,255,255,.35), 0 2px 4px rgba(0,0,0,.35); }
.tn-card.tn-sm { width: 2.5rem; height: 3.4rem; font-size: 1.15rem; border-width: 1.5px; }
.tn-card.tn-sm small { font-size: .5rem; }
.tn-card.tn-new { outline: 3px solid #f3c34b; outline-offset: 1px; }
.tn-auction { background: rgba(255,248,225,.95); color: #2b2418; border-radius: .6rem; padding: .55rem .75rem;
  display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
.tn-auction .pv-chip { color: #2b2418; }
.tn-bid { display: inline-flex; gap: .3rem; align-items: center; font-size: .9rem; min-width: 0; }
.tn-bid > b { font-variant-numeric: tabular-nums; }
.tn-bid.tn-high > b { color: #8a6514; }
.tn-market { display: flex; flex-wrap: wrap; gap: .25rem; }
.tn-seats { --pv-seat-min: 19rem; }
.tn-score { margin-left: auto; font-weight: 800; color: #f3c34b; white-space: nowrap; }
.tn-runs { display: grid; grid-template-columns: 3.7rem repeat(9, minmax(0, 1fr)); gap: 3px; }
.tn-runs span { height: 1.55rem; border-radius: 4px; background: rgba(255,255,255,.08); font-size: .82rem; font-weight: 700;
  display: grid; place-items: center; color: rgba(255,255,255,.38); }
.tn-runs span.tn-row { background: none; justify-items: start; font-size: .74rem; font-weight: 600; color: #e4efe7;
  grid-template-columns: .6rem auto; gap: .25rem; }
.tn-row i { width: .6rem; height: .6rem; border-radius: 2px; background: var(--tn); }
.tn-row.tn-red { --tn: #c94f3d; } .tn-row.tn-blue { --tn: #4d8fd3; } .tn-row.tn-green { --tn: #4aa86e; } .tn-row.tn-yellow { --tn: #e0b030; }
.tn-runs span.tn-have { color: #fff; }
.tn-runs span.tn-have.tn-red { background: #c94f3d; } .tn-runs span.tn-have.tn-blue { background: #2d6fb3; }
.tn-runs span.tn-have.tn-green { background: #3a8f5c; } .tn-runs span.tn-have.tn-yellow { background: #d9a520; }
.tn-runs span.tn-two::after { content: "²"; font-size: .6rem; }
.tn-tokens { display: flex; flex-wrap: wrap; gap: .5rem .9rem; font-size: .88rem; align-items: center; }
.tn-over { display: flex; flex-wrap: wrap; gap: .3rem .6rem; align-items: center; }
.tn-coin { display: inline-block; width: .75rem; height: .75rem; border-radius: 50%; background: #1b1b1b;
  border: 1px solid #666; margin-right: 1px; vertical-align: middle; }
.tn-fiasco { display: inline-block; width: .75rem; height: .75rem; border-radius: 50%; background: #fafafa;
  border: 1px solid #999; margin-right: 1px; vertical-align: middle; }
.tn-wilds { display: flex; flex-wrap: wrap; gap: .2rem; }
@media (max-width: 520px) {
  .tn-top { grid-template-columns: minmax(0, 1fr); }
  .tn-meters { max-width: none; }
  .tn-runs { grid-template-columns: 3.5rem repeat(9, minmax(0, 1fr)); gap: 2px; }
  .tn-card { width: 2.6rem; height: 3.7rem; font-size: 1.25rem; }
}
`;

// [the big face, the short label under it (it must fit a small card), the tooltip]
function face(c) {
  if (c.kind === "number") return [String(c.value), "", `${c.colour} ${c.value}`];
  if (c.kind === "currency") return [`${c.pips}¤`, "pips", `currency card: ${c.pips} pips (subtracts ${c.pips} from the total)`];
  if (c.colour && c.value === null) return ["★", c.colour, `${c.colour} wild: any number in ${c.colour}`];
  if (c.value !== null && c.value !== undefined) return [String(c.value), "wild", `number-wild ${c.value}: a ${c.value} of any colour`];
  return ["★", "wild", "full wild: any number, any colour"];
}

function card(h, c, { small = false, fresh = false } = {}) {
  const [big, label, title] = face(c);
  let kind;
  if (c.kind === "number") kind = `tn-${c.colour}`;
  else if (c.kind === "currency") kind = "tn-currency";
  else if (c.colour) kind = `tn-${c.colour} tn-cw`; // a colour-wild: any number of its colour
  else kind = "tn-wild"; // a number-wild or the full wild: any colour
  const cls = ["tn-card", kind, small && "tn-sm", fresh && "tn-new"];
  return h("div", { class: cls, title, dataset: { card: String(c.id) } }, big, label ? h("small", null, label) : null);
}

function meter(h, name, value, limit, title) {
  const state = value > limit ? "tn-bust" : value >= limit - 2 ? "tn-hot" : "";
  const width = `${Math.min(100, (Math.max(0, value) / limit) * 100)}%`;
  return h("div", { class: "tn-meter", title }, h("span", null, name), h("div", { class: ["tn-bar", state] }, h("i", { style: { width } })), h("b", null, `${value} of ${limit}`));
}

function runs(h, collection) {
  const cells = [];
  for (const colour of COLOURS) {
    cells.push(h("span", { class: ["tn-row", `tn-${colour}`] }, h("i", null), colour));
    for (let v = 1; v <= 9; v += 1) {
      const n = collection.filter((c) => c.kind === "number" && c.colour === colour && c.value === v).length;
      cells.push(h("span", { class: [n && "tn-have", n && `tn-${colour}`, n > 1 && "tn-two"], title: `${colour} ${v}${n ? ` ×${n}` : ": missing"}` }, String(v)));
    }
  }
  return h("div", { class: "tn-runs", role: "img", "aria-label": "numbers collected, by colour" }, cells);
}

export function render(view, ctx) {
  const { h } = ctx;
  const prev = ctx.previous;
  const seenBefore = new Set(prev && prev.play_area ? prev.play_area.map((c) => c.id) : []);

  const area = view.play_area.length
    ? view.play_area.map((c) => card(h, c, { fresh: prev !== null && !seenBefore.has(c.id) }))
    : [h("span", { class: "tn-none" }, "no cards flipped")];
  const over = view.phase === "over";
  let heading;
  if (over) {
    const best = Math.max(...view.scores);
    const winners = view.scores.map((score, s) => (score === best ? s : null)).filter((s) => s !== null);
    heading = h("div", { class: "tn-label" }, `The game is over · ${view.deck_left} cards never flipped`);
    area.splice(0, area.length, h("div", { class: "tn-over" }, "Best score ", h("b", null, `${best} pts`), ": ", winners.map((s) => ctx.seatChip(s, "pv-chip-sm"))));
  } else {
    heading = h("div", { class: "tn-active" }, ctx.seatChip(view.active, "pv-chip-sm"), h("span", null, `is the active player · ${view.deck_left} cards in the deck`));
  }
  const top = h(
    "div",
    { class: "tn-top" },
    h("div", null, heading, h("div", { class: "tn-phase" }, PHASES[view.phase] || view.phase), h("div", { class: "tn-area" }, area)),
    over
      ? null
      : h("div", { class: "tn-meters" },
          meter(h, "Total", view.total, 10, "Number cards add their value, currency cards subtract their pips"),
          meter(h, "Pips", view.pips, 10, "The currency cards' pips: what the active player can spend"),
          h("div", { class: "tn-explain" }, "Total: the flipped numbers minus the pips. Pips: the currency flipped. Either above 10 is a fiasco (bust)."),
        ),
  );

  const parts = [top];
  if (view.auction) {
    const a = view.auction;
    parts.push(
      h(
        "div",
        { class: "tn-auction" },
        card(h, a.card),
        h("strong", null, "On auction"),
        a.bids.map((bid, s) =>
          h("span", { class: ["tn-bid", s === a.high_bidder && "tn-high"] }, ctx.seatChip(s, "pv-chip-sm"),
            h("b", null, bid === null ? "…" : bid === "pass" ? "pass" : String(bid))),
        ),
      ),
    );
  }
  const market = [...view.market].sort((x, y) => COLOURS.indexOf(x.colour) - COLOURS.indexOf(y.colour) || x.value - y.value);
  parts.push(h("div", null, h("div", { class: "tn-label" }, `Market · ${market.length}`),
    h("div", { class: "tn-market" }, market.length ? market.map((c) => card(h, c, { small: true })) : h("span", { class: "tn-none" }, "empty"))));

  const seats = [];
  for (let s = 0; s < view.players; s += 1) {
    const turn = view.to_move === s;
    const me = view.seat === s;
    const collection = view.collection[s];
    const wilds = collection.filter((c) => c.kind === "wild");
    const badges = [];
    if (me) badges.push(h("span", { class: "pv-badge pv-b-you" }, "you"));
    if (turn) badges.push(h("span", { class: "pv-badge pv-b-turn" }, "to act"));
    if (view.active === s && view.phase !== "over") badges.push(h("span", { class: "pv-badge" }, "active"));
    seats.push(
      h(
        "section",
        { class: ["pv-seat", "tn-seat", turn && "pv-turn", me && "pv-me"], dataset: { seat: String(s) } },
        h("div", { class: "pv-seat-head" }, ctx.seatChip(s), badges, view.scores ? h("span", { class: "tn-score", title: "score now" }, `${view.scores[s]} pts`) : null),
        runs(h, collection),
        wilds.length ? h("div", { class: "tn-wilds" }, wilds.map((c) => card(h, c, { small: true }))) : null,
        h("div", { class: "tn-tokens" },
          h("span", { title: `${view.coins[s]} black tokens (cap ${view.coin_cap ?? 10})` }, Array.from({ length: view.coins[s] }, () => h("i", { class: "tn-coin" })), ` ${view.coins[s]}`),
          h("span", { title: `${view.fiasco[s]} fiasco tokens, worth 3 each when paying` }, Array.from({ length: view.fiasco[s] }, () => h("i", { class: "tn-fiasco" })), ` ${view.fiasco[s]} fiasco`)),
      ),
    );
  }
  parts.push(h("div", { class: ["pv-seats", "tn-seats"] }, seats));
  if ((ctx.revealed || ctx.allHands) && Array.isArray(view.discard)) {
    parts.push(h("div", { class: "tn-label" }, `Discarded so far: ${view.discard.length} cards`));
  }
  return h("div", { class: "tn" }, parts);
}
