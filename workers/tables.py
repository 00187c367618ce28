"""``parlour.play_table``: a person's game against the league's bots (league/tables/services.py, docs/tables.md).

The task claims the oldest queued table, whichever table's message it is (first in, first out; at most
HUMAN_TABLES_MAX run at once: a message that finds no place is dropped, and the table is sent again when a place
frees or by the sweeper), then plays the whole game in this worker: the bots run sandboxed as in any match, and at the
person's decisions the runner (``bots.runner.table``) asks ``DatabaseSeat``, which starts the person's clock and polls
the table's row every POLL_SECONDS for the action the API stored. It holds a worker slot for the game's length, so its
time limit is the game's worst case, not the ladder's.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections

from bots.limits import Limits
from bots.results import BotSeat
from bots.runner.table import play_table as run_table
from games.base import Action
from league.bots.models import BotVersion
from league.tables import services as tables
from workers.seats import runner_seat
from workers.tasks import INFRASTRUCTURE_ERRORS

log = logging.getLogger(__name__)
POLL_SECONDS = 0.05  # the person's action is seen this long after the API stored it, at worst
RENEW_SECONDS = 10.0  # the lease (MATCH_STALE_SECONDS) is renewed this often while the person thinks


class DatabaseSeat:
    """The person's seat, fed from the table's row (``bots.runner.table.Outside``)."""

    def __init__(self, table_id: int, token: str, clock: int) -> None:
        self.table_id, self.token, self.clock = table_id, token, clock

    def wait(self, seat: int, move_index: int, obs: dict[str, Any], legal: list[Action]) -> Action | None:
        tables.do_await_person(self.table_id, self.token, move_index, self.clock)
        # A little grace past the clock shown: an action sent in its last instant is still in flight.
        deadline = time.monotonic() + self.clock + 1
        renew_at = time.monotonic() + RENEW_SECONDS
        while time.monotonic() < deadline:
            reply = tables.person_reply(self.table_id, move_index)
            if reply.resigned:
                return None  # (already recorded as a forfeit by do_resign)
            if reply.action is not None:
                return reply.action
            if time.monotonic() > renew_at:
                tables.do_renew_table(self.table_id, self.token)
                renew_at = time.monotonic() + RENEW_SECONDS
            time.sleep(POLL_SECONDS)
        tables.do_forfeit(self.table_id, self.token)
        return None

    def moved(self, moves: list[dict[str, Any]]) -> None:
        tables.do_record_moves(self.table_id, self.token, moves)


def _time_limit() -> int:
    # A person may use most of their clock at every decision (TEN: ~100 decisions of 120 s): a generous bound,
    # never the ladder's 30 minutes.
    return 8 * 3600


@shared_task(name="parlour.play_table", time_limit=_time_limit(), soft_time_limit=_time_limit() - 60)
def play_table(table_id: int) -> None:
    try:
        table = tables.do_claim_table(table_id)
    except tables.TablesFull:
        log.info("table %s waits for a place (it is sent again when one frees)", table_id)
        return
    if table is None:
        log.info("table %s: nothing to do (other workers have the queued tables, or none is left)", table_id)
        return
    table_id, token = table.pk, table.claim_token  # the oldest queued table: perhaps not the message's
    try:
        seats = [_seat(seat) for seat in table.seats]
        result = run_table(
            table.game,
            seats,
            table.seed,
            table.options,
            {table.person_seat},
            DatabaseSeat(table.pk, token, table.clock_seconds),
            sandbox=settings.BOT_SANDBOX,
            limits=Limits.for_game(table.game),
        )
    except INFRASTRUCTURE_ERRORS as error:
        close_old_connections()
        log.warning("table %s: %s", table_id, error)
        tables.do_release_table(table_id, token, f"the workers could not play it: {type(error).__name__}")
        return
    except Exception as error:
        log.exception("table %s failed", table_id)
        close_old_connections()
        tables.do_fail_table(table_id, token, f"{type(error).__name__}")
        return
    tables.do_finish_table(table_id, token, result)
    log.info("table %s: finished after %s moves", table_id, len(result.replay["moves"]))


def _seat(seat: dict[str, Any]) -> BotSeat:
    if seat["kind"] == "person":
        return BotSeat(label=seat["label"], builtin="random")  # plays only after a forfeit (runner.table)
    version = BotVersion.objects.select_related("bot").only("builtin", "remote", "bot__game").get(pk=seat["version_id"])
    remote_bot = version.bot_id if version.remote else None
    return runner_seat(version.pk, seat["label"], version.builtin, remote_bot=remote_bot, game=version.bot.game)
