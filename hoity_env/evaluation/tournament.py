"""Round-robin tournaments with Plackett-Luce ratings, and head-to-head matrices.

Every table is played like :func:`~hoity_env.evaluation.evaluate` with the same seed, so ``hoity-eval``
on any one table reproduces its games.  Ratings are one Plackett-Luce fit over every game of every table
(:mod:`hoity_env.evaluation.ratings`): it rates a full ranking of 2-6 players directly, where
Bradley-Terry would cut a game into pairwise results that are not independent.  See docs/evaluation.md.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.harness import summarize, tallies
from hoity_env.evaluation.match import GameRecord
from hoity_env.evaluation.ratings import RATING_MODEL, ChoiceCounts, FittedRating, fit_ratings
from hoity_env.evaluation.reports.results import HeadToHeadResult, TournamentResult
from hoity_env.evaluation.reports.rows import PairStats, Rating
from hoity_env.evaluation.settings import MatchSettings, match_settings
from hoity_env.evaluation.tally import Tally

__all__ = ["RATING_MODEL", "head_to_head", "rate_games", "round_robin_tables", "tournament"]

POOL_GAMES = 200
"""Games per table of a tournament or head-to-head matrix called without ``games``."""


def _check_pool(pool: Sequence[str]) -> list[str]:
    if isinstance(pool, str):
        raise ConfigError("the pool must be a list of agent specs, not one string")
    members = list(pool)
    if len(members) < 2:
        raise ConfigError(f"a pool needs at least 2 agents, got {members}")
    repeated = sorted({m for m in members if members.count(m) > 1})
    if repeated:
        raise ConfigError(f"pool members must be distinct, repeated: {repeated}")
    return members


def round_robin_tables(pool: Sequence[str], num_players: int) -> list[tuple[str, ...]]:
    """The tables of a round robin: every combination of ``num_players`` distinct members, in pool order.

    A smaller pool fills the seats cyclically: table ``j`` seats ``pool[j], pool[j+1], …`` (indices
    mod the pool size), dropping tables that are seat rotations of one already listed.  So ``a,b,c``
    at 4 seats gives ``abca``, ``bcab`` and ``cabc``: each member gets the extra seat once.
    """
    members = _check_pool(pool)
    if len(members) >= num_players:
        return list(itertools.combinations(members, num_players))
    m = len(members)
    tables: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for j in range(m):
        table = tuple(members[(j + i) % m] for i in range(num_players))
        canonical = min(table[r:] + table[:r] for r in range(num_players))
        if canonical not in seen:
            seen.add(canonical)
            tables.append(table)
    return tables


def rate_games(pool: Sequence[str], games: Sequence[GameRecord] | ChoiceCounts) -> dict[str, FittedRating]:
    """Plackett-Luce ratings of ``pool`` fitted on all games at once (their order does not matter).

    ``games``: the records, or their counts as a tally keeps them.
    """
    return fit_ratings(list(pool), games)


def tournament(
    pool: Sequence[str], settings: MatchSettings | None = None, **options: Any
) -> TournamentResult:
    """Round robin over ``pool``, at least ``games`` games per table, rated with Plackett-Luce.

    ``settings`` (or its fields as keywords, as for :func:`~hoity_env.evaluation.evaluate`;
    ``games`` defaults to 200 here) say how the games are played.
    """
    chosen = match_settings(settings, options, "tournament", games=POOL_GAMES)
    tables = round_robin_tables(pool, chosen.num_players)
    per_table = tallies(tables, chosen)
    pooled = Tally.pooled(per_table)
    ratings = rate_games(pool, pooled.choices)
    stats = {s.agent: s for s in pooled.agent_stats(order=list(pool))}
    rows = tuple(
        Rating(
            agent=name,
            rating=ratings[name].rating,
            rating_low=ratings[name].low,
            rating_high=ratings[name].high,
            **stats[name].win_fields(),
            mean_rank=stats[name].mean_rank,
        )
        for name in pool
    )
    return TournamentResult(
        pool=tuple(pool),
        num_players=chosen.num_players,
        rules=chosen.rules_name,
        seed=chosen.seed,
        rating_model=RATING_MODEL,
        ratings=rows,
        tables=tuple(summarize(t, tally, chosen) for t, tally in zip(tables, per_table, strict=True)),
    )


def head_to_head(
    pool: Sequence[str], settings: MatchSettings | None = None, **options: Any
) -> HeadToHeadResult:
    """For each ordered pair (A, B): A against ``num_players - 1`` copies of B, A's win rate.

    "Even" is ``1/num_players``; every pair replays the same deals with rotation.
    ``settings`` as for :func:`tournament`.
    """
    chosen = match_settings(settings, options, "head_to_head", games=POOL_GAMES)
    members = _check_pool(pool)
    pairs = [(a, b) for a in members for b in members if a != b]
    tables = [(a, *([b] * (chosen.num_players - 1))) for a, b in pairs]
    results = tuple(
        summarize(t, tally, chosen) for t, tally in zip(tables, tallies(tables, chosen), strict=True)
    )
    stats = []
    for (a, b), result in zip(pairs, results, strict=True):
        s = next(row for row in result.agent_stats if row.agent == a)
        stats.append(PairStats(agent=a, opponent=b, **s.win_fields(), mean_rank=s.mean_rank))
    return HeadToHeadResult(
        pool=tuple(members),
        num_players=chosen.num_players,
        rules=chosen.rules_name,
        seed=chosen.seed,
        pairs=tuple(stats),
        tables=results,
    )
