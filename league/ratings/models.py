"""Ratings: the online Elo of each bot and its changes, and the fitted Elo with its statistics."""

from __future__ import annotations

import math

from django.db import models
from django.utils import timezone

from league.core.game_choices import game_choices
from league.ratings import elo as ratings


class Rating(models.Model):
    """A bot's current Elo in its game. Changed only by appending ``RatingChange`` rows, in match order.

    Its fields are exactly ``league.ratings.elo.BotRating`` (plus the time of its last rated match), so that
    ``recompute_ratings`` can prove them equal to a replay of the match history."""

    bot = models.OneToOneField("Bot", on_delete=models.CASCADE, related_name="rating")
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

    match = models.ForeignKey("Match", on_delete=models.CASCADE, related_name="rating_changes")
    bot = models.ForeignKey("Bot", on_delete=models.CASCADE, related_name="rating_changes")
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


class RatingFit(models.Model):
    """One fit of a game's Elo to every rated game of each bot's current version (league/ratings/fits.py)."""

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
    # The settling matchmaking's "games together" of pairs near in the fitted order (league/ratings/fits.py):
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
    """A game's sufficient statistics for the fitted Elo, up to ``last_seq`` (league/ratings/fit_stats.py): the pair
    counts by version, each version's counted matches, the current versions and the seat results. One row per game,
    replaced by each refit; the next refit adds only the matches recorded after ``last_seq``."""

    game = models.CharField(max_length=40, primary_key=True)
    last_seq = models.BigIntegerField(default=0)
    matches = models.PositiveIntegerField(default=0)
    last_match_id = models.BigIntegerField(default=0)
    seat_results = models.JSONField(default=dict, blank=True)
    # numpy arrays (league.ratings.fit_stats): the pairs as of the last compaction, the change to them since (small: a
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

    bot = models.OneToOneField("Bot", on_delete=models.CASCADE, related_name="fitted")
    version = models.ForeignKey("BotVersion", on_delete=models.CASCADE, related_name="fitted_ratings")
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

    bot = models.ForeignKey("Bot", on_delete=models.CASCADE, related_name="fit_snapshots")
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
