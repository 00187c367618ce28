"""The runner's seat for a bot version, shared by the tasks that play games (workers/tasks.py, workers/tables.py)."""

from __future__ import annotations

from collections.abc import Callable

from bots.results import BotSeat
from league.bots.models import BotVersion
from workers import code_cache


def runner_seat(version_id: int, label: str, builtin: str, archive: Callable[[], bytes] | None = None) -> BotSeat:
    """The runner's seat for a version: a built-in player, or its code unpacked once per machine
    (workers/code_cache.py), read-only. ``archive``: the version's archive, when the caller has it at hand."""
    if builtin:
        return BotSeat(label=label, builtin=builtin)

    def load() -> bytes:
        # Only on this machine's first sight of the version: a claim carries no archives.
        stored = BotVersion.objects.values_list("archive", flat=True).get(pk=version_id)
        if stored is None:
            raise ValueError(f"version {version_id} has no archive")  # (a bug: every uploaded version has one)
        return bytes(stored)

    return BotSeat(label=label, code_dir=code_cache.code_dir_for(version_id, archive or load))
