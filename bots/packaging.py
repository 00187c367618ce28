"""Bot uploads: hostile until validated. A single ``.py`` file or a zip with ``main.py`` (or a ``bot.toml``).

``package_upload`` checks an upload and turns it into a normalised zip (the only form stored); ``unpack`` writes a
stored archive into a directory for the runner. Neither ever writes outside the directory it is given.
"""

from __future__ import annotations

import io
import stat
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_UPLOAD_BYTES = 1024 * 1024  # compressed, as uploaded
MAX_UNPACKED_BYTES = 10 * 1024 * 1024
MAX_FILES = 500
ENTRY_POINT = "main.py"
MANIFEST = "bot.toml"


class PackagingError(ValueError):
    """An upload we refuse; the message is for the user."""


@dataclass(frozen=True)
class Package:
    archive: bytes  # the normalised zip
    language: str  # "python", or the manifest's program (e.g. "node")
    files: int
    unpacked_bytes: int


def package_upload(data: bytes, filename: str) -> Package:
    """Validate an upload and return its normalised archive, or raise ``PackagingError`` saying what is wrong."""
    if len(data) == 0:
        raise PackagingError("the upload is empty")
    if len(data) > MAX_UPLOAD_BYTES:
        raise PackagingError(f"the upload is {len(data):,} bytes; the limit is {MAX_UPLOAD_BYTES:,} bytes")
    name = filename.lower()
    if name.endswith(".py"):
        return _package_files({ENTRY_POINT: _python_source(data)})
    if name.endswith(".zip") or data[:4] == b"PK\x03\x04":
        return _package_files(_read_zip(data))
    raise PackagingError("upload a single Python file (.py) or a zip archive (.zip) with main.py or bot.toml")


def unpack(archive: bytes, dest: Path) -> None:
    """Write a stored (already validated) archive into ``dest``, world-readable so a sandbox uid can read it."""
    dest.mkdir(parents=True, exist_ok=True)
    for path, content in _read_zip(archive).items():
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        target.chmod(0o644)
    for directory in [dest, *[p for p in dest.rglob("*") if p.is_dir()]]:
        directory.chmod(0o755)


def read_command(code_dir: Path) -> list[str]:
    """The program to run for the bot in ``code_dir``: its manifest's ``command``, or Python on ``main.py``."""
    manifest = code_dir / MANIFEST
    if manifest.exists():
        return _manifest_command(manifest.read_bytes())
    return ["python3", ENTRY_POINT]


def _python_source(data: bytes) -> bytes:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise PackagingError("a .py upload must be UTF-8 text") from None
    return data


def _read_zip(data: bytes) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise PackagingError("the upload is not a valid zip archive") from None
    infos = [info for info in archive.infolist() if not info.is_dir()]
    if len(infos) > MAX_FILES:
        raise PackagingError(f"the archive has {len(infos)} files; the limit is {MAX_FILES}")
    files: dict[str, bytes] = {}
    total = 0
    for info in infos:
        path = _safe_path(info)
        # Read in bounded chunks: a header may lie about the size (a zip bomb), the stream cannot.
        content = bytearray()
        try:
            with archive.open(info) as stream:
                while chunk := stream.read(64 * 1024):
                    content += chunk
                    total += len(chunk)
                    if total > MAX_UNPACKED_BYTES:
                        raise PackagingError(f"the archive unpacks to more than {MAX_UNPACKED_BYTES:,} bytes")
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError) as error:
            raise PackagingError(f"{info.filename}: cannot be read ({error})") from None
        if path in files:
            raise PackagingError(f"{path} appears twice in the archive")
        files[path] = bytes(content)
    return _strip_common_folder(files)


def _safe_path(info: zipfile.ZipInfo) -> str:
    name = info.filename
    if stat.S_ISLNK(info.external_attr >> 16):
        raise PackagingError(f"{name}: symbolic links are not allowed")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise PackagingError(f"{name}: absolute paths are not allowed")
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if ".." in parts:
        raise PackagingError(f"{name}: '..' is not allowed in paths")
    if not parts or any(part.startswith("\x00") or "\x00" in part for part in parts):
        raise PackagingError(f"{name!r}: not a valid file name")
    return "/".join(parts)


def _strip_common_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """A zip of a folder (``mybot/main.py``) is accepted as if zipped from inside it."""
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):
        top = tops.pop()
        return {path[len(top) + 1 :]: content for path, content in files.items()}
    return files


def _manifest_command(data: bytes) -> list[str]:
    try:
        manifest = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise PackagingError(f"{MANIFEST} is not valid TOML: {error}") from None
    command = manifest.get("command")
    if not (isinstance(command, list) and command and all(isinstance(part, str) and part for part in command)):
        raise PackagingError(f'{MANIFEST} needs command = ["program", "arg", ...], e.g. command = ["node", "main.js"]')
    return command


def _package_files(files: dict[str, bytes]) -> Package:
    if MANIFEST in files:
        language = PurePosixPath(_manifest_command(files[MANIFEST])[0]).name
    elif ENTRY_POINT in files:
        language = "python"
    else:
        raise PackagingError(f"no entry point: the archive needs {ENTRY_POINT} (or {MANIFEST}) at its top level")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(files):
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[path])
    return Package(
        archive=buffer.getvalue(),
        language=language,
        files=len(files),
        unpacked_bytes=sum(len(content) for content in files.values()),
    )
