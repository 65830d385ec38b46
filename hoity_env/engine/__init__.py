"""The pure rules engine of Hoity Toity (stdlib, numpy and numba only).

Nothing here imports gymnasium, pettingzoo, torch or Pillow (a test enforces it).

Layout (docs/design.md has the picture):

* this folder: what every ruleset shares (cards, configuration, actions, events,
  the state and its validated restore, the generator's state, errors, the jit
  helpers), the registry of rulesets (``registry.py``: one record per ruleset) and
  the two faces above it, :class:`Game` and :class:`BatchedGame` (``game.py``);
* ``standard/`` and ``original/``: everything of one ruleset: its one-game rules
  (the readable reference: rule ids, events, text), its batched rules (compiled
  kernels, held equal to the one-game rules by differential tests) and its
  observation encoders, one game and batched;
* ``batched/``: the ruleset-neutral parts of a batch (its arrays, the deal, the
  kernels both rulesets' rounds share).
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
