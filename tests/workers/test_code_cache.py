"""Each bot version is unpacked once per machine (workers/code_cache.py): reused by every match, created atomically
when processes race, read-only, bounded in size, and still private to its bot inside the real sandbox."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test.utils import override_settings

from bots import packaging
from bots.runner import BotSeat, play_match
from bots.sandbox.mounts import shareable_tree as _shareable_tree
from tests.bots.conftest import requires_bwrap
from tests.conftest import EXAMPLE_BOT
from workers import code_cache


def _archive(source: bytes) -> bytes:
    return packaging.package_upload(source, "main.py").archive


@pytest.fixture
def var_dir() -> Iterator[Path]:
    # Not pytest's tmp_path: its parents are private to root, and the sandbox binds a tree as it is only when every
    # ancestor is searchable by others (otherwise it copies, which is correct but not what is tested here).
    root = Path(tempfile.mkdtemp(prefix="parlour-code-cache-"))
    root.chmod(0o755)
    code_cache._digests.clear()
    with override_settings(VAR_DIR=root):
        yield root
    code_cache._digests.clear()
    code_cache._remove(root)


def _entries(var_dir: Path) -> list[str]:
    return sorted(os.listdir(var_dir / "bot-code"))


def test_an_archive_is_unpacked_once_and_reused_read_only(var_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unpacked = []
    real_unpack = code_cache.unpack
    monkeypatch.setattr(code_cache, "unpack", lambda data, dest: unpacked.append(dest) or real_unpack(data, dest))
    archive = _archive(b"print('one')\n")
    first = code_cache.code_dir(archive)
    assert code_cache.code_dir(archive) == first and len(unpacked) == 1
    assert first == var_dir / "bot-code" / hashlib.sha256(archive).hexdigest()
    assert (first / "main.py").read_bytes() == b"print('one')\n"
    assert stat.S_IMODE(first.stat().st_mode) == 0o555
    assert stat.S_IMODE((first / "main.py").stat().st_mode) == 0o444
    assert code_cache.code_dir(_archive(b"print('two')\n")) != first, "another archive, another directory"
    assert _entries(var_dir) == sorted([first.name, hashlib.sha256(_archive(b"print('two')\n")).hexdigest()])
    assert _shareable_tree(first), "the sandbox binds it as it is (read-only), without a per-match copy"


def test_a_version_is_loaded_from_the_database_only_on_a_process_first_sight(var_dir: Path) -> None:
    loads = []

    def load() -> bytes:
        loads.append(1)
        return _archive(b"print('v7')\n")

    path = code_cache.code_dir_for(7, load)
    assert code_cache.code_dir_for(7, load) == path and len(loads) == 1
    code_cache._remove(path)  # removed behind this process's back (evicted, or the cache was cleared)
    assert code_cache.code_dir_for(7, load) == path and len(loads) == 2
    assert (path / "main.py").read_bytes() == b"print('v7')\n"


def _unpack_in_a_child(archive: bytes) -> str:
    return str(code_cache.code_dir(archive))


def test_processes_racing_for_one_version_all_get_the_same_complete_directory(
    var_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_unpack = code_cache.unpack

    def slow_unpack(data: bytes, dest: Path) -> None:
        real_unpack(data, dest)
        time.sleep(0.2)  # every child is still unpacking when the first one renames its copy into place

    monkeypatch.setattr(code_cache, "unpack", slow_unpack)
    archive = _archive(b"print('raced')\n" * 1000)
    with multiprocessing.get_context("fork").Pool(4) as pool:
        paths = pool.map(_unpack_in_a_child, [archive] * 4, chunksize=1)
    assert len(set(paths)) == 1
    assert _entries(var_dir) == [Path(paths[0]).name], "the losers' copies are gone, nothing half-made is left"
    assert (Path(paths[0]) / "main.py").read_bytes() == b"print('raced')\n" * 1000


@override_settings(BOT_CODE_CACHE_ENTRIES=2, CELERY_TASK_TIME_LIMIT=600)
def test_the_least_recently_used_versions_are_evicted_but_never_one_a_match_may_still_use(var_dir: Path) -> None:
    old, used, recent = (code_cache.code_dir(_archive(f"print({n})\n".encode())) for n in range(3))
    assert len(_entries(var_dir)) == 3, "all used within a task's time limit: none may go yet"
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    os.utime(used, (an_hour_ago + 60, an_hour_ago + 60))
    code_cache.code_dir(_archive(b"print('new')\n"))
    assert not old.exists() and not used.exists() and recent.exists()
    assert len(_entries(var_dir)) == 2
    stale = var_dir / "bot-code" / ".unpack-left-by-a-killed-process"
    stale.mkdir()
    os.utime(stale, (an_hour_ago, an_hour_ago))
    code_cache.code_dir(_archive(b"print('newer')\n"))
    assert not stale.exists()


PRYING_BOT = b"""import json, os, sys

def write(path):
    try:
        with open(path, "w") as handle:
            handle.write("pwned")
        return "ok"
    except OSError as error:
        return error.strerror

report = {"write_own_dir": write("/bot/x"), "overwrite_own_code": write("/bot/main.py"),
          "other_version_visible": os.path.exists(OTHER), "cache_visible": os.path.exists(CACHE)}
sys.stderr.write("PROBE " + json.dumps(report) + "\\n")
sys.stderr.flush()
"""


@requires_bwrap
def test_in_the_sandbox_a_bot_cannot_write_its_cached_code_or_see_another_version(var_dir: Path) -> None:
    other = code_cache.code_dir(_archive(EXAMPLE_BOT))
    prying = PRYING_BOT.replace(b"OTHER", repr(str(other)).encode()).replace(
        b"CACHE", repr(str(var_dir / "bot-code")).encode()
    )
    mine = code_cache.code_dir(_archive(prying + EXAMPLE_BOT))
    result = play_match(
        "love_letter", [BotSeat("prying", code_dir=mine), BotSeat("other", code_dir=other)], seed=1, sandbox="bwrap"
    )
    line = next(line for line in result.seats[0].stderr.splitlines() if line.startswith("PROBE "))
    assert json.loads(line[6:]) == {
        "write_own_dir": "Read-only file system",
        "overwrite_own_code": "Read-only file system",
        "other_version_visible": False,
        "cache_visible": False,
    }
    assert sorted(os.listdir(mine)) == ["main.py"] and result.seats[0].fault is None
