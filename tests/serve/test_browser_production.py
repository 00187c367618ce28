"""The browser tests of live watching and of people's tables, again against the production topology: uvicorn with two
processes on parlour.asgi, DEBUG off with the collected static files, changes through Redis pub/sub, and the test
database (PostgreSQL in the PostgreSQL pass). tests/browser runs the same tests against the in-process server
`make run` uses; here the page, its stream and the worker's publisher are in three different processes.

The worker's side is as in tests/browser: the real task or runner in a thread of this process, publishing to the same
Redis the servers listen on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test.utils import modify_settings

from tests.browser import test_tables, test_watch
from tests.browser.conftest import Tab, launched_chromium, open_tab  # noqa: F401  (open_tab: a fixture used below)
from tests.serve.conftest import Server

pytestmark = pytest.mark.browser


class _ProductionServer:
    """What open_tab's pages are served by: the production server, two processes (a page's stream may land on
    either). Named ``live_server`` as open_tab expects; pytest-django then enables this object's settings change
    around the test, which a server in other processes does not need (so it changes nothing that matters)."""

    def __init__(self, server: Server) -> None:
        self.url = server.url
        self._live_server_modified_settings = modify_settings(ALLOWED_HOSTS={"append": "127.0.0.1"})


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Closed with this module: Playwright's event loop must not run on into the next package's tests (Django
    refuses database calls from a thread with a running loop)."""
    yield from launched_chromium()


@pytest.fixture
def live_server(asgi_server: Callable[..., Server]) -> _ProductionServer:
    return _ProductionServer(asgi_server(processes=2))


def test_a_spectator_sees_the_moves_of_a_running_match_appear_on_the_production_path(
    open_tab: Callable[..., Tab],  # noqa: F811
    django_db_blocker: Any,
) -> None:
    test_watch.test_a_spectator_sees_the_moves_of_a_running_match_appear(open_tab, django_db_blocker)


@pytest.mark.parametrize("game_id", ["love_letter", "barbarossa"])  # the simplest and the one with the most blanks
def test_a_person_plays_a_whole_game_and_a_spectator_watches_on_the_production_path(
    open_tab: Callable[..., Tab],  # noqa: F811
    alice: Any,
    game_id: str,
    django_db_blocker: Any,
) -> None:
    test_tables.test_a_person_plays_a_whole_game_and_a_spectator_watches(open_tab, alice, game_id, django_db_blocker)


def test_the_spectator_never_sees_the_persons_hand_on_the_production_path(
    open_tab: Callable[..., Tab],  # noqa: F811
    alice: Any,
    django_db_blocker: Any,
) -> None:
    test_tables.test_the_spectator_never_sees_the_persons_hand(open_tab, alice, django_db_blocker)
