"""Stable-Baselines3 ``VecEnv``s over the batched engine, for ``MaskablePPO`` (needs the ``train`` extra).

:class:`HoityVsBotsSB3VecEnv` (one learner seat per game against batched bots),
:class:`HoitySharedSB3VecEnv` (parameter sharing: every seat of every game is an SB3 env, with the masks
SuperSuit's vector env cannot give ``MaskablePPO``) and :class:`HoityLeagueSB3VecEnv` (both at once).  All
follow SB3's conventions and pass masks as sb3-contrib reads them (``env_method("action_masks")``).
See docs/engine.md and docs/design.md §4.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from hoity_env.engine.errors import ConfigError
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.wrappers.batched_vs_bots import BatchedVsBots


class _BatchedSB3Base(VecEnv):  # type: ignore[misc]
    """What the forms share: seeds, masks, attribute access and SB3's info lists.

    ``reset()`` returns observations only; a finished game's last observation is
    ``infos[i]["terminal_observation"]``, and a game cut by the round limit has
    ``infos[i]["TimeLimit.truncated"] = True``.  ``seed(s)`` before ``reset()`` seeds slot k's deals
    with ``s + k``.
    """

    def __init__(
        self, num_envs: int, observation_space: gym.Space[Any], action_space: gym.Space[Any]
    ) -> None:
        self.render_mode = None  # the batch does not render; SB3 warns when the attribute is missing
        super().__init__(num_envs, observation_space, action_space)
        self._actions: np.ndarray | None = None
        self._masks = np.zeros((num_envs, int(action_space.n)), dtype=np.int8)  # type: ignore[attr-defined]

    def _base_seed(self) -> int | None:
        seed = self._seeds[0] if self._seeds else None
        self._reset_seeds()
        return None if seed is None else int(seed)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def action_masks(self) -> np.ndarray:
        """``[num_envs, A]`` bool legal actions now."""
        return self._masks.astype(bool)

    @staticmethod
    def _info_list(
        count: int, final: np.ndarray | None, final_obs: np.ndarray | None, cut: np.ndarray
    ) -> list[dict[str, Any]]:
        infos: list[dict[str, Any]] = [{} for _ in range(count)]
        if final is not None and final_obs is not None:
            for i in np.flatnonzero(final).tolist():
                infos[i]["terminal_observation"] = final_obs[i]
                infos[i]["TimeLimit.truncated"] = bool(cut[i])
        return infos

    # --- SB3's attribute plumbing: the batch is one object, so every env answers alike ---
    def _indices(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks`` gives each env's row; other methods run once for the whole batch."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:  # type: ignore[type-arg]
        return [False for _ in self._indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def close(self) -> None:
        """Nothing to release."""


class HoityVsBotsSB3VecEnv(_BatchedSB3Base):
    """One learner seat per game against batched bots (arguments of :class:`BatchedVsBots`)."""

    def __init__(self, num_envs: int = 16, **kwargs: Any) -> None:
        self.core = BatchedVsBots(num_envs=num_envs, **kwargs)
        env = self.core.env
        super().__init__(num_envs, env.single_observation_space, env.single_action_space)

    def reset(self) -> np.ndarray:
        obs, self._masks, _ = self.core.reset(seed=self._base_seed())
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        obs, self._masks, rewards, terminated, truncated, infos = self.core.step(self._actions)
        done = terminated | truncated
        return (
            obs,
            rewards,
            done,
            self._info_list(self.num_envs, infos.get("_final"), infos.get("final_observation"), truncated),
        )

    def set_opponent_pool(self, pool: Sequence[Any]) -> None:
        """Replace the opponent pool (self-play leagues grow this way)."""
        self.core.set_opponent_pool(pool)


class HoitySharedSB3VecEnv(_BatchedSB3Base):
    """Parameter sharing: env ``g * n + i`` is seat ``i`` of game ``g`` (arguments of
    :class:`~hoity_env.environment.batched.BatchedHoityEnv`, with ``num_games``)."""

    def __init__(self, num_games: int = 16, **kwargs: Any) -> None:
        self.env = BatchedHoityEnv(num_envs=num_games, **kwargs)
        self.num_games = num_games
        self.num_players = self.env.num_players
        super().__init__(
            num_games * self.num_players, self.env.single_observation_space, self.env.single_action_space
        )

    def _flat(self, per_seat: np.ndarray) -> np.ndarray:
        return per_seat.reshape(self.num_envs, *per_seat.shape[2:])

    def reset(self) -> np.ndarray:
        obs, masks, _ = self.env.reset(seed=self._base_seed())
        self._masks = self._flat(masks)
        return self._flat(obs)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        joint = self._actions.reshape(self.num_games, self.num_players)
        obs, masks, rewards, terminated, truncated, infos = self.env.step(joint)
        self._masks = self._flat(masks)
        n = self.num_players
        done = np.repeat(terminated | truncated, n)
        final = np.repeat(infos["_final"], n) if "_final" in infos else None
        final_obs = self._flat(infos["final_observation"]) if "_final" in infos else None
        return (
            self._flat(obs),
            rewards.reshape(-1),
            done,
            self._info_list(self.num_envs, final, final_obs, np.repeat(truncated, n)),
        )


class HoityLeagueSB3VecEnv(_BatchedSB3Base):
    """League self-play in one ``VecEnv``: parameter-shared self-play games plus games against a pool.

    Envs ``0 … num_games × num_players - 1`` are :class:`HoitySharedSB3VecEnv`'s (every seat
    of ``num_games`` games is the learner); the next ``num_pool_games`` envs are
    :class:`HoityVsBotsSB3VecEnv`'s (one learner seat, drawn every episode, against
    opponents drawn from ``opponent_pool`` every episode).  Why both: self-play alone
    can drift into a style that only beats itself, and a fixed pool alone is learned
    by heart; the mix trains against the current self, its past selves and the bots.

    ``set_opponent_pool`` replaces the pool (a league admits snapshots this way).
    ``seed(s)`` seeds the self-play games ``s + k`` and the pool games
    ``s + num_games + k``, so no two slots deal the same games.
    """

    def __init__(
        self,
        num_games: int = 8,
        num_pool_games: int = 16,
        opponent_pool: Sequence[Any] = ("expert",),
        **kwargs: Any,
    ) -> None:
        if num_games < 0 or num_pool_games < 0 or num_games + num_pool_games < 1:
            raise ConfigError(
                f"need num_games >= 0 and num_pool_games >= 0, not both 0; got {num_games}, {num_pool_games}"
            )
        self.shared = HoitySharedSB3VecEnv(num_games=num_games, **kwargs) if num_games else None
        self.pool = (
            HoityVsBotsSB3VecEnv(num_envs=num_pool_games, opponent_pool=opponent_pool, **kwargs)
            if num_pool_games
            else None
        )
        self.parts = [p for p in (self.shared, self.pool) if p is not None]
        self.num_games, self.num_pool_games = num_games, num_pool_games
        first = self.parts[0]
        self._split = self.shared.num_envs if self.shared is not None else 0
        super().__init__(sum(p.num_envs for p in self.parts), first.observation_space, first.action_space)

    def reset(self) -> np.ndarray:
        seed = self._base_seed()
        if seed is not None:
            if self.shared is not None:
                self.shared.seed(seed)
            if self.pool is not None:
                self.pool.seed(seed + self.num_games)
        obs = np.concatenate([p.reset() for p in self.parts])
        self._masks = np.concatenate([p._masks for p in self.parts])
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        cuts = [self._actions[: self._split], self._actions[self._split :]]
        results = []
        for part, actions in zip((self.shared, self.pool), cuts, strict=True):
            if part is not None:
                part.step_async(actions)
                results.append(part.step_wait())
        self._masks = np.concatenate([p._masks for p in self.parts])
        obs, rewards, done, infos = zip(*results, strict=True)
        return (
            np.concatenate(obs),
            np.concatenate(rewards),
            np.concatenate(done),
            [info for part in infos for info in part],
        )

    def set_opponent_pool(self, pool: Sequence[Any]) -> None:
        """Replace the pool the pool games draw from (from each game's next episode)."""
        if self.pool is None:
            raise ConfigError("this league env has no pool games (num_pool_games=0)")
        self.pool.set_opponent_pool(pool)


__all__ = ["HoityLeagueSB3VecEnv", "HoitySharedSB3VecEnv", "HoityVsBotsSB3VecEnv"]
