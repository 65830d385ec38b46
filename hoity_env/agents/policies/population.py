"""``population:PATH``: a mixture over saved agents, one member drawn per game.

A league (or PSRO) ends with a population and a meta-strategy over it: weights
saying how often each member should be played.  :class:`PopulationAgent` makes
that mixture an agent like any other, so it can be evaluated, exploited and
played against: at the start of every game it draws one member with probability
proportional to its weight, from its own generator, and that member plays the
whole game.  (A mixture drawn per decision would be a different, weaker
strategy; a draw per batch would tie every game of a batch together.)

The members and their weights are a manifest, ``population.json``
(:mod:`hoity_env.agents.policies.manifest`: the format, its checks, and why a member's file must
lie in the manifest's folder unless the user allows otherwise).

Named populations ship in the package beside the named agents' weights
(``hoity_env/agents/models/*.json``, :data:`NAMED_POPULATIONS`), one manifest per table
they are registered at (:mod:`hoity_env.agents.policies.registry`), and are played by
name: ``champion-mix`` is ``champion``, ``champion-v1`` and ``champion-v3`` with equal
weights, the least exploitable agent we have measured (docs/league.md, the ladder).  It
samples its members' policies; there is no ``-greedy`` form (a greedy mixture would
still be three predictable policies).  :func:`hoity_env.agents.make` reads the manifest,
builds every member for the population's table (so named members resolve to that table's
files) and hands them, built, to :class:`PopulationAgent`.

Seeds: ``reset(seed)`` reseeds the agent's generator, draws the game's member and
then reseeds every member from the same generator, so the same seed gives the same
member and the same play.  Loops that batch the rows of many games use the
optional game hooks of :mod:`hoity_env.agents.batch` (:meth:`start_games`,
:meth:`act_games`); ``start_games`` with per-game seeds draws exactly the member
``reset`` would for each seed.  Plain ``act_batch`` plays every row as the game
begun by the last ``reset``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.batch import act_batch, check_batch
from hoity_env.agents.policies.manifest import (
    NAMED_POPULATIONS,
    PATH_PREFIXES,
    PATHS_VARIABLE,
    POPULATION_FORMAT,
    POPULATION_PREFIX,
    Member,
    any_paths_allowed,
    check_inside,
    check_member,
    named_population,
    normalised,
    read_population,
    resolve_spec,
    write_population,
)
from hoity_env.engine.errors import ConfigError, StateError

__all__ = [  # the manifest's names too: they have always been imported from here
    "NAMED_POPULATIONS",
    "PATHS_VARIABLE",
    "PATH_PREFIXES",
    "POPULATION_FORMAT",
    "POPULATION_PREFIX",
    "Member",
    "PopulationAgent",
    "check_member",
    "member_specs",
    "named_population",
    "read_population",
    "resolve_spec",
    "write_population",
]


def member_specs(path: Path, members: Sequence[Member], any_paths: bool | None = None) -> tuple[str, ...]:
    """Each member's spec, a file in it resolved against the manifest's folder (``path``'s); a file
    outside that folder is refused before anything is loaded unless ``any_paths`` allows it (``None``:
    as :data:`PATHS_VARIABLE` says)."""
    if not (any_paths_allowed() if any_paths is None else any_paths):
        for i, m in enumerate(members):
            check_inside(m.spec, i, path)
    return tuple(resolve_spec(m.spec, path.parent) for m in members)


class PopulationAgent:
    """Plays one member of a population per game, drawn by weight (see the module docstring).

    ``members`` are the manifest's at ``path`` (:func:`read_population`) and ``agents`` the agent
    each one plays, already built for the game's table (``make("population:PATH", ...)`` builds
    them).  ``name`` is the agent's name in reports (default ``population:PATH``; a named
    population's is its name).
    """

    def __init__(
        self,
        path: str | Path,
        members: Sequence[Member],
        agents: Sequence[Any],
        *,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.name = name or f"{POPULATION_PREFIX}{self.path}"
        if not members or len(members) != len(agents):
            raise ConfigError(f"{self.name}: {len(members)} members need as many agents, got {len(agents)}")
        self.members = tuple(members)
        self.specs = tuple(resolve_spec(m.spec, self.path.parent) for m in self.members)
        self.weights = normalised([m.weight for m in self.members])
        """Each member's probability of playing a game."""
        self._cdf = np.cumsum(self.weights)
        self.agents = list(agents)
        self._of_game = np.full(0, -1, dtype=np.int64)
        """Member index per game label of :meth:`start_games` (-1: never started)."""
        self.rng = np.random.default_rng(seed)
        self.current = 0
        """The member playing the game begun by the last :meth:`reset`."""
        self.reset()

    def _member(self, u: np.ndarray) -> np.ndarray:
        """Member indices for uniforms ``u`` in [0, 1) (inverse CDF of the weights)."""
        out: np.ndarray = np.minimum(np.searchsorted(self._cdf, u, side="right"), len(self.agents) - 1)
        return out

    def reset(self, seed: int | None = None) -> None:
        """Start a game: reseed (unless ``None``), draw its member, reseed every member from the generator."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.current = int(self._member(self.rng.random(1))[0])
        for agent in self.agents:
            agent.reset(int(self.rng.integers(2**62)))

    @property
    def member(self) -> Member:
        """The member playing the current game (:meth:`reset`'s)."""
        return self.members[self.current]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The current game's member decides."""
        return int(self.agents[self.current].act(observation, action_mask))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Every row is the current game's (one member decides them all); batches of many games
        label their rows with :meth:`act_games`."""
        return act_batch(self.agents[self.current], observations, action_masks)

    # ------------------------------------------------------- the game hooks
    def start_games(self, games: np.ndarray, seeds: Sequence[int] | None = None) -> None:
        """New games begin under the labels ``games`` (ints >= 0; one label per seat the agent plays).

        Each draws its member: from ``seeds[i]`` exactly as ``reset(seeds[i])`` would, or,
        without seeds, from the agent's own generator in label order.  The members keep
        their generators (their rows of many games are drawn as one batch).
        """
        labels = np.asarray(games, dtype=np.int64).reshape(-1)
        if labels.size and labels.min() < 0:
            raise ConfigError(f"game labels must be >= 0, got {labels.min()}")
        if seeds is None:
            u = self.rng.random(labels.size)
        else:
            if len(seeds) != labels.size:
                raise ConfigError(f"{labels.size} games need {labels.size} seeds, got {len(seeds)}")
            u = np.array([np.random.default_rng(int(s)).random() for s in seeds])
        if labels.size and labels.max() >= self._of_game.size:
            grown = np.full(max(int(labels.max()) + 1, 2 * self._of_game.size), -1, dtype=np.int64)
            grown[: self._of_game.size] = self._of_game
            self._of_game = grown
        self._of_game[labels] = self._member(u)

    def members_of(self, games: np.ndarray) -> np.ndarray:
        """The member index playing each game label (a label never started raises :class:`StateError`)."""
        labels = np.asarray(games, dtype=np.int64)
        if labels.size and (labels.min() < 0 or labels.max() >= self._of_game.size):
            raise StateError(f"{self.name}: rows of games never started (call start_games first)")
        members: np.ndarray = self._of_game[labels]
        if labels.size and members.min() < 0:
            raise StateError(f"{self.name}: rows of games never started (call start_games first)")
        return members

    def act_games(
        self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray, *, checked: bool = False
    ) -> np.ndarray:
        """``(B,)`` actions for rows labelled by game: each member decides its games' rows in one call."""
        if not checked:
            observations, action_masks = check_batch(observations, action_masks)
        members = self.members_of(games)
        out = np.zeros(members.shape[0], dtype=np.int64)
        for m in np.unique(members):
            rows = np.flatnonzero(members == m)
            out[rows] = act_batch(self.agents[m], observations[rows], action_masks[rows], checked=True)
        return out
