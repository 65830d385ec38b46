"""The deck of one (rules, player count) as arrays, and exhibitions (RULES C-3) as packed keys.

An exhibition's rank ``(card count, -oldest year)`` is packed into one integer
(:meth:`CardTable.key`), so comparisons and ``argmax`` work on plain arrays; 0 is "no exhibition".
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
        self.newest = int(self.year.max())
        self.year_span = self.newest - int(self.year.min()) + 1
        """Packed keys: ``count * year_span + (newest - oldest)``."""

    def key(self, count: np.ndarray, oldest: np.ndarray) -> np.ndarray:
        """Packed C-3 rank of exhibitions (0 where ``count`` is 0); larger is better."""
        packed = count.astype(np.int64) * self.year_span + (self.newest - oldest.astype(np.int64))
        return np.where(count > 0, packed, 0)  # type: ignore[no-any-return]


__all__ = ["NO_YEAR", "CardTable"]
