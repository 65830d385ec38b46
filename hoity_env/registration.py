"""Registers the environments with PettingZoo's and Gymnasium's registries on ``import hoity_env``."""

from __future__ import annotations

PARALLEL_ID = "hoity/HoityToity-v0"
AEC_ID = "hoity/HoityToity-v0"
GYM_ID = "hoity/HoityToityVsBots-v0"


def register_envs() -> None:
    """Register the parallel and AEC ids with PettingZoo and the single-agent id with Gymnasium."""
    import gymnasium
    import pettingzoo

    if PARALLEL_ID not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", PARALLEL_ID, entry_point="hoity_env.environment:parallel_env")
    if AEC_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", AEC_ID, entry_point="hoity_env.environment:env")
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="hoity_env.wrappers:SingleAgentEnv",
            vector_entry_point="hoity_env.wrappers.vector_env:HoityVsBotsVectorEnv",
        )
