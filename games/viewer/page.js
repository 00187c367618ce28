// The viewer's page, built once per replay (Viewer.build): the perspective switch, the playback controls and the
// move list with each move's narration, note, time and faults and the result. The methods are the Viewer's
// (viewer.js mixes them into its prototype).
import { compact, h, narrateWith, ordinal, seatChip, seatNumber } from "./kit.js";

const SPEEDS = [0.5, 1, 2, 4, 8];
const svg = (body) =>
  `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">${body}</svg>`;
const chevron = (d) => `<path d="${d}" fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/>`;
export const ICONS = {
  first: svg(chevron("M17 6l-6 6 6 6M7 6v12")),
  prev: svg(chevron("M15 6l-6 6 6 6")),
  play: svg('<path d="M8 5.5v13l10.5-6.5z" fill="currentColor"/>'),
  pause: svg('<path d="M7 5.5h3.5v13H7zM13.5 5.5H17v13h-3.5z" fill="currentColor"/>'),
  next: svg(chevron("M9 6l6 6-6 6")),
  last: svg(chevron("M7 6l6 6-6 6M17 6v12")),
};
// 1× shows a whole game in about GAME_SECONDS: one move a second for a short game, faster for a long one (a 310-move
// TEN game takes 40 s), never so fast that a move cannot be seen.
const GAME_SECONDS = 40;
const SLOWEST_MS = 1000;
const FASTEST_MS = 125;

/** Milliseconds between moves at 1× for a game of `moves` moves. */
export function baseInterval(moves) {
  return Math.round(Math.min(SLOWEST_MS, Math.max(FASTEST_MS, (GAME_SECONDS * 1000) / Math.max(1, moves))));
}

function formatDuration(ms) {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 1) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}

export const pageMethods = {
  /** The narration of a step: the renderer's plain-English rewording (`narrate`) if it has one, else the engine's
   *  lines. Each entry is {text, raw}: raw is the engine's own line when the text differs. */
  narration(step) {
    this.narrated ||= new Map();
    if (this.narrated.has(step)) return this.narrated.get(step);
    const frame = this.spectator.frames[step];
    const seats = this.spectator.seats;
    const texts = narrateWith(this.renderer, frame.lines, { move: frame.move, step, seats, name: (seat) => seats[seat] }, `viewer (${this.spectator.game}, move ${step})`);
    const rewritten = texts !== frame.lines;
    const lines = texts.map((text, i) => ({ text, raw: rewritten ? frame.lines.join("\n") : null, first: i === 0 }));
    this.narrated.set(step, lines);
    return lines;
  },

  narrationLines(step) {
    return this.narration(step).map((line) => h("div", { title: line.raw && line.first ? `The engine's words: ${line.raw}` : null }, line.text));
  },

  build() {
    const doc = this.spectator;
    this.root.classList.add("pv-live");
    this.perspectiveButtons = [null, ...doc.seats.map((_, seat) => seat)].map((seat) =>
      h(
        "button",
        {
          type: "button",
          class: "pv-persp-btn",
          "aria-pressed": String(seat === this.perspective),
          dataset: { seat: seat === null ? "" : String(seat) },
          title: seat === null ? "What anyone watching the table could see" : `What ${doc.seats[seat]} knew`,
          onclick: () => this.setPerspective(seat),
        },
        seat === null ? "Spectator" : seatChip(seat, doc.seats[seat]),
      ),
    );
    // On a phone the same switch is a select (the buttons would take a row per seat).
    this.perspectiveSelect = h(
      "select",
      { class: "pv-persp-select", "aria-label": "Whose view", onchange: () => this.setPerspective(this.perspectiveSelect.value === "" ? null : Number(this.perspectiveSelect.value)) },
      h("option", { value: "", selected: this.perspective === null }, "Spectator"),
      doc.seats.map((label, seat) => h("option", { value: String(seat), selected: this.perspective === seat }, `Seat ${seatNumber(seat)} · ${label}`)),
    );
    const button = (icon, title, action, cls) =>
      h("button", { type: "button", class: ["pv-btn", cls], title, "aria-label": title, onclick: action, html: ICONS[icon] });
    this.buttons = {
      first: button("first", "First (Home)", () => this.go(0)),
      prev: button("prev", "Back one move (←)", () => this.go(this.step - 1)),
      play: button("play", "Play (space)", () => this.togglePlay(), "pv-play"),
      next: button("next", "Forward one move (→)", () => this.go(this.step + 1)),
      end: button("last", "Last (End)", () => this.go(this.last)),
    };
    this.slider = h("input", {
      type: "range",
      min: 0,
      max: this.last,
      value: 0,
      class: "pv-slider",
      "aria-label": "Move",
      oninput: () => this.go(Number(this.slider.value)),
    });
    this.counter = h("span", { class: "pv-counter" });
    this.interval = baseInterval(this.last);
    this.speedSelect = h(
      "select",
      {
        class: "pv-speed",
        "aria-label": "Playback speed",
        title: `At 1× the whole game plays in ${formatDuration(this.last * this.interval)}`,
        onchange: () => this.setSpeed(Number(this.speedSelect.value)),
      },
      SPEEDS.map((speed) => h("option", { value: speed, selected: speed === this.speed }, `${speed}× · ${formatDuration((this.last * this.interval) / speed)}`)),
    );
    this.caption = h("div", { class: "pv-caption", "aria-live": "polite" });
    this.table = h("div", { class: "pv-table" });
    this.revealBox = h("input", { type: "checkbox", checked: this.reveal, onchange: () => this.setReveal(this.revealBox.checked) });
    this.revealLabel = h("label", { class: "pv-reveal", hidden: true }, this.revealBox, " Reveal the hidden cards");
    // Only a finished replay's spectator document has every hand (games/frames.py); an unfinished one shows no switch.
    this.handsBox = h("input", { type: "checkbox", checked: this.allHands, disabled: Boolean(doc.hidesNothing), onchange: () => this.setAllHands(this.handsBox.checked) });
    this.handsLabel = h(
      "label",
      {
        class: "pv-hands",
        hidden: !doc.allViews,
        title: doc.hidesNothing
          ? `Nothing in ${doc.title} is hidden from a spectator`
          : "The game is over: show every player's hidden cards at every move, as no player could see them then",
      },
      this.handsBox,
      " Show all hands",
    );
    this.moveList = h("ol", { class: "pv-moves" }, this.moveItems());
    const download = this.replayUrl
      ? h("a", { class: "pv-download", href: this.replayUrl, download: this.downloadName }, "⤓ Replay JSON")
      : null;

    this.root.replaceChildren(
      h(
        "div",
        { class: "pv-bar" },
        h("div", { class: "pv-persp", role: "group", "aria-label": "Whose view" }, h("span", { class: "pv-label" }, "View as"), this.perspectiveButtons, this.perspectiveSelect),
        this.handsLabel,
        download,
      ),
      h(
        "div",
        { class: "pv-controls", id: "pv-controls", tabindex: "-1" }, // the match page's skip link lands here
        h("div", { class: "pv-buttons" }, Object.values(this.buttons)),
        this.slider,
        this.counter,
        h("label", { class: "pv-speed-label" }, h("span", null, "Speed "), this.speedSelect),
      ),
      h(
        "div",
        { class: "pv-main" },
        h("div", { class: "pv-stage" }, this.caption, this.revealLabel, this.table),
        h("aside", { class: "pv-side", "aria-label": "Moves" }, this.moveList),
      ),
      h("p", { class: "pv-help" }, "Keys: ← → step, Home / End, space plays. Every move has a link: ", h("code", null, "#move=17"), "."),
    );
  },

  // A fault's `move` is the index of the decision at which it was noticed (that move was then played
  // automatically), so it is shown at step move + 1; a fault before the first move (start-up) at the deal.
  faultsAt(step) {
    const at = (fault) => (fault.move === null || fault.move === undefined ? 0 : Math.min(fault.move + 1, this.last));
    return (this.spectator.faults || []).filter((fault) => at(fault) === step);
  },

  // A move as the bot wrote it. In a game with hidden information it may name what the board still hides (a secret
  // word, a card in hand), so it stays folded until asked for; the narration says what everyone saw.
  rawAction(move) {
    const code = h("code", { class: "pv-action" }, compact(move.action));
    if (this.spectator.hidesNothing) return code;
    return h("details", { class: "pv-action-fold" }, h("summary", { title: "The action as the bot wrote it: it may show what was hidden", onclick: (e) => e.stopPropagation() }, "action"), code);
  },

  moveItems() {
    const doc = this.spectator;
    const items = [];
    items.push(
      h(
        "li",
        { class: "pv-move pv-start", dataset: { step: "0" }, onclick: (e) => this.onItemClick(e, 0) },
        h("a", { class: "pv-num", href: "#move=0" }, "0"),
        h("div", { class: "pv-mbody" }, h("div", { class: "pv-mhead" }, h("span", { class: "pv-what" }, "The deal")), this.faultLines(0)),
      ),
    );
    doc.frames.forEach((frame, step) => {
      if (step === 0) return;
      const move = frame.move;
      items.push(
        h(
          "li",
          { class: ["pv-move", move.auto && "pv-auto"], dataset: { step: String(step) }, onclick: (e) => this.onItemClick(e, step) },
          h("a", { class: "pv-num", href: `#move=${step}` }, String(step)),
          h(
            "div",
            { class: "pv-mbody" },
            h(
              "div",
              { class: "pv-mhead" },
              seatChip(move.seat, doc.seats[move.seat], "pv-chip-sm"),
              move.auto ? h("span", { class: "pv-tag pv-tag-auto", title: "Played automatically after the bot's fault" }, "auto") : null,
              h("span", { class: "pv-ms", title: "Time the bot took for this move" }, formatMs(move.ms)),
            ),
            frame.lines.length
              ? h("div", { class: "pv-lines" }, this.narrationLines(step))
              : h("div", { class: "pv-lines" }, this.rawAction(move)),
            move.note ? h("div", { class: "pv-note", title: "The bot's note" }, `“${move.note}”`) : null,
            this.faultLines(step),
            frame.lines.length ? this.rawAction(move) : null,
          ),
        ),
      );
    });
    if (doc.over && doc.outcome) {
      items.push(
        h(
          "li",
          { class: "pv-move pv-end", dataset: { step: String(this.last) }, onclick: (e) => this.onItemClick(e, this.last) },
          h("span", { class: "pv-num" }, "■"),
          h("div", { class: "pv-mbody" }, this.outcomeLine()),
        ),
      );
    }
    return items;
  },

  faultLines(step) {
    return this.faultsAt(step).map((fault) =>
      h("div", { class: "pv-fault" }, `⚠ seat ${seatNumber(fault.seat)} faulted (${fault.cause}): ${fault.detail}`),
    );
  },

  outcomeLine() {
    const doc = this.spectator;
    const order = doc.seats.map((_, seat) => seat).sort((a, b) => doc.outcome.ranks[a] - doc.outcome.ranks[b] || a - b);
    return h(
      "div",
      { class: "pv-outcome" },
      h("strong", null, "Result "),
      order.map((seat) =>
        h(
          "span",
          { class: ["pv-result", doc.outcome.ranks[seat] === 1 && "pv-winner"] },
          h("span", { class: "pv-rank" }, ordinal(doc.outcome.ranks[seat])),
          seatChip(seat, doc.seats[seat], "pv-chip-sm"),
          h("span", { class: "pv-score" }, String(doc.outcome.scores[seat])),
        ),
      ),
    );
  },
};
