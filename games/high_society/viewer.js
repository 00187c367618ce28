// High Society's table for the replay viewer (docs/viewer.md): the status card on auction, each seat's money in
// hand, the bid in front of them, the cards they won, and (after the end) money left, who is cast out and scores.
// Everything but the deck order is public, so a seat's view differs only in marking "you".

const SCANDALS = {
  discard: ["Gossip", "lose one guest card"],
  minus5: ["Faux pas", "−5"],
  halve: ["Fraud", "final score ½"],
};

export const css = `
.hs { display: grid; gap: .9rem; }
.hs-top { display: flex; flex-wrap: wrap; gap: .8rem 1.6rem; align-items: center; }
.hs-auction { display: flex; gap: .9rem; align-items: center; }
.hs-auction .hs-label { font-size: .72rem; text-transform: uppercase; letter-spacing: .06em; color: #cfe0d4; }
.hs-auction b { display: block; font-size: 1.15rem; color: #fff; }
.hs-facts { display: flex; flex-wrap: wrap; gap: .4rem .9rem; font-size: .85rem; color: #e4efe7; }
.hs-facts span b { color: #fff; }
.hs-rings { display: inline-flex; gap: .2rem; vertical-align: middle; }
.hs-ring { width: .8rem; height: .8rem; border-radius: 50%; border: 2px solid #e06a5f; }
.hs-ring.hs-on { background: #e06a5f; }
.hs-card { position: relative; flex: none; width: 4.6rem; height: 6.4rem; border-radius: .5rem; background: #fffdf6;
  color: #2b2418; display: grid; place-items: center; text-align: center; box-shadow: 0 2px 6px rgba(0,0,0,.35);
  border: 2px solid #c9b27a; padding: .2rem; }
.hs-card .hs-big { font-size: 1.9rem; font-weight: 800; line-height: 1; }
.hs-card .hs-name { font-size: .62rem; font-weight: 700; text-transform: uppercase; letter-spacing: .03em; }
.hs-card.hs-prestige { background: linear-gradient(160deg, #fff6d8, #f1d98f); border-color: #b8871c; }
.hs-card.hs-scandal { background: #3b2430; color: #f7d9df; border-color: #8a3048; }
.hs-card.hs-red::after { content: ""; position: absolute; top: .3rem; right: .3rem; width: .7rem; height: .7rem;
  border-radius: 50%; border: 2px solid #d0473b; }
.hs-card.hs-sm { width: 3.1rem; height: 4rem; border-width: 1.5px; border-radius: .35rem; }
.hs-card.hs-sm .hs-big { font-size: 1.05rem; }
.hs-card.hs-sm .hs-name { font-size: .5rem; letter-spacing: 0; }
.hs-card.hs-sm.hs-red::after { width: .45rem; height: .45rem; top: .15rem; right: .15rem; }
.hs-card.hs-back { background: repeating-linear-gradient(135deg, #3f2b57 0 6px, #4d356a 6px 12px); border-color: #c9b27a; }
.hs-card.hs-new { outline: 3px solid #f3c34b; outline-offset: 1px; }
.hs-seats { --pv-seat-min: 16rem; }
.hs-row { display: flex; flex-wrap: wrap; gap: .25rem; align-items: center; min-height: 1.6rem; }
.hs-label2 { font-size: .68rem; text-transform: uppercase; letter-spacing: .06em; color: #cfe0d4; }
.hs-money { display: inline-grid; place-items: center; min-width: 1.9rem; height: 1.45rem; padding: 0 .3rem;
  border-radius: .3rem; background: #e9f0dc; color: #2f4a1f; font-weight: 800; font-size: .8rem;
  border: 1px solid #a9bd8a; font-variant-numeric: tabular-nums; }
.hs-money.hs-bid { background: #f3c34b; color: #2b2418; border-color: #c59a3a; }
.hs-money.hs-spent { background: transparent; color: rgba(255,255,255,.45); border-color: rgba(255,255,255,.2);
  text-decoration: line-through; }
.hs-total { font-weight: 800; color: #fff; margin-left: .3rem; font-size: .85rem; }
.hs-none { color: rgba(255,255,255,.45); font-size: .8rem; font-style: italic; }
.hs-score { font-size: .9rem; color: #fff; }
.hs-score b { font-size: 1.2rem; }
.hs-deck { font-size: .8rem; color: #cfe0d4; }
@media (max-width: 520px) { .hs-card { width: 4rem; height: 5.6rem; } }
`;

function isRed(card) {
  return card.kind === "prestige" || (card.kind === "scandal" && card.effect === "halve");
}

function describe(card) {
  if (card.kind === "guest") return [`${card.value}`, "guest", `Guest worth ${card.value}`];
  if (card.kind === "prestige") return ["×2", "prestige", "Prestige: doubles your score"];
  const [name, effect] = SCANDALS[card.effect] || [card.effect, ""];
  return [name === "Fraud" ? "½" : name === "Faux pas" ? "−5" : "✕", name, `${name}: ${effect}`];
}

function statusCard(h, card, { small = false, fresh = false } = {}) {
  const [big, name, title] = describe(card);
  return h(
    "div",
    { class: ["hs-card", `hs-${card.kind}`, small && "hs-sm", isRed(card) && "hs-red", fresh && "hs-new"], title },
    h("div", null, h("div", { class: "hs-big" }, big), h("div", { class: "hs-name" }, name)),
  );
}

function money(h, value, cls) {
  return h("span", { class: ["hs-money", cls], title: `${value} in money` }, String(value));
}

const sum = (list) => list.reduce((a, b) => a + b, 0);

export function render(view, ctx) {
  const { h } = ctx;
  const over = view.phase === "over";
  const prev = ctx.previous;

  const onAuction = view.card
    ? statusCard(h, view.card)
    : view.ending_card
      ? statusCard(h, view.ending_card)
      : h("div", { class: "hs-card hs-back", title: "No card on auction" });
  const heading = over
    ? view.ending_card ? "The fourth red ring ended the game" : "The game is over"
    : view.phase === "discard"
      ? "Gossip: a guest must be discarded"
      : view.card && view.card.kind === "scandal"
        ? "Bidding to avoid a scandal"
        : "Bidding for a status card";
  const rings = h("span", { class: "hs-rings", title: `${view.red_revealed} of 4 red-ring cards revealed` },
    [0, 1, 2, 3].map((i) => h("span", { class: ["hs-ring", i < view.red_revealed && "hs-on"] })));
  const top = h(
    "div",
    { class: "hs-top" },
    h("div", { class: "hs-auction" }, onAuction,
      h("div", null, h("span", { class: "hs-label" }, `Auction ${view.auction}`), h("b", null, heading),
        !over && view.card ? h("span", { class: "hs-facts" }, h("span", null, "Highest bid ", h("b", null, String(view.highest_bid)))) : null)),
    h("div", { class: "hs-facts" },
      h("span", null, "Red rings ", rings),
      h("span", null, "Deck ", h("b", null, String(view.deck_left))),
      view.discarded && view.discarded.length
        ? h("span", null, "Discarded ", view.discarded.map((c) => statusCard(h, c, { small: true })))
        : null),
  );

  const result = view.result;
  const best = result ? Math.max(...result.scores.filter((_, s) => !result.cast_out[s])) : null;
  const seats = [];
  for (let s = 0; s < view.players; s += 1) {
    const turn = view.to_move === s;
    const me = view.seat === s;
    const badges = [];
    if (me) badges.push(h("span", { class: "pv-badge pv-b-you" }, "you"));
    if (turn) badges.push(h("span", { class: "pv-badge pv-b-turn" }, view.phase === "discard" ? "to discard" : "to bid"));
    if (view.passed[s] && !over) badges.push(h("span", { class: "pv-badge" }, "passed"));
    if (view.pending_discard[s]) badges.push(h("span", { class: "pv-badge" }, "Gossip waiting"));
    if (result && result.cast_out[s]) badges.push(h("span", { class: "pv-badge pv-b-out" }, "cast out"));
    if (result && !result.cast_out[s] && result.scores[s] === best) badges.push(h("span", { class: "pv-badge pv-b-win" }, "★ best"));

    const hand = [...view.money_of[s]].sort((a, b) => a - b);
    const bid = view.bids[s];
    const wonBefore = prev && prev.won ? prev.won[s].length : view.won[s].length;
    seats.push(
      h(
        "section",
        { class: ["pv-seat", "hs-seat", turn && "pv-turn", me && "pv-me", view.passed[s] && "hs-passed"], dataset: { seat: String(s) } },
        h("div", { class: "pv-seat-head" }, ctx.seatChip(s), badges),
        h("div", { class: "hs-label2" }, `Money in hand · ${sum(hand)}`),
        h("div", { class: "hs-row" }, hand.length ? hand.map((v) => money(h, v)) : h("span", { class: "hs-none" }, "none")),
        h("div", { class: "hs-label2" }, "Bid"),
        h("div", { class: "hs-row" }, bid.length ? [bid.map((v) => money(h, v, "hs-bid")), h("span", { class: "hs-total" }, `= ${sum(bid)}`)] : h("span", { class: "hs-none" }, "—")),
        h("div", { class: "hs-label2" }, `Won · spent ${sum(view.spent[s])}`),
        h("div", { class: "hs-row" }, view.won[s].length ? view.won[s].map((c, i) => statusCard(h, c, { small: true, fresh: i >= wonBefore })) : h("span", { class: "hs-none" }, "nothing yet")),
        result
          ? h("div", { class: "hs-score" }, "Money left ", h("b", null, String(result.money_left[s])), " · score ", h("b", null, String(result.scores[s])))
          : null,
      ),
    );
  }
  const parts = [top, h("div", { class: ["pv-seats", "hs-seats"] }, seats)];
  if (ctx.revealed && Array.isArray(view.deck)) {
    parts.push(h("div", { class: "hs-deck" }, view.deck.length ? ["Never auctioned, in deck order: ", h("span", { class: "hs-row" }, view.deck.map((c) => statusCard(h, c, { small: true })))] : "The deck was used up."));
  }
  return h("div", { class: "hs" }, parts);
}
