"""Observations and global states of a whole batch of ``original``-ruleset games (RULES C-5).

:class:`OriginalBatchObserver` produces, for every game of an
:class:`~hoity_env.engine.original.batched_state.OriginalBatchState`, exactly the arrays
:class:`~hoity_env.engine.original.observation.OriginalObserver` produces for the
same game: it takes that observer's field slices and scales, computes every feature in
float64 with the same operations, and rounds once to float32, as the one-game encoder
does, so the two agree bit for bit (a differential test compares them).

The source vector is the global state (global fields, then each absolute seat's public
and private blocks); observations are gathers from it through one index array.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.actions import O_AUCTION_THIEF, O_CHECK0, O_EXHIBIT, Phase, check_of_action
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.original import observation_kernel as batched_encode_original_numba
from hoity_env.engine.original.batched import OriginalBatchedGame
from hoity_env.engine.original.batched_state import OriginalBatchState
from hoity_env.engine.original.observation import OriginalObserver

_ACTION = int(Phase.ACTION)


class OriginalBatchObserver:
    """Encodes every game of an original-ruleset batch for every seat at once (module docstring)."""

    def __init__(self, batched: OriginalBatchedGame) -> None:
        self.batched = batched
        self.scalar = OriginalObserver(batched.game)
        sc = self.scalar
        self.n = n = batched.num_players
        self.obs_dim, self.state_dim = sc.obs_dim, sc.state_dim
        self.g_sl, self.o_sl, self.p_sl = sc.g_sl, sc.o_sl, sc.p_sl
        self.g_dim, self.o_dim, self.p_dim = sc.g_dim, sc.o_dim, sc.p_dim
        deck, rules = batched.table.deck, batched.rules
        self._size, self._finish = deck.size, rules.finish
        span = max(deck.newest_year - deck.oldest_year, 1)
        self._newest, self._span = deck.newest_year, span
        self._age = np.asarray([*sc._age, 0.0])  # row -1 (no lot) reads 0
        self._copies = sc._copies
        self._series = np.asarray([*deck.series, 0])
        self._max_check, self._max_thief, self._max_reward = sc._max_check, sc._max_thief, sc._max_reward
        self._thieves = batched.original.thieves.astype(np.float64) / self._max_thief
        self._reward = batched.original.reward.astype(np.float64) / self._max_reward
        # Last round's castle card and check value of every flat action (row -1: none).
        feats = np.zeros((batched.num_actions + 1, 4), dtype=np.float64)
        for action in range(batched.num_actions):
            if O_EXHIBIT <= action < O_AUCTION_THIEF:
                feats[action, {0: 0, 1: 1, 2: 1, 3: 2}[action - O_EXHIBIT]] = 1.0
            elif action >= O_CHECK0:
                feats[action, 3] = check_of_action(action)[0] / self._max_check
        self._last_feats = feats
        self._values = batched.original.values.astype(np.float64)
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

    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of an observation row (the one-game env's layout)."""
        return self.scalar.obs_layout()

    def state_layout(self) -> dict[str, slice]:
        """Name → slice of a global-state row."""
        return self.scalar.state_layout()

    def _source(self, state: OriginalBatchState) -> np.ndarray:
        """``[B, state_dim]`` float64 global states (= the source of the observations)."""
        b, n = state.money.shape
        src = np.zeros((b, self.g_dim + n * (self.p_dim + self.o_dim)), dtype=np.float64)
        g, sl = src[:, : self.g_dim], self.g_sl
        acting = state.phase == _ACTION
        g[:, sl["phase"].start] = ~acting
        g[:, sl["phase"].start + 1] = acting
        g[:, sl["round"].start] = state.round / self.batched.rules.max_rounds
        lots = state.lots.astype(np.intp)
        present = lots >= 0
        g[:, sl["auction_open"].start] = present.any(axis=1)
        g[:, sl["lot_present"]] = present
        rows = np.arange(b)
        for i in range(lots.shape[1]):
            g[rows, sl["lot_series"].start + 6 * i + self._series[lots[:, i]]] = present[:, i]
        g[:, sl["lot_age"]] = self._age[lots]
        g[:, sl["piles"]] = state.pile_lens / self._size
        leader = np.minimum(state.positions.max(axis=1), self._reward.shape[0] - 1)
        g[:, sl["leader_reward"]] = self._reward[leader]
        seats = src[:, self.g_dim :].reshape(b, n, self.p_dim + self.o_dim)
        pub, own, ps = seats[:, :, : self.p_dim], seats[:, :, self.p_dim :], self.p_sl
        pub[:, :, ps["position"].start] = np.minimum(state.positions / self._finish, 1.0)
        pub[:, :, ps["hand_size"].start] = state.counts.sum(axis=2) / self._size
        pub[:, :, ps["known"]] = state.public_counts / self._copies
        loc = state.locations
        pub[:, :, ps["location"].start] = acting[:, None] & (loc == 0)
        pub[:, :, ps["location"].start + 1] = acting[:, None] & (loc == 1)
        last, last_loc = state.last_actions, state.last_locations
        pub[:, :, ps["last_location"].start] = (last >= 0) & (last_loc == 0)
        pub[:, :, ps["last_location"].start + 1] = (last >= 0) & (last_loc == 1)
        feats = self._last_feats[last]
        pub[:, :, ps["last_role"]] = feats[:, :, :3]
        pub[:, :, ps["last_check"].start] = feats[:, :, 3]
        tally = state.tallies
        played = state.round > 0
        rates = tally[:, :, 0:5] / np.maximum(state.round, 1)[:, None, None]
        pub[:, :, ps["rate_auction"].start : ps["rate_detective"].stop] = np.where(
            played[:, None, None], rates, 0.0
        )
        visits = tally[:, :, 0]
        mean = tally[:, :, 5] / np.maximum(visits, 1) / self._max_check
        pub[:, :, ps["mean_check"].start] = np.where(visits > 0, mean, 0.0)
        pub[:, :, ps["start_player"].start] = np.arange(n)[None, :] == state.start_player[:, None]
        pub[:, :, ps["thief_numbers"]] = self._thieves[None]
        thieves = self.batched.original.thieves
        cell = state.jail[:, None, None, :] == thieves[None, :, :, None]  # [B, n, 2, n]
        pub[:, :, ps["thief_cells"]] = np.where(cell.any(axis=3), (cell.argmax(axis=3) + 1) / n, 0.0)
        held = np.where(state.held_checks(), self._values, 0.0)
        width = ps["checks"].stop - ps["checks"].start
        pub[:, :, ps["checks"]] = -np.sort(-held, axis=2)[:, :, :width] / self._max_check
        os = self.o_sl
        own[:, :, os["hand"]] = state.counts / self._copies
        best = state.best_count > 0
        own[:, :, os["best_size"].start] = np.where(best, state.best_count / self._size, 0.0)
        age = (self._newest - state.best_oldest.astype(np.int64)) / self._span
        own[:, :, os["best_age"].start] = np.where(best, age, 0.0)
        own[:, :, os["can_exhibit"].start] = best
        return src

    def source(self, state: BatchState) -> np.ndarray:
        """``[B, state_dim]`` float32 global states, by the numba kernel when the engine uses numba."""
        assert isinstance(state, OriginalBatchState)
        if self.batched.accelerator != "numba":
            return self._source(state).astype(np.float32)
        src = np.empty((state.batch_size, self.state_dim), dtype=np.float32)
        batched_encode_original_numba.encode(self, state, src)
        return src

    def observations(self, state: BatchState, *, reuse: bool = False) -> np.ndarray:
        """``[B, n, obs_dim]`` float32: ``[b, i]`` is seat ``i``'s observation of game ``b``.

        ``reuse`` is accepted for the standard observer's protocol and ignored (always encodes).
        """
        return self.source(state)[:, self._obs_idx]  # type: ignore[no-any-return]

    def replace_games(self, games: np.ndarray, state: BatchState) -> np.ndarray:
        """Observations of ``state`` (the standard observer's protocol: nothing is kept here)."""
        return self.observations(state)

    def global_states(self, state: BatchState) -> np.ndarray:
        """``[B, state_dim]`` float32 global states (all hands included), as ``env.state()``."""
        return self.source(state)


__all__ = ["OriginalBatchObserver"]
