"""The league's records, one module per feature (league/<feature>/models.py); Django loads them from here.

One Django app, one set of migrations: every model's app label is ``league`` wherever its module lives. Import a
model from its feature's module, not from here."""

from __future__ import annotations

from league.accounts.models import ApiToken
from league.bots.models import Bot, BotVersion
from league.challenges.models import Challenge
from league.core.game_choices import game_choices  # (the migrations name it here)
from league.live.models import LiveMatch
from league.play.models import Match, MatchSeries, Seat
from league.ratings.models import (
    FitSnapshot,
    FitStatistics,
    FittedRating,
    RatedSequence,
    Rating,
    RatingChange,
    RatingFit,
)
from league.remote.models import RemoteToken
from league.tables.models import Table
from league.tournaments.models import Entry, Round, Tournament

__all__ = [
    "ApiToken",
    "Bot",
    "BotVersion",
    "Challenge",
    "Entry",
    "FitSnapshot",
    "FitStatistics",
    "FittedRating",
    "LiveMatch",
    "Match",
    "MatchSeries",
    "RatedSequence",
    "Rating",
    "RatingChange",
    "RatingFit",
    "RemoteToken",
    "Round",
    "Seat",
    "Table",
    "Tournament",
    "game_choices",
]
