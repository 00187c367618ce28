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
