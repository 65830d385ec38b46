"""Agents that play hoity_env seats: the scripted zoo and saved policies (docs/design.md §3).

``make(spec, seed=...)`` builds one from a spec string, the form every CLI uses:

* ``random``: uniform over legal actions;
* ``collector``, ``thief``, ``detective``, ``expert``, ``expert-v1``: scripted styles (see their
  docstrings; ``expert-v1`` is the first expert, kept as a yardstick);
* ``champion``, ``champion-v1``, ``champion-v3``, ``reference`` (and ``champion-greedy``, …):
  our trained policies (``champion-v1`` is the first champion), shipped in the package as numpy weights
  and played without torch, by sampling
  (greedily with ``-greedy``), each at the tables (rules, player count) it is registered at;
  see :mod:`hoity_env.agents.policies.named` and :mod:`hoity_env.agents.policies.registry`;
* ``ppo:PATH`` / ``ppo-sample:PATH``: a ``MaskablePPO`` checkpoint played
  deterministically / by sampling (needs the ``train`` extra); a fast-learner policy with
  memory of the game plays as a :class:`~hoity_env.agents.policies.history_agent.HistoryAgent`;
* ``npz:PATH``: numpy weights written by ``python -m hoity_env.agents.policies.export`` (the format
  of the shipped policies), played by sampling without torch; a plain ``.npz`` read without
  pickles, so safe to load from anywhere;
* ``rllib:PATH``: a module saved by ``training/rllib_ppo.py --save``, played greedily
  (needs the ``rllib`` extra, not a running Ray);
* ``population:PATH``: a mixture over the members listed in a ``population.json``
  manifest, one member drawn per game (:mod:`hoity_env.agents.policies.population`);
  ``champion-mix`` is such a mixture shipped in the package (``champion``, ``champion-v1``
  and ``champion-v3``, equal weights), played by sampling, without torch.

Every agent ``make`` builds is both an :class:`Agent` (``act`` for one seat) and a
:class:`BatchAgent` (``act_batch`` over ``(B, D)`` observations and ``(B, A)``
masks, rows from any games and phases); ``act`` is ``act_batch`` at ``B = 1``.
"""

from __future__ import annotations

import importlib

from hoity_env.agents.base import Agent, PlayingAgent, SeededAgent, legal_actions
from hoity_env.agents.batch import BatchAgent, check_batch
from hoity_env.agents.bots.expert import ExpertAgent
from hoity_env.agents.bots.expert_v1 import ExpertV1Agent
from hoity_env.agents.bots.random import RandomAgent
from hoity_env.agents.bots.styles import CollectorAgent, DetectiveAgent, ThiefAgent
from hoity_env.agents.bots.zoo import AGENT_NAMES, SCRIPTED
from hoity_env.agents.policies.history_agent import HistoryAgent
from hoity_env.agents.policies.mlp import load_policy
from hoity_env.agents.policies.named import NAMED_AGENTS, NumpyPolicyAgent, make_named
from hoity_env.agents.policies.population import (
    NAMED_POPULATIONS,
    POPULATION_PREFIX,
    PopulationAgent,
    named_population,
    write_population,
)
from hoity_env.agents.policies.sb3 import PolicyAgent
from hoity_env.agents.view import AgentInputError, BatchObservationView, ObservationView
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError

RLLIB_AGENT_MODULE = "hoity_env.integrations.rllib.agent"
"""Where ``rllib:PATH`` agents come from, imported only when one is asked for."""
POLICY_PREFIXES = ("ppo:", "ppo-sample:")
SPEC_FORMS = (
    f"{', '.join(AGENT_NAMES + NAMED_AGENTS + NAMED_POPULATIONS)}, "
    "ppo:PATH, ppo-sample:PATH, npz:PATH, rllib:PATH, population:PATH"
)
"""Every form of agent spec, for help texts and errors."""
NPZ_PREFIX = "npz:"
"""An exported policy's numpy weights (:mod:`hoity_env.agents.policies.export`), played by sampling."""
_EXAMPLES = {
    POPULATION_PREFIX: ("manifest", "runs/league/population.json"),
    NPZ_PREFIX: ("weights file", "runs/policy.npz"),
}
"""What a ``PREFIX:PATH`` spec names, and an example, where it is not a checkpoint."""


def make(
    spec: str,
    seed: int | None = None,
    *,
    num_players: int | None = None,
    rules: str | RulesConfig | None = None,
    num_actions: int | None = None,
) -> PlayingAgent:
    """Build an agent from a spec string (see the module docstring); it has ``act`` and ``act_batch``.

    ``num_players``/``rules``/``num_actions`` describe the game (pass them all: every caller
    in the package does).  A named agent or population loads its file for that table (None:
    standard rules, 4 players) and a table without one is refused, naming the tables it plays; a
    checkpoint trained for another player count or ruleset is refused up front.
    """
    if not isinstance(spec, str) or not spec:
        raise ConfigError(f"agent spec must be a non-empty string, got {spec!r}")
    for prefix in (*POLICY_PREFIXES, NPZ_PREFIX, "rllib:", POPULATION_PREFIX):
        if spec.startswith(prefix) and not spec[len(prefix) :].strip():
            what, example = _EXAMPLES.get(prefix, ("checkpoint", "runs/ppo/final_model.zip"))
            raise ConfigError(
                f"agent spec {spec!r} names no {what}: write {prefix}PATH (e.g. {prefix}{example})"
            )
    for prefix in POLICY_PREFIXES:
        if spec.startswith(prefix):
            policy = PolicyAgent(
                spec[len(prefix) :],
                deterministic=prefix == "ppo:",
                seed=seed,
                num_players=num_players,
                rules=rules,
                num_actions=num_actions,
            )
            return HistoryAgent(policy) if policy.memory else policy
    if spec.startswith(NPZ_PREFIX):
        return NumpyPolicyAgent(
            load_policy(spec[len(NPZ_PREFIX) :]),
            name=spec,
            seed=seed,
            num_players=num_players,
            num_actions=num_actions,
        )
    if spec.startswith(POPULATION_PREFIX) or spec in NAMED_POPULATIONS:
        named = spec in NAMED_POPULATIONS  # a shipped manifest, reported by its name
        return PopulationAgent(
            named_population(spec, rules, num_players) if named else spec[len(POPULATION_PREFIX) :],
            make,
            seed=seed,
            num_players=num_players,
            rules=rules,
            num_actions=num_actions,
            name=spec if named else None,
        )
    if spec.startswith("rllib:"):
        return _rllib_agent(spec[len("rllib:") :], seed, num_players, num_actions)
    if spec in NAMED_AGENTS:
        return make_named(spec, seed, num_players=num_players, rules=rules, num_actions=num_actions)
    if spec not in SCRIPTED:
        raise ConfigError(f"unknown agent {spec!r}; choose one of {SPEC_FORMS}")
    return SCRIPTED[spec](seed)


def _rllib_agent(
    path: str, seed: int | None, num_players: int | None, num_actions: int | None
) -> PlayingAgent:
    """A module saved by ``training/rllib_ppo.py --save``; needs the ``rllib`` extra, not a running Ray."""
    try:  # by import path: the RLlib adapter sits above the agents (docs/design.md, the layout)
        agent_class = importlib.import_module(RLLIB_AGENT_MODULE).RLlibAgent
    except ImportError as exc:
        raise ConfigError(
            "rllib:PATH agents need the rllib extra: pip install torch==2.13.0 && pip install -e '.[rllib]'"
        ) from exc
    agent: PlayingAgent = agent_class(path, seed=seed, num_players=num_players, num_actions=num_actions)
    return agent


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
    "ThiefAgent",
    "check_batch",
    "legal_actions",
    "make",
    "write_population",
]
