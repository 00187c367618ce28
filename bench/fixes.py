"""The fixes docs/benchmarks.md proposes, measured side by side against the code as it is (nothing is changed on disk:
each variant is a runtime patch or a different query, timed in the same run, interleaved, medians).

    .venv/bin/python bench/fixes.py [--results FILE]           # engines only
    .venv/bin/python bench/fixes.py --site [--results FILE]    # + the database ones, on bench/site.py's database
                                                               #   (run bench/site.py --keep first)

1. Engines: ``games.base.State._check`` json-encodes every legal action to find the one played (O(legal) encodings
   per move). Variant: compare dicts first (cheap) and encode only the match, which keeps the strict identity
   (1, 1.0 and true still differ).
2. The match lists (API, home, bot page): the queryset loads ``replay_data`` (the compressed replay) of every listed
   match, and the bot page's ``.distinct()`` compares those blobs. Variant: ``.defer("replay_data")``.
3. The match list API's LimitOffsetPagination counts every match (``COUNT(*)``) on every page.
4. Recording a match: three durable commits per match (create, claim, record). Variant: ``SET LOCAL
   synchronous_commit TO OFF`` for those transactions (the database may lose the last few ms of commits in a crash,
   never corrupt them).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine, median, record, table
from bench.engines import playouts
from games import base
from games.base import IllegalAction, canonical


def _fast_check(self: base.State, action: base.Action) -> base.Action:
    key = None
    for legal in self._legal_actions():
        if legal == action:  # dict equality first: 1 == 1.0 == True, so confirm with the strict form
            key = key or canonical(action)
            if canonical(legal) == key:
                return legal
    raise IllegalAction(self._explain_illegal(action))


def engines(seconds: float, repeats: int, results: str | None) -> list[list[Any]]:
    from games.registry import GAMES

    original = base.State._check
    rows = []
    for game_id in GAMES:
        now, fast = [], []
        for _ in range(repeats):
            now.append(playouts(game_id, seconds)[0])
            base.State._check = _fast_check  # type: ignore[method-assign]
            try:
                fast.append(playouts(game_id, seconds)[0])
            finally:
                base.State._check = original  # type: ignore[method-assign]
        gain = median(fast) / median(now)
        rows.append([f"{game_id}: playouts/s, _check as is vs dict-first", median(now), median(fast), f"{gain:.2f}x"])
        record(results, "fixes", f"{game_id} playouts/s with a dict-first State._check", round(gain, 2), "x")
    return rows


def _timed(function: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append((time.perf_counter() - began) * 1000)
    return median(times)


def site(repeats: int, results: str | None) -> list[list[Any]]:
    from bench import infra
    from bench.site import DB_NAME

    if not infra.database_exists(DB_NAME):
        raise SystemExit(f"no {DB_NAME} database: run bench/site.py --keep first")
    infra.setup_django(DB_NAME, migrate=False)
    from django.db import connection, transaction

    from bots.runner import BotSeat, play_match
    from league.bots.models import Bot, BotVersion
    from league.bots.services import do_register_builtin_bots
    from league.core import outbox
    from league.play.matches import do_claim_match, do_create_match
    from league.play.models import Match
    from league.play.recording import do_record_match_result
    from league.site import views

    rows = []
    bot = Bot.objects.filter(game="love_letter").order_by("id")[5]
    count = Match.objects.count()

    def listed(defer: bool) -> None:
        matches = views._matches()
        list((matches.defer("replay_data") if defer else matches)[:50])

    def bot_recent(defer: bool) -> None:
        matches = views._matches()
        matches = matches.defer("replay_data") if defer else matches
        list(matches.filter(seats__bot_version__bot=bot).distinct()[: views.RECENT])

    for label, function in (("match list, 50 newest", listed), ("bot page's recent matches", bot_recent)):
        as_is, fixed = [], []
        for _ in range(repeats):
            as_is.append(_timed(lambda f=function: f(False), 1))
            fixed.append(_timed(lambda f=function: f(True), 1))
        rows.append([f"{label}: as is vs defer(replay_data), ms", median(as_is), median(fixed), "-"])
        record(
            results,
            "fixes",
            f"{label}: as is / deferred replay_data",
            f"{median(as_is):.0f} / {median(fixed):.0f}",
            "ms",
        )
    counted = _timed(lambda: Match.objects.count(), repeats)
    rows.append([f"COUNT(*) of {count:,} matches (each API list page), ms", counted, 0.0, "-"])
    record(results, "fixes", f"COUNT(*) over {count:,} matches per match-list page", round(counted, 1), "ms")

    # Recording: create + claim + record a finished built-in match, durable commits vs asynchronous ones.
    do_register_builtin_bots(["love_letter"])
    versions = list(BotVersion.objects.filter(bot__game="love_letter", builtin__in=["random", "heuristic"]))[:2]
    result = play_match("love_letter", [BotSeat("a", builtin="random"), BotSeat("b", builtin="random")], 1)

    def one_match(synchronous: bool) -> None:
        setting = "on" if synchronous else "off"
        with connection.cursor() as cursor:
            cursor.execute(f"SET synchronous_commit TO {setting}")
        match = do_create_match("love_letter", versions, seed=1)
        do_claim_match(match.pk)
        do_record_match_result(match.pk, result)

    created_before = Match.objects.order_by("-id").values_list("id", flat=True).first()
    with mock.patch.object(outbox, "current_app"):  # nothing is sent to a queue
        durable, asynchronous = [], []
        for _ in range(repeats):
            durable.append(_timed(lambda: one_match(True), 5))
            asynchronous.append(_timed(lambda: one_match(False), 5))
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO on")
    with transaction.atomic(), contextlib.suppress(Exception):
        Match.objects.filter(pk__gt=created_before).delete()
    gain = median(durable) / median(asynchronous)
    rows.append(
        [
            "create + claim + record one match, durable vs async commit, ms",
            median(durable),
            median(asynchronous),
            f"{gain:.1f}x",
        ]
    )
    record(
        results,
        "fixes",
        "create+claim+record a match: durable / async commit",
        f"{median(durable):.1f} / {median(asynchronous):.1f}",
        "ms",
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--site", action="store_true", help="also the database fixes (needs bench/site.py --keep)")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    args = parser.parse_args()
    print(f"# Proposed fixes, measured against the code as it is. {machine()}")
    rows = engines(args.seconds, args.repeats, args.results)
    if args.site:
        rows += site(max(5, args.repeats), args.results)
    print(table(rows, ["what", "as is", "with the fix", "gain"]))


if __name__ == "__main__":
    main()
