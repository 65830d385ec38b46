"""Observations, masks and global states for a whole batch of games (docs/design.md §2).

:class:`BatchObserver` produces, for every game of a
:class:`~hoity_env.engine.batched.state.BatchState`, exactly the arrays that
:class:`~hoity_env.engine.standard.observation.StandardObserver` produces for the
same game: the same *source* vector (global features, then each absolute seat's
public and private blocks), the same float32 scaling, and the same gather into
seat-relative observations.  It reuses that observer's index arrays and scales,
so the two encoders cannot drift apart; a differential test compares them
bit for bit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from hoity_env.engine.actions import BID0, EXHIBIT, Phase
from hoity_env.engine.batched import BatchedGame
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.standard import observation_kernel as batched_encode_numba
from hoity_env.engine.standard.observation import G_DIM, O_DIM, P_DIM, P_SL, StandardObserver

if TYPE_CHECKING:
    from hoity_env.engine.original.batch_observation import OriginalBatchObserver

_ACTION = int(Phase.ACTION)
_SEAT = P_DIM + O_DIM
_LAST = P_SL["location"].start  # 8 features from the last action: location now (2) + last round (6)
_RATES = P_SL["rate_auction"].start
_MEAN_BID = P_SL["mean_bid"].start
_START = P_SL["start_player"].start


class BatchObserver:
    """Encodes every game of a batch for every seat at once (see the module docstring).

    With the batched engine's ``accelerator="numba"`` the encoding runs as a compiled loop
    (:mod:`hoity_env.engine.standard.observation_kernel`), bit-identical to the numpy one.
    """

    G_DIM, P_DIM, O_DIM = G_DIM, P_DIM, O_DIM
    LAST, RATES, MEAN_BID, START = _LAST, _RATES, _MEAN_BID, _START
    ACTION_PHASE = _ACTION

    def __init__(self, batched: BatchedGame) -> None:
        self.batched = batched
        self.scalar = StandardObserver(batched.game)
        self.n = batched.num_players
        self.obs_dim = self.scalar.obs_dim
        self.state_dim = self.scalar.state_dim
        deck, rules = batched.table.deck, batched.rules
        span = max(deck.newest_year - deck.oldest_year, 1)
        self._newest, self._span = deck.newest_year, span
        # Per-card lot features, with a last row of zeros that lot == -1 (none) reads.
        self._lot_age = np.asarray([*((deck.newest_year - y) / span for y in deck.year), 0.0])
        self._lot_series = np.zeros((deck.size + 1, deck.num_series), dtype=np.float32)
        self._lot_series[np.arange(deck.size), deck.series] = 1.0
        self._finish = rules.finish
        # The last-action features of every flat action index, the scalar encoder's table.
        feats = np.zeros((batched.num_actions + 1, 8), dtype=np.float64)
        inv_money = 1.0 / max(rules.starting_money, 1)
        for action in range(batched.num_actions):
            if action >= BID0:
                feats[action, [2, 7]] = (1.0, (action - BID0) * inv_money)
            elif action >= EXHIBIT:
                feats[action, [3, 4 + action - EXHIBIT]] = 1.0
        self._last_feats = feats.astype(np.float32)  # row -1 (no last round) is all zeros
        self._scale = self.scalar._scale
        self._obs_idx = self.scalar._obs_idx
        self._seats = np.arange(self.n)
        self._buffer: np.ndarray | None = None
        self._compiled = batched.accelerator == "numba"

    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of an observation row (the one-game env's layout)."""
        return self.scalar.obs_layout()

    def state_layout(self) -> dict[str, slice]:
        """Name → slice of a global-state row."""
        return self.scalar.state_layout()

    # ----------------------------------------------------------------- source
    def source(self, state: BatchState) -> np.ndarray:
        """``[B, state_dim]`` float32 source vectors, locations included (= the global states).

        The array is a buffer this observer reuses: callers gather from it or copy it.
        Every entry is written on every call (one-hot groups whole), so nothing stale
        survives from the previous call.
        """
        b, n = state.money.shape
        shape = (b, G_DIM + n * _SEAT)
        src = self._buffer
        if src is None or src.shape != shape:
            src = self._buffer = np.zeros(shape, dtype=np.float32)
        self._encode(state, src)
        return src

    def _encode(self, state: BatchState, src: np.ndarray) -> None:
        """Write the scaled source vectors of ``state``'s games into ``src`` (every entry)."""
        if self._compiled:
            batched_encode_numba.encode(self, state, src)
            return
        b, n = state.money.shape
        # Raw values go in as float32 (exact for counts; values the one-game encoder computes
        # in float64 are rounded once, as there), then one float32 product with the scales.
        acting = state.phase == _ACTION
        src[:, 0] = ~acting
        src[:, 1] = acting
        src[:, 2] = state.round
        lot = state.lot  # -1 (no lot) reads the tables' last row: zeros
        src[:, 3] = lot >= 0
        src[:, 4:10] = self._lot_series[lot]
        src[:, 10] = self._lot_age[lot]
        src[:, 11] = state.pile_len
        seat = src[:, G_DIM:].reshape(b, n, _SEAT)
        seat[:, :, 0] = np.minimum(state.positions, self._finish)
        seat[:, :, 1] = state.money
        seat[:, :, 2] = state.counts.sum(axis=2, dtype=np.int16)
        seat[:, :, 3:9] = state.public_counts
        seat[:, :, _LAST : _LAST + 8] = self._last_feats[state.last_actions]
        # This round's revealed locations (action step only) overwrite the two zeros just written.
        locations = state.locations
        seat[:, :, _LAST] = (locations == 0) & acting[:, None]
        seat[:, :, _LAST + 1] = (locations == 1) & acting[:, None]
        tallies = state.tallies
        # Per-round rates: float32 count times float32 1/round, as the one-game encoder (scale 1).
        inv = np.ones(b, dtype=np.float32)
        played = state.round > 0
        inv[played] = 1.0 / state.round[played]
        seat[:, :, _RATES : _RATES + 5] = tallies[:, :, 0:5].astype(np.float32) * inv[:, None, None]
        visits = tallies[:, :, 0]
        seat[:, :, _MEAN_BID] = np.where(visits > 0, tallies[:, :, 5] / np.maximum(visits, 1), 0.0)
        seat[:, :, _START] = self._seats[None, :] == state.start_player[:, None]
        own = seat[:, :, P_DIM:]
        own[:, :, 0:6] = state.counts
        has_best = state.best_count > 0
        own[:, :, 6] = state.best_count
        own[:, :, 7] = np.where(has_best, (self._newest - state.best_oldest) / self._span, 0.0)
        own[:, :, 8] = has_best
        src *= self._scale

    # ---------------------------------------------------------------- outputs
    def observations(self, state: BatchState, *, reuse: bool = False) -> np.ndarray:
        """``[B, n, obs_dim]`` float32: ``[b, i]`` is seat ``i``'s observation of game ``b`` (fresh).

        ``reuse=True`` is only valid right after encoding the same batch in its location
        step, with every game having taken a location step since: only the phase and
        the revealed locations changed, so they are patched into the last source
        (their scales are 1) instead of encoding everything again.
        """
        src = self._buffer
        if not reuse or src is None or src.shape[0] != state.batch_size:
            src = self.source(state)
        else:
            acting = state.phase == _ACTION
            src[:, 0] = ~acting
            src[:, 1] = acting
            seat = src[:, G_DIM:].reshape(state.batch_size, self.n, _SEAT)
            seat[:, :, _LAST] = (state.locations == 0) & acting[:, None]
            seat[:, :, _LAST + 1] = (state.locations == 1) & acting[:, None]
        # ``take`` writes a C-ordered [B, n, obs_dim] array (``src[:, idx]`` puts the batch axis
        # innermost), so the per-seat rows that agents and learners gather next are contiguous.
        return np.take(src, self._obs_idx, axis=1)

    def replace_games(self, games: np.ndarray, state: BatchState) -> np.ndarray:
        """Observations ``[len(games), n, obs_dim]`` of ``state`` (the new games now in slots
        ``games``), also written into the kept source so that ``reuse`` stays valid."""
        src = np.empty((state.batch_size, G_DIM + self.n * _SEAT), dtype=np.float32)
        self._encode(state, src)
        if self._buffer is not None and len(games) and int(np.max(games)) < self._buffer.shape[0]:
            self._buffer[games] = src
        return np.take(src, self._obs_idx, axis=1)

    def global_states(self, state: BatchState) -> np.ndarray:
        """``[B, state_dim]`` float32 global states (all hands included), as ``env.state()``."""
        return self.source(state).copy()  # type: ignore[no-any-return]


def make_batch_observer(batched: BatchedGame) -> BatchObserver | OriginalBatchObserver:
    """The batch observer of ``batched``'s ruleset: :class:`BatchObserver` (standard) or
    :class:`~hoity_env.engine.original.batch_observation.OriginalBatchObserver`."""
    if batched.rules.ruleset == "original":
        from hoity_env.engine.original.batch_observation import OriginalBatchObserver

        return OriginalBatchObserver(batched)  # type: ignore[arg-type]
    return BatchObserver(batched)


__all__ = ["BatchObserver", "make_batch_observer"]
