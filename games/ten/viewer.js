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
.tn-meters { display: grid; gap: .35rem; min-width: 16rem; max-width: 22rem; }
.tn-meter { display: grid; grid-template-columns: 3.2rem 1fr 6.4rem; align-items: center; gap: .4rem; font-size: .9rem; }
.tn-active { display: flex; flex-wrap: wrap; align-items: center; gap: .2rem .4rem; font-size: .85rem; color: #d6e4da; margin-bottom: .2rem; }
.tn-explain { font-size: .78rem; line-height: 1.35; color: #d6e4da; }
.tn-bar { height: .65rem; background: rgba(255,255,255,.14); border-radius: 999px; overflow: hidden; }
.tn-bar i { display: block; height: 100%; background: #8fd19e; border-radius: 999px; }
.tn-bar.tn-hot i { background: #f3c34b; } .tn-bar.tn-bust i { background: #e0564a; } .tn-bar.tn-neg i { background: #7fb3e8; }
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
.tn-bid > b { font-variant-numeric: tabular-nums; font-weight: 700; }
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
.tn-ctl { display: grid; gap: .55rem; padding: .7rem .8rem; border: 1px solid #d9d1b8; border-radius: .7rem; background: #fffdf5;
  color: #1d2321; min-width: 0; }
.tn-ctl p { margin: 0; }
.tn-ctl-how { font-size: .85rem; color: #545c58; }
.tn-ctl-auto-note { font-size: .88rem; font-weight: 600; color: #2f5d3f; }
.tn-ctl-row { display: flex; flex-wrap: wrap; gap: .35rem .7rem; align-items: center; font-size: .9rem; min-width: 0; }
.tn-ctl-cards { display: flex; flex-wrap: wrap; gap: .25rem; }
.tn-ctl-sum { font-weight: 600; font-variant-numeric: tabular-nums; }
.tn-choices { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 16rem), 1fr)); gap: .45rem; }
.tn-choice { display: grid; gap: .1rem; text-align: left; padding: .5rem .7rem; border: 1px solid #c8bb93; border-radius: .55rem;
  background: #fff; color: #1d2321; font: inherit; cursor: pointer; min-width: 0; }
.tn-choice b { font-size: 1rem; }
.tn-choice span { font-size: .82rem; line-height: 1.3; color: #4b524e; }
.tn-choice:hover:not(:disabled) { border-color: #8a6d22; background: #fff8e4; }
.tn-choice.tn-main { background: #c59a3a; border-color: #a27a24; color: #1d1a10; }
.tn-choice.tn-main span { color: #33290f; }
.tn-choice.tn-main:hover:not(:disabled) { background: #d4a846; }
.tn-ctl button:disabled { opacity: .45; cursor: not-allowed; }
.tn-ctl button:focus-visible, .tn-ctl input:focus-visible { outline: 3px solid #2d5f9a; outline-offset: 2px; }
.tn-bids { display: flex; flex-wrap: wrap; gap: .3rem; }
.tn-bidbtn, .tn-fill, .tn-step-btn { font: inherit; font-size: .88rem; padding: .25rem .55rem; border: 1px solid #c8bb93; border-radius: .45rem;
  background: #fff; color: #1d2321; cursor: pointer; font-variant-numeric: tabular-nums; }
.tn-bidbtn:hover:not(:disabled), .tn-fill:hover:not(:disabled), .tn-step-btn:hover:not(:disabled) { background: #fff8e4; border-color: #8a6d22; }
.tn-pay { display: grid; gap: .45rem; padding: .5rem .6rem; border-radius: .55rem; background: #f5f0e1; min-width: 0; }
.tn-steps { display: flex; flex-wrap: wrap; gap: .35rem 1.2rem; }
.tn-step { display: grid; grid-template-columns: 2.2rem minmax(0, 1fr) 2.2rem; align-items: center; gap: .35rem; width: min(100%, 15.5rem); }
.tn-step-label i { flex: none; }
.tn-step-btn { width: 2.2rem; height: 2.2rem; padding: 0; font-size: 1.15rem; font-weight: 700; border-radius: 50%; }
.tn-step-label { display: inline-flex; align-items: center; gap: .3rem; font-size: .88rem; font-variant-numeric: tabular-nums; white-space: nowrap; }
.tn-hand-label { font-size: .8rem; color: #545c58; flex-basis: 100%; }
.tn-hand, .tn-market-pick { display: flex; flex-wrap: wrap; gap: .35rem; }
.tn-pick { position: relative; display: inline-grid; justify-items: center; gap: .1rem; padding: .15rem; border: 2px solid transparent;
  border-radius: .55rem; background: none; font: inherit; cursor: pointer; }
.tn-pick[aria-pressed="true"] { border-color: #2d5f9a; background: #dfeaf7; }
.tn-pick[aria-pressed="true"] .tn-card { transform: translateY(-3px); }
.tn-price { font-size: .75rem; font-weight: 700; color: #4b524e; }
.tn-price::before { content: "price "; font-weight: 400; }
.tn-loss { font-size: .72rem; font-weight: 700; color: #8a3b2f; }
.tn-fills { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; }
.tn-submit { max-width: 30rem; }
.tn-pay-sum { font-weight: 700; font-size: .92rem; font-variant-numeric: tabular-nums; }
.tn-pay-sum[data-state="short"] { color: #8a5a00; } .tn-pay-sum[data-state="over"] { color: #9b1c1c; } .tn-pay-sum[data-state="ok"] { color: #2f6b43; }
.tn-buy-pay:empty { display: none; }
.tn-buy-pay { display: grid; gap: .4rem; }
.tn-auto { display: flex; align-items: center; gap: .45rem; font-size: .88rem; color: #3b423e; cursor: pointer; }
.tn-auto input { width: 1.1rem; height: 1.1rem; }
@media (max-width: 520px) {
  .tn-ctl { padding: .55rem .55rem; }
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

function card(h, c, { small = false, fresh = false, tag = "div" } = {}) {
  const [big, label, title] = face(c);
  let kind;
  if (c.kind === "number") kind = `tn-${c.colour}`;
  else if (c.kind === "currency") kind = "tn-currency";
  else if (c.colour) kind = `tn-${c.colour} tn-cw`; // a colour-wild: any number of its colour
  else kind = "tn-wild"; // a number-wild or the full wild: any colour
  const cls = ["tn-card", kind, small && "tn-sm", fresh && "tn-new"];
  return h(tag, { class: cls, title, dataset: { card: String(c.id) } }, big, label ? h("small", null, label) : null);
}

// A signed number with a real minus sign.
const signed = (n) => (n < 0 ? `\u2212${-n}` : String(n));

// A bar from 0 to the limit. A total below zero (currency flipped before the numbers) is drawn as a blue stretch
// from the left, read "−4 (below 0)", and its title says how far the total is from a fiasco.
function meter(h, name, value, limit, title) {
  const negative = value < 0;
  const state = negative ? "tn-neg" : value > limit ? "tn-bust" : value >= limit - 2 ? "tn-hot" : "";
  const width = `${Math.min(100, (Math.abs(value) / limit) * 100)}%`;
  const room = negative ? `; below zero: ${limit - value} more before a fiasco` : "";
  return h("div", { class: "tn-meter", title: title + room }, h("span", null, name),
    h("div", { class: ["tn-bar", state] }, h("i", { style: { width } })),
    h("b", null, negative ? `${signed(value)} (below 0)` : `${value} of ${limit}`));
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
            h("b", { title: bid === null ? "has not bid yet" : bid === "pass" ? "passed" : `bid ${bid}` }, bid === null ? "to bid" : bid === "pass" ? "passed" : String(bid))),
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

/** The engine's narration in plain sentences (docs/viewer.md: `narrate`): one word for a bust, the rules' "fiasco"
 *  (the engine says "fiasko!"), and "1 black token" / "2 black tokens" for "token(s)". */
export function narrate(lines) {
  return lines.map((line) => {
    const text = line
      .replace(/^fiasko!/, "Fiasco!")
      .replace(/\b(\d+) black token\(s\)/g, (_, n) => `${n} black token${n === "1" ? "" : "s"}`);
    return text.charAt(0).toUpperCase() + text.slice(1);
  });
}

// ----- scoring (games/ten/scoring.py, ported): what a choice does to a score ---------------------------------------
// Each colour scores its longest run (1 a card, 10 for 1-9), wilds placed to make the total as high as it can be.

const bitCount = (n) => {
  let count = 0;
  for (let m = n; m; m &= m - 1) count += 1;
  return count;
};
const INTERVALS = [];
for (let a = 1; a <= 9; a += 1) {
  for (let b = a; b <= 9; b += 1) {
    let mask = 0;
    for (let v = a; v <= b; v += 1) mask |= 1 << (v - 1);
    INTERVALS.push([mask, b - a + 1 === 9 ? 10 : b - a + 1]);
  }
}

// The ways one colour can score: [points, number-wilds used (a bit mask), full wilds used], dominated ones dropped.
function colourOptions(have, colourWilds, numberWilds, full) {
  const options = [[0, 0, 0]];
  for (const [mask, points] of INTERVALS) {
    const need = mask & ~have;
    const short = bitCount(need) - colourWilds;
    if (short <= 0) {
      options.push([points, 0, 0]);
      continue;
    }
    const usable = need & numberWilds;
    if (bitCount(usable) + full < short) continue;
    for (let sub = usable; ; sub = (sub - 1) & usable) {
      const fill = short - bitCount(sub);
      if (fill >= 0 && fill <= full) options.push([points, sub, fill]);
      if (sub === 0) break;
    }
  }
  options.sort((x, y) => y[0] - x[0] || bitCount(x[1]) - bitCount(y[1]) || x[2] - y[2]);
  const kept = [];
  for (const [points, sub, fill] of options) {
    if (!kept.some(([, keptSub, keptFill]) => (sub & keptSub) === keptSub && fill >= keptFill)) kept.push([points, sub, fill]);
  }
  return kept;
}

/** The score of a collection (cards in the observation format). */
export function scoreOf(cards) {
  const present = [0, 0, 0, 0];
  const colourWilds = [0, 0, 0, 0];
  let numberWilds = 0;
  let full = 0;
  for (const c of cards) {
    if (c.kind === "number") present[COLOURS.indexOf(c.colour)] |= 1 << (c.value - 1);
    else if (c.kind === "wild") {
      if (c.colour) colourWilds[COLOURS.indexOf(c.colour)] += 1;
      else if (c.value !== null && c.value !== undefined) numberWilds |= 1 << (c.value - 1);
      else full += 1;
    }
  }
  // Over the colours, the state is which number-wilds and how many full wilds are taken (the wilds colours share).
  let states = new Map([["0,0", 0]]);
  for (let i = 0; i < COLOURS.length; i += 1) {
    const next = new Map();
    for (const [key, points] of states) {
      const [used, fused] = key.split(",").map(Number);
      for (const [gain, sub, fill] of colourOptions(present[i], colourWilds[i], numberWilds, full)) {
        if (sub & used || fused + fill > full) continue;
        const to = `${used | sub},${fused + fill}`;
        if ((next.get(to) ?? -1) < points + gain) next.set(to, points + gain);
      }
    }
    states = next;
  }
  return Math.max(...states.values());
}

// ----- controls: the person's move with the game's own things (docs/viewer.md, "Controls") -------------------------
// Flip or stop with what each does now; bids as buttons; a payment built from black tokens, fiasco tokens and number
// cards of the collection, the sum against what is due, and "Pay" only when the engine lists that payment; the market's
// cards to buy. An opt-in "Play the obvious moves for me" (localStorage) acts at once when only one move is possible.

const FIASCO_WORTH = 3;
const AUTO_KEY = "parlour-ten-play-obvious-moves";

function cardName(c) {
  if (c.kind === "number") return `${c.colour} ${c.value}`;
  if (c.kind === "currency") return `currency ${c.pips}`;
  if (c.colour) return `${c.colour} wild`;
  if (c.value !== null && c.value !== undefined) return `number-wild ${c.value}`;
  return "full wild";
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const listing = (words) => (words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`);
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

function describePay(pay, cards) {
  const parts = [];
  if (pay.coins) parts.push(plural(pay.coins, "black token"));
  if (pay.fiasco) parts.push(plural(pay.fiasco, "fiasco token"));
  if (cards.length) parts.push(listing(cards.map(cardName)));
  return listing(parts) || "nothing";
}

const choose = (n, k) => {
  let out = 1;
  for (let i = 0; i < k; i += 1) out = (out * (n - i)) / (i + 1);
  return Math.round(out);
};

function autoWanted() {
  try {
    return localStorage.getItem(AUTO_KEY) === "1";
  } catch {
    return false;
  }
}

// The one move possible now, as [action, sentence], or null: a single legal action, or a single way to pay (a template
// whose cards can only be all of the person's number cards counts as one way).
function obviousMove(obs, ctx, mine, say) {
  let ways = 0;
  let only = null;
  for (const action of ctx.legal) {
    const blanks = action.pay ? action.pay.cards.length : 0;
    ways += blanks ? choose(mine.length, blanks) : 1;
    only = action;
  }
  if (ways !== 1) return null;
  const action = only.pay && only.pay.cards.length ? { ...only, pay: { ...only.pay, cards: mine.map((c) => c.id) } } : only;
  return [action, say(action)];
}

function choiceButton(h, { tn, main = false, title, detail, onclick, extra = {} }) {
  return h("button", { type: "button", class: ["tn-choice", main && "tn-main"], dataset: { tn, ...extra }, onclick },
    h("b", null, title), detail ? h("span", null, detail) : null);
}

export function controls(obs, ctx) {
  const { h } = ctx;
  const you = ctx.you;
  if (!obs || obs.to_move !== you || !ctx.legal || !ctx.legal.length) return null;
  const who = (s) => (s === you ? "you" : ctx.name(s));
  const others = [...Array(obs.players).keys()].filter((s) => s !== you);
  const collection = obs.collection[you];
  const mine = collection.filter((c) => c.kind === "number");
  // What a choice does to the score is said only while this port agrees with the engine's own score.
  const scoreNow = scoreOf(collection);
  const trusted = !obs.scores || scoreNow === obs.scores[you];
  const scoreChange = (after) => (trusted ? ` (your score ${scoreNow} → ${after})` : "");
  const legalHas = (test) => ctx.legal.some(test);
  const say = (action) => sentence(obs, ctx, action, who);
  const act = (action, label) => ctx.act(action, label); // the page disables every control while it is sent

  let body;
  if (obs.phase === "flip") body = flipControls(h, obs, ctx, { who, others, mine, collection, scoreChange, legalHas, act });
  else if (obs.phase === "auction") body = auctionControls(h, obs, ctx, { who, collection, mine, trusted, scoreNow, act });
  else if (obs.phase === "pay") {
    const a = obs.auction;
    const options = ctx.legal.filter((x) => x.pay && !("buy" in x));
    body = [
      h("p", { class: "tn-ctl-how" }, `You won the ${cardName(a.card)} for ${a.high}: pay ${a.high}. No change is given: pay exactly ${a.high}, or with fiasco tokens alone.`),
      h("div", { class: "tn-ctl-row" }, card(h, a.card, { small: true, tag: "span" }), h("span", null, `${capital(faceTitle(a.card))}.`)),
      payBuilder(h, obs, ctx, { price: a.high, options, mine, collection, trusted, scoreNow, what: `the ${cardName(a.card)}`, verb: "Pay for", act }),
    ];
  } else if (obs.phase === "buy" || obs.phase === "final_buy") body = buyControls(h, obs, ctx, { who, mine, collection, trusted, scoreNow, legalHas, act });
  else return null;

  const obvious = obviousMove(obs, ctx, mine, say);
  const auto = h("input", { type: "checkbox", dataset: { tn: "auto" } });
  auto.checked = autoWanted();
  const acting = auto.checked && obvious !== null;
  const notice = acting ? h("p", { class: "tn-ctl-auto-note", role: "status", dataset: { autoActing: "" } }, `Played for you (the only possible move): ${obvious[1]}.`) : null;
  auto.addEventListener("change", () => {
    try {
      localStorage.setItem(AUTO_KEY, auto.checked ? "1" : "0");
    } catch {
      // storage refused (private mode): the choice lasts for this decision only
    }
    if (auto.checked && obvious) act(obvious[0], obvious[1]);
  });
  const root = h("div", { class: "tn-ctl", role: "group", "aria-label": "Your move" }, notice, body,
    h("label", { class: "tn-auto", title: "When only one move is possible (the first flip of a turn, a pass when you cannot outbid, the only way to pay) it is played at once" },
      auto, "Play the obvious moves for me"));
  if (acting) {
    for (const b of root.querySelectorAll("button")) b.disabled = true;
    setTimeout(() => act(obvious[0], obvious[1]), 0);
  }
  return root;
}

function faceTitle(c) {
  return face(c)[2];
}

// One sentence for an action (the label shown while it is sent, and what "Play the obvious moves" says it did).
function sentence(obs, ctx, action, who) {
  if ("flip" in action) return ctx.legal.some((a) => "stop" in a) ? "Flip another card" : "Flip the first card of your turn";
  if ("stop" in action) return action.stop === "numbers" ? "Stop and take the numbers" : "Stop and take the coins";
  if ("pass" in action) return obs.auction && obs.auction.high !== null ? `Pass: ${who(obs.auction.high_bidder)} leads with ${obs.auction.high}` : "Pass";
  if ("bid" in action) return `Bid ${action.bid} for the ${cardName(obs.auction.card)}`;
  const paidCards = (pay) => pay.cards.map((id) => obs.collection[ctx.you].find((c) => c.id === id)).filter(Boolean);
  if ("buy" in action) {
    if (action.buy === null) return "Buy nothing";
    const c = obs.market.find((m) => m.id === action.buy);
    return `Buy ${c ? cardName(c) : "the card"} with ${describePay(action.pay, paidCards(action.pay))}`;
  }
  if ("pay" in action) return `Pay for the ${cardName(obs.auction.card)} with ${describePay(action.pay, paidCards(action.pay))}`;
  return "Play";
}

function bustChance(obs) {
  if (!obs.deck_left) return 0;
  let busting = 0;
  for (const [value, n] of Object.entries(obs.deck_counts.number)) if (Number(value) > 10 - obs.total) busting += n;
  for (const [pips, n] of Object.entries(obs.deck_counts.currency)) if (Number(pips) > 10 - obs.pips) busting += n;
  return busting / obs.deck_left;
}

function flipControls(h, obs, ctx, { who, others, mine, collection, scoreChange, legalHas, act }) {
  const numbers = obs.play_area.filter((c) => c.kind === "number");
  const first = legalHas((a) => "flip" in a) && !legalHas((a) => "stop" in a);
  const gains = (seat, amount) => Math.max(0, Math.min(amount, (obs.coin_cap ?? 10) - obs.coins[seat]));
  const othersGet = (amount) => {
    if (!amount) return "";
    const got = others.map((s) => [s, gains(s, amount)]);
    return listing(got.map(([s, n]) => (n ? `${who(s)} takes ${plural(n, "black token")}` : `${who(s)} is at the cap and takes none`)));
  };
  const state = h("div", { class: "tn-ctl-row" },
    obs.play_area.length ? h("span", { class: "tn-ctl-cards" }, obs.play_area.map((c) => card(h, c, { small: true, tag: "span" }))) : null,
    h("span", { class: "tn-ctl-sum" }, `Total ${signed(obs.total)} of 10 · pips ${obs.pips} of 10 · ${plural(obs.deck_left, "card")} in the deck`));
  const choices = [];
  if (legalHas((a) => "flip" in a)) {
    const risk = Math.round(bustChance(obs) * 100);
    const wild = obs.deck_left ? Math.round((obs.deck_counts.wild / obs.deck_left) * 100) : 0;
    let detail;
    if (first) detail = "The first flip of a turn is compulsory.";
    else if (risk === 0) detail = "No card left in the deck can make a fiasco now.";
    else {
      const lose = numbers.length ? `; ${listing(numbers.map(cardName))} would go to the market` : "";
      detail = `${risk}% risk of a fiasco: you would take a fiasco token${lose}.`;
    }
    if (wild && !first) detail += ` ${wild}% chance of a wild, auctioned at once.`;
    choices.push(choiceButton(h, { tn: "flip", main: true, title: first ? "Flip the first card" : "Flip a card", detail,
      onclick: () => act({ flip: true }, first ? "Flip the first card of your turn" : "Flip another card") }));
  }
  if (legalHas((a) => a.stop === "numbers")) {
    const taken = numbers.length ? `You take ${listing(numbers.map(cardName))}${scoreChange(scoreOf([...collection, ...numbers]))}` : "There are no numbers to take";
    const pay = othersGet(obs.pips);
    choices.push(choiceButton(h, { tn: "stop-numbers", title: "Stop: take the numbers",
      detail: `${taken}${pay ? `; ${pay}` : ""}; then you may buy one card from the market.`,
      onclick: () => act({ stop: "numbers" }, "Stop and take the numbers") }));
  }
  if (legalHas((a) => a.stop === "coins")) {
    const got = gains(ctx.you, obs.pips);
    const coins = obs.pips ? `You take ${plural(got, "black token")}${got < obs.pips ? ` (the cap of ${obs.coin_cap ?? 10} stops the rest)` : ""}` : "No pips: you take nothing";
    const market = numbers.length ? `; ${listing(numbers.map(cardName))} go to the market` : "";
    choices.push(choiceButton(h, { tn: "stop-coins", title: "Stop: take the coins", detail: `${coins}${market}; no buying.`,
      onclick: () => act({ stop: "coins" }, "Stop and take the coins") }));
  }
  const how = first
    ? "Your turn: flip cards one by one. Numbers add to the total, currency takes its pips off it; above 10 is a fiasco."
    : obs.deck_left
      ? "Flip again, or stop and take one reward."
      : "The deck is empty: stop and take one reward.";
  return [h("p", { class: "tn-ctl-how" }, how), state, h("div", { class: "tn-choices" }, choices)];
}

function purseText(obs, seat, mine) {
  const parts = [plural(obs.coins[seat], "black token")];
  if (obs.fiasco[seat]) parts.push(`${plural(obs.fiasco[seat], "fiasco token")} (3 each)`);
  if (mine.length) parts.push(plural(mine.length, "number card"));
  return listing(parts);
}

function auctionControls(h, obs, ctx, { who, collection, mine, trusted, scoreNow, act }) {
  const a = obs.auction;
  const wild = cardName(a.card);
  const Who = (s) => (s === ctx.you ? "You" : ctx.name(s)); // a name starts a sentence as it is spelt
  const after = scoreOf([...collection, a.card]);
  const worth = trusted ? ` It would make your score ${scoreNow} → ${after}.` : "";
  const still = a.bids.map((bid, s) => (bid === null && s !== ctx.you ? s : null)).filter((s) => s !== null);
  const lead = a.high === null ? "No bid yet." : `${Who(a.high_bidder)} ${a.high_bidder === ctx.you ? "lead" : "leads"} with ${a.high}.`;
  const afterYou = still.length ? ` Still to bid after you: ${listing(still.map(who))}.` : " You bid last.";
  const bids = ctx.legal.filter((x) => "bid" in x).map((x) => x.bid);
  const passing = a.high !== null
    ? still.length ? `${Who(a.high_bidder)} keeps the lead at ${a.high} for now.` : `${Who(a.high_bidder)} takes the ${wild} for ${a.high}.`
    : still.length ? "Nobody has bid yet." : "Nobody bid: the wild is discarded.";
  const choices = [];
  if (ctx.legal.some((x) => "pass" in x)) {
    choices.push(choiceButton(h, { tn: "pass", title: "Pass", detail: passing, onclick: () => act({ pass: true }, `Pass on the ${wild}`) }));
  }
  const bidButtons = bids.map((b) =>
    h("button", {
      type: "button", class: "tn-bidbtn", dataset: { tn: "bid", bid: String(b) },
      "aria-label": `Bid ${b} for the ${wild}${a.high !== null ? `, above ${who(a.high_bidder)}'s ${a.high}` : ""}`,
      title: `Bid ${b}: if it wins, you pay ${b} (tokens or number cards)`,
      onclick: () => act({ bid: b }, `Bid ${b} for the ${wild}`),
    }, `Bid ${b}`));
  return [
    h("p", { class: "tn-ctl-how" }, "A wild is auctioned: bid more than the highest bid, or pass. The winner pays the bid; wilds fill gaps in runs."),
    h("div", { class: "tn-ctl-row" }, card(h, a.card, { small: true, tag: "span" }),
      h("span", null, `${capital(faceTitle(a.card))}.${worth} ${lead}${afterYou}`)),
    h("div", { class: "tn-choices" }, choices),
    bidButtons.length
      ? h("div", { class: "tn-bids", role: "group", "aria-label": `Your bid for the ${wild}` }, bidButtons)
      : h("p", { class: "tn-ctl-how" }, `You cannot outbid ${a.high}: you can pay at most ${purseText(obs, ctx.you, mine)}.`),
    bidButtons.length ? h("p", { class: "tn-ctl-how" }, `You can pay up to ${bids[bids.length - 1]}: ${purseText(obs, ctx.you, mine)}.`) : null,
  ];
}

// The payment: steppers for black and fiasco tokens, the number cards of the collection as toggles, the sum against
// what is due, and the submit button enabled only when the engine lists a payment of that shape.
function payBuilder(h, obs, ctx, { price, options, mine, collection, trusted, scoreNow, what, verb, act, buyId }) {
  const state = { coins: 0, fiasco: 0, cards: new Set() };
  const have = { coins: obs.coins[ctx.you], fiasco: obs.fiasco[ctx.you] };
  const cardsUsable = options.some((x) => x.pay.cards.length);
  const match = () => options.find((x) => x.pay.coins === state.coins && x.pay.fiasco === state.fiasco && x.pay.cards.length === state.cards.size);
  const chosen = () => mine.filter((c) => state.cards.has(c.id));
  const lostBy = (c) => scoreNow - scoreOf(collection.filter((x) => x.id !== c.id));
  const lossOf = (c) => {
    if (!trusted) return "";
    const lost = lostBy(c);
    if (lost) return `, you lose ${plural(lost, "point")}`;
    return mine.some((x) => x.id !== c.id && x.colour === c.colour && x.value === c.value) ? ", a spare duplicate: no points lost" : ", no points lost";
  };

  const sum = h("p", { class: "tn-pay-sum", role: "status", "aria-live": "polite" });
  const submit = h("button", { type: "button", class: ["tn-choice", "tn-main", "tn-submit"], dataset: { tn: "pay" } });
  const stepper = (kind, label, worth) => {
    const value = h("span", { class: "tn-step-value" });
    const less = h("button", { type: "button", class: "tn-step-btn", dataset: { tn: `fewer-${kind}` }, "aria-label": `One ${label} fewer` }, "−");
    const more = h("button", { type: "button", class: "tn-step-btn", dataset: { tn: `more-${kind}` }, "aria-label": `One ${label} more` }, "+");
    less.addEventListener("click", () => { state[kind] = Math.max(0, state[kind] - 1); update(); });
    more.addEventListener("click", () => { state[kind] = Math.min(have[kind], state[kind] + 1); update(); });
    const icon = h("i", { class: kind === "coins" ? "tn-coin" : "tn-fiasco" });
    return { el: h("div", { class: "tn-step" }, less, h("span", { class: "tn-step-label" }, icon, value), more), value, less, more, label, worth };
  };
  const steppers = [];
  if (have.coins) steppers.push(["coins", stepper("coins", "black token", 1)]);
  if (have.fiasco) steppers.push(["fiasco", stepper("fiasco", "fiasco token", FIASCO_WORTH)]);
  const picks = cardsUsable
    ? mine.map((c) => {
        const b = h("button", { type: "button", class: "tn-pick", dataset: { tn: "give", card: String(c.id) }, "aria-pressed": "false",
          "aria-label": `Give up ${cardName(c)} (worth 1${lossOf(c)})`, title: `Give up ${cardName(c)}${lossOf(c)}` }, card(h, c, { small: true, tag: "span" }),
          trusted ? h("span", { class: "tn-loss", "aria-hidden": "true" }, lostBy(c) ? `\u2212${lostBy(c)} pt` : "free") : null);
        b.addEventListener("click", () => {
          if (state.cards.has(c.id)) state.cards.delete(c.id);
          else state.cards.add(c.id);
          update();
        });
        return [c, b];
      })
    : [];
  // One-click fills for the payments without cards (the cards are the person's to choose).
  const fills = options.filter((x) => !x.pay.cards.length).slice(0, 4).map((x) =>
    h("button", { type: "button", class: "tn-fill", dataset: { tn: "fill", coins: String(x.pay.coins), fiasco: String(x.pay.fiasco) },
      "aria-label": `Set the payment to ${describePay(x.pay, [])}`,
      onclick: () => { state.coins = x.pay.coins; state.fiasco = x.pay.fiasco; state.cards.clear(); update(); } }, describePay(x.pay, [])));

  function update() {
    const given = state.coins + FIASCO_WORTH * state.fiasco + state.cards.size;
    const ok = match();
    let verdict;
    if (ok) verdict = given > price ? "fiasco tokens alone: no change is given" : "exact";
    else if (given < price) verdict = `${price - given} short`;
    else if (state.coins + state.cards.size === 0) verdict = `${Math.ceil(price / FIASCO_WORTH)} fiasco ${Math.ceil(price / FIASCO_WORTH) === 1 ? "token is" : "tokens are"} enough`;
    else verdict = `${given - price} too many: no change is given`;
    const cards = chosen();
    const after = cards.length && trusted ? ` · ${"your score"} ${scoreNow} → ${scoreOf(collection.filter((c) => !state.cards.has(c.id)))}` : "";
    sum.textContent = `You give ${given} of ${price} due: ${verdict}${after}`;
    sum.dataset.state = ok ? "ok" : given < price ? "short" : "over";
    for (const [kind, s] of steppers) {
      s.value.textContent = `${state[kind]} of ${have[kind]} ${kind === "coins" ? "black" : "fiasco, 3 each"}`;
      s.less.disabled = state[kind] === 0;
      s.more.disabled = state[kind] >= have[kind];
    }
    for (const [c, b] of picks) {
      const on = state.cards.has(c.id);
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.disabled = !on && state.cards.size >= price;
    }
    submit.disabled = !ok;
    const payText = describePay({ coins: state.coins, fiasco: state.fiasco }, cards);
    const hint = !ok ? "Choose tokens and cards that add up to what is due." : given > price ? "Fiasco tokens alone may pay more than is due." : "An exact payment.";
    submit.replaceChildren(h("b", null, ok ? `${verb} ${what} with ${payText}` : `${verb} ${what}`), h("span", null, hint));
  }
  submit.addEventListener("click", () => {
    const ok = match();
    if (!ok) return;
    const pay = { coins: state.coins, fiasco: state.fiasco, cards: [...state.cards].sort((x, y) => x - y) };
    const action = buyId === undefined ? { pay } : { buy: buyId, pay };
    act(action, `${verb} ${what} with ${describePay(pay, chosen())}`);
  });
  update();
  return h("div", { class: "tn-pay", dataset: { due: String(price) } },
    steppers.length ? h("div", { class: "tn-steps" }, steppers.map(([, s]) => s.el)) : null,
    picks.length
      ? h("div", { class: "tn-hand", role: "group", "aria-label": "Your number cards: each pays 1" },
          h("span", { class: "tn-hand-label" }, "Your number cards pay 1 each: choose the ones to give up."), picks.map(([, b]) => b))
      : null,
    fills.length ? h("div", { class: "tn-fills" }, h("span", { class: "tn-ctl-how" }, "Quick:"), fills) : null,
    sum, submit);
}

function buyControls(h, obs, ctx, { who, mine, collection, trusted, scoreNow, legalHas, act }) {
  const final = obs.phase === "final_buy";
  const later = final ? obs.final_buyers.filter((s) => s !== ctx.you) : [];
  const nextSeat = (obs.active + 1) % obs.players;
  const then = final
    ? later.length ? `${listing(later.map(who))} ${later.length === 1 ? "buys" : "buy"} after you, then the game ends.` : "Then the game ends."
    : obs.deck_left ? `Then it is ${who(nextSeat)}'s turn.` : "Then everyone makes a last purchase.";
  const how = final ? `Last purchases: you may buy one more card from the market. ${then}` : `You took the numbers: you may buy one card from the market (its price is its value). ${then}`;
  const panel = h("div", { class: "tn-buy-pay" });
  const market = [...obs.market].sort((x, y) => COLOURS.indexOf(x.colour) - COLOURS.indexOf(y.colour) || x.value - y.value);
  const buttons = [];
  for (const c of market) {
    const options = ctx.legal.filter((x) => x.buy === c.id && x.pay);
    const price = c.value ?? 0;
    const after = trusted ? `: your score ${scoreNow} → ${scoreOf([...collection, c])}` : "";
    const b = h("button", {
      type: "button", class: "tn-pick", dataset: { tn: "market", card: String(c.id) }, "aria-pressed": "false",
      "aria-label": options.length ? `Buy ${cardName(c)} for ${price}${after}` : `${cardName(c)} costs ${price}: you cannot pay it`,
      title: options.length ? `Buy ${cardName(c)} for ${price}${after}` : `${cardName(c)} costs ${price}: more than you can pay`,
    }, card(h, c, { small: true, tag: "span" }), h("span", { class: "tn-price" }, `${price}`));
    b.disabled = !options.length;
    b.addEventListener("click", () => {
      for (const other of buttons) other.setAttribute("aria-pressed", other === b ? "true" : "false");
      panel.replaceChildren(
        h("p", { class: "tn-ctl-how" }, `Buy ${cardName(c)} for ${price}${after}.`),
        payBuilder(h, obs, ctx, { price, options, mine, collection, trusted, scoreNow, what: cardName(c), verb: "Buy", act, buyId: c.id }),
      );
      // On a phone the payment opens below the fold: bring its sum and Buy button into sight.
      const submit = panel.querySelector("[data-tn=pay]");
      if (submit && typeof submit.scrollIntoView === "function") submit.scrollIntoView({ block: "nearest" });
    });
    buttons.push(b);
  }
  const nothing = legalHas((x) => x.buy === null)
    ? choiceButton(h, { tn: "nothing", title: "Buy nothing", detail: then, onclick: () => act({ buy: null }, "Buy nothing") })
    : null;
  const affordable = buttons.filter((b) => !b.disabled).length;
  return [
    h("p", { class: "tn-ctl-how" }, how),
    market.length
      ? h("div", { class: "tn-market-pick", role: "group", "aria-label": "The market: choose a card to buy" }, buttons)
      : h("p", { class: "tn-ctl-how" }, "The market is empty."),
    market.length && !affordable ? h("p", { class: "tn-ctl-how" }, `You cannot pay for any of these (you have ${purseText(obs, ctx.you, mine)}).`) : null,
    panel,
    h("div", { class: "tn-choices" }, nothing),
  ];
}
