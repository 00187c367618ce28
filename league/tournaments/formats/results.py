"""Results into standings: the points of one game, and the table with each format's tie-breaks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from league.tournaments.formats.settings import KNOCKOUT, ROUND_ROBIN, SWISS


def game_points(size: int, ranks: Mapping[int, int]) -> dict[int, float]:
    """Points of one game at a table of ``size`` seats: each other seat beaten is worth 1/(size-1), a tie half of
    that (two players: win 1, draw ½, loss 0). Planned seats that are empty (entrants who forfeited) count as
    beaten by everyone who played."""
    absent = size - len(ranks)
    points = {}
    for entry, rank in ranks.items():
        beaten = sum(1 for other, r in ranks.items() if other != entry and r > rank)
        tied = sum(1 for other, r in ranks.items() if other != entry and r == rank)
        points[entry] = (absent + beaten + tied / 2) / (size - 1)
    return points


@dataclass(frozen=True)
class Played:
    """One result at one table: a finished match, or a walkover (too few left to play; everyone left ties)."""

    round: int
    table: int
    size: int  # seats planned at the table
    ranks: Mapping[int, int]  # entry → rank, for those who played
    weight: float = 1.0  # a game counts once: each of its duplicate rotations counts 1/rotations
    walkover: bool = False


@dataclass(frozen=True)
class EntryInfo:
    id: int
    seed: int
    forfeited: bool = False


@dataclass
class Standing:
    entry: int
    seed: int
    position: int = 0
    score: float = 0.0
    games: float = 0.0
    wins: float = 0.0
    forfeited: bool = False
    tiebreaks: dict[str, float] = field(default_factory=dict)


TIEBREAKS = {
    ROUND_ROBIN: ("sonneborn_berger", "wins"),
    SWISS: ("buchholz", "sonneborn_berger", "wins"),
    KNOCKOUT: ("round_reached", "series_points"),
}
TIEBREAK_LABELS = {
    "sonneborn_berger": "Sonneborn-Berger",
    "buchholz": "Buchholz",
    "wins": "Wins",
    "round_reached": "Round",
    "series_points": "Series",
}


# What each tie-break means, in a sentence (the standings' column titles).
TIEBREAK_HELP = {
    "sonneborn_berger": "the points of the opponents each one beat, plus half those of the opponents it drew with",
    "buchholz": "the sum of its opponents' scores: a score earned against strong opponents counts for more",
    "wins": "games won",
    "round_reached": "the knockout round reached",
    "series_points": "points in its knockout series",
}


def standings(
    fmt: str,
    entries: Sequence[EntryInfo],
    played: Sequence[Played],
    bye_points: Mapping[int, float] | None = None,
    reached: Mapping[int, tuple[int, float]] | None = None,
) -> list[Standing]:
    """Standings, best first: score (game points, plus byes), then the format's tie-breaks, then seed.

    Round robin: Sonneborn-Berger, then wins. Swiss: Buchholz (opponents' scores; at bigger tables the mean of a
    table's opponents per round), then Sonneborn-Berger, then wins. Knockout: the round reached (``reached``:
    entry → (round, points in that round's series); the champion's round is one past the final), then the points
    of that series."""
    rows = {e.id: Standing(entry=e.id, seed=e.seed, forfeited=e.forfeited) for e in entries}
    for entry, bye in (bye_points or {}).items():
        rows[entry].score += bye
    per_game = []
    for result in played:
        points = game_points(result.size, result.ranks)
        per_game.append(points)
        for entry, value in points.items():
            row = rows[entry]
            row.score += value * result.weight
            row.games += result.weight
            if not result.walkover and result.ranks[entry] == 1 and len(result.ranks) > 1:
                row.wins += result.weight
    scores = {entry: row.score for entry, row in rows.items()}
    sb: dict[int, float] = {}
    buchholz: dict[int, float] = {}
    seen_tables: set[tuple[int, int, int]] = set()
    for result in played:
        for entry, rank in result.ranks.items():
            others = [o for o in result.ranks if o != entry]
            for other in others:
                versus = 1.0 if result.ranks[other] > rank else 0.5 if result.ranks[other] == rank else 0.0
                sb[entry] = sb.get(entry, 0) + versus * scores[other] * result.weight / (result.size - 1)
            if others and (result.round, result.table, entry) not in seen_tables:
                seen_tables.add((result.round, result.table, entry))
                buchholz[entry] = buchholz.get(entry, 0) + sum(scores[o] for o in others) / len(others)
    for entry, row in rows.items():
        if fmt == KNOCKOUT:
            round_reached, series = (reached or {}).get(entry, (0, 0.0))
            row.tiebreaks = {"round_reached": round_reached, "series_points": round(series, 4)}
        else:
            row.tiebreaks = {"sonneborn_berger": round(sb.get(entry, 0), 4), "wins": round(row.wins, 4)}
            if fmt == SWISS:
                row.tiebreaks = {"buchholz": round(buchholz.get(entry, 0), 4), **row.tiebreaks}
        row.score = round(row.score, 6)
    if fmt == KNOCKOUT:
        order = sorted(
            rows.values(),
            key=lambda r: (-r.tiebreaks["round_reached"], -r.tiebreaks["series_points"], -r.score, r.seed),
        )
    else:
        order = sorted(
            rows.values(), key=lambda r: (-r.score, *(-r.tiebreaks[name] for name in TIEBREAKS[fmt]), r.seed)
        )
    for position, row in enumerate(order, start=1):
        row.position = position
    return order
