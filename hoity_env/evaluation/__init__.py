"""Evaluation harness: seeded duplicate-format matches, tournaments, ratings and reports (docs/design.md §5).

* :func:`evaluate` plays games between any agents (spec strings, as for
  :func:`hoity_env.agents.make`) with duplicate seat rotation and reports, per
  agent, wins, the win rate with its 95% Wilson interval, mean rank, mean final
  position and mean game length, plus win rates by seat;
* :func:`tournament` rates a pool in a round robin (a Plackett-Luce fit over all games);
* :func:`head_to_head` fills a matrix: each agent against copies of each other;
* how the games are played is one :class:`MatchSettings` (players, games, seed, rules,
  workers, engine, backend, address, progress, records), or its fields as keywords;
* results are dataclasses with JSON, CSV, Markdown and PNG forms (:mod:`hoity_env.evaluation.reports`);
* ``hoity-eval`` (:mod:`hoity_env.cli.eval`) is the command line over it all.

This package only plays games.  Measuring strength by training best responses
(exploitability, the ladder) is :mod:`hoity_env.strength`, one layer up: nothing
here imports it, nor ``training/``.

Same seed, same results, whatever ``workers=`` is, and on either backend (``backend="ray"``
plays the same chunks as Ray tasks: :mod:`hoity_env.evaluation.ray_backend`).
"""

from __future__ import annotations

from hoity_env.evaluation.harness import evaluate, evaluate_tables, play_tables
from hoity_env.evaluation.match import GameRecord, agent_seeds, deal_seed, play_game
from hoity_env.evaluation.reports import (
    AgentStats,
    EvaluationResult,
    HeadToHeadResult,
    PairStats,
    Rating,
    SeatStats,
    TournamentResult,
    WinTally,
)
from hoity_env.evaluation.settings import MatchSettings
from hoity_env.evaluation.stats import Z95, competition_ranks, wilson_interval
from hoity_env.evaluation.tournament import RATING_MODEL, head_to_head, round_robin_tables, tournament

__all__ = [
    "RATING_MODEL",
    "Z95",
    "AgentStats",
    "EvaluationResult",
    "GameRecord",
    "HeadToHeadResult",
    "MatchSettings",
    "PairStats",
    "Rating",
    "SeatStats",
    "TournamentResult",
    "WinTally",
    "agent_seeds",
    "competition_ranks",
    "deal_seed",
    "evaluate",
    "evaluate_tables",
    "head_to_head",
    "play_game",
    "play_tables",
    "round_robin_tables",
    "tournament",
    "wilson_interval",
]
