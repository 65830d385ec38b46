"""``HoityVsBotsVectorEnv``: the single-agent view as a Gymnasium ``VectorEnv`` over the batched engine.

``gymnasium.make_vec("hoity/HoityToityVsBots-v0", num_envs=N, vectorization_mode="vector_entry_point")``
builds it: N games stepped as arrays in one process, for single-agent learners.  See docs/engine.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from hoity_env.wrappers.batched_vs_bots import BatchedVsBots


class HoityVsBotsVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):  # type: ignore[misc]
    """N games, a learner seat each, batched bots in the other seats.

    It takes the arguments of :class:`~hoity_env.wrappers.batched_vs_bots.BatchedVsBots` (which does the
    work); observations are ``[N, D]`` float32, actions ``[N]``.  Autoreset is **same step**: a game that
    ends is reset inside the step that ended it, and its last observation is ``infos["final_obs"][i]``
    where ``infos["_final_obs"][i]``.  The learners' legal actions are ``infos["action_mask"]``
    (``[N, A]`` int8) and :meth:`action_masks`.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(self, num_envs: int = 16, render_mode: str | None = None, **kwargs: Any) -> None:
        if render_mode is not None:
            # Pictures are one-game features; say so instead of ignoring the request.
            from hoity_env.engine.errors import ConfigError

            raise ConfigError(f"the batched vector env does not render (render_mode={render_mode!r})")
        self.core = BatchedVsBots(num_envs=num_envs, **kwargs)
        self.num_envs = num_envs
        self.render_mode = None
        env = self.core.env
        self.single_observation_space = env.single_observation_space
        self.single_action_space = env.single_action_space
        self.observation_space = spaces.Box(0.0, 1.0, (num_envs, env.obs_dim), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, env.num_actions))
        self._masks = np.zeros((num_envs, env.num_actions), dtype=np.int8)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New games in every slot (``seed`` seeds slot k's deals with ``seed + k``)."""
        if isinstance(seed, list):  # Gymnasium passes per-env seeds as a list: slot 0's is the base
            seed = seed[0]
        obs, self._masks, infos = self.core.reset(seed=seed)
        return obs, self._infos(infos)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One step of every game; rewards ``float32``, terminations/truncations ``bool``."""
        obs, self._masks, rewards, terminated, truncated, infos = self.core.step(np.asarray(actions))
        out = self._infos(infos)
        if "_final" in infos:
            out["final_obs"] = infos["final_observation"]
            out["_final_obs"] = infos["_final"]
        return obs, rewards, terminated, truncated, out

    def _infos(self, infos: dict[str, Any]) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=bool)
        out: dict[str, Any] = {"action_mask": self._masks.copy(), "_action_mask": every}
        for key in ("illegal_action", "learner_seat"):
            out[key], out["_" + key] = infos[key], every
        return out

    def action_masks(self) -> np.ndarray:
        """``[N, A]`` bool legal actions of the learners (sb3-contrib's ``action_masks``)."""
        return self._masks.astype(bool)

    def set_opponent_pool(self, pool: Any) -> None:
        """Replace the opponent pool (each game draws from it at its next episode)."""
        self.core.set_opponent_pool(pool)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""


__all__ = ["HoityVsBotsVectorEnv"]
