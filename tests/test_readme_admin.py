"""The README's admin command works as written (stumble 7): typed in a terminal next to `make run`'s league, with
none of the test run's settings, it asks for a user name, an address and a password, and makes a staff account.

Before, it stopped with "SECRET_KEY must be set when DEBUG is off"; the command now carries the `DEBUG=1` that
`make run` sets, and the error, for whoever leaves it out, says so."""

from __future__ import annotations

import os
import pty
import re
import select
import sqlite3
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSWERS = [
    ("Username", "operator"),
    ("Email address", "ops@example.org"),
    ("Password:", "a long admin passphrase 7"),
    ("Password (again)", "a long admin passphrase 7"),
]


def _readme_command() -> str:
    commands = [line.strip() for line in (ROOT / "README.md").read_text().splitlines() if "createsuperuser" in line]
    assert len(commands) == 1, commands
    command = commands[0]
    assert command.startswith(("DEBUG=1 ", ".venv/bin/python")), command  # a line to type, not prose
    return command


def _a_newcomers_shell(var_dir: Path) -> dict[str, str]:
    """A terminal beside `make run`: no SECRET_KEY, no DEBUG, no database or settings of the test run. (The league's
    files go to a folder of this test's instead of var/.)"""
    return {"PATH": "/usr/bin:/bin", "HOME": str(var_dir), "LANG": "C.UTF-8", "PARLOUR_VAR_DIR": str(var_dir)}


def _in_a_terminal(command: str, env: dict[str, str], answers: list[tuple[str, str]], seconds: float = 90) -> str:
    """Runs ``command`` in a pseudo-terminal (createsuperuser asks for the password on the terminal, as for a
    person), typing each answer once its prompt shows; returns everything the terminal showed."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, as a shell would run the line
        os.chdir(ROOT)
        os.execve("/bin/sh", ["/bin/sh", "-c", command], env)
    shown, pending, deadline = b"", list(answers), time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the command exited: the terminal is closed
                break
            if not chunk:
                break
            shown += chunk
            if pending and pending[0][0].encode() in shown.rsplit(b"\n", 1)[-1]:
                os.write(fd, pending.pop(0)[1].encode() + b"\n")
        else:
            raise AssertionError(f"the command did not finish in {seconds} s: {shown.decode(errors='replace')}")
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    text = shown.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    return text


def test_the_readmes_admin_command_makes_a_staff_account(tmp_path: Path) -> None:
    env = _a_newcomers_shell(tmp_path)
    # What `make run` did first (bin/run-league): the database, migrated, with its DEBUG=1.
    subprocess.run(
        [str(ROOT / ".venv/bin/python"), "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env={**env, "DEBUG": "1"},
        check=True,
        capture_output=True,
        timeout=120,
    )
    shown = _in_a_terminal(_readme_command(), env, ANSWERS)
    assert "Superuser created successfully." in shown
    with sqlite3.connect(tmp_path / "parlour.sqlite3") as database:
        rows = database.execute("SELECT username, email, is_staff, is_superuser FROM auth_user").fetchall()
    assert rows == [("operator", "ops@example.org", 1, 1)]


def test_without_debug_the_error_says_what_to_do() -> None:
    command = re.sub(r"^DEBUG=1 ", "", _readme_command())
    env = _a_newcomers_shell(Path("/nonexistent-parlour-var"))
    answer = subprocess.run(["/bin/sh", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert answer.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off (on your own machine, DEBUG=1 uses a development key" in (
        answer.stderr
    )
