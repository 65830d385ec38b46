"""The rows of the result tables: one agent, one seat, one rating, one pair of agents.

Plain frozen dataclasses of numbers and names, with nothing to import: the
results (:mod:`hoity_env.evaluation.reports.results`) hold them, and the
renderers (:mod:`~hoity_env.evaluation.reports.markdown`,
:mod:`~hoity_env.evaluation.reports.plots`) read them, without either knowing the
other.  Their field order is the column order of the CSV and JSON forms.
"""

from __future__ import annotations

import dataclasses

__all__ = ["AgentStats", "PairStats", "Rating", "SeatStats"]


@dataclasses.dataclass(frozen=True)
class AgentStats:
    """One agent's totals; ``games`` counts seat-games (one per seat held in each game).

    ``wins`` counts games won outright *or shared* (a tie for first is a win for
    each tied player), which keeps them counts for the Wilson interval;
    ``win_share`` is the mean of the shares (1/number of winners), whose sum over
    all agents equals the number of decided games.
    """

    agent: str
    entries: int
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    win_share: float
    mean_rank: float
    mean_position: float
    mean_rounds: float


@dataclasses.dataclass(frozen=True)
class SeatStats:
    """Results by seat over all agents: with duplicate rotation, a fairness check of the seats."""

    seat: int
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_rank: float


@dataclasses.dataclass(frozen=True)
class Rating:
    """A Plackett-Luce rating (Elo-like points, pool mean 0) and its 95% interval, with pooled results.

    ``ci_low``/``ci_high`` belong to the win rate (Wilson), ``rating_low``/``rating_high``
    to the rating (see :mod:`hoity_env.evaluation.ratings`).
    """

    agent: str
    rating: float
    rating_low: float
    rating_high: float
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_rank: float


@dataclasses.dataclass(frozen=True)
class PairStats:
    """Head to head: ``agent`` in one seat against ``num_players - 1`` copies of ``opponent``."""

    agent: str
    opponent: str
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_rank: float
