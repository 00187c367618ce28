"""Watching a league match live (league/live/watch.py, league/live/views.py, workers/live.py): the runner's
observer publishes the moves, a spectator gets the public view only — in every game, at every decision, with
another seat's hidden cards swapped — and /live/ lists the running matches, tournament games first."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection
from django.test import AsyncClient, Client
from django.test.utils import CaptureQueriesContext

from bots.results import BotSeat
from bots.runner import SeriesGame, play_match, prepare_series
from games.registry import GAMES, get_game
from league.bots.models import Bot
from league.bots.services import do_register_builtin_bots
from league.live import watch
from league.live.models import LiveMatch
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from workers.live import LivePublisher, series_publishers

SEED = 1234567891  # long enough that finding it in a response is no accident
SPECTATOR_KEYS = {
    "id", "kind", "game", "status", "players", "seats", "person_seat", "move_count", "to_move", "narration", "role",
    "clock_left", "match_url", "message", "public",
}  # fmt: skip


def running_match(game_id: str, players: int, seed: int = SEED, kind: str = Match.Kind.LADDER) -> Match:
    do_register_builtin_bots([game_id])
    bots = Bot.objects.filter(game=game_id).order_by("pk")[:players]
    versions = [bot.current_version() for bot in bots]
    match = do_create_match(game_id, [v for v in versions if v is not None], seed=seed, kind=kind)
    assert do_claim_match(match.pk) is not None
    return Match.objects.get(pk=match.pk)


def seats_of(match: Match) -> list[BotSeat]:
    return [BotSeat(label=s.bot_version.label, builtin=s.bot_version.builtin) for s in match.seats.order_by("number")]


def state_after(match: Match, moves: list[dict[str, Any]]) -> Any:
    state = get_game(match.game).new_state(match.seats.count(), match.seed, match.options)
    for move in moves:
        state.apply(move["action"])
    return state


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_live_view_is_the_public_view_at_every_decision(db, game_id: str) -> None:
    players = min(3, get_game(game_id).max_players)
    match = running_match(game_id, players)
    rng = random.Random(2)
    checked = {"views": 0, "perturbed": 0}
    client = Client()

    def observe(moves: list[dict[str, Any]]) -> None:
        watch.do_publish(match.pk, moves)
        view = json.loads(json.dumps(watch.match_view(Match.objects.get(pk=match.pk))))
        text = json.dumps(view)
        assert set(view) <= SPECTATOR_KEYS and "observation" not in view and "moves" not in view
        assert str(SEED) not in text and '"seed"' not in text and '"note"' not in text
        state = state_after(match, moves)
        assert view["move_count"] == len(moves) and view["to_move"] == state.to_move()
        assert view["public"] == json.loads(json.dumps(state.public_view()))
        for observer in range(players):  # another seat's hidden cards swapped: the spectator's view stays the same
            twin = state.perturb_hidden(observer, rng)
            if twin is not None:
                assert json.loads(json.dumps(twin.public_view())) == view["public"]
                checked["perturbed"] += 1
        checked["views"] += 1
        if checked["views"] == 3:  # the page serves the same view, and nothing more
            page = client.get(f"/matches/{match.pk}/live/").content.decode()
            assert str(SEED) not in page and '"note"' not in page

    result = play_match(game_id, seats_of(match), SEED, match.options, observer=observe)
    assert checked["views"] == len(result.replay["moves"]) + 1
    assert checked["perturbed"] > 0, checked


def test_the_publisher_is_throttled_and_stores_no_notes(db) -> None:
    match = running_match("love_letter", 2)
    publisher = LivePublisher(match.pk, interval_ms=10_000)
    moves = [{"seat": 0, "action": {"card": 1}, "ms": 1.0, "note": "I hold the Princess", "auto": False}]
    publisher(moves)
    publisher(moves + moves)  # within the interval: not written
    live = LiveMatch.objects.get(match=match)
    assert live.move_count == 1 and live.moves == [{"seat": 0, "action": {"card": 1}, "auto": False}]
    assert publisher.writes == 1
    eager = LivePublisher(match.pk, interval_ms=0)
    eager(moves + moves)
    eager(moves + moves)  # nothing new: not written again
    assert eager.writes == 1 and LiveMatch.objects.get(match=match).move_count == 2
    watch.do_clear(match.pk)
    assert not LiveMatch.objects.filter(match=match).exists()


def test_the_games_of_a_series_share_one_throttle_and_are_cleared_in_one_statement(db, settings) -> None:
    settings.LIVE_MATCH_INTERVAL_MS = 10_000
    first, second = running_match("love_letter", 2), running_match("love_letter", 2)
    publishers = series_publishers([first.pk, second.pk])
    assert all(publisher is not None for publisher in publishers)
    moves = [{"seat": 0, "action": {"card": 1}, "ms": 1.0, "note": "", "auto": False}]
    for publisher in publishers:  # each game's first move, within one interval: only the first game's is written
        assert publisher is not None
        publisher(moves)
    assert [p.writes for p in publishers if p is not None] == [1, 0]
    assert list(LiveMatch.objects.values_list("match_id", flat=True)) == [first.pk]
    alone = LivePublisher(second.pk)  # a match of its own has its own throttle
    alone(moves)
    assert alone.writes == 1
    with CaptureQueriesContext(connection) as queries:
        watch.do_clear(first.pk, second.pk)
    assert len(queries) == 1 and not LiveMatch.objects.exists()
    settings.LIVE_MATCH_INTERVAL_MS = 0
    assert series_publishers([first.pk, second.pk]) == [None, None]


def test_a_finished_match_sends_the_spectator_to_its_page(db) -> None:
    match = running_match("love_letter", 2)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    response = Client().get(f"/matches/{match.pk}/live/")
    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/"
    view = watch.match_view(Match.objects.get(pk=match.pk))
    assert "public" not in view and view["status"] == "finished"
    assert Client().get("/matches/999999/live/").status_code == 404
    assert Client().get("/matches/999999/live/events/").status_code == 404


def test_the_event_stream_pushes_new_moves_and_ends_with_the_match(transactional_db) -> None:
    # The stream is async (an ASGI coroutine): read it through Django's AsyncClient, in one event loop.
    match = running_match("love_letter", 2)
    result = play_match("love_letter", seats_of(match), SEED)
    watch.do_publish(match.pk, result.replay["moves"][:2])

    async def watching() -> None:
        response = await AsyncClient().get(f"/matches/{match.pk}/live/events/")
        stream = aiter(response.streaming_content)
        assert (await anext(stream)).startswith(b"retry:")
        first = json.loads((await anext(stream)).decode().removeprefix("data: "))
        assert first["move_count"] == 2 and first["status"] == "running" and "public" in first
        await sync_to_async(watch.do_publish)(match.pk, result.replay["moves"][:3])
        began = time.monotonic()
        second = json.loads((await anext(stream)).decode().removeprefix("data: "))
        assert second["move_count"] == 3 and time.monotonic() - began < 2
        await sync_to_async(Match.objects.filter(pk=match.pk).update)(status=Match.Status.FINISHED)
        last = json.loads((await anext(stream)).decode().removeprefix("data: "))
        assert last["status"] == "finished" and "public" not in last
        assert (await anext(stream)).startswith(b"event: over")

    async_to_sync(watching)()


def test_live_lists_running_matches_tournament_games_first(db) -> None:
    ladder = running_match("love_letter", 2, seed=11)
    tournament = running_match("love_letter", 2, seed=12, kind=Match.Kind.TOURNAMENT)
    watch.do_publish(ladder.pk, [{"seat": 0, "action": {"card": 1}, "auto": False}])
    assert [m.pk for m in watch.live_matches()] == [tournament.pk, ladder.pk]
    page = Client().get("/live/").content.decode()
    assert f"/matches/{tournament.pk}/live/" in page and f"/matches/{ladder.pk}/live/" in page
    assert page.index(f"/matches/{tournament.pk}/live/") < page.index(f"/matches/{ladder.pk}/live/")
    assert 'hx-get="/live/lists/?seen=' in page
    seen = page.split('hx-get="/live/lists/?seen=')[1].split('"')[0]
    assert Client().get(f"/live/lists/?seen={seen}").status_code == 204
    Match.objects.filter(pk=ladder.pk).update(status=Match.Status.FINISHED)
    fresh = Client().get(f"/live/lists/?seen={seen}")
    assert fresh.status_code == 200 and f"/matches/{ladder.pk}/live/" not in fresh.content.decode()
    assert f"/matches/{tournament.pk}/live/" in Client().get(f"/matches/{tournament.pk}/").content.decode()


def test_each_game_of_a_series_tells_its_own_observer() -> None:
    seen: list[list[int]] = [[], []]
    observers = [lambda moves, n=n: seen[n].append(len(moves)) for n in range(2)]
    seats = [BotSeat(label="a", builtin="random"), BotSeat(label="b", builtin="random")]
    games = [SeriesGame(11), SeriesGame(12)]
    with prepare_series("love_letter", seats, games, sandbox="none", observers=observers) as series:
        result = series.play()
    for n, game in enumerate(result.games):
        assert seen[n] == list(range(len(game.replay["moves"]) + 1))  # before every decision, and at the end


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_hubs_kept_view_is_the_fresh_view_after_every_change_at_one_query_each(db, game_id: str) -> None:
    """watch.LiveView (what a web process keeps per watched match) sends exactly what match_view builds from
    nothing, move after move, after a requeue that starts the game again, and at the end; a change costs one
    query."""
    match = running_match(game_id, min(3, get_game(game_id).max_players))
    moves = play_match(game_id, seats_of(match), match.seed).replay["moves"]
    kept = watch.LiveView()
    for count in [0, 1, 2, 5, len(moves) // 2, len(moves) - 1]:
        watch.do_publish(match.pk, moves[:count])
        with CaptureQueriesContext(connection) as queries:
            view, status = kept.build(match.pk)
        assert view == watch.match_view(Match.objects.get(pk=match.pk)) and status == Match.Status.RUNNING
        assert view["move_count"] == count
        assert len(queries) == (3 if count == 0 else 1), [q["sql"] for q in queries]  # the fixed part read once
    # Requeued and claimed again: the same seats, a new attempt, the moves start again.
    Match.objects.filter(pk=match.pk).update(status=Match.Status.QUEUED)
    assert kept.build(match.pk)[1] == Match.Status.QUEUED
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING, attempts=match.attempts + 1)
    watch.do_publish(match.pk, moves[:3])
    view, _ = kept.build(match.pk)
    assert view == watch.match_view(Match.objects.get(pk=match.pk)) and view["move_count"] == 3
    # Moves that are not a continuation (another attempt's): from the start, still the same view.
    watch.do_publish(match.pk, moves[1:4])
    view, _ = kept.build(match.pk)
    assert view == watch.match_view(Match.objects.get(pk=match.pk))
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    view, status = kept.build(match.pk)
    assert status == Match.Status.FINISHED and "public" not in view and "over" in view["message"]
