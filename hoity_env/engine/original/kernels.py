"""The original ruleset's batched round and masks, as compiled loops over games (numba).

The batched engine's one implementation of RULES O-1 … O-9, held to the one-game engine by the
differential tests; the round is one long function as in :mod:`hoity_env.engine.standard.kernels`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import AUCTION, CASTLE, NUM_LOTS, ORIGINAL_INDICES, Phase, original_layout
from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.kernels import card_preference, close_round, oldest_of, packed_key, steal
from hoity_env.engine.jit import jit
from hoity_env.engine.original.batched_state import REGISTER, OriginalBatchState, OriginalTable

O_EXHIBIT, O_THIEF_LOW, O_THIEF_HIGH, O_DETECTIVE, O_AUCTION_THIEF, O_CHECK0 = ORIGINAL_INDICES

_LOCATION = int(Phase.LOCATION)


@jit  # type: ignore[misc]
def _show(gi: int, p: int, owner: Any, public: Any, counts: Any, public_counts: Any, lo: int, hi: int,
          series: Any, displayed: Any) -> None:  # fmt: skip
    """C-3 for one exhibitor: its cards of series ``lo … hi - 1`` go public (and into ``displayed``)."""
    for c in range(owner.shape[1]):
        if owner[gi, c] == p and lo <= series[c] < hi:
            public[gi, c] = True
            displayed[c] = True
    for s in range(lo, hi):
        public_counts[gi, p, s] = counts[gi, p, s]


@jit  # type: ignore[misc]
def _rank_desc(key: Any, out: Any) -> None:
    """Seats by ``key`` descending, ties in seat order (``np.argsort(-key, kind="stable")``)."""
    n = key.shape[0]
    for p in range(n):
        out[p] = p
    for i in range(1, n):
        j = i
        while j > 0 and key[out[j - 1]] < key[out[j]]:
            out[j - 1], out[j] = out[j], out[j - 1]
            j -= 1


@jit  # type: ignore[misc]
def _resolve_original_rounds(
    games: Any, actions: Any,
    owner: Any, public: Any, piles: Any, pile_lens: Any, lots: Any, check_owner: Any, jail: Any,
    money: Any, positions: Any, start_player: Any, rounds: Any, phase: Any, locations: Any,
    last_locations: Any, last_actions: Any, tallies: Any, terminated: Any, truncated: Any, winners: Any,
    counts: Any, public_counts: Any, best_count: Any, best_oldest: Any, best_lo: Any, best_hi: Any,
    year: Any, series: Any, span: int, newest: int, deck_size: int,
    thieves: Any, reward: Any, final_bonus: Any, min_size: int, finish: int, max_rounds: int,
) -> None:  # fmt: skip
    """The action step (C-4.2-4, O-5 … O-7), then the end (O-8, S-8), of each game in ``games``."""
    n = money.shape[1]
    num_series = counts.shape[2]
    value = np.zeros(n, dtype=np.int64)
    named = np.zeros(n, dtype=np.int64)
    auction_thief = np.zeros(n, dtype=np.bool_)
    exhibit = np.zeros(n, dtype=np.bool_)
    number = np.zeros(n, dtype=np.int64)
    detective = np.zeros(n, dtype=np.bool_)
    changed = np.zeros(n, dtype=np.bool_)
    displayed = np.zeros(deck_size, dtype=np.bool_)
    key = np.zeros(n, dtype=np.int64)
    ranked = np.zeros(n, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    rank = np.zeros(n, dtype=np.int64)
    cells = np.zeros(2 * n, dtype=np.int64)
    oldest = np.empty(num_series, dtype=np.int64)
    trial = np.empty(num_series, dtype=np.int64)
    trial_old = np.empty(num_series, dtype=np.int64)
    scale = (deck_size + 1) * span
    last_space = reward.shape[0] - 1
    for gi in games:
        thieves_played = 0
        any_detective = False
        for p in range(n):
            a = actions[gi, p]
            at_auction = locations[gi, p] == AUCTION
            value[p] = 0
            named[p] = 0
            auction_thief[p] = False
            exhibit[p] = False
            number[p] = 0
            detective[p] = False
            changed[p] = False
            if at_auction:
                if a >= O_CHECK0:
                    value[p] = (a - O_CHECK0) // NUM_LOTS + 1
                    named[p] = (a - O_CHECK0) % NUM_LOTS
                else:
                    auction_thief[p] = a == O_AUCTION_THIEF
            else:
                exhibit[p] = a == O_EXHIBIT
                detective[p] = a == O_DETECTIVE
                if O_THIEF_LOW <= a <= O_THIEF_HIGH:
                    number[p] = thieves[p, a - O_THIEF_LOW]
                    thieves_played += 1
                any_detective |= detective[p]
            # Public tallies (C-5).
            tallies[gi, p, 0] += at_auction
            tallies[gi, p, 1] += not at_auction
            tallies[gi, p, 2] += exhibit[p]
            tallies[gi, p, 3] += number[p] > 0
            tallies[gi, p, 4] += detective[p]
            tallies[gi, p, 5] += value[p]

        # --- Auction House (O-5): the highest check buys the lot it names ---
        winner = -1
        price = 0
        for p in range(n):
            if value[p] > price:
                price, winner = value[p], p
        if winner >= 0:
            lot = named[winner]
            card = lots[gi, lot]
            check_owner[gi, price] = REGISTER
            money[gi, winner] -= price
            owner[gi, card] = winner
            public[gi, card] = True
            counts[gi, winner, series[card]] += 1
            public_counts[gi, winner, series[card]] += 1
            changed[winner] = True
            left = pile_lens[gi, lot]
            if left > 0:  # the pile turns up its next card
                lots[gi, lot] = piles[gi, lot, left - 1]
                piles[gi, lot, left - 1] = -1
                pile_lens[gi, lot] = left - 1
            else:
                lots[gi, lot] = -1
            takers = 0
            taker = -1
            for p in range(n):
                if auction_thief[p]:
                    takers += 1
                    taker = p
            if takers == 1:  # one auction thief takes the winning check; more cancel each other
                check_owner[gi, price] = taker
                money[gi, taker] += price

        # --- Castle (O-6) ---
        for c in range(deck_size):
            displayed[c] = False
        shown = 0
        for p in range(n):
            key[p] = 0
            if exhibit[p]:
                _show(gi, p, owner, public, counts, public_counts, best_lo[gi, p], best_hi[gi, p], series,
                      displayed)  # fmt: skip
                key[p] = packed_key(best_count[gi, p], best_oldest[gi, p], span, newest)
                shown += key[p] > 0
        _rank_desc(key, ranked)
        # 1. Exhibitions score by the castle under the leader, read before anyone moves.
        leader = 0
        for p in range(n):
            leader = max(leader, positions[gi, p])
        leader = min(leader, last_space)
        big, small = reward[leader, 0], reward[leader, 1]
        if shown >= 1:
            positions[gi, ranked[0]] += big
        if shown >= 2:
            positions[gi, ranked[1]] += small
        # 2. Every castle thief, highest number first, robs every exhibition, best first.
        for p in range(n):
            key[p] = number[p]
        _rank_desc(key, order)
        for i in range(thieves_played if shown > 0 else 0):
            taker = order[i]
            for v in range(shown):
                victim = ranked[v]
                oldest_of(owner[gi], taker, year, series, num_series, oldest)
                card = -1
                card_pref = -1
                for c in range(deck_size):
                    if not displayed[c] or owner[gi, c] != victim:
                        continue
                    pref = card_preference(
                        counts[gi, taker], oldest, c, year, series, min_size, span, newest, trial, trial_old
                    )
                    if pref > card_pref:
                        card_pref, card = pref, c
                if card < 0:  # this display is empty
                    continue
                steal(gi, card, victim, taker, owner, public, counts, public_counts, series)
                displayed[card] = False
                changed[victim] = True
                changed[taker] = True
        # 3. Detectives meeting a thief jail them all and move by their rank after step 1.
        if thieves_played > 0 and any_detective:
            for p in range(n):
                rank[p] = 1
                for q in range(n):
                    if positions[gi, q] > positions[gi, p]:
                        rank[p] += 1
            for p in range(n):
                if detective[p]:
                    positions[gi, p] += rank[p]
            # O-7: the caught thieves, highest number first, ahead of those already jailed.
            k = 0
            for i in range(thieves_played):
                cells[k] = number[order[i]]
                k += 1
            for c in range(n):
                if jail[gi, c] > 0:
                    cells[k] = jail[gi, c]
                    k += 1
            for c in range(n):
                jail[gi, c] = cells[c] if c < k else 0

        close_round(gi, changed, actions, locations, last_locations, last_actions, phase, rounds,
                     start_player, owner, counts, best_count, best_oldest, best_lo, best_hi, year, series,
                     min_size, oldest)  # fmt: skip

        # --- End (O-8: the final exhibition, then the track; S-8) ---
        if positions[gi].max() >= finish:
            shown = 0
            for p in range(n):
                key[p] = packed_key(best_count[gi, p], best_oldest[gi, p], span, newest)
                shown += key[p] > 0
            _rank_desc(key, ranked)
            for i in range(min(shown, 2)):
                p = ranked[i]
                positions[gi, p] += final_bonus[i]
                _show(gi, p, owner, public, counts, public_counts, best_lo[gi, p], best_hi[gi, p], series,
                      displayed)  # fmt: skip
            top_rank = -1
            for p in range(n):
                top_rank = max(top_rank, positions[gi, p] * scale + key[p])
            for p in range(n):
                winners[gi, p] = positions[gi, p] * scale + key[p] == top_rank
            terminated[gi] = True
        elif rounds[gi] >= max_rounds:
            truncated[gi] = True


@jit  # type: ignore[misc]
def _original_masks(
    phase: Any, terminated: Any, truncated: Any, force: Any, locations: Any, best_count: Any,
    lots: Any, check_owner: Any, jail: Any, thieves: Any, out: Any,
) -> None:  # fmt: skip
    """O-3 location masks (finished and forced games too) and O-4 action masks into ``out``."""
    b, n = locations.shape
    values = check_owner.shape[1]
    for g in range(b):
        lot_open = lots[g, 0] >= 0 or lots[g, 1] >= 0
        as_location = phase[g] == _LOCATION or terminated[g] or truncated[g] or force[g]
        for p in range(n):
            out[g, p, :] = 0
            free_low = True
            free_high = True
            for c in range(n):
                free_low &= jail[g, c] != thieves[p, 0]
                free_high &= jail[g, c] != thieves[p, 1]
            holds = False
            for v in range(1, values):
                holds |= check_owner[g, v] == p
            if as_location:
                out[g, p, CASTLE] = 1
                out[g, p, AUCTION] = lot_open and (holds or free_low or free_high)
            elif locations[g, p] == CASTLE:
                out[g, p, O_EXHIBIT] = best_count[g, p] > 0
                out[g, p, O_THIEF_LOW] = free_low
                out[g, p, O_THIEF_HIGH] = free_high
                out[g, p, O_DETECTIVE] = 1
            else:
                out[g, p, O_AUCTION_THIEF] = free_low or free_high
                for v in range(1, values):
                    if check_owner[g, v] == p:
                        for lot in range(NUM_LOTS):
                            out[g, p, O_CHECK0 + NUM_LOTS * (v - 1) + lot] = lots[g, lot] >= 0


def resolve_rounds(
    state: OriginalBatchState, table: CardTable, rules: OriginalTable, games: np.ndarray, actions: np.ndarray
) -> None:
    """The compiled action step (end check included) for ``games`` (``actions``: the whole ``[B, n]``)."""
    s, r = state, table.rules
    _resolve_original_rounds(
        games.astype(np.int64), actions,
        s.owner, s.public, s.piles, s.pile_lens, s.lots, s.check_owner, s.jail,
        s.money, s.positions, s.start_player, s.round, s.phase, s.locations,
        s.last_locations, s.last_actions, s.tallies, s.terminated, s.truncated, s.winners,
        s.counts, s.public_counts, s.best_count, s.best_oldest, s.best_lo, s.best_hi,
        table.year, table.series, table.year_span, table.newest, table.deck.size,
        rules.thieves, rules.reward, rules.final_bonus, r.min_exhibition, r.finish, r.max_rounds,
    )  # fmt: skip


def original_masks(state: OriginalBatchState, rules: OriginalTable, force: np.ndarray) -> np.ndarray:
    """``[B, n, N]`` int8 legal masks (fresh); ``force``: ``[B]`` bool asks location masks."""
    s = state
    b, n = s.money.shape
    size = original_layout(rules.max_check).size
    out = np.empty((b, n, size), dtype=np.int8)
    _original_masks(
        s.phase, s.terminated, s.truncated, force, s.locations, s.best_count, s.lots, s.check_owner,
        s.jail, rules.thieves, out,
    )  # fmt: skip
    return out


__all__ = ["original_masks", "resolve_rounds"]
