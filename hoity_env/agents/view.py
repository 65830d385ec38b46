"""Readers of the seat-relative observation vector: one decoder for a batch and for one row.

Scripted agents decide from the observation only (docs/design.md §3), so every
field they use is decoded here, from the layout in
:mod:`hoity_env.engine.standard.observation`.  :class:`BatchObservationView` reads a
``(B, D)`` batch (rows may come from different games and phases; one player
count per batch, since ``D`` depends on it) and returns arrays with a leading
batch axis; :class:`ObservationView` is the same decoder at ``B = 1`` returning
scalars, so the one-game reader cannot drift from the batched one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

import numpy as np

from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS
from hoity_env.engine.errors import HoityError
from hoity_env.engine.original.observation import original_obs_dim
from hoity_env.engine.standard.observation import G_DIM, G_SL, O_DIM, O_SL, P_DIM, P_SL

__all__ = [
    "AgentInputError",
    "BatchObservationView",
    "ObservationView",
    "SeatFields",
    "num_players_of",
    "ruleset_of",
]

_RATES = slice(P_SL["rate_auction"].start, P_SL["rate_detective"].stop)


class AgentInputError(HoityError):
    """Observations or masks handed to an agent are malformed (shape, dtype, values, empty mask)."""


_ORIGINAL_PLAYERS = {original_obs_dim(n): n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
"""Observation length → player count of the original ruleset (no length is also a standard one)."""


def _standard_players(size: int) -> int | None:
    n, rest = divmod(size - G_DIM - O_DIM, P_DIM)
    return n if not rest and MIN_PLAYERS <= n <= MAX_PLAYERS else None


def ruleset_of(observation: np.ndarray) -> str:
    """``"standard"`` or ``"original"``: the ruleset whose observations have this length (last axis).

    The two encoders' lengths never coincide for 2-6 players (a test checks it), so
    the length alone says which rules an agent is playing.
    """
    size = int(np.asarray(observation).shape[-1])
    if _standard_players(size) is not None:
        return "standard"
    if size in _ORIGINAL_PLAYERS:
        return "original"
    raise AgentInputError(f"an observation of length {size} is not a hoity_env observation")


def num_players_of(observation: np.ndarray) -> int:
    """Player count implied by the length of an observation vector (its last axis), either ruleset."""
    size = int(np.asarray(observation).shape[-1])
    n = _standard_players(size)
    if n is None:
        n = _ORIGINAL_PLAYERS.get(size)
    if n is None:
        raise AgentInputError(f"an observation of length {size} is not a hoity_env observation")
    return n


class SeatFields(ABC):
    """The fields both rulesets lay out alike, decoded once for both batch views.

    A view says where its fields are (:meth:`glob`, :meth:`players`); the phase,
    the track positions and the revealed locations are read the same way from the
    standard observation (:class:`BatchObservationView`) and the original one
    (:class:`~hoity_env.agents.bots.original_rows.OriginalView`).
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
    """Named, read-only access to a ``(B, D)`` batch of observations; every field has a leading ``B`` axis.

    ``k`` in the player fields counts seats after the observer: 0 is the observer,
    1 the next seat, and so on.  Values stay normalized as in the observation.
    """

    __slots__ = ("n", "obs")

    def __init__(self, observations: np.ndarray) -> None:
        obs = np.asarray(observations, dtype=np.float32)
        if obs.ndim != 2:
            raise AgentInputError(f"a batch of observations must be 2-D (B, D), got shape {obs.shape}")
        self.obs = obs
        n = _standard_players(int(obs.shape[-1]))
        if n is None:
            raise AgentInputError(
                f"an observation of length {obs.shape[-1]} is not a standard hoity_env observation"
            )
        self.n = n

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
    """One observation vector read through :class:`BatchObservationView` at ``B = 1``; scalars out."""

    __slots__ = ("batch", "n", "obs")

    def __init__(self, observation: np.ndarray) -> None:
        obs = np.asarray(observation, dtype=np.float32)
        if obs.ndim != 1:
            raise AgentInputError(f"one observation must be 1-D, got shape {obs.shape}")
        self.batch = BatchObservationView(obs[None, :])
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
