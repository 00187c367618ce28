"""The league's records. Writes go through ``league.services``; nothing else saves these models."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import models
from django.urls import reverse
from django.utils import timezone

from bots.results import FaultCause
from games.registry import GAMES
from league import ratings
from league.lease_models import Leased
from league.replay_data import pack_replay, unpack_replay


def game_choices() -> list[tuple[str, str]]:
    return [(game_id, GAMES[game_id].title) for game_id in GAMES]


class Bot(models.Model):
    """A bot: one owner, one game. It evolves by versions; its rating belongs to the bot, not to one version."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    game = models.CharField(max_length=40, choices=game_choices)
    name = models.SlugField(max_length=40, help_text="Letters, digits, - and _; unique per owner and game.")
    description = models.CharField(max_length=200, blank=True)
    is_builtin = models.BooleanField(default=False, help_text="One of the league's own built-in players.")
    is_active = models.BooleanField(default=True, help_text="Inactive bots are not scheduled on the ladder.")
    created = models.DateTimeField(auto_now_add=True)
    # Paused automatically when it faults too often (LADDER_FAULT_LIMIT of the last LADDER_FAULT_WINDOW matches);
    # a new ready version or its owner's "resume" clears it, and faults before ``fault_window_start`` are forgiven.
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_reason = models.TextField(blank=True)
    fault_window_start = models.DateTimeField(null=True, blank=True)
    # The ladder scheduler's bookkeeping: seats taken per table size ({"3": [n0, n1, n2]}) and the last scheduling.
    ladder_seats = models.JSONField(default=dict, blank=True)
    last_scheduled = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "game", "name"], name="bot_unique_name")]
        indexes = [models.Index(fields=["game", "is_active"], name="bot_game_active")]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return f"{self.owner.username}/{self.name}"

    def get_absolute_url(self) -> str:
        return reverse("bot", args=[self.pk])

    @property
    def is_paused(self) -> bool:
        return self.paused_at is not None

    @property
    def shown_elo(self) -> float:
        """The one Elo the league shows and orders by: the fitted one once the bot is fitted, else the online one
        (1500 before its first game). Select ``fitted`` and ``rating`` with the bot: this reads both."""
        for source in ("fitted", "rating"):
            try:
                return float(getattr(self, source).elo)
            except ObjectDoesNotExist:  # not fitted yet / no game yet
                continue
        return ratings.INITIAL_ELO

    def current_version(self) -> BotVersion | None:
        """The newest ready version: the one the ladder plays."""
        return self.versions.filter(status=BotVersion.Status.READY).order_by("-number").first()


class BotVersion(Leased):
    """One upload of a bot's code. The archive lives in the database so every worker machine can read it."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        """Uploaded; the validation smoke match has not finished yet."""
        READY = "ready", "ready"
        """Passed validation: plays on the ladder."""
        REJECTED = "rejected", "rejected"
        """Failed validation; ``validation_log`` says why."""
        RETIRED = "retired", "retired"
        """Was ready; a newer version has replaced it on the ladder (its matches and rating history stay)."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # Exactly one of: the name of a built-in player, or an uploaded archive (a normalised zip).
    builtin = models.CharField(max_length=40, blank=True)
    archive = models.BinaryField(null=True, blank=True, editable=False)
    language = models.CharField(max_length=20, blank=True)
    archive_size = models.PositiveIntegerField(default=0)
    validation_log = models.TextField(blank=True)
    validation_stderr = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    validated = models.DateTimeField(null=True, blank=True)
    # (The validation's claim: ``Leased``, as a match's; league/services/leases.py.)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="version_unique_number")]
        ordering = ["bot", "-number"]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"

    @property
    def label(self) -> str:
        return f"{self.bot.owner.username}/{self.bot.name} v{self.number}"


class Match(Leased):
    """One game between seats of bot versions, run once by a worker."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        """Created and sent to the queue; no worker has claimed it yet."""
        RUNNING = "running", "running"
        """Claimed by a worker (``claimed_at``); re-queued if the worker dies."""
        FINISHED = "finished", "finished"
        """Played; seats, replay and rating changes are recorded."""
        FAILED = "failed", "failed"
        """Could not be played after ``MATCH_MAX_ATTEMPTS`` attempts; ``error`` says why."""

        @classmethod
        def finalized(cls) -> set[str]:
            return {cls.FINISHED, cls.FAILED}

    class Kind(models.TextChoices):
        LADDER = "ladder", "ladder"
        CHALLENGE = "challenge", "challenge"
        TOURNAMENT = "tournament", "tournament"
        """A game of a tournament round (``round``); it changes Elo only if its tournament is ``rated``."""
        PLACEMENT = "placement", "placement"
        """A rated game of a new version's placement burst (league/services/placement.py); rated like the ladder."""

    game = models.CharField(max_length=40, choices=game_choices)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.LADDER)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    engine_version = models.CharField(max_length=20)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    # The claim is ``Leased``'s (league/services/leases.py): a result is recorded only under the token it claimed
    # with, so a worker that lost its claim (presumed dead, the match re-run elsewhere) cannot overwrite the re-run.
    # Also when and by which worker (host and process) it was claimed.
    claimed_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True, editable=False, help_text="worker host and process")
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    wall_ms = models.PositiveIntegerField(null=True, blank=True)
    replay_data = models.BinaryField(null=True, blank=True, editable=False)
    # When the bots' logs (seats' stderr, the notes on moves) were deleted, LOG_RETENTION_DAYS after the match
    # (league.retention.do_delete_old_logs); the replay's moves and outcome stay.
    logs_deleted_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The ladder's time control for this match ({"move_ms", "bank_ms"}); empty: the runtime's defaults for the game.
    time_control = models.JSONField(default=dict, blank=True)
    # Tournament games only (league/services/tournaments.py). PROTECT: a tournament that has played keeps its history.
    round = models.ForeignKey(
        "Round", on_delete=models.PROTECT, null=True, blank=True, related_name="matches", editable=False
    )
    # The series this game belongs to: played with its other games by the same bot processes, recorded as they
    # finish, in batches (league/services/series.py). None: a single match.
    series = models.ForeignKey(
        "MatchSeries", on_delete=models.SET_NULL, null=True, blank=True, related_name="matches", editable=False
    )
    # Claimed before ordinary ladder games (a placement burst): the claim order's priority lane.
    placing = models.BooleanField(default=False, editable=False)
    # A rated match's place in its game's recorded order (1, 2, ...), set in the recording transaction under the
    # game's ``RatedSequence`` row lock, so a game's numbers commit in order: the fitted Elo's incremental refit
    # reads the matches after the last number it saw (league/services/fits.py). None: not rated (or not finished).
    rated_seq = models.BigIntegerField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "matches"
        indexes = [
            # The scheduler's counts: ladder matches in flight, and created in the last hour, per game.
            models.Index(fields=["kind", "status", "game"], name="match_kind_status_game"),
            models.Index(fields=["game", "kind", "created"], name="match_game_kind_created"),
            # The retention task's next batch: the oldest finished matches whose logs are still kept (only those,
            # so it does not step over the ever longer history of matches already cleaned).
            models.Index(
                fields=["finished_at"], condition=models.Q(logs_deleted_at__isnull=True), name="match_logs_kept"
            ),
            # The incremental refit's read: a game's rated matches after a recorded-order number.
            models.Index(fields=["game", "rated_seq"], name="match_game_rated_seq"),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game})"

    def get_absolute_url(self) -> str:
        return reverse("match", args=[self.pk])

    def is_finalized(self) -> bool:
        return self.status in self.Status.finalized()

    @property
    def replay(self) -> dict[str, Any] | None:
        return unpack_replay(self.replay_data)

    pack_replay = staticmethod(pack_replay)


class MatchSeries(models.Model):
    """Games a worker plays in a row with the same bot processes (the same versions in the same seats, each game its
    own seed) and records as they finish, in batches. A fault ends it: its unplayed games go to a new series, played
    by fresh processes (league/services/series.py; docs/decisions.md, "Series")."""

    game = models.CharField(max_length=40, choices=game_choices)
    created = models.DateTimeField(auto_now_add=True)
    # The version whose placement burst this series is part of (league/services/placement.py); None otherwise.
    placing_version = models.ForeignKey(
        "BotVersion", on_delete=models.CASCADE, null=True, blank=True, related_name="placement_series"
    )

    class Meta:
        verbose_name_plural = "match series"

    def __str__(self) -> str:
        return f"series {self.pk} ({self.game})"


# A seat's fault: the runner's causes (one enum, bots.results.FaultCause), stored and published by their values.
FAULT_CHOICES = [(cause.value, cause.label) for cause in FaultCause]
FAULT_LABELS = dict(FAULT_CHOICES)


def fault_label(cause: str) -> str:
    """A stored fault cause for people ("ran out of time")."""
    return FAULT_LABELS.get(cause, cause)


class Seat(models.Model):
    """One seat of a match: who sat there and how it ended. A fault is kept apart from the rank (its cause)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    fault = models.CharField(max_length=10, choices=FAULT_CHOICES, blank=True)
    fault_detail = models.TextField(blank=True)
    stderr = models.TextField(blank=True, help_text="The bot's log; shown to its owner only.")
    moves = models.PositiveIntegerField(default=0)
    time_ms = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="seat_unique_number")]
        ordering = ["match", "number"]

    def __str__(self) -> str:
        return f"{self.match} seat {self.number}"


class Rating(models.Model):
    """A bot's current Elo in its game. Changed only by appending ``RatingChange`` rows, in match order.

    Its fields are exactly ``league.ratings.BotRating`` (plus the time of its last rated match), so that
    ``recompute_ratings`` can prove them equal to a replay of the match history."""

    bot = models.OneToOneField(Bot, on_delete=models.CASCADE, related_name="rating")
    elo = models.FloatField(default=ratings.INITIAL_ELO)
    # The variance of the Elo estimate (docs/ratings.md): the 95% interval is elo ± 1.96·sqrt(variance).
    variance = models.FloatField(default=ratings.INITIAL_VARIANCE)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    # Games since the bot's newest version started to play: while few, K is higher (the bot is provisional).
    games_since_version = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=0, help_text="The newest version number that has played rated.")
    recent = models.JSONField(default=list, blank=True, help_text="The last Elo values (the sparkline).")
    last_match_at = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    STATE_FIELDS = ("elo", "variance", "games", "wins", "draws", "losses", "games_since_version", "version", "recent")

    def __str__(self) -> str:
        return f"{self.bot}: {self.elo:.0f}"

    @property
    def state(self) -> ratings.BotRating:
        values = {name: getattr(self, name) for name in self.STATE_FIELDS}
        return ratings.BotRating(**{**values, "recent": tuple(values["recent"])})

    def set_state(self, state: ratings.BotRating) -> None:
        for name in self.STATE_FIELDS:
            setattr(self, name, getattr(state, name))
        self.recent = list(state.recent)

    @property
    def sigma(self) -> float:
        return math.sqrt(self.variance)

    @property
    def low(self) -> float:
        return ratings.interval(self.elo, self.variance)[0]

    @property
    def high(self) -> float:
        return ratings.interval(self.elo, self.variance)[1]

    @property
    def provisional(self) -> bool:
        return ratings.is_provisional(self.games_since_version)


class RatingChange(models.Model):
    """One bot's Elo before and after one match. Immutable: ratings are audited and recomputed from these."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="rating_changes")
    before = models.FloatField()
    after = models.FloatField()
    variance = models.FloatField(default=ratings.INITIAL_VARIANCE, help_text="The variance after the match.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "bot"], name="rating_change_once")]
        ordering = ["id"]

    @property
    def delta(self) -> float:
        return self.after - self.before


class ApiToken(models.Model):
    """A named API token. Only a hash is stored; the key is shown to its user once, at creation."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    prefix = models.CharField(max_length=12, help_text="The key's first characters, to recognise it.")
    key_hash = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.user}: {self.name} ({self.prefix}…)"


# ----- tournaments (league/services/tournaments.py runs them; docs/tournaments.md) ------------------------------------


class Tournament(models.Model):
    """A tournament staff run: a game, a format, settings, entrants pinned at the start, rounds of matches."""

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin"
        SWISS = "swiss", "Swiss"
        KNOCKOUT = "knockout", "single elimination"

    class Status(models.TextChoices):
        DRAFT = "draft", "draft"
        """Being set up: entrants and settings may change; nothing is played."""
        RUNNING = "running", "running"
        """Started: versions are pinned and rounds are played (unless ``paused``)."""
        FINISHED = "finished", "finished"
        """Every round is played; the standings are final."""
        CANCELLED = "cancelled", "cancelled"
        """Stopped by staff; its queued matches were withdrawn, the games played stay on record."""

        @classmethod
        def finalized(cls) -> set[str]:
            return {cls.FINISHED, cls.CANCELLED}

    game = models.CharField(max_length=40, choices=game_choices)
    name = models.CharField(max_length=100)
    format = models.CharField(max_length=12, choices=Format.choices)
    # Before the ``settings`` field: below it, that name in this class body is the field, not django.conf's.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Checked by league.tournament_formats.parse_settings and stored with every default filled in.
    settings = models.JSONField(default=dict, blank=True)
    # Whether its games change ladder Elo; fixed at the start (recompute_ratings replays rated tournament games).
    rated = models.BooleanField(default=False)
    # A rated tournament takes one bot per owner (built-in players aside) unless staff allow it here: two bots of
    # one owner could rig the rated games between them (league/services/tournaments.py, check_owners).
    allow_same_owner = models.BooleanField(
        "one owner's bots may meet (rated)",
        default=False,
        help_text="Rated tournaments only: let one owner enter several bots; their games against each other then "
        "change Elo too. Off: a second bot of the same owner is refused.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT, db_index=True)
    paused = models.BooleanField(default=False, help_text="A paused tournament starts no new games.")
    seed = models.BigIntegerField(help_text="Fixes the schedule and every game's deal.")
    created = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The expected number of rounds (fixed for round robin and Swiss; a knockout's from its bracket).
    planned_rounds = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament", args=[self.pk])

    def is_finalized(self) -> bool:
        return self.status in self.Status.finalized()


class Entry(models.Model):
    """One bot in one tournament, with the version it plays (pinned at the start) and its standing."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="tournament_entries")
    # Chosen by staff in a draft, or pinned at the start to the bot's newest ready version.
    bot_version = models.ForeignKey(
        BotVersion, on_delete=models.PROTECT, null=True, blank=True, related_name="tournament_entries"
    )
    seed = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 = highest Elo at the start.")
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(default=0.0)
    games = models.FloatField(default=0.0)
    tiebreaks = models.JSONField(default=dict, blank=True)
    forfeited = models.BooleanField(default=False)
    forfeit_reason = models.TextField(blank=True)
    eliminated_in = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Knockout: the round lost.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "bot"], name="entry_unique_bot")]
        ordering = ["tournament", "position", "seed", "id"]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.tournament}: {self.bot}"


class Round(models.Model):
    """One round of a tournament: its tables (``plan``) and, through ``Match.round``, their games."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        """Scheduled (a round robin plans every round at the start); no game created yet."""
        RUNNING = "running", "running"
        """Its games are created and being played."""
        FINISHED = "finished", "finished"
        """Every game of every table is finalized (and, in a knockout, every series decided)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # {"tables": [{"entries": [entry ids], "absent": [...], "walkover": bool, "games": n, "advancers": [...]}],
    #  "byes": [entry ids], "bracket": [[entry ids], ...] (knockout)}
    plan = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number")]
        ordering = ["tournament", "number"]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class Challenge(models.Model):
    """Unrated games an owner asked for: their bot against chosen bots, or a version test (a new version against
    the previous one). Its games are ``Match`` rows of kind CHALLENGE; see league/services/challenges.py."""

    class Kind(models.TextChoices):
        CHALLENGE = "challenge", "challenge"
        """The owner's bot against bots they chose."""
        VERSION_TEST = "version_test", "version test"
        """The owner's newest version against the previous one (``opponents[0]``), other seats filled by a field."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges")
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.CHALLENGE)
    game = models.CharField(max_length=40, choices=game_choices)
    # The challenger (a version of one of the owner's bots) and the other seats' versions, in the table's order
    # before rotation. A list of BotVersion ids: the same opponent may sit twice.
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="challenges")
    opponents = models.JSONField(default=list)
    games = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    matches = models.ManyToManyField(Match, related_name="challenges", blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["owner", "created"], name="challenge_owner_created")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.pk} ({self.game})"

    def get_absolute_url(self) -> str:
        return reverse("challenge", args=[self.pk])


class RatingFit(models.Model):
    """One fit of a game's Elo to every rated game of each bot's current version (league/services/fits.py)."""

    game = models.CharField(max_length=40, choices=game_choices)
    fitted_at = models.DateTimeField(default=timezone.now)
    # What the fit saw: its rated matches, and the newest of them (a newer one makes the fit stale).
    matches = models.PositiveIntegerField(default=0)
    last_match_id = models.BigIntegerField(default=0)
    bots = models.PositiveIntegerField(default=0)
    iterations = models.PositiveIntegerField(default=0)
    converged = models.BooleanField(default=True)
    seconds = models.FloatField(default=0.0, help_text="How long the fit took.")
    # Seat advantage over every rated match (all versions): {table size: [[matches, wins, shared firsts], ...]}
    # per seat number, counted while the fit reads the seats anyway.
    seat_results = models.JSONField(default=dict, blank=True)
    # The settling matchmaking's "games together" of pairs near in the fitted order (league/services/fits.py):
    # zlib-compressed int64 bot ids (first, second) and float64 weighted games.
    together = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-fitted_at", "-id"]
        indexes = [models.Index(fields=["game", "-id"], name="ratingfit_game_newest")]

    def __str__(self) -> str:
        return f"fit {self.pk} of {self.game} ({self.matches} matches)"


class RatedSequence(models.Model):
    """A game's last ``Match.rated_seq``: the recording transaction takes the next number under this row's lock, held
    until it commits, so the numbers of one game become visible in order (docs/decisions.md, "Incremental refit")."""

    game = models.CharField(max_length=40, primary_key=True)
    last = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.game}: {self.last} rated matches recorded"


class FitStatistics(models.Model):
    """A game's sufficient statistics for the fitted Elo, up to ``last_seq`` (league/fit_stats.py): the pair counts
    by version, each version's counted matches, the current versions and the seat results. One row per game,
    replaced by each refit; the next refit adds only the matches recorded after ``last_seq``."""

    game = models.CharField(max_length=40, primary_key=True)
    last_seq = models.BigIntegerField(default=0)
    matches = models.PositiveIntegerField(default=0)
    last_match_id = models.BigIntegerField(default=0)
    seat_results = models.JSONField(default=dict, blank=True)
    # numpy arrays (league.fit_stats): the pairs as of the last compaction, the change to them since (small: a
    # refit writes only this until it is a tenth of the base), and the current versions with their counted matches.
    data = models.BinaryField(editable=False)
    pending = models.BinaryField(editable=False, null=True)
    base_seq = models.BigIntegerField(default=0)  # ``last_seq`` when ``data`` was written: what ``pending`` is after
    rest = models.BinaryField(editable=False, null=True)

    class Meta:
        verbose_name_plural = "fit statistics"

    def __str__(self) -> str:
        return f"fit statistics of {self.game} up to {self.last_seq}"


class FittedRating(models.Model):
    """A bot's current fitted Elo: from the game's newest fit, for the version it was fitted on."""

    bot = models.OneToOneField(Bot, on_delete=models.CASCADE, related_name="fitted")
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="fitted_ratings")
    fit = models.ForeignKey(RatingFit, on_delete=models.CASCADE, related_name="ratings")
    elo = models.FloatField()
    sigma = models.FloatField()
    low = models.FloatField(help_text="The 95% interval.")
    high = models.FloatField()
    rank = models.PositiveIntegerField(help_text="1 = the highest fitted Elo of the bots on the leaderboard.")
    rank_low = models.PositiveIntegerField(help_text="The best rank at 95%.")
    rank_high = models.PositiveIntegerField(help_text="The worst rank at 95%.")
    games = models.PositiveIntegerField(help_text="The rated matches of this version in the fit.")
    recent = models.JSONField(default=list, blank=True, help_text="The last fitted Elo values (the sparkline).")

    class Meta:
        indexes = [models.Index(fields=["fit"], name="fittedrating_fit")]

    def __str__(self) -> str:
        return f"{self.bot}: {self.elo:.0f} ({self.low:.0f}\u2013{self.high:.0f})"


class FitSnapshot(models.Model):
    """One point of a bot's fitted-Elo history (the chart): written by a fit that moved it or counted new games."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="fit_snapshots")
    fit = models.ForeignKey(RatingFit, on_delete=models.CASCADE, related_name="snapshots")
    version = models.PositiveIntegerField()
    at = models.DateTimeField()
    elo = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    games = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["bot", "id"], name="fitsnapshot_bot")]


from league.account_models import VerifiedEmail as VerifiedEmail  # noqa: E402  (its own module, as Table)
from league.live_models import LiveMatch as LiveMatch  # noqa: E402  (its own module, as Table)
from league.table_models import Table as Table  # noqa: E402  (its own module; one app, one set of migrations)
