"""Recording a played match: its seats and replay, the rating changes, and pausing bots that fault too often.

Nothing a bot wrote can make recording fail for the others: the runner cleans and bounds every text a bot wrote
(``bots.text``), and should the database still refuse a game's values (a ``DataError``), the games are recorded again
one by one, each in a savepoint, and a game that still fails is recorded with the seat whose text the database refused
charged a fault (``record_games_isolated``). The happy path pays nothing for this: the isolated way is taken only
after the whole transaction failed.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import DataError, connection, transaction
from django.utils import timezone

from bots.results import MatchResult
from bots.text import STDERR_MAX_CHARS, clean_text
from league.bots.models import Bot
from league.core.rows import update_rows
from league.live.models import LiveMatch
from league.play.matches import do_fail_match, tournament_game_over
from league.play.models import Match, Seat, fault_label
from league.ratings import elo as ratings
from league.ratings.models import RatedSequence, Rating, RatingChange
from league.ratings.rated import changes_ratings

log = logging.getLogger(__name__)


SEAT_RESULT_FIELDS = ("rank", "score", "fault", "fault_detail", "stderr", "moves", "time_ms")


def do_record_match_result(match_id: int, result: MatchResult, claim_token: str | None = None) -> bool:
    """Record a played match — seats, replay, rating changes — in one transaction, exactly once.

    ``result`` is what the runner returned (the worker hands it over as it is). Returns False if the match was already
    recorded, or (with ``claim_token``) if this worker no longer holds the claim: it was presumed dead and the match is
    re-run."""
    try:
        return _record_match_result(match_id, result, claim_token, isolated=False)
    except REFUSED_VALUE_ERRORS as error:  # a value the database refused: again, isolated (the module's docstring)
        log.warning("match %s: the database refused its result (%s); recording it isolated", match_id, error)
        return _record_match_result(match_id, result, claim_token, isolated=True)


def _record_match_result(match_id: int, result: MatchResult, claim_token: str | None, *, isolated: bool) -> bool:
    with transaction.atomic():
        # One statement locks the match row and reads its seats, versions and bots (not the archives, up to 1 MiB a
        # seat, nor a replay: recording needs the bots and version numbers only).
        seats = list(
            Seat.objects.filter(match_id=match_id)
            .select_related("match", "bot_version__bot")
            .defer("bot_version__archive", "match__replay_data")
            .select_for_update(of=("match",))
            .order_by("number")
        )
        match = seats[0].match if seats else Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING or (claim_token is not None and match.claim_token != claim_token):
            return False
        game = PlayedGame(match, seats, result)
        if isolated:
            return bool(record_games_isolated([game]))
        record_games_locked([game])
    return True


@dataclass(frozen=True)
class PlayedGame:
    """A played game to record: its match and seats (locked and loaded by the caller) and what the runner returned."""

    match: Match
    seats: list[Seat]
    result: MatchResult


# What a value the database will not store raises: PostgreSQL's NUL in a text column is a DataError, a lone surrogate
# fails to encode before it is sent (either database).
REFUSED_VALUE_ERRORS = (DataError, UnicodeEncodeError)


def record_games_isolated(games: Sequence[PlayedGame]) -> list[PlayedGame]:
    """Record played games as ``record_games_locked`` does, but each in a savepoint of its own, so a game the
    database refuses costs only itself; returns the games recorded (the others were failed).

    A refused game is recorded again with one seat's bot charged for its output (``MatchResult.with_output_fault``:
    a ``malformed`` fault, its text dropped, ranked last), trying the seats in order until the database takes it;
    the first seat whose text alone made it fail is the one charged. If no one seat's text is the cause, the game is
    failed with the database's error (not a bot's doing: never a bot's fault)."""
    recorded = []
    for game in games:
        try:
            with transaction.atomic():
                record_games_locked([game])
            recorded.append(game)
            continue
        except REFUSED_VALUE_ERRORS as error:
            refused = error
        kind = type(refused).__name__
        for seat in range(len(game.seats)):
            detail = f"its output (log, note or fault detail) could not be stored: the database refused it ({kind})"
            blamed = PlayedGame(game.match, game.seats, game.result.with_output_fault(seat, detail))
            try:
                with transaction.atomic():
                    record_games_locked([blamed])
            except REFUSED_VALUE_ERRORS:
                continue
            log.warning("match %s: seat %s charged a fault: its output could not be stored", game.match.pk, seat)
            recorded.append(blamed)
            break
        else:
            log.error("match %s: the database refused its result whoever's output is dropped: %s", game.match.pk, kind)
            do_fail_match(game.match.pk, f"the result could not be stored: {kind}: {refused}", game.match.claim_token)
    return recorded


def record_games_locked(games: Sequence[PlayedGame]) -> None:
    """Record played games in play order (under their matches' row locks, in the caller's transaction), each exactly
    as if recorded alone, ratings changing game by game; ``series.do_record_series`` records a series so.

    The statements do not grow with the games (a series of 12 costs about what one match does): all the seats in one
    UPDATE, the bots' ratings locked once and written once, every rating change in one INSERT, the recorded-order
    numbers in one upsert, all the matches in one UPDATE."""
    if not games:
        return
    seat_rows = []
    for game in games:
        for seat, played in zip(game.seats, game.result.seats, strict=True):
            seat.rank, seat.score = played.rank, played.score
            seat.fault = played.fault.cause.value if played.fault else ""
            seat.fault_detail = played.fault.detail if played.fault else ""  # (a Fault's detail is clean: bots.text)
            seat.stderr = clean_text(played.stderr, STDERR_MAX_CHARS, keep="tail")  # (the runner's is clean already)
            seat.moves, seat.time_ms = played.moves, played.time_ms
            seat_rows.append([seat.pk, *(getattr(seat, f) for f in SEAT_RESULT_FIELDS)])
    update_rows(Seat, SEAT_RESULT_FIELDS, seat_rows)
    now = timezone.now()
    for index, game in enumerate(games):
        match = game.match
        match.status = Match.Status.FINISHED
        # Distinct and in play order, whatever the clock's resolution: the history's order is finished_at's.
        match.finished_at = now + timedelta(microseconds=index)
        match.wall_ms = game.result.wall_ms
        match.replay_data = Match.pack_replay(game.result.replay)
        match.error = ""
    rated = [game for game in games if changes_ratings(game.match)]
    # (may move finished_at forward: see _apply_ratings)
    _apply_ratings([game for game in rated if distinct_bots(game.seats)])
    for game_id in dict.fromkeys(game.match.game for game in rated):
        of_game = [game.match for game in rated if game.match.game == game_id]
        last = next_rated_seqs(game_id, len(of_game))
        for number, match in enumerate(of_game, start=last - len(of_game) + 1):
            match.rated_seq = number
    fields = ["status", "finished_at", "wall_ms", "replay_data", "error", "rated_seq"]
    update_rows(Match, fields, [[game.match.pk, *(getattr(game.match, f) for f in fields)] for game in games])
    # Its replay replaces the live moves in the same transaction: a spectator who sees "finished" never sees both.
    LiveMatch.objects.filter(match_id__in=[game.match.pk for game in games]).delete()
    faulted = {seat.bot_version.bot_id for game in games for seat in game.seats if seat.fault}
    for bot_id in sorted(faulted):
        _pause_if_faulty(bot_id)
    for game in games:
        tournament_game_over(game.match)


def next_rated_seqs(game: str, count: int = 1) -> int:
    """Take the game's next ``count`` recorded-order numbers in one statement (an upsert: the game's first creates
    the row); returns the last of them. The row stays locked until the caller's transaction commits, so a number
    becomes visible only after every smaller one of its game (the incremental refit relies on it). Taken after the
    bots' rating rows, so the lock is held briefly and always after those (no lock cycle)."""
    table = connection.ops.quote_name(RatedSequence._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (game, last) VALUES (%s, %s) "
            f"ON CONFLICT (game) DO UPDATE SET last = {table}.last + %s RETURNING last",
            [game, count, count],
        )
        return int(cursor.fetchone()[0])


def distinct_bots(seats: list[Seat]) -> bool:
    """The same bot twice at one table says nothing about its strength: such a match is not rated."""
    bots = [seat.bot_version.bot_id for seat in seats]
    return len(set(bots)) == len(bots)


def _apply_ratings(games: Sequence[PlayedGame]) -> None:
    """Rate the games' bots from their ranks, game by game in order (all the bots' rating rows locked and written
    once); sets each match's place in the rating history (its finished_at)."""
    if not games:
        return
    bots = {seat.bot_version.bot_id: seat.bot_version.bot for game in games for seat in game.seats}
    # Lock in a fixed order so two recordings at once never deadlock; the second waits and sees the first.
    locked = {r.bot_id: r for r in Rating.objects.select_for_update().filter(bot__in=bots).order_by("bot_id")}
    for bot_id, bot in bots.items():
        if bot_id not in locked:
            locked[bot_id] = Rating.objects.create(bot=bot)
    changes = []
    for game in games:
        match = game.match
        table = [locked[seat.bot_version.bot_id] for seat in game.seats]
        # The history's order is the order of finished_at (recompute_ratings replays it so). Under the locks, make
        # it later than every one of these bots' previous rated matches, whatever the clocks of the worker machines
        # say: then the replay meets each bot's matches in the order their ratings were applied here.
        latest = max((rating.last_match_at for rating in table if rating.last_match_at), default=None)
        assert match.finished_at is not None
        if latest is not None and match.finished_at <= latest:
            match.finished_at = latest + timedelta(microseconds=1)
        after = ratings.rate_match(
            [rating.state for rating in table],
            [
                ratings.RatedSeat(rank=played.rank, version=seat.bot_version.number)
                for seat, played in zip(game.seats, game.result.seats, strict=True)
            ],
        )
        for rating, state in zip(table, after, strict=True):
            changes.append(
                RatingChange(
                    match=match, bot_id=rating.bot_id, before=rating.elo, after=state.elo, variance=state.variance
                )
            )
            rating.set_state(state)
            rating.last_match_at = match.finished_at
    RatingChange.objects.bulk_create(changes)
    now = timezone.now()
    fields = [*Rating.STATE_FIELDS, "last_match_at", "updated"]
    rows = []
    for rating in locked.values():
        rating.updated = now
        rows.append([rating.pk, *(getattr(rating, f) for f in fields)])
    update_rows(Rating, fields, rows)


def _pause_if_faulty(bot_id: int) -> None:
    """Pause a bot that faulted in more than LADDER_FAULT_LIMIT of its last LADDER_FAULT_WINDOW matches."""
    bot = Bot.objects.get(pk=bot_id)
    if bot.paused_at is not None:
        return
    seats = Seat.objects.filter(bot_version__bot_id=bot_id, match__status=Match.Status.FINISHED)
    if bot.fault_window_start is not None:
        seats = seats.filter(match__finished_at__gte=bot.fault_window_start)
    window = list(
        seats.order_by("-match__finished_at", "-match_id").values_list("fault", "fault_detail", "match_id")[
            : settings.LADDER_FAULT_WINDOW
        ]
    )
    faults = [(cause, detail, match_id) for cause, detail, match_id in window if cause]
    if len(faults) <= settings.LADDER_FAULT_LIMIT:
        return
    causes = Counter(cause for cause, _detail, _match in faults)
    summary = ", ".join(f"{fault_label(cause)}: {count}" for cause, count in causes.most_common())
    cause, detail, match_id = faults[0]
    reason = (
        f"Paused automatically: it faulted in {len(faults)} of its last {len(window)} matches ({summary}); more than "
        f"{settings.LADDER_FAULT_LIMIT} in {settings.LADDER_FAULT_WINDOW} pauses a bot. The latest, in match "
        f"{match_id}: {fault_label(cause)} — {detail[:300] or 'no detail'}. Upload a fixed version (it is "
        "scheduled as soon as it passes validation) or resume the bot from its page."
    )
    Bot.objects.filter(pk=bot_id, paused_at__isnull=True).update(paused_at=timezone.now(), paused_reason=reason)
    log.info("bot %s paused: %s", bot_id, reason)
