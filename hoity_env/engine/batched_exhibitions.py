"""Exhibitions (RULES C-3) over whole batches: per-series summaries and best runs.

The one-game engine scans a hand's maximal runs of consecutive series
(:mod:`hoity_env.engine.exhibitions`); here the same scan runs over arrays of
per-series counts and oldest years with any leading shape, one loop over the
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
    shape = counts.shape[:-1]
    num = counts.shape[-1]
    best_n = np.zeros(shape, dtype=np.int16)
    best_old = np.zeros(shape, dtype=np.int32)
    best_lo = np.zeros(shape, dtype=np.int8)
    best_hi = np.zeros(shape, dtype=np.int8)
    run_n = np.zeros(shape, dtype=np.int16)
    run_old = np.full(shape, NO_YEAR, dtype=np.int32)
    run_lo = np.zeros(shape, dtype=np.int8)
    for s in range(num + 1):
        if s < num:
            c = counts[..., s]
            present = c > 0
        else:
            present = np.zeros(shape, dtype=bool)
        # A run ends where series s is missing: keep it if it beats the best so far.
        ends = ~present & (run_n >= min_size)
        better = ends & ((run_n > best_n) | ((run_n == best_n) & (run_old < best_old)))
        if better.any():
            best_n = np.where(better, run_n, best_n)
            best_old = np.where(better, run_old, best_old)
            best_lo = np.where(better, run_lo, best_lo)
            best_hi = np.where(better, s, best_hi).astype(np.int8)
        if s == num:
            break
        run_lo = np.where(present & (run_n == 0), s, run_lo).astype(np.int8)
        run_n = np.where(present, run_n + c, 0).astype(np.int16)
        run_old = np.where(present, np.minimum(run_old, oldest[..., s]), NO_YEAR)
    return best_n, best_old, best_lo, best_hi


__all__ = ["NO_YEAR", "CardTable", "best_runs"]
