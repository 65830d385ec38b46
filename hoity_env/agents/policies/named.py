"""The named agents: hoity_env's trained policies shipped inside the package, playable without torch.

``champion`` is the strongest single policy we trained, head to head (the ``champion-mix``
population is harder to exploit): at 4 players of the standard rules the main agent of a league
with exploiters, PFSP and a magnet (``docs/reference/champion-v2/``), elsewhere one padded
network per ruleset (``docs/reference/champion-v4/``); ``reference`` is the reference PPO run
(``training/train_ppo.py``, ``docs/reference/``).  The lineage's names (``champion-v1`` …) are
retired (:data:`~hoity_env.agents.policies.registry.RETIRED`); their weights ship as
``champion-mix`` members, played as ``npz:`` files.
Each plays the tables (rules preset, player count) it is registered at in
``hoity_env/agents/models/registry.json`` (:mod:`hoity_env.agents.policies.registry`): ``make(name,
num_players=..., rules=...)`` loads the file of the game's table and refuses a table without
one, naming those it plays.  The files are plain numpy weights
(:mod:`hoity_env.agents.policies.mlp`) exported from ``MaskablePPO`` checkpoints (package data;
``tests/agents/test_named_agents.py`` keeps them equal to a fresh export of those checkpoints and
under 3 MB together); a padded one (:class:`hoity_env.environment.padding.PaddedInputs`) plays several counts.

Plain names sample the policy, as we recommend for playing against them (a
greedy policy is an easy, predictable prey); ``-greedy`` plays the most probable
legal action.  A named agent makes exactly the choices of the ``PolicyAgent`` of
its checkpoint (``ppo-sample:docs/reference/champion-v2/final_model.zip`` for
``champion``, ``ppo:`` for ``champion-greedy``) given the same seed: the same
probabilities (to float rounding) and one uniform per row from its own generator.
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
    """The named agent ``spec`` (one of :data:`NAMED_AGENTS`) for the game's table (module docstring).

    ``rules``/``num_players`` name the table (None: the standard rules, 4 players); a table the
    name has no file for is refused, naming those it plays.
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
