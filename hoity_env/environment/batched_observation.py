"""Observations, masks and global states for a whole batch of games (docs/design.md §2).

:class:`BatchObserver` produces, for every game of a
:class:`~hoity_env.engine.batched_state.BatchState`, exactly the arrays that
:class:`~hoity_env.environment.observation.StandardObserver` produces for the
same game: the same *source* vector (global features, then each absolute seat's
public and private blocks), the same float32 scaling, and the same gather into
seat-relative observations.  It reuses that observer's index arrays and scales,
so the two encoders cannot drift apart; a differential test compares them
bit for bit.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.actions import BID0, EXHIBIT, Phase
from hoity_env.engine.batched import BatchedGame
from hoity_env.engine.batched_state import BatchState
from hoity_env.environment.observation import G_DIM, O_DIM, P_DIM, P_SL, StandardObserver

_SEAT = P_DIM + O_DIM
_LAST = P_SL["location"].start  # 8 features from the last action: location now (2) + last round (6)
_RATES = P_SL["rate_auction"].start
_MEAN_BID = P_SL["mean_bid"].start
_START = P_SL["start_player"].start


class BatchObserver:
    """Encodes every game of a batch for every seat at once (see the module docstring)."""

    def __init__(self, batched: BatchedGame) -> None:
        self.batched = batched
        self.scalar = StandardObserver(batched.game)
        self.n = batched.num_players
        self.obs_dim = self.scalar.obs_dim
        self.state_dim = self.scalar.state_dim
        deck, rules = batched.table.deck, batched.rules
        span = max(deck.newest_year - deck.oldest_year, 1)
        self._newest, self._span = deck.newest_year, span
        self._lot_age = np.asarray([(deck.newest_year - y) / span for y in deck.year], dtype=np.float64)
        self._series = np.asarray(deck.series, dtype=np.intp)
        self._finish = rules.finish
        # The last-action features of every flat action index, the scalar encoder's table.
        feats = np.zeros((batched.num_actions + 1, 8), dtype=np.float64)
        inv_money = 1.0 / max(rules.starting_money, 1)
        for action in range(batched.num_actions):
            if action >= BID0:
                feats[action, [2, 7]] = (1.0, (action - BID0) * inv_money)
            elif action >= EXHIBIT:
                feats[action, [3, 4 + action - EXHIBIT]] = 1.0
        self._last_feats = feats  # row -1 (no last round) is all zeros
        self._scale = self.scalar._scale
        self._obs_idx = self.scalar._obs_idx
        self._seats = np.arange(self.n)

    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of an observation row (the one-game env's layout)."""
        return self.scalar.obs_layout()

    def state_layout(self) -> dict[str, slice]:
        """Name → slice of a global-state row."""
        return self.scalar.state_layout()

    # ----------------------------------------------------------------- source
    def source(self, state: BatchState) -> np.ndarray:
        """``[B, state_dim]`` float32 source vectors, locations included (= the global states)."""
        b, n = state.money.shape
        src = np.zeros((b, G_DIM + n * _SEAT), dtype=np.float64)
        rows = np.arange(b)
        src[rows, state.phase.astype(np.intp)] = 1.0
        src[:, 2] = state.round
        lot = state.lot.astype(np.intp)
        has_lot = lot >= 0
        src[:, 3] = has_lot
        src[rows[has_lot], 4 + self._series[lot[has_lot]]] = 1.0
        src[:, 10] = np.where(has_lot, self._lot_age[lot], 0.0)
        src[:, 11] = state.pile_len
        seat = src[:, G_DIM:].reshape(b, n, _SEAT)
        seat[:, :, 0] = np.minimum(state.positions, self._finish)
        seat[:, :, 1] = state.money
        seat[:, :, 2] = state.counts.sum(axis=2)
        seat[:, :, 3:9] = state.public_counts
        seat[:, :, _LAST : _LAST + 8] = self._last_feats[state.last_actions]
        tallies = state.tallies
        seat[:, :, _RATES : _RATES + 5] = tallies[:, :, 0:5]
        visits = tallies[:, :, 0]
        seat[:, :, _MEAN_BID] = np.where(visits > 0, tallies[:, :, 5] / np.maximum(visits, 1), 0.0)
        seat[:, :, _START] = self._seats[None, :] == state.start_player[:, None]
        own = seat[:, :, P_DIM:]
        own[:, :, 0:6] = state.counts
        has_best = state.best_count > 0
        own[:, :, 6] = state.best_count
        own[:, :, 7] = np.where(has_best, (self._newest - state.best_oldest) / self._span, 0.0)
        own[:, :, 8] = has_best
        out = src.astype(np.float32)
        out *= self._scale
        # Per-round rates, scaled as the one-game encoder does (float32 product with 1/round).
        played = state.round > 0
        if played.any():
            inv = np.ones(b, dtype=np.float32)
            inv[played] = (1.0 / state.round[played]).astype(np.float32)
            rate_cols = G_DIM + (self._seats[:, None] * _SEAT + _RATES + np.arange(5)[None, :]).ravel()
            out[:, rate_cols] *= inv[:, None]
        acting = np.flatnonzero(state.phase == Phase.ACTION)
        if acting.size:
            cols = G_DIM + self._seats[None, :] * _SEAT + _LAST + state.locations[acting].astype(np.intp)
            out[acting[:, None], cols] = 1.0
        return out

    # ---------------------------------------------------------------- outputs
    def observations(self, state: BatchState, source: np.ndarray | None = None) -> np.ndarray:
        """``[B, n, obs_dim]`` float32: ``[b, i]`` is seat ``i``'s observation of game ``b``."""
        src = self.source(state) if source is None else source
        return src[:, self._obs_idx]  # type: ignore[no-any-return]

    def global_states(self, state: BatchState) -> np.ndarray:
        """``[B, state_dim]`` float32 global states (all hands included), as ``env.state()``."""
        return self.source(state)


__all__ = ["BatchObserver"]
