"""What to run for a bot (``main.py`` or ``bot.toml``'s command) and the environment it runs in."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import games
from bots.sandbox.errors import BotSetupError

__all__ = ["ENGINES_DIR", "NODE", "SDK_DIR", "SYSTEM_PYTHON", "BotCommand", "bot_environment", "resolve_command"]

SDK_DIR = Path(__file__).resolve().parents[1] / "sdk"
# The games package: bots get it read-only beside the SDK, as ``engines/games`` (parlour_sdk.engine finds it there).
ENGINES_DIR = Path(games.__file__).resolve().parent
SYSTEM_PYTHON = "/usr/bin/python3"
NODE = "/usr/bin/node"


@dataclass(frozen=True)
class BotCommand:
    argv: tuple[str, ...]
    python: bool  # RLIMIT_AS applies to Python bots only


_PYTHON_NAME = re.compile(r"python3?(\.\d+)?$")


def resolve_command(code_dir: Path, python: str = SYSTEM_PYTHON, root: str = "/bot") -> BotCommand:
    """The command that runs the bot in ``code_dir``: ``bot.toml``'s ``command`` if present, else ``main.py``.

    ``root`` is where the code is seen by the bot (``/bot`` in the sandbox); relative commands run from there."""
    manifest = code_dir / "bot.toml"
    if manifest.is_file():
        try:
            data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise BotSetupError(f"bot.toml is not valid TOML: {exc}") from None
        command = data.get("command")
        if (
            not isinstance(command, list)
            or not command
            or len(command) > 64
            or not all(isinstance(part, str) and part and "\0" not in part for part in command)
        ):
            raise BotSetupError('bot.toml needs command = ["program", "arg", ...] (a non-empty list of strings)')
        argv = list(command)
        if _PYTHON_NAME.match(os.path.basename(argv[0])):
            argv[0] = python
            return BotCommand(tuple(argv), python=True)
        return BotCommand(tuple(argv), python=False)
    if (code_dir / "main.py").is_file():
        return BotCommand((python, f"{root}/main.py"), python=True)
    raise BotSetupError("the bot has neither main.py nor bot.toml")


def bot_environment(pythonpath: str, home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "PYTHONPATH": pythonpath,
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        # One core per bot: BLAS thread pools would only fight over the worker's cores.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PARLOUR_BOT": "1",
    }
