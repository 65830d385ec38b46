"""RLlib (new API stack): a ``MultiAgentEnv`` adapter, a masked PPO module, and a saved module as an agent.

Needs the ``rllib`` extra (ray[rllib] 2.60, its own virtual environment: it pins
gymnasium 1.2.2).  The classes live in the package, not in the training script,
because RLlib pickles a module's class by its import path: a module trained by
``training/rllib_ppo.py`` loads anywhere ``hoity_env`` is installed.

* :class:`HoityRLlibEnv`: RLlib wants ``"__all__"`` in the done dicts; every seat ends
  at once here.  Built with ``illegal_action="raise"`` unless told otherwise, so one
  illegal action anywhere stops training: the masking is checked on every step.
* :class:`MaskedPPOModule`: RLlib's default PPO module fed ``obs["observation"]``,
  with the logits of masked-out actions set to ``FLOAT_MIN`` (RLlib's own
  action-masking example expects the key ``"observations"``; this reads our dict).
* :class:`RLlibAgent` (agent spec ``rllib:PATH``): a saved module playing greedily
  under the mask, loaded without starting Ray.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

from hoity_env.agents.batch import check_batch, one_row
from hoity_env.agents.policy import check_sizes
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.parallel_env import HoityParallelEnv

SHARED = "shared"
"""The module id of the policy every seat shares."""
MAIN = "main"
"""The module id of the policy a league trains (``training/rllib_ppo.py --mode league``)."""


class HoityRLlibEnv(MultiAgentEnv):  # type: ignore[misc]
    """The parallel env as RLlib's ``MultiAgentEnv``; ``config`` holds the env's keyword arguments."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        kwargs = {"illegal_action": "raise", **dict(config or {})}
        self.env = HoityParallelEnv(**kwargs)
        if not self.env.output_format.mask_in_observation:
            raise ConfigError(
                "HoityRLlibEnv needs the mask in the observation dict (action_mask='observation')"
            )
        self.possible_agents = list(self.env.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = {a: self.env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game (see :meth:`HoityParallelEnv.reset`)."""
        obs, infos = self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.agents)
        return obs, infos

    def step(self, action_dict: dict[str, Any]) -> tuple[Any, Any, Any, Any, Any]:
        """One joint step; ``"__all__"`` is every seat's flag (they end together)."""
        obs, rewards, terms, truncs, infos = self.env.step(action_dict)
        self.agents = list(self.env.agents)
        terms["__all__"] = all(terms.values())
        truncs["__all__"] = all(truncs.values())
        return obs, rewards, terms, truncs, infos


class MaskedPPOModule(DefaultPPOTorchRLModule):  # type: ignore[misc]
    """RLlib's PPO module on ``obs["observation"]``, masked-out logits set to ``FLOAT_MIN``."""

    def __init__(self, *, observation_space: gym.spaces.Dict | None = None, **kwargs: Any) -> None:
        if (
            not isinstance(observation_space, gym.spaces.Dict)
            or "action_mask" not in observation_space.spaces
        ):
            raise ConfigError("MaskedPPOModule needs the Dict(observation, action_mask) observation space")
        self.dict_space = observation_space
        super().__init__(observation_space=observation_space["observation"], **kwargs)

    def setup(self) -> None:
        """Build the networks for the vector; then show RLlib the dict space the env really has."""
        super().setup()
        self.observation_space = self.dict_space

    def _masked(self, forward: Any, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        out: dict[str, Any] = forward({**batch, Columns.OBS: obs["observation"]}, **kwargs)
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(obs["action_mask"] == 0, FLOAT_MIN)
        return out

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._masked(super()._forward_inference, batch, **kwargs)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._masked(super()._forward_exploration, batch, **kwargs)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._masked(super()._forward_train, batch, **kwargs)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        """Values of the vector part of the observation (for GAE)."""
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            batch = {**batch, Columns.OBS: obs["observation"]}
        return super().compute_values(batch, embeddings)


def module_folder(path: Path) -> Path:
    """The trained module's folder inside an algorithm checkpoint (``algo.save()``), or ``path``.

    The trained module is ``shared`` (``--mode shared``) or ``main`` (``--mode league``).
    """
    for module_id in (SHARED, MAIN):
        inner = path / "learner_group" / "learner" / "rl_module" / module_id
        if inner.is_dir():
            return inner
    return path


class RLlibAgent:
    """A saved :class:`MaskedPPOModule` behind the :class:`~hoity_env.agents.Agent` protocol (greedy)."""

    def __init__(
        self,
        path: str | Path,
        *,
        seed: int | None = None,
        num_players: int | None = None,
        num_actions: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.name = f"rllib:{self.path}"
        folder = module_folder(self.path)
        if not (folder / "module_state.pkl").exists() and not (folder / "class_and_ctor_args.pkl").exists():
            raise ConfigError(f"{self.path} is not an RLlib module or algorithm checkpoint folder")
        try:
            self.module = RLModule.from_checkpoint(str(folder))
        except Exception as exc:  # RLlib raises many kinds on a damaged folder
            raise ConfigError(
                f"checkpoint {self.path} could not be loaded as an RLlib module: {exc}"
            ) from exc
        space = getattr(self.module, "dict_space", None)
        if not isinstance(space, gym.spaces.Dict):
            raise ConfigError(f"checkpoint {self.path} does not hold a hoity_env MaskedPPOModule")
        shape = space["observation"].shape or (0,)
        self.obs_dim = int(shape[0])
        self.num_actions = int(self.module.action_space.n)
        self.num_players = check_sizes(self.path, self.obs_dim, self.num_actions, num_players, num_actions)

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reseed: the agent plays greedily."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The module's most probable legal action: :meth:`act_batch` on a batch of one."""
        return int(self.act_batch(*one_row(observation, action_mask))[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(B,)`` int64: the argmax of the masked logits of one forward pass."""
        obs, masks = check_batch(
            observations, action_masks, obs_dim=self.obs_dim, num_actions=self.num_actions
        )
        batch = {
            Columns.OBS: {
                "observation": torch.as_tensor(obs, dtype=torch.float32),
                "action_mask": torch.as_tensor(masks.astype(np.int8)),
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].cpu().numpy()
        best: np.ndarray = np.where(masks, logits, -np.inf).argmax(axis=1).astype(np.int64)
        return best
