"""Slots: one uid per concurrent bot. A slot is an exclusive ``flock`` on ``<state dir>/slots/<n>.lock``; with it
come its uid (``uid_base + n``), its cgroups' names and its passwd/group files. Taking a slot sweeps whatever a
crashed runner left behind for it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import re
import secrets
import shutil
from pathlib import Path

from bots.sandbox.cgroups import Cgroups, cgroup_bases
from bots.sandbox.config import BwrapConfig, ensure_dir
from bots.sandbox.errors import SandboxError

__all__ = ["Slot"]

SLOT_CGROUP = re.compile(r"parlour-slot-(\d+)-[0-9a-f]+$")


class Slot:
    def __init__(self, config: BwrapConfig, index: int, fd: int) -> None:
        self.config = config
        self.index = index
        self.uid = config.uid_base + index
        self.name = f"parlour-slot-{index}"
        self._fd: int | None = fd

    @staticmethod
    def prepare(config: BwrapConfig) -> None:
        try:
            ensure_dir(config.state_dir, 0o711)
            ensure_dir(config.state_dir / "slots", 0o700)
            ensure_dir(config.state_dir / "work", 0o711)
        except OSError as exc:
            raise SandboxError(f"cannot create the sandbox state directory {config.state_dir}: {exc}") from exc

    @classmethod
    def acquire(cls, config: BwrapConfig) -> Slot:
        cls.prepare(config)
        start = random.randrange(config.slots)
        for step in range(config.slots):
            slot = cls.try_take(config, (start + step) % config.slots)
            if slot is not None:
                return slot
        raise SandboxError(f"all {config.slots} sandbox slots are busy (PARLOUR_SANDBOX_SLOTS)")

    @classmethod
    def try_take(cls, config: BwrapConfig, index: int) -> Slot | None:
        """The slot ``index`` if no one holds it (swept clean of anything a dead runner left), else None."""
        fd = os.open(config.state_dir / "slots" / f"{index}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            # flock (not lockf): it also excludes other threads and fds of this very process.
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        slot = cls(config, index, fd)
        slot._sweep()
        return slot

    @classmethod
    def sweep_all(cls, config: BwrapConfig) -> None:
        """Clean every slot that has leftovers (cgroups, maybe with processes) but no holder: a runner died."""
        indexes: set[int] = set()
        with contextlib.suppress(SandboxError):
            for base in cgroup_bases().values():
                with contextlib.suppress(OSError):
                    for entry in os.scandir(base):
                        found = SLOT_CGROUP.match(entry.name)
                        if found and int(found.group(1)) < config.slots:
                            indexes.add(int(found.group(1)))
        for index in sorted(indexes):
            with contextlib.suppress(OSError):
                slot = cls.try_take(config, index)
                if slot is not None:
                    slot.release()

    def _sweep(self) -> None:
        """Remove what a crashed runner may have left for this slot: cgroups (and their processes), work dirs."""
        prefix = self.name + "-"
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.config.state_dir / "work"):
                if entry.name.startswith(prefix):
                    shutil.rmtree(entry.path, ignore_errors=True)
        stale: dict[str, dict[str, Path]] = {}
        with contextlib.suppress(SandboxError):
            for controller, base in cgroup_bases().items():
                with contextlib.suppress(OSError):
                    for entry in os.scandir(base):
                        if entry.is_dir() and entry.name.startswith(prefix):
                            stale.setdefault(entry.name, {})[controller] = Path(entry.path)
        for paths in stale.values():
            group = Cgroups(paths)  # all controllers at once: the freezer's thaw lets the others' kills land
            group.kill_all(wait=True)
            group.remove()

    def etc_dir(self) -> Path:
        """passwd and group files naming the slot uid (so getpwuid() and os.userInfo() work), made once per slot."""
        path = self.config.state_dir / "etc" / str(self.index)
        if not (path / "group").exists():
            ensure_dir(self.config.state_dir / "etc", 0o711)
            ensure_dir(path, 0o755)
            for name, text in (
                ("passwd", f"bot:x:{self.uid}:{self.uid}:parlour bot:/tmp:/usr/sbin/nologin\n"),
                ("group", f"bot:x:{self.uid}:\n"),
            ):
                temporary = path / f".{name}.tmp"
                temporary.write_text(text)
                temporary.chmod(0o644)
                temporary.replace(path / name)
        return path

    def make_work_dir(self) -> Path:
        path = self.config.state_dir / "work" / f"{self.name}-{secrets.token_hex(6)}"
        path.mkdir(mode=0o755)
        path.chmod(0o755)  # readable by the slot uid (bwrap resolves the binds as that uid)
        return path

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
