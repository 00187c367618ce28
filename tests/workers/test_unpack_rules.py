"""A worker unpacks by the upload's rules (bots/packaging.py): an archive stored before a rule existed is the bot's
fault, rejected at the first attempt with the rule it breaks, never retried as an infrastructure failure nor shown
with the worker's paths."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.conf import settings

from league.bots.models import Bot, BotVersion
from league.core import outbox
from league.core.outbox import VALIDATE_VERSION_TASK
from league.ratings.models import Rating
from tests.conftest import EXAMPLE_BOT
from workers.tasks import _describe

pytestmark = pytest.mark.e2e


def _stored_unchecked(owner, name: str, files: dict[str, bytes]) -> BotVersion:  # type: ignore[no-untyped-def]
    """A version whose archive went into the database without today's upload check."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, content in {"main.py": EXAMPLE_BOT, **files}.items():
            archive.writestr(path, content)
    bot = Bot.objects.create(owner=owner, game="love_letter", name=name)
    Rating.objects.create(bot=bot)
    data = buffer.getvalue()
    return BotVersion.objects.create(bot=bot, number=1, archive=data, language="python", archive_size=len(data))


def test_an_archive_a_worker_cannot_unpack_is_rejected_at_the_first_attempt(celery_workers, alice) -> None:
    beside = _stored_unchecked(alice, "beside", {"a": b"", "a/b": b""})
    deep = _stored_unchecked(alice, "deep", {"/".join(["d"] * 3000) + "/x.py": b""})
    celery_workers.start()
    for version in (beside, deep):
        outbox.current_app.send_task(VALIDATE_VERSION_TASK, args=[version.pk])

    def done() -> bool:
        return not BotVersion.objects.filter(status=BotVersion.Status.PENDING).exists()

    celery_workers.wait_for(done, 60, "both validations")
    beside.refresh_from_db()
    deep.refresh_from_db()
    assert (beside.status, beside.attempts) == (BotVersion.Status.REJECTED, 1)
    assert beside.validation_log == "The archive cannot be unpacked: a is both a file and a folder (of a/b)"
    assert (deep.status, deep.attempts) == (BotVersion.Status.REJECTED, 1)
    assert deep.validation_log.endswith("(6,004 characters): the path is 3,001 levels deep; the limit is 16 levels")
    for version in (beside, deep):
        assert len(version.validation_log) < 200 and str(settings.VAR_DIR) not in version.validation_log


def test_an_os_error_is_described_without_its_file_names() -> None:
    error = OSError(36, "File name too long", "/srv/parlour/var/bot-code/.unpack-x/" + "d/" * 3000)
    assert _describe(error) == "OSError: [Errno 36] File name too long"
    assert len(_describe(RuntimeError("x" * 10_000))) == 500
