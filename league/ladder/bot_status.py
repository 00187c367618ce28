"""A bot's status in plain words, for the banner at the top of its page and its owner's list of bots."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from league.bots.models import Bot, BotVersion
from league.bots.services import AWAITING_CONNECTION
from league.ladder.placement import Placement

# States that change by themselves (a worker is on it): the banner asks again until it leaves them.
UNSETTLED = frozenset({"pending", "validating", "placing"})


@dataclass(frozen=True)
class BotStatus:
    state: str  # pending, validating, rejected, paused, placing, off, ready
    title: str
    detail: str
    stderr: str = ""  # the rejected version's stderr: shown to the owner only

    @property
    def settled(self) -> bool:
        return self.state not in UNSETTLED


def bot_status(bot: Bot, versions: Sequence[BotVersion], placement: Placement | None = None) -> BotStatus:
    """The status of ``bot`` from its versions (newest first) and its newest placement (``placement_progress``). The
    newest upload speaks first (its validation is what its author waits for), then a pause, then its placement
    burst while it runs, then whether it plays."""
    newest = versions[0] if versions else None
    ready = next((v for v in versions if v.status == BotVersion.Status.READY), None)
    meanwhile = f" v{ready.number} keeps playing meanwhile." if ready else ""
    if newest is None or newest.status == BotVersion.Status.PENDING:
        number = f"v{newest.number}" if newest else "Its first version"
        if newest is not None and newest.lease_until is not None:
            return BotStatus("validating", f"Validating {number}", "Its smoke match is running." + meanwhile)
        if newest is not None and newest.remote and newest.enqueued_at == AWAITING_CONNECTION:
            return BotStatus(
                "pending", f"{number} is waiting for its first connection", "Its smoke match starts when it connects."
            )
        return BotStatus("pending", f"{number} is waiting for validation", "Its smoke match starts soon." + meanwhile)
    if newest.status == BotVersion.Status.REJECTED:
        still = f" v{ready.number} still plays on the ladder." if ready else " It does not play until a version passes."
        reason = (newest.validation_log or "The validation gave no reason").rstrip(".") + "."
        return BotStatus("rejected", f"v{newest.number} was rejected", reason + still, newest.validation_stderr)
    if bot.paused_at is not None:
        return BotStatus("paused", "Paused", bot.paused_reason or "Paused for faults.")
    if placement is not None and not placement.done and ready is not None and placement.version == ready.number:
        rank = f"Rank so far {ordinal(placement.rank)}." if placement.rank else "Not ranked yet."
        progress = f"{placement.played} of {placement.planned} games"
        return BotStatus("placing", f"Placing v{placement.version}: {progress}", rank)
    if not bot.is_active:
        return BotStatus("off", "Off the ladder", "It is not scheduled; its owner can put it back.")
    playing = ready.number if ready else newest.number
    return BotStatus("ready", f"Ready: v{playing} plays on the ladder", "")


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st..."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"
