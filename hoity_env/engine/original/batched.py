"""The original ruleset over a batch of games: its deal's layout, its masks and its round (RULES O-1 … O-9).

:class:`OriginalBatched` is the part of :class:`~hoity_env.engine.game.BatchedGame`
that only the original rules know: the two piles, two lots and the checks of a new
game (O-1, O-2), the legal actions (O-3, O-4) and the action step with the final
exhibition (O-5 … O-8), both compiled loops over games
(:mod:`hoity_env.engine.original.kernels`) over the arrays of
:class:`~hoity_env.engine.original.batched_state.OriginalBatchState`.  The original
game has no mask table (the checks a player holds change), so its masks are built
from the state.
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
        """``[B, n, N]`` int8 legal masks (O-3, O-4), a fresh array; finished games and ``location``
        (``[B]`` bool) get location-step masks, as the one-game env's final observation."""
        return kernels.original_masks(_original(state), self.original, location)

    def random_actions(self, state: BatchState, u: np.ndarray) -> np.ndarray:
        """``[B, n]``: each seat's ``floor(u * legal count)``-th legal action now (``u``: ``[B, n]``)."""
        return pick_legal(self.action_masks(state, np.zeros(state.batch_size, dtype=bool)), u)

    def resolve(self, state: BatchState, games: np.ndarray, actions: np.ndarray) -> None:
        """The action step of ``games`` (C-4.2-4, O-5 … O-8, S-8); ``actions`` is the whole ``[B, n]``."""
        kernels.resolve_rounds(_original(state), self.table, self.original, games, actions)


__all__ = ["OriginalBatched"]
