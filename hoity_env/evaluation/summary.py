"""Turn game records into per-agent and per-seat statistics.

An agent is identified by its spec string; when the same spec holds several
seats of a game (``expert,random,random,random``), every seat it held counts as
one seat-game.  So ``random``'s win rate there is "the chance that a given random
seat wins", directly comparable with 1/n.  Those seat-games are not independent
(two randoms at one table rarely both win), so the interval of an agent with
several entries is a little narrower than it should be; the report shows the
number of entries beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.report import AgentStats, SeatStats
from hoity_env.evaluation.stats import mean, wilson_interval

__all__ = ["agent_stats", "distinct", "seat_stats"]


def distinct(names: Sequence[str]) -> list[str]:
    """Names in first-appearance order, each once."""
    return list(dict.fromkeys(names))


def agent_stats(records: Sequence[GameRecord], order: Sequence[str] | None = None) -> tuple[AgentStats, ...]:
    """One row per distinct agent (``order``, default: first appearance in the records).

    A win is a game won outright or shared (see :class:`AgentStats`).
    """
    names = distinct(order if order is not None else [a for r in records for a in r.agents])
    out = []
    for name in names:
        wins = games = 0
        shares: list[float] = []
        ranks: list[float] = []
        positions: list[float] = []
        rounds: list[float] = []
        entries = 0
        for rec in records:
            seats = [s for s, a in enumerate(rec.agents) if a == name]
            entries = max(entries, len(seats))
            for s in seats:
                games += 1
                won = s in rec.winners
                wins += won
                shares.append(1.0 / len(rec.winners) if won else 0.0)
                ranks.append(rec.ranks[s])
                positions.append(rec.positions[s])
                rounds.append(rec.rounds)
        low, high = wilson_interval(wins, games)
        out.append(
            AgentStats(
                agent=name,
                entries=entries,
                games=games,
                wins=wins,
                win_rate=wins / games if games else 0.0,
                ci_low=low,
                ci_high=high,
                win_share=mean(shares) if games else 0.0,
                mean_rank=mean(ranks) if games else 0.0,
                mean_position=mean(positions) if games else 0.0,
                mean_rounds=mean(rounds) if games else 0.0,
            )
        )
    return tuple(out)


def seat_stats(records: Sequence[GameRecord], num_players: int) -> tuple[SeatStats, ...]:
    """Wins and mean rank by seat, whoever sat there (the seat-fairness check)."""
    out = []
    games = len(records)
    for seat in range(num_players):
        wins = sum(1 for r in records if seat in r.winners)
        low, high = wilson_interval(wins, games)
        out.append(
            SeatStats(
                seat=seat,
                games=games,
                wins=wins,
                win_rate=wins / games if games else 0.0,
                ci_low=low,
                ci_high=high,
                mean_rank=mean([float(r.ranks[seat]) for r in records]) if games else 0.0,
            )
        )
    return tuple(out)
