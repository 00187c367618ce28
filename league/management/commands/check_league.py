from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.registry import GAMES
from league.play.invariants import RULES, check_league

SHOWN = 20


class Command(BaseCommand):
    help = (
        "Check the league's invariants (league/play/invariants.py): one set of rating changes per finished rated "
        "match, ratings equal to the replay of their changes, Elo conserved by every match, no running match without a "
        "live claim, no queued match left behind. Writes nothing; exits with status 1 on any violation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", choices=list(GAMES), help="only this game (repeatable)")
        parser.add_argument(
            "--grace",
            type=float,
            default=None,
            help="seconds a lapsed lease or a lost message may wait for the sweeper (default: two sweeps)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        report = check_league(options["game"], grace_seconds=options["grace"])
        for rule in RULES:
            found = [violation for violation in report.violations if violation.rule == rule]
            status = "ok" if not found else f"{len(found)} VIOLATIONS"
            self.stdout.write(f"{rule:15} {report.checked.get(rule, 0):8} checked  {status}")
            for violation in found[:SHOWN]:
                self.stdout.write(f"    {violation.message}")
            if len(found) > SHOWN:
                self.stdout.write(f"    … and {len(found) - SHOWN} more")
        self.stdout.write(f"({time.monotonic() - started:.1f} s)")
        if report.violations:
            raise CommandError(f"{len(report.violations)} violations of the league's invariants")
        self.stdout.write(self.style.SUCCESS("the league's records are consistent"))
