"""``population:PATH``: a mixture over saved agents, one member drawn per game, and its manifest.

A league (or PSRO) ends with a population and a meta-strategy over it.  :class:`PopulationAgent` makes that
mixture an agent like any other, evaluated, exploited and played against: at the start of every game it draws
one member by weight, from its own generator, and that member plays the whole game (a draw per decision would
be another, weaker strategy; a draw per batch would tie a batch's games together).  The manifest is
``population.json`` (:func:`read_population`, :func:`write_population`); a member's file must lie inside the
manifest's folder unless the user allows otherwise (:func:`member_specs`).  See docs/agents.md (Populations).
"""

from __future__ import annotations

import dataclasses
import json
import os
import unicodedata
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from hoity_env.agents.batch import act_batch, check_batch
from hoity_env.agents.bots import SCRIPTED
from hoity_env.agents.policies.named import NAMED_AGENTS
from hoity_env.agents.policies.registry import registry, resolve, retired
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError, FileFormatError, StateError
from hoity_env.files import JsonObject, read_json, write_atomically

__all__ = [
    "MAX_MEMBERS",
    "NAMED_POPULATIONS",
    "PATHS_VARIABLE",
    "PATH_PREFIXES",
    "POPULATION_FORMAT",
    "POPULATION_PREFIX",
    "Member",
    "PopulationAgent",
    "any_paths_allowed",
    "check_inside",
    "check_member",
    "member_specs",
    "named_population",
    "normalised",
    "read_population",
    "resolve_spec",
    "write_population",
]

POPULATION_FORMAT = "hoity-population/1"
"""The manifest's ``format`` tag."""
POPULATION_PREFIX = "population:"
NAMED_POPULATIONS = registry().names("population")
"""The populations shipped in the package (the registry's), each a manifest per table under
``hoity_env/agents/models/``; played by sampling, with no ``-greedy`` form (a greedy mixture would
still be predictable policies)."""
PATH_PREFIXES = ("ppo:", "ppo-sample:", "npz:", "rllib:")
"""Member spec forms that name a file (resolved against the manifest's folder)."""
PATHS_VARIABLE = "HOITY_POPULATION_PATHS"
"""The environment variable that lets members name files outside the manifest's folder (``any``)."""


@dataclasses.dataclass(frozen=True)
class Member:
    """One member of a population: an agent spec, its weight (> 0) and where it came from."""

    spec: str
    weight: float
    origin: str = ""


MAX_MEMBERS = 10_000
"""The most members a manifest may list."""
_MAX_BYTES = 4 << 20
_MAX_CHARS = 4096
"""The longest spec or origin."""


def _refuse(path: Path | None, field: str, problem: str) -> NoReturn:
    """A manifest file's :class:`FileFormatError`, or for members given in code (no ``path``) a
    :class:`ConfigError`; either names the field."""
    if path is None:
        raise ConfigError(f"{field} {problem}")
    raise FileFormatError(f"population {path}", problem, field)


def check_member(member: Any, index: int, path: Path | None = None) -> Member:
    """``member`` (a :class:`Member` or a manifest dict) checked; errors name ``members[index].FIELD``
    (and the manifest at ``path``, if it comes from one)."""
    field = f"members[{index}]"
    if isinstance(member, Member):
        member = dataclasses.asdict(member)
    if not isinstance(member, dict):
        _refuse(path, field, f"must be an object with spec and weight, got {member!r:.80}")
    unknown = set(member) - {"spec", "weight", "origin"}
    if unknown:
        _refuse(path, field, f"has unknown fields {sorted(unknown)}")
    spec, weight, origin = member.get("spec"), member.get("weight"), member.get("origin", "")
    if not isinstance(spec, str) or not spec.strip() or len(spec) > _MAX_CHARS:
        _refuse(path, f"{field}.spec", f"must be a non-empty agent spec, got {spec!r:.80}")
    control = next((c for c in spec if unicodedata.category(c) == "Cc"), None)
    if control is not None:  # a NUL would reach the file system as "embedded null byte"
        _refuse(path, f"{field}.spec", f"holds the control character {control!r}, which no agent spec has")
    if spec.startswith(POPULATION_PREFIX) or spec in NAMED_POPULATIONS:
        _refuse(
            path,
            f"{field}.spec",
            f"is {spec!r}: a population cannot contain a population (list its members instead)",
        )
    named_file = any(spec.startswith(p) and spec[len(p) :].strip() for p in PATH_PREFIXES)
    if not named_file and spec not in SCRIPTED and spec not in NAMED_AGENTS:
        _refuse(path, f"{field}.spec", retired(spec) or f"unknown agent spec {spec!r:.80}")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        _refuse(path, f"{field}.weight", f"must be a number > 0, got {weight!r:.80}")
    try:
        value = float(weight)
    except OverflowError:
        _refuse(
            path, f"{field}.weight", f"must be a number > 0 a float can hold, got {len(str(weight))} digits"
        )
    if not np.isfinite(value) or value <= 0:
        _refuse(path, f"{field}.weight", f"must be a number > 0, got {weight!r:.80}")
    if not isinstance(origin, str) or len(origin) > _MAX_CHARS:
        _refuse(
            path,
            f"{field}.origin",
            f"must be a string of at most {_MAX_CHARS} characters, got {origin!r:.80}",
        )
    return Member(spec, value, origin)


def read_population(path: str | Path) -> tuple[Member, ...]:
    """The members of the manifest at ``path`` as written (specs not yet resolved); checked.

    The file is untrusted (:mod:`hoity_env.files`): anything but a regular file of at most 4 MiB
    holding a manifest of the right ``format`` with 1 to :data:`MAX_MEMBERS` valid members is
    one :class:`FileFormatError` naming the file and the field.
    """
    path = Path(path)
    where = f"population {path}"
    manifest = JsonObject(read_json(path, where, max_bytes=_MAX_BYTES, max_depth=8), where)
    if manifest.get("format", None) != POPULATION_FORMAT:
        manifest.refuse("format", f"must be {POPULATION_FORMAT!r}, got {manifest.get('format', None)!r:.80}")
    members = manifest.array("members", max_items=MAX_MEMBERS)
    if not members:
        manifest.refuse("members", "must be a non-empty list of members")
    manifest.only("format", "members")
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


def any_paths_allowed(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether :data:`PATHS_VARIABLE` allows members outside their manifest's folder (``any``)."""
    value = environ.get(PATHS_VARIABLE, "inside")
    if value not in ("inside", "any"):
        raise ConfigError(f"{PATHS_VARIABLE} must be 'inside' (the default) or 'any', got {value!r}")
    return value == "any"


def check_inside(spec: str, index: int, path: Path) -> None:
    """Refuse a member file outside the manifest's folder (absolute, ``../``, a link pointing out)."""
    prefix = next((p for p in PATH_PREFIXES if spec.startswith(p)), None)
    if prefix is None:
        return
    named = Path(spec[len(prefix) :])
    folder = path.parent.resolve()
    try:
        inside = not named.is_absolute() and (folder / named).resolve().is_relative_to(folder)
    except (OSError, RuntimeError, ValueError):  # a loop of links; a NUL (check_member refuses it first)
        inside = False
    if not inside:
        raise ConfigError(
            f"population {path}: members[{index}].spec {spec!r} names a file outside the manifest's "
            f"folder {folder}; a member is loaded (a checkpoint is a pickle), so only files inside it are "
            f"taken unless you allow others: {PATHS_VARIABLE}=any"
        )


def normalised(weights: Sequence[float]) -> np.ndarray:
    """Positive finite weights as probabilities, without overflow: divided by the largest first.

    A weight too small beside the largest to be drawn at all (below one part in about 1e308)
    is refused rather than silently never played.
    """
    w = np.asarray(weights, dtype=np.float64)
    scaled = w / w.max()  # in (0, 1]: the sum is at most the number of members, never inf
    if not (scaled > 0).all():
        raise ConfigError(
            f"member weights {list(weights)} differ too much: the smallest would never be drawn"
        )
    out: np.ndarray = scaled / scaled.sum()
    return out


def member_specs(path: Path, members: Sequence[Member], any_paths: bool | None = None) -> tuple[str, ...]:
    """Each member's spec, a file in it resolved against the manifest's folder (``path``'s); a file
    outside that folder is refused before anything is loaded unless ``any_paths`` allows it (``None``:
    as :data:`PATHS_VARIABLE` says)."""
    if not (any_paths_allowed() if any_paths is None else any_paths):
        for i, m in enumerate(members):
            check_inside(m.spec, i, path)
    return tuple(resolve_spec(m.spec, path.parent) for m in members)


class PopulationAgent:
    """Plays one member of a population per game, drawn by weight.

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
