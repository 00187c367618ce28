// Parlour's replay viewer: one shared page component for every game. It loads the frames of a match (the replay
// re-simulated on the server, see games/frames.py), lists the moves with their narration, bot notes and times,
// steps, plays, deep-links (#move=17, #move=17&seat=1) and switches perspective. The table itself is drawn by the
// game's own renderer, games/<id>/viewer.js (served as static/games/<id>/viewer.js); a game without one falls back
// to generic.js. Plain ES modules, no build step, nothing from a CDN.
import * as generic from "./generic.js";
import { adoptCss, compact, esc, h, ordinal, seatChip } from "./kit.js";

const SPEEDS = [0.5, 1, 2, 4, 8];
const svg = (body) =>
  `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">${body}</svg>`;
const chevron = (d) => `<path d="${d}" fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/>`;
const ICONS = {
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

/** Rebuild whole views from a frames document (step 0 is whole; later steps carry the changed top-level keys). */
export function expandViews(doc) {
  const views = [];
  let current = {};
  for (const frame of doc.frames) {
    if (frame.view) current = { ...frame.view };
    else {
      current = { ...current };
      for (const key of frame.drop || []) delete current[key];
      Object.assign(current, frame.patch);
    }
    views.push(current);
  }
  return views;
}

function formatMs(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 1) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}

function parseHash() {
  const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
  const move = hash.get("move");
  const seat = hash.get("seat");
  return {
    move: move !== null && /^\d+$/.test(move) ? Number(move) : null,
    seat: seat !== null && /^\d+$/.test(seat) ? Number(seat) : null,
  };
}

async function loadRenderer(url) {
  if (!url) return generic;
  try {
    const module = await import(url);
    if (typeof module.render !== "function") throw new Error(`${url} exports no render(view, context)`);
    return module;
  } catch (error) {
    console.error("Parlour viewer: the game's renderer failed to load; showing the generic view.", error);
    return generic;
  }
}

export class Viewer {
  constructor(root, { framesUrl, replayUrl, downloadName }) {
    this.root = root;
    this.framesUrl = framesUrl;
    this.replayUrl = replayUrl;
    this.downloadName = downloadName || "replay.json";
    this.docs = new Map(); // perspective key -> frames document (with .views)
    this.perspective = null; // null: spectator; a number: that seat
    this.step = 0;
    this.reveal = true;
    this.allHands = false; // the spectator's "show all hands" (finished replays only: doc.all_hands)
    this.speed = 1;
    this.timer = null;
    this.hashWritten = false;
  }

  async start() {
    const wanted = parseHash();
    const doc = await this.load(null);
    this.spectator = doc;
    this.renderer = await loadRenderer(doc.renderer);
    adoptCss(`game-${doc.game}`, this.renderer.css);
    if (wanted.seat !== null && wanted.seat < doc.players) {
      try {
        await this.load(wanted.seat);
        this.perspective = wanted.seat;
      } catch (error) {
        console.warn("Parlour viewer: could not load that seat's view", error);
      }
    }
    this.build();
    this.go(wanted.move ?? 0, { writeHash: wanted.move !== null });
    performance.mark("pv-first-frame");
    this.root.dataset.ready = "1";
    if (wanted.move !== null) this.root.scrollIntoView({ block: "start" });
    window.addEventListener("hashchange", () => this.onHash());
    document.addEventListener("keydown", (event) => this.onKey(event));
  }

  key(seat) {
    return seat === null ? "spectator" : String(seat);
  }

  async load(seat) {
    const key = this.key(seat);
    if (this.docs.has(key)) return this.docs.get(key);
    const url = seat === null ? this.framesUrl : `${this.framesUrl}${this.framesUrl.includes("?") ? "&" : "?"}seat=${seat}`;
    const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok) {
      const message = body?.error?.message || `the server answered ${response.status}`;
      const error = new Error(message);
      error.status = response.status;
      throw error;
    }
    body.views = expandViews(body);
    if (body.all_hands) {
      // games/frames.py: what full_view() adds to each step's spectator view (every hand), for a finished replay.
      const extras = expandViews({ frames: body.all_hands });
      body.allViews = body.views.map((view, step) => ({ ...view, ...extras[step] }));
      body.hidesNothing = extras.every((extra) => Object.keys(extra).length === 0);
    }
    this.docs.set(key, body);
    return body;
  }

  get doc() {
    return this.docs.get(this.key(this.perspective)) || this.spectator;
  }

  get last() {
    return this.spectator.frames.length - 1;
  }

  /** The narration of a step: the renderer's plain-English rewording (`narrate`) if it has one, else the engine's
   *  lines. Each entry is {text, raw}: raw is the engine's own line when the text differs. */
  narration(step) {
    this.narrated ||= new Map();
    if (this.narrated.has(step)) return this.narrated.get(step);
    const frame = this.spectator.frames[step];
    let texts = frame.lines;
    if (typeof this.renderer.narrate === "function" && frame.lines.length) {
      try {
        texts = this.renderer.narrate(frame.lines, { move: frame.move, step, seats: this.spectator.seats, name: (seat) => this.spectator.seats[seat] });
      } catch (error) {
        console.error(`Parlour viewer: the ${this.spectator.game} narration failed at move ${step}`, error);
        texts = frame.lines;
      }
    }
    const rewritten = texts !== frame.lines;
    const lines = texts.map((text, i) => ({ text, raw: rewritten ? frame.lines.join("\n") : null, first: i === 0 }));
    this.narrated.set(step, lines);
    return lines;
  }

  narrationLines(step) {
    return this.narration(step).map((line) => h("div", { title: line.raw && line.first ? `The engine's words: ${line.raw}` : null }, line.text));
  }

  // ----- the page -------------------------------------------------------------------------------------------
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
      doc.seats.map((label, seat) => h("option", { value: String(seat), selected: this.perspective === seat }, `Seat ${seat} · ${label}`)),
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
        { class: "pv-controls" },
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
  }

  // A fault's `move` is the index of the decision at which it was noticed (that move was then played
  // automatically), so it is shown at step move + 1; a fault before the first move (start-up) at the deal.
  faultsAt(step) {
    const at = (fault) => (fault.move === null || fault.move === undefined ? 0 : Math.min(fault.move + 1, this.last));
    return (this.spectator.faults || []).filter((fault) => at(fault) === step);
  }

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
              : h("div", { class: "pv-lines" }, h("code", null, compact(move.action))),
            move.note ? h("div", { class: "pv-note", title: "The bot's note" }, `“${move.note}”`) : null,
            this.faultLines(step),
            frame.lines.length ? h("code", { class: "pv-action" }, compact(move.action)) : null,
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
  }

  faultLines(step) {
    return this.faultsAt(step).map((fault) =>
      h("div", { class: "pv-fault" }, `⚠ seat ${fault.seat} faulted (${fault.cause}): ${fault.detail}`),
    );
  }

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
  }

  // ----- stepping -------------------------------------------------------------------------------------------
  go(step, { writeHash = true } = {}) {
    if (Number.isNaN(step)) return;
    this.step = Math.max(0, Math.min(this.last, step));
    if (this.step === this.last) this.stop();
    this.draw();
    if (writeHash) this.writeHash();
  }

  writeHash() {
    const seat = this.perspective === null ? "" : `&seat=${this.perspective}`;
    const hash = `#move=${this.step}${seat}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }

  onHash() {
    const wanted = parseHash();
    if (wanted.seat !== this.perspective && (wanted.seat === null || wanted.seat < this.spectator.players)) {
      this.setPerspective(wanted.seat, wanted.move ?? this.step);
    } else if (wanted.move !== null && wanted.move !== this.step) {
      this.go(wanted.move);
    }
  }

  onItemClick(event, step) {
    event.preventDefault();
    this.stop();
    this.go(step);
  }

  onKey(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    const typing = target && (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName));
    // The slider handles arrows, Home and End itself; only space (play) is ours there.
    if (typing && !(target === this.slider && event.key === " ")) return;
    const actions = {
      ArrowRight: () => this.go(this.step + 1),
      ArrowLeft: () => this.go(this.step - 1),
      Home: () => this.go(0),
      End: () => this.go(this.last),
      " ": () => this.togglePlay(),
    };
    if (event.key === " " && target && target.tagName === "BUTTON") return; // the button itself handles space
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    if (event.key !== " ") this.stop();
    action();
  }

  togglePlay() {
    if (this.timer) this.stop();
    else this.play();
  }

  play() {
    if (this.step >= this.last) this.go(0);
    this.buttons.play.innerHTML = ICONS.pause;
    this.buttons.play.title = "Pause (space)";
    this.buttons.play.setAttribute("aria-label", "Pause (space)");
    this.buttons.play.classList.add("pv-playing");
    const tick = () => {
      if (this.step >= this.last) return this.stop();
      this.go(this.step + 1);
      if (this.timer) this.timer = setTimeout(tick, this.interval / this.speed);
    };
    this.timer = setTimeout(tick, this.interval / this.speed);
  }

  stop() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buttons) {
      this.buttons.play.innerHTML = ICONS.play;
      this.buttons.play.title = "Play (space)";
      this.buttons.play.setAttribute("aria-label", "Play (space)");
      this.buttons.play.classList.remove("pv-playing");
    }
  }

  setSpeed(speed) {
    this.speed = speed;
    if (this.timer) {
      this.stop();
      this.play();
    }
  }

  setReveal(reveal) {
    this.reveal = reveal;
    this.draw();
  }

  setAllHands(on) {
    this.allHands = on;
    this.draw();
  }

  async setPerspective(seat, step = this.step) {
    this.root.classList.add("pv-loading");
    try {
      await this.load(seat);
      this.perspective = seat;
    } catch (error) {
      this.caption.prepend(h("div", { class: "pv-error" }, `Could not load that view: ${error.message}`));
      return;
    } finally {
      this.root.classList.remove("pv-loading");
    }
    for (const button of this.perspectiveButtons) {
      button.setAttribute("aria-pressed", String(button.dataset.seat === (seat === null ? "" : String(seat))));
    }
    this.perspectiveSelect.value = seat === null ? "" : String(seat);
    this.go(step);
  }

  // ----- drawing --------------------------------------------------------------------------------------------
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
  }

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
  }

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
    else if (doc.seat !== null) parts.push(h("div", { class: "pv-persp-note" }, `Seen as seat ${doc.seat}: only what ${doc.seats[doc.seat]} knew at this point.`));
    this.caption.replaceChildren(...parts.flat());
  }

  drawControls(step) {
    this.slider.value = String(step);
    this.counter.textContent = step === 0 ? `Start · ${this.last} moves` : `Move ${step} / ${this.last}`;
    this.buttons.first.disabled = this.buttons.prev.disabled = step === 0;
    this.buttons.next.disabled = this.buttons.end.disabled = step === this.last;
  }

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
  }
}

/** Start every viewer on the page: <div data-parlour-viewer data-frames="..." data-replay="..."> */
export async function boot() {
  for (const root of document.querySelectorAll("[data-parlour-viewer]")) {
    const viewer = new Viewer(root, {
      framesUrl: root.dataset.frames,
      replayUrl: root.dataset.replay,
      downloadName: root.dataset.downloadName,
    });
    window.parlourViewer = viewer;
    try {
      await viewer.start();
    } catch (error) {
      root.dataset.ready = "error";
      root.prepend(
        h("p", { class: "pv-error", role: "alert" }, `This replay cannot be shown: ${error.message}`),
      );
      if (error.status === undefined) console.error("Parlour viewer:", error);
    }
  }
}

boot();
