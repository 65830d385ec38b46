"""Wrappers over the parallel environment (docs/design.md §4)."""

from __future__ import annotations

from hoity_env.wrappers.single_agent import DEFAULT_POOL, SingleAgentEnv

__all__ = ["DEFAULT_POOL", "SingleAgentEnv"]
