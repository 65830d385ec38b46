"""The engine's two faces: :class:`Game` (one game, OpenSpiel style) and :class:`BatchedGame` (B games).

Both hold a match's immutable parameters (rules, player count) and no state, and reach their
ruleset's parts through its registry record.  :class:`BatchedGame` steps B games as arrays with
the ruleset's compiled kernels; game ``k`` dealt from seed ``s`` is ``Game.new_state(s)`` (S-1,
O-1) and plays exactly the one-game rules, which the differential tests check step by step.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hoity_env.engine.actions import ActionLayout, Phase
from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.kernels import fall_back, pick_legal
from hoity_env.engine.batched.shared_steps import deal_hands
from hoity_env.engine.batched.state import BatchState, refresh_derived
from hoity_env.engine.cards import Deck, build_deck
from hoity_env.engine.config import RulesConfig, resolve_rules, validate_num_players
from hoity_env.engine.errors import ConfigError, IllegalActionError, StateError
from hoity_env.engine.events import Event
from hoity_env.engine.exhibitions import ExhibitionKey
from hoity_env.engine.inputs import check_action_array, check_seeds, check_slots
from hoity_env.engine.registry import BatchedRules, BatchObserver, Observer, Ruleset, ruleset_of
from hoity_env.engine.state import GameState

_LOCATION, _ACTION = int(Phase.LOCATION), int(Phase.ACTION)


class Game:
    """Rules and player count of a match; factory and referee of its states."""

    def __init__(self, rules: str | RulesConfig = "standard", num_players: int = 4) -> None:
        self.rules: RulesConfig = resolve_rules(rules)
        self.num_players: int = validate_num_players(num_players)
        self.ruleset: Ruleset = ruleset_of(self.rules)
        self._one_game = self.ruleset.one_game
        self.layout: ActionLayout = self._one_game.layout(self.rules, self.num_players)
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
        return self._one_game.new_state(self.rules, self.num_players, rng)

    def legal_masks(self, state: GameState) -> np.ndarray:
        """``(num_players, N)`` int8 masks of legal actions."""
        return self._one_game.legal_masks(state)

    def location_masks(self, state: GameState) -> np.ndarray:
        """``(num_players, N)`` int8 masks of a location step (also a finished game's last masks)."""
        return self._one_game.location_masks(state)

    def legal_actions(self, state: GameState, player: int) -> list[int]:
        """Legal flat action indices of ``player``."""
        return [int(a) for a in np.flatnonzero(self._one_game.legal_masks(state)[player])]

    def is_legal(self, state: GameState, player: int, action: int) -> bool:
        """Whether ``player`` may play ``action`` now."""
        return self._one_game.is_legal(state, player, action)

    def step(self, state: GameState, actions: Sequence[int], *, validate: bool = True) -> list[Event]:
        """Apply one simultaneous step (one action per seat) and return its events."""
        return self._one_game.step(state, actions, validate=validate)

    def rank_keys(self, state: GameState) -> list[tuple[int, ExhibitionKey]]:
        """End-of-game order keys per seat (larger is better)."""
        return self._one_game.rank_keys(state)

    def make_observer(self) -> Observer:
        """A new observation encoder of this game's ruleset, rules and player count."""
        return self.ruleset.observer(self.rules, self.num_players)

    def state_from_dict(self, data: object, *, hand_made: bool = False) -> GameState:
        """Restore a state and check it belongs to this game's rules and player count (``hand_made``:
        as :meth:`GameState.from_dict`).
        """
        state = GameState.from_dict(data, hand_made=hand_made)
        if state.num_players != self.num_players:
            raise StateError(f"state is for {state.num_players} players, not {self.num_players}")
        if state.rules != self.rules:
            mine, theirs = self.rules.to_dict(), state.rules.to_dict()
            diff = ", ".join(f"{k} {theirs[k]!r} (game: {mine[k]!r})" for k in mine if mine[k] != theirs[k])
            raise StateError(f"state is for other rules than this game's: {diff}")
        return state


class BatchedGame:
    """Rules and player count of a batch of games; deals them and steps them all at once."""

    def __init__(self, rules: str | RulesConfig = "standard", num_players: int = 4) -> None:
        self.game = Game(rules, num_players)
        self.rules: RulesConfig = self.game.rules
        self.num_players = self.game.num_players
        self.layout: ActionLayout = self.game.layout
        self.ruleset: Ruleset = self.game.ruleset
        self.table = CardTable(self.rules, self.num_players)
        self.batched_rules: BatchedRules = self.ruleset.batched(self.rules, self.num_players, self.table)
        """What only this ruleset knows of a batch (its arrays, layout of a deal, masks, round)."""
        self._seats = np.arange(self.num_players)

    @property
    def num_actions(self) -> int:
        """Size of the flat action space (the one-game engine's)."""
        return self.layout.size

    def make_observer(self) -> BatchObserver:
        """A new batch observation encoder of this ruleset, rules and player count."""
        return self.ruleset.batch_observer(self.rules, self.num_players)

    # ------------------------------------------------------------------ deals
    def deal(self, seeds: Sequence[int] | np.ndarray) -> BatchState:
        """A batch of fresh games, game ``k`` dealt as ``Game.new_state(seeds[k])`` (S-1, O-1)."""
        seeds = check_seeds(seeds)
        state = self.batched_rules.state_class.empty(len(seeds), self.num_players, self.table)
        self._deal_into(state, np.arange(len(seeds)), seeds)
        return state

    def reset_games(self, state: BatchState, games: np.ndarray, seeds: Sequence[int] | np.ndarray) -> None:
        """Deal new games into the slots ``games`` (one seed each), in place; bad slots or seeds raise
        :class:`ConfigError` and change no game.
        """
        slots = check_slots(games, len(state.rngs))
        checked = check_seeds(seeds)
        if len(checked) != len(slots):
            raise ConfigError(f"reset_games: {len(slots)} games but {len(checked)} seeds")
        if len(slots):
            self._deal_into(state, slots, checked)

    def _deal_into(self, state: BatchState, games: np.ndarray, seeds: list[int]) -> None:
        rest = deal_hands(state, self.table, games, seeds)
        self.batched_rules.lay_out(state, games, rest)
        refresh_derived(state, self.table, games)

    # ------------------------------------------------------------ conversions
    def from_states(self, states: Sequence[GameState]) -> BatchState:
        """A batch holding copies of one-game states (hand-made positions, restored games)."""
        return self.batched_rules.state_class.from_states(states, self.table)

    def to_states(self, state: BatchState, index: Sequence[int] | None = None) -> list[GameState]:
        """One-game states of the batch's games (all, or those in ``index``)."""
        return state.to_states(self.rules, index)

    # ------------------------------------------------------------ legal moves
    def legal_masks(self, state: BatchState) -> np.ndarray:
        """``[B, n, N]`` int8 legal-action masks (never an empty row, C-6)."""
        return self.action_masks(state)

    def action_masks(self, state: BatchState, *, location: np.ndarray | None = None) -> np.ndarray:
        """``[B, n, N]`` int8 masks (a fresh array): location-step masks for finished games and
        where ``location`` (``[B]`` bool) is set, as an env hands them out."""
        force = np.zeros(state.batch_size, dtype=bool) if location is None else np.asarray(location, bool)
        return self.batched_rules.action_masks(state, force)

    @staticmethod
    def fallback_masks(masks: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(actions, illegal)``: each masked-out or out-of-range action replaced by its row's lowest legal
        action (the envs' ``fallback``), and where that happened.
        """
        return fall_back(masks, np.asarray(actions, dtype=np.int64))

    @staticmethod
    def random_from_masks(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Uniformly random legal actions of ``[B, n, N]`` masks, one draw from ``rng`` per seat."""
        return pick_legal(masks, rng.random(masks.shape[:-1]))

    def random_actions(self, state: BatchState, rng: np.random.Generator) -> np.ndarray:
        """``[B, n]`` uniformly random legal actions: :meth:`random_from_masks` of :meth:`legal_masks` for
        the same draws, done the ruleset's fastest way.
        """
        return self.batched_rules.random_actions(state, rng.random(state.money.shape))

    # ------------------------------------------------------------------- step
    def step(self, state: BatchState, actions: np.ndarray, *, validate: bool = True) -> np.ndarray:
        """Apply one simultaneous step (C-4) to every live game; returns ``[B]`` "played".

        ``actions`` is ``[B, n]`` flat indices (finished games' rows are ignored); with ``validate`` an
        illegal action raises :class:`IllegalActionError` before anything changes.
        """
        b, n = state.money.shape
        actions = check_action_array(actions, (b, n))
        live = ~state.done
        if validate:
            clipped = np.clip(actions, 0, self.num_actions - 1)
            ok = self.legal_masks(state)[np.arange(b)[:, None], self._seats[None, :], clipped] == 1
            ok &= actions == clipped
            bad = live[:, None] & ~ok
            if bad.any():
                g, p = (int(v) for v in np.argwhere(bad)[0])
                raise IllegalActionError(
                    f"action {int(actions[g, p])} is illegal for player_{p} in game {g} "
                    f"({Phase(int(state.phase[g])).name.lower()} step); {int(bad.sum())} illegal in all"
                )
        actions = actions.astype(np.int16)
        locating = live & (state.phase == _LOCATION)
        acting = live & (state.phase == _ACTION)
        if acting.any():
            self.batched_rules.resolve(state, np.flatnonzero(acting), actions)
        if locating.any():  # C-4.1: every location is revealed
            moving = np.flatnonzero(locating)
            state.locations[moving] = actions[moving]
            state.phase[moving] = _ACTION
        return live  # type: ignore[no-any-return]

    def rank_keys(self, state: BatchState) -> np.ndarray:
        """``[B, n]`` int64 end-of-game order (S-7, O-8: position, then best exhibition); larger is better."""
        # A packed exhibition key is below (deck size + 1) * year_span, so position dominates.
        scale = (self.table.deck.size + 1) * self.table.year_span
        key = self.table.key(state.best_count, state.best_oldest)
        return state.positions.astype(np.int64) * scale + key  # type: ignore[no-any-return]


__all__ = ["BatchedGame", "Game"]
