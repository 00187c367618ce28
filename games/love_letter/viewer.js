// Love Letter's table for the replay viewer (docs/viewer.md). `render(view, ctx)` draws one step: the piles, each
// seat's hand (face down unless this perspective may see it), discards, tokens and markers. `view` is the engine's
// public_view(), observation(seat) or, after the end, full_view().
// `controls(observation, ctx)` is a person's move at a table (docs/viewer.md, "Controls"): a card of the hand, then a
// target by name, then the Guard's guess by card name; every final button says the move as a sentence.

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
/* A person's move (controls): on the felt's colours, below the table. */
.ll-ctl { background: var(--pv-felt, #1f4d3a); color: #f6f3ea; border-radius: 12px; padding: .7rem .8rem .8rem;
  display: grid; gap: .6rem; box-shadow: inset 0 0 0 4px #18402f; }
.ll-ctl-how { margin: 0; font-size: .85rem; color: #cfe0d4; }
.ll-ctl-how b { color: #fff; }
.ll-ctl button { font: inherit; cursor: pointer; margin: 0; }
.ll-ctl button:disabled { cursor: default; }
.ll-ctl button:focus-visible { outline: 3px solid #fff; outline-offset: 2px; box-shadow: 0 0 0 6px #18402f; }
.ll-ctl-hand { display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 19rem)); gap: .5rem; }
.ll-pick { display: grid; grid-template-columns: 2.4rem 1fr; gap: .1rem .5rem; align-items: start; text-align: left;
  background: #fffdf6; color: #2b2418; border: 2px solid var(--ll, #999); border-left-width: .45rem;
  border-radius: .5rem; padding: .4rem .5rem .45rem .35rem; min-height: 5.4rem; box-shadow: 0 2px 5px rgba(0,0,0,.35);
  transition: transform .12s; }
.ll-pick:hover:not(:disabled) { transform: translateY(-2px); }
.ll-pick[aria-pressed="true"] { transform: translateY(-3px); box-shadow: 0 0 0 3px #f3c34b, 0 6px 12px rgba(0,0,0,.45); }
.ll-pick:disabled { opacity: .55; filter: grayscale(.6); }
.ll-pick-face { display: grid; justify-items: center; gap: .15rem; color: var(--ll); }
.ll-pick-face b { font-size: 1.5rem; line-height: 1; font-weight: 800; }
.ll-pick-face span { font-size: 1.35rem; line-height: 1; }
.ll-pick-text { display: grid; gap: .15rem; min-width: 0; }
.ll-pick-name { font-weight: 800; font-size: 1rem; display: flex; flex-wrap: wrap; gap: .1rem .4rem; align-items: baseline; }
.ll-pick-name small { font-weight: 700; font-size: .6rem; text-transform: uppercase; letter-spacing: .04em;
  background: #fff3cf; color: #5c4510; padding: 0 .3rem; border-radius: 999px; }
.ll-pick-does { font-size: .78rem; line-height: 1.25; color: #4a3f2c; }
.ll-ctl-note { margin: 0; font-size: .82rem; color: #ffe7a3; }
.ll-ctl-step { display: grid; gap: .45rem; }
.ll-ctl-step:empty { display: none; }
.ll-ctl-ask { margin: 0; font-size: .9rem; font-weight: 700; color: #fff; }
.ll-ctl-opts { display: flex; flex-wrap: wrap; gap: .4rem; }
.ll-go { flex: 1 1 16rem; text-align: left; background: #f3c34b; color: #2b2418; border: 0; border-radius: .45rem;
  padding: .5rem .7rem; font-size: .92rem; line-height: 1.3; box-shadow: 0 2px 4px rgba(0,0,0,.35); }
.ll-go:hover:not(:disabled) { background: #ffd867; }
.ll-go b { font-weight: 800; }
.ll-go.ll-danger { background: #f3c7c0; }
.ll-who { background: #fffdf6; color: #2b2418; border: 2px solid #e8d6a8; border-radius: 999px; padding: .3rem .8rem;
  font-weight: 700; font-size: .9rem; }
.ll-who[aria-pressed="true"] { background: #f3c34b; border-color: #f3c34b; }
.ll-guesses { display: grid; grid-template-columns: repeat(auto-fit, minmax(7.4rem, 1fr)); gap: .35rem; }
.ll-guess { display: grid; grid-template-columns: auto 1fr; gap: 0 .3rem; align-items: center; text-align: left;
  background: #fffdf6; color: #2b2418; border: 2px solid var(--ll, #999); border-left-width: .3rem;
  border-radius: .4rem; padding: .2rem .3rem; min-width: 0; }
.ll-guess:hover:not(:disabled) { background: #fff3cf; }
.ll-guess > b { grid-row: span 2; font-size: 1.15rem; font-weight: 800; color: var(--ll); }
.ll-guess > span { font-weight: 700; font-size: .85rem; white-space: nowrap; }
.ll-guess > small { font-size: .68rem; color: #6b5d44; }
.ll-guess.ll-sure { box-shadow: 0 0 0 3px #f3c34b; }
.ll-guess.ll-none-left > small { color: #9b1c1c; }
@media (max-width: 520px) {
  .ll-ctl { padding: .55rem .55rem .65rem; }
  .ll-ctl-hand { grid-template-columns: 1fr 1fr; gap: .4rem; }
  .ll-pick { grid-template-columns: 1.7rem 1fr; padding: .35rem .4rem .4rem .25rem; gap: .1rem .35rem; }
  .ll-pick-face b { font-size: 1.25rem; }
  .ll-pick-face span { font-size: 1.1rem; }
  .ll-pick-name { font-size: .92rem; }
  .ll-pick-does { font-size: .72rem; }
  .ll-go { flex-basis: 100%; font-size: .88rem; }
  .ll-guesses { grid-template-columns: repeat(3, minmax(0, 1fr)); gap: .3rem; }
  .ll-guess { padding: .2rem .25rem; gap: 0 .25rem; border-left-width: .25rem; }
  .ll-guess > b { font-size: .95rem; }
  .ll-guess > span { font-size: .76rem; letter-spacing: -.02em; }
  .ll-guess > small { font-size: .64rem; }
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

/** A seat's name (its bot's label, "you (…)" at a person's table), or "seat N" where the context has none. */
function nameOf(ctx, s) {
  const name = typeof ctx.name === "function" ? ctx.name(s) : null;
  return name || `seat ${s}`;
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
    h("small", null, `First to ${view.target_tokens} tokens wins · ${nameOf(ctx, view.starter)} started`),
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
      knows = h("div", { class: "ll-knows" }, `Seen by ${Object.keys(view.seen_by).map((o) => nameOf(ctx, Number(o))).join(", ")}`);
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
    parts.push(h("div", { class: "ll-prev" }, `Round ${last.round} went to ${last.winners.map((w) => nameOf(ctx, w)).join(" and ")}.`));
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

// ----- A person's move at a table (docs/viewer.md, "Controls") ---------------------------------------------------

const COPIES = { 1: 5, 2: 2, 3: 2, 4: 2, 5: 2, 6: 1, 7: 1, 8: 1 };
const cardName = (value) => (CARDS[value] ? CARDS[value][0] : `card ${value}`);
const isPlay = (a) =>
  a !== null && typeof a === "object" && Number.isInteger(a.card) &&
  (a.target === undefined || Number.isInteger(a.target)) && (a.guess === undefined || Number.isInteger(a.guess)) &&
  Object.keys(a).every((key) => ["card", "target", "guess"].includes(key));

/** Copies of each card not in sight of this seat (not in its hand, any discard pile or the face-up cards). */
function unseen(obs) {
  const left = { ...COPIES };
  const seen = [...(obs.hand || []), ...(obs.set_aside_up || []), ...(obs.discards || []).flat()];
  for (const v of seen) if (left[v] !== undefined) left[v] -= 1;
  return left;
}

/**
 * The person's move: their hand as buttons (name, value and what the card does), then, for a card with a target,
 * the players it may choose by name, then the Guard's guess by card name. Only `ctx.legal`'s actions are offered, and
 * each is sent as it stands there. Returns null (the protocol's buttons) if an action is not of the declared shape.
 */
export function controls(obs, ctx) {
  const { h } = ctx;
  const legal = ctx.legal || [];
  if (!obs || !Array.isArray(obs.hand) || !legal.length || !legal.every(isPlay)) return null;
  const you = ctx.you ?? obs.seat;
  const who = (s) => (s === you ? "you" : ctx.name(s));
  const byCard = new Map();
  for (const action of legal) {
    if (!byCard.has(action.card)) byCard.set(action.card, []);
    byCard.get(action.card).push(action);
  }
  const hand = obs.hand;
  const otherCard = (index) => hand.filter((_, i) => i !== index)[0];
  const left = unseen(obs);
  const known = obs.known && !Array.isArray(obs.known) ? obs.known : {};
  const state = { index: null, target: null };

  const step = h("div", { class: "ll-ctl-step", "data-step": "", "aria-live": "polite" });
  const picks = hand.map((value, index) => {
    const [name, icon, does] = CARDS[value] || [`Card ${value}`, "?", ""];
    const drawn = index === hand.length - 1 && hand.length > 1;
    const playable = byCard.has(value);
    return h(
      "button",
      {
        type: "button", class: ["ll-pick", `ll-v${value}`], "aria-pressed": "false", disabled: !playable,
        "aria-label": `${name} (${value})${drawn ? ", just drawn" : ""}: ${does}`,
        dataset: { card: String(value) },
        onclick: () => choose(index),
      },
      h("span", { class: "ll-pick-face", "aria-hidden": "true" }, h("b", null, String(value)), h("span", null, icon)),
      h(
        "span",
        { class: "ll-pick-text" },
        h("span", { class: "ll-pick-name" }, name, drawn ? h("small", null, "just drawn") : null),
        h("span", { class: "ll-pick-does" }, does),
      ),
    );
  });

  let note = null;
  const blocked = hand.filter((v) => !byCard.has(v));
  if (blocked.length && byCard.has(7)) {
    note = h("p", { class: "ll-ctl-note" }, `You hold the Countess with the ${cardName(blocked[0])}: you must play the Countess.`);
  }

  function finalButton(action, main, effect, danger = false) {
    const sentence = effect ? `${main}: ${effect}` : main;
    return h(
      "button",
      {
        type: "button", class: ["ll-go", danger && "ll-danger"], "data-final": "", dataset: { action: JSON.stringify(action) },
        onclick: () => ctx.act(action, sentence),
      },
      h("b", null, main), effect ? `: ${effect}` : "",
    );
  }

  /** Why the players this card cannot choose are left out (protected, out of the round). */
  function whyNot(targets) {
    const reasons = [];
    for (let s = 0; s < obs.players; s += 1) {
      if (s === you || targets.includes(s)) continue;
      if (obs.out && obs.out[s]) reasons.push(`${who(s)} is out of the round`);
      else if (obs.protected && obs.protected[s]) reasons.push(`${who(s)} is protected by the Handmaid`);
    }
    return reasons;
  }

  function sentenceFor(action, index) {
    const name = cardName(action.card);
    const t = action.target;
    const mine = cardName(otherCard(index));
    const saw = t !== undefined && known[String(t)] !== undefined ? ` (you saw a ${cardName(known[String(t)])})` : "";
    switch (action.card) {
      case 2: return [`Play Priest on ${who(t)}`, "look at their hand"];
      case 3: return [`Play Baron against ${who(t)}`, `compare your ${mine} with their card${saw}; the lower card is out`];
      case 5:
        if (t === you) {
          return otherCard(index) === 8
            ? [`Play Prince on yourself`, "you discard your Princess and are out of the round"]
            : [`Play Prince on yourself`, `discard your ${mine} and draw a new card`];
        }
        return [`Play Prince on ${who(t)}`, `they discard their card${saw} and draw a new one`];
      case 6: return [`Play King on ${who(t)}`, `trade your ${mine} for their card${saw}`];
      default: return [`Play ${name} on ${who(t)}`, ""];
    }
  }

  function drawStep() {
    if (state.index === null) { step.replaceChildren(); return; }
    const index = state.index;
    const value = hand[index];
    const name = cardName(value);
    const actions = byCard.get(value) || [];
    const parts = [];
    const targets = [...new Set(actions.filter((a) => a.target !== undefined).map((a) => a.target))];
    if (!targets.length) {
      const action = actions[0];
      if (value === 8) parts.push(finalButton(action, "Play Princess", "you are out of the round", true));
      else if (value === 4) parts.push(finalButton(action, "Play Handmaid", "nobody can choose you until your next turn"));
      else if (value === 7) parts.push(finalButton(action, "Play Countess", "it has no effect"));
      else {
        const reasons = whyNot([]);
        if (reasons.length) parts.push(h("p", { class: "ll-ctl-note" }, `${reasons.join("; ")}: nobody can be chosen, so the ${name} has no effect.`));
        parts.push(finalButton(action, `Play ${name}`, "no effect, nobody can be chosen"));
      }
    } else {
      const reasons = whyNot(targets);
      const onlyYou = targets.length === 1 && targets[0] === you;
      if (onlyYou) parts.push(h("p", { class: "ll-ctl-note" }, `${reasons.join("; ")}: the Prince must choose you.`));
      else if (reasons.length) parts.push(h("p", { class: "ll-ctl-note" }, `Cannot be chosen: ${reasons.join("; ")}.`));
      if (value !== 1) {
        parts.push(h("p", { class: "ll-ctl-ask" }, targets.length > 1 ? `Whom does your ${name} choose?` : `Your ${name}:`));
        parts.push(h("div", { class: "ll-ctl-opts" }, actions.map((a) => finalButton(a, ...sentenceFor(a, index), a.card === 5 && a.target === you && otherCard(index) === 8))));
      } else {
        if (targets.length === 1) state.target = targets[0];
        if (targets.length > 1) {
          parts.push(h("p", { class: "ll-ctl-ask" }, "Whose card does your Guard name?"));
          parts.push(h("div", { class: "ll-ctl-opts", role: "group", "aria-label": "The Guard's target" }, targets.map((t) =>
            h("button", {
              type: "button", class: "ll-who", "data-pick": "", "aria-pressed": String(state.target === t),
              onclick: () => { state.target = t; drawStep(); focusFirst("[data-final]"); },
            }, `Guess ${who(t)}'s card`),
          )));
        }
        if (state.target !== null && targets.includes(state.target)) {
          const t = state.target;
          const saw = known[String(t)];
          parts.push(h("p", { class: "ll-ctl-ask" }, `Play Guard on ${who(t)}, naming…`));
          const guesses = actions.filter((a) => a.target === t);
          parts.push(h("div", { class: "ll-guesses", role: "group", "aria-label": `Your guess for ${who(t)}'s card` }, guesses.map((a) => {
            const g = a.guess;
            const count = Math.max(0, left[g] ?? 0);
            const hint = saw === g ? "you saw it" : `${count} unseen`;
            const sentence = `Play Guard on ${who(t)}, naming ${cardName(g)}`;
            return h("button", {
              type: "button", class: ["ll-guess", `ll-v${g}`, saw === g && "ll-sure", !count && saw !== g && "ll-none-left"],
              "data-final": "", dataset: { action: JSON.stringify(a) }, "aria-label": `${sentence} (${hint})`,
              title: saw === g ? `${sentence}: you saw this card in their hand.` : `${sentence}. Copies you have not seen (in a hand, the deck or the burned card): ${count}.`,
              onclick: () => ctx.act(a, sentence),
            }, h("b", { "aria-hidden": "true" }, String(g)), h("span", null, cardName(g)), h("small", null, hint));
          })));
        }
      }
    }
    step.replaceChildren(...parts);
  }

  function focusFirst(selector) {
    const first = step.querySelector(`button${selector}:not(:disabled)`) || step.querySelector("button:not(:disabled)");
    if (first) first.focus();
  }

  function choose(index) {
    if (!byCard.has(hand[index])) return;  // not playable (the page re-enables every button after a refusal)
    state.index = index;
    state.target = null;
    picks.forEach((button, i) => button.setAttribute("aria-pressed", String(i === index)));
    drawStep();
    focusFirst("");
  }

  const playable = picks.filter((button) => !button.disabled);
  const root = h(
    "section",
    { class: "ll-ctl", "aria-label": "Your move" },
    h("p", { class: "ll-ctl-how" }, h("b", null, "Your turn: "), "play one of your two cards, then choose whom it targets."),
    h("div", { class: "ll-ctl-hand", role: "group", "aria-label": "Your hand" }, picks),
    note,
    step,
  );
  // Only one card may be played (the Countess rule): it is chosen already.
  if (playable.length === 1) {
    const index = picks.indexOf(playable[0]);
    state.index = index;
    picks[index].setAttribute("aria-pressed", "true");
    drawStep();
  }
  return root;
}
