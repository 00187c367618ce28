"""A start-up self-test for workers: does the sandbox really isolate on this machine?

``self_test()`` returns a list of problems (empty when all is well); ``python -m bots check`` prints them. Workers
call it before taking matches and refuse to run if anything is missing, saying what and how to fix it.
"""

from __future__ import annotations

import json
import os
import select
import tempfile
import time
from pathlib import Path

from bots.sandbox import Limits, SandboxError, get_sandbox

_PROBE = r"""
import json, os, socket, sys
found = {"uid": os.getuid()}
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    found["inet"] = "allowed"
except OSError:
    found["inet"] = "refused"
for path in ("/etc/shadow", "/root", "/proc/1/environ"):
    try:
        data = open(path, "rb").read() if not os.path.isdir(path) else os.listdir(path)
        found[path] = "readable" if path != "/proc/1/environ" else sorted(
            item.split(b"=")[0].decode() for item in data.split(b"\0") if item)
    except OSError:
        found[path] = "unreadable"
try:
    open("/bot/probe", "w")
    found["write_bot"] = "allowed"
except OSError:
    found["write_bot"] = "refused"
try:
    import numpy  # noqa: F401
    found["numpy"] = True
except ImportError:
    found["numpy"] = False
print(json.dumps(found), flush=True)
"""

_ALLOWED_PID1_ENV = {"PATH", "LANG", "PWD"}


def self_test(sandbox: str = "bwrap", timeout_s: float = 15.0) -> list[str]:
    """Start a probe bot in ``sandbox`` and report every isolation property that does not hold."""
    backend = get_sandbox(sandbox)
    try:
        backend.check()
    except SandboxError as exc:
        return [str(exc)]
    with tempfile.TemporaryDirectory(prefix="parlour-selftest-") as tmp:
        code = Path(tmp)
        code.chmod(0o755)
        (code / "main.py").write_text(_PROBE)
        try:
            proc = backend.start(code, Limits())
        except SandboxError as exc:
            return [str(exc)]
        try:
            out, err = _collect(proc.stdout_fd, proc.stderr_fd, timeout_s)
        finally:
            proc.close()
    lines = [line for line in out.decode(errors="replace").splitlines() if not line.startswith("parlour-sandbox-")]
    if not lines:
        return [f"the probe bot produced no report; stderr: {err.decode(errors='replace')[-1000:]}"]
    try:
        found = json.loads(lines[-1])
    except ValueError:
        return [f"the probe bot's report is not JSON: {lines[-1][:200]!r}"]
    problems = []
    if found.get("uid") == 0:
        problems.append("bots run as uid 0")
    if found.get("inet") != "refused":
        problems.append("bots can open AF_INET sockets (seccomp filter not active)")
    for path in ("/etc/shadow", "/root"):
        if found.get(path) != "unreadable":
            problems.append(f"bots can read {path}")
    leaked = set(found.get("/proc/1/environ") or []) - _ALLOWED_PID1_ENV
    if leaked:
        problems.append(f"bots can read environment variables of the runner: {sorted(leaked)}")
    if found.get("write_bot") != "refused":
        problems.append("bots can write their own code directory")
    if not found.get("numpy"):
        problems.append("numpy is not available to Python bots: apt-get install python3-numpy")
    return problems


def _collect(stdout_fd: int, stderr_fd: int, timeout_s: float) -> tuple[bytes, bytes]:
    out, err = bytearray(), bytearray()
    open_fds = {stdout_fd: out, stderr_fd: err}
    deadline = time.monotonic() + timeout_s
    while open_fds and time.monotonic() < deadline:
        ready, _, _ = select.select(list(open_fds), [], [], max(0.0, deadline - time.monotonic()))
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not data:
                del open_fds[fd]
            else:
                open_fds[fd].extend(data)
    return bytes(out), bytes(err)
