"""A bot that is slow on purpose, with real parts: a real Celery worker validating its upload in the real sandbox, at
the league's default time control (move 1 s, bank 10 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from league.bots.models import BotVersion
from league.bots.services import do_create_bot

pytestmark = pytest.mark.e2e

SLEEPER = Path(__file__).parent / "bots" / "sleeper_19.py"


def test_a_bot_sleeping_1_9_s_a_move_is_rejected_by_validation(celery_workers, alice) -> None:
    # Waiting counts (charged wall / 1.1), and the validation match's bank is one move: the second move is over
    # time. (Charged half its wall time, the bot passed validation and held a worker 1.9 s on every move.)
    celery_workers.start(concurrency=1)
    version = do_create_bot(alice, "love_letter", "sleeper", SLEEPER.read_bytes(), "main.py").versions.get()
    celery_workers.wait_for(lambda: BotVersion.objects.get(pk=version.pk).validated, 60, "the validation")
    version.refresh_from_db()
    assert version.status == BotVersion.Status.REJECTED, version.validation_log
    assert "no action within" in version.validation_log, version.validation_log
    # Out of time at its second move: a few seconds, not the 24 moves x 1.9 s of a whole game.
    assert (version.validated - version.created).total_seconds() < 20
