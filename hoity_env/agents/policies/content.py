"""What an agent spec plays, as a hash of its files: the same spec string can name another policy.

A ``ppo:PATH`` spec names a file, and the file can change under the same name (a run that went on, a model
retrained to the same path).  Anything that keeps a measurement of an agent to reuse later (the ladder's
finished best responses, :mod:`hoity_env.strength.ladder`) keys it by :func:`content_hash` as well as by the
spec, so a replaced file is measured again.  Hashing reads bytes only: nothing is unpickled or built here.
See docs/evaluation.md (The ladder).
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Any

from hoity_env.agents.policies.named import GREEDY_SUFFIX, NAMED_AGENTS
from hoity_env.agents.policies.population import (
    NAMED_POPULATIONS,
    PATH_PREFIXES,
    POPULATION_PREFIX,
    named_population,
    read_population,
    resolve_spec,
)
from hoity_env.agents.policies.registry import resolve
from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import ConfigError
from hoity_env.files import open_file

__all__ = ["content_hash"]

_CHUNK = 1 << 20
_MAX_BYTES = 1 << 40
"""No file an agent plays is larger; the bound only keeps a hostile file from being read forever."""


def _update(digest: Any, path: Path) -> None:
    """Feed ``path``'s bytes to ``digest`` a chunk at a time (a checkpoint can be large); a FIFO,
    a device or a missing file is refused before it is opened (:func:`~hoity_env.files.open_file`)."""
    with open_file(path, f"cannot identify the agent: {path}", max_bytes=_MAX_BYTES) as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)


def _path_hash(path: Path) -> str:
    """SHA-256 of a file, or of a folder's files (each one's relative path, then its bytes)."""
    digest = hashlib.sha256()
    try:
        if path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                digest.update(str(file.relative_to(path)).encode() + b"\0")
                _update(digest, file)
        else:
            _update(digest, path)
    except OSError as exc:
        raise ConfigError(f"cannot read {path} to identify the agent: {exc.strerror or exc}") from None
    return f"sha256:{digest.hexdigest()}"


def _population_hash(manifest: Path, rules: str | RulesConfig | None, num_players: int | None) -> str:
    """The manifest's bytes, then each member's spec as written and the hash of what it resolves to
    (the spec as written, not resolved: a population hashes the same wherever it is installed)."""
    digest = hashlib.sha256(_path_hash(manifest).encode())
    for member in read_population(manifest):
        spec = resolve_spec(member.spec, manifest.parent)
        played = content_hash(spec, rules=rules, num_players=num_players)
        digest.update(f"\0{member.spec}\0{played}".encode())
    return f"sha256:{digest.hexdigest()}"


def content_hash(spec: str, *, rules: str | RulesConfig | None = None, num_players: int | None = None) -> str:
    """``sha256:<hex>`` of what ``spec`` plays at the table of ``rules`` and ``num_players`` (None:
    standard, 4 players); ``""`` for a scripted agent (its code is the package's).

    * ``ppo:``, ``ppo-sample:``, ``npz:``, ``rllib:`` ``PATH``: the file's bytes (of a folder: of every
      file in it, by relative path);
    * ``population:PATH`` and the named populations: the manifest's bytes and each member's spec and hash,
      members resolved as :class:`~hoity_env.agents.policies.population.PopulationAgent` resolves them;
    * the named agents: their shipped weights' file for the table, as ``make`` loads it.
    """
    for prefix in PATH_PREFIXES:
        if spec.startswith(prefix):
            return _path_hash(Path(spec[len(prefix) :]))
    if spec.startswith(POPULATION_PREFIX):
        return _population_hash(Path(spec[len(POPULATION_PREFIX) :]), rules, num_players)
    if spec in NAMED_POPULATIONS:
        return _population_hash(named_population(spec, rules, num_players), rules, num_players)
    if spec in NAMED_AGENTS:
        entry = resolve(spec.removesuffix(GREEDY_SUFFIX), rules, num_players)
        return _path_hash(Path(str(resources.files("hoity_env.agents") / "models" / entry.file)))
    return ""
