"""The ruleset registry: one :class:`Ruleset` record per ruleset, naming every engine part of it.

Every per-ruleset decision of the package reads the record of ``RulesConfig.ruleset``; nothing
compares a ruleset's name elsewhere.  A ruleset folder never imports this module, so the
registry lists it without an import circle (docs/design.md, "Adding a ruleset").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from hoity_env.engine.actions import ActionLayout
from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.state import BatchState
from hoity_env.engine.config import RulesConfig, resolve_rules
from hoity_env.engine.errors import ConfigError
from hoity_env.engine.events import Event
from hoity_env.engine.exhibitions import ExhibitionKey
from hoity_env.engine.original.batch_observation import OriginalBatchObserver
from hoity_env.engine.original.batched import OriginalBatched
from hoity_env.engine.original.observation import OriginalObserver, original_field_widths
from hoity_env.engine.original.rules import OriginalRuleset
from hoity_env.engine.standard.batch_observation import StandardBatchObserver
from hoity_env.engine.standard.batched import StandardBatched
from hoity_env.engine.standard.observation import Field, StandardObserver, standard_field_widths
from hoity_env.engine.standard.rules import StandardRuleset
from hoity_env.engine.state import GameState

Fields = tuple[Field, ...]
"""(name, width, meaning) of each field of one block of an observation."""


class OneGameRules(Protocol):
    """The readable reference rules of a ruleset, as stateless methods over a :class:`GameState`."""

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


class BatchedRules(Protocol):
    """What only a ruleset knows of a batch: its arrays, its deal's layout, its masks, its round."""

    state_class: type[BatchState]

    def lay_out(self, state: BatchState, games: np.ndarray, rest: np.ndarray) -> None:
        """Lay out the undealt cards (``[G, rest]``, top card last) of the new games ``games``."""
        ...

    def action_masks(self, state: BatchState, location: np.ndarray) -> np.ndarray:
        """``[B, n, N]`` int8 legal masks, location-step masks where done or ``location`` is set."""
        ...

    def random_actions(self, state: BatchState, u: np.ndarray) -> np.ndarray:
        """``[B, n]``: each seat's ``floor(u * legal count)``-th legal action (``u``: uniform draws)."""
        ...

    def resolve(self, state: BatchState, games: np.ndarray, actions: np.ndarray) -> None:
        """The action step of ``games``, end check included; ``actions`` is the whole ``[B, n]``."""
        ...


class Observer(Protocol):
    """One game's encoder: every seat's observation and the global state."""

    obs_dim: int
    state_dim: int

    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of an observation."""
        ...

    def state_layout(self) -> dict[str, slice]:
        """Name → slice of the global state."""
        ...

    def observations(self, state: GameState, *, reuse: bool = False) -> np.ndarray:
        """``(n, obs_dim)`` float32, row ``i`` seat ``i``'s observation."""
        ...

    def global_state(self, state: GameState) -> np.ndarray:
        """``(state_dim,)`` float32."""
        ...


class BatchObserver(Protocol):
    """A batch's encoder: the one-game encoder's arrays for every game at once."""

    obs_dim: int
    state_dim: int

    def obs_layout(self) -> dict[str, slice]:
        """Name → slice of an observation row."""
        ...

    def state_layout(self) -> dict[str, slice]:
        """Name → slice of a global-state row."""
        ...

    def observations(self, state: BatchState) -> np.ndarray:
        """``[B, n, obs_dim]`` float32."""
        ...

    def global_states(self, state: BatchState) -> np.ndarray:
        """``[B, state_dim]`` float32."""
        ...


@dataclass(frozen=True)
class Ruleset:
    """Every engine part of one ruleset (the module docstring)."""

    name: str
    """``RulesConfig.ruleset`` of the games it plays."""
    one_game: OneGameRules
    """The one-game rules: the readable reference (events, replays, text, hand-made positions)."""
    batched: Callable[[RulesConfig, int, CardTable], BatchedRules]
    """Its batched rules for ``(rules, num_players, card table)``: the compiled kernels."""
    observer: Callable[[RulesConfig, int], Observer]
    """Its one-game observation encoder for ``(rules, num_players)``."""
    batch_observer: Callable[[RulesConfig, int], BatchObserver]
    """Its batch observation encoder for ``(rules, num_players)``, equal to ``observer`` game by game."""
    observation_fields: Callable[[int], tuple[Fields, Fields, Fields]]
    """Global, own and per-player fields of an ``n``-player observation: the padded layout's parts."""


RULESETS: dict[str, Ruleset] = {
    ruleset.name: ruleset
    for ruleset in (
        Ruleset(
            name="standard",
            one_game=StandardRuleset(),
            batched=StandardBatched,
            observer=StandardObserver,
            batch_observer=StandardBatchObserver,
            observation_fields=standard_field_widths,
        ),
        Ruleset(
            name="original",
            one_game=OriginalRuleset(),
            batched=OriginalBatched,
            observer=OriginalObserver,
            batch_observer=OriginalBatchObserver,
            observation_fields=original_field_widths,
        ),
    )
}
"""Every ruleset by name, in the order of ``config.RULESET_NAMES`` (a test keeps them equal)."""

BATCHED_RULESETS = tuple(RULESETS)


def ruleset_of(rules: str | RulesConfig) -> Ruleset:
    """The record of a preset name's or a rules object's ruleset; :class:`ConfigError` if none."""
    name = resolve_rules(rules).ruleset
    if name not in RULESETS:
        raise ConfigError(f"no engine for ruleset {name!r}; the registered rulesets are {tuple(RULESETS)}")
    return RULESETS[name]


__all__ = [
    "BATCHED_RULESETS",
    "RULESETS",
    "BatchObserver",
    "BatchedRules",
    "Field",
    "Fields",
    "Observer",
    "OneGameRules",
    "Ruleset",
    "ruleset_of",
]
