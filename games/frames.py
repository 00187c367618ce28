"""Replays as frames: re-simulate a ``parlour-replay/1`` document and return what the table looked like at each step.

A replay stores only the header and the moves (docs/design.md: the action list *is* the replay); the viewer needs the
table as it stood after every move. ``frames`` re-plays the moves through the registered engine and collects, for
the initial state and after each move, the view a chosen perspective is allowed to see, with the narration lines
``apply`` returned. After the end it adds ``full_view()``: the hidden cards, revealed.

Pure: imports nothing but ``games``. The league's API (``league.play.replays``) and the local viewer
(``bots.authoring.viewer``) both serve exactly this document.

To keep long replays light, each frame carries only the top-level keys of its view that changed since the previous
frame (``view`` on step 0 is whole; later steps have ``patch``/``drop``); ``expand_views`` rebuilds full views.

A finished replay seen by the spectator also carries ``all_hands``, for the viewer's "show all hands" switch: per
step, what ``full_view()`` adds to ``public_view()`` (every hand), without the draw pile (``deck``), delta-coded like
the frames; ``all_hands_views`` rebuilds ``{**public_view(), **those keys}``. Only a replay that reached the end has
it: an unfinished one reveals nothing, and a finished replay discloses everything anyway (its seed and moves
re-create every deal).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import IllegalAction, InvalidOptions
from games.registry import GAMES, UnknownGame, get_game
from games.replay import REPLAY_FORMAT, ReplayFormatError, check_format

__all__ = [
    "FRAMES_FORMAT",
    "REPLAY_FORMAT",
    "ReplayError",
    "VersionMismatch",
    "all_hands_views",
    "expand_views",
    "frames",
]

FRAMES_FORMAT = "parlour-frames/1"
# What "show all hands" leaves out of full_view(): the draw pile's order is no one's hand, would spoil what comes
# next, and is the bulk of the document (it changes at every draw).
ALL_HANDS_OMITS = frozenset({"deck"})


class ReplayError(ValueError):
    """A replay that cannot be shown: not a replay, an unknown game, or a move its engine refuses."""

    code = "bad_replay"


class VersionMismatch(ReplayError):
    """The replay was recorded by another version of the game's engine, so re-simulating it could show a different
    game. We refuse rather than show something that did not happen."""

    code = "engine_version"

    def __init__(self, game: str, recorded: str, current: str) -> None:
        super().__init__(
            f"this replay was recorded with {game} engine v{recorded}, but this server runs v{current}: "
            "it cannot be re-simulated faithfully (download the replay JSON to keep it)"
        )
        self.game, self.recorded, self.current = game, recorded, current


def frames(replay: Mapping[str, Any], seat: int | None = None) -> dict[str, Any]:
    """Every step of ``replay`` seen by ``seat`` (``None``: a spectator). Raises ``ReplayError`` (or its subclass
    ``VersionMismatch``) for a replay that cannot be shown, and ``ValueError`` for a seat that is not at the table."""
    game_id, players, moves = _check_header(replay)
    game = get_game(game_id)
    if str(replay.get("version")) != game.version:
        raise VersionMismatch(game_id, str(replay.get("version")), game.version)
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
        raise ValueError(f"seat must be a seat number from 0 to {players - 1}, not {seat!r}")
    try:
        state = game.new_state(players, replay["seed"], replay.get("options") or {})
    except InvalidOptions as error:
        raise ReplayError(f"the replay's set-up is refused by the engine: {error}") from None

    def view() -> dict[str, Any]:
        return state.public_view() if seat is None else state.observation(seat)

    def all_hands() -> dict[str, Any]:
        # Only what it adds to the spectator's view of the same step (TEN, say, hides almost nothing).
        public = state.public_view()
        return {
            key: value
            for key, value in state.full_view().items()
            if key not in ALL_HANDS_OMITS and (key not in public or public[key] != value)
        }

    previous = view()
    steps: list[dict[str, Any]] = [{"view": previous, "lines": [], "move": None, "to_move": state.to_move()}]
    # Collected for the spectator, but sent only if the replay reaches the end (below).
    hands_previous = all_hands() if seat is None else {}
    hands: list[dict[str, Any]] = [{"view": hands_previous}]
    for index, move in enumerate(moves, start=1):
        if not isinstance(move, Mapping) or not isinstance(move.get("action"), dict):
            raise ReplayError(f"move {index} has no action object")
        mover = state.to_move()
        if mover is None:
            raise ReplayError(f"move {index} comes after the end of the game")
        if move.get("seat", mover) != mover:
            raise ReplayError(f"move {index} is recorded for seat {move.get('seat')}, but seat {mover} was to move")
        try:
            lines = state.apply(move["action"])
        except IllegalAction as error:
            raise ReplayError(f"move {index} is illegal in engine v{game.version}: {error.reason}") from None
        current = view()
        step: dict[str, Any] = {**_delta(previous, current), "lines": lines, "move": _move(move, mover)}
        step["to_move"] = state.to_move()
        steps.append(step)
        previous = current
        if seat is None:
            hands_current = all_hands()
            hands.append(_delta(hands_previous, hands_current))
            hands_previous = hands_current

    over = state.is_over()
    return {
        "format": FRAMES_FORMAT,
        "game": game_id,
        "title": game.title,
        "version": game.version,
        "players": players,
        "seats": _labels(replay, players),
        "seat": seat,
        "seed": replay.get("seed"),
        "options": replay.get("options") or {},
        "over": over,
        "outcome": replay.get("outcome") or (state.outcome().to_json() if over else None),
        "faults": list(replay.get("faults") or []),
        "frames": steps,
        # docs/design.md: full_view() is for replays after the end; an unfinished replay reveals nothing.
        "revealed": state.full_view() if over else None,
        # Every seat's cards at every step: for a finished replay's spectator only (see the module's docstring).
        "all_hands": hands if over and seat is None else None,
    }


def expand_views(document: Mapping[str, Any], track: str = "frames") -> list[dict[str, Any]]:
    """The whole view of every step of a ``frames`` document (what the viewer rebuilds in the browser); ``track=
    "all_hands"`` rebuilds the all-hands views instead."""
    views: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for step in document[track]:
        if "view" in step:
            current = dict(step["view"])
        else:
            current = {key: value for key, value in current.items() if key not in step.get("drop", ())}
            current.update(step["patch"])
        views.append(current)
    return views


def all_hands_views(document: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """Every step's spectator view with every hand shown (``None`` unless the document has them: a finished
    replay's spectator document)."""
    if not document.get("all_hands"):
        return None
    return [
        {**view, **extra}
        for view, extra in zip(expand_views(document), expand_views(document, "all_hands"), strict=True)
    ]


def _delta(previous: Mapping[str, Any], current: Mapping[str, Any]) -> dict[str, Any]:
    """The top-level keys of ``current`` that differ from ``previous`` (``patch``), and those it lost (``drop``)."""
    delta: dict[str, Any] = {
        "patch": {key: value for key, value in current.items() if key not in previous or previous[key] != value}
    }
    drop = [key for key in previous if key not in current]
    if drop:
        delta["drop"] = drop
    return delta


def _check_header(replay: Mapping[str, Any]) -> tuple[str, int, list[Any]]:
    try:
        check_format(replay)
    except ReplayFormatError as error:
        raise ReplayError(str(error)) from None
    game_id = replay.get("game")
    if not isinstance(game_id, str) or game_id not in GAMES:
        raise ReplayError(str(UnknownGame(game_id)))
    players = replay.get("players")
    if isinstance(players, bool) or not isinstance(players, int):
        raise ReplayError("the replay does not say how many players there were")
    if isinstance(replay.get("seed"), bool) or not isinstance(replay.get("seed"), int):
        raise ReplayError("the replay has no seed")
    moves = replay.get("moves")
    if not isinstance(moves, list):
        raise ReplayError("the replay has no move list")
    return game_id, players, moves


def _move(move: Mapping[str, Any], mover: int) -> dict[str, Any]:
    return {
        "seat": mover,
        "action": move["action"],
        "ms": move.get("ms"),
        "note": move.get("note"),
        "auto": bool(move.get("auto", False)),
    }


def _labels(replay: Mapping[str, Any], players: int) -> list[str]:
    labels = replay.get("seats")
    if isinstance(labels, list) and len(labels) == players:
        return [str(label) for label in labels]
    return [f"seat {seat}" for seat in range(players)]
