"""The original batched observer's source encoding as one compiled loop over games (the ``fast`` extra).

:meth:`OriginalBatchObserver._source
<hoity_env.engine.original.batch_observation.OriginalBatchObserver._source>` builds
every game's global state with about 60 numpy operations on float64 arrays, which at
B = 1,024 costs more than the batched round itself.  This kernel writes the same values
game by game: each feature is the same float64 quotient of the same integers (or read
from the same float64 tables), rounded once to float32 as it is stored, so the result
is bit-identical to the numpy encoder and to the one-game
:class:`~hoity_env.engine.original.observation.OriginalObserver` (the differential
tests check both).  Used when the batched engine runs with ``accelerator="numba"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import Phase
from hoity_env.engine.jit import jit
from hoity_env.engine.original.batched_state import OriginalBatchState

_ACTION = int(Phase.ACTION)


@jit  # type: ignore[misc]
def _encode(
    phase: Any, rounds: Any, lots: Any, pile_lens: Any, positions: Any, counts: Any, public_counts: Any,
    locations: Any, last_actions: Any, last_locations: Any, tallies: Any, start_player: Any, jail: Any,
    check_owner: Any, best_count: Any, best_oldest: Any,
    lot_series: Any, lot_age: Any, reward: Any, last_feats: Any, thieves: Any, thief_numbers: Any,
    copies: Any, g_at: Any, p_at: Any, o_at: Any, max_rounds: int, size: int, finish: int, newest: int,
    span: int, max_check: float, g_dim: int, p_dim: int, o_dim: int, src: Any,
) -> None:  # fmt: skip
    """``OriginalBatchObserver._source`` for every game, as float32, into ``src`` ``[B, state_dim]``."""
    b, n = positions.shape
    num_series = counts.shape[2]
    last_space = reward.shape[0] - 1
    none_action = last_feats.shape[0] - 1
    for g in range(b):
        src[g, :] = 0.0
        acting = phase[g] == _ACTION
        src[g, g_at[0] + (1 if acting else 0)] = 1.0
        src[g, g_at[1]] = rounds[g] / max_rounds
        leader = 0
        for p in range(n):
            leader = max(leader, positions[g, p])
        for i in range(lots.shape[1]):
            lot = lots[g, i]
            if lot >= 0:
                src[g, g_at[2]] = 1.0
                src[g, g_at[3] + i] = 1.0
                src[g, g_at[4] + 6 * i + lot_series[lot]] = 1.0
                src[g, g_at[5] + i] = lot_age[lot]
            src[g, g_at[6] + i] = pile_lens[g, i] / size
        leader = min(leader, last_space)
        src[g, g_at[7]] = reward[leader, 0]
        src[g, g_at[7] + 1] = reward[leader, 1]
        for p in range(n):
            at = g_dim + p * (p_dim + o_dim)
            src[g, at + p_at[0]] = min(positions[g, p] / finish, 1.0)
            held = 0
            for s in range(num_series):
                held += counts[g, p, s]
                src[g, at + p_at[2] + s] = public_counts[g, p, s] / copies[s]
            src[g, at + p_at[1]] = held / size
            if acting and locations[g, p] >= 0:
                src[g, at + p_at[3] + locations[g, p]] = 1.0
            last = last_actions[g, p]
            if last >= 0:
                src[g, at + p_at[4] + last_locations[g, p]] = 1.0
            row = last if last >= 0 else none_action
            for k in range(3):
                src[g, at + p_at[5] + k] = last_feats[row, k]
            src[g, at + p_at[6]] = last_feats[row, 3]
            if rounds[g] > 0:
                for k in range(5):
                    src[g, at + p_at[7] + k] = tallies[g, p, k] / rounds[g]
            if tallies[g, p, 0] > 0:
                src[g, at + p_at[8]] = tallies[g, p, 5] / tallies[g, p, 0] / max_check
            src[g, at + p_at[9]] = 1.0 if start_player[g] == p else 0.0
            for j in range(2):
                src[g, at + p_at[10] + j] = thief_numbers[p, j]
                for c in range(n):
                    if jail[g, c] == thieves[p, j]:
                        src[g, at + p_at[11] + j] = (c + 1) / n
                        break
            slot = 0
            for v in range(check_owner.shape[1] - 1, 0, -1):  # highest check first
                if check_owner[g, v] == p:
                    src[g, at + p_at[12] + slot] = v / max_check
                    slot += 1
            own = at + p_dim
            for s in range(num_series):
                src[g, own + o_at[0] + s] = counts[g, p, s] / copies[s]
            if best_count[g, p] > 0:
                src[g, own + o_at[1]] = best_count[g, p] / size
                src[g, own + o_at[2]] = (newest - best_oldest[g, p]) / span
                src[g, own + o_at[3]] = 1.0


_G_FIELDS = (
    "phase",
    "round",
    "auction_open",
    "lot_present",
    "lot_series",
    "lot_age",
    "piles",
    "leader_reward",
)
_P_FIELDS = (
    "position", "hand_size", "known", "location", "last_location", "last_role", "last_check",
    "rate_auction", "mean_check", "start_player", "thief_numbers", "thief_cells", "checks",
)  # fmt: skip
_O_FIELDS = ("hand", "best_size", "best_age", "can_exhibit")


def encode(observer: Any, state: OriginalBatchState, src: np.ndarray) -> None:
    """The compiled source encoding of ``observer`` (an ``OriginalBatchObserver``) into ``src``."""
    o, s = observer, state
    g_at = np.asarray([o.g_sl[f].start for f in _G_FIELDS], dtype=np.int64)
    p_at = np.asarray([o.p_sl[f].start for f in _P_FIELDS], dtype=np.int64)
    o_at = np.asarray([o.o_sl[f].start for f in _O_FIELDS], dtype=np.int64)
    _encode(
        s.phase, s.round, s.lots, s.pile_lens, s.positions, s.counts, s.public_counts,
        s.locations, s.last_actions, s.last_locations, s.tallies, s.start_player, s.jail,
        s.check_owner, s.best_count, s.best_oldest,
        o._series, o._age, o._reward, o._last_feats, o.batched.original.thieves, o._thieves,
        o._copies, g_at, p_at, o_at, o.batched.rules.max_rounds, o._size, o._finish, o._newest,
        o._span, o._max_check, o.g_dim, o.p_dim, o.o_dim, src,
    )  # fmt: skip


__all__ = ["encode"]
