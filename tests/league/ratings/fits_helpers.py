"""A small league with recorded rated results, for the fitted-Elo tests (tests/league/ratings/test_fits.py)."""

from __future__ import annotations

import random

from django.contrib.auth.models import User

from league.bots.models import Bot, BotVersion
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.ratings.models import Rating
from tests.results import runner_result


def league(bots: int, game: str = "love_letter", owner: str = "fits") -> list[Bot]:
    """``bots`` ready bots, each of its own owner (``owner``0, ``owner``1, ...): one owner's bots never meet."""
    made = []
    for n in range(bots):
        user = User.objects.create(username=f"{owner}{n}")
        bot = Bot.objects.create(owner=user, game=game, name=f"bot{n}")
        Rating.objects.create(bot=bot)
        BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
        made.append(bot)
    return made


def record(versions: list[BotVersion], ranks: list[int]) -> Match:
    match = do_create_match(versions[0].bot.game, versions, seed=1, kind=Match.Kind.LADDER)
    do_claim_match(match.pk)
    seats = [{"rank": rank, "score": float(-rank), "fault": None} for rank in ranks]
    assert do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))
    return match


def newest(bot: Bot) -> BotVersion:
    return bot.versions.order_by("-number")[0]


def play_ordered(bots: list[Bot], games: int, seed: int = 1, upset: float = 0.2) -> None:
    """Two-player games between random pairs: the lower index wins, except for an ``upset`` share."""
    rng = random.Random(seed)
    versions = [newest(bot) for bot in bots]
    for _ in range(games):
        a, b = sorted(rng.sample(range(len(bots)), 2))
        first_wins = rng.random() >= upset
        seats = [a, b] if rng.random() < 0.5 else [b, a]
        ranks = [1 if (seat == a) == first_wins else 2 for seat in seats]
        record([versions[seat] for seat in seats], ranks)
