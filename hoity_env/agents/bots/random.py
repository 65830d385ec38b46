"""``random``: uniform over the legal actions, from its own seeded generator."""

from __future__ import annotations

import numpy as np

from hoity_env.agents.base import SeededAgent
from hoity_env.agents.bots.styles_kernels import decide_numba


class RandomAgent(SeededAgent):
    """Plays a uniformly random legal action (the baseline every agent should beat).

    Works on any action layout: it reads the mask only, one uniform per row.
    """

    name = "random"
    DRAWS = 1

    def decide(self, observations: np.ndarray, masks: np.ndarray, draws: np.ndarray) -> np.ndarray:
        """The ``k``-th legal action of each row, ``k`` uniform over the row's legal count."""
        if self.accelerator == "numba":
            return decide_numba("random", 0, observations, masks, draws)
        count = masks.sum(axis=1)
        k = np.minimum((draws[:, 0] * count).astype(np.int64), count - 1)
        out: np.ndarray = (masks.cumsum(axis=1) > k[:, None]).argmax(axis=1).astype(np.int64)
        return out
