"""A remote bot's stream holds its place under the stream caps for as long as it lives (a remote stream outlives a
live page's lease), and gives it back when it ends (league/site/remote_streams.py). Real Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterator

import pytest
import redis

from league.core.errors import RemoteStreamsFull
from league.site import remote_streams as streams
from league.site import stream_caps
from tests.real_redis import cleaned_client


@pytest.fixture
def client() -> Iterator[redis.Redis]:
    yield from cleaned_client(stream_caps.PREFIX)


def test_a_remote_streams_place_is_renewed_while_it_lives_and_given_back_when_it_ends(
    client: redis.Redis, monkeypatch: pytest.MonkeyPatch, settings
) -> None:
    settings.REMOTE_STREAMS_PER_BOT = 2
    monkeypatch.setattr(streams, "RENEW_SECONDS", 0.0)  # renewed at every line here
    everyone = f"{stream_caps.PREFIX}all"
    scores: list[float | None] = []

    async def lines(member: str) -> AsyncGenerator[bytes, None]:
        for _ in range(3):
            await asyncio.sleep(0.05)
            scores.append(client.zscore(everyone, member))
            yield b'{"ping":true}\n'

    async def scenario() -> None:
        place = await streams.hold(5)
        other = await streams.hold(5)
        with pytest.raises(RemoteStreamsFull):
            await streams.hold(5)  # the bot's third
        scores.append(client.zscore(everyone, place.member))
        sent = [line async for line in streams._held(lines(place.member), place)]
        assert len(sent) == 3
        await asyncio.sleep(0.2)  # the place is given back by a task of the loop
        assert client.zscore(everyone, place.member) is None and not place.held
        assert (await streams.hold(5)).held  # free again for the bot
        other.release()

    asyncio.run(scenario())
    assert None not in scores and scores == sorted(scores) and scores[-1] > scores[0]  # each line pushed it later
