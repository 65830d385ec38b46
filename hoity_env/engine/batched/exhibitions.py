"""Exhibitions (RULES C-3) over whole batches: per-series summaries and best runs.

The one-game engine scans a hand's maximal runs of consecutive series
(:mod:`hoity_env.engine.exhibitions`); here the same scan runs over arrays of
per-series counts and oldest years with any leading shape: one loop over the
six series instead of one over games.  Cards are numbered in series order
(C-2), so "per series" reductions are ``reduceat`` over contiguous card ranges.

An exhibition's rank ``(card count, -oldest year)`` is packed into one integer
(:meth:`CardTable.key`) so that comparisons and ``argmax`` work on plain arrays;
0 means "no exhibition" and ranks below every real one, as ``NO_EXHIBITION`` does.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.cards import Deck, build_deck
from hoity_env.engine.config import RulesConfig

NO_YEAR = np.iinfo(np.int32).max
"""Oldest year of an empty series (later than every card)."""


class CardTable:
    """The deck of one (rules, player count) as arrays, plus the packed exhibition key."""

    def __init__(self, rules: RulesConfig, num_players: int) -> None:
        self.rules = rules
        self.num_players = num_players
        self.deck: Deck = build_deck(rules, num_players)
        self.series = np.asarray(self.deck.series, dtype=np.int8)
        self.year = np.asarray(self.deck.year, dtype=np.int32)
        copies = np.asarray(self.deck.copies)
        self.series_start = np.concatenate([[0], np.cumsum(copies)[:-1]]).astype(np.intp)
        self.newest = int(self.year.max())
        self.year_span = self.newest - int(self.year.min()) + 1
        """Packed keys: ``count * year_span + (newest - oldest)``."""

    def key(self, count: np.ndarray, oldest: np.ndarray) -> np.ndarray:
        """Packed C-3 rank of exhibitions (0 where ``count`` is 0); larger is better."""
        packed = count.astype(np.int64) * self.year_span + (self.newest - oldest.astype(np.int64))
        return np.where(count > 0, packed, 0)  # type: ignore[no-any-return]

    def per_series_sum(self, cards: np.ndarray) -> np.ndarray:
        """Sum a ``[..., N]`` card indicator per series → ``[..., S]`` int16."""
        return np.add.reduceat(cards.astype(np.int16), self.series_start, axis=-1)  # type: ignore[no-any-return]

    def oldest_per_series(self, owner: np.ndarray, num_players: int) -> np.ndarray:
        """``[G, n, S]`` year of each player's oldest card of each series (``NO_YEAR`` if none)."""
        held = owner[:, None, :] == np.arange(num_players, dtype=owner.dtype)[None, :, None]
        years = np.where(held, self.year, NO_YEAR)
        return np.minimum.reduceat(years, self.series_start, axis=-1)  # type: ignore[no-any-return]


def best_runs(
    counts: np.ndarray, oldest: np.ndarray, min_size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Best exhibition of every hand summarized by ``counts``/``oldest`` (``[..., S]``).

    Returns ``(count, oldest year, first series, one past the last series)``, each of
    shape ``[...]``; ``count`` is 0 where no run reaches ``min_size`` (C-3).  Among runs,
    more cards win, then the older oldest card (years are unique, so no ties remain).
    """
    num = counts.shape[-1]
    shape = counts.shape[:-1]
    by_series = np.moveaxis(counts, -1, 0).astype(np.int64)  # [S, ...], contiguous per series
    oldest_by_series = np.moveaxis(oldest, -1, 0).astype(np.int64)
    # A run's rank (size, -oldest year) packed in one int64: size * 2**32 - oldest.
    best_key = np.full(shape, -1, dtype=np.int64)
    best_lo = np.zeros(shape, dtype=np.int8)
    best_hi = np.zeros(shape, dtype=np.int8)
    run_n = np.zeros(shape, dtype=np.int64)
    run_old = np.full(shape, NO_YEAR, dtype=np.int64)
    run_lo = np.zeros(shape, dtype=np.int8)
    for s in range(num + 1):
        present = by_series[s] > 0 if s < num else np.zeros(shape, dtype=bool)
        # A run ends where series s is missing: keep it if it beats the best so far.
        key = (run_n << 32) - run_old
        better = ~present & (run_n >= min_size) & (key > best_key)
        np.copyto(best_key, key, where=better)
        np.copyto(best_lo, run_lo, where=better)
        np.copyto(best_hi, s, where=better)
        if s == num:
            break
        np.copyto(run_lo, s, where=present & (run_n == 0))
        run_n = (run_n + by_series[s]) * present
        run_old = np.where(present, np.minimum(run_old, oldest_by_series[s]), NO_YEAR)
    found = best_key >= 0
    size = np.where(found, (best_key + (1 << 32) - 1) >> 32, 0)
    best_old = np.where(found, (size << 32) - best_key, 0)
    return size.astype(np.int16), best_old.astype(np.int32), best_lo, best_hi


__all__ = ["NO_YEAR", "CardTable", "best_runs"]
