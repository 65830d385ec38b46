"""``BatchedHoityEnv``: B games stepped together, every seat of every game acting (self-play).

The parallel env for ``num_envs`` games at once, with arrays instead of dicts, so that self-play pays one
call per step for every game.  Positions, illegal actions and limits behave as in the parallel env.
See docs/engine.md.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from hoity_env.engine.actions import Phase
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError, IllegalActionError
from hoity_env.engine.game import BatchedGame
from hoity_env.engine.inputs import (
    check_action_array,
    check_batch_size,
    check_finite,
    check_open,
    check_seed,
)
from hoity_env.environment.joint_action import ILLEGAL_ACTION_MODES
from hoity_env.environment.positions import played_steps, position_option, read_positions
from hoity_env.environment.rewards import (
    REWARD_MODES,
    progress_shaping_batch,
    rank_rewards_batch,
    win_loss_batch,
)

_ACTION = int(Phase.ACTION)
MAX_SEED = 2**63 - 1
"""Game seeds are drawn as the parallel env draws them: ``integers(0, MAX_SEED)``."""


class BatchedHoityEnv:
    """``num_envs`` games of one configuration, every seat acting; row ``[b, i]`` is seat ``i`` of game ``b``.

    Args:
        num_envs: number of games B (>= 1).
        num_players, rules, reward, illegal_action, illegal_penalty, max_cycles: as for
            :class:`~hoity_env.environment.parallel.HoityParallelEnv` (``max_cycles`` counts
            each game's own steps).
    """

    def __init__(
        self,
        num_envs: int = 64,
        num_players: int = 4,
        rules: str | RulesConfig = "standard",
        reward: str = "win_loss",
        illegal_action: str = "fallback",
        illegal_penalty: float = -1.0,
        max_cycles: int | None = None,
    ) -> None:
        num_envs = check_batch_size(num_envs)
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        illegal_penalty = check_finite(illegal_penalty, "illegal_penalty")
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1
        ):
            raise ConfigError(f"max_cycles must be None or an int >= 1 (step() calls), got {max_cycles!r}")
        self.batched = BatchedGame(rules, num_players)
        self.observer = self.batched.make_observer()
        self.num_envs = num_envs
        self.num_players = self.batched.num_players
        self.rules = self.batched.rules
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = illegal_penalty
        self.max_cycles = max_cycles
        self.num_actions = self.batched.num_actions
        self.obs_dim = self.observer.obs_dim
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.obs_dim,), np.float32)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.state_space = spaces.Box(0.0, 1.0, (self.observer.state_dim,), np.float32)
        self._state: BatchState | None = None
        self._rngs: list[np.random.Generator] = []
        self._cycles = np.zeros(num_envs, dtype=np.int64)
        self._masks: np.ndarray = np.zeros((num_envs, self.num_players, self.num_actions), dtype=np.int8)
        """The masks of the current step (the env hands out copies)."""
        self._warned_illegal = False
        self._closed = False

    # ---------------------------------------------------------------- layout
    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of an observation row (the parallel env's layout)."""
        return self.observer.obs_layout()

    @property
    def game_state(self) -> BatchState:
        """The batch's engine state (read it; change it only through the engine)."""
        if self._state is None:
            raise IllegalActionError("call reset() first")
        return self._state

    # ----------------------------------------------------------------- reset
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Deal ``num_envs`` new games, slot ``k`` seeded with ``seed + k``; or start them from a position,
        ``options={"position": p}`` (one state dict for all games, or a list of ``num_envs``).

        Returns ``(observations [B, n, D], masks [B, n, A], infos)``.  Slot ``k`` then plays exactly
        ``parallel_env().reset(seed=seed + k)`` and its plain ``reset()`` calls.
        """
        check_open(self._closed)
        if seed is not None:
            seed = check_seed(seed)
        position = position_option(options)
        starts = None
        if position is not None:
            starts = read_positions(self.batched.game, position, self.num_envs, self.max_cycles)
        if seed is not None or not self._rngs:
            seeds = [None if seed is None else seed + k for k in range(self.num_envs)]
            self._rngs = [seeding.np_random(s)[0] for s in seeds]
        if starts is None:
            self._state = self.batched.deal(self._game_seeds(range(self.num_envs)))
            self._cycles[:] = 0
        else:
            self._state = self.batched.from_states(starts)
            self._cycles[:] = [played_steps(s) for s in starts]
        obs, masks = self._outputs(self._state)
        infos = {"phase": self._state.phase.copy(), "illegal_action": np.zeros(masks.shape[:2], dtype=bool)}
        return obs, masks, infos

    def _game_seeds(self, slots: Any) -> list[int]:
        return [int(self._rngs[k].integers(0, MAX_SEED)) for k in slots]

    # ------------------------------------------------------------------ step
    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One step of every game: ``actions [B, n]`` in; ``observations [B, n, D]``, ``masks [B, n, A]``,
        ``rewards [B, n]``, ``terminated [B]``, ``truncated [B]`` and ``infos`` out.

        A game that ends is dealt anew in the same step: the returned row is the next game's first
        observation, the finished one's is in ``infos["final_observation"]`` (with ``final_action_mask``
        and ``final_reward``) where ``infos["_final"]``.
        """
        check_open(self._closed)
        state = self._state
        if state is None:
            raise IllegalActionError("call reset() before step()")
        joint, illegal = self._decode(actions)
        before = state.positions.copy() if self.reward_mode == "progress" else None
        acting = state.phase == _ACTION
        self.batched.step(state, joint, validate=False)
        self._cycles += 1
        cut = np.zeros(self.num_envs, dtype=bool)
        if self.max_cycles is not None:
            cut = self._cycles >= self.max_cycles
        terminated = state.terminated.copy()
        truncated = (state.truncated | cut) & ~terminated
        done = terminated | truncated
        rewards = np.zeros(joint.shape, dtype=np.float64)
        if done.any():
            rewards[done] = self._final_rewards(state, done)
        if before is not None and acting.any():
            rewards[acting] += progress_shaping_batch(
                before[acting], state.positions[acting], self.rules.finish
            )
        if self.illegal_action == "penalize":
            rewards += np.where(illegal, self.illegal_penalty, 0.0)
        rewards32 = rewards.astype(np.float32)
        infos: dict[str, Any] = {"illegal_action": illegal}
        obs, masks = self._outputs(state, final=done)
        if done.any():
            ended = np.flatnonzero(done)
            infos["_final"] = done
            infos["final_observation"] = _rows_of(obs, ended)
            infos["final_action_mask"] = _rows_of(masks, ended)
            infos["final_reward"] = _rows_of(rewards32, ended)
            self.batched.reset_games(state, ended, self._game_seeds(ended.tolist()))
            self._cycles[ended] = 0
            fresh = state.select(ended, with_rngs=False)
            obs[ended] = self.observer.observations(fresh)
            masks[ended] = self._masks[ended] = self.batched.action_masks(fresh)
        infos["phase"] = state.phase.copy()
        return obs, masks, rewards32, terminated, truncated, infos

    def _decode(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """Check the joint actions; apply the illegal-action policy; never mutate the games."""
        arr = check_action_array(actions, (self.num_envs, self.num_players))
        out_of_range = (arr < 0) | (arr >= self.num_actions)
        if out_of_range.any():
            g, p = (int(v) for v in np.argwhere(out_of_range)[0])
            raise IllegalActionError(
                f"action {int(arr[g, p])} for player_{p} of game {g} is out of range [0, {self.num_actions})"
            )
        joint, illegal = self.batched.fallback_masks(self._masks, arr)
        if illegal.any():
            g, p = (int(v) for v in np.argwhere(illegal)[0])
            if self.illegal_action == "raise":
                allowed = np.flatnonzero(self._masks[g, p]).tolist()
                raise IllegalActionError(
                    f"action {int(arr[g, p])} is illegal for player_{p} of game {g}; "
                    f"legal actions: {allowed} ({int(illegal.sum())} illegal actions in this step)"
                )
            if not self._warned_illegal:
                self._warned_illegal = True
                warnings.warn(
                    f"player_{p} of game {g} sent masked-out action {int(arr[g, p])}; playing the lowest "
                    f"legal action instead (illegal_action={self.illegal_action!r}; "
                    "infos['illegal_action'] flags each case; this warning is shown once)",
                    stacklevel=3,
                )
        return joint, illegal

    def _final_rewards(self, state: BatchState, done: np.ndarray) -> np.ndarray:
        """Rewards of the step that ends each game in ``done`` (as ``final_rewards``)."""
        if self.reward_mode == "rank":
            return rank_rewards_batch(self.batched.rank_keys(state)[done])
        decided = state.terminated[done]
        return win_loss_batch(state.winners[done] & decided[:, None])

    def _outputs(self, state: BatchState, final: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Observations and masks of every game; ``final`` games get location-step masks."""
        obs = self.observer.observations(state)
        self._masks = self.batched.action_masks(state, location=final)
        return obs, self._masks.copy()

    # --------------------------------------------------------------- extras
    def state(self) -> np.ndarray:
        """``[B, S]`` global states (all hands included), as the parallel env's ``state()``."""
        return self.observer.global_states(self.game_state)

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """``[B, n]`` uniformly random legal actions for the current step (a random policy)."""
        # The current masks are always the engine's legal masks of the games now (finished games
        # were dealt anew in the step), so the engine draws from its own masks.
        return self.batched.random_actions(self.game_state, rng)

    def action_masks(self) -> np.ndarray:
        """``[B, n, A]`` int8 masks of the current step (what the last call returned)."""
        self.game_state  # noqa: B018  # raises before reset
        return self._masks.copy()  # type: ignore[no-any-return]

    def close(self) -> None:
        """End the env: later ``reset``/``step`` calls raise (there is nothing else to release)."""
        self._closed = True

    def __repr__(self) -> str:
        return (
            f"BatchedHoityEnv(num_envs={self.num_envs}, num_players={self.num_players}, "
            f"rules={self.rules.name!r}, reward={self.reward_mode!r}, "
            f"illegal_action={self.illegal_action!r})"
        )


def _rows_of(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A zero array shaped like ``values`` holding only its ``rows``."""
    out = np.zeros(values.shape, dtype=values.dtype)  # calloc: untouched rows cost nothing
    out[rows] = values[rows]
    return out


__all__ = ["BatchedHoityEnv"]
