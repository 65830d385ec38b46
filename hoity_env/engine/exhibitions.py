"""Exhibitions (RULES C-3): a hand's best exhibition and the ranking of displays.

The best exhibition is always one of the hand's maximal runs of consecutive series taken whole
(widening a run only adds cards and can only make its oldest card older), so one scan of the
runs finds it.  Rank key: ``(card count, -oldest year)``, larger is better; years are unique
(C-2), so two exhibitions never tie.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hoity_env.engine.cards import Deck

ExhibitionKey = tuple[int, int]
NO_EXHIBITION: ExhibitionKey = (0, 0)
"""Key of "no exhibition": lower than the key of any non-empty set of cards."""


def display_key(cards: Sequence[int], deck: Deck) -> ExhibitionKey:
    """Rank of a set of cards on display (C-3 order), valid or not; empty sets rank lowest."""
    if not cards:
        return NO_EXHIBITION
    year = deck.year
    return (len(cards), -min(year[c] for c in cards))


def best_exhibition(cards: Iterable[int], deck: Deck, min_size: int) -> tuple[int, ...] | None:
    """The best exhibition that ``cards`` can form (C-3), as sorted card ids, or ``None``."""
    by_series: list[list[int]] = [[] for _ in range(deck.num_series)]
    series = deck.series
    for c in cards:
        by_series[series[c]].append(c)
    best: list[int] | None = None
    best_key = NO_EXHIBITION
    s = 0
    num = deck.num_series
    while s < num:
        if not by_series[s]:
            s += 1
            continue
        run: list[int] = []
        while s < num and by_series[s]:
            run.extend(by_series[s])
            s += 1
        if len(run) >= min_size:
            key = display_key(run, deck)
            if key > best_key:
                best, best_key = run, key
    return tuple(sorted(best)) if best is not None else None


def best_exhibition_counted(
    hand: Sequence[int], counts: Sequence[int], deck: Deck, min_size: int
) -> tuple[int, ...] | None:
    """:func:`best_exhibition` from the hand's per-series ``counts``: only runs long enough collect cards."""
    best: list[int] | None = None
    best_key = NO_EXHIBITION
    num = len(counts)
    s = 0
    while s < num:
        if not counts[s]:
            s += 1
            continue
        lo, total = s, 0
        while s < num and counts[s]:
            total += counts[s]
            s += 1
        if total >= min_size:
            series = deck.series
            run = [c for c in hand if lo <= series[c] < s]
            key = display_key(run, deck)
            if key > best_key:
                best, best_key = run, key
    return tuple(sorted(best)) if best is not None else None


def best_exhibition_key(cards: Iterable[int], deck: Deck, min_size: int) -> ExhibitionKey:
    """Key of the best exhibition of ``cards`` (``NO_EXHIBITION`` when there is none)."""
    best = best_exhibition(cards, deck, min_size)
    return display_key(best, deck) if best is not None else NO_EXHIBITION


def best_keys_with_each(
    hand: Iterable[int], candidates: Sequence[int], deck: Deck, min_size: int
) -> list[ExhibitionKey]:
    """Key of the best exhibition of ``hand`` plus each candidate card in turn (a thief choosing a
    card, RULES S-6.2), from per-series summaries.
    """
    num = deck.num_series
    series, year = deck.series, deck.year
    counts = [0] * num
    oldest = [1 << 30] * num
    for c in hand:
        s = series[c]
        counts[s] += 1
        if year[c] < oldest[s]:
            oldest[s] = year[c]
    keys = []
    for card in candidates:
        s_card, y_card = series[card], year[card]
        best = NO_EXHIBITION
        run_count, run_oldest = 0, 1 << 30
        for s in range(num + 1):
            k = counts[s] + (s == s_card) if s < num else 0
            if k:
                run_count += k
                y = y_card if s == s_card and y_card < oldest[s] else oldest[s]
                run_oldest = min(run_oldest, y)
                continue
            if run_count >= min_size and (run_count, -run_oldest) > best:
                best = (run_count, -run_oldest)
            run_count, run_oldest = 0, 1 << 30
        keys.append(best)
    return keys


def is_exhibition(cards: Sequence[int], deck: Deck, min_size: int) -> bool:
    """Whether ``cards`` as a whole form a valid exhibition (C-3)."""
    if len(cards) < min_size:
        return False
    present = sorted({deck.series[c] for c in cards})
    return present[-1] - present[0] + 1 == len(present)
