"""parlour_sdk — write a Parlour bot as one function.

    import random
    from parlour_sdk import run

    def act(obs, legal):
        return random.choice(legal)

    run(act)

``run`` speaks the JSON-lines protocol on stdin/stdout (docs/protocol.md): it answers ``start`` with ``ready``,
calls ``act`` for every ``act`` message and sends its answer back, and after ``end`` waits for the next game: the
runner may send a new ``start`` (a series of games on the same process), which gets a fresh ``Context``. It returns
when stdin closes. ``act`` may take a
third argument, a ``Context`` (seat, players, options, the start message, time left), and may return
``(action, note)`` to attach a short note that is shown in the replay. ``ctx.seen`` is everything the seat has been
told (the start message's game fields and every observation, kept by ``run``) and ``ctx.sample(rng)`` draws a full
state of the game from it: the engines as a forward model, in ``parlour_sdk.engine``, and a ready search in
``parlour_sdk.search`` (docs/search.md; both import the engines only when used). Use ``log(...)`` (stderr) for
debugging:
stdout belongs to the protocol. Inside the sandbox this package is importable as ``parlour_sdk`` (it is mounted
read-only at /parlour/parlour_sdk); ``python -m bots play`` arranges the same when you run bots locally.

Standard library only, so it runs on any Python 3.11+. It imports nothing but ``json`` and ``sys`` when a bot
starts (no ``typing``, ``dataclasses`` or ``inspect``): that is a few milliseconds less of every bot's start-up.
"""

from __future__ import annotations

import json
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing at run time would slow every bot's start-up
    from collections.abc import Callable
    from random import Random
    from typing import Any, TextIO

    from games.base import State
    from games.seen import Seen

    Action = dict[str, Any]

__all__ = ["Context", "ProtocolError", "log", "run"]


def __getattr__(name: str) -> Any:
    """``parlour_sdk.engine`` and ``parlour_sdk.search`` on first use, so ``import parlour_sdk`` stays cheap."""
    if name in ("engine", "search"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ProtocolError(RuntimeError):
    """The runner sent something this SDK does not understand."""


class Context:
    """What the bot knows besides the observation: filled from the start message, updated on each act.

    (A plain class rather than a dataclass: ``dataclasses`` imports ``inspect``, which costs every bot start-up.)"""

    _FIELDS = (
        "game",
        "seat",
        "players",
        "options",
        "time",
        "start",
        "time_left_ms",
        "moves",
        "outcome",
        "observations",
    )

    def __init__(
        self,
        game: str = "",
        seat: int = 0,
        players: int = 0,
        options: dict[str, Any] | None = None,
        time: dict[str, Any] | None = None,
        start: dict[str, Any] | None = None,
        time_left_ms: int = 0,
        moves: int = 0,
        outcome: dict[str, Any] | None = None,
        observations: list[dict[str, Any]] | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        self.players = players
        self.options: dict[str, Any] = {} if options is None else options
        self.time: dict[str, Any] = {} if time is None else time
        self.start: dict[str, Any] = {} if start is None else start  # the whole start message (game fields too)
        self.time_left_ms = time_left_ms  # the most the current move may take
        self.moves = moves  # actions sent so far
        self.outcome = outcome  # set when the match ends
        self.observations: list[dict[str, Any]] = [] if observations is None else observations  # oldest first
        self._seen: Seen | None = None

    @property
    def seen(self) -> Seen:
        """What this seat has been told in this game (``games.seen.Seen``): the start message's game fields and every
        observation so far, the current one last. It stays current as the game goes on; a sampler reads nothing
        else. The first use imports the engines' base."""
        if self._seen is None:
            from .engine import Seen

            start = {key: value for key, value in self.start.items() if key not in _PROTOCOL_KEYS}
            # The same list object: run() appends to it, so the record never lags behind.
            self._seen = Seen(self.game, self.seat, self.players, self.options, start, self.observations)
        return self._seen

    def sample(self, rng: Random) -> State:
        """A full state of this game drawn from ``seen`` with ``rng``: the forward model of a search."""
        from .engine import sample

        return sample(self.seen, rng)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"Context({fields})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it was


# The start message's own fields; the others are the game's (``Game.start_info``, e.g. Barbarossa's lexicon).
_PROTOCOL_KEYS = frozenset({"type", "protocol", "game", "seat", "players", "options", "time"})


def log(*args: Any) -> None:
    """Print to stderr: kept (capped) as the bot's log, shown to its author."""
    print(*args, file=sys.stderr, flush=True)


def _send(out: TextIO, message: dict[str, Any]) -> None:
    out.write(json.dumps(message, separators=(",", ":")) + "\n")
    out.flush()


def run(
    act: Callable[..., Any],
    *,
    on_start: Callable[[Context], None] | None = None,
    on_end: Callable[[Context, dict[str, Any]], None] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> Context:
    """Play every game the runner sends: ``act(obs, legal)`` or ``act(obs, legal, ctx)`` returns an action (or
    ``(action, note)``).

    Each ``start`` begins a game with a fresh ``Context``; ``on_start(ctx)`` runs then, before ``ready`` (set-up work
    counts against the start-up limit; reset any per-game state of your own here). ``on_end(ctx, obs)`` runs after
    each game with the final observation, while the runner prepares the next game — but after the last game of a
    series the process is killed at once, so it may not run then (docs/protocol.md). Returns the last game's
    context when stdin closes."""
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    wants_ctx = _arity(act) >= 3
    ctx = Context()
    for line in inp:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            ctx = Context(  # a new game: nothing carries over from the previous one
                game=message.get("game", ""),
                seat=message.get("seat", 0),
                players=message.get("players", 0),
                options=message.get("options", {}),
                time=message.get("time", {}),
                start=message,
            )
            if on_start is not None:
                on_start(ctx)
            _send(out, {"type": "ready"})
        elif kind == "act":
            ctx.time_left_ms = message.get("time_left_ms", 0)
            ctx.observations.append(message["obs"])
            args = (message["obs"], message["legal"], ctx) if wants_ctx else (message["obs"], message["legal"])
            result = act(*args)
            note = None
            if isinstance(result, tuple):
                result, note = result
            reply: dict[str, Any] = {"type": "action", "action": result}
            if note is not None:
                reply["note"] = str(note)[:200]
            _send(out, reply)
            ctx.moves += 1
        elif kind == "end":
            ctx.outcome = message.get("outcome")
            if "obs" in message:
                ctx.observations.append(message["obs"])
            if on_end is not None:
                on_end(ctx, message.get("obs", {}))
        else:
            raise ProtocolError(f"unexpected message type {kind!r}")
    return ctx


_CO_VARARGS = 0x04


def _arity(func: Callable[..., Any]) -> int:
    """How many positional arguments ``func`` takes (3 if it takes ``*args``). Plain functions and bound methods are
    read from their code object; anything else (partials, callable objects, builtins) asks ``inspect``, imported only
    then because it is slow to import."""
    code = getattr(func, "__code__", None)
    bound = getattr(func, "__self__", None) is not None and hasattr(func, "__func__")
    if code is None and bound:
        code = getattr(func.__func__, "__code__", None)  # type: ignore[attr-defined]  # a bound method: checked above
    if code is not None and hasattr(code, "co_argcount"):
        if code.co_flags & _CO_VARARGS:
            return 3
        return int(code.co_argcount) - (1 if bound else 0)
    import inspect

    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return 2
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 3
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
