"""The embedded default's filesystem broker (parlour/broker.py): a message is whole when a consumer can see it, and
each is taken once however many consumers race for it. Real files, real processes, no worker."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from queue import Empty

from kombu import Connection

from parlour.broker import PARTIAL_PREFIX, Transport, filesystem_options

MESSAGES = 300


def _connection(folder: Path) -> Connection:
    options = filesystem_options(folder, 10)
    for key in ("data_folder_in", "processed_folder", "control_folder"):
        Path(str(options[key])).mkdir(parents=True, exist_ok=True)
    return Connection(transport=Transport, transport_options=options)


def _drain(folder: str, out: multiprocessing.Queue) -> None:
    taken = []
    with _connection(Path(folder)) as connection:
        queue = connection.SimpleQueue("race")
        while True:
            try:
                message = queue.get(timeout=0.5)
            except Empty:
                break
            taken.append(message.payload)
            message.ack()
    out.put(taken)


def test_a_message_still_being_written_is_never_taken(tmp_path: Path) -> None:
    # Queue names of their own in these tests: kombu remembers declared bindings per process (a class attribute), by
    # name, and another test of this process may have declared "celery" in another folder.
    with _connection(tmp_path) as connection:
        queue = connection.SimpleQueue("partial")
        queue.put({"n": 1})
        # What a producer leaves between its write and its rename (or if it dies in between): half a message.
        partial = tmp_path / "queue" / f"{PARTIAL_PREFIX}000000000000001_x.partial.msg"
        partial.write_text('{"body": "eyJuIjog')
        message = queue.get(timeout=1)
        assert message.payload == {"n": 1}
        message.ack()
        try:
            queue.get(timeout=0.3)
            raise AssertionError("a half-written message was delivered")
        except Empty:
            pass
        assert partial.exists()
        assert [name for name in os.listdir(tmp_path / "queue") if not name.startswith(PARTIAL_PREFIX)] == []
        assert os.listdir(tmp_path / "processed") == []  # taken messages are not kept (store_processed off)


def test_consumers_racing_for_messages_take_each_exactly_once(tmp_path: Path) -> None:
    with _connection(tmp_path) as connection:
        queue = connection.SimpleQueue("race")
        for n in range(MESSAGES):
            queue.put({"n": n})
    results: multiprocessing.Queue = multiprocessing.get_context("fork").Queue()
    consumers = [
        multiprocessing.get_context("fork").Process(target=_drain, args=(str(tmp_path), results)) for _ in range(3)
    ]
    for consumer in consumers:
        consumer.start()
    taken = [payload["n"] for _ in consumers for payload in results.get(timeout=60)]
    for consumer in consumers:
        consumer.join(10)
    assert sorted(taken) == list(range(MESSAGES))  # none lost, none twice
