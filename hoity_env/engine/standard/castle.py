"""The Castle of the standard ruleset (RULES S-6): Detective beats Thief beats Exhibit."""

from __future__ import annotations

from hoity_env.engine.events import Event, EventKind
from hoity_env.engine.exhibitions import best_keys_with_each, display_key
from hoity_env.engine.state import GameState


def move(state: GameState, player: int, steps: int, reason: str, events: list[Event]) -> None:
    """Move a pawn by ``steps`` (negative = back), never below space 0."""
    start = state.positions[player]
    end = max(0, start + steps)
    state.positions[player] = end
    if end != start:
        events.append(Event(EventKind.MOVE, state.round, player=player, start=start, end=end, reason=reason))


def thief_order(state: GameState, thieves: list[int]) -> list[int]:
    """S-6.2: owner furthest back first; ties in seat order from the start player."""
    n, sp = state.num_players, state.start_player
    return sorted(thieves, key=lambda p: (state.positions[p], (p - sp) % n))


def choose_card(state: GameState, thief: int, display: list[int]) -> int:
    """S-6.2: the displayed card that makes the thief's best exhibition best; ties the older card."""
    deck = state.deck
    keys = best_keys_with_each(state.hands[thief], display, deck, state.rules.min_exhibition)
    return max(zip(keys, display, strict=True), key=lambda kc: (kc[0], -deck.year[kc[1]]))[1]


def show_exhibitions(state: GameState, exhibitors: list[int], events: list[Event]) -> dict[int, list[int]]:
    """Every exhibitor lays out its best exhibition face up (S-6, O-6); returns the displays by player."""
    displays: dict[int, list[int]] = {}
    for p in exhibitors:
        cards = state.best_exhibition(p)
        if cards is None:  # the action mask forbids this; the engine checks anyway
            raise AssertionError(f"player_{p} exhibits without an exhibition")
        displays[p] = list(cards)
        state.reveal(p, cards)
        events.append(Event(EventKind.EXHIBIT, state.round, player=p, cards=tuple(cards)))
    return displays


def resolve_castle(
    state: GameState,
    exhibitors: list[int],
    thieves: list[int],
    detectives: list[int],
    events: list[Event],
) -> None:
    """Resolve the Castle (S-6) for the given role lists (seat order)."""
    rules, rnd = state.rules, state.round
    displays = show_exhibitions(state, exhibitors, events)

    # 1. Arrest (S-6.1).
    if thieves and detectives:
        events.append(Event(EventKind.ARREST, rnd, thieves=tuple(thieves), detectives=tuple(detectives)))
        for p in thieves:
            move(state, p, -rules.thief_penalty, "caught", events)
        for p in detectives:
            move(state, p, rules.detective_reward, "arrest", events)
        thieves = []

    # 2. Theft (S-6.2): no exhibition scores this round.
    if thieves:
        for thief in thief_order(state, thieves):
            victim = max(displays, key=lambda p: display_key(displays[p], state.deck), default=-1)
            if victim < 0 or not displays[victim]:
                events.append(Event(EventKind.THEFT, rnd, player=thief, victim=None, card=None))
                continue
            card = choose_card(state, thief, displays[victim])
            displays[victim].remove(card)
            state.take_card(victim, card)
            state.give_card(thief, card, public=True)
            events.append(Event(EventKind.THEFT, rnd, player=thief, victim=victim, card=card))
        return

    # 3. Exhibition (S-6.3): the best exhibition scores its card count.
    if displays:
        best = max(displays, key=lambda p: display_key(displays[p], state.deck))
        events.append(Event(EventKind.SCORE, rnd, player=best, cards=tuple(displays[best])))
        move(state, best, len(displays[best]), "exhibition", events)
