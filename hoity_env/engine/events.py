"""Events: the engine's public record of everything that happens (RULES C-5).

Renders, infos, replays and the evaluation harness are built from events, never by re-deriving
rules; a hidden card appears in an event only once the rules reveal it.
"""

from __future__ import annotations

import dataclasses
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
    CHECK_THEFT = "check_theft"
    """Original ruleset (O-5.2): auction ``thieves`` were played; ``player`` took check ``check``
    from ``victim`` (all three None when two or more thieves cancelled each other)."""
    JAIL = "jail"
    """Original ruleset (O-7): thief numbers ``thieves`` entered the jail; ``released`` were pushed out."""
    GAME_END = "game_end"
    """The game is decided: ``winners`` and final ``positions``."""
    TRUNCATED = "truncated"
    """The round limit was reached without a winner."""


class Record(dict[str, Any]):
    """A read-only dict: events are shared by every agent's infos, so nobody may edit them.

    Values are immutable (tuples, not lists); :func:`plain` turns records into ordinary dicts and lists.
    """

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("events are read-only records; copy them with plain(event)")

    __setitem__ = __delitem__ = _read_only  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _read_only  # type: ignore[assignment]
    __ior__ = _read_only  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), dict(self)))

    def __copy__(self) -> Record:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Record:
        return self


def _rebuild(cls: type[Record], items: dict[str, Any]) -> Record:
    record = dict.__new__(cls)
    dict.update(record, items)
    return record


def frozen(value: Any) -> Any:
    """JSON-like value → its immutable form (lists become tuples, dicts become records)."""
    if isinstance(value, dict):
        return (
            value if isinstance(value, Record) else _rebuild(Record, {k: frozen(v) for k, v in value.items()})
        )
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    return value


def plain(value: Any) -> Any:
    """Immutable form → ordinary dicts and lists (equal to what ``json.loads`` gives)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def plain_fields(record: Any) -> dict[str, Any]:
    """A dataclass's fields by name as :func:`plain` values (tuples become lists): its JSON object."""
    return {f.name: plain(getattr(record, f.name)) for f in dataclasses.fields(record)}


class Event(Record):
    """One thing that happened in ``round`` (0-based): a read-only ``{"kind", "round", **data}``."""

    __slots__ = ()

    def __init__(self, kind: EventKind, round_: int, **data: Any) -> None:
        dict.__init__(self, kind=kind.value, round=round_, **data)

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
        """The fields besides ``kind`` and ``round``, as plain dicts and lists."""
        return {k: plain(v) for k, v in self.items() if k not in ("kind", "round")}

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-safe dict (lists, not tuples): what ``json.loads(json.dumps(event))`` gives."""
        return plain(self)  # type: ignore[no-any-return]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Inverse of :meth:`to_dict`."""
        rest = dict(data)
        kind = EventKind(rest.pop("kind"))
        round_ = int(rest.pop("round"))
        return cls(kind, round_, **{k: frozen(v) for k, v in rest.items()})

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.data.items())
        return f"Event({self['kind']}, round={self['round']}{', ' if args else ''}{args})"
