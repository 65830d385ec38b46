"""The Auction House of the standard ruleset (RULES S-4, S-5)."""

from __future__ import annotations

from hoity_env.engine.events import Event, EventKind
from hoity_env.engine.state import GameState


def lone_bid(money: int, min_price: int) -> int:
    """S-4: the only legal bid of a player alone at the Auction House."""
    return min_price if money >= min_price else 0


def auction_winner(bids: dict[int, int], start_player: int, num_players: int, tie_break: str) -> int:
    """S-5 with several bidders: the winning seat, or -1.  ``"unique"``: amounts bid twice are void;
    ``"priority"``: ties go to the first seat from the start player.
    """
    if tie_break == "unique":
        seen: dict[int, int] = {}  # amount -> bidder, or -1 once two players bid it
        for p, b in bids.items():
            if b > 0:
                seen[b] = -1 if b in seen else p
        best = max((amount for amount, p in seen.items() if p >= 0), default=0)
        return seen[best] if best else -1
    best = max(bids.values(), default=0)
    if best <= 0:
        return -1
    for offset in range(num_players):
        p = (start_player + offset) % num_players
        if bids.get(p) == best:
            return p
    raise AssertionError("unreachable: a best bid has an owner")


def resolve_auction(state: GameState, bids: dict[int, int], events: list[Event]) -> None:
    """Resolve the Auction House (S-5): sell the lot, turn the next card or close."""
    if not bids:
        return
    rules = state.rules
    rnd = state.round
    lot = state.lot
    if len(bids) == 1:
        ((p, amount),) = bids.items()
        # A lone bidder's only legal bid is min_price (or 0 without the money): it pays min_price.
        winner, price = (p, rules.min_price) if amount >= rules.min_price else (-1, 0)
        reason = "lone bidder without money"
    else:
        winner = auction_winner(bids, state.start_player, state.num_players, rules.tie_break)
        price = bids[winner] if winner >= 0 else 0
        reason = "no valid bid"
    if winner < 0:
        events.append(Event(EventKind.NO_SALE, rnd, card=lot, reason=reason))
        return
    state.money[winner] -= price
    state.give_card(winner, lot, public=True)
    events.append(Event(EventKind.PURCHASE, rnd, player=winner, card=lot, price=price))
    if state.draw_pile:
        state.lot = state.draw_pile.pop()
        events.append(Event(EventKind.NEW_LOT, rnd, card=state.lot))
    else:
        state.lot = -1
        events.append(Event(EventKind.AUCTION_CLOSED, rnd))
