"""The settings of ``hoity-serve`` and the errors its requests can get, each with its HTTP status.

One frozen :class:`ServeSettings` holds everything a server needs (the agents it
offers, the replays folder, the idle timeout, the body limit …), so the command
line, the tests and a user's script build a server the same way.  Every refused
request raises a :class:`RequestError` subclass (a ``ValueError``, as all of
hoity_env's input errors) carrying its status code; the HTTP layer turns it into
a JSON ``{"error": message}`` answer and nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hoity_env.agents import AGENT_NAMES, NAMED_AGENTS, NAMED_POPULATIONS
from hoity_env.engine.errors import ConfigError, HoityError, IllegalActionError, StateError

__all__ = [
    "DEFAULT_AGENTS",
    "BadRequest",
    "GameOver",
    "IllegalAction",
    "NotFound",
    "ReplayNotSaved",
    "RequestError",
    "ServeSettings",
    "TooLarge",
    "TooManyGames",
    "shown",
]

DEFAULT_AGENTS = (*AGENT_NAMES, *NAMED_AGENTS, *NAMED_POPULATIONS)
"""The agents offered when ``--agents`` is not given: the scripted zoo and the shipped policies."""
MIN_IDLE_TIMEOUT_S = 1.0
"""The shortest idle timeout: the sweeper of idle games wakes at most once a second."""
MAX_READ_TIMEOUT_S = 3600.0


class RequestError(HoityError):
    """A refused request; ``status`` is the HTTP status it is answered with."""

    status = 400


class BadRequest(RequestError, ConfigError):
    """A malformed body or a field with a bad value (the message names the field)."""


class IllegalAction(RequestError, IllegalActionError):
    """An action that is not an integer or not legal for the human's seat now."""


class NotFound(RequestError):
    """No such game (never made, left or dropped), replay or page."""

    status = 404


class GameOver(RequestError, StateError):
    """An action for a game that has ended."""

    status = 409


class ForeignHost(RequestError):
    """A request to a loopback server that names another host (a DNS-rebinding page's request)."""

    status = 403


class TooLarge(RequestError):
    """A request body over :attr:`ServeSettings.max_body_bytes`."""

    status = 413


class TooManyGames(RequestError):
    """More games open at once than :attr:`ServeSettings.max_games`."""

    status = 429


class ReplayNotSaved(RequestError):
    """A replay the disk would not take (a full disk …): the game is kept, so a later leave can save it."""

    status = 507


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages: a request's value may be
    16 KiB long or nested hundreds deep (``repr`` of that can itself exceed the recursion limit)."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"<a {type(value).__name__} nested too deep to show>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class ServeSettings:
    """What one ``hoity-serve`` offers and how it guards itself.

    Attributes:
        agents: the agent specs a page may seat as opponents or ask for a hint.  A request can
            only choose among these: a spec names files (``ppo:PATH``), so the command line
            decides which ones, never a request.
        replays: the folder of saved games (created if missing); nothing outside it is written
            or served as a replay.
        idle_timeout_s: a game with no request for this long is dropped, its replay saved; at least
            one second (the sweeper wakes at most once a second, so a shorter one cannot be kept).
        max_body_bytes: larger request bodies are refused unread (413).
        max_games: games open at once (a finished game's slot is free at once); one more is
            refused (429), also when many requests arrive together.
        read_timeout_s: a connection that sends nothing for this long is closed, so a slow or
            stalled client cannot hold a server thread forever.
        ladder: a ladder report (``hoity-eval ladder`` output) served at ``/ladder``, read once.
    """

    agents: tuple[str, ...] = DEFAULT_AGENTS
    replays: Path = Path("replays")
    idle_timeout_s: float = 3600.0
    max_body_bytes: int = 16_384
    max_games: int = 64
    read_timeout_s: float = 30.0
    ladder: Path | None = None

    def __post_init__(self) -> None:
        if not self.agents or not all(isinstance(a, str) and a for a in self.agents):
            raise ConfigError(f"agents must be a non-empty tuple of agent specs, got {self.agents!r}")
        if not self.idle_timeout_s >= MIN_IDLE_TIMEOUT_S:
            raise ConfigError(
                f"idle_timeout_s must be at least {MIN_IDLE_TIMEOUT_S:g} second, got {self.idle_timeout_s}"
            )
        if not 0 < self.read_timeout_s <= MAX_READ_TIMEOUT_S:
            raise ConfigError(
                f"read_timeout_s must be > 0 and at most {MAX_READ_TIMEOUT_S:g}, got {self.read_timeout_s}"
            )
        if self.max_body_bytes < 256:
            raise ConfigError(f"max_body_bytes must be at least 256, got {self.max_body_bytes}")
        if self.max_games < 1:
            raise ConfigError(f"max_games must be at least 1, got {self.max_games}")
