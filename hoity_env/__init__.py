"""hoity_env: Hoity Toity (Adel Verpflichtet) for multi-agent reinforcement learning.

``hoity_env.parallel_env(**kwargs)`` is the PettingZoo parallel environment, ``hoity_env.env`` /
``hoity_env.raw_env`` its AEC forms, and ``hoity_env.BatchedHoityEnv`` steps many games at once.
Importing the package registers the PettingZoo and Gymnasium ids (:mod:`hoity_env.registration`); the
environments load on first use, so ``from hoity_env.engine import Game`` stays free of both frameworks.
See docs/quickstart.md and docs/environment.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from hoity_env.registration import AEC_ID, GYM_ID, PARALLEL_ID, register_when_imported

if TYPE_CHECKING:
    from hoity_env.environment import (
        ActionCodec,
        BatchedHoityEnv,
        HoityParallelEnv,
        env,
        parallel_env,
        raw_env,
    )

__version__ = "0.1.0"

_LAZY = frozenset({"ActionCodec", "BatchedHoityEnv", "HoityParallelEnv", "env", "parallel_env", "raw_env"})

register_when_imported()


def __getattr__(name: str) -> Any:
    """Import the adapters (and PettingZoo, Gymnasium) only when one of their names is first used."""
    if name in _LAZY:
        import hoity_env.environment

        return getattr(hoity_env.environment, name)
    raise AttributeError(f"module 'hoity_env' has no attribute {name!r}")


__all__ = [
    "AEC_ID",
    "GYM_ID",
    "PARALLEL_ID",
    "ActionCodec",
    "BatchedHoityEnv",
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
