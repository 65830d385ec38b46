"""Which observation encoder serves which ruleset (the env adapter never names one)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from hoity_env.engine.game import Game
from hoity_env.engine.original.observation import OriginalObserver
from hoity_env.engine.standard.observation import StandardObserver
from hoity_env.engine.state import GameState


class Observer(Protocol):
    """What the environment needs from an encoder."""

    obs_dim: int
    state_dim: int

    def obs_layout(self) -> dict[str, slice]: ...

    def state_layout(self) -> dict[str, slice]: ...

    def observations(self, state: GameState, *, reuse: bool = False) -> np.ndarray: ...

    def global_state(self, state: GameState) -> np.ndarray: ...


OBSERVERS: dict[str, Callable[[Game], Observer]] = {
    "standard": StandardObserver,
    "original": OriginalObserver,
}


def make_observer(game: Game) -> Observer:
    """The encoder for ``game.rules.ruleset``."""
    return OBSERVERS[game.rules.ruleset](game)
