"""The compiled steps both rulesets' batched rounds share (numba).

A hand's best exhibition (C-3), a thief's wish for a card (S-6.2, O-6.2), a theft, the end of a
round (C-4.4), the derived fields rebuilt from the hands, and the two uses of masks (a uniform
legal draw, the lowest legal fallback).  Kernels change the arrays they are given in place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import Phase
from hoity_env.engine.batched.exhibitions import NO_YEAR
from hoity_env.engine.jit import jit

_LOCATION = int(Phase.LOCATION)
_NO_YEAR = int(NO_YEAR)


@jit  # type: ignore[misc]
def best_run(counts: Any, oldest: Any, min_size: int) -> tuple[int, int, int, int]:
    """C-3 for one hand summarised per series: the best run's ``(card count, oldest year, first series,
    one past its last)``, all 0 without a run of ``min_size``.
    """
    num = counts.shape[0]
    best_key = -1
    best_lo = 0
    best_hi = 0
    run_n = 0
    run_old = _NO_YEAR
    run_lo = 0
    for s in range(num + 1):
        present = s < num and counts[s] > 0
        if not present:
            if run_n >= min_size:
                key = (run_n << 32) - run_old
                if key > best_key:
                    best_key, best_lo, best_hi = key, run_lo, s
            run_n, run_old = 0, _NO_YEAR
            continue
        if run_n == 0:
            run_lo = s
        run_n += counts[s]
        run_old = min(run_old, oldest[s])
    if best_key < 0:
        return 0, 0, 0, 0
    size = (best_key + (1 << 32) - 1) >> 32
    return size, (size << 32) - best_key, best_lo, best_hi


@jit  # type: ignore[misc]
def packed_key(count: int, oldest: int, span: int, newest: int) -> int:
    """``CardTable.key`` for one exhibition (0 when there is none)."""
    return count * span + (newest - oldest) if count > 0 else 0


@jit  # type: ignore[misc]
def oldest_of(owner_row: Any, player: int, year: Any, series: Any, num_series: int, out: Any) -> None:
    """The year of ``player``'s oldest card of each series into ``out`` (``NO_YEAR`` if none)."""
    for s in range(num_series):
        out[s] = _NO_YEAR
    for c in range(owner_row.shape[0]):
        if owner_row[c] == player and year[c] < out[series[c]]:
            out[series[c]] = year[c]


@jit  # type: ignore[misc]
def steal(
    gi: int, card: int, victim: int, taker: int, owner: Any, public: Any, counts: Any, public_counts: Any,
    series: Any,
) -> None:  # fmt: skip
    """One theft in game ``gi``: the displayed (so public) ``card`` passes from ``victim`` to ``taker``."""
    s = series[card]
    owner[gi, card] = taker
    public[gi, card] = True
    counts[gi, victim, s] -= 1
    public_counts[gi, victim, s] -= 1
    counts[gi, taker, s] += 1
    public_counts[gi, taker, s] += 1


@jit  # type: ignore[misc]
def card_preference(
    counts: Any, oldest: Any, card: int, year: Any, series: Any, min_size: int, span: int, newest: int,
    trial: Any, trial_old: Any,
) -> int:  # fmt: skip
    """How much a thief with this hand summary wants ``card`` (S-6.2, O-6.2): the packed key of its best
    exhibition with the card, then the older card.  ``trial``/``trial_old`` are scratch arrays.
    """
    for s in range(counts.shape[0]):
        trial[s] = counts[s]
        trial_old[s] = oldest[s]
    s = series[card]
    trial[s] += 1
    trial_old[s] = min(trial_old[s], year[card])
    size, old, _, _ = best_run(trial, trial_old, min_size)
    return packed_key(size, old, span, newest) * span + (newest - year[card])  # type: ignore[no-any-return]


@jit  # type: ignore[misc]
def refresh_best_one(
    gi: int, p: int, owner: Any, counts: Any, best_count: Any, best_oldest: Any, best_lo: Any,
    best_hi: Any, year: Any, series: Any, min_size: int, oldest: Any,
) -> None:  # fmt: skip
    """Recompute the best exhibition of seat ``p`` of game ``gi`` from its hand."""
    oldest_of(owner[gi], p, year, series, counts.shape[2], oldest)
    size, old, lo, hi = best_run(counts[gi, p], oldest, min_size)
    best_count[gi, p] = size
    best_oldest[gi, p] = old
    best_lo[gi, p] = lo
    best_hi[gi, p] = hi


@jit  # type: ignore[misc]
def close_round(
    gi: int, changed: Any, actions: Any, locations: Any, last_locations: Any, last_actions: Any,
    phase: Any, rounds: Any, start_player: Any, owner: Any, counts: Any, best_count: Any,
    best_oldest: Any, best_lo: Any, best_hi: Any, year: Any, series: Any, min_size: int, oldest: Any,
) -> None:  # fmt: skip
    """C-4.4 for game ``gi``: refresh the ``changed`` seats' best exhibitions, remember the round's
    choices, back to the location step, pass the start player on.
    """
    n = locations.shape[1]
    for p in range(n):
        if changed[p]:
            refresh_best_one(gi, p, owner, counts, best_count, best_oldest, best_lo, best_hi, year,
                             series, min_size, oldest)  # fmt: skip
        last_locations[gi, p] = locations[gi, p]
        last_actions[gi, p] = actions[gi, p]
        locations[gi, p] = -1
    phase[gi] = _LOCATION
    rounds[gi] += 1
    start_player[gi] = (start_player[gi] + 1) % n


@jit  # type: ignore[misc]
def rebuild_derived(
    games: Any, owner: Any, public: Any, counts: Any, public_counts: Any, best_count: Any,
    best_oldest: Any, best_lo: Any, best_hi: Any, year: Any, series: Any, min_size: int,
) -> None:  # fmt: skip
    """The derived fields of ``games`` rebuilt from ``owner`` and ``public``."""
    n, num_series = counts.shape[1], counts.shape[2]
    oldest = np.empty(num_series, dtype=np.int64)
    for gi in games:
        counts[gi] = 0
        public_counts[gi] = 0
        for c in range(owner.shape[1]):
            p = owner[gi, c]
            if p >= 0:
                counts[gi, p, series[c]] += 1
                if public[gi, c]:
                    public_counts[gi, p, series[c]] += 1
        for p in range(n):
            refresh_best_one(gi, p, owner, counts, best_count, best_oldest, best_lo, best_hi, year,
                             series, min_size, oldest)  # fmt: skip


@jit  # type: ignore[misc]
def gather_seats(source: Any, columns: Any, out: Any) -> None:
    """``out[g, i, k] = source[g, columns[i, k]]``: each seat's observation gathered from its game's
    source.
    """
    n, dim = columns.shape
    for g in range(source.shape[0]):
        for i in range(n):
            for k in range(dim):
                out[g, i, k] = source[g, columns[i, k]]


class SeatGather:
    """What both rulesets' batch encoders share: their one-game encoder's layouts, and each seat's
    observation gathered from its game's global state (which a subclass's kernel writes)."""

    scalar: Any
    """The ruleset's one-game encoder, equal to this one game by game."""
    n: int
    obs_dim: int
    state_dim: int
    _obs_idx: np.ndarray

    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of an observation row (the one-game env's layout)."""
        return self.scalar.obs_layout()  # type: ignore[no-any-return]

    def state_layout(self) -> dict[str, slice]:
        """Name → slice of a global-state row."""
        return self.scalar.state_layout()  # type: ignore[no-any-return]

    def observations(self, state: Any) -> np.ndarray:
        """``[B, n, obs_dim]`` float32 (fresh): ``[b, i]`` is seat ``i``'s observation of game ``b``."""
        out = np.empty((state.batch_size, self.n, self.obs_dim), dtype=np.float32)
        gather_seats(self.global_states(state), self._obs_idx, out)
        return out

    def global_states(self, state: Any) -> np.ndarray:
        """``[B, state_dim]`` float32 global states (all hands included), as ``env.state()``."""
        out = np.empty((state.batch_size, self.state_dim), dtype=np.float32)
        self._encode(state, out)
        return out

    def _encode(self, state: Any, out: np.ndarray) -> None:
        raise NotImplementedError


@jit  # type: ignore[misc]
def _pick_legal(masks: Any, u: Any, out: Any) -> None:
    """:func:`pick_legal` into ``out``."""
    b, n, size = masks.shape
    for g in range(b):
        for p in range(n):
            count = 0
            for a in range(size):
                count += masks[g, p, a]
            pick = np.int64(u[g, p] * count)
            for a in range(size):
                if masks[g, p, a]:
                    if pick == 0:
                        out[g, p] = a
                        break
                    pick -= 1


def pick_legal(masks: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``[B, n]``: each seat's ``floor(u * legal count)``-th legal action (uniform for uniform ``u``)."""
    out = np.zeros(u.shape, dtype=np.int64)
    _pick_legal(masks, u, out)
    return out


@jit  # type: ignore[misc]
def _fall_back(masks: Any, actions: Any, out: Any, illegal: Any) -> None:
    """:func:`fall_back` into ``out`` and ``illegal``."""
    b, n, size = masks.shape
    for g in range(b):
        for p in range(n):
            a = actions[g, p]
            if 0 <= a < size and masks[g, p, a]:
                out[g, p] = a
                continue
            illegal[g, p] = True
            for lowest in range(size):
                if masks[g, p, lowest]:
                    out[g, p] = lowest
                    break


def fall_back(masks: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(actions, illegal)``: each masked-out or out-of-range action replaced by its row's lowest legal
    one.
    """
    out = np.zeros(actions.shape, dtype=np.intp)
    illegal = np.zeros(actions.shape, dtype=np.bool_)
    _fall_back(masks, actions, out, illegal)
    return out, illegal


__all__ = [
    "SeatGather",
    "best_run",
    "card_preference",
    "close_round",
    "fall_back",
    "gather_seats",
    "oldest_of",
    "packed_key",
    "pick_legal",
    "rebuild_derived",
    "refresh_best_one",
    "steal",
]
