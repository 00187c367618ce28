"""league.remote.services and the remote version's place in the bots feature: tokens scoped to one bot, hashed,
revocable; the smoke game due on the first connection only (docs/remote.md)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from league.bots.models import BotVersion
from league.bots.services import do_create_remote_bot
from league.bots.validation import fair_validation_order
from league.core.errors import NotOwner, NotRemoteBot, RemoteTokenInvalid
from league.remote.models import RemoteToken
from league.remote.services import (
    authenticate,
    do_connected,
    do_issue_remote_token,
    do_revoke_remote_token,
    hash_key,
)

pytestmark = pytest.mark.django_db


def test_a_token_is_shown_once_stored_hashed_and_scoped_to_its_bot(alice: User, sent) -> None:
    mine = do_create_remote_bot(alice, "love_letter", "far")
    other = do_create_remote_bot(alice, "love_letter", "farther")
    token, key = do_issue_remote_token(mine, alice)
    assert key.startswith("prb_") and key not in token.key_hash and token.key_hash == hash_key(key)
    assert authenticate(key) == mine.pk != other.pk
    newer = do_issue_remote_token(mine, alice)[1]
    with pytest.raises(RemoteTokenInvalid):
        authenticate(key)  # issuing a new token revoked the old one
    assert authenticate(newer) == mine.pk
    assert do_revoke_remote_token(mine, alice) == 1
    with pytest.raises(RemoteTokenInvalid):
        authenticate(newer)
    assert RemoteToken.objects.filter(bot=mine, revoked__isnull=True).count() == 0


@pytest.mark.parametrize("key", ["", "plr_an_api_token", "prb_" + "x" * 200, "prb_unknown"])
def test_anything_but_a_live_token_is_refused(key: str) -> None:
    with pytest.raises(RemoteTokenInvalid):
        authenticate(key)


def test_only_the_owner_issues_a_token_and_only_for_a_remote_bot(alice: User, bob: User, sent) -> None:
    bot = do_create_remote_bot(alice, "love_letter", "far")
    with pytest.raises(NotOwner):
        do_issue_remote_token(bot, bob)
    bot.versions.update(remote=False)
    with pytest.raises(NotRemoteBot):
        do_issue_remote_token(bot, alice)


def test_a_disabled_owner_s_token_stops_working(alice: User, sent) -> None:
    bot = do_create_remote_bot(alice, "love_letter", "far")
    key = do_issue_remote_token(bot, alice)[1]
    User.objects.filter(pk=alice.pk).update(is_active=False)
    with pytest.raises(RemoteTokenInvalid):
        authenticate(key)


def test_the_smoke_game_is_due_on_the_first_connection_only(alice: User, sent) -> None:
    bot = do_create_remote_bot(alice, "love_letter", "far")
    version = bot.versions.get()
    assert version.remote and version.status == BotVersion.Status.PENDING and not version.archive
    assert version.pk not in fair_validation_order(timezone.now(), 100)  # not before it connects
    assert sent == []
    assert do_connected(bot.pk) is True
    assert do_connected(bot.pk) is False  # a reconnection sends nothing more
    assert [task for task, pk, _ in sent if pk == version.pk] == ["parlour.validate_version"]
    assert version.pk in fair_validation_order(timezone.now(), 100)
