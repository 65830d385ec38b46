"""``BatchState``: B games of one rules configuration and player count, as a struct of arrays.

Every field of :class:`~hoity_env.engine.state.GameState` gets a leading batch axis.  Where a
card is lives in ``owner`` (a seat, or ``-1``: draw pile or lot) and ``public``; a hand is a set
(no rule reads hand order).  Per-series counts and best exhibitions are derived: the kernels
keep them up to date, :func:`refresh_derived` rebuilds them, conversions never carry them.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np

from hoity_env.engine.actions import Phase
from hoity_env.engine.batched.exhibitions import CardTable
from hoity_env.engine.batched.kernels import rebuild_derived
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import StateError
from hoity_env.engine.state import TALLY_FIELDS, GameState

NO_OWNER = -1
"""``owner`` of a card that is in no hand (draw pile or lot)."""


_COPIED_FIELDS = (
    "lot", "money", "positions", "start_player", "round", "locations", "last_locations",
    "last_actions", "tallies", "terminated", "truncated",
)  # fmt: skip


@dataclass
class BatchState:
    """Every field of B games as arrays (see the module docstring); shapes name B, n, N, S."""

    owner: np.ndarray
    """``[B, N]`` int8: seat holding each card, ``-1`` when it is in the draw pile or on display."""
    public: np.ndarray
    """``[B, N]`` bool: the card is publicly known to be in its owner's hand."""
    pile: np.ndarray
    """``[B, N]`` int16: the draw pile bottom first; entries ``≥ pile_len`` are unused (-1)."""
    pile_len: np.ndarray
    """``[B]`` int16: cards in the draw pile; the top card is ``pile[b, pile_len[b] - 1]``."""
    lot: np.ndarray
    """``[B]`` int16: the card on display, -1 when the Auction House is closed."""
    money: np.ndarray
    """``[B, n]`` int32."""
    positions: np.ndarray
    """``[B, n]`` int32 track positions."""
    start_player: np.ndarray
    """``[B]`` int8."""
    round: np.ndarray
    """``[B]`` int32 completed rounds."""
    phase: np.ndarray
    """``[B]`` int8 (:class:`~hoity_env.engine.actions.Phase`)."""
    locations: np.ndarray
    """``[B, n]`` int8 locations revealed this round (action step), else -1."""
    last_locations: np.ndarray
    """``[B, n]`` int8."""
    last_actions: np.ndarray
    """``[B, n]`` int16 flat action of last round's action step, -1 before."""
    tallies: np.ndarray
    """``[B, n, 6]`` int32 public counters (``TALLY_FIELDS``)."""
    terminated: np.ndarray
    """``[B]`` bool."""
    truncated: np.ndarray
    """``[B]`` bool."""
    winners: np.ndarray
    """``[B, n]`` bool."""
    rngs: list[np.random.Generator]
    """Each game's generator, as the one-game state keeps it."""
    # --- derived (never converted) ---
    counts: np.ndarray
    """``[B, n, S]`` int16 cards per series in each hand."""
    public_counts: np.ndarray
    """``[B, n, S]`` int16 publicly known cards per series."""
    best_count: np.ndarray
    """``[B, n]`` int16 cards in each player's best exhibition (0: none, C-3)."""
    best_oldest: np.ndarray
    """``[B, n]`` int32 year of its oldest card (meaningless where ``best_count`` is 0)."""
    best_lo: np.ndarray
    """``[B, n]`` int8 first series of the best exhibition."""
    best_hi: np.ndarray
    """``[B, n]`` int8 one past its last series."""

    @property
    def batch_size(self) -> int:
        """Number of games B."""
        return int(self.owner.shape[0])

    @property
    def done(self) -> np.ndarray:
        """``[B]`` bool: the game is over (decided or truncated)."""
        return self.terminated | self.truncated  # type: ignore[no-any-return]

    def nbytes_per_game(self) -> float:
        """Bytes of array state per game (derived fields included, generators excluded)."""
        total: int = sum(getattr(self, f.name).nbytes for f in fields(self) if f.name != "rngs")
        return total / max(self.batch_size, 1)

    def copy(self) -> BatchState:
        """Independent deep copy."""
        kw = {f.name: getattr(self, f.name) for f in fields(self)}
        out = {k: (copy.deepcopy(v) if k == "rngs" else v.copy()) for k, v in kw.items()}
        return type(self)(**out)

    def select(self, index: np.ndarray | Sequence[int], *, with_rngs: bool = True) -> BatchState:
        """A new batch of copies of the games ``index`` (``with_rngs=False``: without generators)."""
        idx = np.asarray(index, dtype=np.intp)
        kw: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "rngs":
                kw[f.name] = [copy.deepcopy(v[i]) for i in idx] if with_rngs else []
            else:
                kw[f.name] = v[idx].copy()
        return type(self)(**kw)

    def assign(self, index: np.ndarray | Sequence[int], other: BatchState) -> None:
        """Overwrite games ``index`` with the games of ``other`` (same length as ``index``)."""
        idx = np.asarray(index, dtype=np.intp)
        if len(idx) != other.batch_size:
            raise ValueError(f"assign: {len(idx)} indices for a batch of {other.batch_size} games")
        for f in fields(self):
            if f.name == "rngs":
                for i, g in zip(idx.tolist(), other.rngs, strict=True):
                    self.rngs[i] = g
            else:
                getattr(self, f.name)[idx] = getattr(other, f.name)

    # ------------------------------------------------------------ conversions
    def to_states(self, rules: RulesConfig, index: Sequence[int] | None = None) -> list[GameState]:
        """The games as one-game :class:`GameState` objects (hands sorted; generators copied)."""
        n = self.money.shape[1]
        which = range(self.batch_size) if index is None else index
        out = []
        for b in which:
            state = self._blank_state(rules, n, copy.deepcopy(self.rngs[b]))
            owner, public = self.owner[b], self.public[b]
            for p in range(n):
                for c in np.flatnonzero(owner == p).tolist():
                    state.give_card(p, c, public=bool(public[c]))
            state.draw_pile = self.pile[b, : self.pile_len[b]].tolist()
            state.lot = int(self.lot[b])
            state.money = self.money[b].tolist()
            state.positions = self.positions[b].tolist()
            state.start_player = int(self.start_player[b])
            state.round = int(self.round[b])
            state.phase = Phase(int(self.phase[b]))
            state.locations = self.locations[b].tolist()
            state.last_locations = self.last_locations[b].tolist()
            state.last_actions = self.last_actions[b].tolist()
            state.tallies = self.tallies[b].tolist()
            state.terminated = bool(self.terminated[b])
            state.truncated = bool(self.truncated[b])
            state.winners = np.flatnonzero(self.winners[b]).tolist()
            self._fill_state(state, b)
            out.append(state)
        return out

    def _blank_state(self, rules: RulesConfig, num_players: int, rng: np.random.Generator) -> GameState:
        """The one-game state :meth:`to_states` fills (a ruleset with fields of its own overrides it)."""
        return GameState(rules, num_players, rng)

    def _fill_state(self, state: GameState, b: int) -> None:
        """Hook: copy a ruleset's own fields of game ``b`` into ``state`` (none here)."""

    def _read_state(self, b: int, state: GameState) -> None:
        """Hook: copy a ruleset's own fields of ``state`` into game ``b`` (none here)."""

    _STATE_CLASS: ClassVar[type[GameState]] = GameState
    """The one-game state class :meth:`from_states` accepts."""

    @classmethod
    def from_states(cls, states: Sequence[GameState], table: CardTable) -> BatchState:
        """A batch holding copies of ``states`` (all of ``table``'s rules and player count)."""
        if not states:
            raise StateError("from_states needs at least one game")
        n = table.num_players
        for i, s in enumerate(states):
            if not isinstance(s, cls._STATE_CLASS):
                raise StateError(
                    f"game {i} is a {type(s).__name__}; this batch holds {cls._STATE_CLASS.__name__} games"
                )
            if s.num_players != n or s.rules != table.rules:
                raise StateError(
                    f"game {i} is for {s.num_players} players with rules {s.rules.name!r}; the batch is "
                    f"for {n} players with rules {table.rules.name!r} (one configuration per batch)"
                )
        out = cls.empty(len(states), n, table)
        for b, s in enumerate(states):
            for p, hand in enumerate(s.hands):
                out.owner[b, hand] = p
                out.public[b, sorted(s.public[p])] = True
            out.pile[b, : len(s.draw_pile)] = s.draw_pile
            out.pile_len[b] = len(s.draw_pile)
            for name in _COPIED_FIELDS:
                getattr(out, name)[b] = getattr(s, name)
            out.phase[b] = int(s.phase)
            out.winners[b, s.winners] = True
            out.rngs[b] = copy.deepcopy(s.rng)
            out._read_state(b, s)
        refresh_derived(out, table)
        return out

    @classmethod
    def empty(cls, batch_size: int, num_players: int, table: CardTable) -> BatchState:
        """A batch of ``batch_size`` blank games (every card in no hand); fill it, then refresh."""
        return cls(**cls._empty_fields(batch_size, num_players, table))

    @classmethod
    def _empty_fields(cls, batch_size: int, num_players: int, table: CardTable) -> dict[str, Any]:
        """The arrays of :meth:`empty` by field name (a subclass adds its own fields)."""
        b, n, size, s = batch_size, num_players, table.deck.size, table.deck.num_series
        money = table.rules.starting_money
        return dict(
            owner=np.full((b, size), NO_OWNER, dtype=np.int8),
            public=np.zeros((b, size), dtype=bool),
            pile=np.full((b, size), -1, dtype=np.int16),
            pile_len=np.zeros(b, dtype=np.int16),
            lot=np.full(b, -1, dtype=np.int16),
            money=np.full((b, n), money, dtype=np.int32),
            positions=np.zeros((b, n), dtype=np.int32),
            start_player=np.zeros(b, dtype=np.int8),
            round=np.zeros(b, dtype=np.int32),
            phase=np.zeros(b, dtype=np.int8),
            locations=np.full((b, n), -1, dtype=np.int8),
            last_locations=np.full((b, n), -1, dtype=np.int8),
            last_actions=np.full((b, n), -1, dtype=np.int16),
            tallies=np.zeros((b, n, len(TALLY_FIELDS)), dtype=np.int32),
            terminated=np.zeros(b, dtype=bool),
            truncated=np.zeros(b, dtype=bool),
            winners=np.zeros((b, n), dtype=bool),
            rngs=[np.random.Generator(np.random.PCG64(0)) for _ in range(b)],
            counts=np.zeros((b, n, s), dtype=np.int16),
            public_counts=np.zeros((b, n, s), dtype=np.int16),
            best_count=np.zeros((b, n), dtype=np.int16),
            best_oldest=np.zeros((b, n), dtype=np.int32),
            best_lo=np.zeros((b, n), dtype=np.int8),
            best_hi=np.zeros((b, n), dtype=np.int8),
        )


def refresh_derived(state: BatchState, table: CardTable, games: np.ndarray | None = None) -> None:
    """Rebuild counts and best exhibitions from ``owner``/``public`` (all games, or ``games``)."""
    s = state
    which = np.arange(s.batch_size) if games is None else games
    rebuild_derived(
        np.asarray(which, dtype=np.int64), s.owner, s.public, s.counts, s.public_counts, s.best_count,
        s.best_oldest, s.best_lo, s.best_hi, table.year, table.series, table.rules.min_exhibition,
    )  # fmt: skip


__all__ = ["NO_OWNER", "BatchState", "refresh_derived"]
