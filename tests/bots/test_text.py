"""The one rule for text a bot wrote (bots/text.py): no NUL, no lone surrogate, bounded; everything else kept."""

from __future__ import annotations

import json

from bots.protocol import NOTE_MAX_CHARS, parse_reply
from bots.results import Fault, FaultCause, MatchResult, SeatResult
from bots.text import DETAIL_MAX_CHARS, clean_json, clean_text, is_clean
from games.base import Outcome


def test_nul_and_lone_surrogates_become_the_replacement_character() -> None:
    assert clean_text("a\x00b", 100) == "a\ufffdb"
    assert clean_text("high \ud800 low \udfff", 100) == "high \ufffd low \ufffd"
    assert is_clean(clean_text("\x00\ud800\udbff\udc00", 100))


def test_valid_non_ascii_text_is_kept_as_it_is() -> None:
    text = "Zażółć gęślą jaźń — 東京 😀 \t tab\nline\r\n"
    assert clean_text(text, 1000) == text
    assert clean_text(text.encode(), 1000) == text


def test_bytes_are_decoded_and_an_invalid_sequence_is_replaced() -> None:
    assert clean_text(b"ok \xff\xfe \x00 \xed\xa0\x80", 100) == "ok \ufffd\ufffd \ufffd \ufffd\ufffd\ufffd"


def test_long_text_is_cut_to_its_head_or_its_tail_with_a_mark() -> None:
    text = "".join(str(n % 10) for n in range(100))
    head = clean_text(text, 10)
    tail = clean_text(text, 10, keep="tail")
    assert (len(head), len(tail)) == (10, 10)
    assert head == text[:9] + "…" and tail == "…" + text[-9:]
    assert clean_text(text, 100) == text
    assert clean_text("a\x00" * 50, 7) == "a\ufffda\ufffda\ufffd…"


def test_a_note_written_as_json_escapes_is_cleaned_while_parsing() -> None:
    line = json.dumps({"type": "action", "action": {"card": 1}, "note": "\ud800 nul \u0000 ok é"}).encode()
    assert b"\\ud800" in line and b"\\u0000" in line  # the bot wrote plain ASCII escapes
    assert parse_reply(line, "action")["note"] == "\ufffd nul \ufffd ok é"
    long_note = json.dumps({"type": "action", "action": {}, "note": "\ud800" * 1000})
    note = parse_reply(long_note, "action")["note"]
    assert len(note) == NOTE_MAX_CHARS and is_clean(note)


def test_a_fault_detail_is_cleaned_and_bounded_whoever_builds_it() -> None:
    fault = Fault(FaultCause.ILLEGAL, "no such card: \x00\ud800" + "x" * 10_000, 3)
    assert fault.detail.startswith("no such card: \ufffd\ufffd") and len(fault.detail) == DETAIL_MAX_CHARS
    assert fault.to_json()["detail"] == fault.detail


def test_a_stored_document_is_cleaned_keys_and_all() -> None:
    stored = json.loads('{"moves": [{"note": "\\ud800", "n": 1}], "\\u0000": [true, null, 2.5, "\\ud83d\\ude00"]}')
    assert clean_json(stored) == {"moves": [{"note": "\ufffd", "n": 1}], "\ufffd": [True, None, 2.5, "😀"]}


def _seat(label: str, rank: int, stderr: str, fault: Fault | None = None) -> SeatResult:
    return SeatResult(label, rank, float(3 - rank), fault, stderr, moves=1, time_ms=1)


def test_charging_a_seat_for_its_output_ranks_it_last_and_drops_its_text() -> None:
    replay = {
        "moves": [{"seat": 0, "note": "mine"}, {"seat": 1, "note": "theirs"}, {"seat": 2, "note": None}],
        "faults": [{"seat": 2, "cause": "timeout", "detail": "slow", "move": 2}],
        "outcome": {"scores": [2.0, 1.0, 0.0], "ranks": [1, 2, 3]},
    }
    slow = Fault(FaultCause.TIMEOUT, "slow", 2)
    result = MatchResult(
        "love_letter",
        7,
        Outcome(scores=[2.0, 1.0, 0.0], ranks=[1, 2, 3]),
        [_seat("a", 1, "log a"), _seat("b", 2, "log b"), _seat("c", 3, "log c", slow)],
        replay,
        wall_ms=5,
    )
    charged = result.with_output_fault(0, "its output could not be stored")
    # Below every seat that did not fault, as the runner ranks faults (Outcome.with_faults); b moves up to first.
    assert charged.outcome.ranks == [2, 1, 3]
    assert [seat.rank for seat in charged.seats] == [2, 1, 3]
    first = charged.seats[0]
    assert first.fault == Fault(FaultCause.MALFORMED, "its output could not be stored", 2) and first.stderr == ""
    assert charged.seats[1].stderr == "log b" and charged.seats[2].fault == slow
    assert [move["note"] for move in charged.replay["moves"]] == [None, "theirs", None]
    assert [fault["seat"] for fault in charged.replay["faults"]] == [0, 2]
    assert charged.replay["outcome"] == {"scores": [2.0, 1.0, 0.0], "ranks": [2, 1, 3]}
    # The result it was made from is unchanged.
    assert result.seats[0].stderr == "log a" and result.replay["moves"][0]["note"] == "mine"
