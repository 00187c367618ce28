"""``python -m bots view replay.json``: watch a replay locally in the league's own viewer.

A tiny ``http.server`` on 127.0.0.1 serves one standalone page, the viewer's shell (``games/viewer/``, the same
files the league's site serves), each game's renderer (``games/<id>/viewer.js``) and the frames of the replay,
re-simulated by ``games.frames`` exactly as the league's API does. Every file is found through ``games.registry``:
nothing here imports Django or reads the league's folders. So a replay looks the same on a laptop as on the match
page. The URLs are the site's (``/static/league/viewer/...``, ``/static/games/<id>/viewer.js``).

Accepted files: a ``parlour-replay/1`` document (``python -m bots play ... --replay FILE``, or a match page's
"Replay JSON" download), or a match result that holds one under ``"replay"``.
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import sys
import threading
import webbrowser
from collections.abc import Sequence
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from games.frames import ReplayError, frames
from games.registry import GAMES, VIEWER_DIR, renderer_path

SHELL_URL = "league/viewer"  # under /static/: where the site serves the viewer's shell, so the pages are alike
SHELL_SUFFIXES = (".js", ".css")
FAVICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f4d3a"/>'
    b'<text x="8" y="12.5" font-size="12" text-anchor="middle" fill="#c59a3a">&#9824;</text></svg>'
)

# The page around the viewer: the site's colours and layout in brief (the viewer itself is styled by viewer.css).
PAGE_STYLE = (
    "*{box-sizing:border-box}"
    "body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d2321;"
    "background:#fbfaf6;line-height:1.5}"
    ".topbar{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;padding:.75rem 1.5rem;"
    "background:#1f4d3a;color:#fff}"
    ".brand{font-weight:700;font-size:1.25rem;letter-spacing:.02em;color:#c59a3a}"
    "main{max-width:1100px;margin:0 auto;padding:1.5rem}"
    "a{color:#2d5f9a;text-decoration:none}a:hover{text-decoration:underline}"
    "h1{margin:.25rem 0 .5rem;font-size:1.9rem}.muted{color:#6b746f}"
    "footer{text-align:center;color:#6b746f;padding:2rem 1rem;font-size:.9rem}"
    "@media (max-width:720px){main{padding:.75rem}.topbar{padding:.6rem .75rem}}"
)

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{title} · replay · Parlour</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/static/league/viewer/viewer.css">
  <style>{style}</style>
</head>
<body>
<header class="topbar"><span class="brand">♠ Parlour</span><nav><span>local replay viewer</span></nav></header>
<main>
  <h1>{title}</h1>
  <p class="muted">{summary}</p>
  <section class="pv" data-parlour-viewer aria-label="Replay" data-frames="/frames" data-replay="/replay.json"
           data-download-name="{download}">
    <p>Loading the replay…</p>
  </section>
</main>
<footer>Parlour · <code>python -m bots view {source}</code></footer>
<script type="module" src="/static/league/viewer/viewer.js"></script>
</body>
</html>
"""


class ViewerError(Exception):
    """A replay file that cannot be viewed; the message is for the user."""


def load_replay(path: Path | str) -> dict[str, Any]:
    """The replay in ``path`` ("-" for stdin), checked by re-simulating it once."""
    try:
        text = sys.stdin.read() if str(path) == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ViewerError(f"{path}: {exc.strerror}") from None
    try:
        data: dict[str, Any] = json.loads(text)  # checked below: frames() refuses anything but a replay object
    except ValueError as exc:
        raise ViewerError(f"{path}: not JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("replay"), dict):
        data = data["replay"]  # a whole match result (``python -m bots play --json``-style, or the runner's)
    try:
        frames(data)
    except ReplayError as exc:
        raise ViewerError(f"{path}: {exc}") from None
    return data


def page(replay: dict[str, Any], source: str) -> str:
    seats = replay.get("seats") or []
    game_id = str(replay.get("game"))
    title = f"{game_id.replace('_', ' ').title()}: {' vs '.join(map(str, seats))}"
    summary = (
        f"{replay.get('game')} engine v{replay.get('version')} · seed {replay.get('seed')} · "
        f"{len(replay.get('moves') or [])} moves"
    )
    return PAGE.format(
        style=PAGE_STYLE,
        title=escape(title),
        summary=escape(summary),
        source=escape(source),
        download=escape(f"parlour-{game_id}-seed{replay.get('seed')}.json"),
    )


def make_handler(replay: dict[str, Any], source: str, quiet: bool = True) -> type[BaseHTTPRequestHandler]:
    cache: dict[int | None, bytes] = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        server_version = "ParlourViewer"

        def log_message(self, format: str, *args: Any) -> None:
            if not quiet:
                super().log_message(format, *args)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            path = url.path
            if path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, page(replay, source).encode(), "text/html; charset=utf-8")
            elif path == "/replay.json":
                self._send(HTTPStatus.OK, json.dumps(replay).encode(), "application/json")
            elif path == "/frames":
                self._frames(parse_qs(url.query).get("seat", [""])[0])
            elif path in ("/favicon.svg", "/favicon.ico"):
                self._send(HTTPStatus.OK, FAVICON, "image/svg+xml")
            elif path.startswith("/static/"):
                self._static(path.removeprefix("/static/"))
            else:
                self._error(HTTPStatus.NOT_FOUND, "not_found", "no such page")

        def _frames(self, raw_seat: str) -> None:
            if raw_seat in ("", "spectator"):
                seat = None
            elif raw_seat.isdigit() and len(raw_seat) <= 3:
                seat = int(raw_seat)
            else:
                return self._error(HTTPStatus.BAD_REQUEST, "invalid", f"seat must be a seat number, not {raw_seat!r}")
            with lock:
                if seat not in cache:
                    try:
                        document = frames(replay, seat)
                    except ReplayError as exc:
                        return self._error(HTTPStatus.CONFLICT, exc.code, str(exc))
                    except ValueError as exc:
                        return self._error(HTTPStatus.BAD_REQUEST, "invalid", str(exc))
                    game_id = document["game"]
                    has_renderer = renderer_path(game_id) is not None
                    document["renderer"] = f"/static/games/{game_id}/viewer.js" if has_renderer else None
                    cache[seat] = json.dumps(document, separators=(",", ":")).encode()
                body = cache[seat]
            self._send(HTTPStatus.OK, body, "application/json")

        def _static(self, relative: str) -> None:
            parts = relative.split("/")
            file: Path | None = None
            if ".." in parts or "" in parts:
                file = None
            elif "/".join(parts[:2]) == SHELL_URL and len(parts) == 3 and parts[2].endswith(SHELL_SUFFIXES):
                file = VIEWER_DIR / parts[2]
            elif parts[0] == "games" and len(parts) == 3 and parts[2] == "viewer.js" and parts[1] in GAMES:
                file = renderer_path(parts[1])
            if file is None or not file.is_file():
                return self._error(HTTPStatus.NOT_FOUND, "not_found", f"no static file {relative}")
            kind = "text/javascript" if file.suffix == ".js" else mimetypes.guess_type(file.name)[0] or "text/plain"
            self._send(HTTPStatus.OK, file.read_bytes(), f"{kind}; charset=utf-8")

        def _error(self, status: HTTPStatus, code: str, message: str) -> None:
            body = json.dumps({"error": {"code": code, "message": message}}).encode()
            self._send(status, body, "application/json")

        def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

    return Handler


def make_server(replay: dict[str, Any], source: str, port: int = 0, quiet: bool = True) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (``port`` 0: any free port); the caller runs ``serve_forever``."""
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(replay, source, quiet))
    server.daemon_threads = True
    return server


def view_command(path: Path | str, port: int = 0, open_browser: bool = True, quiet: bool = True) -> int:
    """Serve ``path``'s replay until interrupted. Exit status 0, or 2 for a replay that cannot be viewed."""
    try:
        replay = load_replay(path)
        server = make_server(replay, str(path), port, quiet)
    except ViewerError as exc:
        print(f"python -m bots view: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"python -m bots view: error: cannot listen on 127.0.0.1:{port}: {exc.strerror}", file=sys.stderr)
        return 2
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"Watching {path} at {url}  (Ctrl-C to stop)", flush=True)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots view", description="Watch a replay in the league's viewer.")
    parser.add_argument("replay", help="a replay JSON file, or - for standard input")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    parser.add_argument("--no-browser", action="store_true", help="print the address instead of opening a browser")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    return view_command(args.replay, args.port, open_browser=not args.no_browser, quiet=not args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
