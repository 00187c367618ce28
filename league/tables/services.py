"""People's tables: a logged-in person plays one game against the league's bots in the browser (docs/tables.md).

The person creates a table (``do_create_table``: only seatable bots, league.tables.seating); a worker task
``parlour.play_table`` claims the oldest queued table (``do_claim_table``: first in, first out, at most
HUMAN_TABLES_MAX at once; the person may cancel it meanwhile, ``do_cancel_table``), runs the bots sandboxed and, at
each of the person's decisions, sets the clock (``do_await_person``) and polls for the action the person sends
(``do_act`` stores it, ``person_reply`` hands it over). After every decision the worker writes the moves
(``do_record_moves``); the pages and the API rebuild the state from them through the engine (``seat_view``,
``spectator_view``): the person sees their own observation only, a spectator the public view only, both the public
narration. Hidden information never leaves the server: raw actions are not shown while the game runs. Unrated:
ratings never read a table. The sweeper (``do_sweep_tables``, beat) sends lost messages again and ends or re-queues
tables whose worker died.
"""

from __future__ import annotations

import logging
import random
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from bots.results import MatchResult
from games.base import IllegalAction, State, is_int
from games.registry import GAMES, get_game
from league.bots.models import Bot, BotVersion
from league.bots.services import do_register_builtin_bots
from league.core import changes, leases, outbox
from league.core.errors import (
    ActionBreaksEngine,
    ActionNotObject,
    BotOfAnotherGame,
    ClockRanOut,
    Forfeited,
    IllegalMove,
    MoveAlreadySent,
    NoSuchTable,
    NotYourTableToCancel,
    NotYourTableToPlay,
    NotYourTurn,
    SignInToPlay,
    StaleMove,
    TableBotCount,
    TableBotsNotIds,
    TableInProgress,
    TableNotQueued,
    TableNotRunning,
    TableSize,
    UnknownBot,
    UnknownGame,
)
from league.core.ids import parse_id
from league.ladder.bot_status import ordinal
from league.play import worker_budget
from league.play.models import Match
from league.ratings.queries import leaderboard, not_ranked
from league.tables.models import Table
from league.tables.seating import check_seatable, on_the_ladder, seatable, still_seatable

log = logging.getLogger(__name__)
Person = AbstractBaseUser | AnonymousUser  # who asks: signed in or not
LIVE_SHOWN = 50
FORFEIT_TEXT = Forfeited.template


# ----- creating ---------------------------------------------------------------------------------------------------


def clock_seconds(game_id: str) -> int:
    clocks: dict[str, int] = settings.HUMAN_TABLE_CLOCKS
    return clocks.get(game_id, settings.HUMAN_TABLE_CLOCK_SECONDS)


def default_opponents(game_id: str, count: int) -> list[Bot]:
    """The top of the leaderboard (seatable bots), then the league's built-in bots, ``count`` in all."""
    chosen = list(leaderboard(game_id).filter(on_the_ladder())[:count])
    if len(chosen) < count:
        do_register_builtin_bots([game_id])
        house = seatable(Bot.objects.filter(game=game_id, is_builtin=True)).exclude(pk__in=[b.pk for b in chosen])
        chosen += list(house.order_by("id")[: count - len(chosen)])
    return chosen


def opponent_choices(game_id: str) -> list[Bot]:
    """The bots a person may seat (the picker's): ranked bots first, then ready bots not ranked yet, then the built-in
    ones; none that is disabled, paused or without a ready version."""
    do_register_builtin_bots([game_id])
    chosen = list(leaderboard(game_id).filter(on_the_ladder())[:50])
    house = list(Bot.objects.filter(game=game_id, is_builtin=True).select_related("owner").order_by("id"))
    for bot in [*not_ranked(game_id), *house]:
        if bot not in chosen:
            chosen.append(bot)
    allowed = set(seatable(Bot.objects.filter(pk__in=[b.pk for b in chosen])).values_list("pk", flat=True))
    return [bot for bot in chosen if bot.pk in allowed]


def do_create_table(person: Person, game_id: object, players: object, bot_ids: object = None) -> Table:
    """A queued table for ``person`` at a random seat and the bots ``bot_ids`` (their newest ready versions) in the
    other seats, in that order; no bots named: the top of the leaderboard, then built-ins. Enqueued on commit."""
    if not person.is_authenticated:
        raise SignInToPlay()
    if not isinstance(game_id, str) or game_id not in GAMES:
        raise UnknownGame(game=game_id)
    game = get_game(game_id)
    if not is_int(players) or not game.min_players <= players <= game.max_players:
        raise TableSize(title=game.title, min_players=game.min_players, max_players=game.max_players)
    leases.release_lapsed(TABLES)  # (a place frees without waiting for beat)
    if Table.objects.filter(owner_id=person.pk, status__in=[Table.Status.QUEUED, Table.Status.RUNNING]).exists():
        raise TableInProgress()
    worker_budget.check_budget(person, "a new table")  # (the person who opens it: their bots' use counts)
    if bot_ids is None or bot_ids == []:
        bots = default_opponents(game_id, players - 1)
    else:
        if not isinstance(bot_ids, list) or not all(is_int(b) for b in bot_ids):
            raise TableBotsNotIds()
        if len(bot_ids) != players - 1:
            raise TableBotCount(players=players, given=len(bot_ids))
        found = {bot.pk: bot for bot in Bot.objects.select_related("owner").filter(pk__in=set(bot_ids))}
        bots = []
        for bot_id in bot_ids:
            bot = found.get(bot_id)
            if bot is None:
                raise UnknownBot(bot_id=bot_id)
            if bot.game != game_id:
                raise BotOfAnotherGame(bot=bot, plays=GAMES[bot.game].title, wanted=game.title)
            bots.append(bot)
    versions: list[BotVersion] = [check_seatable(bot) for bot in bots]  # and again when it starts
    seed = secrets.randbits(31)
    person_seat = random.Random(seed).randrange(players)
    seats: list[dict[str, Any]] = []
    others = iter(zip(bots, versions, strict=True))
    for seat in range(players):
        if seat == person_seat:
            seats.append({"kind": "person", "label": person.get_username(), "bot_id": None, "version_id": None})
            continue
        bot, version = next(others)
        kind = "builtin" if version.builtin else "bot"
        seats.append({"kind": kind, "label": version.label, "bot_id": bot.pk, "version_id": version.pk})
    with transaction.atomic():
        table = Table.objects.create(
            owner_id=person.pk,
            game=game_id,
            players=players,
            seed=seed,
            engine_version=game.version,
            seats=seats,
            person_seat=person_seat,
            clock_seconds=clock_seconds(game_id),
        )
        table.bots.set({bot.pk for bot in bots})
        outbox.enqueue(outbox.PLAY_TABLE_TASK, table.pk)
    return table


# ----- the queue: first in, first out --------------------------------------------------------------------------
# Every table sends one ``play_table`` message when it is created, but the worker that gets a place plays the oldest
# queued table, whichever message brought it there: messages are turns, not tickets. A message that finds every place
# taken is dropped; when a place frees (a table ends, or its worker died) the oldest queued table is sent again
# (``_pass_place_on``), and the sweeper sends again any table whose message is older than MATCH_RESEND_SECONDS.


class TablesFull(Exception):
    """HUMAN_TABLES_MAX tables are running: the table waits for a place (it is sent again when one frees)."""


def do_claim_table(table_id: int) -> Table | None:
    """A message for table ``table_id`` arrived: start the oldest due queued table (not necessarily this one) if fewer
    than HUMAN_TABLES_MAX run. None when there is nothing to start; ``TablesFull`` when ``table_id`` must wait.

    Tables whose bots can no longer be seated are cancelled, with the reason, and those claimed beyond
    MATCH_MAX_ATTEMPTS are failed (``leases.gave_up``), on the way to the one that starts. Each claim is an attempt,
    under a fresh token (``leases.claim``)."""
    leases.release_lapsed(TABLES)
    now = timezone.now()
    with transaction.atomic():
        # Every claimer locks the same rows (the queued and running tables, in id order), so two claims are serialised
        # and cannot both take the last place (on PostgreSQL; SQLite serialises writes anyway).
        rows = list(
            Table.objects.select_for_update()
            .filter(status__in=[Table.Status.QUEUED, Table.Status.RUNNING])
            .order_by("pk")
            .values_list("pk", "status", "created", "enqueued_at")
        )
        running = sum(1 for _pk, status, _created, _due in rows if status == Table.Status.RUNNING)
        waiting = sorted(
            (created, pk) for pk, status, created, due in rows if status == Table.Status.QUEUED and due <= now
        )
        if running >= settings.HUMAN_TABLES_MAX:
            if any(pk == table_id for _created, pk in waiting):
                raise TablesFull(table_id)
            return None
        for _created, pk in waiting:
            table = Table.objects.get(pk=pk)
            if _unseatable(table, now):
                continue
            if leases.claim(TABLES, Q(pk=pk)).claimed != 1:
                continue
            table = Table.objects.get(pk=pk)
            if leases.gave_up(TABLES, table):
                continue
            return table
    return None


def _unseatable(table: Table, now: datetime) -> bool:
    """(Under the claim's lock.) Cancel a table whose bots cannot sit any more: True if so."""
    bot_seats = [seat for seat in table.seats if seat["kind"] != "person"]
    why = still_seatable([seat["bot_id"] for seat in bot_seats], [seat["version_id"] for seat in bot_seats])
    if why is None:
        return False
    _end(table.pk, Table.Status.CANCELLED, f"{why}. Your game was not started: choose other bots.", now)
    return True


def _end(table_id: int, status: str, error: str, now: datetime) -> None:
    Table.objects.filter(pk=table_id).update(
        status=status,
        finished_at=now,
        error=error[:2000],
        claim_token="",
        lease_until=None,
        deadline=None,
        pending=None,
        pending_index=None,
    )
    changes.publish("table", table_id)  # failed, abandoned or cancelled: its page says so at once


def _pass_place_on() -> None:
    """A place may have freed: send the oldest due queued table again (the messages of the tables behind it may all
    have been spent on tables ahead of them: first in, first out). A duplicate finds nothing to do."""
    now = timezone.now()
    oldest = (
        Table.objects.filter(status=Table.Status.QUEUED, enqueued_at__lte=now)
        .order_by("created", "pk")
        .values_list("pk", flat=True)
        .first()
    )
    if oldest is not None:
        Table.objects.filter(pk=oldest).update(enqueued_at=now)
        outbox.enqueue(outbox.PLAY_TABLE_TASK, oldest)


def do_cancel_table(person: Person, table_id: object) -> Table:
    """The person at a queued table cancels it: it never starts, and no longer counts as their game in progress.
    403 for anyone else's table, 409 once it has started (a game in play ends by itself or by its clock)."""
    table = get_table(table_id)
    if not person.is_authenticated or table.owner_id != person.pk:
        raise NotYourTableToCancel()
    cancelled = Table.objects.filter(pk=table.pk, status=Table.Status.QUEUED).update(
        status=Table.Status.CANCELLED, finished_at=timezone.now(), error=CANCELLED_TEXT
    )
    if cancelled != 1:  # (conditional: a worker may have claimed it a moment ago)
        table.refresh_from_db()
        raise TableNotQueued(state=table.status)
    table.refresh_from_db()
    return table


# ----- the worker's side ------------------------------------------------------------------------------------------
# A table's claim is a lease (league/core/leases.py, as for matches): a worker writes to its table only under the
# token of its claim, so one presumed dead (its lease ran out, the table was ended or given to another worker)
# changes nothing any more.

ABANDONED_TEXT = (
    "The worker playing this game stopped at move {moves}, and a game cannot be resumed: the bots' programs kept their"
    " own memory of it, which died with them. It is not counted anywhere (no result, no record); start a new one."
)
CANCELLED_TEXT = "You cancelled it before it started."


class _Tables(leases.Queue[Table]):
    """An attempt that ends without a result, nothing played yet (the person has only seen their first view, which the
    same seed deals again), is queued again keeping its place in line (first in: ``created``), or failed after
    MATCH_MAX_ATTEMPTS; with moves played it is abandoned, with a note for the page (ABANDONED_TEXT)."""

    model = Table
    task = outbox.PLAY_TABLE_TASK
    noun, plural, working = "table", "tables", "playing"
    backoff_after_lapse = False
    resend_order = ("created", "pk")

    def waiting(self) -> Q:
        return Q(status=Table.Status.QUEUED)

    def holding(self) -> Q:
        return Q(status=Table.Status.RUNNING)

    def claimed_fields(self, now: datetime, worker: str) -> dict[str, Any]:
        return {"status": Table.Status.RUNNING, "started_at": now}

    def waiting_fields(self) -> dict[str, Any]:
        return {
            "status": Table.Status.QUEUED,
            "started_at": None,
            "deadline": None,
            "pending": None,
            "pending_index": None,
            "forfeited_at": None,
            "resigned": False,
        }

    def noted(self, row: Table, error: str) -> dict[str, Any]:
        return {"error": error[:2000]}

    def last_error(self, row: Table) -> str:
        return row.error

    def unretryable(self, row: Table) -> str | None:
        return ABANDONED_TEXT.format(moves=row.move_count) if row.move_count > 0 else None

    def end(self, row: Table, reason: str) -> None:
        _end(row.pk, Table.Status.FAILED, reason, timezone.now())

    def after_release(self) -> None:
        _pass_place_on()


TABLES = _Tables()


def _held(table_id: int, token: str) -> QuerySet[Table]:
    return leases.held(TABLES, Q(pk=table_id), token)


def do_renew_table(table_id: int, token: str) -> bool:
    """The worker still plays it (called as it plays and while it waits for the person); False when the claim is no
    longer its own."""
    return leases.renew(TABLES, Q(pk=table_id), token) == 1


def do_record_moves(table_id: int, token: str, moves: list[dict[str, Any]]) -> None:
    """The moves so far, as the runner has them (seat, action, auto: no timings, no bots' notes). The person's action
    for a move now played stops being pending in the same transaction: a page sees it either sent or played, never
    neither (which would offer the move again)."""
    kept = [{"seat": m["seat"], "action": m["action"], "auto": bool(m["auto"])} for m in moves]
    now = timezone.now()
    with transaction.atomic():
        _held(table_id, token).update(
            moves=kept, move_count=len(kept), deadline=None, lease_until=leases.lease_end(now)
        )
        _held(table_id, token).filter(pending_index__lt=len(kept)).update(pending=None, pending_index=None)
    changes.publish("table", table_id)  # the turn moved on: its watchers' views change


def do_await_person(table_id: int, token: str, move_index: int, clock: int) -> None:
    """Start the person's clock for the decision at ``move_index``."""
    deadline = timezone.now() + timedelta(seconds=clock)
    _held(table_id, token).filter(move_count=move_index).update(deadline=deadline)
    changes.publish("table", table_id)


def do_forfeit(table_id: int, token: str) -> None:
    """The person's clock ran out (the worker saw no action in time): no more decisions are asked of them."""
    _held(table_id, token).filter(forfeited_at__isnull=True).update(
        forfeited_at=timezone.now(), deadline=None, pending=None, pending_index=None
    )


@dataclass(frozen=True)
class PersonReply:
    action: dict[str, Any] | None  # sent for the decision asked; it stays pending until ``do_record_moves``
    resigned: bool  # the person resigned: nothing more will come


def person_reply(table_id: int, move_index: int) -> PersonReply:
    """What the person has sent for the decision at ``move_index`` (one query: the worker asks it many times a
    second while the person thinks)."""
    row = Table.objects.filter(pk=table_id).values_list("pending", "pending_index", "resigned").first()
    if row is None:
        return PersonReply(None, False)
    pending, index, resigned = row
    return PersonReply(pending if index == move_index else None, bool(resigned))


def do_finish_table(table_id: int, token: str, result: MatchResult) -> None:
    replay = result.replay
    seats = [
        {"rank": seat.rank, "score": seat.score, "fault": seat.fault.to_json() if seat.fault else None}
        for seat in result.seats
    ]
    moves = [{"seat": m["seat"], "action": m["action"], "auto": bool(m["auto"])} for m in replay["moves"]]
    _held(table_id, token).update(
        status=Table.Status.FINISHED,
        finished_at=timezone.now(),
        result={"outcome": result.outcome.to_json(), "seats": seats},
        replay_data=Match.pack_replay(replay),
        moves=moves,
        move_count=len(moves),
        claim_token="",
        lease_until=None,
        deadline=None,
        pending=None,
        pending_index=None,
    )
    changes.publish("table", table_id)
    _pass_place_on()


def do_fail_table(table_id: int, token: str, error: str) -> None:
    """A bug: the table fails at once, with the reason (not tried again)."""
    leases.fail(TABLES, table_id, error, token)


def do_release_table(table_id: int, token: str, error: str) -> None:
    """The infrastructure failed this worker's attempt: queued again after a back-off, or ended (``_Tables``)."""
    leases.release(TABLES, table_id, error, token)


def do_sweep_tables() -> list[int]:
    """The sweeper's round for tables (``leases.sweep``; beat's ``requeue_stale_matches``, every MATCH_SWEEP_SECONDS):
    tables whose worker died are re-queued or abandoned, and a queued table whose last message is older than
    MATCH_RESEND_SECONDS is sent again (the broker lost it, or a worker died holding it; a duplicate is harmless).
    Returns the ids of the tables swept."""
    return leases.sweep(TABLES)


# ----- the person's side ------------------------------------------------------------------------------------------


def get_table(table_id: object) -> Table:
    """The table, or a 404 for an unknown id (anything not an id included)."""
    number = parse_id(table_id)
    table = Table.objects.filter(pk=number).first() if number is not None else None
    if table is None:
        raise NoSuchTable(table_id=table_id)
    return table


def _state(table: Table) -> tuple[State, list[str]]:
    """The state after the moves so far, and the public narration of every move."""
    game = get_game(table.game)
    state = game.new_state(table.players, table.seed, table.options)
    narration: list[str] = []
    for move in table.moves:
        narration += state.apply(move["action"])
    return state, narration


def do_act(person: Person, table_id: object, move_index: object, action: object) -> None:
    """Send the person's action for the decision at ``move_index`` (the move count they saw: a stale page is told so
    instead of playing a move it did not mean). Checked against the engine before the worker sees it."""
    table = get_table(table_id)
    if not person.is_authenticated or table.owner_id != person.pk:
        raise NotYourTableToPlay()
    if table.status != Table.Status.RUNNING:
        what = "has not started yet" if table.status == Table.Status.QUEUED else "is over"
        raise TableNotRunning(what=what)
    if table.forfeited_at is not None:
        raise Forfeited()
    if not is_int(move_index) or move_index != table.move_count:
        raise StaleMove(at=table.move_count, sent=move_index)
    if not isinstance(action, dict):
        raise ActionNotObject()
    state, _ = _state(table)
    if state.to_move() != table.person_seat:
        raise NotYourTurn()
    if table.deadline is not None and table.deadline <= timezone.now():
        raise ClockRanOut()
    try:
        state.apply(action)
    except IllegalAction as exc:
        raise IllegalMove(reason=exc.reason) from None
    except Exception:  # an engine that chokes on a strange action: still the client's bad input
        raise ActionBreaksEngine() from None
    sent = Table.objects.filter(
        pk=table.pk, status=Table.Status.RUNNING, move_count=move_index, pending_index__isnull=True
    ).update(pending=state.history[-1], pending_index=move_index)
    if sent != 1:
        raise MoveAlreadySent()
    changes.publish("table", table.pk)


def do_resign(person: Person, table_id: object) -> Table:
    """The person gives the game up: from their next decision on, the built-in random player plays their seat to the
    end, and they are ranked last (as when their clock runs out)."""
    table = get_table(table_id)
    if not person.is_authenticated or table.owner_id != person.pk:
        raise NotYourTableToPlay()
    if table.status != Table.Status.RUNNING:
        raise TableNotRunning(what="has not started yet" if table.status == Table.Status.QUEUED else "is over")
    if table.forfeited_at is not None:
        raise Forfeited()
    Table.objects.filter(pk=table.pk, status=Table.Status.RUNNING, forfeited_at__isnull=True).update(
        forfeited_at=timezone.now(), resigned=True, deadline=None, pending=None, pending_index=None
    )
    changes.publish("table", table.pk)
    table.refresh_from_db()
    return table


@dataclass(frozen=True)
class Queue:
    ahead: int  # queued tables that start before this one (first in, first out)
    running: int

    @property
    def place(self) -> int:
        return self.ahead + 1


def queue_position(table: Table) -> Queue:
    earlier = Q(created__lt=table.created) | Q(created=table.created, pk__lt=table.pk)
    ahead = Table.objects.filter(earlier, status=Table.Status.QUEUED).count()
    running = Table.objects.filter(status=Table.Status.RUNNING).count()
    return Queue(ahead=ahead, running=running)


def table_view(table: Table, viewer: Person | None) -> dict[str, Any]:
    """What ``viewer`` may see of ``table`` now: the person at it their seat's observation and legal actions,
    anyone else the public view. Both: the seats, the narration, the status and, once over, the result."""
    person = viewer is not None and viewer.is_authenticated and viewer.pk == table.owner_id
    state, narration = _state(table)
    to_move = state.to_move()
    view: dict[str, Any] = {
        "id": table.pk,
        "game": table.game,
        "status": table.status,
        "players": table.players,
        "seats": [{"kind": s["kind"], "label": s["label"], "bot_id": s["bot_id"]} for s in table.seats],
        "person_seat": table.person_seat,
        "move_count": table.move_count,
        "to_move": to_move,
        "narration": narration,
        "role": "person" if person else "spectator",
        "clock_seconds": table.clock_seconds,
    }
    if person:
        view["observation"] = state.observation(table.person_seat)
        your_turn = table.status == Table.Status.RUNNING and to_move == table.person_seat and not table.forfeited_at
        sent = table.pending_index == table.move_count
        view["legal_actions"] = state.legal_actions() if your_turn and not sent else []
        # The templates' blanks as controls may show them (games/blanks.py): the seat's own knowledge only.
        view["blanks"] = state.blanks(view["legal_actions"])
    else:
        view["public"] = state.public_view()
    waiting = table.status == Table.Status.RUNNING and to_move == table.person_seat and table.deadline is not None
    view["clock_left"] = (
        max(0.0, round((table.deadline - timezone.now()).total_seconds(), 1))
        if waiting and table.deadline is not None
        else None
    )
    view["forfeited"] = table.forfeited_at is not None
    view["resigned"] = table.resigned
    if table.resigned:
        view["message"] = (
            "You resigned: a random player finishes your game."
            if person
            else "The person resigned: a random player finishes the game."
        )
    elif table.forfeited_at is not None:
        view["message"] = FORFEIT_TEXT if person else "The person's clock ran out: a random player finishes the game."
    if table.status == Table.Status.QUEUED:
        queue = queue_position(table)
        view["queue"] = {
            "ahead": queue.ahead,
            "place": queue.place,
            "running": queue.running,
            "max": settings.HUMAN_TABLES_MAX,
        }
        whose = "Your game" if person else "This game"
        view["message"] = (
            f"{whose} is queued, {ordinal(queue.place)} in line: {queue.running} of {settings.HUMAN_TABLES_MAX}"
            f" tables are in play and {queue.ahead} {'game waits' if queue.ahead == 1 else 'games wait'} ahead."
            " It starts by itself" + (" (or cancel it)." if person else ".")
        )
    if table.status == Table.Status.FINISHED:
        view["result"] = table.result
        view["replay_url"] = f"/tables/{table.pk}/replay/"
    if table.status == Table.Status.FAILED:
        view["message"] = "This game could not be played: " + (table.error or "the workers failed")
    if table.status == Table.Status.CANCELLED:
        view["message"] = "This game was cancelled: " + (table.error or CANCELLED_TEXT)
    return view


def fingerprint(table_id: int) -> tuple[Any, ...] | None:
    """What changes when a view of the table changes (the event stream's cheap poll)."""
    row = Table.objects.filter(pk=table_id).values_list("status", "move_count", "pending_index", "deadline").first()
    return tuple(row) if row is not None else None


# ----- listings ---------------------------------------------------------------------------------------------------


def live_tables() -> QuerySet[Table]:
    return (
        Table.objects.filter(status=Table.Status.RUNNING).select_related("owner").order_by("-started_at")[:LIVE_SHOWN]
    )


def tables_of(person: Person) -> QuerySet[Table]:
    return Table.objects.filter(owner_id=person.pk).order_by("-created")[:50]


@dataclass(frozen=True)
class PeopleRecord:
    beaten: int  # finished games in which the bot ranked above the person
    played: int  # finished games of people against the bot


def people_record(bot: Bot) -> PeopleRecord:
    """ "People beaten: N of M": the bot's finished tables and those where it ranked better than the person."""
    beaten = played = 0
    for seats, person_seat, result in Table.objects.filter(bots=bot, status=Table.Status.FINISHED).values_list(
        "seats", "person_seat", "result"
    ):
        ranks = [seat["rank"] for seat in result.get("seats", [])]
        if len(ranks) != len(seats):
            continue
        mine = [i for i, seat in enumerate(seats) if seat.get("bot_id") == bot.pk]
        if not mine:
            continue
        played += 1
        if min(ranks[i] for i in mine) < ranks[person_seat]:
            beaten += 1
    return PeopleRecord(beaten=beaten, played=played)
