"""What an agent reads: the table it plays, and readers of its seat-relative observation vector.

An agent is *told* its table (:class:`Table`; ``standard``/4 where a caller names none), and an observation
of another length is refused with one :class:`AgentInputError`, never read as another table's.
:class:`BatchObservationView` decodes a ``(B, D)`` batch of standard observations (layout:
:mod:`hoity_env.engine.standard.observation`) and :class:`ObservationView` is the same decoder at
``B = 1``, so the one-game reader cannot drift from the batched one.  See docs/agents.md.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

import numpy as np

from hoity_env.engine.config import RulesConfig, resolve_rules, validate_num_players
from hoity_env.engine.errors import AgentInputError
from hoity_env.engine.standard.observation import G_DIM, G_SL, O_DIM, O_SL, P_DIM, P_SL
from hoity_env.environment.padding import unpadded_dim

__all__ = [
    "AgentInputError",
    "BatchObservationView",
    "ObservationView",
    "SeatFields",
    "Table",
]

_RATES = slice(P_SL["rate_auction"].start, P_SL["rate_detective"].stop)


@dataclass(frozen=True)
class Table:
    """The game an agent is built for: its rules and player count (its observations' length follows).

    Built once by :meth:`of` where an agent is made; every agent keeps its own, so
    nothing works the table out from the length of an observation.
    """

    rules: RulesConfig
    num_players: int

    @classmethod
    def of(cls, rules: str | RulesConfig | None = None, num_players: int | None = None) -> Table:
        """The table of these rules and players, checked; ``None`` is the package's default
        (``standard`` rules, 4 players, as the environment's)."""
        return cls(
            resolve_rules("standard" if rules is None else rules),
            validate_num_players(4 if num_players is None else num_players),
        )

    @property
    def ruleset(self) -> str:
        """The name of the engine's ruleset that plays these rules (what per-ruleset parts are keyed by)."""
        return self.rules.ruleset

    @functools.cached_property
    def obs_dim(self) -> int:
        """The length of this table's observations (worked out once: every batch is checked)."""
        return unpadded_dim(self.ruleset, self.num_players)

    def __str__(self) -> str:
        return f"{self.num_players} players, {self.rules.name} rules"

    def check_width(self, width: int, who: str) -> None:
        """Refuse observations of ``width`` values unless they are this table's (one clear error)."""
        if width != self.obs_dim:
            raise AgentInputError(
                f"{who} plays {self} (observations of length {self.obs_dim}), "
                f"got observations of length {width}"
            )


class SeatFields(ABC):
    """The fields both rulesets lay out alike, decoded once for both batch views.

    A view says where its fields are (:meth:`glob`, :meth:`players`); the phase,
    the track positions and the revealed locations are read the same way from the
    standard observation (:class:`BatchObservationView`) and the original one
    (:class:`~hoity_env.agents.bots.styles_original.OriginalView`).
    """

    __slots__ = ()

    @abstractmethod
    def glob(self, name: str) -> np.ndarray:
        """Global field ``name``: ``(B, width)``."""

    @abstractmethod
    def players(self, name: str) -> np.ndarray:
        """Field ``name`` of every player, observer first: ``(B, n, width)``."""

    @property
    def action_step(self) -> np.ndarray:
        """``(B,)`` bool: True in the action step (bid or role), False in the location step."""
        out: np.ndarray = self.glob("phase")[:, 1] > 0.5
        return out

    @property
    def positions(self) -> np.ndarray:
        """``(B, n)``: track positions / finish, observer first."""
        out: np.ndarray = self.players("position")[:, :, 0]
        return out

    @property
    def locations(self) -> np.ndarray:
        """``(B, n)`` int64: locations revealed this round (action step): 0 auction, 1 castle, -1 unknown."""
        onehot = self.players("location")
        out: np.ndarray = np.where(onehot.max(axis=2) >= 0.5, onehot.argmax(axis=2), -1)
        return out


class _Column:
    """A one-wide field of the standard observation as a ``(B,)`` array; a ``flag`` reads as bool (> 0.5).

    ``part`` names the view's reader of the field's block (``glob`` or ``own``).
    """

    def __init__(self, part: str, field: str, *, flag: bool = False) -> None:
        self.part, self.field, self.flag = part, field, flag
        self.__doc__ = f"``(B,)``{' bool' if flag else ''}: the observation's ``{field}`` field."

    @overload
    def __get__(self, view: None, owner: type | None = None) -> _Column: ...
    @overload
    def __get__(self, view: BatchObservationView, owner: type | None = None) -> np.ndarray: ...
    def __get__(self, view: BatchObservationView | None, owner: type | None = None) -> _Column | np.ndarray:
        if view is None:
            return self
        column: np.ndarray = getattr(view, self.part)(self.field)[:, 0]
        return column > 0.5 if self.flag else column


class BatchObservationView(SeatFields):
    """Named, read-only access to a ``(B, D)`` batch of standard observations of ``num_players``
    players; every field has a leading ``B`` axis.

    ``k`` in the player fields counts seats after the observer: 0 is the observer,
    1 the next seat, and so on.  Values stay normalized as in the observation.
    """

    __slots__ = ("n", "obs")

    def __init__(self, observations: np.ndarray, num_players: int = 4) -> None:
        obs = np.asarray(observations, dtype=np.float32)
        if obs.ndim != 2:
            raise AgentInputError(f"a batch of observations must be 2-D (B, D), got shape {obs.shape}")
        Table.of("standard", num_players).check_width(int(obs.shape[-1]), "the standard observation view")
        self.obs, self.n = obs, num_players

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    def take(self, rows: np.ndarray) -> BatchObservationView:
        """The view of some rows only (an index array), e.g. the rows in one phase."""
        out = BatchObservationView.__new__(BatchObservationView)
        out.obs, out.n = self.obs[rows], self.n
        return out

    def glob(self, name: str) -> np.ndarray:
        """Global field ``name``: ``(B, width)``."""
        return self.obs[:, G_SL[name]]

    def own(self, name: str) -> np.ndarray:
        """Private field ``name``: ``(B, width)``."""
        s = O_SL[name]
        return self.obs[:, G_DIM + s.start : G_DIM + s.stop]

    def players(self, name: str) -> np.ndarray:
        """Field ``name`` for every player, observer first: shape ``(B, n, width)``."""
        return self.obs[:, G_DIM + O_DIM :].reshape(-1, self.n, P_DIM)[:, :, P_SL[name]]

    # global
    round_fraction = _Column("glob", "round")
    lot_present = _Column("glob", "lot_present", flag=True)
    lot_age = _Column("glob", "lot_age")
    deck_fraction = _Column("glob", "deck")

    @property
    def lot_series(self) -> np.ndarray:
        """``(B,)`` int64: 0-based series of the lot, -1 without one."""
        onehot = self.glob("lot_series")
        out: np.ndarray = np.where(onehot.max(axis=1) > 0.5, onehot.argmax(axis=1), -1)
        return out

    # own (private)
    best_size = _Column("own", "best_size")
    best_age = _Column("own", "best_age")
    can_exhibit = _Column("own", "can_exhibit", flag=True)

    @property
    def hand(self) -> np.ndarray:
        """``(B, 6)``: own cards per series, as fractions of the series' copies."""
        return self.own("hand")

    # public, per player
    @property
    def money(self) -> np.ndarray:
        """``(B, n)``: money / starting money, observer first."""
        return self.players("money")[:, :, 0]

    def rates(self) -> np.ndarray:
        """``(B, n, 5)``: shares of past rounds at auction, castle, exhibit, thief, detective."""
        return self.obs[:, G_DIM + O_DIM :].reshape(-1, self.n, P_DIM)[:, :, _RATES]


_T = TypeVar("_T")


class _RowOf(Generic[_T]):
    """An attribute of :class:`ObservationView`: row 0 of the batch view's attribute of the same name.

    One line per field instead of a property each, so the one-row reader is the
    batched reader by construction; ``convert`` makes the scalar (``bool``,
    ``int``, ``float``) or keeps the row (``np.asarray``).
    """

    def __init__(self, convert: Callable[[Any], _T], doc: str | None = None) -> None:
        self.convert = convert
        self.__doc__ = doc
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, view: None, owner: type | None = None) -> _RowOf[_T]: ...
    @overload
    def __get__(self, view: ObservationView, owner: type | None = None) -> _T: ...
    def __get__(self, view: ObservationView | None, owner: type | None = None) -> _RowOf[_T] | _T:
        if view is None:
            return self
        return self.convert(getattr(view.batch, self.name)[0])


class ObservationView:
    """One standard observation vector of ``num_players`` players read through
    :class:`BatchObservationView` at ``B = 1``; scalars out."""

    __slots__ = ("batch", "n", "obs")

    def __init__(self, observation: np.ndarray, num_players: int = 4) -> None:
        obs = np.asarray(observation, dtype=np.float32)
        if obs.ndim != 1:
            raise AgentInputError(f"one observation must be 1-D, got shape {obs.shape}")
        self.batch = BatchObservationView(obs[None, :], num_players)
        self.obs, self.n = obs, self.batch.n

    def player(self, k: int, name: str) -> np.ndarray:
        """Field ``name`` of the player ``k`` seats after the observer."""
        out: np.ndarray = _first(self.batch.players(name))[k]
        return out

    def players(self, name: str) -> np.ndarray:
        """Field ``name`` for every player, observer first: shape ``(n, width)``."""
        return _first(self.batch.players(name))

    action_step = _RowOf(bool, "True in the action step (bid or role), False in the location step.")
    round_fraction = _RowOf(float)
    lot_present = _RowOf(bool)
    lot_series = _RowOf(int, "0-based series of the lot, -1 without one.")
    lot_age = _RowOf(float)
    deck_fraction = _RowOf(float)
    hand = _RowOf(np.asarray, "Own cards per series, as fractions of the series' copies.")
    best_size = _RowOf(float)
    best_age = _RowOf(float)
    can_exhibit = _RowOf(bool)
    positions = _RowOf(np.asarray, "Track positions / finish, observer first.")
    money = _RowOf(np.asarray, "Money / starting money, observer first.")
    locations = _RowOf(
        np.asarray, "Locations revealed this round (action step): 0 auction, 1 castle, -1 unknown."
    )

    def rates(self) -> np.ndarray:
        """Shares (observer first) of past rounds at auction, castle, exhibit, thief, detective."""
        return _first(self.batch.rates())


def _first(batch: np.ndarray) -> np.ndarray:
    """Row 0 of a batch of one."""
    out: np.ndarray = batch[0]
    return out
