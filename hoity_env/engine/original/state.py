"""The state of an ``original`` game: :class:`GameState` plus piles, lots, checks, register, jail.

``lot``/``draw_pile`` stay empty (the original game has two of each) and ``money[p]`` is the
value of the checks ``p`` holds; :class:`OriginalStateReader` checks the extra fields on restore.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hoity_env.engine.actions import (
    AUCTION,
    BID0,
    CASTLE,
    DETECTIVE,
    EXHIBIT,
    LOCATION_NAMES,
    NUM_LOTS,
    ORIGINAL_INDICES,
    THIEF,
)
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import StateError
from hoity_env.engine.reachable_money import check_original_money
from hoity_env.engine.state import STATE_CLASSES, GameState, card_text
from hoity_env.engine.state_io import TALLY_FIELDS, StateReader

O_EXHIBIT, O_THIEF_LOW, O_THIEF_HIGH, O_DETECTIVE, O_AUCTION_THIEF, O_CHECK0 = ORIGINAL_INDICES


class OriginalState(GameState):
    """Everything about one game of the original ruleset (public and hidden)."""

    def __init__(self, rules: RulesConfig, num_players: int, rng: np.random.Generator) -> None:
        super().__init__(rules, num_players, rng)
        n = self.num_players
        self.piles: list[list[int]] = [[] for _ in range(NUM_LOTS)]
        """O-1: the two face-down piles; the top card is the last element."""
        self.lots: list[int] = [-1] * NUM_LOTS
        """O-1: the face-up lot of each pile, -1 once the pile is used up."""
        self.checks: list[list[int]] = [sorted(rules.checks[p]) for p in range(n)]
        """O-2: check values in each hand (public), ascending."""
        self.register: list[int] = []
        """O-5: checks paid for lots (out of the game unless an auction thief takes one back)."""
        self.jail: list[int] = []
        """O-7: thief numbers in the jail, cell 1 first."""
        self.money = [sum(c) for c in self.checks]
        self._init_thieves()

    def _init_thieves(self) -> None:
        self.thieves: tuple[tuple[int, int], ...] = self.rules.thieves_of(self.num_players)
        """O-2: each seat's two thief numbers, lower first (derived from the rules)."""
        self.thief_owner: dict[int, int] = {t: p for p, pair in enumerate(self.thieves) for t in pair}

    # ------------------------------------------------------------------ helpers
    def free_thieves(self, player: int) -> list[int]:
        """``player``'s thieves not in jail (O-7), lower number first."""
        return [t for t in self.thieves[player] if t not in self.jail]

    @property
    def auction_open(self) -> bool:
        """O-8: the Auction House is open while a lot is on display."""
        return max(self.lots) >= 0

    def leader_reward(self) -> tuple[int, int]:
        """O-6.1/O-9: the (big, small) reward of the castle under the leading pawn."""
        return self.rules.castle_reward(max(self.positions))

    def add_check(self, player: int, value: int) -> None:
        """Put a check into ``player``'s hand (kept sorted; ``money`` follows)."""
        self.checks[player].append(value)
        self.checks[player].sort()
        self.money[player] += value

    def remove_check(self, player: int, value: int) -> None:
        """Take a check out of ``player``'s hand."""
        self.checks[player].remove(value)
        self.money[player] -= value

    # ------------------------------------------------------------------- copies
    def clone(self) -> OriginalState:
        """Independent deep copy (the RNG included)."""
        new = super().clone()
        assert isinstance(new, OriginalState)
        new.piles = [list(p) for p in self.piles]
        new.lots = list(self.lots)
        new.checks = [list(c) for c in self.checks]
        new.register = list(self.register)
        new.jail = list(self.jail)
        return new

    def comparable(self) -> dict[str, Any]:
        """As :meth:`GameState.comparable`, with the original ruleset's fields."""
        d = super().comparable()
        d.update(piles=self.piles, lots=self.lots, checks=self.checks, register=self.register, jail=self.jail)
        return d

    # ----------------------------------------------------------- serialization
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the whole state: the standard fields plus piles, lots, checks, register, jail."""
        d = super().to_dict()
        d.update(
            piles=[list(p) for p in self.piles],
            lots=list(self.lots),
            checks=[list(c) for c in self.checks],
            register=list(self.register),
            jail=list(self.jail),
        )
        return d

    @classmethod
    def from_dict(cls, data: Any, *, hand_made: bool = False) -> OriginalState:
        """Rebuild and validate (:class:`OriginalStateReader`); ``hand_made`` as for
        :meth:`GameState.from_dict`.
        """
        reader = OriginalStateReader(data)
        extra = reader.read_original()
        fields = StateReader(reader.standard_view(extra), standard_money=False).read()
        if not hand_made:
            totals = [t[5] for t in data["tallies"]]
            check_original_money(fields.rules, fields.hands, extra["register"], totals, fields.round)
        state = cls.__new__(cls)
        state._install(fields)
        # The standard reader saw proxies for these; install the real ones.
        state.lot, state.draw_pile = -1, []
        state.last_actions = list(data["last_actions"])
        state.tallies = [list(t) for t in data["tallies"]]
        state.piles, state.lots = extra["piles"], extra["lots"]
        state.checks, state.register, state.jail = extra["checks"], extra["register"], extra["jail"]
        state.money = [sum(c) for c in state.checks]
        state._init_thieves()
        return state

    # --------------------------------------------------------------------- text
    def table_text(self) -> str:
        """Public summary of the Auction House: the two lots and piles."""
        lots = ", ".join("closed" if lot < 0 else card_text(lot, self.deck) for lot in self.lots)
        piles = "/".join(str(len(p)) for p in self.piles)
        return f"lots {lots}; piles {piles}"

    def player_text(self, player: int) -> str:
        """Public money-like summary of a player: its checks and free thieves."""
        checks = ",".join(str(v) for v in self.checks[player])
        free = ",".join(str(t) for t in self.free_thieves(player))
        return f"checks [{checks}] thieves [{free}]"

    def to_text(self) -> str:
        """Stable, readable multi-line form of the full state (hidden cards included)."""
        lines = super().to_text().splitlines()
        lines[1] = self.table_text() + f"; register {sorted(self.register)}; jail {self.jail}"
        for p in range(self.num_players):
            line = lines[2 + p]
            cut = line.index(", money ")
            rest = line[line.index(";", cut) :]
            loc = self.locations[p]
            where = f" at the {LOCATION_NAMES[loc]}" if loc >= 0 else ""
            lines[2 + p] = (
                line[:cut] + ", " + self.player_text(p) + (where if where not in rest else "") + rest
            )
        return "\n".join(lines)


class OriginalStateReader(StateReader):
    """Checks the original ruleset's fields of a state dict (the standard ones go to :class:`StateReader`).

    Invariants: ``piles`` and ``lots`` hold two entries; a lot is -1 only once its
    pile is empty (O-1, O-5); every antique is in exactly one place (piles, lots,
    hands); every check value of the rules is in exactly one hand or in the register
    (O-2, O-5); ``jail`` holds at most one thief per cell (``num_players`` cells),
    each a thief of this game, none twice (O-7); nobody is at a closed Auction House.
    """

    def read_original(self) -> dict[str, Any]:
        rules_data = self.get("rules")
        try:
            rules = RulesConfig.from_dict(rules_data)
        except (ValueError, TypeError) as exc:
            raise StateError(f"state field 'rules' is invalid: {exc}") from exc
        n = self.get("num_players")
        if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 6:
            raise StateError(f"state field 'num_players' must be an int in [2, 6], got {n!r}")
        from hoity_env.engine.cards import build_deck

        deck = build_deck(rules, n)
        last = deck.size - 1
        piles_raw = self.get("piles")
        if not isinstance(piles_raw, list) or len(piles_raw) != NUM_LOTS:
            raise StateError(f"state field 'piles' must be a list of {NUM_LOTS} lists of card ids")
        piles = [self._cards(p, f"piles[{i}]", last) for i, p in enumerate(piles_raw)]
        lots = self.int_list("lots", NUM_LOTS, -1, last)
        for i in range(NUM_LOTS):
            if lots[i] < 0 and piles[i]:
                raise StateError(f"state field 'lots[{i}]' is -1 but pile {i} is not empty (O-5)")
        values = sorted(v for seat in rules.checks[:n] for v in seat)
        raw_checks = self.get("checks")
        if not isinstance(raw_checks, list) or len(raw_checks) != n:
            raise StateError(f"state field 'checks' must be a list of {n} lists of check values")
        checks = []
        for p, held in enumerate(raw_checks):
            checks.append(
                sorted(self.check_int_list(held, f"checks[{p}]", _length(held), 1, rules.max_check))
            )
        register = sorted(
            self.check_int_list(
                self.get("register"), "register", _length(self.get("register")), 1, rules.max_check
            )
        )
        placed = sorted([v for c in checks for v in c] + register)
        if placed != values:
            raise StateError(
                f"state fields 'checks' and 'register' must hold every check of the game exactly once "
                f"({values}), got {placed}"
            )
        thieves = {t for pair in rules.thieves_of(n) for t in pair}
        jail = self.check_int_list(self.get("jail"), "jail", _length(self.get("jail")), 1, max(thieves))
        if len(jail) > n or len(set(jail)) != len(jail) or not set(jail) <= thieves:
            raise StateError(
                f"state field 'jail' must hold at most {n} distinct thieves of {sorted(thieves)}, got {jail}"
            )
        money = self.int_list("money", n, 0, sum(values))
        if money != [sum(c) for c in checks]:
            raise StateError("state field 'money' must be each player's total check value (original ruleset)")
        return {
            "piles": piles,
            "lots": lots,
            "checks": checks,
            "register": register,
            "jail": jail,
            "rules": rules,
        }

    def standard_view(self, extra: dict[str, Any]) -> dict[str, Any]:
        """The dict as the standard reader should check it: piles and lots in the draw pile's place,
        money 0, last actions as the standard index of the same location and role.
        """
        data = dict(self.data)
        for key in ORIGINAL_KEYS:
            data.pop(key, None)
        if data.get("lot") != -1 or data.get("draw_pile") != []:
            raise StateError(
                "state fields 'lot'/'draw_pile' must be -1/[] in the original ruleset (see 'lots', 'piles')"
            )
        rules: RulesConfig = extra["rules"]
        n = len(extra["checks"])
        lots = [c for c in extra["lots"] if c >= 0]
        pile = [c for p in extra["piles"] for c in p] + lots
        data["lot"] = pile.pop() if lots else -1
        data["draw_pile"] = pile
        data["money"] = [0] * n
        last_locations = self.int_list("last_locations", n, -1, 1)
        last_actions = self.int_list("last_actions", n, -1, O_CHECK0 + NUM_LOTS * rules.max_check - 1)
        proxies = []
        for p, (where, action) in enumerate(zip(last_locations, last_actions, strict=True)):
            if where == AUCTION and action >= O_AUCTION_THIEF:
                proxies.append(BID0)
            elif where == CASTLE and O_EXHIBIT <= action < O_AUCTION_THIEF:
                proxies.append(_CASTLE_PROXY[action])
            elif where == -1 and action == -1:
                proxies.append(-1)
            else:
                raise StateError(
                    f"state field 'last_actions[{p}]' ({action}) does not fit last location {where} "
                    f"of player {p}"
                )
        data["last_actions"] = proxies
        raw = self.get("tallies")
        if not isinstance(raw, list) or len(raw) != n:
            raise StateError(f"state field 'tallies' must be a list of {n} lists")
        tallies = []
        for p, row in enumerate(raw):
            if (
                not isinstance(row, list)
                or len(row) != len(TALLY_FIELDS)
                or any(isinstance(v, bool) or not isinstance(v, int) for v in row)
            ):  # checked before the arithmetic below (a str in row[0] was a TypeError)
                raise StateError(f"state field 'tallies[{p}]' must be a list of {len(TALLY_FIELDS)} ints")
            total = row[5]
            if (
                not isinstance(total, int)
                or isinstance(total, bool)
                or not 0 <= total <= rules.max_check * max(row[0], 0)
            ):
                raise StateError(
                    f"state field 'tallies[{p}]': check total {total!r} exceeds the largest check per visit"
                )
            tallies.append([*row[:5], 0])
        data["tallies"] = tallies
        return data


ORIGINAL_KEYS = ("piles", "lots", "checks", "register", "jail")
"""The original ruleset's own state keys (the standard reader checks the rest, unknown ones included)."""

_CASTLE_PROXY = {O_EXHIBIT: EXHIBIT, O_THIEF_LOW: THIEF, O_THIEF_HIGH: THIEF, O_DETECTIVE: DETECTIVE}


def _length(value: Any) -> int:
    return len(value) if isinstance(value, list) else -1


STATE_CLASSES["original"] = OriginalState
