"""Bot uploads: hostile until validated. A single ``.py`` file or a zip with ``main.py`` (or a ``bot.toml``).

``package_upload`` checks an upload and turns it into a normalised zip (the only form stored); ``unpack`` writes a
stored archive into a directory for the runner. Both read an archive through ``_read_zip``, so the rules an upload
passes are exactly the rules a worker unpacks by: an archive the web accepts is one a worker can unpack. The rules
are checked on the zip's directory before a byte is decompressed, then the sizes again on the decompressed stream
(a header may lie), in chunks: memory stays bounded by the limits below, whatever the archive claims. Neither
function ever writes outside the directory it is given.
"""

from __future__ import annotations

import errno
import io
import stat
import tempfile
import tomllib
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_UPLOAD_BYTES = 1024 * 1024  # compressed, as uploaded
MAX_UNPACKED_BYTES = 10 * 1024 * 1024
MAX_FILES = 500
MAX_NAME_BYTES = 100  # one file or folder name, in UTF-8 (file systems allow 255)
MAX_PATH_BYTES = 255  # a whole path inside the bot's folder, in UTF-8
MAX_PATH_DEPTH = 16  # folders and the file: a/b/c.py is 3
# Only these two: zipfile bounds a read's output for deflate alone; a bzip2 or LZMA member expands in full at the
# first read (1.3 KB can become gigabytes), so such members are refused before they are opened.
ALLOWED_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
METHOD_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma", 9: "deflate64", 93: "zstandard"}
ENTRY_POINT = "main.py"
MANIFEST = "bot.toml"
_CHUNK = 64 * 1024
# Writing these fails because of the archive, not the machine (the rules above should make them impossible).
_ARCHIVE_ERRNOS = {errno.ENAMETOOLONG, errno.ENOTDIR, errno.EISDIR, errno.EEXIST, errno.EILSEQ, errno.EINVAL}


class PackagingError(ValueError):
    """An upload we refuse; the message is for the user (it names the limit, never a path on a server)."""


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
        package = _package_files({ENTRY_POINT: _python_source(data)})
    elif name.endswith(".zip") or data[:4] == b"PK\x03\x04":
        package = _package_files(_read_zip(data))
    else:
        raise PackagingError("upload a single Python file (.py) or a zip archive (.zip) with main.py or bot.toml")
    _prove_unpacks(package.archive)
    return package


def unpack(archive: bytes, dest: Path) -> None:
    """Write a stored archive into ``dest``, world-readable so a sandbox uid can read it. The archive is checked by
    the same rules as an upload: one stored before a rule existed raises ``PackagingError``."""
    dest.mkdir(parents=True, exist_ok=True)
    for path, content in _read_zip(archive).items():
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        target.chmod(0o644)
    for directory in [dest, *[p for p in dest.rglob("*") if p.is_dir()]]:
        directory.chmod(0o755)


def _prove_unpacks(archive: bytes) -> None:
    """Unpack the normalised archive once, as a worker will (at most MAX_FILES files, MAX_UNPACKED_BYTES): what the
    web accepts, a worker can unpack. A failure the archive causes is the user's 400; any other is ours."""
    with tempfile.TemporaryDirectory(prefix="parlour-upload-") as scratch:
        try:
            unpack(archive, Path(scratch) / "bot")
        except OSError as error:
            if error.errno not in _ARCHIVE_ERRNOS:
                raise
            raise PackagingError(f"the archive cannot be unpacked: {error.strerror}") from None


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
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError):
        raise PackagingError("the upload is not a valid zip archive") from None
    entries = _checked_entries(archive)
    files: dict[str, bytes] = {}
    total = 0
    for path, info in entries:
        # Read in bounded chunks: a header may lie about the size (a zip bomb), the stream cannot. Only stored and
        # deflated members get here, and zipfile bounds each read of those to the size asked for.
        content = bytearray()
        try:
            with archive.open(info) as stream:
                while total <= MAX_UNPACKED_BYTES and (chunk := stream.read(_CHUNK)):
                    content += chunk
                    total += len(chunk)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, ValueError, OSError):
            raise PackagingError(f"{_shown(path)}: cannot be read (a damaged archive)") from None
        if total > MAX_UNPACKED_BYTES:
            raise PackagingError(f"the archive unpacks to more than {MAX_UNPACKED_BYTES:,} bytes")
        files[path] = bytes(content)
    return files


def _checked_entries(archive: zipfile.ZipFile) -> list[tuple[str, zipfile.ZipInfo]]:
    """The archive's files under the paths they unpack to, every rule checked on the zip's directory alone."""
    infos = [info for info in archive.infolist() if not info.is_dir()]
    if len(infos) > MAX_FILES:
        raise PackagingError(f"the archive has {len(infos):,} files; the limit is {MAX_FILES}")
    for info in infos:
        _check_member(info)
    declared = sum(info.file_size for info in infos)
    if declared > MAX_UNPACKED_BYTES:
        raise PackagingError(
            f"the archive unpacks to more than {MAX_UNPACKED_BYTES:,} bytes (its directory says {declared:,} bytes)"
        )
    paths = _strip_common_folder([_safe_parts(info.filename) for info in infos])
    for parts in paths:
        _check_path(parts)
    _check_clashes(paths)
    return [("/".join(parts), info) for parts, info in zip(paths, infos, strict=True)]


def _check_member(info: zipfile.ZipInfo) -> None:
    name = _shown(info.filename)
    if info.compress_type not in ALLOWED_METHODS:
        method = METHOD_NAMES.get(info.compress_type, f"method {info.compress_type}")
        raise PackagingError(
            f"{name}: compression method {method} is not allowed; zip with stored or deflated (the zip default)"
        )
    if info.flag_bits & 0x1:
        raise PackagingError(f"{name}: encrypted files are not allowed")
    if stat.S_ISLNK(info.external_attr >> 16):
        raise PackagingError(f"{name}: symbolic links are not allowed")


def _safe_parts(name: str) -> tuple[str, ...]:
    shown = _shown(name)
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise PackagingError(f"{shown}: absolute paths are not allowed")
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if ".." in parts:
        raise PackagingError(f"{shown}: '..' is not allowed in paths")
    if not parts or any(ord(char) < 32 or char == "\x7f" for char in name):
        raise PackagingError(f"{shown!r}: not a valid file name (control characters are not allowed)")
    return parts


def _check_path(parts: tuple[str, ...]) -> None:
    path = "/".join(parts)
    if len(parts) > MAX_PATH_DEPTH:
        raise PackagingError(
            f"{_shown(path)}: the path is {len(parts):,} levels deep; the limit is {MAX_PATH_DEPTH} levels"
        )
    for part in parts:
        if (size := len(part.encode())) > MAX_NAME_BYTES:
            raise PackagingError(
                f"{_shown(part)}: a file or folder name is {size:,} bytes long; the limit is {MAX_NAME_BYTES} bytes"
            )
    if (size := len(path.encode())) > MAX_PATH_BYTES:
        raise PackagingError(f"{_shown(path)}: the path is {size:,} bytes long; the limit is {MAX_PATH_BYTES} bytes")


def _check_clashes(paths: list[tuple[str, ...]]) -> None:
    """Two entries for one file, a file where a folder must be, or names that differ only in case or Unicode form
    (one file on a case-insensitive or normalising file system, and a trap for readers everywhere)."""
    files: dict[tuple[str, ...], str] = {}
    for parts in paths:
        key = _folded(parts)
        if key in files:
            first, second = files[key], "/".join(parts)
            if first == second:
                raise PackagingError(f"{_shown(first)} appears twice in the archive")
            raise PackagingError(f"{_shown(first)} and {_shown(second)} differ only in case (or Unicode form)")
        files[key] = "/".join(parts)
    for parts in paths:
        for depth in range(1, len(parts)):
            if (folder := _folded(parts[:depth])) in files:
                raise PackagingError(
                    f"{_shown(files[folder])} is both a file and a folder (of {_shown('/'.join(parts))})"
                )


def _folded(parts: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(unicodedata.normalize("NFC", part).casefold() for part in parts)


def _shown(name: str, limit: int = 60) -> str:
    """A name from the archive as a message shows it: bounded, so a 3,000-level path is not a 6 KB message."""
    return name if len(name) <= limit else f"{name[: limit - 20]}…{name[-19:]} ({len(name):,} characters)"


def _strip_common_folder(paths: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """A zip of a folder (``mybot/main.py``) is accepted as if zipped from inside it."""
    tops = {parts[0] for parts in paths}
    if len(tops) == 1 and all(len(parts) > 1 for parts in paths):
        return [parts[1:] for parts in paths]
    return paths


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
