"""What every sandbox backend does: start a bot, and say what it lacks to run here."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from bots.limits import Limits
from bots.sandbox.process import BotProcess

__all__ = ["Sandbox"]


class Sandbox:
    name: ClassVar[str] = ""

    def start(self, code_dir: Path, limits: Limits) -> BotProcess:
        """Start the bot in ``code_dir``. Raises ``BotSetupError`` (bot's fault) or ``SandboxError`` (ours)."""
        raise NotImplementedError

    def check(self) -> None:
        """Raise ``SandboxError`` saying what is missing and how to install it, if this backend cannot run."""
