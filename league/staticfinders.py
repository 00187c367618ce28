"""Serve each game's replay renderer, ``games/<id>/viewer.js``, as the static file ``games/<id>/viewer.js``.

A game's drawing lives in its own folder beside its engine (STYLE.md: one folder per game), not in the league's
static tree, so adding a game adds one renderer and nothing else. This finder exposes exactly those renderer files
and nothing else of the games package (its Python source is not for the web). It works for ``runserver``,
WhiteNoise's ``WHITENOISE_USE_FINDERS`` and ``collectstatic`` alike. Enable it with::

    STATICFILES_FINDERS = [
        "django.contrib.staticfiles.finders.FileSystemFinder",
        "django.contrib.staticfiles.finders.AppDirectoriesFinder",
        "league.staticfinders.GameViewerFinder",
    ]
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.contrib.staticfiles.finders import BaseFinder
from django.contrib.staticfiles.utils import matches_patterns
from django.core.checks import CheckMessage
from django.core.files.storage import FileSystemStorage

import games

GAMES_DIR = Path(games.__file__).resolve().parent
PREFIX = "games"
RENDERER = "viewer.js"
_GAME_ID = re.compile(r"^[a-z][a-z0-9_]*$")


class GameViewerFinder(BaseFinder):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.root = GAMES_DIR

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        return []

    def _renderers(self) -> Iterator[tuple[str, Path]]:
        for folder in sorted(self.root.iterdir()):
            path = folder / RENDERER
            if _GAME_ID.match(folder.name) and path.is_file():
                yield folder.name, path

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> str | list[str]:
        # ``all`` is the pre-5.2 name of ``find_all``; accept either, like Django's own finders.
        find_all = bool(kwargs.get("all", find_all))
        match = re.fullmatch(rf"{PREFIX}/([^/]+)/{re.escape(RENDERER)}", path.replace("\\", "/"))
        found = None
        if match and _GAME_ID.match(match.group(1)):
            candidate = self.root / match.group(1) / RENDERER
            if candidate.is_file():
                found = str(candidate)
        if found and not find_all:
            return found
        # Like Django's own finders: a list, empty when nothing is found (``finders.find`` relies on it).
        return [found] if found else []

    def list(self, ignore_patterns: list[str] | None) -> Iterator[tuple[str, FileSystemStorage]]:
        for game_id, path in self._renderers():
            if ignore_patterns and matches_patterns(RENDERER, ignore_patterns):
                continue
            storage = FileSystemStorage(location=str(path.parent))
            storage.prefix = f"{PREFIX}/{game_id}"  # type: ignore[attr-defined]  # collectstatic reads it
            yield RENDERER, storage
