"""Helpers for the tournament tests: ready bots of a given strength, and playing a tournament out through the
services exactly as a worker would (claim, record, advance), with results decided by strength."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import User
from django.utils import timezone

from league.bots.models import Bot, BotVersion
from league.play.matches import do_claim_match
from league.play.models import Match, Seat
from league.play.recording import do_record_match_result
from league.ratings.models import Rating
from league.tournaments.models import Tournament
from league.tournaments.services import do_advance_tournament
from tests.results import runner_result


def make_bots(owner: User | None, game: str, count: int, prefix: str = "bot") -> list[Bot]:
    """``count`` ready bots (built-in versions, as do_register_builtin_bots makes them), Elo falling with the index,
    so bot 0 is seed 1. ``owner=None``: each bot of its own owner (``<prefix><index>-owner``), as a rated tournament
    takes one bot per owner."""
    bots = []
    for index in range(count):
        mine = owner or User.objects.create_user(f"{prefix}{index}-owner")
        bot = Bot.objects.create(owner=mine, game=game, name=f"{prefix}{index}")
        Rating.objects.create(bot=bot, elo=1800 - 10 * index)
        BotVersion.objects.create(
            bot=bot,
            number=1,
            builtin="random",
            language="builtin",
            status=BotVersion.Status.READY,
            validated=timezone.now(),
        )
        bots.append(bot)
    return bots


def result(ranks: list[int], faults: list[str | None] | None = None) -> dict:
    faults = faults or [None] * len(ranks)
    return {
        "seats": [
            {
                "rank": rank,
                "score": float(-rank),
                "fault": {"cause": fault, "detail": "it broke"} if fault else None,
                "stderr": "",
                "moves": 3,
                "time_ms": 5,
            }
            for rank, fault in zip(ranks, faults, strict=True)
        ],
        "replay": {"format": "parlour-replay/1", "moves": []},
        "wall_ms": 7,
    }


Ranker = Callable[[Match, list[Seat]], tuple[list[int], list[str | None]]]


def by_strength(strength: dict[str, float]) -> Ranker:
    """Ranks by the bots' strength (by name; higher is better, ties share a rank); nobody faults."""

    def rank(match: Match, seats: list[Seat]) -> tuple[list[int], list[str | None]]:
        values = [strength.get(seat.bot_version.bot.name, 0.0) for seat in seats]
        ranks = [1 + sum(1 for other in values if other > value) for value in values]
        return ranks, [None] * len(seats)

    return rank


def play_out(tournament: Tournament, ranker: Ranker, limit: int = 5000) -> Tournament:
    """Play every queued game of the tournament until nothing is left to play, advancing after each game as the
    recorded-result hook would (on_commit tasks do not run inside a test transaction)."""
    for _ in range(limit):
        queued = list(Match.objects.filter(round__tournament=tournament, status=Match.Status.QUEUED).order_by("id"))
        if not queued:
            do_advance_tournament(tournament.pk)
            if not Match.objects.filter(round__tournament=tournament, status=Match.Status.QUEUED).exists():
                break
            continue
        match = queued[0]
        assert do_claim_match(match.pk) is not None
        seats = list(match.seats.select_related("bot_version__bot").order_by("number"))
        ranks, faults = ranker(match, seats)
        assert do_record_match_result(match.pk, runner_result(result(ranks, faults)))
        do_advance_tournament(tournament.pk)
    tournament.refresh_from_db()
    return tournament
