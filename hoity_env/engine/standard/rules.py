"""The standard ruleset (RULES S-1 … S-8): setup, legal actions, the two-step round (C-4), the end."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hoity_env.engine.actions import (
    AUCTION,
    BID0,
    CASTLE,
    DETECTIVE,
    EXHIBIT,
    LOCATION_NAMES,
    ROLE_NAMES,
    THIEF,
    ActionLayout,
    Phase,
    standard_layout,
)
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import IllegalActionError
from hoity_env.engine.events import Event, EventKind, Record, frozen
from hoity_env.engine.exhibitions import ExhibitionKey, best_exhibition_key
from hoity_env.engine.standard.auction import lone_bid, resolve_auction
from hoity_env.engine.standard.castle import resolve_castle
from hoity_env.engine.state import GameState


class _BidReveals(dict[int, Record]):
    """``{"location": "auction", "bid": b}`` records, made once per amount."""

    def __missing__(self, bid: int) -> Record:
        record: Record = frozen({"location": "auction", "bid": bid})
        self[bid] = record
        return record


_TALLY_OF_ROLE = {EXHIBIT: 2, THIEF: 3, DETECTIVE: 4}
# Revealed choices are immutable records, so one object per possible choice serves every event.
_CASTLE_REVEALS = tuple(frozen({"location": "castle", "role": name}) for name in ROLE_NAMES)
_AUCTION_REVEALS = _BidReveals()


def _as_int(player: int, action: object) -> int:
    """Python or NumPy integer → ``int`` (a ``timedelta64`` is no action); else
    :class:`IllegalActionError`.
    """
    if isinstance(action, (bool, np.bool_, np.timedelta64)) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"action for player_{player} must be an integer, got {action!r}")
    return int(action)


def checked_actions(
    ruleset: object, state: GameState, actions: Sequence[int], *, validate: bool
) -> list[int]:
    """The joint action of a step checked (C-6): the game runs, one action per seat and, with
    ``validate``, each an integer that ``ruleset.is_legal``.  Shared by both rulesets.
    """
    if state.done:
        raise IllegalActionError("the game is over; start a new one")
    if len(actions) != state.num_players:
        raise IllegalActionError(f"expected {state.num_players} actions, got {len(actions)}")
    if not validate:
        return list(actions)
    checked = [_as_int(p, a) for p, a in enumerate(actions)]
    for p, a in enumerate(checked):
        if not ruleset.is_legal(state, p, a):  # type: ignore[attr-defined]
            raise IllegalActionError(
                f"action {a} is illegal for player_{p} in the {state.phase.name.lower()} step"
            )
    return checked


def deal(state: GameState) -> list[int]:
    """S-1/O-1: shuffle with the game's RNG, deal the hands; returns the rest (top card last)."""
    order: list[int] = state.rng.permutation(state.deck.size).tolist()
    for p in range(state.num_players):
        for _ in range(state.rules.starting_antiques):
            state.give_card(p, order.pop(), public=False)
    return order


def reveal_locations(state: GameState, actions: Sequence[int]) -> list[Event]:
    """C-4.1: the location step: record and reveal everybody's location."""
    state.locations = list(actions)
    state.phase = Phase.ACTION
    names = tuple([LOCATION_NAMES[a] for a in actions])
    return [Event(EventKind.LOCATIONS, state.round, locations=names)]


def next_round(state: GameState, actions: Sequence[int]) -> None:
    """C-4.4: remember the round's choices, back to the location step, pass the start player."""
    state.last_locations = state.locations
    state.last_actions = list(actions)
    state.locations = [-1] * state.num_players
    state.phase = Phase.LOCATION
    state.round += 1
    state.start_player = (state.start_player + 1) % state.num_players


def track_then_exhibition(state: GameState) -> list[tuple[int, ExhibitionKey]]:
    """S-7 and O-8 order of the players: track position, then best exhibition in hand (larger is better)."""
    deck, min_size = state.deck, state.rules.min_exhibition
    return [
        (state.positions[p], best_exhibition_key(state.hands[p], deck, min_size))
        for p in range(state.num_players)
    ]


def declare_winners(state: GameState, events: list[Event]) -> None:
    """S-7/O-8: the game is decided; the winners are the players first by :func:`track_then_exhibition`."""
    keys = track_then_exhibition(state)
    top = max(keys)
    state.winners = [p for p, k in enumerate(keys) if k == top]
    state.terminated = True
    events.append(
        Event(
            EventKind.GAME_END,
            state.round - 1,
            winners=tuple(state.winners),
            positions=tuple(state.positions),
        )
    )


def check_round_limit(state: GameState, events: list[Event]) -> None:
    """S-8 (both rulesets): truncate once ``max_rounds`` rounds are played."""
    if state.round >= state.rules.max_rounds:
        state.truncated = True
        events.append(Event(EventKind.TRUNCATED, state.round - 1, positions=tuple(state.positions)))


class StandardRuleset:
    """Rules of the ``standard`` ruleset, as stateless methods over a :class:`GameState`."""

    name = "standard"

    def __init__(self) -> None:
        self._mask_tables: dict[int, np.ndarray] = {}
        """:meth:`mask_table` per ``starting_money``."""

    def layout(self, rules: RulesConfig, num_players: int) -> ActionLayout:
        """Flat action layout (see :mod:`hoity_env.engine.actions`)."""
        return standard_layout(rules.starting_money)

    # ------------------------------------------------------------------ setup
    def new_state(self, rules: RulesConfig, num_players: int, rng: np.random.Generator) -> GameState:
        """S-1: shuffle with the game's RNG, deal face down, turn up the first lot."""
        state = GameState(rules, num_players, rng)
        order = deal(state)
        state.lot = order.pop()
        state.draw_pile = order
        return state

    # ------------------------------------------------------------ legal moves
    # A player's mask is always one of few distinct rows (a location step with the
    # Auction House open or closed, a castle with or without Exhibit, one lone bid,
    # or bids 0 … m), so masks are gathered from a table built once per money limit.
    # _ROW_* are the table's row numbers.
    _ROW_OPEN, _ROW_CLOSED, _ROW_CASTLE, _ROW_CASTLE_EXHIBIT, _ROW_SINGLE_BID = 0, 1, 2, 3, 4

    def mask_table(self, rules: RulesConfig) -> np.ndarray:
        """Every distinct mask row for ``rules`` (read-only; index it with :meth:`mask_rows`)."""
        money = rules.starting_money
        table = self._mask_tables.get(money)
        if table is None:
            size = BID0 + money + 1
            table = np.zeros((self._ROW_SINGLE_BID + 2 * (money + 1), size), dtype=np.int8)
            table[self._ROW_OPEN, [AUCTION, CASTLE]] = 1  # S-3
            table[self._ROW_CLOSED, CASTLE] = 1  # S-3: the Castle is always open
            table[self._ROW_CASTLE, [THIEF, DETECTIVE]] = 1  # S-4
            table[self._ROW_CASTLE_EXHIBIT, [EXHIBIT, THIEF, DETECTIVE]] = 1
            for m in range(money + 1):
                table[self._ROW_SINGLE_BID + m, BID0 + m] = 1  # S-4: a lone bidder's one bid
                table[self._ROW_SINGLE_BID + money + 1 + m, BID0 : BID0 + m + 1] = 1  # bids 0 … m
            table.flags.writeable = False
            self._mask_tables[money] = table
        return table

    def mask_rows(self, state: GameState) -> list[int]:
        """Row of :meth:`mask_table` holding each player's legal actions now."""
        if state.phase is Phase.LOCATION or state.done:
            return self.location_rows(state)
        locations = state.locations
        lone = locations.count(AUCTION) == 1
        min_price = state.rules.min_price
        bid_rows = self._ROW_SINGLE_BID + state.rules.starting_money + 1
        rows = []
        for p, where in enumerate(locations):
            if where == CASTLE:
                exhibit = state.best_exhibition(p) is not None
                rows.append(self._ROW_CASTLE_EXHIBIT if exhibit else self._ROW_CASTLE)
            elif lone:
                rows.append(self._ROW_SINGLE_BID + lone_bid(state.money[p], min_price))
            else:
                rows.append(bid_rows + state.money[p])
        return rows

    def location_rows(self, state: GameState) -> list[int]:
        """Rows of a location step (S-3): the Auction House is open while a lot is on display."""
        return [self._ROW_OPEN if state.lot >= 0 else self._ROW_CLOSED] * state.num_players

    def legal_masks(self, state: GameState) -> np.ndarray:
        """``(num_players, N)`` int8 legal masks (C-6: never an empty row; location masks once done)."""
        masks: np.ndarray = self.mask_table(state.rules)[self.mask_rows(state)]
        return masks

    def location_masks(self, state: GameState) -> np.ndarray:
        """Masks of a location step (S-3), also used for the final observation of a game."""
        masks: np.ndarray = self.mask_table(state.rules)[self.location_rows(state)]
        return masks

    def is_legal(self, state: GameState, player: int, action: int) -> bool:
        """Whether ``action`` is legal for ``player`` now (the mask's entry, without building it)."""
        if state.phase is Phase.LOCATION or state.done:
            return action == CASTLE or (action == AUCTION and state.lot >= 0)
        if state.locations[player] == CASTLE:
            if action == EXHIBIT:
                return state.best_exhibition(player) is not None
            return action in (THIEF, DETECTIVE)
        bid = action - BID0
        if state.locations.count(AUCTION) == 1:
            return bid == lone_bid(state.money[player], state.rules.min_price)
        return 0 <= bid <= state.money[player]

    # ------------------------------------------------------------------- step
    def step(self, state: GameState, actions: Sequence[int], *, validate: bool = True) -> list[Event]:
        """Apply one simultaneous step (C-4) and return its events.  ``validate=False`` is for callers
        that already checked (the env): actions must then be legal Python ints.
        """
        actions = checked_actions(self, state, actions, validate=validate)
        if state.phase is Phase.LOCATION:
            return reveal_locations(state, actions)
        return self._resolve_round(state, actions)

    def _resolve_round(self, state: GameState, actions: Sequence[int]) -> list[Event]:
        """C-4.2-4: reveal, Auction House, Castle, end check, pass the start player."""
        rnd = state.round
        reveal: list[Record] = []
        bids: dict[int, int] = {}
        exhibitors: list[int] = []
        thieves: list[int] = []
        detectives: list[int] = []
        for p, a in enumerate(actions):
            tally = state.tallies[p]
            if state.locations[p] == AUCTION:
                bid = a - BID0
                bids[p] = bid
                tally[0] += 1
                tally[5] += bid
                reveal.append(_AUCTION_REVEALS[bid])
            else:
                tally[1] += 1
                tally[_TALLY_OF_ROLE[a]] += 1
                (exhibitors if a == EXHIBIT else thieves if a == THIEF else detectives).append(p)
                reveal.append(_CASTLE_REVEALS[a - EXHIBIT])
        events = [Event(EventKind.ACTIONS, rnd, actions=tuple(reveal))]
        resolve_auction(state, bids, events)
        resolve_castle(state, exhibitors, thieves, detectives, events)

        next_round(state, actions)
        self._check_end(state, events)
        return events

    # -------------------------------------------------------------------- end
    def rank_keys(self, state: GameState) -> list[tuple[int, ExhibitionKey]]:
        """S-7 order of the players: track position, then best exhibition in hand (larger is better)."""
        return track_then_exhibition(state)

    def _check_end(self, state: GameState, events: list[Event]) -> None:
        """S-7 (a pawn reached the finish) and S-8 (round limit)."""
        if max(state.positions) >= state.rules.finish:
            declare_winners(state, events)
        else:
            check_round_limit(state, events)
