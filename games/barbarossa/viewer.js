// Barbarossa's table for the replay viewer (docs/viewer.md): the twelve-space loop with the wizards, the hats on the
// scoring track, every secret object with its "sculpture" (the features its maker shows), its arrows and who solved
// it, the questions asked, and each seat's elfstones and curse tokens. A seat's view adds its own words and the
// letters it was told; after the end every word is revealed.

const SPACES = {
  question: ["?", "question"],
  elfstone: ["◆", "elfstone"],
  dragon: ["♆", "dragon"],
  dwarf: ["⚒", "dwarf"],
  ghost: ["☁", "ghost"],
};
const PHASES = {
  create: "creating objects",
  move: "moving",
  dwarf: "asking the dwarf for a letter",
  question: "question round",
  curse: "curse window",
  over: "game over",
};

export const css = `
.bb { display: grid; gap: .9rem; }
.bb-top { display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; align-items: baseline; font-size: .88rem; color: #e4efe7; }
.bb-top .bb-phase { font-size: 1.1rem; font-weight: 700; color: #fff; margin-right: auto; }
.bb-top b { color: #fff; }
.bb-label { font-size: .7rem; text-transform: uppercase; letter-spacing: .06em; color: #cfe0d4; margin-bottom: .25rem; }
.bb-loop { display: grid; grid-template-columns: repeat(12, minmax(2.6rem, 1fr)); gap: .25rem; }
.bb-space { position: relative; min-height: 4.2rem; border-radius: .45rem; background: rgba(255,255,255,.08);
  border: 1px solid rgba(255,255,255,.12); padding: .2rem; display: grid; grid-template-rows: auto auto 1fr; justify-items: center; }
.bb-space.bb-here { border-color: #f3c34b; background: rgba(243,195,75,.14); }
.bb-space .bb-icon { font-size: 1.05rem; line-height: 1.1; color: #fff; }
.bb-space .bb-name { font-size: .5rem; text-transform: uppercase; letter-spacing: .04em; color: #cfe0d4; }
.bb-space.bb-question .bb-icon { color: #9fd3ff; } .bb-space.bb-dragon .bb-icon { color: #ff9a8a; }
.bb-space.bb-ghost .bb-icon { color: #e6e6ff; } .bb-space.bb-elfstone .bb-icon { color: #8fe3a6; }
.bb-space.bb-dwarf .bb-icon { color: #f3c34b; }
.bb-wiz { display: flex; flex-wrap: wrap; gap: 2px; justify-content: center; align-content: end; }
.bb-dot { width: 1.05rem; height: 1.05rem; border-radius: 50%; background: var(--seat); color: #fff; font-size: .62rem;
  font-weight: 800; display: grid; place-items: center; box-shadow: 0 0 0 2px rgba(0,0,0,.25); }
.bb-score { position: relative; height: 1.9rem; background: rgba(255,255,255,.1); border-radius: 999px; margin: 0 .6rem; }
.bb-score .bb-tick { position: absolute; top: 0; bottom: 0; width: 1px; background: rgba(255,255,255,.15); }
.bb-score .bb-dot { position: absolute; top: .42rem; transform: translateX(-50%); }
.bb-score .bb-end { position: absolute; right: -.5rem; top: .3rem; font-size: .8rem; color: #f3c34b; }
.bb-scale { display: flex; justify-content: space-between; font-size: .62rem; color: #cfe0d4; margin: .1rem .6rem 0; }
.bb-makers { --pv-seat-min: 17rem; }
.bb-hat { margin-left: auto; font-weight: 800; color: #f3c34b; white-space: nowrap; }
.bb-stats { display: flex; flex-wrap: wrap; gap: .2rem .8rem; font-size: .8rem; color: #e4efe7; }
.bb-obj { background: #fffdf6; color: #2b2418; border-radius: .5rem; padding: .4rem .55rem; display: grid; gap: .25rem;
  box-shadow: 0 2px 4px rgba(0,0,0,.3); border-left: .3rem solid #b89a6a; }
.bb-obj.bb-solved1 { border-left-color: #d9a520; } .bb-obj.bb-solved2 { border-left-color: #3a8f5c; }
.bb-obj.bb-new { outline: 3px solid #f3c34b; outline-offset: 1px; }
.bb-ohead { display: flex; align-items: center; gap: .4rem; flex-wrap: wrap; font-size: .8rem; }
.bb-oid { font-weight: 800; color: #7a6a4a; }
.bb-word { font-weight: 800; font-size: .95rem; }
.bb-word.bb-hidden { color: #a49a86; letter-spacing: .1em; font-weight: 600; }
.bb-arrows { margin-left: auto; color: #8a6514; font-weight: 800; white-space: nowrap; }
.bb-feats { display: flex; flex-wrap: wrap; gap: .2rem; }
.bb-feat { font-size: .7rem; background: #efe8d6; border-radius: 999px; padding: 0 .4rem; }
.bb-feat.bb-yes { background: #dcefe3; color: #1f5b36; } .bb-feat.bb-no { background: #f6dcda; color: #8a2a24; }
.bb-feat.bb-maybe { background: #f4ecd0; color: #6a5416; } .bb-feat.bb-cant_say { background: #e9e9e9; color: #555; }
.bb-letters { font-size: .72rem; color: #5c4510; }
.bb-solvers { display: inline-flex; gap: 2px; }
.bb-penalty { color: #ffd9a8; }
.bb-log { display: grid; gap: .15rem; font-size: .8rem; color: #e4efe7; max-height: 9.5rem; overflow-y: auto; }
.bb-log div b { color: #fff; }
@media (max-width: 720px) {
  .bb-loop { grid-template-columns: repeat(6, minmax(0, 1fr)); }
  .pv-seats.bb-makers { grid-template-columns: minmax(0, 1fr); }
}
/* The person's controls at a table (controls(), below): on the page's paper, beside the felt. */
.bb-c { display: grid; gap: .45rem; padding: .6rem .7rem; background: #fffdf6; border: 1px solid #e2d6b8; border-radius: 10px;
  color: #2b2418; min-width: 0; }
.bb-c-create, .bb-c-objects, .bb-c-move, .bb-c-panel, .bb-c-part { min-width: 0; display: grid; gap: .4rem; }
.bb-c p { margin: 0; }
.bb-c-what { font-size: .92rem; line-height: 1.35; }
.bb-c-hand { font-size: .85rem; color: #5c4a22; }
.bb-c-note { font-size: .85rem; color: #9b1c1c; min-height: 0; }
.bb-c-note:empty { display: none; }
.bb-c-label { font-size: .7rem; text-transform: uppercase; letter-spacing: .05em; color: #7a6a4a; margin-top: .15rem; }
.bb-c-hint { font-size: .82rem; color: #7a6a4a; }
:where(.bb-c) button { font: inherit; color: inherit; cursor: pointer; line-height: 1.3; }
.bb-c button:disabled { cursor: default; opacity: .45; }
.bb-c button:focus-visible, .bb-c input:focus-visible { outline: 3px solid #2d5f9a; outline-offset: 2px; }
.bb-c-row { display: flex; flex-wrap: wrap; gap: .4rem; }
.bb-c-btn { justify-self: start; border: 1px solid #b89a6a; background: #fff; border-radius: 8px; padding: .45rem .8rem; font-weight: 600; text-align: left; }
.bb-c-btn.bb-c-go { background: #c59a3a; border-color: #a88128; color: #1d1a10; }
.bb-c-btn:hover:not(:disabled) { border-color: #2b2418; }
.bb-c-suggest { font-weight: 500; }
.bb-c-filter, .bb-c-guess-in { font: inherit; width: 100%; min-width: 0; padding: .35rem .5rem; border: 1px solid #c8bc9c; border-radius: 6px; background: #fff; }
.bb-c-words, .bb-c-qs { display: flex; flex-wrap: wrap; gap: .3rem; max-height: 9.5rem; overflow-y: auto; padding: .15rem; align-content: flex-start; }
.bb-c-qs { max-height: 12.5rem; }
.bb-c-word, .bb-c-chip, .bb-c-q { border: 1px solid #d2c6a6; background: #f6f1e3; border-radius: 999px; padding: .15rem .6rem; font-size: .85rem; }
.bb-c-q { border-radius: 8px; text-align: left; background: #eef4fb; border-color: #bcd0e6; }
.bb-c-word[aria-pressed="true"], .bb-c-chip[aria-pressed="true"] { background: #2f7d4f; border-color: #23603c; color: #fff; font-weight: 700; }
.bb-c-feats { display: flex; flex-wrap: wrap; gap: .3rem; }
.bb-c-preview { font-size: .88rem; }
.bb-c-spaces { display: grid; grid-template-columns: repeat(6, minmax(0, 1fr)); gap: .3rem; max-width: 34rem; }
.bb-c-space { display: grid; justify-items: center; gap: .05rem; padding: .3rem .1rem; border-radius: 8px; background: #1f4d3a; color: #fff;
  border: 2px solid #163a2b; min-width: 0; }
button.bb-c-space { color: #fff; }
button.bb-c-space:hover { border-color: #f3c34b; }
.bb-c-space.bb-c-off { opacity: .4; }
.bb-c-space .bb-c-icon { font-size: 1.15rem; line-height: 1.1; }
.bb-c-space.bb-question .bb-c-icon { color: #9fd3ff; } .bb-c-space.bb-dragon .bb-c-icon { color: #ff9a8a; }
.bb-c-space.bb-ghost .bb-c-icon { color: #e6e6ff; } .bb-c-space.bb-elfstone .bb-c-icon { color: #8fe3a6; }
.bb-c-space.bb-dwarf .bb-c-icon { color: #f3c34b; }
.bb-c-sname { font-size: .58rem; text-transform: uppercase; letter-spacing: .03em; overflow: hidden; text-overflow: ellipsis; max-width: 100%; }
.bb-c-cost { font-size: .72rem; color: #f3c34b; font-weight: 700; }
.bb-c-picks { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .35rem; }
.bb-c-pick { display: grid; gap: .1rem; align-content: start; text-align: left; background: #fff; border: 1px solid #d2c6a6; border-left: .3rem solid #b89a6a;
  border-radius: 8px; padding: .3rem .5rem; font-size: .8rem; min-width: 0; }
.bb-c-pick.bb-c-a1 { border-left-color: #d9a520; } .bb-c-pick.bb-c-a2 { border-left-color: #3a8f5c; }
.bb-c-pick[aria-pressed="true"] { background: #fff4d6; border-color: #c59a3a; box-shadow: 0 0 0 2px #c59a3a; }
.bb-c-who { font-weight: 700; display: flex; align-items: flex-start; gap: .3rem; overflow-wrap: break-word; min-width: 0; }
.bb-c-sdot { width: .7rem; height: .7rem; margin-top: .25em; border-radius: 50%; background: var(--seat); flex: none; }
.bb-c-shows { color: #4a3f2a; }
.bb-c-meta { color: #8a6514; font-size: .74rem; }
.bb-c-answers { display: flex; flex-wrap: wrap; align-items: center; gap: .2rem; }
.bb-c-tiles { display: flex; flex-wrap: wrap; gap: .25rem; }
.bb-c-tile { width: 2.3rem; display: grid; justify-items: center; padding: .15rem 0 .1rem; background: #fbf3dc; border: 1px solid #b89a6a;
  border-radius: 6px; box-shadow: 0 2px 0 #b89a6a; }
.bb-c-tile.bb-c-last { width: auto; padding: .15rem .45rem .1rem; }
.bb-c-tile.bb-c-known { background: #dcefe3; border-color: #3a8f5c; box-shadow: 0 2px 0 #3a8f5c; }
.bb-c-tile.bb-c-beyond { opacity: .55; }
.bb-c-glyph { font-size: 1.15rem; font-weight: 800; line-height: 1.2; text-transform: uppercase; }
.bb-c-pos { font-size: .6rem; color: #7a6a4a; }
.bb-c-guess { display: flex; flex-wrap: wrap; gap: .35rem; }
.bb-c-guess .bb-c-guess-in { flex: 1 1 9rem; width: auto; }
.bb-c-guess .bb-c-btn { flex: none; }
.bb-c-head { font-size: .85rem; font-weight: 700; }
.bb-c-head .bb-c-hint { font-weight: 400; }
@media (max-width: 520px) {
  .bb-c { padding: .5rem; }
  .bb-c-picks { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .bb-c-tile { width: 2.05rem; }
}
`;

// ----- plain-English narration ------------------------------------------------------------------------------
// The engine's lines are terse ("seat 0 asks seat 1 about o4: is_container? no"); the viewer rewords them from the
// lexicon's feature names. A line this does not recognise is shown as the engine wrote it, capitalised.
const NOUN_FEATURES = new Set(["animal", "mammal", "plant", "fruit_or_vegetable", "vehicle", "tool", "musical_instrument", "building", "container"]);
const PHRASES = { is_man_made: "is man-made", found_in_kitchen: "is found in a kitchen", is_furniture: "is furniture" };
const BE_PREFIXES = ["made_", "found_", "used_", "sold_", "bigger_", "heavier_"];
const ANSWER_WORDS = { yes: "Yes", no: "No", maybe: "Maybe", cant_say: "Can't say" };
const SPACE_NAMES = { question: "a question space", elfstone: "an elfstone space", dragon: "a dragon space", dwarf: "a dwarf space", ghost: "a ghost space" };

const words = (text) => text.replace(/_/g, " ");
const article = (noun) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/** A feature as a statement about the object: is_container → "is a container", lays_eggs → "lays eggs". */
export function statement(feature) {
  if (PHRASES[feature]) return PHRASES[feature];
  if (feature.startsWith("is_")) {
    const rest = feature.slice(3);
    return NOUN_FEATURES.has(rest) ? `is ${article(words(rest))}` : `is ${words(rest)}`;
  }
  if (BE_PREFIXES.some((prefix) => feature.startsWith(prefix))) return `is ${words(feature)}`;
  return words(feature); // has a face, can fly, lays eggs, existed 500 years ago
}

/** A feature as the question asked: is_container → "Is it a container?", lays_eggs → "Does it lay eggs?". */
export function question(feature) {
  const said = statement(feature);
  const [verb, ...rest] = said.split(" ");
  const tail = rest.join(" ");
  if (verb === "is") return `Is it ${tail}?`;
  if (verb === "can") return `Can it ${tail}?`;
  if (verb === "has") return `Does it have ${tail}?`;
  if (verb === "existed") return `Did it exist ${tail}?`;
  return `Does it ${verb.replace(/s$/, "")} ${tail}?`;
}

const Seat = (n) => `Seat ${n}`;
const list = (items) => (items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`);
const plural = (n, one, many) => `${n} ${Number(n) === 1 ? one : many}`;

const NARRATION = [
  [/^seat (\d+) makes object (\w+) in secret$/, (m) => `${Seat(m[1])} makes a secret object, ${m[2]}.`],
  [/^creation is over, the sculptures are public: (.*)$/, (m) => {
    const shown = m[1].split("; ").map((part) => {
      const [, id, maker, features] = part.match(/^(\w+) \(seat (\d+)\): (.*)$/) || [];
      if (!id) return part;
      return `${id} (seat ${maker}) ${list(features.split(", ").map(statement))}`;
    });
    return `Every object is made, and each sculpture shows some true features: ${shown.join("; ")}.`;
  }],
  [/^turn (\d+): seat (\d+) to move$/, (m) => `Turn ${m[1]}: seat ${m[2]} moves their wizard.`],
  [/^seat (\d+) rolls (\d+) and lands on space (\d+) \((\w+)\)$/, (m) => `${Seat(m[1])} rolls ${m[2]} and lands on space ${m[3]}, ${SPACE_NAMES[m[4]] || m[4]}.`],
  [/^seat (\d+) pays (\d+) elfstones? and lands on space (\d+) \((\w+)\)$/, (m) => `${Seat(m[1])} pays ${plural(m[2], "elfstone", "elfstones")} to move exactly ${plural(m[2], "space", "spaces")} and lands on space ${m[3]}, ${SPACE_NAMES[m[4]] || m[4]}.`],
  [/^seat (\d+) has (\d+) elfstones?$/, (m) => `${Seat(m[1])} takes an elfstone and now has ${plural(m[2], "elfstone", "elfstones")}.`],
  [/^every other player's hat moves \+(\d+): hats \[(.*)\]$/, (m) => `Every other player's hat moves ${m[1]} forward; the hats are now at ${list(m[2].split(", "))}.`],
  [/^seat (\d+) must ask an opponent for a letter$/, (m) => `${Seat(m[1])} must ask an opponent for one letter of a secret word.`],
  [/^seat (\d+) starts a question round$/, (m) => `${Seat(m[1])} starts a question round: yes-or-no questions about the other players' objects.`],
  [/^seat (\d+) has no question left: the second round begins$/, (m) => `${Seat(m[1])} has no question left, so the second question round begins.`],
  [/^seat (\d+) asks seat (\d+) for (?:letter (\d+)|(the last letter)) of (\w+) and is told it in secret$/, (m) =>
    `${Seat(m[1])} asks seat ${m[2]} for the ${m[3] ? `${ordinal(Number(m[3]))} letter` : "last letter"} of ${m[5]}, and is told it in secret.`],
  [/^seat (\d+) asks seat (\d+) about (\w+): (\w+)\? (\w+)$/, (m) => `${Seat(m[1])} asks seat ${m[2]} about ${m[3]}: “${question(m[4])}” “${ANSWER_WORDS[m[5]] || m[5]}.”`],
  [/^seat (\d+) begins the second question round$/, (m) => `That “No” ends seat ${m[1]}'s first question round; the second one begins.`],
  [/^seat (\d+) takes (\d+) curse tokens back$/, (m) => `${Seat(m[1])} has no curse token left and takes ${m[2]} back (once a game).`],
  // Only "right" or "wrong" is public (RULES.md "Guesses and scoring" 4): the story never names the guessed word,
  // which the board too shows only once the game is over (stumble 27).
  [/^seat (\d+) guesses (\w+)( with a curse)?: wrong$/, (m) => `${Seat(m[1])}${m[3] ? " plays a curse and" : ""} guesses the word of ${m[2]}: wrong.`],
  [/^seat (\d+) guesses (\w+)( with a curse)?: right, arrow (\d+) of (\d+)$/, (m) =>
    `${Seat(m[1])}${m[3] ? " plays a curse and" : ""} guesses the word of ${m[2]}: right! That is arrow ${m[4]} of ${m[5]}.`],
  [/^seat (\d+)'s hat moves ([+-])(\d+) to (\d+)$/, (m) => `${Seat(m[1])}'s hat moves ${m[3]} ${m[2] === "+" ? "forward" : "back"}, to ${m[4]}.`],
  [/^the (\d+)th arrow ends the game$/, (m) => `The ${m[1]}th arrow ends the game.`],
  [/^seats? ([\d, ]+) reach the end: win$/, (m) => {
    const seats = m[1].split(", ");
    return `${seats.length > 1 ? `Seats ${list(seats)} reach` : `Seat ${seats[0]} reaches`} the end of the scoring track and win${seats.length > 1 ? "" : "s"}.`;
  }],
  [/^final hats after penalties: \[(.*)\]$/, (m) =>
    `Final scores after penalties (−5 for each of a player's own objects no one solved, −2 for one solved only once; none for a player who reached the end): ${list(m[1].split(", ").map((score, s) => `seat ${s} ${score}`))}.`],
  [/^the words were: (.*)$/, (m) => `The secret words were: ${list(m[1].split(", ").map((pair) => pair.replace(/^(\w+) (.*)$/, "$1 “$2”")))}.`],
  [/^seat (\d+) ends the question round$/, (m) => `${Seat(m[1])} ends their question round.`],
  [/^seat (\d+) passes$/, (m) => `${Seat(m[1])} passes: no curse.`],
];

function ordinal(n) {
  const suffix = n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th";
  return `${n}${suffix}`;
}

/** The engine's narration in plain English sentences (docs/viewer.md: `narrate`). */
export function narrate(lines) {
  return lines.map((line) => {
    for (const [pattern, say] of NARRATION) {
      const match = line.match(pattern);
      if (match) return say(match);
    }
    const text = line.charAt(0).toUpperCase() + line.slice(1);
    return /[.!?]$/.test(text) ? text : `${text}.`;
  });
}


function dot(h, seat, title) {
  return h("span", { class: ["bb-dot", `pv-s${seat % 6}`], title }, String(seat));
}

function ordinalPosition(position) {
  if (position === "last") return "last letter";
  const n = Number(position);
  const suffix = n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th";
  return `${n}${suffix} letter`;
}

// At the end: −5 for each of the seat's own objects no one solved, −2 for each solved once; a seat that reached the
// end of the track keeps its hat (engine.py `_finish`).
function penaltyNote(h, view, s) {
  const own = view.objects.filter((o) => o.maker === s);
  const none = own.filter((o) => o.arrows === 0).length;
  const one = own.filter((o) => o.arrows === 1).length;
  const why = [none && `${none} of their objects unsolved × 5`, one && `${one} solved only once × 2`].filter(Boolean).join(" + ");
  const spared = (view.winners || []).includes(s);
  return h(
    "span",
    { class: "bb-penalty", title: "At the end each player loses 5 for each of their own objects no one solved and 2 for each solved only once, unless they reached the end of the track" },
    spared
      ? `penalty −${view.penalties[s]} (${why}) not applied: reached the end`
      : `hat ${view.hats[s]} − penalty ${view.penalties[s]} (${why}) = score ${finalScore(view, s)}`,
  );
}

// The number a seat ends with: its hat less the end penalty (not below 0), or its hat if it reached the end of the
// track; the engine's `scores` once the game is over. Before the end, the hat.
function finalScore(view, s) {
  if (view.phase !== "over") return view.hats[s];
  if (Array.isArray(view.scores)) return view.scores[s];
  if ((view.winners || []).includes(s) || !view.penalties) return view.hats[s];
  return Math.max(0, view.hats[s] - view.penalties[s]);
}

export function render(view, ctx) {
  const { h } = ctx;
  const over = view.phase === "over";
  const prev = ctx.previous;
  const track = view.track || [];
  const finish = view.finish || 30;

  const head = h(
    "div",
    { class: "bb-top" },
    h("span", { class: "bb-phase" }, PHASES[view.phase] || view.phase, view.question_round ? ` ${view.question_round}` : ""),
    h("span", null, "Turn ", h("b", null, String(view.turn))),
    view.last_roll ? h("span", null, "Rolled ", h("b", null, String(view.last_roll))) : null,
    h("span", null, "Arrows ", h("b", null, `${view.arrows_total} / 13`)),
    h("span", null, "Curses used ", h("b", null, String(view.curses_used))),
  );

  const loop = h(
    "div",
    { class: "bb-loop", role: "img", "aria-label": "The wizards' loop" },
    track.map((space, i) => {
      const [icon, name] = SPACES[space] || ["·", space];
      const here = view.wizards.map((w, s) => (w === i ? s : null)).filter((s) => s !== null);
      return h(
        "div",
        { class: ["bb-space", `bb-${space}`, view.phase !== "create" && view.wizards[view.mover] === i && "bb-here"], title: `space ${i}: ${name}` },
        h("span", { class: "bb-icon" }, icon),
        h("span", { class: "bb-name" }, name),
        h("span", { class: "bb-wiz" }, here.map((s) => dot(h, s, `seat ${s}'s wizard`))),
      );
    }),
  );

  const ticks = [];
  for (let i = 5; i < finish; i += 5) ticks.push(h("span", { class: "bb-tick", style: { left: `${(i / finish) * 100}%` } }));
  // At the end the track shows the final scores (the hats after the penalties), as the seats' crowns do.
  const marks = view.hats.map((_, s) => finalScore(view, s));
  const score = h(
    "div",
    null,
    h("div", { class: "bb-label" }, over ? "Final scores, after the end penalties" : `Hats on the scoring track · the first to ${finish} wins`),
    h("div", { class: "bb-score" }, ticks, marks.map((hat, s) => {
      const same = marks.slice(0, s).filter((x) => x === hat).length;
      return h("span", { class: ["bb-dot", `pv-s${s % 6}`], title: `seat ${s}: ${hat}`, style: { left: `calc(${(Math.min(hat, finish) / finish) * 100}% + ${same * 1.1}rem)` } }, String(s));
    }), h("span", { class: "bb-end" }, "♛")),
    h("div", { class: "bb-scale" }, h("span", null, "0"), h("span", null, String(finish))),
  );

  const letters = {};
  const told = Array.isArray(view.letters)
    ? (ctx.revealed ? view.letters.flatMap((list, s) => list.map((l) => ({ ...l, to: s }))) : view.letters)
    : [];
  for (const l of told) (letters[l.object] ||= []).push(l);
  const prevArrows = new Map((prev && prev.objects ? prev.objects : []).map((o) => [o.id, o.arrows]));
  const asked = {};
  for (const q of view.questions || []) (asked[q.object] ||= []).push(q);

  const makers = [];
  for (let s = 0; s < view.players; s += 1) {
    const me = view.seat === s;
    const turn = view.to_move === s;
    const badges = [];
    if (me) badges.push(h("span", { class: "pv-badge pv-b-you" }, "you"));
    if (turn) badges.push(h("span", { class: "pv-badge pv-b-turn" }, "to act"));
    if (over && (view.winners || []).includes(s)) badges.push(h("span", { class: "pv-badge pv-b-win" }, "★ winner"));
    const objects = view.objects.filter((o) => o.maker === s).map((o) => {
      const word = o.word
        ? h("span", { class: "bb-word" }, o.word)
        : h("span", { class: "bb-word bb-hidden", title: "a secret word" }, "? ? ?");
      const answers = (asked[o.id] || []).slice(-6);
      return h(
        "div",
        { class: ["bb-obj", o.arrows === 1 && "bb-solved1", o.arrows >= 2 && "bb-solved2", prev && prevArrows.get(o.id) !== undefined && prevArrows.get(o.id) < o.arrows && "bb-new"], dataset: { object: o.id } },
        h("div", { class: "bb-ohead" }, h("span", { class: "bb-oid" }, o.id), word,
          h("span", { class: "bb-arrows", title: `${o.arrows} of 2 arrows` }, "➶".repeat(o.arrows) || "—"),
          o.solved_by.length ? h("span", { class: "bb-solvers", title: "solved by" }, o.solved_by.map((g) => dot(h, g, `solved by seat ${g}`))) : null),
        h("div", { class: "bb-feats" }, o.sculpture === null
          ? h("span", { class: "bb-feat" }, "sculpture not shown yet")
          : o.sculpture.map((f) => h("span", { class: "bb-feat", title: "its maker's sculpture shows this: true" }, statement(f)))),
        answers.length
          ? h("div", { class: "bb-feats" }, answers.map((q) => h("span", { class: ["bb-feat", `bb-${q.answer}`], title: `seat ${q.asker} asked` }, `${question(q.feature)} ${ANSWER_WORDS[q.answer] || q.answer}`)))
          : null,
        letters[o.id]
          ? h("div", { class: "bb-letters" }, letters[o.id].map((l) => `${l.to !== undefined ? `seat ${l.to}: ` : ""}${ordinalPosition(l.position)} ${l.letter === "none" ? "(none)" : `“${l.letter}”`}`).join(" · "))
          : null,
      );
    });
    makers.push(
      h(
        "section",
        { class: ["pv-seat", "bb-seat", turn && "pv-turn", me && "pv-me"], dataset: { seat: String(s) } },
        h("div", { class: "pv-seat-head" }, ctx.seatChip(s), badges, h("span", { class: "bb-hat", title: over ? "final score (the hat after the end penalty)" : "hat on the scoring track" }, `♛ ${finalScore(view, s)}`)),
        h("div", { class: "bb-stats" },
          h("span", { title: "elfstones (pay one per space to move exactly)" }, `◆ ${plural(view.elfstones[s], "elfstone", "elfstones")}`),
          h("span", { title: "curse tokens: play one to ask for a letter or guess out of turn" }, `✶ ${plural(view.curses[s], "curse token", "curse tokens")}`),
          view.penalties && view.penalties[s] ? penaltyNote(h, view, s) : null),
        objects,
      ),
    );
  }

  const parts = [head, loop, score];
  const recent = (view.questions || []).slice(-4);
  const guesses = (view.guesses || []).slice(-3);
  if (recent.length || guesses.length) {
    parts.push(h("div", null, h("div", { class: "bb-label" }, "Latest questions and guesses"), h("div", { class: "bb-log" },
      recent.map((q) => h("div", null, `Seat ${q.asker} asked about ${q.object}: “${question(q.feature)}” `, h("b", null, ANSWER_WORDS[q.answer] || q.answer))),
      guesses.map((g) => h("div", null, `Seat ${g.guesser}${g.curse ? " (with a curse)" : ""} guessed that ${g.object} is ${g.word ? `“${g.word}”` : "a word"}: `, h("b", null, g.right ? "right" : "wrong"))),
    )));
  }
  parts.push(h("div", { class: ["pv-seats", "bb-makers"] }, makers));
  const endings = { finish: "a hat reached the end of the scoring track", last_arrow: "the last arrow was placed" };
  if (over && view.end_reason) parts.push(h("div", { class: "bb-label" }, `The game ended: ${endings[view.end_reason] || view.end_reason}`));
  return h("div", { class: "bb" }, parts);
}

// ----- controls: the person's move at a table (docs/viewer.md, "Controls") ----------------------------------------
// Every decision is drawn with the game's own things: a word picked from the lexicon and the sculpture's features as
// chips; the wizard's next six spaces to pay for; the opponents' objects, by their makers' names, with their
// sculptures; a word as letter tiles to ask for; yes-or-no questions as sentences; a guess typed into a text box.
// Only what `ctx.legal` lists is offered, and every action sent is one of it (a template's blanks filled in).

const SPACE_EFFECTS = {
  question: "a question round: ask about the other players' objects",
  elfstone: "take an elfstone",
  dragon: "every other player's hat moves up 1",
  ghost: "every other player's hat moves up 2",
  dwarf: "ask an opponent for one letter",
};
// What the person worked on, kept from one decision to the next (one table per page): the object they asked about,
// and the control to give the keyboard focus back to after a move made with the keyboard.
const memory = { object: null, focus: null };

/** A value as JSON with sorted keys, to compare an action with the legal ones whatever the key order. */
function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

// A sentence starts with a capital, but a bot's name is written as its owner wrote it: only "you"/"your" change.
const capital = (text) => (/^you/.test(text) ? `Y${text.slice(1)}` : text);

export function controls(obs, ctx) {
  const legal = Array.isArray(ctx.legal) ? ctx.legal : [];
  if (!legal.length || !obs || !Array.isArray(obs.objects)) return null;
  const { h } = ctx;
  const you = ctx.you;
  const lists = (ctx.blanks && ctx.blanks.lists) || {};
  const legalKeys = new Set(legal.map(canonicalJson));
  const isLegal = (action) => legalKeys.has(canonicalJson(action));
  const who = (seat) => (seat === you ? "you" : ctx.name(seat));
  const objectsById = new Map(obs.objects.map((o) => [o.id, o]));
  const rank = (o) => obs.objects.filter((x) => x.maker === o.maker).findIndex((x) => x.id === o.id) + 1;
  // "parlour/random v1's 2nd object", never its id.
  const objectName = (o) => (o.maker === you ? `your ${ctx.ordinal(rank(o))} object` : `${who(o.maker)}'s ${ctx.ordinal(rank(o))} object`);
  const their = (o) => `their ${ctx.ordinal(rank(o))} object`;
  const send = (action, label, control) => {
    memory.focus = control && control.dataset.key && control.__keyboard ? control.dataset.key : null;
    ctx.act(action, label);
  };
  // A button that remembers whether it was pressed with the keyboard (a click with detail 0).
  const choice = (attrs, ...children) => {
    const button = h("button", { type: "button", ...attrs }, ...children);
    button.addEventListener("click", (event) => { button.__keyboard = event.detail === 0; }, { capture: true });
    return button;
  };
  const note = h("p", { class: "bb-c-note", role: "status", "aria-live": "polite" });
  const say = (text) => { note.textContent = text; };
  // A filter box over a long list of buttons: typing hides what does not match; Enter or ↓ moves to the first match.
  const filterBox = (placeholder, buttons, matches) => {
    const box = h("input", { type: "search", class: "bb-c-filter", placeholder, "aria-label": placeholder.replace("…", ""), autocomplete: "off", maxlength: 30 });
    box.addEventListener("input", () => {
      const text = box.value.trim().toLowerCase();
      for (const button of buttons) button.hidden = Boolean(text) && !matches(button, text);
    });
    box.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== "ArrowDown") return;
      event.preventDefault();
      const first = buttons.find((button) => !button.hidden && !button.disabled);
      if (first) first.focus();
    });
    return box;
  };

  const ownWords = obs.objects.filter((o) => o.maker === you && o.word).map((o) => o.word);
  const hand = ownWords.length
    ? h("p", { class: "bb-c-hand" }, "Your secret words: ", ownWords.map((w, i) => [i ? ", " : "", h("b", null, w)]))
    : null;

  let body;
  if (obs.phase === "create") body = createControls();
  else if (obs.phase === "move") body = moveControls();
  else if (obs.phase === "dwarf" || obs.phase === "question" || obs.phase === "curse") body = objectControls();
  else return null;
  if (!body) return null;
  const root = h("div", { class: "bb-c", dataset: { bbPhase: obs.phase } }, body, note, obs.phase === "create" ? null : hand);
  const focusKey = memory.focus;
  memory.focus = null;
  if (focusKey) {
    setTimeout(() => {
      const again = root.isConnected && (root.querySelector(`[data-key="${CSS.escape(focusKey)}"]:not([disabled])`)
        || root.querySelector("[data-bb=object][aria-pressed=true]") || root.querySelector("button:not([disabled])"));
      if (again) again.focus({ preventScroll: true });
    }, 0);
  }
  return root;

  // ----- creation: a word, then the features its sculpture shows --------------------------------------------------
  function createControls() {
    const made = obs.objects.filter((o) => o.maker === you && o.word).length;
    const per = obs.objects_per_player || obs.objects.filter((o) => o.maker === you).length;
    const template = legal.find((a) => a.create && a.create.word === null);
    const suggestion = legal.find((a) => a.create && typeof a.create.word === "string");
    const blank = ctx.blanks && ctx.blanks.blanks ? (ctx.blanks.blanks[legal.indexOf(template)] || []).find((b) => b.kind === "some") : null;
    const low = blank && Number.isInteger(blank.min) ? blank.min : 1;
    const high = blank && Number.isInteger(blank.max) ? blank.max : 5;
    const words = template && Array.isArray(lists.new_words) ? lists.new_words : [];
    const featuresOf = (word) => (lists.features && Array.isArray(lists.features[word]) ? lists.features[word] : []);
    const parts = [
      h("p", { class: "bb-c-what" }, h("b", null, `Make your ${ctx.ordinal(made + 1)} of ${per} secret objects.`),
        ` Pick a word; its sculpture shows ${low} to ${high} features that are true of it. The others try to guess the word.`),
    ];
    if (suggestion) {
      const { word, sculpture } = suggestion.create;
      parts.push(choice({ class: "bb-c-btn bb-c-suggest", dataset: { bb: "suggest", key: "suggest" },
        onclick: (e) => send(suggestion, `You make “${word}”, showing that it ${list(sculpture.map(statement))}`, e.currentTarget) },
      `Take the suggestion: “${word}”, showing that it ${list(sculpture.map(statement))}`));
    }
    if (!words.length) return h("div", { class: "bb-c-create" }, parts);
    let chosen = null;
    let shown = [];
    const wordBox = h("div", { class: "bb-c-words", role: "group", "aria-label": "Your secret word" });
    const featureBox = h("div", { class: "bb-c-feats", role: "group", "aria-label": "What its sculpture shows" });
    const preview = h("p", { class: "bb-c-preview" });
    const make = choice({ class: "bb-c-btn bb-c-go", dataset: { bb: "make", key: "make" }, disabled: true });
    let featureButtons = [];
    // A new word: its true features as chips (kept while features are toggled, so the keyboard focus stays put).
    const pickWord = (word) => {
      chosen = word;
      shown = [];
      featureButtons = featuresOf(word).map((f) => choice({ class: "bb-c-chip", "aria-pressed": "false", dataset: { bb: "feature", feature: f },
        onclick: () => { shown = shown.includes(f) ? shown.filter((x) => x !== f) : [...shown, f]; draw(); } }, `it ${statement(f)}`));
      featureBox.replaceChildren(...featureButtons);
      draw();
    };
    const wordButtons = words.map((word) => choice({ class: "bb-c-word", "aria-pressed": "false", dataset: { bb: "word", word },
      onclick: () => pickWord(word) }, word));
    wordBox.append(...wordButtons);
    const filter = filterBox("Find a word…", wordButtons, (button, text) => button.dataset.word.includes(text) || button.dataset.word === chosen);
    make.addEventListener("click", (e) => {
      if (!chosen || shown.length < low) return;
      const action = { create: { word: chosen, sculpture: [...shown] } };
      send(action, `You make “${chosen}”, showing that it ${list(shown.map(statement))}`, e.currentTarget);
    });
    featureBox.append(h("span", { class: "bb-c-hint" }, "Pick a word first: its true features appear here."));
    function draw() {
      for (const button of wordButtons) button.setAttribute("aria-pressed", String(button.dataset.word === chosen));
      for (const button of featureButtons) {
        const on = shown.includes(button.dataset.feature);
        button.setAttribute("aria-pressed", String(on));
        button.disabled = !on && shown.length >= high;
      }
      preview.replaceChildren(...(chosen
        ? [`Your object: `, h("b", null, `“${chosen}”`), shown.length ? `, its sculpture shows that it ${list(shown.map(statement))}.` : `; now pick ${low} to ${high} of its features.`]
        : ["No word picked yet."]));
      make.disabled = !chosen || shown.length < low || shown.length > high;
      make.textContent = chosen ? `Make “${chosen}” showing ${plural(shown.length, "feature", "features")}` : "Make this object";
    }
    draw();
    parts.push(
      h("div", { class: "bb-c-label" }, "Or pick your own word"), filter, wordBox,
      h("div", { class: "bb-c-label" }, `Its sculpture shows (${low} to ${high})`), featureBox, preview, make,
    );
    return h("div", { class: "bb-c-create" }, parts);
  }

  // ----- moving: roll, or pay for one of the next six spaces ------------------------------------------------------
  function moveControls() {
    const here = obs.wizards[you];
    const track = obs.track || [];
    const stones = obs.elfstones[you];
    const roll = legal.find((a) => a.roll === true);
    const tiles = [];
    for (let k = 1; k <= 6 && track.length; k += 1) {
      const at = (here + k) % track.length;
      const space = track[at];
      const [icon, name] = SPACES[space] || ["·", space];
      const action = { move: k };
      const face = [h("span", { class: "bb-c-icon" }, icon), h("span", { class: "bb-c-sname" }, name), h("span", { class: "bb-c-cost" }, `${k} ◆`)];
      if (isLegal(action)) {
        const label = `Pay ${plural(k, "elfstone", "elfstones")} and move to the ${name} space: ${SPACE_EFFECTS[space] || name}`;
        tiles.push(choice({ class: ["bb-c-space", `bb-${space}`], "aria-label": label, title: label, dataset: { bb: "pay", key: `pay-${k}` },
          onclick: (e) => send(action, `You pay ${plural(k, "elfstone", "elfstones")} and move to the ${name} space`, e.currentTarget) }, face));
      } else {
        tiles.push(h("span", { class: ["bb-c-space", "bb-c-off", `bb-${space}`], title: `${k} spaces away: ${name} (you have ${plural(stones, "elfstone", "elfstones")})` }, face));
      }
    }
    return h("div", { class: "bb-c-move" },
      h("p", { class: "bb-c-what" }, h("b", null, "Move your wizard."),
        ` Roll the die, or pay one elfstone a space to land exactly where you want (you have ${plural(stones, "elfstone", "elfstones")}).`),
      roll ? choice({ class: "bb-c-btn bb-c-go", dataset: { bb: "roll", key: "roll" }, onclick: (e) => send(roll, "You roll the die", e.currentTarget) }, "⚀ Roll the die (1 to 6 spaces)") : null,
      h("div", { class: "bb-c-label" }, "Or pay to land on one of the next spaces"),
      h("div", { class: "bb-c-spaces" }, tiles),
    );
  }

  // ----- a dwarf's letter, a question round, a curse: pick an opponent's object, then what to do with it ----------
  function objectControls() {
    const phase = obs.phase;
    const letterOf = (a) => (phase === "dwarf" ? a.letter : a.curse && a.curse.letter);
    const guessOf = (a) => (phase === "question" ? a.guess : a.curse && a.curse.guess);
    const targets = new Map();  // object id -> {letters: [actions], asks: [actions], guess: template}
    const slot = (id) => { if (!targets.has(id)) targets.set(id, { letters: [], asks: [], guess: null }); return targets.get(id); };
    for (const action of legal) {
      const letter = letterOf(action);
      const guess = guessOf(action);
      if (letter && objectsById.has(letter.object)) slot(letter.object).letters.push(action);
      else if (phase === "question" && action.ask && objectsById.has(action.ask.object)) slot(action.ask.object).asks.push(action);
      else if (guess && guess.word === null && objectsById.has(guess.object)) slot(guess.object).guess = action;
    }
    const pass = legal.find((a) => a.pass === true);
    const stop = legal.find((a) => a.stop === true);
    const ids = obs.objects.map((o) => o.id).filter((id) => targets.has(id));
    if (!memory.object || !targets.has(memory.object)) memory.object = ids[0] || null;

    const intro = [];
    if (phase === "dwarf") {
      intro.push(h("b", null, "The dwarf: ask an opponent for one letter."), " Pick an object, then a letter's place in its word; only you learn the letter.");
    } else if (phase === "question") {
      intro.push(obs.question_round === 2
        ? [h("b", null, "Second question round."), " Ask more (until the next “No”), guess one word, or stop."]
        : [h("b", null, "Question round."), " Ask yes-or-no questions about the others' objects until an answer is “No”; everyone hears the answers."]);
    } else {
      intro.push(h("b", null, `${capital(who(obs.mover))}'s turn is over: your curse window.`),
        ` Spend one of your ${plural(obs.curses[you], "curse token", "curse tokens")} to ask for a letter or guess a word, or pass.`);
    }
    const parts = [h("p", { class: "bb-c-what" }, intro)];
    const quick = [];
    if (pass) quick.push(choice({ class: "bb-c-btn bb-c-go", dataset: { bb: "pass", key: "pass" }, onclick: (e) => send(pass, "You pass", e.currentTarget) }, "Pass: keep your curse tokens"));
    if (stop) quick.push(choice({ class: "bb-c-btn", dataset: { bb: "stop", key: "stop" }, onclick: (e) => send(stop, "You end your question round", e.currentTarget) }, "Stop asking and end your turn"));
    if (quick.length) parts.push(h("div", { class: "bb-c-row" }, quick));
    if (!ids.length) return h("div", { class: "bb-c-objects" }, parts);

    const picker = h("div", { class: "bb-c-picks", role: "group", "aria-label": "The other players' objects" });
    const panel = h("div", { class: "bb-c-panel" });
    const cards = ids.map((id) => {
      const o = objectsById.get(id);
      // The letters you were told about it, once each, in the word's order ("last" at the end).
      const told = new Map((obs.letters || []).filter((l) => l.object === id).map((l) => [String(l.position), l]));
      const known = [...told.values()].sort((a, b) => (a.position === "last" ? 99 : a.position) - (b.position === "last" ? 99 : b.position));
      const card = choice({ class: ["bb-c-pick", `bb-c-a${Math.min(o.arrows, 2)}`], "aria-pressed": String(id === memory.object), dataset: { bb: "object", key: `object-${id}`, object: id },
        onclick: () => { memory.object = id; draw(); } },
      h("span", { class: "bb-c-who" }, h("span", { class: ["bb-c-sdot", `pv-s${o.maker % 6}`] }), `${capital(objectName(o))}`),
      h("span", { class: "bb-c-shows" }, o.sculpture && o.sculpture.length ? `it ${list(o.sculpture.map(statement))}` : "no sculpture"),
      o.arrows || known.length
        ? h("span", { class: "bb-c-meta" }, [
          o.arrows ? `${"➶".repeat(o.arrows)} ${plural(o.arrows, "arrow", "arrows")}` : "",
          known.length ? `you know: ${known.map((l) => `${ordinalPosition(l.position).replace(" letter", "")} ${l.letter === "none" ? "none" : `“${l.letter}”`}`).join(", ")}` : "",
        ].filter(Boolean).join(" · "))
        : null);
      return card;
    });
    picker.append(...cards);
    parts.push(h("div", { class: "bb-c-label" }, phase === "question" ? "Ask about" : "Which object"), picker, panel);

    function draw() {
      for (const card of cards) card.setAttribute("aria-pressed", String(card.dataset.object === memory.object));
      const o = objectsById.get(memory.object);
      const target = targets.get(memory.object);
      if (!o || !target) { panel.replaceChildren(); return; }
      const pieces = [];
      const answers = (obs.questions || []).filter((q) => q.object === o.id);
      if (answers.length) {
        pieces.push(h("div", { class: "bb-c-answers" }, h("span", { class: "bb-c-hint" }, "Heard so far:"),
          answers.map((q) => h("span", { class: ["bb-feat", `bb-${q.answer}`] }, `${question(q.feature)} ${ANSWER_WORDS[q.answer] || q.answer}`))));
      }
      if (target.letters.length) pieces.push(letterTiles(o, target.letters));
      if (target.asks.length) pieces.push(questionList(o, target.asks));
      if (target.guess) pieces.push(guessForm(o, target.guess));
      panel.replaceChildren(...pieces);
    }
    draw();
    return h("div", { class: "bb-c-objects" }, parts);
  }

  function letterTiles(o, actions) {
    const curse = obs.phase === "curse";
    const known = new Map((obs.letters || []).filter((l) => l.object === o.id).map((l) => [String(l.position), l.letter]));
    const shorter = Math.min(...[...known].filter(([, letter]) => letter === "none").map(([p]) => Number(p)).filter(Number.isFinite), Infinity);
    const tiles = actions.map((action) => {
      const position = (curse ? action.curse.letter : action.letter).position;
      const letter = known.get(String(position));
      const where = position === "last" ? "the last letter" : `the ${ordinalPosition(position)}`;
      const label = `${curse ? "Curse: ask" : "Ask"} ${who(o.maker)} for ${where} of ${their(o)}${letter ? ` (you know it: ${letter === "none" ? "none" : letter})` : ""}`;
      const beyond = position !== "last" && Number(position) > shorter;
      return choice({ class: ["bb-c-tile", position === "last" && "bb-c-last", letter && "bb-c-known", beyond && "bb-c-beyond"], "aria-label": label, title: label,
        dataset: { bb: "letter", key: `letter-${o.id}-${position}` },
        onclick: (e) => send(action, `You ${curse ? "spend a curse token and " : ""}ask ${who(o.maker)} for ${where} of ${their(o)}`, e.currentTarget) },
      h("span", { class: "bb-c-glyph" }, letter ? (letter === "none" ? "–" : letter) : beyond ? "·" : "?"),
      h("span", { class: "bb-c-pos" }, position === "last" ? "last" : String(position)));
    });
    return h("div", { class: "bb-c-part" },
      h("p", { class: "bb-c-head" }, `${curse ? "Curse: ask" : "Ask"} ${who(o.maker)} for a letter of ${their(o)}`),
      h("div", { class: "bb-c-tiles", role: "group", "aria-label": `The letters of ${objectName(o)}` }, tiles));
  }

  function questionList(o, actions) {
    const buttons = actions.map((action) => {
      const asked = question(action.ask.feature);
      return choice({ class: "bb-c-q", "aria-label": `Ask ${who(o.maker)} about ${their(o)}: ${asked}`, dataset: { bb: "ask", key: `ask-${o.id}`, text: asked.toLowerCase() },
        onclick: (e) => send(action, `You ask ${who(o.maker)} about ${their(o)}: “${asked}”`, e.currentTarget) }, asked);
    });
    const filter = filterBox("Find a question…", buttons, (button, text) => button.dataset.text.includes(text));
    return h("div", { class: "bb-c-part" },
      h("p", { class: "bb-c-head" }, `Ask ${who(o.maker)} about ${their(o)}`),
      filter, h("div", { class: "bb-c-qs", role: "group", "aria-label": `Questions about ${objectName(o)}` }, buttons));
  }

  function guessForm(o, template) {
    const curse = obs.phase === "curse";
    const words = Array.isArray(lists.words) ? lists.words : [];
    const known = new Set(words);
    const listId = `bb-c-lexicon-${o.id}`;
    const input = h("input", { type: "text", class: "bb-c-guess-in", list: listId, autocomplete: "off", autocapitalize: "none", spellcheck: "false", maxlength: 30,
      placeholder: "a word of the lexicon", "aria-label": `Your guess for the word of ${objectName(o)}` });
    const button = choice({ type: "submit", class: "bb-c-btn bb-c-go", dataset: { bb: "guess", key: `guess-${o.id}` },
      "aria-label": `${curse ? "Curse: guess" : "Guess"} the word of ${objectName(o)}` }, curse ? "Curse: guess" : "Guess");
    const form = h("form", { class: "bb-c-guess", dataset: { bbGuess: o.id } }, input, button, h("datalist", { id: listId }, words.map((w) => h("option", { value: w }))));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const word = input.value.trim().toLowerCase();
      if (!word) { say("Type a word to guess."); return; }
      if (known.size && !known.has(word)) { say(`“${word}” is not a word of the lexicon: start typing and the box offers the words that are.`); return; }
      // The template with its one blank, the word, filled in.
      const action = curse ? { curse: { guess: { ...template.curse.guess, word } } } : { guess: { ...template.guess, word } };
      button.__keyboard = event.submitter ? button.__keyboard : true;
      send(action, `You ${curse ? "spend a curse token and " : ""}guess that ${objectName(o)} is “${word}”`, button);
    });
    return h("div", { class: "bb-c-part" },
      h("p", { class: "bb-c-head" }, `${curse ? "Curse: guess" : "Or guess"} its word`,
        h("span", { class: "bb-c-hint" }, ` (${curse ? "" : "one guess, then your turn ends; "}only “right” or “wrong” is told)`)),
      form);
  }
}
