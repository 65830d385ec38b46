"""The adapters over the engine: the PettingZoo parallel env and AEC forms, the batched env, codec, render."""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env import AECEnv

from hoity_env.environment import aec
from hoity_env.environment.batched import BatchedHoityEnv
from hoity_env.environment.codec import ActionCodec
from hoity_env.environment.parallel import HoityParallelEnv


def parallel_env(**kwargs: Any) -> HoityParallelEnv:
    """The native parallel environment (see :class:`HoityParallelEnv` for the arguments)."""
    return HoityParallelEnv(**kwargs)


def raw_env(**kwargs: Any) -> AECEnv:
    """The AEC form without extra wrappers (``parallel_to_aec_wrapper``, checking each action)."""
    return aec.raw_env(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC form with PettingZoo's order-enforcing wrapper (``parallel_to_aec``, checking each action)."""
    return aec.env(**kwargs)


__all__ = ["ActionCodec", "BatchedHoityEnv", "HoityParallelEnv", "env", "parallel_env", "raw_env"]
