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
/* A person's move at a table (controls): money cards to toggle, the running total, Bid and Pass. */
.hs-ctl { display: grid; gap: .55rem; color: #1d2321; max-width: 44rem; padding-bottom: .5rem; }
.hs-ctl-head { display: flex; gap: .7rem; align-items: center; }
.hs-ctl-head .hs-card { border-width: 1.5px; }
.hs-ctl-what { display: grid; gap: .15rem; min-width: 0; }
.hs-ctl-what b { font-size: 1rem; }
.hs-ctl-what span, .hs-ctl-how { font-size: .85rem; color: #4c5651; }
.hs-ctl-label { font-size: .72rem; text-transform: uppercase; letter-spacing: .06em; color: #5d6762; margin: 0; }
.hs-ctl-hand { display: flex; flex-wrap: wrap; gap: .4rem; padding-top: .35rem; }
.hs-mc { font: inherit; width: 2.9rem; height: 3.8rem; border-radius: .4rem; border: 2px solid #a9bd8a; background: #eef4e2;
  color: #2f4a1f; font-weight: 800; font-size: 1.15rem; font-variant-numeric: tabular-nums; cursor: pointer; padding: 0;
  box-shadow: 0 1px 3px rgba(0,0,0,.18); transition: transform .08s ease-out; }
.hs-mc:hover { border-color: #6f8f4a; }
.hs-mc[aria-pressed="true"] { background: #f3c34b; border-color: #8a6a1c; color: #2b2418; transform: translateY(-.3rem);
  box-shadow: 0 4px 8px rgba(0,0,0,.25); }
.hs-mc:disabled { cursor: default; opacity: .55; }
.hs-infront { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; font-size: .85rem; color: #4c5651; }
.hs-infront .hs-money { background: #f3c34b; color: #2b2418; border-color: #c59a3a; }
.hs-tally { margin: 0; font-variant-numeric: tabular-nums; font-size: .95rem; padding: .35rem .55rem; border-radius: .4rem;
  background: #f3f1ea; border-left: 4px solid #b9b3a3; }
.hs-tally.hs-ok { background: #e6f2e8; border-left-color: #2f7d4f; }
.hs-tally.hs-low { background: #fbeeee; border-left-color: #b3362f; }
.hs-ctl-buttons { display: flex; flex-wrap: wrap; gap: .5rem; align-items: stretch; }
.hs-btn { font: inherit; font-size: .95rem; border-radius: .45rem; padding: .5rem .9rem; cursor: pointer; border: 1px solid #8f8a7c;
  background: #fff; color: #1d2321; text-align: left; max-width: 100%; }
.hs-btn:hover:not(:disabled) { border-color: #1d2321; }
.hs-btn:disabled { cursor: default; opacity: .5; }
.hs-btn-bid { background: #c59a3a; border-color: #9c7a2b; color: #1d1a10; font-weight: 800; min-width: 6.5rem; text-align: center; }
.hs-btn-pass { flex: 1 1 16rem; }
.hs-btn-pass b { display: block; }
.hs-btn-pass span { font-size: .85rem; color: #4c5651; }
.hs-discards { display: flex; flex-wrap: wrap; gap: .6rem; }
.hs-btn-discard { display: grid; justify-items: center; gap: .3rem; padding: .4rem .5rem; text-align: center; font-size: .85rem; }
.hs-ctl button:focus-visible { outline: 3px solid #2d5f9a; outline-offset: 2px; }
@media (max-width: 520px) {
  .hs-ctl-hand { gap: .3rem; }
  .hs-mc { width: 2.55rem; height: 3.4rem; font-size: 1.05rem; }
  .hs-btn-pass { flex-basis: 100%; }
}
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

// ----- A person's move at a table (docs/viewer.md, "Controls") ----------------------------------------------------
// The money in hand as cards to toggle, the running total against the highest bid, "Bid N" (enabled only when the
// chosen cards are one of the legal bids, matched against ctx.legal) and "Pass" saying what passing means now; after
// taking Gossip, the guests owned as cards to discard. The legal bids (up to 2,047) are never listed.

function cardPhrase(card) {
  if (card.kind === "guest") return `the guest ${card.value}`;
  if (card.kind === "prestige") return "the prestige card (×2)";
  const [name, effect] = SCANDALS[card.effect] || [card.effect, ""];
  return `the ${name} (${effect})`;
}

const bidKey = (cards) => JSON.stringify([...cards].sort((a, b) => b - a));
const plus = (cards) => [...cards].sort((a, b) => b - a).join(" + ");

function discardControls(obs, ctx) {
  const { h } = ctx;
  const choices = ctx.legal.filter((a) => Number.isInteger(a.discard));
  if (!choices.length) return null;
  return h("div", { class: "hs-ctl", "data-hs-controls": "discard" },
    h("div", { class: "hs-ctl-head" },
      statusCard(h, { kind: "scandal", effect: "discard" }, { small: true }),
      h("div", { class: "hs-ctl-what" },
        h("b", null, "Gossip: give up one of your guests"),
        h("span", null, "The guest you choose is discarded with the Gossip; prestige cards are never lost."))),
    h("div", { class: "hs-discards", role: "group", "aria-label": "Your guests" },
      choices.map((action) => {
        const label = `Discard your guest ${action.discard}`;
        return h("button", {
          type: "button", class: "hs-btn hs-btn-discard", "aria-label": `${label} (the Gossip goes with it)`,
          dataset: { hsDiscard: String(action.discard) },
          onclick: () => ctx.act(action, `You discard your guest ${action.discard} with the Gossip`),
        }, statusCard(h, { kind: "guest", value: action.discard }, { small: true }), `Discard ${action.discard}`);
      })));
}

export function controls(obs, ctx) {
  const { h } = ctx;
  const legal = ctx.legal || [];
  if (obs.phase === "discard") return discardControls(obs, ctx);
  if (obs.phase !== "bid" || !obs.card) return null;
  const passAction = legal.find((a) => a.pass === true);
  const bids = new Map();
  for (const action of legal) if (Array.isArray(action.bid)) bids.set(bidKey(action.bid), action);
  if (!passAction && !bids.size) return null;

  const me = ctx.you;
  const who = (seat) => (seat === me ? "you" : ctx.name(seat));
  const card = obs.card;
  const scandal = card.kind === "scandal";
  const highest = obs.highest_bid;
  const leaders = obs.bids.map((b, s) => [sum(b), s]).filter(([total]) => highest > 0 && total === highest).map(([, s]) => s);
  const mine = obs.bids[me] || [];
  const inFront = sum(mine);
  const hand = [...obs.money].sort((a, b) => a - b);
  const canBeat = inFront + sum(hand) > highest;
  const chosen = new Set();

  // What is on auction and where the bidding stands.
  const title = scandal
    ? `Auction ${obs.auction}: bid to avoid ${cardPhrase(card)}`
    : `Auction ${obs.auction}: bid for ${cardPhrase(card)}`;
  const standing = highest > 0
    ? `Highest bid ${highest}, by ${leaders.map(who).join(" and ")}.`
    : "Nobody has bid yet.";
  const rule = scandal
    ? "The first player to pass takes it; everyone else's bid is spent."
    : "The last player left in takes it and spends their bid.";
  const head = h("div", { class: "hs-ctl-head" }, statusCard(h, card, { small: true }),
    h("div", { class: "hs-ctl-what" }, h("b", null, title), h("span", null, `${standing} ${rule}`)));

  // Passing, in words: what it costs or gives now.
  const stillIn = [];
  for (let s = 0; s < obs.players; s += 1) if (s !== me && !obs.passed[s]) stillIn.push(s);
  let passWhat;
  if (scandal) {
    const losers = [];
    for (let s = 0; s < obs.players; s += 1) if (s !== me && sum(obs.bids[s])) losers.push(`${who(s)} spends ${sum(obs.bids[s])}`);
    passWhat = `You take ${cardPhrase(card)}` + (inFront ? ` and your ${inFront} back` : "")
      + (losers.length ? `; ${losers.join(", ")}.` : "; nobody else has bid.");
  } else {
    passWhat = (inFront ? `You take back your ${inFront} and leave this auction` : "You leave this auction")
      + (stillIn.length === 1
        ? `; ${who(stillIn[0])} takes ${cardPhrase(card)} for ${sum(obs.bids[stillIn[0]]) || "nothing"}.`
        : ".");
  }
  const passButton = passAction
    ? h("button", { type: "button", class: "hs-btn hs-btn-pass", dataset: { hsPass: "" },
        onclick: () => ctx.act(passAction, scandal ? `You pass and take ${cardPhrase(card)}` : "You pass") },
      h("b", null, scandal ? `Pass and take the ${SCANDALS[card.effect] ? SCANDALS[card.effect][0] : "scandal"}` : "Pass"),
      h("span", null, passWhat))
    : null;

  if (!canBeat || !bids.size) {
    return h("div", { class: "hs-ctl", "data-hs-controls": "pass-only" }, head,
      h("p", { class: "hs-tally hs-low", role: "status" },
        hand.length
          ? `Your money (${sum(hand)}${inFront ? ` + ${inFront} bid` : ""}) cannot beat ${highest}: you can only pass.`
          : "You have no money left: you can only pass."),
      h("div", { class: "hs-ctl-buttons" }, passButton));
  }

  // The money cards: toggle to choose; the tally and the Bid button follow.
  const tally = h("p", { class: "hs-tally", role: "status", "aria-live": "polite", dataset: { hsTally: "" } });
  const bidButton = h("button", { type: "button", class: "hs-btn hs-btn-bid", dataset: { hsBid: "" }, disabled: true });
  const clearButton = h("button", { type: "button", class: "hs-btn", dataset: { hsClear: "" }, disabled: true }, "Clear");
  const cards = hand.map((value) => {
    const button = h("button", {
      type: "button", class: "hs-mc", "aria-pressed": "false", "aria-label": `Money ${value}`,
      title: `Add ${value} to your bid`, dataset: { hsMoney: String(value) },
    }, String(value));
    button.addEventListener("click", () => {
      if (chosen.has(value)) chosen.delete(value);
      else chosen.add(value);
      update();
    });
    return button;
  });
  function update() {
    for (const button of cards) button.setAttribute("aria-pressed", String(chosen.has(Number(button.dataset.hsMoney))));
    const added = sum([...chosen]);
    const total = inFront + added;
    const action = chosen.size ? bids.get(bidKey(chosen)) : undefined;
    const need = highest + 1;
    let text;
    if (!chosen.size) {
      text = inFront
        ? `You have ${inFront} in front of you: choose cards to raise it to ${need} or more.`
        : highest ? `Choose money cards worth ${need} or more.` : "Choose money cards to open the bidding.";
    } else {
      const sumText = `${inFront ? `${inFront} in front + ` : ""}${plus(chosen)}${chosen.size > 1 || inFront ? ` = ${total}` : ""}`;
      text = `Your bid: ${sumText} — ` + (action
        ? (highest ? `beats ${highest}.` : "the opening bid.")
        : `${highest ? `not above ${highest}` : "too low"}: you need ${need} or more.`);
    }
    tally.textContent = text;
    tally.classList.toggle("hs-ok", Boolean(action));
    tally.classList.toggle("hs-low", chosen.size > 0 && !action);
    bidButton.disabled = !action;
    bidButton.textContent = chosen.size ? `Bid ${total}` : "Bid";
    bidButton.setAttribute("aria-label", chosen.size
      ? `Bid ${total}: add ${plus(chosen)} to your bid${action ? "" : " (not enough)"}`
      : "Bid: choose money cards first");
    clearButton.disabled = !chosen.size;
  }
  bidButton.addEventListener("click", () => {
    const action = bids.get(bidKey(chosen));
    if (action) ctx.act(action, `You bid ${inFront + sum([...chosen])} (adding ${plus(chosen)})`);
  });
  clearButton.addEventListener("click", () => { chosen.clear(); update(); });
  update();

  return h("div", { class: "hs-ctl", "data-hs-controls": "bid" }, head,
    h("p", { class: "hs-ctl-label" }, `Your money · ${sum(hand)}`),
    h("div", { class: "hs-ctl-hand", role: "group", "aria-label": "Your money cards: press the ones to bid" }, cards),
    inFront ? h("div", { class: "hs-infront" }, "Already bid:", mine.map((v) => money(h, v)), `= ${inFront}`) : null,
    tally,
    h("div", { class: "hs-ctl-buttons" }, bidButton, clearButton, passButton),
    h("p", { class: "hs-ctl-how" }, "Press money cards to choose them (again to put one back), then Bid. Money once bid comes back only by passing."));
}
