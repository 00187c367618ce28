"""What a worker checks before it takes any match: the sandbox isolates on this machine, or the worker refuses."""

from __future__ import annotations

import logging

from django.conf import settings

from bots.selftest import self_test

log = logging.getLogger(__name__)


class SandboxUnavailable(RuntimeError):
    pass


def check_sandbox() -> None:
    """Raise ``SandboxUnavailable`` with what is missing and how to fix it; log loudly when running unsandboxed."""
    if settings.BOT_SANDBOX == "none":
        if not settings.ALLOW_UNSANDBOXED_BOTS:
            raise SandboxUnavailable(
                "BOT_SANDBOX=none runs uploaded bots without isolation. Workers refuse it unless "
                "ALLOW_UNSANDBOXED_BOTS=true is also set (local development only)."
            )
        log.warning("!!! BOT_SANDBOX=none: uploaded bots run WITHOUT isolation. Never do this in production. !!!")
        return
    problems = self_test(settings.BOT_SANDBOX)
    if problems:
        raise SandboxUnavailable(
            "the bot sandbox does not isolate on this machine, so this worker will not run matches:\n  - "
            + "\n  - ".join(problems)
            + "\nInstall bubblewrap and python3-numpy (bin/setup does it as root) and run the worker as root."
        )
    log.info("sandbox self-test passed (%s)", settings.BOT_SANDBOX)
