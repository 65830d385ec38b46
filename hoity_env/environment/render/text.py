"""Text rendering built from events (docs/design.md §1): what a spectator sees (RULES C-5)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hoity_env.engine.cards import Deck
from hoity_env.engine.state import GameState, card_text

_TEMPLATES = {
    "purchase": "player_{player} buys {card} for {price}",
    "no_sale": "{card} is not sold ({reason})",
    "new_lot": "new lot: {card}",
    "auction_closed": "the deck is empty: the Auction House is closed",
    "exhibit": "player_{player} exhibits {cards}",
    "score": "player_{player}'s exhibition of {count} cards scores",
    "move": "player_{player} moves {start} -> {end} ({reason})",
    "truncated": "round limit reached: the game is truncated",
}
"""The events told by one sentence of their fields (``card`` and ``cards`` as card names)."""


def describe_event(event: Mapping[str, Any], deck: Deck) -> str:
    """One line of text for one event dict (``Event.to_dict()`` form)."""
    kind = event["kind"]

    def card(c: int | None) -> str:
        return "nothing" if c is None else card_text(c, deck)

    def cards(cs: Iterable[int]) -> str:
        return ", ".join(card_text(c, deck) for c in cs)

    if kind in _TEMPLATES:
        fields = dict(event)
        if "card" in event:
            fields["card"] = card(event["card"])
        if "cards" in event:
            fields["cards"], fields["count"] = cards(event["cards"]), len(event["cards"])
        return _TEMPLATES[kind].format(**fields)
    if kind == "locations":
        return "locations: " + ", ".join(f"player_{p} {loc}" for p, loc in enumerate(event["locations"]))
    if kind == "actions":
        parts = []
        for p, act in enumerate(event["actions"]):
            if "bid" in act:
                what = f"bids {act['bid']}" + (f" on lot {act['lot']}" if "lot" in act else "")
            else:
                where = " at the auction" if act["location"] == "auction" else ""
                number = f" {act['thief']}" if "thief" in act else ""
                what = f"plays {act['role']}{number}{where}"
            parts.append(f"player_{p} {what}")
        return "actions: " + ", ".join(parts)
    if kind == "arrest":
        thieves = ", ".join(f"player_{p}" for p in event["thieves"])
        detectives = ", ".join(f"player_{p}" for p in event["detectives"])
        return f"arrest: {detectives} catch(es) {thieves}"
    if kind == "theft":
        if event["card"] is None:
            return f"player_{event['player']} finds nothing to steal"
        return f"player_{event['player']} steals {card(event['card'])} from player_{event['victim']}"
    if kind == "check_theft":
        if event["player"] is None:
            return (
                "auction thieves " + ", ".join(f"player_{p}" for p in event["thieves"]) + " cancel each other"
            )
        return f"player_{event['player']}'s thief takes check {event['check']} from player_{event['victim']}"
    if kind == "jail":
        freed = f"; thieves {list(event['released'])} go free" if event["released"] else ""
        return f"thieves {list(event['thieves'])} go to jail{freed}"
    if kind == "game_end":
        return "game over; winner(s): " + ", ".join(f"player_{p}" for p in event["winners"])
    return str(event)


def render_text(state: GameState, events: Sequence[Mapping[str, Any]]) -> str:
    """The public board after the last step, preceded by that step's events."""
    deck = state.deck
    lines = [describe_event(e, deck) for e in events]
    # state.round counts completed rounds: the one being played is round + 1, but a game that is
    # over has played exactly state.round rounds (board_draw's title says the same)
    where = f"round {state.round + 1}, {state.phase.name.lower()} step"
    if state.done:
        where = f"game over after {state.round} rounds"
    lines.append(f"== {where}; {state.table_text()}; start player_{state.start_player}")
    for p in range(state.num_players):
        known = ", ".join(card_text(c, deck) for c in sorted(state.public[p]))
        lines.append(
            f"player_{p}: track {state.positions[p]:>2}/{state.rules.finish} {state.player_text(p)} "
            f"cards {len(state.hands[p]):>2} known [{known}]"
        )
    return "\n".join(lines)
