from __future__ import annotations

from typing import Annotated, Any, TypedDict

from games.base import Game, InvalidOptions, Outcome, State
from games.spec import GameSpec


class PileObservation(TypedDict):
    pile: Annotated[int, "Counters left."]
    seat: Annotated[int, "Your seat."]
    taken: Annotated[list[int], "Counters each seat took."]


class Take(TypedDict):
    take: Annotated[int, "Counters to take, 1 to 3."]


class PileState(State):
    def _setup(self) -> None:
        self.pile = self.options["pile"]
        self.turn = self.rng.randrange(self.players)
        self.taken = [0] * self.players
        self.winner: int | None = None

    def _to_move(self) -> int | None:
        return self.turn

    def _legal_actions(self) -> list[dict[str, Any]]:
        return [{"take": n} for n in (1, 2, 3) if n <= self.pile]

    def _explain_illegal(self, action: dict[str, Any]) -> str:
        return f"you may take 1 to {min(3, self.pile)} counters"

    def _apply(self, action: dict[str, Any]) -> list[str]:
        self.pile -= action["take"]
        self.taken[self.turn] += action["take"]
        if self.pile == 0:
            self.winner = self.turn
        self.turn = (self.turn + 1) % self.players
        return [f"takes {action['take']}"]

    def _observation(self, seat: int) -> PileObservation:
        return {"pile": self.pile, "seat": seat, "taken": list(self.taken)}

    def _public_view(self) -> dict[str, Any]:
        return {"pile": self.pile, "taken": list(self.taken)}

    def _full_view(self) -> dict[str, Any]:
        return self._public_view()

    def is_over(self) -> bool:
        return self.winner is not None

    def _outcome(self) -> Outcome:
        return Outcome.from_scores([1.0 if seat == self.winner else 0.0 for seat in range(self.players)])


class PileGame(Game):
    spec = GameSpec(
        id="parlour_test_pile",
        title="Pile",
        min_players=2,
        max_players=4,
        version="1",
        observation=PileObservation,
        action=Take,
        hidden="",
        chance="Who starts.",
        score="1 for taking the last counter.",
    )
    state_class = PileState

    def start_info(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        return {"rules": "take 1-3; last counter wins"}

    def _check_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        pile = options.pop("pile", 21)
        if options:
            raise InvalidOptions(f"unknown options {sorted(options)}")
        if not isinstance(pile, int) or not 1 <= pile <= 1000:
            raise InvalidOptions("pile must be an integer from 1 to 1000")
        return {"pile": pile}


GAME = PileGame()
