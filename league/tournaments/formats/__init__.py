"""Tournament formats: who sits at which table in which round, in which seat, and how results become standings.

Pure: no Django and no database. ``league/tournaments/services.py`` stores, plays and advances what this package
plans; docs/tournaments.md explains the rules to people. Entrants are plain ints (entry ids) given in seed order
(seed 1 first) wherever order matters. One module per job:

- ``settings``: the formats and their checked settings.
- ``tables``: a round's plan, table sizes and the swap search shared by the formats.
- ``round_robin``: two-player tables by the circle method (every pairing exactly once); larger tables by a seeded
  local search that spreads meetings so that every pair meets at least once and about equally often.
- ``swiss``: pairing by score with no repeat pairing wherever one can be avoided (a complete search for two-player
  tables), byes to the lowest-ranked entrant with the fewest byes.
- ``knockout``: a seeded bracket (1 v 16, 8 v 9, ... byes to the top seeds); for larger tables the top ``advance``
  of each table go through, seeds spread snake-wise over the tables; best-of series decided early.
- ``seats``: seats rotate in every format; with ``duplicate`` every game is played once per rotation with the same
  seed, derived one way from the tournament's seed.
- ``results``: game points, standings and tie-breaks.

Callers use the names re-exported here (``from league import tournament_formats as tf``).
"""

from league.tournaments.formats.knockout import (
    Series,
    SeriesDecision,
    bracket_order,
    decide_series,
    knockout_first_round,
    knockout_groups,
    knockout_next_round,
    knockout_round_sizes,
)
from league.tournaments.formats.results import (
    TIEBREAK_HELP,
    TIEBREAK_LABELS,
    TIEBREAKS,
    EntryInfo,
    Played,
    Standing,
    game_points,
    standings,
)
from league.tournaments.formats.round_robin import RR_TRIES, round_robin_schedule
from league.tournaments.formats.seats import match_seed, seat_orders
from league.tournaments.formats.settings import (
    FORMATS,
    KNOCKOUT,
    ROUND_ROBIN,
    SETTING_KEYS,
    SWISS,
    FormatError,
    Settings,
    minimum_entrants,
    parse_settings,
)
from league.tournaments.formats.swiss import SEARCH_BUDGET, SwissState, swiss_round, swiss_rounds
from league.tournaments.formats.tables import Pair, RoundPlan, pairs_of, table_sizes

__all__ = [
    "FORMATS",
    "KNOCKOUT",
    "ROUND_ROBIN",
    "RR_TRIES",
    "SEARCH_BUDGET",
    "SETTING_KEYS",
    "SWISS",
    "TIEBREAKS",
    "TIEBREAK_HELP",
    "TIEBREAK_LABELS",
    "EntryInfo",
    "FormatError",
    "Pair",
    "Played",
    "RoundPlan",
    "Series",
    "SeriesDecision",
    "Settings",
    "Standing",
    "SwissState",
    "bracket_order",
    "decide_series",
    "game_points",
    "knockout_first_round",
    "knockout_groups",
    "knockout_next_round",
    "knockout_round_sizes",
    "match_seed",
    "minimum_entrants",
    "pairs_of",
    "parse_settings",
    "round_robin_schedule",
    "seat_orders",
    "standings",
    "swiss_round",
    "swiss_rounds",
    "table_sizes",
]
