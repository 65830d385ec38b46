"""Agents that play hoity_env seats: the scripted zoo and saved policies (docs/design.md §3).

``make(spec, seed=...)`` builds one from a spec string, the form every CLI uses:

* ``random``: uniform over legal actions;
* ``collector``, ``thief``, ``detective``, ``expert``, ``expert-v1``: scripted styles (see their
  docstrings; ``expert-v1`` is the first expert, kept as a yardstick);
* ``champion``, ``reference`` (and ``champion-greedy``, ``reference-greedy``):
  our trained policies, shipped in the package as numpy weights
  and played without torch, by sampling
  (greedily with ``-greedy``), each at the tables (rules, player count) it is registered at;
  see :mod:`hoity_env.agents.policies.named` and :mod:`hoity_env.agents.policies.registry`;
* ``ppo:PATH`` / ``ppo-sample:PATH``: a ``MaskablePPO`` checkpoint played
  deterministically / by sampling (needs the ``train`` extra); a fast-learner policy with
  memory of the game plays as a :class:`~hoity_env.agents.policies.history_agent.HistoryAgent`;
* ``npz:PATH``: numpy weights written by ``hoity-export`` (the format
  of the shipped policies), played by sampling without torch; a plain ``.npz`` read without
  pickles, so safe to load from anywhere;
* ``rllib:PATH``: a module saved by ``training/rllib_ppo.py --save``, played greedily
  (needs the ``rllib`` extra, not a running Ray);
* ``population:PATH``: a mixture over the members listed in a ``population.json``
  manifest, one member drawn per game (:mod:`hoity_env.agents.policies.population`);
  ``champion-mix`` is such a mixture shipped in the package (at 4 players, standard: ``champion``,
  champion v1 and v3, equal weights), played by sampling, without torch.

Every agent ``make`` builds is told the game it plays (``rules`` and ``num_players``,
the package's defaults ``standard``/4 where none are given) and refuses observations of
another; the spec forms are a table in :mod:`hoity_env.agents.specs`.  Each is both an
:class:`Agent` (``act`` for one seat) and a :class:`BatchAgent` (``act_batch`` over
``(B, D)`` observations and ``(B, A)`` masks, rows from any games and phases); ``act``
is ``act_batch`` at ``B = 1``.
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
