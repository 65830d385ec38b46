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


class FileFormatError(ConfigError):
    """A file the package reads is not what its format says (truncated, edited, hostile).

    A ``ConfigError``: a damaged file is a bad input like a bad argument, so every command
    reports it the same way (one ``error:`` line, exit status 2).  ``where`` names the file
    (and what it is), ``field`` the part of it at fault (``members[0].weight``; ``""`` for the
    file as a whole), ``problem`` what is wrong.
    """

    def __init__(self, where: str, problem: str, field: str = "") -> None:
        self.where, self.problem, self.field = where, problem, field
        super().__init__(f"{where}: {field}: {problem}" if field else f"{where}: {problem}")

    def __reduce__(self) -> tuple[type[FileFormatError], tuple[str, str, str]]:
        # sent from worker processes as it was raised (the default would pass the message alone)
        return type(self), (self.where, self.problem, self.field)
