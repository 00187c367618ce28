"""What a worker reports is stored fit to show: bounded, on one line, without the worker's paths."""

from __future__ import annotations

import pytest

from league.bots.models import Bot, BotVersion
from league.bots.validation import do_release_version
from league.core.reasons import public_reason
from league.ratings.models import Rating


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("No space left: '/var/lib/parlour/bot-code/x/main.py'", "No space left: '<path>'"),
        ("start:\nbwrap: mkdir /tmp/slot-3: denied", "start: bwrap: mkdir <path>: denied"),
        ("rank 1/2 and/or 3 of 4", "rank 1/2 and/or 3 of 4"),
    ],
)
def test_paths_are_cut_out_and_lines_joined(text: str, shown: str) -> None:
    assert public_reason(text) == shown


def test_a_reason_is_bounded() -> None:
    assert public_reason("x" * 10_000) == "x" * 499 + "…"


def test_a_released_validation_stores_the_reason_fit_to_show(alice) -> None:
    bot = Bot.objects.create(owner=alice, game="love_letter", name="b")
    Rating.objects.create(bot=bot)
    version = BotVersion.objects.create(bot=bot, number=1, archive=b"x", archive_size=1, claim_token="t", attempts=1)
    error = "OSError: [Errno 36] File name too long: '/srv/var/bot-code/.unpack-1/" + "d/" * 3000 + "'"
    assert do_release_version(version.pk, error, claim_token="t")
    version.refresh_from_db()
    assert version.validation_log == "Attempt 1 failed: OSError: [Errno 36] File name too long: '<path>'"
