"""Is B stronger than A? A sequential probability ratio test on game results, after Stockfish's fishtest.

Pure maths, standard library only: used by ``python -m bots compare`` and by the league's challenges and version
tests.

The test weighs two hypotheses about the Elo difference of B over A: H0 ``elo = elo0`` and H1 ``elo = elo1``. After
every game it computes the log-likelihood ratio (LLR) of the results so far and stops as soon as the LLR leaves the
interval ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``: above it, H1 is accepted (B is stronger by about
``elo1`` or more); below it, H0 is accepted (B is not stronger than ``elo0``: equal or worse). ``alpha`` is the
chance of accepting H1 when H0 is true (a false positive), ``beta`` the chance of accepting H0 when H1 is true.

The LLR is the generalised SPRT's, as in fishtest: results are counted as wins, draws and losses (a trinomial);
under each hypothesis the distribution of the three is the maximum-likelihood one among those whose expected score
is ``s0`` (resp. ``s1``, the logistic expected score at ``elo0``, ``elo1``), and the LLR is the log of the ratio of
the two likelihoods. (The simpler normal approximation, ``N (s1 - s0) (2 s - s0 - s1) / (2 var)``, is wildly
overconfident after a handful of games: one early win would "prove" H1.)

Scores are 1 (B ranked better), ½ (equal ranks), 0 (A ranked better); in a game of more than two players each game
gives the one pairwise result between A's and B's seats.

``python -m bots.authoring.sprt`` measures the test's error rates and its average length on simulated results with
known true Elo differences (docs/challenges.md records the figures).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = [
    "SPRT",
    "Estimate",
    "Simulation",
    "Tally",
    "elo_estimate",
    "elo_to_score",
    "score_to_elo",
    "simulate",
]

H0, H1 = "H0", "H1"
_REGULARISE = 1e-3  # fishtest's epsilon: an empty outcome class still has a (tiny) count, so var > 0
_Z95 = 1.959963984540054


def elo_to_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger than its opponent (logistic, base 10, scale 400)."""
    return 1.0 / (1.0 + float(10.0 ** (-elo / 400.0)))  # float ** float is typed Any (it may be complex)


def score_to_elo(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (0 < score < 1)."""
    if not 0.0 < score < 1.0:
        raise ValueError(f"a score must be strictly between 0 and 1 to have an Elo difference, not {score!r}")
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass
class Tally:
    """Results from B's side: wins, draws and losses of B against A."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float | None:
        """B's mean score per game, or None before the first game."""
        return (self.wins + self.draws / 2) / self.games if self.games else None

    def add(self, score: float) -> None:
        """Count one game scored 1 (B won), 0.5 (tie) or 0 (A won)."""
        if score == 1:
            self.wins += 1
        elif score == 0:
            self.losses += 1
        elif score == 0.5:
            self.draws += 1
        else:
            raise ValueError(f"a game scores 1, 0.5 or 0, not {score!r}")

    def add_ranks(self, rank_b: int, rank_a: int) -> float:
        """Count one game from the two seats' ranks (1 = best) and return B's score."""
        score = 1.0 if rank_b < rank_a else 0.0 if rank_b > rank_a else 0.5
        self.add(score)
        return score

    def flipped(self) -> Tally:
        """The same results from A's side."""
        return Tally(self.losses, self.draws, self.wins)

    def __str__(self) -> str:
        return f"+{self.wins} ={self.draws} -{self.losses}"


@dataclass(frozen=True)
class Estimate:
    """B's Elo difference over A with its 95% confidence interval."""

    elo: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.elo:+.1f} [{self.low:+.1f}, {self.high:+.1f}]"


# Scores are clamped so that a clean sweep still has a finite (if huge) Elo: ±1600.
_SCORE_FLOOR = elo_to_score(-1600.0)


def _elo_clamped(score: float) -> float:
    elo = score_to_elo(min(max(score, _SCORE_FLOOR), 1.0 - _SCORE_FLOOR))
    return min(max(elo, -1600.0), 1600.0)  # exactly ±1600 at the clamp, whatever the rounding


_SCORES = (1.0, 0.5, 0.0)  # win, draw, loss


def _constrained_mle(empirical: Sequence[float], mean: float) -> list[float]:
    """The distribution over (win, draw, loss) closest to ``empirical`` (maximum likelihood) whose expected score
    is ``mean`` (fishtest's MLE method).

    It is ``p_i = e_i / (1 + lam t_i)`` with ``t_i = x_i - mean``, where ``lam`` solves
    ``sum e_i t_i / (1 + lam t_i) = 0`` inside the interval that keeps every denominator positive. With three
    outcomes, clearing the denominators leaves a quadratic in ``lam``: solved exactly, with bisection as a fallback
    against rounding."""
    t = [x - mean for x in _SCORES]
    a = [e * ti for e, ti in zip(empirical, t, strict=True)]
    low, high = -1.0 / max(t), -1.0 / min(t)
    c0 = a[0] + a[1] + a[2]
    c1 = a[0] * (t[1] + t[2]) + a[1] * (t[0] + t[2]) + a[2] * (t[0] + t[1])
    c2 = a[0] * t[1] * t[2] + a[1] * t[0] * t[2] + a[2] * t[0] * t[1]
    roots: list[float] = []
    if abs(c2) > 1e-15:
        disc = c1 * c1 - 4 * c2 * c0
        if disc >= 0:
            q = -0.5 * (c1 + math.copysign(math.sqrt(disc), c1))
            roots = [q / c2] + ([c0 / q] if q != 0 else [])
    elif c1 != 0:
        roots = [-c0 / c1]
    inside = [root for root in roots if low < root < high]
    if inside:
        lam = inside[0]
    else:
        lam = _bisect(lambda x: sum(ai / (1 + x * ti) for ai, ti in zip(a, t, strict=True)), low, high)
    p = [e / (1 + lam * ti) for e, ti in zip(empirical, t, strict=True)]
    total = sum(p)
    return [value / total for value in p]


def _bisect(decreasing: Callable[[float], float], low: float, high: float) -> float:
    for _ in range(200):
        mid = (low + high) / 2
        if decreasing(mid) > 0:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def elo_estimate(wins: int, draws: int, losses: int, z: float = _Z95) -> Estimate | None:
    """B's Elo difference over A and its confidence interval (95% by default), or None without games.

    One pseudo-draw is added to the results, so that ten wins out of ten give a finite estimate and a wide interval
    rather than infinity; over many games it makes no difference. The interval comes from the normal approximation
    of the mean score (its per-game variance from the results), mapped through the Elo curve."""
    n = wins + draws + losses
    if n == 0:
        return None
    w, d, lo, total = wins, draws + 1, losses, n + 1
    s = (w + d / 2) / total
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + lo * s**2) / total
    se = math.sqrt(var / total)
    return Estimate(_elo_clamped(s), _elo_clamped(s - z * se), _elo_clamped(s + z * se))


@dataclass(frozen=True)
class SPRT:
    """The test's parameters; ``llr`` and ``verdict`` evaluate results against them."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1 (got {self.elo0} and {self.elo1})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, not {value!r}")
        if abs(self.elo0) >= 1600 or abs(self.elo1) >= 1600:
            raise ValueError("elo0 and elo1 must be within ±1600")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, wins: float, draws: float, losses: float) -> float:
        """The log-likelihood ratio of H1 against H0 for these results (0 before any game)."""
        n = wins + draws + losses
        if n == 0:
            return 0.0
        counts = [max(count, _REGULARISE) for count in (wins, draws, losses)]
        total = sum(counts)
        empirical = [count / total for count in counts]
        p1 = _constrained_mle(empirical, elo_to_score(self.elo1))
        p0 = _constrained_mle(empirical, elo_to_score(self.elo0))
        return n * sum(e * math.log(a / b) for e, a, b in zip(empirical, p1, p0, strict=True))

    def verdict(self, wins: float, draws: float, losses: float) -> str | None:
        """``"H1"`` (B is stronger), ``"H0"`` (B is not), or None: keep playing."""
        llr = self.llr(wins, draws, losses)
        if llr >= self.upper:
            return H1
        if llr <= self.lower:
            return H0
        return None

    def describe(self, verdict: str | None, games: int, max_games: int | None = None) -> str:
        """A sentence for people: what the verdict means."""
        if verdict == H1:
            return f"H1 accepted after {games} games: B is stronger than A (by about {self.elo1:g} Elo or more)"
        if verdict == H0:
            return f"H0 accepted after {games} games: B is not stronger than A by more than {self.elo0:g} Elo"
        if max_games is not None and games >= max_games:
            return f"inconclusive: no verdict within the limit of {max_games} games"
        return f"no verdict yet after {games} games"


# ----- simulation -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Simulation:
    """How the test behaved on ``runs`` simulated comparisons at one true Elo difference."""

    true_elo: float
    runs: int
    accepted_h1: int
    accepted_h0: int
    inconclusive: int
    mean_games: float
    max_games: int

    @property
    def h1_rate(self) -> float:
        return self.accepted_h1 / self.runs

    @property
    def h0_rate(self) -> float:
        return self.accepted_h0 / self.runs


def _outcome_probabilities(true_elo: float, draw_ratio: float) -> tuple[float, float]:
    score = elo_to_score(true_elo)
    p_win = score - draw_ratio / 2
    p_loss = 1 - score - draw_ratio / 2
    if p_win < 0 or p_loss < 0:
        raise ValueError(f"a draw ratio of {draw_ratio} is impossible at {true_elo:+} Elo")
    return p_win, p_win + draw_ratio


def run_once(
    sprt: SPRT, true_elo: float, rng: random.Random, draw_ratio: float = 0.1, max_games: int = 200_000
) -> tuple[str | None, int]:
    """One simulated comparison, checked after every game as ``compare`` does: until a verdict or ``max_games``."""
    win_below, draw_below = _outcome_probabilities(true_elo, draw_ratio)
    w = d = lo = 0
    for games in range(1, max_games + 1):
        u = rng.random()
        if u < win_below:
            w += 1
        elif u < draw_below:
            d += 1
        else:
            lo += 1
        verdict = sprt.verdict(w, d, lo)
        if verdict is not None:
            return verdict, games
    return None, max_games


def simulate(
    sprt: SPRT,
    true_elo: float,
    runs: int,
    seed: int = 0,
    draw_ratio: float = 0.1,
    max_games: int = 200_000,
) -> Simulation:
    """Run ``runs`` simulated comparisons of two players ``true_elo`` apart; ``seed`` makes it reproducible."""
    rng = random.Random(seed)
    h1 = h0 = none = total = 0
    for _ in range(runs):
        verdict, games = run_once(sprt, true_elo, rng, draw_ratio, max_games)
        total += games
        if verdict == H1:
            h1 += 1
        elif verdict == H0:
            h0 += 1
        else:
            none += 1
    return Simulation(true_elo, runs, h1, h0, none, total / runs, max_games)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bots.authoring.sprt",
        description="Measure the SPRT's error rates and length on simulated results.",
    )
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--draw-ratio", type=float, default=0.1, help="share of tied games (default 0.1)")
    parser.add_argument("--runs", type=int, default=200, help="simulated comparisons per true Elo (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--true",
        type=float,
        action="append",
        help="a true Elo difference to simulate (repeatable; default: "
        "elo0 - (elo1 - elo0), elo0, the midpoint, elo1, elo1 + (elo1 - elo0))",
    )
    args = parser.parse_args(argv)
    sprt = SPRT(args.elo0, args.elo1, args.alpha, args.beta)
    width = args.elo1 - args.elo0
    trues = args.true or [args.elo0 - width, args.elo0, (args.elo0 + args.elo1) / 2, args.elo1, args.elo1 + width]
    print(
        f"SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} alpha={sprt.alpha:g} beta={sprt.beta:g}, "
        f"draw ratio {args.draw_ratio:g}, {args.runs} runs per row, LLR bounds [{sprt.lower:.3f}, {sprt.upper:.3f}]"
    )
    print(f"{'true Elo':>9} {'accept H1':>10} {'accept H0':>10} {'none':>6} {'mean games':>11}")
    for index, true_elo in enumerate(trues):
        result = simulate(sprt, true_elo, args.runs, seed=args.seed + index, draw_ratio=args.draw_ratio)
        print(
            f"{true_elo:>+9.2f} {result.h1_rate:>10.3f} {result.h0_rate:>10.3f} {result.inconclusive:>6d} "
            f"{result.mean_games:>11.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
