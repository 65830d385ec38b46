"""RLlib (new API stack) policies as agents: the masked PPO module and a saved module behind ``Agent``.

It sits with the agents because a saved module is one more kind of saved policy: :class:`RLlibAgent`
(spec ``rllib:PATH``) plays one greedily under the mask, loaded without starting Ray.  Needs the
``rllib`` extra (its own virtual environment: ray[rllib] pins gymnasium); nothing imports this module
unless an ``rllib:PATH`` spec or the RLlib recipe asks for it.  See docs/scaling.md.
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
from ray.rllib.utils.torch_utils import FLOAT_MIN

from hoity_env.agents.batch import check_batch, one_row
from hoity_env.agents.policies.sb3 import check_sizes
from hoity_env.agents.view import Table
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError

SHARED = "shared"
"""The module id of the policy every seat shares."""
MAIN = "main"
"""The module id of the policy a league trains (``training/rllib_ppo.py --mode league``)."""


class MaskedPPOModule(DefaultPPOTorchRLModule):  # type: ignore[misc]
    """RLlib's PPO module on ``obs["observation"]``, masked-out logits set to ``FLOAT_MIN``.

    RLlib's own action-masking example expects the key ``"observations"``; this reads our dict.  RLlib
    pickles a module's class by its import path, so :mod:`hoity_env.integrations.rllib.env` re-exports
    it for checkpoints that name that path."""

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
        rules: str | RulesConfig | None = None,
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
        self.table = Table.of(rules, num_players)
        """The game the agent plays (the package's defaults where none is given)."""
        check_sizes(self.path, self.obs_dim, self.num_actions, self.table, num_actions)

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


__all__ = ["MAIN", "SHARED", "MaskedPPOModule", "RLlibAgent", "module_folder"]
