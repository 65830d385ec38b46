"""Which shipped file plays a named agent at which table: ``hoity_env/agents/models/registry.json``.

A *table* is a rules preset and a player count (``standard``, 4).  A named agent (``champion``,
``champion-mix`` …) is registered at some of the ten tables, each pointing at one file under
``hoity_env/agents/models/``: numpy weights (``.npz``) for a policy, a population manifest (``.json``) for a
mixture.  :func:`resolve` finds a name's file for a game, and refuses a table the name has no file for, or
changed rules (a changed ``starting_money`` is another game), with one :class:`ConfigError` that lists the
tables the name plays.  See docs/agents.md (Named agents at each table: the format, and how to add a table).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from importlib import resources
from typing import Any

from hoity_env.engine.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS, RulesConfig
from hoity_env.engine.errors import ConfigError

__all__ = [
    "DEFAULT_TABLE",
    "REGISTRY_FORMAT",
    "RETIRED",
    "Entry",
    "Registry",
    "registry",
    "resolve",
    "retired",
    "table_of",
    "table_text",
]

REGISTRY_FORMAT = "hoity-agents/1"
KINDS = {".npz": "model", ".json": "population"}
"""A file's kind by its suffix."""
DEFAULT_TABLE = ("standard", 4)
"""The table of a caller that names none: the env's defaults."""

Table = tuple[str, int]

RETIRED: dict[str, tuple[str, str]] = {
    "champion-v1": ("docs/reference/retired/champion-v1.npz", "the first champion"),
    "champion-v3": ("docs/reference/retired/champion-v3.npz", "a longer league run"),
    "champion-v4": (
        "champion-standard.npz",
        "`champion` at every table but 4-player standard; standard rules",
    ),
    "champion-v4-s1": ("champion-standard-s1.npz", "seed 1 of champion v4; standard rules"),
    "champion-mix-v4": ("champion-mix-standard.json", "`champion-mix` at 3, 5, 6 players; standard rules"),
}
"""Names retired from the registry (issue 46: it names only what a user would pick) → the shipped
file that still plays them (``npz:`` weights, or a ``population:`` manifest) and what it was; a
``docs/`` path is a file of the repository, outside the wheel.  ``champion-v4``'s original-rules
weights are ``champion-original.npz`` (seed 1: ``docs/reference/retired/champion-original-s1.npz``;
``champion-mix-v4``'s: ``docs/reference/retired/champion-mix-original.json``)."""


def retired(spec: str) -> str | None:
    """For a retired name (or its ``-greedy`` form): the error that says so and names the spec that
    plays its weights now; else None."""
    name = spec.removesuffix("-greedy")
    if name not in RETIRED:
        return None
    file, what = RETIRED[name]
    path = file if file.startswith("docs/") else resources.files("hoity_env.agents") / "models" / file
    where = " (a file of the repository, not of the wheel)" if file.startswith("docs/") else ""
    prefix = "population:" if file.endswith(".json") else "npz:"
    greedy = " (by sampling: no greedy form)" if spec != name else ""
    return (
        f"named agent {spec!r} was retired (issue 46; {what}): the registry names champion, "
        f"champion-mix, reference and the scripted agents; its weights play as {prefix}{path}{where}{greedy}"
    )


@dataclasses.dataclass(frozen=True)
class Entry:
    """One table of one named agent: the file that plays it."""

    name: str
    rules: str
    num_players: int
    file: str
    """A file name under ``hoity_env/agents/models/`` (or ``FOLDER/population.json``)."""

    @property
    def kind(self) -> str:
        """``"model"`` (numpy weights) or ``"population"`` (a manifest)."""
        return KINDS["." + self.file.rsplit(".", 1)[-1]]

    @property
    def stem(self) -> str:
        return self.file.rsplit(".", 1)[0]


def table_text(rules: str, num_players: int) -> str:
    """``"4 players, standard rules"``."""
    return f"{num_players} players, {rules} rules"


def _table_key(key: str, where: str) -> Table:
    rules, _, players = key.partition("/")
    if rules not in PRESETS or not players.isdigit() or not MIN_PLAYERS <= int(players) <= MAX_PLAYERS:
        raise ConfigError(
            f"{where}: table {key!r} is not RULES/PLAYERS: a preset ({', '.join(PRESETS)}), 2-6 players"
        )
    return rules, int(players)


def _population_folder(folder: str, name: str) -> bool:
    """Whether ``folder/name`` is a population shipped with its own members: ``FOLDER/population.json``
    one level down, its ``npz:`` members beside it
    (``hoity-export --population``)."""
    return name == "population.json" and "/" not in folder and folder not in ("", ".", "..")


class Registry:
    """The registry's contents, checked: ``{"format": "hoity-agents/1", "files": …, "agents": …}``.

    ``files`` lists every shipped file with the checkpoint (in the repository) a ``.npz`` is exported
    from; ``agents`` maps each name's tables (``RULES/PLAYERS``) to a file.  A padded policy is listed at
    each of its tables; a population with members of its own is a folder, ``FOLDER/population.json`` with
    its ``npz:`` member files beside it.  All of a name's files are of one kind (policies or populations).
    """

    def __init__(self, data: Any, where: str = "registry.json") -> None:
        if not isinstance(data, dict) or data.get("format") != REGISTRY_FORMAT:
            raise ConfigError(f"{where}: not a {REGISTRY_FORMAT!r} registry")
        files, agents = data.get("files"), data.get("agents")
        if not isinstance(files, dict) or not isinstance(agents, dict):
            raise ConfigError(f"{where}: needs a 'files' object and an 'agents' object")
        self.sources: dict[str, str | None] = {}
        """Every shipped file → the checkpoint it is exported from (None for a population)."""
        for file, source in files.items():
            folder, _, name = file.rpartition("/")
            nested = "/" in file and not _population_folder(folder, name)
            if "." + file.rsplit(".", 1)[-1] not in KINDS or nested:
                raise ConfigError(
                    f"{where}: file {file!r} is not a .npz or .json name in the models folder, or a "
                    "FOLDER/population.json there"
                )
            if (file.endswith(".npz")) != isinstance(source, str):
                raise ConfigError(f"{where}: file {file!r}: a .npz needs its source checkpoint, a .json none")
            self.sources[file] = source
        self.entries: list[Entry] = []
        for name, tables in agents.items():
            if not isinstance(tables, dict) or not tables:
                raise ConfigError(f"{where}: agent {name!r} needs a non-empty object of tables")
            for key, file in tables.items():
                rules, n = _table_key(key, f"{where}: agent {name!r}")
                if file not in self.sources:
                    raise ConfigError(f"{where}: agent {name!r} at {key!r} names {file!r}, not in 'files'")
                self.entries.append(Entry(name, rules, n, file))
            if len({e.kind for e in self.entries if e.name == name}) != 1:
                raise ConfigError(f"{where}: agent {name!r} mixes policies and populations")

    def names(self, kind: str) -> tuple[str, ...]:
        """The names of ``kind`` (``"model"`` or ``"population"``), in registry order."""
        return tuple(dict.fromkeys(e.name for e in self.entries if e.kind == kind))

    def tables(self, name: str) -> list[Table]:
        """The tables ``name`` plays, sorted."""
        return sorted((e.rules, e.num_players) for e in self.entries if e.name == name)

    def entry(self, name: str, table: Table) -> Entry | None:
        return next((e for e in self.entries if e.name == name and (e.rules, e.num_players) == table), None)


@functools.cache
def registry() -> Registry:
    """The package's registry, read once per process."""
    resource = resources.files("hoity_env.agents") / "models" / "registry.json"
    return Registry(json.loads(resource.read_text(encoding="utf-8")), "hoity_env/agents/models/registry.json")


def table_of(rules: str | RulesConfig | None, num_players: int | None) -> tuple[str | None, int]:
    """The table of a game: ``(preset name, players)``; the preset is None for rules that differ from
    every preset.  Unnamed parts are :data:`DEFAULT_TABLE`'s."""
    n = DEFAULT_TABLE[1] if num_players is None else num_players
    if rules is None:
        return DEFAULT_TABLE[0], n
    if isinstance(rules, str):
        if rules not in PRESETS:
            raise ConfigError(f"unknown rules preset {rules!r}; choose one of {sorted(PRESETS)}")
        return rules, n
    for name, preset in PRESETS.items():
        if dataclasses.replace(rules, name=preset.name) == preset:  # the preset, whatever its label
            return name, n
    return None, n


def _changed(rules: RulesConfig) -> str:
    """The fields in which ``rules`` differ from the preset of its ruleset, for the error."""
    preset = next((p for p in PRESETS.values() if p.ruleset == rules.ruleset), None)
    if preset is None:
        return f"ruleset {rules.ruleset!r}"
    fields = [f.name for f in dataclasses.fields(rules) if f.name != "name"]
    changed = [f for f in fields if getattr(rules, f) != getattr(preset, f)]
    return f"{', '.join(changed)} differ{'s' if len(changed) == 1 else ''} from the {preset.name} preset"


def resolve(name: str, rules: str | RulesConfig | None = None, num_players: int | None = None) -> Entry:
    """The registry entry of ``name`` for the game's table; one clear error where it has none."""
    reg = registry()
    plays = "; ".join(table_text(*t) for t in reg.tables(name))
    if not plays:
        raise ConfigError(retired(name) or f"no named agent {name!r} in the registry")
    preset, n = table_of(rules, num_players)
    if preset is None:
        assert isinstance(rules, RulesConfig)
        raise ConfigError(
            f"{name} plays only preset rules, and these are changed ({_changed(rules)}); "
            f"{name} plays at: {plays}"
        )
    entry = reg.entry(name, (preset, n))
    if entry is None:
        raise ConfigError(f"{name} has no agent for {table_text(preset, n)}; {name} plays at: {plays}")
    return entry
