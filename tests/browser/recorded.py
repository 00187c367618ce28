"""Finished matches for viewer tests: played in process by built-in players, recorded through league.services.

The replay is built exactly as ``bots.runner`` builds one (``parlour-replay/1``), with per-move times and, on some
moves, a bot note, so the viewer has everything a real match gives it.
"""

from __future__ import annotations

import time
from typing import Any

from games.registry import builtin_players, get_game, make_player
from league.bots.models import Bot
from league.bots.services import do_register_builtin_bots
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from tests.results import runner_result

REPLAY_FORMAT = "parlour-replay/1"
STRONGEST = ("heuristic", "greedy", "smart")


def player_names(game_id: str, players: int) -> list[str]:
    """A strong built-in player against random ones, so games look like games."""
    names = list(builtin_players(game_id))
    strong = next((name for name in STRONGEST if name in names), next(name for name in names if name != "random"))
    return [strong if seat % 2 == 0 else "random" for seat in range(players)]


def play_replay(game_id: str, names: list[str], seed: int, labels: list[str] | None = None) -> dict[str, Any]:
    """A runner-shaped result dict ({"seats": [...], "replay": {...}, "wall_ms"}) of one in-process game."""
    game = get_game(game_id)
    players = [make_player(game_id, name, seed * 100 + seat) for seat, name in enumerate(names)]
    state = game.new_state(len(players), seed)
    for seat, player in enumerate(players):
        player.start(seat, len(players), state.options)
    moves: list[dict[str, Any]] = []
    own_ms = [0.0] * len(players)
    own_moves = [0] * len(players)
    started = time.perf_counter()
    while (seat := state.to_move()) is not None:
        clock = time.perf_counter()
        action = players[seat].act(state.observation(seat), state.legal_actions())
        ms = (time.perf_counter() - clock) * 1000
        state.apply(action)
        own_ms[seat] += ms
        own_moves[seat] += 1
        note = f"{names[seat]} thinks move {len(moves) + 1} is best" if len(moves) % 7 == 3 else None
        moves.append({"seat": seat, "action": state.history[-1], "ms": round(ms, 3), "note": note, "auto": False})
    outcome = state.outcome()
    replay = {
        "format": REPLAY_FORMAT,
        "game": game_id,
        "version": game.version,
        "players": len(players),
        "seed": seed,
        "options": {},
        "seats": labels or [f"parlour/{name} v1" for name in names],
        "moves": moves,
        "faults": [],
        "outcome": outcome.to_json(),
    }
    seats = [
        {
            "rank": outcome.ranks[seat],
            "score": outcome.scores[seat],
            "fault": None,
            "stderr": "",
            "moves": own_moves[seat],
            "time_ms": round(own_ms[seat]),
        }
        for seat in range(len(players))
    ]
    return {"seats": seats, "replay": replay, "wall_ms": round((time.perf_counter() - started) * 1000)}


def record_match(game_id: str, players: int | None = None, seed: int = 1, names: list[str] | None = None) -> Match:
    """A finished ladder match of built-in bots (``names``, or a strong one against random ones), recorded through
    the league's services."""
    game = get_game(game_id)
    count = len(names) if names else min(max(players or 3, game.min_players), game.max_players)
    names = names or player_names(game_id, count)
    do_register_builtin_bots([game_id])
    versions = [Bot.objects.get(game=game_id, name=name, is_builtin=True).current_version() for name in names]
    match = do_create_match(game_id, versions, seed=seed)
    claimed = do_claim_match(match.pk)
    assert claimed is not None
    labels = [version.label for version in versions]
    assert do_record_match_result(match.pk, runner_result(play_replay(game_id, names, seed, labels)))
    return Match.objects.get(pk=match.pk)
