"""Per-agent and per-seat statistics, and the ratings' counts, summed as the games stream in.

An evaluation of billions of games must not hold their records, so the harness hands each game to a
:class:`Tally` and drops it.  The tally keeps counts and integer sums, whose size depends on the agents,
never on the number of games, and which give exactly the numbers the records would.
See docs/design.md §5.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from fractions import Fraction

from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.ratings import ChoiceCounts
from hoity_env.evaluation.reports.rows import AgentStats, SeatStats, WinTally
from hoity_env.evaluation.stats import wilson_interval

__all__ = ["Tally", "agent_stats", "seat_stats"]


@dataclasses.dataclass
class _Sums:
    """One agent's (or one seat's) running totals."""

    entries: int = 0
    games: int = 0
    wins: int = 0
    shared: Counter[int] = dataclasses.field(default_factory=Counter)
    """Wins by the number of winners they were shared with (1: outright)."""
    rank: int = 0
    position: int = 0
    rounds: int = 0

    def add(self, won: bool, winners: int, rank: int, position: int, rounds: int) -> None:
        self.games += 1
        self.wins += won
        if won:
            self.shared[winners] += 1
        self.rank += rank
        self.position += position
        self.rounds += rounds

    def merge(self, other: _Sums) -> None:
        self.entries = max(self.entries, other.entries)
        self.games += other.games
        self.wins += other.wins
        self.shared.update(other.shared)
        self.rank += other.rank
        self.position += other.position
        self.rounds += other.rounds

    def mean(self, total: int | Fraction) -> float:
        """``total / games``, as :func:`~hoity_env.evaluation.stats.mean` of the values; 0 if none."""
        return float(total) / self.games if self.games else 0.0

    def tally(self) -> WinTally:
        """The games and wins with the win rate and its Wilson interval, as every row reports them."""
        low, high = wilson_interval(self.wins, self.games)
        rate = self.wins / self.games if self.games else 0.0
        return WinTally(games=self.games, wins=self.wins, win_rate=rate, ci_low=low, ci_high=high)

    def share(self) -> Fraction:
        """The exact sum of the win shares (``1/k`` as a float, for a win shared by ``k``)."""
        return sum((Fraction(1.0 / k) * n for k, n in self.shared.items()), Fraction(0))


class Tally:
    """Everything an evaluation reports, added game by game in bounded memory.

    It keeps wins, seat-games, rank, position and round totals, how many winners each win was
    shared with, and the Plackett-Luce :class:`~hoity_env.evaluation.ratings.ChoiceCounts`:
    integer sums are exact, and the win share is an exact sum of ``1/k`` terms rounded once, as
    :func:`math.fsum` rounds it.  ``keep_records`` also keeps the games themselves
    (``records=True``): memory then grows with their number, as asked.
    """

    def __init__(self, num_players: int, *, keep_records: bool = False) -> None:
        self.num_players = num_players
        self.games = 0
        self.truncated = 0
        self.agents: dict[str, _Sums] = {}
        self.seats = [_Sums() for _ in range(num_players)]
        self.choices = ChoiceCounts()
        self.records: list[GameRecord] | None = [] if keep_records else None

    def add(self, record: GameRecord) -> None:
        """Count one game."""
        self.games += 1
        self.truncated += record.truncated
        winners = len(record.winners)
        held = Counter(record.agents)
        for seat, name in enumerate(record.agents):
            sums = self.agents.setdefault(name, _Sums())
            sums.entries = max(sums.entries, held[name])
            args = (
                seat in record.winners,
                winners,
                record.ranks[seat],
                record.positions[seat],
                record.rounds,
            )
            sums.add(*args)
            self.seats[seat].add(*args)
        self.choices.add(record)
        if self.records is not None:
            self.records.append(record)

    def add_all(self, records: Iterable[GameRecord]) -> Tally:
        """Count every game of ``records``; returns ``self``."""
        for record in records:
            self.add(record)
        return self

    @classmethod
    def pooled(cls, tallies: Sequence[Tally]) -> Tally:
        """One tally of every game of ``tallies`` (a round robin's pooled results)."""
        out = cls(tallies[0].num_players if tallies else 0)
        for tally in tallies:
            out.games += tally.games
            out.truncated += tally.truncated
            for name, sums in tally.agents.items():
                out.agents.setdefault(name, _Sums()).merge(sums)
            out.choices.merge(tally.choices)
        return out

    def agent_stats(self, order: Sequence[str] | None = None) -> tuple[AgentStats, ...]:
        """One row per distinct agent (``order``, default: first appearance in the games).

        A win is a game won outright or shared (see :class:`AgentStats`).
        """
        names = list(dict.fromkeys(order if order is not None else self.agents))
        rows = []
        for name in names:
            s = self.agents.get(name, _Sums())
            rows.append(
                AgentStats(
                    agent=name,
                    entries=s.entries,
                    **s.tally().win_fields(),
                    win_share=s.mean(s.share()),
                    mean_rank=s.mean(s.rank),
                    mean_position=s.mean(s.position),
                    mean_rounds=s.mean(s.rounds),
                )
            )
        return tuple(rows)

    def seat_stats(self) -> tuple[SeatStats, ...]:
        """Wins and mean rank by seat, whoever sat there (the seat-fairness check)."""
        rows = []
        for seat, s in enumerate(self.seats):
            rows.append(SeatStats(seat=seat, **s.tally().win_fields(), mean_rank=s.mean(s.rank)))
        return tuple(rows)


def agent_stats(records: Sequence[GameRecord], order: Sequence[str] | None = None) -> tuple[AgentStats, ...]:
    """:meth:`Tally.agent_stats` of ``records``."""
    num_players = len(records[0].agents) if records else 0
    return Tally(num_players).add_all(records).agent_stats(order)


def seat_stats(records: Sequence[GameRecord], num_players: int) -> tuple[SeatStats, ...]:
    """:meth:`Tally.seat_stats` of ``records``."""
    return Tally(num_players).add_all(records).seat_stats()
