"""Issue #19 findings that had no test of their own: the challenge page offers no rejected bot (finding 3)."""

from __future__ import annotations

from django.test import Client

from league.bots.services import do_create_bot, do_record_validation
from tests.league.challenges.test_challenges import _ready_bot


def test_the_challenge_page_offers_ready_opponents_only(client: Client, alice, bob) -> None:
    hero, ready = _ready_bot(alice, "hero"), _ready_bot(bob, "ready")
    broken = do_create_bot(bob, "love_letter", "broken", b"print('hi')\n", "bot.py")
    do_record_validation(broken.versions.get().pk, False, "Smoke match failed: the bot crashed at start-up", "")
    waiting = do_create_bot(bob, "love_letter", "waiting", b"print('hi')\n", "bot.py")  # still pending
    client.force_login(alice)
    page = client.get(f"/bots/{hero.pk}/challenge/").content.decode()
    assert f'value="{ready.pk}"' in page
    assert f'value="{broken.pk}"' not in page and f'value="{waiting.pk}"' not in page
    assert "bob/broken" not in page and "bob/waiting" not in page
