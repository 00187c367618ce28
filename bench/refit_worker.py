"""One code copy's incremental refit, on request, for ``bench/refit.py --rounds`` (old against new in one run).

    python bench/refit_worker.py TREE DATABASE [--profile]

Imports the league from ``TREE`` (this repository, or another copy such as ``git archive c6cc8d0``), connects to the
benchmark's ``DATABASE`` and, for each JSON line ``"refit"`` on stdin (``bench.common.HelperProcess.ask``), times
``fits.refit_game`` and prints one JSON line (seconds, this process's CPU seconds, Newton iterations; the CPU excludes
PostgreSQL's own). A process per copy: the two never share imported modules or caches.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import sys
import time
from pathlib import Path

GAME = "love_letter"


def main() -> None:
    tree, database = Path(sys.argv[1]).resolve(), sys.argv[2]
    profile = "--profile" in sys.argv[3:]
    # That copy's code, not this one's: first on the path, and the working directory (Celery's loader imports from
    # it while Django sets up; the bench runs this process there).
    sys.path.insert(0, str(tree))
    os.chdir(tree)
    from bench import infra

    infra.setup_django(database, migrate=False)
    from league.ratings import fits

    if not Path(fits.__file__).resolve().is_relative_to(tree):
        raise SystemExit(f"{fits.__file__} is not in {tree}")

    for line in sys.stdin:
        if json.loads(line) != "refit":
            continue
        profiler = cProfile.Profile() if profile else None
        if profiler is not None:
            profiler.enable()
        began, cpu = time.perf_counter(), time.process_time()
        fit = fits.refit_game(GAME)
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
        if profiler is not None:
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
        iterations = fit.iterations if fit is not None else -1
        print(json.dumps({"seconds": seconds, "cpu": cpu, "iterations": iterations}), flush=True)


if __name__ == "__main__":
    main()
