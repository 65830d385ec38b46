"""Population weights from the meta-solver: play a population's members against each other, solve, ship.

:func:`solve_population` turns a population manifest (a league's ``population.json``, equal
weights) into one weighted by the meta-solver, in a run folder ``OUT``::

    meta.json       the settings and the members with their content hashes (a resumed run must match)
    cells.json      every finished cell, table and check (:mod:`hoity_env.league.meta_table`),
                    rewritten atomically after each, so an interrupted run resumes where it stopped
    population/     the solved population: population.json and the kept members' files
    solution.json   the payoff table, every member's weight, the gap, the check: the run is over
    result.md       the table ``hoity-eval meta`` prints (:mod:`hoity_env.league.meta_result`)

Steps: the payoff table (``A[i, j]``: member ``i``'s score against ``N - 1`` copies of ``j``),
the meta-solver (:mod:`hoity_env.league.meta`) on it, then the **shipped mixture**: members
whose weight is below ``threshold`` times the largest are dropped and the rest renormalised.
It is written as a population folder of its own (the manifest and copies of the kept
members' files, at the same relative paths), which can be moved, played as
``population:OUT/population/population.json`` and shipped as it is.  Finally **the check**
plays every member (the dropped ones too) against ``N - 1`` copies of that population, each
drawing its own member per game, exactly as it is seated when it ships, from the seed
``seed + 1`` (other deals than the table's, which the solution was fitted to).  At
equilibrium no member scores above the fair share ``1/N`` there; the largest gain over it,
with its 95% interval, is the measured gap, beside the table's (which at 3-6 players rests
on the table's approximation).

Nothing is written before every setting and member has been checked (every member is built
for the table); an existing ``OUT`` is never overwritten: it must be missing or empty, or
(``resume=True``) hold an unfinished run of the same settings.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from hoity_env.agents.policies.content import content_hash
from hoity_env.agents.policies.population import (
    NAMED_POPULATIONS,
    PATH_PREFIXES,
    POPULATION_PREFIX,
    Member,
    any_paths_allowed,
    check_inside,
    named_population,
    read_population,
    resolve_spec,
    write_population,
)
from hoity_env.engine.config import resolve_rules, validate_num_players
from hoity_env.engine.errors import ConfigError
from hoity_env.evaluation.harness import check_specs
from hoity_env.evaluation.settings import positive_int
from hoity_env.files import hold_lock, write_atomically
from hoity_env.league.meta import MetaSolution, SolverSettings, deviation_gap, expected_payoffs, solve
from hoity_env.league.meta_result import MetaMember, MetaResult, score_interval
from hoity_env.league.meta_table import (
    CellFile,
    CellResult,
    check_cells,
    payoff_matrix,
    play_cells,
    table_cells,
)

__all__ = ["DEFAULT_THRESHOLD", "MetaSettings", "population_manifest", "shipped_weights", "solve_population"]

logger = logging.getLogger(__name__)

META_FORMAT = "hoity-meta/1"
LOCK_FILE = ".hoity-meta.lock"
DEFAULT_THRESHOLD = 0.01
"""Members below 1% of the largest weight are dropped from the shipped population."""


@dataclasses.dataclass(frozen=True)
class MetaSettings:
    """One meta-solver run (checked when built; see the module docstring).

    Attributes:
        population: the manifest (``population.json``) whose members are weighed.
        num_players: the table's player count, 2-6.
        rules: the rules preset.
        games: games per cell of the payoff table (rounded up to whole deals).
        check_games: games per member in the check (``None``: ``games``).
        seed: the table's evaluation seed (the check's is ``seed + 1``) and the solver's.
        threshold: members whose weight is below this fraction of the largest are dropped.
        workers: processes playing cells at once (the results do not depend on it).
        blas_threads: numpy's BLAS threads in the games (:class:`~hoity_env.evaluation.MatchSettings`).
        solver: how hard the meta-solver works.
    """

    population: Path
    num_players: int
    rules: str = "standard"
    games: int = 300
    check_games: int | None = None
    seed: int = 0
    threshold: float = DEFAULT_THRESHOLD
    workers: int = 1
    blas_threads: int | None = None
    solver: SolverSettings = dataclasses.field(default_factory=SolverSettings)

    def __post_init__(self) -> None:
        set_field = object.__setattr__  # frozen: normalise the checked values in place
        set_field(self, "population", Path(self.population))
        set_field(self, "num_players", validate_num_players(self.num_players))
        if not isinstance(self.rules, str):
            raise ConfigError(f"rules must be a preset name, got {self.rules!r}")
        resolve_rules(self.rules)
        positive_int("games", self.games)
        if self.check_games is not None:
            positive_int("check_games", self.check_games)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be an int >= 0, got {self.seed!r}")
        threshold = self.threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold < 1:
            raise ConfigError(f"threshold must be a number in [0, 1), got {threshold!r}")
        positive_int("workers", self.workers)
        if self.blas_threads is not None:
            positive_int("blas_threads", self.blas_threads)
        if not isinstance(self.solver, SolverSettings):
            raise ConfigError(f"solver must be a SolverSettings, got {self.solver!r}")

    @property
    def games_checked(self) -> int:
        """Games per member in the check."""
        return self.check_games if self.check_games is not None else self.games

    def record(self) -> dict[str, Any]:
        """What a resumed run must match (``workers`` and ``blas_threads`` change no result)."""
        return {
            "population": str(self.population.resolve()),
            "players": self.num_players,
            "rules": self.rules,
            "games": self.games,
            "check_games": self.games_checked,
            "seed": self.seed,
            "threshold": self.threshold,
            "solver": dataclasses.asdict(self.solver),
        }


def population_manifest(text: str, rules: str = "standard", num_players: int | None = None) -> Path:
    """The manifest a ``--population`` value names: a named population (its manifest for the
    table), a ``population:PATH`` spec, a folder holding ``population.json``, or the file itself."""
    if text in NAMED_POPULATIONS:
        return named_population(text, rules, num_players)
    path = Path(text.removeprefix(POPULATION_PREFIX))
    if path.is_dir():
        path = path / "population.json"
    if not path.is_file():
        raise ConfigError(f"population manifest not found: {path}")
    return path


def _members(settings: MetaSettings) -> tuple[tuple[Member, ...], list[str]]:
    """The manifest's members and their playable specs, checked: inside the manifest's folder (unless
    allowed otherwise), distinct, and each one built for the table."""
    path = settings.population.resolve()  # the cells name members by absolute path: a resume from
    members = read_population(path)  # another working folder plays the same cells
    if not any_paths_allowed():
        for i, m in enumerate(members):
            check_inside(m.spec, i, path)
    specs = [resolve_spec(m.spec, path.parent) for m in members]
    if len(members) < 2:
        raise ConfigError(f"population {path}: a meta-solver needs at least 2 members, got {len(members)}")
    seen: dict[str, int] = {}
    for i, spec in enumerate(specs):
        if spec in seen:
            raise ConfigError(
                f"population {path}: members[{seen[spec]}] and members[{i}] are the same agent {spec!r}"
            )
        seen[spec] = i
    for i, spec in enumerate(specs):
        try:
            check_specs([spec] * settings.num_players, settings.num_players, settings.rules)
        except ConfigError as exc:
            raise ConfigError(f"population {path}: members[{i}] {members[i].spec!r}: {exc}") from exc
    return members, specs


def _run_record(settings: MetaSettings, members: Sequence[Member], specs: Sequence[str]) -> dict[str, Any]:
    hashes = [content_hash(s, rules=settings.rules, num_players=settings.num_players) for s in specs]
    return {
        "format": META_FORMAT,
        **settings.record(),
        "members": [
            {"spec": m.spec, "origin": m.origin, "hash": h} for m, h in zip(members, hashes, strict=True)
        ],
    }


def _check_folder(out: Path, record: dict[str, Any], resume: bool) -> None:
    """Refuse a folder this run must not write to (before anything is written)."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a folder")
    if (out / "solution.json").exists():
        raise ConfigError(f"{out} holds a finished meta-solver run (solution.json): choose another folder")
    meta = out / "meta.json"
    if not resume:
        if meta.exists():
            raise ConfigError(
                f"{out} holds an unfinished meta-solver run: resume it (--resume) or choose another folder"
            )
        if out.is_dir() and any(out.iterdir()):
            raise ConfigError(
                f"{out} is not empty: choose a new or empty folder (results never overwrite files)"
            )
        return
    if not meta.is_file():
        raise ConfigError(f"nothing to resume in {out}: no meta.json")
    try:
        before = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{meta}: not readable ({exc})") from None
    if not isinstance(before, dict):
        raise ConfigError(f"{meta}: not a meta-solver run")
    changed = sorted(key for key in set(before) | set(record) if before.get(key) != record.get(key))
    if changed:
        raise ConfigError(
            f"{out} was started with other settings or members ({', '.join(changed)} differ): "
            "resume it with the same flags and files, or choose another folder"
        )


@contextmanager
def _claimed(out: Path, record: dict[str, Any], resume: bool) -> Iterator[None]:
    """The run folder, made and locked for this run (``meta.json`` written when it is new)."""
    out.mkdir(parents=True, exist_ok=True)
    with hold_lock(out / LOCK_FILE, lambda pid: ConfigError(f"{out} is in use by another run (pid {pid})")):
        if not resume:
            write_atomically(out / "meta.json", json.dumps(record, indent=1) + "\n")
        yield


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


def _write_population(
    folder: Path, members: Sequence[Member], source: Path, weights: np.ndarray
) -> list[Member]:
    """Write the shipped population to ``folder`` (made whole under a temporary name, then renamed):
    its manifest and copies of the kept members' files at their relative paths.  Returns its members."""
    kept: list[Member] = []
    copies: list[tuple[Path, Path]] = []
    taken: set[Path] = set()
    for i, (member, weight) in enumerate(zip(members, weights, strict=True)):
        if weight <= 0:
            continue
        named = _member_file(member.spec)
        spec = member.spec
        if named is not None:
            prefix, path = named
            relative = path if not path.is_absolute() and ".." not in path.parts else Path(path.name)
            if relative in taken:
                relative = Path(f"{i}-{path.name}")
            taken.add(relative)
            copies.append((path if path.is_absolute() else source.parent / path, relative))
            spec = f"{prefix}{relative.as_posix()}"
        kept.append(Member(spec, float(weight), member.origin))
    if folder.exists():  # written by a run that stopped after it: it must be this solution's
        if read_population(folder / "population.json") != tuple(kept):
            raise ConfigError(
                f"{folder} holds another population than this run's solution: remove it to redo it"
            )
        return kept
    partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".partial", dir=folder.parent))
    try:
        for src, relative in copies:
            target = partial / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, target)
            else:
                shutil.copy2(src, target)
        write_population(partial / "population.json", kept)
        os.chmod(partial, 0o777 & ~_umask())  # mkdtemp's folder is private; a result folder is not
        os.rename(partial, folder)
    finally:
        if partial.exists():
            shutil.rmtree(partial)
    return kept


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def solve_population(settings: MetaSettings, out: str | Path, *, resume: bool = False) -> MetaResult:
    """Weigh the members of ``settings.population`` by the meta-solver in the run folder ``out``.

    See the module docstring for the steps and the files.  Bad settings, members that do not
    play at the table, or a folder that is taken raise :class:`ConfigError` before anything is
    written; ``resume=True`` continues an unfinished run of the same settings in ``out``.
    """
    out = Path(out)
    members, specs = _members(settings)
    record = _run_record(settings, members, specs)
    _check_folder(out, record, resume)
    n, rules, k = settings.num_players, settings.rules, len(members)
    with _claimed(out, record, resume):
        store = CellFile(out / "cells.json")
        cells = table_cells(specs, n, rules, settings.games, settings.seed)
        results = play_cells(cells, store, workers=settings.workers, blas_threads=settings.blas_threads)
        payoffs = payoff_matrix(results, k, n)
        solution = solve(payoffs, settings.solver, seed=settings.seed)
        shipped = shipped_weights(solution.weights, settings.threshold)
        logger.info(
            "solved: gap %.5f (%s); %d of %d members kept",
            solution.gap,
            solution.method,
            int((shipped > 0).sum()),
            k,
        )
        folder = out / "population"
        _write_population(folder, members, settings.population, shipped)
        manifest = folder.resolve() / "population.json"
        check = check_cells(
            specs, f"{POPULATION_PREFIX}{manifest}", n, rules, settings.games_checked, settings.seed + 1
        )
        checked = play_cells(check, store, workers=settings.workers, blas_threads=settings.blas_threads)
        result = _result(settings, members, payoffs, solution, shipped, checked, manifest)
        write_atomically(out / "result.md", result.to_markdown() + "\n")
        write_atomically(out / "solution.json", json.dumps(result.to_dict(), indent=1) + "\n")
    return result


def _result(
    settings: MetaSettings,
    members: Sequence[Member],
    payoffs: np.ndarray,
    solution: MetaSolution,
    shipped: np.ndarray,
    checked: dict[str, CellResult],
    manifest: Path,
) -> MetaResult:
    values = expected_payoffs(payoffs, shipped)
    rows = []
    for i, member in enumerate(members):
        cell = checked[f"check:{i}"]
        score = cell.score(0)
        low, high = score_interval(score, cell.games)
        rows.append(
            MetaMember(
                spec=member.spec,
                origin=member.origin,
                weight=solution.weights[i],
                shipped_weight=float(shipped[i]),
                value=float(values[i]),
                check_games=cell.games,
                check_score=score,
                check_low=low,
                check_high=high,
            )
        )
    return MetaResult(
        population=str(settings.population),
        num_players=settings.num_players,
        rules=settings.rules,
        games=settings.games,
        seed=settings.seed,
        threshold=settings.threshold,
        members=tuple(rows),
        payoffs=tuple(tuple(float(x) for x in row) for row in payoffs),
        gap=solution.gap,
        shipped_gap=deviation_gap(payoffs, shipped),
        method=solution.method,
        iterations=solution.iterations,
        manifest=str(manifest),
    )
