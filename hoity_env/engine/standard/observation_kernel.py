"""The batched observer's source encoding as one compiled loop over games (the ``fast`` extra).

:meth:`BatchObserver._encode <hoity_env.engine.standard.batch_observation.BatchObserver._encode>`
writes every game's source vector with about 40 numpy operations, a fixed cost
that dominates at the batch sizes of training (16–64 games).  This kernel writes
the same float32 values game by game: every value is computed with the same
operations in the same precision (integers and float32 tables copied in,
float64 quotients rounded once to float32, one float32 product with the
scales), so the result is bit-identical, which the differential tests check
against the one-game :class:`~hoity_env.engine.standard.observation.StandardObserver`.

Used when the batched engine runs with ``accelerator="numba"`` (see
:mod:`hoity_env.engine.standard.kernels`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.jit import jit


@jit  # type: ignore[misc]
def _encode(
    phase: Any, rounds: Any, lot: Any, pile_len: Any, positions: Any, money: Any, counts: Any,
    public_counts: Any, last_actions: Any, locations: Any, tallies: Any, start_player: Any,
    best_count: Any, best_oldest: Any, lot_series: Any, lot_age: Any, last_feats: Any, scale: Any,
    finish: int, newest: int, span: int, g_dim: int, p_dim: int, o_dim: int, last: int, rates: int,
    mean_bid: int, start: int, action_phase: int, src: Any,
) -> None:  # fmt: skip
    """``BatchObserver._encode`` for every game: scaled source vectors into ``src`` ``[B, state_dim]``."""
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


def encode(observer: Any, state: BatchState, src: np.ndarray) -> None:
    """Fill ``src`` with the scaled source vectors of ``state`` (``observer`` is a ``BatchObserver``)."""
    s, o = state, observer
    _encode(
        s.phase, s.round, s.lot, s.pile_len, s.positions, s.money, s.counts, s.public_counts,
        s.last_actions, s.locations, s.tallies, s.start_player, s.best_count, s.best_oldest,
        o._lot_series, o._lot_age, o._last_feats, o._scale, o._finish, o._newest, o._span,
        o.G_DIM, o.P_DIM, o.O_DIM, o.LAST, o.RATES, o.MEAN_BID, o.START, o.ACTION_PHASE, src,
    )  # fmt: skip


__all__ = ["encode"]
