"""Each bot version's code is unpacked once per machine, not once per seat per match.

A version's archive never changes, so its files go to a content-addressed directory,
``settings.VAR_DIR / "bot-code" / <sha256 of the archive>``, shared by every worker process on the machine and
reused by every match. The sandbox binds it read-only at ``/bot`` (bots/sandbox/mounts.py), one bot's own directory
only, and the bot runs as a slot uid that owns nothing here; the files are also read-only on disk (0444, directories
0555) so that even an unsandboxed development worker (BOT_SANDBOX=none) does not let a bot edit the copy the next
match uses.

Races: prefork children and several workers on one machine may want the same version at once. Each unpacks into
its own temporary directory next to the cache and renames it into place; ``rename`` is atomic, so a directory under
its final name is always complete, and the loser of the race throws its copy away.

Size: at most BOT_CODE_CACHE_ENTRIES versions. A new entry evicts the least recently used ones beyond that, but never
one used within CELERY_TASK_TIME_LIMIT (a match may still be running from it). Deleting the whole directory is safe
whenever no worker runs; it is rebuilt on demand.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from bots.packaging import unpack

log = logging.getLogger(__name__)

# version id → archive digest, in this process: a version's archive never changes, so a warm cache needs neither the
# archive (up to 1 MiB, from the database) nor its hash.
_digests: dict[int, str] = {}


def cache_root() -> Path:
    return Path(settings.VAR_DIR) / "bot-code"


def code_dir_for(version_id: int, load_archive: Callable[[], bytes]) -> Path:
    """The unpacked code of bot version ``version_id``; ``load_archive`` is called only when this process does not
    know the version's digest yet."""
    digest = _digests.get(version_id)
    if digest is not None:
        path = cache_root() / digest
        if _touch(path):
            return path
    archive = load_archive()
    path = code_dir(archive)
    _digests[version_id] = path.name
    return path


def code_dir(archive: bytes) -> Path:
    """The directory holding ``archive`` unpacked, read-only; unpacked now if no process on this machine did yet."""
    root = cache_root()
    path = root / hashlib.sha256(archive).hexdigest()
    if _touch(path):
        return path
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)  # the sandbox binds the code as it is only when every ancestor is searchable by others
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=root))
    try:
        unpack(archive, staging)
        _make_read_only(staging)
        try:
            os.rename(staging, path)
        except OSError:
            if not path.is_dir():  # not a lost race: something else is wrong
                raise
            log.debug("%s: unpacked by another process meanwhile", path.name)
        else:
            _evict(root, keep=path)
    finally:
        if staging.exists():
            _remove(staging)
    return path


def _touch(path: Path) -> bool:
    """Mark ``path`` as just used (its mtime orders eviction); False if it is not there."""
    try:
        os.utime(path)
    except FileNotFoundError:
        return False
    return True


def _make_read_only(root: Path) -> None:
    for current, dirs, files in os.walk(root):
        for name in files:
            os.chmod(os.path.join(current, name), 0o444)
        for name in dirs:
            os.chmod(os.path.join(current, name), 0o555)
    root.chmod(0o555)


def _remove(path: Path) -> None:
    """Remove a (read-only) tree: directories are made writable again first, for a worker that is not root."""

    def writable_then_retry(function: Callable[..., object], name: str, _error: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o755)
            if os.path.isdir(name) and not os.path.islink(name):
                os.chmod(name, 0o755)
        with contextlib.suppress(FileNotFoundError):
            function(name)

    for current, dirs, _files in os.walk(path):
        with contextlib.suppress(OSError):
            os.chmod(current, 0o755)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(current, d))]
    shutil.rmtree(path, onerror=writable_then_retry)


def _evict(root: Path, keep: Path) -> None:
    """Beyond BOT_CODE_CACHE_ENTRIES, remove the least recently used entries not used for a task's time limit."""
    limit = settings.BOT_CODE_CACHE_ENTRIES
    recent = time.time() - settings.CELERY_TASK_TIME_LIMIT
    entries = []
    with os.scandir(root) as scan:
        for entry in scan:
            with contextlib.suppress(FileNotFoundError):
                mtime = entry.stat(follow_symlinks=False).st_mtime
                if entry.name.startswith("."):  # left by a process killed while unpacking or evicting
                    if mtime < recent:
                        _remove(Path(entry.path))
                elif entry.path != str(keep):
                    entries.append((mtime, entry.path))
    excess = len(entries) + 1 - limit
    for mtime, victim in sorted(entries)[: max(0, excess)]:
        if mtime > recent:
            break  # in use, or may be: the cache stays over its bound until a match's time limit has passed
        # Renamed away first, so that no process finds a half-deleted directory under the digest's name.
        trash = root / f".evicted-{os.path.basename(victim)}-{os.getpid()}"
        try:
            os.rename(victim, trash)
        except OSError:
            continue  # another process evicted it first
        if os.stat(trash).st_mtime > recent:  # used since the scan: put it back (or let the user's copy win)
            with contextlib.suppress(OSError):
                os.rename(trash, victim)
        if trash.exists():
            _remove(trash)
