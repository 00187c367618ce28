"""/matches/ and the match lists people read: filters, pages, visibility, bad input, results in words, seats counted
from 1 and games called by their titles."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client

from league.bots.models import Bot, BotVersion
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.ratings.models import Rating
from league.tables.models import Table
from league.tournaments.models import Round, Tournament
from tests.results import runner_result


def _bot(owner: User, name: str, game: str = "love_letter") -> Bot:
    bot = Bot.objects.create(owner=owner, game=game, name=name)
    Rating.objects.create(bot=bot)
    BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
    return bot


def _play(bots: list[Bot], ranks: list[int] | None, kind: str = Match.Kind.LADDER, faults: dict | None = None) -> Match:
    match = do_create_match(bots[0].game, [bot.versions.get() for bot in bots], kind=kind)
    if ranks is not None:
        do_claim_match(match.pk)
        seats = [{"rank": rank, "score": 0.0, "fault": (faults or {}).get(s)} for s, rank in enumerate(ranks)]
        do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))
    return match


@pytest.fixture
def league(db) -> dict[str, Bot]:
    alice, bob = User.objects.create(username="alice"), User.objects.create(username="bob")
    return {
        "ace": _bot(alice, "ace"),
        "bee": _bot(bob, "bee"),
        "cat": _bot(bob, "cat"),
        "ten": _bot(alice, "tenner", game="ten"),
        "ten2": _bot(bob, "tenth", game="ten"),
    }


def _rows(html: str) -> list[str]:
    """The match list's rows, in order (a bot's name may break after its owner's: "alice/<wbr>ace")."""
    return re.findall(r"<tr>\s*<td><a href=\"/matches/\d+/\">.*?</tr>", html.replace("/<wbr>", "/"), re.S)


def _ids(html: str) -> list[int]:
    return [int(re.search(r"/matches/(\d+)/", row).group(1)) for row in _rows(html)]


def test_the_index_lists_finished_matches_newest_first_with_results_in_words(client: Client, league) -> None:
    first = _play([league["ace"], league["bee"]], [1, 2])
    second = _play([league["bee"], league["cat"], league["ace"]], [2, 1, 3])
    _play([league["ace"], league["cat"]], None)  # queued: not a result yet
    response = client.get("/matches/")
    html = response.content.decode()
    assert response.status_code == 200
    assert _ids(html) == [second.pk, first.pk]
    newest, oldest = _rows(html)
    assert 'bob/cat</a> <span class="result won">won</span>' in newest
    assert 'bob/bee</a> <span class="result placed">2nd of 3</span>' in newest
    assert 'alice/ace</a> <span class="result lost">3rd of 3</span>' in newest
    assert ">lost<" in oldest and ">won<" in oldest
    assert "<small>#" not in html  # no "#1" that reads like a seat number
    assert "Love Letter" in html and "love_letter<" not in html


def test_a_bot_filter_puts_that_bots_result_first_in_every_row(client: Client, league) -> None:
    won = _play([league["bee"], league["ace"]], [2, 1])
    lost = _play([league["ace"], league["cat"]], [2, 1], faults={0: {"cause": "timeout", "detail": "slow"}})
    _play([league["bee"], league["cat"]], [1, 2])  # without ace: not listed
    html = client.get(f"/matches/?bot={league['ace'].pk}").content.decode()
    assert _ids(html) == [lost.pk, won.pk]
    newest, oldest = _rows(html)
    assert '<th scope="col">Result</th><th scope="col">Against</th>' in html
    focus = re.search(r'<td class="focus-result">(.*?)</td>', newest).group(1)
    assert '<span class="result lost">lost</span>' in focus and "ran out of time" in focus
    assert '<span class="result won">won</span>' in re.search(r'<td class="focus-result">(.*?)</td>', oldest).group(1)
    against = newest[newest.index('<ul class="seats">') :]
    assert "bob/cat" in against and "alice/ace" not in against  # the bot in focus is not listed again
    assert "selected>alice/ace</option>" in html  # the form shows the filter in use


def test_the_filters_narrow_the_list_and_combine(client: Client, league) -> None:
    ladder = _play([league["ace"], league["bee"]], [1, 2])
    challenge = _play([league["ace"], league["bee"]], [2, 1], kind=Match.Kind.CHALLENGE)
    ten = _play([league["ten"], league["ten2"]], [1, 2])
    assert _ids(client.get("/matches/?game=ten").content.decode()) == [ten.pk]
    assert _ids(client.get("/matches/?owner=alice").content.decode()) == [ten.pk, challenge.pk, ladder.pk]
    assert _ids(client.get("/matches/?owner=alice&game=love_letter").content.decode()) == [challenge.pk, ladder.pk]
    assert _ids(client.get("/matches/?rated=yes&game=love_letter").content.decode()) == [ladder.pk]
    assert _ids(client.get("/matches/?rated=no").content.decode()) == [challenge.pk]
    ace = league["ace"].pk
    assert _ids(client.get(f"/matches/?bot={ace}&result=won").content.decode()) == [ladder.pk]
    assert _ids(client.get(f"/matches/?bot={ace}&result=lost").content.decode()) == [challenge.pk]
    empty = client.get(f"/matches/?bot={ace}&result=drew")
    assert empty.status_code == 200 and "No finished match fits these filters." in empty.content.decode()
    # The form sends every field, the empty ones too: they narrow nothing.
    everything = client.get("/matches/?game=&bot=&owner=&result=&rated=&tournament=")
    assert everything.status_code == 200 and len(_ids(everything.content.decode())) == 3


def test_pages_are_bounded_and_keep_the_filters(client: Client, league) -> None:
    played = [_play([league["ace"], league["bee"]], [1, 2]).pk for _ in range(27)]
    _play([league["ten"], league["ten2"]], [1, 2])
    first = client.get("/matches/?game=love_letter").content.decode()
    assert _ids(first) == played[::-1][:25]
    older = re.search(r'href="([^"]*)" rel="next">Older', first).group(1).replace("&amp;", "&")
    assert "game=love_letter" in older and 'rel="prev"' not in first
    second = client.get("/matches/" + older).content.decode()
    assert _ids(second) == played[::-1][25:] and 'rel="next"' not in second
    newer = re.search(r'href="([^"]*)" rel="prev">', second).group(1).replace("&amp;", "&")
    assert _ids(client.get("/matches/" + newer).content.decode()) == played[::-1][:25]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("game=chess", "Select a valid choice. chess is not one of the available choices."),
        ("bot=abc", "No such bot: choose one from the list."),
        ("bot=99999999999999999999999", "No such bot: choose one from the list."),
        ("bot=424242", "No such bot: choose one from the list."),
        ("owner=nobody", "Nobody here is called “nobody”."),
        ("owner=a%00b", "Null characters are not allowed."),
        ("owner=" + "x" * 400, "Ensure this value has at most 150 characters"),
        ("result=won", "Choose a bot as well: it is that bot's result."),
        ("result=best", "Select a valid choice."),
        ("rated=maybe", "Select a valid choice."),
        ("tournament=-3", "No such tournament: choose one from the list."),
        ("before=0", "That page of matches does not exist; start again from the newest matches."),
        ("after=1e3", "That page of matches does not exist; start again from the newest matches."),
        ("game=ten&bot=BOT", "alice/ace plays Love Letter: choose that game, or another bot."),
    ],
)
def test_a_bad_filter_is_a_400_that_says_which_and_why(client: Client, league, query: str, message: str) -> None:
    _play([league["ace"], league["bee"]], [1, 2])
    response = client.get("/matches/?" + query.replace("BOT", str(league["ace"].pk)))
    html = unescape(response.content.decode())
    assert response.status_code == 400
    assert "These filters cannot be applied" in html and message in html
    assert _rows(html) == []  # no list under filters that were not applied
    assert 'href="/matches/">Clear the filters</a>' in html


def test_a_draft_tournament_is_no_filter_for_those_who_cannot_see_it(client: Client, league) -> None:
    staff = User.objects.create(username="staff", is_staff=True)
    draft = Tournament.objects.create(game="love_letter", name="Secret draft", format="round_robin", seed=1)
    running = Tournament.objects.create(
        game="love_letter", name="Spring cup", format="round_robin", seed=2, status=Tournament.Status.RUNNING
    )
    in_cup = _play([league["ace"], league["bee"]], None, kind=Match.Kind.TOURNAMENT)
    Match.objects.filter(pk=in_cup.pk).update(round=Round.objects.create(tournament=running, number=1))
    do_claim_match(in_cup.pk)
    seats = [{"rank": 1, "score": 0.0}, {"rank": 2, "score": 0.0}]
    do_record_match_result(in_cup.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))
    _play([league["ace"], league["bee"]], [1, 2])

    page = client.get("/matches/").content.decode()
    assert "Spring cup</option>" in page and "Secret draft" not in page
    assert client.get(f"/matches/?tournament={draft.pk}").status_code == 400
    listed = client.get(f"/matches/?tournament={running.pk}").content.decode()
    assert _ids(listed) == [in_cup.pk] and f'href="/tournaments/{running.pk}/">Spring cup</a>' in listed
    client.force_login(staff)
    assert "Secret draft</option>" in client.get("/matches/").content.decode()
    response = client.get(f"/matches/?tournament={draft.pk}")
    assert response.status_code == 200 and _ids(response.content.decode()) == []
    assert "private" in response["Cache-Control"]  # staff's page lists drafts: not for a shared cache


def test_a_games_page_shows_its_latest_matches_and_links_to_them_all(client: Client, league) -> None:
    played = [_play([league["ace"], league["bee"]], [1, 2]).pk for _ in range(12)]
    ten = _play([league["ten"], league["ten2"]], [2, 1])
    html = client.get("/games/love_letter/").content.decode()
    latest = html[html.index("Latest matches") :]
    assert _ids(latest) == played[::-1][:10] and ten.pk not in _ids(latest)
    assert 'href="/matches/?game=love_letter">All Love Letter matches →</a>' in latest
    newer = _play([league["bee"], league["cat"]], [1, 2])  # the cached board follows a new result
    assert _ids(client.get("/games/love_letter/").content.decode())[0] == newer.pk


def test_the_home_page_says_results_in_words_and_links_to_every_match(client: Client, league) -> None:
    match = _play([league["ace"], league["bee"]], [2, 1])
    html = client.get("/").content.decode()
    row = _rows(html)[0]
    assert f"#{match.pk}<" in row and '<span class="result won">won</span>' in row and ">lost<" in row
    assert 'href="/matches/">All matches →</a>' in html


def test_a_bots_recent_matches_show_its_own_result_first(client: Client, league) -> None:
    _play([league["bee"], league["ace"], league["cat"]], [1, 2, 3])
    html = client.get(f"/bots/{league['ace'].pk}/").content.decode()
    recent = html[html.index("<h2>Recent matches</h2>") :]
    row = _rows(recent)[0]
    assert '<td class="focus-result"><span class="result placed">2nd of 3</span>' in row
    assert f'href="/matches/?bot={league["ace"].pk}">All matches of alice/ace →</a>' in recent


def test_the_match_page_counts_seats_from_one(client: Client, league) -> None:
    match = _play([league["ace"], league["bee"]], [1, 2])
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert re.findall(r'<span class="seat-dot pv-s(\d)">(\d)</span>', html) == [("0", "1"), ("1", "2")]


def test_my_games_and_the_live_list_call_a_game_by_its_title(client: Client, league) -> None:
    alice = league["ace"].owner
    Table.objects.create(
        owner=alice, game="high_society", players=3, seed=1, engine_version="1", seats=[], person_seat=0,
        clock_seconds=60, status=Table.Status.RUNNING,
    )  # fmt: skip
    _play([league["ace"], league["bee"]], None)
    do_claim_match(Match.objects.get(status=Match.Status.QUEUED).pk)
    client.force_login(alice)
    pages = {path: client.get(path).content.decode() for path in ("/account/tables/", "/account/bots/", "/live/")}
    assert "<td>High Society</td>" in pages["/account/tables/"]
    assert re.search(r"#\d+ High Society</a>", pages["/account/bots/"])
    assert "<td>Love Letter</td>" in pages["/live/"] and "<td>High Society</td>" in pages["/live/"]
    for path, html in pages.items():
        assert not re.search(r">[^<]*\b(high_society|love_letter)\b[^<]*<", html), path  # no id in any text
