"""A match's replay as viewer frames: ``games.frames`` plus the league's error shape and the renderer's URL.

The frames themselves are computed by ``games.frames`` (pure, shared with ``python -m bots view``); this module only
turns its errors into the catalog's (so the API answers 400/409, never 500), withholds a replay until
league.play.disclosure allows it (409), and tells the viewer where the game's renderer is served, if it has one.
"""

from __future__ import annotations

from typing import Any

from django.contrib.staticfiles import finders
from django.templatetags.static import static

from games.frames import ReplayError, VersionMismatch, frames
from league.core.errors import BadReplay, BadSeat, NoReplayYet, OtherEngineVersion, ReplayWithheld, SeatNotAtTable
from league.play import disclosure
from league.play.models import Match


def renderer_url(game_id: str) -> str | None:
    """The static URL of ``games/<id>/viewer.js``, or None when the game has no renderer (the viewer falls back to a
    generic one). See league/site/staticfinders.py."""
    path = f"games/{game_id}/viewer.js"
    return static(path) if finders.find(path) else None


def parse_seat(raw: str | None) -> int | None:
    """``?seat=`` as a seat number; empty, missing or ``spectator`` means the spectator's view."""
    if raw is None or raw in {"", "spectator"}:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 3:  # isdigit alone takes "²", which int() refuses
        raise BadSeat(raw=raw)
    return int(raw)


def disclosed_replay(match: Match) -> dict[str, Any]:
    """The match's replay, or 409 while it is not disclosed: a replay records the deal (league/play/disclosure.py)."""
    replay = disclosure.public_replay(match)
    if replay is None:
        raise ReplayWithheld() if match.status == Match.Status.FINISHED else NoReplayYet()
    return replay


def match_frames(match: Match, raw_seat: str | None) -> dict[str, Any]:
    document = replay_frames(match.game, disclosed_replay(match), raw_seat)
    document["match"] = match.pk
    return document


def replay_frames(game_id: str, replay: dict[str, Any], raw_seat: str | None) -> dict[str, Any]:
    """The frames of a replay of ``game_id`` (a match's or a table's) for ``?seat=``, with its renderer's URL."""
    seat = parse_seat(raw_seat)
    try:
        document = frames(replay, seat)
    except VersionMismatch as error:
        raise OtherEngineVersion(reason=str(error)) from None
    except ReplayError as error:
        raise BadReplay(reason=str(error)) from None
    except ValueError as error:  # a seat that is not at this table
        raise SeatNotAtTable(reason=str(error)) from None
    document["renderer"] = renderer_url(game_id)
    return document
