"""The errors of reading and checking a replay (both ``ValueError`` subclasses, as everywhere)."""

from __future__ import annotations

from hoity_env.engine.errors import HoityError

__all__ = ["ReplayError", "ReplayMismatch"]


class ReplayError(HoityError):
    """A replay file that cannot be read, or whose re-simulation differs from its record."""


class ReplayMismatch(ReplayError):
    """A readable replay whose re-simulation differs from its record (the message names the round)."""
