"""Which observation encoder serves which ruleset (the env adapter never names one)."""

from __future__ import annotations

from collections.abc import Callable

from hoity_env.engine.game import Game
from hoity_env.environment.observation import StandardObserver

OBSERVERS: dict[str, Callable[[Game], StandardObserver]] = {"standard": StandardObserver}


def make_observer(game: Game) -> StandardObserver:
    """The encoder for ``game.rules.ruleset``."""
    return OBSERVERS[game.rules.ruleset](game)
