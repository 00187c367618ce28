"""The backends by name (``bwrap``, ``none``), one shared instance of each per process."""

from __future__ import annotations

import threading

from bots.sandbox.base import Sandbox
from bots.sandbox.bwrap import BwrapSandbox
from bots.sandbox.none import NoSandbox

__all__ = ["BwrapSandbox", "NoSandbox", "get_sandbox"]

_BACKENDS: dict[str, type[Sandbox]] = {"bwrap": BwrapSandbox, "none": NoSandbox}
_instances: dict[str, Sandbox] = {}
_instances_lock = threading.Lock()


def get_sandbox(name: str) -> Sandbox:
    """The backend called ``name`` (``bwrap`` or ``none``), shared per process."""
    if name not in _BACKENDS:
        raise ValueError(f"unknown sandbox {name!r}; choose one of: {', '.join(_BACKENDS)}")
    with _instances_lock:
        if name not in _instances:
            _instances[name] = _BACKENDS[name]()
        return _instances[name]
