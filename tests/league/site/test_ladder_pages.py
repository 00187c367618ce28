"""The leaderboard and bot pages and their API twins: what a visitor sees, in a pinned number of queries."""

from __future__ import annotations

import itertools
import random
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from league.bots.models import Bot, BotVersion
from league.bots.services import do_create_bot, do_disable_bot, do_resume_bot
from league.play.matches import do_claim_match, do_create_match, do_release_match
from league.play.models import Match, Seat
from league.play.recording import do_record_match_result
from league.ratings import fits
from league.ratings.models import FittedRating, Rating
from league.ratings.queries import head_to_head, ordinal
from tests.results import runner_result

# Anonymous visitors; a signed-in one adds two (the session and the user). The expensive parts are cached, keyed on
# a fingerprint of the data (league/ratings/caching.py): a first request computes them, the next ones read the
# fingerprint. The fingerprint, the rows (with rank, fitted Elo and newest version) and their count, the new bots, the
# newest fit (the win rate by seat), the game's latest matches and their seats.
LEADERBOARD_QUERIES = 7
LEADERBOARD_CACHED_QUERIES = 1  # the fingerprint
# The bot page: bot, versions, the recent matches' ids and statuses, then on a miss rating history, head to head,
# faults, and the recent matches with their seats. Its versions' finished games and the recent matches' statuses are
# the fingerprints. Placement progress, the people's record and whether a person may seat it are one query each,
# cached or not (and whether a match of its is in flight, once it no longer plays).
BOT_PAGE_QUERIES = 11
BOT_PAGE_CACHED_QUERIES = 6


def _league(n: int = 12, matches: int = 60, seed: int = 1) -> list[Bot]:
    owner = User.objects.create(username="owner")
    bots = []
    for i in range(n):
        bot = Bot.objects.create(owner=owner, game="love_letter", name=f"bot{i:02}")
        Rating.objects.create(bot=bot)
        BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
        bots.append(bot)
    rng = random.Random(seed)
    for _ in range(matches):
        table = rng.sample(bots, rng.choice([2, 3]))
        match = do_create_match("love_letter", [bot.versions.get() for bot in table])
        do_claim_match(match.pk)
        # Lower-numbered bots tend to win, so the order is predictable; the second seat sometimes times out.
        order = sorted(range(len(table)), key=lambda s: table[s].pk + rng.gauss(0, 3))
        ranks = [order.index(s) + 1 for s in range(len(table))]
        fault = {"cause": "timeout", "detail": "too slow", "move": 1} if rng.random() < 0.1 else None
        seats = [{"rank": r, "score": 0.0, "fault": fault if s == 1 else None} for s, r in enumerate(ranks)]
        do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))
    if matches:
        fits.refit_game("love_letter")  # as beat does within RATINGS_REFIT_SECONDS
    return bots


def test_the_leaderboard_shows_elo_interval_games_wld_last_match_and_a_sparkline(client: Client, db) -> None:
    bots = _league()
    fits.refit_game("love_letter")  # a second fit: every bot's sparkline has two points
    html = client.get("/games/love_letter/").content.decode()
    rating, fitted = Rating.objects.get(bot=bots[0]), FittedRating.objects.get(bot=bots[0])
    assert f"{fitted.elo:.0f}" in html and f"{fitted.low:.0f}\u2013{fitted.high:.0f}" in html
    assert f'<td class="num rank-range">{ordinal(fitted.rank_low)}' in html
    assert f"{rating.wins} / {rating.losses} / {rating.draws}" in html
    assert html.count('<svg class="spark') == sum(len(f.recent) > 1 for f in FittedRating.objects.all())
    assert "ago" in html or "just now" in html  # the last match, relative
    assert "provisional" in html  # 60 matches among 12: everyone still provisional
    assert html.index("owner/bot00") < html.index("owner/bot11")  # ranked by fitted Elo


def test_the_leaderboard_sorts_by_any_column_without_javascript(client: Client, db) -> None:
    _league()
    Rating.objects.filter(bot__name="bot05").update(games=999)
    html = client.get("/games/love_letter/?sort=games").content.decode()
    first_row = html[html.index("<tbody>") :]
    assert re.search(r"owner/bot05", first_row[: first_row.index("</tr>")])
    assert 'href="?sort=games&amp;order=reverse"' in html and 'aria-sort="descending"' in html
    reverse = client.get("/games/love_letter/?sort=name&order=reverse").content.decode()
    assert reverse.index("owner/bot11") < reverse.index("owner/bot00")
    assert client.get("/games/love_letter/?sort=nonsense").status_code == 200


def test_provisional_and_paused_bots_are_marked(client: Client, db) -> None:
    bots = _league(n=3, matches=0)
    Rating.objects.filter(bot=bots[0]).update(games=50, games_since_version=50, version=1)
    Rating.objects.filter(bot=bots[1]).update(games=50, games_since_version=50, version=1)
    Rating.objects.filter(bot=bots[2]).update(games=1, games_since_version=1, version=1)  # ranked: it has played
    BotVersion.objects.create(bot=bots[1], number=2, builtin="random", status=BotVersion.Status.READY)
    Bot.objects.filter(pk=bots[2].pk).update(paused_at=timezone.now(), paused_reason="faulted too often")
    rows = APIClient().get("/api/leaderboards/love_letter/").json()["results"]
    flags = {row["name"]: (row["provisional"], row["paused"]) for row in rows}
    # bot01 has played 50 games, but its new version has not played yet: provisional again.
    assert flags == {"owner/bot00": (False, False), "owner/bot01": (True, False), "owner/bot02": (True, True)}
    html = client.get("/games/love_letter/").content.decode()
    assert html.count('class="tag provisional"') == 3 and 'class="tag paused"' in html  # 1 in the legend


def test_the_leaderboard_pages_a_big_league(client: Client, db) -> None:
    owner = User.objects.create(username="many")
    for i in range(130):
        bot = Bot.objects.create(owner=owner, game="love_letter", name=f"b{i:03}")
        Rating.objects.create(bot=bot, elo=1500 + i, games=1)  # ranked: a ready version and a rated game
        BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
    first = client.get("/games/love_letter/").content.decode()
    assert "page 1 of 2" in first and "many/b129" in first and "many/b000" not in first
    second = client.get("/games/love_letter/?page=2").content.decode()
    assert "many/b000" in second and ">130<" in second  # the Elo rank carries on


def test_the_leaderboard_query_count_is_pinned(client: Client, db, django_assert_max_num_queries) -> None:
    bots = _league(n=30, matches=80)
    with django_assert_max_num_queries(LEADERBOARD_QUERIES):
        assert client.get("/games/love_letter/?sort=last").status_code == 200
    with django_assert_max_num_queries(LEADERBOARD_CACHED_QUERIES):
        assert client.get("/games/love_letter/?sort=last").status_code == 200
    client.force_login(bots[0].owner)
    with django_assert_max_num_queries(LEADERBOARD_QUERIES + 2):
        assert client.get("/games/love_letter/").status_code == 200
    with django_assert_max_num_queries(LEADERBOARD_CACHED_QUERIES + 2):
        assert client.get("/games/love_letter/").status_code == 200
    with django_assert_max_num_queries(1):
        assert APIClient().get("/api/leaderboards/love_letter/").status_code == 200


def test_the_bot_page_has_a_rating_chart_head_to_head_faults_and_versions(client: Client, db) -> None:
    bots = _league()
    bot = bots[1]
    html = client.get(f"/bots/{bot.pk}/").content.decode()
    assert '<figure class="chart">' in html and '<polyline class="line"' in html and '<polygon class="band"' in html
    assert "Head to head" in html and "owner/bot00" in html
    opponents = head_to_head(bot)
    assert html.count('<tr><td><a href="/bots/') == len(opponents)
    if Seat.objects.filter(bot_version__bot=bot).exclude(fault="").exists():
        assert "ran out of time" in html
    assert "v1" in html and "ready" in html


def test_head_to_head_counts_pairs_of_seats_by_rank(db) -> None:
    a, b, c = _league(n=3, matches=0)
    versions = [bot.versions.get() for bot in (a, b, c)]
    for ranks in ([1, 2, 3], [2, 1, 3], [1, 1, 2], [3, 2, 1]):
        match = do_create_match("love_letter", versions)
        do_claim_match(match.pk)
        seats = [{"rank": rank, "score": 0.0} for rank in ranks]
        do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}}))
    rows = {row["name"]: row for row in APIClient().get(f"/api/bots/{a.pk}/head-to-head/").json()["results"]}
    assert (rows["owner/bot01"]["wins"], rows["owner/bot01"]["losses"], rows["owner/bot01"]["draws"]) == (1, 2, 1)
    assert (rows["owner/bot02"]["wins"], rows["owner/bot02"]["losses"], rows["owner/bot02"]["draws"]) == (3, 1, 0)
    assert rows["owner/bot02"]["games"] == 4 and rows["owner/bot02"]["score"] == 0.75


def test_the_bot_page_query_count_is_pinned(client: Client, db, django_assert_max_num_queries) -> None:
    bots = _league(n=20, matches=150)
    with django_assert_max_num_queries(BOT_PAGE_QUERIES):
        assert client.get(f"/bots/{bots[3].pk}/").status_code == 200
    with django_assert_max_num_queries(BOT_PAGE_CACHED_QUERIES):
        assert client.get(f"/bots/{bots[3].pk}/").status_code == 200
    client.force_login(bots[0].owner)
    with django_assert_max_num_queries(BOT_PAGE_QUERIES + 2):
        assert client.get(f"/bots/{bots[0].pk}/").status_code == 200
    with django_assert_max_num_queries(BOT_PAGE_CACHED_QUERIES + 2):
        assert client.get(f"/bots/{bots[0].pk}/").status_code == 200


def test_a_bot_without_games_has_a_page_without_a_chart(client: Client, alice) -> None:
    bot = do_create_bot(alice, "love_letter", "fresh", b"pass\n", "bot.py")
    html = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "Not ranked yet: it plays its first rated games once a version passes validation." in html
    # Nothing played: no empty chart, head to head or "No faults" (issue: a rejected bot's page said "No faults")
    assert "Fitted Elo over time" not in html and "Head to head" not in html and "No faults" not in html


def test_the_api_gives_the_rating_history_oldest_first(db) -> None:
    bots = _league(n=4, matches=30)
    bot = bots[2]
    body = APIClient().get(f"/api/bots/{bot.pk}/ratings/?limit=100").json()
    history = body["results"]
    assert body["count"] == len(history) == Rating.objects.get(bot=bot).games
    assert history[0]["before"] == 1500 and history[-1]["after"] == pytest.approx(Rating.objects.get(bot=bot).elo)
    assert all(b["before"] == a["after"] for a, b in itertools.pairwise(history))
    low, high = history[-1]["interval"]
    assert low < history[-1]["after"] < high and history[-1]["sigma"] > 0
    assert [h["match"] for h in history] == sorted(h["match"] for h in history)


def test_the_api_bot_detail_has_the_interval_faults_and_pause(db) -> None:
    bots = _league(n=4, matches=40, seed=3)
    detail = APIClient().get(f"/api/bots/{bots[1].pk}/").json()
    rating = Rating.objects.get(bot=bots[1])
    assert detail["rating"]["interval"] == [round(rating.low, 1), round(rating.high, 1)]
    assert detail["rating"]["draws"] == rating.draws and detail["paused"] is False
    faults = Seat.objects.filter(bot_version__bot=bots[1]).exclude(fault="").count()
    assert sum(f["count"] for f in detail["faults"]) == faults


def test_only_the_owner_can_pause_or_resume_through_the_api(alice_api: APIClient, bob_api: APIClient, alice) -> None:
    bot = do_create_bot(alice, "love_letter", "mine", b"pass\n", "bot.py")
    assert bob_api.post(f"/api/bots/{bot.pk}/disable/").status_code == 403
    assert alice_api.post(f"/api/bots/{bot.pk}/disable/").json()["is_active"] is False
    Bot.objects.filter(pk=bot.pk).update(paused_at=timezone.now(), paused_reason="x")
    body = alice_api.post(f"/api/bots/{bot.pk}/resume/").json()
    assert body["is_active"] is True and body["paused"] is False
    assert APIClient().post(f"/api/bots/{bot.pk}/resume/").status_code in (401, 403)


def test_the_leaderboard_api_refuses_an_unknown_sort(anon_api: APIClient, db) -> None:
    response = anon_api.get("/api/leaderboards/love_letter/?sort=luck")
    assert response.status_code == 400 and "sort must be one of" in response.json()["error"]["message"]
    assert Match.objects.count() == 0


def _play(bots: list[Bot], ranks: list[int]) -> Match:
    match = do_create_match("love_letter", [bot.versions.get() for bot in bots])
    do_claim_match(match.pk)
    seats = [{"rank": rank, "score": 0.0} for rank in ranks]
    do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))
    return match


def _games_cell(html: str, name: str) -> str:
    row = html[html.index(name) :]
    return re.findall(r'<td class="num">(\d+)</td>', row[: row.index("</tr>")])[0]


def test_a_cached_leaderboard_shows_a_result_as_soon_as_it_is_recorded(client: Client, db) -> None:
    bots = _league(n=4, matches=6)
    before = client.get("/games/love_letter/").content.decode()
    assert client.get("/games/love_letter/").content.decode() == before  # from the cache
    games = int(_games_cell(before, "owner/bot03"))
    _play([bots[3], bots[0]], [1, 2])
    after = client.get("/games/love_letter/").content.decode()
    assert int(_games_cell(after, "owner/bot03")) == games + 1


def test_a_match_still_running_while_another_is_recorded_is_not_hidden_by_the_cache(client: Client, db) -> None:
    """The later commit of an earlier match changes the fingerprint too (it leaves the running set)."""
    a, b, c, d = _league(n=4, matches=0)
    first = do_create_match("love_letter", [a.versions.get(), b.versions.get()])
    do_claim_match(first.pk)
    _play([c, d], [1, 2])
    before = client.get("/games/love_letter/").content.decode()
    assert "owner/bot00" in before[before.index("Not ranked yet") :]  # no rated game yet: listed apart
    seats = [{"rank": 1, "score": 0.0}, {"rank": 2, "score": 0.0}]
    do_record_match_result(first.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))
    assert _games_cell(client.get("/games/love_letter/").content.decode(), "owner/bot00") == "1"


def test_a_cached_leaderboard_shows_pauses_resumes_and_bots_taken_off_the_ladder(client: Client, db) -> None:
    bots = _league(n=3, matches=0)
    owner = bots[0].owner
    assert 'class="tag paused"' not in client.get("/games/love_letter/").content.decode()
    Bot.objects.filter(pk=bots[1].pk).update(paused_at=timezone.now(), paused_reason="faulted")  # as the ladder does
    assert 'class="tag paused"' in client.get("/games/love_letter/").content.decode()
    do_resume_bot(bots[1], owner)
    assert 'class="tag paused"' not in client.get("/games/love_letter/").content.decode()
    do_disable_bot(bots[2], owner)
    assert "owner/bot02" not in client.get("/games/love_letter/").content.decode()
    do_resume_bot(bots[2], owner)
    assert "owner/bot02" in client.get("/games/love_letter/").content.decode()


def test_a_cached_page_never_shows_another_visitors_name_or_buttons(client: Client, db) -> None:
    bots = _league(n=3, matches=6)
    owner = bots[0].owner
    signed_in = Client()
    signed_in.force_login(owner)
    for path in ("/", "/games/love_letter/", f"/bots/{bots[0].pk}/"):
        mine = signed_in.get(path).content.decode()
        assert f"Log out {owner.username}" in mine
        theirs = client.get(path).content.decode()
        assert f"Log out {owner.username}" not in theirs and "Log in" in theirs
        assert "Take it off the ladder" not in theirs and "Upload a new version" not in theirs
    assert "Take it off the ladder" in signed_in.get(f"/bots/{bots[0].pk}/").content.decode()


def test_a_cached_bot_page_shows_a_new_result_in_its_chart_and_head_to_head(client: Client, db) -> None:
    a, b, c = _league(n=3, matches=0)
    _play([a, b], [1, 2])
    html = client.get(f"/bots/{a.pk}/").content.decode()
    assert "owner/bot01" in html and "owner/bot02" not in html and "not fitted yet" in html
    fits.refit_game("love_letter")
    html = client.get(f"/bots/{a.pk}/").content.decode()
    assert "Fitted Elo over 1 fits" in html and "(v1, " in html
    _play([a, c], [2, 1])
    fits.refit_game("love_letter")
    html = client.get(f"/bots/{a.pk}/").content.decode()
    assert "owner/bot02" in html and "Fitted Elo over 2 fits" in html


def test_a_cached_home_page_shows_a_new_bot_and_its_first_result(client: Client, db) -> None:
    bots = _league(n=2, matches=1)
    assert "owner/bot01" in client.get("/").content.decode().replace("<wbr>", "")  # (a name may break after the "/")
    newcomer = Bot.objects.create(owner=bots[0].owner, game="love_letter", name="newcomer")
    Rating.objects.create(bot=newcomer)
    BotVersion.objects.create(bot=newcomer, number=1, builtin="random", status=BotVersion.Status.READY)
    # not ranked before its first rated game
    assert "owner/newcomer" not in client.get("/").content.decode().replace("<wbr>", "")
    match = _play([newcomer, bots[0]], [1, 2])
    home = client.get("/").content.decode().replace("<wbr>", "")
    assert f"#{match.pk}<" in home and "owner/newcomer" in home  # among the latest matches, and now ranked


def test_the_home_page_query_count_is_pinned(client: Client, db, django_assert_max_num_queries) -> None:
    _league(n=12, matches=30)
    with django_assert_max_num_queries(8):  # the fingerprint, five top fives, the latest matches and their seats
        assert client.get("/").status_code == 200
    with django_assert_max_num_queries(1):  # the fingerprint
        assert client.get("/").status_code == 200


def _recent_rows(html: str) -> list[str]:
    """The recent matches table's rows, newest first."""
    table = html[html.index("<h2>Recent matches</h2>") :]
    return re.findall(r"<tr>\s*<td><a href=\"/matches/\d+/\">.*?</tr>", table, re.S)


def test_a_cached_bot_page_shows_a_new_match_queued_running_and_finished_at_once(client: Client, db) -> None:
    a, _b, c = _league(n=3, matches=4)
    client.get(f"/bots/{a.pk}/")
    assert client.get(f"/bots/{a.pk}/").content == client.get(f"/bots/{a.pk}/").content  # warm
    match = do_create_match("love_letter", [a.versions.get(), c.versions.get()])
    newest = _recent_rows(client.get(f"/bots/{a.pk}/").content.decode())[0]
    assert f"#{match.pk}<" in newest and 'class="status queued"' in newest
    do_claim_match(match.pk)
    newest = _recent_rows(client.get(f"/bots/{a.pk}/").content.decode())[0]
    assert f"#{match.pk}<" in newest and 'class="status running"' in newest
    seats = [{"rank": 2, "score": 0.0}, {"rank": 1, "score": 0.0, "fault": None}]
    do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))
    newest = _recent_rows(client.get(f"/bots/{a.pk}/").content.decode())[0]
    assert f"#{match.pk}<" in newest and '<td class="focus-result"><span class="result lost">lost</span>' in newest
    assert '<a href="/bots/' in newest and 'owner/<wbr>bot02</a> <span class="result won">won</span>' in newest


def test_a_cached_bot_page_shows_a_match_going_back_to_the_queue(client: Client, db) -> None:
    """Statuses, not counts: one older match claimed while another is released leaves every count, and the newest
    match, as they were."""
    a, b = _league(n=2, matches=0)
    table = [a.versions.get(), b.versions.get()]
    first, second, third = (do_create_match("love_letter", table) for _ in range(3))
    do_claim_match(first.pk)
    rows = _recent_rows(client.get(f"/bots/{a.pk}/").content.decode())
    assert ['class="status queued"' in row for row in rows] == [True, True, False]
    do_claim_match(second.pk)
    do_release_match(first.pk, "the broker went away")
    rows = _recent_rows(client.get(f"/bots/{a.pk}/").content.decode())
    assert ['class="status queued"' in row for row in rows] == [True, False, True]
    assert f"#{third.pk}<" in rows[0]


def test_a_cached_bot_page_never_shows_its_owners_controls_or_logs_to_another_visitor(client: Client, db) -> None:
    bots = _league(n=3, matches=6)
    bot, owner = bots[0], bots[0].owner
    BotVersion.objects.filter(bot=bot).update(validation_stderr="secret traceback")
    mine = Client()
    mine.force_login(owner)
    others = Client()
    others.force_login(User.objects.create(username="charlie"))
    # The owner fills the cache first, then the others read from it; then the other way round.
    for first, second in ((mine, client), (client, mine), (others, mine), (mine, others)):
        for visitor in (first, second):
            html = visitor.get(f"/bots/{bot.pk}/").content.decode()
            owners = visitor is mine
            assert ("Upload a new version" in html) is owners
            assert ("Take it off the ladder" in html) is owners
            assert ("secret traceback" in html) is owners
            assert ("Log out owner" in html) is owners
