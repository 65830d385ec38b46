"""The action step of the ``original`` ruleset for a batch of games (RULES O-5 … O-8), numpy.

Mirrors :mod:`hoity_env.engine.original.rules` with arrays: the Auction House
(highest check buys the lot it names, a lone auction thief takes that check), the
three-step Castle (exhibitions score by the leader's castle, every thief robs every
exhibition highest number first, detectives jail the thieves and move by rank) and
the final exhibition.  Sequential parts of a game (thief after thief, exhibition after
exhibition) are loops over at most ``n`` ranks, each vectorised over the games where
that rank acts.  :mod:`hoity_env.engine.original.kernels` is the compiled twin.
"""

from __future__ import annotations

import numpy as np

from hoity_env.engine.actions import AUCTION, NUM_LOTS, ORIGINAL_INDICES
from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.shared_steps import next_rounds
from hoity_env.engine.batched.state import refresh_best_of
from hoity_env.engine.original.batched_state import REGISTER, OriginalBatchState, OriginalTable
from hoity_env.engine.standard.batched_castle import card_preferences, show_exhibitions, steal_displayed

O_EXHIBIT, O_THIEF_LOW, O_THIEF_HIGH, O_DETECTIVE, O_AUCTION_THIEF, O_CHECK0 = ORIGINAL_INDICES


def resolve_original_rounds(
    state: OriginalBatchState, table: CardTable, rules: OriginalTable, g: np.ndarray, actions: np.ndarray
) -> None:
    """C-4.2-4 for games ``g``: tallies, Auction House (O-5), Castle (O-6), next start player.

    The end check (O-8) is the caller's (:meth:`BatchedGame._check_end`, with the final
    exhibition of :func:`final_exhibitions`), as in the standard round.
    """
    acts = actions[g].astype(np.intp)
    locs = state.locations[g]
    auction = locs == AUCTION
    castle = ~auction
    is_check = auction & (acts >= O_CHECK0)
    value = np.where(is_check, (acts - O_CHECK0) // NUM_LOTS + 1, 0)
    named = np.where(is_check, (acts - O_CHECK0) % NUM_LOTS, 0)
    exhibit = castle & (acts == O_EXHIBIT)
    thief = castle & ((acts == O_THIEF_LOW) | (acts == O_THIEF_HIGH))
    detective = castle & (acts == O_DETECTIVE)
    tallies = state.tallies[g]
    tallies[..., 0] += auction
    tallies[..., 1] += castle
    tallies[..., 2] += exhibit
    tallies[..., 3] += thief
    tallies[..., 4] += detective
    tallies[..., 5] += value
    state.tallies[g] = tallies
    changed = np.zeros(locs.shape, dtype=bool)  # hands that gained or lost a card
    _auctions(state, table, g, value, named, auction & (acts == O_AUCTION_THIEF), changed)
    side = np.clip(acts - O_THIEF_LOW, 0, 1)
    numbers = np.where(thief, rules.thieves[np.arange(locs.shape[1])[None, :], side], 0)
    _castles(state, table, rules, g, exhibit, numbers, detective, changed)
    which, players = np.nonzero(changed)
    refresh_best_of(state, table, g[which], players)
    next_rounds(state, g, locs, acts)


def _auctions(
    state: OriginalBatchState,
    table: CardTable,
    g: np.ndarray,
    value: np.ndarray,
    named: np.ndarray,
    auction_thief: np.ndarray,
    changed: np.ndarray,
) -> None:
    """O-5: the highest check (values never tie) buys the lot it names and goes to the register;
    the pile turns up its next card; exactly one auction thief takes the winning check."""
    winner = value.argmax(axis=1)
    rows = np.arange(len(g))
    price = value[rows, winner]
    sold = np.flatnonzero(price > 0)
    if not sold.size:
        return
    gs, ws, prices = g[sold], winner[sold], price[sold]
    lot = named[sold, ws]
    card = state.lots[gs, lot].astype(np.intp)
    state.check_owner[gs, prices] = REGISTER
    state.money[gs, ws] -= prices
    state.owner[gs, card] = ws
    state.public[gs, card] = True
    series = table.series[card]
    state.counts[gs, ws, series] += 1
    state.public_counts[gs, ws, series] += 1
    changed[sold, ws] = True
    left = state.pile_lens[gs, lot]
    more = left > 0
    top_at = np.maximum(left - 1, 0)
    top = state.piles[gs, lot, top_at]
    state.lots[gs, lot] = np.where(more, top, -1)
    state.piles[gs, lot, top_at] = -1
    state.pile_lens[gs, lot] = left - more
    lone = auction_thief[sold].sum(axis=1) == 1  # two or more auction thieves cancel each other
    if lone.any():
        taker = auction_thief[sold[lone]].argmax(axis=1)
        state.check_owner[gs[lone], prices[lone]] = taker
        state.money[gs[lone], taker] += prices[lone]


def _castles(
    state: OriginalBatchState,
    table: CardTable,
    rules: OriginalTable,
    g: np.ndarray,
    exhibit: np.ndarray,
    numbers: np.ndarray,
    detective: np.ndarray,
    changed: np.ndarray,
) -> None:
    """O-6: exhibitions score, thieves steal, detectives arrest, always in this order.

    ``numbers`` (``[G, n]``) is the number of each castle thief played, 0 for the others.
    """
    n = exhibit.shape[1]
    shows = np.flatnonzero(exhibit.any(axis=1))
    displayed = np.zeros((len(g), table.deck.size), dtype=bool)
    displayed[shows] = show_exhibitions(state, table, g[shows], exhibit[shows])
    # 1. Exhibitions score: the leader's castle (read before anyone moves) pays big and small.
    key = np.where(exhibit, table.key(state.best_count[g], state.best_oldest[g]), 0)
    ranked = np.argsort(-key, axis=1, kind="stable")
    shown = (key > 0).sum(axis=1)
    leader = np.minimum(state.positions[g].max(axis=1), rules.reward.shape[0] - 1)
    reward = rules.reward[leader]
    state.positions[g, ranked[:, 0]] += np.where(shown >= 1, reward[:, 0], 0)
    state.positions[g, ranked[:, 1]] += np.where(shown >= 2, reward[:, 1], 0)
    # 2. Every castle thief, highest number first, takes one card from each exhibition, best first.
    thief = numbers > 0
    order = np.argsort(-numbers, axis=1, kind="stable")
    thieves = thief.sum(axis=1)
    robbing = (thieves > 0) & (shown > 0)
    for r in range(n):
        if not (robbing & (thieves > r)).any():
            break
        for v in range(n):
            victim = ranked[:, v]
            candidates = displayed & (state.owner[g] == victim[:, None])
            acting = np.flatnonzero(robbing & (thieves > r) & (shown > v) & candidates.any(axis=1))
            if acting.size:
                _steal(
                    state, table, g, acting, order[acting, r], victim[acting], candidates, displayed, changed
                )
    # 3. Detectives meeting a castle thief jail every one of them and move by their rank after step 1.
    arrest = np.flatnonzero(thief.any(axis=1) & detective.any(axis=1))
    if arrest.size:
        ga = g[arrest]
        pos = state.positions[ga]
        rank = 1 + (pos[:, None, :] > pos[:, :, None]).sum(axis=2)  # tied pawns share the better rank
        state.positions[ga] = pos + np.where(detective[arrest], rank, 0)
        _jail(state, ga, numbers[arrest])


def _steal(
    state: OriginalBatchState,
    table: CardTable,
    g: np.ndarray,
    acting: np.ndarray,
    taker: np.ndarray,
    victim: np.ndarray,
    candidates: np.ndarray,
    displayed: np.ndarray,
    changed: np.ndarray,
) -> None:
    """One theft in each game ``g[acting]``: ``taker`` takes from ``victim``'s display the card
    that makes its own best exhibition best (ties the older card; S-6.2's choice, O-6.2)."""
    gs = g[acting]
    k = np.arange(len(acting))
    one = np.zeros((len(acting), state.money.shape[1]), dtype=bool)
    one[k, taker] = True
    mine = candidates[acting]
    preference = card_preferences(state, table, gs, one, mine)[k, taker]
    card = np.where(mine, preference, -1).argmax(axis=1)
    steal_displayed(state, table, gs, victim, taker, card)
    displayed[acting, card] = False
    changed[acting, victim] = True
    changed[acting, taker] = True


def _jail(state: OriginalBatchState, games: np.ndarray, numbers: np.ndarray) -> None:
    """O-7: the caught thieves enter cell 1 lowest number first, so the highest ends in cell 1,
    ahead of the thieves already jailed; whoever is pushed beyond the last cell goes free."""
    n = state.jail.shape[1]
    caught = -np.sort(-numbers, axis=1)  # highest first, zeros (no thief) last
    cells = np.concatenate([caught, state.jail[games]], axis=1)
    keep = np.argsort(cells == 0, axis=1, kind="stable")[:, :n]
    state.jail[games] = np.take_along_axis(cells, keep, axis=1)


def final_exhibitions(
    state: OriginalBatchState, table: CardTable, rules: OriginalTable, games: np.ndarray
) -> None:
    """O-8: once a pawn reached the dinner table, every player's best exhibition is ranked; the
    best moves ``final_bonus[0]``, the second ``final_bonus[1]``, and both are shown."""
    key = table.key(state.best_count[games], state.best_oldest[games])
    ranked = np.argsort(-key, axis=1, kind="stable")
    shown = (key > 0).sum(axis=1)
    rows = np.arange(len(games))
    scored = np.zeros(key.shape, dtype=bool)
    scored[rows, ranked[:, 0]] = shown >= 1
    scored[rows, ranked[:, 1]] = shown >= 2
    state.positions[games, ranked[:, 0]] += np.where(shown >= 1, rules.final_bonus[0], 0)
    state.positions[games, ranked[:, 1]] += np.where(shown >= 2, rules.final_bonus[1], 0)
    show_exhibitions(state, table, games, scored)


__all__ = ["final_exhibitions", "resolve_original_rounds"]
