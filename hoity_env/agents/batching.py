"""Deciding for many rows at once: ``act_batch`` when an agent has it, row by row otherwise.

The batched environments and the evaluation harness's batched path ask every
agent for a whole batch of decisions (``[B, D]`` observations, ``[B, A]`` masks).
Agents that implement ``act_batch(observations, masks) -> [B]`` answer in one
call; any other :class:`~hoity_env.agents.base.Agent` still works, one ``act`` per row.
"""

from __future__ import annotations

import numpy as np

from hoity_env.agents.base import Agent


def can_act_in_batches(agent: Agent) -> bool:
    """Whether ``agent`` decides for a batch in one call."""
    return callable(getattr(agent, "act_batch", None))


def act_batch(agent: Agent, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``agent``'s actions (``[B]`` int64) for ``observations`` ``[B, D]`` and ``masks`` ``[B, A]``."""
    if can_act_in_batches(agent):
        return np.asarray(agent.act_batch(observations, masks), dtype=np.int64)  # type: ignore[attr-defined]
    return np.asarray([agent.act(o, m) for o, m in zip(observations, masks, strict=True)], dtype=np.int64)


__all__ = ["act_batch", "can_act_in_batches"]
