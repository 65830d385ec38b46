"""Round-robin tournaments with Plackett-Luce ratings, and head-to-head matrices.

Tables.  With a pool of at least ``num_players`` agents, every combination of
``num_players`` distinct members is a table (pool order kept inside a table).
A smaller pool fills the seats cyclically: table ``j`` seats
``pool[j], pool[j+1], …`` (indices mod the pool size), one table per starting
member, dropping tables that are seat rotations of one already listed (which
duplicate rotation would replay anyway).  So with ``a,b,c`` and 4 seats the
tables are ``abca``, ``bcab`` and ``cabc``: each member gets the extra seat once.
Every table is played like :func:`~hoity_env.evaluation.evaluate` with the
same seed (same deals, all seat rotations), so ``hoity-eval`` on any one table
reproduces its games exactly.

Ratings: a Plackett-Luce maximum-likelihood fit over every game of every
table at once (:mod:`hoity_env.evaluation.ratings`), so they do not depend on
the order the games were played or listed in.  Why Plackett-Luce: a Hoity
Toity game ends in a full ranking of 2-6 players, and Plackett-Luce rates a
multi-player ranking directly, as a sequence of "who is best among those
left" choices; Bradley-Terry would break each game into pairwise results that
are not independent.  Ratings are Elo-like points around the pool's mean (0),
each with a 95% interval; the table is sorted by rating.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.harness import Rules, evaluate_tables, rules_name
from hoity_env.evaluation.match import GameRecord, check_seed
from hoity_env.evaluation.ratings import RATING_MODEL, FittedRating, fit_ratings
from hoity_env.evaluation.report import HeadToHeadResult, PairStats, Rating, TournamentResult
from hoity_env.evaluation.summary import agent_stats

__all__ = ["RATING_MODEL", "head_to_head", "rate_games", "round_robin_tables", "tournament"]


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
    """The tables of a round robin (see the module docstring for the small-pool rule)."""
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


def rate_games(pool: Sequence[str], records: Sequence[GameRecord]) -> dict[str, FittedRating]:
    """Plackett-Luce ratings of ``pool`` fitted on all ``records`` at once (their order does not matter)."""
    return fit_ratings(list(pool), records)


def tournament(
    pool: Sequence[str],
    num_players: int = 4,
    games: int = 200,
    seed: int = 0,
    workers: int = 1,
    rules: Rules = "standard",
    progress: bool = True,
    engine: str = "auto",
    backend: str = "local",
    address: str | None = None,
) -> TournamentResult:
    """Round robin over ``pool``, at least ``games`` games per table, rated with Plackett-Luce."""
    seed = check_seed(seed)
    tables = round_robin_tables(pool, num_players)
    results = evaluate_tables(
        tables,
        num_players=num_players,
        games=games,
        seed=seed,
        workers=workers,
        rules=rules,
        progress=progress,
        engine=engine,
        backend=backend,
        address=address,
    )
    every = [rec for result in results for rec in result.records]
    ratings = rate_games(pool, every)
    pooled = {s.agent: s for s in agent_stats(every, order=list(pool))}
    rows = tuple(
        Rating(
            agent=name,
            rating=ratings[name].rating,
            rating_low=ratings[name].low,
            rating_high=ratings[name].high,
            games=pooled[name].games,
            wins=pooled[name].wins,
            win_rate=pooled[name].win_rate,
            ci_low=pooled[name].ci_low,
            ci_high=pooled[name].ci_high,
            mean_rank=pooled[name].mean_rank,
        )
        for name in pool
    )
    return TournamentResult(
        pool=tuple(pool),
        num_players=num_players,
        rules=rules_name(rules),
        seed=seed,
        rating_model=RATING_MODEL,
        ratings=rows,
        tables=results,
    )


def head_to_head(
    pool: Sequence[str],
    num_players: int = 4,
    games: int = 200,
    seed: int = 0,
    workers: int = 1,
    rules: Rules = "standard",
    progress: bool = True,
    engine: str = "auto",
    backend: str = "local",
    address: str | None = None,
) -> HeadToHeadResult:
    """For each ordered pair (A, B): A against ``num_players - 1`` copies of B, A's win rate.

    "Even" is ``1/num_players``; every pair replays the same deals with rotation.
    """
    seed = check_seed(seed)
    members = _check_pool(pool)
    pairs = [(a, b) for a in members for b in members if a != b]
    tables = [(a, *([b] * (num_players - 1))) for a, b in pairs]
    results = evaluate_tables(
        tables,
        num_players=num_players,
        games=games,
        seed=seed,
        workers=workers,
        rules=rules,
        progress=progress,
        engine=engine,
        backend=backend,
        address=address,
    )
    stats = []
    for (a, b), result in zip(pairs, results, strict=True):
        s = next(row for row in result.agent_stats if row.agent == a)
        stats.append(
            PairStats(
                agent=a,
                opponent=b,
                games=s.games,
                wins=s.wins,
                win_rate=s.win_rate,
                ci_low=s.ci_low,
                ci_high=s.ci_high,
                mean_rank=s.mean_rank,
            )
        )
    return HeadToHeadResult(
        pool=tuple(members),
        num_players=num_players,
        rules=rules_name(rules),
        seed=seed,
        pairs=tuple(stats),
        tables=results,
    )
