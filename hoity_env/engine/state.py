"""The game state: a plain data object with ``clone``, ``to_dict``/``from_dict`` and text.

Cards move only through :meth:`GameState.give_card` / :meth:`GameState.take_card`, which keep
the derived per-series counts and best-exhibition cache in step.  ``to_dict`` includes the
generator's state, so a restored game continues exactly; ``from_dict`` checks every invariant
of :class:`~hoity_env.engine.state_io.StateReader`.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from hoity_env.engine.actions import LOCATION_NAMES, Phase
from hoity_env.engine.cards import Deck, build_deck
from hoity_env.engine.config import RulesConfig, validate_num_players
from hoity_env.engine.exhibitions import best_exhibition_counted
from hoity_env.engine.rng import rng_to_dict
from hoity_env.engine.state_io import STATE_VERSION, TALLY_FIELDS, StateFields, StateReader

_UNSET: Any = object()
_COMPARED_FIELDS = (
    "rules",
    "num_players",
    "draw_pile",
    "lot",
    "money",
    "positions",
    "start_player",
    "round",
    "phase",
    "locations",
    "last_locations",
    "last_actions",
    "tallies",
    "terminated",
    "truncated",
    "winners",
)


# Ruleset name -> the state class of a ruleset with fields of its own (the original ruleset's
# ``OriginalState`` registers itself here when its module is imported, which the package's
# ``__init__`` always does).  A registry, not an import, because the base class must not depend
# on the rulesets built on it: ``GameState.from_dict`` of an original game's dict still returns
# an ``OriginalState``.
STATE_CLASSES: dict[str, type[GameState]] = {}


class GameState:
    """Everything about one game in progress (public and hidden)."""

    def __init__(self, rules: RulesConfig, num_players: int, rng: np.random.Generator) -> None:
        n = validate_num_players(num_players)
        self.rules = rules
        self.num_players = n
        self.deck: Deck = build_deck(rules, n)
        self.rng = rng
        self.draw_pile: list[int] = []
        """Face-down cards; the top card is the last element."""
        self.lot = -1
        """Card on display at the Auction House, -1 when there is none."""
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.public: list[set[int]] = [set() for _ in range(n)]
        """Cards every player knows to be in each hand (bought, stolen or exhibited)."""
        self.money = [rules.starting_money] * n
        self.positions = [0] * n
        self.start_player = 0
        self.round = 0
        """Completed rounds."""
        self.phase = Phase.LOCATION
        self.locations = [-1] * n
        """Locations revealed this round (action step only), else -1."""
        self.last_locations = [-1] * n
        self.last_actions = [-1] * n
        """Flat action index each player played in last round's action step, -1 before."""
        self.tallies = [[0] * len(TALLY_FIELDS) for _ in range(n)]
        self.terminated = False
        self.truncated = False
        self.winners: list[int] = []
        # Derived caches (rebuilt by _rebuild_caches, never serialized).
        self.counts = [[0] * self.deck.num_series for _ in range(n)]
        self.public_counts = [[0] * self.deck.num_series for _ in range(n)]
        self._best: list[Any] = [_UNSET] * n

    # ------------------------------------------------------------------ cards
    def give_card(self, player: int, card: int, *, public: bool) -> None:
        """Put ``card`` into ``player``'s hand (publicly known if ``public``)."""
        self.hands[player].append(card)
        s = self.deck.series[card]
        self.counts[player][s] += 1
        if public:
            self.public[player].add(card)
            self.public_counts[player][s] += 1
        self._best[player] = _UNSET

    def take_card(self, player: int, card: int) -> None:
        """Remove ``card`` from ``player``'s hand."""
        self.hands[player].remove(card)
        s = self.deck.series[card]
        self.counts[player][s] -= 1
        if card in self.public[player]:
            self.public[player].discard(card)
            self.public_counts[player][s] -= 1
        self._best[player] = _UNSET

    def reveal(self, player: int, cards: Sequence[int]) -> None:
        """Make ``cards`` of ``player``'s hand public (an exhibition shows them)."""
        pub = self.public[player]
        for c in cards:
            if c not in pub:
                pub.add(c)
                self.public_counts[player][self.deck.series[c]] += 1

    def best_exhibition(self, player: int) -> tuple[int, ...] | None:
        """Best exhibition in ``player``'s hand (C-3), cached until the hand changes."""
        best = self._best[player]
        if best is _UNSET:
            best = best_exhibition_counted(
                self.hands[player], self.counts[player], self.deck, self.rules.min_exhibition
            )
            self._best[player] = best
        return best  # type: ignore[no-any-return]

    def _rebuild_caches(self) -> None:
        """Derive the per-series counts and reset the best-exhibition cache from the hands."""
        series, num_series = self.deck.series, self.deck.num_series
        self.counts = [[0] * num_series for _ in range(self.num_players)]
        self.public_counts = [[0] * num_series for _ in range(self.num_players)]
        for p in range(self.num_players):
            for c in self.hands[p]:
                self.counts[p][series[c]] += 1
            for c in self.public[p]:
                self.public_counts[p][series[c]] += 1
        self._best = [_UNSET] * self.num_players

    # ------------------------------------------------------------ properties
    @property
    def done(self) -> bool:
        """Whether the game is over (decided or truncated)."""
        return self.terminated or self.truncated

    # ----------------------------------------------------------------- copies
    def clone(self) -> GameState:
        """Independent deep copy (the RNG included)."""
        new = copy.copy(self)
        new.rng = copy.deepcopy(self.rng)
        new.draw_pile = list(self.draw_pile)
        new.hands = [list(h) for h in self.hands]
        new.public = [set(p) for p in self.public]
        new.money = list(self.money)
        new.positions = list(self.positions)
        new.locations = list(self.locations)
        new.last_locations = list(self.last_locations)
        new.last_actions = list(self.last_actions)
        new.tallies = [list(t) for t in self.tallies]
        new.winners = list(self.winners)
        new.counts = [list(c) for c in self.counts]
        new.public_counts = [list(c) for c in self.public_counts]
        new._best = list(self._best)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> GameState:
        return self.clone()

    def __getstate__(self) -> dict[str, Any]:
        return self.to_dict()

    def __setstate__(self, data: dict[str, Any]) -> None:
        # Copies and pickles of a state in memory: a hand-made position stays copyable (a
        # pickle is trusted anyway: loading one runs code).
        self.__dict__.update(type(self).from_dict(data, hand_made=True).__dict__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def comparable(self) -> dict[str, Any]:
        """Every field, hands and public cards sorted (no rule reads hand order): equal exactly when two
        states are the same game.  Cheaper than :meth:`to_dict` for the differential checks.
        """
        d = {name: getattr(self, name) for name in _COMPARED_FIELDS}
        d["hands"] = [sorted(h) for h in self.hands]
        d["public"] = [sorted(p) for p in self.public]
        d["rng"] = self.rng.bit_generator.state
        return d

    # ---------------------------------------------------------- serialization
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the whole state, RNG included."""
        return {
            "version": STATE_VERSION,
            "rules": self.rules.to_dict(),
            "num_players": self.num_players,
            "draw_pile": list(self.draw_pile),
            "lot": self.lot,
            "hands": [list(h) for h in self.hands],
            "public": [sorted(p) for p in self.public],
            "money": list(self.money),
            "positions": list(self.positions),
            "start_player": self.start_player,
            "round": self.round,
            "phase": self.phase.name.lower(),
            "locations": list(self.locations),
            "last_locations": list(self.last_locations),
            "last_actions": list(self.last_actions),
            "tallies": [list(t) for t in self.tallies],
            "terminated": self.terminated,
            "truncated": self.truncated,
            "winners": list(self.winners),
            "rng": rng_to_dict(self.rng),
        }

    @classmethod
    def from_dict(cls, data: Any, *, hand_made: bool = False) -> GameState:
        """Rebuild a state from :meth:`to_dict` output; any failure raises :class:`StateError`.

        ``hand_made=True`` (a puzzle, a rules test) skips only the invariants that tie a position to a
        past: the money spent and lots sold of :mod:`~hoity_env.engine.reachable_money`.
        """
        if cls is GameState:
            subclass = STATE_CLASSES.get(_ruleset_of(data))
            if subclass is not None:
                return subclass.from_dict(data, hand_made=hand_made)
        state = cls.__new__(cls)
        state._install(StateReader(data, standard_money=not hand_made).read())
        return state

    def _install(self, fields: StateFields) -> None:
        """Set every field from checked :class:`StateFields` and rebuild the caches."""
        for field in dataclasses.fields(fields):
            setattr(self, field.name, getattr(fields, field.name))
        self._rebuild_caches()

    # ------------------------------------------------------------------- text
    def __str__(self) -> str:
        return self.to_text()

    def table_text(self) -> str:
        """Public summary of the Auction House (renders show it): the lot and the deck."""
        lot = "closed" if self.lot < 0 else card_text(self.lot, self.deck)
        return f"lot {lot}; deck {len(self.draw_pile)}"

    def player_text(self, player: int) -> str:
        """Public money summary of a player (renders show it)."""
        return f"money {self.money[player]:>3}"

    def to_text(self) -> str:
        """Stable, readable multi-line form of the full state (hidden cards included)."""
        d = self.deck
        phase = self.phase.name.lower()
        lot = "none (Auction House closed)" if self.lot < 0 else card_text(self.lot, d)
        lines = [
            f"Hoity Toity [{self.rules.name}] round {self.round + 1}, {phase} step, "
            f"start player {self.start_player}",
            f"lot: {lot}; deck: {len(self.draw_pile)} cards",
        ]
        for p in range(self.num_players):
            hand = ", ".join(
                card_text(c, d) + ("" if c in self.public[p] else "*") for c in sorted(self.hands[p])
            )
            loc = self.locations[p]
            where = f" at the {LOCATION_NAMES[loc]}" if loc >= 0 else ""
            lines.append(
                f"player_{p}: track {self.positions[p]}/{self.rules.finish}, money {self.money[p]}"
                f"{where}; hand [{hand}]"
            )
        if self.terminated:
            lines.append("game over; winners: " + ", ".join(f"player_{w}" for w in self.winners))
        elif self.truncated:
            lines.append("game truncated at the round limit")
        lines.append("(* = hidden from the other players)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"GameState(rules={self.rules.name!r}, num_players={self.num_players}, "
            f"round={self.round}, phase={self.phase.name.lower()})"
        )


def _ruleset_of(data: Any) -> Any:
    """``data["rules"]["ruleset"]`` of a state dict, or ``None`` (the reader reports a bad dict)."""
    rules = data.get("rules") if isinstance(data, dict) else None
    ruleset = rules.get("ruleset") if isinstance(rules, dict) else None
    return ruleset if isinstance(ruleset, str) else None  # a list or dict would not even hash


def card_text(card: int, deck: Deck) -> str:
    """Human form of a card: series letter as printed in the box, then year (``C1592``)."""
    return f"{'ABCDEF'[deck.series[card]]}{deck.year[card]}"


__all__ = ["STATE_CLASSES", "STATE_VERSION", "TALLY_FIELDS", "GameState", "card_text"]
