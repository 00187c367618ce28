from __future__ import annotations

import json

import pytest

from bots import protocol
from bots.protocol import NOTE_MAX_CHARS, ProtocolError, parse_reply
from games.base import Outcome
from games.registry import get_game


def test_the_start_message_carries_the_game_seat_options_time_and_start_info() -> None:
    message = protocol.start_message(
        "love_letter", 1, 3, {"deck": None}, {"move_ms": 1000, "bank_ms": 10000}, {"lexicon": ["a"]}
    )
    assert message == {
        "type": "start",
        "protocol": 1,
        "game": "love_letter",
        "seat": 1,
        "players": 3,
        "options": {"deck": None},
        "time": {"move_ms": 1000, "bank_ms": 10000},
        "lexicon": ["a"],
    }


def test_start_info_cannot_override_a_protocol_field() -> None:
    with pytest.raises(ValueError, match="seat"):
        protocol.start_message("g", 0, 2, {}, {}, {"seat": 5})


def test_act_and_end_messages() -> None:
    assert protocol.act_message({"hand": [1]}, [{"card": 1}], 1234.7) == {
        "type": "act",
        "obs": {"hand": [1]},
        "legal": [{"card": 1}],
        "time_left_ms": 1234,
    }
    end = protocol.end_message(Outcome(scores=[1.0, 0.0], ranks=[1, 2]), {"hand": []})
    assert end == {"type": "end", "outcome": {"scores": [1.0, 0.0], "ranks": [1, 2]}, "obs": {"hand": []}}


def test_encode_makes_one_ascii_line() -> None:
    line = protocol.encode({"type": "act", "obs": {"name": "Zoë\nx"}})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    line.decode("ascii")
    assert json.loads(line) == {"type": "act", "obs": {"name": "Zoë\nx"}}


def test_encode_writes_what_the_standard_library_would_for_a_real_act_message() -> None:
    state = get_game("love_letter").new_state(2, 3)
    for _ in range(5):
        state.apply(state.legal_actions()[-1])
    message = protocol.act_message(state.observation(state.to_move()), state.legal_actions(), 1500)  # type: ignore[arg-type]
    line = protocol.encode(message)
    assert line == json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


@pytest.mark.parametrize(
    ("message", "wire"),
    [
        ({"obs": {1: "a"}}, b'{"obs":{"1":"a"}}\n'),  # keys that are not strings, as the standard library writes them
        ({"n": 2**70}, b'{"n":1180591620717411303424}\n'),  # beyond 64 bits
        ({"t": "é"}, b'{"t":"\\u00e9"}\n'),  # escaped, never UTF-8
    ],
)
def test_encode_falls_back_to_the_standard_library_where_orjson_would_differ(message: dict, wire: bytes) -> None:
    assert protocol.encode(message) == wire


def test_it_parses_ready_and_actions_with_or_without_a_note() -> None:
    assert parse_reply(b'{"type": "ready"}\n', "ready") == {"type": "ready"}
    assert parse_reply(b'{"type":"action","action":{"take":2}}\r\n', "action") == {
        "type": "action",
        "action": {"take": 2},
        "note": None,
    }
    reply = parse_reply('{"type":"action","action":{},"note":"bluff"}', "action")
    assert reply["note"] == "bluff"


def test_a_long_note_is_cut() -> None:
    line = json.dumps({"type": "action", "action": {}, "note": "n" * 5000})
    assert len(parse_reply(line, "action")["note"]) == NOTE_MAX_CHARS


@pytest.mark.parametrize(
    ("line", "expected", "message"),
    [
        (b"take 3", "action", "not one JSON object"),
        (b"[1, 2]", "action", "expected a JSON object"),
        (b'{"type": "ready"} {"type": "ready"}', "ready", "not one JSON object"),
        (b'{"type": "ready"}', "action", "expected a message of type 'action'"),
        (b'{"action": {}}', "action", "type None"),
        (b'{"type": "action"}', "action", 'needs an "action"'),
        (b'{"type": "action", "action": 3}', "action", "must be a JSON object"),
        (b'{"type": "action", "action": {}, "extra": 1}', "action", "unknown keys"),
        (b'{"type": "ready", "name": "x"}', "ready", "unknown keys"),
        (b'{"type": "action", "action": {"x": NaN}}', "action", "NaN is not valid JSON"),
        (b'{"type": "action", "action": {}, "action": {}}', "action", "duplicate key"),
        (b'{"type": "action", "action": {}, "note": 5}', "action", '"note" must be a string'),
        (b'{"type": "ready"}\xff', "ready", "not UTF-8"),
        (b"", "ready", "not one JSON object"),
        (b"[" * 100_000, "ready", "not one JSON object"),
    ],
)
def test_it_rejects_malformed_replies_with_a_clear_reason(line: bytes, expected: str, message: str) -> None:
    with pytest.raises(ProtocolError, match=message) as caught:
        parse_reply(line, expected, max_line_bytes=1_000_000)  # type: ignore[arg-type]
    assert caught.value.cause == "malformed"


def test_a_line_over_the_cap_is_oversized() -> None:
    line = json.dumps({"type": "action", "action": {"x": "y" * 2000}})
    with pytest.raises(ProtocolError) as caught:
        parse_reply(line, "action", max_line_bytes=1000)
    assert caught.value.cause == "oversized"
    assert "exceeds the limit of 1000" in caught.value.detail
