"""``ActionCodec``: named encode/decode helpers over the flat ``Discrete`` action space.

The engine owns the index layout (legality is a rule; :mod:`hoity_env.engine.actions` has the
tables); the codec gives it readable names: ``codec.location("castle")``, ``codec.role("thief")``,
``codec.bid(7)``, and in the original ruleset ``codec.auction_thief()`` and ``codec.check(v, lot)``.
"""

from __future__ import annotations

from hoity_env.engine.actions import (
    LOCATION_NAMES,
    NUM_LOTS,
    ORIGINAL_ROLE_NAMES,
    ROLE_NAMES,
    ActionLayout,
    Location,
    Role,
    check_action,
    check_of_action,
)
from hoity_env.engine.errors import IllegalActionError


class ActionCodec:
    """Translate between flat action indices and (group, value) pairs of one layout."""

    def __init__(self, layout: ActionLayout) -> None:
        self.layout = layout
        self.size = layout.size

    def location(self, location: Location | str) -> int:
        """Index of going to ``location`` (``Location`` or ``"auction"``/``"castle"``)."""
        if isinstance(location, str):
            if location not in LOCATION_NAMES:
                raise IllegalActionError(f"unknown location {location!r}; choose one of {LOCATION_NAMES}")
            location = Location(LOCATION_NAMES.index(location))
        return self.layout.start("location") + int(location)

    def role(self, role: Role | str) -> int:
        """Index of playing castle ``role`` (``Role`` or ``"exhibit"``/``"thief"``/``"detective"``;
        original ruleset: ``"exhibit"``, ``"thief_low"``, ``"thief_high"``, ``"detective"``)."""
        if self._original:
            if role not in ORIGINAL_ROLE_NAMES:
                raise IllegalActionError(f"unknown role {role!r}; choose one of {ORIGINAL_ROLE_NAMES}")
            return self.layout.start("castle") + ORIGINAL_ROLE_NAMES.index(str(role))
        if isinstance(role, str):
            if role not in ROLE_NAMES:
                raise IllegalActionError(f"unknown role {role!r}; choose one of {ROLE_NAMES}")
            role = Role(ROLE_NAMES.index(role))
        return self.layout.start("castle_role") + int(role)

    @property
    def _original(self) -> bool:
        return any(name == "check" for name, _, _ in self.layout.groups)

    def auction_thief(self) -> int:
        """Original ruleset: index of playing a thief at the Auction House."""
        return self.layout.start("auction_thief")

    def check(self, value: int, lot: int) -> int:
        """Original ruleset: index of playing the check of ``value`` naming lot ``lot`` (0 or 1)."""
        top = (self.size - self.layout.start("check")) // NUM_LOTS
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= top:
            raise IllegalActionError(f"check value must be an int in [1, {top}], got {value!r}")
        if lot not in range(NUM_LOTS):
            raise IllegalActionError(f"lot must be 0 or 1, got {lot!r}")
        return check_action(value, lot)

    def bid(self, amount: int) -> int:
        """Index of bidding ``amount`` (0 = no bid)."""
        start = self.layout.start("bid")
        top = self.size - start - 1
        if not isinstance(amount, int) or isinstance(amount, bool) or not 0 <= amount <= top:
            raise IllegalActionError(f"bid must be an int in [0, {top}], got {amount!r}")
        return start + amount

    def decode(self, action: int) -> tuple[str, str | int | tuple[int, int]]:
        """``("location", "castle")``, ``("castle_role", "thief")`` or ``("bid", 7)``; original
        ruleset: ``("castle", "thief_high")``, ``("auction_thief", "thief")``, ``("check", (value, lot))``."""
        if not 0 <= action < self.size:
            raise IllegalActionError(f"action {action} is outside [0, {self.size})")
        group, offset = self.layout.group_of(action)
        if group == "location":
            return group, LOCATION_NAMES[offset]
        if group == "castle_role":
            return group, ROLE_NAMES[offset]
        if group == "castle":
            return group, ORIGINAL_ROLE_NAMES[offset]
        if group == "auction_thief":
            return group, "thief"
        if group == "check":
            return group, check_of_action(action)
        return group, offset

    def describe(self, action: int) -> str:
        """Short human text of an index, e.g. ``"bid 7"``, ``"castle"`` or ``"check 15 on lot 1"``."""
        group, value = self.decode(action)
        if group == "bid":
            return f"bid {value}"
        if group == "check":
            assert isinstance(value, tuple)
            return f"check {value[0]} on lot {value[1]}"
        if group == "auction_thief":
            return "thief at the auction"
        return str(value)

    def table(self) -> list[tuple[str, str]]:
        """``(index range, meaning)`` rows for documentation."""
        rows = []
        for name, start, stop in self.layout.groups:
            rng = str(start) if stop - start == 1 else f"{start}…{stop - 1}"
            rows.append((rng, name))
        return rows
