"""Optional numba kernels for the batched engine: the action step as one compiled loop over games.

Why: at the batch sizes of training (16–64 games) a numpy step is bound by the
number of array operations, not by the games: the action step of the standard
round costs about 300 small numpy calls whatever B is, which at B = 16 is more
CPU than MaskablePPO spends on the same experience (measured in
``benchmarks/profile_training.py``; docs/design.md §7).  A compiled loop over
games costs a few microseconds per game instead.

This module is the *second* implementation of the round (the numpy path in
:mod:`hoity_env.engine.batched` and :mod:`hoity_env.engine.standard.batched_castle` is
the default and stays the reference), so both are held to the one-game engine
by the same differential tests.  It is used only when numba is installed (the
``fast`` extra) and asked for (``accelerator="numba"``, or ``"auto"``).

Each kernel mirrors one numpy function and names it; the comments cite the rule
ids.  Kernels take plain arrays (the fields of
:class:`~hoity_env.engine.batched.state.BatchState` and of
:class:`~hoity_env.engine.batched.exhibitions.CardTable`) and change them in place.

Why one file over the house's 350-line guide: the kernels call each other
(numba compiles a call graph, and a jitted function can only call functions it
sees when it is compiled), and together they are the single compiled twin of the
round; split up, each part would import the others' private helpers.  Repeated
shapes between a kernel and its numpy function (the same loop over seats, the
same rule order) are intended: each kernel restates one numpy function so that
the differential tests can hold the two equal, and ``duplicates`` lists such
kernel/numpy pairs as expected.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF, Phase
from hoity_env.engine.batched.exhibitions import NO_YEAR, CardTable
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.jit import jit

_LOCATION = int(Phase.LOCATION)
_NO_YEAR = int(NO_YEAR)


@jit  # type: ignore[misc]
def _best_run(counts: Any, oldest: Any, min_size: int) -> tuple[int, int, int, int]:
    """C-3 for one hand summary (``counts``/``oldest`` per series): ``best_runs`` for one row."""
    num = counts.shape[0]
    best_key = -1
    best_lo = 0
    best_hi = 0
    run_n = 0
    run_old = _NO_YEAR
    run_lo = 0
    for s in range(num + 1):
        present = s < num and counts[s] > 0
        if not present:
            if run_n >= min_size:
                key = (run_n << 32) - run_old
                if key > best_key:
                    best_key, best_lo, best_hi = key, run_lo, s
            run_n, run_old = 0, _NO_YEAR
            continue
        if run_n == 0:
            run_lo = s
        run_n += counts[s]
        run_old = min(run_old, oldest[s])
    if best_key < 0:
        return 0, 0, 0, 0
    size = (best_key + (1 << 32) - 1) >> 32
    return size, (size << 32) - best_key, best_lo, best_hi


@jit  # type: ignore[misc]
def _key(count: int, oldest: int, span: int, newest: int) -> int:
    """``CardTable.key`` for one exhibition (0 when there is none)."""
    return count * span + (newest - oldest) if count > 0 else 0


@jit  # type: ignore[misc]
def _oldest_of(owner_row: Any, player: int, year: Any, series: Any, num_series: int, out: Any) -> None:
    """Oldest year per series of ``player``'s cards into ``out`` (``oldest_per_series`` for one hand)."""
    for s in range(num_series):
        out[s] = _NO_YEAR
    for c in range(owner_row.shape[0]):
        if owner_row[c] == player and year[c] < out[series[c]]:
            out[series[c]] = year[c]


@jit  # type: ignore[misc]
def _steal(
    gi: int, card: int, victim: int, taker: int, owner: Any, public: Any, counts: Any, public_counts: Any,
    series: Any,
) -> None:  # fmt: skip
    """``steal_displayed`` for one game: the displayed ``card`` passes from ``victim`` to ``taker``."""
    s = series[card]
    owner[gi, card] = taker
    public[gi, card] = True
    counts[gi, victim, s] -= 1
    public_counts[gi, victim, s] -= 1
    counts[gi, taker, s] += 1
    public_counts[gi, taker, s] += 1


@jit  # type: ignore[misc]
def _card_preference(
    counts: Any, oldest: Any, card: int, year: Any, series: Any, min_size: int, span: int, newest: int,
    trial: Any, trial_old: Any,
) -> int:  # fmt: skip
    """How much a thief whose hand is summarised by ``counts``/``oldest`` wants ``card`` (S-6.2,
    O-6.2): its best exhibition's packed key with the card added, then the older card; one entry
    of ``card_preferences``.  ``trial``/``trial_old`` are scratch arrays of the series' length."""
    for s in range(counts.shape[0]):
        trial[s] = counts[s]
        trial_old[s] = oldest[s]
    s = series[card]
    trial[s] += 1
    trial_old[s] = min(trial_old[s], year[card])
    size, old, _, _ = _best_run(trial, trial_old, min_size)
    return _key(size, old, span, newest) * span + (newest - year[card])  # type: ignore[no-any-return]


@jit  # type: ignore[misc]
def _refresh_best_one(
    gi: int, p: int, owner: Any, counts: Any, best_count: Any, best_oldest: Any, best_lo: Any,
    best_hi: Any, year: Any, series: Any, min_size: int, oldest: Any,
) -> None:  # fmt: skip
    """``refresh_best_of`` for one (game, player)."""
    _oldest_of(owner[gi], p, year, series, counts.shape[2], oldest)
    size, old, lo, hi = _best_run(counts[gi, p], oldest, min_size)
    best_count[gi, p] = size
    best_oldest[gi, p] = old
    best_lo[gi, p] = lo
    best_hi[gi, p] = hi


@jit  # type: ignore[misc]
def _close_round(
    gi: int, changed: Any, actions: Any, locations: Any, last_locations: Any, last_actions: Any,
    phase: Any, rounds: Any, start_player: Any, owner: Any, counts: Any, best_count: Any,
    best_oldest: Any, best_lo: Any, best_hi: Any, year: Any, series: Any, min_size: int, oldest: Any,
) -> None:  # fmt: skip
    """``next_rounds`` for one game (C-4.2-4), shared by both rulesets' round kernels: refresh
    the best exhibitions of the ``changed`` seats, record the step, and pass the start player on."""
    n = locations.shape[1]
    for p in range(n):
        if changed[p]:
            _refresh_best_one(gi, p, owner, counts, best_count, best_oldest, best_lo, best_hi, year,
                              series, min_size, oldest)  # fmt: skip
        last_locations[gi, p] = locations[gi, p]
        last_actions[gi, p] = actions[gi, p]
        locations[gi, p] = -1
    phase[gi] = _LOCATION
    rounds[gi] += 1
    start_player[gi] = (start_player[gi] + 1) % n


@jit  # type: ignore[misc]
def _refresh_derived(
    games: Any, owner: Any, public: Any, counts: Any, public_counts: Any, best_count: Any,
    best_oldest: Any, best_lo: Any, best_hi: Any, year: Any, series: Any, min_size: int,
) -> None:  # fmt: skip
    """``refresh_derived`` for ``games``: per-series counts and best exhibitions from the owners."""
    n, num_series = counts.shape[1], counts.shape[2]
    oldest = np.empty(num_series, dtype=np.int64)
    for gi in games:
        counts[gi] = 0
        public_counts[gi] = 0
        for c in range(owner.shape[1]):
            p = owner[gi, c]
            if p >= 0:
                counts[gi, p, series[c]] += 1
                if public[gi, c]:
                    public_counts[gi, p, series[c]] += 1
        for p in range(n):
            _refresh_best_one(gi, p, owner, counts, best_count, best_oldest, best_lo, best_hi, year,
                              series, min_size, oldest)  # fmt: skip


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
    """``BatchedGame._resolve_rounds`` (C-4.2-4, S-5, S-6, S-7, S-8) for each game in ``games``."""
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
                _oldest_of(owner[gi], p, year, series, num_series, oldest)
                for c in range(deck_size):
                    if not displayed[c]:
                        continue
                    preference[p, c] = _card_preference(
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
                    key = _key(shown_count[p], shown_oldest[p], span, newest)
                    if key > victim_key:
                        victim_key, victim = key, p
                if victim < 0:  # nothing left on display
                    continue
                card = -1
                card_pref = -2
                for c in range(deck_size):
                    if displayed[c] and owner[gi, c] == victim and preference[taker, c] > card_pref:
                        card_pref, card = preference[taker, c], c
                _steal(gi, card, victim, taker, owner, public, counts, public_counts, series)
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
                    key = _key(best_count[gi, p], best_oldest[gi, p], span, newest)
                    if key > best_key:
                        best_key, top = key, p
            positions[gi, top] += best_count[gi, top]

        _close_round(gi, changed, actions, locations, last_locations, last_actions, phase, rounds,
                     start_player, owner, counts, best_count, best_oldest, best_lo, best_hi, year, series,
                     min_size, oldest)  # fmt: skip

        # --- End (S-7, S-8) ---
        if positions[gi].max() >= finish:
            top_rank = -1
            for p in range(n):
                rank = positions[gi, p] * scale + _key(best_count[gi, p], best_oldest[gi, p], span, newest)
                top_rank = max(top_rank, rank)
            for p in range(n):
                rank = positions[gi, p] * scale + _key(best_count[gi, p], best_oldest[gi, p], span, newest)
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
    """``BatchedGame.mask_rows``: each seat's row of the mask table (location rows for finished
    games and where ``force`` is set)."""
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


def mask_rows(game: Any, state: BatchState, force: np.ndarray | None) -> np.ndarray:
    """The compiled ``mask_rows`` of ``game`` (a ``BatchedGame``); ``force``: ``[B]`` bool or None."""
    s = state
    out = np.empty(s.money.shape, dtype=np.intp)
    if force is None:
        force = np.zeros(s.batch_size, dtype=np.bool_)
    _mask_rows(
        s.lot, s.phase, s.terminated, s.truncated, s.locations, s.best_count, s.money, force,
        game._row_open, game._row_closed, game._row_castle, game._row_single, game._row_bids,
        game.rules.min_price, out,
    )  # fmt: skip
    return out


@jit  # type: ignore[misc]
def _pick_legal(masks: Any, u: Any, out: Any) -> None:
    """``BatchedGame.random_from_masks``: the ``floor(u * count)``-th legal action of each mask."""
    b, n, size = masks.shape
    for g in range(b):
        for p in range(n):
            count = 0
            for a in range(size):
                count += masks[g, p, a]
            pick = np.int64(u[g, p] * count)
            for a in range(size):
                if masks[g, p, a]:
                    if pick == 0:
                        out[g, p] = a
                        break
                    pick -= 1


def pick_legal(masks: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The compiled ``random_from_masks`` given its draws ``u`` (``[B, n]``)."""
    out = np.zeros(u.shape, dtype=np.int64)
    _pick_legal(masks, u, out)
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


def refresh_derived(state: BatchState, table: CardTable, games: np.ndarray) -> None:
    """The compiled ``refresh_derived`` for ``games``."""
    s = state
    _refresh_derived(
        np.asarray(games, dtype=np.int64), s.owner, s.public, s.counts, s.public_counts, s.best_count,
        s.best_oldest, s.best_lo, s.best_hi, table.year, table.series, table.rules.min_exhibition,
    )  # fmt: skip


__all__ = [
    "mask_rows",
    "pick_legal",
    "refresh_derived",
    "resolve_rounds",
]
