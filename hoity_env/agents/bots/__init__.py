"""The scripted players: random, the styles, the experts (docs/agents.md), and the zoo by name.

:data:`SCRIPTED` is what ``hoity_env.agents.make(NAME)`` builds for a scripted name; the
modules above the bots (the population manifest's checks, the spec table) read the names here.
"""

from __future__ import annotations

from hoity_env.agents.base import SeededAgent
from hoity_env.agents.bots.expert import ExpertAgent
from hoity_env.agents.bots.expert_v1 import ExpertV1Agent
from hoity_env.agents.bots.random import RandomAgent
from hoity_env.agents.bots.styles import CollectorAgent, DetectiveAgent, ThiefAgent

__all__ = ["AGENT_NAMES", "SCRIPTED"]

SCRIPTED: dict[str, type[SeededAgent]] = {
    "random": RandomAgent,
    "collector": CollectorAgent,
    "thief": ThiefAgent,
    "detective": DetectiveAgent,
    "expert": ExpertAgent,
    "expert-v1": ExpertV1Agent,
}
"""Names of the scripted zoo, each a class built with ``(seed, rules=..., num_players=...)``."""

AGENT_NAMES = tuple(SCRIPTED)
