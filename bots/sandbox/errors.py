"""The sandbox's two failures: ours (``SandboxError``: the worker retries) and the bot's (``BotSetupError``: the runner
records a ``startup`` fault)."""

from __future__ import annotations

__all__ = ["BotSetupError", "SandboxError"]


class SandboxError(RuntimeError):
    """The sandbox could not be set up or is unavailable. An infrastructure error: never the bot's fault."""


class BotSetupError(Exception):
    """The bot directory cannot be run (no entry point, bad ``bot.toml``): the bot's fault."""
