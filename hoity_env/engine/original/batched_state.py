"""``OriginalBatchState``: B games of the ``original`` ruleset as arrays (RULES O-1 … O-9).

:class:`~hoity_env.engine.batched.state.BatchState` plus two piles and lots, the checks, the
register and the jail; the standard ``pile``/``lot`` stay empty and ``money[b, p]`` is the value
of the checks ``p`` holds.  ``check_owner[b, v]`` is the seat holding the check of value ``v``,
:data:`REGISTER` or :data:`NO_CHECK`; the jail is ``[B, n]`` thief numbers, 0 for an empty cell.
:class:`OriginalTable` holds what the rules fix for one (rules, player count).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from hoity_env.engine.actions import NUM_LOTS
from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.original.state import OriginalState
from hoity_env.engine.state import GameState

REGISTER = -1
"""``check_owner`` of a check paid for a lot (O-5: in the register, out of the game)."""
NO_CHECK = -2
"""``check_owner`` of a value no seat of this game holds."""


class OriginalTable:
    """The original rules of one (rules, player count) as arrays (checks, thieves, rewards)."""

    def __init__(self, rules: RulesConfig, num_players: int) -> None:
        n = num_players
        self.max_check = rules.max_check
        self.initial_owner = np.full(self.max_check + 1, NO_CHECK, dtype=np.int8)
        """O-2: the seat each check value is dealt to."""
        for p in range(n):
            self.initial_owner[list(rules.checks[p])] = p
        self.thieves = np.asarray(rules.thieves_of(n), dtype=np.int16)
        """``[n, 2]`` O-2: each seat's thief numbers, lower first."""
        # O-9: the (big, small) reward read under a leader on space 0 … finish (a pawn beyond the
        # finish reads the last castle, as RulesConfig.castle_reward does).
        rewards = [rules.castle_reward(pos) for pos in range(rules.finish + 1)]
        self.reward = np.asarray(rewards, dtype=np.int32)
        """``[finish + 1, 2]`` (big, small) castle reward by the leader's space (clip beyond)."""
        self.final_bonus = np.zeros(2, dtype=np.int32)
        """O-8: spaces of the best and second-best final exhibitions."""
        self.final_bonus[: len(rules.final_bonus)] = rules.final_bonus[:2]
        self.initial_money = np.array([sum(rules.checks[p]) for p in range(n)], dtype=np.int32)


@dataclass
class OriginalBatchState(BatchState):
    """Every field of B original-ruleset games (the module docstring); shapes name B, n, N, V."""

    piles: np.ndarray
    """``[B, 2, N]`` int16: each pile bottom first; entries ``≥ pile_lens`` are -1 (O-1)."""
    pile_lens: np.ndarray
    """``[B, 2]`` int16: cards left face down in each pile; the top is ``piles[b, i, len - 1]``."""
    lots: np.ndarray
    """``[B, 2]`` int16: the lot on display of each pile, -1 once the pile is used up (O-5)."""
    check_owner: np.ndarray
    """``[B, V + 1]`` int8: seat holding the check of each value, ``REGISTER`` or ``NO_CHECK``."""
    jail: np.ndarray
    """``[B, n]`` int16: thief numbers in the jail, cell 1 first, 0 for an empty cell (O-7)."""

    _STATE_CLASS: ClassVar[type[GameState]] = OriginalState

    # ------------------------------------------------------------ conversions
    def _blank_state(self, rules: RulesConfig, num_players: int, rng: np.random.Generator) -> GameState:
        return OriginalState(rules, num_players, rng)

    def _fill_state(self, state: GameState, b: int) -> None:
        """Piles, lots, checks, register and jail of game ``b`` into an :class:`OriginalState`."""
        assert isinstance(state, OriginalState)
        state.piles = [self.piles[b, i, : self.pile_lens[b, i]].tolist() for i in range(NUM_LOTS)]
        state.lots = self.lots[b].tolist()
        owner = self.check_owner[b]
        state.checks = [np.flatnonzero(owner == p).tolist() for p in range(state.num_players)]
        state.register = np.flatnonzero(owner == REGISTER).tolist()
        state.jail = [int(t) for t in self.jail[b] if t > 0]

    def _read_state(self, b: int, state: GameState) -> None:
        """The original fields of ``state`` into game ``b`` (the checks by value)."""
        assert isinstance(state, OriginalState)
        for i, pile in enumerate(state.piles):
            self.piles[b, i, : len(pile)] = pile
            self.pile_lens[b, i] = len(pile)
        self.lots[b] = state.lots
        for p, held in enumerate(state.checks):
            self.check_owner[b, held] = p
        self.check_owner[b, state.register] = REGISTER
        self.jail[b, : len(state.jail)] = state.jail

    @classmethod
    def _empty_fields(cls, batch_size: int, num_players: int, table: CardTable) -> dict[str, Any]:
        out = super()._empty_fields(batch_size, num_players, table)
        b, size, values = batch_size, table.deck.size, table.rules.max_check + 1
        out.update(
            piles=np.full((b, NUM_LOTS, size), -1, dtype=np.int16),
            pile_lens=np.zeros((b, NUM_LOTS), dtype=np.int16),
            lots=np.full((b, NUM_LOTS), -1, dtype=np.int16),
            check_owner=np.full((b, values), NO_CHECK, dtype=np.int8),
            jail=np.zeros((b, num_players), dtype=np.int16),
            money=np.zeros((b, num_players), dtype=np.int32),
        )
        return out


def lay_out_piles(
    state: OriginalBatchState, table: OriginalTable, games: np.ndarray, rest: np.ndarray
) -> None:
    """O-1 after the deal: two piles (the first gets the extra card), their lots, the checks."""
    g, size = len(games), state.owner.shape[1]
    left = rest.shape[1]
    first = (left + 1) // 2
    piles = np.full((g, NUM_LOTS, size), -1, dtype=np.int16)
    lens = np.zeros((g, NUM_LOTS), dtype=np.int16)
    lots = np.full((g, NUM_LOTS), -1, dtype=np.int16)
    for i, (lo, hi) in enumerate(((0, first), (first, left))):
        if hi > lo:  # the lot is the pile's top card (its last), the rest stays face down
            piles[:, i, : hi - lo - 1] = rest[:, lo : hi - 1]
            lens[:, i] = hi - lo - 1
            lots[:, i] = rest[:, hi - 1]
    state.piles[games] = piles
    state.pile_lens[games] = lens
    state.lots[games] = lots
    state.pile[games] = -1
    state.pile_len[games] = 0
    state.lot[games] = -1
    state.check_owner[games] = table.initial_owner
    state.jail[games] = 0
    state.money[games] = table.initial_money


__all__ = ["NO_CHECK", "REGISTER", "OriginalBatchState", "OriginalTable", "lay_out_piles"]
