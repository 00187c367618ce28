// Parlour's replay viewer: one shared page component for every game. It loads the frames of a match (the replay
// re-simulated on the server, see games/frames.py), lists the moves with their narration, bot notes and times,
// steps, plays, deep-links (#move=17, #move=17&seat=1) and switches perspective. The table itself is drawn by the
// game's own renderer, games/<id>/viewer.js (served as static/games/<id>/viewer.js); a game without one falls back
// to generic.js. Plain ES modules, no build step, nothing from a CDN.
// The shell's modules: frames.js (the data), page.js (the page, built once), drawing.js (one step drawn); this one
// holds the viewer's state, stepping, playback and perspective, and starts every viewer on the page.
import { drawingMethods } from "./drawing.js";
import { fetchFrames } from "./frames.js";
import * as generic from "./generic.js";
import { adoptCss, h } from "./kit.js";
import { ICONS, pageMethods } from "./page.js";

export { expandViews } from "./frames.js";
export { baseInterval } from "./page.js";

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
    const body = await fetchFrames(url);
    this.docs.set(key, body);
    return body;
  }

  get doc() {
    return this.docs.get(this.key(this.perspective)) || this.spectator;
  }

  get last() {
    return this.spectator.frames.length - 1;
  }

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
}
// Building the page (page.js) and drawing a step (drawing.js) are the viewer's methods too, kept in their own files.
Object.assign(Viewer.prototype, pageMethods, drawingMethods);

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