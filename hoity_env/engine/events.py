"""Events: the engine's public record of everything that happens.

Renders, infos, replays and the evaluation harness are built from events, never
by re-deriving rules.  Every event is public information (RULES C-5): hidden
cards appear in an event only once the rules reveal them (an exhibition, a
purchase, a theft).  ``to_dict`` gives a JSON-safe dict.
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class EventKind(str, Enum):
    """What happened."""

    LOCATIONS = "locations"
    """Location step revealed: ``locations`` (one name per seat)."""
    ACTIONS = "actions"
    """Action step revealed: ``actions`` (one dict per seat: location and bid or role)."""
    PURCHASE = "purchase"
    """``player`` bought ``card`` for ``price``."""
    NO_SALE = "no_sale"
    """Nobody bought the lot ``card``; ``reason`` says why."""
    NEW_LOT = "new_lot"
    """``card`` was turned face up as the lot."""
    AUCTION_CLOSED = "auction_closed"
    """The deck is empty: the Auction House is closed for the rest of the game."""
    EXHIBIT = "exhibit"
    """``player`` showed ``cards``."""
    ARREST = "arrest"
    """``detectives`` caught ``thieves``."""
    THEFT = "theft"
    """``player`` (a thief) took ``card`` from ``victim`` (``card`` is None when nothing was there)."""
    SCORE = "score"
    """``player``'s exhibition of ``cards`` scored."""
    MOVE = "move"
    """``player``'s pawn moved from ``start`` to ``end`` because of ``reason``."""
    GAME_END = "game_end"
    """The game is decided: ``winners`` and final ``positions``."""
    TRUNCATED = "truncated"
    """The round limit was reached without a winner."""


class Event(dict[str, Any]):
    """One thing that happened in ``round`` (0-based): a JSON-safe dict ``{"kind", "round", **data}``.

    Events are dicts so that infos, replays and JSON need no conversion; ``kind``,
    ``round`` and ``data`` give typed access.
    """

    __slots__ = ()

    def __init__(self, kind: EventKind, round_: int, **data: Any) -> None:
        super().__init__(kind=kind.value, round=round_, **data)

    @property
    def kind(self) -> EventKind:
        """What happened."""
        return EventKind(self["kind"])

    @property
    def round(self) -> int:
        """Round (0-based) in which it happened."""
        return int(self["round"])

    @property
    def data(self) -> dict[str, Any]:
        """The fields besides ``kind`` and ``round``."""
        return {k: v for k, v in self.items() if k not in ("kind", "round")}

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-safe dict copy."""
        return dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Inverse of :meth:`to_dict`."""
        rest = dict(data)
        kind = EventKind(rest.pop("kind"))
        round_ = int(rest.pop("round"))
        return cls(kind, round_, **rest)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.data.items())
        return f"Event({self['kind']}, round={self['round']}{', ' if args else ''}{args})"
