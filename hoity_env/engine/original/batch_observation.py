"""Observations and global states of a batch of original games, as one compiled loop (RULES C-5).

Equal bit for bit to :class:`~hoity_env.engine.original.observation.OriginalObserver` game by
game: the same slices and scales, each value the same float64 quotient rounded once to float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import (
    O_AUCTION_THIEF,
    O_CHECK0,
    O_EXHIBIT,
    Phase,
    check_of_action,
    original_layout,
)
from hoity_env.engine.batched.kernels import SeatGather
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.cards import build_deck
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.jit import jit
from hoity_env.engine.original.batched_state import OriginalBatchState, OriginalTable
from hoity_env.engine.original.observation import OriginalObserver

_ACTION = int(Phase.ACTION)
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
"""The fields whose first column the kernel is handed, in its order."""


class OriginalBatchObserver(SeatGather):
    """Encodes every game of an original-ruleset batch for every seat at once (module docstring)."""

    def __init__(self, rules: RulesConfig, num_players: int) -> None:
        self.scalar = sc = OriginalObserver(rules, num_players)
        self.n = n = num_players
        self.obs_dim, self.state_dim = sc.obs_dim, sc.state_dim
        self.g_dim, self.o_dim, self.p_dim = sc.g_dim, sc.o_dim, sc.p_dim
        self._rules = rules
        deck = build_deck(rules, n)
        table = OriginalTable(rules, n)
        self._size = deck.size
        self._newest, self._span = deck.newest_year, max(deck.newest_year - deck.oldest_year, 1)
        self._age = np.asarray([*sc._age, 0.0])  # row -1 (no lot) reads 0
        self._series = np.asarray([*deck.series, 0])
        self._thieves = table.thieves
        self._thief_numbers = table.thieves.astype(np.float64) / sc._max_thief
        self._reward = table.reward.astype(np.float64) / sc._max_reward
        # Last round's castle card and check value of every flat action (row -1: none).
        num_actions = original_layout(rules.max_check).size
        feats = np.zeros((num_actions + 1, 4), dtype=np.float64)
        for action in range(num_actions):
            if O_EXHIBIT <= action < O_AUCTION_THIEF:
                feats[action, {0: 0, 1: 1, 2: 1, 3: 2}[action - O_EXHIBIT]] = 1.0
            elif action >= O_CHECK0:
                feats[action, 3] = check_of_action(action)[0] / sc._max_check
        self._last_feats = feats
        self._g_at = np.asarray([sc.g_sl[f].start for f in _G_FIELDS], dtype=np.int64)
        self._p_at = np.asarray([sc.p_sl[f].start for f in _P_FIELDS], dtype=np.int64)
        self._o_at = np.asarray([sc.o_sl[f].start for f in _O_FIELDS], dtype=np.int64)
        # Source = global state: g, then per seat (public, private); observation i gathers g,
        # seat i's private block, then the public blocks of seats i, i+1, ….
        seat = self.p_dim + self.o_dim
        idx = np.empty((n, self.obs_dim), dtype=np.intp)
        for i in range(n):
            parts = [np.arange(self.g_dim)]
            parts.append(self.g_dim + i * seat + self.p_dim + np.arange(self.o_dim))
            parts += [self.g_dim + ((i + k) % n) * seat + np.arange(self.p_dim) for k in range(n)]
            idx[i] = np.concatenate(parts)
        self._obs_idx = idx

    def _encode(self, state: BatchState, out: np.ndarray) -> None:
        if not isinstance(state, OriginalBatchState):
            raise TypeError(
                f"the original ruleset's batches are OriginalBatchState, got {type(state).__name__}"
            )
        s, sc, r = state, self.scalar, self._rules
        _encode_games(
            s.phase, s.round, s.lots, s.pile_lens, s.positions, s.counts, s.public_counts,
            s.locations, s.last_actions, s.last_locations, s.tallies, s.start_player, s.jail,
            s.check_owner, s.best_count, s.best_oldest,
            self._series, self._age, self._reward, self._last_feats, self._thieves, self._thief_numbers,
            sc._copies, self._g_at, self._p_at, self._o_at, r.max_rounds, self._size, r.finish,
            self._newest, self._span, sc._max_check, self.g_dim, self.p_dim, self.o_dim, out,
        )  # fmt: skip


@jit  # type: ignore[misc]
def _encode_games(
    phase: Any, rounds: Any, lots: Any, pile_lens: Any, positions: Any, counts: Any, public_counts: Any,
    locations: Any, last_actions: Any, last_locations: Any, tallies: Any, start_player: Any, jail: Any,
    check_owner: Any, best_count: Any, best_oldest: Any,
    lot_series: Any, lot_age: Any, reward: Any, last_feats: Any, thieves: Any, thief_numbers: Any,
    copies: Any, g_at: Any, p_at: Any, o_at: Any, max_rounds: int, size: int, finish: int, newest: int,
    span: int, max_check: float, g_dim: int, p_dim: int, o_dim: int, src: Any,
) -> None:  # fmt: skip
    """Every game's global state into ``src``, each value a float64 quotient rounded once to float32."""
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


__all__ = ["OriginalBatchObserver"]
