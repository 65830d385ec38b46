"""A solved mixture as a population folder of its own: which members it keeps, and their files copied.

The meta-solver ships its mixture, and PSRO trains each best response against the mixture of its
iteration, as such a folder (``population.json`` and copies of the kept members' files at their
relative paths), so that it plays as ``population:FOLDER/population.json``, moves and ships as it is.
See docs/league.md (weighing a population).
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hoity_env.agents.policies.population import (
    PATH_PREFIXES,
    POPULATION_PREFIX,
    Member,
    member_specs,
    normalised,
    read_population,
    write_population,
)
from hoity_env.engine.errors import ConfigError
from hoity_env.files import folder_atomically, scratch_folders

__all__ = ["shipped_weights", "write_population_folder"]

logger = logging.getLogger(__name__)


def shipped_weights(weights: Sequence[float], threshold: float) -> np.ndarray:
    """``weights`` without those below ``threshold`` times the largest (nor those of weight 0, which a
    manifest cannot hold), renormalised; the dropped ones are 0."""
    w = np.asarray(weights, dtype=np.float64)
    kept = np.where(w >= threshold * w.max(), w, 0.0)
    kept[w <= 0] = 0.0
    out: np.ndarray = kept / kept.sum()
    return out


def _member_file(spec: str) -> tuple[str, Path] | None:
    """A member spec's prefix and the file (or folder) it names, if it names one."""
    for prefix in PATH_PREFIXES:
        if spec.startswith(prefix):
            return prefix, Path(spec[len(prefix) :])
    return None


def _flattened(
    members: Sequence[Member], specs: Sequence[str], weights: np.ndarray
) -> list[tuple[Member, str, float]]:
    """Each member, spec and weight, a population member replaced by its own members at their shares."""
    out: list[tuple[Member, str, float]] = []
    for member, spec, weight in zip(members, specs, weights, strict=True):
        if not spec.startswith(POPULATION_PREFIX):
            out.append((member, spec, float(weight)))
            continue
        manifest = Path(spec[len(POPULATION_PREFIX) :])
        inner = read_population(manifest)
        shares = normalised([m.weight for m in inner])
        resolved = member_specs(manifest, inner)
        out += [(m, s, float(weight * p)) for m, s, p in zip(inner, resolved, shares, strict=True)]
    return out


def write_population_folder(
    folder: Path, members: Sequence[Member], specs: Sequence[str], weights: np.ndarray
) -> list[Member]:
    """Write the members of positive ``weights`` as the population folder ``folder``; returns its members.

    ``members`` are as written (a relative file keeps its relative path in the folder; an
    absolute one, or one reaching out with ``..``, is copied by its file name), ``specs`` the
    same members resolved (where their files are read); a population member (``population:PATH``)
    is written as its members, each at its share of its weight (a manifest holds no population).
    The folder is made whole under a
    hidden name and renamed (:func:`~hoity_env.files.folder_atomically`); one that exists was
    written by an earlier run of the caller, and must hold these members (else a
    :class:`ConfigError`).  The caller holds its run folder's lock: scratch folders a killed
    writer left beside ``folder`` are removed first.
    """
    kept: list[Member] = []
    copies: list[tuple[Path, Path]] = []
    taken: set[Path] = set()
    for i, (member, spec, weight) in enumerate(_flattened(members, specs, weights)):
        if weight <= 0:
            continue
        written, read = _member_file(member.spec), _member_file(spec)
        shipped = member.spec
        if written is not None and read is not None:
            prefix, path = written
            relative = path if not path.is_absolute() and ".." not in path.parts else Path(path.name)
            if relative in taken:
                relative = Path(f"{i}-{path.name}")
            taken.add(relative)
            copies.append((read[1], relative))
            shipped = f"{prefix}{relative.as_posix()}"
        kept.append(Member(shipped, float(weight), member.origin))
    if folder.exists():  # written by a run that stopped after it: it must be this mixture
        if read_population(folder / "population.json") != tuple(kept):
            raise ConfigError(
                f"{folder} holds another population than this run's mixture: remove it to redo it"
            )
        return kept
    folder.parent.mkdir(parents=True, exist_ok=True)
    for left in scratch_folders(folder):
        shutil.rmtree(left, ignore_errors=True)
        logger.warning("removed %s, left by a run that was killed while writing %s", left, folder)
    with folder_atomically(folder) as scratch:
        for source, relative in copies:
            target = scratch / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target)
            else:
                shutil.copy2(source, target)
        write_population(scratch / "population.json", kept)
    return kept
