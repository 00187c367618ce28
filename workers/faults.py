"""Fault injection for the reliability tests and the soak run (docs/operations.md, Reliability). Off in production.

A worker reads ``PARLOUR_FAULTS``, a comma-separated list, once when it imports this module (``configure``); unset or
empty, the hooks ``before_record`` and ``while_recording`` are bound to no-ops, so a match pays nothing for them.

- ``drop_db_while_recording``: the first time this worker process records a match result, its database connection is
  cut in the middle of the recording transaction, just before the match row is written (after the seats and the
  rating changes): PostgreSQL terminates the worker's own backend (``pg_terminate_backend``), as a restarted server
  or a dropped network link would; SQLite, which has no server connection, raises ``OperationalError`` there and
  closes the file after the rollback. Nothing of the transaction remains; ``run_match`` must record the result again,
  once.
- ``record_barrier=DIR:N``: before recording, a worker waits (up to 30 s) until N workers are waiting in DIR, so that
  N results are recorded at the same instant (the rating rows' locks must serialise them).
- ``refuse_text=MARKER``: while recording, the database refuses (``DataError``, as PostgreSQL refuses a NUL in a text
  column) every statement that would store a text containing MARKER: a bot that writes it stands for one whose
  output the database will not take, now that the runner cleans what used to be refused (bots/text.py).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.db import DataError, OperationalError, connection

log = logging.getLogger(__name__)

BARRIER_TIMEOUT_S = 30.0
_dropped = False  # drop_db_while_recording fires once per process


def _parse(raw: str) -> dict[str, str]:
    faults = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        name, _, value = item.partition("=")
        faults[name] = value
    return faults


def _no_barrier(match_id: int) -> None:
    return None


_NOTHING = contextlib.nullcontext()  # stateless, so one instance serves every recording


def _not_cut(match_id: int) -> contextlib.AbstractContextManager[None]:
    return _NOTHING


def _barrier(spec: str) -> Callable[[int], None]:
    """The barrier (``record_barrier=DIR:N``)."""
    folder, _, count = spec.rpartition(":")

    def before_record(match_id: int) -> None:
        _wait_at_barrier(folder, int(count), match_id)

    return before_record


def _wait_at_barrier(folder: str, count: int, match_id: int) -> None:
    Path(folder).mkdir(parents=True, exist_ok=True)
    (Path(folder) / f"{os.getpid()}-{match_id}").touch()
    deadline = time.monotonic() + BARRIER_TIMEOUT_S
    while len(list(Path(folder).iterdir())) < count and time.monotonic() < deadline:
        time.sleep(0.005)
    log.warning("fault injection: match %s leaves the record barrier", match_id)


@contextlib.contextmanager
def _cut_while_recording(match_id: int) -> Iterator[None]:
    """Wraps the recording of a result: cuts the database connection once (``drop_db_while_recording``)."""
    if _dropped:
        yield
        return

    def cut(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        global _dropped
        if _dropped or not sql.lstrip().upper().startswith('UPDATE "LEAGUE_MATCH"'):
            return execute(sql, params, many, context)
        _dropped = True
        log.warning("fault injection: cutting the database connection while recording match %s", match_id)
        db = context["connection"]
        if db.vendor == "postgresql":
            with contextlib.suppress(Exception), db.connection.cursor() as raw:
                raw.execute("SELECT pg_terminate_backend(pg_backend_pid())")
            return execute(sql, params, many, context)  # fails: the server closed the connection
        raise OperationalError("fault injection: the database connection was cut while recording")

    try:
        with connection.execute_wrapper(cut):
            yield
    except OperationalError:
        if connection.vendor != "postgresql":
            connection.close()  # after the rollback: closing the file inside the statement would hide the error
        raise


def _refusing(marker: str) -> Callable[[int], contextlib.AbstractContextManager[None]]:
    """Wraps the recording of a result: the database refuses any text containing ``marker`` (``refuse_text``)."""

    def holds_marker(value: Any) -> bool:
        if isinstance(value, str):
            return marker in value
        if isinstance(value, list | tuple):
            return any(holds_marker(item) for item in value)
        return False

    def refuse(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        if holds_marker(params):
            log.warning("fault injection: the database refuses a text holding %r", marker)
            raise DataError(f"fault injection: a text holding {marker!r} is refused")
        return execute(sql, params, many, context)

    @contextlib.contextmanager
    def while_recording(match_id: int) -> Iterator[None]:
        with connection.execute_wrapper(refuse):
            yield

    return while_recording


# The hooks the worker calls around every recording: no-ops unless PARLOUR_FAULTS asks for a fault.
before_record: Callable[[int], None] = _no_barrier
while_recording: Callable[[int], contextlib.AbstractContextManager[None]] = _not_cut


def configure(raw: str | None = None) -> None:
    """Bind the hooks from ``raw`` (default: ``PARLOUR_FAULTS``). Called once at import, in each worker process."""
    global before_record, while_recording
    faults = _parse(os.environ.get("PARLOUR_FAULTS", "") if raw is None else raw)
    spec = faults.get("record_barrier")
    before_record = _barrier(spec) if spec else _no_barrier
    while_recording = _cut_while_recording if "drop_db_while_recording" in faults else _not_cut
    if marker := faults.get("refuse_text"):
        while_recording = _refusing(marker)


configure()
