"""Which finished matches are rated: the record path asks ``changes_ratings``, the fits and ``recompute_ratings``
read the matches ``rated_matches`` selects."""

from __future__ import annotations

from django.db.models import Q

from league.play.models import Match


# Which finished matches change ratings. The record path asks ``changes_ratings``; ``recompute_ratings`` replays
# the matches ``rated_matches`` selects. The two must always agree: extend both together (e.g. rated tournaments).
def changes_ratings(match: Match) -> bool:
    if match.kind == Match.Kind.TOURNAMENT:  # a tournament's ``rated`` setting decides (docs/tournaments.md)
        return match.round is not None and match.round.tournament.rated
    return match.kind in RATED_KINDS


# Placement games are rated like the ladder's (league/ladder/placement.py).
RATED_KINDS = (Match.Kind.LADDER, Match.Kind.PLACEMENT)


def rated_matches() -> Q:
    return Q(kind__in=RATED_KINDS) | Q(kind=Match.Kind.TOURNAMENT, round__tournament__rated=True)
