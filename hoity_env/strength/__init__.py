"""Measuring strength by training: approximate exploitability and the ladder.

A strong agent is one a learner trained against it cannot take apart, so :func:`exploitability` and
:func:`exploitability_sweep` train best responses against copies of an agent (estimates from below
at their budgets) and :func:`ladder` adds head to head games and ratings.  One layer above
:mod:`hoity_env.evaluation`, never imported by it; training needs the ``train`` extra, importing
this package does not.  See docs/evaluation.md (approximate exploitability, the ladder).
"""

from __future__ import annotations

from hoity_env.strength.exploit import exploitability
from hoity_env.strength.ladder import LadderResult, LadderRow, ladder
from hoity_env.strength.response import PPO_SETTINGS, BestResponse
from hoity_env.strength.results import CurvePoint, ExploitEntry, ExploitResult, SweepEntry, SweepResult
from hoity_env.strength.sweep import Sweep, exploitability_sweep

__all__ = [
    "PPO_SETTINGS",
    "BestResponse",
    "CurvePoint",
    "ExploitEntry",
    "ExploitResult",
    "LadderResult",
    "LadderRow",
    "Sweep",
    "SweepEntry",
    "SweepResult",
    "exploitability",
    "exploitability_sweep",
    "ladder",
]
