"""/api/remote/ on the production path (uvicorn, Redis) with a real runner playing the remote seat's match: replies
taken once, resumes after drops, and every refusal a 4xx in the API's error shape (docs/remote.md)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
import requests
from django.conf import settings
from django.contrib.auth.models import User

from bots import remote
from bots.results import BotSeat, MatchResult
from bots.runner import Limits, play_match
from league.bots.models import Bot
from league.bots.services import do_create_remote_bot
from league.remote.channels import open_channel
from league.remote.services import do_issue_remote_token, do_revoke_remote_token
from tests.bots.remote_helpers import first_legal
from tests.real_redis import delete_keys, real_redis_url
from tests.serve.conftest import Server

RANDOM = BotSeat("builtin:random", builtin="random")
# The site as parlour/asgi.py serves it, and with the direct route for replies in front (league/remote/views.py).
APPS = ["tests.serve.counting_asgi:through_django", "tests.serve.counting_asgi:application"]


@pytest.fixture
def clean_redis() -> Iterator[None]:
    yield
    delete_keys(redis.Redis.from_url(real_redis_url()), remote.PREFIX)


def _remote_bot(name: str) -> tuple[Bot, str]:
    owner, _ = User.objects.get_or_create(username=f"owner-{name}", defaults={"email": f"{name}@example.org"})
    bot = do_create_remote_bot(owner, "love_letter", name)
    return bot, do_issue_remote_token(bot, owner)[1]


class _Played(threading.Thread):
    """The league's side: a match with the bot's remote seat, played by the runner on its channel."""

    def __init__(self, bot: Bot, seed: int = 4, limits: Limits | None = None) -> None:
        super().__init__(daemon=True)
        self.channel = open_channel(bot.pk, "love_letter", "test")
        self.seed, self.limits = seed, limits
        self.result: MatchResult | None = None

    def run(self) -> None:
        seat = BotSeat("remote", remote=self.channel)
        self.result = play_match("love_letter", [seat, RANDOM], seed=self.seed, sandbox="none", limits=self.limits)


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _lines(response: requests.Response) -> Iterator[dict[str, Any]]:
    for raw in response.iter_lines():
        if raw:
            line = json.loads(raw)
            if "ping" not in line:
                yield line


def _play_over_http(server: Server, key: str, channel: str, drop: Callable[[int], bool]) -> list[int]:
    """Play the seat by its first legal action over HTTP; ``drop(seq)``: drop the connection on reading message
    ``seq``, before handling it, and resume from the last one handled. Returns the sequence numbers handled."""
    handled: list[int] = []
    dropped: set[int] = set()
    while True:
        url = f"{server.url}/api/remote/channels/{channel}/messages/?after={handled[-1] if handled else 0}"
        with requests.get(url, headers=_auth(key), stream=True, timeout=30) as response:
            assert response.status_code == 200, response.text
            for item in _lines(response):
                if item.get("closed"):
                    return handled
                seq = item["seq"]
                if seq not in dropped and drop(seq):
                    dropped.add(seq)
                    break  # the connection is gone before the message was handled
                line = first_legal(item["message"])
                if line is not None:
                    posted = requests.post(
                        f"{server.url}/api/remote/channels/{channel}/replies/{seq}/",
                        data=line,
                        headers=_auth(key),
                        timeout=10,
                    )
                    assert posted.status_code == 200 and posted.json()["accepted"], posted.text
                handled.append(seq)


@pytest.mark.parametrize("app", APPS, ids=["django", "direct"])
def test_a_seat_played_over_http_resumes_after_every_drop_without_losing_a_message(
    asgi_server, clean_redis, app: str
) -> None:
    server = asgi_server(app=app)
    bot, key = _remote_bot("resumer")
    played = _Played(bot)
    played.start()
    handled = _play_over_http(server, key, played.channel.channel, drop=lambda seq: seq % 3 == 0)
    played.join(30)
    assert played.result is not None and played.result.seats[0].fault is None
    assert handled == list(range(1, len(handled) + 1))  # every message handled once, in order, dropped ones again
    assert len(handled) >= 6


@pytest.mark.parametrize("app", APPS, ids=["django", "direct"])
def test_a_reply_is_taken_once_and_a_late_or_foreign_one_never(asgi_server, clean_redis, app: str) -> None:
    server = asgi_server(app=app)
    bot, key = _remote_bot("once")
    _, other_key = _remote_bot("other")
    played = _Played(bot, limits=Limits.for_game("love_letter", startup_ms=3000))
    played.start()
    channel = played.channel.channel
    messages = f"{server.url}/api/remote/channels/{channel}/messages/?after=0"
    with requests.get(messages, headers=_auth(key), stream=True, timeout=30) as response:
        start = next(_lines(response))
    assert start["seq"] == 1 and start["message"]["type"] == "start"
    reply = f"{server.url}/api/remote/channels/{channel}/replies/1/"
    # Another bot's token does not even learn that the channel exists.
    foreign = requests.post(reply, data=b'{"type":"ready"}', headers=_auth(other_key), timeout=10)
    assert foreign.status_code == 404 and foreign.json()["error"]["code"] == "not_found"
    first = requests.post(reply, data=b'{"type":"ready"}\n', headers=_auth(key), timeout=10)
    again = requests.post(reply, data=b'{"type":"ready"}', headers=_auth(key), timeout=10)
    assert first.json() == {"seq": 1, "accepted": True} and again.json() == {"seq": 1, "accepted": False}
    # Message 2 is the first act; a reply to anything else awaits nothing.
    stale = requests.post(reply.replace("/1/", "/5/"), data=b'{"type":"ready"}', headers=_auth(key), timeout=10)
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale_move"
    played.join(30)  # nobody answers the act: a timeout, and the channel closes
    assert played.result is not None and played.result.seats[0].fault is not None
    assert played.result.seats[0].fault.cause == "timeout"
    late = requests.post(reply.replace("/1/", "/2/"), data=b'{"type":"ready"}', headers=_auth(key), timeout=10)
    assert late.status_code == 409


@pytest.mark.parametrize("app", APPS, ids=["django", "direct"])
def test_every_refusal_is_a_4xx_in_the_error_shape(asgi_server, clean_redis, app: str) -> None:
    server = asgi_server(app=app, REMOTE_REQUESTS_PER_SECOND="20")
    bot, key = _remote_bot("careful")
    played = _Played(bot, limits=Limits.for_game("love_letter", startup_ms=3000))
    played.start()
    base = f"{server.url}/api/remote"
    reply = f"{base}/channels/{played.channel.channel}/replies/1/"

    def code(response: requests.Response) -> tuple[int, str]:
        return response.status_code, response.json()["error"]["code"]

    assert code(requests.get(f"{base}/events/", timeout=10)) == (401, "not_authenticated")
    assert code(requests.get(f"{base}/events/", headers=_auth("prb_nope"), timeout=10)) == (
        401,
        "authentication_failed",
    )
    assert code(requests.get(f"{base}/events/?after=x", headers=_auth(key), timeout=10)) == (400, "invalid")
    assert code(requests.post(f"{base}/events/", headers=_auth(key), timeout=10)) == (405, "method_not_allowed")
    assert code(requests.get(f"{base}/channels/nope/messages/", headers=_auth(key), timeout=10)) == (404, "not_found")
    assert code(requests.post(reply, data=b"", headers=_auth(key), timeout=10)) == (400, "invalid")
    assert code(requests.post(reply, data=b'{"type":\n"ready"}', headers=_auth(key), timeout=10)) == (400, "invalid")
    assert code(requests.post(reply, data=b"x" * (64 * 1024 + 1), headers=_auth(key), timeout=10))[0] == 413
    statuses = [requests.post(reply, data=b"{}", headers=_auth(key), timeout=10).status_code for _ in range(40)]
    assert 429 in statuses and 500 not in statuses
    time.sleep(1.1)  # the next second: within the rate again
    do_revoke_remote_token(bot, bot.owner)
    assert code(requests.post(reply, data=b"{}", headers=_auth(key), timeout=10)) == (401, "authentication_failed")
    played.join(30)


def test_one_connection_per_bot_and_the_bot_is_online_while_it_is_open(asgi_server, clean_redis) -> None:
    server = asgi_server()
    bot, key = _remote_bot("single")
    client = redis.Redis.from_url(settings.REDIS_URL)
    events = f"{server.url}/api/remote/events/"
    first = requests.get(events, headers=_auth(key), stream=True, timeout=30)
    assert first.status_code == 200 and client.exists(remote.conn_key(bot.pk))
    played = _Played(bot, limits=Limits.for_game("love_letter", startup_ms=500))
    played.start()
    first_lines = _lines(first)
    announced = next(first_lines)
    assert announced["type"] == "game" and announced["channel"] == played.channel.channel
    second = requests.get(events, headers=_auth(key), stream=True, timeout=30)
    assert second.status_code == 200
    # The older connection is told at its next heartbeat that it was replaced, and ends.
    assert next(first_lines) == {"type": "replaced"}
    first.close()
    second.close()
    deadline = time.monotonic() + 15
    while client.exists(remote.conn_key(bot.pk)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not client.exists(remote.conn_key(bot.pk))  # offline once its connection is closed
    played.join(30)
