"""Uploads and request bodies, attacked through the live server: real multipart uploads through the API (a token) and
the site's form (a signed-in session), and bodies of hundreds of megabytes generated lazily, of which the client sends
only the first bytes: a server that wanted the rest would keep the test waiting for its answer.

Each attack must end in a 4xx whose message names the limit, store nothing, expand nothing in the web process (the
live server is a thread of this one: its resident memory is sampled while the request runs) and put nothing in the
temporary folder, which is watched while the request runs (Django deletes a spooled upload when the request ends).
"""

from __future__ import annotations

import functools
import http.client
import io
import json
import os
import socket
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from django.contrib.auth.models import User

from league.accounts.tokens import do_create_token
from league.bots.models import BotVersion
from tests.conftest import EXAMPLE_BOT
from tests.security.conftest import form_csrf

MIB = 1024 * 1024
BOMB_BYTES = 32 * MIB  # what each bomb expands to: a few seconds to build, plain to see in resident memory
GROWTH_ALLOWED = 16 * MIB  # an expanded bomb would add at least BOMB_BYTES
PAGE = os.sysconf("SC_PAGE_SIZE")


@functools.cache
def _bomb(method: int) -> bytes:
    """A zip with ``main.py`` and ``bomb.bin``, BOMB_BYTES of zeros compressed with ``method``, compressed as a stream
    (the test never holds the expanded bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("main.py", EXAMPLE_BOT, compress_type=zipfile.ZIP_DEFLATED)
        with archive.open("bomb.bin", "w") as member:
            for _ in range(BOMB_BYTES // MIB):
                member.write(bytes(MIB))
    return buffer.getvalue()


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in {"main.py": EXAMPLE_BOT, **files}.items():
            archive.writestr(name, content)
    return buffer.getvalue()


@dataclass
class Watch:
    """What the server did while a request ran: the temp folder's entries seen, this process's peak resident size."""

    folder: Path
    seen: set[str] = field(default_factory=set)
    peak: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def _resident(self) -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * PAGE

    def _run(self) -> None:
        while not self._stop.is_set():
            self.seen.update(os.listdir(self.folder))
            self.peak = max(self.peak, self._resident())
            time.sleep(0.002)

    def __enter__(self) -> Watch:
        self.start = self._resident()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.seen.update(os.listdir(self.folder))

    @property
    def growth(self) -> int:
        return self.peak - self.start


@pytest.fixture
def watch(tmp_path: Path, monkeypatch, settings) -> Callable[[], Watch]:
    """The server's temporary folder is a fresh one (tempfile's, and Django's for spooled uploads), watched."""
    folder = tmp_path / "server-tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    settings.FILE_UPLOAD_TEMP_DIR = str(folder)
    return lambda: Watch(folder)


@pytest.fixture
def uploader(site: str, signed_in) -> Callable[[str, str, bytes], tuple[int, str]]:
    """``upload(via, filename, data)`` → (status, error text): a new bot through the API (``via="api"``, a token) or
    the site's form (``via="form"``, a signed-in session)."""
    session = signed_in("mallory")
    key = do_create_token(User.objects.get(username="mallory"), "script")[1]

    def upload(via: str, filename: str, data: bytes) -> tuple[int, str]:
        fields = {"game": "love_letter", "name": "intruder"}
        if via == "api":
            answer = requests.post(
                f"{site}/api/bots/",
                data=fields,
                files={"file": (filename, data)},
                headers={"Authorization": f"Token {key}"},
                timeout=60,
            )
            return answer.status_code, answer.json()["error"]["message"] if answer.status_code >= 400 else ""
        token = form_csrf(session, f"{site}/bots/new/")
        answer = session.post(
            f"{site}/bots/new/",
            data={**fields, "csrfmiddlewaretoken": token},
            files={"file": (filename, data)},
            timeout=60,
            allow_redirects=False,
        )
        return answer.status_code, answer.text

    return upload


VIA = pytest.mark.parametrize("via", ["api", "form"])


@VIA
@pytest.mark.parametrize(("method", "name"), [(zipfile.ZIP_BZIP2, "bzip2"), (zipfile.ZIP_LZMA, "lzma")])
def test_a_bzip2_or_lzma_bomb_is_refused_before_it_is_expanded(uploader, watch, via, method, name) -> None:
    bomb = _bomb(method)
    assert len(bomb) < 16 * 1024, "a few kilobytes that expand to 32 MiB"
    with watch() as seen:
        started = time.monotonic()
        status, error = uploader(via, "bomb.zip", bomb)
        elapsed = time.monotonic() - started
    assert status == 400
    assert f"bomb.bin: compression method {name} is not allowed; zip with stored or deflated" in error
    assert seen.growth < GROWTH_ALLOWED, f"the server grew by {seen.growth / MIB:.0f} MiB"
    assert elapsed < 5 and not seen.seen and not BotVersion.objects.exists()


@VIA
def test_a_deflate_bomb_is_stopped_at_the_unpacked_limit(uploader, watch, via) -> None:
    with watch() as seen:
        status, error = uploader(via, "bomb.zip", _bomb(zipfile.ZIP_DEFLATED))
    assert status == 400 and "the archive unpacks to more than 10,485,760 bytes" in error
    assert seen.growth < GROWTH_ALLOWED and not seen.seen and not BotVersion.objects.exists()


@VIA
@pytest.mark.parametrize(
    ("files", "limit"),
    [
        ({"a" * 300 + ".py": b""}, "a file or folder name is 303 bytes long; the limit is 100 bytes"),
        ({"/".join(["d"] * 3000) + "/deep.py": b""}, "the path is 3,001 levels deep; the limit is 16 levels"),
        ({"a": b"", "a/b": b""}, "a is both a file and a folder (of a/b)"),
        ({"util.py": b"", "UTIL.py": b""}, "util.py and UTIL.py differ only in case"),
    ],
    ids=["300-character name", "3000-deep path", "file beside folder", "case clash"],
)
def test_an_archive_a_worker_could_not_unpack_is_refused_at_upload(uploader, watch, via, files, limit) -> None:
    with watch() as seen:
        status, error = uploader(via, "bot.zip", _zip(files))
    assert status == 400 and limit in error
    assert "/d" * 100 not in error, "a 3,000-level path is not shown in full"
    assert not seen.seen and not BotVersion.objects.exists()


@VIA
def test_a_good_upload_passes_the_same_doors(uploader, watch, via) -> None:
    """The control: a bot of almost 1 MB through the same path is accepted, and leaves the temp folder empty."""
    padding = b"#" * (1000 * 1000 - len(EXAMPLE_BOT) - 1) + b"\n"
    with watch() as seen:
        status, _error = uploader(via, "bot.py", EXAMPLE_BOT + padding)
    assert status == (201 if via == "api" else 302)
    assert BotVersion.objects.get().bot.name == "intruder"
    assert not os.listdir(seen.folder)


# ----- request bodies ----------------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes
    sent: int  # body bytes the client had sent when the answer came


def _multipart(fields: dict[str, str], declared: int) -> tuple[str, Iterator[bytes], int]:
    """A multipart body of about ``declared`` bytes, made lazily: its content type, chunks and exact length."""
    boundary = "parlour-stranger-boundary"
    head = "".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        for name, value in fields.items()
    )
    head += f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.zip"\r\n\r\n'
    tail = f"\r\n--{boundary}--\r\n".encode()
    filler = declared - len(head) - len(tail)

    def chunks() -> Iterator[bytes]:
        yield head.encode()
        block = b"\0" * (64 * 1024)
        for start in range(0, filler, len(block)):
            yield block[: min(len(block), filler - start)]
        yield tail

    return f"multipart/form-data; boundary={boundary}", chunks(), len(head) + filler + len(tail)


def _send_head_first(
    site: str, path: str, headers: dict[str, str], chunks: Iterator[bytes], send_at_most: int = 256 * 1024
) -> Answer:
    """POST with the given headers, send at most ``send_at_most`` bytes of the body, then wait for the answer."""
    url = urlsplit(site)
    with socket.create_connection((url.hostname, url.port), timeout=15) as sock:
        lines = [f"POST {path} HTTP/1.1", f"Host: {url.netloc}", *(f"{k}: {v}" for k, v in headers.items())]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        sent = 0
        for chunk in chunks:
            if sent >= send_at_most:
                break
            sock.sendall(chunk)
            sent += len(chunk)
        response = http.client.HTTPResponse(sock)
        response.begin()  # a server still reading the body would time out here
        return Answer(response.status, response.headers, response.read(), sent)


def _session_cookies(session: requests.Session) -> str:
    return "; ".join(f"{name}={value}" for name, value in session.cookies.items())


def test_a_1_gb_upload_with_a_token_is_refused_with_413_before_it_is_read(site, watch) -> None:
    user = User.objects.create_user("mallory", "m@example.org", "correct horse battery")
    key = do_create_token(user, "script")[1]
    content_type, chunks, length = _multipart({"game": "love_letter", "name": "huge"}, 1024 * MIB)
    with watch() as seen:
        answer = _send_head_first(
            site,
            "/api/bots/",
            {"Authorization": f"Token {key}", "Content-Type": content_type, "Content-Length": str(length)},
            chunks,
        )
    assert answer.status == 413 and answer.sent <= 256 * 1024 + 64 * 1024
    assert answer.headers["Content-Type"] == "application/json"
    error = json.loads(answer.body)["error"]
    assert error["code"] == "too_large"
    assert error["message"] == (
        f"the request body is {length:,} bytes; the limit is 1,114,112 bytes "
        "(a bot upload of at most 1,048,576 bytes and its form)"
    )
    assert not seen.seen and seen.growth < GROWTH_ALLOWED and not BotVersion.objects.exists()


def test_a_1_gb_upload_through_the_form_is_refused_with_a_plain_413_page(site, signed_in, watch) -> None:
    session = signed_in("mallory")
    token = form_csrf(session, f"{site}/bots/new/")
    fields = {"csrfmiddlewaretoken": token, "game": "love_letter", "name": "huge"}
    content_type, chunks, length = _multipart(fields, 1024 * MIB)
    headers = {"Cookie": _session_cookies(session), "Content-Type": content_type, "Content-Length": str(length)}
    with watch() as seen:
        answer = _send_head_first(site, "/bots/new/", headers, chunks)
    assert answer.status == 413 and answer.headers["Content-Type"].startswith("text/html")
    assert b"Request too large" in answer.body and b"the limit is 1,114,112 bytes" in answer.body
    assert not seen.seen and seen.growth < GROWTH_ALLOWED and not BotVersion.objects.exists()


def test_500_mb_from_a_stranger_with_a_bad_csrf_token_is_refused_unread(site, stranger, watch) -> None:
    """The CSRF check reads the form to find its token: the body limit must come first, or the stranger's 500 MB are
    parsed (and were spooled to the temp folder) before the 403."""
    form_csrf(stranger, f"{site}/account/login/")  # a CSRF cookie, as a browser would hold one
    fields = {"csrfmiddlewaretoken": "forged" * 8, "game": "love_letter", "name": "huge"}
    content_type, chunks, length = _multipart(fields, 500 * MIB)
    headers = {"Cookie": _session_cookies(stranger), "Content-Type": content_type, "Content-Length": str(length)}
    with watch() as seen:
        answer = _send_head_first(site, "/bots/new/", headers, chunks)
    assert answer.status == 413
    assert b"without signing in or an API token the limit is 65,536 bytes" in answer.body
    assert not seen.seen and seen.growth < GROWTH_ALLOWED


def test_a_stranger_gets_a_small_body_only_even_with_a_made_up_token(site, watch) -> None:
    content_type, chunks, length = _multipart({"game": "love_letter", "name": "huge"}, 2 * MIB // 3)
    headers = {"Authorization": "Token plr_made-up", "Content-Type": content_type, "Content-Length": str(length)}
    with watch() as seen:
        answer = _send_head_first(site, "/api/bots/", headers, chunks)
    assert answer.status == 413 and b"without signing in or an API token the limit is 65,536 bytes" in answer.body
    assert not seen.seen


def test_a_chunked_body_is_refused_with_411(site, stranger) -> None:
    """Without Content-Length Django would read nothing and take the form for empty: say so instead."""
    headers = {"Transfer-Encoding": "chunked", "Content-Type": "application/json"}
    answer = _send_head_first(site, "/api/bots/", headers, iter([b"5\r\nhello\r\n0\r\n\r\n"]))
    assert answer.status == 411
    assert json.loads(answer.body) == {
        "error": {"code": "length_required", "message": "send the request body with a Content-Length header"}
    }
