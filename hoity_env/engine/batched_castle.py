"""The Castle (RULES S-6) for a batch of games: arrest, theft, exhibition.

Mirrors :mod:`hoity_env.engine.castle` with arrays.  Thefts are sequential within
a game (each thief robs the exhibition that is best *after* the earlier thefts),
so they run as a loop over the thieves' turn order (at most n turns), each turn
vectorized over the games where a thief is still to act.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.batched_exhibitions import NO_YEAR, CardTable, best_runs
from hoity_env.engine.batched_state import BatchState


def resolve_castles(
    state: BatchState,
    table: CardTable,
    games: np.ndarray,
    exhibit: np.ndarray,
    thief: np.ndarray,
    detective: np.ndarray,
) -> None:
    """S-6 for ``games`` given ``[G, n]`` role indicators.

    The derived fields (counts, best exhibitions) must be current for the players at
    the Castle (the Auction House never changes their hands); the caller rebuilds
    them afterwards.
    """
    rules = table.rules
    rows = np.arange(len(games))
    owner = state.owner[games]
    held_by = np.clip(owner, 0, None).astype(np.intp)
    in_hand = owner >= 0
    # Every exhibitor shows its best exhibition (C-3): all its cards of the best run's series.
    lo = state.best_lo[games][rows[:, None], held_by]
    hi = state.best_hi[games][rows[:, None], held_by]
    shows = in_hand & exhibit[rows[:, None], held_by]
    displayed = shows & (table.series >= lo) & (table.series < hi)
    state.public[games] |= displayed

    # 1. Arrest (S-6.1): a detective meeting any thief catches every thief.
    arrest = np.logical_and(thief.any(axis=1), detective.any(axis=1))
    if arrest.any():
        a = games[arrest]
        pos = state.positions[a]
        pos = np.where(thief[arrest], np.maximum(pos - rules.thief_penalty, 0), pos)
        pos = np.where(detective[arrest], pos + rules.detective_reward, pos)
        state.positions[a] = pos
        thief = np.logical_and(thief, ~arrest[:, None])

    # 2. Theft (S-6.2): uncaught thieves rob the best exhibition; nothing scores.
    robbed = thief.any(axis=1)
    if robbed.any():
        _thefts(state, table, games[robbed], thief[robbed], displayed[robbed])

    # 3. Exhibition (S-6.3): the best exhibition moves its owner by its card count.
    scoring = ~robbed & exhibit.any(axis=1)
    if scoring.any():
        s = games[scoring]
        key = np.where(exhibit[scoring], table.key(state.best_count[s], state.best_oldest[s]), -1)
        best = key.argmax(axis=1)
        state.positions[s, best] += state.best_count[s, best]


def _thefts(
    state: BatchState, table: CardTable, games: np.ndarray, thief: np.ndarray, displayed: np.ndarray
) -> None:
    """S-6.2: thieves in turn (furthest back first, ties from the start player) take one card each."""
    n = thief.shape[1]
    seats = np.arange(n)
    turn = state.positions[games].astype(np.int64) * n + (seats - state.start_player[games][:, None]) % n
    order = np.argsort(np.where(thief, turn, np.iinfo(np.int64).max), axis=1)
    rows = np.arange(len(games))
    for r in range(n):
        who = order[:, r]
        acting = thief[rows, who]
        if not acting.any():
            break
        sub = np.flatnonzero(acting)
        g = games[sub]
        owner = state.owner[g]
        shown = displayed[sub]
        # The victim: the best exhibition still on display (C-3 order on the cards left).
        on_show = shown[:, None, :] & (owner[:, None, :] == seats[None, :, None])
        count = on_show.sum(axis=2)
        oldest = np.where(on_show, table.year, NO_YEAR).min(axis=2)
        key = table.key(count, oldest)
        victim = key.argmax(axis=1)
        found = key.max(axis=1) > 0
        if not found.any():
            continue
        sub, g, owner, victim = sub[found], g[found], owner[found], victim[found]
        taker = who[sub]
        candidates = displayed[sub] & (owner == victim[:, None])
        card = _choose_cards(state, table, g, taker, candidates)
        state.owner[g, card] = taker
        state.public[g, card] = True
        displayed[sub, card] = False


def _choose_cards(
    state: BatchState, table: CardTable, games: np.ndarray, thief: np.ndarray, candidates: np.ndarray
) -> np.ndarray:
    """Per game, the candidate card that makes the thief's best exhibition best; ties the older."""
    counts = state.counts[games, thief].astype(np.int16)  # [G, S]
    held = state.owner[games] == thief[:, None]
    oldest = np.minimum.reduceat(np.where(held, table.year, NO_YEAR), table.series_start, axis=1)
    num_series = counts.shape[1]
    added = table.series[None, :, None] == np.arange(num_series)[None, None, :]  # [1, N, S]
    with_card = counts[:, None, :] + added  # [G, N, S]
    year = table.year[None, :, None]
    oldest_with = np.where(added, np.minimum(oldest[:, None, :], year), oldest[:, None, :])
    count, old, _, _ = best_runs(with_card, oldest_with, table.rules.min_exhibition)
    key = table.key(count, old)  # [G, N]
    score = key * table.year_span + (table.newest - table.year[None, :])
    return np.where(candidates, score, -1).argmax(axis=1)  # type: ignore[no-any-return]


__all__ = ["resolve_castles"]
