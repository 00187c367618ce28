"""Playing a person's table in the test process: the worker's side (league.tables.services' do_* for the worker)
driven directly, with the engine's random players in the bots' seats, so a test can walk a whole game through the
services and the API without a Celery worker (tests/workers/test_tables_e2e.py plays with a real one)."""

from __future__ import annotations

from games.base import State
from games.registry import get_game, make_player
from games.replay import ReplayWriter
from league.tables import services as tables
from league.tables.models import Table
from tests.results import runner_result


def state_of(table: Table) -> State:
    state = get_game(table.game).new_state(table.players, table.seed, table.options)
    for move in table.moves:
        state.apply(move["action"])
    return state


def start(table: Table) -> Table:
    """Claim the table and play the bots' moves up to the person's first decision."""
    claimed = tables.do_claim_table(table.pk)
    assert claimed is not None and claimed.pk == table.pk, "another table was older in the queue"
    return play_bots(claimed)


def play_bots(table: Table) -> Table:
    """Play the person's pending action (if any), then play the bots until the person is to move or the game ends;
    the person's clock is started as the worker does; at the end the result is recorded."""
    table.refresh_from_db()
    state = state_of(table)
    moves = list(table.moves)
    pending = tables.person_reply(table.pk, len(moves)).action
    if pending is not None:
        state.apply(pending)
        moves.append({"seat": table.person_seat, "action": state.history[-1], "auto": False})
    while not state.is_over() and state.to_move() != table.person_seat:
        seat = state.to_move()
        assert seat is not None
        player = make_player(table.game, "random", len(moves))
        player.start(seat, table.players, state.options)
        state.apply(player.act(state.observation(seat), state.legal_actions()))
        moves.append({"seat": seat, "action": state.history[-1], "auto": False})
    tables.do_record_moves(table.pk, table.claim_token, moves)
    if state.is_over():
        finish(table, state, moves)
    else:
        tables.do_await_person(table.pk, table.claim_token, len(moves), table.clock_seconds)
    table.refresh_from_db()
    return table


def finish(table: Table, state: State, moves: list[dict]) -> None:
    writer = ReplayWriter(table.game, state.game.version, table.seed, state.options, [s["label"] for s in table.seats])
    for move in moves:
        writer.add_move(move["seat"], move["action"], 1.0, None, None, auto=move["auto"])
    outcome = state.outcome()
    seats = [{"rank": r, "score": s, "fault": None} for r, s in zip(outcome.ranks, outcome.scores, strict=True)]
    result = runner_result({"game": table.game, "seed": table.seed, "seats": seats, "outcome": outcome.to_json()})
    result.replay = writer.finish({}, outcome)
    tables.do_finish_table(table.pk, table.claim_token, result)


def play_person(table: Table, person, choose=None) -> None:
    """Play the whole game through the services: the person's moves by ``do_act`` (the random player's choice, or
    ``choose(view)``), the bots' in between; ``person`` is the table's owner."""
    from games.registry import make_player as _make

    player = _make(table.game, "random", 7)
    player.start(table.person_seat, table.players, table.options)
    for _ in range(5000):
        table.refresh_from_db()
        if table.status != Table.Status.RUNNING:
            return
        view = tables.table_view(table, person)
        if choose is not None:
            choose(table, view)
        action = player.act(view["observation"], view["legal_actions"])
        tables.do_act(person, table.pk, view["move_count"], action)
        play_bots(table)
    raise AssertionError("the game did not end")
