"""Validating reader behind :meth:`GameState.from_dict`; every failure names its field.

A restored state may come from a file anyone can edit, so a dict is accepted only if the engine could have
reached it: :class:`StateReader` checks the rules' invariants (listed in its docstring) and returns a
:class:`StateFields` of checked values, which ``GameState.from_dict`` installs.  The dependency is one-way
(``state`` imports ``state_io``).  See docs/guarantees.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF, Phase
from hoity_env.engine.cards import Deck, build_deck
from hoity_env.engine.config import RulesConfig, validate_num_players
from hoity_env.engine.errors import ConfigError, StateError
from hoity_env.engine.exhibitions import best_exhibition_key
from hoity_env.engine.reachable_money import check_standard_money
from hoity_env.engine.rng import rng_from_dict

STATE_VERSION = 1
TALLY_FIELDS = ("auction", "castle", "exhibit", "thief", "detective", "bid_total")
"""Public per-player counters of past choices (what a bluffer watches)."""

_ROLE_TALLY = {EXHIBIT: 2, THIEF: 3, DETECTIVE: 4}
STATE_KEYS = frozenset(
    {
        "version", "rules", "num_players", "draw_pile", "lot", "hands", "public", "money",
        "positions", "start_player", "round", "phase", "locations", "last_locations",
        "last_actions", "tallies", "terminated", "truncated", "winners", "rng",
    }
)  # fmt: skip
"""The keys of a standard state dict (a ruleset with fields of its own checks those first)."""


def refuse_unknown_keys(data: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    """:class:`StateError` naming any key of ``data`` outside ``allowed`` (nothing is dropped silently)."""
    unknown = sorted(str(k) for k in set(data) - allowed)
    if unknown:
        raise StateError(f"{where} has unknown field(s) {unknown[:5]}; this version writes {sorted(allowed)}")


@dataclass
class StateFields:
    """The checked fields of one serialized state, ready to install into a ``GameState``."""

    rules: RulesConfig
    num_players: int
    deck: Deck
    draw_pile: list[int]
    lot: int
    hands: list[list[int]]
    public: list[set[int]]
    money: list[int]
    positions: list[int]
    start_player: int
    round: int
    phase: Phase
    locations: list[int]
    last_locations: list[int]
    last_actions: list[int]
    tallies: list[list[int]]
    terminated: bool
    truncated: bool
    winners: list[int]
    rng: np.random.Generator


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)  # np.int64 too: read as int


class StateReader:
    """Validating reader for :meth:`GameState.from_dict`; every failure names its field.

    A dict passes only if it meets these invariants (RULES section in brackets):

    1. ``version`` is the int :data:`STATE_VERSION` (not ``True``, not ``1.0``).
    2. ``rules`` is a valid rules dict and ``num_players`` is in [2, 6] (C-1).
    3. Every card id is in exactly one place: the draw pile, the lot or one hand; ``public[p]`` lists only
       cards of ``hands[p]``; the lot is -1 only once the draw pile is empty (C-2, S-5).
    4. ``money[p]`` is in [0, ``starting_money``] (S-1) and reachable
       (:mod:`hoity_env.engine.reachable_money`): a player spent at most what its bids total, and the lots
       sold (at most one a round) number between the players who spent anything and what their spending
       and Auction House visits allow.
    5. ``round`` (completed rounds) is below ``max_rounds`` while the game runs, and equals it exactly
       when the game was truncated (S-8).
    6. The location step has no revealed locations; the action step has one per player, none at a closed
       Auction House; a finished game is in the location step (C-4).
    7. Before the first round ends ``last_locations`` and ``last_actions`` are all -1; afterwards each
       player's last action fits its last location (a bid at the Auction House, a role at the Castle).
    8. Tallies: Auction House + Castle visits = ``round``; Exhibit + Thief + Detective = Castle visits;
       the bid total is at most ``starting_money`` per Auction House visit; last round's choice is counted.
    9. Positions are >= 0, all below ``finish`` while the game runs; a decided game has one at or past
       ``finish``, and none further than one round's largest move past it.
    10. ``terminated`` holds exactly when a position reached ``finish`` (S-7), ``winners`` is then exactly
        the seats S-7 ranks first (seat order); ``terminated`` and ``truncated`` are never both true.
    11. ``rng`` is a PCG64 state exactly as NumPy writes it (:func:`~hoity_env.engine.rng.rng_from_dict`).
    12. No field is unknown: a key this version does not write is refused, not dropped.

    Not checked, because a state alone does not determine it: which seat bought which card, the order
    of past rounds, and whether the draw pile and the hands could come from one deal of this seed.
    """

    def __init__(self, data: Any, *, standard_money: bool = True) -> None:
        if not isinstance(data, dict):
            raise StateError(f"state must be a dict, got {type(data).__name__}")
        self.data = data
        self.standard_money = standard_money
        """Check money as the standard ruleset spends it (the original ruleset checks its checks)."""

    def get(self, key: str) -> Any:
        if key not in self.data:
            raise StateError(f"state is missing field {key!r}")
        return self.data[key]

    def int_field(self, key: str, low: int, high: int) -> int:
        value = self.get(key)
        if not _is_int(value) or not low <= value <= high:
            raise StateError(f"state field {key!r} must be an int in [{low}, {high}], got {value!r}")
        return int(value)

    def int_list(self, key: str, length: int, low: int, high: int) -> list[int]:
        return self.check_int_list(self.get(key), key, length, low, high)

    @staticmethod
    def check_int_list(value: Any, key: str, length: int, low: int, high: int) -> list[int]:
        if not isinstance(value, list) or len(value) != length:
            raise StateError(f"state field {key!r} must be a list of {length} ints, got {value!r}")
        for v in value:
            if not _is_int(v) or not low <= v <= high:
                raise StateError(f"state field {key!r} holds {v!r}, outside [{low}, {high}]")
        return [int(v) for v in value]

    def bool_field(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            raise StateError(f"state field {key!r} must be a bool, got {value!r}")
        return value

    def read(self) -> StateFields:
        """Check every field and invariant (the class docstring); the first failure raises."""
        refuse_unknown_keys(self.data, STATE_KEYS, "state")
        version = self.get("version")
        if not _is_int(version) or version != STATE_VERSION:
            raise StateError(f"state field 'version' must be the int {STATE_VERSION}, got {version!r}")
        try:
            rules = RulesConfig.from_dict(self.get("rules"))
            n = validate_num_players(self.get("num_players"))
        except ConfigError as exc:
            raise StateError(f"state field 'rules'/'num_players' is invalid: {exc}") from exc
        except TypeError as exc:  # e.g. a field name that is not a str
            raise StateError(f"state field 'rules' is invalid: {exc}") from exc
        deck = build_deck(rules, n)
        if rules.starting_antiques * n >= deck.size:
            raise StateError("state field 'rules' leaves no card for the lot with this player count")
        draw_pile, lot, hands, public = self._cards_in_play(deck, n)
        money = self.int_list("money", n, 0, rules.starting_money)
        start_player = self.int_field("start_player", 0, n - 1)
        round_ = self.int_field("round", 0, rules.max_rounds)
        phase, locations = self._phase(n, lot)
        last_locations = self.int_list("last_locations", n, -1, 1)
        last_actions = self.int_list("last_actions", n, -1, BID0 + rules.starting_money)
        self._check_last_round(round_, last_locations, last_actions, rules.starting_money)
        tallies = self._tallies(n, round_, last_locations, last_actions, rules.starting_money)
        if self.standard_money:
            check_standard_money(rules, money, hands, tallies, round_)
        # A pawn moves at most once per round, by an exhibition (at most the deck) or a reward.
        furthest = rules.finish - 1 + max(deck.size, rules.detective_reward)
        positions = self.int_list("positions", n, 0, furthest)
        terminated = self.bool_field("terminated")
        truncated = self.bool_field("truncated")
        winners = self._outcome(
            rules, deck, hands, positions, round_, phase, terminated=terminated, truncated=truncated
        )
        rng = rng_from_dict(self.get("rng"), "rng")
        return StateFields(
            rules=rules,
            num_players=n,
            deck=deck,
            draw_pile=draw_pile,
            lot=lot,
            hands=hands,
            public=public,
            money=money,
            positions=positions,
            start_player=start_player,
            round=round_,
            phase=phase,
            locations=locations,
            last_locations=last_locations,
            last_actions=last_actions,
            tallies=tallies,
            terminated=terminated,
            truncated=truncated,
            winners=winners,
            rng=rng,
        )

    # ---------------------------------------------------------------- cards
    def _cards_in_play(self, deck: Deck, n: int) -> tuple[list[int], int, list[list[int]], list[set[int]]]:
        """Invariant 3: draw pile, lot, hands and public knowledge."""
        last_card = deck.size - 1
        draw_pile = self._cards(self.get("draw_pile"), "draw_pile", last_card)
        lot = self.int_field("lot", -1, last_card)
        raw_hands = self.get("hands")
        if not isinstance(raw_hands, list) or len(raw_hands) != n:
            raise StateError(f"state field 'hands' must be a list of {n} lists")
        hands = []
        for p, hand in enumerate(raw_hands):
            if not isinstance(hand, list):
                raise StateError(f"state field 'hands' entry {p} must be a list")
            hands.append(self._cards(hand, f"hands[{p}]", last_card))
        raw_public = self.get("public")
        if not isinstance(raw_public, list) or len(raw_public) != n:
            raise StateError(f"state field 'public' must be a list of {n} lists")
        public = []
        for p, known in enumerate(raw_public):
            cards = self._cards(known if isinstance(known, list) else None, f"public[{p}]", last_card)
            if not set(cards) <= set(hands[p]):
                raise StateError(f"state field 'public[{p}]' names cards not in hands[{p}]")
            public.append(set(cards))
        places: dict[int, str] = {}
        spots = [("draw_pile", draw_pile), ("lot", [lot] if lot >= 0 else [])]
        spots += [(f"hands[{p}]", h) for p, h in enumerate(hands)]
        for where, cards in spots:
            for c in cards:
                if c in places:
                    raise StateError(f"card {c} is in two places: {places[c]} and {where}")
                places[c] = where
        if len(places) != deck.size:
            missing = sorted(set(range(deck.size)) - set(places))
            raise StateError(f"cards {missing} are nowhere (every card must be in exactly one place)")
        if lot < 0 and draw_pile:
            raise StateError("state field 'lot' is -1 but the draw pile is not empty (S-5)")
        return draw_pile, lot, hands, public

    @staticmethod
    def _cards(cards: Any, where: str, last_card: int) -> list[int]:
        if not isinstance(cards, list):
            raise StateError(f"state field {where!r} must be a list of card ids")
        for c in cards:
            if not _is_int(c) or not 0 <= c <= last_card:
                raise StateError(f"state field {where!r} holds {c!r}, not a card id in [0, {last_card}]")
        if len(set(cards)) != len(cards):
            raise StateError(f"state field {where!r} lists a card twice")
        return [int(c) for c in cards]

    # ---------------------------------------------------------------- rounds
    def _phase(self, n: int, lot: int) -> tuple[Phase, list[int]]:
        """Invariant 6 (the part that needs no outcome): phase and revealed locations."""
        phase = self.get("phase")
        if phase not in ("location", "action"):
            raise StateError(f"state field 'phase' must be 'location' or 'action', got {phase!r}")
        step = Phase.LOCATION if phase == "location" else Phase.ACTION
        locations = self.int_list("locations", n, -1, 1)
        if step is Phase.LOCATION and any(v != -1 for v in locations):
            raise StateError("state field 'locations' must be all -1 in the location step")
        if step is Phase.ACTION and any(v == -1 for v in locations):
            raise StateError("state field 'locations' must be set for every player in the action step")
        if step is Phase.ACTION and lot < 0 and AUCTION in locations:
            raise StateError("state field 'locations' sends a player to a closed Auction House")
        return step, locations

    @staticmethod
    def _check_last_round(
        round_: int, last_locations: list[int], last_actions: list[int], money: int
    ) -> None:
        """Invariant 7: last round's locations and actions fit each other."""
        if round_ == 0:
            if any(v != -1 for v in (*last_locations, *last_actions)):
                raise StateError(
                    "state fields 'last_locations'/'last_actions' must be all -1 before the first round ends"
                )
            return
        for p, (where, action) in enumerate(zip(last_locations, last_actions, strict=True)):
            if where == AUCTION and BID0 <= action <= BID0 + money:
                continue
            if where == CASTLE and action in _ROLE_TALLY:
                continue
            raise StateError(
                f"state field 'last_actions[{p}]' ({action}) does not fit last location {where} of player {p}"
            )

    def _tallies(
        self, n: int, round_: int, last_locations: list[int], last_actions: list[int], money: int
    ) -> list[list[int]]:
        """Invariant 8: the public tallies agree with each other and with the round count."""
        raw = self.get("tallies")
        if not isinstance(raw, list) or len(raw) != n:
            raise StateError(f"state field 'tallies' must be a list of {n} lists")
        tallies = []
        for p, row in enumerate(raw):
            key = f"tallies[{p}]"
            auction, castle, exhibit, thief, detective, bids = self.check_int_list(
                row, key, len(TALLY_FIELDS), 0, max(money, 1) * round_
            )
            if auction + castle != round_:
                raise StateError(
                    f"state field {key!r}: auction + castle visits ({auction} + {castle}) must equal "
                    f"the completed rounds ({round_})"
                )
            if exhibit + thief + detective != castle:
                raise StateError(f"state field {key!r}: the castle roles must add up to the castle visits")
            if bids > money * auction:
                raise StateError(f"state field {key!r}: bid total {bids} exceeds {money} per auction visit")
            if round_:
                if last_locations[p] == AUCTION and (not auction or bids < last_actions[p] - BID0):
                    raise StateError(f"state field {key!r} does not count last round's bid")
                if last_locations[p] == CASTLE and not row[_ROLE_TALLY[last_actions[p]]]:
                    raise StateError(f"state field {key!r} does not count last round's castle role")
            tallies.append([auction, castle, exhibit, thief, detective, bids])
        return tallies

    # --------------------------------------------------------------- outcome
    def _outcome(
        self,
        rules: RulesConfig,
        deck: Deck,
        hands: list[list[int]],
        positions: list[int],
        round_: int,
        phase: Phase,
        *,
        terminated: bool,
        truncated: bool,
    ) -> list[int]:
        """Invariants 5, 6 (finished games) and 10; returns the checked winners."""
        if terminated and truncated:
            raise StateError("state fields 'terminated' and 'truncated' cannot both be true")
        reached = max(positions) >= rules.finish
        if terminated != reached:
            raise StateError(
                "state fields 'terminated' and 'winners' must be set exactly when a position reached "
                "the finish "
                f"({rules.finish}); positions are {positions}"
            )
        if truncated != (not terminated and round_ == rules.max_rounds):
            raise StateError(
                f"state field 'truncated' must be true exactly when round reaches max_rounds "
                f"({rules.max_rounds}) without a winner (S-8); round is {round_}"
            )
        if (terminated or truncated) and phase is not Phase.LOCATION:
            raise StateError("state field 'phase' must be 'location' once the game is over")
        if terminated and round_ == 0:
            raise StateError("state field 'terminated' is true before any round was played")
        winners = self.get("winners")
        if not isinstance(winners, list):
            raise StateError(f"state field 'winners' must be a list of seats, got {winners!r}")
        self.check_int_list(winners, "winners", len(winners), 0, len(positions) - 1)
        expected: list[int] = []
        if terminated:  # S-7: furthest on the track, then the best exhibition in hand
            keys = [
                (positions[p], best_exhibition_key(hands[p], deck, rules.min_exhibition))
                for p in range(len(positions))
            ]
            top = max(keys)
            expected = [p for p, k in enumerate(keys) if k == top]
        if winners != expected:
            raise StateError(
                f"state field 'winners' must be {expected} for these positions and hands (S-7), got {winners}"
            )
        return [int(w) for w in winners]
