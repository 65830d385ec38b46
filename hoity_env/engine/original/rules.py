"""The original ruleset (RULES O-1 … O-9): checks, two lots, thieves by number, jail, castle rewards."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hoity_env.engine.actions import (
    AUCTION,
    CASTLE,
    NUM_LOTS,
    ORIGINAL_INDICES,
    ActionLayout,
    Phase,
    check_action,
    check_of_action,
    original_layout,
)
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.events import Event, EventKind, Record, frozen
from hoity_env.engine.exhibitions import ExhibitionKey, display_key
from hoity_env.engine.original.state import OriginalState
from hoity_env.engine.standard.castle import choose_card, move, show_exhibitions
from hoity_env.engine.standard.rules import (
    check_round_limit,
    checked_actions,
    deal,
    declare_winners,
    next_round,
    reveal_locations,
    track_then_exhibition,
)
from hoity_env.engine.state import GameState

O_EXHIBIT, O_THIEF_LOW, O_THIEF_HIGH, O_DETECTIVE, O_AUCTION_THIEF, O_CHECK0 = ORIGINAL_INDICES

_TALLY_OF_ACTION = {O_EXHIBIT: 2, O_THIEF_LOW: 3, O_THIEF_HIGH: 3, O_DETECTIVE: 4}


def _original(state: GameState) -> OriginalState:
    if not isinstance(state, OriginalState):
        raise TypeError(f"the original ruleset plays OriginalState, got {type(state).__name__}")
    return state


def competition_ranks(positions: Sequence[int]) -> list[int]:
    """O-6.3: rank of each pawn, leader 1; tied pawns share the better rank (1, 2, 3, 3, 5)."""
    return [1 + sum(q > p for q in positions) for p in positions]


def jail_thieves(state: OriginalState, caught: Sequence[int], events: list[Event]) -> None:
    """O-7: caught thieves enter cell 1 lowest number first; the thief pushed out of the last cell is free."""
    released = []
    for thief in sorted(caught):
        state.jail.insert(0, thief)
        if len(state.jail) > state.num_players:
            released.append(state.jail.pop())
    events.append(Event(EventKind.JAIL, state.round, thieves=tuple(sorted(caught)), released=tuple(released)))


class OriginalRuleset:
    """Rules of the ``original`` ruleset, as stateless methods over an :class:`OriginalState`."""

    name = "original"

    def layout(self, rules: RulesConfig, num_players: int) -> ActionLayout:
        """Flat action layout (see :func:`~hoity_env.engine.actions.original_layout`)."""
        return original_layout(rules.max_check)

    # ------------------------------------------------------------------ setup
    def new_state(self, rules: RulesConfig, num_players: int, rng: np.random.Generator) -> OriginalState:
        """O-1: shuffle, deal face down, split the rest into two piles, turn up a lot from each."""
        state = OriginalState(rules, num_players, rng)
        order = deal(state)
        first = (len(order) + 1) // 2  # the first pile gets the extra card
        state.piles = [order[:first], order[first:]]
        for i, pile in enumerate(state.piles):
            state.lots[i] = pile.pop() if pile else -1
        return state

    # ------------------------------------------------------------ legal moves
    @staticmethod
    def _may_auction(state: OriginalState, player: int) -> bool:
        """O-3: a lot on display and a check or a free thief to play."""
        return state.auction_open and (bool(state.checks[player]) or bool(state.free_thieves(player)))

    def legal_masks(self, state: GameState) -> np.ndarray:
        """``(num_players, N)`` int8 masks (C-6), built from the checks each player holds."""
        s = _original(state)
        if s.phase is Phase.LOCATION or s.done:
            return self.location_masks(s)
        masks = np.zeros((s.num_players, self.layout(s.rules, s.num_players).size), dtype=np.int8)
        for p in range(s.num_players):
            masks[p, self._legal(s, p)] = 1
        return masks

    def location_masks(self, state: GameState) -> np.ndarray:
        """Masks of a location step (O-3), also the final observation's."""
        s = _original(state)
        masks = np.zeros((s.num_players, self.layout(s.rules, s.num_players).size), dtype=np.int8)
        masks[:, CASTLE] = 1
        masks[:, AUCTION] = [self._may_auction(s, p) for p in range(s.num_players)]
        return masks

    def _legal(self, state: OriginalState, player: int) -> list[int]:
        """O-4: the legal action-step indices of ``player``."""
        free = state.free_thieves(player)
        if state.locations[player] == CASTLE:
            out = [O_EXHIBIT] if state.best_exhibition(player) is not None else []
            low, high = state.thieves[player]
            out += [O_THIEF_LOW] if low in free else []
            out += [O_THIEF_HIGH] if high in free else []
            return [*out, O_DETECTIVE]
        out = [O_AUCTION_THIEF] if free else []
        lots = [i for i in range(NUM_LOTS) if state.lots[i] >= 0]
        return out + [check_action(v, lot) for v in state.checks[player] for lot in lots]

    def is_legal(self, state: GameState, player: int, action: int) -> bool:
        """Whether ``action`` is legal for ``player`` now."""
        s = _original(state)
        if s.phase is Phase.LOCATION or s.done:
            return action == CASTLE or (action == AUCTION and self._may_auction(s, player))
        return action in self._legal(s, player)

    # ------------------------------------------------------------------- step
    def step(self, state: GameState, actions: Sequence[int], *, validate: bool = True) -> list[Event]:
        """Apply one simultaneous step (C-4) and return its events (checks as the standard ruleset)."""
        s = _original(state)
        actions = checked_actions(self, s, actions, validate=validate)
        if s.phase is Phase.LOCATION:
            return reveal_locations(s, actions)
        return self._resolve_round(s, actions)

    def _reveal(self, state: OriginalState, player: int, action: int) -> Record:
        """The public record of one played card (O-4)."""
        if action == O_AUCTION_THIEF:
            record: dict[str, object] = {"location": "auction", "role": "thief"}
        elif action >= O_CHECK0:
            value, lot = check_of_action(action)
            record = {"location": "auction", "bid": value, "lot": lot}
        elif action in (O_THIEF_LOW, O_THIEF_HIGH):
            number = state.thieves[player][action - O_THIEF_LOW]
            record = {"location": "castle", "role": "thief", "thief": number}
        else:
            record = {"location": "castle", "role": "exhibit" if action == O_EXHIBIT else "detective"}
        out: Record = frozen(record)
        return out

    def _resolve_round(self, state: OriginalState, actions: Sequence[int]) -> list[Event]:
        """C-4.2-4: reveal, Auction House (O-5), Castle (O-6), end (O-8), pass the start player."""
        rnd = state.round
        checks: dict[int, tuple[int, int]] = {}
        auction_thieves: list[int] = []
        exhibitors: list[int] = []
        castle_thieves: dict[int, int] = {}  # thief number -> owner
        detectives: list[int] = []
        for p, a in enumerate(actions):
            tally = state.tallies[p]
            if state.locations[p] == AUCTION:
                tally[0] += 1
                if a == O_AUCTION_THIEF:
                    auction_thieves.append(p)
                else:
                    checks[p] = check_of_action(a)
                    tally[5] += checks[p][0]
            else:
                tally[1] += 1
                tally[_TALLY_OF_ACTION[a]] += 1
                if a == O_EXHIBIT:
                    exhibitors.append(p)
                elif a == O_DETECTIVE:
                    detectives.append(p)
                else:
                    castle_thieves[state.thieves[p][a - O_THIEF_LOW]] = p
        reveal = tuple(self._reveal(state, p, a) for p, a in enumerate(actions))
        events = [Event(EventKind.ACTIONS, rnd, actions=reveal)]
        self._auction(state, checks, auction_thieves, events)
        self._castle(state, exhibitors, castle_thieves, detectives, events)

        next_round(state, actions)
        self._check_end(state, events)
        return events

    # --------------------------------------------------------------- auction
    def _auction(
        self,
        state: OriginalState,
        checks: dict[int, tuple[int, int]],
        thieves: list[int],
        events: list[Event],
    ) -> None:
        """O-5: the highest check buys the lot it named; one auction thief takes that check."""
        rnd = state.round
        if not checks:
            if thieves:
                for lot in state.lots:
                    if lot >= 0:
                        events.append(Event(EventKind.NO_SALE, rnd, card=lot, reason="no check played"))
            return
        winner = max(checks, key=lambda p: checks[p][0])  # O-5.1: values never tie
        value, which = checks[winner]
        card = state.lots[which]
        state.remove_check(winner, value)
        state.register.append(value)
        state.register.sort()  # a set of checks: kept sorted so equal games compare equal
        state.give_card(winner, card, public=True)
        events.append(Event(EventKind.PURCHASE, rnd, player=winner, card=card, price=value))
        pile = state.piles[which]
        state.lots[which] = pile.pop() if pile else -1
        if state.lots[which] >= 0:
            events.append(Event(EventKind.NEW_LOT, rnd, card=state.lots[which]))
        elif not state.auction_open:
            events.append(Event(EventKind.AUCTION_CLOSED, rnd))
        if thieves:  # O-5.2: one thief takes the winning check; two or more cancel each other
            taker = thieves[0] if len(thieves) == 1 else None
            if taker is not None:
                state.register.remove(value)
                state.add_check(taker, value)
            events.append(
                Event(
                    EventKind.CHECK_THEFT,
                    rnd,
                    thieves=tuple(thieves),
                    player=taker,
                    victim=winner if taker is not None else None,
                    check=value if taker is not None else None,
                )
            )

    # ---------------------------------------------------------------- castle
    def _castle(
        self,
        state: OriginalState,
        exhibitors: list[int],
        thieves: dict[int, int],
        detectives: list[int],
        events: list[Event],
    ) -> None:
        """O-6: exhibitions score, thieves steal, detectives arrest, always in this order."""
        rnd, deck = state.round, state.deck
        displays = show_exhibitions(state, exhibitors, events)
        # 1. Exhibitions score, with the reward read off the leader's castle before anyone moves.
        ranked = sorted(displays, key=lambda p: display_key(displays[p], deck), reverse=True)
        big, small = state.leader_reward()
        for p, steps in zip(ranked, (big, small), strict=False):
            events.append(Event(EventKind.SCORE, rnd, player=p, cards=tuple(displays[p])))
            move(state, p, steps, "exhibition", events)
        # 2. Every castle thief, highest number first, robs every exhibition (best first).
        for number in sorted(thieves, reverse=True):
            owner = thieves[number]
            for victim in ranked:
                display = displays[victim]
                if not display:
                    continue
                card = choose_card(state, owner, display)
                display.remove(card)
                state.take_card(victim, card)
                state.give_card(owner, card, public=True)
                events.append(Event(EventKind.THEFT, rnd, player=owner, victim=victim, card=card))
        # 3. Detectives arrest every castle thief and are paid by their rank after step 1.
        if thieves and detectives:
            owners = tuple(sorted({thieves[t] for t in thieves}))
            events.append(Event(EventKind.ARREST, rnd, thieves=owners, detectives=tuple(detectives)))
            ranks = competition_ranks(state.positions)
            for p in detectives:
                move(state, p, ranks[p], "detective", events)
            jail_thieves(state, list(thieves), events)

    # -------------------------------------------------------------------- end
    def rank_keys(self, state: GameState) -> list[tuple[int, ExhibitionKey]]:
        """O-8 order: track position, then the final exhibition (the best in hand)."""
        return track_then_exhibition(state)

    def _check_end(self, state: OriginalState, events: list[Event]) -> None:
        """O-8: a pawn at the dinner table starts the final exhibition; else the round limit (S-8)."""
        rnd = state.round - 1
        if max(state.positions) >= state.rules.finish:
            shows = {p: state.best_exhibition(p) for p in range(state.num_players)}
            shown = {p: list(c) for p, c in shows.items() if c is not None}
            ranked = sorted(shown, key=lambda p: display_key(shown[p], state.deck), reverse=True)
            for p, steps in zip(ranked, state.rules.final_bonus, strict=False):
                state.reveal(p, shown[p])
                events.append(Event(EventKind.SCORE, rnd, player=p, cards=tuple(shown[p])))
                move(state, p, steps, "final exhibition", events)
            declare_winners(state, events)
        else:
            check_round_limit(state, events)
