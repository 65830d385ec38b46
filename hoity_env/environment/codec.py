"""``ActionCodec``: named encode/decode helpers over the flat ``Discrete`` action space.

The engine's ruleset owns the index layout (legality is a rule); the codec gives
users readable names for it.  Standard ruleset:

=========  =====================  ==========================
index      meaning                helper
=========  =====================  ==========================
0          Auction House          ``codec.location(Location.AUCTION)``
1          Castle                 ``codec.location(Location.CASTLE)``
2          Exhibit                ``codec.role(Role.EXHIBIT)``
3          Thief                  ``codec.role(Role.THIEF)``
4          Detective              ``codec.role(Role.DETECTIVE)``
5 + b      bid ``b`` (0 = none)   ``codec.bid(b)``
=========  =====================  ==========================
"""

from __future__ import annotations

from hoity_env.engine.actions import LOCATION_NAMES, ROLE_NAMES, ActionLayout, Location, Role
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
        """Index of playing castle ``role`` (``Role`` or ``"exhibit"``/``"thief"``/``"detective"``)."""
        if isinstance(role, str):
            if role not in ROLE_NAMES:
                raise IllegalActionError(f"unknown role {role!r}; choose one of {ROLE_NAMES}")
            role = Role(ROLE_NAMES.index(role))
        return self.layout.start("castle_role") + int(role)

    def bid(self, amount: int) -> int:
        """Index of bidding ``amount`` (0 = no bid)."""
        start = self.layout.start("bid")
        top = self.size - start - 1
        if not isinstance(amount, int) or isinstance(amount, bool) or not 0 <= amount <= top:
            raise IllegalActionError(f"bid must be an int in [0, {top}], got {amount!r}")
        return start + amount

    def decode(self, action: int) -> tuple[str, str | int]:
        """``("location", "castle")``, ``("castle_role", "thief")`` or ``("bid", 7)``."""
        if not 0 <= action < self.size:
            raise IllegalActionError(f"action {action} is outside [0, {self.size})")
        group, offset = self.layout.group_of(action)
        if group == "location":
            return group, LOCATION_NAMES[offset]
        if group == "castle_role":
            return group, ROLE_NAMES[offset]
        return group, offset

    def describe(self, action: int) -> str:
        """Short human text of an index, e.g. ``"bid 7"`` or ``"castle"``."""
        group, value = self.decode(action)
        return f"bid {value}" if group == "bid" else str(value)

    def table(self) -> list[tuple[str, str]]:
        """``(index range, meaning)`` rows for documentation."""
        rows = []
        for name, start, stop in self.layout.groups:
            rng = str(start) if stop - start == 1 else f"{start}…{stop - 1}"
            rows.append((rng, name))
        return rows
