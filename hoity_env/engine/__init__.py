"""The pure rules engine of Hoity Toity: stdlib, numpy and numba only (docs/engine.md).

This folder holds what every ruleset shares, the ruleset registry (``registry.py``) and the
two faces above it, :class:`Game` and :class:`BatchedGame` (``game.py``); ``standard/`` and
``original/`` hold everything of one ruleset; ``batched/`` the ruleset-neutral parts of a batch.
"""

from __future__ import annotations

from hoity_env.engine.actions import ActionLayout, Location, Phase, Role
from hoity_env.engine.batched import BatchState
from hoity_env.engine.cards import Deck, build_deck
from hoity_env.engine.config import ORIGINAL, PRESETS, STANDARD, RulesConfig, resolve_rules
from hoity_env.engine.errors import ConfigError, HoityError, IllegalActionError, StateError
from hoity_env.engine.events import Event, EventKind
from hoity_env.engine.exhibitions import best_exhibition, display_key, is_exhibition
from hoity_env.engine.game import BatchedGame, Game
from hoity_env.engine.state import GameState

__all__ = [
    "ORIGINAL",
    "PRESETS",
    "STANDARD",
    "ActionLayout",
    "BatchState",
    "BatchedGame",
    "ConfigError",
    "Deck",
    "Event",
    "EventKind",
    "Game",
    "GameState",
    "HoityError",
    "IllegalActionError",
    "Location",
    "Phase",
    "Role",
    "RulesConfig",
    "StateError",
    "best_exhibition",
    "build_deck",
    "display_key",
    "is_exhibition",
    "resolve_rules",
]
