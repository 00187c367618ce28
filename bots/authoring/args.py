"""Command-line arguments shared by ``play``, ``arena`` and ``compare``: seats and game options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bots.runner import BotSeat
from games.registry import builtin_players

__all__ = ["UsageError", "parse_option", "parse_seat"]


class UsageError(Exception):
    """A bad command line: one line for the user, exit status 2."""


def parse_option(text: str) -> tuple[str, Any]:
    """``--option KEY=VALUE``: the value as JSON if it parses, else as a string."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise UsageError(f"--option needs KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(raw)
    except ValueError:
        return key, raw


def parse_seat(game_id: str, text: str, workdir: Path) -> BotSeat:
    """A seat: ``builtin:<name>``, a bot directory, or a .py/.zip file (unpacked into ``workdir`` as uploads are)."""
    if text.startswith("builtin:"):
        name = text.removeprefix("builtin:")
        known = builtin_players(game_id)
        if name not in known:
            raise UsageError(f"{game_id} has no built-in player {name!r}; known: {', '.join(sorted(known))}")
        return BotSeat(label=text, builtin=name)
    path = Path(text)
    if path.is_dir():
        if not (path / "main.py").is_file() and not (path / "bot.toml").is_file():
            raise UsageError(f"{text}: a bot directory needs main.py or bot.toml")
        return BotSeat(label=text, code_dir=path.resolve())  # the sandbox binds it by absolute path
    if not path.is_file():
        raise UsageError(f"{text}: no such file or directory (a seat is builtin:<name>, a .py, a .zip or a directory)")
    if path.suffix.lower() not in (".py", ".zip"):
        raise UsageError(f"{text}: a bot file must be a .py file or a .zip archive")
    _unpack(path, workdir)
    return BotSeat(label=text, code_dir=workdir)


def _unpack(path: Path, dest: Path) -> None:
    """Unpack a .py or .zip exactly as an upload is (bots.packaging)."""
    from bots.packaging import PackagingError, package_upload, unpack

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror}") from None
    try:
        unpack(package_upload(data, path.name).archive, dest)
    except PackagingError as exc:
        raise UsageError(f"{path}: {exc}") from None
