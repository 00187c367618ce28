"""The error catalog: every refusal a client can see, each one class that fixes its code, its status and its message.

``ErrorCode`` is the published ``code`` of the API's error shape, and each code carries the one HTTP status it answers
(``ErrorCode.NOT_READY.status == 409``, wherever it is raised). Each error below is a subclass of ``ServiceError``
that names its code and its message, a ``template`` filled from the error's fields (and properties): a raise site
names the error and passes the fields, ``raise UnknownGame(game=game_id)``, and never chooses a status or writes a
message. The fields are keyword-only and typed (mypy checks every raise site); a field only shown is typed
``object`` (its ``str()`` is what the message says). docs/api.md lists every code with its status, and
tests/league/core/test_error_codes.py keeps the two the same, both ways.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, ClassVar, Protocol, Self, dataclass_transform

from django.utils import timezone

from bots.packaging import MAX_UPLOAD_BYTES
from games import registry


class ErrorCode(StrEnum):
    """The ``code`` of the API's one error shape, with the status it always answers. The values are published:
    never rename one (a code whose meaning would change gets a new value instead)."""

    _value_: str
    status: int

    def __new__(cls, value: str, status: int) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.status = status
        return member

    # The request itself (the API's framework and the request-body guard answer these).
    INVALID = "invalid", 400
    PARSE_ERROR = "parse_error", 400
    LENGTH_REQUIRED = "length_required", 411
    TOO_LARGE = "too_large", 413
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type", 415
    METHOD_NOT_ALLOWED = "method_not_allowed", 405
    NOT_AUTHENTICATED = "not_authenticated", 401
    AUTHENTICATION_FAILED = "authentication_failed", 401
    PERMISSION_DENIED = "permission_denied", 403
    NOT_FOUND = "not_found", 404
    THROTTLED = "throttled", 429
    SERVER_BUSY = "server_busy", 503
    # The league's rules (the services raise these).
    FORBIDDEN = "forbidden", 403
    EMAIL_UNVERIFIED = "email_unverified", 403
    SESSION_REQUIRED = "session_required", 403
    RATE_LIMITED = "rate_limited", 429
    TOO_MANY_BOTS = "too_many_bots", 403
    TOO_MANY_GAMES = "too_many_games", 400
    BAD_UPLOAD = "bad_upload", 400
    DUPLICATE = "duplicate", 409
    UNKNOWN_GAME = "unknown_game", 400
    UNKNOWN_BOT = "unknown_bot", 400
    UNKNOWN_VERSION = "unknown_version", 400
    WRONG_GAME = "wrong_game", 400
    NOT_READY = "not_ready", 409
    NO_PREVIOUS_VERSION = "no_previous_version", 400
    REJECTED_VERSION = "rejected_version", 400
    UNVALIDATED_VERSION = "unvalidated_version", 400
    INVALID_SETTINGS = "invalid_settings", 400
    DUPLICATE_ENTRY = "duplicate_entry", 409
    SAME_OWNER = "same_owner", 400
    TOO_FEW_ENTRANTS = "too_few_entrants", 400
    NOT_DRAFT = "not_draft", 409
    ALREADY_STARTED = "already_started", 409
    NOT_RUNNING = "not_running", 409
    ALREADY_PAUSED = "already_paused", 409
    NOT_PAUSED = "not_paused", 409
    ALREADY_FINISHED = "already_finished", 409
    # People's tables (docs/tables.md).
    TABLE_IN_PROGRESS = "table_in_progress", 409
    NOT_YOUR_TURN = "not_your_turn", 409
    STALE_MOVE = "stale_move", 409
    ILLEGAL_ACTION = "illegal_action", 400
    BOT_UNAVAILABLE = "bot_unavailable", 409
    NOT_QUEUED = "not_queued", 409
    # A replay that cannot be shown (games.frames.ReplayError's codes).
    BAD_REPLAY = "bad_replay", 409
    ENGINE_VERSION = "engine_version", 409


class _OfAGame(Protocol):
    """A bot, as an error shows it: its name and its game."""

    game: str


class _Fields:
    """The names a template may use: the error's fields and properties."""

    def __init__(self, error: ServiceError) -> None:
        self.error = error

    def __getitem__(self, name: str) -> object:
        return getattr(self.error, name)


@dataclass_transform(kw_only_default=True, eq_default=False)
class ServiceError(Exception):
    """A request the league refuses. Every subclass is a dataclass (keyword-only fields) and fixes ``code`` and
    ``template``; the status is the code's."""

    code: ClassVar[ErrorCode]
    template: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(kw_only=True, eq=False)(cls)

    def __post_init__(self) -> None:
        super().__init__(self.message)  # str(error) and tracebacks say the message

    @property
    def message(self) -> str:
        return self.template.format_map(_Fields(self))

    @property
    def status(self) -> int:
        return self.code.status

    def body(self) -> dict[str, Any]:
        """The API's error shape (docs/api.md, "Errors")."""
        return {"error": {"code": self.code.value, "message": self.message}}

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (a Celery worker's pool, a cache) by its fields: Exception's own reduce passes the message back
        # positionally, which a keyword-only error refuses.
        return _rebuild, (type(self), {field.name: getattr(self, field.name) for field in dataclasses.fields(self)})


def _rebuild(cls: type[ServiceError], fields: dict[str, Any]) -> ServiceError:
    return cls(**fields)


def catalog() -> list[type[ServiceError]]:
    """Every error a raise site can name: each subclass with a template, in the order written here."""
    found: list[type[ServiceError]] = []
    pending = list(ServiceError.__subclasses__())
    while pending:
        cls = pending.pop(0)
        if "template" in vars(cls):
            found.append(cls)
        pending[:0] = cls.__subclasses__()
    return found


# ----- the request itself --------------------------------------------------------------------------------------


class LengthRequired(ServiceError):
    code = ErrorCode.LENGTH_REQUIRED
    template = "send the request body with a Content-Length header"


class BadContentLength(ServiceError):
    code = ErrorCode.INVALID
    template = "the Content-Length header is not a number"


class AnonymousBodyTooLarge(ServiceError):
    code = ErrorCode.TOO_LARGE
    template = "the request body is {length:,} bytes; without signing in or an API token the limit is {limit:,} bytes"
    length: int
    limit: int


class BodyTooLarge(ServiceError):
    code = ErrorCode.TOO_LARGE
    template = (
        "the request body is {length:,} bytes; the limit is {limit:,} bytes "
        "(a bot upload of at most {upload_limit:,} bytes and its form)"
    )
    length: int
    limit: int
    upload_limit: ClassVar[int] = MAX_UPLOAD_BYTES


class UploadTooLarge(ServiceError):
    code = ErrorCode.TOO_LARGE
    template = "the upload is {size:,} bytes; the limit is {limit:,} bytes"
    size: int
    limit: ClassVar[int] = MAX_UPLOAD_BYTES


class NoApiEndpoint(ServiceError):
    code = ErrorCode.NOT_FOUND
    template = "no API endpoint at {path}{hint}"
    path: str

    @property
    def hint(self) -> str:
        return "" if self.path.endswith("/") else " (API paths end with a slash)"


class SessionRequired(ServiceError):
    code = ErrorCode.SESSION_REQUIRED
    template = "tokens are created by a signed-in session (the site's API tokens page), not with a token"


class StreamsFromAddressFull(ServiceError):
    code = ErrorCode.THROTTLED
    template = "too many live streams open from your address: the page asks again in a while"


class StreamsFull(ServiceError):
    code = ErrorCode.SERVER_BUSY
    template = "too many live streams open: the page asks again in a while"


class BadSeat(ServiceError):
    code = ErrorCode.INVALID
    template = "seat must be a seat number (0, 1, ...) or left out for the spectator's view, not {raw!r}"
    raw: str


class SeatNotAtTable(ServiceError):
    code = ErrorCode.INVALID
    template = "{reason}"
    reason: str


# ----- things a request names that are not there ---------------------------------------------------------------
# Named in the URL's path: 404 ``not_found``. Named in the request's body: 400, the thing's own ``unknown_*`` code.


class NoSuchMatch(ServiceError):
    code = ErrorCode.NOT_FOUND
    template = "no match {match_id}"
    match_id: int


class NoSuchTable(ServiceError):
    code = ErrorCode.NOT_FOUND
    template = "no table {table_id!s:.30}"
    table_id: object


class NoFinishedTable(ServiceError):
    code = ErrorCode.NOT_FOUND
    template = "no finished table here"


class NoSuchTournament(ServiceError):
    code = ErrorCode.NOT_FOUND
    template = "no such tournament"


class NotEntered(ServiceError):
    code = ErrorCode.NOT_FOUND
    template = "that bot is not entered"


class NoSuchToken(ServiceError):
    code = ErrorCode.NOT_FOUND
    template = "no such token"


class UnknownGame(ServiceError):
    code = ErrorCode.UNKNOWN_GAME
    template = "{registry_says}"
    game: object

    @property
    def registry_says(self) -> str:
        # The registry words it (the command line says the same); a long id is the client's input: cut.
        return str(registry.UnknownGame(str(self.game)[:40]))


class UnknownBot(ServiceError):
    code = ErrorCode.UNKNOWN_BOT
    template = "no bot {bot_id}"
    bot_id: object


class UnknownBots(ServiceError):
    code = ErrorCode.UNKNOWN_BOT
    template = "no such bot: {listed}"
    bot_ids: Sequence[int]

    @property
    def listed(self) -> str:
        return ", ".join(map(str, self.bot_ids))


class UnknownVersion(ServiceError):
    code = ErrorCode.UNKNOWN_VERSION
    template = "{bot} has no version with id {version_id}"
    bot: object
    version_id: int


# ----- who may do what -----------------------------------------------------------------------------------------


class SignInToPlay(ServiceError):
    code = ErrorCode.NOT_AUTHENTICATED
    template = "sign in to play"


class NotOwner(ServiceError):
    code = ErrorCode.FORBIDDEN
    template = "only the bot's owner can do that"


class NotYourBot(ServiceError):
    code = ErrorCode.FORBIDDEN
    template = "you can only challenge with your own bots"


class NotYourTableToCancel(ServiceError):
    code = ErrorCode.FORBIDDEN
    template = "only the person at this table can cancel it"


class NotYourTableToPlay(ServiceError):
    code = ErrorCode.FORBIDDEN
    template = "only the person at this table plays at it"


class GuestsOnlyPlay(ServiceError):
    code = ErrorCode.FORBIDDEN
    template = "guests may only play at tables: sign up (/account/signup/) to upload bots or create API tokens"


class EmailUnverified(ServiceError):
    code = ErrorCode.EMAIL_UNVERIFIED
    template = (
        "verify your e-mail address before uploading a bot: follow the link we mailed you, "
        "or ask for a new one on /account/verify-email/"
    )


class VerificationExpired(ServiceError):
    code = ErrorCode.INVALID
    template = "this verification link has expired: ask for a new one"


class VerificationInvalid(ServiceError):
    code = ErrorCode.INVALID
    template = "this verification link is not valid"


class VerificationForOldAddress(ServiceError):
    code = ErrorCode.INVALID
    template = "this verification link is for an address the account no longer has"


class TokenNameMissing(ServiceError):
    code = ErrorCode.INVALID
    template = "give the token a name"


# ----- fair use ------------------------------------------------------------------------------------------------


class TooManyBots(ServiceError):
    code = ErrorCode.TOO_MANY_BOTS
    template = "you have {bots} bots; the limit is {limit} per user. Upload a new version of one of them instead."
    bots: int
    limit: int


class TooManyGamesPerHour(ServiceError):
    code = ErrorCode.TOO_MANY_GAMES
    template = "at most {limit} challenge games per hour"
    limit: int


class RateLimited(ServiceError):
    """Too much of something in the last hour (429); ``retry_at`` is when this request would be accepted."""

    code = ErrorCode.RATE_LIMITED
    retry_at: datetime

    @property
    def retry_after(self) -> int:
        """Whole seconds until ``retry_at`` (at least 1): the Retry-After header."""
        return max(1, math.ceil((self.retry_at - timezone.now()).total_seconds()))

    @property
    def wait(self) -> str:
        return wait_text(self.retry_at)

    def body(self) -> dict[str, Any]:
        body = super().body()
        body["error"] |= {"retry_after_seconds": self.retry_after, "retry_at": self.retry_at.isoformat()}
        return body


class UploadsRateLimited(RateLimited):
    template = "{count} {what} in the last hour; the limit is {limit} an hour. The next upload is accepted {wait}."
    count: int
    what: str
    limit: int


class ChallengeGamesRateLimited(RateLimited):
    template = (
        "you asked for {asked} challenge games in the last hour; the limit is {limit} an hour. "
        "{games} more can start {wait}."
    )
    asked: int
    limit: int
    games: int


class WorkerTimeRateLimited(RateLimited):
    template = (
        "your bots' placement and challenges used the workers for {seconds} s in the last hour, the limit per "
        "owner; {what} can start {wait}."
    )
    seconds: int
    what: str


# ----- bots and their versions ---------------------------------------------------------------------------------


class BadUpload(ServiceError):
    code = ErrorCode.BAD_UPLOAD
    template = "{reason}"
    reason: str


class DuplicateBotName(ServiceError):
    code = ErrorCode.DUPLICATE
    template = "you already have a {game} bot called {name!r}"
    game: str
    name: str


class BotOfAnotherGame(ServiceError):
    code = ErrorCode.WRONG_GAME
    template = "{bot} plays {plays}, not {wanted}"
    bot: object
    plays: str
    wanted: str


class BotValidating(ServiceError):
    code = ErrorCode.NOT_READY
    template = (
        "{bot} cannot play yet: its code is still being validated (a smoke match in the sandbox). Try again soon."
    )
    bot: object


class BotRejected(ServiceError):
    code = ErrorCode.NOT_READY
    template = "{bot} cannot play: v{number} was rejected ({reason}). A new version that passes can play."
    bot: object
    number: int
    reason: str


class NoReadyVersion(ServiceError):
    code = ErrorCode.NOT_READY
    template = "{bot} has no ready version to play"
    bot: object


class BuiltinUnavailable(ServiceError):
    code = ErrorCode.NOT_READY
    template = "the built-in {name} bot of {game} is not available"
    name: str
    game: str


class VersionRejected(ServiceError):
    code = ErrorCode.REJECTED_VERSION
    template = "{version} was rejected by validation and cannot play"
    version: object


class BotVersionRejected(ServiceError):
    code = ErrorCode.REJECTED_VERSION
    template = "{bot}'s version was rejected by validation: it cannot play"
    bot: object


class VersionUnvalidated(ServiceError):
    code = ErrorCode.UNVALIDATED_VERSION
    template = "{version} has not passed validation yet"
    version: object


class NoPreviousVersion(ServiceError):
    code = ErrorCode.NO_PREVIOUS_VERSION
    template = "{bot} has no earlier validated version to test v{number} against: upload a new version first"
    bot: object
    number: int


# ----- challenges ----------------------------------------------------------------------------------------------


class NoOpponents(ServiceError):
    code = ErrorCode.INVALID
    template = "choose at least one opponent"


class OpponentsNotIds(ServiceError):
    code = ErrorCode.INVALID
    template = "opponents must be bot ids (whole numbers)"


class FieldNotIds(ServiceError):
    code = ErrorCode.INVALID
    template = "field must be a list of bot ids"


class SelfChallenge(ServiceError):
    code = ErrorCode.INVALID
    template = "a bot cannot challenge itself; a version test compares its versions"


class OpponentCount(ServiceError):
    code = ErrorCode.INVALID
    template = (
        "{title} is played by {min_players} to {max_players} players: choose {fewest} to {most} opponents "
        "(you chose {chosen})"
    )
    title: str
    min_players: int
    max_players: int
    chosen: int

    @property
    def fewest(self) -> int:
        return self.min_players - 1

    @property
    def most(self) -> int:
        return self.max_players - 1


class GamesNotCount(ServiceError):
    code = ErrorCode.INVALID
    template = "games must be a whole number of at least 1"


class TooManyGamesPerChallenge(ServiceError):
    code = ErrorCode.INVALID
    template = "at most {limit} games per challenge"
    limit: int


# ----- tournaments ---------------------------------------------------------------------------------------------


class TournamentNameMissing(ServiceError):
    code = ErrorCode.INVALID
    template = "give the tournament a name"


class InvalidSettings(ServiceError):
    code = ErrorCode.INVALID_SETTINGS
    template = "{reason}"
    reason: str


class InvalidOptions(ServiceError):
    code = ErrorCode.INVALID_SETTINGS
    template = "options: {reason}"
    reason: str


class EnteredTwice(ServiceError):
    code = ErrorCode.DUPLICATE_ENTRY
    template = "a bot can enter a tournament only once"


class AlreadyEntered(ServiceError):
    code = ErrorCode.DUPLICATE_ENTRY
    template = "{bot} is already entered"
    bot: object


class EntrantsOfAnotherGame(ServiceError):
    code = ErrorCode.WRONG_GAME
    template = "these bots play another game than {game}: {listed}"
    game: str
    bots: Sequence[_OfAGame]

    @property
    def listed(self) -> str:
        return ", ".join(f"{bot} ({bot.game})" for bot in self.bots)


class SameOwner(ServiceError):
    code = ErrorCode.SAME_OWNER
    template = (
        "a rated tournament takes one bot per owner: {names} have the same owner. Enter one of them, make "
        "the tournament unrated, or let staff allow it (“one owner's bots may meet”)"
    )
    names: str


class TooFewEntrants(ServiceError):
    code = ErrorCode.TOO_FEW_ENTRANTS
    template = "a {format_name} at tables of {table_size} needs at least {needed} entrants; this one has {entrants}"
    format_name: str
    table_size: int
    needed: int
    entrants: int


class UnplayableEntrants(ServiceError):
    code = ErrorCode.REJECTED_VERSION
    template = "{joined}"
    problems: Sequence[str]

    @property
    def joined(self) -> str:
        return "; ".join(self.problems)


class NotDraft(ServiceError):
    code = ErrorCode.NOT_DRAFT
    template = "the tournament is {state}: only a draft can be changed"
    state: str


class AlreadyStarted(ServiceError):
    code = ErrorCode.ALREADY_STARTED
    template = "the tournament is already {state}: only a draft can start"
    state: str


class TournamentNotRunning(ServiceError):
    code = ErrorCode.NOT_RUNNING
    template = "only a running tournament can be paused; this one is {state}"
    state: str


class AlreadyPaused(ServiceError):
    code = ErrorCode.ALREADY_PAUSED
    template = "the tournament is already paused"


class NotPaused(ServiceError):
    code = ErrorCode.NOT_PAUSED
    template = "only a paused tournament can be resumed"


class AlreadyFinished(ServiceError):
    code = ErrorCode.ALREADY_FINISHED
    template = "the tournament is already {state}: there is nothing left to cancel"
    state: str


# ----- people's tables -----------------------------------------------------------------------------------------


class TableSize(ServiceError):
    code = ErrorCode.INVALID
    template = "{title} is played by {min_players} to {max_players} players"
    title: str
    min_players: int
    max_players: int


class TableBotsNotIds(ServiceError):
    code = ErrorCode.INVALID
    template = "bots must be a list of bot ids (whole numbers)"


class TableBotCount(ServiceError):
    code = ErrorCode.INVALID
    template = "a table of {players} seats takes {wanted} bots besides you, not {given}"
    players: int
    given: int

    @property
    def wanted(self) -> int:
        return self.players - 1


class TableInProgress(ServiceError):
    code = ErrorCode.TABLE_IN_PROGRESS
    template = "you already have a game in progress: finish it first"


class BotUnavailable(ServiceError):
    code = ErrorCode.BOT_UNAVAILABLE
    template = "{bot} cannot be seated: {why}"
    bot: object
    why: str


class TableNotQueued(ServiceError):
    code = ErrorCode.NOT_QUEUED
    template = "only a queued table can be cancelled; this one is {state}"
    state: str


class TableNotRunning(ServiceError):
    code = ErrorCode.NOT_RUNNING
    template = "this game {what}"
    what: str


class Forfeited(ServiceError):
    code = ErrorCode.NOT_RUNNING
    template = "Your clock ran out: you forfeited, and a random player finishes your game."


class ClockRanOut(ServiceError):
    code = ErrorCode.NOT_RUNNING
    template = "your clock ran out"


class StaleMove(ServiceError):
    code = ErrorCode.STALE_MOVE
    template = "the game is at move {at}, not {sent!s:.20}: reload"
    at: int
    sent: object


class MoveAlreadySent(ServiceError):
    code = ErrorCode.STALE_MOVE
    template = "an action for this move was already sent"


class NotYourTurn(ServiceError):
    code = ErrorCode.NOT_YOUR_TURN
    template = "it is not your turn"


class ActionNotObject(ServiceError):
    code = ErrorCode.ILLEGAL_ACTION
    template = "an action must be a JSON object"


class IllegalMove(ServiceError):
    code = ErrorCode.ILLEGAL_ACTION
    template = "{reason:.300}"
    reason: str


class ActionBreaksEngine(ServiceError):
    code = ErrorCode.ILLEGAL_ACTION
    template = "the game cannot apply this action"


# ----- replays -------------------------------------------------------------------------------------------------


class NoReplayYet(ServiceError):
    code = ErrorCode.NOT_READY
    template = "this match has no replay yet"


class ReplayWithheld(ServiceError):
    code = ErrorCode.NOT_READY
    template = "this match's deal is still being played in another seating; its replay follows when it ends"


class BadReplay(ServiceError):
    code = ErrorCode.BAD_REPLAY
    template = "{reason}"
    reason: str


class OtherEngineVersion(ServiceError):
    code = ErrorCode.ENGINE_VERSION
    template = "{reason}"
    reason: str


# ----- remote bots (docs/remote.md) -----------------------------------------------------------------------------


class RemoteTokenMissing(ServiceError):
    code = ErrorCode.NOT_AUTHENTICATED
    template = "a remote bot connects with its token: Authorization: Bearer <token>"


class RemoteTokenInvalid(ServiceError):
    code = ErrorCode.AUTHENTICATION_FAILED
    template = "this remote token is unknown or was revoked"


class NotRemoteBot(ServiceError):
    code = ErrorCode.INVALID
    template = "{bot} is not a remote bot: it plays the code uploaded for it"
    bot: str


class RemoteBotHasNoCode(ServiceError):
    code = ErrorCode.INVALID
    template = "{bot} is a remote bot: it plays from its owner's machine and has no code to upload"
    bot: str


class NoSuchChannel(ServiceError):
    code = ErrorCode.NOT_FOUND
    template = "no game of this bot has the channel {channel!s:.40}"
    channel: object


class BadRemoteReply(ServiceError):
    code = ErrorCode.INVALID
    template = "{reason}"
    reason: str


class RemoteReplyTooLarge(ServiceError):
    code = ErrorCode.TOO_LARGE
    template = "a reply is at most {limit} bytes (one protocol line)"
    limit: int


class StaleReply(ServiceError):
    code = ErrorCode.STALE_MOVE
    template = "message {seq} awaits no reply (too late, answered already, or no request): read the messages again"
    seq: int


class RemoteTooFast(ServiceError):
    code = ErrorCode.THROTTLED
    template = "more than {limit} requests a second from this bot's token"
    limit: int


class RemoteStreamsFull(ServiceError):
    code = ErrorCode.THROTTLED
    template = (
        "this bot has {limit} streams open already (its event stream and a game's messages each count): close one, "
        "or ask again in a while"
    )
    limit: int


class RemoteWrongMethod(ServiceError):
    code = ErrorCode.METHOD_NOT_ALLOWED
    template = "{method} is not allowed here: {allowed} only"
    method: str
    allowed: str


# ----- hourly limits -------------------------------------------------------------------------------------------

HOUR = timedelta(hours=1)


def hourly_retry_at(recent: list[tuple[datetime, int]], wanted: int, limit: int) -> datetime | None:
    """When ``wanted`` more fit under ``limit`` per hour beside ``recent`` — the (time, amount) pairs of the last hour,
    oldest first: None if they fit now, else once enough of the oldest have left the hour."""
    used = sum(amount for _at, amount in recent)
    if used + wanted <= limit:
        return None
    freed = 0
    for at, amount in recent:
        freed += amount
        if used - freed + wanted <= limit:
            return at + HOUR
    return timezone.now() + HOUR


def wait_text(retry_at: datetime) -> str:
    """``retry_at`` for people: "in 12 min 5 s (at 14:03:20 UTC)"."""
    seconds = max(1, math.ceil((retry_at - timezone.now()).total_seconds()))
    minutes, secs = divmod(seconds, 60)
    return f"in {f'{minutes} min {secs} s' if minutes else f'{secs} s'} (at {retry_at:%H:%M:%S} UTC)"
