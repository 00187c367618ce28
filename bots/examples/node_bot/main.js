// A game-agnostic example bot in Node.js: plays a uniformly random legal action.
// The protocol is one JSON object per line on stdin/stdout (docs/protocol.md); stderr is the bot's log.
"use strict";
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, terminal: false });
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
let seat = null;

rl.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "start") {
    seat = message.seat;
    send({ type: "ready" });
  } else if (message.type === "act") {
    const legal = message.legal;
    send({ type: "action", action: legal[Math.floor(Math.random() * legal.length)] });
  } else if (message.type === "end") {
    // The game is over; the runner may send another game's start on this process (a series), or close stdin.
    console.error(`seat ${seat}: match over, outcome ${JSON.stringify(message.outcome)}`);
  }
});
rl.on("close", () => process.exit(0));
