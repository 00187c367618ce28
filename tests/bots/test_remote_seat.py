"""bots.runner.remote: a remote seat driven by the runner through its channel in a real Redis, timed and checked as a
sandboxed bot is (docs/remote.md). The web side is left out: tests/serve/test_remote_api.py covers it."""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator

import pytest
import redis

from bots import remote
from bots.limits import Limits
from bots.results import BotSeat, FaultCause, RemoteChannel
from bots.runner import SeriesGame, play_match, run_series
from bots.runner.remote import RemoteProcess
from tests.bots.remote_helpers import ChannelBot, first_legal
from tests.real_redis import delete_keys, real_redis_url

RANDOM = BotSeat("builtin:random", builtin="random")


@pytest.fixture
def url() -> Iterator[str]:
    found = real_redis_url()
    yield found
    delete_keys(redis.Redis.from_url(found), remote.PREFIX)


def _seat(url: str) -> tuple[BotSeat, str]:
    channel = remote.new_channel_id()
    return BotSeat("alice/far v1", remote=RemoteChannel(url, channel)), channel


def test_a_remote_seat_plays_a_whole_match_from_its_channel(url: str) -> None:
    seat, channel = _seat(url)
    bot = ChannelBot(url, channel)
    bot.start()
    result = play_match("love_letter", [seat, RANDOM], seed=3, sandbox="none")
    bot.join(10)
    mine = result.seats[0]
    assert mine.fault is None and mine.moves > 0
    kinds = [message["type"] for _, message in bot.seen]
    assert kinds[0] == "start" and kinds[-1] == "end" and kinds.count("act") == mine.moves
    assert [seq for seq, _ in bot.seen] == list(range(1, len(bot.seen) + 1))  # numbered 1, 2, ... without a gap
    assert bot.closed and not bot.refused
    mine_in_replay = [move for move in result.replay["moves"] if move["seat"] == 0]
    assert len(mine_in_replay) == mine.moves and not any(move["auto"] for move in mine_in_replay)


def test_a_reply_after_the_clock_is_a_timeout_and_random_plays_on(url: str) -> None:
    seat, channel = _seat(url)
    slow_from = 4  # the start and the first act or two are answered at once, then every reply is late
    bot = ChannelBot(url, channel, delay=lambda seq: 0.5 if seq >= slow_from else 0.0)
    bot.start()
    limits = Limits.for_game("love_letter", move_ms=150, bank_ms=100)
    result = play_match("love_letter", [seat, RANDOM], seed=5, sandbox="none", limits=limits)
    bot.join(10)
    fault = result.seats[0].fault
    assert fault is not None and fault.cause is FaultCause.TIMEOUT and result.seats[0].rank == 2
    assert bot.refused  # the late reply was not taken: the seat's request no longer awaited one
    assert result.replay["moves"][-1]["auto"] or result.replay["moves"][-1]["seat"] == 1


def test_a_remote_reply_is_checked_as_any_bots_line(url: str) -> None:
    seat, channel = _seat(url)

    def duplicate_keys(message: dict[str, object]) -> bytes | None:
        if message["type"] == "act":
            return b'{"type":"action","action":{},"action":{}}'
        return first_legal(message)  # type: ignore[arg-type]

    bot = ChannelBot(url, channel, reply=duplicate_keys)
    bot.start()
    result = play_match("love_letter", [seat, RANDOM], seed=7, sandbox="none")
    bot.join(10)
    fault = result.seats[0].fault
    assert fault is not None and fault.cause is FaultCause.MALFORMED and "duplicate" in fault.detail


def test_no_ready_within_the_start_up_limit_is_a_startup_fault(url: str) -> None:
    seat, _ = _seat(url)  # nobody connected
    limits = Limits.for_game("love_letter", startup_ms=300)
    started = time.monotonic()
    result = play_match("love_letter", [seat, RANDOM], seed=1, sandbox="none", limits=limits)
    assert result.seats[0].fault is not None and result.seats[0].fault.cause is FaultCause.STARTUP
    assert time.monotonic() - started < 3


def test_a_series_plays_every_game_on_one_channel(url: str) -> None:
    seat, channel = _seat(url)
    bot = ChannelBot(url, channel)
    bot.start()
    series = run_series("love_letter", [seat, RANDOM], [SeriesGame(1), SeriesGame(2), SeriesGame(3)], sandbox="none")
    bot.join(10)
    assert len(series.games) == 3 and all(result.seats[0].fault is None for result in series.games)
    kinds = [message["type"] for _, message in bot.seen]
    assert kinds.count("start") == 3 and kinds.count("end") == 3 and bot.closed


def test_waiting_on_a_remote_seat_holds_no_cpu(url: str) -> None:
    """The runner blocks (a selector, a blocking pop) while the remote bot thinks: no busy polling."""
    seat, channel = _seat(url)
    bot = ChannelBot(url, channel, delay=lambda seq: 0.4 if seq in (2, 3) else 0.0)
    bot.start()
    before = resource.getrusage(resource.RUSAGE_SELF)
    began = time.monotonic()
    result = play_match("love_letter", [seat, RANDOM], seed=9, sandbox="none")
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_SELF)
    bot.join(10)
    assert result.seats[0].fault is None and wall >= 0.8
    # Our own test bot's thread is in this process too; the whole process used a small part of the wall time.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu < 0.25 * wall, f"{cpu:.3f} s of CPU over {wall:.3f} s"


def test_the_runner_numbers_its_messages_and_marks_the_awaited_one(url: str) -> None:
    seat, channel = _seat(url)
    client = redis.Redis.from_url(url)
    limits = Limits.for_game("love_letter", startup_ms=400)
    play_match("love_letter", [seat, RANDOM], seed=2, sandbox="none", limits=limits)  # nobody answers
    entries = client.xrange(remote.outbox_key(channel))
    assert [remote.seq_of(entry_id) for entry_id, _ in entries] == [1, 2]
    assert json.loads(entries[0][1][b"m"])["type"] == "start" and remote.CLOSED.encode() in entries[1][1]
    assert client.get(remote.pending_key(channel)) is None  # nothing awaits a reply once the seat is closed


def _last_id(client: redis.Redis, key: str) -> bytes | None:
    """The stream's last entry id; None before the relay's first append has made it."""
    last = client.xrevrange(key, count=1)
    return last[0][0] if last else None


def test_a_channels_outbox_is_bounded_and_its_game_is_in_play_until_the_runner_closes_it(url: str) -> None:
    """A runaway match cannot grow Redis without bound: the outbox keeps about OUTBOX_MAXLEN messages, the newest.
    While the runner writes to the channel, the bot's game is in play (a lost connection is a drop then)."""
    channel = remote.new_channel_id()
    client = redis.Redis.from_url(url)
    playing = remote.playing_key(7)
    seat = RemoteProcess(RemoteChannel(url, channel, bot_id=7))
    sent = remote.OUTBOX_MAXLEN * 3
    os.set_blocking(seat.stdin_fd, True)
    for index in range(sent):
        os.write(seat.stdin_fd, b'{"type":"update","n":%d}\n' % index)
    deadline = time.monotonic() + 20
    while _last_id(client, remote.outbox_key(channel)) != remote.stream_id(sent).encode():
        assert time.monotonic() < deadline, "the relay did not append every message"
        time.sleep(0.05)
    assert client.zscore(playing, channel) is not None
    kept = client.xrange(remote.outbox_key(channel))
    assert remote.OUTBOX_MAXLEN <= len(kept) <= remote.OUTBOX_MAXLEN + 200  # (trimmed a node of entries at a time)
    assert remote.seq_of(kept[-1][0]) == sent  # the newest are the ones kept
    seat.close_stdin()
    seat.close()
    assert client.zscore(playing, channel) is None  # closed: no game of the bot's is in play on it any more
