"""Observations and global states of a batch of standard games, as one compiled loop (RULES C-5).

Equal bit for bit to :class:`~hoity_env.engine.standard.observation.StandardObserver` game by
game: the same source vector, index arrays and scales, every value computed with the same
operations in the same precision (the differential tests compare them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import BID0, EXHIBIT, Phase, standard_layout
from hoity_env.engine.batched.kernels import SeatGather
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.cards import build_deck
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.jit import jit
from hoity_env.engine.standard.observation import G_DIM, O_DIM, P_DIM, P_SL, StandardObserver

_ACTION = int(Phase.ACTION)
_SEAT = P_DIM + O_DIM
_LAST = P_SL["location"].start  # 8 features from the last action: location now (2) + last round (6)
_RATES = P_SL["rate_auction"].start
_MEAN_BID = P_SL["mean_bid"].start
_START = P_SL["start_player"].start


class StandardBatchObserver(SeatGather):
    """Encodes every game of a batch for every seat at once (see the module docstring)."""

    def __init__(self, rules: RulesConfig, num_players: int) -> None:
        self.scalar = StandardObserver(rules, num_players)
        self.n = num_players
        self.obs_dim = self.scalar.obs_dim
        self.state_dim = self.scalar.state_dim
        deck = build_deck(rules, num_players)
        span = max(deck.newest_year - deck.oldest_year, 1)
        self._newest, self._span = deck.newest_year, span
        # Per-card lot features, with a last row of zeros that lot == -1 (none) reads.
        self._lot_age = np.asarray([*((deck.newest_year - y) / span for y in deck.year), 0.0])
        self._lot_series = np.zeros((deck.size + 1, deck.num_series), dtype=np.float32)
        self._lot_series[np.arange(deck.size), deck.series] = 1.0
        self._finish = rules.finish
        # The last-action features of every flat action index, the scalar encoder's table.
        num_actions = standard_layout(rules.starting_money).size
        feats = np.zeros((num_actions + 1, 8), dtype=np.float64)
        inv_money = 1.0 / max(rules.starting_money, 1)
        for action in range(num_actions):
            if action >= BID0:
                feats[action, [2, 7]] = (1.0, (action - BID0) * inv_money)
            elif action >= EXHIBIT:
                feats[action, [3, 4 + action - EXHIBIT]] = 1.0
        self._last_feats = feats.astype(np.float32)  # row -1 (no last round) is all zeros
        self._scale = self.scalar._scale
        self._obs_idx = self.scalar._obs_idx

    def _encode(self, state: BatchState, out: np.ndarray) -> None:
        s = state
        _encode_games(
            s.phase, s.round, s.lot, s.pile_len, s.positions, s.money, s.counts, s.public_counts,
            s.last_actions, s.locations, s.tallies, s.start_player, s.best_count, s.best_oldest,
            self._lot_series, self._lot_age, self._last_feats, self._scale, self._finish, self._newest,
            self._span, G_DIM, P_DIM, O_DIM, _LAST, _RATES, _MEAN_BID, _START, _ACTION, out,
        )  # fmt: skip


@jit  # type: ignore[misc]
def _encode_games(
    phase: Any, rounds: Any, lot: Any, pile_len: Any, positions: Any, money: Any, counts: Any,
    public_counts: Any, last_actions: Any, locations: Any, tallies: Any, start_player: Any,
    best_count: Any, best_oldest: Any, lot_series: Any, lot_age: Any, last_feats: Any, scale: Any,
    finish: int, newest: int, span: int, g_dim: int, p_dim: int, o_dim: int, last: int, rates: int,
    mean_bid: int, start: int, action_phase: int, src: Any,
) -> None:  # fmt: skip
    """Every game's scaled source vector (its global state) into ``src``."""
    b, n = money.shape
    num_series = counts.shape[2]
    width = src.shape[1]
    none_lot = lot_series.shape[0] - 1  # the tables' last row: no lot / no last action
    none_action = last_feats.shape[0] - 1
    seat_dim = p_dim + o_dim
    for g in range(b):
        row = src[g]
        for k in range(width):
            row[k] = 0.0
        acting = phase[g] == action_phase
        row[0] = not acting
        row[1] = acting
        row[2] = rounds[g]
        lt = lot[g] if lot[g] >= 0 else none_lot
        row[3] = lot[g] >= 0
        for s in range(lot_series.shape[1]):
            row[4 + s] = lot_series[lt, s]
        row[10] = lot_age[lt]
        row[11] = pile_len[g]
        inv = np.float32(1.0)
        if rounds[g] > 0:
            inv = np.float32(1.0 / rounds[g])
        for p in range(n):
            base = g_dim + p * seat_dim
            row[base] = min(positions[g, p], finish)
            row[base + 1] = money[g, p]
            total = 0
            for s in range(num_series):
                total += counts[g, p, s]
                row[base + 3 + s] = public_counts[g, p, s]
            row[base + 2] = total
            la = last_actions[g, p] if last_actions[g, p] >= 0 else none_action
            for k in range(8):
                row[base + last + k] = last_feats[la, k]
            row[base + last] = acting and locations[g, p] == 0
            row[base + last + 1] = acting and locations[g, p] == 1
            for k in range(5):
                row[base + rates + k] = np.float32(tallies[g, p, k]) * inv
            visits = tallies[g, p, 0]
            if visits > 0:
                row[base + mean_bid] = tallies[g, p, 5] / max(visits, 1)
            row[base + start] = p == start_player[g]
            own = base + p_dim
            for s in range(num_series):
                row[own + s] = counts[g, p, s]
            row[own + 6] = best_count[g, p]
            if best_count[g, p] > 0:
                row[own + 7] = (newest - best_oldest[g, p]) / span
                row[own + 8] = 1.0
        for k in range(width):
            row[k] = row[k] * scale[k]


__all__ = ["StandardBatchObserver"]
