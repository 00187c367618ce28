// High Card's table for the replay viewer (docs/viewer.md): the trick on the table, each seat's tricks and hand
// (face down unless this perspective may see it). A new game starts from a copy of this file.

export const css = `
.hc { display: grid; gap: .8rem; }
.hc-trick { display: flex; gap: .4rem; min-height: 3.4rem; align-items: center; }
.hc-card { width: 2.4rem; height: 3.2rem; border-radius: .35rem; background: #fffdf6; color: #2b2418;
  display: grid; place-items: center; font-weight: 800; box-shadow: 0 2px 4px rgba(0,0,0,.35); }
.hc-back { width: 2.4rem; height: 3.2rem; border-radius: .35rem; border: 2px solid #e8d6a8;
  background: repeating-linear-gradient(45deg, #6a4a2a 0 6px, #7b5733 6px 12px); }
.hc-hand { display: flex; flex-wrap: wrap; gap: .25rem; }
`;

function card(h, value) {
  return h("div", { class: "hc-card", title: `card ${value}` }, String(value));
}

export function render(view, ctx) {
  const { h } = ctx;
  const trick = view.trick.map((played) => h("div", { title: `seat ${played.seat}` }, card(h, played.card)));
  const seats = [];
  for (let s = 0; s < view.players; s += 1) {
    let hand;
    if (Array.isArray(view.hands)) hand = view.hands[s].map((value) => card(h, value));
    else if (view.seat === s && Array.isArray(view.hand)) hand = view.hand.map((value) => card(h, value));
    else hand = Array.from({ length: view.hand_sizes[s] }, () => h("div", { class: "hc-back" }));
    seats.push(
      h(
        "section",
        { class: ["pv-seat", view.to_move === s && "pv-turn", view.seat === s && "pv-me"], dataset: { seat: String(s) } },
        h("div", { class: "pv-seat-head" }, ctx.seatChip(s), h("span", null, `tricks ${view.tricks[s]}`)),
        h("div", { class: "hc-hand" }, hand),
      ),
    );
  }
  return h("div", { class: "hc" }, h("div", { class: "hc-trick" }, trick), h("div", { class: "pv-seats" }, seats));
}
