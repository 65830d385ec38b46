"""Agents that play hoity_env seats: the scripted zoo and saved policies (docs/design.md §3).

``make(spec, seed=...)`` builds one from a spec string, the form every command line uses (the forms:
:func:`~hoity_env.agents.specs.make`).  Every agent is told the game it plays (``rules`` and ``num_players``,
``standard``/4 where none are given) and refuses observations of another.  Each is both an
:class:`~hoity_env.agents.base.Agent` (``act`` for one seat) and a :class:`~hoity_env.agents.batch.BatchAgent`
(``act_batch`` over ``(B, D)`` rows from any games and phases); ``act`` is ``act_batch`` at ``B = 1``, so
each decision rule is written once.  See docs/agents.md.
"""

from __future__ import annotations

from hoity_env.agents.base import Agent, PlayingAgent, SeededAgent, legal_actions
from hoity_env.agents.batch import BatchAgent, check_batch
from hoity_env.agents.bots import AGENT_NAMES, SCRIPTED
from hoity_env.agents.bots.expert import ExpertAgent
from hoity_env.agents.bots.expert_v1 import ExpertV1Agent
from hoity_env.agents.bots.random import RandomAgent
from hoity_env.agents.bots.styles import CollectorAgent, DetectiveAgent, ThiefAgent
from hoity_env.agents.policies.history_agent import HistoryAgent
from hoity_env.agents.policies.named import NAMED_AGENTS, NumpyPolicyAgent
from hoity_env.agents.policies.population import NAMED_POPULATIONS, PopulationAgent, write_population
from hoity_env.agents.policies.sb3 import PolicyAgent
from hoity_env.agents.specs import SPEC_FORMS, make
from hoity_env.agents.view import AgentInputError, BatchObservationView, ObservationView, Table

__all__ = [
    "AGENT_NAMES",
    "NAMED_AGENTS",
    "NAMED_POPULATIONS",
    "SCRIPTED",
    "SPEC_FORMS",
    "Agent",
    "AgentInputError",
    "BatchAgent",
    "BatchObservationView",
    "CollectorAgent",
    "DetectiveAgent",
    "ExpertAgent",
    "ExpertV1Agent",
    "HistoryAgent",
    "NumpyPolicyAgent",
    "ObservationView",
    "PlayingAgent",
    "PolicyAgent",
    "PopulationAgent",
    "RandomAgent",
    "SeededAgent",
    "Table",
    "ThiefAgent",
    "check_batch",
    "legal_actions",
    "make",
    "write_population",
]
