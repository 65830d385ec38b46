"""The agent protocol, and a reader for the observation vector that scripted agents share.

Every player in hoity_env (scripted bot, saved model, human) is an :class:`Agent`:
``act(observation, action_mask) -> int`` on the arrays the environment returns,
and ``reset(seed)`` at the start of each game.  Scripted agents decide from the
observation only, read through :class:`ObservationView`, so they can never peek
at hidden state.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from hoity_env.engine.actions import AUCTION, BID0, CASTLE, DETECTIVE, EXHIBIT, THIEF
from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS
from hoity_env.engine.errors import ConfigError
from hoity_env.environment.observation import G_DIM, G_SL, O_DIM, O_SL, P_DIM, P_SL

__all__ = [
    "AUCTION",
    "BID0",
    "CASTLE",
    "DETECTIVE",
    "EXHIBIT",
    "THIEF",
    "Agent",
    "ObservationView",
    "SeededAgent",
    "legal_actions",
]


@runtime_checkable
class Agent(Protocol):
    """Anything that plays a seat: scripted bots and saved policies alike."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Choose a legal action index for this observation (``action_mask[a] == 1``)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` reseeds the agent's own generator."""
        ...


class SeededAgent:
    """Base of the scripted agents: one generator of its own, reseeded by ``reset(seed)``."""

    name = "seeded"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed (a ``None`` seed keeps the current stream)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """Indices where the mask is 1 (never empty, RULES C-6)."""
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise ValueError("the action mask is all zero; hoity_env never sends one (RULES C-6)")
    return legal


def num_players_of(observation: np.ndarray) -> int:
    """Player count implied by the length of a standard observation vector."""
    size = int(np.asarray(observation).shape[-1])
    n, rest = divmod(size - G_DIM - O_DIM, P_DIM)
    if rest or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ConfigError(f"an observation of length {size} is not a standard hoity_env observation")
    return n


class ObservationView:
    """Named, read-only access to one seat-relative observation vector (see the README layout).

    ``k`` in the player methods counts seats after the observer: 0 is the observer,
    1 the next seat, and so on.  Values stay normalized as in the observation.
    """

    __slots__ = ("n", "obs")

    def __init__(self, observation: np.ndarray) -> None:
        self.obs = np.asarray(observation, dtype=np.float32)
        self.n = num_players_of(self.obs)

    def _g(self, name: str) -> np.ndarray:
        return self.obs[G_SL[name]]

    def _o(self, name: str) -> np.ndarray:
        s = O_SL[name]
        return self.obs[G_DIM + s.start : G_DIM + s.stop]

    def player(self, k: int, name: str) -> np.ndarray:
        """Field ``name`` of the player ``k`` seats after the observer."""
        base = G_DIM + O_DIM + k * P_DIM
        s = P_SL[name]
        return self.obs[base + s.start : base + s.stop]

    def players(self, name: str) -> np.ndarray:
        """Field ``name`` for every player, observer first: shape ``(n, width)``."""
        s = P_SL[name]
        block = self.obs[G_DIM + O_DIM :].reshape(self.n, P_DIM)
        return block[:, s]

    # global
    @property
    def action_step(self) -> bool:
        """True in the action step (bid or role), False in the location step."""
        return bool(self._g("phase")[1] > 0.5)

    @property
    def round_fraction(self) -> float:
        return float(self._g("round")[0])

    @property
    def lot_present(self) -> bool:
        return bool(self._g("lot_present")[0] > 0.5)

    @property
    def lot_series(self) -> int:
        """0-based series of the lot, -1 without one."""
        onehot = self._g("lot_series")
        return int(np.argmax(onehot)) if onehot.max() > 0.5 else -1

    @property
    def lot_age(self) -> float:
        return float(self._g("lot_age")[0])

    @property
    def deck_fraction(self) -> float:
        return float(self._g("deck")[0])

    # own (private)
    @property
    def hand(self) -> np.ndarray:
        """Own cards per series, as fractions of the series' copies."""
        return self._o("hand")

    @property
    def best_size(self) -> float:
        return float(self._o("best_size")[0])

    @property
    def best_age(self) -> float:
        return float(self._o("best_age")[0])

    @property
    def can_exhibit(self) -> bool:
        return bool(self._o("can_exhibit")[0] > 0.5)

    # public, per player
    @property
    def positions(self) -> np.ndarray:
        """Track positions / finish, observer first."""
        return self.players("position")[:, 0]

    @property
    def money(self) -> np.ndarray:
        """Money / starting money, observer first."""
        return self.players("money")[:, 0]

    @property
    def locations(self) -> np.ndarray:
        """Locations revealed this round (action step): 0 auction, 1 castle, -1 unknown."""
        onehot = self.players("location")
        out: np.ndarray = np.argmax(onehot, axis=1)
        out[onehot.max(axis=1) < 0.5] = -1
        return out

    def rates(self) -> np.ndarray:
        """Shares (observer first) of past rounds at auction, castle, exhibit, thief, detective."""
        block = self.obs[G_DIM + O_DIM :].reshape(self.n, P_DIM)
        return block[:, P_SL["rate_auction"].start : P_SL["rate_detective"].stop]
