"""The population manifest, ``population.json``: its members, checked, and where their files may lie.

The format (:func:`read_population`, :func:`write_population`)::

    {"format": "hoity-population/1",
     "members": [{"spec": "ppo-sample:members/main_final.zip", "weight": 0.5,
                  "origin": "main agent, 3,000,000 steps"},
                 {"spec": "expert", "weight": 0.25, "origin": "zoo"}]}

Member specs are any :func:`hoity_env.agents.make` spec except another population
(no recursion); a relative path inside one (``ppo:``, ``ppo-sample:``, ``npz:``, ``rllib:``)
is relative to the manifest's folder, so a saved league can be moved as a whole.
Weights must be positive and finite; :func:`normalised` makes them probabilities
(divided by the largest first, so ``1e308, 1e308`` is half and half, not an overflow to
infinity).  ``origin`` is free text.  A manifest is untrusted JSON: anything malformed,
nested too deeply included, is one :class:`ConfigError` naming the file and the field.

A manifest is as dangerous as the checkpoints it names (a ``ppo:`` member is a pickle,
run when loaded), so by default a member's file must lie inside the manifest's folder
(:func:`check_inside`): an absolute path, or one that leaves the folder (``../``, a
symbolic link pointing out), is refused before anything is loaded.  A user who trusts a
manifest that names files elsewhere allows it explicitly: ``member_specs(...,
any_paths=True)``, or, for every command and worker process, the environment variable
``HOITY_POPULATION_PATHS=any`` (:data:`PATHS_VARIABLE`; ``inside``, the default, keeps the rule).
The agent that plays a manifest is :mod:`hoity_env.agents.policies.population`.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.bots import SCRIPTED
from hoity_env.agents.policies.named import NAMED_AGENTS
from hoity_env.agents.policies.registry import registry, resolve
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError
from hoity_env.files import write_atomically

__all__ = [
    "NAMED_POPULATIONS",
    "PATHS_VARIABLE",
    "PATH_PREFIXES",
    "POPULATION_FORMAT",
    "POPULATION_PREFIX",
    "Member",
    "any_paths_allowed",
    "check_inside",
    "check_member",
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
``hoity_env/agents/models/``."""
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
    except RecursionError:  # a hostile file nested deeper than the parser's stack
        raise ConfigError(f"population {path}: not a manifest (JSON nested too deeply to read)") from None
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
    if named.is_absolute() or not (folder / named).resolve().is_relative_to(folder):
        raise ConfigError(
            f"{_where(path, f'members[{index}].spec')} {spec!r} names a file outside the manifest's "
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
