"""The named agents: hoity_env's trained policies shipped inside the package, playable without torch.

``champion`` is our strongest single policy head to head, ``reference`` the reference PPO run
(``training/train_ppo.py``).  Each plays the tables (rules preset, player count) it is registered at
(:mod:`hoity_env.agents.policies.registry`), from numpy weights (:mod:`hoity_env.agents.policies.mlp`)
exported from ``MaskablePPO`` checkpoints and shipped as package data.  Plain names sample the policy (a
greedy policy is an easy, predictable prey); ``-greedy`` plays the most probable legal action.
See docs/agents.md (Named agents at each table).
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import numpy as np

from hoity_env.agents.policies.mlp import MlpPolicy, load_policy, masked_softmax
from hoity_env.agents.policies.registry import registry, resolve, retired, table_text
from hoity_env.agents.policies.sb3 import DistributionAgent, check_sizes, renormalized
from hoity_env.agents.view import Table
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError

__all__ = ["MODELS", "NAMED_AGENTS", "NumpyPolicyAgent", "make_named", "named_policy"]

MODELS: dict[str, str] = {
    file[: -len(".npz")]: str(source) for file, source in registry().sources.items() if file.endswith(".npz")
}
"""Each shipped model file (by stem: ``hoity_env/agents/models/STEM.npz``) and the checkpoint of the
repository it is exported from (``hoity-export --shipped`` rewrites them)."""

GREEDY_SUFFIX = "-greedy"
NAMED_AGENTS = tuple(name + suffix for name in registry().names("model") for suffix in ("", GREEDY_SUFFIX))
"""Every named agent spec: ``champion``, ``reference`` and each one's
``-greedy`` form (the policy names of the registry)."""


class NumpyPolicyAgent(DistributionAgent):
    """Plays an :class:`~hoity_env.agents.policies.mlp.MlpPolicy` with masks, greedily or by sampling,
    at the table it is told (``rules``, ``num_players``; the package's defaults where none is given)."""

    def __init__(
        self,
        policy: MlpPolicy,
        *,
        name: str,
        deterministic: bool = False,
        seed: int | None = None,
        rules: str | RulesConfig | None = None,
        num_players: int | None = None,
        num_actions: int | None = None,
    ) -> None:
        super().__init__(deterministic=deterministic, seed=seed)
        self.name = name
        self.policy = policy
        self.obs_dim = policy.obs_dim
        self.num_actions = policy.num_actions
        self.padded = policy.padded
        self.table = Table.of(rules, num_players)
        """The game the agent plays."""
        check_sizes(Path(policy.where), self.obs_dim, self.num_actions, self.table, num_actions, self.padded)

    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(B, A)``: the policy's distribution over actions per row, zero off the ``(B, A)`` bool mask."""
        logits = self.policy.logits(self.policy_inputs(observations))
        return renormalized(masked_softmax(logits, masks), masks)


@functools.cache
def named_policy(model: str) -> MlpPolicy:
    """The shipped policy file ``model`` (a key of :data:`MODELS`: a file stem), read once per process."""
    if model not in MODELS:
        raise ConfigError(f"unknown named model {model!r}; choose one of {', '.join(MODELS)}")
    resource = resources.files("hoity_env.agents") / "models" / f"{model}.npz"
    with resource.open("rb") as fh:
        return load_policy(fh, where=f"hoity_env/agents/models/{model}.npz")


def make_named(
    spec: str,
    seed: int | None = None,
    *,
    num_players: int | None = None,
    rules: str | RulesConfig | None = None,
    num_actions: int | None = None,
) -> NumpyPolicyAgent:
    """The named agent ``spec`` (one of :data:`NAMED_AGENTS`) for the game's table.

    ``rules``/``num_players`` name the table (None: the standard rules, 4 players); a table the
    name has no file for is refused, naming those it plays.  Given the same seed, it makes exactly the
    choices of the :class:`~hoity_env.agents.policies.sb3.PolicyAgent` of its checkpoint (``ppo-sample:``,
    or ``ppo:`` for ``-greedy``): the same probabilities (to float rounding) and one uniform per row from
    its own generator.
    """
    if spec not in NAMED_AGENTS:
        raise ConfigError(
            retired(spec) or f"unknown named agent {spec!r}; choose one of {', '.join(NAMED_AGENTS)}"
        )
    greedy = spec.endswith(GREEDY_SUFFIX)
    name = spec[: -len(GREEDY_SUFFIX)] if greedy else spec
    entry = resolve(name, rules, num_players)
    policy = named_policy(entry.stem)
    if num_actions is not None and num_actions != policy.num_actions:  # rules changed, and not passed
        plays = "; ".join(table_text(*t) for t in registry().tables(name))
        raise ConfigError(
            f"{name} plays only preset rules, and this game has {num_actions} actions, not the "
            f"{policy.num_actions} of {table_text(entry.rules, entry.num_players)}; {name} plays at: {plays}"
        )
    return NumpyPolicyAgent(
        policy,
        name=spec,
        deterministic=greedy,
        seed=seed,
        rules=rules,
        num_players=num_players,
        num_actions=num_actions,
    )
