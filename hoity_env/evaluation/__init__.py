"""Evaluation harness: seeded duplicate-format matches, tournaments, ratings and reports.

:func:`evaluate`, :func:`tournament` and :func:`head_to_head` play agent specs as one
:class:`MatchSettings` says (or its fields as keywords), with the same results for one seed whatever
the workers or backend; results are dataclasses with JSON, CSV, Markdown and PNG forms
(:mod:`hoity_env.evaluation.reports`).  This package only plays games: measuring strength by training
best responses is :mod:`hoity_env.strength`, one layer up.  See docs/evaluation.md.
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
