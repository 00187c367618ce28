"""Parlour TV (league/live/broadcasts.py, docs/live.md): which game /live/ features, what follows it, and that a
broadcast's frames carry the public view only (no seed, no action, no note, no hand) and only of a disclosed match."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.frames import expand_views
from games.registry import GAMES, get_game
from league.bots.models import Bot
from league.bots.services import do_register_builtin_bots
from league.live import broadcasts
from league.live.broadcasts import describe_top, next_broadcast, programme
from league.live.models import LiveMatch
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match, Seat
from league.play.recording import do_record_match_result
from league.ratings.models import Rating
from tests.browser.recorded import play_replay
from tests.results import runner_result

SEED = 1234567891  # long enough that finding it in a response is no accident


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """The read model keeps its answers a few seconds per process: each test starts without them."""
    caches[broadcasts.CACHE].clear()


def record(game_id: str, bot_names: list[str], seed: int) -> Match:
    """A finished, rated ladder match of the house bots ``bot_names``, really played by their built-in players."""
    do_register_builtin_bots([game_id])
    bots = [Bot.objects.get(game=game_id, name=name, is_builtin=True) for name in bot_names]
    versions = [bot.current_version() for bot in bots]
    assert all(version is not None for version in versions)
    match = do_create_match(game_id, [v for v in versions if v is not None], seed=seed)
    assert do_claim_match(match.pk) is not None
    labels = [v.label for v in versions if v is not None]
    players = [v.builtin for v in versions if v is not None]
    assert do_record_match_result(match.pk, runner_result(play_replay(game_id, players, seed, labels)))
    return Match.objects.get(pk=match.pk)


def rank(game_id: str, *names: str) -> None:
    """Fix the leaderboard's order (best first): the online Elo orders bots that have not been fitted yet."""
    for place, name in enumerate(names):
        Rating.objects.filter(bot__game=game_id, bot__name=name).update(elo=1800 - 100 * place)


def fresh() -> None:
    caches[broadcasts.CACHE].clear()


def test_the_top_bots_latest_games_are_featured_and_the_games_take_turns(db) -> None:
    top_two = record("love_letter", ["heuristic", "random"], 11)
    one_and_three = record("love_letter", ["random-2", "heuristic"], 12)
    record("love_letter", ["random", "random-2"], 13)  # #2 against #3: never picked while better games exist
    faulted = record("love_letter", ["heuristic", "random"], 14)
    Seat.objects.filter(match=faulted, number=1).update(fault="timeout")  # a forfeit is not worth watching
    other_engine = record("love_letter", ["random", "heuristic"], 15)
    Match.objects.filter(pk=other_engine.pk).update(engine_version="0.0.1")  # cannot be re-simulated faithfully
    in_play = record("love_letter", ["heuristic", "random"], 16)
    versions = [s.bot_version for s in in_play.seats.order_by("number")]
    do_create_match("love_letter", versions, seed=16)  # another seating of the same deal, still to be played
    auction = record("high_society", ["heuristic", "random", "random-2"], 17)  # the newest of all
    rank("love_letter", "heuristic", "random", "random-2", "search")
    rank("high_society", "random", "heuristic", "random-2")

    shown = programme()
    # High Society's best game is the newest: it opens; then Love Letter's best, then each game's second best.
    assert [item.match_id for item in shown] == [auction.pk, top_two.pk, one_and_three.pk]
    assert [item.kind for item in shown] == ["replay"] * 3
    assert shown[1].about == "the top two Love Letter bots" and shown[1].caption() == (
        "Replay: the top two Love Letter bots, just now"
    )
    assert shown[1].seats == ("parlour/heuristic v1", "parlour/random v1")
    assert shown[2].about == "Love Letter's #1 and #3 bots"
    assert shown[0].about == "the top three High Society bots"
    later = timezone.now() + timedelta(minutes=5, seconds=10)
    # (timesince puts a no-break space between a number and its unit)
    assert shown[1].caption(later) == "Replay: the top two Love Letter bots, 5\xa0minutes ago"

    # The rotation: each broadcast's successor, round and round; an unknown or missing one starts at the top.
    assert next_broadcast(None) == shown[0]
    assert next_broadcast(auction.pk) == shown[1]
    assert next_broadcast(top_two.pk) == shown[2]
    assert next_broadcast(one_and_three.pk) == shown[0]
    assert next_broadcast(999_999) == shown[0]


def test_describing_the_bots_at_the_table() -> None:
    assert describe_top("TEN", [2, 1]) == "the top two TEN bots"
    assert describe_top("TEN", [1, 2, 3, 4, 5]) == "the top five TEN bots"
    assert describe_top("TEN", [1]) == "TEN's top bot"
    assert describe_top("TEN", [3]) == "TEN's #3 bot"
    assert describe_top("TEN", [4, 2]) == "TEN's #2 and #4 bots"
    assert describe_top("TEN", [1, 3, 4]) == "TEN's #1, #3, #4 bots"


def test_only_the_games_top_bots_are_shown_and_nothing_without_a_rated_game(db, monkeypatch) -> None:
    assert programme() == [] and next_broadcast(None) is None
    fresh()
    do_register_builtin_bots(["ranczo"])
    names = ["heuristic", "random", "random-2", "search"]  # the house bots of a four-player game
    lower = record("ranczo", ["random-2", "search"], 21)
    higher = record("ranczo", ["heuristic", "random"], 22)
    rank("ranczo", "random-2", "search", "heuristic", "random")
    with monkeypatch.context() as patch:
        patch.setattr(broadcasts, "TOP_BOTS", 2)
        fresh()
        assert [item.match_id for item in programme()] == [lower.pk]  # the other game had neither of the top two
    rank("ranczo", *names)
    fresh()
    assert [(item.match_id, item.about) for item in programme()] == [
        (higher.pk, "the top two Ranczo Party bots"),
        (lower.pk, "Ranczo Party's #3 and #4 bots"),
    ]


def _running(claimed_seconds_ago: float, published_seconds_ago: float, kind: str = Match.Kind.LADDER) -> Match:
    do_register_builtin_bots(["love_letter"])
    versions = [Bot.objects.get(game="love_letter", name=n).current_version() for n in ("heuristic", "random")]
    match = do_create_match("love_letter", [v for v in versions if v is not None], kind=kind)
    assert do_claim_match(match.pk) is not None
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(claimed_at=now - timedelta(seconds=claimed_seconds_ago))
    LiveMatch.objects.create(match=match, moves=[], move_count=3)
    LiveMatch.objects.filter(match=match).update(updated=now - timedelta(seconds=published_seconds_ago))
    return match


def test_a_league_match_worth_watching_comes_first_then_the_replays(db) -> None:
    replay = record("love_letter", ["heuristic", "random"], 31)
    _running(claimed_seconds_ago=0.5, published_seconds_ago=0)  # just started: most games are over in a second
    _running(claimed_seconds_ago=30, published_seconds_ago=60)  # silent for a minute: its worker may be gone
    assert next_broadcast(None) is not None and next_broadcast(None).match_id == replay.pk  # type: ignore[union-attr]
    fresh()
    slow = _running(claimed_seconds_ago=8, published_seconds_ago=1)
    featured = next_broadcast(None)
    assert featured is not None and featured.kind == "live" and featured.match_id == slow.pk
    assert featured.caption() == "Live: a Love Letter ladder game"
    assert featured.seats == ("parlour/heuristic v1", "parlour/random v1")
    # Once its broadcast ends (the page asks for what follows it), the replays again, even if it still runs.
    after = next_broadcast(slow.pk)
    assert after is not None and after.kind == "replay" and after.match_id == replay.pk
    fresh()
    cup = _running(claimed_seconds_ago=4, published_seconds_ago=1, kind=Match.Kind.TOURNAMENT)
    first = next_broadcast(None)
    assert first is not None and first.match_id == cup.pk  # tournament games first, as in the live list
    assert first.caption() == "Live: a Love Letter tournament game"


def test_the_read_model_is_bounded_and_kept_briefly(db) -> None:
    for seed in range(41, 47):
        record("love_letter", ["heuristic", "random"], seed)
    record("ten", ["heuristic", "random"], 47)
    fresh()
    with CaptureQueriesContext(connection) as first:
        next_broadcast(None)
    # The live check; then per game the leaderboard's top, its candidates and their seats (a game with no ranked
    # bot: the leaderboard alone), whatever the history's length.
    assert len(first) <= 1 + 3 * len(GAMES), [q["sql"] for q in first]
    with CaptureQueriesContext(connection) as again:
        for _ in range(20):
            next_broadcast(None)
    assert len(again) == 0  # a crowd asking at once costs nothing more within the few seconds it is kept
    assert [item.game for item in programme()] == ["ten", "love_letter", "love_letter"]  # two a game at most


# ----- what a broadcast sends -----------------------------------------------------------------------------------------
FRAME_KEYS = {"view", "patch", "drop", "lines", "move", "to_move"}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_broadcasts_frames_are_the_public_view_and_nothing_more(db, game_id: str) -> None:
    players = min(3, get_game(game_id).max_players)
    do_register_builtin_bots([game_id])
    names = [b.name for b in Bot.objects.filter(game=game_id).order_by("pk")[:players]]
    match = record(game_id, names, SEED)
    response = Client().get(f"/live/broadcasts/{match.pk}/frames/")
    assert response.status_code == 200 and "public" in response["Cache-Control"]
    text = response.content.decode()
    document = json.loads(text)
    assert set(document) == {"format", "match", "game", "title", "players", "seats", "over", "frames", "outcome"}
    assert str(SEED) not in text and '"seed"' not in text and '"note"' not in text
    assert "thinks move" not in text  # the bots' notes (recorded on some moves) stay out
    replay = match.replay
    assert replay is not None
    state = get_game(game_id).new_state(players, SEED, {})
    views = expand_views(document)
    assert len(views) == len(replay["moves"]) + 1
    hidden_keys: set[str] = set()
    for step, view in enumerate(views):
        frame = document["frames"][step]
        assert set(frame) <= FRAME_KEYS and (frame["move"] is None or set(frame["move"]) == {"seat", "auto"})
        if step:
            state.apply(replay["moves"][step - 1]["action"])
        public = json.loads(json.dumps(state.public_view()))
        assert view == public, f"step {step}"
        assert frame["to_move"] == state.to_move()
        hidden_keys |= set(state.full_view()) - set(public)
    # What only the full view has (hands, the deck) appears nowhere: not as a key of any view.
    assert all(not (set(view) & hidden_keys) for view in views)
    if get_game(game_id).spec.has_hidden_information:
        assert hidden_keys, "the game hides something: the check above must have something to look for"
    assert document["outcome"] == {"ranks": replay["outcome"]["ranks"], "scores": replay["outcome"]["scores"]}


def test_a_match_whose_deal_is_in_play_or_that_is_not_over_is_not_broadcast(db) -> None:
    played = record("love_letter", ["heuristic", "random"], 51)
    versions = [s.bot_version for s in played.seats.order_by("number")]
    twin = do_create_match("love_letter", versions, seed=51)  # the same deal, another seating, still to be played
    client = Client()
    for pk in (played.pk, twin.pk, 999_999):
        response = client.get(f"/live/broadcasts/{pk}/frames/")
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
        assert '"view"' not in response.content.decode()
    Match.objects.filter(pk=twin.pk).delete()
    assert client.get(f"/live/broadcasts/{played.pk}/frames/").status_code == 200  # disclosed now


def test_the_live_page_features_a_broadcast_for_anyone_and_says_when_there_is_none(db) -> None:
    client = Client()
    empty = client.get("/live/")
    assert empty.status_code == 200 and "Nothing to watch yet" in empty.content.decode()
    assert client.get("/live/next/").status_code == 204
    match = record("love_letter", ["heuristic", "random"], 61)
    fresh()
    page = client.get("/live/").content.decode()
    assert "Replay: the top two Love Letter bots, just now" in page
    assert f'data-match="{match.pk}"' in page and "tv-config" in page and "No league match is being played" in page
    config: dict[str, Any] = json.loads(page.split('id="tv-config" type="application/json">')[1].split("</script>")[0])
    assert config["first"]["frames"] == f"/live/broadcasts/{match.pk}/frames/"
    assert config["first"]["renderer"].endswith("games/love_letter/viewer.js")
    assert config["move_ms"] >= 10 and config["result_ms"] >= 10
    for after in ("", "x", "-1", "9" * 40, str(match.pk)):  # anything: the next one, never an error
        answer = client.get("/live/next/", {"after": after})
        assert answer.status_code == 200 and answer.json()["match"] == match.pk
        assert "no-store" in answer["Cache-Control"]
