"""When a match's hidden information may be shown: the one rule every surface asks (API, pages, replay, frames).

A match's seed fixes its deal (every seat's hand, the deck's order), and its replay records that deal. So the seed,
the replay, the frames and the move list are *disclosed* only once the match is finished **and** no match dealt the
same seed is still queued or running: duplicate rotations of one deal (tournaments, challenges) share a seed, so
one finished rotation's replay would show the hands of another still being played. Until then they are withheld:
``None`` in JSON, absent from pages, 409 from the replay and frames endpoints.

The parents' seeds that derive match seeds (``Tournament.seed``, ``Challenge.seed``) are never published; they are
63-bit secrets and every game seed is derived from them one way (``tournament_formats.match_seed``), so a disclosed
game seed reveals no other game's deal. docs/security.md, "Hidden information and visibility".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet

from league.play.models import Match


def _in_flight() -> QuerySet[Match]:
    # Few rows, found through the status index: the matches still waiting or being played.
    return Match.objects.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING])


def with_disclosure(matches: QuerySet[Match]) -> QuerySet[Match]:
    """``matches`` annotated with whether their deal is still in play: a list asks once, not once per match."""
    return matches.annotate(deal_in_play=Exists(_in_flight().filter(seed=OuterRef("seed"))))


def mark_disclosure(matches: Iterable[Match]) -> None:
    """The same for matches already loaded (a tournament's rounds): one query for them all."""
    finished = [match for match in matches if match.status == Match.Status.FINISHED]
    seeds = {match.seed for match in finished}
    in_play = set(_in_flight().filter(seed__in=seeds).values_list("seed", flat=True)) if seeds else set()
    for match in finished:
        match.deal_in_play = match.seed in in_play  # type: ignore[attr-defined]  # as with_disclosure annotates it


def is_disclosed(match: Match) -> bool:
    """True once ``match`` is finished and no match with its seed is still to be played. (A seed is 31 random
    bits, or derived from a secret: two unrelated matches sharing one only delay each other's disclosure.)"""
    if match.status != Match.Status.FINISHED:
        return False
    in_play = getattr(match, "deal_in_play", None)
    if in_play is None:  # not loaded through with_disclosure: ask for this one
        in_play = _in_flight().filter(seed=match.seed).exists()
    return not in_play


def public_seed(match: Match) -> int | None:
    """The seed, or None while it would tell anyone the hands of a game being played."""
    return match.seed if is_disclosed(match) else None


def public_replay(match: Match) -> dict[str, Any] | None:
    """The replay (it records the deal and the seed), or None until the match is disclosed."""
    return match.replay if is_disclosed(match) else None
