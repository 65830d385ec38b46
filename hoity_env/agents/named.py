"""The named agents: hoity_env's trained policies shipped inside the package, playable without torch.

``champion`` is the strongest single policy we trained (the ``champion-mix`` population is
harder to exploit): the main agent of
a league with exploiters, PFSP and a magnet (``hoity-league``, the run in
``docs/reference/champion-v2/``).  ``champion-v1`` is the first champion
(``training/selfplay.py``, ``docs/reference/champion/``), kept as a yardstick;
``champion-v3`` a longer league run that beats ``champion`` head to head but is far easier
to exploit (``docs/reference/champion-v3/``), shipped as a member of the ``champion-mix``
population (:mod:`hoity_env.agents.population`); and
``reference`` the reference PPO run (``training/train_ppo.py``, ``docs/reference/``).
All are four-player policies of the standard rules, exported from their ``MaskablePPO``
checkpoints to plain numpy weights (:mod:`hoity_env.agents.mlp_policy`) under ``hoity_env/agents/models/``
(package data; ``tests/test_named_agents.py`` keeps them equal to a fresh export of
those checkpoints and under 3 MB together).

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

from hoity_env.agents.mlp_policy import MlpPolicy, load_policy, masked_softmax
from hoity_env.agents.policy import DistributionAgent, check_sizes, renormalized
from hoity_env.engine.errors import ConfigError

__all__ = ["MODELS", "NAMED_AGENTS", "NumpyPolicyAgent", "make_named", "named_policy"]

MODELS: dict[str, str] = {
    "champion": "docs/reference/champion-v2/final_model.zip",
    "champion-v1": "docs/reference/champion/final_model.zip",
    "champion-v3": "docs/reference/champion-v3/final_model.zip",
    "reference": "docs/reference/final_model.zip",
}
"""Each shipped model and the checkpoint of the repository it is exported from
(``hoity_env/agents/models/NAME.npz``; ``python -m hoity_env.agents.export --shipped`` rewrites them)."""

GREEDY_SUFFIX = "-greedy"
NAMED_AGENTS = tuple(name + suffix for name in MODELS for suffix in ("", GREEDY_SUFFIX))
"""Every named agent spec: ``champion``, ``champion-v1``, ``champion-v3``, ``reference`` and each one's
``-greedy`` form."""


class NumpyPolicyAgent(DistributionAgent):
    """Plays an :class:`~hoity_env.agents.mlp_policy.MlpPolicy` with masks, greedily or by sampling."""

    def __init__(
        self,
        policy: MlpPolicy,
        *,
        name: str,
        deterministic: bool = False,
        seed: int | None = None,
        num_players: int | None = None,
        num_actions: int | None = None,
    ) -> None:
        super().__init__(deterministic=deterministic, seed=seed)
        self.name = name
        self.policy = policy
        self.obs_dim = policy.obs_dim
        self.num_actions = policy.num_actions
        self.num_players = check_sizes(
            Path(policy.where), self.obs_dim, self.num_actions, num_players, num_actions
        )

    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(B, A)``: the policy's distribution over actions per row, zero off the ``(B, A)`` bool mask."""
        return renormalized(masked_softmax(self.policy.logits(observations), masks), masks)


@functools.cache
def named_policy(model: str) -> MlpPolicy:
    """The shipped policy ``model`` (a key of :data:`MODELS`), read once per process."""
    if model not in MODELS:
        raise ConfigError(f"unknown named model {model!r}; choose one of {', '.join(MODELS)}")
    resource = resources.files("hoity_env.agents") / "models" / f"{model}.npz"
    with resource.open("rb") as fh:
        return load_policy(fh, where=f"hoity_env/agents/models/{model}.npz")


def make_named(
    spec: str, seed: int | None = None, *, num_players: int | None = None, num_actions: int | None = None
) -> NumpyPolicyAgent:
    """The named agent ``spec`` (one of :data:`NAMED_AGENTS`), checked against the game's sizes."""
    if spec not in NAMED_AGENTS:
        raise ConfigError(f"unknown named agent {spec!r}; choose one of {', '.join(NAMED_AGENTS)}")
    greedy = spec.endswith(GREEDY_SUFFIX)
    model = spec[: -len(GREEDY_SUFFIX)] if greedy else spec
    return NumpyPolicyAgent(
        named_policy(model),
        name=spec,
        deterministic=greedy,
        seed=seed,
        num_players=num_players,
        num_actions=num_actions,
    )
