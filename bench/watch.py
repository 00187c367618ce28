"""What watching a league match live costs (issue 23): a match's time without the live publisher, with it at the
default throttle (``LIVE_MATCH_INTERVAL_MS``) and with it writing after every move (the worst case: bots that think
longer than the interval); and the web's side, one spectator's view rebuilt from the published moves.

    .venv/bin/python bench/watch.py [--matches 20]

In process on a throwaway database (SQLite unless DATABASE_URL says otherwise), with the league's built-in players
(no sandbox: their moves take microseconds, so the publisher's share is as large as it can be)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
os.environ.setdefault("SECRET_KEY", "bench")
os.environ.setdefault("DEBUG", "0")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from bench.common import machine, median, table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=20, help="matches per game and mode (default 20)")
    args = parser.parse_args()
    setup_test_environment()
    old = connection.creation.create_test_db(verbosity=0)
    try:
        rows = _measure(args.matches)
    finally:
        connection.creation.destroy_test_db(old, verbosity=0)
    print(machine())
    print(f"database: {connection.vendor}; LIVE_MATCH_INTERVAL_MS={settings.LIVE_MATCH_INTERVAL_MS}")
    headings = [
        "game", "moves", "off ms", "throttled ms", "writes", "publisher ms", "every move ms", "per write ms", "view ms"
    ]  # fmt: skip
    print(table(rows, headings))


def _measure(matches: int) -> list[list[object]]:
    from bots.results import BotSeat
    from bots.runner import play_match
    from games.registry import GAMES
    from league.bots.models import Bot
    from league.bots.services import do_register_builtin_bots
    from league.core import outbox
    from league.live import watch
    from league.play.matches import do_claim_match, do_create_match
    from league.play.models import Match
    from workers.live import LivePublisher

    outbox.enqueue = lambda task_name, object_id: None  # type: ignore[assignment]  # nothing to the broker
    rows: list[list[object]] = []
    for game_id in sorted(GAMES):
        do_register_builtin_bots([game_id])
        players = GAMES[game_id].min_players
        versions = [b.current_version() for b in Bot.objects.filter(game=game_id).order_by("pk")[:players]]
        match = do_create_match(game_id, [v for v in versions if v is not None])
        do_claim_match(match.pk)
        seats = [BotSeat(label=f"seat{n}", builtin=v.builtin) for n, v in enumerate(versions) if v is not None]
        times: dict[str, list[float]] = {"off": [], "throttled": [], "every": []}
        spent: dict[str, list[float]] = {"throttled": [], "every": []}  # ms inside the publisher, per match
        writes: dict[str, int] = {"throttled": 0, "every": 0}
        moves = 0
        for index in range(matches):
            seed = 1000 + index
            modes = list(times)
            for mode in modes[index % 3 :] + modes[: index % 3]:  # rotated: no mode always runs first
                clock = [0.0]
                observer = None
                if mode != "off":
                    publisher = LivePublisher(match.pk, interval_ms=None if mode == "throttled" else 0)

                    def observer(
                        moves: list[dict[str, Any]], publisher: LivePublisher = publisher, clock: list[float] = clock
                    ) -> None:
                        began = time.perf_counter()
                        publisher(moves)
                        clock[0] += time.perf_counter() - began

                began = time.perf_counter()
                result = play_match(game_id, seats, seed, observer=observer)
                times[mode].append((time.perf_counter() - began) * 1000)
                if mode != "off":
                    spent[mode].append(clock[0] * 1000)
                    writes[mode] += publisher.writes
                else:
                    moves += len(result.replay["moves"])
        Match.objects.filter(pk=match.pk).update(seed=seed)  # the deal of the game published
        watch.do_publish(match.pk, result.replay["moves"][:-1])  # the last game, one move before its end
        loaded = Match.objects.get(pk=match.pk)
        view_times = []
        for _ in range(20):
            began = time.perf_counter()
            watch.match_view(loaded)
            view_times.append((time.perf_counter() - began) * 1000)
        rows.append(
            [
                game_id,
                round(moves / matches),
                median(times["off"]),
                median(times["throttled"]),
                round(writes["throttled"] / matches, 1),
                median(spent["throttled"]),
                median(times["every"]),
                median(spent["every"]) / (writes["every"] / matches),
                median(view_times),
            ]
        )
    return rows


if __name__ == "__main__":
    main()
