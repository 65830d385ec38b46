"""The standard ruleset over a batch: its deal's layout, masks and round (RULES S-1 … S-8).

A seat's mask is always a row of the one-game engine's mask table (S-3, S-4); the action step is
one compiled loop over games (:mod:`hoity_env.engine.standard.kernels`).
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.standard import kernels
from hoity_env.engine.standard.rules import StandardRuleset


class StandardBatched:
    """The standard rules of one (rules, player count) as arrays (the module docstring)."""

    state_class: type[BatchState] = BatchState
    """The struct of arrays a batch of standard games is."""

    def __init__(self, rules: RulesConfig, num_players: int, table: CardTable) -> None:
        self.rules = rules
        self.table = table
        one_game = StandardRuleset()
        self.mask_table: np.ndarray = one_game.mask_table(rules)
        """Every distinct mask row (the one-game engine's table); :meth:`mask_rows` indexes it."""
        self._rows = (
            one_game._ROW_OPEN,
            one_game._ROW_CLOSED,
            one_game._ROW_CASTLE,
            one_game._ROW_SINGLE_BID,
            one_game._ROW_SINGLE_BID + rules.starting_money + 1,
        )
        # Per mask row: how many actions are legal and which, lowest first (padded).
        self._legal_count = self.mask_table.sum(axis=1).astype(np.int64)
        self._legal_list = np.argsort(-self.mask_table, axis=1, kind="stable")

    def lay_out(self, state: BatchState, games: np.ndarray, rest: np.ndarray) -> None:
        """S-1 after the deal: the top card of the rest is the lot, the others the draw pile."""
        size, left = self.table.deck.size, rest.shape[1] - 1
        pile = np.full((len(games), size), -1, dtype=np.int16)
        pile[:, :left] = rest[:, :left]
        state.pile[games] = pile
        state.pile_len[games] = left
        state.lot[games] = rest[:, left]
        state.money[games] = self.rules.starting_money

    def mask_rows(self, state: BatchState, location: np.ndarray) -> np.ndarray:
        """``[B, n]`` row of :attr:`mask_table` of each seat now (location rows where done or
        ``location``).
        """
        return kernels.mask_rows(state, location, self._rows, self.rules.min_price)

    def action_masks(self, state: BatchState, location: np.ndarray) -> np.ndarray:
        """``[B, n, N]`` int8 legal masks, a fresh array (see :meth:`mask_rows`)."""
        return self.mask_table[self.mask_rows(state, location)]  # type: ignore[no-any-return]

    def random_actions(self, state: BatchState, u: np.ndarray) -> np.ndarray:
        """``[B, n]``: each seat's ``floor(u * legal count)``-th legal action, looked up in its mask row."""
        rows = self.mask_rows(state, np.zeros(state.batch_size, dtype=bool))
        pick = (u * self._legal_count[rows]).astype(np.intp)
        return self._legal_list[rows, pick]  # type: ignore[no-any-return]

    def resolve(self, state: BatchState, games: np.ndarray, actions: np.ndarray) -> None:
        """The action step of ``games`` (C-4.2-4, S-5 … S-8); ``actions`` is the whole ``[B, n]``."""
        kernels.resolve_rounds(state, self.table, games, actions)


__all__ = ["StandardBatched"]
