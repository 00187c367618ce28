"""Live streams on the production path (issue 30): a real uvicorn process serving parlour.asgi on the test database
and Redis. Open streams cost a coroutine (the home page stays fast with 50 open), a published move reaches a watcher
at once, the caps answer 429/503 with Retry-After, and the database work of a watched match does not grow with its
watchers (none per change when the change carries its moves, one read per change per process when it does not)."""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest
import requests

from bench.sse import Stream, open_stream
from bots.runner import play_match
from league.core import changes
from league.live import watch
from league.live.models import LiveMatch
from league.play.models import Match
from tests.league.live.test_watch import SEED, SPECTATOR_KEYS, running_match, seats_of
from tests.serve.conftest import Server

T = TypeVar("T")


class Watchers:
    """Event streams held open from an event loop of their own (in a thread), read as they come."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.streams: list[Stream] = []

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def open(self, path: str, count: int = 1, headers: dict[str, str] | None = None) -> list[Stream]:
        async def opening() -> list[Stream]:
            return list(
                await asyncio.gather(
                    *(open_stream(self.server.host, self.server.port, path, headers) for _ in range(count))
                )
            )

        streams = self.run(opening())
        self.streams += [stream for stream in streams if stream.status == 200]
        return streams

    def first_views(self, streams: list[Stream]) -> list[dict[str, Any] | None]:
        async def reading() -> list[dict[str, Any] | None]:
            return list(await asyncio.gather(*(stream.next_view(20) for stream in streams)))

        return self.run(reading())

    def keep_reading(self, streams: list[Stream]) -> None:
        """Read every event from now on in the background (as a browser does), keeping each view's arrival time."""

        async def drain(stream: Stream) -> None:
            try:
                while await stream.next_view(60) is not None:
                    pass
            except (TimeoutError, OSError, asyncio.IncompleteReadError):
                pass

        for stream in streams:
            asyncio.run_coroutine_threadsafe(drain(stream), self.loop)

    def close(self, streams: list[Stream] | None = None) -> None:
        for stream in list(streams if streams is not None else self.streams):
            self.loop.call_soon_threadsafe(stream.close)
            if stream in self.streams:
                self.streams.remove(stream)

    def stop(self) -> None:
        self.close()
        time.sleep(0.2)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def watchers() -> Iterator[list[Watchers]]:
    made: list[Watchers] = []
    yield made
    for each in made:
        each.stop()


class Mover:
    """Publishes a live match's moves, one every ``interval`` seconds, as its worker would (workers/live.py)."""

    def __init__(self, match: Match, interval: float = 0.15, carry: bool = True) -> None:
        self.match = match
        self.moves = play_match(match.game, seats_of(match), SEED).replay["moves"]
        self.interval = interval
        self.carry = carry  # False: the change says only "match <id>", as a writer that carries nothing would
        self.published = 1
        self._publish(self.moves[:1])
        self.published_at: dict[int, float] = {1: time.monotonic()}

    def _publish(self, moves: list[dict[str, Any]]) -> None:
        if self.carry:
            watch.do_publish(self.match.pk, moves)
            return
        stored = watch.public_moves(moves)
        LiveMatch.objects.update_or_create(match=self.match, defaults={"moves": stored, "move_count": len(stored)})
        changes.publish("match", self.match.pk)

    def publish(self, count: int) -> None:
        for _ in range(count):
            if self.published >= len(self.moves):
                return
            self.published += 1
            self._publish(self.moves[: self.published])
            self.published_at[self.published] = time.monotonic()
            time.sleep(self.interval)


def _home_page_ms(server: Server, samples: int = 30) -> list[float]:
    session = requests.Session()
    for _ in range(4):  # each web process's first answer compiles templates and fills caches
        session.get(f"{server.url}/", timeout=60)
    times = []
    for _ in range(samples):
        began = time.perf_counter()
        assert session.get(f"{server.url}/", timeout=60).status_code == 200
        times.append((time.perf_counter() - began) * 1000)
    return sorted(times)


def _p99(times: list[float]) -> float:
    return times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]


def test_open_event_streams_do_not_slow_the_home_page(asgi_server, watchers: list[Watchers]) -> None:
    server = asgi_server(processes=2, STREAM_MAX_PER_ADDRESS="500")
    match = running_match("love_letter", 2)
    mover = Mover(match)
    crowd = Watchers(server)
    watchers.append(crowd)
    quiet = _home_page_ms(server)
    figures = {0: quiet}
    for total in (2, 50):
        streams = crowd.open(f"/matches/{match.pk}/live/events/", total - len(crowd.streams))
        assert all(stream.status == 200 for stream in streams)
        assert all(view is not None for view in crowd.first_views(streams))
        crowd.keep_reading(streams)
        publishing = threading.Thread(target=mover.publish, args=(20,))
        publishing.start()  # the streams are busy while the page is measured: a move every 150 ms to each watcher
        figures[total] = _home_page_ms(server)
        publishing.join()
    report = {n: (round(statistics.median(t), 1), round(_p99(t), 1)) for n, t in figures.items()}
    print(f"home page p50/p99 ms by open streams: {report}")
    for total in (2, 50):
        # Under the old set-up (gunicorn, 2 sync workers) two streams made this page take 26 s.
        assert _p99(figures[total]) < 1000, report
        assert statistics.median(figures[total]) < max(200.0, 5 * statistics.median(quiet)), report


@pytest.mark.parametrize("path", ["redis", "embedded"])
def test_a_watcher_receives_a_published_move_at_once(asgi_server, watchers: list[Watchers], path: str) -> None:
    # Redis: the server re-reads the row only every 5 s unless told, so only the published change can be this fast.
    # The embedded default (no REDIS_URL): the one poller of the web process (every 100 ms) finds it.
    env = {"STREAM_POLL_MS": "5000"} if path == "redis" else {"REDIS_URL": ""}
    server = asgi_server(processes=1, **env)
    match = running_match("love_letter", 2)
    mover = Mover(match, interval=0)
    crowd = Watchers(server)
    watchers.append(crowd)
    (stream,) = crowd.open(f"/matches/{match.pk}/live/events/")
    assert stream.status == 200 and stream.headers["content-type"] == "text/event-stream"
    (first,) = crowd.first_views([stream])
    assert first is not None and first["move_count"] == 1
    for expected in (2, 3):
        mover.publish(1)
        view = crowd.run(stream.next_view(10))
        assert view is not None and view["move_count"] == expected
        delay = stream.events[-1][0] - mover.published_at[expected]
        assert delay < 1.0, f"move {expected} reached the watcher after {delay:.2f} s"
        # spectators get the public view only, exactly as before
        assert set(view) <= SPECTATOR_KEYS and "public" in view and str(SEED) not in str(view)
        assert view == watch.match_view(Match.objects.get(pk=match.pk))


def test_open_streams_are_capped_per_address_and_in_total(asgi_server, watchers: list[Watchers]) -> None:
    # One reverse proxy in front (TRUSTED_PROXY_COUNT=1): X-Forwarded-For tells the clients apart.
    server = asgi_server(processes=1, STREAM_MAX_PER_ADDRESS="2", STREAM_MAX_OPEN="3", TRUSTED_PROXY_COUNT="1")
    match = running_match("love_letter", 2)
    Mover(match)
    crowd = Watchers(server)
    watchers.append(crowd)
    path = f"/matches/{match.pk}/live/events/"

    def client(address: str) -> dict[str, str]:
        return {"X-Forwarded-For": address}

    # a refused or unknown stream holds no place
    for _ in range(3):
        assert [s.status for s in crowd.open("/matches/999999/live/events/", 1, client("10.0.0.1"))] == [404]
    first_two = crowd.open(path, 2, client("10.0.0.1"))
    assert [s.status for s in first_two] == [200, 200]
    (third,) = crowd.open(path, 1, client("10.0.0.1"))
    assert third.status == 429 and int(third.headers["retry-after"]) > 0
    assert b'"code": "throttled"' in third.body
    (other,) = crowd.open(path, 1, client("10.0.0.2"))
    assert other.status == 200  # another address still may: three open in all
    (full,) = crowd.open(path, 1, client("10.0.0.3"))
    assert full.status == 503 and int(full.headers["retry-after"]) > 0
    crowd.close(first_two[:1])  # a watcher leaves: its place is free again
    deadline = time.monotonic() + 10
    while True:
        (again,) = crowd.open(path, 1, client("10.0.0.3"))
        if again.status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert again.status == 200


def test_the_caps_hold_for_the_whole_site_across_web_processes(asgi_server, watchers: list[Watchers]) -> None:
    """Two web processes share the caps through Redis (league/site/stream_caps.py): one address gets its two streams
    however the connections are spread over the processes (each process alone would have let two more through)."""
    server = asgi_server(processes=2, STREAM_MAX_PER_ADDRESS="2", STREAM_MAX_OPEN="5", TRUSTED_PROXY_COUNT="1")
    match = running_match("love_letter", 2)
    Mover(match)
    crowd = Watchers(server)
    watchers.append(crowd)
    path = f"/matches/{match.pk}/live/events/"
    one = {"X-Forwarded-For": "10.0.1.1"}
    statuses = sorted(stream.status for stream in crowd.open(path, 12, one))  # at once: both processes take some
    assert statuses == [200, 200] + [429] * 10, statuses
    others = [crowd.open(path, 1, {"X-Forwarded-For": f"10.0.1.{n}"})[0].status for n in range(2, 7)]
    assert others == [200, 200, 200, 503, 503], others  # five in all, for the site
    held = [stream for stream in crowd.streams if stream.status == 200]
    crowd.close(held[:1])  # a watcher leaves: its place is free again, whichever process held it
    deadline = time.monotonic() + 10
    while crowd.open(path, 1, {"X-Forwarded-For": "10.0.1.9"})[0].status != 200:
        assert time.monotonic() < deadline, "the place given back was not free again"
        time.sleep(0.2)


def _queries_while_moving(server: Server, mover: Mover, moves: int) -> int:
    before = server.queries()
    mover.publish(moves)
    time.sleep(0.5)  # the last move's reads
    return server.queries() - before


@pytest.mark.parametrize("carry", [True, False], ids=["moves-carried", "bare-change"])
def test_the_database_work_of_a_watched_match_does_not_grow_with_its_watchers(
    asgi_server, watchers: list[Watchers], carry: bool
) -> None:
    # The safety poll would add a read now and then (once a minute here): only the moves' reads are compared.
    server = asgi_server(processes=1, STREAM_POLL_MS="60000", STREAM_MAX_PER_ADDRESS="100")
    match = running_match("love_letter", 2)
    mover = Mover(match, carry=carry)
    assert len(mover.moves) >= 17
    crowd = Watchers(server)
    watchers.append(crowd)
    path = f"/matches/{match.pk}/live/events/"
    one = crowd.open(path)
    assert None not in crowd.first_views(one)
    crowd.keep_reading(one)
    with_one = _queries_while_moving(server, mover, 8)
    opened_with_one = server.queries()
    more = crowd.open(path, 49)
    assert all(stream.status == 200 for stream in more) and None not in crowd.first_views(more)
    crowd.keep_reading(more)
    with_fifty = _queries_while_moving(server, mover, 8)
    time.sleep(0.3)
    reached = [stream for stream in one + more if stream.events and stream.events[-1][1]["move_count"] == 17]
    print(f"queries for 8 moves: {with_one} with 1 watcher, {with_fifty} with 50")
    assert len(reached) == 50, "every watcher saw the last move"
    if carry:
        # The change carries the moves: the web reads nothing for them, with one watcher or fifty; the fifty
        # openings cost no query either (a followed public match needs no check: the hub knows it exists).
        assert with_one == with_fifty == 0, (with_one, with_fifty)
        assert crowd.server.queries() - opened_with_one == 0
    else:
        assert 0 < with_fifty <= 1.2 * with_one, (with_one, with_fifty)
        assert with_one <= 2 * 8, "a move costs the fingerprint's read and the kept view's one read (was 4 a move)"
