"""Built-in Love Letter players: ``random`` and a card-counting ``heuristic``."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.base import Action, Player, RandomPlayer
from games.love_letter.declaration import Move, Observation
from games.love_letter.engine import (
    BARON,
    COUNTESS,
    COUNTS,
    GUARD,
    HANDMAID,
    KING,
    PRIEST,
    PRINCE,
    PRINCESS,
)

# An elimination is worth about this much; other scores are on the same scale.
KNOCKOUT = 8.0


class Beliefs:
    """What one observation says about the cards the others may hold.

    ``pool`` counts every card the observer has not seen (deck, burned card and the unknown hands). Each unknown
    hand is drawn from it, narrowed by public facts since that hand last changed: a wrong Guard guess rules a value
    out, and surviving a Baron against a player who went out puts a floor under the card."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        seen = Counter(obs["hand"]) + Counter(obs["set_aside_up"])
        for pile in obs["discards"]:
            seen.update(pile)
        seen.update(obs["known"].values())
        self.pool = {v: max(COUNTS[v] - seen[v], 0) for v in COUNTS}
        self.excluded: dict[int, set[int]] = {}
        self.floor: dict[int, int] = {}
        self._read_moves(obs["moves"], obs["discards"])

    def _read_moves(self, moves: list[Move], discards: list[list[int]]) -> None:
        for move in moves:
            seat, card, target = move["seat"], move["card"], move.get("target")
            # The player's remaining card may be the one just drawn: what we had learnt about them is stale.
            self._reset(seat)
            if card in (PRINCE, KING) and target is not None:
                self._reset(target)
            if card == GUARD and target is not None and target not in move["out"]:
                self.excluded.setdefault(target, set()).add(move["guess"])
            if card == BARON and target is not None and len(move["out"]) == 1:
                loser = move["out"][0]
                winner = target if loser == seat else seat
                # The loser's hand card is the last card of their pile; the winner's card beat it.
                self.floor[winner] = max(self.floor.get(winner, 0), discards[loser][-1] + 1)

    def _reset(self, seat: int) -> None:
        self.excluded.pop(seat, None)
        self.floor.pop(seat, None)

    def hand_of(self, seat: int) -> dict[int, float]:
        """Probability of each value for the single card ``seat`` holds."""
        known = self.obs["known"].get(str(seat))
        if known is not None:
            return {known: 1.0}
        excluded, floor = self.excluded.get(seat, set()), self.floor.get(seat, 0)
        weights = {v: n for v, n in self.pool.items() if n and v not in excluded and v >= floor}
        if not weights:  # contradictory facts (a later draw we could not follow): fall back to the pool
            weights = {v: n for v, n in self.pool.items() if n}
        total = sum(weights.values()) or 1
        return {v: n / total for v, n in weights.items()}

    def mean_unseen(self) -> float:
        total = sum(self.pool.values())
        return sum(v * n for v, n in self.pool.items()) / total if total else 4.0


class HeuristicPlayer(Player[Observation]):
    """Counts cards, uses what it has seen, names the likeliest card with a Guard and keeps high cards late."""

    name = "heuristic"
    description = "counts cards and scores each legal action by its effect and the card it keeps"

    def act(self, obs: Observation, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        beliefs = Beliefs(obs)
        scored = [(self._score(obs, beliefs, action), i) for i, action in enumerate(legal)]
        best = max(score for score, _ in scored)
        # Break exact ties at random so the player is not trivially predictable.
        return legal[self.rng.choice([i for score, i in scored if score >= best - 1e-9])]

    def _score(self, obs: Observation, beliefs: Beliefs, action: Action) -> float:
        hand = list(obs["hand"])
        card, target = action["card"], action.get("target")
        hand.remove(card)
        kept = hand[0]
        if card == PRINCESS:
            return -100.0
        if card == PRINCE and target == obs["seat"]:
            # We discard the card we would keep and draw an unseen one instead.
            if kept == PRINCESS:
                return -100.0
            unseen = round(beliefs.mean_unseen())
            return -0.5 + self._keep_value(obs, unseen, card, target)
        effect = self._effect(obs, beliefs, card, target, action.get("guess"), kept)
        return effect + self._keep_value(obs, kept, card, target)

    def _effect(
        self, obs: Observation, beliefs: Beliefs, card: int, target: int | None, guess: int | None, kept: int
    ) -> float:
        if target is None:
            return {HANDMAID: 2.0, COUNTESS: 0.3}.get(card, 0.0)
        their = beliefs.hand_of(target)
        if card == GUARD:
            return KNOCKOUT * their.get(guess or 0, 0.0)
        if card == PRIEST:
            return 0.2 if str(target) in obs["known"] else 1.5
        if card == BARON:
            win = sum(p for v, p in their.items() if v < kept)
            lose = sum(p for v, p in their.items() if v > kept)
            return KNOCKOUT * (win - lose)
        if card == PRINCE:
            expected = sum(v * p for v, p in their.items())
            return KNOCKOUT * their.get(PRINCESS, 0.0) + 0.1 * expected
        if card == KING:
            expected = sum(v * p for v, p in their.items())
            # We gain their card but they learn ours (the one we give away).
            return 0.5 * (expected - kept) - 1.0
        return 0.0

    def _keep_value(self, obs: Observation, kept: int, card: int, target: int | None) -> float:
        # Late in the round the kept card decides the showdown; early it matters less.
        lateness = 1.0 - obs["deck_size"] / 11.0
        value: float = kept * (0.15 + 0.5 * max(lateness, 0.0))
        if card == KING and target is not None:
            return 0.0  # the kept card is given away; _effect valued the trade
        # A card another player has seen invites their Guard (a Guard cannot be named, so it is safe).
        watchers = [s for s, v in obs["seen_by"].items() if v == kept and not obs["out"][int(s)]]
        if watchers and kept != GUARD and card != HANDMAID:
            value -= 3.0
        return value


PLAYERS: dict[str, type[Player[Any]]] = {"random": RandomPlayer, "heuristic": HeuristicPlayer}
