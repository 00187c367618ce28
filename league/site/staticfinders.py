"""Serve each game's replay renderer, ``games/<id>/viewer.js``, as the static file ``games/<id>/viewer.js``.

A game's drawing lives in its own folder beside its engine, not in the league's static tree (docs/design.md: adding a
game touches its own folder and one registry line), so adding a game adds one renderer and nothing else. This finder
exposes exactly the renderers of the registered games (``games.registry.renderer_path``) and nothing else of the
games package (its Python source is not for the web). It works for ``runserver``, WhiteNoise's
``WHITENOISE_USE_FINDERS`` and ``collectstatic`` alike.
Enable it with::

    STATICFILES_FINDERS = [
        "django.contrib.staticfiles.finders.FileSystemFinder",
        "django.contrib.staticfiles.finders.AppDirectoriesFinder",
        "league.site.staticfinders.GameViewerFinder",
    ]

The viewer's shell that the renderers plug into (``games.registry.VIEWER_DIR``, static files only) is served whole by
Django's own FileSystemFinder, through ``STATICFILES_DIRS``, under the static path ``/static/league/viewer/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from django.contrib.staticfiles.finders import BaseFinder
from django.contrib.staticfiles.utils import matches_patterns
from django.core.checks import CheckMessage
from django.core.files.storage import FileSystemStorage

from games.registry import GAMES, RENDERER_FILE, renderer_path

PREFIX = "games"
RENDERER = RENDERER_FILE


class GameViewerFinder(BaseFinder):
    def check(self, **kwargs: Any) -> list[CheckMessage]:
        return []

    def _renderers(self) -> Iterator[tuple[str, Path]]:
        for game_id in GAMES:
            path = renderer_path(game_id)
            if path is not None:
                yield game_id, path

    # Not django-stubs' overloads (str | None without find_all): like Django's own finders, this returns [] then.
    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> str | list[str]:  # type: ignore[override]
        # ``all`` is the pre-5.2 name of ``find_all``; accept either, like Django's own finders.
        find_all = bool(kwargs.get("all", find_all))
        match = re.fullmatch(rf"{PREFIX}/([^/]+)/{re.escape(RENDERER)}", path.replace("\\", "/"))
        # Only a registered game's id reaches the filesystem (GAMES is the registry, not the folders on disk).
        candidate = renderer_path(match.group(1)) if match and match.group(1) in GAMES else None
        found = str(candidate) if candidate is not None else None
        if found and not find_all:
            return found
        # Like Django's own finders: a list, empty when nothing is found (``finders.find`` relies on it).
        return [found] if found else []

    def list(self, ignore_patterns: Iterable[str] | None) -> Iterator[tuple[str, FileSystemStorage]]:
        for game_id, path in self._renderers():
            if ignore_patterns and matches_patterns(RENDERER, ignore_patterns):
                continue
            storage = FileSystemStorage(location=str(path.parent))
            storage.prefix = f"{PREFIX}/{game_id}"  # type: ignore[attr-defined]  # collectstatic reads it
            yield RENDERER, storage
