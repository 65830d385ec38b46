"""The antique deck (RULES C-2): series and year of every card id ``k = 0 … N-1``, in series order."""

from __future__ import annotations

from dataclasses import dataclass

from hoity_env.engine.config import RulesConfig


@dataclass(frozen=True)
class Deck:
    """The deck used by one game: ``series[k]`` (0-based) and ``year[k]`` of card ``k``."""

    series: tuple[int, ...]
    year: tuple[int, ...]
    copies: tuple[int, ...]
    """Copies of each series in this deck (C-2 depends on the player count)."""

    @property
    def size(self) -> int:
        """Number of cards N."""
        return len(self.series)

    @property
    def num_series(self) -> int:
        """Number of series (6 in both rulesets)."""
        return len(self.copies)

    @property
    def oldest_year(self) -> int:
        """Smallest year in the deck (the most valuable card)."""
        return min(self.year)

    @property
    def newest_year(self) -> int:
        """Largest year in the deck."""
        return max(self.year)


def build_deck(rules: RulesConfig, num_players: int) -> Deck:
    """Build the deck for ``num_players`` (C-2): series copies, then unique years."""
    copies = rules.series_copies_six if num_players >= 6 else rules.series_copies
    series: list[int] = []
    for s, count in enumerate(copies):
        series.extend([s] * count)
    n = len(series)
    years = tuple(rules.year_base + rules.year_step * ((rules.year_multiplier * k) % n) for k in range(n))
    return Deck(series=tuple(series), year=years, copies=tuple(copies))
