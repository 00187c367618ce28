"""The runner's seat for a bot version, shared by the tasks that play games (workers/tasks.py, workers/tables.py)."""

from __future__ import annotations

from collections.abc import Callable

from bots.results import BotSeat
from league.bots.models import BotVersion
from league.remote.channels import open_channel
from workers import code_cache


def runner_seat(
    version_id: int,
    label: str,
    builtin: str,
    archive: Callable[[], bytes] | None = None,
    *,
    remote_bot: int | None = None,
    game: str = "",
    what: str = "",
) -> BotSeat:
    """The runner's seat for a version: a built-in player, its code unpacked once per machine
    (workers/code_cache.py), read-only, or for a remote version (``remote_bot``: its bot) a channel announced to
    the bot's connection (``game`` and ``what`` say which game). ``archive``: the version's archive, when the
    caller has it at hand."""
    if builtin:
        return BotSeat(label=label, builtin=builtin)
    if remote_bot is not None:
        return BotSeat(label=label, remote=open_channel(remote_bot, game, what))

    def load() -> bytes:
        # Only on this machine's first sight of the version: a claim carries no archives.
        stored = BotVersion.objects.values_list("archive", flat=True).get(pk=version_id)
        if stored is None:
            raise ValueError(f"version {version_id} has no archive")  # (a bug: every uploaded version has one)
        return bytes(stored)

    return BotSeat(label=label, code_dir=code_cache.code_dir_for(version_id, archive or load))
