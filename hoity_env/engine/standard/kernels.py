"""The standard ruleset's batched round and masks, as compiled loops over games (numba).

The batched engine's one implementation of RULES S-1 … S-8, held to the one-game engine by the
differential tests.  A loop over games costs a few microseconds per game at any batch size
(docs/design.md, "One batched implementation"); the round is one long function so that numba
compiles it into one loop and the rule order reads as in the one-game engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF, Phase
from hoity_env.engine.batched.exhibitions import NO_YEAR, CardTable
from hoity_env.engine.batched.kernels import card_preference, close_round, oldest_of, packed_key, steal
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.jit import jit

_LOCATION = int(Phase.LOCATION)
_NO_YEAR = int(NO_YEAR)


@jit  # type: ignore[misc]
def _resolve_rounds(
    games: Any, actions: Any,
    owner: Any, public: Any, pile: Any, pile_len: Any, lot: Any, money: Any, positions: Any,
    start_player: Any, rounds: Any, phase: Any, locations: Any, last_locations: Any, last_actions: Any,
    tallies: Any, terminated: Any, truncated: Any, winners: Any,
    counts: Any, public_counts: Any, best_count: Any, best_oldest: Any, best_lo: Any, best_hi: Any,
    year: Any, series: Any, span: int, newest: int, deck_size: int,
    unique_bids: bool, min_price: int, min_size: int, thief_penalty: int, detective_reward: int,
    finish: int, max_rounds: int,
) -> None:  # fmt: skip
    """The action step (C-4.2-4, S-5, S-6, S-7, S-8) of each game in ``games``."""
    n = money.shape[1]
    num_series = counts.shape[2]
    bids = np.zeros(n, dtype=np.int64)
    auction = np.zeros(n, dtype=np.bool_)
    exhibit = np.zeros(n, dtype=np.bool_)
    thief = np.zeros(n, dtype=np.bool_)
    detective = np.zeros(n, dtype=np.bool_)
    changed = np.zeros(n, dtype=np.bool_)
    displayed = np.zeros(deck_size, dtype=np.bool_)
    preference = np.full((n, deck_size), -1, dtype=np.int64)
    shown_count = np.zeros(n, dtype=np.int64)
    shown_oldest = np.zeros(n, dtype=np.int64)
    oldest = np.empty(num_series, dtype=np.int64)
    trial = np.empty(num_series, dtype=np.int64)
    trial_old = np.empty(num_series, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    scale = (deck_size + 1) * span
    for gi in games:
        sp = start_player[gi]
        bidders = 0
        for p in range(n):
            a = actions[gi, p]
            auction[p] = locations[gi, p] == AUCTION
            castle = not auction[p]
            bids[p] = a - BID0 if auction[p] else 0
            exhibit[p] = castle and a == EXHIBIT
            thief[p] = castle and a == THIEF
            detective[p] = castle and a == DETECTIVE
            changed[p] = False
            bidders += auction[p]
            # Public tallies (C-5).
            tallies[gi, p, 0] += auction[p]
            tallies[gi, p, 1] += castle
            tallies[gi, p, 2] += exhibit[p]
            tallies[gi, p, 3] += thief[p]
            tallies[gi, p, 4] += detective[p]
            tallies[gi, p, 5] += bids[p]

        # --- Auction House (S-5) ---
        winner = 0
        price = 0
        if unique_bids:
            # Amounts bid by two or more players are void; 0 never wins.
            best = 0
            for p in range(n):
                if auction[p] and bids[p] > 0:
                    same = 0
                    for q in range(n):
                        if auction[q] and bids[q] == bids[p]:
                            same += 1
                    if same == 1 and bids[p] > best:
                        best, winner = bids[p], p
            price = best
        else:
            best = 0
            for p in range(n):
                if auction[p] and bids[p] > best:
                    best = bids[p]
            best_order = n
            for p in range(n):
                amount = bids[p] if auction[p] else 0
                o = (p - sp) % n
                if amount == best and o < best_order:
                    best_order, winner = o, p
            price = best
        sold = bidders >= 2 and price > 0
        if bidders == 1:
            lone = 0
            for p in range(n):
                if auction[p]:
                    lone = p
                    break
            if bids[lone] >= min_price:  # a lone bidder buys at min_price (S-4)
                winner, price, sold = lone, min_price, True
        if sold:
            card = lot[gi]
            money[gi, winner] -= price
            owner[gi, card] = winner
            public[gi, card] = True
            counts[gi, winner, series[card]] += 1
            public_counts[gi, winner, series[card]] += 1
            changed[winner] = True
            left = pile_len[gi]
            if left > 0:  # the next card goes on display; an empty pile closes the Auction House
                lot[gi] = pile[gi, left - 1]
                pile[gi, left - 1] = -1
                pile_len[gi] = left - 1
            else:
                lot[gi] = -1

        # --- Castle (S-6) ---
        has_show = False
        for p in range(n):
            has_show |= exhibit[p]
        for c in range(deck_size):
            displayed[c] = False
        if has_show:
            # Every exhibitor shows all its cards of its best run's series (C-3).
            for c in range(deck_size):
                o = owner[gi, c]
                if o >= 0 and exhibit[o] and best_lo[gi, o] <= series[c] < best_hi[gi, o]:
                    displayed[c] = True
                    public[gi, c] = True
            for p in range(n):
                if exhibit[p]:
                    for s in range(best_lo[gi, p], best_hi[gi, p]):
                        public_counts[gi, p, s] = counts[gi, p, s]
        any_thief = False
        any_detective = False
        for p in range(n):
            any_thief |= thief[p]
            any_detective |= detective[p]
        if any_thief and any_detective:  # 1. arrest (S-6.1)
            for p in range(n):
                if thief[p]:
                    positions[gi, p] = max(positions[gi, p] - thief_penalty, 0)
                    thief[p] = False
                if detective[p]:
                    positions[gi, p] += detective_reward
            any_thief = False
        if any_thief and has_show:  # 2. theft (S-6.2)
            # Each thief's preference over the displayed cards, scored before any theft.
            for p in range(n):
                if not thief[p]:
                    continue
                oldest_of(owner[gi], p, year, series, num_series, oldest)
                for c in range(deck_size):
                    if not displayed[c]:
                        continue
                    preference[p, c] = card_preference(
                        counts[gi, p], oldest, c, year, series, min_size, span, newest, trial, trial_old
                    )
            for p in range(n):
                shown_count[p] = best_count[gi, p] if exhibit[p] else 0
                shown_oldest[p] = best_oldest[gi, p]
            # Thieves in turn: furthest back first, ties from the start player.
            k = 0
            for p in range(n):
                if thief[p]:
                    order[k] = p
                    k += 1
            for i in range(1, k):  # insertion sort by turn (turns are distinct)
                j = i
                while j > 0:
                    a, b = order[j - 1], order[j]
                    ta = positions[gi, a] * n + (a - sp) % n
                    tb = positions[gi, b] * n + (b - sp) % n
                    if ta <= tb:
                        break
                    order[j - 1], order[j] = b, a
                    j -= 1
            for i in range(k):
                taker = order[i]
                victim = -1
                victim_key = 0
                for p in range(n):
                    key = packed_key(shown_count[p], shown_oldest[p], span, newest)
                    if key > victim_key:
                        victim_key, victim = key, p
                if victim < 0:  # nothing left on display
                    continue
                card = -1
                card_pref = -2
                for c in range(deck_size):
                    if displayed[c] and owner[gi, c] == victim and preference[taker, c] > card_pref:
                        card_pref, card = preference[taker, c], c
                steal(gi, card, victim, taker, owner, public, counts, public_counts, series)
                displayed[card] = False
                shown_count[victim] -= 1
                left_oldest = _NO_YEAR
                for c in range(deck_size):
                    if displayed[c] and owner[gi, c] == victim and year[c] < left_oldest:
                        left_oldest = year[c]
                shown_oldest[victim] = left_oldest
                changed[victim] = True
                changed[taker] = True
        elif has_show:  # 3. exhibition (S-6.3): the best one moves its owner
            top = -1
            best_key = -1
            for p in range(n):
                if exhibit[p]:
                    key = packed_key(best_count[gi, p], best_oldest[gi, p], span, newest)
                    if key > best_key:
                        best_key, top = key, p
            positions[gi, top] += best_count[gi, top]

        close_round(gi, changed, actions, locations, last_locations, last_actions, phase, rounds,
                     start_player, owner, counts, best_count, best_oldest, best_lo, best_hi, year, series,
                     min_size, oldest)  # fmt: skip

        # --- End (S-7, S-8) ---
        if positions[gi].max() >= finish:
            top_rank = -1
            for p in range(n):
                rank = positions[gi, p] * scale + packed_key(
                    best_count[gi, p], best_oldest[gi, p], span, newest
                )
                top_rank = max(top_rank, rank)
            for p in range(n):
                rank = positions[gi, p] * scale + packed_key(
                    best_count[gi, p], best_oldest[gi, p], span, newest
                )
                winners[gi, p] = rank == top_rank
            terminated[gi] = True
        elif rounds[gi] >= max_rounds:
            truncated[gi] = True


@jit  # type: ignore[misc]
def _mask_rows(
    lot: Any, phase: Any, terminated: Any, truncated: Any, locations: Any, best_count: Any, money: Any,
    force: Any, row_open: int, row_closed: int, row_castle: int, row_single: int, row_bids: int,
    min_price: int, out: Any,
) -> None:  # fmt: skip
    """Each seat's mask-table row into ``out`` (location rows where done or ``force``)."""
    b, n = money.shape
    for g in range(b):
        open_row = row_open if lot[g] >= 0 else row_closed
        if phase[g] == _LOCATION or terminated[g] or truncated[g] or force[g]:
            for p in range(n):
                out[g, p] = open_row
            continue
        bidders = 0
        for p in range(n):
            bidders += locations[g, p] == AUCTION
        for p in range(n):
            if locations[g, p] == CASTLE:
                out[g, p] = row_castle + (best_count[g, p] > 0)  # +1: the row with Exhibit
            elif bidders == 1:
                out[g, p] = row_single + (min_price if money[g, p] >= min_price else 0)
            else:
                out[g, p] = row_bids + money[g, p]


def mask_rows(
    state: BatchState, force: np.ndarray, rows: tuple[int, int, int, int, int], min_price: int
) -> np.ndarray:
    """``[B, n]`` mask-table rows; ``force`` (``[B]`` bool) asks location rows; ``rows``: the table's
    open, closed, castle, lone-bid and bids rows.
    """
    s = state
    out = np.empty(s.money.shape, dtype=np.intp)
    _mask_rows(
        s.lot, s.phase, s.terminated, s.truncated, s.locations, s.best_count, s.money, force, *rows,
        min_price, out,
    )  # fmt: skip
    return out


def resolve_rounds(state: BatchState, table: CardTable, games: np.ndarray, actions: np.ndarray) -> None:
    """The compiled action step for games ``games`` (``actions`` is the whole ``[B, n]`` array)."""
    rules = table.rules
    s = state
    _resolve_rounds(
        games.astype(np.int64), actions,
        s.owner, s.public, s.pile, s.pile_len, s.lot, s.money, s.positions,
        s.start_player, s.round, s.phase, s.locations, s.last_locations, s.last_actions,
        s.tallies, s.terminated, s.truncated, s.winners,
        s.counts, s.public_counts, s.best_count, s.best_oldest, s.best_lo, s.best_hi,
        table.year, table.series, table.year_span, table.newest, table.deck.size,
        rules.tie_break == "unique", rules.min_price, rules.min_exhibition, rules.thief_penalty,
        rules.detective_reward, rules.finish, rules.max_rounds,
    )  # fmt: skip


__all__ = ["mask_rows", "resolve_rounds"]
