"""How long a whole tournament takes: by default a 16-bot Love Letter round robin, start to finished.

    .venv/bin/python bench/tournament.py [--bots 16] [--games 1] [--format round_robin] [--table-size 2]
                                         [--workers 1 4] [--no-inline] [--results FILE] [game]

A throwaway PostgreSQL database (``parlour_bench_tournament``, created, migrated and dropped) and Redis
(``BENCH_REDIS_URL``, database 14 by default; see bench/infra.py). The entrants are built-in players (``random`` and
``heuristic`` in turn, each its own bot, made by ``league.bots.services.do_create_house_bot`` like the house bots).

- ``inline``: the tournament played in this process — claim, ``bots.runner.play_match``, record the result, advance
  the tournament — one game at a time, no queue: the floor (the engine, the runner and the league's writes).
- ``celery``: the same tournament started through ``league.tournaments.services.do_start_tournament`` and played by a
  real Celery worker with N prefork children: each recorded result enqueues ``parlour.advance_tournament``, which opens
  the next round. Timed from the start until the tournament is ``finished`` in the database.

Prints rounds, games, wall time, games per second and the median time from a round's start to its end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import machine, record, table

DB_NAME = "parlour_bench_tournament"


def make_entrants(game_id: str, count: int) -> list[Any]:
    from league.bots.services import do_create_house_bot

    players = ["random", "heuristic"]
    return [
        do_create_house_bot(game_id, f"bench-{players[index % 2]}-{index}", players[index % 2])[0]
        for index in range(count)
    ]


def create(game_id: str, fmt: str, bots: list[Any], games: int, table_size: int, label: str) -> Any:
    from league.tournaments.services import do_create_tournament

    settings = {"games_per_pairing": games, "table_size": table_size}
    return do_create_tournament(None, game_id, f"bench {label}", fmt, settings, bots)


def summary(tournament: Any, seconds: float) -> dict[str, Any]:
    from league.play.models import Match

    rounds = list(tournament.rounds.order_by("number"))
    spans = [(r.finished_at - r.started_at).total_seconds() for r in rounds if r.finished_at and r.started_at]
    matches = Match.objects.filter(round__tournament=tournament)
    return {
        "rounds": len(rounds),
        "games": matches.count(),
        "seconds": seconds,
        "per_second": matches.count() / seconds,
        "round_ms": statistics.median(spans) * 1000 if spans else 0.0,
        "match_ms": statistics.median(m.wall_ms or 0 for m in matches),
    }


def run_inline(game_id: str, fmt: str, bots: list[Any], games: int, table_size: int) -> dict[str, Any]:
    from bots.runner import BotSeat, play_match
    from league.core import outbox
    from league.play.matches import do_claim_match
    from league.play.models import Match
    from league.play.recording import do_record_match_result
    from league.tournaments.models import Tournament
    from league.tournaments.services import do_advance_tournament, do_start_tournament

    enqueue = outbox.enqueue
    outbox.enqueue = lambda task_name, object_id: None  # type: ignore[assignment]  # nothing to the broker
    try:
        tournament = create(game_id, fmt, bots, games, table_size, "inline")
        began = time.perf_counter()
        do_start_tournament(tournament)
        while True:
            queued = list(Match.objects.filter(round__tournament=tournament, status=Match.Status.QUEUED).order_by("id"))
            if not queued:
                break
            for match in queued:
                claimed = do_claim_match(match.pk)
                assert claimed is not None
                runner_seats = [BotSeat(label=seat.label, builtin=seat.builtin) for seat in claimed.seats]
                result = play_match(
                    claimed.game, runner_seats, claimed.games[0].seed, claimed.games[0].options, sandbox="none"
                )
                do_record_match_result(match.pk, result)
                do_advance_tournament(tournament.pk)
        seconds = time.perf_counter() - began
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.FINISHED, tournament.status
        return summary(tournament, seconds)
    finally:
        outbox.enqueue = enqueue  # type: ignore[assignment]


def run_celery(
    game_id: str, fmt: str, bots: list[Any], games: int, table_size: int, concurrency: int, log_dir: Path
) -> dict[str, Any]:
    from league.tournaments.models import Tournament
    from league.tournaments.services import do_start_tournament

    infra.flush_redis()
    with infra.worker(DB_NAME, concurrency, log_dir):
        tournament = create(game_id, fmt, bots, games, table_size, f"celery x{concurrency}")
        began = time.perf_counter()
        do_start_tournament(tournament)
        deadline = time.monotonic() + 1800
        while Tournament.objects.get(pk=tournament.pk).status != Tournament.Status.FINISHED:
            if time.monotonic() > deadline:
                raise SystemExit(f"not finished after 30 minutes: see {log_dir}")
            time.sleep(0.05)
        seconds = time.perf_counter() - began
    tournament.refresh_from_db()
    return summary(tournament, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", nargs="?", default="love_letter")
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--games", type=int, default=1, help="games per pairing (default 1)")
    parser.add_argument("--format", default="round_robin", choices=["round_robin", "swiss", "knockout"])
    parser.add_argument("--table-size", type=int, default=2)
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 4], help="worker concurrencies to time")
    parser.add_argument("--no-inline", action="store_true")
    parser.add_argument("--results", help="append the figures to this JSON-lines file (bin/bench)")
    args = parser.parse_args()

    print(f"machine: {machine()}")
    infra.create_database(DB_NAME)
    try:
        infra.setup_django(DB_NAME)
        bots = make_entrants(args.game, args.bots)
        label = f"{args.bots}-bot {args.game} {args.format.replace('_', ' ')}, tables of {args.table_size}"
        label += f", {args.games} game{'s' if args.games != 1 else ''} per pairing"
        print(label)
        rows = []
        if not args.no_inline:
            rows.append(("inline (no queue)", run_inline(args.game, args.format, bots, args.games, args.table_size)))
        with tempfile.TemporaryDirectory(prefix="parlour-bench-tournament-") as logs:
            for concurrency in args.workers:
                figures = run_celery(args.game, args.format, bots, args.games, args.table_size, concurrency, Path(logs))
                rows.append((f"celery, 1 worker x{concurrency}", figures))
        print(
            table(
                [
                    [
                        name,
                        f["rounds"],
                        f["games"],
                        f"{f['seconds']:.2f}",
                        f"{f['per_second']:.1f}",
                        f"{f['round_ms']:.0f}",
                        f"{f['match_ms']:.0f}",
                    ]
                    for name, f in rows
                ],
                ["run", "rounds", "games", "seconds", "games/s", "round ms (median)", "game ms (median)"],
            )
        )
        for name, f in rows:
            record(args.results, "tournament", f"{label}: {name}", round(f["seconds"], 2), "s")
    finally:
        infra.drop_database(DB_NAME)


if __name__ == "__main__":
    main()
