// Drawing one step of the viewer (Viewer.draw): the game's renderer on the table (the generic view if it throws),
// the caption, the controls' state and the current move in the list. The methods are the Viewer's (viewer.js mixes
// them into its prototype).
import * as generic from "./generic.js";
import { compact, esc, h, ordinal, seatChip, seatNumber } from "./kit.js";
import { formatMs } from "./page.js";

export const drawingMethods = {
  context(doc, step, revealed, allHands) {
    const frame = this.spectator.frames[step];
    const seats = doc.seats;
    return {
      game: doc.game,
      title: doc.title,
      seat: doc.seat,
      seats,
      players: doc.players,
      step,
      last: this.last,
      final: step === this.last && doc.over,
      revealed,
      allHands,
      move: frame.move,
      lines: frame.lines,
      toMove: frame.to_move,
      previous: step > 0 ? (allHands ? doc.allViews : doc.views)[step - 1] : null,
      outcome: step === this.last && doc.over ? doc.outcome : null,
      faults: this.faultsAt(step),
      h,
      esc,
      compact,
      ordinal,
      seatChip: (seat, extra) => seatChip(seat, seats[seat], extra),
      name: (seat) => seats[seat],
    };
  },

  draw() {
    const doc = this.doc;
    const step = this.step;
    const final = step === this.last && doc.over && doc.revealed;
    const revealed = Boolean(final && this.reveal);
    // "Show all hands" is the spectator's; a seat's view stays what that seat knew.
    const allHands = Boolean(!revealed && this.allHands && doc.seat === null && doc.allViews);
    const view = revealed ? doc.revealed : allHands ? doc.allViews[step] : doc.views[step];
    const ctx = this.context(doc, step, revealed, allHands);

    let drawn;
    try {
      drawn = this.renderer.render(view, ctx);
    } catch (error) {
      console.error(`Parlour viewer: the ${doc.game} renderer failed at move ${step}`, error);
      drawn = h("div", null, h("p", { class: "pv-error" }, `The table drawing failed here (${error.message}); the view as data:`), generic.render(view, ctx));
    }
    if (typeof drawn === "string") this.table.innerHTML = drawn;
    else this.table.replaceChildren(drawn);
    this.table.dataset.perspective = doc.seat === null ? "spectator" : String(doc.seat);
    this.table.dataset.step = String(step);
    this.table.classList.toggle("pv-revealed", revealed);
    this.table.classList.toggle("pv-allhands", allHands);
    this.table.dataset.hands = allHands || revealed ? "all" : "";

    this.revealLabel.hidden = !final;
    this.handsLabel.hidden = !(this.spectator.allViews && doc.seat === null);
    this.drawCaption(doc, step, revealed, allHands);
    this.drawControls(step);
    this.drawMoveList(step);
  },

  drawCaption(doc, step, revealed, allHands) {
    const frame = this.spectator.frames[step];
    const seats = this.spectator.seats;
    const parts = [];
    const link = h("a", { class: "pv-link", href: `#move=${step}`, title: "A link to this move" }, "#");
    if (step === 0) {
      parts.push(h("div", { class: "pv-cap-head" }, h("span", { class: "pv-step" }, "The deal"), link));
      parts.push(h("div", { class: "pv-cap-lines" }, `${doc.title}, ${doc.players} players. Step through the moves with → or play.`));
    } else {
      const move = frame.move;
      parts.push(
        h(
          "div",
          { class: "pv-cap-head" },
          h("span", { class: "pv-step" }, `Move ${step}`),
          seatChip(move.seat, seats[move.seat]),
          move.auto ? h("span", { class: "pv-tag pv-tag-auto" }, "auto") : null,
          h("span", { class: "pv-ms" }, formatMs(move.ms)),
          link,
        ),
      );
      parts.push(h("div", { class: "pv-cap-lines" }, frame.lines.length ? this.narrationLines(step) : h("code", null, compact(move.action))));
      if (move.note) parts.push(h("div", { class: "pv-note" }, `“${move.note}”`));
    }
    parts.push(this.faultLines(step));
    if (step === this.last && doc.over && doc.outcome) parts.push(this.outcomeLine());
    if (revealed) parts.push(h("div", { class: "pv-revealed-note" }, "The game is over: every hidden card is shown."));
    else if (allHands) parts.push(h("div", { class: "pv-revealed-note" }, "All hands shown: what no player could see at this point."));
    else if (doc.seat !== null) parts.push(h("div", { class: "pv-persp-note" }, `Seen as seat ${seatNumber(doc.seat)}: only what ${doc.seats[doc.seat]} knew at this point.`));
    this.caption.replaceChildren(...parts.flat());
  },

  drawControls(step) {
    this.slider.value = String(step);
    this.counter.textContent = step === 0 ? `Start · ${this.last} moves` : `Move ${step} / ${this.last}`;
    const focused = document.activeElement;
    this.buttons.first.disabled = this.buttons.prev.disabled = step === 0;
    this.buttons.next.disabled = this.buttons.end.disabled = step === this.last;
    // A button disabled under the keyboard's focus would drop it to <body>: Play (never disabled) takes it.
    if (focused && focused.disabled && Object.values(this.buttons).includes(focused)) this.buttons.play.focus();
  },

  drawMoveList(step) {
    const previous = this.moveList.querySelector(".pv-current");
    if (previous) previous.classList.remove("pv-current");
    const current = this.moveList.querySelector(`.pv-move[data-step="${step}"]:not(.pv-end)`);
    if (!current) return;
    current.classList.add("pv-current");
    // Scroll the list itself, never the page: stepping must not make the table jump away.
    // The list's scroller (.pv-side) is positioned, so offsetTop is relative to it.
    const list = this.moveList.parentElement;
    const end = step === this.last ? this.moveList.querySelector(".pv-end") : null;
    const top = current.offsetTop;
    const bottom = (end || current).offsetTop + (end || current).offsetHeight;
    if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, Math.min(top, Math.max(top - list.clientHeight / 3, bottom - list.clientHeight + 8)));
    }
  },
};
