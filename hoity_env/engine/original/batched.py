"""``OriginalBatchedGame``: B games of the ``original`` ruleset stepped by one call (RULES O-1 … O-9).

``BatchedGame(rules="original")`` builds one of these: the same interface as the
standard batched game (deal, ``reset_games``, ``legal_masks``, ``step``, ``to_states`` /
``from_states``, ``rank_keys``), the same deal (:func:`~hoity_env.engine.batched.
shared_steps.deal_hands`), location step, end order and validation, with the original
game's arrays (:class:`~hoity_env.engine.original.batched_state.OriginalBatchState`)
and round (:mod:`~hoity_env.engine.original.batched_round`, or its numba twin).

The standard engine serves masks as rows of a fixed table (``mask_rows``); the
original game cannot, since the checks a player holds change, so its masks are built
from the state and the helpers that take masks (:meth:`fallback_masks`,
:meth:`random_from_masks`) serve both rulesets.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.actions import AUCTION, CASTLE, NUM_LOTS, ORIGINAL_INDICES, Phase
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.original import kernels as original_kernels
from hoity_env.engine.original.batched_round import final_exhibitions, resolve_original_rounds
from hoity_env.engine.original.batched_state import OriginalBatchState, OriginalTable, lay_out_piles
from hoity_env.engine.standard.batched import BATCHED_GAMES, BatchedGame

O_EXHIBIT, O_THIEF_LOW, O_THIEF_HIGH, O_DETECTIVE, O_AUCTION_THIEF, O_CHECK0 = ORIGINAL_INDICES

_LOCATION = int(Phase.LOCATION)


def _original(state: BatchState) -> OriginalBatchState:
    if not isinstance(state, OriginalBatchState):
        raise TypeError(f"the original ruleset's batches are OriginalBatchState, got {type(state).__name__}")
    return state


class OriginalBatchedGame(BatchedGame):
    """The batched engine of the original ruleset (built by ``BatchedGame(rules="original")``)."""

    _state_class = OriginalBatchState

    def _init_ruleset(self) -> None:
        """The rules' checks, thieves and castle rewards as arrays (no mask table: see the module)."""
        self.original = OriginalTable(self.rules, self.num_players)

    def _lay_out(self, state: BatchState, games: np.ndarray, rest: np.ndarray) -> None:
        lay_out_piles(_original(state), self.original, games, rest)

    # ------------------------------------------------------------ legal moves
    def mask_rows(self, state: BatchState, *, location: np.ndarray | None = None) -> np.ndarray:
        """The original ruleset has no mask table; use :meth:`action_masks`."""
        raise ConfigError(
            "the original ruleset's masks are not rows of a table (the checks a player holds change); "
            "use action_masks / legal_masks"
        )

    def action_masks(self, state: BatchState, *, location: np.ndarray | None = None) -> np.ndarray:
        """``[B, n, N]`` int8 legal masks (O-3, O-4); finished games and ``location`` (``[B]`` bool)
        get location-step masks, as the one-game env's final observation."""
        s = _original(state)
        force = np.zeros(s.batch_size, dtype=bool) if location is None else np.asarray(location, dtype=bool)
        if self.accelerator == "numba":
            return original_kernels.original_masks(self, s, force)
        return original_masks(s, self.original, self.num_actions, force)

    def legal_masks(self, state: BatchState) -> np.ndarray:
        """``[B, n, N]`` int8 legal-action masks (never an empty row, C-6)."""
        return self.action_masks(state)

    # ------------------------------------------------------------------- step
    def _resolve_acting(self, state: BatchState, games: np.ndarray, actions: np.ndarray) -> None:
        s = _original(state)
        if self.accelerator == "numba":
            original_kernels.resolve_rounds(s, self.table, self.original, games, actions)
        else:
            resolve_original_rounds(s, self.table, self.original, games, actions)
            self._check_end(s, games)

    def _before_declaring(self, state: BatchState, games: np.ndarray) -> None:
        """O-8: the final exhibition, before the winners are read off the track."""
        final_exhibitions(_original(state), self.table, self.original, games)


def original_masks(
    state: OriginalBatchState, rules: OriginalTable, num_actions: int, force: np.ndarray
) -> np.ndarray:
    """``[B, n, N]`` int8 masks of :class:`OriginalRuleset` (``legal_masks``, ``location_masks``).

    Location step (O-3): the Castle always, the Auction House while a lot is on display
    and the player holds a check or a free thief.  Action step (O-4): at the Castle Exhibit
    (with an exhibition), each free thief, the Detective; at the Auction House the thief
    (if one is free) and every held check naming every lot on display.
    """
    b, n = state.money.shape
    masks = np.zeros((b, n, num_actions), dtype=np.int8)
    held = state.held_checks()
    free = state.free_thieves(rules.thieves)
    any_free = free.any(axis=2)
    lot_open: np.ndarray = state.lots >= 0
    as_location = np.asarray((state.phase == _LOCATION) | state.done | force)[:, None]
    masks[:, :, CASTLE] = as_location
    masks[:, :, AUCTION] = (
        as_location & np.asarray(lot_open.any(axis=1))[:, None] & (held.any(axis=2) | any_free)
    )
    acting = ~as_location
    at_castle = acting & (state.locations == CASTLE)
    at_auction = acting & (state.locations == AUCTION)
    masks[:, :, O_EXHIBIT] = at_castle & (state.best_count > 0)
    masks[:, :, O_THIEF_LOW] = at_castle & free[:, :, 0]
    masks[:, :, O_THIEF_HIGH] = at_castle & free[:, :, 1]
    masks[:, :, O_DETECTIVE] = at_castle
    masks[:, :, O_AUCTION_THIEF] = at_auction & any_free
    checks = held[:, :, 1:, None] & lot_open[:, None, None, :] & at_auction[:, :, None, None]
    masks[:, :, O_CHECK0:] = checks.reshape(b, n, NUM_LOTS * rules.max_check)
    return masks


BATCHED_GAMES["original"] = OriginalBatchedGame

__all__ = ["OriginalBatchedGame", "original_masks"]
