"""A remote bot from the site in Chromium, at laptop and phone sizes (docs/remote.md): created from the new-bot form
with no file, its token issued on its page (shown once, with the command that connects it, to copy), then revoked.
Anyone else sees only that it is remote and whether it is online."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import redis

from bots import remote
from league.bots.models import Bot
from league.remote.models import RemoteToken
from league.remote.services import authenticate
from tests.browser.conftest import LAPTOP, PHONE, Tab
from tests.real_redis import cleaned_client


@pytest.fixture
def clean_redis() -> Iterator[redis.Redis]:
    yield from cleaned_client(remote.PREFIX)


@pytest.mark.parametrize(("device", "viewport"), [("laptop", LAPTOP), ("phone", PHONE)])
def test_a_remote_bot_is_created_connected_and_its_token_revoked_from_the_site(
    open_tab: Callable[..., Tab], live_server, alice, bob, clean_redis: redis.Redis, device: str, viewport: dict
) -> None:
    tab = open_tab(viewport=viewport).sign_in(alice)
    tab.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=tab.base)
    tab.goto("/bots/new/?game=love_letter")
    tab.page.fill("#id_name", "far-away")
    tab.page.check("text=On my machine (remote)")
    tab.shot(f"remote-new-{device}")
    tab.page.click("main form button")
    tab.page.wait_for_url("**/bots/*/#connect")
    bot = Bot.objects.get(owner=alice, name="far-away")
    assert bot.is_remote
    panel = tab.page.locator("#connect")
    assert "offline" in panel.inner_text() and "no live token" in panel.inner_text()
    assert "waiting for its first connection" in tab.page.inner_text("#bot-status")
    assert tab.page.locator("text=Upload a new version").count() == 0  # a remote bot has no code to upload

    tab.page.click("#connect button:has-text('Issue its token')")
    key = tab.page.inner_text("#remote-key").strip()
    command = tab.page.inner_text("#remote-command").strip()
    assert command == f"python -m bots connect --token {key} --url {live_server.url} path/to/bot"
    assert authenticate(key) == bot.pk
    words = panel.inner_text()
    assert "shown this once" in words and "Issuing another one revokes this one" in words
    tab.page.click("text=Copy the command")
    tab.page.locator("#remote-command-copied", has_text="Copied.").wait_for()
    assert tab.page.evaluate("navigator.clipboard.readText()") == command
    tab.assert_fits(viewport["width"])
    tab.shot(f"remote-token-{device}")

    # Someone else: that it is remote and whether it is online, nothing of its connection.
    clean_redis.set(remote.conn_key(bot.pk), "test", ex=remote.PRESENCE_TTL_S)
    other = open_tab(viewport=viewport).sign_in(bob)
    other.goto(f"/bots/{bot.pk}/")
    assert other.page.inner_text("[data-remote]").strip() == "remote · online"
    assert other.page.locator("#connect").count() == 0 and key not in other.page.content()
    other.assert_no_errors()

    tab.goto(f"/bots/{bot.pk}/")
    assert key not in tab.page.content()  # shown once
    assert "online" in tab.page.inner_text("#connect [data-connection]")
    tab.page.click("#connect button:has-text('Revoke the token')")
    tab.page.wait_for_url("**/bots/*/#connect")
    assert "Token revoked" in tab.page.inner_text("body")
    assert not RemoteToken.objects.filter(bot=bot, revoked__isnull=True).exists()
    assert "no live token" in tab.page.inner_text("#connect")
    tab.assert_fits(viewport["width"])
    tab.shot(f"remote-revoked-{device}")
    tab.assert_no_errors()
