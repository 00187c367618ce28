"""The ready-made deployment files run the same processes as `make serve`: the Procfile's and the systemd units'
(deploy/systemd/) commands are those of parlour/supervise.py's services, which bin/serve runs. Only what each machine
chooses may differ: where the web server listens, how many processes, where a machine keeps its files. Any other
option added to (or dropped from) one of them fails here until the others follow (docs/deployment.md)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from parlour.supervise import services

ROOT = Path(__file__).resolve().parents[1]
UNITS = ROOT / "deploy" / "systemd"
# Options whose values are the machine's choice; every other word of a command must be the same.
CHOSEN_BY_THE_MACHINE = {"--host", "--port", "--workers", "--concurrency", "--heartbeat-file", "--schedule"}
PROCFILE_PROCESSES = {"web": "web", "worker": "match", "validation": "lane", "beat": "beat"}
UNIT_PROCESSES = {
    "parlour-web.service": "web",
    "parlour-worker.service": "match",
    "parlour-validation.service": "lane",
    "parlour-beat.service": "beat",
}
SANDBOXED = {"parlour-worker.service", "parlour-validation.service"}


def _shape(argv: list[str]) -> list[str]:
    """The command from ``-m`` on (the interpreter is the machine's), each chosen option's value left out."""
    assert Path(argv[0]).name == "python" and argv[1] == "-m", f"the virtualenv's python runs a module: {argv}"
    shape, after_chosen = [], False
    for word in argv[1:]:
        shape.append("<chosen>" if after_chosen else word)
        after_chosen = not after_chosen and word in CHOSEN_BY_THE_MACHINE
    return shape


def _make_serve() -> dict[str, list[str]]:
    """What bin/serve starts: the supervisor's services, without --reload (`make run` only)."""
    started = services("/srv/parlour/.venv/bin/python", 8000, 2, Path("var/run"), web_processes=2, reload=False)
    return {service.name: _shape(service.command) for service in started}


def _procfile() -> dict[str, list[str]]:
    processes = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if match := re.fullmatch(r"([A-Za-z0-9_-]+):\s*(.+)", line):
            processes[match[1]] = shlex.split(match[2])
    return processes


def _unit(name: str) -> dict[str, list[str]]:
    """A unit's settings, each a list of the values it is given (continued lines joined)."""
    settings: dict[str, list[str]] = {}
    text = (UNITS / name).read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


def _unit_command(name: str) -> list[str]:
    (exec_start,) = _unit(name)["ExecStart"]
    return shlex.split(exec_start.replace("%%", "%"))  # systemd's escape of %, which Celery's --hostname uses


def test_bin_serve_runs_the_supervisor_whose_services_are_compared() -> None:
    assert "exec $PY -m parlour.supervise" in (ROOT / "bin" / "serve").read_text()
    assert set(_make_serve()) == set(PROCFILE_PROCESSES.values()) == set(UNIT_PROCESSES.values())


@pytest.mark.parametrize("process", PROCFILE_PROCESSES)
def test_the_procfile_runs_each_process_as_make_serve_does(process: str) -> None:
    procfile = _procfile()
    assert set(procfile) == set(PROCFILE_PROCESSES), "web, worker, validation and beat, nothing else"
    assert _shape(procfile[process]) == _make_serve()[PROCFILE_PROCESSES[process]]


@pytest.mark.parametrize("unit", UNIT_PROCESSES)
def test_each_systemd_unit_runs_its_process_as_make_serve_does(unit: str) -> None:
    assert {path.name for path in UNITS.glob("*.service")} == set(UNIT_PROCESSES)
    assert _shape(_unit_command(unit)) == _make_serve()[UNIT_PROCESSES[unit]]


@pytest.mark.parametrize("unit", UNIT_PROCESSES)
def test_each_unit_restarts_always_with_the_settings_file_and_its_own_user(unit: str) -> None:
    settings = _unit(unit)
    assert settings["Restart"] == ["always"]
    assert settings["EnvironmentFile"] == ["/etc/parlour/parlour.env"]
    assert settings["PartOf"] == ["parlour.target"] and settings["WantedBy"] == ["parlour.target"]
    assert settings["User"] == (["root"] if unit in SANDBOXED else ["parlour"]), "root only where the sandbox runs"
    assert settings.get("NoNewPrivileges") == ["yes"]


@pytest.mark.parametrize("unit", sorted(SANDBOXED))
def test_the_workers_units_leave_the_sandbox_what_it_needs(unit: str) -> None:
    settings = _unit(unit)
    # bwrap creates user (and other) namespaces, names the bot's UTS namespace, and the sandbox writes cgroups.
    for forbidden in ("RestrictNamespaces", "PrivateUsers", "ProtectHostname", "ProtectControlGroups"):
        assert forbidden not in settings, f"{forbidden}= would break the bot sandbox"
    assert "ProtectKernelTunables" not in settings and "MemoryDenyWriteExecute" not in settings
    assert settings["Delegate"] == ["yes"], "the worker creates its bots' cgroups inside its own"
    # Restarted on a stall as by parlour/supervise.py: the heartbeat tells systemd (parlour/liveness.py).
    assert settings["Type"] == ["notify"] and settings["NotifyAccess"] == ["main"] and settings["WatchdogSec"]
    assert settings["KillMode"] == ["mixed"], "SIGTERM to the parent only: a warm shutdown"
    # The heartbeat file lies in the machine's own var dir, the state directory systemd creates.
    (var_dir,) = [value.split("=", 1)[1] for value in settings["Environment"][0].split() if "PARLOUR_VAR_DIR" in value]
    command = _unit_command(unit)
    heartbeat = Path(command[command.index("--heartbeat-file") + 1])
    assert heartbeat.parent.parent == Path(var_dir) == Path("/var/lib") / settings["StateDirectory"][0]
