"""Small helpers shared by the benchmarks: statistics, the machine's description, and the results table.

Every benchmark prints its own figures and may also append them to a JSON-lines file (``--results FILE``) that
``bin/bench`` turns into one table at the end.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python bench/<name>.py` from anywhere
    sys.path.insert(0, str(ROOT))


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile by the nearest rank (p99 of 100 values is the largest but one)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "?"
    return f"{one:.1f} {five:.1f} {fifteen:.1f}"


def machine() -> str:
    """One line: CPU model, cores, memory, kernel, Python, and the load when it was asked."""
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
                break
    except OSError:
        pass
    return (
        f"{model}, {os.cpu_count()} cores, {memory}, Linux {platform.release()}, Python {platform.python_version()}; "
        f"load average {load_average()}"
    )


def record(path: str | None, section: str, figure: str, value: Any, unit: str = "", note: str = "") -> None:
    """Append one figure to the results file (JSON lines) when one was given."""
    if not path:
        return
    with open(path, "a", encoding="utf-8") as out:
        row = {"section": section, "figure": figure, "value": value, "unit": unit, "note": note}
        out.write(json.dumps(row) + "\n")


def table(rows: Sequence[Sequence[Any]], headings: Sequence[str], left: int = 1) -> str:
    """A plain fixed-width table: the first ``left`` columns left-aligned, the rest right-aligned."""
    cells = [[str(h) for h in headings]] + [[_cell(value) for value in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headings))]
    lines = []
    for n, row in enumerate(cells):
        parts = [
            value.ljust(width) if i < left else value.rjust(width)
            for i, (value, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if value >= 100:
            return f"{value:,.0f}"
        if value >= 10:
            return f"{value:.1f}"
        return f"{value:.2f}"
    return str(value)


class HelperProcess:
    """A helper process (``command``, run from ``cwd``) that reads one JSON request a line and answers one JSON line:
    how a benchmark times another copy of the code in the same run."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, request: Any) -> Any:
        """Send ``request`` (as JSON) and return the answer; exits the benchmark if the helper died."""
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the baseline copy failed on {request!r}")
        return json.loads(line)

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait(timeout=60)


class BaselineProcess(HelperProcess):
    """Another copy of the code (``--baseline DIR``) in a helper process run from ``root``: ``worker`` is a Python
    script (run with ``-c``) that answers the requests; ``source`` is passed as its argv[2]."""

    def __init__(self, root: Path, worker: str, source: str) -> None:
        super().__init__([sys.executable, "-c", worker, str(root), source], root)
