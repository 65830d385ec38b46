"""The learner's games: one batched env and one seating per player count, seen as one set of rows.

A run at several player counts trains one policy on all of them, so every table's seats are laid end
to end as the rows of one forward pass; the other seats' agents still get their own table's env
arrays, unpadded (scripted agents decode the env's layout; snapshots pad for themselves).
See docs/learning.md (several player counts at once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from hoity_env.engine.errors import ConfigError, StateError
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.environment.padding import Padder, padded_dim, padder, ruleset_name
from hoity_env.learning.plain import array, generator_state, set_generator_state, tensor
from hoity_env.learning.policy import MaskedPolicy
from hoity_env.learning.seats import Seating
from hoity_env.learning.settings import LearnerSettings


@dataclass
class Table:
    """The games of one player count: its env, the seating of its seats, its current arrays."""

    env: BatchedHoityEnv
    padder: Padder | None
    rows: slice
    """This table's rows among all the learner's rows."""
    seating: Seating | None = None
    obs: np.ndarray | None = None
    """The env's current ``[B, n, D]`` observations."""
    masks: np.ndarray | None = None
    """The env's current ``[B, n, A]`` int8 masks."""

    @property
    def num_players(self) -> int:
        return self.env.num_players


class Tables:
    """Every table of a run, their rows laid end to end.

    Table ``k`` holds the rows ``rows[k]``: seat ``i`` of its game ``b`` is row ``start + b · n + i``.
    Table ``k`` deals its game slot ``j`` from ``seed + k · num_games + j`` and draws its seating from
    ``default_rng(seed)`` for ``k = 0`` (a single-count run's one table), else
    ``default_rng([seed, k])``, so every game and seat draw is distinct and reproducible.
    """

    def __init__(self, settings: LearnerSettings) -> None:
        self.settings = s = settings
        self.padded = s.padded
        self.tables: list[Table] = []
        start = 0
        for n in s.player_counts:
            env = BatchedHoityEnv(
                num_envs=s.num_games,
                num_players=n,
                rules=s.rules,
                reward=s.reward,
                illegal_action="raise",  # the policy never samples a masked action; prove it
            )
            pad = padder(ruleset_name(s.rules), n) if s.padded else None
            rows = s.num_games * n
            self.tables.append(Table(env, pad, slice(start, start + rows)))
            start += rows
        self.rows = start
        first = self.tables[0].env
        self.num_actions = first.num_actions
        self.obs_dim = padded_dim(ruleset_name(s.rules)) if s.padded else first.obs_dim
        """The length of the policy's input rows."""
        self.observation_space = first.single_observation_space
        if s.padded:
            self.observation_space = gym.spaces.Box(0.0, 1.0, (self.obs_dim,), np.float32)
        self.obs: np.ndarray = np.zeros((self.rows, self.obs_dim), dtype=np.float32)
        """The policy's input rows now: for one unpadded table the env's own ``[B, n, D]`` array,
        untouched; for a padded policy ``[R, obs_dim]`` rows padded once per step by each table's
        :class:`~hoity_env.environment.padding.Padder`."""
        self.masks: np.ndarray = np.zeros((self.rows, self.num_actions), dtype=np.int8)
        self._starts = np.array([t.rows.start for t in self.tables])
        self._counts = np.array(s.player_counts)

    def seat(self, policy: MaskedPolicy) -> None:
        """Build every table's seating (after the policy: the snapshots copy it)."""
        s = self.settings
        for k, table in enumerate(self.tables):
            rng = np.random.default_rng(s.seed if k == 0 else [s.seed, k])
            table.seating = Seating(
                s, self.num_actions, policy, rng, num_players=table.num_players, padder=table.padder
            )

    def reset(self) -> None:
        """Deal every table's first games (seeds as the class docstring says)."""
        for k, table in enumerate(self.tables):
            table.obs, table.masks, _ = table.env.reset(seed=self.settings.seed + k * self.settings.num_games)
        self._gather()

    def _gather(self) -> None:
        """Point :attr:`obs` / :attr:`masks` at what the policy reads now."""
        if not self.padded and len(self.tables) == 1:
            table = self.tables[0]
            self.obs, self.masks = table.obs, table.masks  # type: ignore[assignment]
            return
        for table in self.tables:
            assert table.padder is not None and table.obs is not None and table.masks is not None
            table.padder.pad(table.obs.reshape(-1, table.padder.obs_dim), out=self.obs[table.rows])
            self.masks[table.rows] = table.masks.reshape(-1, self.num_actions)

    def seatings(self) -> list[Seating]:
        """Every table's seating, in table order."""
        return [t.seating for t in self.tables if t.seating is not None]

    # ----------------------------------------------------------------- a step
    def learner_rows(self) -> np.ndarray:
        """Flat row indices of the learner's seats now, over all tables."""
        parts = [t.seating.learner_rows() for t in self.tables if t.seating is not None]
        if len(parts) == 1:  # one table: its rows are the learner's rows
            return parts[0]
        return np.concatenate([p + t.rows.start for p, t in zip(parts, self.tables, strict=True)])

    def act(self, joint: np.ndarray) -> None:
        """Write the other seats' actions into the flat ``(R,)`` ``joint`` (each table's seating)."""
        for t in self.tables:
            assert t.seating is not None
            t.seating.act(t.obs, t.masks, joint[t.rows])  # type: ignore[arg-type]

    def step(self, joint: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """Step every table with its part of ``joint``: ``(rewards (R,), done per row (R,), the games
        that ended, per table)``.  The policy's inputs are not yet updated: see :meth:`refresh`."""
        rewards, done_rows, ended = [], [], []
        for t in self.tables:
            n = t.num_players
            t.obs, t.masks, reward, terminated, truncated, _ = t.env.step(joint[t.rows].reshape(-1, n))
            done = terminated | truncated
            rewards.append(reward.reshape(-1))
            done_rows.append(np.repeat(done, n))
            ended.append(np.flatnonzero(done))
        if len(self.tables) == 1:
            return rewards[0], done_rows[0], ended
        return np.concatenate(rewards), np.concatenate(done_rows), ended

    def refresh(self) -> None:
        """Make :attr:`obs` / :attr:`masks` the tables' current ones (padding them if needed)."""
        self._gather()

    def place(self, ended: list[np.ndarray]) -> None:
        """New episodes in the games ``ended`` (per table): each seating draws their seats."""
        for t, games in zip(self.tables, ended, strict=True):
            if games.size:
                assert t.seating is not None
                t.seating.place(games)

    def add_snapshot(self, policy: MaskedPolicy) -> None:
        """A snapshot of ``policy`` for every table's seating."""
        for seating in self.seatings():
            seating.add_snapshot(policy)

    # ----------------------------------------------------------------- resume
    def state_dict(self) -> list[dict[str, Any]]:
        """Every table as plain data: its env's games (:func:`env_state`) and its seating."""
        out = []
        for t in self.tables:
            assert t.seating is not None
            out.append({"env": env_state(t.env), "seating": t.seating.state_dict()})
        return out

    def load_state_dict(self, state: list[dict[str, Any]], policy: MaskedPolicy) -> None:
        """Take back :meth:`state_dict` (tables built from the same settings)."""
        if not isinstance(state, list) or len(state) != len(self.tables):
            raise ConfigError(f"the saved games are not {len(self.tables)} table(s) of this run's counts")
        for t, saved in zip(self.tables, state, strict=True):
            assert t.seating is not None
            t.obs, t.masks = load_env_state(t.env, saved["env"], f"the {t.num_players}-player games")
            t.seating.load_state_dict(saved["seating"], policy)
        self._gather()

    def counts_of(self, rows: np.ndarray) -> np.ndarray:
        """The player count of the table of each flat row."""
        out: np.ndarray = self._counts[np.searchsorted(self._starts, rows, side="right") - 1]
        return out


def env_state(env: BatchedHoityEnv) -> dict[str, Any]:
    """A batched env's games in progress as plain data: each game's state dict
    (:meth:`~hoity_env.engine.state.GameState.to_dict`, its generator included), each slot's
    generator (which deals that slot's next games) and its step count."""
    games = [state.to_dict() for state in env.batched.to_states(env.game_state)]
    slots = [generator_state(rng) for rng in env._rngs]  # the env has no public form of them
    return {"games": games, "slots": slots, "cycles": tensor(env._cycles)}


def load_env_state(env: BatchedHoityEnv, state: dict[str, Any], where: str) -> tuple[np.ndarray, np.ndarray]:
    """Put :func:`env_state`'s games back into ``env`` (of the same configuration): its observations
    and masks.  The games go through the env's own positions check (``reset(options=...)``)."""
    slots, cycles = state["slots"], array(state["cycles"], f"{where}: step counts", np.int64)
    if len(slots) != env.num_envs or cycles.shape != (env.num_envs,):
        raise ConfigError(f"{where}: saved for {len(slots)} games, not {env.num_envs}")
    try:
        obs, masks, _ = env.reset(options={"position": list(state["games"])})
    except StateError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    for k, (rng, saved) in enumerate(zip(env._rngs, slots, strict=True)):
        set_generator_state(rng, saved, f"{where}: the generator of game slot {k}")
    env._cycles[:] = cycles
    return obs, masks


__all__ = ["Table", "Tables", "env_state", "load_env_state"]
