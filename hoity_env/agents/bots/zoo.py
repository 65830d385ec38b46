"""The scripted zoo by name: each style's constructor, taking a seed (what ``make(NAME)`` builds).

A module of its own, below :mod:`hoity_env.agents`, so that modules ``make`` builds
from (:mod:`hoity_env.agents.policies.population` checks member names) can read the names
without importing ``make``.
"""

from __future__ import annotations

from collections.abc import Callable

from hoity_env.agents.base import SeededAgent
from hoity_env.agents.bots.expert import ExpertAgent
from hoity_env.agents.bots.expert_v1 import ExpertV1Agent
from hoity_env.agents.bots.random import RandomAgent
from hoity_env.agents.bots.styles import CollectorAgent, DetectiveAgent, ThiefAgent

__all__ = ["AGENT_NAMES", "SCRIPTED"]

SCRIPTED: dict[str, Callable[[int | None], SeededAgent]] = {
    "random": RandomAgent,
    "collector": CollectorAgent,
    "thief": ThiefAgent,
    "detective": DetectiveAgent,
    "expert": ExpertAgent,
    "expert-v1": ExpertV1Agent,
}
"""Names of the scripted zoo, each a constructor taking a seed."""

AGENT_NAMES = tuple(SCRIPTED)
