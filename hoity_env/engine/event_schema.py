"""Checks an event dict from outside (a saved env state) before anything renders or replays it.

Each kind has a fixed set of fields, each of one of the value types below, so a malformed event
fails here instead of far from the cause.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hoity_env.engine.actions import LOCATION_NAMES, ROLE_NAMES
from hoity_env.engine.errors import StateError
from hoity_env.engine.events import EventKind

_FIELDS: dict[EventKind, dict[str, str]] = {
    EventKind.LOCATIONS: {"locations": "locations"},
    EventKind.ACTIONS: {"actions": "reveals"},
    EventKind.PURCHASE: {"player": "seat", "card": "card", "price": "money"},
    EventKind.NO_SALE: {"card": "card", "reason": "str"},
    EventKind.NEW_LOT: {"card": "card"},
    EventKind.AUCTION_CLOSED: {},
    EventKind.EXHIBIT: {"player": "seat", "cards": "cards"},
    EventKind.ARREST: {"thieves": "seats", "detectives": "seats"},
    EventKind.THEFT: {"player": "seat", "victim": "seat?", "card": "card?"},
    EventKind.SCORE: {"player": "seat", "cards": "cards"},
    EventKind.MOVE: {"player": "seat", "start": "space", "end": "space", "reason": "str"},
    EventKind.CHECK_THEFT: {"thieves": "seats", "player": "seat?", "victim": "seat?", "check": "money?"},
    EventKind.JAIL: {"thieves": "numbers", "released": "numbers"},
    EventKind.GAME_END: {"winners": "seats", "positions": "spaces"},
    EventKind.TRUNCATED: {"positions": "spaces"},
}
"""Fields (besides ``kind`` and ``round``) and their value type, per kind."""


def _int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


class _Limits:
    """What the values of one game's events may be."""

    def __init__(self, num_players: int, deck_size: int, money: int, space: int) -> None:
        self.n, self.deck_size, self.money, self.space = num_players, deck_size, money, space

    def checker(self, kind: str) -> Callable[[Any], bool]:
        n = self.n
        seat: Callable[[Any], bool] = lambda v: _int(v, 0, n - 1)  # noqa: E731
        card: Callable[[Any], bool] = lambda v: _int(v, 0, self.deck_size - 1)  # noqa: E731
        space: Callable[[Any], bool] = lambda v: _int(v, 0, self.space)  # noqa: E731
        return {
            "seat": seat,
            "seat?": lambda v: v is None or seat(v),
            "card": card,
            "card?": lambda v: v is None or card(v),
            "money": lambda v: _int(v, 0, self.money),
            "money?": lambda v: v is None or _int(v, 1, self.money),
            "numbers": lambda v: _list_of(v, lambda x: _int(x, 1, 1_000)) and len(v) == len(set(v)),
            "space": space,
            "str": lambda v: isinstance(v, str),
            "seats": lambda v: _list_of(v, seat) and 0 < len(v) <= n,
            "cards": lambda v: _list_of(v, card) and 0 < len(v) == len(set(v)),
            "spaces": lambda v: _list_of(v, space) and len(v) == n,
            "locations": lambda v: _list_of(v, lambda x: x in LOCATION_NAMES) and len(v) == n,
            "reveals": lambda v: _list_of(v, self._reveal) and len(v) == n,
        }[kind]

    def _reveal(self, value: Any) -> bool:
        """A revealed choice: standard bid or role, or an original check, auction thief or numbered thief."""
        if not isinstance(value, dict):
            return False
        keys, where = set(value), value.get("location")
        if where == "auction":
            if keys == {"location", "role"}:  # O-4: a thief at the Auction House
                return bool(value["role"] == "thief")
            if keys == {"location", "bid", "lot"}:  # O-4: a check naming a lot
                return _int(value["bid"], 1, self.money) and _int(value["lot"], 0, 1)
            return keys == {"location", "bid"} and _int(value["bid"], 0, self.money)
        if where != "castle":
            return False
        if keys == {"location", "role", "thief"}:  # O-4: a numbered thief
            return value["role"] == "thief" and _int(value["thief"], 1, 1_000)
        return keys == {"location", "role"} and value["role"] in ROLE_NAMES


def _list_of(value: Any, ok: Callable[[Any], bool]) -> bool:
    return isinstance(value, (list, tuple)) and all(ok(v) for v in value)


def check_event(data: Any, *, num_players: int, deck_size: int, money: int, space: int, rounds: int) -> None:
    """Raise :class:`StateError` unless ``data`` is a well-formed event of such a game.

    ``money`` is the largest bid or price, ``space`` the furthest track space, ``rounds`` the rounds
    played so far (an event's ``round`` is at most that).
    """
    if not isinstance(data, dict):
        raise StateError(f"an event must be a dict, got {type(data).__name__}")
    try:
        kind = EventKind(data.get("kind"))
    except ValueError:
        raise StateError(
            f"event kind must be one of {[k.value for k in EventKind]}, got {data.get('kind')!r}"
        ) from None
    if not _int(data.get("round"), 0, rounds):
        raise StateError(
            f"{kind.value} event: 'round' must be an int in [0, {rounds}], got {data.get('round')!r}"
        )
    fields = _FIELDS[kind]
    if set(data) != {"kind", "round", *fields}:
        raise StateError(f"{kind.value} event must have the fields {sorted(fields)}, got {sorted(data)}")
    limits = _Limits(num_players, deck_size, money, space)
    for name, type_ in fields.items():
        if not limits.checker(type_)(data[name]):
            raise StateError(f"{kind.value} event: field {name!r} is not a valid {type_}: {data[name]!r}")
