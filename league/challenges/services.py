"""Challenges and version tests: unrated games an owner asks for, played by the workers like any match.

A *challenge* seats the owner's bot (its newest ready version) with bots they choose; a *version test* seats the
bot's newest ready version with its previous validated one (and, in games of three or more players, a field of
the league's built-in bots or bots the owner chooses). Either way the games are ``Match`` rows of kind CHALLENGE
created through ``do_create_match`` or, a rotation's games, ``do_create_series`` (so ``run_match`` plays them and
ratings ignore them), seats rotated one place per game, consecutive rotations sharing a deal. Results count, for
each opponent, the pairwise games between the owner's seat and that opponent's seat (better rank wins, equal ranks
draw) with an Elo-difference estimate and its 95% interval (``bots.authoring.sprt``). Writes are ``do_*``
functions; views and the API stay thin.

Each user may ask for at most ``CHALLENGE_GAMES_PER_HOUR`` games in any hour, and none while their worker time of
the hour is spent (``worker_budget``): beyond that ``RateLimited`` (429) says when enough of the hour's earlier games
will have aged out.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction
from django.utils import timezone

from games.registry import GAMES, builtin_players
from league.bots import presence
from league.bots.models import Bot, BotVersion
from league.bots.services import SYSTEM_USERNAME, do_register_builtin_bots
from league.challenges.models import Challenge
from league.challenges.queries import previous_version
from league.core.errors import (
    HOUR,
    BotOfAnotherGame,
    BotRejected,
    BotUnavailable,
    BotValidating,
    BuiltinUnavailable,
    ChallengeGamesRateLimited,
    FieldNotIds,
    GamesNotCount,
    NoOpponents,
    NoPreviousVersion,
    NotYourBot,
    OpponentCount,
    OpponentsNotIds,
    SelfChallenge,
    ServiceError,
    TooManyGamesPerChallenge,
    TooManyGamesPerHour,
    UnknownBot,
    hourly_retry_at,
)
from league.play import worker_budget
from league.play.matches import do_create_match
from league.play.models import Match
from league.play.series import do_create_series
from league.tournaments import formats as tf

# ----- creating ---------------------------------------------------------------------------------------------------


def _owned_bot(owner: AbstractBaseUser, bot_id: int) -> Bot:
    bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
    if bot is None:
        raise UnknownBot(bot_id=bot_id)
    if not owner.is_authenticated or bot.owner_id != owner.pk:
        raise NotYourBot()
    return bot


def _ready_version(bot: Bot) -> BotVersion:
    version = bot.current_version()
    if version is None:
        raise _not_ready(bot)
    if not presence.is_online(bot):
        raise BotUnavailable(bot=bot, why="it is a remote bot and is not connected now")
    return version


def _not_ready(bot: Bot) -> ServiceError:
    """Why ``bot`` cannot play: its newest upload is being validated, or was rejected (and why)."""
    newest = bot.versions.defer("archive").order_by("-number").first()
    if newest is None or newest.status == BotVersion.Status.PENDING:
        return BotValidating(bot=bot)
    return BotRejected(bot=bot, number=newest.number, reason=newest.validation_log or "the validation gave no reason")


def _opponent_versions(game: str, bot_ids: list[int], exclude: int | None = None) -> list[BotVersion]:
    """The newest ready version of each bot, in the order given (a bot may be named twice)."""
    if not all(isinstance(bot_id, int) and not isinstance(bot_id, bool) for bot_id in bot_ids):
        raise OpponentsNotIds()
    bots = {bot.pk: bot for bot in Bot.objects.select_related("owner").filter(pk__in=set(bot_ids))}
    versions = []
    for bot_id in bot_ids:
        bot = bots.get(bot_id)
        if bot is None:
            raise UnknownBot(bot_id=bot_id)
        if bot.game != game:
            raise BotOfAnotherGame(bot=bot, plays=GAMES[bot.game].title, wanted=GAMES[game].title)
        if bot_id == exclude:
            raise SelfChallenge()
        versions.append(_ready_version(bot))
    return versions


def _check_table(game: str, seats: int) -> None:
    spec = GAMES[game]
    if not spec.min_players <= seats <= spec.max_players:
        raise OpponentCount(
            title=spec.title, min_players=spec.min_players, max_players=spec.max_players, chosen=seats - 1
        )


def _check_games(games: object) -> int:
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise GamesNotCount()
    if games > settings.CHALLENGE_MAX_GAMES:
        raise TooManyGamesPerChallenge(limit=settings.CHALLENGE_MAX_GAMES)
    return games


def _check_rate(owner: AbstractBaseUser, games: int) -> None:
    """Refuse (429) when ``games`` more would exceed the owner's games in the last hour; call under the user lock."""
    limit = settings.CHALLENGE_GAMES_PER_HOUR
    if games > limit:
        raise TooManyGamesPerHour(limit=limit)
    recent = list(
        Challenge.objects.filter(owner_id=owner.pk, created__gt=timezone.now() - HOUR)
        .order_by("created")
        .values_list("created", "games")
    )
    retry_at = hourly_retry_at(recent, games, limit)
    if retry_at is None:
        return
    raise ChallengeGamesRateLimited(
        asked=sum(count for _at, count in recent), limit=limit, games=games, retry_at=retry_at
    )


def _create(
    owner: User, kind: str, game: str, version: BotVersion, opponents: list[BotVersion], games: int
) -> Challenge:
    table = [version, *opponents]
    _check_table(game, len(table))
    with transaction.atomic():
        # One user's requests are serialised on their row, so two at once cannot both squeeze under the limit.
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        _check_rate(owner, games)
        worker_budget.check_budget(owner, "more challenge games")
        challenge = Challenge.objects.create(
            owner=owner,
            kind=kind,
            game=game,
            version=version,
            opponents=[v.pk for v in opponents],
            games=games,
            # A secret (never published) from which each deal's seed is derived one way: a finished game's seed
            # tells nothing of the next deal's (league/play/disclosure.py).
            seed=secrets.randbits(63),
        )
        size = len(table)
        # Rotations of one table share a deal: luck of the cards evens out along with the seats. The games of one
        # rotation (distinct deals) are played in series of SERIES_GAMES by the same processes; a deal's other
        # rotations are in other series, so no process sees a deal twice.
        by_shift: dict[int, list[int]] = {}
        for number in range(games):
            by_shift.setdefault(number % size, []).append(number)
        matches = []
        for shift, numbers in by_shift.items():
            seats = table[shift:] + table[:shift]
            seeds = [tf.match_seed(challenge.seed, 0, 0, number // size) for number in numbers]
            for start in range(0, len(seeds), settings.SERIES_GAMES):
                chunk = seeds[start : start + settings.SERIES_GAMES]
                if len(chunk) == 1:
                    matches.append(do_create_match(game, seats, seed=chunk[0], kind=Match.Kind.CHALLENGE))
                else:
                    series = do_create_series(game, seats, chunk, kind=Match.Kind.CHALLENGE)
                    matches += list(series.matches.order_by("pk"))
        challenge.matches.add(*matches)
    return challenge


def do_create_challenge(owner: User, bot_id: int, opponent_ids: list[int], games: int) -> Challenge:
    """``games`` unrated games between the owner's bot ``bot_id`` and the bots ``opponent_ids`` (seat order)."""
    bot = _owned_bot(owner, bot_id)
    games = _check_games(games)
    if not isinstance(opponent_ids, list) or not opponent_ids:
        raise NoOpponents()
    opponents = _opponent_versions(bot.game, opponent_ids, exclude=bot.pk)
    return _create(owner, Challenge.Kind.CHALLENGE, bot.game, _ready_version(bot), opponents, games)


def do_create_version_test(owner: User, bot_id: int, games: int, field_ids: list[int] | None = None) -> Challenge:
    """The bot's newest ready version against its previous validated one, ``games`` unrated games.

    In a game of three or more players the other seats are ``field_ids`` (bots), by default the game's strongest
    built-in bot."""
    bot = _owned_bot(owner, bot_id)
    games = _check_games(games)
    new = _ready_version(bot)
    old = previous_version(bot, new)
    if old is None:
        raise NoPreviousVersion(bot=bot, number=new.number)
    needed = max(0, GAMES[bot.game].min_players - 2)
    if field_ids:
        if not isinstance(field_ids, list):
            raise FieldNotIds()
        field_versions = _opponent_versions(bot.game, field_ids, exclude=bot.pk)
    else:
        field_versions = [_builtin_version(bot.game)] * needed
    return _create(owner, Challenge.Kind.VERSION_TEST, bot.game, new, [old, *field_versions], games)


def _builtin_version(game: str) -> BotVersion:
    """The version of the game's strongest built-in bot (registered on first use)."""
    names = sorted(builtin_players(game))
    name = next((n for n in names if n != "random"), "random")
    bots = Bot.objects.filter(game=game, is_builtin=True, name=name, owner__username=SYSTEM_USERNAME)
    if not bots.exists():
        do_register_builtin_bots([game])
    version = BotVersion.objects.filter(bot__in=bots, status=BotVersion.Status.READY).order_by("-number").first()
    if version is None:
        raise BuiltinUnavailable(name=name, game=game)
    return version
