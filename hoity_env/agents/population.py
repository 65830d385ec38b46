"""``population:PATH``: a mixture over saved agents, one member drawn per game.

A league (or PSRO) ends with a population and a meta-strategy over it: weights
saying how often each member should be played.  :class:`PopulationAgent` makes
that mixture an agent like any other, so it can be evaluated, exploited and
played against: at the start of every game it draws one member with probability
proportional to its weight, from its own generator, and that member plays the
whole game.  (A mixture drawn per decision would be a different, weaker
strategy; a draw per batch would tie every game of a batch together.)

The manifest, ``population.json`` (:func:`read_population`, :func:`write_population`)::

    {"format": "hoity-population/1",
     "members": [{"spec": "ppo-sample:members/main_final.zip", "weight": 0.5,
                  "origin": "main agent, 3,000,000 steps"},
                 {"spec": "expert", "weight": 0.25, "origin": "zoo"}]}

Member specs are any :func:`hoity_env.agents.make` spec except another population
(no recursion); a relative path inside one (``ppo:``, ``ppo-sample:``, ``rllib:``)
is relative to the manifest's folder, so a saved league can be moved as a whole.
Weights must be positive; they are normalised.  ``origin`` is free text.

Named populations ship in the package beside the named agents' weights
(``hoity_env/agents/models/*.json``, :data:`NAMED_POPULATIONS`), one manifest per table
they are registered at (:mod:`hoity_env.agents.registry`), and are played by
name: ``champion-mix`` is ``champion``, ``champion-v1`` and ``champion-v3`` with equal
weights, the least exploitable agent we have measured (docs/league.md, the ladder).  It
samples its members' policies; there is no ``-greedy`` form (a greedy mixture would
still be three predictable policies).  Members are built for the population's table
(``num_players``, ``rules``), so named members resolve to that table's files.

Seeds: ``reset(seed)`` reseeds the agent's generator, draws the game's member and
then reseeds every member from the same generator, so the same seed gives the same
member and the same play.  Loops that batch the rows of many games use the
optional game hooks of :mod:`hoity_env.agents.batch` (:meth:`start_games`,
:meth:`act_games`); ``start_games`` with per-game seeds draws exactly the member
``reset`` would for each seed.  Plain ``act_batch`` plays every row as the game
begun by the last ``reset``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hoity_env.agents.batch import act_batch, check_batch
from hoity_env.agents.named import NAMED_AGENTS
from hoity_env.agents.registry import registry, resolve
from hoity_env.agents.zoo import SCRIPTED
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError, StateError
from hoity_env.files import write_atomically

__all__ = [
    "NAMED_POPULATIONS",
    "POPULATION_FORMAT",
    "POPULATION_PREFIX",
    "Member",
    "PopulationAgent",
    "named_population",
    "read_population",
    "write_population",
]

POPULATION_FORMAT = "hoity-population/1"
"""The manifest's ``format`` tag."""
POPULATION_PREFIX = "population:"
NAMED_POPULATIONS = registry().names("population")
"""The populations shipped in the package (the registry's), each a manifest per table under
``hoity_env/agents/models/``."""
PATH_PREFIXES = ("ppo:", "ppo-sample:", "rllib:")
"""Member spec forms that name a file (resolved against the manifest's folder)."""


@dataclasses.dataclass(frozen=True)
class Member:
    """One member of a population: an agent spec, its weight (> 0) and where it came from."""

    spec: str
    weight: float
    origin: str = ""


def _where(path: Path | None, field: str) -> str:
    return f"population {path}: {field}" if path is not None else field


def check_member(member: Any, index: int, path: Path | None = None) -> Member:
    """``member`` (a :class:`Member` or a manifest dict) checked; errors name ``members[index].FIELD``."""
    field = f"members[{index}]"
    if isinstance(member, Member):
        member = dataclasses.asdict(member)
    if not isinstance(member, dict):
        raise ConfigError(f"{_where(path, field)} must be an object with spec and weight, got {member!r}")
    unknown = set(member) - {"spec", "weight", "origin"}
    if unknown:
        raise ConfigError(f"{_where(path, field)} has unknown fields {sorted(unknown)}")
    spec, weight, origin = member.get("spec"), member.get("weight"), member.get("origin", "")
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"{_where(path, field + '.spec')} must be a non-empty agent spec, got {spec!r}")
    if spec.startswith(POPULATION_PREFIX) or spec in NAMED_POPULATIONS:
        raise ConfigError(
            f"{_where(path, field + '.spec')} is {spec!r}: a population cannot contain a population "
            "(list its members instead)"
        )
    named_file = any(spec.startswith(p) and spec[len(p) :].strip() for p in PATH_PREFIXES)
    if not named_file and spec not in SCRIPTED and spec not in NAMED_AGENTS:
        raise ConfigError(f"{_where(path, field + '.spec')}: unknown agent spec {spec!r}")
    if (
        isinstance(weight, bool)
        or not isinstance(weight, (int, float))
        or not np.isfinite(weight)
        or weight <= 0
    ):
        raise ConfigError(f"{_where(path, field + '.weight')} must be a number > 0, got {weight!r}")
    if not isinstance(origin, str):
        raise ConfigError(f"{_where(path, field + '.origin')} must be a string, got {origin!r}")
    return Member(spec, float(weight), origin)


def read_population(path: str | Path) -> tuple[Member, ...]:
    """The members of the manifest at ``path`` as written (specs not yet resolved); checked.

    A missing or unreadable file, a wrong ``format``, no members, a bad member: one
    :class:`ConfigError` naming the file and the field.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"population manifest not found: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"population {path}: not a JSON manifest ({exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"population {path}: the manifest must be a JSON object")
    if data.get("format") != POPULATION_FORMAT:
        raise ConfigError(
            f"population {path}: format must be {POPULATION_FORMAT!r}, got {data.get('format')!r}"
        )
    members = data.get("members")
    if not isinstance(members, list) or not members:
        raise ConfigError(f"population {path}: members must be a non-empty list, got {members!r}")
    return tuple(check_member(m, i, path) for i, m in enumerate(members))


def write_population(path: str | Path, members: Sequence[Member | dict[str, Any]]) -> Path:
    """Save a population manifest at ``path`` (atomically: never half a file); returns ``path``.

    ``members`` are :class:`Member` s or dicts with ``spec``, ``weight`` and optional
    ``origin``, checked as :func:`read_population` checks them, before anything is written
    (missing folders are made).
    Relative paths in member specs are read relative to ``path``'s folder.
    """
    if isinstance(members, (str, dict)) or not members:
        raise ConfigError("members must be a non-empty list of members")
    checked = [check_member(m, i) for i, m in enumerate(members)]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = ",\n".join(f"  {json.dumps(dataclasses.asdict(m))}" for m in checked)  # a member per line
    text = f'{{\n "format": {json.dumps(POPULATION_FORMAT)},\n "members": [\n{rows}\n ]\n}}\n'
    return write_atomically(path, text)


def named_population(
    name: str, rules: str | RulesConfig | None = None, num_players: int | None = None
) -> Path:
    """The shipped manifest of the named population ``name`` (one of :data:`NAMED_POPULATIONS`) for
    the table of ``rules`` and ``num_players`` (None: standard, 4); a table without one is refused."""
    if name not in NAMED_POPULATIONS:
        raise ConfigError(f"unknown named population {name!r}; choose one of {', '.join(NAMED_POPULATIONS)}")
    entry = resolve(name, rules, num_players)
    return Path(str(resources.files("hoity_env.agents") / "models" / entry.file))


def resolve_spec(spec: str, folder: Path) -> str:
    """``spec`` with a relative file path made relative to ``folder`` (the manifest's)."""
    for prefix in PATH_PREFIXES:
        if spec.startswith(prefix):
            target = Path(spec[len(prefix) :])
            return prefix + str(target if target.is_absolute() else folder / target)
    return spec


class Build(Protocol):
    """How members are built from their specs: :func:`hoity_env.agents.make`'s signature."""

    def __call__(
        self,
        spec: str,
        seed: int | None = None,
        *,
        num_players: int | None = None,
        rules: str | RulesConfig | None = None,
        num_actions: int | None = None,
    ) -> Any: ...


class PopulationAgent:
    """Plays one member of a population per game, drawn by weight (see the module docstring).

    ``make("population:PATH", ...)`` builds one; ``build`` is how members are built
    (``make`` itself, passed in: this module sits below it).  ``name`` is the agent's name in
    reports (default ``population:PATH``; a named population's is its name).
    """

    def __init__(
        self,
        path: str | Path,
        build: Build,
        *,
        seed: int | None = None,
        num_players: int | None = None,
        rules: str | RulesConfig | None = None,
        num_actions: int | None = None,
        name: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.name = name or f"{POPULATION_PREFIX}{self.path}"
        self.members = read_population(self.path)
        self.specs = tuple(resolve_spec(m.spec, self.path.parent) for m in self.members)
        weights = np.array([m.weight for m in self.members], dtype=np.float64)
        self.weights = weights / weights.sum()
        """Each member's probability of playing a game."""
        self._cdf = np.cumsum(self.weights)
        agents = []
        for i, spec in enumerate(self.specs):
            try:
                agents.append(build(spec, num_players=num_players, rules=rules, num_actions=num_actions))
            except ConfigError as exc:
                raise ConfigError(f"population {self.path}: members[{i}].spec {spec!r}: {exc}") from exc
        self.agents = agents
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
