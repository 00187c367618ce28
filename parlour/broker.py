"""The embedded default's broker: kombu's filesystem transport, made safe for several processes on one machine.

kombu's own transport creates a message file under its final name and then writes it, and a consumer renames any file
of its queue into a temporary folder (on another file system, a copy and a delete) before reading it: a consumer that
lists the folder between the two steps of a producer reads a half-written message (and drops it as unreadable), and
two consumers may both copy the same file. Here a message is written under a name no consumer looks at and renamed to
its final name once complete, and a consumer takes a message by one atomic rename into a folder of the same file
system: whoever renames it owns it, and it is always whole. A worker whose prefetch is full returns to Celery's
loop after each poll (see Transport.drain_events). Selected by CELERY_BROKER_TRANSPORT (parlour/settings.py).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from queue import Empty
from time import monotonic
from typing import Any

from kombu import Connection
from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

# A file being written: no queue's name matches it (a queue's files are "<time>_<uuid>.<queue>.msg").
PARTIAL_PREFIX = ".partial-"


def filesystem_options(broker_dir: Path, poll_ms: int) -> dict[str, int | str | bool | float]:
    """kombu's transport options for a broker kept in ``broker_dir``, polled every ``poll_ms`` milliseconds."""
    return {
        "data_folder_in": str(broker_dir / "queue"),
        "data_folder_out": str(broker_dir / "queue"),
        "processed_folder": str(broker_dir / "processed"),  # also where a consumer takes a message: same file system
        "control_folder": str(broker_dir / "control"),
        "store_processed": False,
        "polling_interval": poll_ms / 1000,
    }


class Channel(filesystem.Channel):
    """Atomic put (write a temporary file, then rename it) and atomic get (rename it to a private name)."""

    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]  # as kombu
        name = f"{round(monotonic() * 1000):015d}_{uuid.uuid4()}.{queue}.msg"
        folder = str(self.data_folder_out)
        partial = os.path.join(folder, PARTIAL_PREFIX + name)
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(folder, name))
        except OSError as exc:
            raise ChannelError(f"Cannot add a message to {folder!r}") from exc

    def _get(self, queue: str, timeout: float | None = None) -> Any:
        suffix = f".{queue}.msg"
        folder = str(self.data_folder_in)
        taken_folder = str(self.processed_folder)
        for name in sorted(os.listdir(folder)):
            if name.startswith(PARTIAL_PREFIX) or name.partition(".")[2] != suffix[1:]:
                continue
            taken = os.path.join(taken_folder, f"{name}.{os.getpid()}")
            try:
                os.rename(os.path.join(folder, name), taken)  # atomic: one consumer wins, the others move on
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise ChannelError(f"Cannot take {name!r} from the queue") from exc
            try:
                with open(taken, "rb") as file:
                    payload = file.read()
            finally:
                if not self.store_processed:
                    os.remove(taken)
            return loads(bytes_to_str(payload))
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel

    def drain_events(self, connection: Connection, timeout: float | None = None) -> None:  # type: ignore[override]
        # Celery drives a transport like this one with its blocking loop (celery.worker.loops.synloop): it waits here up
        # to 2 s, and acknowledges finished tasks (freeing prefetch slots) only between two waits. With every slot
        # taken, that was one message per slot every 2 s: the queue fell behind beat's sweeper, and an upload waited
        # seconds for its validation. While a consumer's prefetch is full, return after one poll instead, so the loop
        # acknowledges what has finished; any other caller (a control client collecting replies) waits as asked.
        consuming = [channel for channel in self.channels or [] if channel._consumers]
        if timeout is not None and any(not channel.qos.can_consume() for channel in consuming):
            timeout = min(timeout, float(self.polling_interval or 0.1))
        super().drain_events(connection, timeout=timeout)
