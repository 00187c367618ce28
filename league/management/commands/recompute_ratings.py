from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.registry import GAMES
from league.ratings.recompute import do_recompute_ratings

SHOWN = 20


class Command(BaseCommand):
    help = (
        "Recompute every rating from the match history (finished ladder matches in finish order, through the same "
        "ratings.rate_match the league uses) and compare it exactly with the stored ratings and rating changes. "
        "Exits with status 1 on any difference. Without --check, ratings that differ are rewritten from the history. "
        "The fitted Elo is refitted from cold and compared with the stored fit (when that fit saw the latest results)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="only compare: write nothing")
        parser.add_argument("--game", action="append", choices=list(GAMES), help="only this game (repeatable)")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        reports = do_recompute_ratings(options["game"], repair=not options["check"])
        differences = 0
        for report in reports:
            status = "equal" if not report.differences else f"{len(report.differences)} differences"
            self.stdout.write(
                f"{report.game}: {report.matches} rated matches, {report.changes} rating changes, "
                f"{report.bots} bots: {status}"
                + (f"; {report.repaired} ratings rewritten from the history" if report.repaired else "")
                + (f"; {report.fit}" if report.fit else "")
            )
            for line in report.differences[:SHOWN]:
                self.stdout.write(f"  {line}")
            if len(report.differences) > SHOWN:
                self.stdout.write(f"  … and {len(report.differences) - SHOWN} more")
            differences += len(report.differences)
        self.stdout.write(f"({time.monotonic() - started:.1f} s)")
        if differences:
            raise CommandError(f"{differences} differences between the stored ratings and the match history")
        self.stdout.write(self.style.SUCCESS("every stored rating equals the recomputation from the match history"))
