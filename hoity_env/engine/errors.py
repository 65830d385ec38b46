"""The exception family of hoity_env.

Every error a user can provoke with bad input is a ``ValueError`` subclass (as in
python-chess), so ``except ValueError`` catches them all, and each message names
the field, agent or value at fault.
"""

from __future__ import annotations


class HoityError(ValueError):
    """Base class of every input error raised by hoity_env."""


class ConfigError(HoityError):
    """A rules configuration or environment argument has a bad value."""


class StateError(HoityError):
    """A serialized game state is malformed or inconsistent."""


class IllegalActionError(HoityError):
    """An action was malformed, or legal-range but masked out under ``illegal_action="raise"``."""
