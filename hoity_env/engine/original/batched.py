"""The original ruleset over a batch: its deal's layout, masks and round (RULES O-1 … O-9).

The original game has no mask table (the checks a player holds change), so masks are built from
the state by a kernel (:mod:`hoity_env.engine.original.kernels`), as is the action step.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.kernels import pick_legal
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.original import kernels
from hoity_env.engine.original.batched_state import OriginalBatchState, OriginalTable, lay_out_piles


def _original(state: BatchState) -> OriginalBatchState:
    if not isinstance(state, OriginalBatchState):
        raise TypeError(f"the original ruleset's batches are OriginalBatchState, got {type(state).__name__}")
    return state


class OriginalBatched:
    """The original rules of one (rules, player count) as arrays (the module docstring)."""

    state_class: type[BatchState] = OriginalBatchState
    """The struct of arrays a batch of original games is."""

    def __init__(self, rules: RulesConfig, num_players: int, table: CardTable) -> None:
        self.table = table
        self.original = OriginalTable(rules, num_players)
        """The checks, thieves and castle rewards as arrays."""

    def lay_out(self, state: BatchState, games: np.ndarray, rest: np.ndarray) -> None:
        """O-1, O-2 after the deal: two piles and their lots, and the checks."""
        lay_out_piles(_original(state), self.original, games, rest)

    def action_masks(self, state: BatchState, location: np.ndarray) -> np.ndarray:
        """``[B, n, N]`` int8 legal masks (O-3, O-4), fresh; location masks where done or ``location``."""
        return kernels.original_masks(_original(state), self.original, location)

    def random_actions(self, state: BatchState, u: np.ndarray) -> np.ndarray:
        """``[B, n]``: each seat's ``floor(u * legal count)``-th legal action now (``u``: ``[B, n]``)."""
        return pick_legal(self.action_masks(state, np.zeros(state.batch_size, dtype=bool)), u)

    def resolve(self, state: BatchState, games: np.ndarray, actions: np.ndarray) -> None:
        """The action step of ``games`` (C-4.2-4, O-5 … O-8, S-8); ``actions`` is the whole ``[B, n]``."""
        kernels.resolve_rounds(_original(state), self.table, self.original, games, actions)


__all__ = ["OriginalBatched"]
