"""A remote bot's connection on the production path (uvicorn, Redis): only a connection lost while a game of the bot
is in play is a drop; a client that stops between games, or says goodbye (as `python -m bots connect` does when it is
stopped), is not. And its streams hold places under the stream caps (docs/remote.md, "Limits and safety")."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
import requests
from django.contrib.auth.models import User

from bots import remote
from games import registry
from league.bots.models import Bot
from league.bots.services import do_create_remote_bot
from league.remote.channels import open_channel
from league.remote.services import do_issue_remote_token
from league.site import stream_caps
from tests.league.live.test_watch import running_match
from tests.real_redis import cleaned_client
from tests.serve.conftest import ROOT, Server


@pytest.fixture
def client() -> Iterator[redis.Redis]:
    yield from cleaned_client(remote.PREFIX)


@pytest.fixture
def connects(tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    for log in sorted(tmp_path.glob("connect-*.log")):
        print(f"--- {log.name}\n" + "\n".join(log.read_text(errors="replace").splitlines()[-30:]))


def _remote_bot(name: str) -> tuple[Bot, str]:
    owner, _ = User.objects.get_or_create(username=f"owner-{name}", defaults={"email": f"{name}@example.org"})
    bot = do_create_remote_bot(owner, "love_letter", name)
    return bot, do_issue_remote_token(bot, owner)[1]


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _wait(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.1)


def _events(server: Server, key: str) -> requests.Response:
    response = requests.get(f"{server.url}/api/remote/events/", headers=_auth(key), stream=True, timeout=30)
    assert response.status_code == 200, response.text
    return response


def test_a_connection_lost_with_a_game_in_play_is_a_drop_and_one_between_games_is_not(
    asgi_server, client: redis.Redis
) -> None:
    server = asgi_server()
    bot, key = _remote_bot("dropper")
    online = remote.conn_key(bot.pk)

    _events(server, key).close()  # no game in play: the client simply went away between games
    _wait(lambda: not client.exists(online), 15, "offline once its stream is closed")
    assert client.zcard(remote.drops_key(bot.pk)) == 0

    channel = open_channel(bot.pk, "love_letter", "a game")  # announced: the bot owes the game its moves now
    assert client.zscore(remote.playing_key(bot.pk), channel.channel) is not None
    _events(server, key).close()
    _wait(lambda: not client.exists(online), 15, "offline once its stream is closed")
    assert client.zcard(remote.drops_key(bot.pk)) == 1

    # The runner closed the channel (the game is over): in play no longer, so a closed stream is no drop again.
    client.zrem(remote.playing_key(bot.pk), channel.channel)
    _events(server, key).close()
    _wait(lambda: not client.exists(online), 15, "offline once its stream is closed")
    assert client.zcard(remote.drops_key(bot.pk)) == 1


def test_a_client_that_says_goodbye_is_never_a_drop(asgi_server, client: redis.Redis) -> None:
    server = asgi_server()
    bot, key = _remote_bot("polite")
    open_channel(bot.pk, "love_letter", "a game")
    stream = _events(server, key)
    assert client.exists(remote.conn_key(bot.pk))
    bye = requests.delete(f"{server.url}/api/remote/events/", headers=_auth(key), timeout=10)
    assert bye.status_code == 204
    assert not client.exists(remote.conn_key(bot.pk))  # offline at once
    # Its stream ends by itself at its next heartbeat, and says why.
    lines = [json.loads(raw) for raw in stream.iter_lines() if raw]
    assert lines[-1] == {"type": "ended"}
    stream.close()
    time.sleep(1)
    assert client.zcard(remote.drops_key(bot.pk)) == 0
    # A goodbye is the bot's own: it needs the token.
    refused = requests.delete(f"{server.url}/api/remote/events/", headers=_auth("prb_nope"), timeout=10)
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "authentication_failed"


def _connect(started: list[subprocess.Popen[bytes]], tmp_path: Path, server: Server, key: str) -> subprocess.Popen:
    log = (tmp_path / f"connect-{len(started)}.log").open("wb")
    command = [sys.executable, "-m", "bots", "connect", "--token", key, "--url", server.url]
    command.append(str(registry.example_dir("love_letter")))
    process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    started.append(process)
    return process


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_python_m_bots_connect_stopped_says_goodbye_and_killed_it_drops(
    asgi_server, client: redis.Redis, connects, tmp_path: Path, stop: signal.Signals
) -> None:
    server = asgi_server()
    bot, key = _remote_bot(f"connected-{stop.name.lower()}")
    online = remote.conn_key(bot.pk)
    open_channel(bot.pk, "love_letter", "a game")  # a game in play all along: only a goodbye keeps it from a drop

    process = _connect(connects, tmp_path, server, key)
    _wait(lambda: bool(client.exists(online)), 30, "connect's event stream open")
    process.send_signal(stop)
    assert process.wait(15) == 130
    assert not client.exists(online)  # offline at once: the goodbye came before the stream closed
    time.sleep(1)
    assert client.zcard(remote.drops_key(bot.pk)) == 0

    process = _connect(connects, tmp_path, server, key)
    _wait(lambda: bool(client.exists(online)), 30, "connect's event stream open again")
    process.kill()  # a machine that dies says nothing: its game is left waiting
    process.wait(10)
    _wait(lambda: not client.exists(online), 15, "offline once the connection is gone")
    assert client.zcard(remote.drops_key(bot.pk)) == 1


def test_a_bots_streams_count_under_its_own_cap_and_the_sites(asgi_server, client: redis.Redis) -> None:
    server = asgi_server(REMOTE_STREAMS_PER_BOT="2", STREAM_MAX_OPEN="3")
    match = running_match("love_letter", 2)  # (first: it seats the game's first bots)
    bot, key = _remote_bot("streamy")
    _other, other_key = _remote_bot("other")
    channel = open_channel(bot.pk, "love_letter", "a game").channel
    messages = f"{server.url}/api/remote/channels/{channel}/messages/?after=0"

    events = _events(server, key)
    first = requests.get(messages, headers=_auth(key), stream=True, timeout=30)
    assert first.status_code == 200
    third = requests.get(messages, headers=_auth(key), timeout=10)  # the bot's third stream
    assert third.status_code == 429 and int(third.headers["Retry-After"]) > 0
    assert third.json()["error"]["code"] == "throttled" and "2 streams" in third.json()["error"]["message"]
    held = client.zrange(f"{stream_caps.PREFIX}address:remote-bot:{bot.pk}", 0, -1)
    assert len(held) == 2 and client.zcard(f"{stream_caps.PREFIX}all") == 2

    other_events = _events(server, other_key)  # the site's third: full now, for remote bots and pages alike
    assert requests.get(f"{server.url}/api/remote/events/", headers=_auth(key), timeout=10).status_code == 429
    full = requests.get(f"{server.url}/api/remote/events/", headers=_auth(other_key), timeout=10)
    assert full.status_code == 503 and full.json()["error"]["code"] == "server_busy"
    page = requests.get(f"{server.url}/matches/{match.pk}/live/events/", stream=True, timeout=10)
    assert page.status_code == 503  # a live page's stream is under the same total
    page.close()

    first.close()  # a stream closed gives its place back
    deadline = time.monotonic() + 10
    while True:
        again = requests.get(messages, headers=_auth(key), stream=True, timeout=10)
        again.close()
        if again.status_code == 200:
            break
        assert time.monotonic() < deadline, "the place given back was not free again"
        time.sleep(0.2)
    events.close()
    other_events.close()
