"""``random``: uniform over the legal actions, from its own seeded generator."""

from __future__ import annotations

import numpy as np

from hoity_env.agents.base import SeededAgent, legal_actions


class RandomAgent(SeededAgent):
    """Plays a uniformly random legal action (the baseline every agent should beat)."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A uniformly random legal action."""
        legal = legal_actions(action_mask)
        return int(legal[self.rng.integers(legal.size)])
