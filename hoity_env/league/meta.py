"""The meta-solver: the mixture over a population's members that a deviating member gains least against.

A population of ``k`` members at an ``N``-player table is a symmetric meta-game; :func:`solve` finds a
mixture ``σ`` with a small **gap** ``max_i u(i | σ) - u(σ | σ)`` (zero at a symmetric Nash
equilibrium) and :func:`deviation_gap` measures it.  ``payoffs[i, o_1, ..., o_{m-1}]`` is a seat's
payoff playing ``i`` against the others' ``o``'s (a ``k x k`` matrix approximates an ``N``-player
table: :mod:`hoity_env.league.meta_table`).  See docs/league.md (weighing a population).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike

from hoity_env.engine.errors import ConfigError

__all__ = [
    "MetaSolution",
    "SolverSettings",
    "check_payoffs",
    "check_weights",
    "deviation_gap",
    "expected_payoffs",
    "solve",
]

_CHECK_EVERY = 50
"""Iterations of a method's turn: the candidates' gaps are measured after each."""


@dataclasses.dataclass(frozen=True)
class SolverSettings:
    """How hard :func:`solve` works (checked when built).

    Attributes:
        tolerance: stop once a mixture's gap is at most this, in the payoffs' units
            divided by their range (the payoffs are scaled to a range of 1).
        iterations: the most iterations of each method and starting point.
        restarts: the replicator dynamics' seeded random starting points besides the uniform one.
        step: the replicator dynamics' ``dt`` on the scaled payoffs, in (0, 1].
        floor: the replicator dynamics' smallest weight (its projection), in [0, 1e-3].
    """

    tolerance: float = 1e-5
    iterations: int = 100_000
    restarts: int = 2
    step: float = 0.2
    floor: float = 1e-9

    def __post_init__(self) -> None:
        if not _real(self.tolerance) or self.tolerance <= 0:
            raise ConfigError(f"tolerance must be a number > 0, got {self.tolerance!r}")
        for name in ("iterations", "restarts"):
            value = getattr(self, name)
            least = 1 if name == "iterations" else 0
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ConfigError(f"{name} must be an int >= {least}, got {value!r}")
        if not _real(self.step) or not 0 < self.step <= 1:
            raise ConfigError(f"step must be a number in (0, 1], got {self.step!r}")
        if not _real(self.floor) or not 0 <= self.floor <= 1e-3:
            raise ConfigError(f"floor must be a number in [0, 0.001], got {self.floor!r}")


@dataclasses.dataclass(frozen=True)
class MetaSolution:
    """A solved mixture: one weight per member (summing to 1), its gap and how it was found.

    ``values[i]`` is member ``i``'s expected payoff against the mixture (``u(i | σ)``), so
    ``gap == max(values) - sum(w * v)``; ``method`` names the candidate that won and
    ``iterations`` counts every method's iterations together.
    """

    weights: tuple[float, ...]
    gap: float
    values: tuple[float, ...]
    method: str
    iterations: int


def _real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_payoffs(payoffs: ArrayLike) -> np.ndarray:
    """``payoffs`` as a float array of shape ``(k,) * m`` (``m >= 2``), finite and symmetric in the
    opponents' axes; anything else is one :class:`ConfigError`."""
    try:
        table = np.array(payoffs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"payoffs must be an array of numbers: {exc}") from None
    if table.ndim < 2 or len(set(table.shape)) != 1 or table.shape[0] < 1:
        raise ConfigError(
            f"payoffs must have shape (k,) * players with at least 2 players, got {table.shape}"
        )
    if not np.isfinite(table).all():
        raise ConfigError("payoffs must be finite numbers")
    for a, b in itertools.combinations(range(1, table.ndim), 2):
        if not np.allclose(table, np.swapaxes(table, a, b), rtol=0, atol=1e-9):
            raise ConfigError(
                f"payoffs must be symmetric in the opponents' axes (a symmetric game): axes {a}, {b} differ"
            )
    return table


def check_weights(weights: ArrayLike, k: int) -> np.ndarray:
    """``weights`` as a probability vector over ``k`` members (non-negative, summing to 1 within 1e-6)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (k,) or not np.isfinite(w).all() or (w < 0).any() or abs(w.sum() - 1) > 1e-6:
        raise ConfigError(f"weights must be {k} non-negative numbers summing to 1, got {w.tolist()}")
    return w


def _against(table: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Each pure strategy's expected payoff against ``m - 1`` independent draws from ``sigma``."""
    return _against_seats(table, [sigma] * (table.ndim - 1))


def _against_seats(table: np.ndarray, others: list[np.ndarray]) -> np.ndarray:
    """Each pure strategy's expected payoff against the other seats playing ``others`` (one each)."""
    out = table
    for sigma in others:  # the opponents' axes are symmetric: their order does not matter
        out = out @ sigma
    return out


def expected_payoffs(payoffs: ArrayLike, weights: ArrayLike) -> np.ndarray:
    """``u(i | σ)`` for every member ``i``: its expected payoff against the others drawn from ``weights``."""
    table = check_payoffs(payoffs)
    return _against(table, check_weights(weights, table.shape[0]))


def deviation_gap(payoffs: ArrayLike, weights: ArrayLike) -> float:
    """The most a member gains by deviating from the mixture ``weights``: ``max_i u(i|σ) - u(σ|σ)``."""
    table = check_payoffs(payoffs)
    sigma = check_weights(weights, table.shape[0])
    values = _against(table, sigma)
    return max(0.0, float(values.max() - sigma @ values))


def _gap(table: np.ndarray, sigma: np.ndarray) -> float:
    values = _against(table, sigma)
    return float(values.max() - sigma @ values)


Candidates = Iterator[list[tuple[str, np.ndarray]]]
"""A method's candidate mixtures, named, after each ``_CHECK_EVERY`` iterations (or its last ones)."""


def _regret_matching(table: np.ndarray, iterations: int) -> Candidates:
    """Regret matching+ with one learner per seat, updated in turn from the uniform mixture; yields
    each seat's linearly weighted average and their mean (alternating updates converge far faster
    than simultaneous ones, and in a symmetric constant-sum game each seat's average is a minimax
    mixture on its own)."""
    m, k = table.ndim, table.shape[0]
    seats = [np.full(k, 1.0 / k) for _ in range(m)]
    regrets = [np.zeros(k) for _ in range(m)]
    totals = [np.zeros(k) for _ in range(m)]
    for t in range(1, iterations + 1):
        for s in range(m):
            values = _against_seats(table, seats[:s] + seats[s + 1 :])
            regrets[s] = np.maximum(regrets[s] + values - seats[s] @ values, 0.0)
            mass = regrets[s].sum()
            if mass > 0:  # else the seat already plays a best response
                seats[s] = regrets[s] / mass
            totals[s] += t * seats[s]
        if t % _CHECK_EVERY == 0 or t == iterations:
            averages = [total / total.sum() for total in totals]
            named = [(f"regret matching+ (seat {s + 1}'s average)", a) for s, a in enumerate(averages)]
            yield [*named, ("regret matching+ (the seats' averages, mixed)", np.mean(averages, axis=0))]


def _replicator(
    table: np.ndarray, start: np.ndarray, settings: SolverSettings, iterations: int, name: str
) -> Candidates:
    """Projected replicator dynamics from ``start``; yields the running average and the last iterate."""
    sigma = start.copy()
    total = np.zeros_like(sigma)
    for t in range(1, iterations + 1):
        values = _against(table, sigma)
        sigma = sigma + settings.step * sigma * (values - sigma @ values)
        sigma = np.maximum(sigma, settings.floor)
        sigma /= sigma.sum()
        total += sigma
        if t % _CHECK_EVERY == 0 or t == iterations:
            yield [(f"{name} (average)", total / t), (f"{name} (last)", sigma.copy())]


def _polish(table: np.ndarray, sigma: np.ndarray) -> np.ndarray | None:
    """For a matrix game: the mixture on ``sigma``'s support (weights above 1e-3 of the largest)
    that makes every member of the support earn the same, if it has no negative weight.

    An approximate equilibrium's support is usually the exact one's, and on the right support
    the equilibrium solves these linear equations, so this turns "close" into "exact".
    """
    support = np.flatnonzero(sigma >= 1e-3 * sigma.max())
    n = support.size
    system = np.zeros((n + 1, n + 1))
    system[:n, :n] = table[np.ix_(support, support)]
    system[:n, n] = -1.0  # every supported member earns the value v
    system[n, :n] = 1.0  # the weights sum to 1
    rhs = np.zeros(n + 1)
    rhs[n] = 1.0
    solution = np.linalg.lstsq(system, rhs, rcond=None)[0]
    weights = solution[:n]
    if not np.isfinite(weights).all() or weights.min() < -1e-12 or abs(weights.sum() - 1) > 1e-9:
        return None
    out = np.zeros_like(sigma)
    out[support] = np.maximum(weights, 0.0)
    polished: np.ndarray = out / out.sum()
    return polished


def _with_polish(table: np.ndarray, block: list[tuple[str, np.ndarray]]) -> list[tuple[str, np.ndarray]]:
    """A block's candidates and, for a matrix game, its best one polished on its support."""
    if table.ndim != 2:
        return block
    name, sigma = min(block, key=lambda candidate: _gap(table, candidate[1]))
    polished = _polish(table, sigma)
    return block if polished is None else [*block, (f"{name}, polished on its support", polished)]


def solve(payoffs: ArrayLike, settings: SolverSettings | None = None, *, seed: int = 0) -> MetaSolution:
    """The mixture over the members with the smallest gap found.

    Three methods take turns, deterministically, because none suffices alone: regret matching+
    (linearly weighted averages, as CFR+) converges to the meta-Nash of a 2-player constant-sum
    game; projected replicator dynamics (Lanctot et al. 2017) from the uniform and ``restarts``
    seeded mixtures settles on stable equilibria at 3-6 players and general-sum tables; and for a
    matrix, each round's best candidate polished on its support turns "close" into exact.  The
    search stops at the first candidate within ``tolerance`` and returns the smallest gap; payoffs
    are scaled to a range of 1 so the step and tolerance mean the same for any payoff.

    ``payoffs``: shape ``(k,) * m`` (:func:`check_payoffs`); ``seed`` (an int >= 0) draws the
    replicator dynamics' random starting points, so the same call gives the same mixture.
    """
    settings = settings or SolverSettings()
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed must be an int >= 0, got {seed!r}")
    table = check_payoffs(payoffs)
    k = table.shape[0]
    span = float(table.max() - table.min())
    if span == 0:  # every mixture is an equilibrium of a constant game
        uniform = np.full(k, 1.0 / k)
        return MetaSolution(
            tuple(uniform.tolist()), 0.0, tuple(_against(table, uniform).tolist()), "constant", 0
        )
    scaled = (table - table.min()) / span
    rng = np.random.default_rng(seed)
    starts = [("replicator dynamics from uniform", np.full(k, 1.0 / k))]
    starts += [
        (f"replicator dynamics from start {r + 1}", rng.dirichlet(np.ones(k)))
        for r in range(settings.restarts)
    ]
    methods = [_regret_matching(scaled, settings.iterations)]
    methods += [_replicator(scaled, start, settings, settings.iterations, name) for name, start in starts]
    best: tuple[float, str, np.ndarray] = (math.inf, "", np.full(k, 1.0 / k))
    spent, live = 0, methods
    while live and best[0] > settings.tolerance:  # the methods take turns, a block of iterations each
        still = []
        for method in live:
            block = next(method, None)
            if block is None:
                continue
            still.append(method)
            spent += _CHECK_EVERY
            for name, sigma in _with_polish(scaled, block):
                gap = _gap(scaled, sigma)
                if gap < best[0]:
                    best = (gap, name, sigma)
            if best[0] <= settings.tolerance:
                break
        live = still
    _, name, sigma = best
    values = _against(table, sigma)
    gap = max(0.0, float(values.max() - sigma @ values))
    return MetaSolution(tuple(sigma.tolist()), gap, tuple(values.tolist()), name, spent)
