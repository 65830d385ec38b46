"""The exception family: every input error is a ``ValueError`` naming the field, agent or value at fault."""

from __future__ import annotations


class HoityError(ValueError):
    """Base class of every input error raised by hoity_env."""


class AgentInputError(HoityError):
    """Observations or masks handed to an agent are malformed (shape, dtype, values, empty mask)."""


class ConfigError(HoityError):
    """A rules configuration or environment argument has a bad value."""


class StateError(HoityError):
    """A serialized game state is malformed or inconsistent."""


class IllegalActionError(HoityError):
    """An action was malformed, or legal-range but masked out under ``illegal_action="raise"``."""


class FileFormatError(ConfigError):
    """A file the package reads is not what its format says (truncated, edited, hostile).

    A ``ConfigError``, so every command reports it as one ``error:`` line and status 2.  ``where``
    names the file, ``field`` the part at fault (``members[0].weight``; ``""``: the whole file).
    """

    def __init__(self, where: str, problem: str, field: str = "") -> None:
        self.where, self.problem, self.field = where, problem, field
        super().__init__(f"{where}: {field}: {problem}" if field else f"{where}: {problem}")

    def __reduce__(self) -> tuple[type[FileFormatError], tuple[str, str, str]]:
        # sent from worker processes as it was raised (the default would pass the message alone)
        return type(self), (self.where, self.problem, self.field)
