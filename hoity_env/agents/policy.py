"""``PolicyAgent``: a saved ``MaskablePPO`` checkpoint behind the :class:`Agent` protocol.

Checkpoints and scripted bots are interchangeable everywhere (harness, CLI, the
single-agent wrapper).  Loading needs the ``train`` extra (sb3-contrib, torch);
everything that can go wrong with a checkpoint raises a clear ``ValueError``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.base import legal_actions, num_players_of
from hoity_env.engine.errors import ConfigError


class PolicyAgent:
    """Plays a ``MaskablePPO`` policy with masks, deterministically or by sampling."""

    def __init__(
        self,
        path: str | Path,
        *,
        deterministic: bool = True,
        seed: int | None = None,
        num_players: int | None = None,
        num_actions: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.deterministic = deterministic
        self.name = f"{'ppo' if deterministic else 'ppo-sample'}:{self.path}"
        self.rng = np.random.default_rng(seed)
        self.model = _load(self.path)
        obs_shape = getattr(self.model.observation_space, "shape", None)
        n_act = getattr(self.model.action_space, "n", None)
        if obs_shape is None or len(obs_shape) != 1 or n_act is None:
            raise ConfigError(
                f"checkpoint {self.path} is not a hoity_env policy (flat Box obs, Discrete actions)"
            )
        self.obs_dim = int(obs_shape[0])
        self.num_actions = int(n_act)
        self.num_players = num_players_of(np.zeros(self.obs_dim))
        if num_players is not None and num_players != self.num_players:
            raise ConfigError(
                f"checkpoint {self.path} was trained for {self.num_players} players, not {num_players}"
            )
        if num_actions is not None and num_actions != self.num_actions:
            raise ConfigError(
                f"checkpoint {self.path} was trained with {self.num_actions} actions (another ruleset "
                f"or starting money), this game has {num_actions}"
            )

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's own generator (used only when sampling; torch's global RNG is never touched)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's action under the mask (checked first, like the scripted agents' masks)."""
        obs = np.asarray(observation, dtype=np.float32)
        if obs.shape != (self.obs_dim,):
            raise ConfigError(f"{self.name} expects observations of length {self.obs_dim}, got {obs.shape}")
        mask = np.asarray(action_mask)
        if mask.shape != (self.num_actions,):
            raise ConfigError(
                f"{self.name} expects an action mask of length {self.num_actions}, got shape {mask.shape}"
            )
        legal_actions(mask)  # an all-zero mask raises the scripted agents' ValueError
        mask = mask.astype(bool)
        probs = self.action_probabilities(obs, mask)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(probs.size, p=probs))

    def action_probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The policy's distribution over actions, zero off the mask."""
        import torch

        policy = self.model.policy
        obs_tensor, _ = policy.obs_to_tensor(observation)
        with torch.no_grad():
            dist = policy.get_distribution(obs_tensor, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs = np.where(mask, probs, 0.0)
        total = probs.sum()
        if not np.isfinite(total) or total <= 0:  # a corrupt policy: fall back to uniform legal
            probs = mask / mask.sum()
        else:
            probs /= total
        out: np.ndarray = probs
        return out


def _load(path: Path) -> Any:
    if not path.is_file():
        raise ConfigError(f"checkpoint file not found: {path}")
    if not zipfile.is_zipfile(path):
        raise ConfigError(f"checkpoint {path} is not a MaskablePPO .zip file (corrupt or wrong format)")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ConfigError(
            "loading a checkpoint needs the train extra: "
            "pip install torch==2.13.0 && pip install -e '.[train]'"
        ) from exc
    try:
        return MaskablePPO.load(str(path), device="cpu")
    except Exception as exc:  # SB3 raises many kinds on a damaged archive
        raise ConfigError(f"checkpoint {path} could not be loaded as MaskablePPO: {exc}") from exc
