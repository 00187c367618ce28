"""Starter kits for bot authors, generated from the engines so they never drift from the code.

``build_kit(game_id)`` is the starter kit, a zip with one top-level folder (uploadable as it is):

- ``main.py``: the game's example bot (``games/<game>/example/main.py``), plain protocol, standard library only;
- ``main_sdk.py`` and ``parlour_sdk/``: the same strategy on the SDK, and the SDK itself, importable next to it;
- ``main_search.py``: a search bot to make one's own (information-set MCTS on the game's engine, docs/search.md);
- ``README.md``: the rules in brief, the observation fields with a real example, the actions, every protocol
  message, how to run it locally and how to upload it;
- ``smoke_test.py`` and ``sample_messages.jsonl``: replays the messages of a real game to ``main.py`` and checks
  each answer is a legal action (no Parlour install needed);
- ``<game>_types.pyi`` and ``schema.json``: the game's observation and action as type stubs for a type checker
  (``bots.authoring.stubs``) and as JSON Schema (``games.schema``), both generated from its declaration.

What the kit says about the game (fields, actions, sample messages) comes from ``bots.authoring.reference``, which
reads the game's declaration; its public names are re-exported here for the callers that read both.

No Django here. ``python -m bots.authoring.starter <game> [out.zip]`` writes a kit.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

from bots.authoring.reference import ActionShape, Field, Reference, pretty, reference, shorten, strong_player
from bots.authoring.stubs import stub
from games.registry import example_dir
from games.schema import schemas

SDK_DIR = Path(__file__).resolve().parents[1] / "sdk"
SDK_MODULES = ("__init__.py", "engine.py", "search.py")  # the SDK as the kit ships it: parlour_sdk/<module>
SEARCH_TEMPLATE = Path(__file__).resolve().parent / "search_template.py"

__all__ = ["ActionShape", "Field", "Reference", "build_kit", "kit_filename", "pretty", "readme", "reference", "shorten"]


# ----- the kit ------------------------------------------------------------------------------------------------------


# The author kit's wheel (league/authors/kit.py) as a README names it when it does not know the site's.
RUNTIME_WHEEL_PLACEHOLDER = "parlour-VERSION-py3-none-any.whl"


def kit_filename(game_id: str) -> str:
    return f"parlour-{game_id}-starter.zip"


def _folder(game_id: str) -> str:
    return f"{game_id}-bot"


def _main_sdk(game_id: str) -> str:
    return f'''"""The example bot of main.py on the SDK: parlour_sdk runs the protocol loop, you write ``act``.

parlour_sdk/ sits next to this file so it runs anywhere; on the league the SDK is also provided for you. To play
this file instead of main.py, upload the folder with a bot.toml that says:  command = ["python3", "main_sdk.py"]
"""

from __future__ import annotations

from main import choose  # the strategy of the plain example bot ({game_id})
from parlour_sdk import log, run


def act(obs: dict, legal: list[dict], ctx) -> tuple[dict, str]:
    action = choose(obs, legal)
    return action, f"{{len(legal)}} legal actions"


def on_end(ctx, obs: dict) -> None:
    log(f"seat {{ctx.seat}}: the match is over after {{ctx.moves}} moves; outcome {{ctx.outcome}}")


if __name__ == "__main__":
    run(act, on_end=on_end)  # plays every game the runner sends (each start: a fresh ctx); returns when stdin closes
'''


SMOKE_TEST = '''"""Replay the messages of a real game to your bot and check every answer (no Parlour install needed).

    python3 smoke_test.py            # runs: python3 main.py
    python3 smoke_test.py node main.js

sample_messages.jsonl holds what a bot in one seat was sent during a real game (a start message, some act messages,
the end message). The game itself was played by built-in players, so your answers do not change what comes next:
this checks the protocol and that every action you send is legal, not how well you play. For whole matches, use
Parlour's author kit (README.md says how to install it): python -m bots play GAME ./ builtin:random --sandbox none
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def fits(action, legal):
    """Exactly one of the legal actions, or a filled-in template (a legal entry whose null fields are free)."""
    if canonical(action) in {canonical(entry) for entry in legal}:
        return True
    return any(_fills(action, entry) for entry in legal)


def _fills(value, template):
    if template is None:
        return value is not None
    if isinstance(template, dict):
        return (
            isinstance(value, dict)
            and value.keys() == template.keys()
            and all(_fills(value[key], template[key]) for key in template)
        )
    return canonical(value) == canonical(template)


def main(argv):
    command = argv or [sys.executable, "main.py"]
    messages = [json.loads(line) for line in (HERE / "sample_messages.jsonl").read_text().splitlines() if line]
    bot = subprocess.Popen(command, cwd=HERE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    problems = 0
    for number, message in enumerate(messages):
        bot.stdin.write(json.dumps(message) + "\\n")
        bot.stdin.flush()
        if message["type"] == "end":
            break
        began = time.monotonic()
        line = bot.stdout.readline()
        took = (time.monotonic() - began) * 1000
        if not line:
            print(f"message {number} ({message['type']}): the bot closed its stdout (see its stderr above)")
            return 1
        reply = json.loads(line)
        if message["type"] == "start":
            ok = reply == {"type": "ready"}
            verdict = "ok" if ok else 'EXPECTED {"type": "ready"}'
            print(f"start -> {line.strip()}  {verdict}")
        else:
            action = reply.get("action")
            ok = reply.get("type") == "action" and fits(action, message["legal"])
            note = f"  # {reply['note']}" if reply.get("note") else ""
            verdict = "ok" if ok else "NOT LEGAL"
            print(f"act {number:3d} -> {json.dumps(action)}  {took:.1f} ms  {verdict}{note}")
        problems += not ok
    bot.stdin.close()
    bot.wait(5)
    print("all answers legal" if not problems else f"{problems} bad answers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''


def readme(game_id: str, site_url: str = "", runtime_url: str = "") -> str:
    """The kit's README.md: everything a first bot needs, generated from the engine and the game's RULES.md.

    ``runtime_url`` is where the site serves the author kit's wheel (``pip install`` takes it as it is); without it,
    the README names the site's ``/sdk/`` folder with a placeholder for the wheel's name."""
    ref = reference(game_id)
    site = site_url.rstrip("/")
    base = site or "https://SITE"
    folder = _folder(game_id)
    lines = [
        f"# A {ref.title} bot for Parlour",
        "",
        f"{ref.summary}",
        "",
        f"Game id `{game_id}`, engine version {ref.version}, {ref.min_players} to {ref.max_players} players. This kit "
        f"was generated from the engine itself: every example below comes from a real {ref.players}-player game "
        f"(seed {ref.seed}) between the built-in players, seen from seat {ref.seat}.",
        "",
        "## What is in the kit",
        "",
        "| file | what it is |",
        "|---|---|",
        "| `main.py` | a complete bot in plain Python (standard library only): the protocol loop and a `choose(obs, "
        "legal)` strategy. Start here. |",
        "| `main_sdk.py` | the same strategy written with the SDK, which runs the protocol loop for you |",
        "| `parlour_sdk/` | the SDK (`from parlour_sdk import run, log`), importable next to your bot |",
        "| `main_search.py` | a search bot to make your own: information-set MCTS on the game's engine (the engines "
        "come with the league and with the author kit below; `ctx.seen`, `ctx.sample(rng)`, `parlour_sdk.search`) |",
        "| `smoke_test.py`, `sample_messages.jsonl` | replays a real game's messages to your bot and checks each "
        "answer is legal: `python3 smoke_test.py` |",
        f"| `{_types_module(game_id)}.pyi` | the observation and action types, for a type checker: "
        f"`if TYPE_CHECKING: from {_types_module(game_id)} import Action, Observation` |",
        "| `schema.json` | the observation, the action and the options as JSON Schema (what the runner checks your "
        "replies against) |",
        "| `README.md` | this page |",
        "",
        "## From here to a rated bot",
        "",
        "1. Check the bot answers: `python3 smoke_test.py` (every line should end in `ok`).",
        "2. Play whole matches locally exactly as the league does, with Parlour's author kit: the engines of every "
        "game, the runner and the SDK in one package (`python -m bots`; no league, no Django). Install it once, in a "
        "virtual environment:",
        "",
        "   ```",
        "   python3 -m venv parlour-env",
        "   . parlour-env/bin/activate",
        f"   pip install {runtime_url or f'{base}/sdk/{RUNTIME_WHEEL_PLACEHOLDER}'}",
        "   ```",
        "",
        f"   Then, from the folder that holds `{folder}/`:",
        "",
        "   ```",
        f"   python -m bots play {game_id} {folder}/ builtin:random builtin:random --seed 1 --sandbox none",
        f"   python -m bots arena {game_id} {folder}/ builtin:random builtin:{strong_player(game_id)} --games 20 "
        "--sandbox none",
        f"   python -m bots compare {folder}-v1/ {folder}/ --game {game_id} --sandbox none",
        "   ```",
        "",
        "   `play` shows every move, your notes and your stderr; add `--replay out.json` and watch it with "
        "`python -m bots view out.json`. `compare OLD NEW` keeps playing until a sequential test says whether NEW "
        "is stronger. `--sandbox none` runs the bots without isolation (your own code only); on Linux with "
        "bubblewrap, as root, leave it out to play in the league's own sandbox (`python -m bots check` says whether "
        "it works there).",
        f"3. Upload: sign in on the site and upload `main.py` (or a zip of this folder) at "
        f"{base}/bots/new/?game={game_id} (the form opens on {ref.title}). Or with an API token "
        f"(create one at {base}/account/tokens/):",
        "",
        "   ```",
        f"   curl -H 'Authorization: Token plr_...' -F game={game_id} -F name=mybot -F file=@main.py {base}/api/bots/",
        "   ```",
        "",
        "4. A smoke match in the sandbox validates it within seconds; it then plays rated ladder games and appears on "
        f"the leaderboard{f' ({site}/games/{game_id}/)' if site else ''}. Its page shows every match, and on each "
        "match your bot's stderr, notes and time per move.",
        "5. Improve it, upload a new version, and ask for a *version test* on the site: the new version against the "
        "previous one, unrated, with an Elo estimate.",
        "",
    ]
    if "rules" in ref.doc_sections:
        lines += ["## The rules in brief", "", ref.doc_sections["rules"], ""]
    lines += [
        "## The protocol",
        "",
        "One JSON object per line on stdin (from the runner) and stdout (from your bot); write logs to stderr. "
        "Examples are shown on several lines; on the wire each message is one line. Long lists are cut here (`… N "
        "more`); `sample_messages.jsonl` has them whole.",
        "",
        "**start** (runner to bot), answered within `startup_ms` by **ready**:",
        "",
        "```json",
        ref.message_text("start"),
        "```",
        "",
        "```json",
        ref.message_text("ready"),
        "```",
        "",
        "**act** (runner to bot) whenever it is your decision; `time_left_ms` is the most this move may take:",
        "",
        "```json",
        ref.message_text("act"),
        "```",
        "",
        "**action** (bot to runner): one of the `legal` entries (copying one is always right), with an optional "
        "short `note` that is shown in the replay:",
        "",
        "```json",
        ref.message_text("action"),
        "```",
        "",
        "**end** (runner to bot): the outcome (`ranks`: 1 is best; ties share a rank; a fault ranks last) and your "
        "final observation. No answer.",
        "",
        "```json",
        ref.message_text("end"),
        "```",
        "",
        "**After end, keep reading.** The league may play a *series* of games on the same process: after `end` the "
        "runner sends the next game's **start** (a new seed, a new clock: start the game from scratch), or closes "
        "stdin when there is no further game. `main.py`'s loop (`for line in sys.stdin`) handles both: it answers "
        "every `start`, and ends when stdin closes. A bot that exits after `end` instead still works (it is started "
        "again for the next game), it only pays its start-up again. After the last game your process is stopped at "
        "once. A fault ends the series: its remaining games are played later, by fresh processes.",
        "",
        "Any misbehaviour is a *fault* that ranks you last: no `ready` in time, a move over the clock, a crash, a "
        "malformed line, an illegal action. The match page tells you which, at which move, with your stderr.",
        "",
        "## Observation fields",
        "",
        "`obs` in every act message, as the game declares it; the examples are from the act message above.",
        "",
        f"{ref.hidden and 'Hidden from you: ' + ref.hidden} {ref.chance and 'Chance: ' + ref.chance}".strip(),
        "",
        "| field | type | meaning | example |",
        "|---|---|---|---|",
    ]
    for f in ref.fields:
        example = json.dumps(shorten(f.example, max_items=3, max_chars=40), ensure_ascii=False)
        if len(example) > 60:
            example = example[:59] + "…"
        name = f.name if f.required else f"{f.name}` (optional) `"
        lines.append(f"| `{name}` | `{_cell(f.type)}` | {_cell(f.description) or '-'} | `{_cell(example)}` |")
    lines += [
        "",
        "## Actions",
        "",
        "Every form of action the game declares (each `legal` list holds every action legal at that moment; a reply "
        "of another shape is a fault before the rules are even checked); the examples come from the sample game:",
        "",
    ]
    lines += ["| form | meaning | example |", "|---|---|---|"]
    for shape in ref.actions:
        shown = shape.example if shape.example is not None else shape.template
        example = f"`{_cell(json.dumps(shorten(shown, max_items=5), ensure_ascii=False))}`" if shown else "-"
        free = (
            f" In `legal`, {', '.join(f'`{p}`' for p in shape.free)} may be `null`: fill it in." if shape.free else ""
        )
        lines.append(f"| `{_cell(shape.keys)}` | {_cell(shape.description + free)} | {example} |")
    if "actions" in ref.doc_sections:
        lines += ["", ref.doc_sections["actions"]]
    if ref.options:
        lines += ["", "## Options", "", "| option | type | default | meaning |", "|---|---|---|---|"]
        for name, schema in ref.options:
            default = json.dumps(schema.get("default"))
            lines.append(
                f"| `{name}` | {schema.get('type', '')} | `{default}` | {_cell(str(schema.get('description', '')))} |"
            )
    lines += ["", "## Built-in players", "", "Opponents you can name as `builtin:<name>` locally:", ""]
    lines += [f"- `{name}`: {description}" for name, description in ref.builtins]
    lines += [
        "",
        "## The SDK",
        "",
        "```python",
        "from parlour_sdk import run, log",
        "",
        "def act(obs, legal):          # or act(obs, legal, ctx): ctx.seat, ctx.players, ctx.time_left_ms, ...",
        "    return legal[0]           # or (action, note)",
        "",
        "run(act)",
        "```",
        "",
        "`log(...)` writes to stderr (your log). Never print to stdout yourself: it belongs to the protocol.",
        "",
        "## More",
        "",
    ]
    if site:
        lines += [
            f"- This game's reference: {site}/games/{game_id}/reference/",
            f"- Write your first bot: {site}/first-bot/",
        ]
    lines += [
        "- The protocol in full (time control, faults, the replay): `docs/protocol.md` in Parlour",
        f"- The rules and every engine choice: `games/{game_id}/RULES.md` in Parlour",
        "",
    ]
    return "\n".join(lines)


def _types_module(game_id: str) -> str:
    return f"{game_id}_types"


def _schema_document(game_id: str) -> dict[str, object]:
    declared = schemas(game_id)
    return {
        "observation": declared.observation,
        "action": declared.action,
        "legal": declared.legal,
        "options": declared.options,
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def build_kit(game_id: str, site_url: str = "", runtime_url: str = "") -> bytes:
    """The starter kit zip for ``game_id`` (deterministic: the same bytes for the same code); ``runtime_url`` as
    for ``readme``."""
    ref = reference(game_id)
    example = example_dir(game_id) / "main.py"
    if not example.is_file():
        raise FileNotFoundError(f"{game_id} has no example bot at {example}")
    samples = [ref.messages["start"], *ref.acts, ref.messages["end"]]
    files = {
        "main.py": example.read_text(encoding="utf-8"),
        "main_sdk.py": _main_sdk(game_id),
        **{f"parlour_sdk/{name}": (SDK_DIR / name).read_text(encoding="utf-8") for name in SDK_MODULES},
        "main_search.py": SEARCH_TEMPLATE.read_text(encoding="utf-8"),
        "README.md": readme(game_id, site_url, runtime_url),
        "smoke_test.py": SMOKE_TEST,
        "sample_messages.jsonl": "".join(json.dumps(m, separators=(",", ":")) + "\n" for m in samples),
        f"{_types_module(game_id)}.pyi": stub(game_id),
        "schema.json": json.dumps(_schema_document(game_id), indent=1, ensure_ascii=False) + "\n",
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            info = zipfile.ZipInfo(f"{_folder(game_id)}/{name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"}:
        print("usage: python -m bots.authoring.starter GAME [OUT.zip]", file=sys.stderr)
        return 2
    game_id = args[0]
    out = Path(args[1] if len(args) > 1 else kit_filename(game_id))
    out.write_bytes(build_kit(game_id))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
