"""Where the bwrap backend keeps its state (slot locks, work directories, the compiled SDK) and which uids it uses."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from bots.sandbox.errors import SandboxError

__all__ = ["BwrapConfig", "ensure_dir"]


@dataclass(frozen=True)
class BwrapConfig:
    """Where the bwrap backend keeps its state, and the uids it may use. Read from the environment by default."""

    state_dir: Path = Path("/run/parlour-sandbox")
    uid_base: int = 61000
    slots: int = 256
    require_cgroups: bool = True

    @classmethod
    def from_env(cls) -> BwrapConfig:
        def integer(name: str, default: int) -> int:
            raw = os.environ.get(name)
            if raw is None:
                return default
            try:
                value = int(raw)
            except ValueError:
                raise SandboxError(f"{name} must be an integer, got {raw!r}") from None
            if value <= 0:
                raise SandboxError(f"{name} must be positive, got {raw!r}")
            return value

        raw_cg = os.environ.get("PARLOUR_SANDBOX_REQUIRE_CGROUPS", "1").strip().lower()
        if raw_cg not in {"0", "1", "true", "false", "yes", "no"}:
            raise SandboxError(f"PARLOUR_SANDBOX_REQUIRE_CGROUPS must be 0 or 1, got {raw_cg!r}")
        return cls(
            state_dir=Path(os.environ.get("PARLOUR_SANDBOX_DIR", str(cls.state_dir))),
            uid_base=integer("PARLOUR_SANDBOX_UID_BASE", cls.uid_base),
            slots=integer("PARLOUR_SANDBOX_SLOTS", cls.slots),
            require_cgroups=raw_cg in {"1", "true", "yes"},
        )


def ensure_dir(path: Path, mode: int) -> None:
    try:
        path.mkdir(mode=mode, parents=True)
        path.chmod(mode)
    except FileExistsError:
        pass
