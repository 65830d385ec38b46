"""Plackett-Luce ratings fitted on all games at once, with 95% intervals, on an Elo-like scale.

A batch maximum-likelihood fit, not an online rating (OpenSkill, TrueSkill, Elo): an online rating
depends on the order the games are fed in, and this fit gives the same ratings however they are listed.
A finishing order is read as a sequence of "best among those left" choices, ties as in Breslow; the fit
is Hunter's MM iteration with one virtual win and loss per member.  See docs/evaluation.md.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.stats import Z95, mean

__all__ = ["ELO_SCALE", "RATING_MODEL", "ChoiceCounts", "FittedRating", "fit_ratings", "mean_ranks", "stages"]

ELO_SCALE = 400.0 / math.log(10.0)
"""Rating points per unit of ``log γ``."""

RATING_MODEL = (
    "Plackett-Luce maximum likelihood over all games (Hunter's MM; ties as in Breslow); "
    "Elo-like points, pool mean 0: d points ahead = finishes ahead of the other with "
    "probability 1/(1+10^(-d/400)); 95% intervals from the observed information"
)

_TOLERANCE = 1e-10
_MAX_ITERATIONS = 100_000


@dataclass(frozen=True)
class FittedRating:
    """One member's rating and its 95% interval, in rating points."""

    rating: float
    low: float
    high: float


def mean_ranks(record: GameRecord, members: Sequence[str]) -> dict[str, float]:
    """Each of ``members`` at the table (in order of first seat) with the mean rank of its seats.

    An agent holding several seats enters a game once, with this rank: in the
    Plackett-Luce fit here and in the ladder's OpenSkill rating.
    """
    return {
        m: mean([float(r) for r, a in zip(record.ranks, record.agents, strict=True) if a == m])
        for m in dict.fromkeys(record.agents)
        if m in members
    }


def stages(record: GameRecord, members: Sequence[str]) -> list[tuple[frozenset[str], frozenset[str]]]:
    """The Plackett-Luce choices of one game: ``(chosen, remaining)`` pairs, best first.

    ``members`` restricts the game to agents being rated; members holding several
    seats are ranked by the mean rank of their seats, and tied members are all chosen
    from the same remaining set (Breslow).  The last place alone (a choice from one) is
    left out, and a game with a single distinct member gives no choices: they carry no
    information.
    """
    rank = mean_ranks(record, members)
    present = list(rank)
    if len(present) < 2:
        return []
    out = []
    remaining = set(present)
    for value in sorted(set(rank.values())):
        chosen = frozenset(m for m in present if rank[m] == value)
        if len(remaining) > 1:
            out.append((chosen, frozenset(remaining)))
        remaining -= chosen
    return out


class ChoiceCounts:
    """The sufficient statistics of the fit, summed game by game: the games themselves are not kept.

    ``wins[m]``: how often ``m`` was chosen; ``sets[remaining]``: how many choices were
    made from each set of remaining members.  Their size depends on the pool, not on
    the number of games, and adding them up in any order gives the same counts.
    """

    def __init__(self) -> None:
        self.wins: Counter[str] = Counter()
        self.sets: Counter[frozenset[str]] = Counter()

    def add(self, record: GameRecord, members: Sequence[str] | None = None) -> None:
        """Count the choices of one game among ``members`` (default: every agent at its table)."""
        for chosen, remaining in stages(record, record.agents if members is None else members):
            self.wins.update(chosen)
            self.sets[remaining] += len(chosen)

    def merge(self, other: ChoiceCounts) -> None:
        """Add ``other``'s counts to these."""
        self.wins.update(other.wins)
        self.sets.update(other.sets)

    def arrays(self, pool: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Wins per member, and each distinct remaining set (as a 0/1 row) with its choice count.

        Sorting the remaining sets makes every floating-point sum of the fit
        independent of the order the games were counted in.
        """
        index = {name: i for i, name in enumerate(pool)}
        wins = np.array([float(self.wins[name]) for name in pool]) if pool else np.zeros(0)
        counts = {tuple(sorted(index[m] for m in key)): n for key, n in self.sets.items()}
        keys = sorted(counts)
        sets = np.zeros((len(keys), len(pool)))
        for row, key in enumerate(keys):
            sets[row, list(key)] = 1.0
        return wins, sets, np.array([counts[k] for k in keys], dtype=float)


def _fit_log_strengths(wins: np.ndarray, sets: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Hunter's MM iteration with one virtual win and loss per member against strength 1."""
    gamma = np.ones(len(wins))
    for _ in range(_MAX_ITERATIONS):
        per_set = chosen / (sets @ gamma) if len(chosen) else np.zeros(0)
        denominator = sets.T @ per_set + 2.0 / (gamma + 1.0)
        new = (wins + 1.0) / denominator
        done = np.max(np.abs(np.log(new) - np.log(gamma))) < _TOLERANCE
        gamma = new
        if done:
            break
    return np.log(gamma)


def _information(theta: np.ndarray, sets: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Minus the Hessian of the log-likelihood (virtual games included) in ``θ = log γ``."""
    gamma = np.exp(theta)
    info = np.zeros((len(theta), len(theta)))
    for row, count in zip(sets, chosen, strict=True):
        p = row * gamma / (row @ gamma)
        info += count * (np.diag(p) - np.outer(p, p))
    q = gamma / (gamma + 1.0)
    info += np.diag(2.0 * q * (1.0 - q))
    return info


def fit_ratings(pool: Sequence[str], games: Sequence[GameRecord] | ChoiceCounts) -> dict[str, FittedRating]:
    """Ratings of every member of ``pool`` from all ``games`` at once (order-independent).

    ``games``: the records, or their :class:`ChoiceCounts` (every agent counted must be in ``pool``).
    ``rating = 400 · log10(γ / geometric mean of the pool's γ)``, so the pool averages 0 and a member
    ``d`` points above another finishes ahead of it with probability ``1 / (1 + 10^(-d/400))``;
    each 95% interval is normal, from the inverse observed information projected onto that scale.
    Ratings compare members of one pool, not across pools.
    """
    members = list(pool)
    if isinstance(games, ChoiceCounts):
        counts = games
    else:
        counts = ChoiceCounts()
        for record in games:
            counts.add(record, members)
    wins, sets, chosen = counts.arrays(members)
    theta = _fit_log_strengths(wins, sets, chosen)
    covariance = np.linalg.inv(_information(theta, sets, chosen))
    m = len(members)
    centre = np.eye(m) - np.full((m, m), 1.0 / m)
    ratings = ELO_SCALE * (centre @ theta)
    spread = ELO_SCALE * np.sqrt(np.maximum(np.diag(centre @ covariance @ centre.T), 0.0))
    return {
        name: FittedRating(
            rating=float(ratings[i]),
            low=float(ratings[i] - Z95 * spread[i]),
            high=float(ratings[i] + Z95 * spread[i]),
        )
        for i, name in enumerate(members)
    }
