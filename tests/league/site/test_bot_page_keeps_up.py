"""The bot page and My bots keep up (newcomers' stumbles 3/6, 19, 20, 21): everything on a bot's page that changes
by itself is one live region (league/site/parts.py), asked for again while it can change and rendered as a whole, so
no part says what another has moved past; one Elo and one count of rated games on every page; a rejected bot's page
offers only what works and shows why it was rejected."""

from __future__ import annotations

import html
import re

from django.contrib.auth.models import User
from django.test import Client

from bots.results import BotSeat
from bots.runner import SeriesGame, run_series
from league.bots.models import Bot, BotVersion
from league.bots.services import do_create_bot, do_disable_bot, do_record_validation, do_register_builtin_bots
from league.play.matches import do_create_match
from league.play.models import MatchSeries
from league.play.series import do_claim_series, do_record_series
from league.ratings import fits
from league.ratings.models import FittedRating, Rating
from tests.league.challenges.test_challenges import _play, _ready_bot

SYNTAX_ERROR = 'File "main.py", line 3\n    def act(:\n            ^\nSyntaxError: invalid syntax'


def _poll(page: str, element_id: str) -> tuple[str | None, str | None]:
    """The URL the region ``element_id`` asks for again and how often (None, None once it is settled)."""
    tag = re.search(rf'<div id="{element_id}" class="live"[^>]*>', page)
    assert tag, f"no live region {element_id}"
    url = re.search(r'hx-get="([^"]+)"', tag.group(0))
    every = re.search(r'hx-trigger="every (\d+)s"', tag.group(0))
    return (html.unescape(url.group(1)) if url else None), (every.group(1) if every else None)


def _text(page: str) -> str:
    """The page's words, without its tags (for "says X nowhere" assertions)."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def _region(page: str) -> str:
    """The bot page's summary region alone."""
    start = page.index('<div id="bot-summary"')
    return page[start : page.index('<section class="card">\n  <h2>Recent matches</h2>', start)]


def test_the_bot_page_follows_an_upload_from_pending_to_its_first_elo_and_rank(client: Client, alice, bob) -> None:
    """Stumbles 3 and 6: the page froze at "Ready" (its Elo, rank and chart came only with a reload) and its versions
    table still said "pending"."""
    villain = _ready_bot(bob, "villain")
    bot = do_create_bot(alice, "love_letter", "hero", b"print('hi')\n", "bot.py")
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    poll, every = _poll(page, "bot-summary")
    assert poll and poll.startswith(f"/bots/{bot.pk}/status/?seen=") and every == "2"  # a worker is on it
    assert _poll(page, "bot-activity")[0]  # its placement games follow the validation at once: the list asks too
    assert client.get(poll).status_code == 204  # nothing changed since the page was served
    do_record_validation(bot.versions.get().pk, True, "Smoke match: finished, rank 1 of 2.", "")
    ready = client.get(poll)
    assert ready.status_code == 200 and "no-store" in ready["Cache-Control"]
    region = ready.content.decode()
    assert 'data-state="ready"' in region and '<span class="status ready">ready</span>' in region
    assert "pending" not in region  # the versions table moved on with the banner
    poll, every = _poll(region, "bot-summary")
    assert poll and every == "10"  # it plays on the ladder: its numbers move with every game
    assert client.get(poll).status_code == 204
    match = do_create_match("love_letter", [bot.versions.get(), villain.versions.get()])
    _play(match, {bot.versions.get().pk: 1, villain.versions.get().pk: 2})
    rated = client.get(poll).content.decode()
    assert re.search(r'<span class="big">1</span><span class="label">rated games</span>', rated)
    assert "not fitted yet" in rated
    poll, every = _poll(rated, "bot-summary")
    assert poll and every == "2"  # its first fit is due: asked for quickly until it shows
    fits.refit_game("love_letter")
    fitted = FittedRating.objects.get(bot=bot)
    placed = client.get(poll).content.decode()
    assert f'<span class="big" data-elo>{fitted.elo:.0f}</span>' in placed
    assert re.search(r"data-rank>1st, 1st(\u20132nd)? at 95%<", placed) and '<figure class="chart">' in placed
    assert _poll(placed, "bot-summary")[1] == "10"
    do_disable_bot(bot, alice)  # nothing of it can change any more: the page stops asking
    poll, every = _poll(client.get(f"/bots/{bot.pk}/").content.decode(), "bot-summary")
    assert poll is None and every is None


def test_my_bots_asks_again_while_one_of_them_can_change(client: Client, alice) -> None:
    bot = do_create_bot(alice, "love_letter", "hero", b"print('hi')\n", "bot.py")
    client.force_login(alice)
    page = client.get("/account/bots/").content.decode()
    poll, every = _poll(page, "my-bots")
    assert poll and poll.startswith("/account/bots/live/?seen=") and every == "2"
    assert client.get(poll).status_code == 204
    do_record_validation(bot.versions.get().pk, False, "Smoke match failed: the bot crashed at start-up", "")
    changed = client.get(poll).content.decode()
    assert 'data-state="rejected"' in changed and "crashed at start-up" in changed
    assert _poll(changed, "my-bots") == (None, None)  # rejected, nothing plays: settled
    assert Client().get(poll).status_code == 302  # someone else's list: sign in first


def test_placing_never_says_not_ranked_beside_a_rank_so_far(client: Client, alice, settings) -> None:
    """Stumble 19: "Placing… rank so far 2nd" beside "Not ranked yet" on the same page."""
    settings.PLACEMENT_GAMES, settings.SERIES_GAMES = 4, 2
    do_register_builtin_bots(["love_letter"])
    bot = do_create_bot(alice, "love_letter", "placer", b"print('hi')\n", "bot.py")
    do_record_validation(bot.versions.get().pk, True, "Smoke match: finished, rank 1 of 2.", "")
    before = _text(_region(client.get(f"/bots/{bot.pk}/").content.decode()))
    assert "Placing v1: 0 of 4 games. Not ranked yet." in before and "alice/placer not ranked yet" in before
    series = MatchSeries.objects.filter(placing_version__bot=bot).order_by("pk").first()
    assert series is not None
    claimed = do_claim_series(series.pk, "test")
    assert claimed is not None
    seats = [BotSeat(label=seat.label, builtin="random") for seat in claimed.seats]
    do_record_series(claimed, run_series("love_letter", seats, [SeriesGame(g.seed) for g in claimed.games]).games)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    during = _text(_region(page))
    assert "Placing v1: 2 of 4 games. Rank so far" in during
    assert "not ranked" not in during.lower()  # nowhere: not the tag, not the stats
    assert re.search(r'<span class="big">2</span><span class="label">rated games</span>', page)
    assert "data-rank" not in page  # one rank on the page at a time: the banner's, while it places
    assert _poll(page, "bot-summary")[1] == "2"
    client.force_login(alice)
    mine = _text(client.get("/account/bots/").content.decode())
    assert "Rank so far" in mine and "not ranked" not in mine.lower()


def test_one_elo_and_one_count_of_rated_games_on_every_page(client: Client, alice, bob) -> None:
    """Stumble 20: "198 rated games" beside the chart's "102 rated games of v1", and Elo 1580 on the bot page while
    the leaderboard said 1565."""
    owner = User.objects.create(username="owner")
    hero = _ready_bot(alice, "hero")
    others = [_ready_bot(user, f"rival{i}") for i, user in enumerate([bob, owner])]
    bots = [hero, *others]
    versions = {bot.pk: bot.versions.get() for bot in bots}
    for round_ in range(6):
        for other in others:
            match = do_create_match("love_letter", [versions[hero.pk], versions[other.pk]])
            _play(match, {versions[hero.pk].pk: 1 + round_ % 2, versions[other.pk].pk: 2 - round_ % 2})
    fits.refit_game("love_letter")
    # More rated games since the fit: the fit counts fewer games than the bot has played.
    for other in others:
        _play(
            do_create_match("love_letter", [versions[hero.pk], versions[other.pk]]),
            {versions[hero.pk].pk: 1, versions[other.pk].pk: 2},
        )
    rating, fitted = Rating.objects.get(bot=hero), FittedRating.objects.get(bot=hero)
    assert (rating.games, fitted.games) == (14, 12)
    page = client.get(f"/bots/{hero.pk}/").content.decode()
    counts = set(re.findall(r"(?<!fewer than )\b(\d+) rated games", _text(page)))
    stat = re.search(r'<span class="big">(\d+)</span><span class="label">rated games</span>', page)
    assert stat and stat.group(1) == "14" and counts <= {"14"}  # no other count of rated games on the page
    board = client.get("/games/love_letter/").content.decode()
    row = re.search(rf'<a href="/bots/{hero.pk}/">alice/hero</a>.*?</tr>', board, re.S)
    assert row
    cells = re.findall(r'<td class="num[^"]*"[^>]*>([^<]*)</td>', row.group(0))
    elo = re.search(r'<span class="big" data-elo>(\d+)</span>', page)
    assert elo and cells[0] == elo.group(1) == f"{fitted.elo:.0f}" and cells[3] == "14"  # Elo, …, rated games
    client.force_login(alice)
    mine = client.get("/account/bots/").content.decode()
    assert f"Elo <strong>{elo.group(1)}</strong>" in mine and "after 14 rated games" in mine
    # A refit moves the Elo: the open page's next poll shows the leaderboard's new number.
    poll = _poll(page, "bot-summary")[0]
    assert poll
    fits.refit_game("love_letter")
    refitted = FittedRating.objects.get(bot=hero)
    fresh = client.get(poll).content.decode()
    board = client.get("/games/love_letter/").content.decode()
    assert f"data-elo>{refitted.elo:.0f}<" in fresh and f'<td class="num strong">{refitted.elo:.0f}</td>' in board


def test_a_rejected_bots_page_shows_why_and_offers_only_what_works(client: Client, alice, bob) -> None:
    """Stumble 21: a rejected bot's page offered "Play against" (which seated another bot), said it would be "ranked
    after its first rated game" and "No faults", and folded its SyntaxError away."""
    bot = do_create_bot(alice, "love_letter", "broken", b"def act(:\n", "main.py")
    reason = "Smoke match failed: the bot crashed at start-up: exit status 1"
    do_record_validation(bot.versions.get().pk, False, reason, SYNTAX_ERROR)
    client.force_login(alice)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    words = _text(page)
    assert "v1 was rejected" in words and reason in words
    assert "Not ranked: no version has passed validation" in words
    assert "Play against" not in words and "/play/?bot=" not in page
    assert "ranked after its first rated game" not in words and "No faults" not in words
    assert "Take it off the ladder" not in words  # nothing of it plays
    assert "Upload a new version" in words  # what does work
    banner = page[page.index('<div id="bot-status"') : page.index("</div>", page.index('<div id="bot-status"'))]
    assert "<details open>" in banner and "SyntaxError: invalid syntax" in html.unescape(banner)  # open, not folded
    assert _poll(page, "bot-summary") == (None, None)  # nothing can change until a new upload
    theirs = Client()
    theirs.force_login(bob)
    other = theirs.get(f"/bots/{bot.pk}/").content.decode()
    assert reason in _text(other) and "SyntaxError" not in other  # the reason is public, the stderr the owner's
    assert Bot.objects.get(pk=bot.pk).versions.get().status == BotVersion.Status.REJECTED


def test_the_owners_summary_with_its_buttons_answers_204_while_unchanged(client: Client, alice) -> None:
    """The owner's summary holds forms (take it off the ladder), whose CSRF token Django masks afresh at each render:
    the digest leaves it out, or every poll would send the whole region again."""
    bot = _ready_bot(alice, "hero")
    client.force_login(alice)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "Take it off the ladder" in _region(page) and 'name="csrfmiddlewaretoken"' in _region(page)
    poll = _poll(page, "bot-summary")[0]
    assert poll and client.get(poll).status_code == 204
    assert "private" in client.get(poll)["Cache-Control"]
