"""Validation by fair share: each owner's versions take turns, whatever order the uploads (and messages) came in."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from league.bots.models import Bot, BotVersion
from league.bots.services import do_add_version, do_create_bot, do_record_validation
from league.bots.validation import do_claim_next_version, fair_validation_order
from league.challenges.services import do_create_challenge
from league.play.models import Match

CODE = b"print('hi')\n"


def _burst(owner, name: str, count: int) -> list[int]:
    bot = do_create_bot(owner, "love_letter", name, CODE, "bot.py")
    ids = [bot.versions.get().pk]
    ids += [do_add_version(bot, CODE, "bot.py").pk for _ in range(count - 1)]
    return ids


def _order() -> list[int]:
    return fair_validation_order(timezone.now(), 100)


def test_everyones_first_pending_version_comes_before_anyones_second(alice, bob) -> None:
    a = _burst(alice, "burst", 5)
    b = _burst(bob, "single", 1)
    assert _order() == [a[0], b[0], *a[1:]]


def test_versions_in_flight_or_just_validated_count_as_turns_taken(alice, bob) -> None:
    a = _burst(alice, "burst", 5)
    claimed = do_claim_next_version("worker-1")
    assert claimed.pk == a[0]
    b = _burst(bob, "single", 1)
    # Alice's first is being validated: Bob's one goes before her second...
    assert _order() == [b[0], *a[1:]]
    do_record_validation(a[0], True, "ok", "", claim_token=claimed.claim_token)
    # ...and still does once hers is done (validated in the last hour: a turn she has had).
    assert _order() == [b[0], *a[1:]]
    assert do_claim_next_version("worker-2").pk == b[0]


def test_only_claimable_versions_are_offered(alice, bob) -> None:
    a = _burst(alice, "burst", 3)
    now = timezone.now()
    BotVersion.objects.filter(pk=a[0]).update(lease_until=now + timedelta(minutes=5))  # a live worker holds it
    BotVersion.objects.filter(pk=a[1]).update(enqueued_at=now + timedelta(minutes=5))  # backing off after a failure
    BotVersion.objects.filter(pk=a[2]).update(lease_until=now - timedelta(seconds=1))  # its worker died
    assert _order() == [a[2]]
    b = _burst(bob, "single", 1)
    assert _order() == [b[0], a[2]]


def test_a_validation_from_long_ago_is_no_longer_a_turn_taken(alice, bob) -> None:
    old = _burst(alice, "old", 1)[0]
    do_record_validation(old, True, "ok", "")
    BotVersion.objects.filter(pk=old).update(validated=timezone.now() - timedelta(hours=2))
    b = _burst(bob, "first", 1)
    a = _burst(alice, "new", 1)
    assert _order() == [b[0], a[0]]  # equal turns: the older upload first


def test_an_owner_who_spent_more_worker_time_waits_behind_one_who_spent_less(alice, bob) -> None:
    hero, rival = _burst(alice, "hero", 1)[0], _burst(bob, "rival", 1)[0]
    for version_id in (hero, rival):  # one validated each this hour: the same turns taken
        do_record_validation(version_id, True, "ok", "")
    alice_bot, bob_bot = Bot.objects.get(owner=alice), Bot.objects.get(owner=bob)
    # Alice's challenges have had 40 s of the workers this hour; Bob's nothing.
    challenge = do_create_challenge(alice, alice_bot.pk, [bob_bot.pk], 2)
    challenge.matches.update(status=Match.Status.FINISHED, finished_at=timezone.now(), wall_ms=20_000)
    a = do_add_version(alice_bot, CODE, "bot.py").pk
    b = do_add_version(bob_bot, CODE, "bot.py").pk
    # By turns and upload order Alice's would go first; by worker time spent, Bob's does.
    assert _order() == [b, a]
