"""The ``none`` backend: no isolation at all, for developing your own bot on your own machine. It says so loudly."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bots.limits import Limits
from bots.sandbox.base import Sandbox
from bots.sandbox.command import ENGINES_DIR, SDK_DIR, bot_environment, resolve_command
from bots.sandbox.errors import BotSetupError
from bots.sandbox.process import BotProcess

__all__ = ["NONE_WARNING", "NoSandbox"]

log = logging.getLogger("bots.sandbox")

NONE_WARNING = (
    "!!! SANDBOX DISABLED (--sandbox none): bots run as ordinary processes with YOUR user's rights, network and "
    "files. Use this only for your own bots during local development, never for code you did not write. !!!"
)


class NoSandbox(Sandbox):
    """No isolation: for developing your own bot on your own machine."""

    name = "none"
    _warned = False

    def start(self, code_dir: Path, limits: Limits) -> BotProcess:
        if not NoSandbox._warned:
            log.warning(NONE_WARNING)
            NoSandbox._warned = True
        code_dir = Path(code_dir).resolve()
        command = resolve_command(code_dir, python=sys.executable, root=str(code_dir))
        # parlour_sdk must be importable by that name: a temporary directory with a link to bots/sdk, and beside it
        # the engines where parlour_sdk.engine looks for them, as in the sandbox.
        sdk_parent = Path(tempfile.mkdtemp(prefix="parlour-sdk-"))
        (sdk_parent / "parlour_sdk").symlink_to(SDK_DIR, target_is_directory=True)
        (sdk_parent / "engines").mkdir()
        (sdk_parent / "engines" / ENGINES_DIR.name).symlink_to(ENGINES_DIR, target_is_directory=True)
        env = bot_environment(str(sdk_parent), os.environ.get("HOME", "/tmp"))
        env["PATH"] = os.environ.get("PATH", env["PATH"])
        try:
            popen = subprocess.Popen(
                list(command.argv),
                cwd=code_dir,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            shutil.rmtree(sdk_parent, ignore_errors=True)
            raise BotSetupError(f"cannot start {command.argv[0]}: {exc.strerror}") from None
        return BotProcess(popen, cleanup=[lambda: shutil.rmtree(sdk_parent, ignore_errors=True)])
