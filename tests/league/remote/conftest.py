"""The services' tests watch what is sent to the broker (nothing really goes out)."""

from tests.workers.conftest import sent  # noqa: F401 (a fixture)
