"""Collusion is detectable (league/ratings/collusion.py, docs/security.md, Collusion): in a league where one bot throws
its games to another owner's bot, that pair tops the admin's list of improbable pairs, and honest pairs are not
flagged."""

from __future__ import annotations

import random
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from league.bots.models import Bot
from league.ratings import collusion, fits
from tests.league.ratings.fits_helpers import league, newest, record

GAME = "love_letter"
URL = "/admin/league/match/collusion/"
# True strengths (Elo) of the six bots, each of its own owner; bots 0 and 5 collude: the best throws to the worst.
STRENGTH = [1700, 1620, 1560, 1500, 1440, 1380]


@pytest.fixture
def rigged(db) -> list[Bot]:
    bots = league(len(STRENGTH))
    versions = [newest(bot) for bot in bots]
    rng = random.Random(29)
    for a in range(len(bots)):
        for b in range(a + 1, len(bots)):
            if (a, b) == (0, 5):
                continue
            for _ in range(12):  # honest: the stronger wins as often as the strengths say
                a_wins = rng.random() < collusion.win_probability(STRENGTH[a], STRENGTH[b])
                record([versions[a], versions[b]], [1, 2] if a_wins else [2, 1])
    for game in range(30):  # rigged: the best bot loses every game to the worst
        seats = [versions[0], versions[5]] if game % 2 else [versions[5], versions[0]]
        record(seats, [2, 1] if game % 2 else [1, 2])
    fits.refit_game(GAME)
    return bots


def test_a_pair_that_throws_games_tops_the_list_and_honest_pairs_are_not_flagged(rigged: list[Bot]) -> None:
    screening = collusion.improbable_pairs([GAME])
    assert screening.tested == 15
    top, *rest = screening.pairs
    assert (top.first, top.second) == (rigged[0].pk, rigged[5].pk)
    # The fit counts the thrown games too (it moves the two towards each other), and still expects about half.
    assert top.games == 30 and top.points == 0.0 and top.expected > 10
    assert top.improbable and top.adjusted < 1e-6
    assert len(top.match_ids) == 30
    assert rest and not [pair for pair in rest if pair.improbable], [(p.first, p.second, p.adjusted) for p in rest]


def test_pairs_with_too_few_games_are_not_tested(rigged: list[Bot]) -> None:
    assert collusion.improbable_pairs([GAME], min_games=13).tested == 1  # only the rigged pair met 30 times
    assert collusion.improbable_pairs([GAME], recent=20).tested == 1  # the newest 20 matches: the rigged ones


def test_staff_see_the_improbable_pairs_and_others_are_refused(rigged: list[Bot], alice: User) -> None:
    staff = User.objects.create_user("staff", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)
    page = client.get(URL, {"game": GAME})
    assert page.status_code == 200
    text = page.content.decode()
    assert str(rigged[0]) in text and str(rigged[5]) in text and "<strong>yes</strong>" in text
    link = re.search(r'href="(/admin/league/match/\?id__in=[0-9,]+)"', text)
    assert link is not None  # the row links to the pair's matches, which the admin lists
    matches = client.get(link.group(1))
    assert matches.status_code == 200 and matches.context["cl"].result_count == 30
    assert client.get(URL, {"game": "<script>"}).status_code == 200  # an unknown game: every game
    assert URL in client.get("/admin/league/match/").content.decode()  # linked from the matches' list

    client.force_login(alice)  # signed in, not staff
    refused = client.get(URL)
    assert refused.status_code == 302 and refused["Location"].startswith("/admin/login/")
    assert Client().get(URL).status_code == 302  # signed out
    clerk = User.objects.create_user("clerk", is_staff=True)  # staff without the right to view matches
    client.force_login(clerk)
    assert client.get(URL).status_code == 403
