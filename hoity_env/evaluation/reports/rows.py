"""The rows of the result tables: one agent, one seat, one rating, one pair of agents.

Plain frozen dataclasses of numbers and names: the results hold them and the renderers read them,
without either knowing the other.  Every row that counts wins is a :class:`WinTally`, so what a win
and its interval mean is said once; the CSV and JSON column order is
:func:`~hoity_env.evaluation.reports.serialize.columns`.  See docs/evaluation.md.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

__all__ = ["AgentStats", "PairStats", "Rating", "SeatStats", "WinTally"]


@dataclasses.dataclass(frozen=True)
class WinTally:
    """Games played and won, the win rate and its 95% Wilson interval: what every result row counts.

    ``wins`` counts games won outright *or shared* (a tie for first is a win for
    each tied player), which keeps them counts for the Wilson interval;
    ``win_rate`` is ``wins / games`` (0 without games) and ``ci_low``/``ci_high``
    its 95% Wilson interval (:func:`~hoity_env.evaluation.stats.wilson_interval`).
    The agent, seat, rating and pair rows and the best responses'
    (:mod:`hoity_env.strength.results`) inherit these fields rather than declare
    them again, so the meaning has one definition.
    """

    LEAD: ClassVar[tuple[str, ...]] = ()
    """The fields written before the tally's in CSV and JSON (inheritance declares the tally
    first; ``LEAD`` keeps each row's key columns in front, as the files have always had them)."""

    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float

    def win_fields(self) -> dict[str, Any]:
        """The tally's fields by name, for a row built from another row's games (``**row.win_fields()``)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(WinTally)}


@dataclasses.dataclass(frozen=True)
class AgentStats(WinTally):
    """One agent's totals; ``games`` counts seat-games (one per seat held in each game).

    So ``random``'s win rate in ``expert,random,random,random`` is the chance that a given random
    seat wins, comparable with 1/n.  Those seat-games are not independent, so the interval of an
    agent with several ``entries`` is a little narrow.
    ``win_share`` is the mean of the shares (1/number of winners), whose sum over
    all agents equals the number of decided games.
    """

    LEAD = ("agent", "entries")

    agent: str
    entries: int
    win_share: float
    mean_rank: float
    mean_position: float
    mean_rounds: float


@dataclasses.dataclass(frozen=True)
class SeatStats(WinTally):
    """Results by seat over all agents: with duplicate rotation, a fairness check of the seats."""

    LEAD = ("seat",)

    seat: int
    mean_rank: float


@dataclasses.dataclass(frozen=True)
class Rating(WinTally):
    """A Plackett-Luce rating (Elo-like points, pool mean 0) and its 95% interval, with pooled results.

    ``ci_low``/``ci_high`` belong to the win rate (Wilson), ``rating_low``/``rating_high``
    to the rating (see :mod:`hoity_env.evaluation.ratings`).
    """

    LEAD = ("agent", "rating", "rating_low", "rating_high")

    agent: str
    rating: float
    rating_low: float
    rating_high: float
    mean_rank: float


@dataclasses.dataclass(frozen=True)
class PairStats(WinTally):
    """Head to head: ``agent`` in one seat against ``num_players - 1`` copies of ``opponent``."""

    LEAD = ("agent", "opponent")

    agent: str
    opponent: str
    mean_rank: float
