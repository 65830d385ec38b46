"""``random``: uniform over the legal actions, from its own seeded generator."""

from __future__ import annotations

import numpy as np

from hoity_env.agents.base import legal_actions


class RandomAgent:
    """Plays a uniformly random legal action (the baseline every agent should beat)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed (a ``None`` seed keeps the current stream)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A uniformly random legal action."""
        legal = legal_actions(action_mask)
        return int(legal[self.rng.integers(legal.size)])
