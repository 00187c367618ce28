from __future__ import annotations

from django.core.management.base import BaseCommand

from league.bots.services import do_register_builtin_bots


class Command(BaseCommand):
    help = "Register every game's built-in players as ready bots of the league (idempotent)."

    def handle(self, *args: object, **options: object) -> None:
        created = do_register_builtin_bots()
        self.stdout.write(f"registered {len(created)} new built-in bots")
