from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from bots.packaging import MAX_FILES, PackagingError, package_upload, read_command, unpack


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
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
