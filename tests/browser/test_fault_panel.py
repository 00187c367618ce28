"""The owner's panel on a match page in Chromium: the bot's actions and its fault read as the JSON of the protocol,
never as Python's repr."""

from __future__ import annotations

import json
from collections.abc import Callable

from league.bots.models import BotVersion
from league.bots.services import do_create_bot, do_register_builtin_bots
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from tests.browser.conftest import Tab
from tests.browser.recorded import play_replay
from tests.results import runner_result


def test_the_fault_panel_shows_actions_as_json(open_tab: Callable[..., Tab], live_server, alice) -> None:
    do_register_builtin_bots(["love_letter"])
    mine = do_create_bot(alice, "love_letter", "rash", b"print()\n", "main.py").versions.get()
    random_version = BotVersion.objects.get(bot__name="random", bot__game="love_letter", bot__is_builtin=True)
    match = do_create_match("love_letter", [mine, random_version], seed=1, kind=Match.Kind.CHALLENGE)
    do_claim_match(match.pk)
    # A real game (so the viewer replays it), with a fault put on seat 0 as the runner reports one.
    result = play_replay("love_letter", ["random", "random"], 1, [mine.label, random_version.label])
    detail = '{"card": 9, "target": "é"}: no such card in your hand'
    result["seats"][0]["fault"] = {"cause": "illegal", "detail": detail, "move": 3}
    own_actions = [move["action"] for move in result["replay"]["moves"] if move["seat"] == 0]
    do_record_match_result(match.pk, runner_result(result))

    tab = open_tab().sign_in(alice)
    tab.goto(f"/matches/{match.pk}/")
    panel = tab.page.locator("#own-seat-0")
    assert panel.get_attribute("open") is not None  # a faulted seat's panel opens by itself
    shown = panel.locator(".own-moves-table td code").all_inner_texts()
    assert [json.loads(text) for text in shown] == own_actions  # Python's repr ({'card': 1}) is no JSON
    text = panel.inner_text()
    assert "{'" not in text and detail in text
    tab.shot("match-owner-fault-json")
    tab.assert_no_errors()
