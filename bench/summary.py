"""Print the figures that the benchmarks appended to a results file (JSON lines) as one table, by section.

.venv/bin/python bench/summary.py RESULTS_FILE
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine, table

SECTIONS = ["engines", "sandbox", "match", "league", "site", "scaling", "fixes"]


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if line.strip()]
    order = {name: n for n, name in enumerate(SECTIONS)}
    rows.sort(key=lambda row: order.get(row["section"], len(SECTIONS)))
    print(f"# Parlour benchmarks: every figure. {machine()}")
    print(
        table(
            [[row["section"], row["figure"], row["value"], row["unit"], row["note"]] for row in rows],
            ["section", "figure", "value", "unit", "note"],
            left=2,
        )
    )


if __name__ == "__main__":
    main()
