"""Run an untrusted bot as an isolated process (see docs/sandbox.md).

Backends (``get_sandbox``): ``bwrap``, real isolation (``bwrap``: one slot, uid and set of cgroups per bot, namespaces,
seccomp, rlimits), and ``none``, no isolation at all for local development (``none``). Both start a ``BotProcess``
(``process``). The bwrap backend's parts: ``slots`` (one uid per concurrent bot), ``cgroups`` (v1), ``mounts`` (what
the bot sees of the host's files), ``config`` (its state directory); ``reaper`` tears bots down in the background.

Infrastructure failures raise ``SandboxError`` (the worker retries); a bot that cannot be run (no entry point, bad
``bot.toml``) raises ``BotSetupError`` (the runner records a ``startup`` fault).
"""

from __future__ import annotations

from bots.limits import GAME_LIMITS, Limits
from bots.sandbox.backends import get_sandbox
from bots.sandbox.base import Sandbox
from bots.sandbox.bwrap import BwrapSandbox
from bots.sandbox.command import NODE, SDK_DIR, SYSTEM_PYTHON, BotCommand, resolve_command
from bots.sandbox.config import BwrapConfig
from bots.sandbox.errors import BotSetupError, SandboxError
from bots.sandbox.none import NONE_WARNING, NoSandbox
from bots.sandbox.process import BotProcess
from bots.sandbox.reaper import wait_closed

__all__ = [
    "GAME_LIMITS",
    "NODE",
    "NONE_WARNING",
    "SDK_DIR",
    "SYSTEM_PYTHON",
    "BotCommand",
    "BotProcess",
    "BotSetupError",
    "BwrapConfig",
    "BwrapSandbox",
    "Limits",
    "NoSandbox",
    "Sandbox",
    "SandboxError",
    "get_sandbox",
    "resolve_command",
    "wait_closed",
]
