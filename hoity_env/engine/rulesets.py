"""Registry of engine rulesets: ``RulesConfig.ruleset`` names the implementation.

A ruleset is any object with the methods of :class:`Ruleset`.  The environment
talks to rules only through this protocol, so a new ruleset registers here and
nothing above the engine changes.  (The standard ruleset also serves its masks as
rows of a fixed table, ``mask_table``/``mask_rows``, for the batched engine; the
original ruleset cannot, since the checks a player holds change, so the protocol
asks only for the masks themselves.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from hoity_env.engine.actions import ActionLayout
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.events import Event
from hoity_env.engine.exhibitions import ExhibitionKey
from hoity_env.engine.original.rules import OriginalRuleset
from hoity_env.engine.standard.rules import StandardRuleset
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


RULESETS: dict[str, Ruleset] = {"standard": StandardRuleset(), "original": OriginalRuleset()}


def get_ruleset(rules: RulesConfig) -> Ruleset:
    """The implementation of ``rules.ruleset``."""
    return RULESETS[rules.ruleset]
