"""``Game``: the immutable parameters of a match (rules + player count), OpenSpiel style.

A :class:`Game` creates :class:`GameState` objects and applies steps to them
through the ruleset its rules name.  It holds no mutable state, so one game
object serves any number of states.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hoity_env.engine.actions import ActionLayout
from hoity_env.engine.cards import Deck, build_deck
from hoity_env.engine.config import RulesConfig, resolve_rules, validate_num_players
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.events import Event
from hoity_env.engine.exhibitions import ExhibitionKey
from hoity_env.engine.rulesets import Ruleset, get_ruleset
from hoity_env.engine.state import GameState


class Game:
    """Rules and player count of a match; factory and referee of its states."""

    def __init__(self, rules: str | RulesConfig = "standard", num_players: int = 4) -> None:
        self.rules: RulesConfig = resolve_rules(rules)
        self.num_players: int = validate_num_players(num_players)
        self.ruleset: Ruleset = get_ruleset(self.rules)
        self.layout: ActionLayout = self.ruleset.layout(self.rules, self.num_players)
        self.deck: Deck = build_deck(self.rules, self.num_players)
        if self.rules.starting_antiques * self.num_players >= self.deck.size:
            raise ConfigError("rules field 'starting_antiques' leaves no card for the lot")

    @property
    def num_actions(self) -> int:
        """Size of the flat action space."""
        return self.layout.size

    def new_state(self, seed: int | np.random.Generator | None = None) -> GameState:
        """A freshly dealt game; ``seed`` is an int or a ``numpy`` Generator (never global RNG)."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.Generator(np.random.PCG64(seed))
        return self.ruleset.new_state(self.rules, self.num_players, rng)

    def legal_masks(self, state: GameState) -> np.ndarray:
        """``(num_players, N)`` int8 masks of legal actions."""
        return self.ruleset.legal_masks(state)

    def legal_actions(self, state: GameState, player: int) -> list[int]:
        """Legal flat action indices of ``player``."""
        return [int(a) for a in np.flatnonzero(self.ruleset.legal_masks(state)[player])]

    def is_legal(self, state: GameState, player: int, action: int) -> bool:
        """Whether ``player`` may play ``action`` now."""
        return self.ruleset.is_legal(state, player, action)

    def step(self, state: GameState, actions: Sequence[int], *, validate: bool = True) -> list[Event]:
        """Apply one simultaneous step (one action per seat) and return its events."""
        return self.ruleset.step(state, actions, validate=validate)

    def rank_keys(self, state: GameState) -> list[tuple[int, ExhibitionKey]]:
        """End-of-game order keys per seat (larger is better)."""
        return self.ruleset.rank_keys(state)

    def state_from_dict(self, data: object, *, hand_made: bool = False) -> GameState:
        """Restore a state and check it belongs to this game's rules and player count.

        ``hand_made`` as for :meth:`GameState.from_dict`: a position set up by hand is checked
        by the rules' invariants but not by a history (the money spent, the lots sold).
        """
        from hoity_env.engine.errors import StateError

        state = GameState.from_dict(data, hand_made=hand_made)
        if state.num_players != self.num_players:
            raise StateError(f"state is for {state.num_players} players, not {self.num_players}")
        if state.rules != self.rules:
            mine, theirs = self.rules.to_dict(), state.rules.to_dict()
            diff = ", ".join(f"{k} {theirs[k]!r} (game: {mine[k]!r})" for k in mine if mine[k] != theirs[k])
            raise StateError(f"state is for other rules than this game's: {diff}")
        return state
