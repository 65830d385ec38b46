"""Finite choices as enums, and the flat action layout of the standard ruleset.

The environment exposes one ``Discrete(N)`` space; the engine owns what each index
means because which indices are legal is a rule.  Index groups (standard):

==========  ===============================  =====================
indices     meaning                          legal in
==========  ===============================  =====================
0           go to the Auction House          location step (S-3)
1           go to the Castle                 location step
2           Exhibit                          action step, Castle
3           Thief                            action step, Castle
4           Detective                        action step, Castle
5 + b       bid ``b`` (0 = no bid)           action step, Auction
==========  ===============================  =====================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Phase(IntEnum):
    """Which of the two simultaneous steps of a round comes next (C-4)."""

    LOCATION = 0
    ACTION = 1


class Location(IntEnum):
    """Where a player goes this round."""

    AUCTION = 0
    CASTLE = 1


class Role(IntEnum):
    """Castle roles (S-4)."""

    EXHIBIT = 0
    THIEF = 1
    DETECTIVE = 2


LOCATION_NAMES = ("auction", "castle")
ROLE_NAMES = ("exhibit", "thief", "detective")


@dataclass(frozen=True)
class ActionLayout:
    """Named contiguous index groups of the flat ``Discrete`` action space."""

    groups: tuple[tuple[str, int, int], ...]
    """``(name, start, stop)`` triples, in index order, covering ``0 … size-1``."""

    @property
    def size(self) -> int:
        """Number of actions N."""
        return self.groups[-1][2]

    def group_of(self, action: int) -> tuple[str, int]:
        """``(group name, offset inside the group)`` of a flat index."""
        for name, start, stop in self.groups:
            if start <= action < stop:
                return name, action - start
        raise ValueError(f"action {action} is outside [0, {self.size})")

    def start(self, group: str) -> int:
        """First index of ``group``."""
        for name, start, _ in self.groups:
            if name == group:
                return start
        raise KeyError(group)


# Standard ruleset indices (the table in the module docstring).
AUCTION = 0
CASTLE = 1
EXHIBIT = 2
THIEF = 3
DETECTIVE = 4
BID0 = 5


def standard_layout(starting_money: int) -> ActionLayout:
    """Layout of the standard ruleset: money can only shrink, so bids stop at ``starting_money``."""
    return ActionLayout(
        groups=(
            ("location", AUCTION, EXHIBIT),
            ("castle_role", EXHIBIT, BID0),
            ("bid", BID0, BID0 + starting_money + 1),
        )
    )
