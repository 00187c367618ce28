"""A validation's rejection reason in plain words (issue #19, finding 3: never "startup at move None")."""

from __future__ import annotations

from bots.results import Fault, FaultCause, fault_text


def test_a_fault_before_the_first_move_says_at_start_up() -> None:
    assert fault_text(Fault(FaultCause.CRASH, "exit status 1")) == "crashed at start-up: exit status 1"
    assert fault_text(Fault(FaultCause.STARTUP, "no ready message")) == "did not start: no ready message"


def test_a_fault_during_play_names_the_move() -> None:
    assert fault_text(Fault(FaultCause.TIMEOUT, "", move=12)) == "ran out of time at move 12"
