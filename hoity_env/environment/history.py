"""Memory of the game: every seat's public reveals in the rounds before last, tracked per row.

The observation shows each seat's reveals of last round only; against a population, where one
member plays a whole game, the sequence is what tells members apart (docs/evaluation.md).
:class:`History` keeps, per row label (one seat's view of one game), the observation's
last-round fields of each new round in a ring, and returns the ``memory`` rounds before the one
the observation shows (zeros where the game is younger).  It reads only public fields.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from hoity_env.engine.errors import ConfigError
from hoity_env.engine.game import Game

__all__ = ["CHECKPOINT_KEY", "MAX_MEMORY", "REVEALED", "History", "history_width", "observation_layout"]

REVEALED = ("last_location", "last_role", "last_bid", "last_check")
"""The per-seat last-round fields a history keeps, those the ruleset's layout has, in this order."""
CHECKPOINT_KEY = "hoity_history"
"""The attribute of a saved ``MaskablePPO`` model holding its history (``memory``,
``observation_dim``); absent: the policy reads the observation alone.
"""
MAX_MEMORY = 32
"""The most rounds a history holds (games last about 20 rounds)."""


def observation_layout(rules: str, num_players: int) -> dict[str, slice]:
    """The observation layout of ``rules`` at ``num_players`` (name → slice), without an env."""
    return Game(rules, num_players).make_observer().obs_layout()


def _columns(layout: Mapping[str, slice]) -> np.ndarray:
    """The observation columns of every seat's revealed fields, seat by seat (observation order)."""
    names = [f for f in REVEALED if f"player0.{f}" in layout]
    if not names or "round" not in layout:
        raise ConfigError(
            f"this observation layout has no round or last-round fields ({', '.join(REVEALED)})"
        )
    seats = 0
    while f"player{seats}.{names[0]}" in layout:
        seats += 1
    cols = [
        np.arange(layout[f"player{k}.{f}"].start, layout[f"player{k}.{f}"].stop)
        for k in range(seats)
        for f in names
    ]
    return np.concatenate(cols)


def _check_memory(memory: object) -> int:
    if not isinstance(memory, int) or isinstance(memory, bool) or not 1 <= memory <= MAX_MEMORY:
        raise ConfigError(f"memory must be an int from 1 to {MAX_MEMORY} (rounds), got {memory!r}")
    return memory


def history_width(layout: Mapping[str, slice], memory: int) -> int:
    """Features a :class:`History` of ``memory`` rounds adds to an observation of ``layout``."""
    return _check_memory(memory) * int(_columns(layout).size)


class History:
    """The tracker (see the module docstring): per row label, a ring of the last ``memory + 1`` rounds."""

    def __init__(self, layout: Mapping[str, slice], memory: int) -> None:
        self.memory = _check_memory(memory)
        self._cols = _columns(layout)
        self._round = layout["round"].start
        self.width = self.memory * int(self._cols.size)
        """Features per row: ``memory`` rounds × seats × revealed fields."""
        self._ring = np.zeros((0, self.memory + 1, self._cols.size), dtype=np.float32)
        """Per label, slot 0: the round the observation shows; slot ``k``: ``k`` rounds before it."""
        self._seen = np.zeros(0, dtype=np.float32)
        """Per label, the ``round`` field of its last observation (-1: none since the reset)."""

    def _grow(self, size: int) -> None:
        if size <= self._seen.size:
            return
        size = max(size, 2 * self._seen.size)
        ring = np.zeros((size, *self._ring.shape[1:]), dtype=np.float32)
        ring[: self._seen.size] = self._ring
        seen = np.full(size, -1.0, dtype=np.float32)
        seen[: self._seen.size] = self._seen
        self._ring, self._seen = ring, seen

    def _labels(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` as checked int64 labels, the ring grown to hold them."""
        labels = np.asarray(rows, dtype=np.int64).reshape(-1)
        if labels.size and labels.min() < 0:
            raise ConfigError(f"row labels must be >= 0, got {labels.min()}")
        self._grow(int(labels.max()) + 1 if labels.size else 0)
        return labels

    def reset(self, rows: np.ndarray | None = None) -> None:
        """Forget the rows labelled ``rows`` (all when ``None``): their next observation starts a game."""
        if rows is None:
            self._ring[:] = 0.0
            self._seen[:] = -1.0
            return
        labels = self._labels(rows)
        self._ring[labels] = 0.0
        self._seen[labels] = -1.0

    def observe(self, rows: np.ndarray, observations: np.ndarray) -> np.ndarray:
        """``(R, width)`` float32 features of the rounds before last, after taking each row's next
        observation (``rows``: distinct labels >= 0; ``observations``: ``(R, D)``).
        """
        labels = self._labels(rows)
        obs = np.asarray(observations)
        if obs.ndim != 2 or obs.shape[0] != labels.size:
            raise ConfigError(
                f"{labels.size} row labels need ({labels.size}, D) observations, got {obs.shape}"
            )
        rounds = obs[:, self._round].astype(np.float32)
        new = labels[rounds != self._seen[labels]]
        if new.size:
            fresh = rounds != self._seen[labels]
            self._ring[new, 1:] = self._ring[new, :-1]
            self._ring[new, 0] = obs[fresh][:, self._cols]
            self._seen[new] = rounds[fresh]
        features: np.ndarray = self._ring[labels, 1:].reshape(labels.size, self.width)
        return features

    def augment(self, rows: np.ndarray, observations: np.ndarray) -> np.ndarray:
        """``(R, D + width)`` float32: each observation followed by its features (:meth:`observe`)."""
        obs = np.asarray(observations, dtype=np.float32)
        return np.concatenate([obs, self.observe(rows, obs)], axis=1)
