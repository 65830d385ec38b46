"""The fast learner's policy input with memory: observations followed by the public history.

With ``LearnerSettings.memory = K`` the policy reads, per seat, the observation and the seats'
reveals in the ``K`` rounds before last (:class:`~hoity_env.environment.history.History`): a short,
public window that fits the same MLP, checkpoint and batched learner as every other policy, where a
recurrent policy would need another learner.  See docs/evaluation.md (a best response with memory).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from hoity_env.engine.errors import ConfigError
from hoity_env.environment.history import History, observation_layout
from hoity_env.learning.plain import load_object_state, object_state
from hoity_env.learning.settings import LearnerSettings
from hoity_env.learning.tables import Tables

__all__ = ["PolicyInputs", "checkpoint_history"]


class PolicyInputs:
    """The policy's input rows for the learner's :class:`~hoity_env.learning.tables.Tables`.

    With memory it tracks every row of one unpadded table (row ``b · n + i`` is seat ``i`` of game
    ``b``, the rollout buffer's layout): the rows of games that ended are cleared before the next
    game's first observation (the batched env resets a finished game in the same step).  Without
    memory the inputs are the tables' rows themselves, untouched.
    """

    def __init__(self, tables: Tables, memory: int) -> None:
        self.tables = tables
        self.history: History | None = None
        if memory:  # one unpadded table (the settings refuse the others)
            (table,) = tables.tables
            self.history = History(table.env.obs_layout(), memory)
        self.width = self.history.width if self.history is not None else 0
        """Features added to each observation (0 without memory)."""
        self.rows = np.arange(tables.rows)

    @property
    def dim(self) -> int:
        """Length of an input row."""
        return self.tables.obs_dim + self.width

    def space(self, observation_space: gym.spaces.Box) -> gym.spaces.Box:
        """The inputs' space: the observation's, followed by ``width`` values in [0, 1]."""
        if not self.width:
            return observation_space
        low = np.concatenate([observation_space.low, np.zeros(self.width, np.float32)])
        high = np.concatenate([observation_space.high, np.ones(self.width, np.float32)])
        return gym.spaces.Box(low, high, dtype=np.float32)

    def observe(self, done: np.ndarray | None = None) -> np.ndarray:
        """The inputs for the tables' current rows; ``done``: the ``(R,)`` rows whose game ended
        in the step that led to them (their history restarts)."""
        obs = self.tables.obs
        if self.history is None:
            return obs
        if done is not None and done.any():
            self.history.reset(np.flatnonzero(done))
        flat = obs.reshape(self.rows.size, -1)
        return self.history.augment(self.rows, flat).reshape(*obs.shape[:-1], -1)

    def state_dict(self) -> dict[str, Any] | None:
        """The histories of the games in progress as plain data (``None`` without memory)."""
        return None if self.history is None else object_state(self.history)

    def load_state_dict(self, state: dict[str, Any] | None) -> None:
        """Take back :meth:`state_dict` (inputs built from the same settings)."""
        if (state is None) != (self.history is None):
            raise ConfigError("the saved policy inputs are not this run's (memory differs)")
        if self.history is not None:
            load_object_state(self.history, state, "the policy inputs' history")


def checkpoint_history(settings: LearnerSettings) -> dict[str, Any] | None:
    """What a saved policy records of its memory (``None`` without): the rounds and the observation length.

    Stored under :data:`~hoity_env.environment.history.CHECKPOINT_KEY`, so the ``ppo:`` /
    ``ppo-sample:`` agent that plays the policy builds the same tracker for its own games.
    """
    if not settings.memory:
        return None
    n = settings.num_players
    assert isinstance(n, int)  # memory takes one player count (LearnerSettings refuses a tuple)
    layout = observation_layout(settings.rules, n)
    return {"memory": settings.memory, "observation_dim": max(s.stop for s in layout.values())}
