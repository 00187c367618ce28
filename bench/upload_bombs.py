"""Zip bombs and huge bodies against a web server of its own: its peak memory and the time of each answer.

    .venv/bin/python bench/upload_bombs.py [--mib 256] [--before REV]

1. The packaging step alone, in a fresh process per bomb: ``bots/packaging.py`` as it is, and (``--before REV``,
   e.g. ``--before main``) as it was at a git revision, read with ``git show`` (nothing on disk changes). Peak RSS is
   the child's ``VmHWM``.
2. A real web server (``manage.py runserver --noreload``, DEBUG off, SQLite in a temporary var folder, its own
   temporary folder): each bomb uploaded through the API with a token, then a 1 GiB body with the token and a 500 MB
   anonymous body with a forged CSRF token (headers and the first 256 KiB only: a server that wants the rest keeps
   us waiting). Peak RSS is the server's ``VmHWM`` after each request; files are what its temp folder held meanwhile.

Each bomb is ``main.py`` and ``bomb.bin``: ``--mib`` MiB of zeros, compressed as a stream (bzip2, LZMA, deflate).
"""

from __future__ import annotations

import argparse
import http.client
import io
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
METHODS = {"bzip2": zipfile.ZIP_BZIP2, "lzma": zipfile.ZIP_LZMA, "deflate": zipfile.ZIP_DEFLATED}
PACKAGE_ONE = """
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("packaging_under_test", sys.argv[1])
module = sys.modules["packaging_under_test"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
data = open(sys.argv[2], "rb").read()
started = time.monotonic()
try:
    module.package_upload(data, "bomb.zip")
    outcome = "accepted"
except Exception as error:
    outcome = str(error)[:90]
status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]  # this program's peak, not its parent's
print(f"{time.monotonic() - started:.2f}\\t{int(status) // 1024}\\t{outcome}")
"""


def bomb(method: int, mib: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("main.py", "print('hi')\n", compress_type=zipfile.ZIP_DEFLATED)
        with archive.open("bomb.bin", "w") as member:
            for _ in range(mib):
                member.write(bytes(MIB))
    return buffer.getvalue()


def packaging_figures(bombs: dict[str, Path], source: Path, label: str) -> None:
    for name, path in bombs.items():
        out = subprocess.run(
            [sys.executable, "-c", PACKAGE_ONE, str(source), str(path)], capture_output=True, text=True, check=True
        ).stdout.strip()
        seconds, peak, outcome = out.split("\t")
        print(f"  {label:<8} {name:<8} {float(seconds):7.2f} s  peak {int(peak):6,} MiB  {outcome}")


class Server:
    def __init__(self, folder: Path) -> None:
        self.folder, self.tmp = folder, folder / "tmp"
        self.tmp.mkdir()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.env = {
            **os.environ,
            "PARLOUR_VAR_DIR": str(folder / "var"),
            "DATABASE_URL": "",
            "REDIS_URL": "",
            "CACHE_URL": "",
            "SECRET_KEY": "bench-only",
            "DEBUG": "0",
            "TMPDIR": str(self.tmp),
            "LOG_LEVEL": "WARNING",
        }

    def manage(self, *args: str) -> str:
        command = [sys.executable, "manage.py", *args]
        return subprocess.run(command, cwd=ROOT, env=self.env, capture_output=True, text=True, check=True).stdout

    def start(self) -> None:
        self.manage("migrate", "-v0")
        self.key = self.manage(
            "shell",
            "-c",
            "from django.contrib.auth.models import User; from league.accounts.tokens import do_create_token; "
            "print(do_create_token(User.objects.create_user('bench', password='x' * 12), 'b')[1])",
        ).split()[-1]
        command = [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{self.port}"]
        log = (self.folder / "server.log").open("wb")
        self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                requests.get(f"http://127.0.0.1:{self.port}/api/", timeout=2)
                return
            except requests.ConnectionError:
                time.sleep(0.2)
        raise SystemExit("the server did not start: see " + str(self.folder / "server.log"))

    def peak_mib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
        return -1

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def watch_folder(folder: Path, seen: set[str], stop: threading.Event) -> None:
    while not stop.is_set():
        seen.update(os.listdir(folder))
        time.sleep(0.005)


def timed(server: Server, label: str, request) -> None:  # type: ignore[no-untyped-def]
    seen: set[str] = set()
    stop = threading.Event()
    watcher = threading.Thread(target=watch_folder, args=(server.tmp, seen, stop))
    watcher.start()
    started = time.monotonic()
    try:
        status, text = request()
    except (OSError, requests.RequestException) as error:
        status, text = 0, f"{type(error).__name__}: {error}"
    elapsed = time.monotonic() - started
    stop.set()
    watcher.join()
    print(
        f"  {label:<30} {status:3} in {elapsed:6.2f} s  server peak {server.peak_mib():5,} MiB  "
        f"temp files {len(seen)}  {text[:80]}"
    )


def head_first(port: int, path: str, headers: dict[str, str], declared: int) -> tuple[int, str]:
    """POST ``declared`` bytes of form data, sending the headers and 256 KiB only, then wait for the answer."""
    boundary = "bench"
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.zip"\r\n\r\n'.encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {declared}"]
        lines += [f"Content-Type: multipart/form-data; boundary={boundary}", *(f"{k}: {v}" for k, v in headers.items())]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + head)
        for _ in range(4):
            sock.sendall(bytes(64 * 1024))
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.read(300).decode(errors="replace")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mib", type=int, default=256, help="what each bomb expands to (MiB)")
    parser.add_argument("--before", help="a git revision whose bots/packaging.py to measure too (e.g. main)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="parlour-bombs-") as scratch:
        folder = Path(scratch)
        bombs = {}
        for name, method in METHODS.items():
            started = time.monotonic()
            path = folder / f"{name}.zip"
            path.write_bytes(bomb(method, options.mib))
            bombs[name] = path
            built = time.monotonic() - started
            print(f"{name} bomb: {path.stat().st_size:,} bytes → {options.mib} MiB (built in {built:.1f} s)")

        print("\n1. package_upload in a fresh process (time, peak RSS, outcome)")
        if options.before:
            old = folder / "packaging_before.py"
            revision = f"{options.before}:bots/packaging.py"
            old.write_bytes(subprocess.run(["git", "show", revision], cwd=ROOT, capture_output=True, check=True).stdout)
            packaging_figures(bombs, old, options.before)
        packaging_figures(bombs, ROOT / "bots" / "packaging.py", "now")

        print("\n2. a web server of its own (runserver --noreload, DEBUG off, SQLite)")
        server = Server(folder)
        server.start()
        try:
            print(f"  {'(idle, after start-up)':<30}      server peak {server.peak_mib():5,} MiB")
            url = f"http://127.0.0.1:{server.port}/api/bots/"
            token = {"Authorization": f"Token {server.key}"}
            for name, path in bombs.items():

                def upload(path: Path = path) -> tuple[int, str]:
                    answer = requests.post(
                        url,
                        data={"game": "love_letter", "name": "bomb"},
                        files={"file": ("bomb.zip", path.read_bytes())},
                        headers=token,
                        timeout=600,
                    )
                    return answer.status_code, answer.text

                timed(server, f"{name} bomb via the API", upload)
            timed(server, "1 GiB body with a token", lambda: head_first(server.port, "/api/bots/", token, 1 << 30))
            requests.get(f"http://127.0.0.1:{server.port}/account/login/", timeout=10)
            forged = {"Cookie": "csrftoken=" + "a" * 32}
            timed(
                server,
                "500 MB anonymous, forged CSRF",
                lambda: head_first(server.port, "/bots/new/", forged, 500 * 1000 * 1000),
            )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
