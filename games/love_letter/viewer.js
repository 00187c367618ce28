// Love Letter's table for the replay viewer (docs/viewer.md). `render(view, ctx)` draws one step: the piles, each
// seat's hand (face down unless this perspective may see it), discards, tokens and markers. `view` is the engine's
// public_view(), observation(seat) or, after the end, full_view().

const CARDS = {
  1: ["Guard", "⚔", "Name a card other than Guard: if that player holds it, they are out."],
  2: ["Priest", "✝", "Look at another player's hand."],
  3: ["Baron", "⚖", "Compare hands with another player: the lower card is out."],
  4: ["Handmaid", "✿", "You are protected until your next turn."],
  5: ["Prince", "♔", "A player (you may choose yourself) discards their hand and draws a new card."],
  6: ["King", "♚", "Trade hands with another player."],
  7: ["Countess", "♕", "Must be discarded if you also hold the King or a Prince."],
  8: ["Princess", "♥", "If you discard her, you are out of the round."],
};

export const css = `
.ll { display: grid; gap: .9rem; }
.ll-top { display: flex; flex-wrap: wrap; align-items: flex-end; gap: .6rem 1.4rem; }
.ll-info { font-size: .95rem; line-height: 1.3; margin-right: auto; }
.ll-info b { font-size: 1.15rem; color: #fff; }
.ll-info small { display: block; color: #cfe0d4; }
.ll-pile { display: flex; flex-direction: column; align-items: center; gap: .25rem; margin: 0; }
.ll-pile figcaption { font-size: .72rem; text-transform: uppercase; letter-spacing: .06em; color: #cfe0d4; }
.ll-row { display: flex; gap: .3rem; flex-wrap: wrap; align-items: flex-end; }
.ll-card { position: relative; flex: none; width: 4.1rem; height: 5.8rem; border-radius: .45rem; background: #fffdf6;
  color: #2b2418; box-shadow: 0 2px 5px rgba(0,0,0,.35); border: 2px solid var(--ll, #999);
  display: grid; grid-template-rows: auto 1fr auto; justify-items: center; padding: .2rem .15rem .3rem; }
.ll-card .ll-v { justify-self: start; font-weight: 800; font-size: 1.05rem; line-height: 1; color: var(--ll);
  padding-left: .15rem; }
.ll-card .ll-i { font-size: 1.6rem; line-height: 1; align-self: center; color: var(--ll); }
.ll-card .ll-n { font-size: .6rem; font-weight: 700; letter-spacing: 0; text-transform: uppercase; }
.ll-card.ll-sm { width: 3.25rem; height: 4.1rem; border-width: 1.5px; padding: .12rem .1rem .2rem; border-radius: .3rem; }
.ll-card.ll-sm .ll-v { font-size: .85rem; }
.ll-card.ll-sm .ll-i { font-size: 1.05rem; }
.ll-card.ll-sm .ll-n { font-size: .52rem; letter-spacing: -.02em; text-transform: none; }
.ll-card.ll-back { background: repeating-linear-gradient(45deg, #7a2232 0 6px, #8d2b3d 6px 12px); border-color: #e8d6a8; }
.ll-card.ll-back::after { content: "❦"; position: absolute; inset: 0; display: grid; place-items: center; color: #e8d6a8;
  font-size: 1.5rem; }
.ll-card.ll-sm.ll-back::after { font-size: 1rem; }
.ll-card.ll-new { outline: 3px solid #f3c34b; outline-offset: 1px; }
.ll-card.ll-seen { box-shadow: 0 0 0 3px rgba(255,255,255,.55), 0 2px 5px rgba(0,0,0,.35); }
.ll-card .ll-tag { position: absolute; bottom: -.55rem; left: 50%; transform: translateX(-50%); background: #fff3cf;
  color: #5c4510; font-size: .55rem; font-weight: 700; padding: 0 .3rem; border-radius: 999px; white-space: nowrap;
  text-transform: uppercase; }
.ll-count { position: absolute; top: -.5rem; right: -.5rem; background: #f3c34b; color: #2b2418; border-radius: 999px;
  min-width: 1.5rem; height: 1.5rem; display: grid; place-items: center; font-weight: 800; font-size: .8rem; z-index: 1; }
.ll-v1 { --ll: #5b6f86; } .ll-v2 { --ll: #2f8a8a; } .ll-v3 { --ll: #8a5a2f; } .ll-v4 { --ll: #4b8a3c; }
.ll-v5 { --ll: #2d5f9a; } .ll-v6 { --ll: #6b3fa0; } .ll-v7 { --ll: #b0304f; } .ll-v8 { --ll: #c08a17; }
.pv-seat.ll-seat { padding-bottom: .7rem; }
.ll-seat.ll-out { opacity: .62; }
.ll-seat.ll-out .ll-hand { filter: grayscale(1); }
.ll-head { display: flex; flex-wrap: wrap; align-items: center; gap: .3rem .5rem; }
.ll-head .pv-chip { color: #fff; max-width: 100%; min-width: 0; flex: 0 1 auto; }
.ll-tokens { margin-left: auto; letter-spacing: .05em; color: #f7a8b5; font-size: 1rem; white-space: nowrap; }
.ll-tokens .ll-empty { color: rgba(255,255,255,.28); }
.ll-badges { display: flex; flex-wrap: wrap; gap: .25rem; }
.ll-badges:empty { display: none; }
.pv-badge.ll-b-prot { background: #4b8a3c; }
.ll-hand { display: flex; gap: .4rem; min-height: 6.1rem; align-items: flex-start; padding-bottom: .3rem; }
.ll-label { font-size: .68rem; text-transform: uppercase; letter-spacing: .06em; color: #cfe0d4; }
.ll-discards { min-height: 4.1rem; align-items: center; }
.ll-none { color: rgba(255,255,255,.4); font-size: .8rem; font-style: italic; }
.ll-knows { font-size: .75rem; color: #ffe7a3; }
.ll-round { background: rgba(255,248,225,.95); color: #2b2418; border-radius: .6rem; padding: .55rem .75rem; }
.ll-round h4 { margin: 0 0 .35rem; font-size: .95rem; }
.ll-round .ll-row { gap: .6rem 1.2rem; align-items: center; }
.ll-round .ll-endhand { display: flex; align-items: center; gap: .4rem; font-size: .8rem; min-width: 0; }
.ll-round .pv-chip { color: #2b2418; max-width: 12rem; }
.ll-won { color: #8a6514; font-weight: 800; }
.ll-prev { font-size: .8rem; color: #cfe0d4; }
@media (max-width: 520px) {
  .ll-card { width: 3.5rem; height: 5rem; }
  .ll-card .ll-i { font-size: 1.3rem; }
  .ll-card .ll-n { font-size: .58rem; }
  .ll-hand { min-height: 5.3rem; }
  .ll-info { flex-basis: 100%; }
}
`;

function card(h, value, { small = false, fresh = false, tag = null, seen = false } = {}) {
  const [name, icon, text] = CARDS[value] || [`Card ${value}`, "?", ""];
  return h(
    "div",
    { class: ["ll-card", `ll-v${value}`, small && "ll-sm", fresh && "ll-new", seen && "ll-seen"], title: `${name} (${value}): ${text}`, dataset: { card: String(value) } },
    h("span", { class: "ll-v" }, String(value)),
    h("span", { class: "ll-i", "aria-hidden": "true" }, icon),
    h("span", { class: "ll-n" }, name),
    tag ? h("span", { class: "ll-tag" }, tag) : null,
  );
}

function back(h, { small = false, count = null, title = "A hidden card" } = {}) {
  return h(
    "div",
    { class: ["ll-card", "ll-back", small && "ll-sm"], title, dataset: { card: "hidden" } },
    count !== null ? h("span", { class: "ll-count" }, String(count)) : null,
  );
}

/** What this perspective knows of seat `s`'s hand: [{value|null, tag}] */
function handOf(view, s, ctx) {
  if (Array.isArray(view.hands)) return view.hands[s].map((value) => ({ value }));
  if (view.seat === s && Array.isArray(view.hand)) return view.hand.map((value) => ({ value }));
  let size;
  if (Array.isArray(view.hand_sizes)) size = view.hand_sizes[s];
  else size = view.out[s] ? 0 : view.to_move === s ? 2 : 1;
  const cards = Array.from({ length: size }, () => ({ value: null }));
  const known = view.known && !Array.isArray(view.known) ? view.known[String(s)] : undefined;
  if (known !== undefined && cards.length) cards[0] = { value: known, tag: "you saw", seen: true };
  return cards;
}

export function render(view, ctx) {
  const { h } = ctx;
  const prev = ctx.previous && ctx.previous.round === view.round && !ctx.revealed ? ctx.previous : null;
  const n = view.players;

  const info = h(
    "div",
    { class: "ll-info" },
    h("b", null, `Round ${view.round}`),
    h("small", null, `First to ${view.target_tokens} tokens wins · seat ${view.starter} started`),
  );
  const piles = [
    h("figure", { class: "ll-pile" }, view.deck_size ? back(h, { count: view.deck_size, title: `${view.deck_size} cards in the deck` }) : h("div", { class: "ll-card ll-back", style: { opacity: ".25" } }), h("figcaption", null, `Deck · ${view.deck_size}`)),
  ];
  if (ctx.revealed && "burned" in view) {
    piles.push(h("figure", { class: "ll-pile" }, view.burned ? card(h, view.burned, { tag: "burned" }) : h("span", { class: "ll-none" }, "taken"), h("figcaption", null, "Burned")));
  } else {
    piles.push(h("figure", { class: "ll-pile" }, back(h, { title: "The burned card, face down" }), h("figcaption", null, "Burned")));
  }
  if (view.set_aside_up && view.set_aside_up.length) {
    piles.push(h("figure", { class: "ll-pile" }, h("div", { class: "ll-row" }, view.set_aside_up.map((v) => card(h, v, { small: true }))), h("figcaption", null, "Set aside, face up")));
  }
  const top = h("div", { class: "ll-top" }, info, piles);

  const seats = [];
  for (let s = 0; s < n; s += 1) {
    const turn = view.to_move === s;
    const me = view.seat === s;
    const badges = [];
    if (me) badges.push(h("span", { class: "pv-badge pv-b-you" }, "you"));
    if (turn) badges.push(h("span", { class: "pv-badge pv-b-turn" }, "to play"));
    if (view.protected[s]) badges.push(h("span", { class: "pv-badge ll-b-prot", title: "Protected by the Handmaid until their next turn" }, "✿ protected"));
    if (view.out[s]) badges.push(h("span", { class: "pv-badge pv-b-out" }, "out of the round"));
    const tokens = h(
      "span",
      { class: "ll-tokens", title: `${view.tokens[s]} of ${view.target_tokens} tokens`, dataset: { tokens: String(view.tokens[s]) } },
      "♥".repeat(Math.min(view.tokens[s], view.target_tokens)),
      h("span", { class: "ll-empty" }, "♡".repeat(Math.max(0, view.target_tokens - view.tokens[s]))),
    );
    const hand = handOf(view, s, ctx);
    const handCards = hand.length
      ? hand.map((c) => (c.value === null ? back(h) : card(h, c.value, { tag: c.tag, seen: c.seen })))
      : [h("span", { class: "ll-none" }, view.out[s] ? "no cards" : "—")];
    const shownBefore = prev ? prev.discards[s].length : view.discards[s].length;
    const discards = view.discards[s].length
      ? view.discards[s].map((v, i) => card(h, v, { small: true, fresh: i >= shownBefore }))
      : [h("span", { class: "ll-none" }, "nothing yet")];
    let knows = null;
    if (me && view.seen_by && Object.keys(view.seen_by).length) {
      knows = h("div", { class: "ll-knows" }, `Seen by ${Object.keys(view.seen_by).map((o) => `seat ${o}`).join(", ")}`);
    }
    seats.push(
      h(
        "section",
        { class: ["pv-seat", "ll-seat", turn && "pv-turn", me && "pv-me", view.out[s] && "ll-out"], dataset: { seat: String(s) } },
        h("div", { class: "ll-head" }, ctx.seatChip(s), tokens),
        h("div", { class: "ll-badges" }, badges),
        h("div", { class: "ll-hand", "aria-label": "Hand" }, handCards),
        knows,
        h("div", { class: "ll-label" }, "Discards"),
        h("div", { class: "ll-row ll-discards" }, discards),
      ),
    );
  }

  const parts = [top, h("div", { class: "pv-seats" }, seats)];
  const last = view.last_round;
  const justEnded = last && (ctx.revealed || (ctx.previous && ctx.previous.round !== view.round) || view.over);
  if (last && justEnded) parts.push(roundSummary(h, last, ctx));
  else if (last) {
    parts.push(h("div", { class: "ll-prev" }, `Round ${last.round} went to ${last.winners.map((w) => `seat ${w}`).join(" and ")}.`));
  }
  if (ctx.revealed && Array.isArray(view.deck) && view.deck.length) {
    parts.push(h("div", null, h("div", { class: "ll-label" }, "Left in the deck, top first"), h("div", { class: "ll-row" }, view.deck.map((v) => card(h, v, { small: true })))));
  }
  return h("div", { class: "ll" }, parts);
}

function roundSummary(h, last, ctx) {
  const hands = last.hands.map((v, s) =>
    h(
      "span",
      { class: "ll-endhand" },
      ctx.seatChip(s, "pv-chip-sm"),
      v === null ? h("span", null, "out") : card(h, v, { small: true }),
      last.winners.includes(s) ? h("span", { class: "ll-won" }, "+1 ♥") : null,
    ),
  );
  return h(
    "div",
    { class: "ll-round" },
    h("h4", null, `Round ${last.round} is over${last.showdown ? ": the deck ran out, hands compared" : ""}`),
    h(
      "div",
      { class: "ll-row" },
      hands,
      h("span", { class: "ll-endhand" }, "Burned:", last.burned ? card(h, last.burned, { small: true }) : h("span", null, "taken")),
    ),
  );
}
