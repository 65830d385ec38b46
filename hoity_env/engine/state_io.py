"""Validating reader behind :meth:`GameState.from_dict`; every failure names its field."""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import Phase
from hoity_env.engine.config import RulesConfig, validate_num_players
from hoity_env.engine.errors import ConfigError, StateError
from hoity_env.engine.rng import rng_from_dict
from hoity_env.engine.state import STATE_VERSION, TALLY_FIELDS, GameState


class StateReader:
    """Validating reader for :meth:`GameState.from_dict`; every failure names its field."""

    def __init__(self, data: Any) -> None:
        if not isinstance(data, dict):
            raise StateError(f"state must be a dict, got {type(data).__name__}")
        self.data = data

    def get(self, key: str) -> Any:
        if key not in self.data:
            raise StateError(f"state is missing field {key!r}")
        return self.data[key]

    def int_field(self, key: str, low: int, high: int) -> int:
        value = self.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise StateError(f"state field {key!r} must be an int in [{low}, {high}], got {value!r}")
        return value

    def int_list(self, key: str, length: int, low: int, high: int) -> list[int]:
        return self.check_int_list(self.get(key), key, length, low, high)

    @staticmethod
    def check_int_list(value: Any, key: str, length: int, low: int, high: int) -> list[int]:
        if not isinstance(value, list) or len(value) != length:
            raise StateError(f"state field {key!r} must be a list of {length} ints, got {value!r}")
        for v in value:
            if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
                raise StateError(f"state field {key!r} holds {v!r}, outside [{low}, {high}]")
        return list(value)

    def bool_field(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            raise StateError(f"state field {key!r} must be a bool, got {value!r}")
        return value

    def read(self) -> GameState:
        if self.get("version") != STATE_VERSION:
            raise StateError(f"state field 'version' must be {STATE_VERSION}, got {self.data['version']!r}")
        try:
            rules = RulesConfig.from_dict(self.get("rules"))
            n = validate_num_players(self.get("num_players"))
        except ConfigError as exc:
            raise StateError(f"state field 'rules'/'num_players' is invalid: {exc}") from exc
        state = GameState(rules, n, np.random.Generator(np.random.PCG64(0)))
        num_cards = state.deck.size
        last_card = num_cards - 1
        big = 10**9

        state.draw_pile = self._cards(self.get("draw_pile"), "draw_pile", last_card)
        state.lot = self.int_field("lot", -1, last_card)
        hands = self.get("hands")
        if not isinstance(hands, list) or len(hands) != n:
            raise StateError(f"state field 'hands' must be a list of {n} lists")
        for p, hand in enumerate(hands):
            if not isinstance(hand, list):
                raise StateError(f"state field 'hands' entry {p} must be a list")
            state.hands[p] = self._cards(hand, f"hands[{p}]", last_card)
        public = self.get("public")
        if not isinstance(public, list) or len(public) != n:
            raise StateError(f"state field 'public' must be a list of {n} lists")
        for p, known in enumerate(public):
            cards = self._cards(known if isinstance(known, list) else None, f"public[{p}]", last_card)
            if not set(cards) <= set(state.hands[p]):
                raise StateError(f"state field 'public[{p}]' names cards not in hands[{p}]")
            state.public[p] = set(cards)

        places: dict[int, str] = {}
        spots = [("draw_pile", state.draw_pile), ("lot", [state.lot] if state.lot >= 0 else [])]
        spots += [(f"hands[{p}]", h) for p, h in enumerate(state.hands)]
        for where, cards in spots:
            for c in cards:
                if c in places:
                    raise StateError(f"card {c} is in two places: {places[c]} and {where}")
                places[c] = where
        if len(places) != num_cards:
            missing = sorted(set(range(num_cards)) - set(places))
            raise StateError(f"cards {missing} are nowhere (every card must be in exactly one place)")
        if state.lot < 0 and state.draw_pile:
            raise StateError("state field 'lot' is -1 but the draw pile is not empty (S-5)")

        state.money = self.int_list("money", n, 0, rules.starting_money)
        state.positions = self.int_list("positions", n, 0, big)
        state.start_player = self.int_field("start_player", 0, n - 1)
        state.round = self.int_field("round", 0, rules.max_rounds)
        phase = self.get("phase")
        if phase not in ("location", "action"):
            raise StateError(f"state field 'phase' must be 'location' or 'action', got {phase!r}")
        state.phase = Phase.LOCATION if phase == "location" else Phase.ACTION
        state.locations = self.int_list("locations", n, -1, 1)
        if state.phase is Phase.LOCATION and any(v != -1 for v in state.locations):
            raise StateError("state field 'locations' must be all -1 in the location step")
        if state.phase is Phase.ACTION and any(v == -1 for v in state.locations):
            raise StateError("state field 'locations' must be set for every player in the action step")
        if state.phase is Phase.ACTION and state.lot < 0 and 0 in state.locations:
            raise StateError("state field 'locations' sends a player to a closed Auction House")
        state.last_locations = self.int_list("last_locations", n, -1, 1)
        state.last_actions = self.int_list("last_actions", n, -1, big)
        tallies = self.get("tallies")
        if not isinstance(tallies, list) or len(tallies) != n:
            raise StateError(f"state field 'tallies' must be a list of {n} lists")
        for p, row in enumerate(tallies):
            state.tallies[p] = self.check_int_list(row, f"tallies[{p}]", len(TALLY_FIELDS), 0, big)
        state.terminated = self.bool_field("terminated")
        state.truncated = self.bool_field("truncated")
        if state.terminated and state.truncated:
            raise StateError("state fields 'terminated' and 'truncated' cannot both be true")
        winners = self.get("winners")
        if not isinstance(winners, list):
            raise StateError(f"state field 'winners' must be a list of seats, got {winners!r}")
        state.winners = self.check_int_list(winners, "winners", len(winners), 0, n - 1)
        if state.terminated != bool(state.winners):
            raise StateError("state field 'winners' must be non-empty exactly when 'terminated' is true")
        state.rng = rng_from_dict(self.get("rng"), "rng")
        state._rebuild_caches()
        return state

    def _cards(self, cards: Any, where: str, last_card: int) -> list[int]:
        if not isinstance(cards, list):
            raise StateError(f"state field {where!r} must be a list of card ids")
        for c in cards:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= last_card:
                raise StateError(f"state field {where!r} holds {c!r}, not a card id in [0, {last_card}]")
        if len(set(cards)) != len(cards):
            raise StateError(f"state field {where!r} lists a card twice")
        return list(cards)
