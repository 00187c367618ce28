"""Tournaments: staff create, start, pause, resume and cancel them; rounds advance as their games finish.

Every write is a ``do_<verb>_<noun>`` function here (the services' conventions: refusals from the error catalog,
league/core/errors.py; one transaction each, tasks enqueued by name on commit). The formats themselves — schedules,
pairings, brackets, seats, points, tie-breaks — are pure functions in ``league.tournaments.formats``; this module
loads the records, asks them, and stores the answer. Rules for people: docs/tournaments.md.

How a tournament moves: ``do_start_tournament`` pins every entrant's version, seeds them by Elo and creates round 1's
matches. Each recorded (or failed) tournament match enqueues ``parlour.advance_tournament``, and Celery beat runs it
for every running tournament as a safety net. ``do_advance_tournament`` is idempotent: under a lock on the
tournament it refreshes the standings, applies forfeits, creates a knockout series' next games, and when every
game of the round is finalized it closes the round and creates the next one (or finishes the tournament).

A remote bot that is offline when its games are created is not seated in them (the ladder's rule: docs/remote.md): it
is absent from its table for the round (round robin, Swiss: its opponents score as if it came last), or from its
knockout series, which it then cannot win. The plan's table records it under ``offline``, the page says so.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games.registry import GAMES
from league.bots import presence
from league.bots.models import Bot, BotVersion
from league.core import outbox
from league.core.errors import (
    AlreadyEntered,
    AlreadyFinished,
    AlreadyPaused,
    AlreadyStarted,
    EnteredTwice,
    EntrantsOfAnotherGame,
    InvalidOptions,
    InvalidSettings,
    NoSuchTournament,
    NotDraft,
    NotEntered,
    NotPaused,
    SameOwner,
    ServiceError,
    TooFewEntrants,
    TournamentNameMissing,
    TournamentNotRunning,
    UnknownBots,
    UnknownGame,
    UnknownVersion,
    UnplayableEntrants,
    VersionRejected,
    VersionUnvalidated,
)
from league.play.matches import do_create_match
from league.play.models import Match, fault_label
from league.tournaments import formats as tf
from league.tournaments.models import Entry, Round, Tournament
from league.tournaments.queries import TournamentRecords, standings

log = logging.getLogger(__name__)

USABLE_VERSIONS = (BotVersion.Status.READY, BotVersion.Status.RETIRED)  # both passed validation


def _enqueue_advance(tournament_id: int) -> None:
    outbox.enqueue(outbox.ADVANCE_TOURNAMENT_TASK, tournament_id)  # on commit, by name, like every league task


# ----- setting up ---------------------------------------------------------------------------------------------


def check_settings(game: str, fmt: str, data: dict[str, Any] | None) -> tf.Settings:
    """The settings checked for ``game`` and ``fmt`` (400 with the reason), every default filled in."""
    if game not in GAMES:
        raise UnknownGame(game=game)
    spec = GAMES[game]
    try:
        checked = tf.parse_settings(data, fmt, spec.min_players, spec.max_players)
    except tf.FormatError as error:
        raise InvalidSettings(reason=str(error)) from None
    if checked.options:
        try:
            spec.new_state(checked.table_size, 0, dict(checked.options))
        except ValueError as error:  # InvalidOptions, or an engine's own check
            raise InvalidOptions(reason=str(error)) from None
    return checked


def _bots(game: str, bots: Iterable[Bot | int]) -> list[Bot]:
    ids = [bot.pk if isinstance(bot, Bot) else bot for bot in bots]
    if len(set(ids)) != len(ids):
        raise EnteredTwice()
    found = {bot.pk: bot for bot in Bot.objects.filter(pk__in=ids).select_related("owner")}
    if missing := [bot_id for bot_id in ids if bot_id not in found]:
        raise UnknownBots(bot_ids=missing)
    if others := [found[bot_id] for bot_id in ids if found[bot_id].game != game]:
        raise EntrantsOfAnotherGame(game=game, bots=others)
    return [found[bot_id] for bot_id in ids]


def check_owners(bots: Iterable[Bot], rated: bool, allow_same_owner: bool = False) -> None:
    """A rated tournament takes one bot per owner (400 ``same_owner``, naming them), unless staff allowed it: the
    games between two bots of one owner change Elo, and one could throw them to the other. Built-in players are
    nobody's (several may enter); an unrated tournament takes any bots."""
    if not rated or allow_same_owner:
        return
    by_owner: dict[int, list[Bot]] = defaultdict(list)
    for bot in bots:
        if not bot.is_builtin:
            by_owner[bot.owner_id].append(bot)
    if clashes := [group for group in by_owner.values() if len(group) > 1]:
        names = "; ".join(", ".join(str(bot) for bot in group) for group in clashes)
        raise SameOwner(names=names)


def do_create_tournament(
    user: AbstractBaseUser | None,
    game: str,
    name: str,
    fmt: str,
    settings: dict[str, Any] | None = None,
    bots: Iterable[Bot | int] = (),
    rated: bool = False,
    allow_same_owner: bool = False,
) -> Tournament:
    """A draft tournament with its entrants. Nothing is stored if anything is wrong (400)."""
    name = (name or "").strip()
    if not name:
        raise TournamentNameMissing()
    checked = check_settings(game, fmt, settings)
    entrants = _bots(game, bots)
    check_owners(entrants, bool(rated), allow_same_owner)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            game=game,
            name=name[:100],
            format=fmt,
            settings=checked.to_json(),
            rated=bool(rated),
            allow_same_owner=bool(allow_same_owner),
            seed=secrets.randbits(63),  # a secret: every game seed is derived from it one way (tf.match_seed)
            created_by_id=user.pk if user is not None and user.is_authenticated else None,
        )
        Entry.objects.bulk_create(Entry(tournament=tournament, bot=bot) for bot in entrants)
    return tournament


def _lock(tournament: Tournament | int) -> Tournament:
    tournament_id = tournament.pk if isinstance(tournament, Tournament) else tournament
    found = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if found is None:
        raise NoSuchTournament()
    return found


def _draft(tournament: Tournament | int) -> Tournament:
    locked = _lock(tournament)
    if locked.status != Tournament.Status.DRAFT:
        raise NotDraft(state=locked.status)
    return locked


def do_update_tournament(
    tournament: Tournament | int,
    name: str | None = None,
    fmt: str | None = None,
    settings: dict[str, Any] | None = None,
    rated: bool | None = None,
    bots: Iterable[Bot | int] | None = None,
    allow_same_owner: bool | None = None,
) -> Tournament:
    """Change a draft: its name, format, settings, ``rated``, ``allow_same_owner``, or the whole list of entrants
    (409 once started; 400 and nothing changed if the result breaks the one-bot-per-owner rule)."""
    with transaction.atomic():
        locked = _draft(tournament)
        if name is not None:
            if not name.strip():
                raise TournamentNameMissing()
            locked.name = name.strip()[:100]
        locked.format = fmt or locked.format
        locked.settings = check_settings(
            locked.game, locked.format, locked.settings if settings is None else settings
        ).to_json()
        if rated is not None:
            locked.rated = rated
        if allow_same_owner is not None:
            locked.allow_same_owner = allow_same_owner
        locked.save()
        if bots is not None:
            entrants = _bots(locked.game, bots)
            keep = {bot.pk for bot in entrants}
            locked.entries.exclude(bot_id__in=keep).delete()
            have = set(locked.entries.values_list("bot_id", flat=True))
            Entry.objects.bulk_create(Entry(tournament=locked, bot=bot) for bot in entrants if bot.pk not in have)
        check_owners(_entrants(locked), locked.rated, locked.allow_same_owner)  # (raising undoes the changes)
    return locked


def _entrants(tournament: Tournament) -> list[Bot]:
    return list(Bot.objects.filter(tournament_entries__tournament=tournament).select_related("owner").order_by("id"))


def do_add_entry(tournament: Tournament | int, bot: Bot | int, version: BotVersion | int | None = None) -> Entry:
    """Enter a bot in a draft; ``version`` pins one of its versions (else its newest ready one, at the start)."""
    with transaction.atomic():
        locked = _draft(tournament)
        (found,) = _bots(locked.game, [bot])
        pinned = None
        if version is not None:
            version_id = version.pk if isinstance(version, BotVersion) else version
            pinned = BotVersion.objects.filter(pk=version_id, bot=found).first()
            if pinned is None:
                raise UnknownVersion(bot=found, version_id=version_id)
            _check_version(pinned)
        entry, created = Entry.objects.get_or_create(tournament=locked, bot=found, defaults={"bot_version": pinned})
        if not created:
            raise AlreadyEntered(bot=found)
        check_owners(_entrants(locked), locked.rated, locked.allow_same_owner)
    return entry


def do_remove_entry(tournament: Tournament | int, bot: Bot | int) -> None:
    with transaction.atomic():
        locked = _draft(tournament)
        deleted, _ = locked.entries.filter(bot_id=bot.pk if isinstance(bot, Bot) else bot).delete()
        if not deleted:
            raise NotEntered()


def _check_version(version: BotVersion) -> None:
    if version.status == BotVersion.Status.REJECTED:
        raise VersionRejected(version=version)
    if version.status not in USABLE_VERSIONS:
        raise VersionUnvalidated(version=version)


# ----- starting -----------------------------------------------------------------------------------------------


def do_start_tournament(tournament: Tournament | int) -> Tournament:
    """Pin every entrant's version, seed by Elo, plan and create round 1 — all in one transaction.

    409 if it is not a draft; 400 (and nothing changed) for too few entrants, entrants of another game, versions
    that are rejected or not validated, or a format the entrants cannot fill."""
    with transaction.atomic():
        locked = _lock(tournament)
        if locked.status != Tournament.Status.DRAFT:
            raise AlreadyStarted(state=locked.status)
        checked = check_settings(locked.game, locked.format, locked.settings)
        spec = GAMES[locked.game]
        entries = list(
            locked.entries.select_related("bot__owner", "bot__rating", "bot__fitted", "bot_version").order_by("id")
        )
        needed = tf.minimum_entrants(locked.format, checked)
        if len(entries) < needed:
            raise TooFewEntrants(
                format_name=locked.get_format_display(),
                table_size=checked.table_size,
                needed=needed,
                entrants=len(entries),
            )
        if others := [entry.bot for entry in entries if entry.bot.game != locked.game]:
            raise EntrantsOfAnotherGame(game=locked.game, bots=others)
        check_owners([entry.bot for entry in entries], locked.rated, locked.allow_same_owner)
        _pin_versions(entries)
        entries.sort(key=lambda entry: (-entry.bot.shown_elo, entry.pk))  # seeded by the Elo the league shows
        for seed, entry in enumerate(entries, start=1):
            entry.seed = seed
        seeded = [entry.pk for entry in entries]
        rng = random.Random(locked.seed)
        try:
            if locked.format == Tournament.Format.ROUND_ROBIN:
                plans = tf.round_robin_schedule(seeded, checked.table_size, spec.min_players, rng)
                locked.planned_rounds = len(plans)
            elif locked.format == Tournament.Format.SWISS:
                state = tf.SwissState(ranking=seeded, scores={}, met={}, byes={})
                plans = [tf.swiss_round(state, checked.table_size, spec.min_players)]
                locked.planned_rounds = tf.swiss_rounds(checked, len(seeded))
            else:
                sizes = tf.knockout_round_sizes(len(seeded), checked.table_size, checked.advance, spec.min_players)
                plans = [tf.knockout_first_round(seeded, checked, spec.min_players)]
                locked.planned_rounds = len(sizes)
        except tf.FormatError as error:
            raise InvalidSettings(reason=str(error)) from None
        Entry.objects.bulk_update(entries, ["bot_version", "seed"])
        locked.status = Tournament.Status.RUNNING
        locked.settings = checked.to_json()
        locked.started_at = timezone.now()
        locked.save(update_fields=["status", "settings", "started_at", "planned_rounds"])
        Round.objects.bulk_create(
            Round(tournament=locked, number=number, plan=_plan_json(plan)) for number, plan in enumerate(plans, 1)
        )
        context = TournamentRecords.load(locked)
        _start_round(context, context.rounds[0])
        _refresh_standings(context)
    return locked


def _pin_versions(entries: list[Entry]) -> None:
    newest: dict[int, BotVersion] = {}
    for version in BotVersion.objects.filter(
        bot_id__in=[entry.bot_id for entry in entries], status=BotVersion.Status.READY
    ).order_by("bot_id", "-number"):
        newest.setdefault(version.bot_id, version)
    problems = []
    for entry in entries:
        if entry.bot_version is not None:
            try:
                _check_version(entry.bot_version)
            except ServiceError as error:
                problems.append(error.message)
            continue
        entry.bot_version = newest.get(entry.bot_id)
        if entry.bot_version is None:
            latest = entry.bot.versions.order_by("-number").first()
            why = f"its newest version is {latest.status}" if latest else "it has no versions"
            problems.append(f"{entry.bot} has no version that passed validation ({why})")
    if problems:
        raise UnplayableEntrants(problems=problems)


def _plan_json(plan: tf.RoundPlan) -> dict[str, Any]:
    data: dict[str, Any] = {
        "tables": [{"entries": list(table), "absent": [], "walkover": False, "games": 0} for table in plan.tables],
        "byes": list(plan.byes),
    }
    if plan.bracket is not None:
        data["bracket"] = [list(group) for group in plan.bracket]
    return data


def _round_plan(data: dict[str, Any]) -> tf.RoundPlan:
    return tf.RoundPlan(
        tables=[list(table["entries"]) for table in data.get("tables", [])],
        byes=list(data.get("byes", [])),
        bracket=data.get("bracket"),
    )


# ----- pausing, resuming, cancelling --------------------------------------------------------------------------


def do_pause_tournament(tournament: Tournament | int) -> Tournament:
    """No new games start (the ones already queued still play) until it is resumed."""
    with transaction.atomic():
        locked = _lock(tournament)
        if locked.status != Tournament.Status.RUNNING:
            raise TournamentNotRunning(state=locked.status)
        if locked.paused:
            raise AlreadyPaused()
        locked.paused = True
        locked.save(update_fields=["paused"])
    return locked


def do_resume_tournament(tournament: Tournament | int) -> Tournament:
    with transaction.atomic():
        locked = _lock(tournament)
        if locked.status != Tournament.Status.RUNNING or not locked.paused:
            raise NotPaused()
        locked.paused = False
        locked.save(update_fields=["paused"])
        _enqueue_advance(locked.pk)  # whatever finished while it was paused may complete a round
    return locked


def do_cancel_tournament(tournament: Tournament | int) -> Tournament:
    """Stop a draft or running tournament for good. Its queued games are withdrawn (marked failed); a game being
    played finishes and is kept on record, but nothing more is scheduled."""
    with transaction.atomic():
        locked = _lock(tournament)
        if locked.is_finalized():
            raise AlreadyFinished(state=locked.status)
        now = timezone.now()
        Match.objects.filter(round__tournament=locked, status=Match.Status.QUEUED).update(
            status=Match.Status.FAILED, error="withdrawn: the tournament was cancelled", finished_at=now
        )
        if locked.status == Tournament.Status.RUNNING:
            _refresh_standings(TournamentRecords.load(locked))  # as they stand: the record of what was played
        locked.status = Tournament.Status.CANCELLED
        locked.paused = False
        locked.finished_at = now
        locked.save(update_fields=["status", "paused", "finished_at"])
    return locked


# ----- advancing ----------------------------------------------------------------------------------------------


def do_advance_tournament(tournament_id: int) -> Tournament | None:
    """Bring a running tournament up to date; idempotent, and safe to run twice at once (the second waits for the
    first's lock and then finds nothing to do). Returns the tournament, or None if there is no such one."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return tournament
        if tournament.format != Tournament.Format.KNOCKOUT and _games_in_flight(tournament):
            # The round is still being played and nothing can change before it ends (its games were all created at
            # its start; forfeits only affect later rounds): skip the work. Pages compute live standings on read.
            return tournament
        context = TournamentRecords.load(tournament)
        _apply_forfeits(context)
        if not tournament.paused:
            while _step(context):
                pass
        _refresh_standings(context)
    return tournament


def _games_in_flight(tournament: Tournament) -> bool:
    return Match.objects.filter(
        round__tournament=tournament, status__in=(Match.Status.QUEUED, Match.Status.RUNNING)
    ).exists()


def do_advance_running_tournaments() -> list[int]:
    """Celery beat's safety net: advance every running tournament (a lost task delivery costs only a delay)."""
    ids = list(Tournament.objects.filter(status=Tournament.Status.RUNNING, paused=False).values_list("pk", flat=True))
    for tournament_id in ids:
        do_advance_tournament(tournament_id)
    return ids


def _current(context: TournamentRecords) -> Round | None:
    for round_ in context.rounds:
        if round_.status != Round.Status.FINISHED:
            return round_
    return None


def _step(context: TournamentRecords) -> bool:
    """One move forward (start games, close a round, open the next, finish); False when there is nothing to do."""
    round_ = _current(context)
    if round_ is None:
        return _finish(context)
    if round_.status == Round.Status.PENDING:
        _start_round(context, round_)
        return True
    tables = context.table_matches(round_)
    if context.tournament.format == Tournament.Format.KNOCKOUT:
        created = False
        for index in range(len(round_.plan["tables"])):
            created |= _advance_series(context, round_, index, tables.get(index, []))
        if created:
            return True
        if not all("advancers" in table for table in round_.plan["tables"]):
            return False
    elif not all(match.is_finalized() for matches in tables.values() for match in matches):
        return False
    round_.status = Round.Status.FINISHED
    round_.finished_at = timezone.now()
    round_.save(update_fields=["status", "finished_at", "plan"])
    following = _next_plan(context, round_)
    if following is not None:
        context.rounds.append(
            Round.objects.create(tournament=context.tournament, number=round_.number + 1, plan=_plan_json(following))
        )
    return True


def _finish(context: TournamentRecords) -> bool:
    tournament = context.tournament
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = timezone.now()
    tournament.save(update_fields=["status", "finished_at"])
    log.info("tournament %s finished", tournament.pk)
    return False


def _start_round(context: TournamentRecords, round_: Round) -> None:
    """Create a round's games: every table's games (round robin, Swiss) or each series' first games (knockout)."""
    round_.status = Round.Status.RUNNING
    round_.started_at = timezone.now()
    forfeited = context.forfeited()
    if context.tournament.format == Tournament.Format.KNOCKOUT:
        for index in range(len(round_.plan["tables"])):
            _advance_series(context, round_, index, [])
        round_.save(update_fields=["status", "started_at", "plan"])
        return
    counts = context.seat_counts()
    settings = context.settings
    two_player_rr = context.tournament.format == Tournament.Format.ROUND_ROBIN and settings.table_size == 2
    offline = _offline(context) - forfeited
    games: list[tuple[list[int], int]] = []
    for index, table in enumerate(round_.plan["tables"]):
        seated = [entry for entry in table["entries"] if entry not in forfeited and entry not in offline]
        table["absent"] = [entry for entry in table["entries"] if entry not in seated]
        table["offline"] = [entry for entry in table["entries"] if entry in offline]
        table["games"] = settings.games_per_pairing
        if len(seated) < max(2, context.min_players):
            table["walkover"] = True  # too few left to play: those left score as if they had all tied
            continue
        orders = tf.seat_orders(
            seated,
            counts,
            settings.games_per_pairing,
            settings.duplicate,
            planned=two_player_rr and not table["absent"],
        )
        for game, rotations in enumerate(orders):
            seed = tf.match_seed(context.tournament.seed, round_.number, index, game)
            games += [(order, seed) for order in rotations]
    _create_matches(context, round_, games)
    round_.save(update_fields=["status", "started_at", "plan"])


def _create_matches(context: TournamentRecords, round_: Round, games: list[tuple[list[int], int]]) -> None:
    """Queue one match per (seat order, seed), linked to ``round_`` before the transaction commits (and so before
    ``run_match``, enqueued on commit, can see them)."""
    created = [
        do_create_match(
            context.tournament.game,
            [context.entries[entry].bot_version for entry in order],  # type: ignore[misc]
            seed=seed,
            options=dict(context.settings.options),
            kind=Match.Kind.TOURNAMENT,
            time_control=dict(context.settings.time_control) or None,
        ).pk
        for order, seed in games
    ]
    Match.objects.filter(pk__in=created).update(round=round_)
    context.add_matches(round_, created)


def _series(context: TournamentRecords, round_: Round, index: int, matches: list[Match]) -> tf.Series:
    table = round_.plan["tables"][index]
    points: dict[int, float] = {}
    played = 0.0
    for match in matches:
        if match.status != Match.Status.FINISHED:
            continue
        for entry, value in tf.game_points(len(table["entries"]), context.ranks(match)).items():
            points[entry] = points.get(entry, 0) + value * context.weight(match)
        played += context.weight(match)
    out = context.forfeited() | set(table.get("offline", []))  # an entrant offline once its games were due: no-show
    return tf.Series(
        entries=table["entries"],
        points=dict(points),
        legs_played=played,
        legs_created=table.get("games", 0),
        eligible=[entry for entry in table["entries"] if entry not in out],
    )


def _advance_series(context: TournamentRecords, round_: Round, index: int, matches: list[Match]) -> bool:
    """Decide a knockout table once its games are all finalized, or create its next games; True if it created."""
    table = round_.plan["tables"][index]
    if "advancers" in table or not all(match.is_finalized() for match in matches):
        return False
    series = _series(context, round_, index, matches)
    final = len(round_.plan.get("bracket", round_.plan["tables"])) == 1
    advance = 1 if final else context.settings.advance
    decision = tf.decide_series(series, context.settings.best_of, advance, context.min_players)
    if not decision.decided and (offline := [entry for entry in series.eligible if entry in _offline(context)]):
        # Games are due and some of the table are not connected: they are not seated, and so cannot go through.
        table["offline"] = [*table.get("offline", []), *offline]
        series = replace(series, eligible=[entry for entry in series.eligible if entry not in offline])
        decision = tf.decide_series(series, context.settings.best_of, advance, context.min_players)
    if decision.decided:
        table["advancers"] = decision.advancers
        table["points"] = {str(entry): round(value, 4) for entry, value in series.points.items()}
        if final:  # the final ranks everyone at its table: points, then seed
            rank = {entry: i for i, entry in enumerate(series.entries)}
            table["order"] = sorted(series.entries, key=lambda e: (-series.points.get(e, 0.0), rank[e]))
        out = [entry for entry in table["entries"] if entry not in decision.advancers]
        for entry in out:
            context.entries[entry].eliminated_in = round_.number
        Entry.objects.filter(pk__in=out).update(eliminated_in=round_.number)
        round_.save(update_fields=["plan"])
        return False
    counts = context.seat_counts()
    first = table.get("games", 0)
    table["games"] = first + decision.legs_to_create
    table["absent"] = [entry for entry in table["entries"] if entry not in series.eligible]
    orders = tf.seat_orders(list(series.eligible), counts, decision.legs_to_create, context.settings.duplicate)
    games = []
    for offset, rotations in enumerate(orders):
        seed = tf.match_seed(context.tournament.seed, round_.number, index, first + offset)
        games += [(order, seed) for order in rotations]
    _create_matches(context, round_, games)
    round_.save(update_fields=["plan"])
    return True


def _offline(context: TournamentRecords) -> set[int]:
    """The entries whose bot is remote and not connected now (league/bots/presence.py): not seated in the games
    created now. One round trip to Redis, and none for a tournament without remote bots."""
    remote = {entry_id: entry.bot_id for entry_id, entry in context.entries.items() if entry.bot.is_remote}
    connected = presence.online(remote.values()) if remote else set()
    return {entry_id for entry_id, bot_id in remote.items() if bot_id not in connected}


def _next_plan(context: TournamentRecords, finished: Round) -> tf.RoundPlan | None:
    """The round after ``finished``: None when the tournament is over (or a round robin's rounds are all planned)."""
    tournament, settings = context.tournament, context.settings
    forfeited = context.forfeited()
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        return None  # every round was planned at the start
    if tournament.format == Tournament.Format.KNOCKOUT:
        plan = _round_plan(finished.plan)
        advancers: dict[int, list[int]] = {}
        decided = iter(finished.plan["tables"])
        for group_index, group in enumerate(plan.bracket or []):
            if len(group) == 1:
                advancers[group_index] = [] if group[0] in forfeited else list(group)
            else:
                advancers[group_index] = list(next(decided)["advancers"])
        return tf.knockout_next_round(plan, advancers, context.seeded, settings, context.min_players)
    if finished.number >= tournament.planned_rounds:
        return None
    eligible = [entry for entry in context.seeded if entry not in forfeited]
    if len(eligible) < max(2, context.min_players):
        return None
    rows = {row.entry: row for row in standings(context)}
    ranking = sorted(eligible, key=lambda e: (-rows[e].score, context.entries[e].seed or 0))
    met: Counter[tf.Pair] = Counter()
    byes: Counter[int] = Counter()
    for round_ in context.rounds:
        for table in round_.plan.get("tables", []):
            met.update(tf.pairs_of([e for e in table["entries"] if e not in table.get("absent", [])]))
        byes.update(round_.plan.get("byes", []))
    state = tf.SwissState(ranking=ranking, scores={e: rows[e].score for e in eligible}, met=met, byes=byes)
    return tf.swiss_round(state, settings.table_size, context.min_players)


# ----- forfeits -----------------------------------------------------------------------------------------------


def _apply_forfeits(context: TournamentRecords) -> None:
    """An entrant that faulted in its last ``forfeit_after`` finished games in a row forfeits: it gets no more games
    (a knockout series goes to the others; round robin opponents score as if it had come last)."""
    limit = context.settings.forfeit_after
    if not limit:
        return
    history: dict[int, list[tuple[Any, int, str]]] = defaultdict(list)
    for matches in context.matches.values():
        for match in matches:
            if match.status != Match.Status.FINISHED:
                continue
            for seat in match.seats.all():
                history[context.entry_of(seat)].append((match.finished_at, match.pk, seat.fault))
    for entry_id, games in history.items():
        entry = context.entries[entry_id]
        if entry.forfeited:
            continue
        last = [fault for _at, _match, fault in sorted(games)[-limit:]]
        if len(last) == limit and all(last):
            causes = ", ".join(f"{fault_label(c)}: {n}" for c, n in Counter(last).most_common())
            entry.forfeited = True
            entry.forfeit_reason = f"Forfeited: faulted in its last {limit} games in a row ({causes})."
            entry.save(update_fields=["forfeited", "forfeit_reason"])
            log.info("tournament %s: entry %s forfeits", context.tournament.pk, entry_id)


def _refresh_standings(context: TournamentRecords) -> None:
    changed = []
    for row in standings(context):
        entry = context.entries[row.entry]
        new = (row.position, row.score, round(row.games, 6), row.tiebreaks)
        if (entry.position, entry.score, entry.games, entry.tiebreaks) != new:
            entry.position, entry.score, entry.games, entry.tiebreaks = new
            changed.append(entry)
    for entry in changed:  # usually a few rows: plain UPDATEs are cheaper than bulk_update's CASE expressions
        entry.save(update_fields=["position", "score", "games", "tiebreaks"])
