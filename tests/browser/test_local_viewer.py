"""``python -m bots view replay.json``: the same viewer, served without the league (bots/authoring/viewer.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bots.authoring.viewer import ViewerError, load_replay, make_server
from games.registry import VIEWER_DIR
from tests.browser.conftest import Tab
from tests.browser.recorded import play_replay

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def replay_file(tmp_path: Path) -> Path:
    result = play_replay("love_letter", ["heuristic", "random", "heuristic"], seed=41)
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(result["replay"]))
    return path


@pytest.fixture
def local_viewer(replay_file: Path) -> Iterator[str]:
    server = make_server(load_replay(replay_file), str(replay_file))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_it_serves_the_page_frames_and_the_leagues_own_viewer_files(local_viewer: str) -> None:
    status, page = _get(local_viewer + "/")
    assert status == 200 and b"data-parlour-viewer" in page and b"/static/league/viewer/viewer.js" in page
    status, body = _get(local_viewer + "/frames?seat=2")
    document = json.loads(body)
    assert status == 200 and document["seat"] == 2 and document["renderer"] == "/static/games/love_letter/viewer.js"
    served = _get(local_viewer + "/static/league/viewer/viewer.js")[1]
    assert served == (VIEWER_DIR / "viewer.js").read_bytes()
    assert _get(local_viewer + "/static/games/love_letter/viewer.js")[0] == 200


@pytest.mark.parametrize(
    "path",
    [
        "/static/games/love_letter/engine.py",
        "/static/league/../../games/love_letter/engine.py",
        "/static/league/viewer/../../../parlour/settings.py",
        "/static/league/views.py",
        "/nothing",
    ],
)
def test_it_serves_nothing_else(local_viewer: str, path: str) -> None:
    status, body = _get(local_viewer + path)
    assert status == 404 and json.loads(body)["error"]["code"] == "not_found"


def test_a_bad_seat_is_refused_in_the_apis_error_shape(local_viewer: str) -> None:
    status, body = _get(local_viewer + "/frames?seat=7")
    assert status == 400 and "seat must be a seat number from 0 to 2" in json.loads(body)["error"]["message"]


def test_it_accepts_a_whole_match_result_and_refuses_what_it_cannot_show(tmp_path: Path, replay_file: Path) -> None:
    replay = json.loads(replay_file.read_text())
    wrapped = tmp_path / "result.json"
    wrapped.write_text(json.dumps({"seats": [], "replay": replay}))
    assert load_replay(wrapped) == replay
    (tmp_path / "old.json").write_text(json.dumps({**replay, "version": "0"}))
    with pytest.raises(ViewerError, match="engine v0, but this server runs v1"):
        load_replay(tmp_path / "old.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ViewerError, match="not JSON"):
        load_replay(tmp_path / "bad.json")
    with pytest.raises(ViewerError, match="No such file"):
        load_replay(tmp_path / "missing.json")


def test_the_command_line_says_what_is_wrong(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("[]")
    done = subprocess.run(
        [sys.executable, "-m", "bots", "view", str(tmp_path / "bad.json"), "--no-browser"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2 and "a replay is a JSON object" in done.stderr


def test_the_local_page_plays_the_replay_like_the_match_page(open_tab: Callable[..., Tab], local_viewer: str) -> None:
    tab = open_tab()
    tab.page.goto(local_viewer + "/#move=5")
    tab.page.wait_for_selector("[data-parlour-viewer][data-ready='1']")
    page = tab.page
    assert page.get_attribute(".pv-table", "data-step") == "5"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute(".pv-table", "data-step") == "6"
    page.click(".pv-persp-btn[data-seat='1']")
    page.wait_for_selector(".pv-table[data-perspective='1']")
    assert page.locator(".pv-table .ll-seat[data-seat='1'] .ll-hand .ll-card:not(.ll-back)").count() >= 1
    tab.shot("local-viewer")
    tab.assert_no_errors()
