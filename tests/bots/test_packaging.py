from __future__ import annotations

import io
import resource
import time
import zipfile
from pathlib import Path

import pytest

from bots.packaging import (
    MAX_FILES,
    MAX_NAME_BYTES,
    MAX_PATH_DEPTH,
    MAX_UNPACKED_BYTES,
    PackagingError,
    package_upload,
    read_command,
    unpack,
)


def _zip(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_a_python_file_becomes_an_archive_with_main_py(tmp_path: Path) -> None:
    package = package_upload(b"print('hello')\n", "anything.py")
    assert package.language == "python" and package.files == 1
    unpack(package.archive, tmp_path)
    assert (tmp_path / "main.py").read_bytes() == b"print('hello')\n"
    assert read_command(tmp_path) == ["python3", "main.py"]


def test_a_zip_of_a_folder_is_accepted_as_if_zipped_from_inside(tmp_path: Path) -> None:
    package = package_upload(_zip({"mybot/main.py": b"x = 1\n", "mybot/lib/util.py": b"y = 2\n"}), "bot.zip")
    unpack(package.archive, tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.py")) == ["lib/util.py", "main.py"]


def test_a_manifest_names_the_language_and_command(tmp_path: Path) -> None:
    package = package_upload(_zip({"bot.toml": b'command = ["node", "main.js"]\n', "main.js": b""}), "b.zip")
    assert package.language == "node"
    unpack(package.archive, tmp_path)
    assert read_command(tmp_path) == ["node", "main.js"]


@pytest.mark.parametrize(
    ("manifest", "message"),
    [(b"command = 'node main.js'", "needs command"), (b"command = [", "not valid TOML"), (b"command = []", "needs")],
)
def test_a_bad_manifest_is_refused_with_an_example(manifest: bytes, message: str) -> None:
    with pytest.raises(PackagingError, match=message):
        package_upload(_zip({"bot.toml": manifest}), "b.zip")


def test_the_same_upload_always_gives_the_same_archive() -> None:
    files = {"main.py": b"a", "util.py": b"b"}
    assert (
        package_upload(_zip(files), "b.zip").archive
        == package_upload(_zip(dict(reversed(files.items()))), "b.zip").archive
    )


def test_too_many_files_are_refused() -> None:
    with pytest.raises(PackagingError, match="files"):
        package_upload(_zip({f"f{i}.py": b"" for i in range(MAX_FILES + 1)} | {"main.py": b""}), "b.zip")


def test_a_zip_bomb_is_stopped_while_reading() -> None:
    with pytest.raises(PackagingError, match="unpacks to more than"):
        package_upload(_zip({"main.py": b"", "bomb.txt": b"\0" * (20 * 1024 * 1024)}), "b.zip")


def test_unpacked_files_are_world_readable_for_the_sandbox_uid(tmp_path: Path) -> None:
    unpack(package_upload(_zip({"main.py": b"", "pkg/mod.py": b""}), "b.zip").archive, tmp_path)
    assert (tmp_path / "pkg" / "mod.py").stat().st_mode & 0o004
    assert (tmp_path / "pkg").stat().st_mode & 0o005 == 0o005


@pytest.mark.parametrize(("method", "name"), [(zipfile.ZIP_BZIP2, "bzip2"), (zipfile.ZIP_LZMA, "lzma")])
def test_a_bzip2_or_lzma_member_is_refused_before_it_is_decompressed(method: int, name: str) -> None:
    bomb = _zip({"main.py": b"", "bomb.bin": b"\0" * (64 * 1024 * 1024)}, method)
    assert len(bomb) < 64 * 1024  # 64 MiB in a few kilobytes
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    with pytest.raises(PackagingError, match=f"compression method {name} is not allowed; zip with stored or deflated"):
        package_upload(bomb, "b.zip")
    assert time.monotonic() - started < 1
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 32 * 1024  # KiB: nothing was expanded


def test_a_deflate_bomb_is_refused_on_its_directory_and_on_its_stream_when_the_directory_lies() -> None:
    bomb = _zip({"main.py": b"", "bomb.bin": b"\0" * (64 * 1024 * 1024)})
    with pytest.raises(PackagingError, match=f"unpacks to more than {MAX_UNPACKED_BYTES:,} bytes"):
        package_upload(bomb, "b.zip")
    # Both headers now claim 1 byte: zipfile reads no more than a member claims, then its CRC gives the lie away.
    liar = bomb.replace((64 * 1024 * 1024).to_bytes(4, "little"), (1).to_bytes(4, "little"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(PackagingError, match=r"bomb\.bin: cannot be read"):
        package_upload(liar, "b.zip")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 32 * 1024  # KiB


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a" * 300 + ".py": b""}, f"a file or folder name is 303 bytes long; the limit is {MAX_NAME_BYTES} bytes"),
        ({"/".join(["d"] * 3000) + "/f.py": b""}, f"3,001 levels deep; the limit is {MAX_PATH_DEPTH} levels"),
        ({"/".join(["d" * 90] * 4): b""}, "the path is 363 bytes long; the limit is 255 bytes"),
        ({"a": b"", "a/b": b""}, "a is both a file and a folder"),
        ({"lib/Util.py": b"", "lib/util.py": b""}, "differ only in case"),
        ({"caf\u00e9.py": b"", "cafe\u0301.py": b""}, "differ only in case \\(or Unicode form\\)"),
        ({"bad\nname.py": b""}, "control characters are not allowed"),
        ({"../evil.py": b""}, "'..' is not allowed"),
    ],
)
def test_an_archive_a_worker_could_not_unpack_is_refused(files: dict[str, bytes], message: str) -> None:
    with pytest.raises(PackagingError, match=message) as refused:
        package_upload(_zip({"main.py": b"", **files}), "b.zip")
    assert len(str(refused.value)) < 200  # a 3,000-level path is not repeated in full


def test_a_stored_archive_is_unpacked_by_the_same_rules(tmp_path: Path) -> None:
    """A worker meeting an archive stored before a rule existed refuses it (PackagingError, the bot's fault) rather
    than failing on the file system (an OSError, retried as the infrastructure's)."""
    with pytest.raises(PackagingError, match="is both a file and a folder"):
        unpack(_zip({"main.py": b"", "a": b"", "a/b": b""}), tmp_path / "bot")
    assert not (tmp_path / "bot" / "a").exists()


def test_the_limits_themselves_are_accepted(tmp_path: Path) -> None:
    deep = "/".join(["d"] * (MAX_PATH_DEPTH - 1)) + "/f.py"
    files = {"main.py": b"", deep: b"x", "n" * (MAX_NAME_BYTES - 3) + ".py": b"", "lib/stored.py": b"y" * 1000}
    package = package_upload(_zip(files, zipfile.ZIP_STORED), "b.zip")
    unpack(package.archive, tmp_path)
    assert (tmp_path / deep).read_bytes() == b"x"
