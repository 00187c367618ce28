"""An example answer (or body) for every API operation, shown by Swagger UI and Redoc beside the schema.

Keyed by operation id; league.api.schema.ExampleSchema adds them to what the views' own @extend_schema examples
say. Built afresh for each operation: drf-spectacular wraps a list's example into its page in place. The values
are what the API answers (tests/league/api/test_api_schema.py checks every operation has one); ids are small, times
are one afternoon, and the game is the first registered one (no module outside a game's folder names a game)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import OpenApiExample

from games.registry import GAMES
from league.api.serializers import game_json
from league.core.errors import ErrorCode, NotRemoteBot

GAME = next(iter(GAMES))
HOST = "https://parlour.example"
AT = "2026-12-04T15:02:11Z"
LATER = "2026-12-04T15:40:37Z"

RATING = {
    "elo": 1587.4,
    "sigma": 41.2,
    "interval": [1506.6, 1668.2],
    "provisional": False,
    "games": 212,
    "wins": 121,
    "draws": 9,
    "losses": 82,
    "games_since_version": 64,
    "version": 3,
    "last_match_at": LATER,
}
BOT = {
    "id": 21,
    "url": f"{HOST}/bots/21/",
    "owner": "alice",
    "game": GAME,
    "name": "my-first-bot",
    "description": "Plays the highest card it may.",
    "is_builtin": False,
    "is_remote": False,
    "is_active": True,
    "paused": False,
    "paused_at": None,
    "paused_reason": "",
    "created": AT,
    "rating": RATING,
    "fitted": {
        "elo": 1587.4,
        "sigma": 41.2,
        "interval": [1506.6, 1668.2],
        "rank": 3,
        "rank_range": [2, 5],
        "games": 212,
        "version": 3,
        "fitted_at": LATER,
    },
}
VERSION = {
    "id": 57,
    "number": 3,
    "status": "ready",
    "language": "python",
    "builtin": "",
    "remote": False,
    "archive_size": 1843,
    "validation_log": "Smoke match: finished, rank 1 of 2.",
    "created": AT,
    "validated": LATER,
    "validation_stderr": "",
}
PENDING_VERSION = {**VERSION, "id": 58, "number": 4, "status": "pending", "validation_log": "", "validated": None}
BOT_DETAIL = {
    **BOT,
    "online": True,
    "faults": [{"cause": "timeout", "description": "ran out of time", "count": 2}],
    "versions": [VERSION],
    "placement": None,
    "people": {"beaten": 12, "played": 40},
}
SEATS = [
    {
        "number": 0,
        "bot": 21,
        "bot_name": "alice/my-first-bot",
        "version": 3,
        "rank": 1,
        "score": 1.0,
        "fault": None,
        "fault_detail": "",
        "moves": 14,
        "time_ms": 212,
    },
    {
        "number": 1,
        "bot": 4,
        "bot_name": "parlour/random",
        "version": 1,
        "rank": 2,
        "score": 0.0,
        "fault": None,
        "fault_detail": "",
        "moves": 13,
        "time_ms": 35,
    },
]
MATCH = {
    "id": 9051,
    "url": f"{HOST}/matches/9051/",
    "game": GAME,
    "kind": "ladder",
    "status": "finished",
    "seed": 1804289383,
    "engine_version": "1",
    "options": {},
    "attempts": 1,
    "error": "",
    "created": AT,
    "finished_at": LATER,
    "wall_ms": 1310,
    "time_control": {},
    "seats": SEATS,
}
NEW_KEY = "plr_3f9aQkVx2L0c8uYt1mZs7nWb4eHd6pRj9gKa5oTi"  # made up: "plr_" and 40 URL-safe characters, as real ones
TOKEN = {"id": 3, "name": "laptop", "prefix": "plr_3f9aQk", "created": AT, "last_used": LATER}
VERSIONED = {"bot": 21, "name": "alice/my-first-bot", "version": 3}
OPPONENT = {"bot": 4, "name": "parlour/random", "version": 1}
CHALLENGE_BASE = {
    "id": 12,
    "url": f"{HOST}/challenges/12/",
    "kind": "challenge",
    "game": GAME,
    "owner": "alice",
    "bot": VERSIONED,
    "games": 20,
    "created": AT,
}
CHALLENGE = {
    **CHALLENGE_BASE,
    "opponents": [OPPONENT],
    "status": "running",
    "progress": {"finished": 14, "failed": 0, "in_flight": 6},
    "results": [
        {
            "opponent": OPPONENT,
            "seats": 1,
            "games": 14,
            "wins": 10,
            "draws": 1,
            "losses": 3,
            "score": 0.75,
            "elo_difference": {"estimate": 178.2, "low": 12.5, "high": 343.9},
        }
    ],
    "faults": 0,
    "sprt": None,
    "matches": [{"id": 9101, "status": "finished"}, {"id": 9102, "status": "running"}],
}
STANDING = {
    "position": 1,
    "entry": 31,
    "bot": 21,
    "name": "alice/my-first-bot",
    "version": 3,
    "seed": 2,
    "score": 2.5,
    "games": 3.0,
    "tiebreaks": {"buchholz": 4.5},
    "forfeited": False,
    "forfeit_reason": "",
    "eliminated_in": None,
}
ROUND = {
    "number": 1,
    "status": "finished",
    "started_at": AT,
    "finished_at": LATER,
    "games": {"finalized": 2, "total": 2},
    "byes": [],
    "tables": [
        {
            "number": 1,
            "entries": [31, 32],
            "points": {"31": 1.0, "32": 0.0},
            "advancers": [],
            "absent": [],
            "offline": [],
            "walkover": False,
            "matches": [
                {
                    "id": 9120,
                    "url": f"{HOST}/matches/9120/",
                    "status": "finished",
                    "seed": 77,
                    "seats": [{"entry": 31, "rank": 1, "fault": None}, {"entry": 32, "rank": 2, "fault": None}],
                }
            ],
        }
    ],
}
TOURNAMENT = {
    "id": 5,
    "url": f"{HOST}/tournaments/5/",
    "name": "Winter cup",
    "game": GAME,
    "format": "swiss",
    "status": "running",
    "paused": False,
    "rated": False,
    "settings": {"table_size": 2, "games_per_pairing": 2, "rounds": 3},
    "entrants": 8,
    "planned_rounds": 3,
    "rounds_played": 1,
    "created": AT,
    "started_at": AT,
    "finished_at": None,
}
TOURNAMENT_DETAIL = {**TOURNAMENT, "progress": 42, "standings": [STANDING], "rounds": [ROUND]}
BOARD_ROW = {
    "rank": 1,
    "bot": 21,
    "name": "alice/my-first-bot",
    "owner": "alice",
    "is_builtin": False,
    "fitted": True,
    "elo": 1587.4,
    "sigma": 41.2,
    "interval": [1506.6, 1668.2],
    "rank_range": [1, 2],
    "online_elo": 1601.0,
    "provisional": False,
    "paused": False,
    "games": 212,
    "wins": 121,
    "losses": 82,
    "draws": 9,
    "last_match": LATER,
    "recent": [1, 1, 0, 0.5, 1],
}
HEAD_TO_HEAD = {
    "count": 1,
    "next": None,
    "previous": None,
    "bot": 21,
    "results": [
        {
            "opponent": 4,
            "name": "parlour/random",
            "games": 61,
            "wins": 44,
            "losses": 15,
            "draws": 2,
            "score": 0.7377,
            "last_match": LATER,
        }
    ],
}
RATING_CHANGE = {
    "match": 9051,
    "at": LATER,
    "before": 1581.0,
    "after": 1587.4,
    "delta": 6.4,
    "sigma": 41.2,
    "interval": [1506.6, 1668.2],
}
FIT_POINT = {"at": LATER, "elo": 1612.3, "interval": [1571.0, 1653.6], "games": 48, "version": 2}
REPLAY = {"format": "parlour-replay/1", "game": GAME, "seed": 1804289383, "players": 2, "moves": [{"seat": 0}]}
FRAMES = {"game": GAME, "players": ["alice/my-first-bot", "parlour/random"], "frames": [{"move": 0, "text": "Deal."}]}
ME = {
    "id": 2,
    "username": "alice",
    "email": "alice@example.org",
    "is_staff": False,
    "date_joined": AT,
    "bots": [21],
    "tokens": 1,
    "auth": "token",
}
NOT_FOUND = {"error": {"code": ErrorCode.NOT_FOUND.value, "message": "Not found."}}
NOT_REMOTE = NotRemoteBot(bot="alice/my-first-bot").body()


TABLE = {
    "id": 12,
    "game": GAME,
    "status": "running",
    "players": 2,
    "seats": [
        {"kind": "person", "label": "you", "bot_id": None},
        {"kind": "bot", "label": "owner/ranger", "bot_id": 21},
    ],
    "person_seat": 0,
    "move_count": 4,
    "to_move": 0,
    "narration": ["Seat 1 plays a Priest on seat 0."],
    "role": "person",
    "clock_seconds": 120,
    "clock_left": 118.5,
    "observation": {"hand": [1, 5]},
    "legal_actions": [{"card": 5, "target": 1}],
    "blanks": {"blanks": [[]], "lists": {}},
    "forfeited": False,
    "resigned": False,
}


def _answer(name: str, value: Any, status: int = 200) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=[str(status)])


# Operation id → its examples (made when the schema is built).
EXAMPLES: dict[str, Callable[[], list[OpenApiExample]]] = {
    "bots_list": lambda: [_answer("A bot", BOT)],
    "bots_create": lambda: [_answer("Uploaded: validated next", {**BOT_DETAIL, "versions": [PENDING_VERSION]}, 201)],
    "bots_retrieve": lambda: [_answer("Your bot (validation_stderr: its owner only)", BOT_DETAIL)],
    "bots_disable_create": lambda: [_answer("Off the ladder", {**BOT, "is_active": False})],
    "bots_head_to_head_retrieve": lambda: [_answer("Against each opponent", HEAD_TO_HEAD)],
    "bots_ratings_list": lambda: [_answer("After one match", RATING_CHANGE)],
    "bots_fitted_history_list": lambda: [_answer("After a fit", FIT_POINT)],
    "bots_resume_create": lambda: [_answer("Back on the ladder", BOT)],
    "bots_remote_token_destroy": lambda: [_answer("Not a remote bot", NOT_REMOTE, 400)],
    "bots_remote_token_create": lambda: [
        _answer(
            "Shown once",
            {"bot": 22, "key": "prb_3q2-7HcZ0xkE1vFJw0l8bXqYp9sT4uVwA1bC2dE3", "prefix": "prb_3q2-7H", "created": AT},
            201,
        )
    ],
    "bots_versions_create": lambda: [_answer("Uploaded: validated next", PENDING_VERSION, 201)],
    "challenges_list": lambda: [
        _answer("A challenge", {**CHALLENGE_BASE, "opponents": [1], "progress": {"finished": 14, "failed": 0}})
    ],
    "challenges_create": lambda: [
        _answer("Queued", {**CHALLENGE, "progress": {"finished": 0, "failed": 0, "in_flight": 20}}, 201)
    ],
    "challenges_retrieve": lambda: [_answer("Half played", CHALLENGE)],
    "games_list": lambda: [_answer("A game", _game())],
    "games_retrieve": lambda: [_answer("A game", _game())],
    "leaderboards_retrieve": lambda: [
        _answer(
            "The top of a ladder",
            {
                "count": 1,
                "next": None,
                "previous": None,
                "game": GAME,
                "sort": "elo",
                "reverse": False,
                "results": [BOARD_ROW],
            },
        )
    ],
    "matches_list": lambda: [_answer("A match", MATCH)],
    "matches_retrieve": lambda: [_answer("A finished match", MATCH)],
    "matches_frames_retrieve": lambda: [_answer("Frames (abridged)", FRAMES)],
    "matches_replay_retrieve": lambda: [_answer("A replay (abridged)", REPLAY)],
    "me_retrieve": lambda: [_answer("Signed in with a token", ME)],
    "tokens_list": lambda: [_answer("A token (its key is never shown again)", TOKEN)],
    "tokens_create": lambda: [_answer("The key, shown this once", {**TOKEN, "last_used": None, "key": NEW_KEY}, 201)],
    "tokens_destroy": lambda: [_answer("Not yours, or already gone", NOT_FOUND, 404)],
    "tables_create": lambda: [_answer("Seated: the bots are starting", {**TABLE, "status": "queued"}, 201)],
    "tables_retrieve": lambda: [_answer("Your turn", TABLE)],
    "tables_cancel_create": lambda: [
        _answer(
            "Cancelled while queued",
            {**TABLE, "status": "cancelled", "message": "This game was cancelled: You cancelled it before it started."},
        )
    ],
    "tables_resign_create": lambda: [
        _answer(
            "Resigned: a random player finishes the game",
            {
                **TABLE,
                "forfeited": True,
                "resigned": True,
                "legal_actions": [],
                "message": "You resigned: a random player finishes your game.",
            },
        )
    ],
    "tables_act_create": lambda: [
        _answer("Played: the bots answer next", {**TABLE, "move_count": 5, "to_move": 1}, 202)
    ],
    "tournaments_list": lambda: [_answer("A running tournament", TOURNAMENT)],
    "tournaments_create": lambda: [_answer("A draft", _draft(), 201)],
    "tournaments_retrieve": lambda: [_answer("After one round", TOURNAMENT_DETAIL)],
    "tournaments_partial_update": lambda: [_answer("Renamed", _draft())],
    "tournaments_cancel_create": lambda: [
        _answer("Cancelled", {**TOURNAMENT_DETAIL, "status": "cancelled", "finished_at": LATER})
    ],
    "tournaments_entries_create": lambda: [_answer("Entered", _draft(), 201)],
    "tournaments_pause_create": lambda: [_answer("Paused", {**TOURNAMENT_DETAIL, "paused": True})],
    "tournaments_resume_create": lambda: [_answer("Resumed", TOURNAMENT_DETAIL)],
    "tournaments_rounds_retrieve": lambda: [
        _answer("Rounds", {"count": 1, "next": None, "previous": None, "results": [ROUND]})
    ],
    "tournaments_standings_list": lambda: [_answer("The leader", STANDING)],
    "tournaments_start_create": lambda: [
        _answer("Started: round 1 drawn", {**TOURNAMENT_DETAIL, "rounds_played": 0, "progress": 0})
    ],
}


def _game() -> dict[str, Any]:
    return game_json(GAME)  # the real description of the real game


def _draft() -> dict[str, Any]:
    return {
        **TOURNAMENT_DETAIL,
        "status": "draft",
        "started_at": None,
        "rounds_played": 0,
        "progress": 0,
        "standings": [{**STANDING, "position": None, "score": 0.0, "games": 0.0, "tiebreaks": {}}],
        "rounds": [],
    }


def examples_for(operation_id: str) -> list[OpenApiExample]:
    make = EXAMPLES.get(operation_id)
    return make() if make else []
