"""Measuring strength by training: approximate exploitability and the ladder (docs/design.md §5).

* :func:`exploitability` trains a best response (the fast learner, or MaskablePPO)
  against copies of an agent for a fixed budget and scores it (an estimate from below at that budget);
* :func:`exploitability_sweep` does that at several budgets, seeds and learners (a
  :class:`Sweep`) and reports per target the maximum, still an estimate from below;
* :func:`ladder` measures a list of agents three ways: head to head, two ratings,
  and exploitability, reusing finished best responses;
* :class:`BestResponse` says how each best response is trained (its learner, settings, memory
  and start: fresh, warm from the target's weights, or a curriculum, :mod:`hoity_env.strength.start`);
  how its evaluation games are played is a :class:`hoity_env.evaluation.MatchSettings`.

One layer above :mod:`hoity_env.evaluation` (which only plays games): this package
imports it, never the reverse, and never ``training/``.  Training needs the
``train`` extra; importing this package does not.
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
