"""The Castle (RULES S-6) for a batch of games: arrest, theft, exhibition.

Mirrors :mod:`hoity_env.engine.standard.castle` with arrays.  Thefts are sequential within
a game (each thief robs the exhibition that is best *after* the earlier thefts),
so they run as a loop over the thieves' turn order (at most n turns), each turn
vectorized over the games where a thief is still to act.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.batched.exhibitions import NO_YEAR, CardTable, best_runs
from hoity_env.engine.batched.state import BatchState


def resolve_castles(
    state: BatchState,
    table: CardTable,
    games: np.ndarray,
    exhibit: np.ndarray,
    thief: np.ndarray,
    detective: np.ndarray,
    changed: np.ndarray,
) -> None:
    """S-6 for ``games`` given ``[G, n]`` role indicators.

    Per-series counts are kept up to date as cards move; the players whose hands
    changed are marked in ``changed`` (``[G, n]``) so that the caller recomputes
    their best exhibitions (which must be current on entry for the players at the
    Castle: the Auction House never changes their hands).
    """
    rules = table.rules
    has_show = exhibit.any(axis=1)
    shows = np.flatnonzero(has_show)
    displayed = show_exhibitions(state, table, games[shows], exhibit[shows])

    # 1. Arrest (S-6.1): a detective meeting any thief catches every thief.
    arrest = np.logical_and(thief.any(axis=1), detective.any(axis=1))
    if arrest.any():
        a = games[arrest]
        pos = state.positions[a]
        pos = np.where(thief[arrest], np.maximum(pos - rules.thief_penalty, 0), pos)
        pos = np.where(detective[arrest], pos + rules.detective_reward, pos)
        state.positions[a] = pos
        thief = np.logical_and(thief, ~arrest[:, None])

    # 2. Theft (S-6.2): uncaught thieves rob the best exhibition; nothing scores.  Thieves
    # without any exhibition on display take nothing, so only games with a show are played out.
    robbed = thief.any(axis=1)
    stealing: np.ndarray = np.asarray(robbed)[shows]
    if stealing.any():
        local = shows[stealing]
        changed[local] |= _thefts(
            state, table, games[local], thief[local], exhibit[local], displayed[stealing]
        )

    # 3. Exhibition (S-6.3): the best exhibition moves its owner by its card count.
    scoring = ~robbed & has_show
    if scoring.any():
        s = games[scoring]
        key = np.where(exhibit[scoring], table.key(state.best_count[s], state.best_oldest[s]), -1)
        best = key.argmax(axis=1)
        state.positions[s, best] += state.best_count[s, best]


def show_exhibitions(
    state: BatchState, table: CardTable, games: np.ndarray, exhibit: np.ndarray
) -> np.ndarray:
    """C-3 (both rulesets): every exhibitor of ``games`` (``[G, n]`` ``exhibit``) shows its best
    exhibition, all its cards of the best run's series, which become public.

    Returns ``[G, N]`` bool: the cards on display.  The best exhibitions must be current.
    """
    if not len(games):
        return np.zeros((0, table.deck.size), dtype=bool)
    owner = state.owner[games]
    held_by = np.clip(owner, 0, None).astype(np.intp)
    rows = np.arange(len(games))[:, None]
    lo, hi = state.best_lo[games], state.best_hi[games]
    displayed = (owner >= 0) & exhibit[rows, held_by]
    displayed &= (table.series >= lo[rows, held_by]) & (table.series < hi[rows, held_by])
    state.public[games] |= displayed
    series = np.arange(table.deck.num_series)[None, None, :]
    shown = exhibit[:, :, None] & (series >= lo[:, :, None]) & (series < hi[:, :, None])
    state.public_counts[games] = np.where(shown, state.counts[games], state.public_counts[games])
    return displayed  # type: ignore[no-any-return]


def _thefts(
    state: BatchState,
    table: CardTable,
    games: np.ndarray,
    thief: np.ndarray,
    exhibit: np.ndarray,
    displayed: np.ndarray,
) -> np.ndarray:
    """S-6.2: thieves in turn (furthest back first, ties from the start player) take one card each.

    ``displayed`` (``[G, N]``) holds the cards on show and loses each stolen card.  Each
    display's rank (count, oldest card) starts as its owner's best exhibition and is
    updated after every theft.  Returns ``[G, n]``: the hands that changed.
    """
    n = thief.shape[1]
    seats = np.arange(n)
    changed = np.zeros(thief.shape, dtype=bool)
    shown_count = np.where(exhibit, state.best_count[games], 0)
    shown_oldest = state.best_oldest[games].copy()
    turn = state.positions[games].astype(np.int64) * n + (seats - state.start_player[games][:, None]) % n
    order = np.argsort(np.where(thief, turn, np.iinfo(np.int64).max), axis=1)
    # A thief's hand changes only by its own theft, so every thief's preference over the
    # cards on display is scored once, up front; the turns below only pick among them.
    preference = card_preferences(state, table, games, thief, displayed)
    rows = np.arange(len(games))
    for r in range(n):
        who = order[:, r]
        # The victim: the best exhibition still on display (C-3 order on the cards left).
        key = table.key(shown_count, shown_oldest)
        acting = thief[rows, who] & (key.max(axis=1) > 0)
        if not acting.any():
            if not thief[rows, who].any():
                break
            continue
        sub = np.flatnonzero(acting)
        g, taker = games[sub], who[sub]
        victim = key[sub].argmax(axis=1)
        owner = state.owner[g]
        candidates = displayed[sub] & (owner == victim[:, None])
        card = np.where(candidates, preference[sub, taker], -1).argmax(axis=1)
        steal_displayed(state, table, g, victim, taker, card)
        displayed[sub, card] = False
        candidates[np.arange(len(sub)), card] = False
        shown_count[sub, victim] -= 1
        shown_oldest[sub, victim] = np.where(candidates, table.year, NO_YEAR).min(axis=1)
        changed[sub, victim] = True
        changed[sub, taker] = True
    return changed


def steal_displayed(
    state: BatchState, table: CardTable, games: np.ndarray, victim: np.ndarray, taker: np.ndarray,
    card: np.ndarray,
) -> None:  # fmt: skip
    """One theft per game of ``games`` (both rulesets): ``card`` (on display, so public) passes
    from ``victim``'s hand to ``taker``'s, the per-series counts following."""
    state.owner[games, card] = taker
    state.public[games, card] = True
    series = table.series[card]
    state.counts[games, victim, series] -= 1
    state.public_counts[games, victim, series] -= 1  # every displayed card is public
    state.counts[games, taker, series] += 1
    state.public_counts[games, taker, series] += 1


def card_preferences(
    state: BatchState, table: CardTable, games: np.ndarray, thief: np.ndarray, displayed: np.ndarray
) -> np.ndarray:
    """``[G, n, N]`` int64: how much each thief wants each displayed card (-1 elsewhere).

    S-6.2: the card that makes the thief's own best exhibition best, ties the older card.
    Each displayed card is added to the thief's per-series summary and the best run
    recomputed, for all (game, thief) pairs at once (``[pairs, K, S]``, K the most cards
    on display in one game).
    """
    out = np.full((*thief.shape, table.deck.size), -1, dtype=np.int64)
    pair_game, pair_thief = np.nonzero(thief)
    shown = displayed[pair_game]  # [P, N]
    k = int(shown.sum(axis=1).max())
    if k == 0:
        return out
    # Displayed card ids per pair, padded with the first one (a duplicate changes no maximum).
    order = np.argsort(~shown, axis=1, kind="stable")[:, :k]
    cards = np.where(np.take_along_axis(shown, order, axis=1), order, order[:, :1])
    g = games[pair_game]
    counts = state.counts[g, pair_thief]  # [P, S]
    held = state.owner[g] == pair_thief[:, None]
    oldest = np.minimum.reduceat(np.where(held, table.year, NO_YEAR), table.series_start, axis=1)
    num_series = counts.shape[1]
    added = table.series[cards][:, :, None] == np.arange(num_series)[None, None, :]  # [P, K, S]
    year = table.year[cards][:, :, None]
    oldest_with = np.where(added, np.minimum(oldest[:, None, :], year), oldest[:, None, :])
    count, old, _, _ = best_runs(counts[:, None, :] + added, oldest_with, table.rules.min_exhibition)
    score = table.key(count, old) * table.year_span + (table.newest - table.year[cards])
    out[pair_game[:, None], pair_thief[:, None], cards] = score
    return out


__all__ = ["card_preferences", "resolve_castles", "show_exhibitions", "steal_displayed"]
