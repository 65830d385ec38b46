"""Registry of engine rulesets: ``RulesConfig.ruleset`` names the implementation.

A ruleset is any object with the methods of :class:`Ruleset`.  The environment
talks to rules only through this protocol, so a new ruleset registers here and
nothing above the engine changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from hoity_env.engine.actions import ActionLayout
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.events import Event
from hoity_env.engine.exhibitions import ExhibitionKey
from hoity_env.engine.standard import StandardRuleset
from hoity_env.engine.state import GameState


class Ruleset(Protocol):
    """What the environment needs from a ruleset."""

    name: str

    def layout(self, rules: RulesConfig, num_players: int) -> ActionLayout:
        """Flat action layout."""
        ...

    def new_state(self, rules: RulesConfig, num_players: int, rng: np.random.Generator) -> GameState:
        """A freshly dealt game."""
        ...

    def mask_table(self, rules: RulesConfig) -> np.ndarray:
        """Every distinct legal-action row (read-only)."""
        ...

    def mask_rows(self, state: GameState) -> list[int]:
        """Each player's row of :meth:`mask_table` now."""
        ...

    def location_rows(self, state: GameState) -> list[int]:
        """Each player's row in a location step (also the final observation's)."""
        ...

    def legal_masks(self, state: GameState) -> np.ndarray:
        """``(num_players, N)`` int8 legal-action masks."""
        ...

    def location_masks(self, state: GameState) -> np.ndarray:
        """Masks of a location step (also the final observation's masks)."""
        ...

    def is_legal(self, state: GameState, player: int, action: int) -> bool:
        """One entry of the masks."""
        ...

    def step(self, state: GameState, actions: Sequence[int], *, validate: bool = True) -> list[Event]:
        """Apply one simultaneous step."""
        ...

    def rank_keys(self, state: GameState) -> list[tuple[int, ExhibitionKey]]:
        """End-of-game order keys, larger is better."""
        ...


RULESETS: dict[str, Ruleset] = {"standard": StandardRuleset()}


def get_ruleset(rules: RulesConfig) -> Ruleset:
    """The implementation of ``rules.ruleset``."""
    return RULESETS[rules.ruleset]
