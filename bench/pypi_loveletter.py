"""Our Love Letter engine against a public Python implementation of the same game, side by side in one run.

    .venv/bin/python bench/pypi_loveletter.py [--seconds 2] [--repeats 3]

The other implementation is ``loveletter`` 0.0.5 on PyPI (github.com/kst179/LoveLetter: the classic 16-card game, the
engine of a Telegram bot). Its code is never part of this repository: it is installed at benchmark time into a
throwaway virtualenv under ``var/bench/`` (with ``pyTelegramBotAPI``, whose keyboard classes its engine builds on
every turn), and driven from a subprocess running this same file with ``--theirs``. Its engine sends every message
through the bot object; here that bot discards them (no network). One shim: it calls ``gettext.install(...,
codeset=...)``, an argument Python 3.11 removed, so the shim drops that argument (translations stay the identity).

Both engines play random legal moves. The unit compared is the *turn* (one card played: theirs asks for the card, the
target and the guess separately, ours takes them as one action); rounds per second are shown too, but a two-player
round is shorter in ours (the rules set three cards aside face up; theirs does not), so turns are the fair unit.
Ours is timed twice: as the runner uses it (legal actions + the mover's observation + apply, with replay history
and narration) and bare (legal actions + apply).
Rounds alternate between the two engines, repeat by repeat, and the medians are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
PACKAGES = ("loveletter==0.0.5", "pyTelegramBotAPI")


# ----- theirs (runs in the throwaway virtualenv: standard library and their package only) ------------------------
def _theirs(players: int, seconds: float) -> dict[str, float]:
    import builtins
    import gettext
    import random

    original_install = gettext.install

    def install(domain, localedir=None, codeset=None, names=None):  # type: ignore[no-untyped-def]
        original_install(domain, localedir, names=names)

    gettext.install = install  # type: ignore[assignment]
    from loveletter.game import Game  # type: ignore[import-not-found]
    from loveletter.users import User  # type: ignore[import-not-found]

    gettext.install = original_install
    translate = builtins.__dict__["_"]

    class QuietBot:
        def send_message(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return None

    rng = random.Random(1)
    random.seed(1)
    guesses = [translate(card.name) for card in Game.card_types[:-1]]  # every card but the Guard
    countess, prince, king = Game.card_types[1], Game.card_types[3], Game.card_types[2]
    bot = QuietBot()
    rounds = turns = 0
    clock = time.perf_counter
    start = clock()
    while clock() - start < seconds:
        game = Game(bot)
        for seat in range(players):
            game.users.add(User(f"p{seat}", seat, bot, game))
        game.start()
        game.start_turn()
        while game.state != "game_over":
            dealer = game.dealer
            if game.state == "select_card":
                hand = [dealer.card, dealer.new_card]
                if any(isinstance(card, countess) for card in hand) and any(
                    isinstance(card, prince | king) for card in hand
                ):
                    hand = [card for card in hand if isinstance(card, countess)]
                game.select_card(rng.choice(hand).name)
                turns += 1
            elif game.state == "select_victim":
                victims = [user.name for user in game.users if not user.defence and user != dealer]
                if isinstance(dealer.new_card, prince) or not victims:
                    victims.append(dealer.name)
                game.select_victim(rng.choice(victims))
            elif game.state == "guess_card":
                game.guess_card(rng.choice(guesses))
            else:
                raise RuntimeError(f"unexpected state {game.state!r}")
        rounds += 1
    elapsed = clock() - start
    return {"rounds_per_s": rounds / elapsed, "turns_per_s": turns / elapsed}


# ----- ours --------------------------------------------------------------------------------------------------------
def _ours(players: int, seconds: float, bare: bool) -> dict[str, float]:
    sys.path.insert(0, str(HERE.parents[1]))
    from games.registry import get_game, make_player

    game = get_game("love_letter")
    rounds = turns = 0
    n = 0
    clock = time.perf_counter
    start = clock()
    while clock() - start < seconds:
        state = game.new_state(players, n)
        bots = [make_player("love_letter", "random", n * 10 + seat) for seat in range(players)]
        for seat, bot in enumerate(bots):
            bot.start(seat, players, state.options)
        while (seat := state.to_move()) is not None:
            legal = state.legal_actions()
            obs = None if bare else state.observation(seat)
            state.apply(bots[seat].act(obs, legal) if not bare else legal[bots[seat].rng.randrange(len(legal))])
            turns += 1  # every decision of this edition plays one card: a turn
        rounds += state.round
        n += 1
    elapsed = clock() - start
    return {"rounds_per_s": rounds / elapsed, "turns_per_s": turns / elapsed}


# ----- the throwaway virtualenv -------------------------------------------------------------------------------------
def venv_python(root: Path) -> Path:
    """var/bench/loveletter-venv with the PyPI package (made once; delete the folder to start afresh)."""
    venv = root / "var" / "bench" / "loveletter-venv"
    python = venv / "bin" / "python"
    marker = venv / ".installed"
    if not marker.exists():
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *PACKAGES]
        done = subprocess.run(pip, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"cannot install {' '.join(PACKAGES)} from PyPI:\n{done.stderr[-2000:]}")
        marker.write_text(" ".join(PACKAGES) + "\n")
    return python


def _run_theirs(python: Path, players: int, seconds: float) -> dict[str, float]:
    out = subprocess.run(
        [str(python), str(HERE), "--theirs", "--players", str(players), "--seconds", str(seconds)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
        cwd="/",  # their gettext.install looks for ./loveletter/locale: nothing there, identity translations
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(seconds: float = 2.0, repeats: int = 3, player_counts: tuple[int, ...] = (2, 3, 4)) -> list[dict]:
    from bench.common import median

    python = venv_python(HERE.parents[1])
    results = []
    for players in player_counts:
        runs: dict[str, list[dict[str, float]]] = {"ours": [], "ours_bare": [], "theirs": []}
        for _ in range(repeats):  # interleaved, so a change in the machine's load hits all three alike
            runs["ours"].append(_ours(players, seconds, bare=False))
            runs["theirs"].append(_run_theirs(python, players, seconds))
            runs["ours_bare"].append(_ours(players, seconds, bare=True))
        row: dict[str, float | int] = {"players": players}
        for name, values in runs.items():
            row[f"{name}_rounds"] = median(v["rounds_per_s"] for v in values)
            row[f"{name}_turns"] = median(v["turns_per_s"] for v in values)
        results.append(row)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4])
    parser.add_argument("--theirs", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    args = parser.parse_args()
    if args.theirs:
        print(json.dumps(_theirs(args.players[0], args.seconds)))
        return
    sys.path.insert(0, str(HERE.parents[1]))
    from bench.common import machine, record, table

    print(f"# Love Letter: ours vs loveletter 0.0.5 (PyPI), random playouts, one core. {machine()}")
    rows = []
    for row in compare(args.seconds, args.repeats, tuple(args.players)):
        ratio = row["ours_turns"] / row["theirs_turns"]
        ratio_bare = row["ours_bare_turns"] / row["theirs_turns"]
        rows.append(
            [
                row["players"],
                row["ours_turns"],
                row["ours_bare_turns"],
                row["theirs_turns"],
                f"{ratio:.2f}x",
                f"{ratio_bare:.2f}x",
                row["ours_rounds"],
                row["theirs_rounds"],
            ]
        )
        players = row["players"]
        label = f"love_letter {players}p turns/s, ours"
        record(args.results, "engines", f"{label} / loveletter (PyPI)", ratio, "x")
        record(args.results, "engines", f"{label} bare / loveletter (PyPI)", ratio_bare, "x")
    headings = ["players", "ours turns/s", "ours bare", "PyPI turns/s", "ours/PyPI", "bare/PyPI", "ours rounds/s"]
    print(table(rows, [*headings, "PyPI rounds/s"]))
    print(f"(medians of {args.repeats} interleaved runs of {args.seconds:g} s each)")


if __name__ == "__main__":
    main()
