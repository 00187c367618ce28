"""Fitted Elo: Bradley-Terry by maximum likelihood over every rated game (docs/ratings.md, Fitted Elo). Pure: no
database, only numpy and scipy.

The model is the one online Elo approximates: bot i beats bot j with probability 1 / (1 + 10^((r_j - r_i)/400)).
A match of n seats counts as its n(n-1)/2 pairs, each scored by the ranks (win 1, tie ½) and weighted 1/(n-1), as
``league.ratings.elo`` does; so a match moves the fit about as much as one two-player game, whatever its size.

- **Prior**: every bot's rating is N(1500, 350²) a priori (``PRIOR_SIGMA``, Glicko's starting deviation, as the
  online rating's starting sigma). It is worth about one even game, so it keeps a bot with one game (or only wins)
  finite and barely moves a bot with fifty.
- **Anchor**: the league mean is exactly 1500. This is not imposed, it follows: every pair's likelihood gradient
  adds and subtracts the same amount, so at the optimum the prior's pull Σ(r - 1500)/350² is zero. The number is
  "Elo points above the average current bot", and adding games never moves the average.
- **Solver**: scipy's ``trust-ncg`` (Newton with conjugate gradients) with an exact Hessian-vector product over a
  sparse incidence matrix (scipy.sparse), warm-started from the last fit. Unknowns are on the logit scale
  (x = c·(r - 1500), c = ln 10 / 400), where the Hessian is well conditioned. The objective is summed as each pair's
  change from the start, so a step's gain near the optimum is not lost in the rounding of a ~10⁶ total.
- **sigma** is the Laplace approximation of the centred ratings (the anchor removes the common shift). The pairs of one
  multiplayer match are decided together, so their scores vary more than independent pairs: the covariance is the
  sandwich H⁻¹ J H⁻¹, where J counts each pair with weight² · (n+1)/3 instead of the weight 1/(n-1): the variance
  of a seat's points in one match, exact for equal players (the factor of ``league.ratings.elo.variance_updates``);
  the same as H for two players, 5/9 of it for four. Up to ``DENSE_LIMIT`` bots it is exact (a
  dense inverse); above, each bot's variance is its own information plus its opponents' variances leaking in,
  v_i = J_ii/H_ii² + Σ_j (H_ij/H_ii)² v_j (``bench/ratings.py`` compares it with the exact one).
- **Rank ranges** sample the ratings from that normal approximation (correlated when the covariance is known) and
  take the 2.5% and 97.5% quantiles of each bot's rank: a refit per draw (a bootstrap) would cost a fit per draw.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse
from scipy.special import expit, ndtr

from league.ratings.elo import INITIAL_ELO, INITIAL_SIGMA, Z95

C = math.log(10) / 400.0  # Elo points to logits
PRIOR_SIGMA = INITIAL_SIGMA
# Above this many bots the exact covariance (a dense n x n inverse) costs more than it is worth.
DENSE_LIMIT = 2000
# The optimiser stops when the gradient's norm (in logits) is below this: the Newton step left is then at most
# GTOL·τ² = 4e-4 logits (0.07 Elo) even for a bot whose only curvature is the prior's. Tighter fails on rounding.
GTOL = 1e-4


@dataclass(frozen=True)
class PairCounts:
    """Rated results aggregated per unordered pair of bots (``first < second``, indices 0..bots-1)."""

    bots: int
    first: np.ndarray  # int64
    second: np.ndarray  # int64
    games: np.ndarray  # weighted games between them (each pair of seats of an n-player match weighs 1/(n-1))
    score: np.ndarray  # of those, the weighted points of ``first`` (win 1, tie ½)
    information: np.ndarray  # weight² · (n+1)/3 per pair: how much the scores vary (the module doc)

    def together(self) -> dict[tuple[int, int], float]:
        """Weighted games per pair, as the settling pairing takes them."""
        return {
            (int(a), int(b)): float(g) for a, b, g in zip(self.first, self.second, self.games, strict=True) if g > 0
        }


def pair_counts(
    results: Iterable[tuple[Sequence[int], Sequence[int]]], bots: int, previous: PairCounts | None = None
) -> PairCounts:
    """Aggregate matches — (bot indices in seat order, their ranks; 1 is best, ties share) — onto ``previous``."""
    firsts: list[int] = []
    seconds: list[int] = []
    weights: list[float] = []
    scores: list[float] = []
    infos: list[float] = []
    for seats, ranks in results:
        n = len(seats)
        if n < 2 or n != len(ranks) or len(set(seats)) != n:
            raise ValueError("a rated match has at least two distinct bots and one rank per seat")
        weight = 1.0 / (n - 1)
        # Var(a seat's points in one match) is (n+1)/3 times that of independent pairs: weight² · (n+1)/3.
        info = weight * weight * (n + 1) / 3.0
        for a in range(n):
            for b in range(a + 1, n):
                i, j, ri, rj = seats[a], seats[b], ranks[a], ranks[b]
                if i > j:
                    i, j, ri, rj = j, i, rj, ri
                firsts.append(i)
                seconds.append(j)
                weights.append(weight)
                scores.append(weight * (1.0 if ri < rj else 0.5 if ri == rj else 0.0))
                infos.append(info)
    first = np.asarray(firsts, dtype=np.int64)
    second = np.asarray(seconds, dtype=np.int64)
    if len(first) and (first.min() < 0 or second.max() >= bots):
        raise ValueError("bot index out of range")
    parts = [(first, second, np.asarray(weights), np.asarray(scores), np.asarray(infos))]
    if previous is not None:
        if previous.bots > bots:
            raise ValueError("fewer bots than the previous counts")
        parts.insert(0, (previous.first, previous.second, previous.games, previous.score, previous.information))
    return _coalesce(bots, *(np.concatenate(column) for column in zip(*parts, strict=True)))


def _coalesce(
    bots: int, first: np.ndarray, second: np.ndarray, games: np.ndarray, score: np.ndarray, information: np.ndarray
) -> PairCounts:
    keys, where = np.unique(first * bots + second, return_inverse=True)
    size = len(keys)
    return PairCounts(
        bots=bots,
        first=keys // bots,
        second=keys % bots,
        games=np.bincount(where, games, size),
        score=np.bincount(where, score, size),
        information=np.bincount(where, information, size),
    )


@dataclass(frozen=True)
class Fit:
    ratings: np.ndarray  # Elo per bot, mean exactly INITIAL_ELO
    sigmas: np.ndarray  # standard error of each rating (95%: ± Z95·sigma)
    covariance: np.ndarray | None  # of the ratings, in Elo²; None above DENSE_LIMIT bots
    iterations: int  # Newton steps the optimiser took
    converged: bool

    def interval(self, bot: int) -> tuple[float, float]:
        half = Z95 * float(self.sigmas[bot])
        return (float(self.ratings[bot]) - half, float(self.ratings[bot]) + half)


def fit(
    counts: PairCounts,
    prior_sigma: float = PRIOR_SIGMA,
    warm_start: Fit | np.ndarray | None = None,
    dense_limit: int = DENSE_LIMIT,
) -> Fit:
    """The maximum a posteriori Elo of every bot (module doc). ``warm_start``: the last fit (or its ratings); bots
    added since start at 1500. Above ``dense_limit`` bots sigma is the propagated approximation."""
    bots = counts.bots
    tau2 = (C * prior_sigma) ** 2
    incidence = _incidence(counts)
    start = np.zeros(bots)
    if warm_start is not None:
        previous = warm_start.ratings if isinstance(warm_start, Fit) else np.asarray(warm_start, dtype=float)
        start[: min(bots, len(previous))] = C * (previous[:bots] - INITIAL_ELO)
    x, iterations, converged = _solve(incidence, counts, tau2, start)
    p = expit(incidence @ x)
    curvature = counts.games * p * (1.0 - p)
    spread = counts.information * p * (1.0 - p)
    if bots <= dense_limit:
        covariance = _dense_covariance(incidence, curvature, spread, tau2) / C**2
        sigmas = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    else:
        covariance = None
        variances, _rounds = _propagated_variances(counts, curvature, spread, tau2)
        sigmas = np.sqrt(variances) / C
    return Fit(INITIAL_ELO + x / C, sigmas, covariance, iterations, converged)


def _incidence(counts: PairCounts) -> scipy.sparse.csr_matrix:
    """One row per pair: +1 at ``first``, -1 at ``second``, so incidence @ x is each pair's rating difference. Built
    as CSR directly (two entries a row, already in column order as first < second): from coordinates it took 0.4 s
    at 2.6 million pairs."""
    rows = len(counts.first)
    columns = np.empty(2 * rows, dtype=np.int32)
    columns[0::2], columns[1::2] = counts.first, counts.second
    values = np.tile(np.array([1.0, -1.0]), rows)
    starts = np.arange(0, 2 * rows + 1, 2, dtype=np.int32)
    return scipy.sparse.csr_matrix((values, columns, starts), shape=(rows, counts.bots))


Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]
HessianProduct = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _objective(
    incidence: scipy.sparse.csr_matrix, counts: PairCounts, tau2: float, start: np.ndarray
) -> tuple[Objective, HessianProduct]:
    """The negative log posterior in logits (its value relative to ``start``, and its gradient), and its Hessian's
    product with a vector."""
    transposed = incidence.T.tocsr()
    games, score = counts.games, counts.score
    # The value is taken relative to the start, pair by pair: whole, it is ~10⁶ at millions of pairs, so near the
    # optimum a step's gain (~10⁻¹⁰) is below its rounding, and the trust region, misjudging its steps, took 17 or 18
    # iterations instead of 8 (measured at 10,000 bots; the differences now match the quadratic model).
    d_start = incidence @ start
    softplus_start = np.logaddexp(0.0, d_start)

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        d = incidence @ x
        # -log likelihood: score·log(1 + e^-d) + (games - score)·log(1 + e^d), stable for any d; as
        # log(1 + e^-d) = log(1 + e^d) - d, that is games·log(1 + e^d) - score·d (one logaddexp, not two).
        change = games * (np.logaddexp(0.0, d) - softplus_start) - score * (d - d_start)
        value = float(np.sum(change)) + float((x - start) @ (x + start)) / (2 * tau2)
        gradient = transposed @ (games * expit(d) - score) + x / tau2
        return value, gradient

    # The solver asks for several Hessian products at one point: the pairs' curvature there is computed once.
    at: dict[str, np.ndarray] = {}

    def hessp(x: np.ndarray, v: np.ndarray) -> np.ndarray:
        if "x" not in at or not np.array_equal(at["x"], x):
            p = expit(incidence @ x)
            at["x"], at["curvature"] = x.copy(), games * p * (1.0 - p)
        return np.asarray(transposed @ (at["curvature"] * (incidence @ v)) + v / tau2)

    return objective, hessp


def _solve(
    incidence: scipy.sparse.csr_matrix, counts: PairCounts, tau2: float, start: np.ndarray
) -> tuple[np.ndarray, int, bool]:
    objective, hessp = _objective(incidence, counts, tau2, start)
    result = scipy.optimize.minimize(
        objective, start, jac=True, hessp=hessp, method="trust-ncg", options={"gtol": GTOL, "maxiter": 200}
    )
    return result.x, int(result.nit), bool(result.success)


def _dense_covariance(
    incidence: scipy.sparse.csr_matrix, curvature: np.ndarray, spread: np.ndarray, tau2: float
) -> np.ndarray:
    """The sandwich covariance H⁻¹ J H⁻¹ of the centred ratings, in logits², exactly."""
    bots = incidence.shape[1]
    hessian = (incidence.T @ scipy.sparse.diags(curvature) @ incidence).toarray() + np.eye(bots) / tau2
    noise = (incidence.T @ scipy.sparse.diags(spread) @ incidence).toarray() + np.eye(bots) / tau2
    inverse = np.linalg.inv(hessian)
    covariance = inverse @ noise @ inverse
    # The anchor (mean 1500) removes the common shift: the covariance of r - mean(r).
    centring = np.eye(bots) - 1.0 / bots
    covariance = centring @ covariance @ centring
    return np.asarray((covariance + covariance.T) / 2)


def _propagated_variances(
    counts: PairCounts, curvature: np.ndarray, spread: np.ndarray, tau2: float, rounds: int = 20
) -> tuple[np.ndarray, int]:
    """Large leagues: v_i = J_ii/H_ii² + Σ_j (H_ij/H_ii)² v_j, iterated (module doc), in logits²; and the rounds taken.
    Each pair of bots is one row of ``counts``, so H_ij is minus that row's curvature: the sums are bincounts over the
    rows, with no sparse matrix to build (that cost more than the rounds)."""
    bots, first, second = counts.bots, counts.first, counts.second
    own = np.bincount(first, curvature, bots) + np.bincount(second, curvature, bots) + 1.0 / tau2
    noise = np.bincount(first, spread, bots) + np.bincount(second, spread, bots) + 1.0 / tau2
    leak = curvature * curvature
    inverse_own2 = 1.0 / own**2
    base = noise * inverse_own2
    variances = base
    for done in range(1, rounds + 1):
        leaked = np.bincount(first, leak * variances[second], bots) + np.bincount(second, leak * variances[first], bots)
        updated = base + leaked * inverse_own2
        if np.allclose(updated, variances, rtol=1e-4, atol=0.0):
            return updated, done
        variances = updated
    return variances, rounds


def rank_ranges(result: Fit, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Per bot, the (best, worst) rank at 95% (1 = first), from ``draws`` samples of the fit's normal approximation."""
    if result.covariance is not None:
        samples = rng.multivariate_normal(result.ratings, result.covariance, size=draws, method="eigh")
    else:
        samples = result.ratings + rng.standard_normal((draws, len(result.ratings))) * result.sigmas
    # Rank 1 for the highest rating in each draw (ascending order: the last is first). int32 and one partition for
    # both quantiles, instead of a quantile call each over int64: half the time at 10,000 bots (same ranges).
    order = np.argsort(samples, axis=1)
    ranks = np.empty(samples.shape, dtype=np.int32)
    ranks[np.arange(draws)[:, None], order] = np.arange(samples.shape[1], 0, -1, dtype=np.int32)
    # The "lower" 2.5% and "higher" 97.5% quantiles of the draws are these order statistics.
    low, high = math.floor(0.025 * (draws - 1)), math.ceil(0.975 * (draws - 1))
    chosen = np.partition(ranks, [low, high], axis=0)
    return np.stack([chosen[low], chosen[high]], axis=1).astype(np.int64)


def ranks(ratings: np.ndarray) -> np.ndarray:
    """The rank of each bot by rating (1 = highest)."""
    result = np.empty(len(ratings), dtype=np.int64)
    result[np.argsort(-ratings)] = np.arange(1, len(ratings) + 1)
    return result


def swap_probability(elo: float, sigma: float, other_elo: float, other_sigma: float) -> float:
    """The chance that two bots' true order is the reverse of their fitted order (how much their intervals overlap)."""
    spread = math.hypot(sigma, other_sigma)
    if spread == 0:
        return 0.0
    return float(ndtr(-abs(elo - other_elo) / spread))
