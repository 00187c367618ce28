"""The frames endpoint, its errors, the renderer's static finder and the match page's viewer."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from games.frames import expand_views
from games.registry import get_game
from league.play.models import Match
from league.play.replays import renderer_url
from league.site.staticfinders import GameViewerFinder
from tests.browser.recorded import record_match

FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "league.site.staticfinders.GameViewerFinder",
]


@pytest.fixture(autouse=True)
def _game_renderers_are_static_files(settings) -> None:
    settings.STATICFILES_FINDERS = FINDERS


@pytest.fixture
def match(db) -> Match:
    return record_match("love_letter", players=3, seed=4)


def test_the_frames_of_a_match_are_its_replay_re_simulated(anon_api: APIClient, match: Match) -> None:
    response = anon_api.get(f"/api/matches/{match.pk}/frames/")
    assert response.status_code == 200
    document = response.json()
    replay = match.replay
    assert document["match"] == match.pk and document["seat"] is None
    assert len(document["frames"]) == len(replay["moves"]) + 1
    state = get_game("love_letter").replay(3, replay["seed"], {}, [m["action"] for m in replay["moves"]])
    assert expand_views(document)[-1] == state.public_view()
    assert document["revealed"] == state.full_view()
    assert document["renderer"].endswith("/games/love_letter/viewer.js")


def test_a_seat_view_shows_that_seats_hand_only(anon_api: APIClient, match: Match) -> None:
    document = anon_api.get(f"/api/matches/{match.pk}/frames/?seat=1").json()
    first = document["frames"][0]["view"]
    assert document["seat"] == 1 and first["seat"] == 1 and "hand" in first and "hands" not in first


@pytest.mark.parametrize("seat", ["3", "-1", "one", "1.0", "99999"])
def test_a_bad_seat_is_a_400_in_the_apis_error_shape(anon_api: APIClient, match: Match, seat: str) -> None:
    response = anon_api.get(f"/api/matches/{match.pk}/frames/", {"seat": seat})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid" and "seat" in response.json()["error"]["message"]


def test_an_empty_seat_means_the_spectator(anon_api: APIClient, match: Match) -> None:
    assert anon_api.get(f"/api/matches/{match.pk}/frames/?seat=").json()["seat"] is None


def test_a_replay_from_another_engine_version_is_a_409(anon_api: APIClient, match: Match) -> None:
    replay = match.replay
    replay["version"] = "0"
    Match.objects.filter(pk=match.pk).update(replay_data=Match.pack_replay(replay), engine_version="0")
    response = anon_api.get(f"/api/matches/{match.pk}/frames/")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "engine_version" and "engine v0, but this server runs v1" in error["message"]


def test_a_replay_the_engine_refuses_is_a_409_not_a_500(anon_api: APIClient, match: Match) -> None:
    replay = match.replay
    replay["moves"][2]["action"] = {"card": 42}
    Match.objects.filter(pk=match.pk).update(replay_data=Match.pack_replay(replay))
    response = anon_api.get(f"/api/matches/{match.pk}/frames/")
    assert response.status_code == 409 and "move 3 is illegal" in response.json()["error"]["message"]


def test_an_unplayed_match_has_no_frames_yet(anon_api: APIClient, match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(replay_data=None, status=Match.Status.QUEUED)
    response = anon_api.get(f"/api/matches/{match.pk}/frames/")
    assert response.status_code == 409 and response.json()["error"]["code"] == "not_ready"
    assert anon_api.get("/api/matches/999999/frames/").status_code == 404


def test_the_finder_serves_game_renderers_and_nothing_else_of_the_games_package() -> None:
    found = finders.find("games/love_letter/viewer.js")
    assert found and Path(found).name == "viewer.js" and Path(found).parent.name == "love_letter"
    assert finders.find("games/love_letter/engine.py") is None
    assert finders.find("games/../games/love_letter/viewer.js") is None
    assert GameViewerFinder().find("games/love_letter/viewer.js", find_all=True) == [found]
    listed = {(storage.prefix, path) for path, storage in GameViewerFinder().list(None)}
    assert ("games/love_letter", "viewer.js") in listed
    assert all(path == "viewer.js" for _, path in listed)


def test_a_game_without_a_renderer_gets_the_generic_one() -> None:
    assert renderer_url("no_such_game") is None
    assert renderer_url("love_letter") == "/static/games/love_letter/viewer.js"


def test_collectstatic_publishes_the_renderers(settings, tmp_path: Path) -> None:
    settings.STATIC_ROOT = tmp_path
    call_command("collectstatic", interactive=False, verbosity=0)
    assert (tmp_path / "games" / "love_letter" / "viewer.js").is_file()
    assert (tmp_path / "league" / "viewer" / "viewer.js").is_file()
    assert not list(tmp_path.glob("games/*/*.py"))


def test_production_static_files_hash_the_renderers(settings, tmp_path: Path) -> None:
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    call_command("collectstatic", interactive=False, verbosity=0)
    url = renderer_url("love_letter")
    assert url is not None and re.fullmatch(r"/static/games/love_letter/viewer\.[0-9a-f]{12}\.js", url)
    assert (tmp_path / url.removeprefix("/static/")).is_file()
    # viewer.js imports its modules by their plain names, which a manifest storage keeps beside the hashed ones.
    assert (tmp_path / "league" / "viewer" / "kit.js").is_file()


def test_the_match_page_carries_the_viewer_and_a_download(client: Client, match: Match) -> None:
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "data-parlour-viewer" in page
    assert f'data-frames="/api/matches/{match.pk}/frames/"' in page
    assert "league/viewer/viewer.js" in page and "league/viewer/viewer.css" in page
    assert f"/api/matches/{match.pk}/replay/?format=json" in page
    # Without JavaScript the moves are still listed, with their times.
    assert 'id="move-1"' in page and " ms</small>" in page


def test_an_unplayed_match_page_says_so(client: Client, match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(replay_data=None, status=Match.Status.QUEUED)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "has not been played yet" in page and "data-parlour-viewer" not in page


def test_a_stored_note_with_a_lone_surrogate_or_a_nul_does_not_break_the_pages(
    client: Client, anon_api: APIClient, match: Match
) -> None:
    # Stored before bots' notes were cleaned (bots/text.py): a bot wrote "\ud800" as JSON text, and json.dumps keeps
    # the escape, so the replay holds a string no page or API answer can encode.
    replay = match.replay
    assert replay is not None
    replay["moves"][0]["note"] = "lone \ud800 and nul \x00"
    Match.objects.filter(pk=match.pk).update(replay_data=Match.pack_replay(replay))
    assert b"\\ud800" in zlib.decompress(Match.objects.get(pk=match.pk).replay_data)

    page = client.get(f"/matches/{match.pk}/")
    assert page.status_code == 200
    answer = anon_api.get(f"/api/matches/{match.pk}/replay/")
    assert answer.status_code == 200
    assert answer.json()["moves"][0]["note"] == "lone \ufffd and nul \ufffd"
    assert anon_api.get(f"/api/matches/{match.pk}/frames/").status_code == 200
