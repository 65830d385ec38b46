"""hoity_env: Hoity Toity (Adel Verpflichtet) for multi-agent reinforcement learning.

``hoity_env.parallel_env(**kwargs)`` is the PettingZoo parallel environment;
``hoity_env.env`` / ``hoity_env.raw_env`` its AEC forms.  Importing the package
registers ``pettingzoo.make("parallel", "hoity/HoityToity-v0")``, the AEC id and
``gymnasium.make("hoity/HoityToityVsBots-v0")`` (:class:`hoity_env.wrappers.SingleAgentEnv`).
"""

from __future__ import annotations

from hoity_env.engine import (
    ConfigError,
    Game,
    GameState,
    HoityError,
    IllegalActionError,
    Location,
    Phase,
    Role,
    RulesConfig,
    StateError,
)
from hoity_env.environment import ActionCodec, HoityParallelEnv, env, parallel_env, raw_env
from hoity_env.registration import AEC_ID, GYM_ID, PARALLEL_ID, register_envs

__version__ = "0.1.0"

register_envs()

__all__ = [
    "AEC_ID",
    "GYM_ID",
    "PARALLEL_ID",
    "ActionCodec",
    "ConfigError",
    "Game",
    "GameState",
    "HoityError",
    "HoityParallelEnv",
    "IllegalActionError",
    "Location",
    "Phase",
    "Role",
    "RulesConfig",
    "StateError",
    "__version__",
    "env",
    "parallel_env",
    "raw_env",
]
