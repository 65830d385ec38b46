"""Random legal play shared by the benchmarks: the same cheap action choice for every env they time.

Imported by the scripts beside it (``python benchmarks/bench_env.py`` puts this folder
first on the import path).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def random_legal_actions(observations: dict[str, Any], uniforms: list[float]) -> dict[str, int]:
    """One uniform legal action per agent: ``uniforms[k]`` picks from the mask of the ``k``-th agent.

    The uniforms are drawn before the clock starts, so the timed loop pays only for
    the choice itself, as a learner sampling from its policy would.
    """
    actions = {}
    for k, (agent, o) in enumerate(observations.items()):
        legal = np.flatnonzero(o["action_mask"])
        actions[agent] = int(legal[int(uniforms[k] * len(legal))])
    return actions
