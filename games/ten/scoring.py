"""TEN's scoring (RULES.md "End and scoring" 2): each colour's longest run of consecutive numbers, wilds placed to
make the total as high as it can be."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from games.ten.cards import COLOURS, LIMIT, NUMBER, VALUES, WILD, Face, face_from_json


def _run_points(length: int) -> int:
    return LIMIT if length == len(VALUES) else length


_INTERVALS: tuple[tuple[int, int], ...] = tuple(
    (sum(1 << (v - 1) for v in range(a, b + 1)), _run_points(b - a + 1)) for a in VALUES for b in range(a, 10)
)


@lru_cache(maxsize=1 << 14)
def _colour_options(have: int, colour_wilds: int, number_wilds: int, full: int) -> tuple[tuple[int, int, int], ...]:
    """The ways one colour can score: (points, number-wilds used as a bit mask, full wilds used), dominated ones
    dropped. Colour-wilds fill the gaps that no number-wild could, so they never need choosing."""
    options: list[tuple[int, int, int]] = [(0, 0, 0)]
    for mask, points in _INTERVALS:
        need = mask & ~have
        short = need.bit_count() - colour_wilds
        if short <= 0:
            options.append((points, 0, 0))
            continue
        usable = need & number_wilds
        if usable.bit_count() + full < short:
            continue
        sub = usable
        while True:
            fill = short - sub.bit_count()
            if 0 <= fill <= full:
                options.append((points, sub, fill))
            if sub == 0:
                break
            sub = (sub - 1) & usable
    options.sort(key=lambda o: (-o[0], o[1].bit_count(), o[2]))
    kept: list[tuple[int, int, int]] = []
    seen: set[tuple[int, int]] = set()
    for points, sub, fill in options:
        # The same wilds as an option before (which had as many points or more): dominated by it, or by what
        # dominated it.
        if (sub, fill) in seen:
            continue
        seen.add((sub, fill))
        if not any(sub & k_sub == k_sub and fill >= k_fill for _p, k_sub, k_fill in kept):
            kept.append((points, sub, fill))
            if not sub and not fill:
                break  # no wild used: every option after it (no more points) is dominated
    return tuple(kept)


@lru_cache(maxsize=1 << 16)
def _best_score(colours: tuple[tuple[int, int], ...], number_wilds: int, full: int) -> int:
    """The best total over colours of longest-run points, wilds assigned to maximise it.

    ``colours`` holds each colour's (values present, colour-wilds): the total does not depend on their order, so
    callers sort them (one cache entry for every order). Values and ``number_wilds`` are bit masks (bit v-1). A
    dynamic programme over the colours whose state is which number-wilds and how many full wilds are already used:
    those are the only wilds that colours compete for (a colour-wild only ever helps its own colour)."""
    # A number-wild of a value the colour already has cannot help it.
    per_colour = [_colour_options(have, wilds, number_wilds & ~have, full) for have, wilds in colours]
    # The sum of each colour's own best is an upper bound; when those bests share no wild it is the answer.
    used = fused = 0
    for options in per_colour:
        _gain, sub, fill = options[0]
        if sub & used:
            break
        used, fused = used | sub, fused + fill
    else:
        if fused <= full:
            return sum(options[0][0] for options in per_colour)
    # A state: the number-wilds used (bits 0-8) and the full wilds used (the bits above) in one int; its value, the
    # points so far.
    states: dict[int, int] = {0: 0}
    settled = 0  # the colours whose best run needs no shared wild: nothing to choose
    last = len(colours) - 1
    for c, options in enumerate(per_colour):
        if len(options) == 1 or (options[0][1] == 0 and options[0][2] == 0):
            settled += options[0][0]
            continue
        if c == last:
            # Options come best first: each state needs only the first one it can still afford, and none when even
            # the best could not beat what another state reached.
            top, best = options[0][0], -1
            for key, points in states.items():
                if points + top <= best:
                    continue
                room = full - (key >> 9)
                for gain, sub, fill in options:
                    if not sub & key and fill <= room:
                        best = max(best, points + gain)
                        break
            return settled + best
        after: dict[int, int] = {}
        for key, points in states.items():
            room = full - (key >> 9)
            for gain, sub, fill in options:
                if sub & key or fill > room:
                    continue
                reached = key + sub + (fill << 9)  # sub shares no bit with key: the sum is the union
                if after.get(reached, -1) < points + gain:
                    after[reached] = points + gain
        states = after
    return settled + max(states.values())


def score_faces(faces: list[Face]) -> int:
    """The score of a collection given as faces."""
    present = [0] * len(COLOURS)
    colour_wilds = [0] * len(COLOURS)
    number_wilds = 0
    full = 0
    for kind, colour, value, _pips in faces:
        if kind == NUMBER:
            present[COLOURS.index(colour)] |= 1 << (value - 1)  # type: ignore[operator]  # a number has a value
        elif kind == WILD:
            if colour is not None:
                colour_wilds[COLOURS.index(colour)] += 1
            elif value is not None:
                number_wilds |= 1 << (value - 1)
            else:
                full += 1
    return _best_score(tuple(sorted(zip(present, colour_wilds, strict=True))), number_wilds, full)


def score_cards(cards: list[dict[str, Any]]) -> int:
    """The score of a collection of cards in the observation format (for bots and tests)."""
    return score_faces([face_from_json(card) for card in cards])
