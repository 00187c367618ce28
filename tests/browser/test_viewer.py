"""Every registered game's replay, watched in Chromium the way a new visitor would: it loads, steps with the buttons
and the arrow keys, deep-links to a move, plays, switches perspective and reveals the hidden cards at the end."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

from games.frames import frames
from games.registry import GAMES
from league.play.models import Match
from tests.browser.conftest import PHONE, Tab
from tests.browser.recorded import record_match

READY = "[data-parlour-viewer][data-ready='1']"
TABLE = ".pv-table"


def _step(tab: Tab) -> int:
    return int(tab.page.get_attribute(TABLE, "data-step"))


def _open_match(open_tab: Callable[..., Tab], match: Match, hash_: str = "", **kwargs) -> Tab:  # type: ignore[no-untyped-def]
    tab = open_tab(**kwargs)
    tab.goto(f"/matches/{match.pk}/{hash_}")
    tab.page.wait_for_selector(READY, timeout=15_000)
    return tab


def _first_line(document: dict, step: int) -> str | None:  # type: ignore[type-arg]
    lines = document["frames"][step]["lines"]
    return lines[0] if lines else None


@pytest.mark.parametrize("game_id", list(GAMES))
def test_each_games_replay_loads_steps_deep_links_and_switches_perspective(
    open_tab: Callable[..., Tab], game_id: str
) -> None:
    match = record_match(game_id, players=3, seed=11)
    document = frames(match.replay)
    last = len(document["frames"]) - 1
    middle = max(1, last // 2)
    tab = _open_match(open_tab, match)
    page = tab.page

    # It opens on the deal, with the moves listed beside the table.
    assert _step(tab) == 0 and page.inner_text(".pv-counter").startswith("Start")
    assert page.locator(".pv-move").count() == last + 2  # the deal, every move, the result
    assert page.inner_text(TABLE).strip()
    assert f"/static/games/{game_id}/viewer.js" in page.evaluate("window.parlourViewer.spectator.renderer")
    tab.shot(f"{game_id}-start")

    # Buttons step forward and back; the caption tells the move's story.
    page.click("button[title^='Forward']")
    assert _step(tab) == 1
    if line := _first_line(document, 1):
        # In the renderer's plain English if it rewords the engine's lines (`narrate`), which stay in the tooltip.
        said = page.inner_text(".pv-caption") + (page.get_attribute(".pv-cap-lines > div", "title") or "")
        assert line in said
    page.click("button[title^='Forward']")
    page.click("button[title^='Back']")
    assert _step(tab) == 1 and page.locator(".pv-move.pv-current").get_attribute("data-step") == "1"

    # Arrow keys, Home and End.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert _step(tab) == 3
    page.keyboard.press("ArrowLeft")
    assert _step(tab) == 2
    page.keyboard.press("End")
    assert _step(tab) == last and page.is_disabled("button[title^='Forward']")
    page.keyboard.press("Home")
    assert _step(tab) == 0 and page.is_disabled("button[title^='Back']")

    # Clicking a move in the list goes there and the address links to it.
    page.click(f".pv-move[data-step='{middle}']")
    assert _step(tab) == middle and page.url.endswith(f"#move={middle}")

    # The perspective switch: a seat sees its own hidden cards, which the spectator does not.
    spectator_table = page.inner_html(TABLE)
    page.click(".pv-persp-btn[data-seat='0']")
    page.wait_for_selector(f"{TABLE}[data-perspective='0']")
    assert _step(tab) == middle and page.inner_html(TABLE) != spectator_table
    assert page.get_attribute(".pv-persp-btn[data-seat='0']", "aria-pressed") == "true"
    assert page.url.endswith(f"#move={middle}&seat=0")
    tab.shot(f"{game_id}-move{middle}-seat0")
    page.click(".pv-persp-btn[data-seat='']")
    page.wait_for_selector(f"{TABLE}[data-perspective='spectator']")
    tab.shot(f"{game_id}-move{middle}-spectator")

    # After the end every hidden card is revealed, and that can be switched off.
    page.keyboard.press("End")
    assert page.is_visible(".pv-reveal") and "pv-revealed" in (page.get_attribute(TABLE, "class") or "")
    assert "Result" in page.inner_text(".pv-caption")
    tab.shot(f"{game_id}-end-revealed")
    page.uncheck(".pv-reveal input")
    assert "pv-revealed" not in (page.get_attribute(TABLE, "class") or "")

    # Play at 8x runs on by itself, and pauses.
    page.keyboard.press("Home")
    page.select_option(".pv-speed", "8")
    page.click(".pv-play")
    # Polled from here, not with page.wait_for_function: Playwright evaluates that predicate with eval(), which the
    # site's Content-Security-Policy (script-src 'self', no 'unsafe-eval') refuses.
    deadline = time.monotonic() + 5
    while _step(tab) < 3:
        assert time.monotonic() < deadline, f"still at step {_step(tab)} after 5 s of playing"
        page.wait_for_timeout(50)
    page.click(".pv-play")
    paused_at = _step(tab)
    page.wait_for_timeout(400)
    assert _step(tab) == paused_at

    tab.assert_no_errors()


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_link_to_a_move_opens_the_replay_there(open_tab: Callable[..., Tab], game_id: str) -> None:
    match = record_match(game_id, players=3, seed=12)
    move = min(17, len(match.replay["moves"]))
    tab = _open_match(open_tab, match, f"#move={move}&seat=1")
    page = tab.page
    assert _step(tab) == move and page.get_attribute(TABLE, "data-perspective") == "1"
    assert page.locator(".pv-move.pv-current").get_attribute("data-step") == str(move)
    assert page.inner_text(".pv-step") == f"Move {move}"
    tab.assert_no_errors()


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_replay_reads_well_on_a_phone(open_tab: Callable[..., Tab], game_id: str) -> None:
    match = record_match(game_id, players=3, seed=13)
    middle = len(match.replay["moves"]) // 2
    tab = _open_match(open_tab, match, f"#move={middle}", viewport=PHONE)
    page = tab.page
    tab.assert_fits(PHONE["width"])
    page.tap("button[title^='Forward']")
    assert _step(tab) == middle + 1
    # On a phone the perspective switch is a select.
    assert page.is_hidden(".pv-persp-btn") and page.is_visible(".pv-persp-select")
    page.select_option(".pv-persp-select", "1")
    page.wait_for_selector(f"{TABLE}[data-perspective='1']")
    tab.shot(f"{game_id}-phone", full_page=False)
    page.evaluate("document.querySelector('.pv-table').scrollIntoView()")
    tab.shot(f"{game_id}-phone-table", full_page=False)
    tab.assert_no_errors()


def test_bot_notes_times_and_faults_are_shown_beside_the_moves(open_tab: Callable[..., Tab]) -> None:
    match = record_match("love_letter", players=2, seed=21)
    replay = match.replay
    # Seat 1 timed out at its third decision: from there its moves were played automatically.
    decisions = [index for index, move in enumerate(replay["moves"]) if move["seat"] == 1]
    fault_at = decisions[2]
    for index in decisions[2:]:
        replay["moves"][index]["auto"] = True
    replay["faults"] = [{"seat": 1, "cause": "timeout", "detail": "no answer within 1000 ms", "move": fault_at}]
    Match.objects.filter(pk=match.pk).update(replay_data=Match.pack_replay(replay))
    noted = next(index for index, move in enumerate(replay["moves"], start=1) if move["note"])

    tab = _open_match(open_tab, match)
    page = tab.page
    item = page.locator(f".pv-move[data-step='{noted}']")
    assert replay["moves"][noted - 1]["note"] in item.inner_text()
    assert re.search(r"\d+(\.\d)? ms", item.locator(".pv-ms").inner_text())
    faulted = page.locator(f".pv-move[data-step='{fault_at + 1}']")
    assert "faulted (timeout)" in faulted.inner_text() and faulted.locator(".pv-tag-auto").count() == 1
    page.click(f".pv-move[data-step='{fault_at + 1}']")
    assert "no answer within 1000 ms" in page.inner_text(".pv-caption")
    tab.shot("love_letter-fault")
    tab.assert_no_errors()


def test_a_replay_from_an_older_engine_says_why_it_cannot_be_shown(open_tab: Callable[..., Tab]) -> None:
    match = record_match("love_letter", players=2, seed=22)
    replay = match.replay
    replay["version"] = "0"
    Match.objects.filter(pk=match.pk).update(replay_data=Match.pack_replay(replay), engine_version="0")
    # The browser itself logs the 409 of the frames request; nothing else may fail.
    tab = open_tab(tolerate=re.compile(r"/favicon\.ico$|/frames/"))
    tab.goto(f"/matches/{match.pk}/")
    tab.page.wait_for_selector("[data-parlour-viewer][data-ready='error']")
    message = tab.page.inner_text(".pv-error")
    assert "engine v0, but this server runs v1" in message
    # The server-rendered move list is still there to read.
    assert tab.page.locator("ol.moves li").count() == len(replay["moves"])
    tab.assert_no_errors()


def test_a_game_without_a_renderer_falls_back_to_readable_data(open_tab: Callable[..., Tab], settings) -> None:
    settings.STATICFILES_FINDERS = [f for f in settings.STATICFILES_FINDERS if not f.startswith("league.")]
    match = record_match("love_letter", players=2, seed=23)
    tab = _open_match(open_tab, match, "#move=3")
    page = tab.page
    assert page.locator(f"{TABLE} .pv-generic").count() == 1
    assert "tokens" in page.inner_text(TABLE)
    tab.shot("generic-renderer")
    tab.assert_no_errors()


def test_the_replay_can_be_downloaded_as_json(open_tab: Callable[..., Tab]) -> None:
    match = record_match("love_letter", players=2, seed=24)
    tab = _open_match(open_tab, match)
    with tab.page.expect_download() as download:
        tab.page.click(".pv-download")
    assert download.value.suggested_filename == f"parlour-match-{match.pk}-love_letter.json"
    with open(download.value.path()) as file:
        assert '"format":"parlour-replay/1"' in file.read().replace(" ", "")
    tab.assert_no_errors()


SIZES = {"laptop": {"width": 1366, "height": 900}, "phone": PHONE}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_viewer_fits_the_screen_at_the_deal_the_middle_and_the_end(
    open_tab: Callable[..., Tab], game_id: str, size: str
) -> None:
    """No sideways scrolling and no console error, from the deal to the end, with all hands shown and hidden."""
    match = record_match(game_id, players=3, seed=14)
    last = len(match.replay["moves"])
    width = SIZES[size]["width"]
    tab = _open_match(open_tab, match, viewport=SIZES[size])
    page = tab.page
    tab.assert_fits(width)
    for step, name in ((last // 2, "middle"), (last, "end")):
        page.evaluate(f"window.parlourViewer.go({step})")
        assert _step(tab) == step
        tab.assert_fits(width)
        tab.shot(f"{game_id}-{size}-{name}")
    if page.is_enabled(".pv-hands input"):  # disabled where nothing is hidden from a spectator (High Society)
        page.check(".pv-hands input")
    page.evaluate(f"window.parlourViewer.go({last // 3})")
    tab.assert_fits(width)
    tab.shot(f"{game_id}-{size}-all-hands")
    tab.assert_no_errors()


@pytest.mark.parametrize("game_id", list(GAMES))
def test_show_all_hands_reveals_every_hand_of_a_finished_game_to_the_spectator_only(
    open_tab: Callable[..., Tab], game_id: str
) -> None:
    match = record_match(game_id, players=3, seed=15)
    document = frames(match.replay)
    hides = any(step["patch"] for step in document["all_hands"][1:]) or bool(document["all_hands"][0]["view"])
    step = max(1, len(match.replay["moves"]) // 3)
    tab = _open_match(open_tab, match, f"#move={step}")
    page = tab.page
    # Off by default: the spectator sees what anyone at the table saw.
    assert page.is_visible(".pv-hands") and not page.is_checked(".pv-hands input")
    assert page.get_attribute(TABLE, "data-hands") == ""
    hidden_view = page.inner_html(TABLE)
    if not page.is_enabled(".pv-hands input"):
        assert not hides  # e.g. TEN: every card in play is public
        tab.assert_no_errors()
        return
    page.check(".pv-hands input")
    assert page.get_attribute(TABLE, "data-hands") == "all" and page.inner_html(TABLE) != hidden_view
    assert "All hands shown" in page.inner_text(".pv-caption")
    # A seat's view stays what that seat knew; the switch belongs to the spectator.
    page.click(".pv-persp-btn[data-seat='1']")
    page.wait_for_selector(f"{TABLE}[data-perspective='1']")
    assert page.is_hidden(".pv-hands") and page.get_attribute(TABLE, "data-hands") == ""
    tab.assert_no_errors()


def test_the_default_speed_shows_a_long_game_in_under_a_minute(open_tab: Callable[..., Tab]) -> None:
    match = record_match("ten", players=5, seed=16)
    moves = len(match.replay["moves"])
    tab = _open_match(open_tab, match)
    page = tab.page
    interval = page.evaluate("window.parlourViewer.interval")
    assert page.input_value(".pv-speed") == "1" and moves * interval < 60_000, (moves, interval)
    # The speed menu says how long the whole game takes.
    assert re.search("1\u00d7 \u00b7 \\d+ s", page.inner_text(".pv-speed"))
    page.click(".pv-play")
    started = time.monotonic()
    page.wait_for_timeout(2000)
    page.click(".pv-play")
    played = _step(tab)
    # About 2000 / interval moves in two seconds (timers are coarse under load: a generous margin).
    assert played >= min(moves, 2000 // interval // 2), (played, interval, time.monotonic() - started)
    tab.assert_no_errors()
