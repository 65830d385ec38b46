"""Views of the environment for single-agent libraries (docs/design.md §4).

``SingleAgentEnv``: one game, one learner seat (a ``gymnasium.Env``).  The batched
views live in :mod:`hoity_env.wrappers.vector_env` (Gymnasium ``VectorEnv``) and
:mod:`hoity_env.wrappers.sb3_vec_env` (SB3 ``VecEnv``s; needs the ``train`` extra).
"""

from __future__ import annotations

from hoity_env.wrappers.opponents import DEFAULT_POOL
from hoity_env.wrappers.single_agent import SingleAgentEnv

__all__ = ["DEFAULT_POOL", "SingleAgentEnv"]
