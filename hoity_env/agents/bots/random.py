"""``random``: uniform over the legal actions, from its own seeded generator."""

from __future__ import annotations

import numpy as np

from hoity_env.agents.base import SeededAgent
from hoity_env.agents.bots.styles_kernels import random_kernel


class RandomAgent(SeededAgent):
    """Plays a uniformly random legal action (the baseline every agent should beat).

    It reads the mask only, one uniform per row, so it plays every ruleset's layout alike.
    """

    name = "random"
    DRAWS = 1

    def decide(self, observations: np.ndarray, masks: np.ndarray, draws: np.ndarray) -> np.ndarray:
        """The ``k``-th legal action of each row, ``k = ⌊u · count⌋`` for the row's legal count."""
        out = np.empty(masks.shape[0], dtype=np.int64)
        random_kernel(masks, draws, out)
        return out
