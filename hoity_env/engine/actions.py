"""Finite choices as enums, and the flat action layouts of the two rulesets.

The environment exposes one ``Discrete(N)`` space; the engine owns what each index means, because which
indices are legal is a rule (:func:`standard_layout`, :func:`original_layout`).  See docs/environment.md
(Actions) and docs/rulesets.md.
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
    """``(name, start, stop)`` triples in index order, covering ``0 … size-1``."""

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


# Standard ruleset indices (the table in standard_layout's docstring).
AUCTION = 0
CASTLE = 1
EXHIBIT = 2
THIEF = 3
DETECTIVE = 4
BID0 = 5


def standard_layout(starting_money: int) -> ActionLayout:
    """Layout of the standard ruleset: money can only shrink, so bids stop at ``starting_money``.

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
    return ActionLayout(
        groups=(
            ("location", AUCTION, EXHIBIT),
            ("castle_role", EXHIBIT, BID0),
            ("bid", BID0, BID0 + starting_money + 1),
        )
    )


# Original ruleset indices (RULES O-3, O-4); the checks follow, two per value (one per lot).
O_EXHIBIT = 2
O_THIEF_LOW = 3
O_THIEF_HIGH = 4
O_DETECTIVE = 5
O_AUCTION_THIEF = 6
O_CHECK0 = 7
ORIGINAL_INDICES = (O_EXHIBIT, O_THIEF_LOW, O_THIEF_HIGH, O_DETECTIVE, O_AUCTION_THIEF, O_CHECK0)
"""The original ruleset's fixed indices in order (2 … 7); unpacked into module-level ints, which
numba kernels read as compile-time constants.
"""
ORIGINAL_ROLE_NAMES = ("exhibit", "thief_low", "thief_high", "detective")
"""Castle actions of the original ruleset: a thief is one's lower- or higher-numbered thief."""
NUM_LOTS = 2
"""O-1: two piles, so two lots on display."""


def original_layout(max_check: int) -> ActionLayout:
    """Layout of the original ruleset (RULES O-4); ``max_check`` is the largest check value.

    ==============================  ========================================  ==================
    indices                         meaning                                   legal in
    ==============================  ========================================  ==================
    0, 1                            Auction House, Castle                     location step (O-3)
    2, 3, 4, 5                      Exhibit, lower thief, higher thief,       action step, Castle
                                    Detective
    6                               thief at the Auction House                action step, Auction
    7 + 2 (v - 1) + L               check of value ``v`` naming lot ``L``     action step, Auction
    ==============================  ========================================  ==================
    """
    return ActionLayout(
        groups=(
            ("location", AUCTION, EXHIBIT),
            ("castle", O_EXHIBIT, O_AUCTION_THIEF),
            ("auction_thief", O_AUCTION_THIEF, O_CHECK0),
            ("check", O_CHECK0, O_CHECK0 + NUM_LOTS * max_check),
        )
    )


def check_action(value: int, lot: int) -> int:
    """Original ruleset: index of playing the check of ``value`` naming lot ``lot`` (0 or 1)."""
    return O_CHECK0 + NUM_LOTS * (value - 1) + lot


def check_of_action(action: int) -> tuple[int, int]:
    """Inverse of :func:`check_action`: ``(value, lot)``."""
    value, lot = divmod(action - O_CHECK0, NUM_LOTS)
    return value + 1, lot
