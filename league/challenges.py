"""Challenges and version tests: unrated games an owner asks for, played by the workers like any match.

A *challenge* seats the owner's bot (its newest ready version) with bots they choose; a *version test* seats the
bot's newest ready version with its previous validated one (and, in games of three or more players, a field of
the league's built-in bots or bots the owner chooses). Either way the games are ``Match`` rows of kind CHALLENGE
created through ``services.do_create_match`` (so ``run_match`` plays them and ratings ignore them), seats rotated
one place per game, consecutive rotations sharing a deal. Results count, for each opponent, the pairwise games
between the owner's seat and that opponent's seat (better rank wins, equal ranks draw) with an Elo-difference
estimate and its 95% interval (``bots.authoring.sprt``). Writes are ``do_*`` functions; views and the API stay thin.

Each user may ask for at most ``CHALLENGE_GAMES_PER_HOUR`` games in any hour: beyond that ``RateLimited`` (429)
says when enough of the hour's earlier games will have aged out.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Prefetch, Q, QuerySet, Sum
from django.utils import timezone

from bots.authoring.sprt import SPRT, Estimate, Tally, elo_estimate
from games.registry import GAMES, builtin_players
from league import services
from league import tournament_formats as tf
from league.models import Bot, BotVersion, Challenge, Match, Seat
from league.services import RateLimited, ServiceError, hourly_retry_at, wait_text

WINDOW = services.HOUR
# The version test's sequential test (fishtest's default bounds): shown with its results, never used to stop early.
VERSION_TEST_SPRT = SPRT(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05)
PLAYED = (BotVersion.Status.READY, BotVersion.Status.RETIRED)  # versions that passed validation


# ----- creating ---------------------------------------------------------------------------------------------------


def _owned_bot(owner: AbstractBaseUser, bot_id: int) -> Bot:
    bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
    if bot is None:
        raise ServiceError(f"no bot {bot_id}", code="not_found", status=404)
    if not owner.is_authenticated or bot.owner_id != owner.pk:
        raise ServiceError("you can only challenge with your own bots", code="forbidden", status=403)
    return bot


def _ready_version(bot: Bot) -> BotVersion:
    version = bot.current_version()
    if version is None:
        raise ServiceError(f"{bot} has no ready version yet (it is validated after each upload)", code="not_ready")
    return version


def _opponent_versions(game: str, bot_ids: list[int], exclude: int | None = None) -> list[BotVersion]:
    """The newest ready version of each bot, in the order given (a bot may be named twice)."""
    if not all(isinstance(bot_id, int) and not isinstance(bot_id, bool) for bot_id in bot_ids):
        raise ServiceError("opponents must be bot ids (whole numbers)")
    bots = {bot.pk: bot for bot in Bot.objects.select_related("owner").filter(pk__in=set(bot_ids))}
    versions = []
    for bot_id in bot_ids:
        bot = bots.get(bot_id)
        if bot is None:
            raise ServiceError(f"no bot {bot_id}", code="not_found", status=404)
        if bot.game != game:
            raise ServiceError(f"{bot} plays {GAMES[bot.game].title}, not {GAMES[game].title}")
        if bot_id == exclude:
            raise ServiceError("a bot cannot challenge itself; a version test compares its versions")
        versions.append(_ready_version(bot))
    return versions


def _check_table(game: str, seats: int) -> None:
    spec = GAMES[game]
    if not spec.min_players <= seats <= spec.max_players:
        raise ServiceError(
            f"{spec.title} is played by {spec.min_players} to {spec.max_players} players: choose "
            f"{spec.min_players - 1} to {spec.max_players - 1} opponents (you chose {seats - 1})"
        )


def _check_games(games: object) -> int:
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise ServiceError("games must be a whole number of at least 1")
    if games > settings.CHALLENGE_MAX_GAMES:
        raise ServiceError(f"at most {settings.CHALLENGE_MAX_GAMES} games per challenge")
    return games


def _check_rate(owner: AbstractBaseUser, games: int) -> None:
    """Refuse (429) when ``games`` more would exceed the owner's games in the last hour; call under the user lock."""
    limit = settings.CHALLENGE_GAMES_PER_HOUR
    if games > limit:
        raise ServiceError(f"at most {limit} challenge games per hour", code="too_many_games")
    recent = list(
        Challenge.objects.filter(owner=owner, created__gt=timezone.now() - WINDOW)
        .order_by("created")
        .values_list("created", "games")
    )
    retry_at = hourly_retry_at(recent, games, limit)
    if retry_at is None:
        return
    raise RateLimited(
        f"you asked for {sum(count for _at, count in recent)} challenge games in the last hour; the limit is {limit} "
        f"an hour. {games} more can start {wait_text(retry_at)}.",
        retry_at,
    )


def _create(
    owner: AbstractBaseUser, kind: str, game: str, version: BotVersion, opponents: list[BotVersion], games: int
) -> Challenge:
    table = [version, *opponents]
    _check_table(game, len(table))
    with transaction.atomic():
        # One user's requests are serialised on their row, so two at once cannot both squeeze under the limit.
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        _check_rate(owner, games)
        challenge = Challenge.objects.create(
            owner=owner,
            kind=kind,
            game=game,
            version=version,
            opponents=[v.pk for v in opponents],
            games=games,
            # A secret (never published) from which each deal's seed is derived one way: a finished game's seed
            # tells nothing of the next deal's (league/disclosure.py).
            seed=secrets.randbits(63),
        )
        size = len(table)
        matches = []
        for number in range(games):
            shift = number % size
            seats = table[shift:] + table[:shift]
            # Rotations of one table share a deal: luck of the cards evens out along with the seats.
            seed = tf.match_seed(challenge.seed, 0, 0, number // size)  # a challenge: one table of one round
            matches.append(services.do_create_match(game, seats, seed=seed, kind=Match.Kind.CHALLENGE))
        challenge.matches.add(*matches)
    return challenge


def do_create_challenge(owner: AbstractBaseUser, bot_id: int, opponent_ids: list[int], games: int) -> Challenge:
    """``games`` unrated games between the owner's bot ``bot_id`` and the bots ``opponent_ids`` (seat order)."""
    bot = _owned_bot(owner, bot_id)
    games = _check_games(games)
    if not isinstance(opponent_ids, list) or not opponent_ids:
        raise ServiceError("choose at least one opponent")
    opponents = _opponent_versions(bot.game, opponent_ids, exclude=bot.pk)
    return _create(owner, Challenge.Kind.CHALLENGE, bot.game, _ready_version(bot), opponents, games)


def previous_version(bot: Bot, version: BotVersion) -> BotVersion | None:
    """The newest version before ``version`` that passed validation: what a version test compares against."""
    return bot.versions.filter(number__lt=version.number, status__in=PLAYED).order_by("-number").first()


def do_create_version_test(
    owner: AbstractBaseUser, bot_id: int, games: int, field_ids: list[int] | None = None
) -> Challenge:
    """The bot's newest ready version against its previous validated one, ``games`` unrated games.

    In a game of three or more players the other seats are ``field_ids`` (bots), by default the game's strongest
    built-in bot."""
    bot = _owned_bot(owner, bot_id)
    games = _check_games(games)
    new = _ready_version(bot)
    old = previous_version(bot, new)
    if old is None:
        raise ServiceError(
            f"{bot} has no earlier validated version to test v{new.number} against: upload a new version first",
            code="no_previous_version",
        )
    needed = max(0, GAMES[bot.game].min_players - 2)
    if field_ids:
        if not isinstance(field_ids, list):
            raise ServiceError("field must be a list of bot ids")
        field_versions = _opponent_versions(bot.game, field_ids, exclude=bot.pk)
    else:
        field_versions = [_builtin_version(bot.game)] * needed
    return _create(owner, Challenge.Kind.VERSION_TEST, bot.game, new, [old, *field_versions], games)


def _builtin_version(game: str) -> BotVersion:
    """The version of the game's strongest built-in bot (registered on first use)."""
    names = sorted(builtin_players(game))
    name = next((n for n in names if n != "random"), "random")
    bots = Bot.objects.filter(game=game, is_builtin=True, name=name, owner__username=services.SYSTEM_USERNAME)
    if not bots.exists():
        services.do_register_builtin_bots([game])
    version = BotVersion.objects.filter(bot__in=bots, status=BotVersion.Status.READY).order_by("-number").first()
    if version is None:
        raise ServiceError(f"the built-in {name} bot of {game} is not available", code="not_ready", status=409)
    return version


# ----- reading ------------------------------------------------------------------------------------------------------


def challenges_for(user: AbstractBaseUser) -> QuerySet[Challenge]:
    return (
        Challenge.objects.filter(owner=user)
        .select_related("version__bot__owner", "owner")
        .annotate(
            finished=Count("matches", filter=Q(matches__status=Match.Status.FINISHED)),
            failed=Count("matches", filter=Q(matches__status=Match.Status.FAILED)),
        )
    )


@dataclass
class OpponentRow:
    """The owner's seat against one opponent version: results from the owner's side."""

    version: BotVersion
    seats: int  # how many of the table's seats it holds
    tally: Tally = field(default_factory=Tally)

    @property
    def estimate(self) -> Estimate | None:
        return elo_estimate(self.tally.wins, self.tally.draws, self.tally.losses)

    @property
    def score_percent(self) -> float | None:
        return None if self.tally.score is None else self.tally.score * 100


@dataclass
class Report:
    challenge: Challenge
    versions: dict[int, BotVersion]
    rows: list[OpponentRow]
    finished: int = 0
    failed: int = 0
    in_flight: int = 0
    faults: int = 0  # the owner's seat faulted
    time_ms: int = 0
    moves: int = 0
    matches: list[Match] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.in_flight == 0

    @property
    def status(self) -> str:
        return "finished" if self.done else "running"

    @property
    def sprt(self) -> dict[str, object] | None:
        """For a version test: the sequential test's state on the games so far (new version against the old)."""
        if self.challenge.kind != Challenge.Kind.VERSION_TEST or not self.rows:
            return None
        tally = self.rows[0].tally
        test = VERSION_TEST_SPRT
        verdict = test.verdict(tally.wins, tally.draws, tally.losses) if tally.games else None
        return {
            "elo0": test.elo0,
            "elo1": test.elo1,
            "alpha": test.alpha,
            "beta": test.beta,
            "llr": round(test.llr(tally.wins, tally.draws, tally.losses), 3),
            "lower": round(test.lower, 3),
            "upper": round(test.upper, 3),
            "verdict": verdict,
            "conclusion": _conclusion(verdict, tally.games),
        }


def _conclusion(verdict: str | None, games: int) -> str:
    test = VERSION_TEST_SPRT
    if verdict == "H1":
        return f"H1 accepted after {games} games: the new version is stronger (by about {test.elo1:g} Elo or more)"
    if verdict == "H0":
        return f"H0 accepted after {games} games: the new version is not stronger than the previous one"
    return (
        f"No verdict after {games} games: the evidence is not yet strong enough either way "
        "(python -m bots compare keeps playing until it is)"
    )


def report(challenge: Challenge) -> Report:
    """The challenge's results so far: one row per distinct opponent version, in table order."""
    ids = [challenge.version_id, *challenge.opponents]
    versions = {v.pk: v for v in BotVersion.objects.select_related("bot__owner").filter(pk__in=set(ids))}
    rows: dict[int, OpponentRow] = {}
    for version_id in challenge.opponents:
        if version_id in rows:
            rows[version_id].seats += 1
        else:
            rows[version_id] = OpponentRow(versions[version_id], 1)
    # Seats without the (possibly long) stderr: the results need ranks and faults only.
    seats = Prefetch("seats", queryset=Seat.objects.defer("stderr").order_by("number"))
    matches = list(challenge.matches.order_by("id").prefetch_related(seats))
    result = Report(challenge, versions, list(rows.values()), matches=matches)
    for match in matches:
        if match.status == Match.Status.FINISHED:
            result.finished += 1
        elif match.status == Match.Status.FAILED:
            result.failed += 1
            continue
        else:
            result.in_flight += 1
            continue
        seats = list(match.seats.all())
        mine = next(seat for seat in seats if seat.bot_version_id == challenge.version_id)
        result.faults += bool(mine.fault)
        result.time_ms += mine.time_ms
        result.moves += mine.moves
        for seat in seats:
            if seat is mine or seat.rank is None or mine.rank is None:
                continue
            rows[seat.bot_version_id].tally.add_ranks(mine.rank, seat.rank)
    return result


def games_in_last_hour(user: AbstractBaseUser) -> int:
    since = timezone.now() - WINDOW
    return Challenge.objects.filter(owner=user, created__gt=since).aggregate(n=Sum("games"))["n"] or 0
