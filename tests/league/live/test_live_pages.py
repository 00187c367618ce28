"""Live regions (league/site/parts.py): each page's changing part is served alone for htmx, answers 204 while unchanged,
stops asking once settled, and is in the page as served (no JavaScript needed)."""

from __future__ import annotations

import html
import re

from django.contrib.auth.models import User
from django.test import Client

from league.bots.models import Bot, BotVersion
from league.challenges.services import do_create_challenge
from league.play.matches import do_create_match
from league.play.models import Match
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.league.challenges.test_challenges import _play, _ready_bot
from tests.league.tournaments.tournament_helpers import by_strength, make_bots, play_out


def _poll(page: str, element_id: str) -> str | None:
    """The URL the region ``element_id`` asks for again, or None once it is settled."""
    tag = re.search(rf'<div id="{element_id}" class="live"[^>]*>', page)
    assert tag, f"no live region {element_id}"
    found = re.search(r'hx-get="([^"]+)"', tag.group(0))
    return html.unescape(found.group(1)) if found else None


def test_a_running_tournaments_standings_update_and_answer_204_while_unchanged(client: Client, db) -> None:
    staff = User.objects.create_user("staff", is_staff=True)
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots)
    do_start_tournament(tournament)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    poll = _poll(page, "tournament-live")
    assert poll and poll.startswith(f"/tournaments/{tournament.pk}/standings/?seen=")
    assert 'hx-trigger="every 5s"' in page and "reload for the latest" not in page
    assert client.get(poll).status_code == 204  # nothing changed since the page was served
    first = Match.objects.filter(round__tournament=tournament).order_by("id").first()
    assert first is not None
    _play(first, {seat.bot_version_id: seat.number + 1 for seat in first.seats.all()})
    changed = client.get(poll)
    assert changed.status_code == 200 and re.search(r"\b1 of \d+ games played", changed.content.decode())
    assert "no-store" in changed["Cache-Control"]
    play_out(tournament, by_strength({}))
    finished = client.get(poll).content.decode()
    assert "Final standings" in finished and _poll(finished, "tournament-live") is None  # settled: polling stops


def test_a_drafts_live_part_is_staffs_alone_and_settled(client: Client, db) -> None:
    staff = User.objects.create_user("staff", is_staff=True)
    draft = do_create_tournament(staff, "love_letter", "Cup", "swiss", {}, make_bots(staff, "love_letter", 4))
    assert client.get(f"/tournaments/{draft.pk}/standings/").status_code == 404  # drafts are staff's (visibility)
    client.force_login(staff)
    page = client.get(f"/tournaments/{draft.pk}/standings/").content.decode()
    assert "Entrants" in page and _poll(page, "tournament-live") is None  # only a running tournament asks again


def test_a_drawn_round_without_games_says_so_not_0_of_0(client: Client, db) -> None:
    staff = User.objects.create_user("staff", is_staff=True)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "swiss", {}, make_bots(staff, "love_letter", 4))
    do_start_tournament(tournament)
    Match.objects.filter(round__tournament=tournament).delete()  # drawn, its games not created yet
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "0 of 0" not in page and "games not started yet" in page


def test_a_challenge_page_updates_until_its_games_are_played(client: Client, alice, bob) -> None:
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    challenge = do_create_challenge(alice, hero.pk, [villain.pk], 2)
    page = client.get(f"/challenges/{challenge.pk}/").content.decode()
    poll = _poll(page, "challenge-live")
    assert poll and poll.startswith(f"/challenges/{challenge.pk}/results/?seen=") and "reload.js" not in page
    assert client.get(poll).status_code == 204
    for match in Match.objects.filter(kind=Match.Kind.CHALLENGE).order_by("id"):
        _play(match, {seat.bot_version_id: seat.number + 1 for seat in match.seats.all()})
    done = client.get(poll)
    assert done.status_code == 200 and "2 of 2 games played" in done.content.decode()
    assert _poll(done.content.decode(), "challenge-live") is None
    assert client.get(f"/challenges/{challenge.pk + 1000}/results/").status_code == 404


def test_a_bots_recent_matches_update_say_their_kind_and_settle_off_the_ladder(client: Client, alice, bob) -> None:
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    page = client.get(f"/bots/{hero.pk}/").content.decode()
    poll = _poll(page, "bot-activity")
    assert poll and poll.startswith(f"/bots/{hero.pk}/activity/?seen=") and 'hx-trigger="every 10s"' in page
    assert client.get(poll).status_code == 204
    versions = [BotVersion.objects.get(bot=hero), BotVersion.objects.get(bot=villain)]
    do_create_match("love_letter", versions)
    fresh = client.get(poll).content.decode()
    assert '<small class="kind muted">ladder</small>' in fresh and "queued" in fresh
    do_create_challenge(alice, hero.pk, [villain.pk], 2)
    assert '<small class="kind muted">challenge</small>' in client.get(f"/bots/{hero.pk}/activity/").content.decode()
    Match.objects.exclude(status__in=Match.Status.finalized()).update(status=Match.Status.FAILED)
    Bot.objects.filter(pk=hero.pk).update(is_active=False)
    assert _poll(client.get(f"/bots/{hero.pk}/activity/").content.decode(), "bot-activity") is None


def test_the_board_keeps_its_sort_and_answers_204_until_a_rating_changes(client: Client, alice, bob) -> None:
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    page = client.get("/games/love_letter/?sort=games&order=reverse&page=1").content.decode()
    poll = _poll(page, "board")
    assert poll and poll.startswith("/games/love_letter/board/?sort=games&order=reverse&page=1&seen=")
    assert client.get(poll).status_code == 204
    match = do_create_match("love_letter", [BotVersion.objects.get(bot=hero), BotVersion.objects.get(bot=villain)])
    _play(match, {seat.bot_version_id: seat.number + 1 for seat in match.seats.all()})
    changed = client.get(poll)
    assert changed.status_code == 200 and "alice/hero" in changed.content.decode()
    assert _poll(changed.content.decode(), "board")  # a ladder never settles
    assert client.get("/games/no_such_game/board/").status_code == 404
    assert client.get("/games/love_letter/board/?seen=" + "f" * 5000).status_code == 200  # any length, no match
    assert client.get(poll + "0").status_code == 200  # the digest exactly, not a prefix of it


def test_the_bot_page_says_which_counts_are_rated(client: Client, alice, bob) -> None:
    """Issue #19, finding 6: "4 games" beside "Games 8" said nothing of which games count for Elo."""
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    versions = [BotVersion.objects.get(bot=hero), BotVersion.objects.get(bot=villain)]
    ladder = do_create_match("love_letter", versions)
    _play(ladder, {versions[0].pk: 1, versions[1].pk: 2})
    do_create_challenge(alice, hero.pk, [villain.pk], 2)
    for match in Match.objects.filter(kind=Match.Kind.CHALLENGE):
        _play(match, {versions[0].pk: 1, versions[1].pk: 2})
    page = client.get(f"/bots/{hero.pk}/").content.decode()
    rated = re.search(r'<span class="big">(\d+)</span><span class="label">rated games</span>', page)
    assert rated and rated.group(1) == "1"  # the challenge's games are unrated
    assert "All games</th>" in page and "rated or not" in page  # the versions and head to head count all three
    kinds = re.findall(r'<small class="kind muted">(\w+)</small>', page)
    assert kinds.count("challenge") == 2 and kinds.count("ladder") == 1
