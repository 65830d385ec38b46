"""The pure rules engine of Hoity Toity (stdlib + numpy's Generator only).

Nothing here imports gymnasium, pettingzoo or torch (a test enforces it).

Layout (docs/design.md has the picture):

* this folder: what both rulesets share: cards, configuration, actions, events,
  the state and its validated restore, the generator's state, errors, and
  :class:`Game`, which dispatches to a ruleset (``rulesets.py``);
* ``standard/`` and ``original/``: the one-game reference engines of the two
  rulesets (rule ids, events, text);
* ``batched/``: B games as arrays (numpy, optional numba kernels), held equal to
  the reference engines by differential tests.
"""

from __future__ import annotations

from hoity_env.engine.actions import ActionLayout, Location, Phase, Role
from hoity_env.engine.batched import BatchedGame, BatchState
from hoity_env.engine.cards import Deck, build_deck
from hoity_env.engine.config import ORIGINAL, PRESETS, STANDARD, RulesConfig, resolve_rules
from hoity_env.engine.errors import ConfigError, HoityError, IllegalActionError, StateError
from hoity_env.engine.events import Event, EventKind
from hoity_env.engine.exhibitions import best_exhibition, display_key, is_exhibition
from hoity_env.engine.game import Game
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
