"""The agent specs: every form of spec, as a table from its name or prefix to the factory that builds it.

The forms are listed in :func:`make`.  Every factory is told the game (its
:class:`~hoity_env.agents.view.Table` and action count), so no agent works the game out from an observation.
The table is one-way: a population's members are built here and handed to it built, so no module below
imports this one; ``rllib:`` names the RLlib agent by import path, imported only when asked for (the RLlib
adapter sits above the agents).  See docs/agents.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from hoity_env.agents.base import PlayingAgent
from hoity_env.agents.bots import AGENT_NAMES, SCRIPTED
from hoity_env.agents.policies.history_agent import HistoryAgent
from hoity_env.agents.policies.mlp import load_policy
from hoity_env.agents.policies.named import NAMED_AGENTS, NumpyPolicyAgent, make_named
from hoity_env.agents.policies.population import (
    NAMED_POPULATIONS,
    POPULATION_PREFIX,
    PopulationAgent,
    member_specs,
    named_population,
    read_population,
)
from hoity_env.agents.policies.registry import retired
from hoity_env.agents.policies.sb3 import PolicyAgent
from hoity_env.agents.view import Table
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError

__all__ = ["NAMES", "NPZ_PREFIX", "PREFIXES", "RLLIB_AGENT_MODULE", "SPEC_FORMS", "make"]

Factory = Callable[[str, int | None, Table, int | None], PlayingAgent]
"""Builds an agent from its name (or what follows its prefix), a seed, the game's table and its
action count (None: not checked)."""

RLLIB_AGENT_MODULE = "hoity_env.integrations.rllib.agent"
"""Where ``rllib:PATH`` agents come from, imported only when one is asked for."""
NPZ_PREFIX = "npz:"
"""An exported policy's numpy weights (:mod:`hoity_env.agents.policies.export`), played by sampling."""
SPEC_FORMS = (
    f"{', '.join(AGENT_NAMES + NAMED_AGENTS + NAMED_POPULATIONS)}, "
    "ppo:PATH, ppo-sample:PATH, npz:PATH, rllib:PATH, population:PATH"
)
"""Every form of agent spec, for help texts and errors."""
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
    """Build an agent from a spec string; it has ``act`` and ``act_batch``.

    The specs: ``random``; the styles ``collector``, ``thief``, ``detective``, ``expert``, ``expert-v1``;
    the named agents ``champion``, ``reference`` (sampling; ``-greedy``: the most probable action) and the
    named population ``champion-mix``, played from shipped numpy weights without torch; ``ppo:PATH`` /
    ``ppo-sample:PATH``, a ``MaskablePPO`` checkpoint played greedily / by sampling (``train`` extra);
    ``npz:PATH``, ``hoity-export``'s numpy weights, read without pickles; ``rllib:PATH``, a module saved by
    ``training/rllib_ppo.py --save`` (``rllib`` extra); ``population:PATH``, a ``population.json`` mixture.

    ``num_players``/``rules``/``num_actions`` describe the game (pass them all: every caller
    in the package does; None: standard rules, 4 players, the action count unchecked).  The
    agent plays that table only: a named agent or population loads its file for it and a table
    without one is refused, naming the tables it plays; a checkpoint trained for another player
    count or ruleset is refused up front; a scripted agent refuses observations of another table.
    """
    if not isinstance(spec, str) or not spec:
        raise ConfigError(f"agent spec must be a non-empty string, got {spec!r}")
    table = Table.of(rules, num_players)
    if spec in NAMES:
        return NAMES[spec](spec, seed, table, num_actions)
    prefix, colon, argument = spec.partition(":")
    factory = PREFIXES.get(prefix + colon)
    if factory is None:
        raise ConfigError(retired(spec) or f"unknown agent {spec!r}; choose one of {SPEC_FORMS}")
    if not argument.strip():
        what, example = _EXAMPLES.get(prefix + colon, ("checkpoint", "runs/ppo/final_model.zip"))
        raise ConfigError(
            f"agent spec {spec!r} names no {what}: write {prefix}:PATH (e.g. {prefix}:{example})"
        )
    return factory(argument, seed, table, num_actions)


def _scripted(name: str, seed: int | None, table: Table, num_actions: int | None) -> PlayingAgent:
    return SCRIPTED[name](seed, rules=table.rules, num_players=table.num_players)


def _named(name: str, seed: int | None, table: Table, num_actions: int | None) -> PlayingAgent:
    return make_named(name, seed, num_players=table.num_players, rules=table.rules, num_actions=num_actions)


def _policy(deterministic: bool) -> Factory:
    """``ppo:PATH`` (greedy) or ``ppo-sample:PATH``; a policy with memory plays as a :class:`HistoryAgent`."""

    def build(path: str, seed: int | None, table: Table, num_actions: int | None) -> PlayingAgent:
        policy = PolicyAgent(
            path,
            deterministic=deterministic,
            seed=seed,
            num_players=table.num_players,
            rules=table.rules,
            num_actions=num_actions,
        )
        return HistoryAgent(policy) if policy.memory else policy

    return build


def _npz(path: str, seed: int | None, table: Table, num_actions: int | None) -> PlayingAgent:
    return NumpyPolicyAgent(
        load_policy(path),
        name=NPZ_PREFIX + path,
        seed=seed,
        rules=table.rules,
        num_players=table.num_players,
        num_actions=num_actions,
    )


def _population(
    path: str | Path, seed: int | None, table: Table, num_actions: int | None, name: str | None = None
) -> PlayingAgent:
    """The manifest at ``path`` with every member built for the table (a member file outside the
    manifest's folder refused before anything is loaded)."""
    path = Path(path)
    members = read_population(path)
    agents = []
    for i, spec in enumerate(member_specs(path, members)):
        try:
            agents.append(
                make(spec, num_players=table.num_players, rules=table.rules, num_actions=num_actions)
            )
        except ConfigError as exc:
            raise ConfigError(f"population {path}: members[{i}].spec {spec!r}: {exc}") from exc
    return PopulationAgent(path, members, agents, seed=seed, name=name)


def _named_population(name: str, seed: int | None, table: Table, num_actions: int | None) -> PlayingAgent:
    """A shipped manifest for the table, reported by its name."""
    return _population(named_population(name, table.rules, table.num_players), seed, table, num_actions, name)


def _rllib(path: str, seed: int | None, table: Table, num_actions: int | None) -> PlayingAgent:
    """A module saved by ``training/rllib_ppo.py --save``; needs the ``rllib`` extra, not a running Ray."""
    try:  # by import path: the RLlib adapter sits above the agents (docs/design.md, the layout)
        agent_class = importlib.import_module(RLLIB_AGENT_MODULE).RLlibAgent
    except ImportError as exc:
        raise ConfigError(
            "rllib:PATH agents need the rllib extra: pip install torch==2.13.0 && pip install -e '.[rllib]'"
        ) from exc
    agent: PlayingAgent = agent_class(
        path, seed=seed, rules=table.rules, num_players=table.num_players, num_actions=num_actions
    )
    return agent


NAMES: dict[str, Factory] = {
    **dict.fromkeys(AGENT_NAMES, _scripted),
    **dict.fromkeys(NAMED_AGENTS, _named),
    **dict.fromkeys(NAMED_POPULATIONS, _named_population),
}
"""Specs that are a name: the scripted zoo, the named agents and the named populations."""
PREFIXES: dict[str, Factory] = {
    "ppo:": _policy(deterministic=True),
    "ppo-sample:": _policy(deterministic=False),
    NPZ_PREFIX: _npz,
    "rllib:": _rllib,
    POPULATION_PREFIX: _population,
}
"""Specs that are ``PREFIX:PATH``, by prefix."""
