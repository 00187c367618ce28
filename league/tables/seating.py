"""Who may sit at a person's table: the bots the ladder would play now (docs/tables.md, "Who may sit").

A bot is seatable when it is on the ladder (its owner has not disabled it), not paused for faults, its owner's
account is open (the league's built-in bots have a closed system account and are always on), and it has a ready
version: the one that sits. A pending or rejected upload never sits; while an older version is ready, that one sits,
as it does on the ladder. The rule is checked when the table is created and again when it starts, so a bot disabled,
paused or closed while the table waited does not play (and its "people beaten" record does not move).
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet

from league.bots import presence
from league.bots.models import Bot, BotVersion
from league.core.errors import BotUnavailable, BotVersionRejected, NoReadyVersion, ServiceError

# The versions that passed validation: the pinned one may have been replaced by a newer ready one (retired) meanwhile.
PLAYABLE_VERSIONS = (BotVersion.Status.READY, BotVersion.Status.RETIRED)


def on_the_ladder() -> Q:
    """The ladder's own rule (league.ladder.scheduling): active, not paused, an open account or a built-in bot."""
    return Q(is_active=True, paused_at__isnull=True) & (Q(owner__is_active=True) | Q(is_builtin=True))


def seatable(bots: QuerySet[Bot]) -> QuerySet[Bot]:
    """``bots`` narrowed to those a person may seat now."""
    ready = BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.READY)
    return bots.filter(on_the_ladder()).filter(Exists(ready))


def check_seatable(bot: Bot) -> BotVersion:
    """The version of ``bot`` that sits (its newest ready one), or a ServiceError saying why it cannot sit."""
    if not bot.is_active:
        raise BotUnavailable(bot=bot, why="its owner took it off the ladder")
    if bot.paused_at is not None:
        raise BotUnavailable(bot=bot, why="it is paused for faults")
    if not bot.is_builtin and not bot.owner.is_active:
        raise BotUnavailable(bot=bot, why="its owner's account is closed")
    version = bot.current_version()
    if version is not None:
        if not presence.is_online(bot):
            raise BotUnavailable(bot=bot, why="it is a remote bot and is not connected now")
        return version
    newest = bot.versions.order_by("-number").first()
    if newest is not None and newest.status == BotVersion.Status.REJECTED:
        raise BotVersionRejected(bot=bot)
    raise NoReadyVersion(bot=bot)


def still_seatable(bot_ids: list[int], version_ids: list[int]) -> str | None:
    """When the table starts: None if every bot may still sit with its pinned version, else why not (for the page)."""
    bots = {bot.pk: bot for bot in Bot.objects.select_related("owner").filter(pk__in=bot_ids)}
    playable = set(
        BotVersion.objects.filter(pk__in=version_ids, status__in=PLAYABLE_VERSIONS).values_list("pk", flat=True)
    )
    for bot_id, version_id in zip(bot_ids, version_ids, strict=True):
        bot = bots.get(bot_id)
        if bot is None:
            return "a bot at it was deleted"
        try:
            check_seatable(bot)
        except ServiceError as refusal:
            return refusal.message
        if version_id not in playable:
            return f"{bot}'s version at this table can no longer play"
    return None
