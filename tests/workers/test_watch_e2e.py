"""Watching a running league match with real parts: a real Celery worker on a real Redis plays a ladder match with a
sandboxed bot that thinks slowly; its moves appear for spectators (the live row, the page's event stream) before the
match ends, they are the replay's moves as played, and the live row is gone once the match is recorded."""

from __future__ import annotations

import json
import time

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django.test import AsyncClient

from league.live.models import LiveMatch
from league.play.matches import do_create_match
from league.play.models import Match
from tests.workers.fault_helpers import SLOW_BOT, league_bot

pytestmark = pytest.mark.e2e


async def _first_view(pk: int) -> dict:
    """The first view the page's event stream sends (the stream is async: read through Django's AsyncClient)."""
    response = await AsyncClient().get(f"/matches/{pk}/live/events/")
    stream = aiter(response.streaming_content)
    await anext(stream)  # retry:
    return json.loads((await anext(stream)).decode().removeprefix("data: "))


def test_a_running_matchs_moves_appear_live_before_it_ends(celery_workers) -> None:
    celery_workers.start(LADDER_ENABLED="0")
    owner = User.objects.create_user("watcher-owner")
    slow, rival = league_bot(owner, "slow", source=SLOW_BOT), league_bot(owner, "random", builtin="random")
    match = do_create_match("love_letter", [slow, rival])
    seen: dict[int, list] = {}  # move count -> the moves published then
    views = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = Match.objects.values_list("status", flat=True).get(pk=match.pk)
        if status in Match.Status.finalized():
            break
        live = LiveMatch.objects.filter(match_id=match.pk).first()
        if status == Match.Status.RUNNING and live is not None and live.move_count not in seen:
            seen[live.move_count] = live.moves
            if len(views) < 2 and live.move_count:
                views.append(async_to_sync(_first_view)(match.pk))
        time.sleep(0.03)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED, (match.status, match.error)
    counts = sorted(count for count in seen if count)
    assert len(counts) >= 3, f"live frames seen while it ran: {counts}"
    replay = match.replay
    assert replay is not None and counts[-1] <= len(replay["moves"])
    played = [{"seat": m["seat"], "action": m["action"], "auto": m["auto"]} for m in replay["moves"]]
    for count in counts:
        assert seen[count] == played[:count]  # the moves as played, without the bots' notes or timings
    assert views and all("public" in view and view["move_count"] > 0 for view in views)
    assert not any("seed" in view or "moves" in view for view in views)
    assert not LiveMatch.objects.filter(match_id=match.pk).exists()
