"""The site under load with a large league in PostgreSQL: requests per second, p50/p99 and queries per page.

    .venv/bin/python bench/site.py [--bots 10000] [--sizes 10000 100000 1000000] [--seconds 8] [--keep]

Builds a throwaway database (``parlour_bench_site``) in stages, server-side (INSERT ... SELECT over
generate_series: no Python loop per row): users, ``--bots`` bots over the five games (each with a version and a
rating with its sparkline), then finished ladder matches up to each of ``--sizes``, each with its seats, rating changes
and a real compressed replay (one played per game and table size, shared). The schema is the league's own
(``manage.py migrate``); columns the generator does not know take their model default, so it survives new fields.

At every size: each endpoint's SQL query count and its in-process time (Django test client, median of
``--samples``) — this is "leaderboard time vs matches". At the last size (``--load-at`` to choose others): gunicorn
(2 sync workers, loopback only) under wrk for ``--seconds`` per endpoint at 1 connection (the service time) and 4
connections (the throughput of the two workers; wrk shares the two cores with them).

Also, on the largest league: matchmaking time vs the number of bots, ``league.ladder.scheduling.do_schedule_ladder``
with 1%, 10% and 100% of the bots on the ladder, and the pure ``league.ladder.pairing.plan_tables`` at 100 to 10,000
candidates.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import ROOT, machine, median, record, table

DB_NAME = "parlour_bench_site"
BOTS_PER_OWNER = 5
EPOCH_HOURS_AGO = 3  # the newest generated match finished this long ago (outside the ladder's per-hour budget)
SECONDS_BETWEEN_MATCHES = 30

# (label, path): {bot} and {match} rotate over sample ids; {game} is love_letter.
ENDPOINTS = [
    ("leaderboard page", "/games/{game}/"),
    ("leaderboard page 10, by games", "/games/{game}/?sort=games&page=10"),
    ("leaderboard API (all rows)", "/api/leaderboards/{game}/"),
    ("bot page", "/bots/{bot}/"),
    ("bot API", "/api/bots/{bot}/"),
    ("match list API", "/api/matches/"),
    ("match list API, one game", "/api/matches/?game={game}"),
    ("match list API, one bot", "/api/matches/?bot={bot}"),
    ("home", "/"),
    ("match page", "/matches/{match}/"),
    ("replay API", "/api/matches/{match}/replay/"),
    ("frames API", "/api/matches/{match}/frames/"),
]
# The API's per-client throttle would answer most of a load test with 429: the service time is measured here.
UNTHROTTLED = {"API_THROTTLE_ANON": "1000000/min"}
LEADERBOARD = {"leaderboard page", "leaderboard page 10, by games", "leaderboard API (all rows)"}


# ----- building the league ----------------------------------------------------------------------------------------
def _games() -> list[tuple[int, str, int, int, str]]:
    from games.registry import GAMES

    return [
        (index, game_id, GAMES[game_id].min_players, GAMES[game_id].max_players, GAMES[game_id].version)
        for index, game_id in enumerate(GAMES)
    ]


def _insert_select(cursor: Any, model: Any, exprs: dict[str, str], source: str) -> None:
    """INSERT INTO model's table SELECT one expression per column FROM source; unknown columns get their default."""
    from django.db import connection

    columns, values, args = [], [], []
    for field in model._meta.concrete_fields:
        if field.primary_key and field.column not in exprs:
            continue  # the sequence numbers it
        columns.append(connection.ops.quote_name(field.column))
        if field.column in exprs:
            values.append(exprs[field.column].replace("%", "%%"))
        elif field.null:
            values.append("NULL")
        elif field.get_default() is not None:  # the model default ("" for text fields without one)
            values.append("%s")
            args.append(field.get_db_prep_save(field.get_default(), connection))
        else:
            raise SystemExit(f"bench/site.py: no value for the new column {model._meta.db_table}.{field.column}")
    source = source.replace("%", "%%")
    sql = f"INSERT INTO {model._meta.db_table} ({', '.join(columns)}) SELECT {', '.join(values)} FROM {source}"
    if args:
        cursor.execute(sql, args)
    else:
        cursor.execute(sql.replace("%%", "%"))


def _sample_replays(cursor: Any) -> None:
    """One real replay per game and table size (built-in random players), packed as the league stores it."""
    from bots.runner import BotSeat, play_match
    from league.play.models import Match

    cursor.execute("CREATE TABLE bench_replay (game text, players int, data bytea, PRIMARY KEY (game, players))")
    for _index, game_id, low, high, _version in _games():
        for players in range(low, high + 1):
            seats = [BotSeat(f"bot{n}", builtin="random") for n in range(players)]
            replay = play_match(game_id, seats, seed=players).replay
            cursor.execute(
                "INSERT INTO bench_replay VALUES (%s, %s, %s)", [game_id, players, Match.pack_replay(replay)]
            )


def build_bots(bots: int) -> None:
    from django.contrib.auth.models import User
    from django.db import connection, transaction

    from league.bots.models import Bot, BotVersion
    from league.ratings.models import Rating

    games = _games()
    per_game = bots // len(games)
    owners = max(1, bots // BOTS_PER_OWNER)
    game_rows = ", ".join(f"({i}, '{g}', {low}, {high}, '{v}')" for i, g, low, high, v in games)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_game (idx int PRIMARY KEY, game text, low int, high int, version text)")
        cursor.execute(f"INSERT INTO bench_game VALUES {game_rows}")
        cursor.execute("CREATE TABLE bench_meta (key text PRIMARY KEY, value bigint)")
        cursor.execute("INSERT INTO bench_meta VALUES ('per_game', %s), ('matches', 0)", [per_game])
        _insert_select(
            cursor,
            User,
            {
                "id": "u",
                "password": "'!'",
                "username": "'player' || u",
                "is_superuser": "false",
                "is_staff": "false",
                "is_active": "true",
                "date_joined": "now() - interval '400 days'",
                "first_name": "''",
                "last_name": "''",
                "email": "''",
            },
            f"generate_series(1, {owners}) u",
        )
        # Bot b (1-based) of game g: id g * per_game + b; owners spread over the users.
        bot_exprs = {
            "id": f"g.idx * {per_game} + b",
            "owner_id": f"1 + (g.idx * {per_game} + b) % {owners}",
            "game": "g.game",
            "name": "'bot-' || b",
            "description": "'a benchmark bot'",
            "is_builtin": "false",
            "is_active": "true",
            "created": "now() - interval '300 days'",
        }
        _insert_select(cursor, Bot, bot_exprs, f"bench_game g, generate_series(1, {per_game}) b")
        _insert_select(
            cursor,
            BotVersion,
            {
                "id": "id",
                "bot_id": "id",
                "number": "1",
                "status": "'ready'",
                "builtin": "''",
                "archive": "NULL",
                "language": "'python'",
                "archive_size": "1000",
                "validation_log": "'ok'",
                "validation_stderr": "''",
                "created": "created",
                "validated": "created",
            },
            "league_bot",
        )
        elo = "1500 + ((id * 7919) % 1200 - 600) * 0.7"
        _insert_select(
            cursor,
            Rating,
            {
                "id": "id",
                "bot_id": "id",
                "elo": elo,
                "variance": "900 + (id % 50) * 10",
                "version": "1",
                "recent": f"(SELECT jsonb_agg({elo} - 30 + (i * 7) % 31) FROM generate_series(1, 20) i)",
                "updated": "now()",
            },
            "league_bot",
        )
        for model in (User, Bot, BotVersion, Rating):
            table_name = model._meta.db_table
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table_name}', 'id'), (SELECT max(id) FROM {table_name}))"
            )
        _sample_replays(cursor)


def add_matches(total: int, newest: int) -> float:
    """Finished ladder matches up to ``total``, with seats, rating changes and replays; match ``newest`` (the last of
    the largest size) finished EPOCH_HOURS_AGO, the others one every SECONDS_BETWEEN_MATCHES before. Returns seconds."""
    from django.db import connection, transaction

    from league.play.models import Match, Seat
    from league.ratings.models import RatingChange

    began = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT value FROM bench_meta WHERE key = 'matches'")
        start = cursor.fetchone()[0]
        cursor.execute("SELECT value FROM bench_meta WHERE key = 'per_game'")
        per_game = cursor.fetchone()[0]
        if total <= start:
            return 0.0
        # Match m: game m % 5, players rotate over the game's table sizes; one every SECONDS_BETWEEN_MATCHES.
        at = f"now() - interval '{EPOCH_HOURS_AGO} hours' - ({newest} - m) * interval '{SECONDS_BETWEEN_MATCHES} s'"
        cursor.execute(
            "CREATE TEMP TABLE bench_new ON COMMIT DROP AS SELECT m::bigint AS m, g.game, g.idx, g.version, "
            f"g.low + (m / 5) % (g.high - g.low + 1) AS players, {at} AS at "
            f"FROM generate_series({start + 1}, {total}) m JOIN bench_game g ON g.idx = m % 5"
        )
        _insert_select(
            cursor,
            Match,
            {
                "id": "n.m",
                "game": "n.game",
                "kind": "'ladder'",
                "options": "'{}'::jsonb",
                "seed": "n.m",
                "engine_version": "n.version",
                "status": "'finished'",
                "attempts": "1",
                "error": "''",
                "created": "n.at - interval '2 seconds'",
                "claimed_at": "n.at - interval '1 second'",
                "finished_at": "n.at",
                "wall_ms": "40 + n.m % 200",
                "replay_data": "r.data",
                "time_control": "'{}'::jsonb",
            },
            "bench_new n JOIN bench_replay r ON r.game = n.game AND r.players = n.players",
        )
        # Seat k of match m: distinct bots of the game (base + k * step); ranks rotate.
        step = max(1, (per_game - 1) // 4)  # 4 * step < per_game: the seats' bots are distinct
        base = f"(n.m * 2654435761) % {per_game}"
        bot = f"n.idx * {per_game} + 1 + ({base} + k * (1 + (n.m * 40503) % {step})) % {per_game}"
        cursor.execute(
            f"CREATE TEMP TABLE bench_seat ON COMMIT DROP AS SELECT n.m, k, {bot} AS bot, n.players, n.at, "
            "1 + (k + n.m) % n.players AS rank FROM bench_new n JOIN generate_series(0, 4) k ON k < n.players"
        )
        _insert_select(
            cursor,
            Seat,
            {
                "match_id": "m",
                "number": "k",
                "bot_version_id": "bot",
                "rank": "rank",
                "score": "players - rank",
                "fault": "''",
                "fault_detail": "''",
                "stderr": "''",
                "moves": "20",
                "time_ms": "5",
            },
            "bench_seat",
        )
        _insert_select(
            cursor,
            RatingChange,
            {
                "match_id": "m",
                "bot_id": "bot",
                "before": "1500 + (bot % 300)",
                "after": "1500 + (bot % 300) + (players + 1 - 2 * rank) * 4",
                "variance": "900",
                "created": "at",
            },
            "bench_seat",
        )
        # The ratings' counters follow the matches (the leaderboard shows them).
        cursor.execute(
            "UPDATE league_rating r SET games = r.games + s.games, wins = r.wins + s.wins, "
            "losses = r.losses + s.losses, games_since_version = r.games_since_version + s.games, "
            "last_match_at = greatest(r.last_match_at, s.last) FROM (SELECT bot, count(*) AS games, "
            "count(*) FILTER (WHERE rank = 1) AS wins, count(*) FILTER (WHERE rank > 1) AS losses, max(at) AS last "
            "FROM bench_seat GROUP BY bot) s WHERE r.bot_id = s.bot"
        )
        cursor.execute("UPDATE bench_meta SET value = %s WHERE key = 'matches'", [total])
        for model in (Match, Seat, RatingChange):
            name = model._meta.db_table
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), (SELECT max(id) FROM {name}))")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return time.perf_counter() - began


# ----- measuring --------------------------------------------------------------------------------------------------
def sample_ids(count: int = 50) -> dict[str, list[int]]:
    from league.bots.models import Bot
    from league.play.models import Match

    rng = random.Random(7)
    bots = list(Bot.objects.filter(game="love_letter").values_list("id", flat=True))
    top = Match.objects.order_by("-id").values_list("id", flat=True).first() or 1
    return {
        "bot": rng.sample(bots, min(count, len(bots))),
        "match": [rng.randint(1, top) for _ in range(count)],
    }


def _paths(template: str, ids: dict[str, list[int]]) -> list[str]:
    paths = []
    for n in range(len(ids["bot"])):
        paths.append(template.format(game="love_letter", bot=ids["bot"][n], match=ids["match"][n % len(ids["match"])]))
    return list(dict.fromkeys(paths))


def _clear_page_cache() -> bool:
    """Forget the cached page parts (league/ratings/caching.py); False where this tree has none."""
    from django.core.cache import caches
    from django.core.cache.backends.base import InvalidCacheBackendError

    try:
        caches["pages"].clear()
    except InvalidCacheBackendError:
        return False
    return True


def in_process(ids: dict[str, list[int]], samples: int) -> dict[str, dict[str, float]]:
    """Per endpoint: SQL queries per request and the median time of a request through the test client, computed
    afresh (the page cache emptied first), then again served from the page cache."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    figures = {}
    for label, template in ENDPOINTS:
        paths = _paths(template, ids)
        client.get(paths[0])  # warm: imports, templates
        times, queries, sql_ms, sizes, cached_times, cached_queries = [], [], [], [], [], []
        for n in range(samples):
            path = paths[n % len(paths)]
            _clear_page_cache()
            with CaptureQueriesContext(connection) as captured:
                began = time.perf_counter()
                response = client.get(path)
                times.append((time.perf_counter() - began) * 1000)
            if response.status_code != 200:
                raise SystemExit(f"{path}: HTTP {response.status_code}")
            queries.append(len(captured.captured_queries))
            sql_ms.append(sum(float(q["time"]) for q in captured.captured_queries) * 1000)
            sizes.append(len(response.content))
            with CaptureQueriesContext(connection) as captured:
                began = time.perf_counter()
                client.get(path)
                cached_times.append((time.perf_counter() - began) * 1000)
            cached_queries.append(len(captured.captured_queries))
        figures[label] = {
            "queries": max(queries),
            "ms": median(times),
            "sql_ms": median(sql_ms),
            "kb": median(sizes) / 1024,
            "cached_queries": max(cached_queries),
            "cached_ms": median(cached_times),
        }
    return figures


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Gunicorn:
    def __init__(self, workers: int = 2, root: Path = ROOT) -> None:
        self.port = _free_port()
        self.log = ROOT / "var" / "bench" / "logs" / f"gunicorn-{_free_port()}.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        binary = Path(sys.executable).parent / "gunicorn"
        if not binary.exists():
            raise SystemExit("gunicorn is not installed: .venv/bin/pip install gunicorn")
        self.process = subprocess.Popen(
            [str(binary), "parlour.wsgi:application", "--workers", str(workers), "--bind", f"127.0.0.1:{self.port}"],
            cwd=root,
            env={**os.environ, **infra.environment(DB_NAME), "PYTHONPATH": str(root), **UNTHROTTLED},
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        infra.wait_serving(self.process, self.port, "gunicorn", self.log, 30)

    def stop(self) -> None:
        infra.stop_group(self.process)


_LUA = """
paths = {%s}
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% #paths) + 1])
end
"""


def _seconds(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * {"us": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(port: int, paths: list[str], connections: int, seconds: float) -> dict[str, float]:
    """One wrk run (loopback, bounded in time): requests per second, p50 and p99 in ms, errors."""
    script = Path(tempfile.mkstemp(prefix="parlour-bench-", suffix=".lua")[1])
    script.write_text(_LUA % ", ".join(json.dumps(path) for path in paths))
    try:
        out = subprocess.run(
            [
                "wrk",
                "-t1",
                f"-c{connections}",
                f"-d{max(1, round(seconds))}s",
                "--timeout",
                "10s",
                "--latency",
                "-s",
                str(script),
                f"http://127.0.0.1:{port}",
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=seconds + 30,
        ).stdout
    finally:
        script.unlink()
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = _seconds(re.search(r"\s50%\s+(\S+)", out).group(1))
    p99 = _seconds(re.search(r"\s99%\s+(\S+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": rate, "p50": p50, "p99": p99, "errors": int(errors.group(1)) if errors else 0}


def _warm(port: int, paths: list[str]) -> None:
    """Request every path a few times first, so that each worker has it in its page cache (and its templates)."""
    for path in paths * 4:
        urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30).read()


def load(ids: dict[str, list[int]], seconds: float, results: str | None, size: int, against: Path | None) -> None:
    """Every endpoint under wrk at 1 and 4 connections; with ``against``, alternating with that tree's server."""
    servers = {"new": Gunicorn()}
    try:
        if against is not None:
            servers["old"] = Gunicorn(root=against.resolve())
        rows: dict[str, list[list[Any]]] = {name: [] for name in servers}
        for label, template in ENDPOINTS:
            paths = _paths(template, ids)
            cells: dict[str, dict[int, dict[str, float]]] = {name: {} for name in servers}
            for server in servers.values():
                _warm(server.port, paths)
            for connections in (1, 4):
                for name, server in servers.items():
                    cells[name][connections] = wrk(server.port, paths, connections, seconds)
            for name in servers:
                one, four = cells[name][1], cells[name][4]
                errors = one["errors"] + four["errors"]
                rows[name].append(
                    [label, one["rps"], one["p50"], one["p99"], four["rps"], four["p50"], four["p99"], errors]
                )
            one, four = cells["new"][1], cells["new"][4]
            note = "goal p99 < 100 ms" if label in LEADERBOARD else ""
            record(results, "site", f"{label}: req/s (4 connections)", round(four["rps"]), "/s")
            record(
                results,
                "site",
                f"{label}: p50 / p99 (1 connection)",
                f"{one['p50']:.0f} / {one['p99']:.0f}",
                "ms",
                note,
            )
            record(results, "site", f"{label}: p99 (4 connections)", round(four["p99"]), "ms", note)
    finally:
        for server in servers.values():
            server.stop()
    headings = ["endpoint", "req/s c=1", "p50 ms", "p99 ms", "req/s c=4", "p50 ms", "p99 ms", "errors"]
    for name, tree in (("new", ROOT), ("old", against)):
        if name in rows:
            print(f"\n## {size:,} matches: gunicorn (2 workers) of {tree} under wrk, {seconds:g} s per cell, loopback")
            print(table(rows[name], headings))
    if "old" in rows:
        print("\n## Side by side (this tree / the other), p50 and p99 in ms")
        side = []
        for new, old in zip(rows["new"], rows["old"], strict=True):
            side.append([new[0], f"{old[2]:.0f} / {new[2]:.0f}", f"{old[3]:.0f} / {new[3]:.0f}"])
            side[-1] += [f"{old[5]:.0f} / {new[5]:.0f}", f"{old[6]:.0f} / {new[6]:.0f}", f"{old[4]:.0f} / {new[4]:.0f}"]
        print(table(side, ["endpoint", "p50 c=1 old / new", "p99 c=1", "p50 c=4", "p99 c=4", "req/s c=4"]))


def matchmaking(results: str | None) -> list[list[Any]]:
    """do_schedule_ladder with a share of the bots on the ladder, and plan_tables alone at growing sizes."""
    from django.db import connection

    from league.bots.models import Bot
    from league.ladder import pairing
    from league.ladder.scheduling import do_schedule_ladder
    from league.play.models import Match

    rows = []
    for share in (0.01, 0.1, 1.0):
        keep = max(1, round(1 / share))
        with connection.cursor() as cursor:
            cursor.execute("UPDATE league_bot SET is_active = (id %% %s = 0)", [keep])
        active = Bot.objects.filter(is_active=True).count()
        times, created = [], 0
        for _ in range(3):
            began = time.perf_counter()
            made = do_schedule_ladder(random.Random(1))
            times.append((time.perf_counter() - began) * 1000)
            created = len(made)
            # Leave the queue empty for the next pass (these matches are never run).
            Match.objects.filter(pk__in=[m.pk for m in made]).delete()
        infra.flush_redis()
        rows.append([f"do_schedule_ladder, {active:,} bots on the ladder", median(times), created])
        record(results, "scaling", f"do_schedule_ladder with {active:,} ladder bots", round(median(times), 1), "ms")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE league_bot SET is_active = true")
    for n in (100, 1000, 10_000):
        rng = random.Random(n)
        policy = pairing.Policy(table_sizes=(2, 3, 4))
        times = []
        for _ in range(3):
            candidates = [
                pairing.Candidate(bot_id=i, version=i, elo=rng.gauss(1500, 200), games=rng.randint(0, 500))
                for i in range(n)
            ]
            began = time.perf_counter()
            tables = pairing.plan_tables(candidates, 10, policy, rng)
            times.append((time.perf_counter() - began) * 1000)
        rows.append([f"pairing.plan_tables, {n:,} candidates, 10 tables", median(times), len(tables)])
        record(results, "scaling", f"plan_tables (10 tables) over {n:,} candidates", round(median(times), 1), "ms")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000], help="matches")
    parser.add_argument("--load-at", type=int, nargs="*", help="sizes to run wrk at (default: the last)")
    parser.add_argument("--seconds", type=float, default=8.0, help="wrk duration per endpoint and concurrency")
    parser.add_argument("--samples", type=int, default=15, help="in-process requests per endpoint")
    parser.add_argument("--reuse", action="store_true", help="reuse the database of a --keep run if it exists")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    parser.add_argument(
        "--against",
        type=Path,
        help="another checkout (e.g. git archive HEAD | tar -x -C /tmp/base): under load, each cell alternates "
        "between a server of this tree and one of that tree, against the same database",
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install wrk")
    load_at = set(args.load_at or [args.sizes[-1]])
    print(f"# The site: {args.bots:,} bots, up to {args.sizes[-1]:,} matches in PostgreSQL. {machine()}")
    os.environ.update(UNTHROTTLED)
    fresh = not (args.reuse and infra.database_exists(DB_NAME))
    if fresh:
        infra.create_database(DB_NAME)
    infra.setup_django(DB_NAME, migrate=fresh)
    from django.core.management import call_command
    from django.db import connection

    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG off: the manifest, as deployed

    if fresh:
        began = time.perf_counter()
        build_bots(args.bots)
        print(f"built {args.bots:,} bots in {time.perf_counter() - began:.1f} s")
    scaling_rows = []
    try:
        for size in args.sizes:
            took = add_matches(size, args.sizes[-1])
            if took:
                print(f"added matches up to {size:,} in {took:.1f} s")
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_size_pretty(pg_database_size(current_database()))")
                db_size = cursor.fetchone()[0]
            ids = sample_ids()
            figures = in_process(ids, args.samples)
            print(f"\n## {size:,} matches ({db_size}): per request, in-process (test client, median of {args.samples})")
            rows = [
                [label, f["queries"], f["ms"], f["sql_ms"], f["kb"], f["cached_queries"], f["cached_ms"]]
                for label, f in figures.items()
            ]
            print(table(rows, ["endpoint", "queries", "ms", "SQL ms", "KiB", "cached: queries", "ms"]))
            for label in LEADERBOARD:
                scaling_rows.append([f"{label}, {size:,} matches", figures[label]["ms"], figures[label]["queries"]])
                record(
                    args.results,
                    "scaling",
                    f"{label} at {size:,} matches (in-process)",
                    round(figures[label]["ms"], 1),
                    "ms",
                )
            if size == args.sizes[-1]:
                for label, f in figures.items():
                    record(args.results, "site", f"{label}: SQL queries", f["queries"])
            if size in load_at:
                connection.close()
                load(ids, args.seconds, args.results, size, args.against)
        print("\n## Scaling: the leaderboard (in-process) as matches grow")
        print(table(scaling_rows, ["endpoint, size", "ms", "queries"]))
        print("\n## Scaling: matchmaking as bots grow")
        print(table(matchmaking(args.results), ["what", "ms (median of 3)", "tables"]))
    finally:
        connection.close()
        if not args.keep:
            infra.drop_database(DB_NAME)


if __name__ == "__main__":
    main()
